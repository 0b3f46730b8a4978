//! Targeted discovery: which notes one note should link to, each with the evidence — rare
//! words they share, notes that cite both (co-citation), links they share, tags, the folder,
//! and a title mentioned without a link.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::spot::{self, Spot};
use crate::agents::common;
use crate::analysis::graph::is_content;
use crate::crew::Folders;
use crate::text::{normalize, words};
use crate::vault::{NoteSource, Vault};

/// One suggested link from the note to `note`, with its score and why.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub note: usize,
    pub score: f64,
    pub why: Vec<String>,
}

/// The words of a normalised text that can say something about it (four letters or more,
/// not numbers).
fn content_words(normal: &str) -> BTreeSet<String> {
    words(normal)
        .filter(|w| w.chars().count() >= 4 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// How rare each word is across the content notes: its inverse document frequency.
struct Rarity {
    idf: HashMap<String, f64>,
}

impl Rarity {
    fn of(word_sets: &[Option<BTreeSet<String>>]) -> Rarity {
        let mut df: HashMap<&str, usize> = HashMap::new();
        let docs = word_sets.iter().flatten().count().max(1) as f64;
        for set in word_sets.iter().flatten() {
            for w in set {
                *df.entry(w.as_str()).or_default() += 1;
            }
        }
        Rarity {
            idf: df
                .into_iter()
                .map(|(w, d)| (w.to_string(), (docs / d as f64).ln()))
                .collect(),
        }
    }

    fn of_word(&self, w: &str) -> f64 {
        self.idf.get(w).copied().unwrap_or(0.0)
    }
}

/// What discovery knows of the vault: each content note's words, how rare each word is, and
/// which notes use the rarer words (read once, asked many times).
pub(crate) struct Discovery<'a> {
    vault: &'a Vault,
    source: &'a dyn NoteSource,
    word_sets: Vec<Option<BTreeSet<String>>>,
    rarity: Rarity,
    /// Notes using each word that is in at most [`POSTING_CAP`] notes.
    postings: HashMap<String, Vec<usize>>,
    texts: Vec<Option<String>>,
    tags: Vec<Vec<String>>,
    /// Content notes by tag (tags on at most [`TAG_CAP`] notes).
    by_tag: HashMap<String, Vec<usize>>,
    /// Content notes by the first word of their normalised name, with that name.
    by_first_word: HashMap<String, Vec<(String, usize)>>,
}

/// A word this rare (its inverse document frequency) or rarer says something about a pair.
const RARE: f64 = 1.5;

/// Tags on more notes than this do not propose candidates (they still add to a score).
const TAG_CAP: usize = 200;

/// Words in more notes than this do not propose candidates (they still add to a score).
const POSTING_CAP: usize = 50;

impl<'a> Discovery<'a> {
    pub fn new(vault: &'a Vault, source: &'a dyn NoteSource, f: &Folders) -> Discovery<'a> {
        let texts: Vec<Option<String>> = vault
            .notes
            .iter()
            .map(|n| {
                // the body only: a frontmatter key ("aliases:") is no mention of a note
                is_content(&n.path, f)
                    .then(|| common::reread(source, n).map(|(t, start)| normalize(&t[start..])))
                    .flatten()
            })
            .collect();
        let word_sets: Vec<Option<BTreeSet<String>>> = texts
            .iter()
            .map(|t| t.as_deref().map(content_words))
            .collect();
        let rarity = Rarity::of(&word_sets);
        let mut postings: HashMap<String, Vec<usize>> = HashMap::new();
        for (j, set) in word_sets.iter().enumerate() {
            for w in set.iter().flatten() {
                postings.entry(w.clone()).or_default().push(j);
            }
        }
        postings.retain(|_, v| v.len() <= POSTING_CAP);
        let tags: Vec<Vec<String>> = vault.notes.iter().map(|n| n.tags_normalized()).collect();
        let mut by_tag: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_first_word: HashMap<String, Vec<(String, usize)>> = HashMap::new();
        for (j, n) in vault.notes.iter().enumerate() {
            if word_sets[j].is_none() {
                continue;
            }
            for t in &tags[j] {
                by_tag.entry(t.clone()).or_default().push(j);
            }
            let name = normalize(n.name());
            if let Some(first) = words(&name).next() {
                by_first_word
                    .entry(first.to_string())
                    .or_default()
                    .push((name.clone(), j));
            }
        }
        by_tag.retain(|_, v| v.len() <= TAG_CAP);
        Discovery {
            vault,
            source,
            word_sets,
            rarity,
            postings,
            texts,
            tags,
            by_tag,
            by_first_word,
        }
    }

    /// Note `i`'s normalized text, when it is a content note.
    pub fn text(&self, i: usize) -> Option<&str> {
        self.texts[i].as_deref()
    }

    /// Whether note `i` is one discovery reads (content, not crew's or a template).
    pub fn is_content(&self, i: usize) -> bool {
        self.word_sets[i].is_some()
    }

    /// The rare words notes `i` and `j` share, rarest first, with their rarity.
    pub fn shared_rare(&self, i: usize, j: usize) -> Vec<(String, f64)> {
        let (Some(a), Some(b)) = (&self.word_sets[i], &self.word_sets[j]) else {
            return Vec::new();
        };
        let mut shared: Vec<(String, f64)> = a
            .intersection(b)
            .map(|w| (w.clone(), self.rarity.of_word(w)))
            .filter(|(_, r)| *r >= RARE)
            .collect();
        shared.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| x.0.cmp(&y.0)));
        shared
    }

    /// Where in note `from` a link to note `to` would go: the sentence naming `to` (its title
    /// or an alias), else the one with most of the rare words they share.
    pub fn spot(&self, from: usize, to: usize) -> Option<Spot> {
        let vault = self.vault;
        let (text, start) = common::reread(self.source, &vault.notes[from])?;
        let target = &vault.notes[to];
        let names: Vec<String> = std::iter::once(target.name())
            .chain(target.aliases.iter().map(String::as_str))
            .map(normalize)
            .filter(|n| n.chars().count() >= 3)
            .collect();
        let rare = self.shared_rare(from, to);
        spot::find(
            &text[start..],
            spot::body_first_line(&text[..start]),
            &spot::Target {
                names: &names,
                rare: &rare,
            },
        )
    }

    /// The notes `i` should link to and does not, strongest first.
    pub fn candidates(&self, i: usize, limit: usize) -> Vec<Candidate> {
        let vault = self.vault;
        let note = &vault.notes[i];
        let Some(mine) = self.word_sets[i].as_ref() else {
            return Vec::new();
        };
        let text = format!(" {} ", self.texts[i].as_deref().unwrap_or(""));
        let links = linked_notes(vault, i);
        let cited_with = co_cited(vault, i);
        let tags: BTreeSet<String> = self.tags[i].iter().cloned().collect();
        let folder = note.folder();
        let mut out: Vec<Candidate> = Vec::new();
        for j in self.proposals(i, mine, &cited_with, &tags) {
            if j == i || links.contains(&j) || self.word_sets[j].is_none() {
                continue;
            }
            let other = &vault.notes[j];
            let mut c = Candidate {
                note: j,
                score: 0.0,
                why: Vec::new(),
            };
            shared_words(&mut c, mine, self.word_sets[j].as_ref(), &self.rarity);
            if let Some(n) = cited_with.get(&j) {
                c.score += 2.0 * *n as f64;
                c.why.push(format!(
                    "cited together with it by {n} note{}",
                    if *n == 1 { "" } else { "s" }
                ));
            }
            let shared_links = links.intersection(&linked_notes(vault, j)).count();
            if shared_links > 0 {
                c.score += 1.5 * shared_links as f64;
                c.why.push(format!(
                    "{shared_links} shared link{}",
                    if shared_links == 1 { "" } else { "s" }
                ));
            }
            let shared_tags: Vec<&String> =
                self.tags[j].iter().filter(|t| tags.contains(*t)).collect();
            if !shared_tags.is_empty() {
                c.score += 1.5 * shared_tags.len() as f64;
                c.why.push(format!(
                    "shares #{}",
                    shared_tags
                        .iter()
                        .map(|t| t.as_str())
                        .collect::<Vec<_>>()
                        .join(", #")
                ));
            }
            let name = normalize(other.name());
            if name.chars().count() >= 4 && text.contains(&format!(" {name} ")) {
                c.score += 3.0;
                c.why.push("mentioned by title, not linked".into());
            }
            if c.score > 0.0 && other.folder() == folder && !folder.is_empty() {
                c.score += 0.5;
                c.why.push(format!("same folder `{folder}`"));
            }
            if c.score >= 1.0 {
                out.push(c);
            }
        }
        out.sort_by(|a, b| {
            b.score
                .partial_cmp(&a.score)
                .unwrap_or(std::cmp::Ordering::Equal)
                .then(a.note.cmp(&b.note))
        });
        out.truncate(limit);
        out
    }

    /// Notes worth scoring against `i`: those sharing its rarer words or its tags, those
    /// cited with it, those linking where it links, and those whose title it mentions.
    fn proposals(
        &self,
        i: usize,
        mine: &BTreeSet<String>,
        cited_with: &BTreeMap<usize, usize>,
        tags: &BTreeSet<String>,
    ) -> BTreeSet<usize> {
        let vault = self.vault;
        let mut out: BTreeSet<usize> = cited_with.keys().copied().collect();
        for w in mine {
            if let Some(p) = self.postings.get(w) {
                out.extend(p.iter().copied());
            }
        }
        for target in linked_notes(vault, i) {
            out.extend(vault.links_to(target).into_iter().map(|(s, _)| s));
        }
        for t in tags {
            if let Some(p) = self.by_tag.get(t) {
                out.extend(p.iter().copied());
            }
        }
        let text = format!(" {} ", self.texts[i].as_deref().unwrap_or(""));
        let all_words: BTreeSet<&str> = words(&text).collect();
        for w in all_words {
            for (name, j) in self.by_first_word.get(w).into_iter().flatten() {
                if text.contains(&format!(" {name} ")) {
                    out.insert(*j);
                }
            }
        }
        out
    }
}

/// Rare words both notes use: their rarity adds up; the three rarest are named.
fn shared_words(
    c: &mut Candidate,
    mine: &BTreeSet<String>,
    theirs: Option<&BTreeSet<String>>,
    rarity: &Rarity,
) {
    let Some(theirs) = theirs else {
        return;
    };
    let mut shared: Vec<(&String, f64)> = mine
        .intersection(theirs)
        .map(|w| (w, rarity.of_word(w)))
        .filter(|(_, r)| *r >= RARE)
        .collect();
    if shared.is_empty() {
        return;
    }
    shared.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
    c.score += shared.iter().map(|(_, r)| r).sum::<f64>() / 4.0;
    let named: Vec<&str> = shared.iter().take(3).map(|(w, _)| w.as_str()).collect();
    c.why
        .push(format!("rare words in common: {}", named.join(", ")));
}

/// The notes `i` links to.
fn linked_notes(vault: &Vault, i: usize) -> BTreeSet<usize> {
    vault.resolved[i]
        .iter()
        .filter_map(|r| r.file().and_then(|id| vault.note_of_file(id)))
        .filter(|&j| j != i)
        .collect()
}

/// Notes cited by the same notes that cite `i`, with how many such notes.
fn co_cited(vault: &Vault, i: usize) -> BTreeMap<usize, usize> {
    let mut out: BTreeMap<usize, usize> = BTreeMap::new();
    let citers: BTreeSet<usize> = vault
        .links_to(i)
        .into_iter()
        .map(|(src, _)| src)
        .filter(|&s| s != i)
        .collect();
    for c in citers {
        for j in linked_notes(vault, c) {
            if j != i {
                *out.entry(j).or_default() += 1;
            }
        }
    }
    out
}
