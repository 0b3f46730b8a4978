//! What an MCP client may read, and how a path or a note name becomes a vault file.
//!
//! The walls are the model tools' ([`crate::model::tools::readable_file`]): a vault-relative
//! path, no `..`, nothing in a hidden folder (`.obsidian`, `.crew`, `.trash`, `.git`), and the
//! bytes read through the gate's read jail (no symlink on the way, a regular file, a size cap).

use crate::gate::{Gate, GateError, MODEL_READ_CAP};
use crate::model::tools::readable_file;
use crate::vault::Vault;

use super::Refusal;

/// How a refused path ends its message: what the client can read instead.
const INSTEAD: &str = "crew serves only the vault's notes and attachments (search finds them)";

/// Characters per page of `read_note`: a long note comes in pages, so one call cannot flood
/// the assistant's context.
pub(crate) const PAGE: usize = 40_000;

/// Links listed by `backlinks` before the rest is only counted.
const BACKLINKS_SHOWN: usize = 200;

/// The link target a reader wrote: `[[Folder/Note#Heading|alias]]` names `Folder/Note`.
fn link_target(raw: &str) -> &str {
    let t = raw.trim();
    let t = t
        .strip_prefix("![[")
        .or_else(|| t.strip_prefix("[["))
        .and_then(|inner| inner.strip_suffix("]]"))
        .unwrap_or(t);
    let t = t.split('|').next().unwrap_or(t);
    t.split('#').next().unwrap_or(t).trim()
}

/// The vault file `target` names: a vault path (any case), else a note name resolved the way
/// Obsidian resolves a wikilink from the vault root. The jail is checked first, so a path out
/// of the vault or into a hidden folder is refused as such, never looked up.
pub(crate) fn locate(vault: &Vault, target: &str) -> Result<String, Refusal> {
    let wanted = link_target(target);
    if wanted.is_empty() {
        return Err(Refusal(
            "name a note: a vault path such as `Projects/Plan.md`, or a note name such as `Plan`"
                .into(),
        ));
    }
    let path = readable_file(wanted, INSTEAD).map_err(|e| Refusal(e.to_string()))?;
    let id = vault
        .files
        .id_of(&path)
        .or_else(|| vault.files.resolve("", &path).file());
    match id.and_then(|id| vault.files.paths.get(id)) {
        // what a name resolved to passes the same walls as a path given outright
        Some(found) if !found.is_empty() => {
            readable_file(found, INSTEAD).map_err(|e| Refusal(e.to_string()))
        }
        _ => Err(Refusal(format!(
            "no note or attachment `{wanted}` in the vault; search finds notes by their words"
        ))),
    }
}

/// A file's text through the gate's read jail; a binary attachment is named, not shown.
pub(crate) fn text_of(gate: &Gate, path: &str) -> Result<String, Refusal> {
    let bytes = gate
        .read_checked(path, MODEL_READ_CAP)
        .map_err(|e| match e {
            GateError::NotFound { .. } => Refusal(format!(
                "`{path}` is gone from the vault (moved or deleted since it was listed)"
            )),
            other => Refusal(other.to_string()),
        })?;
    let binary = bytes.contains(&0) || std::str::from_utf8(&bytes).is_err();
    if binary && !crate::vault::resolve::is_note_path(path) {
        return Err(Refusal(format!(
            "`{path}` is a binary attachment ({} bytes); crew shows only text",
            bytes.len()
        )));
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// One page of a note's text, starting at character `offset`, headed by its path.
pub(crate) fn page(path: &str, text: &str, offset: usize) -> String {
    let total = text.chars().count();
    if offset > 0 && offset >= total {
        return format!(
            "{path}: offset {offset} is past the end (the note has {total} characters)"
        );
    }
    let shown: String = text.chars().skip(offset).take(PAGE).collect();
    let end = offset + shown.chars().count();
    let mut out = format!("{path}\n\n{shown}");
    if end < total {
        out.push_str(&format!(
            "\n\n[… {} more characters: call read_note with offset {end}]",
            total - end
        ));
    }
    out
}

/// Every link and embed that resolves to the file at `path`, one line each
/// (`linking note:line: the line`), in note and link order.
pub(crate) fn backlinks(gate: &Gate, path: &str) -> String {
    let vault = gate.vault();
    let Some(target) = vault.files.id_of(path) else {
        return format!("No note links to {path}.");
    };
    let mut lines = Vec::new();
    let mut notes = 0;
    for (n, resolved) in vault.resolved.iter().enumerate() {
        let Some(note) = vault.notes.get(n) else {
            continue;
        };
        let hits: Vec<usize> = resolved
            .iter()
            .enumerate()
            .filter(|(_, r)| r.file() == Some(target))
            .map(|(i, _)| i)
            .collect();
        if hits.is_empty() {
            continue;
        }
        notes += 1;
        let text = gate.read_text(&note.path).unwrap_or_default();
        for i in hits {
            let at = note.wikilinks.get(i).map_or(0, |l| l.span.start);
            lines.push(line_at(&note.path, &text, at));
        }
    }
    if lines.is_empty() {
        return format!("No note links to {path}.");
    }
    let mut out = format!("{} link(s) from {notes} note(s) to {path}:\n", lines.len());
    for l in lines.iter().take(BACKLINKS_SHOWN) {
        out.push_str(l);
        out.push('\n');
    }
    if lines.len() > BACKLINKS_SHOWN {
        out.push_str(&format!("… and {} more\n", lines.len() - BACKLINKS_SHOWN));
    }
    out
}

/// `path:line: text` for the line holding byte `at` of `text`.
fn line_at(path: &str, text: &str, at: usize) -> String {
    let at = at.min(text.len());
    let before = text.get(..at).unwrap_or("");
    let number = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = text
        .get(start..)
        .and_then(|rest| rest.lines().next())
        .unwrap_or("")
        .trim();
    format!("{path}:{number}: {line}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Policy;
    use crate::state::journal::Journal;

    fn gate_of(files: &[(&str, &str)]) -> (tempfile::TempDir, Gate) {
        let dir = tempfile::tempdir().expect("tmp");
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(full, text).expect("write");
        }
        let vault = Vault::open(dir.path()).expect("open");
        let gate = Gate::new(vault, Policy::default(), Journal::in_memory(), true);
        (dir, gate)
    }

    #[test]
    fn a_path_out_of_the_vault_or_into_a_hidden_folder_is_refused_not_looked_up() {
        let (_d, gate) = gate_of(&[("a.md", "x"), (".obsidian/app.json", "{}")]);
        for bad in [
            "../../etc/passwd",
            "/etc/passwd",
            ".obsidian/app.json",
            ".crew/config.yaml",
        ] {
            let e = locate(gate.vault(), bad).expect_err(bad);
            assert!(
                e.0.contains("leaves the vault")
                    || e.0.contains("absolute")
                    || e.0.contains("hidden folder"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn a_note_is_found_by_path_by_name_and_by_wikilink() {
        let (_d, gate) = gate_of(&[("Projects/Plan.md", "# Plan"), ("img/p.png", "\u{0}")]);
        let v = gate.vault();
        for t in [
            "Projects/Plan.md",
            "projects/plan.md",
            "Plan",
            "[[Plan#Goals|the plan]]",
        ] {
            assert_eq!(locate(v, t).expect(t), "Projects/Plan.md", "{t}");
        }
        assert_eq!(locate(v, "p.png").expect("attachment"), "img/p.png");
        assert!(locate(v, "Nowhere").is_err());
        assert!(
            text_of(&gate, "img/p.png")
                .expect_err("binary")
                .0
                .contains("binary")
        );
    }

    #[test]
    fn a_long_note_comes_in_pages_that_say_where_the_next_starts() {
        let text = "é".repeat(PAGE + 5);
        let first = page("n.md", &text, 0);
        assert!(first.ends_with(&format!("call read_note with offset {PAGE}]")));
        let second = page("n.md", &text, PAGE);
        assert_eq!(second, format!("n.md\n\n{}", "é".repeat(5)));
        assert!(page("n.md", &text, PAGE + 5).contains("past the end"));
    }

    #[test]
    fn backlinks_name_each_linking_line() {
        let (_d, gate) = gate_of(&[
            ("Plan.md", "# Plan"),
            ("Log.md", "intro\nsee [[Plan]] today\n![[Plan]]"),
            ("Other.md", "nothing"),
        ]);
        let out = backlinks(&gate, "Plan.md");
        assert!(
            out.starts_with("2 link(s) from 1 note(s) to Plan.md"),
            "{out}"
        );
        assert!(out.contains("Log.md:2: see [[Plan]] today"), "{out}");
        assert!(out.contains("Log.md:3: ![[Plan]]"), "{out}");
        assert_eq!(backlinks(&gate, "Other.md"), "No note links to Other.md.");
    }
}
