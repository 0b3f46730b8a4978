//! Where the index of a vault crew has not adopted lives: the user's cache folder, never the
//! vault. An adopted vault keeps its index in `.crew/`; a folder crew only reads (no `.crew/`)
//! must not gain files, but reading it a second time should still be cheap, so its index goes
//! to `$XDG_CACHE_HOME/crew/vaults/<id>/index.bin` (`~/.cache` when unset; the platform's cache
//! folder elsewhere), `<id>` a fingerprint of the vault's canonical path. With no cache folder
//! the vault is read without an index.

use std::path::{Path, PathBuf};

/// The cache folder crew's files go under, from the environment `var` reads (the XDG base
/// directory rule: `$XDG_CACHE_HOME` when set to an absolute path, else `$HOME/.cache`).
pub(crate) fn cache_root(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |v: String| {
        let p = PathBuf::from(v);
        p.is_absolute().then_some(p)
    };
    if let Some(p) = var("XDG_CACHE_HOME").and_then(absolute) {
        return Some(p.join("crew"));
    }
    let home = var("HOME").and_then(absolute);
    let base = if cfg!(target_os = "macos") {
        home.map(|h| h.join("Library").join("Caches"))
    } else if cfg!(windows) {
        var("LOCALAPPDATA").and_then(absolute)
    } else {
        home.map(|h| h.join(".cache"))
    };
    base.map(|b| b.join("crew"))
}

/// The index file of the vault at `root` (not adopted) under the cache folder `cache`: one
/// folder per vault, named by a fingerprint of its canonical path so two names of one folder
/// share it.
pub(crate) fn index_in(cache: &Path, root: &Path) -> PathBuf {
    let real = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let id = crate::vault::hash::fingerprint(real.as_os_str().as_encoded_bytes());
    cache.join("vaults").join(id).join("index.bin")
}

/// The index file for the vault at `root`, its folder created (with a note of which vault it
/// serves, for a person cleaning the cache); `None` when there is no cache folder or it cannot
/// be created.
pub fn index_for(root: &Path) -> Option<PathBuf> {
    // the crate's own unit tests never write into the user's real cache
    let cache = if cfg!(test) {
        Some(std::env::temp_dir().join("crew-unit-test-cache"))
    } else {
        cache_root(|k| std::env::var(k).ok().filter(|v| !v.is_empty()))
    }?;
    let index = index_in(&cache, root);
    let dir = index.parent()?;
    if !dir.is_dir() {
        if let Err(e) = std::fs::create_dir_all(dir) {
            tracing::info!(
                "no index for this vault: cannot create {}: {e}",
                dir.display()
            );
            return None;
        }
        let real = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let _ = std::fs::write(dir.join("vault"), format!("{}\n", real.display()));
    }
    Some(index)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[cfg(all(unix, not(target_os = "macos")))]
    #[test]
    fn the_xdg_cache_home_wins_and_home_is_the_fallback() {
        let both = [("XDG_CACHE_HOME", "/x/cache"), ("HOME", "/home/u")];
        assert_eq!(cache_root(env(&both)), Some(PathBuf::from("/x/cache/crew")));
        // the XDG rule: a relative value is ignored
        let relative = [("XDG_CACHE_HOME", "cache"), ("HOME", "/home/u")];
        assert_eq!(
            cache_root(env(&relative)),
            Some(PathBuf::from("/home/u/.cache/crew"))
        );
        assert_eq!(cache_root(env(&[])), None);
    }

    #[test]
    fn each_vault_has_its_own_folder_and_two_names_of_one_share_it() {
        let dir = tempfile::tempdir().expect("temp");
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::create_dir_all(a.join("sub")).expect("mkdir");
        std::fs::create_dir_all(&b).expect("mkdir");
        let cache = dir.path().join("cache");
        assert_ne!(index_in(&cache, &a), index_in(&cache, &b));
        assert_eq!(index_in(&cache, &a), index_in(&cache, &a.join("sub/..")));
        assert!(index_in(&cache, &a).starts_with(&cache));
    }
}
