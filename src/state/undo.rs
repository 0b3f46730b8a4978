//! Undoing a run from its journal: the vault becomes byte-identical to before the run, or
//! nothing changes and the reason is given.
//!
//! The whole undo is first simulated in memory, newest operation first, checking each one's
//! recorded fingerprint against the file as it would be at that point; only a plan that checks
//! out completely is applied. Files the run created are set aside in `.crew/undone/<run>/`, not
//! deleted.
//!
//! crew's own files (post-its, the agent log, reports) never block an undo: every run appends
//! to the agent log, so one later run would otherwise make every earlier run impossible to
//! undo. Such a file, changed since, is kept as it is now. A user's note changed by a later
//! run blocks it, and the message names that run, to be undone first.
//!
//! One note can be undone alone ([`plan_note`]): it goes back to what it held before the run,
//! whatever later runs did to other notes.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::crew::Folders;
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
    /// A later run changed the note since: it is the one to undo first.
    #[error(
        "cannot undo run {run}: {path} was changed since by run {later}; undo that one first (`crew undo {later}{hint}`); nothing was changed"
    )]
    ChangedLater {
        run: String,
        path: String,
        later: String,
        /// ` --note PATH` when a single note is being undone.
        hint: String,
    },
    #[error("run {run} did not change {path}{changed}")]
    NotInRun {
        run: String,
        path: String,
        changed: String,
    },
    #[error(
        "run {run} moved {path}; `crew undo {run}` moves it back with the rest of the run (one note alone goes back only from edits and writes)"
    )]
    NoteMoved { run: String, path: String },
    #[error("{path} already holds what it held before run {run}; nothing to undo")]
    NoteUnchanged { run: String, path: String },
    #[error("no run that is not undone changed {0}")]
    NoRunChanged(String),
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
    /// Leave one of crew's own files (agent log, post-it, report) as it is: a later run
    /// changed it, and its bookkeeping is not the user's text.
    Keep { path: String },
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
        // a run killed before its first entry left an empty journal: it changed nothing
        .filter(|e| {
            std::fs::metadata(e.path().join("journal.jsonl")).is_ok_and(|m| m.len() > 0)
                && !e.path().join("undone").exists()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    runs.sort();
    runs.pop().ok_or(UndoError::Nothing(dir))
}

/// Runs not undone yet, oldest first (run ids sort by time).
fn live_runs(state_dir: &Path) -> Vec<String> {
    let Ok(rd) = std::fs::read_dir(state_dir.join("journal")) else {
        return Vec::new();
    };
    let mut runs: Vec<String> = rd
        .flatten()
        // a run killed before its first entry left an empty journal: it changed nothing
        .filter(|e| {
            std::fs::metadata(e.path().join("journal.jsonl")).is_ok_and(|m| m.len() > 0)
                && !e.path().join("undone").exists()
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    runs.sort();
    runs
}

/// Whether an operation touched `path` (as its file, or either end of a move).
fn touches(op: &Operation, path: &str) -> bool {
    op.path == path || op.to.as_deref() == Some(path)
}

/// The newest run after `run`, not undone, that changed `path`: the one to undo first.
fn later_run_on(state_dir: &Path, run: &str, path: &str) -> Option<String> {
    live_runs(state_dir)
        .into_iter()
        .rev()
        .take_while(|r| r.as_str() > run)
        .find(|r| {
            read_journal(state_dir, r).is_ok_and(|ops| ops.iter().any(|op| touches(op, path)))
        })
}

/// The newest run, not undone, that changed `path` (`crew undo --note PATH` without a run).
pub fn last_run_on(state_dir: &Path, path: &str) -> Result<String, UndoError> {
    live_runs(state_dir)
        .into_iter()
        .rev()
        .find(|r| {
            read_journal(state_dir, r).is_ok_and(|ops| ops.iter().any(|op| touches(op, path)))
        })
        .ok_or_else(|| UndoError::NoRunChanged(path.to_string()))
}

/// Plans the undo of a run against the vault as it is now. `folders` says which files are
/// crew's own (kept as they are when a later run changed them).
pub fn plan(
    vault: &Path,
    state_dir: &Path,
    run: &str,
    folders: &Folders,
) -> Result<Vec<Action>, UndoError> {
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
    let crew_owned = |p: &str| folders.crew_owned(p);
    let mut sim = Simulation {
        vault,
        state_dir,
        jdir: &jdir,
        run,
        crew_owned: &crew_owned,
        hint: String::new(),
        kept: HashSet::new(),
        files: HashMap::new(),
        actions: Vec::new(),
    };
    // entries another stands for (see `Operation::supersedes`): undone through that one
    let mut covered = std::collections::HashSet::new();
    for op in ops.iter().rev() {
        if sim.kept.contains(&op.path) {
            continue;
        }
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

/// How one note goes back to what it held before a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotePlan {
    pub run: String,
    pub path: String,
    /// Restore (the note's earlier bytes, from the journal) or Remove (the run created it).
    pub action: Action,
    /// The note's bytes before the run; `None`: it did not exist.
    #[serde(skip)]
    pub before: Option<Vec<u8>>,
}

/// Plans putting one note back to what it held before `run`, whatever later runs did to other
/// notes. The note must still be as the run left it (else the later run that changed it is
/// named, to be undone first); `force` skips that check — the text it replaces is journaled by
/// the restore, so nothing is lost either way.
pub fn plan_note(
    vault: &Path,
    state_dir: &Path,
    run: &str,
    path: &str,
    force: bool,
) -> Result<NotePlan, UndoError> {
    let jdir = journal_dir(state_dir, run);
    if jdir.join("undone").exists() {
        return Err(UndoError::AlreadyUndone(run.to_string()));
    }
    let ops = read_journal(state_dir, run)?;
    let mine: Vec<&Operation> = ops.iter().filter(|op| touches(op, path)).collect();
    if mine.iter().any(|op| op.op == OpKind::Move) {
        return Err(UndoError::NoteMoved {
            run: run.to_string(),
            path: path.to_string(),
        });
    }
    let Some(first) = mine.first() else {
        let mut changed: Vec<&str> = ops
            .iter()
            .filter(|op| op.op != OpKind::Mkdir)
            .map(|op| op.path.as_str())
            .collect();
        changed.dedup();
        changed.truncate(10);
        return Err(UndoError::NotInRun {
            run: run.to_string(),
            path: path.to_string(),
            changed: if changed.is_empty() {
                String::new()
            } else {
                format!("; it changed {}", changed.join(", "))
            },
        });
    };
    // The first operation's before-image is the note before the run: an operation rolled
    // back or never applied left the note as it found it, so the next one's image is the same.
    let before = match (&first.op, &first.backup) {
        (OpKind::Create, _) | (_, None) => None,
        (_, Some(b)) => Some(std::fs::read(jdir.join(b)).map_err(|e| UndoError::Io {
            path: format!("{path} (its earlier text, {b})"),
            source: e,
        })?),
    };
    let now = read_regular_file(&vault.join(path)).ok();
    if now == before {
        return Err(UndoError::NoteUnchanged {
            run: run.to_string(),
            path: path.to_string(),
        });
    }
    if !force {
        // played backwards as a whole-run undo would, on this note alone: it checks the note
        // is as the run left it, and tells operations the run journaled but never applied
        let nobody = |_: &str| false;
        let mut sim = Simulation {
            vault,
            state_dir,
            jdir: &jdir,
            run,
            crew_owned: &nobody,
            hint: format!(" --note {path}"),
            kept: HashSet::new(),
            files: HashMap::new(),
            actions: Vec::new(),
        };
        for op in mine.iter().rev() {
            sim.undo_change(op)?;
        }
    }
    let action = match &before {
        Some(_) => Action::Restore {
            path: path.to_string(),
            backup: first.backup.clone().unwrap_or_default(),
            mtime_ns: first.mtime_ns,
        },
        None => Action::Remove {
            path: path.to_string(),
        },
    };
    Ok(NotePlan {
        run: run.to_string(),
        path: path.to_string(),
        action,
        before,
    })
}

/// Sets a note a run created aside into `.crew/undone/<run>/`, as a whole-run undo does
/// (nothing is deleted).
pub fn set_aside(vault: &Path, state_dir: &Path, run: &str, path: &str) -> Result<(), UndoError> {
    let jdir = journal_dir(state_dir, run);
    apply_one(
        vault,
        state_dir,
        run,
        &jdir,
        &Action::Remove {
            path: path.to_string(),
        },
    )
}

/// The undo played backwards on a picture of the vault, before anything is touched.
struct Simulation<'a> {
    vault: &'a Path,
    state_dir: &'a Path,
    jdir: &'a Path,
    run: &'a str,
    /// crew's own files: kept as they are when changed since, never a conflict.
    crew_owned: &'a dyn Fn(&str) -> bool,
    /// What a conflict's advice adds to `crew undo LATER` (` --note PATH` for one note).
    hint: String,
    /// crew's own files the undo leaves as they are.
    kept: HashSet<String>,
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

    /// A file that is not as the run left it: crew's own is kept as it is (`Ok`); a note a
    /// later run changed names that run; any other change is the user's.
    fn changed_since(&mut self, path: &str, why: &str) -> Result<(), UndoError> {
        if (self.crew_owned)(path) {
            if self.kept.insert(path.to_string()) {
                self.actions.push(Action::Keep {
                    path: path.to_string(),
                });
            }
            return Ok(());
        }
        Err(self.blocked(path, why))
    }

    /// The error for a note that is not as the run left it: the later run that changed it
    /// when there is one (undo that first), else the change is the user's.
    fn blocked(&self, path: &str, why: &str) -> UndoError {
        match later_run_on(self.state_dir, self.run, path) {
            Some(later) => UndoError::ChangedLater {
                run: self.run.to_string(),
                path: path.to_string(),
                later,
                hint: self.hint.clone(),
            },
            // one note alone: its earlier text is still in the journal, so say how to get it
            None if !self.hint.is_empty() => self.conflict(
                path,
                &format!(
                    "{why} (`--force` restores it anyway; what it holds now goes into the restore's journal)"
                ),
            ),
            None => self.conflict(path, why),
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
        let Some(now) = now else {
            return self.changed_since(&op.path, "no longer exists");
        };
        if op
            .after_hash
            .as_ref()
            .is_some_and(|want| &fingerprint(&now) != want)
        {
            return self.changed_since(&op.path, "has been changed since this run");
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
        let moved = at_dest.ok_or_else(|| self.blocked(&to, "no longer exists"))?;
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
            Action::Keep { .. } => {}
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
            UndoError::Conflict { .. } | UndoError::ChangedLater { .. } | UndoError::Io { .. } => {
                crate::fault::Fault::Run
            }
            _ => crate::fault::Fault::Input,
        }
    }
}
