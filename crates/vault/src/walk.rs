//! The walk of a vault folder: every file's vault path and, when an index is to be checked,
//! each note's [`Stamp`], taken in the same pass.
//!
//! On Unix the folders are read through directory handles and each note is stat-ed by its
//! name relative to its folder's handle (`fstatat`), so the kernel looks up one name per note
//! instead of resolving the whole path again: after one changed note that lookup was most of
//! the time. Every note is still stat-ed: a folder's modification time does not change when a
//! note inside it is rewritten in place, so it cannot vouch for the notes. Elsewhere the walk
//! lists with `walkdir` and stats each note by its full path.
//!
//! Every folder is read as a task of its own (rayon), so the walk runs on every core whatever
//! the shape of the tree.
//!
//! Hidden entries (a name starting with `.`) are skipped, symbolic links are not followed, and
//! crew's temporary files (`.crew-tmp-*.part`) are reported apart.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::VaultError;
use crate::index::Stamp;
use crate::resolve::is_note_path;

/// What the walk found.
pub(crate) struct Walked {
    /// Every file's vault path (`/`-separated), sorted.
    pub(crate) paths: Vec<String>,
    /// Parallel to `paths`: the stamp of each note when stamps were asked for and the note
    /// could be stat-ed (`None` for attachments).
    pub(crate) stamps: Vec<Option<Stamp>>,
    /// crew's temporary files left by a killed writer.
    pub(crate) temps: Vec<PathBuf>,
}

/// The notes of a walk: their positions in the listing and their stamps, with the listing's
/// fingerprint — what an index is checked against.
pub(crate) struct Notes {
    pub(crate) ids: Vec<usize>,
    pub(crate) stamps: Vec<Option<Stamp>>,
    pub(crate) listing_hash: u64,
}

impl Walked {
    pub(crate) fn notes(&self) -> Notes {
        let ids: Vec<usize> = (0..self.paths.len())
            .filter(|&i| is_note_path(&self.paths[i]))
            .collect();
        Notes {
            stamps: ids.iter().map(|&i| self.stamps[i]).collect(),
            ids,
            listing_hash: crate::index::listing_hash(&self.paths),
        }
    }
}

impl Notes {
    /// Whether the index file at `index` is the one with id `id` and still describes these
    /// notes exactly (see [`crate::index::current`]); no note is decoded.
    pub(crate) fn described_by(&self, index: &Path, id: crate::IndexId) -> bool {
        index.is_file() && crate::index::current(index, self.listing_hash, &self.stamps) == Some(id)
    }
}

/// One folder's (or the root's) findings before they are merged and sorted.
#[derive(Default)]
struct Found {
    files: Vec<(String, Option<Stamp>)>,
    temps: Vec<PathBuf>,
}

impl Found {
    fn merge(mut self, other: Found) -> Found {
        self.files.extend(other.files);
        self.temps.extend(other.temps);
        self
    }
}

pub(crate) fn is_crew_temp(name: &str) -> bool {
    name.starts_with(".crew-tmp-") && name.ends_with(".part")
}

/// Walks the vault at `root`; with `stamp_notes`, every note is stat-ed on the way.
/// Top-level folders are walked in parallel. Only an unreadable root is an error; an
/// unreadable folder or entry inside is skipped with a warning.
pub(crate) fn walk(root: &Path, stamp_notes: bool) -> Result<Walked, VaultError> {
    let found = platform::walk(root, stamp_notes)?;
    let mut files = found.files;
    files.par_sort_unstable_by(|a, b| a.0.cmp(&b.0));
    let (paths, stamps) = files.into_iter().unzip();
    Ok(Walked {
        paths,
        stamps,
        temps: found.temps,
    })
}

#[cfg(unix)]
mod platform {
    use std::ffi::{CStr, OsStr};
    use std::os::fd::{AsFd, BorrowedFd};
    use std::os::unix::ffi::OsStrExt as _;
    use std::path::Path;

    use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

    use super::{Found, is_crew_temp, is_note_path};
    use crate::VaultError;
    use crate::index::Stamp;

    /// A folder still to read: its path from the root as bytes (what the kernel is given) and
    /// as the vault path prefix (`a/b/`, lossy only for names that are not UTF-8).
    struct Pending {
        raw: Vec<u8>,
        prefix: String,
    }

    pub(super) fn walk(root: &Path, stamp_notes: bool) -> Result<Found, VaultError> {
        let io_err = |source: std::io::Error| VaultError::Io {
            path: root.to_path_buf(),
            source,
        };
        // the root itself may be a symbolic link (it is what the user named): followed
        let root_fd = rustix::fs::open(
            root,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(|e| io_err(e.into()))?;
        let mut top = Found::default();
        let mut folders = Vec::new();
        let dir = Dir::read_from(&root_fd).map_err(|e| io_err(e.into()))?;
        read_folder(
            dir,
            root_fd.as_fd(),
            root,
            &Pending {
                raw: Vec::new(),
                prefix: String::new(),
            },
            stamp_notes,
            &mut top,
            &mut folders,
        );
        let parts = std::sync::Mutex::new(vec![top]);
        rayon::scope(|s| {
            for folder in folders {
                spawn_folder(s, root_fd.as_fd(), root, folder, stamp_notes, &parts);
            }
        });
        let parts = parts.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok(parts.into_iter().reduce(Found::merge).unwrap_or_default())
    }

    /// Reads one folder as a task of its own and each of its sub-folders as another, so both
    /// cores stay busy however unevenly the notes are spread over the top-level folders (a
    /// vault with one big folder was walked by one thread). Each folder is opened relative to
    /// the root's handle and closed once read, so only the root's and two handles per running
    /// task are open, however deep the tree.
    fn spawn_folder<'s>(
        s: &rayon::Scope<'s>,
        root_fd: BorrowedFd<'s>,
        root: &'s Path,
        folder: Pending,
        stamp: bool,
        parts: &'s std::sync::Mutex<Vec<Found>>,
    ) {
        s.spawn(move |s| {
            let mut found = Found::default();
            let mut subfolders = Vec::new();
            let opened = rustix::fs::openat(
                root_fd,
                OsStr::from_bytes(&folder.raw),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(std::io::Error::from)
            // the listing reads through one handle, the stats go through the other
            .and_then(|fd| Ok((Dir::new(fd.try_clone()?)?, fd)));
            match opened {
                Ok((dir, fd)) => read_folder(
                    dir,
                    fd.as_fd(),
                    root,
                    &folder,
                    stamp,
                    &mut found,
                    &mut subfolders,
                ),
                Err(e) => tracing::warn!("skipping folder {}: {e}", folder.prefix),
            }
            for sub in subfolders {
                spawn_folder(s, root_fd, root, sub, stamp, parts);
            }
            if !found.files.is_empty() || !found.temps.is_empty() {
                parts.lock().unwrap_or_else(|e| e.into_inner()).push(found);
            }
        });
    }

    /// Reads one folder's entries: files into `found` (notes stat-ed relative to `fd` when
    /// `stamp`), sub-folders onto `folders`.
    fn read_folder(
        mut dir: Dir,
        fd: BorrowedFd<'_>,
        root: &Path,
        folder: &Pending,
        stamp: bool,
        found: &mut Found,
        folders: &mut Vec<Pending>,
    ) {
        while let Some(entry) = dir.read() {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!("skipping the rest of folder {:?}: {e}", folder.prefix);
                    return;
                }
            };
            let name = entry.file_name();
            let bytes = name.to_bytes();
            if bytes == b"." || bytes == b".." {
                continue;
            }
            let mut kind = entry.file_type();
            // some file systems do not say the kind in the entry: ask, without following
            let mut stat = None;
            if kind == FileType::Unknown {
                match rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW) {
                    Ok(st) => {
                        kind = FileType::from_raw_mode(st.st_mode);
                        stat = Some(st);
                    }
                    Err(_) => continue,
                }
            }
            let text = String::from_utf8_lossy(bytes);
            if bytes.first() == Some(&b'.') {
                if kind == FileType::RegularFile && is_crew_temp(&text) {
                    let rel = Path::new(OsStr::from_bytes(&folder.raw));
                    found
                        .temps
                        .push(root.join(rel).join(OsStr::from_bytes(bytes)));
                }
                continue;
            }
            match kind {
                FileType::Directory => {
                    let mut raw = Vec::with_capacity(folder.raw.len() + bytes.len() + 1);
                    raw.extend_from_slice(&folder.raw);
                    raw.extend_from_slice(bytes);
                    raw.push(b'/');
                    folders.push(Pending {
                        raw,
                        prefix: format!("{}{text}/", folder.prefix),
                    });
                }
                FileType::RegularFile => {
                    let path = format!("{}{text}", folder.prefix);
                    let stamp = if stamp && is_note_path(&path) {
                        stamp_at(fd, name, stat)
                    } else {
                        None
                    };
                    found.files.push((path, stamp));
                }
                _ => {}
            }
        }
    }

    fn stamp_at(fd: BorrowedFd<'_>, name: &CStr, known: Option<rustix::fs::Stat>) -> Option<Stamp> {
        let st = match known {
            Some(st) => st,
            None => rustix::fs::statat(fd, name, AtFlags::SYMLINK_NOFOLLOW).ok()?,
        };
        Some(stamp_of(&st))
    }

    /// The stamp `std::fs::Metadata` gives for the same file ([`Stamp::of`]): a modification
    /// time before 1970 counts as 0, as there.
    pub(crate) fn stamp_of(st: &rustix::fs::Stat) -> Stamp {
        let ns = |secs: i128, nanos: i128| secs * 1_000_000_000 + nanos;
        let mtime_s = i128::from(st.st_mtime);
        Stamp {
            size: u64::try_from(st.st_size).unwrap_or(0),
            mtime_ns: if mtime_s < 0 {
                0
            } else {
                ns(mtime_s, i128::from(st.st_mtime_nsec))
            },
            ctime_ns: ns(i128::from(st.st_ctime), i128::from(st.st_ctime_nsec)),
        }
    }
}

#[cfg(not(unix))]
mod platform {
    use std::path::{Path, PathBuf};

    use rayon::prelude::*;

    use super::{Found, is_crew_temp, is_note_path};
    use crate::VaultError;
    use crate::index::Stamp;

    pub(super) fn walk(root: &Path, stamp_notes: bool) -> Result<Found, VaultError> {
        let top = std::fs::read_dir(root).map_err(|source| VaultError::Io {
            path: root.to_path_buf(),
            source,
        })?;
        let mut found = Found::default();
        let mut folders: Vec<PathBuf> = Vec::new();
        for entry in top {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!("skipping an unreadable entry: {e}");
                    continue;
                }
            };
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if is_crew_temp(&name) && kind.is_file() {
                found.temps.push(entry.path());
            }
            if name.starts_with('.') {
                continue;
            }
            if kind.is_dir() {
                folders.push(entry.path());
            } else if kind.is_file() {
                found.files.push((name, None));
            }
        }
        let rest = folders
            .par_iter()
            .map(|dir| walk_folder(root, dir))
            .reduce(Found::default, Found::merge);
        let mut found = found.merge(rest);
        if stamp_notes {
            found.files.par_iter_mut().for_each(|(rel, stamp)| {
                if is_note_path(rel) {
                    *stamp = std::fs::symlink_metadata(root.join(rel.as_str()))
                        .ok()
                        .map(|m| Stamp::of(&m));
                }
            });
        }
        Ok(found)
    }

    fn walk_folder(root: &Path, dir: &Path) -> Found {
        let mut found = Found::default();
        let walker = walkdir::WalkDir::new(dir)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                if is_crew_temp(&name) && e.file_type().is_file() {
                    found.temps.push(e.path().to_path_buf());
                }
                e.depth() == 0 || !name.starts_with('.')
            });
        let mut files = Vec::new();
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!("skipping an unreadable entry: {e}");
                    continue;
                }
            };
            if !entry.file_type().is_file() {
                continue;
            }
            if let Ok(rel) = entry.path().strip_prefix(root) {
                files.push((crate::rel_to_string(rel), None));
            }
        }
        found.files = files;
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    /// The stamps the walk takes are the ones a read takes ([`Stamp::of`] on the open file's
    /// metadata): were they to differ in any field, no index entry would ever be trusted.
    #[test]
    fn the_walk_stamps_notes_as_std_metadata_does() {
        let dir = tempfile::tempdir().expect("tmp");
        for (rel, text) in [
            ("A.md", "a"),
            ("f/B.MD", "bb"),
            ("f/g/C.md", ""),
            ("f/pic.png", "p"),
        ] {
            put(dir.path(), rel, text);
        }
        let walked = walk(dir.path(), true).expect("walk");
        assert_eq!(walked.paths, ["A.md", "f/B.MD", "f/g/C.md", "f/pic.png"]);
        for (path, stamp) in walked.paths.iter().zip(&walked.stamps) {
            let meta = std::fs::symlink_metadata(dir.path().join(path)).expect("meta");
            let want = is_note_path(path).then(|| Stamp::of(&meta));
            assert_eq!(*stamp, want, "{path}");
        }
        let unstamped = walk(dir.path(), false).expect("walk");
        assert_eq!(unstamped.paths, walked.paths);
        assert!(unstamped.stamps.iter().all(Option::is_none));
    }

    /// Deeper than the number of handles a process may hold open: the walk keeps two.
    #[test]
    fn a_very_deep_tree_is_walked_whole() {
        let dir = tempfile::tempdir().expect("tmp");
        let mut rel = String::new();
        for i in 0..200 {
            rel.push_str(&format!("d{i}/"));
        }
        put(dir.path(), &format!("{rel}Deep.md"), "deep");
        put(dir.path(), "d0/Top.md", "top");
        let walked = walk(dir.path(), true).expect("walk");
        assert_eq!(
            walked.paths,
            ["d0/Top.md".to_string(), format!("{rel}Deep.md")]
        );
        assert!(walked.stamps.iter().all(Option::is_some));
    }

    #[cfg(unix)]
    #[test]
    fn symbolic_links_are_not_followed_and_odd_names_are_kept() {
        let dir = tempfile::tempdir().expect("tmp");
        let outside = tempfile::tempdir().expect("tmp");
        put(outside.path(), "Secret.md", "secret");
        put(dir.path(), "In.md", "in");
        std::os::unix::fs::symlink(outside.path(), dir.path().join("linked folder"))
            .expect("symlink");
        std::os::unix::fs::symlink(dir.path().join("In.md"), dir.path().join("Alias.md"))
            .expect("symlink");
        put(dir.path(), "Ünïcode folder/Ça va.md", "ok");
        let walked = walk(dir.path(), true).expect("walk");
        assert_eq!(walked.paths, ["In.md", "Ünïcode folder/Ça va.md"]);
    }

    #[test]
    fn a_missing_root_is_an_error() {
        let dir = tempfile::tempdir().expect("tmp");
        assert!(matches!(
            walk(&dir.path().join("nope"), true),
            Err(VaultError::Io { .. })
        ));
    }
}
