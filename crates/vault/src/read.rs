//! Jailed reads of one file: never through a final symlink, never blocking on a FIFO, only
//! regular files, and never more than a cap. Writers use what was seen ([`Seen`]) as the
//! "compare" half of a compare-and-swap.

use std::path::Path;

use crate::hash::{FNV_OFFSET, fnv1a};

/// The most read of one file for link rewrites and frontmatter edits.
pub const READ_CAP: u64 = 256 << 20;
/// What crew saw of a file when it read it: the "compare" half of every compare-and-swap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    pub len: u64,
    pub mtime_ns: i128,
    pub hash: u64,
}

/// Why a jailed read failed.
pub enum ReadFail {
    Missing,
    Refused(String),
    Io(std::io::Error),
}

/// Opens `full` for reading without following a final symlink and without blocking (a FIFO
/// would otherwise hang the opener while it holds the vault lock), checks with `fstat` that it
/// is a regular file of at most `cap` bytes, and reads it.
pub fn read_regular(full: &Path, cap: u64) -> Result<(Vec<u8>, Seen), ReadFail> {
    use std::io::Read as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    let file = match opts.open(full) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(ReadFail::Missing),
        #[cfg(unix)]
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(ReadFail::Refused(
                "it is a symbolic link, which could lead outside the vault".into(),
            ));
        }
        Err(e) => return Err(ReadFail::Io(e)),
    };
    let meta = file.metadata().map_err(ReadFail::Io)?;
    if !meta.file_type().is_file() {
        let kind = if meta.is_dir() {
            "a folder"
        } else {
            "not a regular file (a FIFO, socket or device)"
        };
        return Err(ReadFail::Refused(format!("it is {kind}")));
    }
    if meta.len() > cap {
        return Err(ReadFail::Refused(format!(
            "it holds {} bytes, more than the {cap} crew reads of one file",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // `take`: a file growing while it is read still stops at the cap
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadFail::Io)?;
    if bytes.len() as u64 > cap {
        return Err(ReadFail::Refused(format!(
            "it grew past the {cap} bytes crew reads of one file"
        )));
    }
    let seen = Seen {
        len: bytes.len() as u64,
        mtime_ns: crate::index::mtime_ns(&meta),
        hash: fnv1a(FNV_OFFSET, &bytes),
    };
    Ok((bytes, seen))
}

/// A regular file's bytes, read without following a final symlink and without blocking on a
/// FIFO (for readers outside the gate, such as undo, that must not hang holding the lock).
pub fn read_regular_file(full: &Path) -> std::io::Result<Vec<u8>> {
    read_regular(full, READ_CAP)
        .map(|(bytes, _)| bytes)
        .map_err(|e| match e {
            ReadFail::Missing => std::io::Error::from(std::io::ErrorKind::NotFound),
            ReadFail::Refused(reason) => {
                std::io::Error::new(std::io::ErrorKind::InvalidInput, reason)
            }
            ReadFail::Io(e) => e,
        })
}
