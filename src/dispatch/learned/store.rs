//! The learned router's one contact with the disk: a trained, calibrated model kept for the
//! next process, so `crew route` on a message that needs the model reads it instead of
//! training it (see `BENCHMARKS.md`).
//!
//! Where: beside the vault's index, by the same rule (`crate::state::index_path`) — in
//! `.crew/` when crew adopted or initialised the vault, else in the user's cache folder — as
//! `learned-model.bin`. It is crew's own file, never a note: written atomically and outside
//! the gate and its journal, as the index is. One file per vault, holding the model of the
//! definition last used there; another definition replaces it.
//!
//! Only a process that named its vault ([`keep_for_vault`], the binary does) keeps models; a
//! library user that did not trains in memory as before. Any failure to read or write is a
//! model trained again, never an error.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::{Model, persist};

/// The vault whose cache this process uses.
static VAULT: OnceLock<PathBuf> = OnceLock::new();

/// The file name beside the index.
pub const FILE: &str = "learned-model.bin";

/// Keeps this process's trained models for the vault at `root` (the first call wins: a
/// process serves one vault).
pub fn keep_for_vault(root: &Path) {
    let _ = VAULT.set(root.to_path_buf());
}

/// The model file of the vault at `root`, by the index's rule; `None` without a place for it.
pub fn path_for(root: &Path) -> Option<PathBuf> {
    crate::state::index_path(root).map(|index| index.with_file_name(FILE))
}

fn path() -> Option<PathBuf> {
    path_for(VAULT.get()?)
}

/// The kept model of the definition `definition`, if this process keeps models and the file
/// holds that model intact.
pub fn load(definition: u64) -> Option<Model> {
    let path = path()?;
    let bytes = std::fs::read(&path).ok()?;
    match persist::from_bytes(&bytes, definition) {
        Some(model) => {
            tracing::debug!("learned model: loaded from cache {}", path.display());
            Some(model)
        }
        None => {
            tracing::debug!(
                "learned model: {} is of another definition, version or damaged; training",
                path.display()
            );
            None
        }
    }
}

/// Keeps a freshly trained model (calibrating it first) for the next process.
pub fn save(model: &Model, definition: u64) {
    let Some(path) = path() else {
        return;
    };
    let Some(bytes) = persist::to_bytes(model, definition) else {
        return;
    };
    match crate::gate::atomic_write(&path, &bytes, false) {
        Ok(()) => tracing::debug!("learned model: trained, written to {}", path.display()),
        Err(e) => tracing::info!("learned model: could not write {}: {e}", path.display()),
    }
}
