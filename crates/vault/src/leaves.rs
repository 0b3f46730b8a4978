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

/// The links naming each leaf. Links with an empty target (`[[#h]]`) name no file and are
/// left out. Each link is kept, not only the note holding it: a home page linking to every
/// note would otherwise have all its links tested each time any note is looked up.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeafIndex {
    by_leaf: FxHashMap<String, Vec<LinkRef>>,
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
        for (r, target) in links(n, note) {
            for key in link_leaves(target) {
                self.by_leaf.entry(key).or_default().push(r);
            }
        }
    }

    /// Note `n` changed from `old` to `new`. All its links are indexed again, since a link
    /// added before others moves their positions: the cost of reading the note, once per
    /// change, where looking links up happens many times per run.
    pub(crate) fn replace(&mut self, n: usize, old: &Note, new: &Note) {
        for key in keys(old) {
            if let Some(refs) = self.by_leaf.get_mut(&key) {
                refs.retain(|r| r.note != n);
                if refs.is_empty() {
                    self.by_leaf.remove(&key);
                }
            }
        }
        self.add(n, new);
    }

    /// The links naming any of `leaves`, sorted, without repeats.
    pub(crate) fn naming(&self, leaves: &[String]) -> Vec<LinkRef> {
        let mut out: Vec<LinkRef> = leaves
            .iter()
            .filter_map(|l| self.by_leaf.get(l))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every link of `notes` naming one of `leaves`, found by reading every note: what the
    /// index must answer.
    fn scanned(notes: &[Note], leaves: &[String]) -> Vec<LinkRef> {
        let mut out: Vec<LinkRef> = (0..notes.len())
            .flat_map(|n| links(n, &notes[n]).collect::<Vec<_>>())
            .filter(|(_, target)| link_leaves(target).any(|k| leaves.contains(&k)))
            .map(|(r, _)| r)
            .collect();
        out.sort_unstable();
        out
    }

    fn note_linking(path: &str, targets: &[String]) -> Note {
        let body: Vec<String> = targets
            .iter()
            .map(|t| format!("[[{t}]] [x]({t}.md)"))
            .collect();
        Note::parse_text(path, &body.join(" "))
    }

    proptest::proptest! {
        #[test]
        fn the_index_finds_what_reading_every_note_finds(
            links in proptest::collection::vec(
                proptest::collection::vec("(A|b|B\\.md|c/a|Ü|ü)", 0..6), 1..5),
            change in 0usize..4,
            changed in proptest::collection::vec("(A|b|Ü|d)", 0..6),
        ) {
            let mut notes: Vec<Note> = links
                .iter()
                .enumerate()
                .map(|(i, t)| note_linking(&format!("n{i}.md"), t))
                .collect();
            let mut index = LeafIndex::build(&notes);
            let all: Vec<String> = ["a", "b", "b.md", "ü", "d", "c/a"].map(String::from).to_vec();
            for leaf in &all {
                let one = std::slice::from_ref(leaf);
                proptest::prop_assert_eq!(index.naming(one), scanned(&notes, one));
            }
            let n = change % notes.len();
            let new = note_linking(&notes[n].path.clone(), &changed);
            index.replace(n, &notes[n], &new);
            notes[n] = new;
            for leaf in &all {
                let one = std::slice::from_ref(leaf);
                proptest::prop_assert_eq!(index.naming(one), scanned(&notes, one));
            }
            proptest::prop_assert_eq!(index.naming(&all), scanned(&notes, &all));
        }
    }

    #[test]
    fn links_are_found_by_leaf_and_forgotten_on_change() {
        let a = Note::parse_text("a.md", "[[Folder/B]] [[b.md|x]] [[#h]] [t](sub/B.md)");
        let c = Note::parse_text("c.md", "---\nup: \"[[B]]\"\n---\n[[D]]");
        let notes = vec![a, c];
        let mut index = LeafIndex::build(&notes);
        let refs = index.naming(&["b".to_string()]);
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
        assert_eq!(index.naming(&["b".to_string()]).len(), 3);
        assert!(index.naming(&["d".to_string()]).is_empty());
        assert_eq!(index.naming(&["e".to_string(), "e".to_string()]).len(), 1);
        // `[[b.md]]` may name a file called `b.md.md`
        assert_eq!(index.naming(&["b.md".to_string()]).len(), 2);
    }
}
