//! Deadlines read from the mail itself, in the seven languages, for the radar and the meeting
//! brief: a message not saved yet still counts, a VIP's comes first, newsletters never (#38).

mod common;

use assert_fs::TempDir;
use chrono::{Duration, TimeZone};

fn ask(v: &TempDir, message: &str) -> String {
    let j = common::ask_json(v.path(), message);
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

/// Noon today (local), as a Date header: the weekday words below count from it.
fn sent_today() -> String {
    let d = chrono::Local::now().date_naive();
    chrono::Local
        .from_local_datetime(&d.and_hms_opt(12, 0, 0).expect("time"))
        .earliest()
        .expect("local")
        .to_rfc2822()
}

fn deliver(md: &std::path::Path, name: &str, from: &str, subject: &str, body: &str, extra: &str) {
    let text = format!(
        "From: {from}\r\nSubject: {subject}\r\nDate: {}\r\nMessage-ID: <{name}@example.org>\r\n{extra}\r\n{body}\r\n",
        sent_today()
    );
    std::fs::write(md.join("new").join(name), text).expect("deliver");
}

#[test]
fn the_radar_and_the_brief_read_deadlines_from_the_mail() {
    let md = TempDir::new().expect("tmp");
    for s in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.path().join(s)).expect("mkdir");
    }
    let tomorrow = chrono::Local::now().date_naive() + Duration::days(1);
    deliver(
        md.path(),
        "it",
        "Carla Rossi <carla@example.org>",
        "Preventivo",
        "Mi mandi il preventivo entro domani?",
        "",
    );
    deliver(
        md.path(),
        "de",
        "Der Chef <boss@example.org>",
        "Quartalsbericht",
        "Bitte den Bericht bis morgen schicken.",
        "",
    );
    deliver(
        md.path(),
        "news",
        "Shop <news@shop.example>",
        "Sale",
        "Nur bis morgen!",
        "Precedence: bulk\r\nList-Unsubscribe: <mailto:u@shop.example>\r\n",
    );
    let meeting_day = chrono::Local::now().date_naive() + Duration::days(3);
    let v = common::vault(&[
        ("00-Inbox/.keep", ""),
        (
            "05-People/Der Chef.md",
            "---\ntype: person\nemail: boss@example.org\n---\n# Der Chef\n",
        ),
        (
            "Meta/user-profile.md",
            "---\nname: Me\nvips:\n  - \"[[Der Chef]]\"\n---\n",
        ),
        (
            "06-Meetings/Review.md",
            &format!(
                "---\ntype: meeting\ndate: \"{meeting_day}\"\nparticipants: [\"[[Der Chef]]\"]\n---\n# Quartalsbericht review\n"
            ),
        ),
    ]);
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        format!("mail:\n  maildir: {}\n", md.path().display()),
    )
    .expect("config");

    let radar = ask(&v, "deadline radar");
    let boss = radar
        .find("Quartalsbericht — Der Chef")
        .unwrap_or_else(|| panic!("the boss's mail is missing:\n{radar}"));
    let carla = radar
        .find("Preventivo — Carla Rossi")
        .unwrap_or_else(|| panic!("the Italian deadline is missing:\n{radar}"));
    assert!(
        boss < carla,
        "a VIP's mail comes first on its day:\n{radar}"
    );
    assert!(radar.contains(&tomorrow.to_string()), "{radar}");
    assert!(radar.contains("\"entro domani\""), "{radar}");
    assert!(
        !radar.contains("Sale"),
        "bulk mail is no deadline:\n{radar}"
    );

    // saved, the message counts once: as the note's deadline, not again from the mail
    ask(&v, "check my email");
    let saved = ask(&v, "save the email about the Preventivo");
    assert!(saved.contains("Saved **Preventivo**"), "{saved}");
    let radar = ask(&v, "deadline radar");
    let lines = radar.lines().filter(|l| l.contains("Preventivo")).count();
    assert_eq!(lines, 1, "{radar}");

    let brief = ask(&v, "prepare for meeting Quartalsbericht review");
    assert!(brief.contains("## Mail about it"), "{brief}");
    assert!(
        brief.contains("**Quartalsbericht** from Der Chef"),
        "{brief}"
    );
    assert!(brief.contains(&format!("deadline {tomorrow}")), "{brief}");
}
