//! File operations that never leave a half-written note: atomic writes, no-clobber moves,
//! modification times put back.

use std::io::Write as _;
use std::path::Path;

/// Whether a file's permission bits forbid writing (`chmod 444`): crew leaves such notes alone,
/// even when it runs as a user the permissions do not stop.
pub(crate) fn is_read_only(full: &Path) -> bool {
    std::fs::symlink_metadata(full).is_ok_and(|m| m.is_file() && m.permissions().readonly())
}

/// Sets a file's modification time (ns since the epoch): undo and rollbacks put back the time
/// a restored note had, so "recently modified" views are not disturbed.
pub fn set_mtime(path: &Path, ns: i64) -> std::io::Result<()> {
    let Ok(ns) = u64::try_from(ns) else {
        return Ok(());
    };
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns);
    std::fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(time)
}

/// Writes `bytes` to `path` through a hidden temporary file in the same folder and a rename.
/// With `no_clobber`, fails instead of replacing an existing file.
pub fn atomic_write(path: &Path, bytes: &[u8], no_clobber: bool) -> std::io::Result<()> {
    atomic_write_stat(path, bytes, no_clobber).map(|_| ())
}

/// [`atomic_write`], returning what the new file is (its inode and time), so a later check
/// can tell it is still crew's copy at that name.
pub(crate) fn atomic_write_stat(
    path: &Path,
    bytes: &[u8],
    no_clobber: bool,
) -> std::io::Result<std::fs::Metadata> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut builder = tempfile::Builder::new();
    builder.prefix(".crew-tmp-").suffix(".part");
    #[cfg(unix)]
    {
        // 0666 through the umask, as any editor creates a file (tempfile's default is 0600)
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        // keep the note's permissions when replacing it
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    let written = tmp.as_file().metadata()?;
    if no_clobber {
        tmp.persist_noclobber(path).map_err(|e| e.error)?;
    } else {
        tmp.persist(path).map_err(|e| e.error)?;
    }
    Ok(written)
}

/// Moves a file without ever replacing an existing one, atomically: the note has exactly one
/// name at every instant (on Linux `renameat2` with `RENAME_NOREPLACE`; elsewhere a checked
/// rename, which the vault lock protects from other crew writers).
pub(crate) fn move_no_clobber(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in path"))
        };
        let (f, t) = (c(from)?, c(to)?);
        // SAFETY: both arguments are valid NUL-terminated paths that live across the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                f.as_ptr(),
                libc::AT_FDCWD,
                t.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        // file systems without RENAME_NOREPLACE support answer EINVAL: fall back below
        if err.raw_os_error() != Some(libc::EINVAL) {
            return Err(err);
        }
    }
    if to.exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "destination exists",
        ));
    }
    std::fs::rename(from, to)
}
