//! Small helpers shared by the native agents.

use std::sync::LazyLock;

use chrono::{NaiveDate, NaiveDateTime};
use regex::Regex;

use super::Ctx;
use crate::gate::GateError;
use crate::vault::Note;

/// A `### Suggested next agent` block.
pub fn suggestion(agent: &str, reason: &str, context: &str) -> String {
    format!(
        "\n### Suggested next agent\n- **Agent**: {agent}\n- **Reason**: {reason}\n- **Context**: {context}\n"
    )
}

/// Folds a name for comparison: lowercase letters and digits only ("Side Projects" = "side-projects").
pub fn fold(s: &str) -> String {
    crate::crew::normalize_name(&crate::dispatch::normalize::normalize(s))
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

/// Title Case for a type word: "reading-notes" → "Reading Notes".
pub fn type_label(t: &str) -> String {
    t.split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or_else(String::new, |f| {
                f.to_uppercase().collect::<String>() + c.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A file-name-safe title: no path separators or characters Obsidian links cannot hold.
pub fn safe_title(raw: &str, max_chars: usize) -> String {
    let cleaned: String = raw
        .chars()
        .map(|c| {
            if "/\\:*?\"<>|#^[]".contains(c) || c.is_control() {
                ' '
            } else {
                c
            }
        })
        .collect();
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    let mut out = String::new();
    for w in words {
        if out.chars().count() + w.chars().count() + 1 > max_chars && !out.is_empty() {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    let out: String = out.chars().take(max_chars).collect();
    let out = out.trim_end_matches(['.', ' ']).to_string();
    if out.is_empty() {
        "Untitled".into()
    } else {
        out
    }
}

/// The conventional name for a note: `YYYY-MM-DD — Type — Title`.
pub fn convention_name(date: &str, kind: &str, title: &str) -> String {
    let title = safe_title(title, 50);
    let mut t = title.chars();
    let title = t.next().map_or_else(String::new, |f| {
        f.to_uppercase().collect::<String>() + t.as_str()
    });
    format!("{date} — {} — {title}", type_label(kind))
}

/// Records one line for `Meta/agent-log.md`; the lines of a run are written together when the
/// agent is done ([`flush_log`]), so a large run does not rewrite the log once per change.
pub fn log_change(ctx: &mut Ctx, agent: &str, what: &str) -> Result<(), GateError> {
    ctx.log.push(format!(
        "- {} — {agent} — {what}\n",
        ctx.now.format("%Y-%m-%d %H:%M")
    ));
    Ok(())
}

/// Appends the recorded lines to `Meta/agent-log.md` (created with a heading when absent).
pub fn flush_log(
    gate: &mut crate::gate::Gate,
    meta: &str,
    lines: &[String],
) -> Result<(), GateError> {
    if lines.is_empty() {
        return Ok(());
    }
    let path = format!("{meta}/agent-log.md");
    let text: String = lines.concat();
    if gate.exists(&path) {
        gate.append(&path, &text)
    } else {
        gate.write(
            &path,
            format!("# Agent log\n\nOne line per change an agent made, newest last.\n\n{text}")
                .as_bytes(),
        )
    }
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

pub fn now_stamp(now: &NaiveDateTime) -> String {
    now.format("%Y-%m-%dT%H:%M:%S").to_string()
}

/// A note's text read again (the vault keeps no text) from `source` — the gate in a run, so a
/// dry run sees its own planned changes — and where its body starts.
/// The start falls back to 0 when the file changed since it was read and no longer fits.
pub fn reread(source: &dyn crate::vault::NoteSource, note: &Note) -> Option<(String, usize)> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(follows_convention("2026-03-20 — Idea — Solar Roof"));
        assert!(!follows_convention("2026-03-20 - Idea - Solar Roof"));
        assert_eq!(
            convention_name("2026-03-20", "reading-notes", "the art of war: notes"),
            "2026-03-20 — Reading Notes — The art of war notes"
        );
        assert_eq!(link_value_name("\"[[01-Projects/Kitchen|K]]\""), "Kitchen");
        assert_eq!(fold("Side Projects"), fold("side-projects"));
        assert_eq!(safe_title("a/b: c?", 50), "a b c");
    }
}
