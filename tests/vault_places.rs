//! The postman puts imported events and saved emails where an adopted vault keeps such notes,
//! else in its inbox — never in a new top-level folder of crew's naming.

mod common;

use std::path::{Path, PathBuf};

use assert_fs::TempDir;
use chrono::{Duration, NaiveDate};
use common::{crew, crew_bare, vault};

fn today() -> NaiveDate {
    chrono::Local::now().date_naive()
}

/// `crew ask --json MESSAGE` → the first step's output.
fn ask(v: &Path, message: &str) -> String {
    let out = crew(v)
        .args(["ask", "--json", message])
        .output()
        .expect("run");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

/// `crew init --adopt`, then `extra` appended to the config it wrote.
fn adopt(v: &Path, extra: &str) {
    crew_bare()
        .args(["init", "--adopt"])
        .arg(v)
        .assert()
        .success();
    let cfg = v.join(".crew/config.yaml");
    let mut text = std::fs::read_to_string(&cfg).expect("config");
    assert!(text.contains("adopted: true"), "{text}");
    text.push_str(extra);
    std::fs::write(&cfg, text).expect("config");
}

/// A calendar file holding one meeting in three days.
fn calendar(day: NaiveDate) -> TempDir {
    let cal = TempDir::new().expect("tmp");
    let ics = format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//crew tests//EN\r\nBEGIN:VEVENT\r\nUID:sync@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:{}\r\nSUMMARY:Design sync\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        day.format("%Y%m%d")
    );
    std::fs::write(cal.path().join("work.ics"), ics).expect("ics");
    cal
}

fn calendar_config(cal: &Path) -> String {
    format!(
        "calendar:\n  ics: [{}]\n  timezone: Europe/Rome\n",
        cal.display()
    )
}

/// The notes of the vault (crew's own `.crew/` left out) holding `needle`, as vault paths.
fn notes_with(v: &Path, needle: &str) -> Vec<PathBuf> {
    walkdir::WalkDir::new(v)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|t| t.contains(needle)))
        .filter_map(|e| e.path().strip_prefix(v).ok().map(Path::to_path_buf))
        .collect()
}

/// The top-level folders of the vault, crew's own (`.crew`, `Meta`) left out.
fn top_folders(v: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(v)
        .expect("read")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.') && n != "Meta")
        .collect();
    out.sort();
    out
}

#[test]
fn events_go_where_the_vault_keeps_its_meetings() {
    let day = today() + Duration::days(3);
    let cal = calendar(day);
    let v = vault(&[
        ("06 - Inbox/idea.md", "an idea\n"),
        (
            "Work/Calls/2025/11/Kickoff.md",
            "---\ntype: meeting\ndate: 2025-11-03\n---\n# Kickoff\n",
        ),
        (
            "Work/Calls/2025/12/Review.md",
            "---\ntype: meeting\ndate: 2025-12-01\n---\n# Review\n",
        ),
    ]);
    adopt(v.path(), &calendar_config(cal.path()));
    let out = ask(v.path(), "import events");
    assert!(out.contains("1 new"), "{out}");
    let notes = notes_with(v.path(), "calendar-event-id:");
    assert_eq!(notes.len(), 1, "{out}");
    let month = PathBuf::from("Work/Calls").join(day.format("%Y/%m").to_string());
    assert!(notes[0].starts_with(&month), "{notes:?} not in {month:?}");
    assert_eq!(top_folders(v.path()), ["06 - Inbox", "Work"]);
}

#[test]
fn without_a_meetings_place_events_wait_in_the_vaults_inbox() {
    let day = today() + Duration::days(3);
    let cal = calendar(day);
    let v = vault(&[
        ("06 - Inbox/idea.md", "an idea\n"),
        ("Notes/a.md", "---\ntype: note\n---\n"),
    ]);
    adopt(v.path(), &calendar_config(cal.path()));
    let out = ask(v.path(), "import events");
    assert!(out.contains("1 new"), "{out}");
    let notes = notes_with(v.path(), "calendar-event-id:");
    assert_eq!(notes.len(), 1, "{out}");
    assert_eq!(
        notes[0].parent(),
        Some(Path::new("06 - Inbox")),
        "{notes:?}"
    );
    assert_eq!(top_folders(v.path()), ["06 - Inbox", "Notes"]);

    // a vault with no inbox at all gets the note at its root, not a folder of crew's naming
    let v = vault(&[("Notes/a.md", "---\ntype: note\n---\n")]);
    adopt(v.path(), &calendar_config(cal.path()));
    let out = ask(v.path(), "import events");
    let notes = notes_with(v.path(), "calendar-event-id:");
    assert_eq!(notes.len(), 1, "{out}");
    assert_eq!(notes[0].parent(), Some(Path::new("")), "{notes:?}");
    assert_eq!(top_folders(v.path()), ["Notes"]);
}

/// A Maildir holding one message.
fn maildir() -> TempDir {
    let d = TempDir::new().expect("tmp");
    for s in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(d.path().join(s)).expect("mkdir");
    }
    let msg = "From: Ana Lima <ana@example.org>\r\nTo: me@example.org\r\nSubject: Quarterly numbers\r\nDate: Mon, 2 Nov 2026 12:00:00 +0000\r\nMessage-ID: <q1@example.org>\r\n\r\nThe numbers look good.\r\n";
    std::fs::write(d.path().join("new/1000.ana.host"), msg).expect("deliver");
    d
}

fn save_the_email(v: &Path) -> PathBuf {
    let listing = ask(v, "check my email");
    assert!(listing.contains("Quarterly numbers"), "{listing}");
    let out = ask(v, "save the email about the quarterly numbers");
    assert!(out.contains("Saved **Quarterly numbers**"), "{out}");
    let saved = notes_with(v, "message-id: \"q1@example.org\"");
    assert_eq!(saved.len(), 1, "{out}");
    saved[0].clone()
}

#[test]
fn saved_emails_go_where_the_vault_keeps_mail_else_its_inbox() {
    let md = maildir();
    let mail = format!("mail:\n  maildir: {}\n", md.path().display());
    let v = vault(&[
        ("06 - Inbox/idea.md", "an idea\n"),
        (
            "Correspondence/Old letter.md",
            "---\ntype: email\nfrom: someone\n---\n",
        ),
    ]);
    adopt(v.path(), &mail);
    let saved = save_the_email(v.path());
    assert_eq!(saved.parent(), Some(Path::new("Correspondence")));
    let text = std::fs::read_to_string(v.path().join(&saved)).expect("read");
    assert!(text.contains("status: filed"), "{text}");

    let v = vault(&[("06 - Inbox/idea.md", "an idea\n")]);
    adopt(v.path(), &mail);
    let saved = save_the_email(v.path());
    assert_eq!(saved.parent(), Some(Path::new("06 - Inbox")));
    assert_eq!(top_folders(v.path()), ["06 - Inbox"]);
}
