//! The classifier resolver and the router: every input reaches a declared route.
#![no_main]
use std::sync::LazyLock;

use libfuzzer_sys::fuzz_target;

static CREW: LazyLock<crew::crew::Crew> = LazyLock::new(crew::crew::Crew::builtin);
static ROUTER: LazyLock<crew::dispatch::Router> = LazyLock::new(|| crew::dispatch::Router::new(&CREW));

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let crew = &*CREW;
    let default = crew.lookup(&crew.config.default_route);
    let r = crew::dispatch::route::resolve_classifier_answer(crew, Ok(text.to_string()), default.as_ref());
    assert!(crew.lookup(&r.name).is_some());
    let r = ROUTER.route(crew, &text, &[], None);
    assert!(crew.lookup(&r.name).is_some());
});
