//! A note's body cut into paragraphs, each with the heading it sits under and its first line;
//! and the ranking and de-duplication of passages for an extractive answer. Pure.

use serde::Serialize;

use crate::analysis::search::best_in;
use crate::text::{normalize, words};

/// One paragraph of a note.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Paragraph {
    /// The nearest heading above it (empty before the first heading).
    pub heading: String,
    /// 1-based line in the note where it starts.
    pub line: usize,
    /// The paragraph's lines joined by spaces.
    pub text: String,
}

/// Splits `body` (which starts at 1-based line `first_line` of its note) into paragraphs:
/// runs of non-blank lines. Headings start a new paragraph and are not passages themselves;
/// fenced code is skipped (it answers no question in words).
pub(crate) fn paragraphs(body: &str, first_line: usize) -> Vec<Paragraph> {
    let mut out = Vec::new();
    let mut heading = String::new();
    let mut current: Option<Paragraph> = None;
    let mut in_fence = false;
    for (n, raw) in body.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            in_fence = !in_fence;
            out.extend(current.take());
            continue;
        }
        if in_fence {
            continue;
        }
        if line.is_empty() {
            out.extend(current.take());
            continue;
        }
        if let Some(h) = heading_text(line) {
            out.extend(current.take());
            heading = h;
            continue;
        }
        match &mut current {
            Some(p) => {
                p.text.push(' ');
                p.text.push_str(line);
            }
            None => {
                current = Some(Paragraph {
                    heading: heading.clone(),
                    line: first_line + n,
                    text: line.to_string(),
                })
            }
        }
    }
    out.extend(current);
    out
}

/// The text of an ATX heading line (`## Setup` → `Setup`).
fn heading_text(line: &str) -> Option<String> {
    let hashes = line.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        Some(
            line[hashes..]
                .trim()
                .trim_end_matches('#')
                .trim()
                .to_string(),
        )
    } else {
        None
    }
}

/// How well a paragraph answers the terms: the matches summed, scaled by the share of terms
/// present (a passage naming every term beats one naming a single term often), 0 for none.
/// Very short lines (a lone link, a label) weigh less than sentences.
pub fn score(text: &str, terms: &[String]) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    let norm = normalize(text);
    let ws: Vec<&str> = words(&norm).collect();
    let mut sum = 0.0;
    let mut present = 0;
    for t in terms {
        let m = best_in(t, &ws);
        if m > 0.0 {
            present += 1;
            let count = ws.iter().filter(|w| **w == t.as_str()).count().max(1);
            sum += m * (1.0 + (count as f64).ln());
        }
    }
    if present == 0 {
        return 0.0;
    }
    let brevity = if ws.len() < 4 { 0.5 } else { 1.0 };
    sum * present as f64 / terms.len() as f64 * brevity
}

/// Whether two passages say the same thing: the same words, or one's words nearly all inside
/// the other's (a quote repeated in a second note).
pub(crate) fn same_passage(a: &str, b: &str) -> bool {
    let set = |s: &str| {
        let n = normalize(s);
        let mut v: Vec<String> = words(&n).map(str::to_string).collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    let (a, b) = (set(a), set(b));
    if a.is_empty() || b.is_empty() {
        return a == b;
    }
    let shared = a.iter().filter(|w| b.binary_search(w).is_ok()).count();
    shared as f64 / a.len().min(b.len()) as f64 >= 0.8
}

/// A passage shortened to `max` characters at a word boundary.
pub(crate) fn excerpt(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let cut: String = text.chars().take(max).collect();
    let cut = cut.rsplit_once(' ').map_or(cut.as_str(), |(a, _)| a);
    format!("{cut} …")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paragraphs_keep_heading_and_line() {
        let body =
            "# Title\n\nFirst line\nsecond line\n\n## Setup\n```\ncode here\n```\nInstall it.\n";
        let p = paragraphs(body, 5);
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].heading, "Title");
        assert_eq!(p[0].line, 7);
        assert_eq!(p[0].text, "First line second line");
        assert_eq!(p[1].heading, "Setup");
        assert_eq!(p[1].line, 14);
        assert_eq!(p[1].text, "Install it.");
    }

    #[test]
    fn scoring_prefers_every_term() {
        let terms = vec!["daily".to_string(), "template".to_string()];
        let both = score("Use the daily note template every morning", &terms);
        let one = score(
            "The template folder holds every template file we have",
            &terms,
        );
        assert!(both > one, "{both} {one}");
        assert_eq!(score("nothing relevant here at all", &terms), 0.0);
    }

    #[test]
    fn duplicates_are_found() {
        assert!(same_passage(
            "Zotero keeps the references.",
            "> Zotero keeps the references"
        ));
        assert!(!same_passage(
            "Zotero keeps references",
            "Canvas draws boxes"
        ));
    }

    #[test]
    fn excerpts_cut_at_words() {
        assert_eq!(excerpt("one two three four", 9), "one two …");
        assert_eq!(excerpt("short", 9), "short");
    }
}
