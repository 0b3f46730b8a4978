//! Events from iCalendar files: parsed with `icalendar`, recurring series expanded with
//! `rrule`, every time shown in the user's zone (`chrono-tz`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::{NaiveDate, NaiveDateTime, NaiveTime, TimeZone};
use chrono_tz::Tz;
use icalendar::parser::{Component, Property};

use super::{inert, one_line};

/// Occurrences of one series kept per window: a rule without end firing every second
/// (`FREQ=SECONDLY`) would otherwise make thousands of notes from a line of text. An hourly
/// meeting over the import window (67 days) is the most a real calendar comes near it.
pub(crate) const MAX_OCCURRENCES: usize = 500;

/// Occurrences of all the series of one file kept per window: many capped rules in a small
/// file stay bounded too.
const MAX_FILE_OCCURRENCES: usize = 5_000;

/// Occurrences of one rule looked at, before and in the window, before crew stops: the rule
/// library steps through every occurrence since DTSTART, and a rule firing every second that
/// began a year ago has 31 million of them.
const MAX_STEPS: usize = 200_000;

/// Occurrences looked at for all the series of one file: a file of many such rules costs
/// bounded time too (a second or so).
const MAX_FILE_STEPS: usize = 1_000_000;

/// How deep components may nest (a calendar, an event, an alarm: 3). The parser recurses once
/// per level, so 8,000 nested components overflowed the stack; a deeper file is refused.
const MAX_NESTING: usize = 32;

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
    load_with(paths, Vec::new(), zone, from, to)
}

/// [`load`], with calendar objects fetched already (a CalDAV server's: its URL and text),
/// read as the files are: one event under one UID, whichever source it came from.
pub fn load_with(
    paths: &[PathBuf],
    fetched: Vec<(String, Vec<u8>)>,
    zone: Tz,
    from: NaiveDate,
    to: NaiveDate,
) -> Loaded {
    let mut loaded = Loaded::default();
    let files = crate::sources::ics::files(paths, &mut loaded.problems);
    loaded.files = files.len() + fetched.len();
    // (uid, occurrence) → (sequence, event): a later SEQUENCE of the same event wins
    let mut seen: BTreeMap<(String, Option<String>), (i64, Event)> = BTreeMap::new();
    // a UID given to two different events is reported once per event, not per occurrence
    let mut clashes: BTreeSet<String> = BTreeSet::new();
    let read = files
        .iter()
        .map(|f| (f.display().to_string(), crate::sources::ics::read(f)));
    for (name, bytes) in read.chain(fetched.into_iter().map(|(n, b)| (n, Ok(b)))) {
        let bytes = match bytes {
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
                        // the same event again (an export beside a synced folder): kept once
                        Some((s, old)) if *s == seq && same_event(old, &ev) => {}
                        // A different event under a UID already read, without a newer SEQUENCE
                        // to say it replaces it: a UID names one event, so the first stays and
                        // the other is reported. Importing both would give two notes one key,
                        // and a stranger's invitation could silently take over a meeting's note.
                        Some((s, old)) if *s == seq => {
                            clashes.insert(format!(
                                "{}: event \"{}\" has the UID {} of another event, \"{}\" ({}); skipped",
                                ev.file, ev.summary, ev.uid, old.summary, old.file
                            ));
                        }
                        _ => {
                            seen.insert(key, (seq, ev));
                        }
                    }
                }
            }
            Err(e) => loaded.problems.push(format!("{name}: {e}; skipped")),
        }
    }
    loaded.problems.extend(clashes);
    loaded.events = seen.into_values().map(|(_, e)| e).collect();
    loaded
        .events
        .sort_by(|a, b| a.start.cmp(&b.start).then(a.summary.cmp(&b.summary)));
    loaded
}

/// Two readings of one event: the same title at the same time (other fields may differ
/// between an older and a newer copy of it).
fn same_event(a: &Event, b: &Event) -> bool {
    a.summary == b.summary && a.start == b.start
}

/// Refuses a file whose components nest deeper than [`MAX_NESTING`], before the recursive
/// parser sees it. A line opens a component as the parser reads one (`BEGIN:` at its start, in
/// any case); leading spaces are allowed here too, so the count is never below the parser's.
fn check_nesting(unfolded: &str) -> Result<(), String> {
    let mut depth = 0usize;
    for line in unfolded.split('\n') {
        let head = line.trim_start().get(..6).unwrap_or("");
        if head.eq_ignore_ascii_case("BEGIN:") {
            depth += 1;
            if depth > MAX_NESTING {
                return Err(format!(
                    "components nested more than {MAX_NESTING} deep (a calendar needs 3); not read"
                ));
            }
        } else if line
            .get(..4)
            .is_some_and(|h| h.eq_ignore_ascii_case("END:"))
        {
            depth = depth.saturating_sub(1);
        }
    }
    Ok(())
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
    /// The original start of the occurrence an override changes.
    recurrence_at: Option<chrono::DateTime<Tz>>,
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
    // a title is one line; a UID is kept as crew writes it into the note's frontmatter, so
    // the note is found again by it
    let summary = text_of(c, "SUMMARY")
        .map(|s| one_line(&s))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "(untitled event)".into());
    let Some(uid) = text_of(c, "UID")
        .map(|u| inert(&one_line(&u)))
        .filter(|u| !u.is_empty())
    else {
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
    let recurrence = c
        .find_prop("RECURRENCE-ID")
        .and_then(|p| parse_stamp(p, zone, problems, &what));
    let recurrence_id = recurrence.and_then(|s| s.key(zone));
    let recurrence_at = recurrence.and_then(|s| s.in_zone(zone));
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
        recurrence_at,
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

/// The occurrences of a series within a window, in order, and whether they were cut.
struct Expansion {
    dates: Vec<(String, chrono::DateTime<Tz>)>,
    /// Why the list stops early: the cap was reached, or the rule fires too often before it.
    cut: Option<String>,
}

/// The occurrences of `raw` from `from` to `to`, at most `cap` of them: the rule is stepped
/// through lazily and at most [`MAX_STEPS`] occurrences (and what is left of the file's
/// `budget`) are looked at, so a rule without end costs bounded time and memory.
fn expand(
    raw: &Raw,
    zone: Tz,
    from: chrono::DateTime<Tz>,
    to: chrono::DateTime<Tz>,
    cap: usize,
    budget: &mut usize,
) -> Result<Expansion, String> {
    let max_steps = MAX_STEPS.min(*budget);
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
                let mut out = Expansion {
                    dates: Vec::new(),
                    cut: None,
                };
                let mut steps = 0usize;
                let mut stopped = false;
                // `limit` keeps the library's own guard against rules that never match
                let set = set.limit();
                let mut occurrences = (&set).into_iter();
                loop {
                    if steps >= max_steps {
                        stopped = true;
                        break;
                    }
                    let Some(d) = occurrences.next() else { break };
                    steps += 1;
                    let local = d.with_timezone(&zone);
                    if local > to {
                        break;
                    }
                    if local >= from {
                        if out.dates.len() == cap {
                            out.cut = Some(format!("only its first {cap} occurrences are used"));
                            break;
                        }
                        let key = match raw.start {
                            Stamp::Date(_) => local.date_naive().format("%Y%m%d").to_string(),
                            _ => local.naive_utc().format("%Y%m%dT%H%M%SZ").to_string(),
                        };
                        out.dates.push((key, local));
                    }
                }
                *budget = budget.saturating_sub(steps);
                if stopped {
                    out.cut = Some(format!(
                        "its rule fires too often (crew stopped after {steps} occurrences{}); {} of them are used",
                        if max_steps < MAX_STEPS {
                            ", the most left for this file's series"
                        } else {
                            ""
                        },
                        out.dates.len()
                    ));
                }
                return Ok(out);
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
    check_nesting(&unfolded)?;
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
    let mut expanded = 0usize;
    let mut budget = MAX_FILE_STEPS;
    for r in raws.iter().filter(|r| r.recurrence_id.is_none()) {
        if r.rrules.is_empty() {
            if in_window(r.base.start) {
                out.push((r.seq, r.base.clone()));
            }
            continue;
        }
        let cap = MAX_OCCURRENCES.min(MAX_FILE_OCCURRENCES.saturating_sub(expanded));
        let found = match expand(r, zone, from_t, to_t, cap, &mut budget) {
            Ok(found) => found,
            Err(e) => {
                problems.push(format!(
                    "{file}: event \"{}\": its RRULE cannot be read ({e}); only its first occurrence is used",
                    r.base.summary
                ));
                Expansion {
                    dates: vec![(
                        r.start.key(zone).unwrap_or_default(),
                        r.start.in_zone(zone).unwrap_or(from_t),
                    )],
                    cut: None,
                }
            }
        };
        if let Some(why) = &found.cut {
            let why = if cap < MAX_OCCURRENCES {
                format!("{why} (this file's series already made {expanded} in the window)")
            } else {
                why.clone()
            };
            problems.push(format!(
                "{file}: event \"{}\" repeats too often: {why}",
                r.base.summary
            ));
        }
        expanded += found.dates.len();
        out.extend(series_events(r, &found, &overrides, (from_t, to_t)));
    }
    Ok(out)
}

/// The events of one expanded series within `window`: each occurrence, or the override that
/// changed it, and the overrides moved into the window from outside it.
fn series_events(
    r: &Raw,
    found: &Expansion,
    overrides: &BTreeMap<(String, String), &Raw>,
    (from_t, to_t): (chrono::DateTime<Tz>, chrono::DateTime<Tz>),
) -> Vec<(i64, Event)> {
    let in_window = |t: NaiveDateTime| t >= from_t.naive_local() && t <= to_t.naive_local();
    let mut out = Vec::new();
    let mut keys: BTreeSet<&str> = BTreeSet::new();
    for (key, start) in &found.dates {
        keys.insert(key);
        let ev = match overrides.get(&(r.uid.clone(), key.clone())) {
            Some(o) => Event {
                occurrence: Some(key.clone()),
                ..o.base.clone()
            },
            None => Event {
                occurrence: Some(key.clone()),
                start: start.naive_local(),
                end: r.length.map(|l| (*start + l).naive_local()),
                ..r.base.clone()
            },
        };
        if in_window(ev.start) {
            out.push((r.seq, ev));
        }
    }
    // An occurrence moved into the window from outside it: its original start was not
    // expanded, but its override is in the file. (One whose original start is inside the
    // window and not expanded was excluded, unless the list was cut.)
    for ((_, key), o) in overrides.range((r.uid.clone(), String::new())..) {
        if o.uid != r.uid {
            break;
        }
        let outside = o.recurrence_at.is_none_or(|t| t < from_t || t > to_t);
        if !keys.contains(key.as_str())
            && (outside || found.cut.is_some())
            && in_window(o.base.start)
        {
            out.push((
                r.seq,
                Event {
                    occurrence: Some(key.clone()),
                    ..o.base.clone()
                },
            ));
        }
    }
    out
}

/// The configured `.ics` paths, resolved against the vault.
pub(crate) fn configured_paths(vault: &Path, ics: &[String]) -> Vec<PathBuf> {
    ics.iter()
        .map(|p| crate::crew::mailcal::resolve_path(vault, p))
        .collect()
}

#[cfg(test)]
#[path = "calendar_tests.rs"]
mod tests;
