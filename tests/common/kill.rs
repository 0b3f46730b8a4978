//! Killing crew in the middle of its work, at points spread over the work rather than over
//! time. A fixed delay lands mid-run only on a machine as fast as the one that chose it: on a
//! slow or loaded one, every kill may come before the first write. The run's journal is the
//! clock here: crew journals each change just before making it, so its size says how far the
//! run got, at whatever speed the machine runs it.

use std::os::unix::process::ExitStatusExt as _;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The bytes of every run journal of a vault.
pub fn journal_bytes(vault: &Path) -> u64 {
    let Ok(runs) = std::fs::read_dir(vault.join(".crew/journal")) else {
        return 0;
    };
    runs.flatten()
        .filter_map(|r| std::fs::metadata(r.path().join("journal.jsonl")).ok())
        .map(|m| m.len())
        .sum()
}

/// The number of run journals of a vault: one more after a run that journaled anything.
pub fn journal_runs(vault: &Path) -> usize {
    // a run killed before its first entry was written journaled nothing: no run to undo
    std::fs::read_dir(vault.join(".crew/journal")).map_or(0, |rd| {
        rd.flatten()
            .filter(|e| {
                std::fs::metadata(e.path().join("journal.jsonl")).is_ok_and(|m| m.len() > 0)
            })
            .count()
    })
}

/// What became of a run given to [`kill_at`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kill {
    /// SIGKILL ended it while it ran, its journal this many bytes longer than at its start.
    MidRun { progress: u64 },
    /// It ended by itself first.
    Finished,
}

/// The longest a run may take to reach its kill point: a bound, so a crew that hangs fails
/// the test instead of stalling it.
const LIMIT: Duration = Duration::from_secs(300);

/// Runs `cmd` on `vault` and SIGKILLs it once the vault's journals have grown by `at` bytes,
/// `pause` later: the pause moves the kill from right after a journal line into the write
/// that follows it, or past it. `at` 0 kills it `pause` after it starts.
pub fn kill_at(mut cmd: Command, vault: &Path, at: u64, pause: Duration) -> Kill {
    let before = journal_bytes(vault);
    let mut child = cmd.spawn().expect("spawn crew");
    let started = Instant::now();
    while journal_bytes(vault).saturating_sub(before) < at {
        if child.try_wait().expect("poll crew").is_some() {
            return Kill::Finished;
        }
        if started.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("crew ran {LIMIT:?} without journaling {at} bytes");
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    std::thread::sleep(pause);
    let _ = child.kill();
    let status = child.wait().expect("wait for crew");
    if status.signal() == Some(libc::SIGKILL) {
        Kill::MidRun {
            progress: journal_bytes(vault).saturating_sub(before),
        }
    } else {
        Kill::Finished
    }
}

/// A seed for the pauses: new each run, so runs of the suite try different moments, and
/// printed in every failure so one can be replayed (`CREW_KILL_SEED=N`).
pub fn seed() -> u64 {
    std::env::var("CREW_KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(1, |d| u64::from(d.subsec_nanos()))
        })
}

/// A pause of 0 to `max_us` microseconds, drawn from `seed` and `k` (splitmix64).
pub fn pause(seed: u64, k: u64, max_us: u64) -> Duration {
    let mut z = seed.wrapping_add(k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    Duration::from_micros(z % (max_us + 1))
}
