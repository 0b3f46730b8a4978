//! Which links name which file leaf: the inverted index that lets a change to one file touch
//! only the links that can be affected by it.
//!
//! Resolution only ever matches a link against files whose leaf (lower-cased last segment,
//! without `.md`) equals the link's, so after a file appears, disappears or moves, only the
//! links naming its old or new leaf can resolve differently. Built on the first change to a
//! vault (reading commands never need it).

use rustc_hash::FxHashMap;

use super::note::Note;

/// Where a link lives in a note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum LinkKind {
    /// `note.wikilinks[i]` (body wikilinks and embeds; the only ones with a resolution).
    Wiki,
    /// `note.frontmatter_links[i]`.
    Frontmatter,
    /// `note.markdown_links[i]`.
    Markdown,
}

/// One link of one note: sorts in note order, then wikilinks, frontmatter links, Markdown
/// links, each in text order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct LinkRef {
    pub(crate) note: usize,
    pub(crate) kind: LinkKind,
    pub(crate) index: usize,
}

/// The lower-cased last segment of a link target or a path, without `.md`.
pub(crate) fn leaf(s: &str) -> String {
    let last = s.rsplit('/').next().unwrap_or(s).trim().to_lowercase();
    last.strip_suffix(".md").map(str::to_string).unwrap_or(last)
}

/// The leaves a link can match: its [`leaf`], and for a target ending in `.md` also the
/// segment with it (`[[b.md]]` also finds a file named `b.md.md`, whose leaf is `b.md`).
fn link_leaves(target: &str) -> impl Iterator<Item = String> {
    let last = target
        .rsplit('/')
        .next()
        .unwrap_or(target)
        .trim()
        .to_lowercase();
    let short = last.strip_suffix(".md").map(str::to_string);
    std::iter::once(last).chain(short)
}

/// Whether `link_leaves(target)` holds `leaf` (lower-cased), without allocating when the
/// target's last segment is ASCII: a note with thousands of links is asked this for each of
/// them.
fn names_leaf(target: &str, leaf: &str) -> bool {
    debug_assert_eq!(leaf, leaf.to_lowercase(), "leaves are lower-cased");
    let last = target.rsplit('/').next().unwrap_or(target).trim();
    if !last.is_ascii() {
        return link_leaves(target).any(|k| k == leaf);
    }
    let short = last
        .len()
        .checked_sub(3)
        .filter(|&at| last.as_bytes()[at..].eq_ignore_ascii_case(b".md"))
        .map(|at| &last[..at]);
    last.eq_ignore_ascii_case(leaf) || short.is_some_and(|s| s.eq_ignore_ascii_case(leaf))
}

/// The notes with links naming each leaf. Links with an empty target (`[[#h]]`) name no file
/// and are left out.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeafIndex {
    by_leaf: FxHashMap<String, Vec<usize>>,
}

fn links(n: usize, note: &Note) -> impl Iterator<Item = (LinkRef, &str)> {
    let wiki = note.wikilinks.iter().enumerate().map(move |(i, l)| {
        let r = LinkRef {
            note: n,
            kind: LinkKind::Wiki,
            index: i,
        };
        (r, l.target.as_str())
    });
    let front = note
        .frontmatter_links
        .iter()
        .enumerate()
        .map(move |(i, l)| {
            let r = LinkRef {
                note: n,
                kind: LinkKind::Frontmatter,
                index: i,
            };
            (r, l.target.as_str())
        });
    let md = note.markdown_links.iter().enumerate().map(move |(i, l)| {
        let r = LinkRef {
            note: n,
            kind: LinkKind::Markdown,
            index: i,
        };
        (r, l.target.as_str())
    });
    wiki.chain(front)
        .chain(md)
        .filter(|(_, target)| !target.trim().is_empty())
}

/// Every leaf a note's links can match, sorted, without repeats.
fn keys(note: &Note) -> Vec<String> {
    let mut keys: Vec<String> = links(0, note).flat_map(|(_, t)| link_leaves(t)).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

impl LeafIndex {
    pub(crate) fn build(notes: &[Note]) -> LeafIndex {
        let mut index = LeafIndex::default();
        for (n, note) in notes.iter().enumerate() {
            index.add(n, note);
        }
        index
    }

    /// Records the links of note `n`.
    pub(crate) fn add(&mut self, n: usize, note: &Note) {
        for key in keys(note) {
            self.by_leaf.entry(key).or_default().push(n);
        }
    }

    /// Note `n` changed from `old` to `new`: only the leaves it stopped or started naming are
    /// touched (a map of contents gaining one link costs one entry, not all of its links).
    pub(crate) fn replace(&mut self, n: usize, old: &Note, new: &Note) {
        let (was, now) = (keys(old), keys(new));
        for key in was.iter().filter(|k| now.binary_search(k).is_err()) {
            if let Some(notes) = self.by_leaf.get_mut(key) {
                notes.retain(|&m| m != n);
                if notes.is_empty() {
                    self.by_leaf.remove(key);
                }
            }
        }
        for key in now.into_iter().filter(|k| was.binary_search(k).is_err()) {
            self.by_leaf.entry(key).or_default().push(n);
        }
    }

    /// The links (in `notes`) naming any of `leaves`, sorted, without repeats.
    pub(crate) fn naming(&self, notes: &[Note], leaves: &[String]) -> Vec<LinkRef> {
        let mut sources: Vec<usize> = leaves
            .iter()
            .filter_map(|l| self.by_leaf.get(l))
            .flatten()
            .copied()
            .collect();
        sources.sort_unstable();
        sources.dedup();
        let mut out = Vec::new();
        for n in sources {
            for (r, target) in links(n, &notes[n]) {
                if leaves.iter().any(|leaf| names_leaf(target, leaf)) {
                    out.push(r);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn the_quick_leaf_test_agrees_on_any_text(
            target in "[a-zA-Z./ #ΣσςÜü_-]{0,12}",
            leaf in "[a-z./ #σςü]{0,8}",
        ) {
            let slow = link_leaves(&target).any(|k| k == leaf);
            proptest::prop_assert_eq!(names_leaf(&target, &leaf), slow);
            // and against the leaf the target itself gives
            let own = super::leaf(&target);
            let slow = link_leaves(&target).any(|k| k == own);
            proptest::prop_assert_eq!(names_leaf(&target, &own), slow);
        }
    }

    #[test]
    fn the_quick_leaf_test_agrees_with_the_leaves_a_link_can_match() {
        let targets = [
            "Folder/B",
            "b.md",
            "B.MD",
            " B ",
            "sub/b.md.md",
            "x/.md",
            "md",
            ".md",
            "Ünïcode",
            "dir/ΟΔΟΣ",
            "ΟΔΟΣ.md",
            "K",
            "a/b/",
            "Café.Md",
            "b#h",
            "b.mdx",
        ];
        let leaves = [
            "b",
            "b.md",
            "",
            "md",
            ".md",
            "ünïcode",
            "οδος",
            "οδοσ",
            "k",
            "café",
            "b#h",
            "b.mdx",
        ];
        for t in targets {
            for l in leaves {
                let slow = link_leaves(t).any(|k| k == l);
                assert_eq!(names_leaf(t, l), slow, "{t:?} {l:?}");
            }
        }
    }

    #[test]
    fn links_are_found_by_leaf_and_forgotten_on_change() {
        let a = Note::parse_text("a.md", "[[Folder/B]] [[b.md|x]] [[#h]] [t](sub/B.md)");
        let c = Note::parse_text("c.md", "---\nup: \"[[B]]\"\n---\n[[D]]");
        let notes = vec![a, c];
        let mut index = LeafIndex::build(&notes);
        let refs = index.naming(&notes, &["b".to_string()]);
        assert_eq!(
            refs,
            vec![
                LinkRef {
                    note: 0,
                    kind: LinkKind::Wiki,
                    index: 0
                },
                LinkRef {
                    note: 0,
                    kind: LinkKind::Wiki,
                    index: 1
                },
                LinkRef {
                    note: 0,
                    kind: LinkKind::Markdown,
                    index: 0
                },
                LinkRef {
                    note: 1,
                    kind: LinkKind::Frontmatter,
                    index: 0
                },
            ]
        );
        let changed = Note::parse_text("c.md", "[[E]]");
        index.replace(1, &notes[1], &changed);
        let notes = vec![notes[0].clone(), changed];
        assert_eq!(index.naming(&notes, &["b".to_string()]).len(), 3);
        assert!(index.naming(&notes, &["d".to_string()]).is_empty());
        assert_eq!(
            index
                .naming(&notes, &["e".to_string(), "e".to_string()])
                .len(),
            1
        );
        // `[[b.md]]` may name a file called `b.md.md`
        assert_eq!(index.naming(&notes, &["b.md".to_string()]).len(), 2);
    }
}
