//! The frontmatter splitter and YAML reading, the fast path checked against the full parse,
//! and the key editor, on any text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(block) = crew::vault::markdown::split_frontmatter(&text) {
        assert!(block.yaml.end <= block.block.end && block.block.end <= text.len());
    }
    // whenever the fast path answers, it must answer like yaml_serde
    if let Some(fast) = crew::vault::yaml_lite::extract(&text) {
        let (fm, tags, aliases) = crew::vault::note::full_extract(&text);
        assert_eq!(fm, crew::vault::Frontmatter::Parsed, "{text:?}");
        assert_eq!(fast.tags, tags, "{text:?}");
        assert_eq!(fast.aliases, aliases, "{text:?}");
    }
    // the other fast answers (property texts, keys, single properties) against the mapping
    let wrapped = crew::vault::note::Note::parse_text("fuzz.md", &format!("---\n{text}\n---\n"));
    if wrapped.frontmatter_yaml.as_deref() == Some(&*text)
        && let Some(map) = wrapped.properties()
    {
        use crew::vault::note::scalar_to_string;
        if let Some(texts) = crew::vault::yaml_lite::texts(&text) {
            let full: Vec<String> = map.values().filter_map(scalar_to_string).collect();
            assert_eq!(texts, full, "{text:?}");
        }
        let keys: Vec<String> = map.keys().filter_map(|k| k.as_str().map(str::to_string)).take(4).collect();
        for key in keys.iter().map(String::as_str).chain(["tags", "Title", "missing"]) {
            if let Some(has) = crew::vault::yaml_lite::has_key(&text, key) {
                let full = map.keys().any(|k| k.as_str().is_some_and(|k| k.eq_ignore_ascii_case(key)));
                assert_eq!(has, full, "{key} in {text:?}");
            }
            if let Some(value) = crew::vault::yaml_lite::lookup_str(&text, key) {
                let full = crew::vault::note::property_in(map, key).and_then(scalar_to_string);
                assert_eq!(value, full, "{key} in {text:?}");
            }
        }
    }
    let note = crew::vault::note::Note::parse("fuzz.md", data);
    let _ = note.properties();
    let edited = crew::vault::edit::set_frontmatter_keys(&text, &[("status", Some("filed".into())), ("gone", None)]);
    let again = crew::vault::note::Note::parse_text("fuzz.md", &edited);
    let _ = again.property_str("status");
});
