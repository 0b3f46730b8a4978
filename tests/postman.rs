//! The postman without a model, through `crew ask`: a Maildir and `.ics` calendars built by the
//! tests (multipart, quoted-printable, non-UTF-8 headers, a recurring and a moved event), bad
//! files skipped with their names, and credentials kept out of every output.

mod common;

use std::path::{Path, PathBuf};

use assert_fs::TempDir;
use chrono::{Datelike, Duration, NaiveDate, TimeZone};
use common::crew;

fn today() -> NaiveDate {
    chrono::Local::now().date_naive()
}

/// `crew ask --json MESSAGE` → (route name, first step's output, exit code).
fn ask(v: &Path, message: &str) -> (String, String, i32) {
    ask_env(v, message, &[])
}

fn ask_env(v: &Path, message: &str, env: &[(&str, &str)]) -> (String, String, i32) {
    let mut cmd = crew(v);
    for (k, val) in env {
        cmd.env(k, val);
    }
    let out = cmd.args(["ask", "--json", message]).output().expect("run");
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "crew failed ({code}): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // a password handed in through the environment never comes back out
    for (k, val) in env {
        if k.contains("PASSWORD") {
            assert!(
                !String::from_utf8_lossy(&out.stdout).contains(val),
                "stdout holds {k}"
            );
            assert!(
                !String::from_utf8_lossy(&out.stderr).contains(val),
                "stderr holds {k}"
            );
        }
    }
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    (
        j["route"]["name"].as_str().unwrap_or("").to_string(),
        j["chain"][0]["output"].as_str().unwrap_or("").to_string(),
        code,
    )
}

/// A Maildir with `cur/`, `new/` and `tmp/`.
fn maildir() -> TempDir {
    let d = TempDir::new().expect("tmp");
    for s in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(d.path().join(s)).expect("mkdir");
    }
    d
}

fn deliver(md: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(md.join("new").join(name), bytes).expect("deliver");
}

/// An RFC 5322 date `days` from today at noon (local), so the day is the same in any zone.
fn rfc_date(days: i64) -> String {
    let d = today() + Duration::days(days);
    let t = chrono::Local
        .from_local_datetime(&d.and_hms_opt(12, 0, 0).expect("time"))
        .earliest()
        .expect("local");
    t.to_rfc2822()
}

fn people_vault(extra: &[(&str, String)]) -> TempDir {
    let mut files: Vec<(String, String)> = vec![
        (
            "05-People/Ana Lima.md".into(),
            "---\ntype: person\nemail: ana@example.org\nrole: CFO\n---\n# Ana Lima\n".into(),
        ),
        (
            "05-People/Bo Chen.md".into(),
            "---\ntype: person\n---\n# Bo Chen\n".into(),
        ),
        (
            "Meta/user-profile.md".into(),
            "---\nname: Me\nemail: me@example.org\nvips:\n  - \"[[Bo Chen]]\"\n---\n".into(),
        ),
        ("00-Inbox/.keep".into(), String::new()),
    ];
    for (p, t) in extra {
        files.push((p.to_string(), t.clone()));
    }
    common::vault_of(&files)
}

fn with_config(v: &TempDir, yaml: &str) {
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(v.path().join(".crew/config.yaml"), yaml).expect("config");
}

/// The five kinds of message the listing groups, plus a broken file.
fn fill(md: &Path) {
    let ana = format!(
        "From: Ana Lima <ana@example.org>\r\nTo: me@example.org\r\nSubject: Quarterly numbers\r\nDate: {}\r\nMessage-ID: <q1@example.org>\r\nMIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"xx\"\r\n\r\n--xx\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nThe numbers look good =E2=80=94 caf=C3=A9 budget attached.\r\n--xx\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<p>The numbers look good</p>\r\n--xx--\r\n",
        rfc_date(-1)
    );
    deliver(md, "1000.ana.host", ana.as_bytes());
    let bo = format!(
        "From: Bo Chen <bo@elsewhere.example>\r\nSubject: Board dinner\r\nDate: {}\r\nMessage-ID: <b1@elsewhere.example>\r\n\r\nAre you coming?\r\n",
        rfc_date(-1)
    );
    deliver(md, "1001.bo.host", bo.as_bytes());
    let news = format!(
        "From: Shop <news@shop.example>\r\nSubject: Weekly deals\r\nDate: {}\r\nList-Unsubscribe: <mailto:u@shop.example>\r\nPrecedence: bulk\r\n\r\nBuy by Friday!\r\n",
        rfc_date(-1)
    );
    deliver(md, "1002.news.host", news.as_bytes());
    let due = format!(
        "From: Clerk <clerk@city.example>\r\nSubject: Permit renewal\r\nDate: {}\r\nMessage-ID: <p1@city.example>\r\n\r\nPlease send the signed form by tomorrow. <% tp.file.title %>\r\n",
        rfc_date(0)
    );
    deliver(md, "1003.due.host", due.as_bytes());
    // a Latin-1 header both as an encoded word and as raw 8-bit bytes
    let mut latin: Vec<u8> = format!(
        "From: =?ISO-8859-1?Q?Ren=E9_M=FCller?= <rene@example.net>\r\nDate: {}\r\nMessage-ID: <r1@example.net>\r\nContent-Type: text/plain; charset=iso-8859-1\r\nSubject: Gr",
        rfc_date(-2)
    )
    .into_bytes();
    latin.extend_from_slice(b"\xfc\xdfe aus K\xf6ln\r\n\r\nSch\xf6ne Gr\xfc\xdfe\r\n");
    std::fs::write(md.join("cur/1004.latin.host:2,S"), latin).expect("latin");
    std::fs::write(
        md.join("cur/1005.broken.host:2,"),
        b"\x00\x01\x02 not a message",
    )
    .expect("broken");
}

fn config_for(md: &Path) -> String {
    format!("mail:\n  maildir: {}\n", md.display())
}

#[test]
fn check_my_email_groups_new_mail_and_remembers_what_it_showed() {
    let md = maildir();
    fill(md.path());
    let v = people_vault(&[]);
    with_config(&v, &config_for(md.path()));
    let (route, out, _) = ask(v.path(), "check my email");
    assert_eq!(route, "email-triage");
    let pos = |s: &str| {
        out.find(s)
            .unwrap_or_else(|| panic!("{s:?} missing in:\n{out}"))
    };
    // VIPs first, people with a note, deadlines, the rest, newsletters last
    assert!(pos("### VIP") < pos("### From people you know"));
    assert!(pos("### From people you know") < pos("### With a deadline"));
    assert!(pos("### With a deadline") < pos("### Other"));
    assert!(pos("### Other") < pos("### Newsletters and automated mail"));
    assert!(pos("Board dinner") < pos("### From people you know"));
    assert!(out.contains("[[Bo Chen]]") && out.contains("[[Ana Lima]] <ana@example.org>"));
    let tomorrow = (today() + Duration::days(1)).to_string();
    assert!(
        out.contains(&format!("deadline {tomorrow} (\"by tomorrow\")")),
        "{out}"
    );
    assert!(
        out.contains("Grüße aus Köln") && out.contains("René Müller"),
        "{out}"
    );
    assert!(pos("Weekly deals") > pos("### Newsletters"));
    // the broken file is named, and the rest was still read
    assert!(
        out.contains("1005.broken.host") && out.contains("skipped"),
        "{out}"
    );
    assert!(out.contains("Mail — 5 message(s)"), "{out}");

    // nothing new the second time
    let (_, out, _) = ask(v.path(), "check my email");
    assert!(
        out.contains("0 new since") && out.contains("Nothing new."),
        "{out}"
    );
    // a message delivered later is the only new one
    std::thread::sleep(std::time::Duration::from_millis(20));
    deliver(
        md.path(),
        "2000.late.host",
        format!(
            "From: Ana Lima <ana@example.org>\r\nSubject: One more thing\r\nDate: {}\r\n\r\nhi\r\n",
            rfc_date(0)
        )
        .as_bytes(),
    );
    let (_, out, _) = ask(v.path(), "check my email");
    assert!(
        out.contains("1 new since") && out.contains("One more thing"),
        "{out}"
    );
    assert!(!out.contains("Board dinner"), "{out}");
    // the mark lives in the postman's post-it
    let postit = std::fs::read_to_string(v.path().join("Meta/states/postman.md")).expect("post-it");
    assert!(postit.contains("mail-mark:") && postit.contains("listing: 1=maildir:2000.late.host"));
    // the Maildir itself was not touched: nothing moved from new/ to cur/
    assert!(md.path().join("new/1000.ana.host").exists());
}

/// The number a listing gave the message with this subject.
fn number_of(listing: &str, subject: &str) -> String {
    let line = listing
        .lines()
        .find(|l| l.contains(subject))
        .unwrap_or_else(|| panic!("{subject} not listed:\n{listing}"));
    line.split('.').next().expect("number").trim().to_string()
}

fn notes_with(v: &Path, needle: &str) -> Vec<(PathBuf, String)> {
    walkdir::WalkDir::new(v)
        .into_iter()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .filter_map(|e| {
            let t = std::fs::read_to_string(e.path()).ok()?;
            t.contains(needle).then(|| (e.path().to_path_buf(), t))
        })
        .collect()
}

#[test]
fn save_email_writes_one_note_through_the_gate() {
    let md = maildir();
    fill(md.path());
    let v = people_vault(&[]);
    with_config(&v, &config_for(md.path()));
    let (_, listing, _) = ask(v.path(), "check my email");
    let n = number_of(&listing, "Quarterly numbers");
    let (route, out, _) = ask(v.path(), &format!("save email {n}"));
    assert_eq!(route, "email-triage");
    assert!(out.contains("Saved **Quarterly numbers**"), "{out}");
    let saved = notes_with(v.path(), "message-id: \"q1@example.org\"");
    assert_eq!(saved.len(), 1);
    let (path, text) = &saved[0];
    assert!(path.starts_with(v.path().join("00-Inbox")), "{path:?}");
    assert!(
        path.to_string_lossy()
            .contains("— Email — Quarterly numbers"),
        "{path:?}"
    );
    assert!(text.contains("person: \"[[Ana Lima]]\"") && text.contains("type: email-info"));
    // quoted-printable decoded, the text part preferred over the HTML one
    assert!(
        text.contains("The numbers look good — café budget attached."),
        "{text}"
    );
    // through the gate: journaled, so `crew undo` can take it back
    assert!(v.path().join(".crew/journal").exists());
    // a second save finds the note by its Message-ID
    let (_, out, _) = ask(v.path(), &format!("save email {n}"));
    assert!(out.contains("already saved"), "{out}");
    assert_eq!(
        notes_with(v.path(), "message-id: \"q1@example.org\"").len(),
        1
    );
    // by the words of its subject, without a number; a deadline becomes the note's deadline
    let (_, out, _) = ask(v.path(), "save the email about the permit renewal");
    assert!(out.contains("Saved **Permit renewal**"), "{out}");
    let permit = notes_with(v.path(), "message-id: \"p1@city.example\"");
    let tomorrow = (today() + Duration::days(1)).to_string();
    assert!(
        permit[0].1.contains(&format!("deadline: \"{tomorrow}\"")),
        "{}",
        permit[0].1
    );
    // ...and deadline-radar sees it
    let (_, radar, _) = ask(v.path(), "deadline radar");
    assert!(radar.contains("Permit renewal"), "{radar}");
    // a number the listing did not show is refused, clearly
    let (_, out, _) = ask(v.path(), "save email 99");
    assert!(out.contains("no email number 99"), "{out}");
}

#[test]
fn without_a_source_the_postman_says_what_to_configure() {
    let v = people_vault(&[]);
    let (_, out, _) = ask(v.path(), "check my email");
    assert!(out.contains("No mail source is configured") && out.contains("maildir:"));
    let (_, out, _) = ask(v.path(), "import events");
    assert!(out.contains("No calendar is configured"), "{out}");
    // a path that is no Maildir is named, with what to do
    with_config(&v, "mail:\n  maildir: no-such-folder\n");
    let (_, out, _) = ask(v.path(), "check my email");
    assert!(
        out.contains("no-such-folder is not a Maildir") && out.contains("set mail.maildir"),
        "{out}"
    );
}

fn ics_stamp(d: NaiveDate, h: u32) -> String {
    format!("{}T{:02}0000", d.format("%Y%m%d"), h)
}

/// A calendar: a meeting tomorrow with Ana, a weekly series from yesterday, an all-day
/// deadline today.
fn calendar_text(meeting_day: NaiveDate, sequence: u32) -> String {
    let t = today();
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//crew tests//EN\r\n\
BEGIN:VEVENT\r\nUID:budget-1@test\r\nDTSTAMP:20260101T000000Z\r\nSEQUENCE:{sequence}\r\n\
DTSTART;TZID=America/New_York:{}\r\nDTEND;TZID=America/New_York:{}\r\n\
SUMMARY:Budget review\r\nLOCATION:Room 4\r\nDESCRIPTION:Numbers for Q4\\, then hiring.\r\n\
ATTENDEE;CN=Ana Lima:mailto:ana@example.org\r\nATTENDEE;CN=Zed Unknown:mailto:zed@example.com\r\n\
ATTENDEE;CN=Me:mailto:me@example.org\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:standup@test\r\nDTSTAMP:20260101T000000Z\r\n\
DTSTART;TZID=Europe/Rome:{}\r\nDURATION:PT15M\r\nRRULE:FREQ=WEEKLY;COUNT=3\r\n\
SUMMARY:Team stand-up\r\nATTENDEE;CN=Bo Chen:mailto:bo@elsewhere.example\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:report@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;VALUE=DATE:{}\r\n\
SUMMARY:Report deadline\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
        ics_stamp(meeting_day, 9),
        ics_stamp(meeting_day, 10),
        ics_stamp(t - Duration::days(1), 9),
        t.format("%Y%m%d"),
    )
}

fn event_notes(v: &Path) -> Vec<(PathBuf, String)> {
    notes_with(v, "calendar-event-id:")
}

#[test]
fn import_events_is_idempotent_follows_a_moved_event_and_skips_a_broken_file() {
    let cal = TempDir::new().expect("tmp");
    let tomorrow = today() + Duration::days(1);
    std::fs::write(cal.path().join("work.ics"), calendar_text(tomorrow, 0)).expect("ics");
    std::fs::write(
        cal.path().join("broken.ics"),
        "BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nthis is not",
    )
    .expect("ics");
    let v = people_vault(&[]);
    with_config(
        &v,
        &format!(
            "calendar:\n  ics: [{}]\n  timezone: Europe/Rome\n",
            cal.path().display()
        ),
    );
    let (route, out, _) = ask(v.path(), "import events");
    assert_eq!(route, "postman");
    // 1 meeting + 3 stand-ups + 1 deadline
    assert!(out.contains("5 new, 0 updated, 0 unchanged"), "{out}");
    assert!(
        out.contains("broken.ics") && out.contains("skipped"),
        "{out}"
    );
    let notes = event_notes(v.path());
    assert_eq!(notes.len(), 5);
    let (budget_path, budget) = notes
        .iter()
        .find(|(_, t)| t.contains("Budget review"))
        .expect("budget note");
    // 09:00 in New York, shown in Rome's time
    let ny: chrono_tz::Tz = "America/New_York".parse().expect("tz");
    let rome: chrono_tz::Tz = "Europe/Rome".parse().expect("tz");
    let start = ny
        .from_local_datetime(&tomorrow.and_hms_opt(9, 0, 0).expect("t"))
        .earliest()
        .expect("t")
        .with_timezone(&rome);
    assert!(
        budget.contains(&format!("time: \"{}\"", start.format("%H:%M"))),
        "{budget}"
    );
    assert!(
        budget.contains("participants: [\"[[Ana Lima]]\",\"Zed Unknown\",\"Me\"]"),
        "{budget}"
    );
    assert!(budget.contains("Numbers for Q4, then hiring."));
    let month = format!("06-Meetings/{}/{:02}/", start.year(), start.month());
    assert!(
        budget_path.starts_with(v.path().join(&month)),
        "{budget_path:?} not in {month}"
    );
    let standups: Vec<_> = notes
        .iter()
        .filter(|(_, t)| t.contains("Team stand-up"))
        .collect();
    assert_eq!(standups.len(), 3);
    assert!(
        standups
            .iter()
            .all(|(_, t)| t.contains("recurring: true") && t.contains("[[Bo Chen]]"))
    );

    // a second import changes nothing in the vault's notes
    let before = common::snapshot(v.path());
    let (_, out, _) = ask(v.path(), "import events");
    assert!(out.contains("0 new, 0 updated, 5 unchanged"), "{out}");
    let after = common::snapshot(v.path());
    let notes_only = |s: &std::collections::BTreeMap<String, Vec<u8>>| {
        s.iter()
            .filter(|(k, _)| !k.starts_with("Meta/"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(notes_only(&before), notes_only(&after));

    // the user writes in the note; then the meeting moves two days on
    let user_text = "\n- decided: hire one analyst\n";
    let mut t = std::fs::read_to_string(budget_path).expect("read");
    t.push_str(user_text);
    std::fs::write(budget_path, t).expect("write");
    let moved = today() + Duration::days(3);
    std::fs::write(cal.path().join("work.ics"), calendar_text(moved, 1)).expect("ics");
    let (_, out, _) = ask(v.path(), "import events");
    assert!(out.contains("0 new, 1 updated, 4 unchanged"), "{out}");
    let notes = event_notes(v.path());
    assert_eq!(notes.len(), 5, "no second note for the moved event");
    let (new_path, budget) = notes
        .iter()
        .find(|(_, t)| t.contains("Budget review"))
        .expect("budget note");
    assert!(budget.contains(&format!("date: \"{moved}\"")), "{budget}");
    assert!(
        budget.contains(&format!("- **When**: {moved} ")),
        "{budget}"
    );
    assert!(budget.contains(user_text.trim()), "the user's text stays");
    assert!(
        new_path
            .to_string_lossy()
            .contains(&format!("{moved} — Meeting — Budget review")),
        "{new_path:?}"
    );
    assert!(!budget_path.exists());
}

#[test]
fn weekly_agenda_and_deadline_radar_include_calendar_events() {
    let cal = TempDir::new().expect("tmp");
    let ics = cal.path().join("c.ics");
    std::fs::write(&ics, calendar_text(today() + Duration::days(1), 0)).expect("ics");
    let v = people_vault(&[]);
    with_config(
        &v,
        &format!(
            "calendar:\n  ics: [{}]\n  timezone: Europe/Rome\n",
            ics.display()
        ),
    );
    let (route, agenda, _) = ask(v.path(), "weekly agenda");
    assert_eq!(route, "weekly-agenda");
    assert!(agenda.contains("Report deadline (calendar)"), "{agenda}");
    let (_, radar, _) = ask(v.path(), "deadline radar");
    assert!(radar.contains("Report deadline"), "{radar}");
    assert!(
        !radar.contains("Team stand-up"),
        "only deadline-like events are deadlines"
    );
}

#[test]
fn meeting_prep_gathers_people_past_meetings_and_open_tasks() {
    let cal = TempDir::new().expect("tmp");
    let ics = cal.path().join("c.ics");
    let meeting = today() + Duration::days(2);
    std::fs::write(&ics, calendar_text(meeting, 0)).expect("ics");
    let last_month = today() - Duration::days(30);
    let v = people_vault(&[
        (
            "06-Meetings/old.md",
            format!(
                "---\ntype: meeting\ndate: \"{last_month}\"\nparticipants: [\"[[Ana Lima]]\"]\n---\n# Kickoff with Ana\n"
            ),
        ),
        (
            "01-Projects/Budget.md",
            "# Budget\n\n- [ ] send the slides to [[Ana Lima]]\n- [x] done thing with Ana Lima\n- [ ] unrelated\n"
                .to_string(),
        ),
    ]);
    with_config(
        &v,
        &format!(
            "calendar:\n  ics: [{}]\n  timezone: Europe/Rome\n",
            ics.display()
        ),
    );
    let (route, out, _) = ask(v.path(), "prepare for meeting budget review");
    assert_eq!(route, "meeting-prep");
    assert!(out.contains("# Meeting prep — Budget review"), "{out}");
    assert!(out.contains("- [[Ana Lima]] · CFO"), "{out}");
    assert!(out.contains("Zed Unknown (no People note)"), "{out}");
    assert!(
        !out.contains("- Me"),
        "the user is not their own participant: {out}"
    );
    assert!(out.contains(&format!("- {last_month} [[old]]")), "{out}");
    assert!(out.contains("send the slides to [[Ana Lima]]"), "{out}");
    assert!(
        !out.contains("done thing") && !out.contains("unrelated"),
        "{out}"
    );
    let saved = v.path().join(format!(
        "00-Inbox/{meeting} — Meeting Prep — Budget review.md"
    ));
    let text = std::fs::read_to_string(&saved).expect("prep note");
    assert!(text.contains("type: meeting-prep"));
}

#[test]
fn credentials_never_reach_output_logs_or_the_journal() {
    let secret = "s3cret-Pa55word-xyz";
    let v = people_vault(&[]);
    // port 1 on loopback: nothing listens, so the run fails after reading the password
    with_config(
        &v,
        "mail:\n  imap:\n    host: 127.0.0.1\n    port: 1\n    user: me\n    password_env: CREW_TEST_MAIL_PASSWORD\n",
    );
    let out = crew(v.path())
        .env("CREW_TEST_MAIL_PASSWORD", secret)
        .env("CREW_LOG", "trace")
        .env("RUST_LOG", "trace")
        .args(["ask", "--json", "check my email"])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("cannot reach 127.0.0.1:1"), "{stdout}");
    assert!(!stdout.contains(secret) && !stderr.contains(secret));
    for e in walkdir::WalkDir::new(v.path()).into_iter().flatten() {
        if e.file_type().is_file() {
            let bytes = std::fs::read(e.path()).expect("read");
            assert!(
                !String::from_utf8_lossy(&bytes).contains(secret),
                "{} holds the password",
                e.path().display()
            );
        }
    }
}

/// The Dovecot `.ci/run` starts (`.ci/dovecot`): address, user, password, CA file, and the
/// test user's Maildir on the server's side (the tests deliver into it).
struct Dovecot {
    host: String,
    port: String,
    user: String,
    password: String,
    ca: String,
    maildir: PathBuf,
}

fn dovecot() -> Option<Dovecot> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (
        var("CREW_IMAP_TEST"),
        var("CREW_IMAP_USER"),
        var("CREW_IMAP_PASSWORD"),
        var("CREW_IMAP_CA"),
        var("CREW_IMAP_MAILDIR"),
    ) {
        (Some(addr), Some(user), Some(password), Some(ca), Some(md)) => {
            // set but not host:port is a broken CI setup, never a quiet skip
            let (host, port) = addr.rsplit_once(':').expect("CREW_IMAP_TEST is host:port");
            Some(Dovecot {
                host: host.into(),
                port: port.into(),
                user,
                password,
                ca,
                maildir: md.into(),
            })
        }
        _ => {
            common::skipped(
                "CREW_IMAP_TEST and friends are not set (.ci/run starts Dovecot and sets them)",
            );
            None
        }
    }
}

fn imap_config(s: &Dovecot) -> String {
    format!(
        "mail:\n  imap:\n    host: {}\n    port: {}\n    user: {}\n    password_env: CREW_TEST_IMAP_PASSWORD\n    ca_file: {}\n",
        s.host, s.port, s.user, s.ca
    )
}

#[test]
fn imap_reads_a_real_dovecot_read_only_and_keeps_the_password_out() {
    let Some(s) = dovecot() else { return };
    // the server outlives one test run: this run's messages carry their own tag
    let tag = format!(
        "{}{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .subsec_nanos()
    );
    let put = |name: &str, text: String| {
        let tmp = s.maildir.join("tmp").join(format!("{name}.{tag}"));
        std::fs::write(&tmp, text).expect("deliver");
        std::fs::rename(
            &tmp,
            s.maildir.join("new").join(format!("{name}.{tag}.crew")),
        )
        .expect("deliver");
    };
    put(
        "1",
        format!(
            "From: Ana Lima <ana@example.org>\r\nSubject: Imap budget {tag}\r\nDate: {}\r\nMessage-ID: <imap-{tag}@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nPlease review by Friday =E2=80=94 thanks.\r\n",
            rfc_date(0)
        ),
    );
    put(
        "2",
        format!(
            "From: News <n@list.example>\r\nSubject: Imap digest {tag}\r\nDate: {}\r\nList-Id: <digest.list.example>\r\n\r\nnews\r\n",
            rfc_date(0)
        ),
    );
    let v = people_vault(&[]);
    with_config(&v, &imap_config(&s));
    let env = [
        ("CREW_TEST_IMAP_PASSWORD", s.password.as_str()),
        ("CREW_LOG", "trace"),
    ];
    let (route, out, _) = ask_env(v.path(), "check my email", &env);
    assert_eq!(route, "email-triage");
    assert!(out.contains(&format!("Imap budget {tag}")), "{out}");
    assert!(out.contains("[[Ana Lima]]"), "{out}");
    let pos = |x: &str| out.find(x).unwrap_or_else(|| panic!("{x} missing: {out}"));
    assert!(pos(&format!("Imap digest {tag}")) > pos("### Newsletters and automated mail"));
    // read only: no message of this run got the \Seen flag (a `S` after `:2,`)
    for e in std::fs::read_dir(s.maildir.join("cur"))
        .expect("cur")
        .flatten()
    {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.contains(&tag) {
            let flags = name.rsplit(":2,").next().unwrap_or("");
            assert!(!flags.contains('S'), "{name} was marked seen");
        }
    }
    // the UID mark: nothing new the second time, then only the late message
    let (_, out, _) = ask_env(v.path(), "check my email", &env);
    assert!(out.contains("0 new since"), "{out}");
    put(
        "3",
        format!(
            "From: Bo Chen <bo@elsewhere.example>\r\nSubject: Imap late {tag}\r\nDate: {}\r\n\r\nhi\r\n",
            rfc_date(0)
        ),
    );
    let (_, out, _) = ask_env(v.path(), "check my email", &env);
    assert!(
        out.contains("1 new since") && out.contains(&format!("Imap late {tag}")),
        "{out}"
    );
    let (_, out, _) = ask_env(v.path(), "save email 1", &env);
    assert!(out.contains(&format!("Saved **Imap late {tag}**")), "{out}");
    assert_eq!(notes_with(v.path(), "source: imap").len(), 1);
    // a wrong password is refused and not repeated back
    let wrong = "Wr0ng-pa55-for-crew";
    let (_, out, _) = ask_env(
        v.path(),
        "check my email",
        &[("CREW_TEST_IMAP_PASSWORD", wrong)],
    );
    assert!(out.contains("refused the login of crew"), "{out}");
    assert!(!out.contains(wrong));
    common::nowhere(v.path(), &s.password);
    common::nowhere(v.path(), wrong);
}

#[test]
fn a_reply_draft_needs_a_model_and_nothing_is_sent() {
    let v = people_vault(&[]);
    let (route, out, _) = ask(v.path(), "draft reply to Ana");
    assert_eq!(route, "postman");
    assert!(
        out.contains("A reply draft needs a language model") && out.contains("never sent"),
        "{out}"
    );
}

/// A calendar config for the folder or file `ics`.
fn calendar_config(v: &TempDir, ics: &Path) {
    with_config(
        v,
        &format!(
            "calendar:\n  ics: [{}]\n  timezone: Europe/Rome\n",
            ics.display()
        ),
    );
}

/// One VEVENT as text; `extra` is added as lines (each ending in CRLF).
fn vevent(uid: &str, summary: &str, start: NaiveDate, extra: &str) -> String {
    format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Rome:{}\r\nDURATION:PT1H\r\nSUMMARY:{summary}\r\n{extra}END:VEVENT\r\n",
        ics_stamp(start, 9)
    )
}

fn vcalendar(events: &[String]) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//crew tests//EN\r\n{}END:VCALENDAR\r\n",
        events.concat()
    )
}

#[test]
fn deeply_nested_calendars_are_refused_by_name_in_every_command() {
    let cal = TempDir::new().expect("tmp");
    // 8,000 nested components: a parser that recurses per level runs out of stack
    let mut deep = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\n");
    for _ in 0..8_000 {
        deep.push_str("BEGIN:X\r\n");
    }
    for _ in 0..8_000 {
        deep.push_str("END:X\r\n");
    }
    deep.push_str("END:VCALENDAR\r\n");
    std::fs::write(cal.path().join("deep.ics"), deep).expect("ics");
    // the agenda shows the week from Monday to Sunday: on a Sunday tomorrow is next week's,
    // so the same deadline is also on today's calendar
    let tomorrow = today() + Duration::days(1);
    std::fs::write(
        cal.path().join("work.ics"),
        vcalendar(&[
            vevent("ok@test", "Budget deadline", tomorrow, ""),
            vevent("today@test", "Budget deadline", today(), ""),
        ]),
    )
    .expect("ics");
    let v = people_vault(&[]);
    calendar_config(&v, cal.path());
    for ask_for in [
        "what's on my calendar",
        "weekly agenda",
        "deadline radar",
        "prepare for meeting budget",
        "import events",
    ] {
        let (_, out, _) = ask(v.path(), ask_for);
        assert!(out.contains("Budget deadline"), "{ask_for}: {out}");
        if ask_for != "weekly agenda" && ask_for != "deadline radar" {
            assert!(
                out.contains("deep.ics") && out.contains("nested"),
                "{ask_for}: {out}"
            );
        }
    }
    assert_eq!(event_notes(v.path()).len(), 2);
}

#[test]
fn a_rule_without_end_is_cut_at_a_cap_that_the_report_names() {
    let cal = TempDir::new().expect("tmp");
    let ics = cal.path().join("c.ics");
    let t = today();
    std::fs::write(
        &ics,
        vcalendar(&[
            vevent(
                "every-second@test",
                "Every second",
                t,
                "RRULE:FREQ=SECONDLY\r\n",
            ),
            vevent(
                "daily@test",
                "Daily walk",
                t,
                "RRULE:FREQ=DAILY;COUNT=3\r\n",
            ),
        ]),
    )
    .expect("ics");
    let v = people_vault(&[]);
    calendar_config(&v, &ics);
    let (_, out, _) = ask(v.path(), "import events");
    assert!(
        out.contains("Every second") && out.contains("first 500"),
        "{out}"
    );
    let notes = event_notes(v.path());
    assert_eq!(
        notes
            .iter()
            .filter(|(_, t)| t.contains("# Every second"))
            .count(),
        500
    );
    assert_eq!(
        notes
            .iter()
            .filter(|(_, t)| t.contains("# Daily walk"))
            .count(),
        3
    );
}

#[test]
fn a_bidi_control_in_an_event_name_stays_out_of_file_names_and_a_bad_event_is_skipped() {
    let cal = TempDir::new().expect("tmp");
    let ics = cal.path().join("c.ics");
    let soon = today() + Duration::days(1);
    let later = today() + Duration::days(40);
    std::fs::write(
        &ics,
        vcalendar(&[
            vevent("bidi@test", "Pay \u{202E}fdp.exe", soon, ""),
            vevent("blocked@test", "Blocked review", later, ""),
            vevent("plain@test", "Plain lunch", soon, ""),
        ]),
    )
    .expect("ics");
    let v = people_vault(&[]);
    // a file where the month folder of one event must go: that event cannot be written
    let month = format!("06-Meetings/{}", later.format("%Y/%m"));
    std::fs::create_dir_all(v.path().join(&month).parent().expect("parent")).expect("mkdir");
    std::fs::write(v.path().join(&month), "not a folder").expect("blocker");
    calendar_config(&v, &ics);
    let (_, out, code) = ask(v.path(), "import events");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 new"), "{out}");
    assert!(
        out.contains("Blocked review") && out.contains("skipped"),
        "{out}"
    );
    let notes = event_notes(v.path());
    assert_eq!(notes.len(), 2, "{out}");
    for (p, _) in &notes {
        let name = p.to_string_lossy();
        assert!(
            !name.chars().any(|c| c == '\u{202E}' || c.is_control()),
            "{name:?}"
        );
    }
    assert!(
        notes
            .iter()
            .any(|(p, _)| p.to_string_lossy().contains("Pay fdp.exe"))
    );
}

#[test]
fn a_second_event_with_the_same_uid_is_skipped_and_named() {
    let cal = TempDir::new().expect("tmp");
    let ics = cal.path().join("c.ics");
    let soon = today() + Duration::days(1);
    std::fs::write(
        &ics,
        vcalendar(&[
            vevent("same@test", "Dentist", soon, ""),
            vevent("same@test", "Board meeting", soon + Duration::days(1), ""),
        ]),
    )
    .expect("ics");
    let v = people_vault(&[]);
    calendar_config(&v, &ics);
    let (_, out, _) = ask(v.path(), "import events");
    assert!(out.contains("1 new"), "{out}");
    assert!(
        out.contains("Board meeting") && out.contains("same@test") && out.contains("Dentist"),
        "{out}"
    );
    let notes = event_notes(v.path());
    assert_eq!(notes.len(), 1);
    assert!(notes[0].1.contains("# Dentist"));
    // the same event in two files (an export and a sync folder) is no conflict
    std::fs::write(
        cal.path().join("copy.ics"),
        vcalendar(&[vevent("same@test", "Dentist", soon, "")]),
    )
    .expect("ics");
    calendar_config(&v, cal.path());
    let (_, out, _) = ask(v.path(), "import events");
    assert!(out.contains("0 new, 0 updated, 1 unchanged"), "{out}");
    assert!(
        !out.contains("copy.ics"),
        "the same event twice is no problem: {out}"
    );
}

/// What outside text may carry that would run in Obsidian.
const LIVE: &str = "Hi\n\n```dataviewjs\ndv.paragraph(app.vault.getName())\n```\n\n~~~ dataview\nTABLE file.name\n~~~\n\n> ```js-engine\n> return 1\n> ```\n\nInline `$= dv.current().file.name` and ` $=1+1 ` too.\n<script>alert(1)</script> <IFRAME src=\"https://x.example\"></iframe>\n<% tp.system.prompt() %>\n";

/// The live forms `LIVE` holds are gone from `text`.
fn assert_inert(text: &str) {
    let lower = text.to_lowercase();
    for bad in [
        "```dataviewjs",
        "~~~ dataview\n",
        "```js-engine",
        "`$=",
        "` $=",
        "<script",
        "<iframe",
        "<%",
    ] {
        assert!(!lower.contains(bad), "{bad:?} left live in:\n{text}");
    }
}

#[test]
fn saved_mail_and_imported_events_hold_no_live_code_and_headers_stay_on_one_line() {
    let md = maildir();
    // every byte but letters and digits as `=XX`, so any text is one encoded word
    let encoded = |s: &str| {
        let q: String = s
            .bytes()
            .map(|b| {
                if b.is_ascii_alphanumeric() {
                    (b as char).to_string()
                } else {
                    format!("={b:02X}")
                }
            })
            .collect();
        format!("=?UTF-8?Q?{q}?=")
    };
    let mail = format!(
        "From: {} <mallory@evil.example>\r\nTo: {} <me@example.org>\r\nSubject: {}\r\nDate: {}\r\nMessage-ID: <evil1@evil.example>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}",
        encoded("Mallory\n---\nstatus: pwned\n"),
        encoded("Me\n---\nstatus: pwned <% x %>"),
        encoded("Invoice\nstatus: pwned `$= dv.current()`"),
        rfc_date(0),
        LIVE.replace('\n', "\r\n")
    );
    deliver(md.path(), "3000.evil.host", mail.as_bytes());
    let cal = TempDir::new().expect("tmp");
    let ics = cal.path().join("c.ics");
    let description = LIVE
        .replace('\\', "\\\\")
        .replace(',', "\\,")
        .replace(';', "\\;")
        .replace('\n', "\\n");
    std::fs::write(
        &ics,
        vcalendar(&[vevent(
            "live@test",
            "Sync `$= dv.current()`",
            today() + Duration::days(1),
            &format!("DESCRIPTION:{description}\r\nLOCATION:<script>x</script>\r\n"),
        )]),
    )
    .expect("ics");
    let v = people_vault(&[]);
    with_config(
        &v,
        &format!(
            "mail:\n  maildir: {}\ncalendar:\n  ics: [{}]\n  timezone: Europe/Rome\n",
            md.path().display(),
            ics.display()
        ),
    );
    let (_, listing, _) = ask(v.path(), "check my email");
    let n = number_of(&listing, "Invoice");
    let (_, out, _) = ask(v.path(), &format!("save email {n}"));
    assert!(out.contains("Saved"), "{out}");
    let saved = notes_with(v.path(), "message-id: \"evil1@evil.example\"");
    assert_eq!(saved.len(), 1);
    let text = &saved[0].1;
    assert_inert(text);
    assert!(
        text.contains("dv.paragraph"),
        "the text itself stays: {text}"
    );
    // no header breaks out of its line
    assert!(text.contains("Mallory --- status: pwned"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.starts_with("status:")).count(),
        1,
        "{text}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with("status: pwned")),
        "{text}"
    );
    let (_, out, _) = ask(v.path(), "import events");
    assert!(out.contains("1 new"), "{out}");
    let notes = event_notes(v.path());
    assert_eq!(notes.len(), 1);
    assert_inert(&notes[0].1);
    assert!(notes[0].1.contains("TABLE file.name"), "{}", notes[0].1);
    // the agent log and the post-it are notes too
    for meta in ["Meta/agent-log.md", "Meta/states/postman.md"] {
        if let Ok(t) = std::fs::read_to_string(v.path().join(meta)) {
            assert_inert(&t);
            assert!(!t.lines().any(|l| l.starts_with("status: pwned")), "{t}");
        }
    }
}
