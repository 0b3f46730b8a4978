//! The postman and a real CalDAV server: the Radicale `.ci/run` starts (`.ci/radicale`). Each
//! test makes a calendar of its own on it, so runs never see each other's events. Outside CI a
//! missing server makes the tests say SKIPPED; in CI it fails them.

mod common;

use std::path::Path;

use assert_fs::TempDir;
use common::crew;

/// The Radicale `.ci/run` starts: the test user's collection URL, user and password.
struct Radicale {
    base: String,
    user: String,
    password: String,
}

fn radicale() -> Option<Radicale> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    match (
        var("CREW_CALDAV_TEST"),
        var("CREW_CALDAV_USER"),
        var("CREW_CALDAV_PASSWORD"),
    ) {
        (Some(base), Some(user), Some(password)) => Some(Radicale {
            base: if base.ends_with('/') {
                base
            } else {
                format!("{base}/")
            },
            user,
            password,
        }),
        _ => {
            common::skipped(
                "CREW_CALDAV_TEST and friends are not set (.ci/run starts Radicale and sets them)",
            );
            None
        }
    }
}

/// A request to the server as another CalDAV client would send it: (status, body).
fn dav(
    r: &Radicale,
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String) {
    use base64::Engine as _;
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .allow_non_standard_methods(true)
        .build()
        .into();
    let mut b = ureq::http::Request::builder()
        .method(method)
        .uri(url)
        .header(
            "authorization",
            format!(
                "Basic {}",
                base64::engine::general_purpose::STANDARD
                    .encode(format!("{}:{}", r.user, r.password))
            ),
        );
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let mut resp = agent
        .run(b.body(body.as_bytes().to_vec()).expect("request"))
        .expect("Radicale answers");
    let status = resp.status().as_u16();
    (status, resp.body_mut().read_to_string().unwrap_or_default())
}

/// A new, empty calendar on the server for one test; its URL.
fn new_calendar(r: &Radicale, name: &str) -> String {
    let tag = format!(
        "{name}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .subsec_nanos()
    );
    let url = format!("{}{tag}/", r.base);
    let (status, body) = dav(r, "MKCALENDAR", &url, &[], "");
    assert_eq!(status, 201, "MKCALENDAR {url}: {body}");
    url
}

/// The iCalendar text of every event the calendar holds.
fn events_on(r: &Radicale, url: &str) -> Vec<String> {
    let query = r#"<?xml version="1.0" encoding="utf-8"?><c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT"/></c:comp-filter></c:filter></c:calendar-query>"#;
    let (status, body) = dav(
        r,
        "REPORT",
        url,
        &[("depth", "1"), ("content-type", "application/xml")],
        query,
    );
    assert_eq!(status, 207, "{body}");
    body.split("BEGIN:VEVENT")
        .skip(1)
        .map(|e| e.split("END:VEVENT").next().unwrap_or("").to_string())
        .collect()
}

fn vault_for(url: &str, user: &str, extra: &str) -> TempDir {
    let v = common::vault(&[]);
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        format!(
            "calendar:\n  caldav:\n    - url: {url}\n      username: {user}\n      password_env: CREW_TEST_CALDAV_PASSWORD\n  timezone: Europe/Rome\n{extra}"
        ),
    )
    .expect("config");
    v
}

/// `crew ask MESSAGE` (with `--yes` when `yes`) on a Thursday, 3 December 2026, 09:00:
/// (stdout, stderr, exit code). The password never comes back out.
fn ask(v: &Path, password: &str, message: &str, yes: bool) -> (String, String, i32) {
    let mut cmd = crew(v);
    cmd.env("CREW_TEST_CALDAV_PASSWORD", password)
        .env("CREW_TODAY", "2026-12-03T09:00:00")
        .arg("ask");
    if yes {
        cmd.arg("--yes");
    }
    let out = cmd.arg(message).output().expect("run");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(!stdout.contains(password) && !stderr.contains(password));
    (stdout, stderr, out.status.code().unwrap_or(-1))
}

/// Every note of the vault's meetings folder, with its text.
fn meeting_notes(v: &Path) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = walkdir::WalkDir::new(v.join("06-Meetings"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().display().to_string(),
                std::fs::read_to_string(e.path()).expect("read"),
            )
        })
        .collect();
    out.sort();
    out
}

#[test]
fn create_an_event_plans_then_writes_it_once_and_import_reads_it_back() {
    let Some(r) = radicale() else { return };
    let cal = new_calendar(&r, "create");
    let v = vault_for(&cal, &r.user, "");
    let request = "create an event: lunch with Marco next Tuesday at noon";
    // without --yes: the plan, and nothing on the server or in the vault
    let (out, err, code) = ask(v.path(), &r.password, request, false);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("trigger \"create an event\""), "{err}");
    assert!(out.contains("## New event (plan)"), "{out}");
    assert!(out.contains("Tuesday 2026-12-08 12:00–13:00"), "{out}");
    assert!(
        out.contains("crew ask --yes 'create an event: lunch with Marco"),
        "{out}"
    );
    assert!(events_on(&r, &cal).is_empty());
    assert!(meeting_notes(v.path()).is_empty());
    // with --yes: one event with a UID crew made, in UTC (noon in Rome is 11:00Z)
    let (out, err, code) = ask(v.path(), &r.password, request, true);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("## Event created"), "{out}");
    let events = events_on(&r, &cal);
    assert_eq!(events.len(), 1, "{events:?}");
    let ev = &events[0];
    assert!(ev.contains("SUMMARY:Lunch with Marco"), "{ev}");
    assert!(
        ev.contains("DTSTART:20261208T110000Z") && ev.contains("DTEND:20261208T120000Z"),
        "{ev}"
    );
    let uid = ev
        .lines()
        .find_map(|l| l.trim().strip_prefix("UID:"))
        .expect("a UID")
        .trim()
        .to_string();
    assert!(uid.starts_with("crew-"), "{uid}");
    assert!(out.contains(&uid), "{out}");
    // its note, where the vault keeps events, found again by the UID
    let notes = meeting_notes(v.path());
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(
        notes[0]
            .0
            .ends_with("06-Meetings/2026/12/2026-12-08 — Meeting — Lunch with Marco.md")
    );
    assert!(
        notes[0]
            .1
            .contains(&format!("calendar-event-id: \"{uid}\"")),
        "{}",
        notes[0].1
    );
    assert!(notes[0].1.contains("time: \"12:00\""), "{}", notes[0].1);
    // the same request again adds nothing
    let (out, _, _) = ask(v.path(), &r.password, request, true);
    assert!(
        out.contains("## Already on the calendar") && out.contains(&uid),
        "{out}"
    );
    assert_eq!(events_on(&r, &cal).len(), 1);
    assert_eq!(meeting_notes(v.path()).len(), 1);
    // imports read it as they read .ics: the note is the one import would make
    let (out, _, _) = ask(v.path(), &r.password, "import events", false);
    assert!(out.contains("0 new, 0 updated, 1 unchanged"), "{out}");
    let (out, _, _) = ask(v.path(), &r.password, "what's on my calendar", false);
    assert!(out.contains("12:00–13:00 **Lunch with Marco**"), "{out}");
    common::nowhere(v.path(), &r.password);
}

#[test]
fn events_another_client_put_are_imported_beside_ics_files() {
    let Some(r) = radicale() else { return };
    let cal = new_calendar(&r, "import");
    // another client's event: a zoned start, escaped text, an attendee
    let ics = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:board-1@example.org\r\nDTSTAMP:20261201T100000Z\r\nDTSTART:20261210T140000Z\r\nDTEND:20261210T150000Z\r\nSUMMARY:Board review\\, Q4\r\nLOCATION:Room 4\r\nATTENDEE;CN=Ana Lima:mailto:ana@example.org\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let (status, body) = dav(
        &r,
        "PUT",
        &format!("{cal}board-1.ics"),
        &[("content-type", "text/calendar")],
        ics,
    );
    assert_eq!(status, 201, "{body}");
    // an event outside the window is not asked for
    let old = ics
        .replace("board-1@", "old-1@")
        .replace("20261210T", "20250110T");
    let (status, _) = dav(&r, "PUT", &format!("{cal}old-1.ics"), &[], &old);
    assert_eq!(status, 201);
    let v = vault_for(&cal, &r.user, "  ics: [cal/dentist.ics]\n");
    std::fs::create_dir_all(v.path().join("cal")).expect("mkdir");
    std::fs::write(
        v.path().join("cal/dentist.ics"),
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VEVENT\r\nUID:dentist-1\r\nDTSTART:20261207T080000Z\r\nDTEND:20261207T090000Z\r\nSUMMARY:Dentist\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n",
    )
    .expect("ics");
    let (out, err, code) = ask(v.path(), &r.password, "import events", false);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 new, 0 updated, 0 unchanged"), "{out}");
    let notes = meeting_notes(v.path());
    let board = notes
        .iter()
        .find(|(p, _)| p.contains("Board review, Q4"))
        .unwrap_or_else(|| panic!("{notes:?}"));
    assert!(
        board
            .1
            .contains("calendar-event-id: \"board-1@example.org\"")
    );
    assert!(board.1.contains("time: \"15:00\""), "{}", board.1);
    assert!(
        board.1.contains("Room 4") && board.1.contains("Ana Lima"),
        "{}",
        board.1
    );
    assert!(notes.iter().any(|(p, _)| p.contains("Dentist")));
    // crew read it and changed nothing on the server
    let on_server = events_on(&r, &cal);
    assert_eq!(on_server.len(), 2);
}

#[test]
fn a_wrong_password_or_calendar_is_named_and_nothing_is_written() {
    let Some(r) = radicale() else { return };
    let cal = new_calendar(&r, "refused");
    let v = vault_for(&cal, &r.user, "");
    let wrong = "Wr0ng-caldav-pa55";
    let (out, _, _) = ask(v.path(), wrong, "import events", false);
    assert!(
        out.contains(&format!(
            "calendar {cal}: the server refused the login of crew (HTTP 401)"
        )),
        "{out}"
    );
    let (out, _, _) = ask(
        v.path(),
        wrong,
        "create an event: dinner next Friday at 8pm",
        true,
    );
    assert!(
        out.contains("## The event was not created") && out.contains("HTTP 401"),
        "{out}"
    );
    assert!(meeting_notes(v.path()).is_empty());
    let missing = format!("{}no-such-calendar/", r.base);
    let v = vault_for(&missing, &r.user, "");
    let (out, _, _) = ask(v.path(), &r.password, "import events", false);
    assert!(
        out.contains(&format!("calendar {missing}: no calendar there")),
        "{out}"
    );
    common::nowhere(v.path(), &r.password);
    assert!(events_on(&r, &cal).is_empty());
}

#[test]
fn an_object_already_on_the_server_is_never_replaced() {
    use crew::agents::postman::caldav::{CaldavError, Calendar};
    let Some(r) = radicale() else { return };
    let cal = new_calendar(&r, "conflict");
    let theirs = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:crew-taken\r\nDTSTAMP:20261201T100000Z\r\nDTSTART:20261210T140000Z\r\nSUMMARY:Theirs\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    let (status, _) = dav(&r, "PUT", &format!("{cal}crew-taken.ics"), &[], theirs);
    assert_eq!(status, 201);
    // the password is read from the variable .ci/run exported it in
    let calendar = Calendar::open(&crew::crew::mailcal::CaldavConfig {
        url: cal.clone(),
        username: Some(r.user.clone()),
        password_env: Some("CREW_CALDAV_PASSWORD".into()),
    })
    .expect("open");
    let ours = theirs.replace("SUMMARY:Theirs", "SUMMARY:Ours");
    match calendar.create("crew-taken", &ours) {
        Err(e @ CaldavError::Exists { .. }) => {
            assert!(e.to_string().contains("nothing was replaced"), "{e}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    let events = events_on(&r, &cal);
    assert_eq!(events.len(), 1);
    assert!(events[0].contains("SUMMARY:Theirs"), "{events:?}");
}

#[test]
fn a_caldav_config_crew_cannot_use_stops_with_exit_code_2() {
    let v = common::vault(&[]);
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    for (entry, says, line) in [
        (
            "url: https://me:s3cret-pw@cal.example.org/me/",
            "holds credentials",
            3,
        ),
        (
            "url: http://cal.example.org/me/\n      username: me\n      password_env: P",
            "only sent over https://",
            3,
        ),
        (
            "url: cal.example.org/me/",
            "not an http:// or https:// URL",
            3,
        ),
        (
            "url: https://cal.example.org/me/\n      passwrd_env: P",
            "unknown field `passwrd_env`",
            4,
        ),
    ] {
        std::fs::write(
            v.path().join(".crew/config.yaml"),
            format!("calendar:\n  caldav:\n    - {entry}\n"),
        )
        .expect("config");
        let out = crew(v.path())
            .args(["ask", "import events"])
            .output()
            .expect("run");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{entry}: {err}");
        assert!(
            err.contains(says) && err.contains(&format!("config.yaml:{line}:")),
            "{entry}: {err}"
        );
        assert!(!err.contains("s3cret-pw"), "{err}");
    }
}

#[test]
fn creating_an_event_without_a_caldav_calendar_says_what_to_configure() {
    let v = common::vault(&[]);
    let out = crew(v.path())
        .env("CREW_TODAY", "2026-12-03T09:00:00")
        .args([
            "ask",
            "--yes",
            "crea un evento: pranzo con Marco martedì prossimo a mezzogiorno",
        ])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("calendario CalDAV") && text.contains("caldav:"),
        "{text}"
    );
    assert!(meeting_notes(v.path()).is_empty());
}
