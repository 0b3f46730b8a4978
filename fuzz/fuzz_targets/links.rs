//! Masking and the link and tag extractors: spans must always point at what they claim.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let note = crew::vault::note::Note::parse_text("fuzz.md", &text);
    for l in note.wikilinks.iter().chain(&note.frontmatter_links) {
        let s = &text[l.span.clone()];
        assert!(s.ends_with("]]"));
        let _ = crew::vault::edit::render_wikilink(l, "target");
    }
    for l in &note.markdown_links {
        assert!(text.is_char_boundary(l.dest_span.start) && text.is_char_boundary(l.dest_span.end));
    }
    let masked = crew::vault::markdown::mask(&text, None);
    assert_eq!(masked.len(), text.len());
    let _ = crew::vault::markdown::inline_tags(&masked);
});
