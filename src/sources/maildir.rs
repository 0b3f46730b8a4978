//! Reading a Maildir (`cur/` and `new/`), never changing it: no flag is set, no file moves.

use std::path::{Path, PathBuf};

/// One message file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The unique part of the file name (before `:2,FLAGS`), which stays when a mail client
    /// moves the file from `new/` to `cur/` or changes its flags.
    pub unique: String,
    pub path: PathBuf,
    /// Delivery time: the file's modification time, nanoseconds since the epoch.
    pub delivered_ns: i128,
}

/// A message file larger than this is not read (its size is reported instead).
pub(crate) const MAX_MESSAGE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum MaildirError {
    #[error(
        "{0} is not a Maildir (it has no cur/ or new/ folder); set mail.maildir to the folder that holds them"
    )]
    NotAMaildir(PathBuf),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn unique_of(file_name: &str) -> &str {
    // `:` on Unix; mail clients on file systems without it use `;` or `!`
    file_name.split([':', ';', '!']).next().unwrap_or(file_name)
}

/// Every message file, oldest delivery first.
pub fn list(dir: &Path) -> Result<Vec<Entry>, MaildirError> {
    let subs: Vec<PathBuf> = ["new", "cur"]
        .iter()
        .map(|s| dir.join(s))
        .filter(|p| p.is_dir())
        .collect();
    if subs.is_empty() {
        return Err(MaildirError::NotAMaildir(dir.to_path_buf()));
    }
    let mut out = Vec::new();
    for sub in subs {
        let rd = std::fs::read_dir(&sub).map_err(|source| MaildirError::Io {
            path: sub.clone(),
            source,
        })?;
        for e in rd.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            // dot files are a client's own (and `.` temporaries of a delivery in progress)
            if name.starts_with('.') {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let delivered_ns = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i128);
            out.push(Entry {
                unique: unique_of(&name).to_string(),
                path: e.path(),
                delivered_ns,
            });
        }
    }
    out.sort_by(|a, b| {
        a.delivered_ns
            .cmp(&b.delivered_ns)
            .then(a.unique.cmp(&b.unique))
    });
    Ok(out)
}

/// Why one message file was not read (it is skipped, and named).
#[derive(Debug, thiserror::Error)]
pub enum Unreadable {
    #[error("not a regular file")]
    NotAFile,
    #[error("{0} bytes, more than the {max} MB crew reads", max = MAX_MESSAGE_BYTES / 1024 / 1024)]
    TooLarge(u64),
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

/// A message file's bytes, refusing what is not a regular file or is too large.
pub fn read(entry: &Entry) -> Result<Vec<u8>, Unreadable> {
    let meta = std::fs::metadata(&entry.path)?;
    // a FIFO or device in a Maildir would block or never end
    if !meta.is_file() {
        return Err(Unreadable::NotAFile);
    }
    if meta.len() > MAX_MESSAGE_BYTES {
        return Err(Unreadable::TooLarge(meta.len()));
    }
    Ok(std::fs::read(&entry.path)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_cur_and_new_by_unique_name() {
        let t = tempfile::tempdir().expect("tmp");
        assert!(matches!(list(t.path()), Err(MaildirError::NotAMaildir(_))));
        for s in ["cur", "new", "tmp"] {
            std::fs::create_dir(t.path().join(s)).expect("mkdir");
        }
        std::fs::write(t.path().join("new/100.a.host"), "x").expect("w");
        std::fs::write(t.path().join("cur/99.b.host:2,S"), "y").expect("w");
        std::fs::write(t.path().join("cur/.hidden"), "z").expect("w");
        std::fs::write(t.path().join("tmp/101.c.host"), "z").expect("w");
        let mut names: Vec<String> = list(t.path())
            .expect("list")
            .into_iter()
            .map(|e| e.unique)
            .collect();
        names.sort();
        assert_eq!(names, vec!["100.a.host", "99.b.host"]);
    }
}
