//! The persistent index: every parsed note, kept in a file the caller names (crew uses
//! `.crew/index.bin`) and reused while the note's size and modification time are unchanged, so
//! commands on a large vault do not read it all again.
//!
//! It is never trusted blindly: a missing, corrupt or older-format index is rebuilt; an entry is
//! reused only when size, nanosecond mtime and (on Unix) the inode change time all match *and*
//! the file last changed at least two seconds before the index was written (a file changed in
//! the same instant the index was taken — or on a file system with coarse timestamps — is read
//! again). The change time catches tools that restore an old mtime after rewriting a file.

use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::note::Note;
use super::resolve::Resolution;

/// Bump when the layout of [`Note`] or of this file changes, or when the rules that fill a
/// `Note` change (7: container-aware code masking, `[[]]` is text): an older index is then
/// rebuilt instead of answering with links read by the old rules; 8: the filing classifier's
/// store next to it, [`crate::feature_store`]; 10: a tab before a quote's `>` indents what
/// follows the marker, as in pulldown-cmark; 11: the entries' stamps in a section of their own
/// before the chunks, so whether anything changed is known without decoding a note).
pub(crate) const FORMAT: u32 = 11;
/// How close to the index's own time a modification must be to be distrusted.
pub(crate) const RACY_NS: i128 = 2_000_000_000;
/// Notes per independently encoded chunk: chunks are encoded and decoded in parallel.
const CHUNK: usize = 2048;

/// The start of the file; the stamps section (every entry's [`Stamp`], in path order) and then
/// the chunks' bytes follow it, in order.
#[derive(Serialize, Deserialize)]
struct Head {
    format: u32,
    crew_version: String,
    written_ns: i128,
    listing_hash: u64,
    stamps_len: u64,
    stamps_sum: u64,
    chunk_lens: Vec<u64>,
    /// A checksum of each chunk: a flipped bit would otherwise decode into a plausible but
    /// wrong note that the stamps then vouch for.
    chunk_sums: Vec<u64>,
    /// A checksum of everything above, so a damaged head is not trusted either.
    head_sum: u64,
}

pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    h.write(bytes);
    h.write_usize(bytes.len());
    h.finish()
}

impl Head {
    fn sum(&self) -> u64 {
        let mut text = format!(
            "{}|{}|{}|{}|{}:{}",
            self.format,
            self.crew_version,
            self.written_ns,
            self.listing_hash,
            self.stamps_len,
            self.stamps_sum
        );
        for (len, sum) in self.chunk_lens.iter().zip(&self.chunk_sums) {
            text.push_str(&format!("|{len}:{sum}"));
        }
        checksum(text.as_bytes())
    }
}

#[derive(Serialize)]
pub(crate) struct EntryRef<'a> {
    pub(crate) stamp: Stamp,
    pub(crate) note: &'a Note,
    pub(crate) resolved: &'a [Resolution],
}

#[derive(Serialize, Deserialize, Clone)]
pub(crate) struct Entry {
    pub(crate) stamp: Stamp,
    pub(crate) note: Note,
    /// The note's links resolved against the files the index was written with.
    pub(crate) resolved: Vec<Resolution>,
}

/// What the index compares to decide whether a file changed.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    pub(crate) size: u64,
    pub(crate) mtime_ns: i128,
    pub(crate) ctime_ns: i128,
}

impl Stamp {
    /// Whether something written at `written_ns` can vouch for the file as it was at this
    /// stamp: it last changed well before (see the module comment).
    pub(crate) fn settled_before(&self, written_ns: i128) -> bool {
        self.mtime_ns.max(self.ctime_ns) + RACY_NS < written_ns
    }

    pub(crate) fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp {
            size: meta.len(),
            mtime_ns: mtime_ns(meta),
            ctime_ns: ctime_ns(meta),
        }
    }
}

/// Where a vault's notes came from: the index file it was opened with and each note's stamp
/// when read (`None` once the note changed in memory), for caches kept next to the index.
#[derive(Debug, Clone, Default)]
pub(crate) struct Origin {
    pub(crate) index: Option<std::path::PathBuf>,
    pub(crate) stamps: Vec<Option<Stamp>>,
    /// The id of that index while it describes every note as held in memory.
    pub(crate) current: Option<IndexId>,
}

impl Origin {
    /// The stamp of note `n` as read, if it has not changed in memory since.
    pub(crate) fn stamp(&self, n: usize) -> Option<Stamp> {
        self.stamps.get(n).copied().flatten()
    }

    /// Note `n` changed in memory: nothing on disk describes it any more.
    pub(crate) fn forget(&mut self, n: usize) {
        if let Some(s) = self.stamps.get_mut(n) {
            *s = None;
        }
        self.current = None;
    }
}

/// A loaded index: entries in path order (in the chunks they were decoded from), and when it
/// was written.
pub(crate) struct Index {
    id: IndexId,
    written_ns: i128,
    listing_hash: u64,
    chunks: Vec<Vec<Entry>>,
    /// What a rewrite can copy from this file instead of encoding again.
    reuse: Option<Reuse>,
}

/// Where each chunk of a loaded index lies in its file (offset, length, checksum): a rewrite
/// copies the bytes of every chunk none of whose notes changed (re-reading them and checking
/// their checksum), so after a few edits the index is brought up to date for the cost of the
/// changed chunks, not of encoding every note.
pub(crate) struct Reuse {
    path: std::path::PathBuf,
    spans: Vec<(u64, u64, u64)>,
}

impl Reuse {
    /// The stored bytes of chunk `i` of a rewrite whose entries are the loaded ones, one for
    /// one (`from_index[n]`: entry `n` was taken from the index unchanged), when none of that
    /// chunk's entries changed and the file still holds them.
    fn chunk(&self, file: &std::fs::File, i: usize, from_index: &[bool]) -> Option<Vec<u8>> {
        let &(offset, len, sum) = self.spans.get(i)?;
        let entries = from_index.get(i * CHUNK..((i + 1) * CHUNK).min(from_index.len()))?;
        if !entries.iter().all(|&kept| kept) {
            return None;
        }
        let bytes = read_at(file, offset, len).ok()?;
        (checksum(&bytes) == sum).then_some(bytes)
    }
}

impl Index {
    /// Reads the index; `None` when absent, unreadable, corrupt or of another format.
    ///
    /// Chunks are read and decoded in parallel, each with its own small buffer, so the file's
    /// bytes are never all in memory next to the decoded notes.
    pub(crate) fn load(path: &Path) -> Option<Index> {
        let (file, head, head_len) = open_checked(path)?;
        let mut spans: Vec<(u64, u64, u64)> = Vec::with_capacity(head.chunk_lens.len());
        let mut offset = head_len + head.stamps_len;
        for (&len, &sum) in head.chunk_lens.iter().zip(&head.chunk_sums) {
            spans.push((offset, len, sum));
            offset += len;
        }
        let decoded: Result<Vec<Vec<Entry>>, String> = spans
            .par_iter()
            .map(|&(offset, len, sum)| {
                let bytes = read_at(&file, offset, len).map_err(|e| e.to_string())?;
                if checksum(&bytes) != sum {
                    return Err(format!("a chunk at byte {offset} is damaged"));
                }
                postcard::from_bytes::<Vec<Entry>>(&bytes).map_err(|e| e.to_string())
            })
            .collect();
        let mut chunks = match decoded {
            Ok(chunks) => chunks,
            Err(e) => {
                tracing::info!("rebuilding the index: {e}");
                return None;
            }
        };
        // chunks as crew writes them (CHUNK entries each but the last) can be copied by a rewrite
        let full_chunks = chunks.len().saturating_sub(1);
        let mut reuse = chunks[..full_chunks]
            .iter()
            .all(|c| c.len() == CHUNK)
            .then(|| Reuse {
                path: path.to_path_buf(),
                spans,
            });
        // crew writes entries in path order; anything else is put in order, not trusted as is
        if !chunks
            .iter()
            .flatten()
            .is_sorted_by(|a, b| a.note.path < b.note.path)
        {
            let mut entries: Vec<Entry> = chunks.into_iter().flatten().collect();
            entries.sort_by(|a, b| a.note.path.cmp(&b.note.path));
            entries.dedup_by(|a, b| a.note.path == b.note.path);
            chunks = vec![entries];
            reuse = None;
        }
        Some(Index {
            reuse,
            id: head.head_sum,
            written_ns: head.written_ns,
            listing_hash: head.listing_hash,
            chunks,
        })
    }

    /// The [`listing_hash`] of the files the index was written with.
    pub(crate) fn listing_hash(&self) -> u64 {
        self.listing_hash
    }

    pub(crate) fn id(&self) -> IndexId {
        self.id
    }

    /// What a rewrite may copy from this index's file (see [`Reuse`]).
    pub(crate) fn take_reuse(&mut self) -> Option<Reuse> {
        self.reuse.take()
    }

    pub(crate) fn len(&self) -> usize {
        self.chunks.iter().map(Vec::len).sum()
    }

    /// For each of the vault's notes (sorted paths, with their current stamps), the cached
    /// note and its links' resolutions when the entry can be trusted.
    pub(crate) fn take_trusted(
        self,
        paths: &[&String],
        stamps: &[Option<Stamp>],
    ) -> (Vec<Option<Note>>, Vec<Option<Vec<Resolution>>>) {
        let written_ns = self.written_ns;
        let mut entries = self.chunks.into_iter().flatten().peekable();
        let mut notes = Vec::with_capacity(paths.len());
        let mut resolved = Vec::with_capacity(paths.len());
        for (path, stamp) in paths.iter().zip(stamps) {
            while entries
                .peek()
                .is_some_and(|e| e.note.path.as_str() < path.as_str())
            {
                entries.next();
            }
            let trusted = entries
                .next_if(|e| e.note.path == **path)
                .zip(stamp.as_ref())
                .filter(|(e, stamp)| e.stamp == **stamp && stamp.settled_before(written_ns));
            match trusted {
                Some((e, _)) => {
                    notes.push(Some(e.note));
                    resolved.push(Some(e.resolved));
                }
                None => {
                    notes.push(None);
                    resolved.push(None);
                }
            }
        }
        (notes, resolved)
    }
}

/// The index file opened, its head read and checked: this format and crew version, the head's
/// own checksum, and the file as long as the head says.
fn open_checked(path: &Path) -> Option<(std::fs::File, Head, u64)> {
    let file = std::fs::File::open(path).ok()?;
    let file_len = file.metadata().ok()?.len();
    let (head, head_len) = read_head(&file, file_len)?;
    if head.format != FORMAT || head.crew_version != env!("CARGO_PKG_VERSION") {
        return None;
    }
    if head.head_sum != head.sum() || head.chunk_sums.len() != head.chunk_lens.len() {
        tracing::info!("rebuilding the index: its head is damaged");
        return None;
    }
    let body = head
        .chunk_lens
        .iter()
        .try_fold(head.stamps_len, |sum, &len| sum.checked_add(len));
    if body.and_then(|b| b.checked_add(head_len)) != Some(file_len) {
        tracing::info!("rebuilding the index: it is not as long as its head says");
        return None;
    }
    Some((file, head, head_len))
}

/// What identifies one written index: its head's checksum (it covers the time it was written
/// and every chunk's checksum). Results derived from a vault are kept with this id, and trusted
/// only while the index is the same and still describes the vault ([`current`]).
pub type IndexId = u64;

/// The id of the index at `path` when it describes the vault exactly as it is now: written for
/// the same files (`listing_hash`), with one entry for each note, each with the stamp the walk
/// just took (`note_stamps`, the vault's notes in path order) and settled before the index was
/// written. Only the head and the stamps section are read, no note is decoded.
pub(crate) fn current(
    path: &Path,
    listing_hash: u64,
    note_stamps: &[Option<Stamp>],
) -> Option<IndexId> {
    let (file, head, head_len) = open_checked(path)?;
    if head.listing_hash != listing_hash {
        return None;
    }
    let bytes = read_at(&file, head_len, head.stamps_len).ok()?;
    if checksum(&bytes) != head.stamps_sum {
        return None;
    }
    let stamps: Vec<Stamp> = postcard::from_bytes(&bytes).ok()?;
    let same = stamps.len() == note_stamps.len()
        && stamps.iter().zip(note_stamps).all(|(kept, now)| {
            now.as_ref()
                .is_some_and(|now| now == kept && now.settled_before(head.written_ns))
        });
    same.then_some(head.head_sum)
}

/// The head and its length in bytes (it is small: one length per chunk).
fn read_head(file: &std::fs::File, file_len: u64) -> Option<(Head, u64)> {
    let mut want = file_len.min(64 * 1024);
    loop {
        let bytes = read_at(file, 0, want).ok()?;
        match postcard::take_from_bytes::<Head>(&bytes) {
            Ok((head, rest)) => return Some((head, (bytes.len() - rest.len()) as u64)),
            Err(postcard::Error::DeserializeUnexpectedEnd) if want < file_len => {
                want = file_len.min(want * 4);
            }
            Err(e) => {
                tracing::info!("rebuilding the index: {e}");
                return None;
            }
        }
    }
}

fn read_at(file: &std::fs::File, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
    let mut buf = vec![0; usize::try_from(len).map_err(std::io::Error::other)?];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt as _;
        file.read_exact_at(&mut buf, offset)?;
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt as _;
        let mut filled = 0;
        while filled < buf.len() {
            match file.seek_read(&mut buf[filled..], offset + filled as u64)? {
                0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                n => filled += n,
            }
        }
    }
    Ok(buf)
}

/// Writes the index atomically (without fsync: it is a cache, and a torn index is detected and
/// rebuilt), and returns its id. Failing to write it never fails a command. `entries` must be
/// in path order. With `reuse`, the entries are the loaded index's one for one, and
/// `from_index[n]` says entry `n` was taken from it unchanged: the chunks holding only such
/// entries are copied from the old file, not encoded again.
pub(crate) fn save(
    path: &Path,
    listing_hash: u64,
    entries: &[EntryRef<'_>],
    reuse: Option<(&Reuse, &[bool])>,
) -> Option<IndexId> {
    let old = reuse.and_then(|(r, kept)| {
        let file = std::fs::File::open(&r.path).ok()?;
        (kept.len() == entries.len()).then_some((r, kept, file))
    });
    let chunks: Result<Vec<Vec<u8>>, _> = entries
        .par_chunks(CHUNK)
        .enumerate()
        .map(|(i, chunk)| {
            match old
                .as_ref()
                .and_then(|(r, kept, file)| r.chunk(file, i, kept))
            {
                Some(bytes) => Ok(bytes),
                None => postcard::to_allocvec(chunk),
            }
        })
        .collect();
    let stamps: Vec<Stamp> = entries.iter().map(|e| e.stamp).collect();
    let (chunks, stamps) = match (chunks, postcard::to_allocvec(&stamps)) {
        (Ok(c), Ok(s)) => (c, s),
        (Err(e), _) | (_, Err(e)) => {
            tracing::info!("could not encode the index: {e}");
            return None;
        }
    };
    let mut head = Head {
        format: FORMAT,
        crew_version: env!("CARGO_PKG_VERSION").to_string(),
        written_ns: now_ns(),
        listing_hash,
        stamps_len: stamps.len() as u64,
        stamps_sum: checksum(&stamps),
        chunk_lens: chunks.iter().map(|c| c.len() as u64).collect(),
        chunk_sums: chunks.par_iter().map(|c| checksum(c)).collect(),
        head_sum: 0,
    };
    head.head_sum = head.sum();
    let bytes = match postcard::to_allocvec(&head) {
        Ok(b) => b,
        Err(e) => {
            tracing::info!("could not encode the index: {e}");
            return None;
        }
    };
    // written piece by piece: one buffer of the whole index would be megabytes more to copy
    // and to fault in, on the serial path of a cold read
    let mut parts: Vec<&[u8]> = vec![&bytes, &stamps];
    parts.extend(chunks.iter().map(Vec::as_slice));
    match write_parts_unsynced(path, &parts) {
        Ok(()) => Some(head.head_sum),
        Err(e) => {
            tracing::info!("could not write the index {}: {e}", path.display());
            None
        }
    }
}

/// A fingerprint of the vault's sorted file paths: link resolution depends on nothing else,
/// so stored resolutions hold while it is unchanged. (A different hash function in another
/// build only means the resolutions are computed again.)
pub(crate) fn listing_hash(sorted_paths: &[String]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    sorted_paths.hash(&mut h);
    h.finish()
}

pub(crate) fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// The inode change time in nanoseconds (0 where the platform has none).
pub(crate) fn ctime_ns(meta: &std::fs::Metadata) -> i128 {
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

pub(crate) fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

pub(crate) fn write_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_parts_unsynced(path, &[bytes])
}

/// [`write_unsynced`] of the concatenation of `parts`.
fn write_parts_unsynced(path: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    use std::io::Write as _;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new()
        .prefix(".crew-tmp-")
        .suffix(".part")
        .tempfile_in(dir)?;
    for part in parts {
        tmp.write_all(part)?;
    }
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}
