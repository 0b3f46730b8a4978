//! The suggestion-block parser on any agent output: bounded, never empty names.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let s = crew::dispatch::suggest::parse(&text);
    assert!(s.next.len() <= 64 && s.new.len() <= 64);
    assert!(s.next.iter().all(|n| !n.agent.is_empty()));
});
