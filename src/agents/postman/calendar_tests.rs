//! Tests of the calendar reader: zones, series, caps, broken and hostile files.

use super::*;

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date")
}

const CAL: &str = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//t//t//EN\r\n\
BEGIN:VEVENT\r\nUID:weekly-1\r\nDTSTAMP:20261101T000000Z\r\n\
DTSTART;TZID=America/New_York:20261201T090000\r\nDTEND;TZID=America/New_York:20261201T093000\r\n\
RRULE:FREQ=WEEKLY;COUNT=4\r\nEXDATE;TZID=America/New_York:20261215T090000\r\n\
SUMMARY:Stand-up\\, weekly\r\nATTENDEE;CN=\"Ana Lima\":mailto:Ana@Example.org\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:weekly-1\r\nDTSTAMP:20261101T000000Z\r\nRECURRENCE-ID;TZID=America/New_York:20261208T090000\r\n\
DTSTART;TZID=America/New_York:20261209T100000\r\nDURATION:PT1H\r\nSUMMARY:Stand-up (moved)\r\nEND:VEVENT\r\n\
BEGIN:VEVENT\r\nUID:day-1\r\nDTSTAMP:20261101T000000Z\r\nDTSTART;VALUE=DATE:20261203\r\n\
SUMMARY:Report deadline\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";

#[test]
fn expands_series_with_exceptions_and_zones() {
    let zone: Tz = "Europe/Rome".parse().expect("zone");
    let mut problems = Vec::new();
    let evs = parse_file(
        CAL.as_bytes(),
        "c.ics",
        zone,
        d("2026-11-25"),
        d("2027-01-31"),
        &mut problems,
    )
    .expect("parses");
    assert!(problems.is_empty(), "{problems:?}");
    let mut got: Vec<(String, String)> = evs
        .iter()
        .map(|(_, e)| {
            (
                e.start.format("%Y-%m-%d %H:%M").to_string(),
                e.summary.clone(),
            )
        })
        .collect();
    got.sort();
    // 09:00 in New York is 15:00 in Rome; the 15th is excluded; the 8th moved to the 9th
    assert_eq!(
        got,
        vec![
            ("2026-12-01 15:00".into(), "Stand-up, weekly".into()),
            ("2026-12-03 00:00".into(), "Report deadline".into()),
            ("2026-12-09 16:00".into(), "Stand-up (moved)".into()),
            ("2026-12-22 15:00".into(), "Stand-up, weekly".into()),
        ]
    );
    let first = evs
        .iter()
        .find(|(_, e)| e.summary == "Stand-up, weekly")
        .expect("first");
    assert_eq!(first.1.occurrence.as_deref(), Some("20261201T140000Z"));
    assert_eq!(
        first.1.attendees[0].email.as_deref(),
        Some("ana@example.org")
    );
    assert_eq!(first.1.time_range(), "15:00–15:30");
}

#[test]
fn broken_files_are_refused_with_a_reason() {
    let zone = Tz::UTC;
    let mut p = Vec::new();
    assert!(
        parse_file(
            b"hello",
            "x.ics",
            zone,
            d("2026-01-01"),
            d("2026-12-31"),
            &mut p
        )
        .is_err()
    );
    let no_uid = "BEGIN:VCALENDAR\nBEGIN:VEVENT\nDTSTART:20260101T100000Z\nSUMMARY:X\nEND:VEVENT\nEND:VCALENDAR\n";
    let evs = parse_file(
        no_uid.as_bytes(),
        "y.ics",
        zone,
        d("2026-01-01"),
        d("2026-12-31"),
        &mut p,
    )
    .expect("file parses");
    assert!(evs.is_empty());
    assert!(p[0].contains("y.ics") && p[0].contains("no UID"), "{p:?}");
    assert_eq!(
        parse_duration("PT1H30M"),
        Some(chrono::Duration::minutes(90))
    );
    assert_eq!(parse_duration("P1D"), Some(chrono::Duration::days(1)));
}

fn one(uid: &str, summary: &str, start: &str, extra: &str) -> String {
    format!(
        "BEGIN:VEVENT\r\nUID:{uid}\r\nDTSTART:{start}\r\nDURATION:PT1H\r\nSUMMARY:{summary}\r\n{extra}END:VEVENT\r\n"
    )
}

fn cal(events: &[String]) -> String {
    format!(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\n{}END:VCALENDAR\r\n",
        events.concat()
    )
}

#[test]
fn deep_nesting_is_refused_before_the_parser_recurses() {
    let nested = |n: usize| {
        let mut t = String::from("BEGIN:VCALENDAR\r\n");
        t.push_str(&"BEGIN:X\r\n".repeat(n));
        t.push_str(&"END:X\r\n".repeat(n));
        t.push_str("END:VCALENDAR\r\n");
        t
    };
    let mut p = Vec::new();
    let window = (d("2026-01-01"), d("2026-12-31"));
    for n in [8_000, MAX_NESTING] {
        let e = parse_file(
            nested(n).as_bytes(),
            "deep.ics",
            Tz::UTC,
            window.0,
            window.1,
            &mut p,
        )
        .expect_err("refused");
        assert!(e.contains("nested more than 32"), "{e}");
    }
    // lower-case and indented BEGIN lines count as well
    let sly = nested(40).replace("BEGIN:X", "  begin:X");
    assert!(parse_file(sly.as_bytes(), "s.ics", Tz::UTC, window.0, window.1, &mut p).is_err());
    // an event with an alarm, in a calendar with a time zone, is three levels
    let alarm = cal(&[one(
        "a",
        "Alarm",
        "20260301T100000Z",
        "BEGIN:VALARM\r\nACTION:DISPLAY\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n",
    )]);
    let evs = parse_file(
        alarm.as_bytes(),
        "a.ics",
        Tz::UTC,
        window.0,
        window.1,
        &mut p,
    )
    .expect("parses");
    assert_eq!(evs.len(), 1);
}

#[test]
fn a_rule_without_end_is_capped_per_event_and_in_time() {
    let mut p = Vec::new();
    // starting in the window: the first MAX_OCCURRENCES of it, and the report says so
    let text = cal(&[
        one(
            "s",
            "Every second",
            "20260301T100000Z",
            "RRULE:FREQ=SECONDLY\r\n",
        ),
        one("d", "Daily", "20260301T100000Z", "RRULE:FREQ=DAILY\r\n"),
    ]);
    let evs = parse_file(
        text.as_bytes(),
        "s.ics",
        Tz::UTC,
        d("2026-03-01"),
        d("2026-03-10"),
        &mut p,
    )
    .expect("parses");
    let count = |name: &str| evs.iter().filter(|(_, e)| e.summary == name).count();
    assert_eq!(count("Every second"), MAX_OCCURRENCES);
    assert_eq!(count("Daily"), 10);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(
        p[0].contains("\"Every second\"") && p[0].contains("first 500"),
        "{p:?}"
    );
    // begun a year before the window: crew stops stepping through it, and says so
    let mut p = Vec::new();
    let old = cal(&[one(
        "s",
        "Every second",
        "20250301T100000Z",
        "RRULE:FREQ=SECONDLY\r\n",
    )]);
    let evs = parse_file(
        old.as_bytes(),
        "s.ics",
        Tz::UTC,
        d("2026-03-01"),
        d("2026-03-10"),
        &mut p,
    )
    .expect("parses");
    assert!(evs.is_empty());
    assert!(p[0].contains("fires too often"), "{p:?}");
    // twenty of them in one file: the file's budget ends the stepping early
    let mut p = Vec::new();
    let many: Vec<String> = (0..20)
        .map(|i| {
            one(
                &format!("s{i}"),
                "Every second",
                "20250301T100000Z",
                "RRULE:FREQ=SECONDLY\r\n",
            )
        })
        .collect();
    parse_file(
        cal(&many).as_bytes(),
        "s.ics",
        Tz::UTC,
        d("2026-03-01"),
        d("2026-03-10"),
        &mut p,
    )
    .expect("parses");
    assert_eq!(p.len(), 20, "{p:?}");
    assert!(
        p[19].contains("crew stopped after 0 occurrences"),
        "{}",
        p[19]
    );
}

#[test]
fn many_capped_series_in_one_file_stay_bounded() {
    let events: Vec<String> = (0..20)
        .map(|i| {
            one(
                &format!("s{i}"),
                &format!("S{i}"),
                "20260301T100000Z",
                "RRULE:FREQ=MINUTELY\r\n",
            )
        })
        .collect();
    let mut p = Vec::new();
    let evs = parse_file(
        cal(&events).as_bytes(),
        "m.ics",
        Tz::UTC,
        d("2026-03-01"),
        d("2026-03-10"),
        &mut p,
    )
    .expect("parses");
    assert_eq!(evs.len(), MAX_FILE_OCCURRENCES);
    assert_eq!(p.len(), 20, "every cut series is named: {p:?}");
    assert!(
        p[19].contains("\"S19\"") && p[19].contains("already made 5000"),
        "{}",
        p[19]
    );
}

#[test]
fn an_occurrence_moved_into_the_window_from_outside_it_is_kept() {
    // weekly from March 2; the occurrence of April 27 is moved to March 31
    let text = cal(&[
        one("w", "Weekly", "20260302T100000Z", "RRULE:FREQ=WEEKLY;COUNT=10\r\n"),
        "BEGIN:VEVENT\r\nUID:w\r\nRECURRENCE-ID:20260427T100000Z\r\nDTSTART:20260331T150000Z\r\nDURATION:PT1H\r\nSUMMARY:Weekly (moved)\r\nEND:VEVENT\r\n".into(),
    ]);
    let mut p = Vec::new();
    let evs = parse_file(
        text.as_bytes(),
        "w.ics",
        Tz::UTC,
        d("2026-03-25"),
        d("2026-04-05"),
        &mut p,
    )
    .expect("parses");
    let got: Vec<(String, Option<String>)> = evs
        .iter()
        .map(|(_, e)| (e.summary.clone(), e.occurrence.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            ("Weekly".into(), Some("20260330T100000Z".into())),
            ("Weekly (moved)".into(), Some("20260427T100000Z".into())),
        ],
        "{p:?}"
    );
}

#[test]
fn one_uid_on_two_different_events_keeps_the_first_and_names_the_second() {
    let dir = tempfile::tempdir().expect("tmp");
    let a = dir.path().join("a.ics");
    let b = dir.path().join("b.ics");
    std::fs::write(
        &a,
        cal(&[
            one("u1", "Dentist", "20260302T100000Z", ""),
            one("u1", "Board", "20260303T100000Z", ""),
        ]),
    )
    .expect("write");
    // the same event in a second file, and a newer SEQUENCE of another one
    std::fs::write(
        &b,
        cal(&[
            one("u1", "Dentist", "20260302T100000Z", ""),
            one("u2", "Lunch", "20260304T100000Z", "SEQUENCE:2\r\n"),
        ]),
    )
    .expect("write");
    let c = dir.path().join("c.ics");
    std::fs::write(
        &c,
        cal(&[one("u2", "Old lunch", "20260304T110000Z", "SEQUENCE:1\r\n")]),
    )
    .expect("write");
    let l = load(
        &[dir.path().to_path_buf()],
        Tz::UTC,
        d("2026-03-01"),
        d("2026-03-31"),
    );
    let names: Vec<&str> = l.events.iter().map(|e| e.summary.as_str()).collect();
    assert_eq!(names, vec!["Dentist", "Lunch"], "{:?}", l.problems);
    assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
    assert!(
        l.problems[0].contains("\"Board\" has the UID u1 of another event, \"Dentist\""),
        "{:?}",
        l.problems
    );
}

#[test]
fn titles_and_uids_are_one_line_and_inert() {
    let text = cal(&[one("x\\n<% y %>", "Two\\nlines", "20260302T100000Z", "")]);
    let mut p = Vec::new();
    let evs = parse_file(
        text.as_bytes(),
        "t.ics",
        Tz::UTC,
        d("2026-03-01"),
        d("2026-03-31"),
        &mut p,
    )
    .expect("parses");
    assert_eq!(evs[0].1.summary, "Two lines");
    assert_eq!(evs[0].1.uid, "x <\\% y %>");
}
