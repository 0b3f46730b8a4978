//! crew's code masking against pulldown-cmark: the same code ranges on any text, but for the
//! allowed differences listed in `tests/oracle/mod.rs` (shared with the tests by path).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/oracle/mod.rs"]
mod oracle;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // the masking itself must never panic and must keep every byte offset
    let masked = crew::vault::markdown::mask_body(text);
    assert_eq!(masked.len(), text.len());
    if oracle::skipped_when_generated(text) {
        return;
    }
    let diffs = oracle::compare(text);
    assert!(diffs.is_empty(), "{text:?}\n{}", oracle::describe(text, &diffs));
});
