//! One writer at a time: a vault-level lock on `.crew/lock`, taken by every command that writes.
//! Read-only commands never take it.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, SeekFrom, Write as _};
use std::path::Path;
use std::time::{Duration, Instant};

/// Held while a command writes; released on drop (and by the OS if the process dies).
#[derive(Debug)]
pub struct VaultLock {
    file: File,
}

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another crew command is writing to this vault ({holder}); waited {waited:?}. Try again when it is done"
    )]
    Busy { holder: String, waited: Duration },
    #[error("cannot open the lock file {path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl VaultLock {
    /// Takes the lock, waiting up to `wait` for another writer to finish.
    pub fn acquire(state_dir: &Path, what: &str, wait: Duration) -> Result<VaultLock, LockError> {
        let path = state_dir.join("lock");
        let io = |source| LockError::Io {
            path: path.display().to_string(),
            source,
        };
        std::fs::create_dir_all(state_dir).map_err(io)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    if start.elapsed() >= wait {
                        let mut holder = String::new();
                        let _ = file.read_to_string(&mut holder);
                        let holder = if holder.trim().is_empty() {
                            "unknown holder".into()
                        } else {
                            holder.trim().to_string()
                        };
                        return Err(LockError::Busy {
                            holder,
                            waited: start.elapsed(),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        let _ = file.set_len(0);
        let _ = file.seek(SeekFrom::Start(0));
        let _ = write!(
            file,
            "pid {} running `crew {what}` since {}",
            std::process::id(),
            chrono::Local::now().format("%H:%M:%S")
        );
        let _ = file.flush();
        Ok(VaultLock { file })
    }
}

impl Drop for VaultLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

impl crate::fault::HasFault for LockError {
    /// Another writer holding the vault, or a lock file that cannot be made, is a run that
    /// could not happen now, not bad input.
    fn fault(&self) -> crate::fault::Fault {
        crate::fault::Fault::Run
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_waits_then_names_the_holder() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = VaultLock::acquire(dir.path(), "watch", Duration::ZERO).expect("first");
        match VaultLock::acquire(dir.path(), "ask", Duration::from_millis(200)) {
            Err(LockError::Busy { holder, .. }) => {
                assert!(holder.contains("crew watch"), "{holder}")
            }
            other => panic!("expected busy, got {other:?}"),
        }
        drop(first);
        VaultLock::acquire(dir.path(), "ask", Duration::ZERO).expect("free again");
    }
}
