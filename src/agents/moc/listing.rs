//! A map (a folder note or MOC) that lists its folder's notes by hand, and a filed note added
//! to that list the way the vault writes it.
//!
//! The rule: a map lists its folder's notes by hand when one Markdown list in it, outside
//! every region the note marks as generated or not to edit ([`Regions`]), has wikilinks to at
//! least [`MIN_LISTED`] different notes of the folder (in it or below it). A filed note goes
//! into that list (the one linking the most of them): with the same bullet and indentation as
//! the items there, at its alphabetical place when those items are in order, else after the
//! last of them. A list that would take the line inside or below such a region takes nothing.

use rustc_hash::FxHashMap;

use crate::agents::regions::Regions;

/// Different notes of the folder a list must link to for the map to count as listing them:
/// one link is a mention, two or more written as a list are a listing kept by hand.
pub(crate) const MIN_LISTED: usize = 2;

/// The notes of a folder a map links to, by link target as written there (lowercase), e.g.
/// `"recipes/stew"` → the stew note's index.
pub(crate) type FolderLinks = FxHashMap<String, usize>;

/// A list item's mark: `-`, `*`, `+`, or a number with `.` or `)`.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mark {
    Bullet(char),
    Number(u64, char),
}

impl Mark {
    fn text(&self) -> String {
        match self {
            Mark::Bullet(c) => c.to_string(),
            Mark::Number(n, d) => format!("{n}{d}"),
        }
    }
}

/// One item of a list: its lines (sub-items are items of their own), indentation and mark.
#[derive(Debug)]
struct Item {
    /// Byte offset of the item's first line.
    start: usize,
    /// Byte offset after its last non-blank line (line break included).
    end: usize,
    indent: String,
    mark: Mark,
    /// The first note of the folder it links to, named as written (lowercase): the item's
    /// place in an alphabetical list. `None`: it links to none (or is a task).
    key: Option<String>,
    /// The notes of the folder it links to.
    notes: Vec<usize>,
}

fn width(indent: &str) -> usize {
    indent.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum()
}

/// The mark and indentation of a list item line; `None` for any other line. A task item
/// (`- [ ] …`) is `Some` with `task` set: part of the list, never a listing of notes.
fn item_line(line: &str) -> Option<(String, Mark, bool)> {
    let body = line.trim_start_matches([' ', '\t']);
    let indent = line[..line.len() - body.len()].to_string();
    let first = body.chars().next()?;
    let (mark, rest) = if matches!(first, '-' | '*' | '+') {
        (Mark::Bullet(first), &body[1..])
    } else {
        let digits = body.chars().take_while(char::is_ascii_digit).count();
        let delim = body[digits..].chars().next()?;
        if digits == 0 || digits > 9 || !matches!(delim, '.' | ')') {
            return None;
        }
        let n = body[..digits].parse().ok()?;
        (Mark::Number(n, delim), &body[digits + 1..])
    };
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let mut after = rest.trim_start().chars();
    let task = after.next() == Some('[')
        && after.next().is_some_and(|c| matches!(c, ' ' | 'x' | 'X'))
        && after.next() == Some(']');
    Some((indent, mark, task))
}

fn is_heading(line: &str) -> bool {
    let t = line.trim_start();
    let hashes = t.chars().take_while(|&c| c == '#').count();
    (1..=6).contains(&hashes) && t[hashes..].chars().next().is_none_or(char::is_whitespace)
}

/// The lists of `text` outside its regions, each as its items in text order.
fn lists(text: &str, regions: &Regions) -> Vec<Vec<Item>> {
    let mut out: Vec<Vec<Item>> = Vec::new();
    let mut current: Vec<Item> = Vec::new();
    let mut blank_before = false;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let (start, end) = (at, at + line.len());
        at = end;
        let content = line.trim_end_matches(['\n', '\r']);
        if regions.overlaps(start..end) || is_heading(content) {
            out.push(std::mem::take(&mut current));
            blank_before = false;
            continue;
        }
        if let Some((indent, mark, task)) = item_line(content) {
            current.push(Item {
                start,
                end,
                indent,
                mark,
                key: None,
                notes: if task { vec![usize::MAX] } else { Vec::new() },
            });
            blank_before = false;
        } else if content.trim().is_empty() {
            blank_before = true;
        } else if content.starts_with([' ', '\t']) && !current.is_empty() && !blank_before {
            // the item's text goes on, indented
            if let Some(last) = current.last_mut() {
                last.end = end;
            }
        } else {
            out.push(std::mem::take(&mut current));
            blank_before = false;
        }
    }
    out.push(current);
    out.retain(|l| !l.is_empty());
    out
}

/// The list in `text` that lists the folder's notes by hand, if one does (see the module).
fn hand_list(text: &str, links: &FolderLinks, regions: &Regions) -> Option<Vec<Item>> {
    let parsed = crate::vault::Note::parse_text("map.md", text);
    let mut best: Option<(usize, Vec<Item>)> = None;
    for mut list in lists(text, regions) {
        for item in &mut list {
            if item.notes == [usize::MAX] {
                item.notes.clear();
                continue;
            }
            for link in parsed
                .wikilinks
                .iter()
                .filter(|l| (item.start..item.end).contains(&l.span.start))
            {
                let target = link.target.to_lowercase();
                if let Some(&n) = links.get(&target) {
                    item.notes.push(n);
                    if item.key.is_none() {
                        item.key = Some(leaf(&target).to_string());
                    }
                }
            }
        }
        let mut notes: Vec<usize> = list.iter().flat_map(|i| i.notes.iter().copied()).collect();
        notes.sort_unstable();
        notes.dedup();
        if notes.len() >= MIN_LISTED && best.as_ref().is_none_or(|(n, _)| notes.len() > *n) {
            best = Some((notes.len(), list));
        }
    }
    best.map(|(_, list)| list)
}

fn leaf(target: &str) -> &str {
    target.rsplit('/').next().unwrap_or(target)
}

/// Whether `text` lists the folder's notes by hand (see the module).
pub(crate) fn lists_by_hand(text: &str, links: &FolderLinks) -> bool {
    hand_list(text, links, &Regions::of(text)).is_some()
}

/// `text` with `link` (a wikilink to a note filed in the folder, whose target is `target`)
/// added to its hand list; `None` when it has none, or the line would land inside or below a
/// region the note marks as generated or not to edit.
pub(crate) fn add_to_hand_list(
    text: &str,
    links: &FolderLinks,
    target: &str,
    link: &str,
) -> Option<String> {
    let regions = Regions::of(text);
    let list = hand_list(text, links, &regions)?;
    let listing: Vec<&Item> = list.iter().filter(|i| i.key.is_some()).collect();
    let last = *listing.last()?;
    let level = width(&last.indent);
    let peers: Vec<&Item> = listing
        .iter()
        .copied()
        .filter(|i| width(&i.indent) == level)
        .collect();
    let key = leaf(&target.to_lowercase()).to_string();
    let numbered = matches!(last.mark, Mark::Number(..));
    // numbers would repeat if a line went between them: a numbered list takes it at its end
    let in_order = !numbered && peers.windows(2).all(|w| w[0].key <= w[1].key);
    let before = peers
        .iter()
        .find(|i| in_order && i.key.as_deref().is_some_and(|k| k > key.as_str()));
    let (at, indent, mark) = match before {
        Some(next) => (next.start, next.indent.clone(), next.mark.clone()),
        None => {
            // after the last item and the items under it
            let end = list
                .iter()
                .skip_while(|i| i.start != last.start)
                .skip(1)
                .take_while(|i| width(&i.indent) > level)
                .fold(last.end, |_, i| i.end);
            let mark = match last.mark {
                Mark::Number(n, d) => Mark::Number(n + 1, d),
                ref m => m.clone(),
            };
            (end, last.indent.clone(), mark)
        }
    };
    if regions.forbids(at) {
        return None;
    }
    let mut out = String::with_capacity(text.len() + link.len() + 8);
    out.push_str(&text[..at]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("{indent}{} {link}\n", mark.text()));
    out.push_str(&text[at..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Links to the folder's notes `a`, `b`, `c`, `d` (notes 1 to 4).
    fn folder() -> FolderLinks {
        ["a", "b", "c", "d", "recipes/e"]
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), i + 1))
            .collect()
    }

    fn add(text: &str, name: &str) -> Option<String> {
        add_to_hand_list(text, &folder(), name, &format!("[[{name}]]"))
    }

    #[test]
    fn a_list_of_two_or_more_of_the_folders_notes_is_a_listing_by_hand() {
        assert!(lists_by_hand("# R\n- [[a]]\n- [[b]]\n", &folder()));
        assert!(lists_by_hand(
            "1. [[a]] first\n2. see [[Recipes/E|e]]\n",
            &folder()
        ));
        // one note is a mention; links in a paragraph, a table or a task list are no listing
        assert!(!lists_by_hand("- [[a]]\n- [[other]]\n", &folder()));
        assert!(!lists_by_hand("See [[a]] and [[b]].\n", &folder()));
        assert!(!lists_by_hand("| [[a]] |\n| [[b]] |\n", &folder()));
        assert!(!lists_by_hand(
            "- [ ] read [[a]]\n- [ ] read [[b]]\n",
            &folder()
        ));
        // nor a list the note marks as generated, or a query's
        assert!(!lists_by_hand(
            "%% Begin Waypoint %%\n- [[a]]\n- [[b]]\n%% End Waypoint %%\n",
            &folder()
        ));
        assert!(!lists_by_hand(
            "```dataview\n- [[a]]\n- [[b]]\n```\n",
            &folder()
        ));
    }

    #[test]
    fn the_new_line_takes_the_lists_bullet_indentation_and_alphabetical_place() {
        assert_eq!(
            add("# R\n\n* [[a]]\n* [[c]]\n\nText.\n", "b").as_deref(),
            Some("# R\n\n* [[a]]\n* [[b]]\n* [[c]]\n\nText.\n")
        );
        // not in order: after the last, under its sub-items
        assert_eq!(
            add(
                "- Topics\n  - [[c]]\n  - [[a]]\n    - detail\n- Other\n",
                "b"
            )
            .as_deref(),
            Some("- Topics\n  - [[c]]\n  - [[a]]\n    - detail\n  - [[b]]\n- Other\n")
        );
        // numbered: at the end, with the next number
        assert_eq!(
            add("1. [[a]]\n2. [[c]]", "b").as_deref(),
            Some("1. [[a]]\n2. [[c]]\n3. [[b]]\n")
        );
        // the list that links most of the folder's notes takes it
        assert_eq!(
            add(
                "- [[a]]\n- [[b]]\n\n## More\n- [[c]]\n- [[d]]\n- [[a]]\n",
                "e"
            )
            .as_deref(),
            Some("- [[a]]\n- [[b]]\n\n## More\n- [[c]]\n- [[d]]\n- [[a]]\n- [[e]]\n")
        );
    }

    #[test]
    fn never_inside_or_below_a_region_marked_generated() {
        // the list ends where the marker starts: the line goes above the marker
        assert_eq!(
            add(
                "- [[a]]\n- [[c]]\n%% Hub MOCs: Don't edit below %%\n- [[x]]\n",
                "d"
            )
            .as_deref(),
            Some("- [[a]]\n- [[c]]\n- [[d]]\n%% Hub MOCs: Don't edit below %%\n- [[x]]\n")
        );
        // a hand list below the marker is not the vault's to extend by hand
        assert_eq!(
            add(
                "Intro\n%% Don\u{2019}t edit below %%\n- [[a]]\n- [[c]]\n",
                "d"
            ),
            None
        );
        assert_eq!(
            add(
                "<!-- BEGIN list -->\n- [[a]]\n- [[c]]\n<!-- END list -->\n",
                "d"
            ),
            None
        );
    }
}
