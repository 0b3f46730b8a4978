//! The registry table parser and its row editors on any text.
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut diags = Vec::new();
    let reg = crew::crew::registry::parse("fuzz.md", &text, &mut diags);
    for row in &reg.agents {
        let _ = crew::crew::registry::render_agent_row(row);
        let _ = crew::crew::registry::set_custom_status(&text, &row.name, crew::crew::registry::Status::Disabled);
    }
    let _ = crew::crew::registry::insert_custom_row(&text, "| x | y | read | a | b | active |");
});
