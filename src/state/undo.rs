//! Undoing a run from its journal: the vault becomes byte-identical to before the run, or
//! nothing changes and the reason is given.
//!
//! The whole undo is first simulated in memory, newest operation first, checking each one's
//! recorded fingerprint against the file as it would be at that point; only a plan that checks
//! out completely is applied. Files the run created are set aside in `.crew/undone/<run>/`, not
//! deleted.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::gate::{atomic_write, set_mtime};
use crate::vault::read::read_regular_file;

use crate::state::journal::{OpKind, Operation};

use crate::vault::hash::fingerprint;

#[derive(Debug, thiserror::Error)]
pub enum UndoError {
    #[error("no run to undo: the journal in {0} holds no changes")]
    Nothing(PathBuf),
    #[error("run {0} has no journal (dry runs and read-only runs change nothing)")]
    NoJournal(String),
    #[error("run {0} was already undone")]
    AlreadyUndone(String),
    #[error("cannot undo run {run}: {path} {why}; nothing was changed")]
    Conflict {
        run: String,
        path: String,
        why: String,
    },
    #[error("the journal of run {run} is damaged at line {line}: {detail}")]
    Damaged {
        run: String,
        line: usize,
        detail: String,
    },
    #[error("undo failed at {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// One step of an undo, in the order it is applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "lowercase")]
pub enum Action {
    /// Put these bytes back at `path` (from the journal's backup), with their time.
    Restore {
        path: String,
        backup: String,
        #[serde(skip_serializing_if = "Option::is_none", default)]
        mtime_ns: Option<i64>,
    },
    /// Move `from` back to `to`.
    Move { from: String, to: String },
    /// Set a file the run created aside (into `.crew/undone/<run>/`).
    Remove { path: String },
    /// Remove a folder the run created, when it is empty.
    Rmdir { path: String },
}

pub(crate) fn journal_dir(state_dir: &Path, run: &str) -> PathBuf {
    state_dir.join("journal").join(run)
}

/// Reads a run's journal.
pub(crate) fn read_journal(state_dir: &Path, run: &str) -> Result<Vec<Operation>, UndoError> {
    let path = journal_dir(state_dir, run).join("journal.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|_| UndoError::NoJournal(run.to_string()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| UndoError::Damaged {
                run: run.to_string(),
                line: i + 1,
                detail: e.to_string(),
            })
        })
        .collect()
}

/// The newest run with changes that was not undone yet.
pub fn last_undoable(state_dir: &Path) -> Result<String, UndoError> {
    let dir = state_dir.join("journal");
    let mut runs: Vec<String> = std::fs::read_dir(&dir)
        .map_err(|_| UndoError::Nothing(dir.clone()))?
        .flatten()
        .filter(|e| e.path().join("journal.jsonl").is_file() && !e.path().join("undone").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    runs.sort();
    runs.pop().ok_or(UndoError::Nothing(dir))
}

/// Plans the undo of a run against the vault as it is now.
pub fn plan(vault: &Path, state_dir: &Path, run: &str) -> Result<Vec<Action>, UndoError> {
    let jdir = journal_dir(state_dir, run);
    if jdir.join("undone").exists() {
        return Err(UndoError::AlreadyUndone(run.to_string()));
    }
    // an undo that was interrupted left its plan and how far it got: the rest of that plan is
    // the plan now (the vault is in between, so a fresh simulation would not check out)
    if let Some((stored, done)) = stored_plan(&jdir) {
        return Ok(stored.into_iter().skip(done).collect());
    }
    let ops = read_journal(state_dir, run)?;
    if ops.is_empty() {
        return Err(UndoError::Nothing(jdir));
    }
    let mut sim = Simulation {
        vault,
        jdir: &jdir,
        run,
        files: HashMap::new(),
        actions: Vec::new(),
    };
    // entries another stands for (see `Operation::supersedes`): undone through that one
    let mut covered = std::collections::HashSet::new();
    for op in ops.iter().rev() {
        if covered.contains(&op.seq) {
            continue;
        }
        if let Some(target) = op.supersedes {
            let of = ops.iter().find(|o| o.seq == target);
            if sim.undo_superseding(op, of)? {
                covered.insert(target);
            }
            continue;
        }
        match op.op {
            OpKind::Create | OpKind::Write | OpKind::Edit => sim.undo_change(op)?,
            OpKind::Move => sim.undo_move(op)?,
            OpKind::Mkdir => sim.actions.push(Action::Rmdir {
                path: op.path.clone(),
            }),
        }
    }
    Ok(sim.actions)
}

/// The undo played backwards on a picture of the vault, before anything is touched.
struct Simulation<'a> {
    vault: &'a Path,
    jdir: &'a Path,
    run: &'a str,
    /// The vault as the simulation sees it: path → bytes (`None`: absent).
    files: HashMap<String, Option<Vec<u8>>>,
    actions: Vec<Action>,
}

impl Simulation<'_> {
    fn current(&mut self, p: &str) -> Option<Vec<u8>> {
        let vault = self.vault;
        self.files
            .entry(p.to_string())
            .or_insert_with(|| read_regular_file(&vault.join(p)).ok())
            .clone()
    }

    fn conflict(&self, path: &str, why: &str) -> UndoError {
        UndoError::Conflict {
            run: self.run.to_string(),
            path: path.to_string(),
            why: why.to_string(),
        }
    }

    /// A created, written or edited file: removed, or its backup restored.
    fn undo_change(&mut self, op: &Operation) -> Result<(), UndoError> {
        let now = self.current(&op.path);
        let backup = match &op.backup {
            Some(b) => Some(
                std::fs::read(self.jdir.join(b))
                    .map_err(|_| self.conflict(&op.path, "has no backup in the journal"))?,
            ),
            None => None,
        };
        // a run killed right after journaling an operation never applied it
        let never_applied = match (&op.op, &now, &backup) {
            (OpKind::Create, None, _) => true,
            (_, Some(n), Some(b)) => {
                n == b && op.after_hash.as_deref() != Some(fingerprint(n).as_str())
            }
            _ => false,
        };
        if never_applied {
            return Ok(());
        }
        let now = now.ok_or_else(|| self.conflict(&op.path, "no longer exists"))?;
        if op
            .after_hash
            .as_ref()
            .is_some_and(|want| &fingerprint(&now) != want)
        {
            return Err(self.conflict(&op.path, "has been changed since this run"));
        }
        match (&op.op, backup) {
            (OpKind::Create, _) | (_, None) => {
                self.actions.push(Action::Remove {
                    path: op.path.clone(),
                });
                self.files.insert(op.path.clone(), None);
            }
            (_, Some(bytes)) => {
                self.actions.push(Action::Restore {
                    path: op.path.clone(),
                    backup: op.backup.clone().unwrap_or_default(),
                    mtime_ns: op.mtime_ns,
                });
                self.files.insert(op.path.clone(), Some(bytes));
            }
        }
        Ok(())
    }

    /// An entry written after the fact, standing for `of`: another program wrote into the file
    /// while crew replaced it. Withdrawn (no `after_hash`): nothing to undo. Kept: the file goes
    /// back to this entry's backup, the old file with the other program's bytes in it, so
    /// undo drops none of them. Returns whether it stood for `of`; `false` when the file still
    /// holds what `of` wrote (the correction never reached it), and `of` is undone as usual.
    fn undo_superseding(
        &mut self,
        op: &Operation,
        of: Option<&Operation>,
    ) -> Result<bool, UndoError> {
        let Some(want) = op.after_hash.as_deref() else {
            return Ok(true);
        };
        let Some(now) = self.current(&op.path) else {
            return Ok(false);
        };
        let now_hash = fingerprint(&now);
        if now_hash != want {
            if of.and_then(|o| o.after_hash.as_deref()) == Some(now_hash.as_str()) {
                return Ok(false);
            }
            return Err(self.conflict(&op.path, "has been changed since this run"));
        }
        let backup = op
            .backup
            .as_ref()
            .ok_or_else(|| self.conflict(&op.path, "has no backup in the journal"))?;
        let bytes = std::fs::read(self.jdir.join(backup))
            .map_err(|_| self.conflict(&op.path, "has no backup in the journal"))?;
        self.actions.push(Action::Restore {
            path: op.path.clone(),
            backup: backup.clone(),
            // the other program's write gave the old file a time of its own
            mtime_ns: None,
        });
        self.files.insert(op.path.clone(), Some(bytes));
        Ok(true)
    }

    /// A moved note: moved back, unless the move never happened.
    fn undo_move(&mut self, op: &Operation) -> Result<(), UndoError> {
        let to = op
            .to
            .clone()
            .ok_or_else(|| self.conflict(&op.path, "is a move without a destination"))?;
        let at_dest = self.current(&to);
        let at_source = self.current(&op.path);
        if at_dest.is_none() && at_source.is_some() {
            // journaled, never moved
            return Ok(());
        }
        // journaled, then refused (the destination was taken meanwhile) or rolled back: the
        // source still holds exactly what was to move, the destination holds something else
        if let (Some(src), Some(dest), Some(moved)) =
            (&at_source, &at_dest, op.after_hash.as_deref())
            && fingerprint(src) == moved
            && fingerprint(dest) != moved
        {
            return Ok(());
        }
        let moved = at_dest.ok_or_else(|| self.conflict(&to, "no longer exists"))?;
        if at_source.is_some() {
            return Err(self.conflict(&op.path, "exists again, so the note cannot move back"));
        }
        self.actions.push(Action::Move {
            from: to.clone(),
            to: op.path.clone(),
        });
        self.files.insert(to, None);
        self.files.insert(op.path.clone(), Some(moved));
        Ok(())
    }
}

/// Applies a planned undo and marks the run as undone.
pub fn apply(
    vault: &Path,
    state_dir: &Path,
    run: &str,
    actions: &[Action],
) -> Result<(), UndoError> {
    let jdir = journal_dir(state_dir, run);
    let io = |path: &str| {
        let path = path.to_string();
        move |source| UndoError::Io { path, source }
    };
    // the undo holds the vault lock: temporary files are what a killed run or undo left
    remove_stale_temps(vault);
    // The plan is saved before the first step and each finished step is counted, so an undo
    // killed halfway is resumed by the next one: the steps counted are skipped, the one that
    // was running may or may not have happened, and is checked (each step can tell).
    let (actions, done) = match stored_plan(&jdir) {
        Some((stored, done)) => (stored, done),
        None => {
            let text = serde_json::to_string(actions).unwrap_or_default();
            write_synced(&jdir.join(PLAN_FILE), text.as_bytes()).map_err(io(PLAN_FILE))?;
            (actions.to_vec(), 0)
        }
    };
    let mut progress = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(jdir.join(PROGRESS_FILE))
        .map_err(io(PROGRESS_FILE))?;
    for a in actions.iter().skip(done) {
        apply_one(vault, state_dir, run, &jdir, a)?;
        use std::io::Write as _;
        progress
            .write_all(b".")
            .and_then(|_| progress.sync_data())
            .map_err(io(PROGRESS_FILE))?;
    }
    std::fs::write(jdir.join("undone"), chrono::Utc::now().to_rfc3339())
        .map_err(io("undone marker"))?;
    Ok(())
}

/// The plan of an undo in progress, in the run's journal folder.
const PLAN_FILE: &str = "undo-plan.json";
/// One byte per finished step of that plan.
const PROGRESS_FILE: &str = "undo-progress";

/// The plan an interrupted undo saved, and how many of its steps finished.
fn stored_plan(jdir: &Path) -> Option<(Vec<Action>, usize)> {
    let text = std::fs::read_to_string(jdir.join(PLAN_FILE)).ok()?;
    let plan: Vec<Action> = serde_json::from_str(&text).ok()?;
    let done = std::fs::metadata(jdir.join(PROGRESS_FILE)).map_or(0, |m| m.len() as usize);
    let done = done.min(plan.len());
    Some((plan, done))
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// One step of an undo. A step may have happened already (the undo before was killed right
/// after it, before counting it): each tells from the vault and does nothing then.
fn apply_one(
    vault: &Path,
    state_dir: &Path,
    run: &str,
    jdir: &Path,
    a: &Action,
) -> Result<(), UndoError> {
    let io = |path: &str| {
        let path = path.to_string();
        move |source| UndoError::Io { path, source }
    };
    {
        match a {
            Action::Restore {
                path,
                backup,
                mtime_ns,
            } => {
                let bytes = std::fs::read(jdir.join(backup)).map_err(io(path))?;
                if !restore_held(vault, run, path, &bytes)? {
                    return Ok(());
                }
                if let Some(ns) = mtime_ns {
                    // the bytes are back either way; a time that cannot be set is only cosmetic
                    if let Err(e) = set_mtime(&vault.join(path), *ns) {
                        tracing::warn!("could not restore the time of {path}: {e}");
                    }
                }
            }
            Action::Move { from, to } => {
                let dest = vault.join(to);
                if std::fs::symlink_metadata(vault.join(from)).is_err() && dest.is_file() {
                    return Ok(()); // moved back already
                }
                if let Some(dir) = dest.parent() {
                    std::fs::create_dir_all(dir).map_err(io(to))?;
                }
                if dest.exists() {
                    return Err(UndoError::Conflict {
                        run: run.into(),
                        path: to.clone(),
                        why: "appeared during the undo".into(),
                    });
                }
                std::fs::rename(vault.join(from), &dest).map_err(io(from))?;
            }
            Action::Remove { path } => {
                let aside = state_dir.join("undone").join(run).join(path);
                if std::fs::symlink_metadata(vault.join(path)).is_err() && aside.is_file() {
                    return Ok(()); // set aside already
                }
                if let Some(dir) = aside.parent() {
                    std::fs::create_dir_all(dir).map_err(io(path))?;
                }
                std::fs::rename(vault.join(path), &aside).map_err(io(path))?;
            }
            Action::Rmdir { path } => {
                // only an empty folder goes; anything the user put there keeps it
                let _ = std::fs::remove_dir(vault.join(path));
            }
        }
    }
    Ok(())
}

/// Puts `bytes` back at `path` without losing what another program writes into the file
/// meanwhile (see the gate's `held`): appended bytes follow the restored ones; a program still
/// writing stops the undo, the file left as that program has it. Returns whether the file
/// holds exactly `bytes` (so its time may be put back too).
fn restore_held(vault: &Path, run: &str, path: &str, bytes: &[u8]) -> Result<bool, UndoError> {
    use crate::gate::{Held, Swapped};
    use crate::vault::read::{READ_CAP, ReadFail, read_regular};
    let full = vault.join(path);
    let conflict = |why: String| UndoError::Conflict {
        run: run.to_string(),
        path: path.to_string(),
        why,
    };
    let (now, seen) = match read_regular(&full, READ_CAP) {
        Ok(found) => found,
        // gone: nothing to hold, the restore creates it again
        Err(ReadFail::Missing) => {
            atomic_write(&full, bytes, false).map_err(|source| UndoError::Io {
                path: path.to_string(),
                source,
            })?;
            return Ok(true);
        }
        Err(ReadFail::Refused(why)) => return Err(conflict(why)),
        Err(ReadFail::Io(source)) => {
            return Err(UndoError::Io {
                path: path.to_string(),
                source,
            });
        }
    };
    if now == bytes {
        return Ok(true);
    }
    let held = Held::open(&full, path, &seen).map_err(|e| conflict(e.to_string()))?;
    match held.swap(&now, bytes, &mut |_| {}) {
        Ok(Swapped::Clean) => Ok(true),
        Ok(Swapped::Merged { .. }) => {
            tracing::warn!("{path}: kept what another program appended during the undo");
            Ok(false)
        }
        Ok(Swapped::Withdrawn { why, .. }) => Err(conflict(why)),
        Err(e) => Err(conflict(e.to_string())),
    }
}

/// Removes crew's temporary files left in the vault by a killed run or undo. Only a holder of
/// the vault lock calls this: no crew writer is mid-write then.
pub(crate) fn remove_stale_temps(vault: &Path) {
    for t in crate::vault::find_stale_temps(vault) {
        match std::fs::remove_file(&t) {
            Ok(()) => tracing::info!(
                "removed a temporary file left by a killed run: {}",
                t.display()
            ),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!("could not remove {}: {e}", t.display()),
        }
    }
}

impl crate::fault::HasFault for UndoError {
    fn fault(&self) -> crate::fault::Fault {
        match self {
            UndoError::Conflict { .. } | UndoError::Io { .. } => crate::fault::Fault::Run,
            _ => crate::fault::Fault::Input,
        }
    }
}
