//! The day a note is from, as the note itself says it: a frontmatter date key
//! (`references/conventions/date-keys.yaml`), then a date in its name, then the file's
//! modification time — which a copy, a checkout or a sync resets, so it comes last.

use std::sync::{LazyLock, OnceLock};

use chrono::NaiveDate;
use regex::Regex;
use serde::Deserialize;

use crate::analysis::dates::{DateOrder, absolute_date};
use crate::analysis::notes::parse_date;
use crate::vault::Note;

#[derive(Debug, Default, Deserialize)]
struct Keys {
    keys: Vec<String>,
}

/// The date keys, normalized as [`key_form`] reads a note's keys, in reading order.
fn date_keys() -> &'static [String] {
    static KEYS: OnceLock<Vec<String>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let src = include_str!("../../references/conventions/date-keys.yaml");
        let keys: Keys = yaml_serde::from_str(src).unwrap_or_else(|e| {
            tracing::warn!("references/conventions/date-keys.yaml does not parse: {e}");
            Keys::default()
        });
        keys.keys.iter().map(|k| key_form(k)).collect()
    })
}

/// A key as compared: lowercase words, `_`, `-` and a lower-to-upper change of case as a space.
fn key_form(key: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in key.trim().chars() {
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase();
        if c == '_' || c == '-' || c.is_whitespace() {
            out.push(' ');
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A date value: ISO (`2026-05-12`, `2026-05-12T10:00`), or a written date that reads the same
/// day whichever order a numeric date is taken in (`12 May 2026`, but not `12/05/2026`).
fn value_date(raw: &str) -> Option<NaiveDate> {
    parse_date(raw).or_else(|| {
        let dmy = absolute_date(raw, DateOrder::Dmy)?;
        (absolute_date(raw, DateOrder::Mdy) == Some(dmy)).then_some(dmy)
    })
}

static NAME_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?:^|[^0-9])((?:19|20)\d{2})[-_.](\d{2})[-_.](\d{2})(?:[^0-9]|$)")
        .expect("static regex")
});

/// A `YYYY-MM-DD` date (or with `_` or `.`) in a note's name.
pub fn name_date(name: &str) -> Option<NaiveDate> {
    let c = NAME_DATE.captures(name)?;
    let n = |i: usize| c.get(i).and_then(|m| m.as_str().parse::<u32>().ok());
    NaiveDate::from_ymd_opt(c.get(1)?.as_str().parse().ok()?, n(2)?, n(3)?)
}

/// The date a frontmatter gives, by the first date key (in [`date_keys`] order) holding one.
fn frontmatter_date(note: &Note) -> Option<NaiveDate> {
    let props = note.properties()?;
    let mut found: Vec<(usize, NaiveDate)> = props
        .iter()
        .filter_map(|(k, v)| {
            let key = key_form(k.as_str()?);
            let rank = date_keys().iter().position(|d| *d == key)?;
            let text = v.as_str()?;
            Some((rank, value_date(text)?))
        })
        .collect();
    found.sort();
    found.first().map(|(_, d)| *d)
}

/// Where a note's own date was read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateFrom {
    Frontmatter,
    Name,
    /// The file's modification time: a copy or a sync resets it, so a reader should say so.
    Modified,
}

/// The day a note is from: its frontmatter's, its name's, else the file's modification day.
pub fn own_date(note: &Note) -> Option<NaiveDate> {
    dated(note).map(|(d, _)| d)
}

/// [`own_date`], and where it was read.
pub fn dated(note: &Note) -> Option<(NaiveDate, DateFrom)> {
    frontmatter_date(note)
        .map(|d| (d, DateFrom::Frontmatter))
        .or_else(|| name_date(note.name()).map(|d| (d, DateFrom::Name)))
        .or_else(|| {
            chrono::DateTime::from_timestamp(note.modified, 0)
                .map(|t| (t.date_naive(), DateFrom::Modified))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).expect("date")
    }

    fn note(path: &str, frontmatter: &str, modified: i64) -> Note {
        let text = if frontmatter.is_empty() {
            "body\n".to_string()
        } else {
            format!("---\n{frontmatter}\n---\nbody\n")
        };
        let mut n = Note::parse_text(path, &text);
        n.modified = modified;
        n
    }

    const MTIME_2026: i64 = 1_780_000_000; // 2026-05-28

    #[test]
    fn keys_in_any_spelling() {
        assert_eq!(key_form("dateCreated"), "date created");
        assert_eq!(key_form("date_created"), "date created");
        assert_eq!(key_form("Created-At"), "created at");
        assert_eq!(key_form("created"), "created");
    }

    #[test]
    fn frontmatter_then_name_then_mtime() {
        let n = note(
            "a.md",
            "Created: 2024-03-01\nupdated: 2026-01-01",
            MTIME_2026,
        );
        assert_eq!(own_date(&n), Some(day(2024, 3, 1)));
        let n = note("b.md", "dateModified: 12 March 2023", MTIME_2026);
        assert_eq!(own_date(&n), Some(day(2023, 3, 12)));
        let n = note("Journal/2025-02-14 Dinner.md", "", MTIME_2026);
        assert_eq!(own_date(&n), Some(day(2025, 2, 14)));
        let n = note("plain.md", "title: x", MTIME_2026);
        assert_eq!(own_date(&n), Some(day(2026, 5, 28)));
        assert_eq!(dated(&n).map(|(_, f)| f), Some(DateFrom::Modified));
        let n = note("Journal/2025-02-14 Dinner.md", "", MTIME_2026);
        assert_eq!(dated(&n).map(|(_, f)| f), Some(DateFrom::Name));
    }

    #[test]
    fn an_ambiguous_or_empty_value_gives_way() {
        // 04/05/2024 is April or May: the name decides
        let n = note("2023-01-02 x.md", "date: 04/05/2024", MTIME_2026);
        assert_eq!(own_date(&n), Some(day(2023, 1, 2)));
        let n = note("x.md", "date:\ncreated: 2022-07-01", MTIME_2026);
        assert_eq!(own_date(&n), Some(day(2022, 7, 1)));
    }

    #[test]
    fn a_number_is_no_name_date() {
        assert_eq!(name_date("Invoice 120250101"), None);
        assert_eq!(name_date("2025_12_31 notes"), Some(day(2025, 12, 31)));
    }
}
