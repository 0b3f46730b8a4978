//! The vault's own schema: which frontmatter keys each kind of note carries, learned from the
//! vault's notes as filing learns its folders. The audit reports a key missing only where the
//! vault's own notes of that kind carry it.
//!
//! A note belongs to two kinds: its folder, and its `type` value when it has one (a `type:
//! meeting` note in the inbox is a meeting, and a note in `Recipes/` a recipe, whatever else it
//! is). A kind expects frontmatter, and each key, that at least [`SHARE`] of its notes carry,
//! once it holds [`MIN_NOTES`] notes; a note is expected to carry what either of its kinds
//! expects.
//!
//! Why 80 %: a key most notes of a kind carry is that kind's convention and a note without it is
//! most likely an oversight; a key only half of them carry is optional in that vault. At 80 % a
//! kind never has more than a fifth of its notes reported, so a report is about exceptions,
//! never about the vault's own way. Why 5 notes: at 80 %, a kind of 4 can never single a note out
//! (3 of 4 is 75 %), and fewer notes are no convention yet.
//!
//! A vault crew laid out (`crew init`, not adopted) keeps crew's own schema: every note carries
//! `type`, `date`, `tags` and `status` ([`REQUIRED_KEYS`]).

use std::collections::{BTreeMap, HashMap};

use crate::crew::{Crew, Folders};
use crate::vault::{Frontmatter, Note, Vault};

/// The frontmatter keys every note of a vault crew laid out should have.
pub(crate) const REQUIRED_KEYS: &[&str] = &["type", "date", "tags", "status"];

/// The share of a kind's notes that makes a key (or frontmatter at all) its convention.
pub const SHARE: f64 = 0.8;

/// The fewest notes a kind needs before it expects anything.
pub const MIN_NOTES: usize = 5;

/// Which keys the audit expects of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schema {
    /// crew laid the vault out: every note has frontmatter with crew's [`REQUIRED_KEYS`].
    Crew,
    /// What the vault's own notes of each kind carry.
    Learned(Learned),
}

/// The learned conventions, by folder and by `type` value (lower-cased).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Learned {
    folders: HashMap<String, Expect>,
    types: HashMap<String, Expect>,
}

/// What one kind of note expects.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Expect {
    frontmatter: bool,
    /// Lower-cased key → the spelling most of the kind's notes use.
    keys: BTreeMap<String, String>,
}

/// The counts one kind's expectations are drawn from.
#[derive(Default)]
struct Tally {
    notes: usize,
    frontmatter: usize,
    /// Lower-cased key → notes carrying it, and each spelling's count.
    keys: HashMap<String, (usize, BTreeMap<String, usize>)>,
}

impl Tally {
    fn add(&mut self, has_frontmatter: bool, keys: &[(String, String)]) {
        self.notes += 1;
        self.frontmatter += usize::from(has_frontmatter);
        for (lower, spelled) in keys {
            let e = self.keys.entry(lower.clone()).or_default();
            e.0 += 1;
            *e.1.entry(spelled.clone()).or_default() += 1;
        }
    }

    fn expect(self) -> Option<Expect> {
        if self.notes < MIN_NOTES {
            return None;
        }
        let common = |count: usize| count as f64 >= SHARE * self.notes as f64;
        let keys: BTreeMap<String, String> = self
            .keys
            .into_iter()
            .filter(|(_, (count, _))| common(*count))
            .map(|(lower, (_, spellings))| {
                let spelled = spellings
                    .into_iter()
                    .max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(&a.0)))
                    .map_or_else(|| lower.clone(), |(s, _)| s);
                (lower, spelled)
            })
            .collect();
        let frontmatter = common(self.frontmatter);
        (frontmatter || !keys.is_empty()).then_some(Expect { frontmatter, keys })
    }
}

/// A note's `type` value as a kind: trimmed, lower-cased; none when absent, empty or not text.
fn type_of(n: &Note) -> Option<String> {
    n.property_str("type")
        .map(|t| t.trim().to_lowercase())
        .filter(|t| !t.is_empty())
}

/// A note's frontmatter keys, lower-cased beside their spelling, each once.
fn keys_of(n: &Note) -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = n
        .properties()
        .map(|m| {
            m.keys()
                .filter_map(|k| k.as_str())
                .map(|k| (k.to_lowercase(), k.to_string()))
                .collect()
        })
        .unwrap_or_default();
    keys.sort();
    keys.dedup_by(|a, b| a.0 == b.0);
    keys
}

impl Schema {
    /// The schema the audit holds this vault to: crew's own in a vault crew laid out, else the
    /// one its notes show (see [`Crew::owns_layout`]).
    pub fn of(crew: &Crew, vault: &Vault, f: &Folders) -> Schema {
        if crew.owns_layout() {
            Schema::Crew
        } else {
            Schema::learn(vault, f)
        }
    }

    /// Learns each kind's keys from the notes the audit checks (crew's own notes, templates,
    /// maps of content and area indexes left out).
    pub fn learn(vault: &Vault, f: &Folders) -> Schema {
        let mut folders: HashMap<String, Tally> = HashMap::new();
        let mut types: HashMap<String, Tally> = HashMap::new();
        for n in vault
            .notes
            .iter()
            .filter(|n| !f.crew_owned(&n.path) && !super::health::exempt(&n.path, f))
        {
            let has_frontmatter = n.frontmatter != Frontmatter::Absent;
            let keys = keys_of(n);
            folders
                .entry(n.folder().to_string())
                .or_default()
                .add(has_frontmatter, &keys);
            if let Some(t) = type_of(n) {
                types.entry(t).or_default().add(has_frontmatter, &keys);
            }
        }
        let settle = |m: HashMap<String, Tally>| -> HashMap<String, Expect> {
            m.into_iter()
                .filter_map(|(k, t)| t.expect().map(|e| (k, e)))
                .collect()
        };
        Schema::Learned(Learned {
            folders: settle(folders),
            types: settle(types),
        })
    }

    /// Whether a note without frontmatter falls short of its kind.
    pub fn expects_frontmatter(&self, n: &Note) -> bool {
        match self {
            Schema::Crew => true,
            Schema::Learned(l) => l.folders.get(n.folder()).is_some_and(|e| e.frontmatter),
        }
    }

    /// The keys a note with frontmatter lacks, by its kinds' standard, in a stable order.
    pub fn missing_keys(&self, n: &Note) -> Vec<String> {
        match self {
            Schema::Crew => REQUIRED_KEYS
                .iter()
                .filter(|k| !n.has_property(k))
                .map(|k| k.to_string())
                .collect(),
            Schema::Learned(l) => {
                let mut expected: BTreeMap<&str, &str> = BTreeMap::new();
                let kinds = [
                    l.folders.get(n.folder()),
                    type_of(n).and_then(|t| l.types.get(&t)),
                ];
                for e in kinds.into_iter().flatten() {
                    for (lower, spelled) in &e.keys {
                        expected.entry(lower).or_insert(spelled);
                    }
                }
                expected
                    .into_iter()
                    .filter(|(lower, _)| !n.has_property(lower))
                    .map(|(_, spelled)| spelled.to_string())
                    .collect()
            }
        }
    }

    /// Whether the audit also holds the vault to crew's naming convention: only where crew
    /// laid the vault out; a vault's own names are its owner's.
    pub fn crew_naming(&self) -> bool {
        matches!(self, Schema::Crew)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(files: &[(String, String)]) -> Vault {
        let notes = files
            .iter()
            .map(|(p, t)| Note::parse_text(p.as_str(), t))
            .collect();
        Vault::from_notes(std::path::PathBuf::from("/v"), notes, Vec::new())
    }

    fn note(files: &[(String, String)], path: &str) -> Note {
        let (p, t) = files.iter().find(|(p, _)| p == path).expect("fixture");
        Note::parse_text(p.as_str(), t)
    }

    #[test]
    fn a_key_most_of_a_kind_carries_is_expected_of_the_rest() {
        let mut files: Vec<(String, String)> = (0..4)
            .map(|i| {
                (
                    format!("Meetings/m{i}.md"),
                    "---\ndate: 2026-01-01\nAttendees: [a]\n---\n".to_string(),
                )
            })
            .collect();
        files.push((
            "Meetings/odd.md".into(),
            "---\ndate: 2026-01-02\n---\n".into(),
        ));
        files.push(("Meetings/bare.md".into(), "no frontmatter".into()));
        let s = Schema::learn(&vault(&files), &Folders::default());
        // 5 of 6 carry `date` (83 %), 4 of 6 `Attendees` (67 %): only `date` is the convention
        assert_eq!(
            s.missing_keys(&note(&files, "Meetings/odd.md")),
            Vec::<String>::new()
        );
        assert!(s.expects_frontmatter(&note(&files, "Meetings/bare.md")));
        let strict = Schema::learn(&vault(&files[..5]), &Folders::default());
        assert_eq!(
            strict.missing_keys(&note(&files, "Meetings/odd.md")),
            vec!["Attendees".to_string()],
            "4 of 5 carry it: the spelling they use is reported"
        );
    }

    #[test]
    fn a_type_is_a_kind_across_folders_and_small_kinds_expect_nothing() {
        let mut files: Vec<(String, String)> = (0..5)
            .map(|i| {
                (
                    format!("F{i}/book.md"),
                    "---\ntype: Book\nauthor: x\n---\n".to_string(),
                )
            })
            .collect();
        files.push(("F0/loose.md".into(), "---\ntype: book\n---\n".into()));
        files.push(("Small/a.md".into(), "---\nk: 1\n---\n".into()));
        files.push(("Small/b.md".into(), "plain".into()));
        let s = Schema::learn(&vault(&files), &Folders::default());
        assert_eq!(
            s.missing_keys(&note(&files, "F0/loose.md")),
            vec!["author".to_string()]
        );
        assert!(!s.expects_frontmatter(&note(&files, "Small/b.md")));
        assert!(s.missing_keys(&note(&files, "Small/a.md")).is_empty());
        assert_eq!(
            Schema::Crew.missing_keys(&note(&files, "Small/a.md")),
            vec!["type", "date", "tags", "status"]
        );
    }
}
