//! Features that carry across phrasing and language: whole words and word pairs (the exact
//! wording), and character n-grams inside words (inflections, compounds and the cognates
//! seven European languages share: *transcri-*, *agend-*, *calend-*). Scripts written without
//! spaces contribute their tokens and the characters and pairs inside them.

use crate::text::{is_unspaced_script, stopwords, tokens};

/// Which family a feature belongs to: each family is weighed as a whole, so a long phrase's
/// many n-grams cannot drown its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Word = 0,
    Chars = 1,
}

pub const FAMILIES: usize = 2;

/// A feature: a hash of its family and text.
pub type Feature = u32;

fn hash(family: Family, parts: &[&str]) -> Feature {
    // FNV-1a: stable across runs and builds, so a cached model reads the same ids
    let mut h: u32 = 0x811c_9dc5 ^ family as u32;
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            h = (h ^ 0x20).wrapping_mul(0x0100_0193);
        }
        for b in part.bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
    }
    h
}

/// The shortest and longest character n-gram, for spaced and for unspaced scripts.
const SPACED_GRAMS: (usize, usize) = (3, 5);
const UNSPACED_GRAMS: (usize, usize) = (1, 3);

/// The features of a text as written: its words (see [`features`]) and its shape — a question
/// asks for what the vault holds, whatever its words, and the definition's own questions
/// ("where did I put") teach the model whose job that is.
pub fn of_text(text: &str) -> Vec<(Feature, Family)> {
    let mut out = features(&crate::text::normalize(text));
    if crate::dispatch::intent::is_question(text) {
        out.push((hash(Family::Word, &["\u{1}question"]), Family::Word));
        out.sort_unstable_by_key(|f| f.0);
        out.dedup_by_key(|f| f.0);
    }
    out
}

/// The word features of normalized text, one per content word (stopwords and kana
/// particles left out).
pub fn content_words(normalized: &str) -> Vec<Feature> {
    features(normalized)
        .into_iter()
        .filter(|f| f.1 == Family::Word)
        .map(|f| f.0)
        .collect()
}

/// The features of normalized text, each with its family (duplicates removed).
pub fn features(normalized: &str) -> Vec<(Feature, Family)> {
    let stop = stopwords();
    let mut out: Vec<(Feature, Family)> = Vec::new();
    let mut previous: Option<&str> = None;
    let mut buf = String::new();
    for token in tokens(normalized) {
        let unspaced = token.chars().any(is_unspaced_script);
        // particles and endings in hiragana (を, に, して) say nothing by themselves; a longer
        // hiragana run is a word (つなげて)
        let kana_only = unspaced
            && token.chars().count() <= 2
            && token
                .chars()
                .all(|c| ('\u{3040}'..='\u{309f}').contains(&c));
        if stop.contains(token) || kana_only {
            previous = None;
            continue;
        }
        out.push((hash(Family::Word, &[token]), Family::Word));
        if let Some(p) = previous {
            out.push((hash(Family::Word, &[p, token]), Family::Word));
        }
        previous = Some(token);
        let chars: Vec<char> = if unspaced {
            token.chars().collect()
        } else {
            buf.clear();
            buf.push(' ');
            buf.push_str(token);
            buf.push(' ');
            buf.chars().collect()
        };
        let (lo, hi) = if unspaced {
            UNSPACED_GRAMS
        } else {
            SPACED_GRAMS
        };
        for n in lo..=hi {
            for w in chars.windows(n) {
                let gram: String = w.iter().collect();
                out.push((hash(Family::Chars, &[&gram]), Family::Chars));
            }
        }
    }
    out.sort_unstable_by_key(|f| f.0);
    out.dedup_by_key(|f| f.0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize;

    #[test]
    fn stopwords_give_nothing() {
        assert!(features(&normalize("the of and")).is_empty());
    }

    #[test]
    fn inflections_share_character_grams() {
        let ids = |s: &str| -> Vec<Feature> {
            features(&normalize(s))
                .into_iter()
                .filter(|f| f.1 == Family::Chars)
                .map(|f| f.0)
                .collect()
        };
        let a = ids("transcribe");
        let b = ids("trascrivi");
        let c = ids("transcrever");
        assert!(a.iter().filter(|f| c.contains(f)).count() >= 5);
        assert!(a.iter().any(|f| b.contains(f)));
    }

    #[test]
    fn japanese_tokens_and_characters_count() {
        let f = features(&normalize("予定を見せて"));
        assert!(f.iter().any(|x| x.1 == Family::Word));
        assert!(f.len() > 3);
    }
}
