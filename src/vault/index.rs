//! The persistent index: every parsed note, kept in `.crew/index.bin` and reused while the file's
//! size and modification time are unchanged, so commands on a large vault do not re-read it.
//!
//! It is never trusted blindly: a missing, corrupt or older-format index is rebuilt; an entry is
//! reused only when size, nanosecond mtime and (on Unix) the inode change time all match *and*
//! the file last changed at least two seconds before the index was written (a file changed in
//! the same instant the index was taken — or on a file system with coarse timestamps — is read
//! again). The change time catches tools that restore an old mtime after rewriting a file.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::note::Note;

/// Bump when the layout of [`Note`] or of this file changes: an older index is then rebuilt.
pub const FORMAT: u32 = 2;
/// How close to the index's own time a modification must be to be distrusted.
const RACY_NS: i128 = 2_000_000_000;

#[derive(Deserialize)]
struct IndexFile {
    format: u32,
    crew_version: String,
    written_ns: i128,
    entries: Vec<Entry>,
}

/// The same layout as [`IndexFile`], borrowing the notes so saving copies nothing.
#[derive(Serialize)]
struct IndexFileRef<'a> {
    format: u32,
    crew_version: &'a str,
    written_ns: i128,
    entries: Vec<EntryRef<'a>>,
}

#[derive(Serialize)]
pub struct EntryRef<'a> {
    pub path: &'a str,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub note: &'a Note,
}

#[derive(Serialize, Deserialize, Clone)]
pub struct Entry {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub note: Note,
}

/// A loaded index: entries by path, and when it was written.
pub struct Index {
    written_ns: i128,
    entries: HashMap<String, Entry>,
}

impl Index {
    /// Reads the index; `None` when absent, unreadable, corrupt or of another format.
    pub fn load(path: &Path) -> Option<Index> {
        let bytes = std::fs::read(path).ok()?;
        let file: IndexFile = match postcard::from_bytes(&bytes) {
            Ok(f) => f,
            Err(e) => {
                tracing::info!("rebuilding the index: {e}");
                return None;
            }
        };
        if file.format != FORMAT || file.crew_version != env!("CARGO_PKG_VERSION") {
            return None;
        }
        Some(Index {
            written_ns: file.written_ns,
            entries: file
                .entries
                .into_iter()
                .map(|e| (e.path.clone(), e))
                .collect(),
        })
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Takes the cached note for a file out of the index, if it can be trusted.
    pub fn take(&mut self, path: &str, size: u64, mtime_ns: i128, ctime_ns: i128) -> Option<Note> {
        self.get(path, size, mtime_ns, ctime_ns)?;
        self.entries.remove(path).map(|e| e.note)
    }

    /// The cached note for a file, if it can be trusted.
    pub fn get(&self, path: &str, size: u64, mtime_ns: i128, ctime_ns: i128) -> Option<&Note> {
        let e = self.entries.get(path)?;
        let last_change = mtime_ns.max(ctime_ns);
        (e.size == size
            && e.mtime_ns == mtime_ns
            && e.ctime_ns == ctime_ns
            && last_change + RACY_NS < self.written_ns)
            .then_some(&e.note)
    }
}

/// Writes the index atomically (without fsync: it is a cache, and a torn index is detected and
/// rebuilt). Failing to write it never fails a command.
pub fn save(path: &Path, entries: Vec<EntryRef<'_>>) {
    let file = IndexFileRef {
        format: FORMAT,
        crew_version: env!("CARGO_PKG_VERSION"),
        written_ns: now_ns(),
        entries,
    };
    match postcard::to_allocvec(&file) {
        Ok(bytes) => {
            if let Err(e) = write_unsynced(path, &bytes) {
                tracing::info!("could not write the index {}: {e}", path.display());
            }
        }
        Err(e) => tracing::info!("could not encode the index: {e}"),
    }
}

pub fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// The inode change time in nanoseconds (0 where the platform has none).
pub fn ctime_ns(meta: &std::fs::Metadata) -> i128 {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}

pub fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

fn write_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".crew-tmp-")
        .suffix(".part")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
