//! The people network: who the vault's people are, who is mentioned where, who appears with
//! whom, and who is named in a note without a link — with no template or People folder needed.
//!
//! A note is a person when it sits in the configured people folder, when a frontmatter key
//! (`person_marker_keys`) or a tag says so (`person_markers`, in `references/word-lists.yaml`),
//! or when it shares a folder with notes that are mostly people.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::discover::Discovery;
use super::{Ctx, NativeOutput, display, spot_line};
use crate::analysis::graph::is_moc;
use crate::crew::Folders;
use crate::text::{normalize, word_list, words};
use crate::tr;
use crate::vault::note::scalar_to_string;
use crate::vault::{Note, Vault};

/// Why a note counts as a person.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Why {
    PeopleFolder,
    Property,
    Tag,
    /// Most notes of its folder are people.
    Folder,
}

/// Pairs shown; unlinked mentions shown.
const SHOWN: usize = 15;

/// Whether a value names a person (`person`, `people`, `persona`…): a marker word, alone.
fn is_marker(value: &str) -> bool {
    let v = normalize(value);
    word_list("person_markers")
        .iter()
        .any(|m| normalize(m) == v)
}

/// Why note `n` marks itself a person, if it does: a marker key's value, else a tag segment.
fn marked(n: &Note) -> Option<Why> {
    let by_property = word_list("person_marker_keys").iter().any(|k| {
        n.property(k).is_some_and(|v| match v {
            yaml_serde::Value::Sequence(items) => items
                .iter()
                .filter_map(scalar_to_string)
                .any(|s| is_marker(&s)),
            v => scalar_to_string(v).is_some_and(|s| is_marker(&s)),
        })
    });
    if by_property {
        return Some(Why::Property);
    }
    n.tags_normalized()
        .iter()
        .any(|t| t.split('/').any(is_marker))
        .then_some(Why::Tag)
}

/// The vault's people and why each is one. Maps of content are never people.
pub(crate) fn people(vault: &Vault, f: &Folders) -> BTreeMap<usize, Why> {
    let people_dir = format!("{}/", f.people);
    let mut out: BTreeMap<usize, Why> = BTreeMap::new();
    let mut by_folder: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, n) in vault.notes.iter().enumerate() {
        if is_moc(vault, i, f) {
            continue;
        }
        by_folder.entry(n.folder()).or_default().push(i);
        if n.path.starts_with(&people_dir) {
            out.insert(i, Why::PeopleFolder);
        } else if let Some(why) = marked(n) {
            out.insert(i, why);
        }
    }
    for (folder, notes) in by_folder {
        let marked = notes.iter().filter(|i| out.contains_key(i)).count();
        if folder.is_empty() || marked < 2 || marked * 2 <= notes.len() {
            continue;
        }
        for i in notes {
            out.entry(i).or_insert(Why::Folder);
        }
    }
    out
}

/// The people a note links to, in its body or its frontmatter.
fn linked_people(vault: &Vault, src: usize, people: &BTreeMap<usize, Why>) -> BTreeSet<usize> {
    let n = &vault.notes[src];
    let body = vault.resolved[src]
        .iter()
        .filter_map(|r| r.file().and_then(|id| vault.note_of_file(id)));
    let front =
        n.frontmatter_links
            .iter()
            .filter_map(|l| match vault.files.resolve(&n.path, &l.target) {
                crate::vault::Resolution::File { id, .. } => vault.note_of_file(id),
                _ => None,
            });
    body.chain(front)
        .filter(|&j| j != src && people.contains_key(&j))
        .collect()
}

/// For each person, the content notes naming them (name or alias) without linking to them.
fn unlinked_mentions(
    vault: &Vault,
    discovery: &Discovery,
    people: &BTreeMap<usize, Why>,
    links: &[BTreeSet<usize>],
) -> Vec<(usize, usize)> {
    let mut by_first: HashMap<String, Vec<(String, usize)>> = HashMap::new();
    for &p in people.keys() {
        let n = &vault.notes[p];
        for name in std::iter::once(n.name()).chain(n.aliases.iter().map(String::as_str)) {
            let name = normalize(name);
            if name.chars().count() < 3 {
                continue;
            }
            if let Some(first) = words(&name).next() {
                by_first
                    .entry(first.to_string())
                    .or_default()
                    .push((name.clone(), p));
            }
        }
    }
    let mut out = BTreeSet::new();
    for (src, linked) in links.iter().enumerate() {
        let Some(text) = discovery.text(src) else {
            continue;
        };
        let text = format!(" {text} ");
        let seen: BTreeSet<&str> = words(&text).collect();
        for w in seen {
            for (name, p) in by_first.get(w).into_iter().flatten() {
                if *p != src && !linked.contains(p) && text.contains(&format!(" {name} ")) {
                    out.insert((*p, src));
                }
            }
        }
    }
    out.into_iter().collect()
}

/// How many notes link each person, and each pair of people together.
type Counts = (BTreeMap<usize, usize>, BTreeMap<(usize, usize), usize>);

fn counts(links: &[BTreeSet<usize>]) -> Counts {
    let mut mentions: BTreeMap<usize, usize> = BTreeMap::new();
    let mut together: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for named in links {
        let named: Vec<usize> = named.iter().copied().collect();
        for &p in &named {
            *mentions.entry(p).or_default() += 1;
        }
        for (a, &x) in named.iter().enumerate() {
            for &y in &named[a + 1..] {
                *together.entry((x, y)).or_default() += 1;
            }
        }
    }
    (mentions, together)
}

/// "People network": who is mentioned where, who appears together, who is named unlinked.
pub(super) fn run(ctx: &Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let f = &ctx.config.folders;
    let people = people(vault, f);
    let discovery = Discovery::new(vault, &*ctx.gate, f);
    let links: Vec<BTreeSet<usize>> = (0..vault.notes.len())
        .map(|src| {
            if discovery.is_content(src) {
                linked_people(vault, src, &people)
            } else {
                BTreeSet::new()
            }
        })
        .collect();
    let (mentions, together) = counts(&links);
    let unlinked = unlinked_mentions(vault, &discovery, &people, &links);
    let l = ctx.lang;
    let count = |w: Why| people.values().filter(|&&x| x == w).count();
    let mut out = tr!(
        l,
        "connector.people.heading",
        date = ctx.today(),
        count = people.len()
    );
    if people.is_empty() {
        out.push_str(&tr!(l, "connector.people.none"));
    } else {
        out.push_str(&tr!(
            l,
            "connector.people.found_by",
            folder = count(Why::PeopleFolder),
            property = count(Why::Property),
            tag = count(Why::Tag),
            mostly = count(Why::Folder)
        ));
    }
    let mut ranked: Vec<(usize, usize)> = people
        .keys()
        .map(|&p| (p, mentions.get(&p).copied().unwrap_or(0)))
        .collect();
    ranked.sort_by_key(|&(p, c)| (std::cmp::Reverse(c), p));
    if !mentions.is_empty() {
        out.push_str(&tr!(l, "connector.people.most"));
    }
    for (p, c) in ranked.iter().filter(|(_, c)| *c > 0).take(SHOWN) {
        out.push_str(&tr!(
            l,
            "connector.people.in_notes",
            note = display(vault, *p),
            count = c
        ));
    }
    let mut pairs: Vec<((usize, usize), usize)> = together.into_iter().collect();
    pairs.sort_by_key(|&(k, c)| (std::cmp::Reverse(c), k));
    if !pairs.is_empty() {
        out.push_str(&tr!(l, "connector.people.together"));
        for ((a, b), c) in pairs.iter().take(SHOWN) {
            out.push_str(&tr!(
                l,
                "connector.people.pair",
                a = display(vault, *a),
                b = display(vault, *b),
                count = c
            ));
        }
    }
    out.push_str(&unlinked_text(vault, &discovery, &unlinked, l));
    let named_unlinked: BTreeSet<usize> = unlinked.iter().map(|(p, _)| *p).collect();
    let unmentioned: Vec<String> = ranked
        .iter()
        .filter(|(p, c)| *c == 0 && !named_unlinked.contains(p))
        .map(|(p, _)| format!("[[{}]]", display(vault, *p)))
        .collect();
    if !unmentioned.is_empty() {
        out.push_str(&tr!(
            l,
            "connector.people.never",
            count = unmentioned.len(),
            notes = unmentioned
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    NativeOutput {
        postit: format!(
            "people network {}: {} people, {} pairs, {} unlinked mentions, {} never mentioned",
            ctx.today(),
            people.len(),
            pairs.len(),
            unlinked.len(),
            unmentioned.len()
        ),
        text: out,
        attention: false,
    }
}

/// The people named without a link, each with the sentence naming them.
fn unlinked_text(
    vault: &Vault,
    discovery: &Discovery,
    unlinked: &[(usize, usize)],
    l: crate::lang::Lang,
) -> String {
    if unlinked.is_empty() {
        return String::new();
    }
    let mut out = tr!(l, "connector.people.unlinked", count = unlinked.len());
    for &(p, src) in unlinked.iter().take(SHOWN) {
        out.push_str(&tr!(
            l,
            "connector.people.unlinked_item",
            person = display(vault, p),
            note = display(vault, src)
        ));
        out.push_str(&spot_line(discovery, src, p, l));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(notes: &[(&str, &str)]) -> Vault {
        let notes = notes.iter().map(|(p, t)| Note::parse_text(*p, t)).collect();
        Vault::from_notes(std::path::PathBuf::from("/v"), notes, Vec::new())
    }

    #[test]
    fn people_by_property_tag_and_a_folder_of_mostly_people() {
        let v = vault(&[
            ("Contacts/Ann.md", "---\ntype: person\n---\nAnn"),
            ("Contacts/Bob.md", "#people/work Bob"),
            ("Contacts/Cy.md", "Cy, no marker"),
            ("Contacts/Index.md", "---\ntype: moc\n---\n"),
            ("Notes/Dee.md", "---\ncategory: [Persona]\n---\n"),
            ("Notes/Trip.md", "a trip"),
            ("Notes/Work.md", "#project work"),
        ]);
        let found = people(&v, &Folders::default());
        let why = |p: &str| found.get(&v.note_index(p).expect("note")).copied();
        assert_eq!(why("Contacts/Ann.md"), Some(Why::Property));
        assert_eq!(why("Contacts/Bob.md"), Some(Why::Tag));
        assert_eq!(why("Contacts/Cy.md"), Some(Why::Folder));
        assert_eq!(why("Contacts/Index.md"), None, "a map is no person");
        assert_eq!(why("Notes/Dee.md"), Some(Why::Property));
        assert_eq!(
            why("Notes/Trip.md"),
            None,
            "one person does not make a folder"
        );
        assert_eq!(why("Notes/Work.md"), None);
    }
}
