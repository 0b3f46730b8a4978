//! crew: a crew of agents over an Obsidian vault, filesystem-first.
//!
//! Rooms, each with one job: [`vault`] reads and writes the vault, [`crew`] loads the crew
//! definition, [`dispatch`] routes and chains, [`state`] keeps post-its and run logs, [`agents`]
//! holds the native agents, and [`run`] wires them into a request.

pub mod agents;
pub mod analysis;
pub mod chat;
pub mod crew;
pub mod dispatch;
pub mod doctor;
pub mod evaluate;
pub mod gate;
pub mod lang;
pub mod model;
pub mod run;
pub mod schedule;
pub mod setup;
pub mod state;
pub mod watch;

/// The vault layer is its own crate (`crates/vault`); inside crew it is the `vault` room.
pub use crew_vault as vault;

/// Reading a vault allocates many small strings on every core at once; glibc grows each
/// thread's heap a few pages at a time (an `mprotect` each), which cost 10–15 % of a full
/// pass over 100,000 notes. Growing by 32 MB at a time removes that. Call it first thing in
/// `main` (the `crew` binary and the benchmarks do), before any thread starts.
pub fn grow_heap_in_large_steps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator tunable; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 32 << 20);
    }
}
