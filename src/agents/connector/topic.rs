//! The note a connector request is about: a `[[link]]`, else the words after "for", "of",
//! "around"… (`connector_topic_markers` in `references/word-lists.yaml`) as a note's name, an
//! alias, words a name or an alias holds, and at last a search of the notes' text. When several
//! notes fit equally, the best is taken and the others are named.

use crate::analysis::search::{Query, best_in, search};
use crate::crew::Folders;
use crate::lang::detect::function_word;
use crate::text::{normalize, word_list, words};
use crate::vault::{NoteSource, Vault};

/// A note a request names; `topic` when the request named no note by its name and the note
/// was found another way (what the request said, and how it led there); `others`, the notes
/// that fitted as well but were not taken.
pub(crate) struct Named {
    pub note: usize,
    pub topic: Option<(String, Found)>,
    pub others: Vec<usize>,
}

/// How a topic that is no note's name led to a note.
pub(crate) enum Found {
    /// One of the note's aliases is the topic.
    Alias(String),
    /// The note's name holds the topic's words.
    NameHolds,
    /// One of the note's aliases holds the topic's words.
    AliasHolds(String),
    /// No name or alias holds it: the note's text mentions it most (on this line).
    Search(usize),
}

/// Other notes named beside the one taken.
const OTHERS: usize = 5;

/// What a request may be about: the vault, the notes it reads, where to find its text.
pub(crate) struct Scope<'a> {
    pub vault: &'a Vault,
    pub source: &'a dyn NoteSource,
    pub folders: &'a Folders,
    pub today: chrono::NaiveDate,
}

/// The note a request names (see the module's note); `None` when it names none, and the
/// request is about the whole vault.
pub(crate) fn named_note(scope: &Scope, request: &str) -> Option<Named> {
    let vault = scope.vault;
    if let Some(start) = request.find("[[") {
        let rest = &request[start + 2..];
        let target = rest.split([']', '|', '#']).next().unwrap_or("");
        if let crate::vault::Resolution::File { id, .. } = vault.files.resolve("", target) {
            return vault.note_of_file(id).map(|note| Named {
                note,
                topic: None,
                others: Vec::new(),
            });
        }
    }
    let tail = tail_of(request)?;
    let tail = tail.as_str();
    let longest_in_tail = |names: &mut dyn Iterator<Item = (usize, String)>| {
        let mut best: Option<(usize, String)> = None;
        for (i, name) in names {
            if name.chars().count() < 3 || !tail.contains(&format!(" {name} ")) {
                continue;
            }
            if best.as_ref().is_none_or(|(_, b)| name.len() > b.len()) {
                best = Some((i, name));
            }
        }
        best
    };
    let mut names = vault
        .notes
        .iter()
        .enumerate()
        .map(|(i, n)| (i, normalize(n.name())));
    if let Some((note, _)) = longest_in_tail(&mut names) {
        return Some(Named {
            note,
            topic: None,
            others: Vec::new(),
        });
    }
    let mut aliases = vault
        .notes
        .iter()
        .enumerate()
        .flat_map(|(i, n)| n.aliases.iter().map(move |a| (i, normalize(a))));
    if let Some((note, alias)) = longest_in_tail(&mut aliases) {
        return Some(Named {
            note,
            topic: Some((
                alias.clone(),
                Found::Alias(shown_alias(vault, note, &alias)),
            )),
            others: Vec::new(),
        });
    }
    holding(vault, tail).or_else(|| searched(scope, tail))
}

/// The words after the last topic marker of the request (normalized, space on each side).
fn tail_of(request: &str) -> Option<String> {
    let normal = format!(" {} ", normalize(request));
    word_list("connector_topic_markers")
        .iter()
        .map(|m| format!(" {} ", normalize(m)))
        .filter_map(|m| {
            normal
                .rfind(&m)
                .map(|i| normal[i + m.len() - 1..].to_string())
        })
        .min_by_key(String::len)
}

/// An alias as the note writes it.
fn shown_alias(vault: &Vault, note: usize, alias: &str) -> String {
    vault.notes[note]
        .aliases
        .iter()
        .find(|a| normalize(a) == alias)
        .cloned()
        .unwrap_or_else(|| alias.to_string())
}

/// A word for the vault itself ("notes", "graph"), never a topic.
fn not_topic(word: &str) -> bool {
    word_list("connector_not_topics")
        .iter()
        .any(|n| normalize(n) == word)
}

/// The first words of `tail` that can be a topic: up to four, at least one of three letters
/// that is no function word and no word for the vault itself; longest first.
fn topics(tail: &str) -> Vec<Vec<&str>> {
    let said: Vec<&str> = words(tail).collect();
    (1..=said.len().min(4))
        .rev()
        .map(|len| said[..len].to_vec())
        .filter(|topic| {
            topic
                .iter()
                .any(|w| w.chars().count() >= 3 && !function_word(w) && !not_topic(w))
        })
        .collect()
}

/// The note whose name, else one of whose aliases, holds the longest topic's words (a name
/// longer than the topic): of several, the shortest name, then the most linked to.
fn holding(vault: &Vault, tail: &str) -> Option<Named> {
    let split = |s: &str| -> Vec<String> { words(&normalize(s)).map(str::to_string).collect() };
    let name_words: Vec<Vec<String>> = vault.notes.iter().map(|n| split(n.name())).collect();
    let holds = |topic: &[&str], w: &[String]| {
        topic.iter().all(|t| w.iter().any(|n| n == t)) && w.len() > topic.len()
    };
    let rank = |i: usize, len: usize| {
        (
            len,
            std::cmp::Reverse(vault.links_to(i).len()),
            vault.notes[i].path.clone(),
        )
    };
    for topic in topics(tail) {
        let said = topic.join(" ");
        let mut by_name: Vec<usize> = (0..vault.notes.len())
            .filter(|&i| holds(&topic, &name_words[i]))
            .collect();
        by_name.sort_by_key(|&i| rank(i, name_words[i].len()));
        if let Some((&note, rest)) = by_name.split_first() {
            return Some(Named {
                note,
                topic: Some((said, Found::NameHolds)),
                others: rest.iter().copied().take(OTHERS).collect(),
            });
        }
        let mut by_alias: Vec<(usize, String, usize)> = vault
            .notes
            .iter()
            .enumerate()
            .filter_map(|(i, n)| {
                n.aliases.iter().find_map(|a| {
                    let w = split(a);
                    holds(&topic, &w).then(|| (i, a.clone(), w.len()))
                })
            })
            .collect();
        by_alias.sort_by_key(|(i, _, len)| rank(*i, *len));
        if let Some(((note, alias, _), rest)) = by_alias.split_first() {
            return Some(Named {
                note: *note,
                topic: Some((said, Found::AliasHolds(alias.clone()))),
                others: rest.iter().map(|(i, _, _)| *i).take(OTHERS).collect(),
            });
        }
    }
    None
}

/// The note whose text mentions the longest topic best (every word of it, a plural or a typo
/// allowed), by the vault's search; the next hits are the others.
fn searched(scope: &Scope, tail: &str) -> Option<Named> {
    let vault = scope.vault;
    for topic in topics(tail) {
        let terms: Vec<String> = topic
            .iter()
            .filter(|w| !function_word(w) && !not_topic(w))
            .map(|w| w.to_string())
            .collect();
        let q = Query {
            terms: terms.clone(),
            ..Query::default()
        };
        let hits = search(
            vault,
            scope.source,
            scope.folders,
            &q,
            OTHERS + 1,
            scope.today,
        );
        let mut found: Vec<(usize, usize)> = hits
            .iter()
            .filter_map(|h| Some((vault.note_index(&h.path)?, h.line)))
            .filter(|&(i, _)| mentions_all(scope, i, &terms))
            .collect();
        if found.is_empty() {
            continue;
        }
        let (note, line) = found.remove(0);
        return Some(Named {
            note,
            topic: Some((topic.join(" "), Found::Search(line))),
            others: found.into_iter().map(|(i, _)| i).collect(),
        });
    }
    None
}

/// Whether note `i`'s name, aliases or text hold every term (a plural or a typo allowed).
fn mentions_all(scope: &Scope, i: usize, terms: &[String]) -> bool {
    let note = &scope.vault.notes[i];
    let Some((text, _)) = crate::agents::common::reread(scope.source, note) else {
        return false;
    };
    let all = normalize(&format!(
        "{} {} {text}",
        note.name(),
        note.aliases.join(" ")
    ));
    let mut ws: Vec<&str> = words(&all).collect();
    ws.sort_unstable();
    ws.dedup();
    terms.iter().all(|t| best_in(t, &ws) >= 0.8)
}
