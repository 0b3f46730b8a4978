//! "What am I missing about X": what the notes on a topic leave open. Links to notes that do not
//! exist (and how many notes of the vault ask for each), questions and open points written in
//! the notes, thin spots (notes with almost no body, headings with nothing under them), and the
//! notes and tags tied to the topic by one link only. Each item names its note and line.
//! Read-only; the line scanning is pure.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::analysis::notes as common;
use crate::text::normalize;
use crate::vault::{NoteSource, Resolution, Vault};

/// A note with fewer words of body than this is thin: a stub that names a topic and says
/// little about it.
const THIN_WORDS: usize = 25;

/// Where an item is: the note (as its link name and path) and the 1-based line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Site {
    pub note: String,
    pub path: String,
    pub line: usize,
}

/// A link to a note that does not exist.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Missing {
    pub target: String,
    /// How many notes of the whole vault link to it.
    pub asked_by: usize,
    /// Where the topic's notes link to it.
    pub from: Vec<Site>,
}

/// What makes a line open.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum OpenKind {
    Task,
    Marker,
    Question,
}

/// A question or open point written in a note.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Open {
    pub site: Site,
    pub kind: OpenKind,
    pub text: String,
}

/// A thin spot: a note with little body (`heading` empty, `words` its body's words), or a
/// heading with nothing under it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Thin {
    pub site: Site,
    pub heading: String,
    pub words: usize,
}

/// A tag or note tied to the topic's notes by one link or one note only.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Once {
    /// `#tag` or `[[note]]`, as shown.
    pub name: String,
    pub site: Site,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Gaps {
    pub topic: String,
    pub notes: usize,
    pub missing: Vec<Missing>,
    pub open: Vec<Open>,
    pub thin: Vec<Thin>,
    pub once: Vec<Once>,
}

/// The open-point markers, `references/seeker-gaps.yaml`, normalized, read once.
fn markers() -> &'static [String] {
    #[derive(Default, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct File {
        open_markers: Vec<String>,
    }
    static MARKERS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    MARKERS.get_or_init(|| {
        // a file that does not parse is a build mistake the tests catch
        let f: File = yaml_serde::from_str(include_str!("../../../references/seeker-gaps.yaml"))
            .unwrap_or_default();
        f.open_markers
            .iter()
            .map(|m| normalize(m))
            .filter(|m| !m.is_empty())
            .collect()
    })
}

/// The report for the topic's notes (vault indices, best first).
pub fn build(vault: &Vault, source: &dyn NoteSource, topic: &str, among: &[usize]) -> Gaps {
    let wanted = unresolved_by_target(vault);
    let mut missing: BTreeMap<String, Missing> = BTreeMap::new();
    let (mut open, mut thin) = (Vec::new(), Vec::new());
    for &n in among {
        let note = &vault.notes[n];
        let Some((text, body_start)) = common::reread(source, note) else {
            continue;
        };
        let name = super::link_name(vault, &note.path);
        let site = |line: usize| Site {
            note: name.clone(),
            path: note.path.clone(),
            line,
        };
        for (i, link) in note.wikilinks.iter().enumerate() {
            let Some(key) = missing_key(vault, n, i) else {
                continue;
            };
            let entry = missing.entry(key.clone()).or_insert_with(|| Missing {
                target: link.target.clone(),
                asked_by: wanted.get(&key).map_or(0, BTreeSet::len),
                from: Vec::new(),
            });
            let at = site(line_at(&text, link.span.start));
            if !entry.from.contains(&at) {
                entry.from.push(at);
            }
        }
        let first_line = line_at(&text, body_start);
        let body = &text[body_start..];
        open.extend(open_lines(body, first_line, markers()).into_iter().map(
            |(line, kind, text)| Open {
                site: site(line),
                kind,
                text,
            },
        ));
        let words = body_words(body);
        if words < THIN_WORDS {
            thin.push(Thin {
                site: site(first_line),
                heading: String::new(),
                words,
            });
        }
        for (line, level, heading) in empty_headings(body, first_line) {
            // a stub's lone title says nothing the stub line does not
            if words < THIN_WORDS && level == 1 {
                continue;
            }
            thin.push(Thin {
                site: site(line),
                heading,
                words: 0,
            });
        }
    }
    let mut missing: Vec<Missing> = missing.into_values().collect();
    missing.sort_by(|a, b| {
        b.asked_by
            .cmp(&a.asked_by)
            .then(b.from.len().cmp(&a.from.len()))
            .then(a.target.cmp(&b.target))
    });
    Gaps {
        topic: topic.to_string(),
        notes: among.len(),
        missing,
        open,
        thin,
        once: tied_once(vault, source, among),
    }
}

/// The key of a link to a note that does not exist: its target folded; `None` when the link
/// resolves, or names a missing attachment (a file, not a note to write).
fn missing_key(vault: &Vault, note: usize, link: usize) -> Option<String> {
    if !matches!(vault.resolved.get(note)?.get(link)?, Resolution::Unresolved) {
        return None;
    }
    let target = vault.notes[note].wikilinks[link].target.trim();
    let ext = std::path::Path::new(target)
        .extension()
        .and_then(|e| e.to_str());
    let attachment = ext.is_some_and(|e| {
        !e.eq_ignore_ascii_case("md")
            && e.len() <= 5
            && e.chars().all(|c| c.is_ascii_alphanumeric())
    });
    if target.is_empty() || attachment {
        return None;
    }
    let target = target.strip_suffix(".md").unwrap_or(target);
    let leaf = target.rsplit('/').next().unwrap_or(target);
    Some(common::fold(leaf))
}

/// Every missing note's key → the notes of the vault linking to it.
fn unresolved_by_target(vault: &Vault) -> BTreeMap<String, BTreeSet<usize>> {
    let mut out: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
    for (n, note) in vault.notes.iter().enumerate() {
        for i in 0..note.wikilinks.len() {
            if let Some(key) = missing_key(vault, n, i) {
                out.entry(key).or_default().insert(n);
            }
        }
    }
    out
}

/// The 1-based line of byte `at` in `text`.
fn line_at(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    text.as_bytes()[..at]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

/// The lines of a body outside fenced code, with their 1-based line numbers. A fence closes
/// only with its own mark at least as long (a ```` fence may show a ``` block inside it).
fn prose_lines(body: &str, first_line: usize) -> Vec<(usize, &str)> {
    let mut fence: Option<(char, usize)> = None;
    let mut out = Vec::new();
    for (n, raw) in body.lines().enumerate() {
        let line = raw.trim();
        let mark = line.chars().next().filter(|c| *c == '`' || *c == '~');
        let run = mark.map_or(0, |m| line.chars().take_while(|c| *c == m).count());
        match (fence, mark) {
            (None, Some(m)) if run >= 3 => fence = Some((m, run)),
            (Some((open, len)), Some(m)) if m == open && run >= len => fence = None,
            (None, _) => out.push((first_line + n, line)),
            _ => {}
        }
    }
    out
}

/// The heading level of a line (`## A` → 2), 0 for none.
fn heading_level(line: &str) -> usize {
    let hashes = line.chars().take_while(|&c| c == '#').count();
    if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
        hashes
    } else {
        0
    }
}

/// The open lines of a body: unchecked tasks, lines with an open-point marker, and lines that
/// end in a question mark (headings aside: a question heading is the title of its answer).
fn open_lines(body: &str, first_line: usize, markers: &[String]) -> Vec<(usize, OpenKind, String)> {
    let mut out = Vec::new();
    for (line, text) in prose_lines(body, first_line) {
        if text.is_empty() || heading_level(text) > 0 {
            continue;
        }
        let numbered = text
            .split_once(". ")
            .filter(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            .map(|(_, rest)| rest);
        let bullet = ["- ", "* ", "+ "]
            .iter()
            .find_map(|b| text.strip_prefix(b))
            .or(numbered);
        let task = bullet.is_some_and(|b| b.starts_with("[ ] ") || b == "[ ]");
        // code names things (`task-todo:`), it asks nothing
        let norm = normalize(&without_code(text));
        let kind = if task {
            Some(OpenKind::Task)
        } else if markers
            .iter()
            .any(|m| crate::dispatch::mode::has_phrase(&norm, m))
        {
            Some(OpenKind::Marker)
        } else if (text.ends_with('?') || text.ends_with('？'))
            // a callout's title, like a heading, is the title of the answer under it
            && !text.trim_start_matches(['>', ' ']).starts_with("[!")
        {
            Some(OpenKind::Question)
        } else {
            None
        };
        if let Some(kind) = kind {
            out.push((line, kind, text.to_string()));
        }
    }
    out
}

/// A line without its inline code spans.
fn without_code(line: &str) -> String {
    line.split('`').step_by(2).collect::<Vec<_>>().join(" ")
}

/// The words of a body, headings and fenced code left out.
fn body_words(body: &str) -> usize {
    prose_lines(body, 1)
        .iter()
        .filter(|(_, l)| heading_level(l) == 0)
        .map(|(_, l)| l.split_whitespace().count())
        .sum()
}

/// The headings with nothing under them: the next non-blank line is a heading as high or
/// higher, or the note ends. (line, level, heading text).
fn empty_headings(body: &str, first_line: usize) -> Vec<(usize, usize, String)> {
    let lines = prose_lines(body, first_line);
    let mut out = Vec::new();
    for (i, (line, text)) in lines.iter().enumerate() {
        let level = heading_level(text);
        if level == 0 {
            continue;
        }
        let next = lines[i + 1..].iter().find(|(_, l)| !l.is_empty());
        let empty = next.is_none_or(|(_, l)| (1..=level).contains(&heading_level(l)));
        if empty {
            let heading = text[level..]
                .trim()
                .trim_end_matches('#')
                .trim()
                .to_string();
            out.push((*line, level, heading));
        }
    }
    out
}

/// The notes and tags tied to the topic's notes once: a note outside them that one link joins
/// to them (either way), a tag only one of them carries.
fn tied_once(vault: &Vault, source: &dyn NoteSource, among: &[usize]) -> Vec<Once> {
    let inside: BTreeSet<usize> = among.iter().copied().collect();
    // (other note) → the links joining it to the topic's notes: (linking note, link index)
    let mut ties: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    for (n, resolved) in vault.resolved.iter().enumerate() {
        for (i, r) in resolved.iter().enumerate() {
            let Some(dst) = r.file().and_then(|f| vault.note_of_file(f)) else {
                continue;
            };
            match (inside.contains(&n), inside.contains(&dst)) {
                (true, false) => ties.entry(dst).or_default().push((n, i)),
                (false, true) => ties.entry(n).or_default().push((n, i)),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    for (other, links) in ties {
        let [(n, i)] = links[..] else { continue };
        let line = common::reread(source, &vault.notes[n]).map_or(0, |(t, _)| {
            line_at(&t, vault.notes[n].wikilinks[i].span.start)
        });
        out.push(Once {
            name: format!("[[{}]]", super::link_name(vault, &vault.notes[other].path)),
            site: Site {
                note: super::link_name(vault, &vault.notes[n].path),
                path: vault.notes[n].path.clone(),
                line,
            },
        });
    }
    let mut tags: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for &n in among {
        let mut own = vault.notes[n].tags_normalized();
        own.sort_unstable();
        own.dedup();
        for t in own {
            tags.entry(t).or_default().push(n);
        }
    }
    for (tag, notes) in tags {
        let [n] = notes[..] else { continue };
        let note = &vault.notes[n];
        let line = common::reread(source, note).map_or(0, |(t, _)| tag_line(&t, &tag));
        out.push(Once {
            name: format!("#{tag}"),
            site: Site {
                note: super::link_name(vault, &note.path),
                path: note.path.clone(),
                line,
            },
        });
    }
    out
}

/// The first line naming a tag (`#tag` in the body, or the tag in the frontmatter), 0 when
/// none is found as written.
fn tag_line(text: &str, tag: &str) -> usize {
    text.lines()
        .position(|l| {
            let l = l.to_lowercase();
            l.match_indices(tag).any(|(at, _)| {
                let end = at + tag.len();
                l[end..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric() && c != '-' && c != '_')
            })
        })
        .map_or(0, |i| i + 1)
}

/// The report as Markdown; each list shows at most `show` items and how many more there are.
pub fn render(g: &Gaps, l: crate::lang::Lang, show: usize) -> String {
    let mut out = crate::trn!(l, "seeker.gaps.heading", g.notes, topic = g.topic);
    if g.notes == 0 {
        out.push_str(&crate::tr!(l, "seeker.gaps.no_notes"));
        return out;
    }
    let sections = [
        (
            crate::tr!(l, "seeker.gaps.missing", count = g.missing.len()),
            missing_lines(g, l),
        ),
        (
            crate::tr!(l, "seeker.gaps.open", count = g.open.len()),
            open_items(g, l),
        ),
        (
            crate::tr!(l, "seeker.gaps.thin", count = g.thin.len()),
            thin_lines(g, l),
        ),
        (
            crate::tr!(l, "seeker.gaps.once", count = g.once.len()),
            g.once
                .iter()
                .map(|o| {
                    crate::tr!(
                        l,
                        "seeker.gaps.once_item",
                        name = o.name,
                        at = at(&o.site, l)
                    )
                })
                .collect(),
        ),
    ];
    for (heading, items) in sections {
        out.push_str(&heading);
        if items.is_empty() {
            out.push_str(&crate::tr!(l, "seeker.gaps.none"));
        }
        for item in items.iter().take(show) {
            out.push_str(item);
        }
        if items.len() > show {
            out.push_str(&crate::tr!(
                l,
                "seeker.gaps.more",
                count = items.len() - show
            ));
        }
        out.push('\n');
    }
    out
}

/// "[[note]], line N".
fn at(site: &Site, l: crate::lang::Lang) -> String {
    crate::tr!(l, "seeker.gaps.site", note = site.note, line = site.line)
}

fn missing_lines(g: &Gaps, l: crate::lang::Lang) -> Vec<String> {
    g.missing
        .iter()
        .map(|m| {
            let from: Vec<String> = m.from.iter().map(|s| at(s, l)).collect();
            crate::tr!(
                l,
                "seeker.gaps.missing_item",
                target = m.target,
                count = m.asked_by,
                from = from.join(", ")
            )
        })
        .collect()
}

fn open_items(g: &Gaps, l: crate::lang::Lang) -> Vec<String> {
    g.open
        .iter()
        .map(|o| {
            let kind = match o.kind {
                OpenKind::Task => crate::tr!(l, "seeker.gaps.kind_task"),
                OpenKind::Marker => crate::tr!(l, "seeker.gaps.kind_marker"),
                OpenKind::Question => crate::tr!(l, "seeker.gaps.kind_question"),
            };
            let text = super::passages::excerpt(&o.text, 200);
            format!("- {} ({kind}): {text}\n", at(&o.site, l))
        })
        .collect()
}

fn thin_lines(g: &Gaps, l: crate::lang::Lang) -> Vec<String> {
    g.thin
        .iter()
        .map(|t| {
            if t.heading.is_empty() {
                crate::tr!(
                    l,
                    "seeker.gaps.thin_note",
                    note = t.site.note,
                    words = t.words
                )
            } else {
                crate::tr!(
                    l,
                    "seeker.gaps.thin_heading",
                    at = at(&t.site, l),
                    heading = t.heading
                )
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marks() -> Vec<String> {
        vec!["todo".into(), "to research".into()]
    }

    #[test]
    fn the_marker_file_parses() {
        assert!(markers().len() > 7, "markers in each language");
        assert!(markers().iter().any(|m| m == "to research"));
    }

    #[test]
    fn open_lines_are_tasks_markers_and_questions() {
        let body = "# Pasta\n\n- [ ] try semolina\n- [x] bought flour\n1. [ ] ask Nonna\n\
                    Salt the water. TODO: how much\nsauces to research later\n\
                    Does fresh pasta freeze well?\n## Why boil?\n```\nwhat? \n- [ ] code\n```\n";
        let got: Vec<(usize, OpenKind)> = open_lines(body, 10, &marks())
            .into_iter()
            .map(|(l, k, _)| (l, k))
            .collect();
        assert_eq!(
            got,
            [
                (12, OpenKind::Task),
                (14, OpenKind::Task),
                (15, OpenKind::Marker),
                (16, OpenKind::Marker),
                (17, OpenKind::Question),
            ]
        );
        // a marker inside another word, or in code, is none
        assert!(open_lines("todolist app\n", 1, &marks()).is_empty());
        assert!(open_lines("search with `task-todo:call`\n", 1, &marks()).is_empty());
        assert!(open_lines("> [!faq] Where is it?\n> Here.\n", 1, &marks()).is_empty());
        let nested = "````md\n```js\nwhy?\n```\nhow?\n````\nreally?\n";
        let lines: Vec<usize> = open_lines(nested, 1, &marks())
            .iter()
            .map(|o| o.0)
            .collect();
        assert_eq!(lines, [7]);
    }

    #[test]
    fn empty_headings_and_thin_bodies() {
        let body = "# Pasta\n\n## Sauces\n\n## Shapes\nPenne.\n### Long\n## Storage\n";
        let got: Vec<(usize, String)> = empty_headings(body, 1)
            .into_iter()
            .map(|(l, _, h)| (l, h))
            .collect();
        // Pasta has sections under it, Shapes has text; Sauces, Long and Storage are empty
        assert_eq!(
            got,
            [
                (3, "Sauces".to_string()),
                (7, "Long".to_string()),
                (8, "Storage".to_string())
            ]
        );
        assert_eq!(body_words(body), 1);
        assert_eq!(
            body_words("# T\n```\nlots of code words here\n```\none two\n"),
            2
        );
    }

    #[test]
    fn tag_lines_match_whole_tags() {
        let text = "---\ntags: [food]\n---\n#foodie here\n#food there\n";
        assert_eq!(tag_line(text, "foodie"), 4);
        assert_eq!(tag_line(text, "food"), 2);
        assert_eq!(tag_line(text, "drink"), 0);
    }
}
