//! `/weekly-agenda` and `/deadline-radar` write their notes: the week note's sections, the
//! user's own text surviving a second run, and the radar note written only when asked.

mod common;

use chrono::{Datelike, Duration};
use common::{crew, json_of, vault};

fn ask(v: &std::path::Path, message: &str) -> String {
    let j = json_of(crew(v).args(["ask", "--json", message]));
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

fn today() -> chrono::NaiveDate {
    chrono::Local::now().date_naive()
}

fn monday() -> chrono::NaiveDate {
    let t = today();
    t - Duration::days(t.weekday().num_days_from_monday() as i64)
}

fn week_note_path() -> String {
    let w = monday().iso_week();
    format!("07-Daily/{}-W{:02}.md", w.year(), w.week())
}

fn section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text
        .find(heading)
        .unwrap_or_else(|| panic!("{heading} missing:\n{text}"));
    let rest = &text[start + heading.len()..];
    let end = rest
        .find("\n## ")
        .or_else(|| rest.find("\n### "))
        .unwrap_or(rest.len());
    &rest[..end]
}

#[test]
fn weekly_agenda_writes_the_week_note_and_keeps_the_users_text() {
    let m = monday();
    let v = vault(&[
        ("07-Daily/.keep", ""),
        (
            "Projects/late.md",
            &format!("- [ ] pay the invoice 📅 {}\n", m - Duration::days(3)),
        ),
        (
            "Projects/report.md",
            &format!("---\ndue: {}\npriority: low\n---\n", m + Duration::days(2)),
        ),
        (
            "Projects/talk.md",
            &format!("- [ ] rehearse the talk ⏫ 📅 {}\n", m + Duration::days(4)),
        ),
    ]);
    let out = ask(v.path(), "weekly agenda");
    let path = week_note_path();
    assert!(out.contains(&format!("`{path}`")), "{out}");
    let note = std::fs::read_to_string(v.path().join(&path)).expect("week note");
    assert!(note.starts_with("---\ntype: weekly-agenda\n"), "{note}");
    assert!(section(&note, "### Overdue (1)").contains("pay the invoice"));
    let due = section(&note, "### Due this week (2)");
    assert!(
        due.contains("[[report]]") && due.contains("rehearse the talk"),
        "{due}"
    );
    let by_priority = section(&note, "### By priority");
    assert!(
        by_priority.find("high — ").unwrap_or(usize::MAX) < by_priority.find("low — ").unwrap_or(0),
        "{by_priority}"
    );
    let free = section(&note, "## Free Blocks");
    let busy = [m + Duration::days(2), m + Duration::days(4)];
    for i in 0..7 {
        let d = m + Duration::days(i);
        assert_eq!(
            free.contains(&d.to_string()),
            !busy.contains(&d),
            "{d} in:\n{free}"
        );
    }
    // the user writes in the note; a second run updates only the generated section
    let edited = format!("{note}\n## My plan\nFocus on the talk.\n");
    std::fs::write(v.path().join(&path), edited).expect("edit");
    std::fs::write(
        v.path().join("Projects/extra.md"),
        format!("---\ndeadline: {}\n---\n", m + Duration::days(5)),
    )
    .expect("write");
    let out = ask(v.path(), "weekly agenda");
    assert!(out.contains("Updated"), "{out}");
    let note = std::fs::read_to_string(v.path().join(&path)).expect("week note");
    assert!(note.ends_with("## My plan\nFocus on the talk.\n"), "{note}");
    assert!(note.contains("### Due this week (3)"), "{note}");
    assert_eq!(note.matches("## Week at a Glance").count(), 1, "{note}");
}

#[test]
fn deadline_radar_writes_its_note_only_when_asked() {
    let v = vault(&[(
        "soon.md",
        &format!("---\ndue: {}\n---\n", today() + Duration::days(1)),
    )]);
    let path = v
        .path()
        .join(format!("00-Inbox/{} — Deadline Radar.md", today()));
    ask(v.path(), "deadline radar");
    assert!(!path.exists(), "not asked to save");
    for request in ["deadline radar, save it", "radar scadenze: crea la nota"] {
        let out = ask(v.path(), request);
        assert!(out.contains("Deadline Radar.md`"), "{request}: {out}");
        let note = std::fs::read_to_string(&path).expect("radar note");
        assert!(note.starts_with("---\ntype: deadline-radar\n"), "{note}");
        assert!(note.contains("[[soon]]"), "{note}");
    }
    // a second save the same day updates the note, keeping what the user added
    let note = std::fs::read_to_string(&path).expect("radar note");
    std::fs::write(&path, format!("{note}\nCalled the bank.\n")).expect("edit");
    ask(v.path(), "deadline radar, write the radar");
    let note = std::fs::read_to_string(&path).expect("radar note");
    assert!(note.ends_with("Called the bank.\n"), "{note}");
    assert_eq!(note.matches("## Deadline radar").count(), 1, "{note}");
}
