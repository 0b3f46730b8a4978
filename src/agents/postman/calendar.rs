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
    let mut loaded = Loaded::default();
    let files = crate::sources::ics::files(paths, &mut loaded.problems);
    loaded.files = files.len();
    // (uid, occurrence) → (sequence, event): a later SEQUENCE of the same event wins
    let mut seen: BTreeMap<(String, Option<String>), (i64, Event)> = BTreeMap::new();
    // a UID given to two different events is reported once per event, not per occurrence
    let mut clashes: BTreeSet<String> = BTreeSet::new();
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
        let started = std::time::Instant::now();
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
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
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
        let started = std::time::Instant::now();
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
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
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
}
