//! State: post-its, the run log, the agent log and the vault lock.
//!
//! crew's own bookkeeping lives in `<vault>/.crew/` (hidden, so it is never read as notes):
//! `runs/<run>.jsonl` (one run log per request), `journal/<run>/` (what the gate did and the
//! bytes needed to undo it) and `lock`.

pub mod cache;
/// The journal is the gate's record of every change; state reads it (undo, the run log).
pub use crate::gate::journal;
pub mod lock;
pub mod postit;
pub mod runlog;
pub mod undo;

use crate::vault::stats::VaultStats;
use crate::vault::{Vault, VaultError};

/// Opens the vault at `root` the way every crew command does: with crew's persistent index,
/// so unchanged notes are not parsed again. The index is `.crew/index.bin` when the vault has
/// crew's state folder, else in the user's cache folder ([`cache`]): a vault crew only reads
/// gains no file.
pub fn open_vault(root: &Path) -> Result<Vault, VaultError> {
    match index_path(root) {
        Some(index) => Vault::open_indexed(root, &index),
        None => Vault::open(root),
    }
}

/// The index file of the vault at `root` (see [`open_vault`]); `None` when the folder is
/// missing or there is no cache folder for a vault crew has not adopted.
pub fn index_path(root: &Path) -> Option<PathBuf> {
    let state = root.join(".crew");
    if state.is_dir() {
        Some(state.join("index.bin"))
    } else if root.is_dir() {
        cache::index_for(root)
    } else {
        None
    }
}

/// The counts of `crew vault stats`: kept beside the index while nothing in the vault changed
/// (a walk that stats every note, no note read or decoded), else counted on the vault opened
/// as [`open_vault`] does, and kept for next time. The vault, when opened, is never freed (see
/// [`Vault`]'s cost at exit): this is for a command that ends after it.
pub fn vault_stats(root: &Path) -> Result<VaultStats, VaultError> {
    match index_path(root) {
        Some(index) => VaultStats::counted(root, &index),
        None => {
            let vault = std::mem::ManuallyDrop::new(Vault::open(root)?);
            Ok(VaultStats::of(&vault))
        }
    }
}

use std::path::{Path, PathBuf};

/// The state folder of a vault.
pub fn state_dir(vault: &Path) -> PathBuf {
    vault.join(".crew")
}

/// A new run id: UTC time to the millisecond plus the process id, sortable and unique enough
/// for one machine.
pub fn new_run_id() -> String {
    let now = chrono::Utc::now();
    format!(
        "{}-{:05}",
        now.format("%Y%m%dT%H%M%S%.3fZ"),
        std::process::id() % 100_000
    )
    .replace('.', "")
}
