//! A timeline: the notes on a topic ordered by the date they are about — `created`, then
//! `date`, then a date in the file name — grouped by month.

use chrono::NaiveDate;
use serde::Serialize;

use crate::agents::common;
// a date in a name is read as a time filter reads it
use crate::analysis::note_date::name_date;
use crate::vault::Note;

/// Where a note's date came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum DateSource {
    Created,
    Date,
    Filename,
}

/// The date a note is about, and where it was read.
pub(crate) fn note_date(note: &Note) -> Option<(NaiveDate, DateSource)> {
    for (key, src) in [("created", DateSource::Created), ("date", DateSource::Date)] {
        if let Some(d) = note.property_str(key).and_then(|v| common::parse_date(&v)) {
            return Some((d, src));
        }
    }
    name_date(note.name()).map(|d| (d, DateSource::Filename))
}

/// A date as `YYYY-MM-DD` in the JSON (chrono's serde feature is off).
pub(super) fn iso_date<S: serde::Serializer>(d: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(d)
}

/// One dated note.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    #[serde(serialize_with = "iso_date")]
    pub date: NaiveDate,
    pub source: DateSource,
    pub title: String,
    pub path: String,
}

/// The timeline: dated entries oldest first, and the matching notes with no date.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Timeline {
    pub topic: String,
    pub entries: Vec<Entry>,
    pub undated: Vec<String>,
}

/// Orders `notes` by their date; ties by title.
pub fn build(topic: &str, notes: &[&Note]) -> Timeline {
    let mut entries = Vec::new();
    let mut undated = Vec::new();
    for note in notes {
        match note_date(note) {
            Some((date, source)) => entries.push(Entry {
                date,
                source,
                title: note.name().to_string(),
                path: note.path.clone(),
            }),
            None => undated.push(note.name().to_string()),
        }
    }
    entries.sort_by(|a, b| a.date.cmp(&b.date).then(a.title.cmp(&b.title)));
    undated.sort();
    Timeline {
        topic: topic.to_string(),
        entries,
        undated,
    }
}

/// The timeline as Markdown, a `###` heading per month.
pub fn render(t: &Timeline, l: crate::lang::Lang) -> String {
    let mut out = crate::trn!(
        l,
        "seeker.timeline.heading",
        t.entries.len(),
        topic = t.topic
    );
    let mut month = String::new();
    for e in &t.entries {
        let m = e.date.format("%Y-%m").to_string();
        if m != month {
            out.push_str(&format!("\n### {m}\n"));
            month = m;
        }
        let from = match e.source {
            DateSource::Created => String::new(),
            DateSource::Date => crate::tr!(l, "seeker.timeline.from_date"),
            DateSource::Filename => crate::tr!(l, "seeker.timeline.from_name"),
        };
        out.push_str(&format!("- {} — [[{}]]{from}\n", e.date, e.title));
    }
    if t.entries.is_empty() {
        out.push_str(&crate::tr!(l, "seeker.timeline.none"));
    }
    if !t.undated.is_empty() {
        out.push_str(&crate::tr!(l, "seeker.timeline.undated"));
        for u in &t.undated {
            out.push_str(&format!("- [[{u}]]\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_come_from_created_date_then_name() {
        let a = Note::parse_text("a.md", "---\ncreated: 2026-03-01\ndate: 2020-01-01\n---\nx");
        assert_eq!(
            note_date(&a),
            Some((
                NaiveDate::from_ymd_opt(2026, 3, 1).unwrap(),
                DateSource::Created
            ))
        );
        let b = Note::parse_text("2025-12-24 — Meeting — X.md", "x");
        assert_eq!(note_date(&b).map(|d| d.1), Some(DateSource::Filename));
        assert_eq!(name_date("2025-13-40 x"), None);
    }

    #[test]
    fn grouped_by_month_oldest_first() {
        let a = Note::parse_text("a.md", "---\ncreated: 2026-03-01\n---\nx");
        let b = Note::parse_text("b.md", "---\ndate: 2026-01-15\n---\nx");
        let c = Note::parse_text("c.md", "x");
        let t = build("x", &[&a, &b, &c]);
        let text = render(&t, crate::lang::Lang::En);
        let jan = text.find("### 2026-01").unwrap();
        let mar = text.find("### 2026-03").unwrap();
        assert!(jan < mar);
        assert!(text.find("[[b]]").unwrap() < text.find("[[a]]").unwrap());
        assert!(text.contains("### Undated\n- [[c]]"));
    }
}
