//! crew: a crew of agents over an Obsidian vault, filesystem-first.
//!
//! Rooms, each with one job: [`vault`] reads and writes the vault, [`crew`] loads the crew
//! definition, [`dispatch`] routes and chains, [`state`] keeps post-its and run logs, [`agents`]
//! holds the native agents, and [`run`] wires them into a request.

pub mod agents;
pub mod crew;
pub mod dispatch;
pub mod model;
pub mod run;
pub mod schedule;
pub mod setup;
pub mod state;
pub mod synth;
pub mod vault;
pub mod watch;
