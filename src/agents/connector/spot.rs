//! Where a suggested link would go: the sentence of the linking note that names the target
//! (its title or an alias), else the one sharing the most of the target's rare words — quoted
//! with its line, so the user sees the link in place before adding it.

use crate::text::{normalize, words};

/// A sentence of a note and the 1-based line of the file it is on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spot {
    pub line: usize,
    pub sentence: String,
    /// The sentence names the target (title or alias), rather than sharing its words.
    pub names_it: bool,
}

/// What the sentence looks for: the target's names (normalized) and its rarer words with
/// their weight.
pub(crate) struct Target<'a> {
    pub names: &'a [String],
    pub rare: &'a [(String, f64)],
}

/// The longest quote shown; a longer sentence is cut around the match.
const QUOTE_CHARS: usize = 200;

/// The sentences of a note's body, each with its file line (`first_line` is the line of the
/// body's first line): fenced code is skipped, list and quote marks are dropped.
fn sentences(body: &str, first_line: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, raw) in body.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with("```") || line.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced || line.is_empty() {
            continue;
        }
        let line = without_marks(line);
        let mut start = 0;
        let chars: Vec<(usize, char)> = line.char_indices().collect();
        for (k, &(at, c)) in chars.iter().enumerate() {
            let ends = match c {
                '。' | '！' | '？' => true,
                '.' | '!' | '?' => chars.get(k + 1).is_none_or(|(_, next)| *next == ' '),
                _ => false,
            };
            if ends {
                let end = at + c.len_utf8();
                push_sentence(&mut out, first_line + n, &line[start..end]);
                start = end;
            }
        }
        push_sentence(&mut out, first_line + n, &line[start..]);
    }
    out
}

/// A line without its heading, quote, list or task marks (emphasis stays: it is text).
fn without_marks(line: &str) -> &str {
    let mut rest = line.trim_start_matches(['#', '>', ' ']);
    for mark in ["- ", "* ", "+ "] {
        if let Some(r) = rest.strip_prefix(mark) {
            rest = r.trim_start();
            break;
        }
    }
    for task in ["[ ] ", "[x] ", "[X] "] {
        if let Some(r) = rest.strip_prefix(task) {
            rest = r;
        }
    }
    rest.trim_start()
}

/// A sentence as its own words say it: a `[[link]]` to another note is that note's name, not
/// this sentence's words, so it is left out (its display text after `|` stays).
fn own_words(sentence: &str) -> String {
    let mut out = String::new();
    let mut rest = sentence;
    while let Some(start) = rest.find("[[") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("]]") else {
            rest = after;
            break;
        };
        if let Some((_, shown)) = after[..end].split_once('|') {
            out.push_str(shown);
        }
        out.push(' ');
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

fn push_sentence(out: &mut Vec<(usize, String)>, line: usize, s: &str) {
    let s = s.trim();
    if s.chars().any(char::is_alphanumeric) {
        out.push((line, s.to_string()));
    }
}

/// The place in `body` for a link to `target`: the first sentence naming it, else the sentence
/// holding the most weight of its rare words; `None` when no sentence has either.
pub(crate) fn find(body: &str, first_line: usize, target: &Target) -> Option<Spot> {
    let mut best: Option<(f64, usize, String)> = None;
    for (line, s) in sentences(body, first_line) {
        let normal = format!(" {} ", normalize(&own_words(&s)));
        if target
            .names
            .iter()
            .any(|n| !n.is_empty() && normal.contains(&format!(" {n} ")))
        {
            return Some(Spot {
                line,
                sentence: quote(&s),
                names_it: true,
            });
        }
        let mine: Vec<&str> = words(&normal).collect();
        let weight: f64 = target
            .rare
            .iter()
            .filter(|(w, _)| mine.contains(&w.as_str()))
            .map(|(_, r)| r)
            .sum();
        if weight > 0.0 && best.as_ref().is_none_or(|(b, _, _)| weight > *b) {
            best = Some((weight, line, s));
        }
    }
    best.map(|(_, line, s)| Spot {
        line,
        sentence: quote(&s),
        names_it: false,
    })
}

/// A sentence short enough to quote on one line.
fn quote(s: &str) -> String {
    let flat = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= QUOTE_CHARS {
        return flat;
    }
    let cut: String = flat.chars().take(QUOTE_CHARS).collect();
    format!("{}…", cut.trim_end())
}

/// The 1-based file line of a body's first line, from the text before it.
pub(crate) fn body_first_line(before_body: &str) -> usize {
    before_body.lines().count() + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| normalize(s)).collect()
    }

    #[test]
    fn the_sentence_naming_the_target_wins_with_its_line() {
        let body = "Intro line.\n\n- We drew it. Then Excalidraw helped a lot! More.\n";
        let n = names(&["Excalidraw"]);
        let s = find(
            body,
            5,
            &Target {
                names: &n,
                rare: &[],
            },
        )
        .expect("a spot");
        assert_eq!(s.line, 7);
        assert_eq!(s.sentence, "Then Excalidraw helped a lot!");
        assert!(s.names_it);
    }

    #[test]
    fn else_the_sentence_with_the_most_rare_weight() {
        let body = "Bread is nice.\nLevain and autolyse. Only levain.\n```\nlevain autolyse hydration\n```\n";
        let rare = vec![("levain".to_string(), 2.0), ("autolyse".to_string(), 1.0)];
        let s = find(
            body,
            1,
            &Target {
                names: &[],
                rare: &rare,
            },
        )
        .expect("a spot");
        assert_eq!((s.line, s.sentence.as_str()), (2, "Levain and autolyse."));
        assert!(!s.names_it);
        let none = find(
            "Nothing here.",
            1,
            &Target {
                names: &[],
                rare: &rare,
            },
        );
        assert_eq!(none, None);
    }

    #[test]
    fn a_link_to_another_note_names_nothing_and_marks_go() {
        let n = names(&["Views"]);
        let t = Target {
            names: &n,
            rare: &[],
        };
        assert_eq!(
            find("Use [[Views and modes#Source|source mode]].", 1, &t),
            None
        );
        let s = find("Open [[Other|the views]] here.", 1, &t).expect("display text names it");
        assert_eq!(s.sentence, "Open [[Other|the views]] here.");
        assert_eq!(without_marks("- [ ] **Ribbon:** open"), "**Ribbon:** open");
        assert_eq!(without_marks("## Title"), "Title");
    }

    #[test]
    fn a_decimal_point_ends_no_sentence_and_long_ones_are_cut() {
        let s = sentences("Version 1.5 is out. Yes", 1);
        assert_eq!(s[0].1, "Version 1.5 is out.");
        let long = "word ".repeat(100);
        assert!(quote(&long).ends_with('…'));
        assert_eq!(body_first_line("---\na: b\n---\n"), 4);
        assert_eq!(body_first_line(""), 1);
    }
}
