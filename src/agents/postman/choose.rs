//! Which message a request names — "email 3" of the last listing, or words of a subject or
//! sender — shared by "save email …" and "draft a reply to …". Pure apart from reading the
//! mail source.

use std::sync::LazyLock;

use regex::Regex;

use super::mail::Mail;
use super::md_inline;
use super::people::Directory;
use super::source::Source;

/// "email 3", "message #3", "number 3", "#3": the number of the last listing.
static INDEX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(?:e-?mails?|mails?|messages?|number|no\.?|n\.|nr\.?|numero|nummer)\s*#?|#)\s*(\d{1,3})\b")
        .expect("static regex")
});
static BARE_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{1,3})\b").expect("static regex"));

/// What a request asks for: a listing number, naming words, or "the important ones".
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    pub number: Option<usize>,
    pub words: Vec<String>,
    pub important: bool,
}

impl Request {
    /// Reads a request; `verbs` are the mode's own words ("draft", "reply", …), which name
    /// no message.
    pub fn of(message: &str, verbs: &[&str], important: bool) -> Request {
        let words = naming_words(message, verbs);
        let number = listing_index(message, &words);
        let words = match number {
            Some(n) => words.into_iter().filter(|w| *w != n.to_string()).collect(),
            None => words,
        };
        Request {
            number,
            words,
            important,
        }
    }
}

/// The words of the request that may name a message (its subject or sender).
fn naming_words(message: &str, verbs: &[&str]) -> Vec<String> {
    let verbs: Vec<String> = verbs.iter().map(|v| crate::text::normalize(v)).collect();
    crate::text::normalize(message)
        .split_whitespace()
        .filter(|w| {
            (w.chars().count() > 2 || w.chars().all(|c| c.is_ascii_digit()))
                && !crate::text::word_list("mail_command_words").contains(w)
                && !verbs.iter().any(|v| v == w)
        })
        .map(str::to_string)
        .collect()
}

/// The listing number a request names; a bare number counts only when no other word could
/// name the message ("save 3", but not "save the invoice 123").
fn listing_index(message: &str, words: &[String]) -> Option<usize> {
    INDEX
        .captures(message)
        .or_else(|| {
            words
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_digit()))
                .then(|| BARE_NUMBER.captures(message))
                .flatten()
        })
        .and_then(|c| c[1].parse().ok())
}

/// Why a request names no one message; its text is the answer to give instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NotChosen {
    #[error(
        "There is no email number {number} in the last listing ({listed} shown). Say \"check my email\" to list what is new.\n"
    )]
    NoSuchNumber { number: usize, listed: usize },
    #[error(
        "Which email? The last listing has {0} message(s): say \"email N\" with its number, or name words of its subject or sender.\n"
    )]
    Which(usize),
    /// No message holds the words; the words asked.
    #[error("No email matches \"{0}\". Say \"check my email\" and then use the number it shows.\n")]
    NoMatch(String),
    /// Several messages hold them equally; one line per message (at most ten).
    #[error(
        "Several emails match; say \"check my email\" and then use the number it shows, or add words:\n{0}"
    )]
    Several(String),
}

/// The messages a request names, with the problems met reading them.
pub(crate) fn choose(
    source: &Source,
    listing: &[(usize, String)],
    req: &Request,
    dir: &Directory,
) -> Result<(Vec<Mail>, Vec<String>), NotChosen> {
    let listed_keys: Vec<String> = listing.iter().map(|(_, k)| k.clone()).collect();
    let (candidates, problems) = match (req.number, req.important, req.words.is_empty()) {
        (Some(n), _, _) => match listing.iter().find(|(i, _)| *i == n) {
            Some((_, k)) => source.fetch(std::slice::from_ref(k)),
            None => {
                return Err(NotChosen::NoSuchNumber {
                    number: n,
                    listed: listing.len(),
                });
            }
        },
        (None, true, _) | (None, false, true) => source.fetch(&listed_keys),
        (None, false, false) => source.recent(200),
    }
    .unwrap_or_else(|e| (Vec::new(), vec![e.to_string()]));
    let chosen = if req.number.is_some() {
        candidates
    } else if req.important {
        candidates
            .into_iter()
            .filter(|m| important(m, dir))
            .collect()
    } else if req.words.is_empty() {
        if candidates.len() != 1 {
            return Err(NotChosen::Which(candidates.len()));
        }
        candidates
    } else {
        best_match(candidates, &req.words)?
    };
    Ok((chosen, problems))
}

/// From a VIP or a known person, or with a deadline; never bulk mail.
fn important(m: &Mail, dir: &Directory) -> bool {
    !m.bulk
        && (dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref())
            || dir
                .find(m.from_email.as_deref(), m.from_name.as_deref())
                .is_some()
            || m.deadline().is_some())
}

/// The one message whose subject and sender hold most of the words; a tie is asked about.
fn best_match(candidates: Vec<Mail>, words: &[String]) -> Result<Vec<Mail>, NotChosen> {
    let score = |m: &Mail| {
        let hay = crate::text::normalize(&format!("{} {}", m.subject, m.sender()));
        let hay: Vec<&str> = hay.split_whitespace().collect();
        words.iter().filter(|w| hay.contains(&w.as_str())).count()
    };
    let best = candidates.iter().map(score).max().unwrap_or(0);
    let top: Vec<Mail> = candidates
        .into_iter()
        .filter(|m| best > 0 && score(m) == best)
        .collect();
    if top.len() == 1 {
        return Ok(top);
    }
    if top.is_empty() {
        return Err(NotChosen::NoMatch(words.join(" ")));
    }
    let lines: String = top
        .iter()
        .take(10)
        .map(|m| {
            format!(
                "- **{}** — {}\n",
                md_inline(&m.subject),
                md_inline(&m.sender())
            )
        })
        .collect();
    Err(NotChosen::Several(lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(m: &str) -> Option<usize> {
        Request::of(m, &[], false).number
    }

    #[test]
    fn which_number_is_a_listing_index() {
        assert_eq!(index("save email 3"), Some(3));
        assert_eq!(index("save this email #12"), Some(12));
        assert_eq!(index("save 4"), Some(4));
        assert_eq!(index("save the email about invoice 123"), None);
        assert_eq!(
            naming_words("save the email about invoice 123", &[]),
            vec!["invoice", "123"]
        );
    }

    #[test]
    fn a_mode_s_own_words_name_no_message() {
        let verbs = ["draft", "reply", "borrador", "respuesta", "correo"];
        let r = Request::of("draft a reply to Ana", &verbs, false);
        assert_eq!((r.number, r.words), (None, vec!["ana".to_string()]));
        let r = Request::of("borrador de respuesta al correo 2", &verbs, false);
        assert_eq!(r.number, Some(2));
        assert!(r.words.is_empty(), "{:?}", r.words);
    }
}
