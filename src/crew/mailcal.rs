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
pub(crate) fn resolve_path(vault: &Path, raw: &str) -> PathBuf {
    let raw = raw.trim();
    if let Some(rest) = raw.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    let p = PathBuf::from(raw);
    if p.is_absolute() { p } else { vault.join(p) }
}

/// Config mistakes in `mail:` and `calendar:`, as diagnostics naming the line; a bad zone
/// falls back to the system's.
pub fn check(
    c: &mut super::CrewConfig,
    file: &str,
    text: &str,
    diags: &mut Vec<super::Diagnostic>,
) {
    let line = |needle: &str| super::config::line_of(text, needle);
    if let Some(tz) = c.calendar.timezone.clone()
        && tz.trim().parse::<chrono_tz::Tz>().is_err()
    {
        diags.push(super::Diagnostic::error(
            file,
            line("timezone"),
            &format!("calendar.timezone `{tz}` is not an IANA zone name (e.g. Europe/Rome); using the system's zone"),
        ));
        c.calendar.timezone = None;
    }
    if let Some(i) = &c.mail.imap {
        if i.password_env.is_none() && i.password_cmd.is_none() {
            diags.push(super::Diagnostic::error(
                file,
                line("imap"),
                "mail.imap needs password_env (an environment variable) or password_cmd (a command printing the password)",
            ));
        }
        if i.host.trim().is_empty() || i.user.trim().is_empty() {
            diags.push(super::Diagnostic::error(
                file,
                line("imap"),
                "mail.imap needs a host and a user",
            ));
        }
    }
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

    #[test]
    fn config_mistakes_are_named() {
        let mut d = Vec::new();
        let c = super::super::CrewConfig::parse(
            "c.yaml",
            "calendar:\n  ics: [a.ics]\n  timezone: Mars/Olympus\nmail:\n  imap:\n    host: h\n    user: u\n",
            &mut d,
        );
        assert_eq!(c.calendar.ics, vec!["a.ics".to_string()]);
        assert_eq!(c.calendar.timezone, None);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!(d[0].line, 3);
        assert!(d[1].message.contains("password_cmd"));
        let mut d = Vec::new();
        super::super::CrewConfig::parse("c.yaml", "mail:\n  maildir: ~/Mail\n  pop3: x\n", &mut d);
        assert_eq!(d.len(), 1, "unknown keys are refused: {d:?}");
    }
}
