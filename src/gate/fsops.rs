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
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in path"))
        };
        // The paths go to rustix as C strings made here: rustix would answer a NUL in a path
        // with EINVAL, which must not pass for a file system that lacks RENAME_NOREPLACE.
        let (f, t) = (c(from)?, c(to)?);
        match renameat_with(CWD, f.as_c_str(), CWD, t.as_c_str(), RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            // file systems without RENAME_NOREPLACE support answer EINVAL: fall back below
            Err(rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(e.into()),
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

#[cfg(test)]
mod tests {
    use super::move_no_clobber;

    #[test]
    fn a_move_never_replaces_a_note_and_refuses_a_nul_in_a_path() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (a, b, c) = (
            dir.path().join("a.md"),
            dir.path().join("b.md"),
            dir.path().join("sub/c.md"),
        );
        std::fs::write(&a, "a").expect("write a");
        std::fs::write(&b, "b").expect("write b");

        let err = move_no_clobber(&a, &b).expect_err("b exists");
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists, "{err}");
        assert_eq!(std::fs::read_to_string(&a).expect("a kept"), "a");
        assert_eq!(std::fs::read_to_string(&b).expect("b kept"), "b");

        move_no_clobber(&a, &c).expect("move to a free name, making its folder");
        assert!(!a.exists());
        assert_eq!(std::fs::read_to_string(&c).expect("c"), "a");

        let nul = dir.path().join("n\0.md");
        let err = move_no_clobber(&c, &nul).expect_err("NUL in the path");
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{err}");
        assert!(c.exists());
    }
}
