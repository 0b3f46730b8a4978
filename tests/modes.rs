//! Modes: the dispatcher reads once, from the agent's `## Modes` phrases, which mode the
//! routed agent runs, and `crew route` shows it. A word of a phrase alone switches nothing.

mod common;

use std::path::Path;

use common::{crew, json_of, vault};

fn route(v: &Path, message: &str) -> serde_json::Value {
    json_of(crew(v).args(["route", "--json", message]))
}

fn ask(v: &Path, args: &[&str]) -> serde_json::Value {
    json_of(crew(v).args(["ask", "--json"]).args(args))
}

#[test]
fn priority_triage_is_the_sorters_mode_and_the_route_shows_it() {
    let v = vault(&[]);
    let r = route(v.path(), "priority triage");
    assert_eq!(
        (r["name"].as_str(), r["mode"].as_str()),
        (Some("sorter"), Some("priority-triage")),
        "{r}"
    );
    let out = crew(v.path())
        .args(["route", "priority triage"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("agent sorter, mode priority-triage"),
        "{text}"
    );
    // a request without a mode phrase keeps the JSON shape the CLI contract fixes
    let r = route(v.path(), "file my notes");
    assert!(r.get("mode").is_none(), "{r}");
}

#[test]
fn the_word_priority_alone_does_not_switch_the_sorter() {
    let v = vault(&[(
        "00-Inbox/Roof repair.md",
        "---\ndeadline: 2020-01-01\n---\nCall the roofer.\n",
    )]);
    let r = route(v.path(), "@sorter what is the priority of the roof repair");
    assert_eq!(r["name"], "sorter", "{r}");
    assert!(r.get("mode").is_none(), "{r}");
    let j = ask(
        v.path(),
        &[
            "--dry-run",
            "@sorter what is the priority of the roof repair",
        ],
    );
    assert!(j["route"].get("mode").is_none(), "{j}");
    let priority = ask(v.path(), &["--dry-run", "@sorter priority triage"]);
    assert_eq!(priority["route"]["mode"], "priority-triage", "{priority}");
    assert_ne!(
        j["chain"][0]["output"], priority["chain"][0]["output"],
        "the question ran the default mode, not priority triage"
    );
}

#[test]
fn a_quote_inside_a_request_is_no_quote_capture() {
    let v = vault(&[]);
    let r = route(v.path(), "get a quote for the tiles");
    assert_ne!(r["mode"], "quote-capture", "{r}");
    let r = route(v.path(), "@scribe get a quote for the tiles");
    assert!(r.get("mode").is_none(), "{r}");
    let j = ask(v.path(), &["@scribe get a quote for the tiles"]);
    let ops = j["chain"][0]["operations"].as_array().expect("operations");
    let written = ops
        .iter()
        .find_map(|o| o["path"].as_str().filter(|p| p.starts_with("00-Inbox/")))
        .expect("a note in the inbox");
    let note = std::fs::read_to_string(v.path().join(written)).expect("note");
    assert!(!note.contains("type: quote"), "{note}");

    // a quote capture asked for is one: the phrase leads, or a colon follows it
    let r = route(v.path(), "quote: Stay hungry, stay foolish");
    assert_eq!(
        (r["name"].as_str(), r["mode"].as_str()),
        (Some("scribe"), Some("quote-capture")),
        "{r}"
    );
    let j = ask(v.path(), &["quote: Stay hungry, stay foolish"]);
    let written = j["chain"][0]["operations"][0]["path"]
        .as_str()
        .expect("a note");
    let note = std::fs::read_to_string(v.path().join(written)).expect("note");
    assert!(
        note.contains("type: quote") && note.contains("> Stay hungry"),
        "{note}"
    );
}

#[test]
fn an_installed_crew_without_modes_keeps_the_built_in_ones() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault");
    let v = assert_fs::TempDir::new().expect("tmp");
    common::copy_dir(&src, v.path());
    let sorter =
        std::fs::read_to_string(v.path().join(".claude/agents/sorter.md")).expect("sorter");
    assert!(
        !sorter.contains("## Modes"),
        "the fixture's sorter lists no modes"
    );
    let r = route(v.path(), "@sorter prima le urgenti");
    assert_eq!(
        (r["name"].as_str(), r["mode"].as_str()),
        (Some("sorter"), Some("priority-triage")),
        "{r}"
    );
}

#[test]
fn a_custom_agents_own_modes_are_read() {
    let v = vault(&[]);
    crew(v.path()).args(["init", "--adopt"]).assert().success();
    json_of(crew(v.path()).args([
        "agents",
        "new",
        "gardener",
        "--json",
        "--description",
        "Looks after the tags",
        "--triggers",
        "tend the garden",
        "--capabilities",
        "read",
    ]));
    let file = v.path().join(".crew/agents/gardener.md");
    let text = std::fs::read_to_string(&file).expect("agent file");
    std::fs::write(
        &file,
        format!("{text}\n## Modes\n- **Deep prune** — \"prune everything\", \"deep prune\"\n"),
    )
    .expect("write");
    let r = route(v.path(), "tend the garden and prune everything");
    assert_eq!(
        (r["name"].as_str(), r["mode"].as_str()),
        (Some("gardener"), Some("deep-prune")),
        "{r}"
    );
}

#[test]
fn a_mode_phrase_inside_quoted_text_picks_no_mode() {
    // a stranger's words pasted into a request are data: they choose no mode
    let v = vault(&[(
        "00-Inbox/Roof repair.md",
        "---\ndeadline: 2020-01-01\n---\nCall the roofer.\n",
    )]);
    let quoted = "@sorter file this mail: \"priority triage now\"";
    let r = route(v.path(), quoted);
    assert_eq!(r["name"], "sorter", "{r}");
    assert!(r.get("mode").is_none(), "{r}");
    // and the run agrees with the route: the sorter files, it does not run priority triage
    let j = ask(v.path(), &["--dry-run", quoted]);
    assert!(j["chain"][0].get("mode").is_none(), "{j}");
    let priority = ask(v.path(), &["--dry-run", "@sorter priority triage"]);
    assert_ne!(
        j["chain"][0]["output"], priority["chain"][0]["output"],
        "the quoted phrase ran priority triage"
    );
    // the user's own words outside the quote still do
    let r = route(v.path(), "@sorter priority triage of \"Roof repair\"");
    assert_eq!(r["mode"], "priority-triage", "{r}");
}
