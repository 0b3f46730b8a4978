//! The short summary at the top of an answer, drawn from the quoted passages themselves: the
//! sentences most central to them — those sharing the most rare words with the other passages —
//! quoted as written, each with its note. Nothing is invented: offline crew writes no sentence
//! of its own. Pure.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::answer::Passage;
use crate::text::{normalize, stopwords, words};

/// A sentence shorter than this many words says too little to stand alone in a summary.
const MIN_WORDS: usize = 4;

/// One sentence of the summary, and where it comes from.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Point {
    pub text: String,
    pub title: String,
    pub path: String,
    pub line: usize,
}

/// A sentence of a passage with its content words.
struct Sentence<'a> {
    text: String,
    passage: usize,
    from: &'a Passage,
    words: BTreeSet<String>,
}

/// The `max` most central sentences of the passages, best first, none repeating another. A
/// sentence scores the rarity (inverse sentence frequency) of each of its content words times
/// the number of other passages that use the word, over the root of its length so a long
/// sentence does not win by size. Sentences sharing nothing with another passage are left out:
/// with a single passage there is no summary to draw.
pub(crate) fn points(passages: &[Passage], max: usize) -> Vec<Point> {
    let sentences: Vec<Sentence> = passages
        .iter()
        .enumerate()
        .flat_map(|(i, p)| {
            split_sentences(&p.text)
                .into_iter()
                .map(move |text| Sentence {
                    words: content_words(&text),
                    text,
                    passage: i,
                    from: p,
                })
        })
        .filter(|s| s.text.split_whitespace().count() >= MIN_WORDS && !s.words.is_empty())
        .collect();
    let total = sentences.len() as f64;
    let mut in_sentences: BTreeMap<&str, usize> = BTreeMap::new();
    let mut in_passages: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
    for s in &sentences {
        for w in &s.words {
            *in_sentences.entry(w).or_default() += 1;
            in_passages.entry(w).or_default().insert(s.passage);
        }
    }
    let mut scored: Vec<(f64, usize)> = sentences
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let sum: f64 = s
                .words
                .iter()
                .map(|w| {
                    let rare = (1.0 + total / in_sentences[w.as_str()] as f64).ln();
                    let others = in_passages[w.as_str()].len().saturating_sub(1);
                    rare * others as f64
                })
                .sum();
            (sum / (s.words.len() as f64).sqrt(), i)
        })
        .filter(|(score, _)| *score > 0.0)
        .collect();
    scored.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    let mut chosen: Vec<&Sentence> = Vec::new();
    for (_, i) in scored {
        if chosen.len() == max {
            break;
        }
        let s = &sentences[i];
        if chosen.iter().any(|c| overlap(&c.words, &s.words) >= 0.5) {
            continue;
        }
        chosen.push(s);
    }
    chosen
        .into_iter()
        .map(|s| Point {
            text: s.text.clone(),
            title: s.from.title.clone(),
            path: s.from.path.clone(),
            line: s.from.line,
        })
        .collect()
}

/// The words of a sentence that carry content: normalized, function words and one-letter
/// words left out.
fn content_words(text: &str) -> BTreeSet<String> {
    let norm = normalize(text);
    let stop = stopwords();
    words(&norm)
        .filter(|w| w.chars().count() > 1 && !stop.contains(*w))
        .map(str::to_string)
        .collect()
}

/// The share of the smaller set inside the other.
fn overlap(a: &BTreeSet<String>, b: &BTreeSet<String>) -> f64 {
    let small = a.len().min(b.len()).max(1) as f64;
    a.intersection(b).count() as f64 / small
}

/// A passage cut into sentences after `.`, `!`, `?` (and their full-width forms) followed by a
/// space or the end, and where one of its lines started: a passage is its lines joined by
/// spaces, so " - ", " > " and " 2. " mark a list item or a quote line. Each sentence loses
/// its list, quote and callout marks (`[!note]`), which are layout, not words.
fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for piece in line_pieces(text) {
        let mut start = 0;
        let mut chars = piece.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let full_width = matches!(c, '。' | '！' | '？');
            let end = matches!(c, '.' | '!' | '?') || full_width;
            let next_free = chars.peek().is_none_or(|(_, n)| n.is_whitespace());
            if end && (full_width || next_free) {
                let stop = i + c.len_utf8();
                out.extend(unmarked(&piece[start..stop]));
                start = stop;
            }
        }
        out.extend(unmarked(&piece[start..]));
    }
    out
}

/// The passage cut where a line of list, quote or numbered item began.
fn line_pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for (i, _) in text.match_indices(' ') {
        let rest = &text[i + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let numbered = digits > 0 && rest[digits..].starts_with(". ");
        let marked = ["- ", "* ", "+ ", "> "].iter().any(|m| rest.starts_with(m));
        if (marked || numbered) && i > start && bytes[i - 1] != b'|' {
            out.push(&text[start..i]);
            start = i + 1;
        }
    }
    out.push(&text[start..]);
    out
}

/// A sentence without its leading list, quote, number and callout marks and embeds; `None`
/// when nothing is left.
fn unmarked(s: &str) -> Option<String> {
    let mut s = s.trim();
    loop {
        let before = s;
        for mark in ["- ", "* ", "+ ", ">"] {
            s = s.strip_prefix(mark).unwrap_or(s).trim_start();
        }
        // an embed at the start is an icon or an image, not words
        if s.starts_with("![[")
            && let Some(end) = s.find("]]")
        {
            s = s[end + 2..].trim_start();
        }
        let digits = s.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && s[digits..].starts_with(". ") {
            s = &s[digits + 2..];
        }
        if s.starts_with("[!")
            && let Some(end) = s.find(']')
        {
            s = s[end + 1..].trim_start_matches(['+', '-']);
        }
        if s == before {
            break;
        }
    }
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passage(path: &str, line: usize, text: &str) -> Passage {
        Passage {
            path: path.into(),
            title: path.trim_end_matches(".md").into(),
            heading: String::new(),
            line,
            text: text.into(),
            score: 1.0,
        }
    }

    #[test]
    fn sentences_split_at_their_ends() {
        assert_eq!(
            split_sentences("- Boil the water. Add salt! Is it 2.5 g? Yes"),
            ["Boil the water.", "Add salt!", "Is it 2.5 g?", "Yes"]
        );
        assert_eq!(
            split_sentences("茹でる。塩を入れる。"),
            ["茹でる。", "塩を入れる。"]
        );
    }

    #[test]
    fn the_central_sentence_is_the_one_the_passages_share() {
        let ps = [
            passage(
                "Pasta.md",
                3,
                "Fresh pasta needs semolina flour and eggs. My kitchen is small.",
            ),
            passage(
                "Flour.md",
                5,
                "Semolina flour gives fresh pasta its bite. The shop closes at six.",
            ),
            passage(
                "Eggs.md",
                2,
                "Use one egg per hundred grams of semolina flour.",
            ),
        ];
        let got = points(&ps, 2);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().all(|p| p.text.contains("semolina")), "{got:?}");
        assert!(!got.iter().any(|p| p.text.contains("kitchen")), "{got:?}");
        // each point is a sentence of its passage, as written
        for p in &got {
            let from = ps.iter().find(|x| x.path == p.path).expect("source");
            assert!(from.text.contains(&p.text), "{p:?}");
            assert_eq!(p.line, from.line);
        }
    }

    #[test]
    fn one_passage_gives_no_summary() {
        let ps = [passage(
            "A.md",
            1,
            "Only one passage here. It says two things.",
        )];
        assert!(points(&ps, 3).is_empty());
    }

    #[test]
    fn a_repeated_sentence_is_shown_once() {
        let ps = [
            passage("A.md", 1, "Tomatoes need six hours of sun."),
            passage("B.md", 1, "Tomatoes need six hours of sun every day."),
            passage("C.md", 1, "Sun and water make tomatoes grow."),
        ];
        let got = points(&ps, 3);
        let six = got.iter().filter(|p| p.text.contains("six hours")).count();
        assert_eq!(six, 1, "{got:?}");
    }
}
