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
    let note = crew::vault::note::Note::parse("fuzz.md", data);
    let _ = note.properties();
    let edited = crew::vault::edit::set_frontmatter_keys(&text, &[("status", Some("filed".into())), ("gone", None)]);
    let again = crew::vault::note::Note::parse_text("fuzz.md", &edited);
    let _ = again.property_str("status");
});
