//! crew: a crew of agents over an Obsidian vault, filesystem-first.
//!
//! Rooms, each with one job:
//! - [`vault`] (the `crew-vault` crate): walk, parse, index, resolve and measure a vault;
//!   it knows nothing of the crew.
//! - [`gate`]: the one way a vault changes (path jail, protection policy, atomic file
//!   operations, link rewrites on move, the pending-change overlay agents read through).
//! - [`state`]: the journal and undo, post-its, the run log, the vault lock, crew's index.
//! - [`crew`]: the crew definition (registry, agents, skills, config) and its validation.
//! - [`dispatch`]: routing (skills first, then agents by priority), suggestions, the chain.
//! - [`agents`]: the native agents, one folder per agent with several modes.
//! - [`text`]: the one normaliser and tokeniser (search, filing, routing and language
//!   detection read text through it) and the per-language word lists, as data.
//! - [`analysis`]: crew's measurements of a vault (health audit, link graph, text).
//! - [`sources`]: what the postman reads outside the vault (a Maildir, calendar files).
//! - [`model`]: the language-model runtime, one module per provider's wire format.
//! - [`run`]: one request from message to report ([`render`]: its text); [`chat`] a
//!   conversation of them; [`watch`], [`schedule`]: unattended runs; [`setup`], [`doctor`],
//!   [`evaluate`]: the commands around them; [`fault`]: whose problem an error is (the exit
//!   code); [`mcp`]: the crew as an MCP server for assistants.
//!
//! The `crew` binary (`src/main.rs`, `src/cli/`) is a thin shell over this library.

pub mod agents;
pub mod analysis;
pub mod chat;
pub mod crew;
pub mod dispatch;
pub mod doctor;
pub mod evaluate;
pub mod fault;
pub mod gate;
pub mod lang;
pub mod mcp;
pub mod model;
pub mod render;
pub mod run;
pub mod schedule;
pub mod setup;
pub mod shell;
pub mod sources;
pub mod state;
pub mod text;
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
