//! The parts of a note crew must not write into: code blocks (a ```dataview query among
//! them), comments, and the regions a comment marks as generated or not to be edited by hand
//! (`%% Hub MOCs: Don't edit below %%`, `<!-- BEGIN toc -->` … `<!-- END toc -->`). The words
//! that make a comment such a marker are data: `references/conventions/generated-markers.yaml`.

use std::ops::Range;
use std::sync::OnceLock;

use serde::Deserialize;

/// The marker words, as `references/conventions/generated-markers.yaml` lists them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Markers {
    opens: Vec<String>,
    closes: Vec<String>,
    to_the_end: Vec<String>,
}

const SOURCE: &str = include_str!("../../references/conventions/generated-markers.yaml");

/// The marker words, normalised as comments are; `None` when the file does not parse (a unit
/// test holds it to parsing), and then every comment counts as a marker to the end: without
/// its words crew cannot tell, so it writes nowhere a comment could forbid.
fn markers() -> Option<&'static Markers> {
    static MARKERS: OnceLock<Option<Markers>> = OnceLock::new();
    MARKERS
        .get_or_init(|| match yaml_serde::from_str::<Markers>(SOURCE) {
            Ok(m) => {
                let norm = |v: Vec<String>| v.iter().map(|p| normalise(p)).collect();
                Some(Markers {
                    opens: norm(m.opens),
                    closes: norm(m.closes),
                    to_the_end: norm(m.to_the_end),
                })
            }
            Err(e) => {
                tracing::warn!("generated-markers.yaml does not parse: {e}");
                None
            }
        })
        .as_ref()
}

/// A comment's text as markers are compared: lowercase, curly apostrophes straight, any other
/// punctuation a space, spaces collapsed.
fn normalise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars().flat_map(char::to_lowercase) {
        let c = match c {
            '\u{2019}' | '\u{2018}' | '\u{02bc}' | '`' | '\u{b4}' => '\'',
            c if c.is_alphanumeric() || c == '\'' => c,
            _ => ' ',
        };
        if c != ' ' || !out.ends_with(' ') {
            out.push(c);
        }
    }
    out.trim().to_string()
}

/// A letter or digit of a word that a phrase must not be cut out of. Scripts written without
/// spaces (CJK from U+2E80 on) have no such boundary.
fn word_char(c: char) -> bool {
    c.is_alphanumeric() && (c as u32) < 0x2E80
}

/// Whether the normalised `text` holds one of the normalised `phrases` as whole words.
fn holds(text: &str, phrases: &[String]) -> bool {
    phrases.iter().filter(|p| !p.is_empty()).any(|p| {
        text.match_indices(p.as_str()).any(|(at, _)| {
            let before = text[..at].chars().next_back();
            let after = text[at + p.len()..].chars().next();
            // a phrase starting (ending) with a letter must not go on a word before (after) it
            let cut_before =
                p.chars().next().is_some_and(word_char) && before.is_some_and(word_char);
            let cut_after =
                p.chars().next_back().is_some_and(word_char) && after.is_some_and(word_char);
            !cut_before && !cut_after
        })
    })
}

/// What a comment says about the text after it.
#[derive(Debug, PartialEq, Eq)]
enum Says {
    Opens,
    Closes,
    ToTheEnd,
    Nothing,
}

fn says(comment: &str) -> Says {
    let Some(m) = markers() else {
        return Says::ToTheEnd;
    };
    let text = normalise(comment);
    if holds(&text, &m.closes) {
        Says::Closes
    } else if holds(&text, &m.opens) {
        Says::Opens
    } else if holds(&text, &m.to_the_end) {
        Says::ToTheEnd
    } else {
        Says::Nothing
    }
}

/// The byte ranges of a note's text crew must not write into, sorted. A region that runs to
/// the end of the note ends at `usize::MAX`, so the end of the text is inside it too.
#[derive(Debug, Default)]
pub(crate) struct Regions {
    spans: Vec<Range<usize>>,
}

impl Regions {
    /// The regions of `text` (a whole note, frontmatter included: the frontmatter is one).
    pub fn of(text: &str) -> Regions {
        let body_start = crate::vault::markdown::split_frontmatter(text).map_or(0, |f| f.block.end);
        // the frontmatter belongs to its keys: nothing is inserted into it
        let mut spans: Vec<Range<usize>> = Vec::new();
        spans.push(0..body_start);
        let body = &text[body_start..];
        let code: Vec<Range<usize>> = crate::vault::markdown::code_ranges(body)
            .into_iter()
            .map(|r| r.start + body_start..r.end + body_start)
            .collect();
        let mut open: Option<usize> = None;
        for c in comments(text, body_start, &code) {
            spans.push(c.clone());
            let inner = &text[c.start..c.end.min(text.len())];
            match (says(inner), open) {
                (Says::Closes, Some(start)) => {
                    spans.push(start..c.end);
                    open = None;
                }
                (Says::Opens, None) => open = Some(c.start),
                (Says::ToTheEnd, None) => {
                    open = Some(c.start);
                    break;
                }
                _ => {}
            }
        }
        if let Some(start) = open {
            spans.push(start..usize::MAX);
        }
        spans.extend(code);
        spans.retain(|r| !r.is_empty());
        spans.sort_by_key(|r| r.start);
        Regions { spans }
    }

    /// Whether text inserted at byte offset `at` would land inside a region (its first byte
    /// is not inside: inserting there puts the text just before it).
    pub fn forbids(&self, at: usize) -> bool {
        self.spans.iter().any(|r| r.start < at && at < r.end)
    }

    /// Whether any byte of `range` lies in a region.
    pub fn overlaps(&self, range: Range<usize>) -> bool {
        self.spans
            .iter()
            .any(|r| r.start < range.end && range.start < r.end)
    }
}

/// The comments of a note's body, `%% … %%` and `<!-- … -->`, outside code, in text order;
/// one never closed runs to the end of the note (`usize::MAX`), as Obsidian hides the rest.
fn comments(text: &str, from: usize, code: &[Range<usize>]) -> Vec<Range<usize>> {
    let in_code = |at: usize| code.iter().any(|r| r.start <= at && at < r.end);
    let mut out = Vec::new();
    let mut at = from;
    while at < text.len() {
        let rest = &text[at..];
        let next = [("%%", "%%"), ("<!--", "-->")]
            .into_iter()
            .filter_map(|(open, close)| rest.find(open).map(|p| (at + p, open, close)))
            .min_by_key(|(p, _, _)| *p);
        let Some((start, open, close)) = next else {
            break;
        };
        if in_code(start) {
            at = start + open.len();
            continue;
        }
        let after = start + open.len();
        match text[after..].find(close) {
            Some(p) => {
                let end = after + p + close.len();
                out.push(start..end);
                at = end;
            }
            None => {
                out.push(start..usize::MAX);
                break;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a line holding `needle` may take new text just before it.
    fn may_insert_before(text: &str, needle: &str) -> bool {
        let at = text.find(needle).expect("needle");
        !Regions::of(text).forbids(at)
    }

    #[test]
    fn the_marker_words_parse() {
        let m = markers().expect("generated-markers.yaml parses");
        assert!(m.to_the_end.iter().any(|p| p == "don't edit"));
        assert!(m.opens.iter().any(|p| p == "begin"));
    }

    #[test]
    fn dont_edit_below_in_any_wording_closes_the_rest_of_the_note() {
        for marker in [
            "%% Hub MOCs: Don't edit below %%",
            "%% Hub MOCs: Don\u{2019}t edit below %%",
            "%% DO NOT EDIT BELOW THIS LINE %%",
            "%%\ndon't  edit below\n%%",
            "<!-- generated -->",
            "<!-- auto-generated by a plugin -->",
            "%% non modificare sotto %%",
        ] {
            let text = format!("# Hub\n- [[a]]\n{marker}\n- [[b]]\n");
            assert!(may_insert_before(&text, "- [[a]]"), "{marker}");
            assert!(may_insert_before(&text, marker), "{marker}: just above it");
            assert!(!may_insert_before(&text, "- [[b]]"), "{marker}");
            assert!(Regions::of(&text).forbids(text.len()), "{marker}: the end");
        }
    }

    #[test]
    fn begin_and_end_markers_bound_a_region() {
        let text = "x\n<!-- BEGIN toc -->\n- [[a]]\n<!-- END toc -->\n- [[b]]\n";
        let r = Regions::of(text);
        assert!(may_insert_before(text, "<!-- BEGIN"), "just above it");
        assert!(r.forbids(text.find("- [[a]]").expect("a")));
        assert!(r.forbids(text.find("<!-- END").expect("end")));
        assert!(!r.forbids(text.find("- [[b]]").expect("b")));
        assert!(!r.forbids(text.len()));
        // the Waypoint plugin's markers; an opening never closed runs to the end
        let text = "%% Begin Waypoint %%\n- [[a]]\n";
        assert!(Regions::of(text).forbids(text.len()));
    }

    #[test]
    fn code_comments_and_frontmatter_are_regions_ordinary_comments_end_nowhere() {
        let text = "---\na: 1\n---\n```dataview\nLIST\n```\n%% a note to self %%\n- [[a]]\n";
        let r = Regions::of(text);
        assert!(r.forbids(text.find("a: 1").expect("fm")));
        assert!(r.forbids(text.find("LIST").expect("query")));
        assert!(r.forbids(text.find("a note to self").expect("comment")));
        assert!(!r.forbids(text.find("- [[a]]").expect("a")));
        assert!(!r.forbids(text.len()));
        // "legend", "ending", "started" hold no marker word
        let text = "%% legend: pending, started %%\n- [[a]]\n";
        assert!(!Regions::of(text).forbids(text.len()));
        // `%%` inside code is no comment
        let text = "`%% don't edit below %%`\n- [[a]]\n";
        assert!(!Regions::of(text).forbids(text.len()));
    }
}
