//! Small helpers shared by the native agents.

use chrono::NaiveDateTime;

use super::Ctx;
use crate::dispatch::suggest::NextAgent;
use crate::gate::GateError;

pub use crate::analysis::notes::{
    days_between, fold, follows_convention, last_touched, link_value_name, notes_in, notes_under,
    parse_date, reread,
};

/// A hand-off to another agent; crew renders it as a `### Suggested next agent` block after
/// the answer (`Ctx::hand_off`).
pub fn suggestion(agent: &str, reason: &str, context: &str) -> NextAgent {
    NextAgent {
        agent: agent.to_string(),
        reason: reason.to_string(),
        context: context.to_string(),
    }
}

/// The note an error is about, when it concerns that one note alone — it cannot be written,
/// changed under crew, or is gone — so a run can name it, skip it and go on. `None` for
/// anything else (crew's journal cannot be written): what is done must stay undoable, so that
/// stops the run.
pub(crate) fn note_error(e: &GateError) -> Option<&str> {
    let path = match e {
        GateError::Jail { path, .. }
        | GateError::Protected { path, .. }
        | GateError::NotFound { path }
        | GateError::Io { path, .. }
        | GateError::Changed { path, .. }
        | GateError::Busy { path, .. }
        | GateError::Unreadable { path, .. } => path,
        GateError::MoveFailed { .. } => return None,
    };
    let crews_own = path.starts_with(".crew/") || std::path::Path::new(path).is_absolute();
    (!crews_own).then_some(path.as_str())
}

/// `text` with its first letter upper case ("budget" → "Budget"): how a title, a folder or a
/// sentence starts.
pub(crate) fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |f| {
        f.to_uppercase().collect::<String>() + chars.as_str()
    })
}

/// Title Case for a type word: "reading-notes" → "Reading Notes".
pub(crate) fn type_label(t: &str) -> String {
    t.split(['-', '_', ' '])
        .filter(|w| !w.is_empty())
        .map(capitalized)
        .collect::<Vec<_>>()
        .join(" ")
}

/// A file-name-safe title: no path separators or characters Obsidian links cannot hold.
pub(crate) fn safe_title(raw: &str, max_chars: usize) -> String {
    let cleaned: String = raw
        .chars()
        .map(|c| {
            // A bidi control makes a name display as another one: the gate refuses such
            // names, so a title from outside text would otherwise fail to become a note. A
            // backtick would end the inline code a path is quoted in (reports, the log).
            let unsafe_here = "/\\:*?\"<>|#^[]`".contains(c);
            if unsafe_here || c.is_control() || crate::gate::is_bidi_control(c) {
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
pub(crate) fn convention_name(date: &str, kind: &str, title: &str) -> String {
    let title = capitalized(&safe_title(title, 50));
    format!("{date} — {} — {title}", type_label(kind))
}

/// Records one line for `Meta/agent-log.md`; the lines of a run are written together when the
/// agent is done ([`flush_log`]), so a large run does not rewrite the log once per change.
pub(crate) fn log_change(ctx: &mut Ctx, agent: &str, what: &str) -> Result<(), GateError> {
    // the log is a note: a line naming outside text (a subject, a title made a file name)
    // stays one line and runs nothing
    ctx.log.push(format!(
        "- {} — {agent} — {}\n",
        ctx.now.format("%Y-%m-%d %H:%M"),
        super::inert::inert(&super::inert::one_line(what))
    ));
    Ok(())
}

/// Appends the recorded lines to `Meta/agent-log.md` (created with a heading when absent).
pub(crate) fn flush_log(
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

pub(crate) fn now_stamp(now: &NaiveDateTime) -> String {
    now.format("%Y-%m-%dT%H:%M:%S").to_string()
}

/// The folders under `dir`, down to `depth` levels, each after the folders inside it (hidden
/// ones never listed).
pub(crate) fn folders_under(ctx: &Ctx, dir: &str, depth: usize, out: &mut Vec<String>) {
    if depth == 0 {
        return;
    }
    for d in ctx.gate.subdirs(dir) {
        folders_under(ctx, &d, depth - 1, out);
        out.push(d);
    }
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
        assert_eq!(safe_title("Pay \u{202E}fdp.exe\u{2066}", 50), "Pay fdp.exe");
        assert_eq!(safe_title("Sync `$= x`", 50), "Sync $= x");
    }
}
