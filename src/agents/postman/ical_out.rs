//! The iCalendar text of an event crew creates (RFC 5545): one VEVENT with a fresh UID, its
//! times in UTC (so no VTIMEZONE is needed), lines folded at 75 octets. Pure: no I/O.
//!
//! The title comes from the user's request, so it is data: escaped as TEXT (`\`, `;`, `,`,
//! newlines) and stripped of control characters, a title can never start a line of its own
//! (`END:VEVENT`, `BEGIN:VEVENT`, `ATTENDEE:…`).

use std::hash::{BuildHasher as _, Hasher as _};

use chrono::{DateTime, Duration, NaiveDate, Utc};

/// When a new event takes place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum When {
    /// From one instant to another.
    Timed {
        start: DateTime<Utc>,
        end: DateTime<Utc>,
    },
    /// A whole day.
    AllDay(NaiveDate),
}

/// An event to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NewEvent {
    pub uid: String,
    pub summary: String,
    pub when: When,
    /// When crew made it (DTSTAMP).
    pub stamp: DateTime<Utc>,
}

/// A UID no other event has: 128 bits from the process's random hasher keys (seeded by the
/// operating system), with the clock mixed in. Only letters, digits and `-`, so it is also a
/// safe file name on the server.
pub(crate) fn fresh_uid(now: DateTime<Utc>) -> String {
    let mut parts = [0u64; 2];
    for (i, part) in parts.iter_mut().enumerate() {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_i64(now.timestamp_nanos_opt().unwrap_or_default());
        h.write_usize(i);
        h.write_u32(std::process::id());
        *part = h.finish();
    }
    format!("crew-{:016x}{:016x}", parts[0], parts[1])
}

/// A TEXT value escaped as RFC 5545 §3.3.11 asks, on one logical line.
pub(crate) fn escape_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            ';' => out.push_str("\\;"),
            ',' => out.push_str("\\,"),
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.push_str("\\n");
                }
            }
            '\n' => out.push_str("\\n"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A content line folded after at most 75 octets, never inside a character.
fn fold(line: &str) -> String {
    let mut out = String::with_capacity(line.len() + line.len() / 70 * 3);
    let mut width = 0;
    for c in line.chars() {
        let n = c.len_utf8();
        // a continuation line starts with a space, which counts towards its 75
        if width + n > 75 {
            out.push_str("\r\n ");
            width = 1;
        }
        out.push(c);
        width += n;
    }
    out.push_str("\r\n");
    out
}

fn utc(t: DateTime<Utc>) -> String {
    t.format("%Y%m%dT%H%M%SZ").to_string()
}

impl NewEvent {
    /// The calendar object to PUT: a VCALENDAR holding this one VEVENT.
    pub(crate) fn to_ics(&self) -> String {
        let (start, end) = match self.when {
            When::Timed { start, end } => (
                format!("DTSTART:{}", utc(start)),
                format!("DTEND:{}", utc(end)),
            ),
            When::AllDay(d) => (
                format!("DTSTART;VALUE=DATE:{}", d.format("%Y%m%d")),
                format!(
                    "DTEND;VALUE=DATE:{}",
                    (d + Duration::days(1)).format("%Y%m%d")
                ),
            ),
        };
        let lines = [
            "BEGIN:VCALENDAR".to_string(),
            "VERSION:2.0".into(),
            "PRODID:-//crew//crew postman//EN".into(),
            "CALSCALE:GREGORIAN".into(),
            "BEGIN:VEVENT".into(),
            format!("UID:{}", escape_text(&self.uid)),
            format!("DTSTAMP:{}", utc(self.stamp)),
            start,
            end,
            format!("SUMMARY:{}", escape_text(&self.summary)),
            "END:VEVENT".into(),
            "END:VCALENDAR".into(),
        ];
        lines.iter().map(|l| fold(l)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone as _;

    fn at(y: i32, m: u32, d: u32, h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, 0, 0).unwrap()
    }

    fn event(summary: &str) -> NewEvent {
        NewEvent {
            uid: "crew-0123".into(),
            summary: summary.into(),
            when: When::Timed {
                start: at(2026, 12, 8, 11),
                end: at(2026, 12, 8, 12),
            },
            stamp: at(2026, 12, 3, 9),
        }
    }

    #[test]
    fn an_event_has_its_uid_and_times_and_reads_back() {
        let ics = event("Lunch with Marco").to_ics();
        assert!(ics.contains("\r\nUID:crew-0123\r\n"));
        assert!(ics.contains("\r\nDTSTART:20261208T110000Z\r\nDTEND:20261208T120000Z\r\n"));
        assert!(ics.contains("\r\nDTSTAMP:20261203T090000Z\r\n"));
        assert!(ics.starts_with("BEGIN:VCALENDAR\r\n") && ics.ends_with("END:VCALENDAR\r\n"));
        // what crew writes, crew's own reader reads
        let mut problems = Vec::new();
        let d = |m, d| NaiveDate::from_ymd_opt(2026, m, d).unwrap();
        let evs = crate::agents::postman::calendar::parse_file(
            ics.as_bytes(),
            "x",
            chrono_tz::Europe::Rome,
            d(12, 1),
            d(12, 31),
            &mut problems,
        )
        .unwrap();
        assert_eq!(evs.len(), 1, "{problems:?}");
        assert_eq!(evs[0].1.uid, "crew-0123");
        assert_eq!(evs[0].1.summary, "Lunch with Marco");
        assert_eq!(evs[0].1.start.to_string(), "2026-12-08 12:00:00");
        let all_day = NewEvent {
            when: When::AllDay(d(12, 8)),
            ..event("Trip")
        }
        .to_ics();
        assert!(all_day.contains("DTSTART;VALUE=DATE:20261208\r\nDTEND;VALUE=DATE:20261209\r\n"));
    }

    #[test]
    fn a_title_cannot_add_lines_or_components() {
        let hostile = "Lunch\r\nEND:VEVENT\nBEGIN:VEVENT\rUID:evil; x, y \\ z\u{0}\u{7}";
        let ics = event(hostile).to_ics();
        let lines: Vec<&str> = ics.split("\r\n").collect();
        assert_eq!(lines.iter().filter(|l| **l == "BEGIN:VEVENT").count(), 1);
        assert_eq!(lines.iter().filter(|l| **l == "END:VEVENT").count(), 1);
        assert!(!lines.iter().any(|l| l.starts_with("UID:evil")));
        assert!(!ics.contains('\u{0}') && !ics.contains('\u{7}'));
        assert!(
            ics.contains(
                "SUMMARY:Lunch\\nEND:VEVENT\\nBEGIN:VEVENT\\nUID:evil\\; x\\, y \\\\ z\r\n"
            )
        );
        // and the reader gets the title back as one text value
        let mut problems = Vec::new();
        let d = |m, d| NaiveDate::from_ymd_opt(2026, m, d).unwrap();
        let evs = crate::agents::postman::calendar::parse_file(
            ics.as_bytes(),
            "x",
            chrono_tz::UTC,
            d(12, 1),
            d(12, 31),
            &mut problems,
        )
        .unwrap();
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].1.uid, "crew-0123");
    }

    #[test]
    fn long_lines_fold_at_75_octets_between_characters() {
        let title = "Réunion ".repeat(30);
        let ics = event(&title).to_ics();
        for l in ics.split("\r\n") {
            assert!(l.len() <= 75, "{} octets: {l}", l.len());
        }
        let unfolded = ics.replace("\r\n ", "");
        assert!(unfolded.contains(&format!("SUMMARY:{title}\r\n")));
    }

    #[test]
    fn uids_are_fresh_and_safe_in_a_path() {
        let now = at(2026, 12, 3, 9);
        let (a, b) = (fresh_uid(now), fresh_uid(now));
        assert_ne!(a, b);
        assert_eq!(a.len(), 37);
        assert!(a.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }
}
