//! The postman's connections in the crew config: `mail:` (a Maildir or an IMAP account, read
//! only) and `calendar:` (`.ics` files or folders, and CalDAV calendars).

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
    /// CalDAV calendars, read like `.ics` files; "create an event" writes to the first.
    pub caldav: Vec<CaldavConfig>,
}

/// `calendar.caldav:` — one calendar collection on a CalDAV server (Nextcloud, Fastmail,
/// iCloud, Radicale), with HTTP Basic credentials when it needs them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaldavConfig {
    /// The calendar collection's URL (the one the server shows for the calendar, ending in `/`).
    pub url: String,
    #[serde(default)]
    pub username: Option<String>,
    /// The environment variable holding the password (an app password on most services).
    #[serde(default)]
    pub password_env: Option<String>,
}

impl CaldavConfig {
    /// The URL as it may be shown: never with credentials in it.
    pub(crate) fn shown_url(&self) -> String {
        shown_url(&self.url)
    }
}

/// A URL without any `user:password@` part, for messages and logs.
pub(crate) fn shown_url(url: &str) -> String {
    let url = url.trim();
    match url.split_once("://") {
        Some((scheme, rest)) => {
            let end = rest.find('/').unwrap_or(rest.len());
            let authority = &rest[..end];
            let host = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            format!("{scheme}://{host}{}", &rest[end..])
        }
        None => url.to_string(),
    }
}

/// What is wrong with one `calendar.caldav` entry, if anything: a URL crew cannot use, or
/// credentials it would have to put somewhere unsafe.
fn caldav_mistake(c: &CaldavConfig) -> Option<String> {
    let url = c.url.trim();
    let shown = shown_url(url);
    let Some((scheme, rest)) = url.split_once("://") else {
        return Some(format!(
            "calendar.caldav url `{shown}` is not an http:// or https:// URL"
        ));
    };
    let scheme = scheme.to_ascii_lowercase();
    if scheme != "http" && scheme != "https" {
        return Some(format!(
            "calendar.caldav url `{shown}` is not an http:// or https:// URL"
        ));
    }
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    if authority.contains('@') {
        return Some(format!(
            "calendar.caldav url `{shown}` holds credentials; give `username` and `password_env` (an environment variable) instead"
        ));
    }
    let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
    if host.is_empty() {
        return Some(format!("calendar.caldav url `{shown}` names no host"));
    }
    match (&c.username, &c.password_env) {
        (Some(_), None) => {
            return Some(format!(
                "calendar.caldav `{shown}`: username is set without password_env (the environment variable holding the password)"
            ));
        }
        (None, Some(_)) => {
            return Some(format!(
                "calendar.caldav `{shown}`: password_env is set without a username"
            ));
        }
        _ => {}
    }
    // Basic credentials over plain HTTP can be read by anyone on the way; on the machine
    // itself (a local Radicale) there is no way.
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]");
    if scheme == "http" && c.username.is_some() && !loopback {
        return Some(format!(
            "calendar.caldav `{shown}`: a password is only sent over https:// (or to this machine, localhost)"
        ));
    }
    None
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
    for cal in &c.calendar.caldav {
        if let Some(why) = caldav_mistake(cal) {
            diags.push(super::Diagnostic::error(
                file,
                line(cal.url.trim()),
                &format!("{why}; nothing runs until it is corrected"),
            ));
            // calendar writes would go to the wrong place or leak a password: like an unknown
            // key, the config is not used at all (exit code 2)
            c.unreadable = true;
        }
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
        let c = super::super::CrewConfig::parse(
            "c.yaml",
            "calendar:\n  caldav:\n    - url: http://127.0.0.1:5232/me/cal/\n      username: me\n      password_env: CAL_PW\n",
            &mut d,
        );
        assert!(d.is_empty() && !c.unreadable, "{d:?}");
        assert_eq!(c.calendar.caldav[0].username.as_deref(), Some("me"));
        for (yaml, says) in [
            ("url: ftp://h/cal/", "not an http"),
            ("url: https://me:hunter2@h/cal/", "holds credentials"),
            (
                "url: https://h/cal/\n      username: me",
                "without password_env",
            ),
            (
                "url: http://cal.example.org/me/\n      username: me\n      password_env: P",
                "only sent over https",
            ),
        ] {
            let mut d = Vec::new();
            let c = super::super::CrewConfig::parse(
                "c.yaml",
                &format!("calendar:\n  caldav:\n    - {yaml}\n"),
                &mut d,
            );
            assert!(c.unreadable, "{yaml}");
            assert_eq!(d.len(), 1, "{d:?}");
            assert!(d[0].message.contains(says), "{d:?}");
            assert_eq!(d[0].line, 3, "{d:?}");
            assert!(!d[0].message.contains("hunter2"), "{d:?}");
        }
        let mut d = Vec::new();
        super::super::CrewConfig::parse("c.yaml", "mail:\n  maildir: ~/Mail\n  pop3: x\n", &mut d);
        assert_eq!(d.len(), 1, "unknown keys are refused: {d:?}");
    }
}
