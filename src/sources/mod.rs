//! What crew reads outside the vault, read-only, for the postman: a Maildir and calendar
//! files (IMAP is the postman's own network client). The vault itself is never read here:
//! agents read it through the gate, so this is the one room besides the gate and the state
//! that touches the file system for an agent.

pub mod ics;
pub mod maildir;
