//! State: post-its, the run log, the agent log and the vault lock.
//!
//! crew's own bookkeeping lives in `<vault>/.crew/` (hidden, so it is never read as notes):
//! `runs/<run>.jsonl` (one run log per request), `journal/<run>/` (what the gate did and the
//! bytes needed to undo it) and `lock`.

/// The journal is the gate's record of every change; state reads it (undo, the run log).
pub use crate::gate::journal;
pub mod lock;
pub mod postit;
pub mod runlog;
pub mod undo;

use crate::vault::{Vault, VaultError};

/// Opens the vault at `root` the way every crew command does: with crew's persistent index
/// (`.crew/index.bin`) when the vault has crew's state folder, so unchanged notes are not
/// parsed again.
pub fn open_vault(root: &Path) -> Result<Vault, VaultError> {
    let state = root.join(".crew");
    if state.is_dir() {
        Vault::open_indexed(root, &state.join("index.bin"))
    } else {
        Vault::open(root)
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
