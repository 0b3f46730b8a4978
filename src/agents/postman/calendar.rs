//! Events from iCalendar files: parsed with `icalendar`, recurring series expanded with
//! `rrule`, every time shown in the user's zone (`chrono-tz`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;
use icalendar::parser::{Component, Property};

/// Occurrences of one series kept per window (a rule firing every minute stays bounded).
const MAX_OCCURRENCES: u16 = 5_000;

/// Someone taking part in an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attendee {
    pub name: Option<String>,
    pub email: Option<String>,
}

impl Attendee {
    pub fn label(&self) -> String {
        self.name
            .clone()
            .or_else(|| self.email.clone())
            .unwrap_or_else(|| "(unnamed)".into())
    }
}

/// One event, or one occurrence of a recurring series.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub uid: String,
    /// For an occurrence of a series: its original start (`YYYYMMDDTHHMMSSZ`, or `YYYYMMDD`
    /// for all-day series), which stays the same when that one occurrence is moved.
    pub occurrence: Option<String>,
    pub summary: String,
    /// Start and end in the user's zone.
    pub start: NaiveDateTime,
    pub end: Option<NaiveDateTime>,
    pub all_day: bool,
    pub location: Option<String>,
    pub description: Option<String>,
    pub attendees: Vec<Attendee>,
    pub organizer: Option<Attendee>,
    pub cancelled: bool,
    /// The file it came from.
    pub file: String,
}

impl Event {
    pub fn date(&self) -> NaiveDate {
        self.start.date()
    }

    /// `10:00–11:00`, or `all day`.
    pub(crate) fn time_range(&self) -> String {
        if self.all_day {
            return "all day".into();
        }
        match self.end {
            Some(e) if e.date() == self.start.date() => {
                format!("{}–{}", self.start.format("%H:%M"), e.format("%H:%M"))
            }
            Some(e) => format!(
                "{} – {}",
                self.start.format("%H:%M"),
                e.format("%Y-%m-%d %H:%M")
            ),
            None => self.start.format("%H:%M").to_string(),
        }
    }
}

/// What a set of calendar files held within a window, and what could not be read.
#[derive(Debug, Default)]
pub struct Loaded {
    pub events: Vec<Event>,
    /// One line per file or event skipped, naming it and why.
    pub problems: Vec<String>,
    pub files: usize,
}

/// The zone times are shown in: the configured one, else the system's, else UTC.
pub(crate) fn user_zone(configured: Option<&str>) -> Result<Tz, String> {
    if let Some(name) = configured {
        return name.trim().parse::<Tz>().map_err(|_| {
            format!("calendar.timezone `{name}` is not an IANA zone name (e.g. Europe/Rome)")
        });
    }
    Ok(iana_time_zone::get_timezone()
        .ok()
        .and_then(|n| n.parse::<Tz>().ok())
        .unwrap_or(Tz::UTC))
}

/// The events of `paths` starting between `from` and `to` (inclusive days, user's zone).
pub fn load(paths: &[PathBuf], zone: Tz, from: NaiveDate, to: NaiveDate) -> Loaded {
    let mut loaded = Loaded::default();
    let files = crate::sources::ics::files(paths, &mut loaded.problems);
    loaded.files = files.len();
    // (uid, occurrence) → (sequence, event): a later SEQUENCE of the same event wins
    let mut seen: BTreeMap<(String, Option<String>), (i64, Event)> = BTreeMap::new();
    for f in files {
        let name = f.display().to_string();
        let bytes = match crate::sources::ics::read(&f) {
            Ok(b) => b,
            Err(e) => {
                loaded
                    .problems
                    .push(format!("{name}: cannot read it ({e}); skipped"));
                continue;
            }
        };
        match parse_file(&bytes, &name, zone, from, to, &mut loaded.problems) {
            Ok(events) => {
                for (seq, ev) in events {
                    let key = (ev.uid.clone(), ev.occurrence.clone());
                    match seen.get(&key) {
                        Some((s, _)) if *s > seq => {}
                        _ => {
                            seen.insert(key, (seq, ev));
                        }
                    }
                }
            }
            Err(e) => loaded.problems.push(format!("{name}: {e}; skipped")),
        }
    }
    loaded.events = seen.into_values().map(|(_, e)| e).collect();
    loaded
        .events
        .sort_by(|a, b| a.start.cmp(&b.start).then(a.summary.cmp(&b.summary)));
    loaded
}

/// A date or date-time value as written, with the zone it is in.
#[derive(Debug, Clone, Copy)]
enum Stamp {
    Date(NaiveDate),
    Utc(NaiveDateTime),
    Zoned(NaiveDateTime, Tz),
    Floating(NaiveDateTime),
}

impl Stamp {
    fn in_zone(self, zone: Tz) -> Option<chrono::DateTime<Tz>> {
        match self {
            Stamp::Date(d) => zone
                .from_local_datetime(&d.and_time(NaiveTime::MIN))
                .earliest(),
            Stamp::Utc(t) => Some(chrono::Utc.from_utc_datetime(&t).with_timezone(&zone)),
            Stamp::Zoned(t, z) => z
                .from_local_datetime(&t)
                .earliest()
                .map(|x| x.with_timezone(&zone)),
            Stamp::Floating(t) => zone.from_local_datetime(&t).earliest(),
        }
    }

    /// The key of an occurrence starting at this stamp (UTC, so a zone rename keeps it).
    fn key(self, zone: Tz) -> Option<String> {
        match self {
            Stamp::Date(d) => Some(d.format("%Y%m%d").to_string()),
            other => other
                .in_zone(zone)
                .map(|t| t.naive_utc().format("%Y%m%dT%H%M%SZ").to_string()),
        }
    }
}

fn param<'a>(p: &'a Property, key: &str) -> Option<&'a str> {
    p.params
        .iter()
        .find(|x| x.key.as_str().eq_ignore_ascii_case(key))
        .and_then(|x| x.val.as_ref())
        .map(|v| v.as_str().trim_matches('"'))
}

/// A TZID as a zone: IANA names, also behind a vendor prefix (`/mozilla.org/…/Europe/Rome`).
fn zone_named(tzid: &str) -> Option<Tz> {
    let t = tzid.trim().trim_matches('"');
    if let Ok(z) = t.parse::<Tz>() {
        return Some(z);
    }
    // the longest trailing `Area/City` part that names a zone
    let parts: Vec<&str> = t.split('/').collect();
    (0..parts.len()).find_map(|i| parts[i..].join("/").parse::<Tz>().ok())
}

fn parse_stamp(p: &Property, zone: Tz, problems: &mut Vec<String>, what: &str) -> Option<Stamp> {
    let v = p.val.as_str().trim();
    if v.len() == 8 {
        return NaiveDate::parse_from_str(v, "%Y%m%d").ok().map(Stamp::Date);
    }
    let (body, utc) = match v.strip_suffix('Z') {
        Some(b) => (b, true),
        None => (v, false),
    };
    let t = NaiveDateTime::parse_from_str(body, "%Y%m%dT%H%M%S").ok()?;
    if utc {
        return Some(Stamp::Utc(t));
    }
    match param(p, "TZID") {
        Some(id) => match zone_named(id) {
            Some(z) => Some(Stamp::Zoned(t, z)),
            None => {
                problems.push(format!(
                    "{what}: time zone `{id}` is not known; its time is read as {zone}"
                ));
                Some(Stamp::Floating(t))
            }
        },
        None => Some(Stamp::Floating(t)),
    }
}

fn text_of(c: &Component, name: &str) -> Option<String> {
    c.find_prop(name)
        .map(|p| p.val.clone().unescape_text().as_str().trim().to_string())
        .filter(|s| !s.is_empty())
}

fn person_of(p: &Property) -> Attendee {
    let v = p.val.as_str().trim();
    let email = v
        .strip_prefix("mailto:")
        .or_else(|| v.strip_prefix("MAILTO:"))
        .map(|e| e.trim().to_lowercase())
        .filter(|e| e.contains('@'));
    Attendee {
        name: param(p, "CN")
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty()),
        email,
    }
}

/// One master event or override, before expansion.
struct Raw {
    uid: String,
    seq: i64,
    start: Stamp,
    /// The event's length, kept for each occurrence.
    length: Option<chrono::Duration>,
    recurrence_id: Option<String>,
    rrules: Vec<String>,
    exdates: Vec<Stamp>,
    base: Event,
}

fn parse_duration(v: &str) -> Option<chrono::Duration> {
    // RFC 5545 durations: [+-]P[nW][nD][T[nH][nM][nS]]
    let (neg, rest) = match v.trim().strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, v.trim().trim_start_matches('+')),
    };
    let rest = rest.strip_prefix('P')?;
    let mut total = 0i64;
    let mut num = String::new();
    let mut in_time = false;
    for ch in rest.chars() {
        match ch {
            '0'..='9' => num.push(ch),
            'T' => in_time = true,
            'W' | 'D' | 'H' | 'M' | 'S' => {
                let n: i64 = num.parse().ok()?;
                num.clear();
                total += n * match (ch, in_time) {
                    ('W', _) => 7 * 86_400,
                    ('D', _) => 86_400,
                    ('H', true) => 3_600,
                    ('M', true) => 60,
                    ('S', true) => 1,
                    _ => return None,
                };
            }
            _ => return None,
        }
    }
    Some(chrono::Duration::seconds(if neg { -total } else { total }))
}

fn raw_event(c: &Component, file: &str, zone: Tz, problems: &mut Vec<String>) -> Option<Raw> {
    let summary = text_of(c, "SUMMARY").unwrap_or_else(|| "(untitled event)".into());
    let Some(uid) = text_of(c, "UID") else {
        problems.push(format!("{file}: event \"{summary}\" has no UID; skipped"));
        return None;
    };
    let what = format!("{file}: event \"{summary}\"");
    let Some(start) = c
        .find_prop("DTSTART")
        .and_then(|p| parse_stamp(p, zone, problems, &what))
    else {
        problems.push(format!("{what} has no readable DTSTART; skipped"));
        return None;
    };
    let start_t = start.in_zone(zone)?;
    let end = c
        .find_prop("DTEND")
        .and_then(|p| parse_stamp(p, zone, problems, &what))
        .and_then(|s| s.in_zone(zone));
    let length = match end {
        Some(e) => Some(e - start_t),
        None => c
            .find_prop("DURATION")
            .and_then(|p| parse_duration(p.val.as_str())),
    };
    let all_day = matches!(start, Stamp::Date(_));
    let recurrence_id = c
        .find_prop("RECURRENCE-ID")
        .and_then(|p| parse_stamp(p, zone, problems, &what))
        .and_then(|s| s.key(zone));
    let mut rrules = Vec::new();
    let mut exdates = Vec::new();
    let mut attendees = Vec::new();
    for p in &c.properties {
        match p.name.as_str().to_ascii_uppercase().as_str() {
            "RRULE" => rrules.push(p.val.as_str().trim().to_string()),
            "EXDATE" => {
                // one EXDATE line may list several stamps
                for v in p.val.as_str().split(',') {
                    let one = Property {
                        name: p.name.clone(),
                        val: icalendar::parser::ParseString::from(v.trim().to_string()),
                        params: p.params.clone(),
                    };
                    if let Some(s) = parse_stamp(&one, zone, problems, &what) {
                        exdates.push(s);
                    }
                }
            }
            "ATTENDEE" => attendees.push(person_of(p)),
            _ => {}
        }
    }
    let seq = text_of(c, "SEQUENCE")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    Some(Raw {
        uid: uid.clone(),
        seq,
        start,
        length,
        recurrence_id,
        rrules,
        exdates,
        base: Event {
            uid,
            occurrence: None,
            summary,
            start: start_t.naive_local(),
            end: length.map(|l| (start_t + l).naive_local()),
            all_day,
            location: text_of(c, "LOCATION"),
            description: text_of(c, "DESCRIPTION"),
            attendees,
            organizer: c.find_prop("ORGANIZER").map(person_of),
            cancelled: text_of(c, "STATUS").is_some_and(|s| s.eq_ignore_ascii_case("CANCELLED")),
            file: file.to_string(),
        },
    })
}

/// A DTSTART line rrule reads, for a stamp.
fn dtstart_line(s: Stamp, zone: Tz) -> String {
    match s {
        Stamp::Utc(t) => format!("DTSTART:{}Z", t.format("%Y%m%dT%H%M%S")),
        Stamp::Zoned(t, z) => format!("DTSTART;TZID={}:{}", z.name(), t.format("%Y%m%dT%H%M%S")),
        Stamp::Floating(t) => format!("DTSTART;TZID={}:{}", zone.name(), t.format("%Y%m%dT%H%M%S")),
        Stamp::Date(d) => format!("DTSTART;TZID={}:{}T000000", zone.name(), d.format("%Y%m%d")),
    }
}

/// An RRULE whose UNTIL rrule would refuse (a bare date, or a local time) in the UTC form it takes.
fn until_as_utc(rule: &str) -> String {
    rule.split(';')
        .map(|part| match part.split_once('=') {
            Some((k, v)) if k.eq_ignore_ascii_case("UNTIL") => {
                let v = v.trim();
                if v.len() == 8 {
                    format!("UNTIL={v}T235959Z")
                } else if !v.ends_with('Z') {
                    format!("UNTIL={v}Z")
                } else {
                    format!("UNTIL={v}")
                }
            }
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join(";")
}

fn expand(
    raw: &Raw,
    zone: Tz,
    from: chrono::DateTime<Tz>,
    to: chrono::DateTime<Tz>,
) -> Result<Vec<(String, chrono::DateTime<Tz>)>, String> {
    let mut last_err = String::new();
    for fix in [false, true] {
        let mut text = dtstart_line(raw.start, zone);
        for r in &raw.rrules {
            text.push_str("\nRRULE:");
            text.push_str(&if fix { until_as_utc(r) } else { r.clone() });
        }
        for x in &raw.exdates {
            if let Some(t) = x.in_zone(zone) {
                text.push_str(&format!(
                    "\nEXDATE:{}",
                    t.naive_utc().format("%Y%m%dT%H%M%SZ")
                ));
            }
        }
        match text.parse::<rrule::RRuleSet>() {
            Ok(set) => {
                let rz = rrule::Tz::Tz(zone);
                let res = set
                    .after(from.with_timezone(&rz))
                    .before(to.with_timezone(&rz))
                    .all(MAX_OCCURRENCES);
                return Ok(res
                    .dates
                    .into_iter()
                    .map(|d| {
                        let local = d.with_timezone(&zone);
                        let key = match raw.start {
                            Stamp::Date(_) => local.date_naive().format("%Y%m%d").to_string(),
                            _ => local.naive_utc().format("%Y%m%dT%H%M%SZ").to_string(),
                        };
                        (key, local)
                    })
                    .collect());
            }
            Err(e) => last_err = e.to_string(),
        }
    }
    Err(last_err)
}

/// The events of one file within the window, each with its SEQUENCE.
pub(crate) fn parse_file(
    bytes: &[u8],
    file: &str,
    zone: Tz,
    from: NaiveDate,
    to: NaiveDate,
    problems: &mut Vec<String>,
) -> Result<Vec<(i64, Event)>, String> {
    let text = String::from_utf8_lossy(bytes);
    if !text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with("BEGIN:")
    {
        return Err("not an iCalendar file (it does not start with BEGIN:VCALENDAR)".into());
    }
    let unfolded = icalendar::parser::unfold(&text);
    let cal = icalendar::parser::read_calendar(&unfolded).map_err(|e| {
        let first = e.lines().take(3).collect::<Vec<_>>().join(" ");
        format!("not a valid iCalendar file ({first})")
    })?;
    let from_t = zone
        .from_local_datetime(&from.and_time(NaiveTime::MIN))
        .earliest()
        .ok_or("the window start does not exist in the zone")?;
    let to_t = zone
        .from_local_datetime(&to.and_hms_opt(23, 59, 59).unwrap_or_default())
        .latest()
        .ok_or("the window end does not exist in the zone")?;
    let raws: Vec<Raw> = cal
        .components
        .iter()
        .filter(|c| c.name.as_str().eq_ignore_ascii_case("VEVENT"))
        .filter_map(|c| raw_event(c, file, zone, problems))
        .collect();
    let in_window = |t: NaiveDateTime| t >= from_t.naive_local() && t <= to_t.naive_local();
    let mut out = Vec::new();
    // overrides of single occurrences: (uid, original start) → the changed occurrence
    let overrides: BTreeMap<(String, String), &Raw> = raws
        .iter()
        .filter_map(|r| {
            r.recurrence_id
                .as_ref()
                .map(|k| ((r.uid.clone(), k.clone()), r))
        })
        .collect();
    for r in raws.iter().filter(|r| r.recurrence_id.is_none()) {
        if r.rrules.is_empty() {
            if in_window(r.base.start) {
                out.push((r.seq, r.base.clone()));
            }
            continue;
        }
        // a moved occurrence may have come into the window from a month around it
        let wide_from = from_t - chrono::Duration::days(31);
        let wide_to = to_t + chrono::Duration::days(31);
        let dates = match expand(r, zone, wide_from, wide_to) {
            Ok(d) => d,
            Err(e) => {
                problems.push(format!(
                    "{file}: event \"{}\": its RRULE cannot be read ({e}); only its first occurrence is used",
                    r.base.summary
                ));
                vec![(
                    r.start.key(zone).unwrap_or_default(),
                    r.start.in_zone(zone).unwrap_or(from_t),
                )]
            }
        };
        for (key, start) in dates {
            let ev = match overrides.get(&(r.uid.clone(), key.clone())) {
                Some(o) => Event {
                    occurrence: Some(key),
                    ..o.base.clone()
                },
                None => Event {
                    occurrence: Some(key),
                    start: start.naive_local(),
                    end: r.length.map(|l| (start + l).naive_local()),
                    ..r.base.clone()
                },
            };
            if in_window(ev.start) {
                out.push((r.seq, ev));
            }
        }
    }
    Ok(out)
}

/// The configured `.ics` paths, resolved against the vault.
pub(crate) fn configured_paths(vault: &Path, ics: &[String]) -> Vec<PathBuf> {
    ics.iter()
        .map(|p| crate::crew::mailcal::resolve_path(vault, p))
        .collect()
}

#[cfg(test)]
mod tests {
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
}
