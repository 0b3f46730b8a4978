//! Moves: a note changes place and every link in the vault keeps pointing at it. Two phases:
//! every check passes before the first byte changes; links are rewritten before the rename, and
//! a note that changed meanwhile is planned again from what it holds now.

use std::path::PathBuf;

use serde::Serialize;

use super::fsops::{is_read_only, move_no_clobber};
use super::{Gate, GateError, HookPoint, check_new_name};
use crate::gate::journal::{OpKind, Operation};
use crate::vault::edit::{self, Replacement};
use crate::vault::hash::fingerprint;
use crate::vault::note::Note;
use crate::vault::read::Seen;
use crate::vault::resolve::is_note_path;
use crate::vault::rewrite::plan_link_rewrites;

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveOutcome {
    pub from: String,
    /// Where the note ended up (differs from the request when that name was taken).
    pub to: String,
    /// Notes whose links were rewritten, with how many links each.
    pub rewritten: Vec<(String, usize)>,
    /// Notes whose links could not be rewritten (moved or deleted by someone else while crew
    /// worked), with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<(String, String)>,
}

/// One note whose links a move rewrites, as checked in the move's first phase.
struct Planned {
    /// Where the note is now (the moved note itself is still at the source).
    at: String,
    /// Its path once the move is done (the key of its entry in the rewrite plan).
    note_path: String,
    bytes: Vec<u8>,
    seen: Seen,
    reps: Vec<Replacement>,
}

/// The first phase of a move: what will be rewritten, and linking notes that vanished.
struct MovePlan {
    notes: Vec<Planned>,
    skipped: Vec<(String, String)>,
}

/// What became of one linking note's rewrite.
enum Rewrite {
    /// Rewritten: the note's path after the move, and how many links changed.
    Done(String, usize),
    /// Its links were already right.
    Unchanged,
    /// It was moved or deleted by someone else meanwhile.
    Gone(String),
}

impl Gate {
    /// Moves a file inside the vault, never over an existing one, and keeps every link in the
    /// vault pointing at the file it pointed at before.
    ///
    /// Two phases: first every check (the source still a readable regular file, the
    /// destination free, every note whose links change readable, UTF-8, writable and as the
    /// vault parsed it — re-planned from its current text when it is not), with nothing
    /// written; then the link rewrites, each a compare-and-swap, and the rename. When a step
    /// of the second phase fails, the steps already done are rolled back and the error says so.
    pub fn move_file(&mut self, from: &str, to: &str) -> Result<MoveOutcome, GateError> {
        let from = self.admit(from)?;
        if self.vault.files.id_of(&from).is_none() && !self.exists(&from) {
            return Err(GateError::NotFound { path: from });
        }
        // the vault's own spelling of the path (links compare case-insensitively)
        let from = self
            .vault
            .files
            .id_of(&from)
            .map_or(from, |id| self.vault.files.paths[id].clone());
        // a read-only note is the user's "leave it": not edited, and not moved either (a move
        // needs only the folder's permission, so without this a filing that edits no key
        // would carry it off)
        self.refuse_read_only(&from)?;
        // a note another program is writing stays until it lets go: its late lines would land
        // in a file crew had moved from under it (an edit checks this as it swaps; a move that
        // edits nothing of the note must check it here)
        if super::held::held_for_writing(&self.vault.root.join(&from)) {
            return Err(GateError::Busy {
                path: from,
                detail: "another program holds it open for writing".into(),
            });
        }
        let wanted = self.admit(to)?;
        if wanted == from {
            return Ok(MoveOutcome {
                from: from.clone(),
                to: from,
                rewritten: Vec::new(),
                skipped: Vec::new(),
            });
        }
        let to = self.free_name(&wanted);
        let to = self.admit(&to)?;
        check_new_name(&to)?;
        let plan = match self.check_move(&from, &to) {
            Ok(plan) => plan,
            Err(reason) => {
                return Err(GateError::MoveFailed {
                    from,
                    to,
                    reason,
                    undone: super::Rollback::default(),
                });
            }
        };
        self.fire(HookPoint::MovePlanned, &from);
        let mark = self.mark();
        match self.apply_move(&from, &to, &wanted, plan) {
            Ok(outcome) => Ok(outcome),
            Err(reason) => {
                let undone = self.rollback_to(mark);
                Err(GateError::MoveFailed {
                    from,
                    to,
                    reason,
                    undone,
                })
            }
        }
    }

    /// Re-parses a note from the bytes just read when they are not what the vault's picture
    /// was parsed from (someone changed the note since): a different size, or different link
    /// spans. Returns whether it did.
    pub(super) fn refresh_if_changed(&mut self, path: &str, bytes: &[u8]) -> bool {
        let Some(i) = self.vault.note_index(path) else {
            return false;
        };
        let old = &self.vault.notes[i];
        let fresh = Note::parse(old.path.clone(), bytes);
        if old.size == fresh.size
            && old.wikilinks == fresh.wikilinks
            && old.frontmatter_links == fresh.frontmatter_links
            && old.markdown_links == fresh.markdown_links
        {
            return false;
        }
        self.vault.upsert_note(fresh);
        true
    }

    /// The first phase of a move: every check, nothing written. `Err` is the reason.
    fn check_move(&mut self, from: &str, to: &str) -> Result<MovePlan, String> {
        let (source, _) = self.read_for_change(from).map_err(|e| match e {
            GateError::NotFound { .. } => "the note no longer exists".to_string(),
            e => e.to_string(),
        })?;
        if self.exists(to) {
            return Err(format!("{to} is taken"));
        }
        if let Some((dir, _)) = to.rsplit_once('/') {
            let mut level = PathBuf::new();
            for part in dir.split('/') {
                level.push(part);
                if let Ok(meta) = std::fs::symlink_metadata(self.vault.root.join(&level))
                    && !meta.is_dir()
                {
                    return Err(format!("{} is a file, not a folder", level.display()));
                }
            }
        }
        if is_note_path(from) {
            self.refresh_if_changed(from, &source);
        }
        // a note changed since the vault was read is re-parsed and the plan made again, until
        // the plan rests on what the files hold now
        for _ in 0..4 {
            let rewrites = plan_link_rewrites(&mut self.vault, from, to);
            let mut notes = Vec::new();
            let mut skipped = Vec::new();
            let mut stale = false;
            for (note_path, reps) in rewrites {
                let at = if note_path == to {
                    from.to_string()
                } else {
                    note_path.clone()
                };
                let (bytes, seen) = match self.read_for_change(&at) {
                    Ok(found) => found,
                    Err(GateError::NotFound { .. }) => {
                        skipped.push((at, "it no longer exists".to_string()));
                        continue;
                    }
                    Err(e) => return Err(format!("{at} links to it and cannot be read: {e}")),
                };
                if std::str::from_utf8(&bytes).is_err() {
                    return Err(format!(
                        "{at} links to it but is not valid UTF-8, so crew cannot keep its links working"
                    ));
                }
                if is_read_only(&self.vault.root.join(&at)) {
                    return Err(format!(
                        "{at} links to it but is read-only, so crew cannot keep its links working"
                    ));
                }
                stale |= self.refresh_if_changed(&at, &bytes);
                notes.push(Planned {
                    at,
                    note_path,
                    bytes,
                    seen,
                    reps,
                });
            }
            if !stale {
                return Ok(MovePlan { notes, skipped });
            }
        }
        Err("the notes linking to it kept changing while crew planned the move".into())
    }

    /// The second phase of a move. `Err` is the reason; the caller rolls back.
    fn apply_move(
        &mut self,
        from: &str,
        to: &str,
        wanted: &str,
        plan: MovePlan,
    ) -> Result<MoveOutcome, String> {
        // Links are rewritten before the note moves: if crew is killed in between, the
        // links already name the new place and a re-run of the move completes the job
        // (moving first would leave links broken with nothing left to revisit them).
        let mut rewritten = Vec::new();
        let mut skipped = plan.skipped;
        for p in plan.notes {
            match self.rewrite_links(p, from, to)? {
                Rewrite::Done(note, count) => rewritten.push((note, count)),
                Rewrite::Unchanged => {}
                Rewrite::Gone(at) => skipped.push((
                    at,
                    "it was moved or deleted while crew worked; its links were not rewritten"
                        .into(),
                )),
            }
        }
        self.rename(from, to, wanted)?;
        Ok(MoveOutcome {
            from: from.to_string(),
            to: to.to_string(),
            rewritten,
            skipped,
        })
    }

    /// Rewrites one linking note's links for the move, compare-and-swap; a note that changed
    /// since it was checked is planned again from what it holds now (three tries).
    fn rewrite_links(&mut self, p: Planned, from: &str, to: &str) -> Result<Rewrite, String> {
        let why = format!("links follow {from} → {to}");
        let (mut bytes, mut seen, mut reps) = (p.bytes, p.seen, p.reps);
        for _ in 0..3 {
            let text = std::str::from_utf8(&bytes)
                .map_err(|_| format!("{} is no longer valid UTF-8", p.at))?;
            let count = reps.len();
            let updated = edit::apply_replacements(text, reps.clone());
            if updated.as_bytes() == bytes.as_slice() {
                return Ok(Rewrite::Unchanged);
            }
            match self.replace_checked(&p.at, &bytes, &seen, updated.as_bytes(), Some(&why)) {
                Ok(()) => return Ok(Rewrite::Done(p.note_path.clone(), count)),
                Err(GateError::Changed { .. }) => {}
                Err(e) => return Err(e.to_string()),
            }
            match self.read_for_change(&p.at) {
                Ok((now, now_seen)) => {
                    if std::str::from_utf8(&now).is_err() {
                        return Err(format!("{} is no longer valid UTF-8", p.at));
                    }
                    self.refresh_if_changed(&p.at, &now);
                    reps = plan_link_rewrites(&mut self.vault, from, to)
                        .into_iter()
                        .find(|(n, _)| *n == p.note_path)
                        .map(|(_, r)| r)
                        .unwrap_or_default();
                    bytes = now;
                    seen = now_seen;
                }
                Err(GateError::NotFound { .. }) if p.at != from => return Ok(Rewrite::Gone(p.at)),
                Err(GateError::NotFound { .. }) => {
                    return Err("the note was moved or deleted while crew worked".into());
                }
                Err(e) => return Err(e.to_string()),
            }
        }
        Err(format!(
            "{} kept changing while crew rewrote its links",
            p.at
        ))
    }

    /// The rename itself, journaled first; never over an existing file.
    fn rename(&mut self, from: &str, to: &str, wanted: &str) -> Result<(), String> {
        self.ensure_parent(to).map_err(|e| e.to_string())?;
        let source = match self.read_for_change(from) {
            Ok((bytes, _)) => bytes,
            Err(GateError::NotFound { .. }) => {
                return Err("the note was moved or deleted while crew worked".into());
            }
            Err(e) => return Err(e.to_string()),
        };
        self.journal
            .record(
                Operation {
                    seq: 0,
                    op: OpKind::Move,
                    path: from.to_string(),
                    to: Some(to.to_string()),
                    backup: None,
                    // what was moved: lets undo tell a move that never happened from one that did
                    after_hash: Some(fingerprint(&source)),
                    note: (to != wanted).then(|| format!("{wanted} was taken")),
                    mtime_ns: None,
                    supersedes: None,
                },
                None,
            )
            .map_err(|e| e.to_string())?;
        self.fire(HookPoint::BeforeRename, from);
        if !self.dry_run
            && let Err(e) = move_no_clobber(&self.vault.root.join(from), &self.vault.root.join(to))
        {
            // the rename did not happen: its entry must not be reversed by the rollback
            self.journal.pop();
            return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
                format!("{to} appeared while crew worked")
            } else if e.kind() == std::io::ErrorKind::NotFound {
                "the note was moved or deleted while crew worked".to_string()
            } else {
                format!("renaming to {to} failed: {e}")
            });
        }
        self.overlay.insert(from.to_string(), None);
        self.overlay.insert(to.to_string(), Some(source));
        self.vault.rename_file(from, to);
        Ok(())
    }
}
