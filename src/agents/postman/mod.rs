//! The postman without a model: mail (a Maildir or IMAP, read only) and `.ics` calendars into
//! the vault.

pub mod calendar;
pub mod mail;
pub mod maildir;
pub mod people;
