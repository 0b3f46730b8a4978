//! Careful reads of one file: never through a final symlink (it could lead out of the vault),
//! never blocking on a FIFO, only regular files, and never more than a cap. Keeping the path
//! itself inside the vault (no `..`, no symlinked folder on the way) is the caller's job.
//! Writers keep what was seen ([`Seen`]) as the "compare" half of a compare-and-swap.

use std::path::Path;

use crate::hash::{FNV_OFFSET, fnv1a};

/// The most read of one file (256 MiB): larger files are refused, not truncated.
pub const READ_CAP: u64 = 256 << 20;
/// What a reader saw of a file when it read it: the "compare" half of a compare-and-swap. A
/// writer that reads the file again before replacing it and finds a different `Seen` knows
/// someone else changed it meanwhile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seen {
    /// How many bytes were read.
    pub len: u64,
    /// The file's modification time, nanoseconds since the Unix epoch.
    pub mtime_ns: i128,
    /// The 64-bit FNV-1a of the bytes read ([`crate::hash::fnv1a`] from
    /// [`crate::hash::FNV_OFFSET`]).
    pub hash: u64,
}

/// Why a careful read failed.
#[derive(Debug)]
pub enum ReadFail {
    /// Nothing at that path.
    Missing,
    /// Something is there but is not read, and why, in words: a symlink, a folder, a FIFO,
    /// socket or device, or a file over the cap.
    Refused(String),
    /// Any other I/O error.
    Io(std::io::Error),
}

/// Opens `full` for reading without following a final symlink and without blocking (a FIFO
/// would otherwise hang the opener while it holds the vault lock), checks with `fstat` that it
/// is a regular file of at most `cap` bytes, and reads it.
pub fn read_regular(full: &Path, cap: u64) -> Result<(Vec<u8>, Seen), ReadFail> {
    open_regular(full, cap).map(|(_, bytes, seen)| (bytes, seen))
}

/// [`read_regular`], keeping the open file: a writer that replaces the file checks through
/// this handle afterwards whether another program wrote into the copy it replaced.
pub fn open_regular(full: &Path, cap: u64) -> Result<(std::fs::File, Vec<u8>, Seen), ReadFail> {
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
    (&file)
        .take(cap + 1)
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
    Ok((file, bytes, seen))
}

/// [`read_regular`] with [`READ_CAP`], for readers that only want the bytes: a missing file
/// becomes [`std::io::ErrorKind::NotFound`], a refused one
/// [`std::io::ErrorKind::InvalidInput`] with the reason.
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
