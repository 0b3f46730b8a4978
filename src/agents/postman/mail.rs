//! One message as the postman sees it: sender, subject, date, text, whether it is bulk mail,
//! and the deadline it names. Parsed with `mail-parser` (MIME, transfer and charset encodings).

use chrono::NaiveDateTime;
use mail_parser::MimeHeaders;

pub use super::deadline::Deadline;
use super::deadline::find_deadline;
use super::one_line;

/// A parsed message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mail {
    /// Stable identity across runs: `maildir:UNIQUE` or `imap:UIDVALIDITY:UID`.
    pub key: String,
    /// Where it came from, for messages about it (a file path, or the IMAP mailbox and UID).
    pub origin: String,
    pub from_name: Option<String>,
    pub from_email: Option<String>,
    pub to: Vec<String>,
    pub subject: String,
    /// When it was sent, in local time.
    pub date: Option<NaiveDateTime>,
    pub message_id: Option<String>,
    /// The text body (an HTML-only message is converted to text).
    pub text: String,
    pub attachments: Vec<String>,
    /// A newsletter, mailing list or automated message.
    pub bulk: bool,
}

/// Why a message could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {reason}")]
pub struct BadMessage {
    pub origin: String,
    pub reason: String,
}

/// The longest body text kept (the rest of a very long message is cut, and says so).
const MAX_TEXT: usize = 50_000;

impl Mail {
    /// Parses raw RFC 5322 bytes. A file with no header a message must have is refused.
    pub fn parse(bytes: &[u8], key: &str, origin: &str) -> Result<Mail, BadMessage> {
        let bad = |reason: &str| BadMessage {
            origin: origin.to_string(),
            reason: reason.to_string(),
        };
        if bytes.is_empty() {
            return Err(bad("the file is empty"));
        }
        let msg = mail_parser::MessageParser::default()
            .parse(bytes)
            .ok_or_else(|| bad("not a mail message"))?;
        let from = msg.from().and_then(|a| a.first());
        if from.is_none() && msg.date().is_none() && msg.message_id().is_none() {
            return Err(bad(
                "not a mail message (no From, Date or Message-ID header)",
            ));
        }
        let date = msg.date().and_then(|d| {
            chrono::DateTime::from_timestamp(d.to_timestamp(), 0)
                .map(|t| t.with_timezone(&chrono::Local).naive_local())
        });
        let mut text = msg
            .body_text(0)
            .map(|t| t.replace("\r\n", "\n"))
            .unwrap_or_default();
        if text.len() > MAX_TEXT {
            let mut cut = MAX_TEXT;
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            text.truncate(cut);
            text.push_str("\n[… cut by crew]");
        }
        let header = |name: &str| msg.header_raw(name).map(|v| v.trim().to_lowercase());
        let bulk = header("List-Unsubscribe").is_some()
            || header("List-Id").is_some()
            || header("Precedence").is_some_and(|p| matches!(p.as_str(), "bulk" | "list" | "junk"))
            || header("Auto-Submitted").is_some_and(|a| a != "no");
        Ok(Mail {
            key: key.to_string(),
            origin: origin.to_string(),
            // headers are folded to one line: an encoded word may decode to line breaks, and
            // a name is written where a break would start a line of the note
            from_name: from
                .and_then(|a| a.name())
                .map(one_line)
                .filter(|s| !s.is_empty()),
            from_email: from
                .and_then(|a| a.address())
                .map(|s| one_line(s).to_lowercase()),
            to: msg
                .to()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| {
                            x.address().map(|e| match x.name() {
                                Some(n) => one_line(&format!("{n} <{e}>")),
                                None => one_line(e),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default(),
            subject: msg
                .subject()
                .map(|s| {
                    if s.contains('\u{fffd}') {
                        let charset = msg
                            .content_type()
                            .and_then(|c| c.attribute("charset"))
                            .unwrap_or("windows-1252");
                        raw_header(bytes, "subject")
                            .and_then(|raw| decode_8bit(&raw, charset))
                            .unwrap_or_else(|| s.to_string())
                    } else {
                        s.to_string()
                    }
                })
                .map(|s| one_line(&s))
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| "(no subject)".into()),
            date,
            message_id: msg.message_id().map(str::to_string),
            text,
            attachments: msg
                .attachments()
                .map(|a| one_line(a.attachment_name().unwrap_or("(unnamed)")))
                .collect(),
            bulk,
        })
    }

    /// The sender as shown: `Name <address>`, or whichever of the two there is.
    pub fn sender(&self) -> String {
        match (&self.from_name, &self.from_email) {
            (Some(n), Some(e)) => format!("{n} <{e}>"),
            (Some(n), None) => n.clone(),
            (None, Some(e)) => e.clone(),
            (None, None) => "(unknown sender)".into(),
        }
    }

    /// The deadline the subject or the new part of the body names (not the quoted history).
    pub fn deadline(&self) -> Option<Deadline> {
        let sent = self.date.map(|d| d.date())?;
        find_deadline(&self.subject, sent).or_else(|| find_deadline(&fresh_text(&self.text), sent))
    }
}

/// A header's raw bytes (continuation lines joined), for headers sent as 8-bit text that is
/// not UTF-8, which the parser can only show with replacement characters.
fn raw_header(bytes: &[u8], name: &str) -> Option<Vec<u8>> {
    let end = bytes
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| bytes.windows(2).position(|w| w == b"\n\n"))
        .unwrap_or(bytes.len());
    let mut value: Option<Vec<u8>> = None;
    for line in bytes[..end].split(|b| *b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match &mut value {
            Some(v) if line.first().is_some_and(|b| *b == b' ' || *b == b'\t') => {
                v.push(b' ');
                v.extend_from_slice(line.trim_ascii());
            }
            Some(_) => break,
            None => {
                if line.len() > name.len()
                    && line[..name.len()].eq_ignore_ascii_case(name.as_bytes())
                    && line[name.len()] == b':'
                {
                    value = Some(line[name.len() + 1..].trim_ascii().to_vec());
                }
            }
        }
    }
    value
}

/// 8-bit header bytes in the message's charset (Latin-1's superset when it names none).
fn decode_8bit(raw: &[u8], charset: &str) -> Option<String> {
    if let Ok(s) = std::str::from_utf8(raw) {
        return Some(s.to_string());
    }
    let decode = mail_parser::decoders::charsets::map::charset_decoder(charset.as_bytes())
        .or_else(|| mail_parser::decoders::charsets::map::charset_decoder(b"windows-1252"))?;
    Some(decode(raw))
}

/// The part of a body the sender wrote: quoted lines and the history under "On … wrote:" or
/// a forwarded-message marker are left out, so an old date is not taken for a deadline.
fn fresh_text(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines().take(400) {
        let t = line.trim_start();
        if t.starts_with('>') {
            continue;
        }
        let lower = t.to_lowercase();
        if (lower.starts_with("on ") && lower.trim_end().ends_with("wrote:"))
            || lower.starts_with("-----original message")
            || lower.starts_with("---------- forwarded message")
        {
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::NaiveDate;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date")
    }

    #[test]
    fn quoted_history_is_not_a_deadline() {
        let t = "Thanks!\n\nOn Mon, Nov 30, 2026 Ana wrote:\n> send it by Friday\n";
        assert_eq!(find_deadline(&fresh_text(t), d("2026-12-01")), None);
    }

    #[test]
    fn parses_multipart_quoted_printable_and_encoded_headers() {
        let raw = concat!(
            "From: =?ISO-8859-1?Q?Jos=E9_P=E9rez?= <Jose@Example.org>\r\n",
            "To: me@example.org\r\n",
            "Subject: =?iso-8859-1?q?Caf=E9_budget?=\r\n",
            "Date: Tue, 01 Dec 2026 12:00:00 +0000\r\n",
            "Message-ID: <a1@example.org>\r\n",
            "MIME-Version: 1.0\r\n",
            "Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n",
            "--b1\r\nContent-Type: text/plain; charset=iso-8859-1\r\n",
            "Content-Transfer-Encoding: quoted-printable\r\n\r\n",
            "Le caf=E9 co=FBte trop, r=E9ponds by Friday.\r\n",
            "--b1\r\nContent-Type: application/pdf; name=\"quote.pdf\"\r\n",
            "Content-Disposition: attachment; filename=\"quote.pdf\"\r\n",
            "Content-Transfer-Encoding: base64\r\n\r\nJVBERi0xLjQK\r\n--b1--\r\n"
        );
        let m = Mail::parse(raw.as_bytes(), "maildir:1", "m/1").expect("parses");
        assert_eq!(m.from_name.as_deref(), Some("José Pérez"));
        assert_eq!(m.from_email.as_deref(), Some("jose@example.org"));
        assert_eq!(m.subject, "Café budget");
        assert!(m.text.contains("Le café coûte trop"));
        assert_eq!(m.attachments, vec!["quote.pdf".to_string()]);
        assert!(!m.bulk);
        assert!(m.deadline().is_some());
    }

    #[test]
    fn encoded_headers_are_folded_to_one_line() {
        let raw = concat!(
            "From: =?UTF-8?Q?Mallory=0A---=0Astatus=3A_pwned?= <m@evil.example>\r\n",
            "To: =?UTF-8?Q?Me=0D=0Ax?= <me@example.org>\r\n",
            "Subject: =?UTF-8?Q?Invoice=0A=E2=80=A8status=3A_pwned?=\r\n",
            "Message-ID: <e1@evil.example>\r\n\r\nhi\r\n"
        );
        let m = Mail::parse(raw.as_bytes(), "k", "o").expect("parses");
        assert_eq!(m.from_name.as_deref(), Some("Mallory --- status: pwned"));
        assert_eq!(m.to, vec!["Me x <me@example.org>".to_string()]);
        assert_eq!(m.subject, "Invoice status: pwned");
    }

    #[test]
    fn bulk_and_broken() {
        let raw = "From: news@shop.example\r\nList-Unsubscribe: <mailto:u@shop.example>\r\nSubject: Sale\r\n\r\nhi\r\n";
        assert!(Mail::parse(raw.as_bytes(), "k", "o").expect("ok").bulk);
        assert!(Mail::parse(b"", "k", "o").is_err());
        let e = Mail::parse(b"\x00\x01garbage without headers", "k", "cur/x").unwrap_err();
        assert!(e.to_string().starts_with("cur/x:"));
    }
}
