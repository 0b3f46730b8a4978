//! The postman's connections in the crew config: `mail:` (a Maildir or an IMAP account, read
//! only) and `calendar:` (`.ics` files or folders).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// `mail:` — where the postman reads mail. Both may be set; the Maildir is read first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MailConfig {
    /// A Maildir folder (the one holding `cur/` and `new/`), as mbsync or offlineimap keep it.
    pub maildir: Option<String>,
    pub imap: Option<ImapConfig>,
}

/// `mail.imap:` — one IMAP account over TLS, opened read-only (`EXAMINE`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    #[serde(default = "default_imap_port")]
    pub port: u16,
    pub user: String,
    /// The environment variable holding the password.
    #[serde(default)]
    pub password_env: Option<String>,
    /// A command whose first output line is the password (`pass show mail`, `secret-tool …`).
    #[serde(default)]
    pub password_cmd: Option<String>,
    #[serde(default = "default_mailbox")]
    pub mailbox: String,
    /// A PEM file of certificates to trust besides the public roots (a self-signed server).
    #[serde(default)]
    pub ca_file: Option<String>,
}

// The password command may itself name a secret (a token on its command line): it is never
// printed, not even in debug output.
impl std::fmt::Debug for ImapConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("user", &self.user)
            .field("password_env", &self.password_env)
            .field("password_cmd", &self.password_cmd.as_ref().map(|_| "…"))
            .field("mailbox", &self.mailbox)
            .field("ca_file", &self.ca_file)
            .finish()
    }
}

fn default_imap_port() -> u16 {
    993
}

fn default_mailbox() -> String {
    "INBOX".into()
}

/// `calendar:` — iCalendar sources.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CalendarConfig {
    /// `.ics` files, or folders searched for them.
    pub ics: Vec<String>,
    /// The IANA zone events are shown in (`Europe/Rome`); the system's zone when absent.
    pub timezone: Option<String>,
}

/// A configured path: `~/` is the home folder, a relative path is relative to the vault.
pub fn resolve_path(vault: &Path, raw: &str) -> PathBuf {
    let raw = raw.trim();
    if let Some(rest) = raw.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    let p = PathBuf::from(raw);
    if p.is_absolute() { p } else { vault.join(p) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_debug() {
        assert_eq!(
            resolve_path(Path::new("/v"), "mail/inbox"),
            PathBuf::from("/v/mail/inbox")
        );
        assert_eq!(resolve_path(Path::new("/v"), "/m"), PathBuf::from("/m"));
        let c = ImapConfig {
            host: "h".into(),
            port: 993,
            user: "u".into(),
            password_env: None,
            password_cmd: Some("echo hunter2".into()),
            mailbox: "INBOX".into(),
            ca_file: None,
        };
        assert!(!format!("{c:?}").contains("hunter2"));
    }
}
