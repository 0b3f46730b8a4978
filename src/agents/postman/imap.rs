//! IMAP over TLS (rustls), read only: the mailbox is opened with `EXAMINE` and messages are
//! fetched with `BODY.PEEK[]`, so no flag changes and nothing is stored on the server.

use std::io::BufRead;
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::Duration;

use super::mail::Mail;
use super::source::{Fetched, MAX_LISTED};
use crate::crew::mailcal::ImapConfig;

type Tls = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;
type Session = imap::Session<Tls>;

#[derive(Debug, thiserror::Error)]
pub(crate) enum ImapError {
    #[error("IMAP password: {0}")]
    Password(String),
    #[error("cannot reach {host}:{port}: {reason}")]
    Connect {
        host: String,
        port: u16,
        reason: String,
    },
    #[error("TLS with {host}: {reason}")]
    Tls { host: String, reason: String },
    #[error("{host} refused the login of {user}: {reason}")]
    Login {
        host: String,
        user: String,
        reason: String,
    },
    #[error("IMAP {host}: {reason}")]
    Protocol { host: String, reason: String },
}

/// The password, from `password_env` or the first line `password_cmd` prints. Neither the
/// password nor the command's output ever goes into an error or a log line.
fn password(cfg: &ImapConfig) -> Result<String, ImapError> {
    if let Some(var) = &cfg.password_env {
        return match std::env::var(var) {
            Ok(p) if !p.is_empty() => Ok(p),
            _ => Err(ImapError::Password(format!(
                "the environment variable {var} (mail.imap.password_env) is not set"
            ))),
        };
    }
    if let Some(cmd) = &cfg.password_cmd {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(cmd)
            .stdin(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .output()
            .map_err(|e| {
                ImapError::Password(format!("mail.imap.password_cmd could not run: {e}"))
            })?;
        if !out.status.success() {
            return Err(ImapError::Password(format!(
                "mail.imap.password_cmd failed ({})",
                out.status
            )));
        }
        let first = out
            .stdout
            .lines()
            .next()
            .and_then(Result::ok)
            .unwrap_or_default();
        if first.is_empty() {
            return Err(ImapError::Password(
                "mail.imap.password_cmd printed nothing".into(),
            ));
        }
        return Ok(first);
    }
    Err(ImapError::Password(
        "set mail.imap.password_env (an environment variable) or mail.imap.password_cmd (a command printing it)".into(),
    ))
}

/// Removes a secret from a server's or library's message, should one ever echo it.
fn scrub(text: &str, secret: &str) -> String {
    if secret.len() >= 3 {
        text.replace(secret, "[password]")
    } else {
        text.to_string()
    }
}

fn tls_config(cfg: &ImapConfig) -> Result<rustls::ClientConfig, ImapError> {
    let tls_err = |reason: String| ImapError::Tls {
        host: cfg.host.clone(),
        reason,
    };
    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(ca) = &cfg.ca_file {
        use rustls_pki_types::pem::PemObject as _;
        let certs = rustls_pki_types::CertificateDer::pem_file_iter(ca)
            .map_err(|e| tls_err(format!("mail.imap.ca_file {ca}: {e}")))?;
        let mut added = 0;
        for c in certs {
            let c = c.map_err(|e| tls_err(format!("mail.imap.ca_file {ca}: {e}")))?;
            roots
                .add(c)
                .map_err(|e| tls_err(format!("mail.imap.ca_file {ca}: {e}")))?;
            added += 1;
        }
        if added == 0 {
            return Err(tls_err(format!(
                "mail.imap.ca_file {ca} holds no PEM certificate"
            )));
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Ok(rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_err(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth())
}

/// Connects, logs in and opens the mailbox read-only; returns the session and UIDVALIDITY.
fn open(cfg: &ImapConfig) -> Result<(Session, u32), ImapError> {
    let secret = password(cfg)?;
    let connect_err = |reason: String| ImapError::Connect {
        host: cfg.host.clone(),
        port: cfg.port,
        reason,
    };
    let addr = (cfg.host.as_str(), cfg.port)
        .to_socket_addrs()
        .map_err(|e| connect_err(e.to_string()))?
        .next()
        .ok_or_else(|| connect_err("the name resolves to no address".into()))?;
    let tcp = TcpStream::connect_timeout(&addr, Duration::from_secs(20))
        .map_err(|e| connect_err(e.to_string()))?;
    let _ = tcp.set_read_timeout(Some(Duration::from_secs(60)));
    let _ = tcp.set_write_timeout(Some(Duration::from_secs(60)));
    let name =
        rustls_pki_types::ServerName::try_from(cfg.host.clone()).map_err(|e| ImapError::Tls {
            host: cfg.host.clone(),
            reason: e.to_string(),
        })?;
    let conn = rustls::ClientConnection::new(Arc::new(tls_config(cfg)?), name).map_err(|e| {
        ImapError::Tls {
            host: cfg.host.clone(),
            reason: e.to_string(),
        }
    })?;
    let mut client = imap::Client::new(rustls::StreamOwned::new(conn, tcp));
    client.read_greeting().map_err(|e| ImapError::Tls {
        host: cfg.host.clone(),
        reason: e.to_string(),
    })?;
    let mut session = client
        .login(&cfg.user, &secret)
        .map_err(|(e, _)| ImapError::Login {
            host: cfg.host.clone(),
            user: cfg.user.clone(),
            reason: scrub(&e.to_string(), &secret),
        })?;
    let mailbox = session
        .examine(&cfg.mailbox)
        .map_err(|e| ImapError::Protocol {
            host: cfg.host.clone(),
            reason: format!(
                "EXAMINE {}: {}",
                cfg.mailbox,
                scrub(&e.to_string(), &secret)
            ),
        })?;
    Ok((session, mailbox.uid_validity.unwrap_or(0)))
}

fn protocol(cfg: &ImapConfig, what: &str, e: &imap::Error) -> ImapError {
    ImapError::Protocol {
        host: cfg.host.clone(),
        reason: format!("{what}: {e}"),
    }
}

fn all_uids(cfg: &ImapConfig, s: &mut Session) -> Result<Vec<u32>, ImapError> {
    let mut uids: Vec<u32> = s
        .uid_search("ALL")
        .map_err(|e| protocol(cfg, "UID SEARCH", &e))?
        .into_iter()
        .collect();
    uids.sort_unstable();
    Ok(uids)
}

/// Fetches whole messages by UID (without setting `\Seen`).
fn fetch_uids(
    cfg: &ImapConfig,
    s: &mut Session,
    validity: u32,
    uids: &[u32],
) -> Result<(Vec<Mail>, Vec<String>), ImapError> {
    let mut mails = Vec::new();
    let mut problems = Vec::new();
    if uids.is_empty() {
        return Ok((mails, problems));
    }
    let set = uids
        .iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let fetches = s
        .uid_fetch(&set, "(UID BODY.PEEK[])")
        .map_err(|e| protocol(cfg, "UID FETCH", &e))?;
    for f in fetches.iter() {
        let Some(uid) = f.uid else { continue };
        let origin = format!("imap://{}@{}/{} UID {uid}", cfg.user, cfg.host, cfg.mailbox);
        match f.body() {
            Some(bytes) => match Mail::parse(bytes, &format!("imap:{validity}:{uid}"), &origin) {
                Ok(m) => mails.push(m),
                Err(b) => problems.push(format!("{b}; skipped")),
            },
            None => problems.push(format!("{origin}: the server sent no body; skipped")),
        }
    }
    // newest (highest UID) first, as the Maildir lists them
    mails.sort_by_key(|m| {
        std::cmp::Reverse(
            m.key
                .rsplit(':')
                .next()
                .and_then(|u| u.parse::<u32>().ok())
                .unwrap_or(0),
        )
    });
    Ok((mails, problems))
}

/// Messages with a UID above the mark (`UIDVALIDITY LASTUID`); all of them on the first check
/// or when the server renumbered the mailbox.
pub(crate) fn fetch_new(cfg: &ImapConfig, mark: Option<&str>) -> Result<Fetched, ImapError> {
    let (mut s, validity) = open(cfg)?;
    let last = mark.and_then(|m| {
        let mut p = m.split_whitespace();
        let v: u32 = p.next()?.parse().ok()?;
        let u: u32 = p.next()?.parse().ok()?;
        (v == validity).then_some(u)
    });
    let uids = all_uids(cfg, &mut s)?;
    let new: Vec<u32> = uids
        .iter()
        .copied()
        .filter(|u| last.is_none_or(|l| *u > l))
        .collect();
    let listed: Vec<u32> = new.iter().rev().take(MAX_LISTED).copied().collect();
    let (mails, problems) = fetch_uids(cfg, &mut s, validity, &listed)?;
    let _ = s.logout();
    let top = uids.last().copied().or(last).unwrap_or(0);
    Ok(Fetched {
        mails,
        problems,
        more: new.len().saturating_sub(MAX_LISTED),
        mark: format!("{validity} {top}"),
    })
}

/// Messages by key (`imap:UIDVALIDITY:UID`); keys of another UIDVALIDITY are left out.
pub(crate) fn fetch_keys(
    cfg: &ImapConfig,
    keys: &[String],
) -> Result<(Vec<Mail>, Vec<String>), ImapError> {
    let wanted: Vec<(u32, u32)> = keys
        .iter()
        .filter_map(|k| {
            let mut p = k.strip_prefix("imap:")?.split(':');
            Some((p.next()?.parse().ok()?, p.next()?.parse().ok()?))
        })
        .collect();
    if wanted.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let (mut s, validity) = open(cfg)?;
    let uids: Vec<u32> = wanted
        .iter()
        .filter(|(v, _)| *v == validity)
        .map(|(_, u)| *u)
        .collect();
    let out = fetch_uids(cfg, &mut s, validity, &uids)?;
    let _ = s.logout();
    Ok(out)
}

/// The newest `n` messages.
pub(crate) fn fetch_recent(
    cfg: &ImapConfig,
    n: usize,
) -> Result<(Vec<Mail>, Vec<String>), ImapError> {
    let (mut s, validity) = open(cfg)?;
    let uids = all_uids(cfg, &mut s)?;
    let newest: Vec<u32> = uids.iter().rev().take(n).copied().collect();
    let out = fetch_uids(cfg, &mut s, validity, &newest)?;
    let _ = s.logout();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg() -> ImapConfig {
        ImapConfig {
            host: "127.0.0.1".into(),
            port: 1,
            user: "u".into(),
            password_env: None,
            password_cmd: None,
            mailbox: "INBOX".into(),
            ca_file: None,
        }
    }

    #[test]
    fn password_sources_and_their_errors_hold_no_secret() {
        let mut c = cfg();
        assert!(
            password(&c)
                .unwrap_err()
                .to_string()
                .contains("password_env")
        );
        c.password_cmd = Some("printf 's3cret-value\\nsecond'".into());
        assert_eq!(password(&c).expect("cmd"), "s3cret-value");
        c.password_cmd = Some("echo s3cret-value >&2; exit 3".into());
        let e = password(&c).unwrap_err().to_string();
        assert!(!e.contains("s3cret"), "{e}");
        c.password_cmd = None;
        c.password_env = Some("CREW_TEST_SURELY_UNSET_VARIABLE".into());
        assert!(password(&c).unwrap_err().to_string().contains("not set"));
        assert_eq!(
            scrub("NO bad pass s3cret-value", "s3cret-value"),
            "NO bad pass [password]"
        );
    }

    #[test]
    fn an_unreachable_server_is_a_clear_error() {
        let mut c = cfg();
        c.password_cmd = Some("echo pw".into());
        let e = fetch_new(&c, None).unwrap_err().to_string();
        assert!(e.contains("cannot reach 127.0.0.1:1"), "{e}");
    }
}
