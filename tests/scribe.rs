//! The scribe from the command line: a capture cut into items, task lines with their dates
//! resolved against a pinned day (`CREW_TODAY`), priorities, links to people; and the
//! deadline radar reading dates the way the user writes them.

mod common;

use std::path::Path;

use common::{crew, json_of, vault};
use predicates::prelude::*;

/// Tuesday 1 December 2026.
const TODAY: &str = "2026-12-01";

/// The inbox notes' texts, by file name.
fn inbox(root: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(root.join("00-Inbox"))
        .expect("inbox")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| {
            (
                e.file_name().to_string_lossy().to_string(),
                std::fs::read_to_string(e.path()).expect("note"),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn a_capture_becomes_a_dated_prioritised_linked_task_and_an_idea() {
    let v = vault(&[
        (
            "05-People/Marco Rossi.md",
            "---\ntype: person\n---\n# Marco Rossi\n",
        ),
        ("00-Inbox/.keep", ""),
    ]);
    crew(v.path())
        .env("CREW_TODAY", TODAY)
        .args([
            "ask",
            "quick note: meeting with Marco about the Q3 budget, he needs the revised figures by Friday, urgent. Idea: a shared dashboard for monthly spend.",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("Captured 2 notes"));
    let notes = inbox(v.path());
    assert_eq!(notes.len(), 2, "{notes:#?}");
    let task = notes
        .iter()
        .find(|(n, _)| n.contains(" — Task — "))
        .expect("a task note");
    assert!(
        task.1.contains(
            "- [ ] meeting with [[Marco Rossi|Marco]] about the Q3 budget, he needs the revised figures ⏫ 📅 2026-12-04\n"
        ),
        "{}",
        task.1
    );
    assert!(task.1.contains("type: task\n") && task.1.contains("priority: high\n"));
    assert!(task.0.starts_with("2026-12-01 — Task — "), "{}", task.0);
    let idea = notes
        .iter()
        .find(|(n, _)| n.contains(" — Idea — "))
        .expect("an idea note");
    assert!(
        idea.1.contains("type: idea\n") && idea.1.contains("a shared dashboard for monthly spend")
    );
    assert!(!idea.1.contains("- [ ]"));
}

#[test]
fn the_vaults_dataview_format_and_other_languages() {
    let v = vault(&[
        (
            "Projects/Old.md",
            "- [ ] file taxes [due:: 2026-01-10]\n- [x] done [due:: 2025-01-10]\n",
        ),
        ("00-Inbox/.keep", ""),
    ]);
    let out = json_of(crew(v.path()).env("CREW_TODAY", TODAY).args([
        "ask",
        "--json",
        "--agent",
        "scribe",
        "ricordami di pagare l'affitto entro venerdì prossimo, urgente",
    ]));
    let data = &out["chain"][0]["data"];
    assert_eq!(data["task_format"]["format"], "dataview", "{out}");
    let notes = inbox(v.path());
    assert_eq!(notes.len(), 1);
    assert!(
        notes[0]
            .1
            .contains("- [ ] pagare l'affitto [priority:: high] [due:: 2026-12-11]\n"),
        "{}",
        notes[0].1
    );
}

#[test]
fn a_first_name_two_people_share_is_not_linked() {
    let v = vault(&[
        ("05-People/Marco Rossi.md", "x"),
        ("05-People/Marco Bianchi.md", "x"),
        ("00-Inbox/.keep", ""),
    ]);
    crew(v.path())
        .env("CREW_TODAY", TODAY)
        .args(["ask", "--agent", "scribe", "call Marco tomorrow"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Not linked: \"Marco\" could be [[Marco Bianchi]] or [[Marco Rossi]]",
        ));
    let notes = inbox(v.path());
    assert!(
        notes[0].1.contains("- [ ] call Marco 📅 2026-12-02\n"),
        "{}",
        notes[0].1
    );
}

#[test]
fn a_clock_that_is_not_a_day_is_refused() {
    let v = vault(&[("00-Inbox/.keep", "")]);
    crew(v.path())
        .env("CREW_TODAY", "next tuesday")
        .args(["ask", "--agent", "scribe", "buy milk"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("CREW_TODAY"));
    assert!(inbox(v.path()).is_empty());
}

#[test]
fn the_radar_reads_dates_as_the_user_writes_them() {
    let notes = [
        ("Meta/user-profile.md", "---\nprimary-language: it\n---\n"),
        (
            "Work/Report.md",
            "---\ndeadline: 03/12/2026\n---\n# Report\n",
        ),
        (
            "Work/Rent.md",
            "- [ ] pagare l'affitto entro il 10 dicembre 2026\n",
        ),
    ];
    let v = vault(&notes);
    crew(v.path())
        .env("CREW_TODAY", TODAY)
        .args(["ask", "--agent", "deadline-radar", "deadline radar"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "| 2026-12-03 | [[Report]] (deadline)",
        ))
        .stdout(predicate::str::contains("| 2026-12-10 | [[Rent]] (task)"));
    // an English profile reads the digits month first: 12/03/2026 is 3 December
    let v = vault(&[
        ("Meta/user-profile.md", "---\nprimary-language: en\n---\n"),
        (
            "Work/Report.md",
            "---\ndeadline: 12/03/2026\n---\n# Report\n",
        ),
    ]);
    crew(v.path())
        .env("CREW_TODAY", TODAY)
        .args(["ask", "--agent", "deadline-radar", "deadline radar"])
        .assert()
        .success()
        .stdout(predicate::str::contains("| 2026-12-03 | [[Report]]"));
    // the crew config wins over the profile
    let v = vault(&[
        ("Meta/user-profile.md", "---\nprimary-language: en\n---\n"),
        (".crew/config.yaml", "date_order: dmy\n"),
        (
            "Work/Report.md",
            "---\ndeadline: 03/12/2026\n---\n# Report\n",
        ),
    ]);
    crew(v.path())
        .env("CREW_TODAY", TODAY)
        .args(["ask", "--agent", "deadline-radar", "deadline radar"])
        .assert()
        .success()
        .stdout(predicate::str::contains("| 2026-12-03 | [[Report]]"));
}

/// A brainstorm is one note laid out by crew's sections in the request's language, each line
/// of the text an idea under the first; before, each line became a note of its own.
#[test]
fn a_brainstorm_is_one_note_with_its_sections() {
    let v = vault(&[("00-Inbox/.keep", "")]);
    crew(v.path())
        .env("CREW_TODAY", TODAY)
        .args([
            "ask",
            "brainstorm: capanno in giardino\ntetto verde con sedum\nuna lampada solare sulla porta\nidea: raccogliere l'acqua piovana",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("Salvata 1 nota"));
    let notes = inbox(v.path());
    assert_eq!(notes.len(), 1, "{notes:#?}");
    let (name, text) = &notes[0];
    assert!(name.contains("Capanno in giardino"), "{name}");
    assert!(text.starts_with("---\ntype: brainstorm\n"), "{text}");
    assert!(
        text.contains(
            "# Capanno in giardino\n\n## Idee\n\n- tetto verde con sedum\n- una lampada solare sulla porta\n- idea: raccogliere l'acqua piovana\n\n## Le più promettenti\n"
        ),
        "{text}"
    );
}

/// Reading notes follow the vault's own template for them — its frontmatter, its variables
/// filled, the text under its first empty section — and a Templater template, whose code crew
/// cannot run, is passed over.
#[test]
fn reading_notes_follow_the_vaults_template() {
    let v = vault(&[
        ("00-Inbox/.keep", ""),
        (
            "Templates/Book notes (Templater).md",
            "---\ncreated: <% tp.date.now() %>\n---\n",
        ),
        (
            "Templates/Book.md",
            "---\ntype: book\nauthor:\nread: {{date:DD/MM/YYYY}}\n---\n# {{title}}\n\n## Highlights\n- \n\n## My thoughts\n",
        ),
    ]);
    let out = json_of(crew(v.path()).env("CREW_TODAY", TODAY).args([
        "ask",
        "--json",
        "reading notes: Dune by Frank Herbert\nspice is the economy\nwater discipline shapes the culture",
    ]));
    let data = &out["chain"][0]["data"]["notes"][0];
    assert_eq!(data["template"], "Templates/Book.md", "{out:#}");
    let notes = inbox(v.path());
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert_eq!(
        notes[0].1,
        "---\ntype: book\nauthor:\nread: 01/12/2026\n---\n# Dune by Frank Herbert\n\n## Highlights\n\n- spice is the economy\n- water discipline shapes the culture\n\n## My thoughts\n"
    );
}

/// Voice-to-note: a dictation is cleaned before it is captured — by the tier's model when one
/// is mapped (the dictation fenced as data), else natively, filler sounds out and every word
/// kept.
#[test]
fn a_dictation_is_cleaned_before_it_is_captured() {
    let said = "voice note: uhm so tomorrow I need to ehm call the plumber about the leak";
    let v = vault(&[("00-Inbox/.keep", "")]);
    let mut cmd = crew(v.path());
    for k in common::PROVIDER_VARS {
        cmd.env_remove(k);
    }
    cmd.env("CREW_TODAY", TODAY)
        .args(["ask", said])
        .assert()
        .success()
        .stdout(predicate::str::contains("2 filler sound(s) removed"));
    let notes = inbox(v.path());
    assert_eq!(notes.len(), 1, "{notes:#?}");
    assert!(
        notes[0]
            .1
            .contains("So I need to call the plumber about the leak"),
        "{}",
        notes[0].1
    );
    assert!(!notes[0].1.contains("uhm") && !notes[0].1.contains("ehm"));

    let mut server = mockito::Server::new();
    let cleanup = server
        .mock("POST", "/v1/chat/completions")
        .match_body(mockito::Matcher::AllOf(vec![
            mockito::Matcher::Regex("=== dictation ===".into()),
            mockito::Matcher::Regex("call the plumber".into()),
        ]))
        .with_status(200)
        .with_body(common::openai_reply(
            "Tomorrow I need to call the plumber about the leak in the bathroom.",
            30,
            15,
        ))
        .expect(1)
        .create();
    let v = vault(&[
        ("00-Inbox/.keep", ""),
        (".crew/config.yaml", "models:\n  mid: gpt-4.1-mini\n"),
    ]);
    let mut cmd = crew(v.path());
    for k in common::PROVIDER_VARS {
        cmd.env_remove(k);
    }
    for (k, val) in common::openai_env(&server.url()) {
        cmd.env(k, val);
    }
    cmd.env("CREW_TODAY", TODAY)
        .args(["ask", said])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Dictation cleaned up by gpt-4.1-mini",
        ));
    cleanup.assert();
    let notes = inbox(v.path());
    assert!(
        notes
            .iter()
            .any(|(_, t)| t.contains("call the plumber about the leak in the bathroom")),
        "{notes:#?}"
    );
}
