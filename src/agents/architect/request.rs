//! What a structure request names, read from its words: the sub-folders after "with"
//! ("an area for Finance with budget and investments"), the folder and its parent of "a
//! sub-folder Receipts in Finance", the kind of "a template for book notes" and the topic of
//! "a MOC for Recipes". The joining words are data (`references/word-lists.yaml`). Pure.

use crate::text::{normalize, word_list};

/// A word of the request as written, and the key it is compared by (normalized, hyphens and
/// surrounding punctuation dropped).
struct Token<'a> {
    raw: &'a str,
    key: String,
}

fn key_of(word: &str) -> String {
    normalize(word.trim_matches(|c: char| !c.is_alphanumeric())).replace(['-', ' '], "")
}

fn tokens(line: &str) -> Vec<Token<'_>> {
    line.split_whitespace()
        .map(|raw| Token {
            raw,
            key: key_of(raw),
        })
        .collect()
}

fn in_list(key: &str, list: &[&str]) -> bool {
    !key.is_empty() && list.iter().any(|w| key_of(w) == key)
}

/// The index just past the first phrase of `list` found as whole words in `toks`.
fn after_phrase(toks: &[Token], list: &[&str]) -> Option<usize> {
    let phrases: Vec<Vec<String>> = list
        .iter()
        .map(|p| p.split_whitespace().map(key_of).collect())
        .collect();
    (0..toks.len()).find_map(|i| {
        phrases
            .iter()
            .filter(|p| !p.is_empty() && i + p.len() <= toks.len())
            .find(|p| p.iter().zip(&toks[i..]).all(|(w, t)| *w == t.key))
            .map(|p| i + p.len())
    })
}

/// The words as written, joined, without quotes and closing punctuation.
fn name_of(toks: &[Token]) -> String {
    let joined: Vec<&str> = toks.iter().map(|t| t.raw).collect();
    joined
        .join(" ")
        .trim_matches(['"', '\'', '“', '”', '.', '!', '?', ',', ':', ';'])
        .trim()
        .to_string()
}

/// Skips the little words between a marker and a name ("for", "a", "called").
fn skip_name_words(toks: &[Token], mut at: usize) -> usize {
    while at < toks.len() && in_list(&toks[at].key, word_list("architect_name_words")) {
        at += 1;
    }
    at
}

/// A new home's name and the sub-folders listed after a "with" word: "Finance with budget
/// and investments" → ("Finance", ["Budget", "Investments"]). A name without one is whole.
pub(crate) fn name_and_parts(name: &str) -> (String, Vec<String>) {
    let toks = tokens(name);
    let Some(with) = toks
        .iter()
        .position(|t| in_list(&t.key, word_list("architect_with_words")))
        .filter(|&i| i > 0)
    else {
        return (name.to_string(), Vec::new());
    };
    let head = name_of(&toks[..with]);
    let mut parts: Vec<String> = Vec::new();
    let mut current: Vec<&Token> = Vec::new();
    let flush = |current: &mut Vec<&Token>, parts: &mut Vec<String>| {
        let words: Vec<&str> = current.iter().map(|t| t.raw).collect();
        let part = words
            .join(" ")
            .trim_matches(['"', '\'', '.', '!', '?', ',', ';'])
            .trim()
            .to_string();
        if !part.is_empty() && !parts.iter().any(|p| p.eq_ignore_ascii_case(&part)) {
            parts.push(crate::agents::common::capitalized(&part));
        }
        current.clear();
    };
    for t in &toks[with + 1..] {
        if in_list(&t.key, word_list("architect_and_words")) {
            flush(&mut current, &mut parts);
            continue;
        }
        let ends_item = t.raw.ends_with([',', ';']);
        current.push(t);
        if ends_item {
            flush(&mut current, &mut parts);
        }
    }
    flush(&mut current, &mut parts);
    if head.is_empty() {
        return (name.to_string(), Vec::new());
    }
    (head, parts)
}

/// "a sub-folder Receipts in Finance" → ("Receipts", "Finance"): the words after the
/// sub-folder word up to the last "in" word, and the words after it.
pub(crate) fn sub_folder(line: &str) -> Option<(String, String)> {
    let toks = tokens(line);
    let start = skip_name_words(
        &toks,
        after_phrase(&toks, word_list("architect_subfolder_words"))?,
    );
    let cut = (start + 1..toks.len())
        .rev()
        .find(|&i| in_list(&toks[i].key, word_list("architect_in_words")))?;
    let child = name_of(&toks[start..cut]);
    let parent_at = skip_name_words(&toks, cut + 1);
    let parent = name_of(&toks[parent_at.min(toks.len())..]);
    (!child.is_empty() && !parent.is_empty())
        .then(|| (crate::agents::common::capitalized(&child), parent))
}

/// "add a template for book notes" → "book": the words after the template word, without the
/// trailing words that only say "notes".
pub(crate) fn template_kind(line: &str) -> Option<String> {
    let toks = tokens(line);
    let start = skip_name_words(
        &toks,
        after_phrase(&toks, word_list("architect_template_words"))?,
    );
    let mut end = toks.len();
    while end > start && in_list(&toks[end - 1].key, word_list("architect_note_words")) {
        end -= 1;
    }
    let kind = name_of(&toks[start..end]);
    (!kind.is_empty()).then_some(kind)
}

/// "create a MOC for Recipes" → "Recipes".
pub(crate) fn moc_topic(line: &str) -> Option<String> {
    let toks = tokens(line);
    let start = skip_name_words(
        &toks,
        after_phrase(&toks, word_list("architect_moc_words"))?,
    );
    let topic = name_of(&toks[start.min(toks.len())..]);
    (!topic.is_empty()).then_some(topic)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sub_folders_follow_the_with_word() {
        assert_eq!(
            name_and_parts("Finance with budget and investments"),
            (
                "Finance".to_string(),
                vec!["Budget".to_string(), "Investments".to_string()]
            )
        );
        assert_eq!(
            name_and_parts("Casa con bollette, mutuo e lavori"),
            (
                "Casa".to_string(),
                vec!["Bollette".into(), "Mutuo".into(), "Lavori".into()]
            )
        );
        // no "with" word: the name is whole, "and" or "&" included
        assert_eq!(
            name_and_parts("Research and Development"),
            ("Research and Development".to_string(), vec![])
        );
        assert_eq!(
            name_and_parts("Health & Fitness"),
            ("Health & Fitness".to_string(), vec![])
        );
    }

    #[test]
    fn a_sub_folder_and_its_parent() {
        for line in [
            "a sub-folder Receipts in Finance",
            "create a subfolder Receipts under Finance",
            "crea una sottocartella Receipts in Finance",
            "add a subfolder called Receipts inside the Finance",
        ] {
            assert_eq!(
                sub_folder(line),
                Some(("Receipts".to_string(), "Finance".to_string())),
                "{line}"
            );
        }
        assert_eq!(sub_folder("a sub-folder Receipts"), None);
    }

    #[test]
    fn the_kind_of_a_template_and_the_topic_of_a_moc() {
        assert_eq!(
            template_kind("add a template for book notes"),
            Some("book".into())
        );
        assert_eq!(
            template_kind("aggiungi un modello per le ricette"),
            Some("ricette".into())
        );
        assert_eq!(template_kind("add a template"), None);
        assert_eq!(
            moc_topic("create a MOC for Recipes"),
            Some("Recipes".into())
        );
        assert_eq!(
            moc_topic("make a map of content about Home Cooking!"),
            Some("Home Cooking".into())
        );
    }
}
