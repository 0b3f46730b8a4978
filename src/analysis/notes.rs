//! Facts about notes that every measurement and agent reads the same way: a name folded for
//! comparison, a date property, when a note was last touched, the naming convention, the
//! notes of a folder, and a note's text read again through a [`NoteSource`].

use std::sync::LazyLock;

use chrono::NaiveDate;
use regex::Regex;

use crate::vault::{Note, NoteSource};

/// Folds a name for comparison: lowercase letters and digits only ("Side Projects" = "side-projects").
pub fn fold(s: &str) -> String {
    crate::crew::normalize_name(&crate::text::normalize(s))
}

/// The note name a frontmatter value like `"[[01-Projects/Kitchen|K]]"` or `Kitchen` points at.
pub fn link_value_name(raw: &str) -> String {
    let s = raw.trim().trim_matches('"');
    let s = s
        .strip_prefix("[[")
        .and_then(|x| x.strip_suffix("]]"))
        .unwrap_or(s);
    let s = s.split(['|', '#']).next().unwrap_or(s);
    let s = s.rsplit('/').next().unwrap_or(s);
    s.strip_suffix(".md").unwrap_or(s).trim().to_string()
}

/// A YAML date or timestamp value as a date.
pub fn parse_date(raw: &str) -> Option<NaiveDate> {
    let s = raw.trim().trim_matches('"');
    let head: String = s.chars().take(10).collect();
    NaiveDate::parse_from_str(&head, "%Y-%m-%d").ok()
}

/// The staleness clock: frontmatter `updated`, then `date`, then the file's modification time.
pub fn last_touched(note: &Note) -> Option<NaiveDate> {
    for key in ["updated", "date", "created"] {
        if let Some(d) = note.property_str(key).and_then(|v| parse_date(&v)) {
            return Some(d);
        }
    }
    chrono::DateTime::from_timestamp(note.modified, 0).map(|t| t.date_naive())
}

pub fn days_between(a: NaiveDate, b: NaiveDate) -> i64 {
    (b - a).num_days()
}

static CONVENTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{4}-\d{2}-\d{2} — [A-Z][A-Za-z ]+ — .{1,50}$").expect("static regex")
});

/// Whether a note name (without `.md`) follows `YYYY-MM-DD — Type — Title`.
pub fn follows_convention(name: &str) -> bool {
    CONVENTION.is_match(name)
}

/// Notes directly inside a folder (not in its sub-folders).
pub fn notes_in<'a>(notes: &'a [Note], folder: &str) -> impl Iterator<Item = (usize, &'a Note)> {
    let folder = folder.to_string();
    notes
        .iter()
        .enumerate()
        .filter(move |(_, n)| n.folder() == folder)
}

/// Notes inside a folder or any of its sub-folders.
pub fn notes_under<'a>(notes: &'a [Note], folder: &str) -> impl Iterator<Item = (usize, &'a Note)> {
    let prefix = format!("{folder}/");
    notes
        .iter()
        .enumerate()
        .filter(move |(_, n)| n.path.starts_with(&prefix))
}

/// A note's text read again (the vault keeps no text) from `source` — the gate in a run, so a
/// dry run sees its own planned changes — and where its body starts.
/// The start falls back to 0 when the file changed since it was read and no longer fits.
pub fn reread(source: &dyn NoteSource, note: &Note) -> Option<(String, usize)> {
    let text = source.note_text(&note.path)?;
    let start = note
        .frontmatter_block
        .as_ref()
        .map_or(0, |b| b.block.end)
        .min(text.len());
    let start = if text.is_char_boundary(start) {
        start
    } else {
        0
    };
    Some((text, start))
}
