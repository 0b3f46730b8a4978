//! Whose problem an error is, decided by the error itself: the command line turns it into an
//! exit code (2 for input the user can correct, 1 for a valid request that failed to run), so
//! no list of messages or a catch-all decides it.

/// Whose problem an error is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Bad usage or bad input the user can correct (exit code 2).
    Input,
    /// The request was valid, but running it failed: I/O, a busy vault, a conflict with a
    /// change made meanwhile (exit code 1).
    Run,
}

/// An error that knows whose problem it is.
pub trait HasFault {
    fn fault(&self) -> Fault;
}

impl HasFault for crate::vault::VaultError {
    fn fault(&self) -> Fault {
        match self {
            crate::vault::VaultError::Io { .. } => Fault::Run,
            _ => Fault::Input,
        }
    }
}
