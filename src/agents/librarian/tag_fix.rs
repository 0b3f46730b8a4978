//! The tag garden's merges, applied: each note that writes a merged spelling is edited through
//! the gate (journaled, undone by `crew undo`), in its frontmatter and inline, and nowhere else
//! ([`crate::vault::tag_edit`] changes the tag bytes only and refuses an edit that would not
//! read back as the same tags renamed). A template is never edited: its tags are placeholders
//! for the notes made from it.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::agents::{Ctx, common};
use crate::gate::GateError;
use crate::vault::tag_edit::rename_tags;

/// One note whose tags were (or, in a dry run, would be) renamed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Renamed {
    pub path: String,
    /// How many written tags changed.
    pub tags: usize,
    /// `from → into` for each spelling renamed in the note.
    pub changes: Vec<String>,
}

/// A note left as it was, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub path: String,
    pub why: String,
}

/// What applying the merges did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Outcome {
    pub renamed: Vec<Renamed>,
    pub skipped: Vec<Skipped>,
}

/// Renames the spellings in `renames` in the notes at `paths` (those the garden counted).
pub fn apply(
    ctx: &mut Ctx,
    paths: &[String],
    renames: &HashMap<String, String>,
) -> Result<Outcome, GateError> {
    let mut out = Outcome::default();
    if renames.is_empty() {
        return Ok(out);
    }
    let rename = |t: &str| renames.get(t).cloned();
    for path in paths {
        // a note still being written (watch mode) is left for a later run
        if ctx.hold.iter().any(|h| h.eq_ignore_ascii_case(path)) {
            continue;
        }
        let Some(note) = ctx.gate.vault().note(path) else {
            continue;
        };
        let changes: Vec<String> = note
            .tags
            .iter()
            .filter_map(|t| renames.get(t).map(|into| format!("#{t} → #{into}")))
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect();
        if changes.is_empty() {
            continue;
        }
        let why = format!("tags: {}", changes.join(", "));
        let mut result = None;
        let edited = ctx.gate.edit(path, &why, |text| {
            if crate::crew::config::holds_template_syntax(text) {
                result = Some(Err("a template: its tags are placeholders".to_string()));
                return text.to_string();
            }
            match rename_tags(text, rename) {
                Ok(Some(done)) => {
                    result = Some(Ok(done.count));
                    done.text
                }
                Ok(None) => {
                    result = Some(Err(
                        "its spellings are written in a YAML form crew does not edit".to_string(),
                    ));
                    text.to_string()
                }
                Err(e) => {
                    result = Some(Err(e.to_string()));
                    text.to_string()
                }
            }
        });
        match (edited, result) {
            (Ok(true), Some(Ok(tags))) => {
                common::log_change(ctx, "librarian", &format!("{path}: {why}"))?;
                out.renamed.push(Renamed {
                    path: path.clone(),
                    tags,
                    changes,
                });
            }
            (Ok(_), Some(Err(why))) => out.skipped.push(Skipped {
                path: path.clone(),
                why,
            }),
            (Ok(_), _) => {}
            // changed since crew read it, read-only or protected: left as it is, the others go on
            (
                Err(
                    e @ (GateError::Changed { .. }
                    | GateError::Busy { .. }
                    | GateError::Protected { .. }
                    | GateError::Unreadable { .. }),
                ),
                _,
            ) => out.skipped.push(Skipped {
                path: path.clone(),
                why: e.to_string(),
            }),
            (Err(e), _) => return Err(e),
        }
    }
    Ok(out)
}
