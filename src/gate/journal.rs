//! The run journal: every vault change recorded before it happens, with the bytes needed to
//! reverse it (`crew undo`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::vault::hash::fingerprint;

/// Kinds of operations, as they appear in journals, run logs and `--json` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Create,
    Write,
    Edit,
    Move,
    Mkdir,
}

/// One change to the vault, recorded before it happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    pub seq: usize,
    pub op: OpKind,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub to: Option<String>,
    /// File (in the journal folder) holding the bytes the path had before, for edits/writes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub backup: Option<String>,
    /// FNV-1a hash of the bytes after the operation, so undo can tell a later change.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub after_hash: Option<String>,
    /// Why (e.g. "link to moved note"), for the human reading a plan.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
    /// Modification time (ns since the epoch) of the bytes in `backup`, so undo puts it back.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mtime_ns: Option<i64>,
    /// The entry (its `seq`) this one stands for: what really ended in the file once another
    /// program's writes during the change were kept. With `after_hash`, undo restores this
    /// entry's backup instead of that entry's; without, the change was withdrawn and there is
    /// nothing to undo.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub supersedes: Option<usize>,
}

impl Operation {
    /// A file created with `bytes` (journaled before it exists; undo sets it aside).
    pub fn created(path: &str, bytes: &[u8], note: Option<String>) -> Operation {
        Operation {
            seq: 0,
            op: OpKind::Create,
            path: path.to_string(),
            to: None,
            backup: None,
            after_hash: Some(fingerprint(bytes)),
            note,
            mtime_ns: None,
            supersedes: None,
        }
    }
}
/// Writing the journal failed: the change it would have recorded is not made.
#[derive(Debug, thiserror::Error)]
#[error("could not write the journal at {path}: {source}")]
pub(crate) struct JournalError {
    pub path: String,
    #[source]
    pub source: std::io::Error,
}

impl JournalError {
    fn at(path: &str, source: std::io::Error) -> Self {
        JournalError {
            path: path.to_string(),
            source,
        }
    }
}

/// The journal of one run: entries appended to `journal.jsonl` before each change, backups of
/// original bytes beside it. `None` dir: kept in memory only (tests, dry runs).
#[derive(Debug, Default)]
pub struct Journal {
    dir: Option<PathBuf>,
    pub entries: Vec<Operation>,
    /// The original bytes of each entry (parallel to `entries`), so a failed move can be
    /// rolled back without reading the backups again.
    originals: Vec<Option<Vec<u8>>>,
    /// Sequence numbers only grow: a rolled-back entry stays in `journal.jsonl` (undo sees it
    /// as never applied), so its number and backup file must not be reused.
    last_seq: usize,
}

impl Journal {
    pub fn in_memory() -> Self {
        Journal::default()
    }

    pub fn at(dir: PathBuf) -> Self {
        Journal {
            dir: Some(dir),
            ..Journal::default()
        }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// Takes back the last entry (a change reversed or never made), with its original bytes.
    /// Its sequence number is not reused.
    pub fn pop(&mut self) -> Option<(Operation, Option<Vec<u8>>)> {
        let op = self.entries.pop()?;
        Some((op, self.originals.pop().flatten()))
    }

    pub(crate) fn record(
        &mut self,
        op: Operation,
        original: Option<&[u8]>,
    ) -> Result<(), JournalError> {
        let op = self.write_line(op, original)?;
        self.entries.push(op);
        self.originals.push(original.map(<[u8]>::to_vec));
        Ok(())
    }

    /// Records what really became of the last entry's change, written after the fact: another
    /// program wrote into the file while crew replaced it, and crew kept those bytes (`keep`:
    /// the change stands, with `original` as the bytes to restore) or withdrew its change
    /// (`!keep`: the entry leaves the in-memory journal, nothing is left to reverse).
    pub(crate) fn supersede_last(
        &mut self,
        mut op: Operation,
        original: Option<&[u8]>,
        keep: bool,
    ) -> Result<(), JournalError> {
        let Some(last) = self.entries.last() else {
            return Ok(());
        };
        op.supersedes = Some(last.seq);
        let op = self.write_line(op, original)?;
        self.pop();
        if keep {
            self.entries.push(op);
            self.originals.push(original.map(<[u8]>::to_vec));
        }
        Ok(())
    }

    /// Numbers an entry and appends it (and its backup) to the journal file, synced.
    fn write_line(
        &mut self,
        mut op: Operation,
        original: Option<&[u8]>,
    ) -> Result<Operation, JournalError> {
        self.last_seq += 1;
        op.seq = self.last_seq;
        if let Some(dir) = &self.dir {
            std::fs::create_dir_all(dir)
                .map_err(|e| JournalError::at(&dir.to_string_lossy(), e))?;
            if let Some(bytes) = original {
                let name = format!("{}.orig", op.seq);
                write_synced(&dir.join(&name), bytes).map_err(|e| JournalError::at(&name, e))?;
                op.backup = Some(name);
            }
            let line = serde_json::to_string(&op).unwrap_or_default();
            let path = dir.join("journal.jsonl");
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| JournalError::at(&path.to_string_lossy(), e))?;
            writeln!(f, "{line}")
                .and_then(|_| f.sync_data())
                .map_err(|e| JournalError::at(&path.to_string_lossy(), e))?;
        }
        Ok(op)
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}
