//! Where mail comes from — a Maildir or an IMAP mailbox — behind one interface: the messages
//! new since a mark, and messages by key.

use std::path::PathBuf;

use super::mail::Mail;
use crate::crew::mailcal::{ImapConfig, MailConfig, resolve_path};
use crate::sources::maildir;

/// At most this many new messages are parsed and listed in one check (the newest).
pub(crate) const MAX_LISTED: usize = 50;

#[derive(Debug, Clone)]
pub(crate) enum Source {
    Maildir(PathBuf),
    Imap(ImapConfig),
}

/// The new messages of one check.
#[derive(Debug, Default)]
pub(crate) struct Fetched {
    /// Newest first.
    pub mails: Vec<Mail>,
    /// Messages skipped, each naming its file (or UID) and why.
    pub problems: Vec<String>,
    /// New messages beyond [`MAX_LISTED`], not listed.
    pub more: usize,
    /// The mark to keep for the next check.
    pub mark: String,
}

/// Why the mail source could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum MailError {
    #[error(transparent)]
    Maildir(#[from] maildir::MaildirError),
    #[error(transparent)]
    Imap(#[from] super::imap::ImapError),
}

impl Source {
    /// The configured source; the Maildir when both are set.
    pub fn configured(mail: &MailConfig, vault: &std::path::Path) -> Option<Source> {
        if let Some(m) = &mail.maildir {
            return Some(Source::Maildir(resolve_path(vault, m)));
        }
        mail.imap.clone().map(Source::Imap)
    }

    /// The post-it key its mark is kept under.
    pub(crate) fn mark_key(&self) -> &'static str {
        match self {
            Source::Maildir(_) => "mail-mark",
            Source::Imap(_) => "imap-mark",
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Source::Maildir(_) => "maildir",
            Source::Imap(_) => "imap",
        }
    }

    /// Messages that arrived after `mark` (all of them when there is no mark yet).
    pub(crate) fn fetch_new(&self, mark: Option<&str>) -> Result<Fetched, MailError> {
        match self {
            Source::Maildir(dir) => maildir_new(dir, mark),
            Source::Imap(cfg) => Ok(super::imap::fetch_new(cfg, mark)?),
        }
    }

    /// Messages by key (keys of another source or no longer present are left out), and
    /// problems reading them.
    pub(crate) fn fetch(&self, keys: &[String]) -> Result<(Vec<Mail>, Vec<String>), MailError> {
        match self {
            Source::Maildir(dir) => {
                let entries = maildir::list(dir)?;
                let mut mails = Vec::new();
                let mut problems = Vec::new();
                for k in keys {
                    let Some(unique) = k.strip_prefix("maildir:") else {
                        continue;
                    };
                    if let Some(e) = entries.iter().find(|e| e.unique == unique) {
                        match parse_entry(e) {
                            Ok(m) => mails.push(m),
                            Err(p) => problems.push(p),
                        }
                    }
                }
                Ok((mails, problems))
            }
            Source::Imap(cfg) => Ok(super::imap::fetch_keys(cfg, keys)?),
        }
    }

    /// The newest `n` messages, for finding one by its subject.
    pub(crate) fn recent(&self, n: usize) -> Result<(Vec<Mail>, Vec<String>), MailError> {
        match self {
            Source::Maildir(dir) => {
                let entries = maildir::list(dir)?;
                let keys: Vec<String> = entries
                    .iter()
                    .rev()
                    .take(n)
                    .map(|e| format!("maildir:{}", e.unique))
                    .collect();
                self.fetch(&keys)
            }
            Source::Imap(cfg) => Ok(super::imap::fetch_recent(cfg, n)?),
        }
    }
}

fn parse_entry(e: &maildir::Entry) -> Result<Mail, String> {
    let origin = e.path.display().to_string();
    let bytes = maildir::read(e).map_err(|why| format!("{origin}: {why}; skipped"))?;
    Mail::parse(&bytes, &format!("maildir:{}", e.unique), &origin)
        .map_err(|b| format!("{b}; skipped"))
}

/// The mark of a Maildir: the latest delivery time seen, and the names delivered at exactly
/// that time (a message delivered in the same clock tick after a check is still new).
fn maildir_new(dir: &std::path::Path, mark: Option<&str>) -> Result<Fetched, MailError> {
    let entries = maildir::list(dir)?;
    let (mark_ns, mark_names): (i128, Vec<&str>) = match mark {
        Some(m) => {
            let mut parts = m.split_whitespace();
            let ns = parts
                .next()
                .and_then(|p| p.parse().ok())
                .unwrap_or(i128::MIN);
            (ns, parts.collect())
        }
        None => (i128::MIN, Vec::new()),
    };
    let new: Vec<&maildir::Entry> = entries
        .iter()
        .filter(|e| {
            e.delivered_ns > mark_ns
                || (e.delivered_ns == mark_ns && !mark_names.contains(&e.unique.as_str()))
        })
        .collect();
    let mut out = Fetched {
        more: new.len().saturating_sub(MAX_LISTED),
        ..Fetched::default()
    };
    for e in new.iter().rev().take(MAX_LISTED) {
        match parse_entry(e) {
            Ok(m) => out.mails.push(m),
            Err(p) => out.problems.push(p),
        }
    }
    out.mark = match entries.last() {
        Some(last) => {
            let names: Vec<&str> = entries
                .iter()
                .filter(|e| e.delivered_ns == last.delivered_ns)
                .map(|e| e.unique.as_str())
                .collect();
            format!("{} {}", last.delivered_ns, names.join(" "))
        }
        None => mark.unwrap_or("").to_string(),
    };
    Ok(out)
}
