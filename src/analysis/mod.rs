//! Analysis: what crew measures about a vault, apart from any agent that reports it. The
//! health audit backs `crew vault check`, the librarian's checks and the nightly fixes.
//!
//! These analyses stay in crew rather than in the vault crate because they measure crew's
//! conventions (required frontmatter keys, the naming convention, the inbox and archive roles);
//! what they build on — links resolved, the graph, folder notes — is the vault crate's.

pub mod dates;
pub mod graph;
pub mod health;
pub mod link_fix;
pub mod note_date;
pub mod notes;
pub mod schema;
pub mod search;
pub mod text;
pub mod times;
