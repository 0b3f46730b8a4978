//! A home for the homeless: inbox notes no folder of the vault is like, grouped by the words
//! they share and the vault does not use, each group a proposed new folder with the command
//! that makes it. Nothing here moves a note; the user decides.

use std::collections::BTreeMap;

use crate::agents::filing::Learned;
use crate::vault::classify;

/// Notes a group needs before a folder is proposed for it.
const MIN_GROUP: usize = 3;
/// Words two notes must share to be of one topic.
const SHARED_WORDS: usize = 2;
/// A word in more of the vault's filed notes than this is the vault's, not a new topic's.
const VAULT_SHARE: f64 = 0.02;

/// A new folder for notes no folder is like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Proposal {
    /// The folder, vault-relative.
    pub folder: String,
    /// The words its notes share, the most shared first.
    pub words: Vec<String>,
    /// The notes it would take (vault paths), in the order given.
    pub notes: Vec<String>,
}

impl Proposal {
    /// The command that makes the folder and files the notes into it.
    pub fn command(&self) -> String {
        let mut args: Vec<&str> = vec!["triage", "--into", &self.folder];
        args.extend(self.notes.iter().map(String::as_str));
        crate::shell::crew(&args)
    }
}

/// The topic words of a note: its words (normalized) that are no function word of the crew's
/// languages and that few of the vault's filed notes use.
fn topic_words(text: &str, learned: &Learned) -> BTreeMap<String, usize> {
    let mut words: BTreeMap<String, usize> = BTreeMap::new();
    classify::each_word(text, |w| {
        if !crate::lang::detect::function_word(w) && learned.classifier.word_share(w) <= VAULT_SHARE
        {
            *words.entry(w.to_string()).or_default() += 1;
        }
    });
    words
}

/// Groups `homeless` notes (vault path, text) by the words they share and proposes a folder
/// for each group of [`MIN_GROUP`] or more, placed where the vault keeps its topic folders.
/// `exists` says whether a folder is already there (such a proposal is left out: the notes
/// were not like its notes).
pub(crate) fn propose(
    homeless: &[(String, String)],
    learned: &Learned,
    exists: &dyn Fn(&str) -> bool,
) -> Vec<Proposal> {
    let words: Vec<BTreeMap<String, usize>> = homeless
        .iter()
        .map(|(_, text)| topic_words(text, learned))
        .collect();
    // single linkage: notes sharing enough words are one topic
    let mut group: Vec<usize> = (0..homeless.len()).collect();
    fn root(group: &mut [usize], mut i: usize) -> usize {
        while group[i] != i {
            group[i] = group[group[i]];
            i = group[i];
        }
        i
    }
    for a in 0..homeless.len() {
        for b in a + 1..homeless.len() {
            let shared = words[a]
                .keys()
                .filter(|w| words[b].contains_key(*w))
                .count();
            if shared >= SHARED_WORDS {
                let (ra, rb) = (root(&mut group, a), root(&mut group, b));
                group[ra.max(rb)] = ra.min(rb);
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..homeless.len() {
        let r = root(&mut group, i);
        groups.entry(r).or_default().push(i);
    }
    let parent = topic_parent(learned);
    groups
        .into_values()
        .filter(|members| members.len() >= MIN_GROUP)
        .filter_map(|members| {
            let words = shared_words(&members, &words);
            let name = title_case(words.first()?);
            let folder = if parent.is_empty() {
                name
            } else {
                format!("{parent}/{name}")
            };
            (!exists(&folder)).then(|| Proposal {
                folder,
                words: words.into_iter().take(3).collect(),
                notes: members.iter().map(|&i| homeless[i].0.clone()).collect(),
            })
        })
        .collect()
}

/// The words of a group, by how many of its notes have them (at least two), then by use.
fn shared_words(members: &[usize], words: &[BTreeMap<String, usize>]) -> Vec<String> {
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for &m in members {
        for (w, n) in &words[m] {
            let e = tally.entry(w.as_str()).or_default();
            e.0 += 1;
            e.1 += n;
        }
    }
    let mut ranked: Vec<(&str, (usize, usize))> = tally
        .into_iter()
        .filter(|(_, (notes, _))| *notes >= 2)
        .collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    ranked.into_iter().map(|(w, _)| w.to_string()).collect()
}

/// Where the vault keeps its topic folders: from the root down, into the folder that holds
/// two thirds or more of the notes filing learned from, as long as there is one (a vault kept
/// under `Me/Coding/…` gets its new folder there; one with topics at the root, at the root).
fn topic_parent(learned: &Learned) -> String {
    let folders = learned.classifier.folders();
    let total: usize = folders.iter().map(|(_, n)| n).sum();
    let mut at = String::new();
    loop {
        let mut under: BTreeMap<String, usize> = BTreeMap::new();
        for (folder, n) in &folders {
            let rest = if at.is_empty() {
                Some(folder.as_str())
            } else {
                folder.strip_prefix(&at).and_then(|r| r.strip_prefix('/'))
            };
            // a folder with notes of its own is a topic, not a place topics are kept in
            if let Some((child, _)) = rest.and_then(|r| r.split_once('/')) {
                *under.entry(child.to_string()).or_default() += n;
            }
        }
        let Some((child, _)) = under.into_iter().find(|(_, n)| 3 * n >= 2 * total) else {
            return at;
        };
        at = if at.is_empty() {
            child
        } else {
            format!("{at}/{child}")
        };
    }
}

fn title_case(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|first| first.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
