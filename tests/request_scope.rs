//! Only the request's notes: saving an email or capturing a note hands the new note to the
//! sorter, which files that note and nothing else of the inbox — an unrelated note the sorter
//! would file stays byte-identical and in place.

mod common;

use std::path::Path;

use assert_fs::TempDir;
use common::{crew, json_of};

/// An inbox note that a triage would file into the Alpha project.
const UNRELATED: &str = "---\nproject: \"[[Alpha]]\"\n---\nTiles for the Alpha kitchen.\n";

/// A vault crew laid out, with a project Alpha and an unrelated note waiting in the inbox.
fn vault_with_unrelated(config: &str) -> TempDir {
    common::vault(&[
        (
            "01-Projects/Alpha/_index.md",
            "---\ntype: project\n---\n# Alpha\n",
        ),
        ("00-Inbox/Unrelated.md", UNRELATED),
        (".crew/config.yaml", config),
    ])
}

fn assert_unrelated_untouched(v: &Path, reply: &serde_json::Value) {
    assert_eq!(
        std::fs::read(v.join("00-Inbox/Unrelated.md"))
            .ok()
            .as_deref(),
        Some(UNRELATED.as_bytes()),
        "the unrelated note stays byte-identical, in the inbox: {reply:#}"
    );
    assert!(!v.join("01-Projects/Alpha/Unrelated.md").exists());
}

/// The agents the request ran, in order.
fn chain(reply: &serde_json::Value) -> Vec<String> {
    reply["chain"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| s["agent"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The notes under `folder` whose name holds `needle`.
fn named(v: &Path, folder: &str, needle: &str) -> Vec<String> {
    std::fs::read_dir(v.join(folder))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.contains(needle))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn saving_an_email_files_that_email_and_nothing_else_of_the_inbox() {
    let md = TempDir::new().expect("tmp");
    for s in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.path().join(s)).expect("mkdir");
    }
    std::fs::write(
        md.path().join("new/1000.alpha.host"),
        "From: Ana Lima <ana@example.org>\r\nSubject: Alpha budget\r\nDate: Mon, 30 Nov 2026 12:00:00 +0000\r\nMessage-ID: <a1@example.org>\r\n\r\nThe Alpha numbers.\r\n",
    )
    .expect("deliver");
    let v = vault_with_unrelated(&format!("mail:\n  maildir: {}\n", md.path().display()));
    let listing = json_of(crew(v.path()).args(["ask", "--json", "check my email"]));
    assert!(
        listing["chain"][0]["output"]
            .as_str()
            .is_some_and(|o| o.contains("1. **Alpha budget**")),
        "{listing:#}"
    );
    let reply = json_of(crew(v.path()).args(["ask", "--json", "save email 1"]));
    assert_eq!(chain(&reply), ["email-triage", "sorter"], "{reply:#}");
    assert_unrelated_untouched(v.path(), &reply);
    // the note the request created was filed: the hand-off still does its work
    assert_eq!(
        named(v.path(), "01-Projects/Alpha", "Email — Alpha budget").len(),
        1,
        "{reply:#}"
    );
    let sorter = reply["chain"][1]["output"].as_str().unwrap_or_default();
    assert!(
        sorter.contains("Filed (1)")
            && sorter.contains("Only the notes this request created were looked at"),
        "{sorter}"
    );
    // saving it again creates nothing: the sorter files nothing, the inbox stays as it is
    let again = json_of(crew(v.path()).args(["ask", "--json", "save email 1"]));
    assert_unrelated_untouched(v.path(), &again);
}

#[test]
fn a_scribe_capture_files_the_captured_note_and_nothing_else_of_the_inbox() {
    let v = vault_with_unrelated("max_depth: 3\n");
    let reply = json_of(crew(v.path()).env("CREW_TODAY", "2026-12-01").args([
        "ask",
        "--json",
        "quick note: call the plumber about Alpha",
    ]));
    assert_eq!(chain(&reply), ["scribe", "sorter"], "{reply:#}");
    assert_unrelated_untouched(v.path(), &reply);
    assert_eq!(
        named(v.path(), "01-Projects/Alpha", "Call the plumber").len(),
        1,
        "{reply:#}"
    );
    assert!(named(v.path(), "00-Inbox", "Call the plumber").is_empty());
}

#[test]
fn asked_for_by_the_user_a_triage_still_files_the_whole_inbox() {
    let v = vault_with_unrelated("max_depth: 3\n");
    let reply = json_of(crew(v.path()).args(["ask", "--json", "file my notes"]));
    assert!(
        v.path().join("01-Projects/Alpha/Unrelated.md").exists(),
        "{reply:#}"
    );
}
