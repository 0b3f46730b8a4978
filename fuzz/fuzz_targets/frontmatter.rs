//! The frontmatter splitter and YAML reading, and the key editor, on any text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(block) = crew::vault::markdown::split_frontmatter(&text) {
        assert!(block.yaml.end <= block.block.end && block.block.end <= text.len());
    }
    let note = crew::vault::note::Note::parse("fuzz.md", data);
    let _ = note.properties();
    let edited = crew::vault::edit::set_frontmatter_keys(&text, &[("status", Some("filed".into())), ("gone", None)]);
    let again = crew::vault::note::Note::parse_text("fuzz.md", &edited);
    let _ = again.property_str("status");
});
