//! People and projects named in a capture, linked to their notes when the name points at
//! one note only: a full name or alias in any case, a first name only when written with a
//! capital (so "will" or "may" stay words). Pure: the caller lists the names.

use std::collections::BTreeMap;

use regex::Regex;
use serde::Serialize;

/// How a name points at its note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum How {
    /// The note's own name, or an alias it lists.
    Full,
    /// The first word of a person's name.
    First,
}

/// One name a note answers to.
#[derive(Debug, Clone)]
pub struct Name {
    pub surface: String,
    pub target: String,
    pub how: How,
}

/// A link made, or a name left alone because it fits several notes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Mention {
    /// The words as written.
    pub said: String,
    /// The notes it could be; one when it was linked.
    pub notes: Vec<String>,
}

/// The names of a person note: its name, its aliases, and its first word.
pub(crate) fn person_names(note: &str, aliases: &[String]) -> Vec<Name> {
    let mut out = vec![Name {
        surface: note.to_string(),
        target: note.to_string(),
        how: How::Full,
    }];
    out.extend(aliases.iter().map(|a| Name {
        surface: a.clone(),
        target: note.to_string(),
        how: How::Full,
    }));
    let mut words = note.split_whitespace();
    if let (Some(first), Some(_)) = (words.next(), words.next()) {
        out.push(Name {
            surface: first.to_string(),
            target: note.to_string(),
            how: How::First,
        });
    }
    out
}

fn is_cjk(c: char) -> bool {
    c as u32 >= 0x3000
}

fn pattern(surface: &str) -> Option<Regex> {
    let first = surface.chars().next()?;
    let last = surface.chars().next_back()?;
    let lead = if is_cjk(first) { "" } else { r"\b" };
    let tail = if is_cjk(last) { "" } else { r"\b" };
    Regex::new(&format!(r"(?i){lead}{}{tail}", regex::escape(surface))).ok()
}

/// Byte ranges inside `[[…]]` links and `code` spans, where nothing is linked.
fn protected(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find("[[") {
        let start = rest + open;
        let end = text[start..]
            .find("]]")
            .map_or(text.len(), |e| start + e + 2);
        out.push(start..end);
        rest = end;
    }
    let mut inside = None;
    for (i, c) in text.char_indices() {
        if c == '`' {
            match inside.take() {
                Some(s) => out.push(s..i + 1),
                None => inside = Some(i),
            }
        }
    }
    out
}

/// Links the first mention of each note named unambiguously; returns the text, the links made
/// and the names left alone because several notes answer to them.
pub fn link(text: &str, names: &[Name]) -> (String, Vec<Mention>, Vec<Mention>) {
    // each spelling, folded, → the notes it names and how strongly
    let mut by_surface: BTreeMap<String, Vec<(&Name, How)>> = BTreeMap::new();
    // two letters are too few to be sure of in Latin scripts; a two-character Japanese
    // surname ("田中") is a whole name
    let long_enough =
        |s: &str| s.chars().count() >= 3 || (s.chars().count() == 2 && s.chars().all(is_cjk));
    for n in names.iter().filter(|n| long_enough(&n.surface)) {
        by_surface
            .entry(n.surface.to_lowercase())
            .or_default()
            .push((n, n.how));
    }
    let mut surfaces: Vec<(&String, &Vec<(&Name, How)>)> = by_surface.iter().collect();
    surfaces.sort_by_key(|(s, _)| std::cmp::Reverse(s.chars().count()));
    let mut taken = protected(text);
    let mut edits: Vec<(std::ops::Range<usize>, String)> = Vec::new();
    let (mut linked, mut ambiguous) = (Vec::new(), Vec::new());
    let mut done: Vec<String> = Vec::new();
    for (_, entries) in surfaces {
        // a note's own name or alias outranks another's first name
        let best = entries.iter().map(|e| e.1).min().unwrap_or(How::First);
        let mut targets: Vec<&str> = entries
            .iter()
            .filter(|e| e.1 == best)
            .map(|e| e.0.target.as_str())
            .collect();
        targets.sort();
        targets.dedup();
        let Some(re) = pattern(&entries[0].0.surface) else {
            continue;
        };
        let hit = re.find_iter(text).find(|m| {
            !taken.iter().any(|r| r.start < m.end() && m.start() < r.end)
                && (best == How::Full
                    || m.as_str()
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_uppercase() || !c.is_lowercase()))
        });
        let Some(m) = hit else { continue };
        if targets.len() > 1 {
            ambiguous.push(Mention {
                said: m.as_str().to_string(),
                notes: targets.iter().map(|t| t.to_string()).collect(),
            });
            taken.push(m.range());
            continue;
        }
        let target = targets[0];
        if done.iter().any(|d| d == target) {
            taken.push(m.range());
            continue;
        }
        let said = m.as_str();
        let link = if said.eq_ignore_ascii_case(target) && said == target {
            format!("[[{target}]]")
        } else {
            format!("[[{target}|{said}]]")
        };
        edits.push((m.range(), link));
        taken.push(m.range());
        done.push(target.to_string());
        linked.push(Mention {
            said: said.to_string(),
            notes: vec![target.to_string()],
        });
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0.start));
    let mut out = text.to_string();
    for (range, link) in edits {
        out.replace_range(range, &link);
    }
    (out, linked, ambiguous)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn people(list: &[(&str, &[&str])]) -> Vec<Name> {
        list.iter()
            .flat_map(|(n, a)| {
                person_names(n, &a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
            })
            .collect()
    }

    #[test]
    fn full_first_and_alias() {
        let names = people(&[("Marco Rossi", &[]), ("Anna Lima", &["Annie"])]);
        let (t, l, a) = link("meeting with Marco, then Annie and marco again", &names);
        assert_eq!(
            t,
            "meeting with [[Marco Rossi|Marco]], then [[Anna Lima|Annie]] and marco again"
        );
        assert_eq!(l.len(), 2);
        assert!(a.is_empty());
        let (t, _, _) = link("call marco rossi", &names);
        assert_eq!(t, "call [[Marco Rossi|marco rossi]]");
    }

    #[test]
    fn two_people_with_one_first_name_are_not_guessed() {
        let names = people(&[("Marco Rossi", &[]), ("Marco Bianchi", &[])]);
        let (t, l, a) = link("ask Marco", &names);
        assert_eq!(t, "ask Marco");
        assert!(l.is_empty());
        assert_eq!(a[0].notes, vec!["Marco Bianchi", "Marco Rossi"]);
        // the full name still links
        let (t, _, _) = link("ask Marco Bianchi", &names);
        assert_eq!(t, "ask [[Marco Bianchi]]");
    }

    #[test]
    fn lower_case_first_names_and_links_stay() {
        let names = people(&[("Will Smith", &[])]);
        assert_eq!(link("I will call", &names).0, "I will call");
        assert_eq!(
            link("see [[Will Smith]] and `Will`", &names).0,
            "see [[Will Smith]] and `Will`"
        );
        let ja = people(&[("田中 太郎", &[])]);
        assert_eq!(
            link("田中さんに電話", &ja).0,
            "[[田中 太郎|田中]]さんに電話"
        );
    }
}
