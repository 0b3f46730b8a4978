//! Which folders crew may touch. A vault is a folder Obsidian has opened (it holds `.obsidian/`)
//! or one that holds a crew (`.crew/`, or an installed layout such as `.claude/`). crew writes
//! only into vaults, and never reads the whole filesystem or a home folder: a mistyped
//! `--vault` must not turn into a walk of the disk or notes scattered through `Documents/`.

use std::path::{Path, PathBuf};

/// Folders where the anchor project (and crew) install a crew definition inside a vault.
pub const CREW_FOLDERS: &[&str] = &[
    ".crew",
    ".claude",
    ".gemini",
    ".opencode",
    ".codex",
    ".agents",
    ".platform",
];

/// What a command is about to do with the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
}

/// Why crew refuses a folder.
#[derive(Debug, thiserror::Error)]
pub enum RootError {
    #[error(
        "{path} is {what}; crew never reads or writes it as a vault. Point --vault (or $CREW_VAULT) at your vault's folder"
    )]
    TooBroad { path: PathBuf, what: &'static str },
    #[error("{0} does not exist or is not a folder; point --vault at your vault's folder")]
    Missing(PathBuf),
    #[error(
        "{0} is not a vault: it has no .obsidian/ folder and no crew (.crew/, .claude/, …), so crew writes nothing there. If it is your vault, run `crew init --adopt {0}` first (it moves nothing)"
    )]
    NotAVault(PathBuf),
}

/// Whether `path` is a vault: Obsidian's settings folder or a crew folder is in it.
pub(crate) fn is_vault(path: &Path) -> bool {
    path.join(".obsidian").is_dir() || is_vault_with_crew(path)
}

/// Whether a crew is installed in `path` (crew's own folder or an installed layout).
pub(crate) fn is_vault_with_crew(path: &Path) -> bool {
    CREW_FOLDERS.iter().any(|d| path.join(d).is_dir())
}

/// Refuses `/`, the home folder, and (for writes) any folder that is not a vault.
pub fn check(path: &Path, access: Access) -> Result<(), RootError> {
    if !path.is_dir() {
        return Err(RootError::Missing(path.to_path_buf()));
    }
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    if real.parent().is_none() {
        return Err(RootError::TooBroad {
            path: path.to_path_buf(),
            what: "the root of the filesystem",
        });
    }
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
        .and_then(|h| h.canonicalize().ok());
    if home.is_some_and(|h| h == real) {
        return Err(RootError::TooBroad {
            path: path.to_path_buf(),
            what: "your home folder",
        });
    }
    if access == Access::Write && !is_vault(path) {
        return Err(RootError::NotAVault(path.to_path_buf()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_the_filesystem_root_even_for_reading() {
        assert!(matches!(
            check(Path::new("/"), Access::Read),
            Err(RootError::TooBroad { .. })
        ));
    }

    #[test]
    fn a_plain_folder_is_readable_but_not_writable() {
        let dir = tempfile::tempdir().expect("temp dir");
        assert!(check(dir.path(), Access::Read).is_ok());
        assert!(matches!(
            check(dir.path(), Access::Write),
            Err(RootError::NotAVault(_))
        ));
        std::fs::create_dir(dir.path().join(".obsidian")).expect("mkdir");
        assert!(check(dir.path(), Access::Write).is_ok());
    }

    #[test]
    fn a_crew_folder_makes_a_vault() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir(dir.path().join(".claude")).expect("mkdir");
        assert!(check(dir.path(), Access::Write).is_ok());
    }

    #[test]
    fn a_missing_folder_is_named() {
        let err = check(Path::new("/no/such/vault/here"), Access::Read).unwrap_err();
        assert!(err.to_string().contains("/no/such/vault/here"));
    }
}
