//! The write gate: the one door every change to a vault goes through.
//!
//! - Paths are jailed to the vault: no absolute paths, no `..`, no symlinks on the way, no
//!   control characters or names Windows cannot hold.
//! - Protected places are refused: `.obsidian/`, `.git/`, hidden folders in general, the crew
//!   definition's core files, the anchor's dispatcher files, and other agents' post-its.
//! - Writes are atomic (a hidden temporary file in the same folder, then a rename); a create or a
//!   move never replaces an existing file (a free name is chosen and reported).
//! - A move keeps every link in the vault pointing at the same file, rewriting only the links
//!   that would otherwise break or change meaning.
//! - Every operation is journaled before it happens, with what is needed to reverse it.
//! - Nothing is deleted.
//! - Every write is a compare-and-swap against what crew read: the file is checked (size,
//!   modification time, hash) right before it is replaced, and a note that changed since the
//!   vault was loaded is re-planned (moves) or refused (edits), never edited at stale offsets.
//! - A replaced file is held open across the swap: a note another program holds open for
//!   writing is not replaced, and what a program writes into the old file while crew swaps it
//!   is kept — appended after crew's bytes, or crew's change is withdrawn and the old file put
//!   back (see `held`). The journal records what really ended in the file.
//! - A move is two-phase: every check passes before the first byte changes, and when a later
//!   step fails the steps already taken are rolled back.
//! - Reads obey the jail too: no symlink on the way, only regular files (opened non-blocking,
//!   checked with `fstat`), a size cap; read-only notes are never replaced.
//!
//! The gate owns the in-memory [`Vault`], so every reader sees the vault as the gate has
//! changed it, and a `--dry-run` plans exactly what a real run would do without touching disk.

mod fsops;
mod held;
mod jail;
pub mod journal;
mod moves;
mod policy;

use std::collections::HashMap;
use std::path::Path;

use crate::gate::journal::{Journal, OpKind, Operation};
use crate::vault::Vault;
use crate::vault::edit;
use crate::vault::hash::{FNV_OFFSET, fingerprint, fnv1a};
use crate::vault::note::Note;
use crate::vault::read::{READ_CAP, ReadFail, Seen, read_regular};
use crate::vault::resolve::is_note_path;

use fsops::{is_read_only, move_no_clobber};
pub(crate) use held::{Held, Swapped};
use jail::check_new_name;

pub use fsops::{atomic_write, set_mtime};
pub(crate) use jail::is_bidi_control;
pub use jail::jail;
pub use moves::MoveOutcome;
pub use policy::{CREW_FOLDERS, Policy};

/// Why the gate refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("refused {path:?}: {reason}")]
    Jail { path: String, reason: String },
    #[error("refused {path:?}: {reason}")]
    Protected { path: String, reason: String },
    #[error("{path:?} does not exist in the vault")]
    NotFound { path: String },
    #[error("could not write {path}: {source} (the original is untouched)")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// The file is not what crew read: somebody else changed, moved or deleted it meanwhile.
    #[error(
        "{path} changed on disk while crew was working on it ({detail}); crew left it as it is now"
    )]
    Changed { path: String, detail: String },
    /// Another program is writing the file: crew does not replace it under that program.
    #[error("{path} is being written by another program ({detail}); crew left it as it is")]
    Busy { path: String, detail: String },
    /// Reads obey the jail too: only regular files, of a bounded size.
    #[error("refused to read {path:?}: {reason}")]
    Unreadable { path: String, reason: String },
    /// A move that did not happen: `undone` says what became of the steps already taken.
    #[error("could not move {from} to {to}: {reason}; {undone}")]
    MoveFailed {
        from: String,
        to: String,
        reason: String,
        undone: Rollback,
    },
}

/// What [`Gate::rollback_to`] did with the operations it was asked to take back.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rollback {
    /// Operations reversed.
    pub undone: usize,
    /// Operations that could not be, each with its path and why.
    pub not_undone: Vec<String>,
}

impl Rollback {
    /// Whether there was nothing to take back: no file changed.
    pub fn nothing_changed(&self) -> bool {
        self.undone == 0 && self.not_undone.is_empty()
    }
}

impl std::fmt::Display for Rollback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.undone, self.not_undone.is_empty()) {
            (0, true) => f.write_str("nothing was changed"),
            (n, true) => write!(f, "the {n} change(s) already made were rolled back"),
            (n, false) => write!(
                f,
                "{n} change(s) were rolled back, but not: {}",
                self.not_undone.join("; ")
            ),
        }
    }
}

impl From<crate::gate::journal::JournalError> for GateError {
    fn from(e: crate::gate::journal::JournalError) -> Self {
        GateError::Io {
            path: e.path,
            source: e.source,
        }
    }
}

impl GateError {
    pub(crate) fn io(path: &str, source: std::io::Error) -> Self {
        GateError::Io {
            path: path.to_string(),
            source,
        }
    }
}

/// The most a model may read of one file: a model reads in pages of a few thousand characters,
/// so a bigger file is a mistake or an attack (a symlink to `/dev/zero` used to allocate 2 GB).
pub const MODEL_READ_CAP: u64 = 4 << 20;

/// Where a test hook runs: a change has been planned and checked, and nothing of it is
/// written yet. Race tests change the vault here, deterministically.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookPoint {
    /// An edit or write computed its new bytes.
    EditPlanned,
    /// A move checked its source, destination and every linking note.
    MovePlanned,
    /// A move rewrote the links and is about to rename the note.
    BeforeRename,
    /// A file is checked and journaled, its new bytes about to be renamed over it.
    BeforeSwap,
    /// The new bytes were renamed over the file; the old file is not checked yet.
    AfterSwap,
}

/// A function the gate calls at each [`HookPoint`] with the path concerned (tests only).
pub(crate) type Hook = Box<dyn FnMut(HookPoint, &str) + Send + Sync>;
/// The gate over one vault.
pub struct Gate {
    vault: Vault,
    pub policy: Policy,
    pub journal: Journal,
    dry_run: bool,
    /// Contents as the gate has written them (in a dry run, the only place they exist);
    /// `None` marks a path moved away.
    overlay: HashMap<String, Option<Vec<u8>>>,
    /// Called between planning a change and writing it (tests only).
    hook: Option<Hook>,
}

impl Gate {
    pub fn new(vault: Vault, policy: Policy, journal: Journal, dry_run: bool) -> Gate {
        Gate {
            vault,
            policy,
            journal,
            dry_run,
            overlay: HashMap::new(),
            hook: None,
        }
    }

    /// Installs a function called at each [`HookPoint`]: race tests change the vault there,
    /// between the gate's checks and its writes, without sleeping.
    pub fn set_test_hook(&mut self, hook: Option<Hook>) {
        self.hook = hook;
    }

    fn fire(&mut self, point: HookPoint, path: &str) {
        if let Some(hook) = self.hook.as_mut() {
            hook(point, path);
        }
    }

    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    pub(crate) fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    pub fn operations(&self) -> &[Operation] {
        &self.journal.entries
    }

    pub fn root(&self) -> &Path {
        &self.vault.root
    }

    /// Reads a file as the gate sees it: through the jail (no symlink on the way, a regular
    /// file only, at most [`READ_CAP`] bytes); in a dry run its own planned writes first.
    pub fn read(&self, path: &str) -> Option<Vec<u8>> {
        self.read_checked(path, READ_CAP).ok()
    }

    /// Like [`Gate::read`], saying why a file cannot be read, with a size cap (model reads use
    /// [`MODEL_READ_CAP`]).
    pub fn read_checked(&self, path: &str, cap: u64) -> Result<Vec<u8>, GateError> {
        let path = self.admit_read(path)?;
        match self.overlay.get(&path) {
            Some(None) => return Err(GateError::NotFound { path }),
            // in a dry run nothing was written, so the overlay is the only place the planned
            // bytes exist; in a real run the disk is the truth (someone may have changed it)
            Some(Some(bytes)) if self.dry_run => {
                if bytes.len() as u64 > cap {
                    return Err(GateError::Unreadable {
                        path,
                        reason: format!("it holds more than the {cap} bytes crew reads"),
                    });
                }
                return Ok(bytes.clone());
            }
            _ => {}
        }
        self.read_disk(&path, cap).map(|(bytes, _)| bytes)
    }

    pub fn read_text(&self, path: &str) -> Option<String> {
        self.read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }
}

impl crate::vault::NoteSource for Gate {
    fn note_text(&self, path: &str) -> Option<String> {
        self.read_text(path)
    }
}

impl Gate {
    fn read_disk(&self, path: &str, cap: u64) -> Result<(Vec<u8>, Seen), GateError> {
        read_regular(&self.vault.root.join(path), cap).map_err(|e| match e {
            ReadFail::Missing => GateError::NotFound {
                path: path.to_string(),
            },
            ReadFail::Refused(reason) => GateError::Unreadable {
                path: path.to_string(),
                reason,
            },
            ReadFail::Io(source) => GateError::Unreadable {
                path: path.to_string(),
                reason: source.to_string(),
            },
        })
    }

    /// The bytes of a file about to be changed, with what is needed to check later that it
    /// did not change meanwhile (in a dry run, the planned bytes).
    fn read_for_change(&self, path: &str) -> Result<(Vec<u8>, Seen), GateError> {
        if self.dry_run
            && let Some(entry) = self.overlay.get(path)
        {
            return match entry {
                Some(bytes) => Ok((
                    bytes.clone(),
                    Seen {
                        len: bytes.len() as u64,
                        mtime_ns: 0,
                        hash: fnv1a(FNV_OFFSET, bytes),
                    },
                )),
                None => Err(GateError::NotFound {
                    path: path.to_string(),
                }),
            };
        }
        self.read_disk(path, READ_CAP)
    }

    /// Read-only notes (no write permission bits) are left alone, whoever crew runs as.
    fn refuse_read_only(&self, path: &str) -> Result<(), GateError> {
        if is_read_only(&self.vault.root.join(path)) {
            return Err(GateError::Protected {
                path: path.to_string(),
                reason: "the file is read-only; crew leaves it alone".into(),
            });
        }
        Ok(())
    }

    /// Replaces a file the gate read (`original`, `seen`) with `updated`, only while it still
    /// holds exactly what was read; journaled with the original bytes and time.
    fn replace_checked(
        &mut self,
        path: &str,
        original: &[u8],
        seen: &Seen,
        updated: &[u8],
        why: Option<&str>,
    ) -> Result<(), GateError> {
        self.refuse_read_only(path)?;
        // checked before the journal line: a change refused here leaves no entry that undo
        // would find neither applied nor matching. The file stays open from this check on, so
        // what another program writes into it until the swap is seen and kept.
        let held = if self.dry_run {
            None
        } else {
            Some(Held::open(&self.vault.root.join(path), path, seen)?)
        };
        let kind = if why.is_some() {
            OpKind::Edit
        } else {
            OpKind::Write
        };
        let mtime_ns = i64::try_from(seen.mtime_ns).ok().filter(|t| *t > 0);
        self.journal.record(
            Operation {
                seq: 0,
                // a whole-file write has no reason of its own; an edit says why
                op: kind,
                path: path.to_string(),
                to: None,
                backup: None,
                after_hash: Some(fingerprint(updated)),
                note: why.map(str::to_string),
                mtime_ns,
                supersedes: None,
            },
            Some(original),
        )?;
        let Some(held) = held else {
            self.remember(path, updated);
            return Ok(());
        };
        let hook = &mut self.hook;
        let swapped = held.swap(original, updated, &mut |point| {
            if let Some(h) = hook.as_mut() {
                h(point, path);
            }
        })?;
        // the journal line after the fact says what the file really holds, so undo restores
        // the other program's bytes too, never drops them
        let correction = |after_hash: Option<String>, what: &str| Operation {
            seq: 0,
            op: kind,
            path: path.to_string(),
            to: None,
            backup: None,
            after_hash,
            note: Some(match why {
                Some(w) => format!("{w}; {what}"),
                None => what.to_string(),
            }),
            mtime_ns: None,
            supersedes: None,
        };
        match swapped {
            Swapped::Clean => self.remember(path, updated),
            Swapped::Merged { before, after } => {
                self.journal.supersede_last(
                    correction(
                        Some(fingerprint(&after)),
                        "kept what another program appended meanwhile",
                    ),
                    Some(&before),
                    true,
                )?;
                self.remember(path, &after);
            }
            Swapped::Withdrawn { now, why: reason } => {
                self.journal.supersede_last(
                    correction(None, &format!("withdrawn: {reason}")),
                    None,
                    false,
                )?;
                self.remember(path, &now);
                return Err(GateError::Busy {
                    path: path.to_string(),
                    detail: reason,
                });
            }
        }
        Ok(())
    }

    pub fn exists(&self, path: &str) -> bool {
        let Ok(path) = jail(path) else { return false };
        match self.overlay.get(&path) {
            Some(entry) => entry.is_some(),
            // symlink_metadata: a dangling symlink still takes the name
            None => {
                std::fs::symlink_metadata(self.vault.root.join(&path)).is_ok()
                    || self.vault.files.id_of(&path).is_some()
            }
        }
    }

    /// Whether a folder exists (on disk, or created by this gate in a dry run).
    pub(crate) fn dir_exists(&self, dir: &str) -> bool {
        let Ok(dir) = jail(dir) else { return false };
        self.vault.root.join(&dir).is_dir() || self.overlay.contains_key(&format!("{dir}/"))
    }

    /// Immediate sub-folders of a folder ("" for the vault root), hidden ones left out.
    pub fn subdirs(&self, dir: &str) -> Vec<String> {
        let mut out = std::collections::BTreeSet::new();
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        if let Ok(rd) = std::fs::read_dir(self.vault.root.join(dir)) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.starts_with('.') && e.file_type().is_ok_and(|t| t.is_dir()) {
                    out.insert(format!("{prefix}{name}"));
                }
            }
        }
        let mut from_paths = |p: &str| {
            if let Some(rest) = p.strip_prefix(&prefix)
                && let Some((first, _)) = rest.split_once('/')
                && !first.starts_with('.')
                && !first.is_empty()
            {
                out.insert(format!("{prefix}{first}"));
            }
        };
        for p in &self.vault.files.paths {
            from_paths(p);
        }
        for (k, v) in &self.overlay {
            if v.is_some() {
                from_paths(k);
            }
        }
        out.into_iter().collect()
    }

    /// Creates a folder (journaled); nothing happens when it exists.
    pub fn mkdir(&mut self, dir: &str) -> Result<(), GateError> {
        let dir = self.admit(dir)?;
        if self.dir_exists(&dir) {
            return Ok(());
        }
        self.ensure_parent(&format!("{dir}/x"))
    }

    /// Whether the gate would accept a change at `path` (jail, policy, symlinks), without
    /// changing anything.
    pub fn check(&self, path: &str) -> Result<String, GateError> {
        let path = self.admit(path)?;
        // a name crew would have to make is checked too, so a caller learns before its first
        // change that the last one would be refused
        if !self.exists(&path) {
            check_new_name(&path)?;
        }
        Ok(path)
    }

    /// Jail + policy + no symlink on the way.
    fn admit(&self, path: &str) -> Result<String, GateError> {
        let path = jail(path)?;
        self.policy.check(&path)?;
        self.no_symlink_on_the_way(path)
    }

    /// The jail for reads: the same paths as for writes, minus the policy (reading a post-it
    /// or the crew's files is fine; leaving the vault is not).
    fn admit_read(&self, path: &str) -> Result<String, GateError> {
        self.no_symlink_on_the_way(jail(path)?)
    }

    fn no_symlink_on_the_way(&self, path: String) -> Result<String, GateError> {
        let mut cur = self.vault.root.clone();
        for part in path.split('/') {
            cur.push(part);
            if let Ok(meta) = std::fs::symlink_metadata(&cur)
                && meta.file_type().is_symlink()
            {
                return Err(GateError::Jail {
                    path: path.clone(),
                    reason: "a symbolic link on the way could lead outside the vault".into(),
                });
            }
        }
        Ok(path)
    }

    /// A free variant of `path`: `Name.md`, then `Name 2.md`, `Name 3.md`, …
    pub(crate) fn free_name(&self, path: &str) -> String {
        if !self.exists(path) {
            return path.to_string();
        }
        let (stem, ext) = match path.rfind('.') {
            Some(dot) if dot > path.rfind('/').map_or(0, |s| s + 1) => (&path[..dot], &path[dot..]),
            _ => (path, ""),
        };
        (2..)
            .map(|n| format!("{stem} {n}{ext}"))
            .find(|p| !self.exists(p))
            .unwrap_or_else(|| path.to_string())
    }

    /// Creates the folders above `path` that are missing, journaling each level so an undo
    /// removes exactly the folders this run made.
    fn ensure_parent(&mut self, path: &str) -> Result<(), GateError> {
        let Some((dir, _)) = path.rsplit_once('/') else {
            return Ok(());
        };
        let parts: Vec<&str> = dir.split('/').collect();
        for depth in 1..=parts.len() {
            let level = parts[..depth].join("/");
            if self.vault.root.join(&level).is_dir()
                || self.overlay.contains_key(&format!("{level}/"))
            {
                continue;
            }
            check_new_name(&level)?;
            self.journal.record(
                Operation {
                    seq: 0,
                    op: OpKind::Mkdir,
                    path: level.clone(),
                    to: None,
                    backup: None,
                    after_hash: None,
                    note: None,
                    mtime_ns: None,
                    supersedes: None,
                },
                None,
            )?;
            if self.dry_run {
                self.overlay.insert(format!("{level}/"), Some(Vec::new()));
            } else {
                std::fs::create_dir(self.vault.root.join(&level))
                    .map_err(|e| GateError::io(&level, e))?;
            }
        }
        Ok(())
    }

    fn put(&mut self, path: &str, bytes: &[u8], no_clobber: bool) -> Result<(), GateError> {
        if !self.dry_run {
            atomic_write(&self.vault.root.join(path), bytes, no_clobber)
                .map_err(|e| GateError::io(path, e))?;
        }
        self.remember(path, bytes);
        Ok(())
    }

    /// The gate's picture of a file once it holds `bytes`.
    fn remember(&mut self, path: &str, bytes: &[u8]) {
        self.overlay.insert(path.to_string(), Some(bytes.to_vec()));
        if is_note_path(path) {
            self.vault.upsert_note(Note::parse(path.to_string(), bytes));
        } else {
            self.vault.add_attachment(path);
        }
    }

    /// Creates a new file; if the name is taken, a free variant is used. Returns the path used.
    pub fn create(&mut self, path: &str, bytes: &[u8]) -> Result<String, GateError> {
        let wanted = self.admit(path)?;
        let path = self.free_name(&wanted);
        let path = self.admit(&path)?;
        check_new_name(&path)?;
        self.ensure_parent(&path)?;
        self.journal.record(
            Operation::created(
                &path,
                bytes,
                (path != wanted).then(|| format!("{wanted} was taken")),
            ),
            None,
        )?;
        self.put(&path, bytes, true)?;
        Ok(path)
    }

    /// Writes a whole file, replacing it if it exists (the original is journaled first, and
    /// replaced only while it still holds what crew read).
    pub fn write(&mut self, path: &str, bytes: &[u8]) -> Result<(), GateError> {
        let path = self.admit(path)?;
        let original = match self.read_for_change(&path) {
            Ok(found) => Some(found),
            Err(GateError::NotFound { .. }) => None,
            // a FIFO, a device or a file too big to keep a backup of is not replaced
            Err(e) => return Err(e),
        };
        match original {
            Some((old, _)) if old == bytes => Ok(()),
            Some((old, seen)) => {
                self.fire(HookPoint::EditPlanned, &path);
                self.replace_checked(&path, &old, &seen, bytes, None)
            }
            None => {
                check_new_name(&path)?;
                self.ensure_parent(&path)?;
                self.fire(HookPoint::EditPlanned, &path);
                self.journal
                    .record(Operation::created(&path, bytes, None), None)?;
                // no_clobber: a file that appeared since crew looked is not replaced
                self.put(&path, bytes, true)
            }
        }
    }

    /// Changes an existing note's text with `change`; nothing is written when the text is equal.
    ///
    /// `change` gets the file's current text, and the result is written only while the file
    /// still holds that text (compare-and-swap). A closure must therefore work on the text it
    /// is given, never on byte offsets computed from an earlier read of the vault.
    pub fn edit(
        &mut self,
        path: &str,
        why: &str,
        change: impl FnOnce(&str) -> String,
    ) -> Result<bool, GateError> {
        let path = self.admit(path)?;
        let (original, seen) = self.read_for_change(&path)?;
        let Ok(text) = std::str::from_utf8(&original) else {
            return Err(GateError::Protected {
                path,
                reason: "the file is not valid UTF-8; crew does not edit it so no byte is lost"
                    .into(),
            });
        };
        // What crew read is the vault it loaded: a note that changed since then is not edited
        // from a plan made on the old text (a caller may hold offsets into it). The vault's
        // picture is refreshed, so asking again works on what the note holds now.
        if self.refresh_if_changed(&path, &original) {
            return Err(GateError::Changed {
                path,
                detail: "it differs from the text crew read when it started".into(),
            });
        }
        let updated = change(text);
        if updated.as_bytes() == original.as_slice() {
            return Ok(false);
        }
        self.fire(HookPoint::EditPlanned, &path);
        match self.replace_checked(&path, &original, &seen, updated.as_bytes(), Some(why)) {
            Err(e @ GateError::Changed { .. }) => {
                // re-read, so a second attempt plans from the current text
                if let Ok((now, _)) = self.read_for_change(&path) {
                    self.refresh_if_changed(&path, &now);
                }
                Err(e)
            }
            other => other.map(|()| true),
        }
    }

    /// Appends text to a file, creating it when absent.
    pub fn append(&mut self, path: &str, text: &str) -> Result<(), GateError> {
        let path = self.admit(path)?;
        match self.read_for_change(&path) {
            Ok(_) => {
                self.edit(&path, "append", |old| {
                    let mut s = old.to_string();
                    if !s.is_empty() && !s.ends_with('\n') {
                        s.push('\n');
                    }
                    s.push_str(text);
                    s
                })?;
                Ok(())
            }
            Err(GateError::NotFound { .. }) => self.write(&path, text.as_bytes()),
            Err(e) => Err(e),
        }
    }

    /// Sets or removes frontmatter keys, changing no other byte.
    pub fn set_frontmatter(
        &mut self,
        path: &str,
        changes: &[(&str, Option<String>)],
    ) -> Result<bool, GateError> {
        let why = changes
            .iter()
            .map(|(k, _)| *k)
            .collect::<Vec<_>>()
            .join(", ");
        self.edit(path, &format!("frontmatter: {why}"), |t| {
            edit::set_frontmatter_keys(t, changes)
        })
    }

    /// A point to roll back to (see [`Gate::rollback_to`]).
    pub fn mark(&self) -> usize {
        self.journal.entries.len()
    }

    /// Reverses the operations made since `mark`, newest first, and says what became of them.
    /// Each step is itself a compare-and-swap: a file is put back only while it still holds
    /// what the gate wrote. The journal file keeps the reversed entries; `crew undo` sees them
    /// as never applied (the files hold their "before" bytes again).
    pub fn rollback_to(&mut self, mark: usize) -> Rollback {
        let mut rollback = Rollback::default();
        while self.journal.entries.len() > mark {
            let Some((op, original)) = self.journal.pop() else {
                break;
            };
            match self.reverse(&op, original) {
                Ok(()) => rollback.undone += 1,
                Err(why) => rollback.not_undone.push(format!("{} ({why})", op.path)),
            }
        }
        rollback
    }

    fn reverse(&mut self, op: &Operation, original: Option<Vec<u8>>) -> Result<(), String> {
        match op.op {
            OpKind::Edit | OpKind::Write => {
                let bytes = original.ok_or("no original bytes were kept")?;
                let mut bytes = bytes;
                if !self.dry_run {
                    let full = self.vault.root.join(&op.path);
                    let changed = || "it changed after crew wrote it; left as it is".to_string();
                    let (now, seen) = match read_regular(&full, READ_CAP) {
                        Ok((now, seen))
                            if op.after_hash.as_deref() == Some(&format!("{:016x}", seen.hash)) =>
                        {
                            (now, seen)
                        }
                        _ => return Err(changed()),
                    };
                    // the rollback replaces the file too: a program writing into it meanwhile
                    // keeps its bytes (appended after the restored ones) or the rollback stops
                    let held = Held::open(&full, &op.path, &seen).map_err(|e| e.to_string())?;
                    match held.swap(&now, &bytes, &mut |_| {}) {
                        Ok(Swapped::Clean) => {
                            if let Some(ns) = op.mtime_ns {
                                // the time is cosmetic: the bytes are back either way
                                let _ = set_mtime(&full, ns);
                            }
                        }
                        Ok(Swapped::Merged { after, .. }) => bytes = after,
                        Ok(Swapped::Withdrawn { why, .. }) => return Err(why),
                        Err(e) => return Err(e.to_string()),
                    }
                }
                if is_note_path(&op.path) {
                    self.vault.upsert_note(Note::parse(op.path.clone(), &bytes));
                }
                self.overlay.insert(op.path.clone(), Some(bytes));
                Ok(())
            }
            // moves never create files; a created file is not deleted ("nothing is deleted")
            OpKind::Create => Err("a file crew created is left in place".into()),
            OpKind::Mkdir => {
                if !self.dry_run {
                    match std::fs::remove_dir(self.vault.root.join(&op.path)) {
                        Ok(()) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                        Err(e) => return Err(e.to_string()),
                    }
                }
                self.overlay.remove(&format!("{}/", op.path));
                Ok(())
            }
            OpKind::Move => {
                let to = op.to.clone().ok_or("a move without a destination")?;
                if !self.dry_run {
                    move_no_clobber(&self.vault.root.join(&to), &self.vault.root.join(&op.path))
                        .map_err(|e| e.to_string())?;
                }
                match self.overlay.remove(&to).flatten() {
                    Some(b) => self.overlay.insert(op.path.clone(), Some(b)),
                    None => self.overlay.remove(&op.path),
                };
                self.vault.rename_file(&to, &op.path);
                Ok(())
            }
        }
    }
}

impl crate::fault::HasFault for GateError {
    fn fault(&self) -> crate::fault::Fault {
        match self {
            GateError::Io { .. }
            | GateError::Changed { .. }
            | GateError::Busy { .. }
            | GateError::MoveFailed { .. } => crate::fault::Fault::Run,
            _ => crate::fault::Fault::Input,
        }
    }
}

#[cfg(test)]
mod tests;
