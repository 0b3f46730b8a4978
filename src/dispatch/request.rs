//! Requests that are not requests. An empty message, one made of punctuation only, or one that
//! names an agent or skill the crew does not have is a usage error: routing it would run
//! something the user never asked for (`@gardener prune my notes` once ran tag-garden and the
//! architect), so it stops before anything runs.

use crate::crew::{Crew, normalize_name};

/// Why a message cannot be run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RequestError {
    #[error("the message is empty; say what you want, e.g. crew ask \"file my notes\"")]
    Empty,
    #[error("the message \"{0}\" has no words; say what you want, e.g. crew ask \"file my notes\"")]
    NoWords(String),
    #[error("{mark}{name} is no active agent or skill of this crew.{} `crew agents list` and `crew skills list` show them", did_you_mean(.suggestion.as_deref(), .mark))]
    Unknown {
        mark: char,
        name: String,
        suggestion: Option<String>,
    },
}

fn did_you_mean(suggestion: Option<&str>, mark: &char) -> String {
    suggestion
        .map(|s| format!(" Did you mean {mark}{s}?"))
        .unwrap_or_default()
}

/// Checks a message before it is routed.
pub fn check(crew: &Crew, message: &str) -> Result<(), RequestError> {
    let trimmed = message.trim();
    if trimmed.is_empty() {
        return Err(RequestError::Empty);
    }
    if crate::text::normalize(trimmed).trim().is_empty() {
        return Err(RequestError::NoWords(trimmed.to_string()));
    }
    let Some(mark) = trimmed.chars().next().filter(|c| *c == '@' || *c == '/') else {
        return Ok(());
    };
    let word: String = trimmed[1..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .collect();
    // `/home/me/note.md` or `@ 10am` are text, not names
    let is_name = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_alphanumeric() || c == '-' || c == '_');
    if !is_name || crew.lookup(&word).is_some() {
        return Ok(());
    }
    Err(RequestError::Unknown {
        mark,
        suggestion: closest_name(crew, &word),
        name: word,
    })
}

/// The active agent or skill whose name, or one hyphen-separated part of it, is closest to
/// `word` in edits — when close enough to be a likely slip.
fn closest_name(crew: &Crew, word: &str) -> Option<String> {
    let want = normalize_name(word);
    let mut best: Option<(usize, String)> = None;
    for d in crew.agents.iter().chain(&crew.skills) {
        if crew.lookup(&d.name).is_none() {
            continue;
        }
        let whole = normalize_name(&d.name);
        let distance = std::iter::once(whole)
            .chain(d.name.split('-').map(normalize_name))
            .filter(|p| p.len() >= 3)
            .map(|p| edits(&want, &p))
            .min()
            .unwrap_or(usize::MAX);
        if distance <= (want.chars().count() / 3).max(2)
            && best.as_ref().is_none_or(|(b, _)| distance < *b)
        {
            best = Some((distance, d.name.clone()));
        }
    }
    best.map(|(_, n)| n)
}

/// Levenshtein distance over characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crew() -> Crew {
        Crew::builtin()
    }

    #[test]
    fn blank_and_punctuation_only_messages_are_refused() {
        let c = crew();
        assert_eq!(check(&c, ""), Err(RequestError::Empty));
        assert_eq!(check(&c, "   \n\t"), Err(RequestError::Empty));
        assert!(matches!(check(&c, "?!…"), Err(RequestError::NoWords(_))));
        assert!(matches!(
            check(&c, "— -- ..."),
            Err(RequestError::NoWords(_))
        ));
    }

    #[test]
    fn unknown_names_are_refused_with_the_closest_one() {
        let c = crew();
        let err = check(&c, "@gardener prune my notes").unwrap_err();
        assert_eq!(
            err,
            RequestError::Unknown {
                mark: '@',
                name: "gardener".into(),
                suggestion: Some("tag-garden".into()),
            }
        );
        assert!(err.to_string().contains("Did you mean @tag-garden?"));
        let err = check(&c, "/inbox-triag").unwrap_err();
        assert!(
            err.to_string().contains("Did you mean /inbox-triage?"),
            "{err}"
        );
        let err = check(&c, "@zzzzzzzz hello").unwrap_err();
        assert!(!err.to_string().contains("Did you mean"), "{err}");
    }

    #[test]
    fn known_names_paths_and_plain_text_pass() {
        let c = crew();
        assert_eq!(check(&c, "@seeker where is my tax note"), Ok(()));
        assert_eq!(check(&c, "/inbox-triage"), Ok(()));
        assert_eq!(check(&c, "/home/me/notes.md file this"), Ok(()));
        assert_eq!(check(&c, "file these notes"), Ok(()));
        assert_eq!(check(&c, "dove sono le note?"), Ok(()));
    }

    #[test]
    fn edit_distance() {
        assert_eq!(edits("kitten", "sitting"), 3);
        assert_eq!(edits("", "abc"), 3);
        assert_eq!(edits("garden", "garden"), 0);
    }
}
