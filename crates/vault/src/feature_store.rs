//! The filing classifier's store, kept next to the persistent index: each note's content
//! features ([`classify::content_features`]) and the last calibration, so a run does not read
//! and hash every filed note again, nor guess hundreds of them again while nothing changed.
//!
//! It lives in the file `<index>.classify` (for crew: `.crew/index.bin.classify`), apart from
//! the index itself: the features weigh several times what the parsed notes do, and commands
//! that only count (`vault stats`) must not pay for decoding them. It follows the index's
//! rules of trust: an entry is used only when the note's stamp (size, nanosecond mtime and
//! change time) is the one it was stored with, the note last changed well before the store
//! was written, and the note has not changed in memory since the vault was read (a writer's
//! pending change, a dry run's included); the file carries the index's format number, the
//! classifier's [`classify::VERSION`] and a checksum, and anything missing, damaged or of
//! another format or version is rebuilt.
//!
//! The cached path gives exactly what the full path gives, with one tolerance: the features
//! are the same numbers (stored to the bit), the features of links are computed each time
//! (they depend on other notes), and a calibration is reused while the examples differ from
//! those it was measured on in at most [`CALIBRATION_DRIFT`] of the notes. Each edited, added,
//! moved or removed filed note changes the classifier, and measuring it again costs more than
//! filing a hundred notes, while the estimate it gives is the rate of a sample of a few hundred
//! guesses, whose own error is larger than what a hundredth of the notes can move.
//!
//! The file is written again only when that saves the next run work: a new calibration, or
//! more than [`STALE_BEFORE_WRITE`] notes whose features were computed anew. Fewer are cheaper
//! to compute again next time than the whole store is to write.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::classify::{self, Calibration, Classifier, Example, Feature};
use crate::index::{self, Stamp};
use crate::{NoteSource, Vault};

/// One note's stored features: `None` when the caller's `skip` declined its text (a
/// template), which is as worth remembering as the features.
#[derive(Serialize, Deserialize, Clone)]
struct Stored {
    path: String,
    stamp: Stamp,
    features: Option<Vec<(Feature, f32)>>,
}

/// A note asked for: its index, its content features (`None`: declined) and the entry to
/// store when they were computed now.
type Found = (usize, Option<Vec<(Feature, f32)>>, Option<Stored>);

/// The share of examples that may have changed since a kept calibration was measured.
pub const CALIBRATION_DRIFT: f64 = 0.01;
/// Notes whose features may be computed anew each run before the store is written again.
pub const STALE_BEFORE_WRITE: usize = 64;

/// A calibration, the question it answered and the examples it was measured on.
#[derive(Serialize, Deserialize, Clone)]
struct KeptCalibration {
    /// [`digest`]s of the examples, sorted.
    examples: Vec<Digest>,
    target: u64,
    /// The stranger target's bits and a hash of the strangers' features.
    strangers: (u64, u64),
    sample: usize,
    seed: u64,
    calibration: Calibration,
}

#[derive(Serialize, Deserialize)]
struct File {
    format: u32,
    /// [`writer`]: the crew and the classifier that wrote the file.
    writer: String,
    written_ns: i128,
    notes: Vec<Stored>,
    calibration: Option<KeptCalibration>,
}

/// A vault's classifier store: load it with [`FeatureStore::load`], take the examples and the
/// calibration through it, and [`FeatureStore::save`] what it learned.
pub struct FeatureStore {
    /// `None`: the vault was opened without an index, nothing is kept.
    path: Option<PathBuf>,
    written_ns: i128,
    notes: FxHashMap<String, Stored>,
    calibration: Option<KeptCalibration>,
    /// Entries the next save writes: those used or computed by this run.
    fresh: Vec<Stored>,
    /// Notes whose features this run computed and the store did not have.
    recomputed: usize,
    /// Whether this run measured a calibration the file does not hold.
    calibrated: bool,
    /// [`digest`]s of the last examples taken, sorted (none when nothing is kept).
    digests: Vec<Digest>,
}

impl FeatureStore {
    /// A store that keeps nothing: every note is read and every calibration computed (the
    /// full path, and what a vault opened without an index gets).
    pub fn disabled() -> FeatureStore {
        FeatureStore {
            path: None,
            written_ns: 0,
            notes: FxHashMap::default(),
            calibration: None,
            fresh: Vec::new(),
            recomputed: 0,
            calibrated: false,
            digests: Vec::new(),
        }
    }

    /// The store next to the index `vault` was opened with ([`Vault::open_indexed`]); empty
    /// when there is none yet or it cannot be trusted, and [`FeatureStore::disabled`] for a
    /// vault opened without an index.
    pub fn load(vault: &Vault) -> FeatureStore {
        let Some(index) = vault.origin.index.as_deref() else {
            return FeatureStore::disabled();
        };
        let path = store_path(index);
        let mut store = FeatureStore {
            path: Some(path.clone()),
            ..FeatureStore::disabled()
        };
        if let Some(file) = read(&path) {
            store.written_ns = file.written_ns;
            store.calibration = file.calibration;
            store.notes = file
                .notes
                .into_iter()
                .map(|s| (s.path.clone(), s))
                .collect();
        }
        store
    }

    /// The stored entry of note `n`, when it can vouch for the note as the vault holds it.
    fn trusted(&self, vault: &Vault, n: usize) -> Option<&Stored> {
        let stamp = vault.origin.stamp(n)?;
        self.notes
            .get(&vault.notes[n].path)
            .filter(|s| s.stamp == stamp && stamp.settled_before(self.written_ns))
    }

    /// The training examples for `notes` (indices into [`Vault::notes`], in the order wanted):
    /// each note's folder and full features ([`classify::features`]). A note is left out when
    /// `source` cannot read it or `skip` declines its text. Notes the store vouches for are
    /// not read; the others are read through `source`, in parallel.
    pub fn examples(
        &mut self,
        vault: &Vault,
        notes: &[usize],
        source: &dyn NoteSource,
        skip: &(dyn Fn(&str) -> bool + Sync),
    ) -> Vec<Example> {
        let keep = self.path.is_some();
        let found: Vec<Found> = notes
            .par_iter()
            .filter_map(|&n| {
                let note = &vault.notes[n];
                if let Some(s) = self.trusted(vault, n) {
                    return Some((n, s.features.clone(), None));
                }
                let text = source.note_text(&note.path)?;
                let content = (!skip(&text))
                    .then(|| classify::content_features(note, body_of(&text, note), None));
                let stored = vault.origin.stamp(n).filter(|_| keep).map(|stamp| Stored {
                    path: note.path.clone(),
                    stamp,
                    features: content.clone(),
                });
                Some((n, content, stored))
            })
            .collect();
        let mut examples = Vec::with_capacity(found.len());
        for (n, content, stored) in found {
            match stored {
                Some(s) => {
                    self.recomputed += 1;
                    self.fresh.push(s);
                }
                None => {
                    if let Some(s) = self.notes.remove(&vault.notes[n].path) {
                        self.fresh.push(s);
                    }
                }
            }
            if let Some(content) = content {
                let path = &vault.notes[n].path;
                examples.push((n, classify::folder_of(path).to_string(), content));
            }
        }
        // the features of links depend on the other notes: computed each time, in parallel
        let graph = classify::LinkGraph::new(vault);
        examples.par_iter_mut().for_each(|(n, _, feats)| {
            let content = std::mem::take(feats);
            *feats = classify::with_links_given(*n, content, &graph);
        });
        if keep {
            self.digests = examples
                .par_iter()
                .map(|(n, folder, feats)| digest(&vault.notes[*n].path, folder, feats))
                .collect();
            self.digests.par_sort_unstable();
        }
        examples
    }

    /// [`Classifier::calibrate`] for the `classifier` trained on the examples last taken through
    /// [`FeatureStore::examples`]: taken from the store when the same question was asked of
    /// examples that differ from these in at most [`CALIBRATION_DRIFT`] of them.
    pub fn calibrate(
        &mut self,
        classifier: &Classifier,
        (target, stranger_target): (f64, f64),
        sample: usize,
        seed: u64,
        strangers: &[Vec<(Feature, f32)>],
    ) -> Calibration {
        let digests = &self.digests;
        let strangers_asked = (stranger_target.to_bits(), strangers_digest(strangers));
        let asked = |k: &KeptCalibration| {
            !digests.is_empty()
                && k.target == target.to_bits()
                && k.strangers == strangers_asked
                && k.sample == sample
                && k.seed == seed
                && changed_between(&k.examples, digests) as f64
                    <= CALIBRATION_DRIFT * digests.len() as f64
        };
        if let Some(kept) = self.calibration.as_ref().filter(|k| asked(k)) {
            return kept.calibration.clone();
        }
        let calibration = classifier.calibrate(target, stranger_target, sample, seed, strangers);
        if self.path.is_some() {
            self.calibration = Some(KeptCalibration {
                examples: self.digests.clone(),
                target: target.to_bits(),
                strangers: strangers_asked,
                sample,
                seed,
                calibration: calibration.clone(),
            });
            self.calibrated = true;
        }
        calibration
    }

    /// Forgets the kept calibration, so that the next [`FeatureStore::calibrate`] measures
    /// one (and keeps it): for a person asking for the estimate now.
    pub fn forget_calibration(&mut self) {
        self.calibration = None;
    }

    /// Writes the store when this run computed a calibration or more than
    /// [`STALE_BEFORE_WRITE`] notes' features anew, keeping the entries of the notes this run
    /// looked at (a note gone or no longer filed is dropped). Like the index, it is a cache:
    /// it is written atomically without fsync, and failing to write it never fails a command.
    pub fn save(&mut self) {
        let Some(path) = self.path.as_deref() else {
            return;
        };
        if !self.calibrated && self.recomputed <= STALE_BEFORE_WRITE {
            return;
        }
        let mut notes = std::mem::take(&mut self.fresh);
        notes.sort_by(|a, b| a.path.cmp(&b.path));
        let file = File {
            format: index::FORMAT,
            writer: writer(),
            written_ns: index::now_ns(),
            notes,
            calibration: self.calibration.clone(),
        };
        match encode(&file) {
            Ok(bytes) => {
                if let Err(e) = index::write_unsynced(path, &bytes) {
                    tracing::info!(
                        "could not write the classifier store {}: {e}",
                        path.display()
                    );
                }
            }
            Err(e) => tracing::info!("could not encode the classifier store: {e}"),
        }
        self.recomputed = 0;
        self.calibrated = false;
    }
}

/// The note's text after its frontmatter.
pub fn body_of<'t>(text: &'t str, note: &crate::Note) -> &'t str {
    let start = note
        .frontmatter_block
        .as_ref()
        .map_or(0, |b| b.block.end)
        .min(text.len());
    text.get(start..).unwrap_or("")
}

fn store_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_owned();
    name.push(".classify");
    PathBuf::from(name)
}

/// The layout of the store file, for [`writer`].
const LAYOUT: u32 = 3;

/// Who writes a store: crew's version, [`classify::VERSION`] and the file's [`LAYOUT`]. In a
/// string where crews before the classifier's version kept theirs alone, so that they too read
/// a newer store as another crew's, and the other way round.
fn writer() -> String {
    format!(
        "{} classifier {} store {LAYOUT}",
        env!("CARGO_PKG_VERSION"),
        classify::VERSION
    )
}

/// An example as two numbers: one of its path, one of its folder and features.
type Digest = (u64, u64);

fn digest(path: &str, folder: &str, features: &[(Feature, f32)]) -> Digest {
    use std::hash::Hasher as _;
    let mut at = rustc_hash::FxHasher::default();
    at.write(path.as_bytes());
    let mut h = rustc_hash::FxHasher::default();
    h.write(folder.as_bytes());
    h.write_u8(0xff);
    for (f, w) in features {
        h.write_u64(*f);
        h.write_u32(w.to_bits());
    }
    (at.finish(), h.finish())
}

/// How many examples changed between two lists of digests sorted by path: each edited (same
/// path, other features or folder), added or removed counts one.
/// A hash of the strangers a calibration was asked about.
fn strangers_digest(strangers: &[Vec<(Feature, f32)>]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for feats in strangers {
        feats.len().hash(&mut h);
        for (f, w) in feats {
            f.hash(&mut h);
            w.to_bits().hash(&mut h);
        }
    }
    h.finish()
}

fn changed_between(before: &[Digest], now: &[Digest]) -> usize {
    let (mut i, mut j, mut changed) = (0, 0, 0);
    while i < before.len() && j < now.len() {
        match before[i].0.cmp(&now[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                changed += usize::from(before[i].1 != now[j].1);
                i += 1;
                j += 1;
                continue;
            }
        }
        changed += 1;
    }
    changed + (before.len() - i) + (now.len() - j)
}

/// The store file's bytes: a checksum, then the file.
fn encode(file: &File) -> Result<Vec<u8>, postcard::Error> {
    let body = postcard::to_allocvec(file)?;
    let mut bytes = index::checksum(&body).to_le_bytes().to_vec();
    bytes.extend_from_slice(&body);
    Ok(bytes)
}

/// The store file, when present, whole and of this format.
fn read(path: &Path) -> Option<File> {
    let bytes = std::fs::read(path).ok()?;
    let (sum, body) = bytes.split_first_chunk::<8>()?;
    if u64::from_le_bytes(*sum) != index::checksum(body) {
        tracing::info!("rebuilding the classifier store: it is damaged");
        return None;
    }
    let file: File = postcard::from_bytes(body).ok()?;
    (file.format == index::FORMAT && file.writer == writer()).then_some(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_counts_once_and_a_note_replaced_by_another_twice() {
        let d = |path: &str, word: u64| digest(path, "F", &[(word, 1.0)]);
        let mut before = vec![d("a.md", 1), d("b.md", 2), d("c.md", 3)];
        before.sort_unstable();
        let sorted = |mut v: Vec<Digest>| {
            v.sort_unstable();
            v
        };
        assert_eq!(changed_between(&before, &before), 0);
        let edited = sorted(vec![d("a.md", 1), d("b.md", 9), d("c.md", 3)]);
        assert_eq!(changed_between(&before, &edited), 1);
        let replaced = sorted(vec![d("a.md", 1), d("b.md", 2), d("z.md", 3)]);
        assert_eq!(changed_between(&before, &replaced), 2);
        let moved = sorted(vec![
            d("a.md", 1),
            d("b.md", 2),
            digest("c.md", "G", &[(3, 1.0)]),
        ]);
        assert_eq!(changed_between(&before, &moved), 1);
        assert_eq!(changed_between(&before, &[]), 3);
        assert_eq!(changed_between(&[], &edited), 3);
    }

    #[test]
    fn a_store_of_another_classifier_version_is_not_read() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("index.bin.classify");
        let file = |writer| File {
            format: index::FORMAT,
            writer,
            written_ns: 0,
            notes: Vec::new(),
            calibration: None,
        };
        std::fs::write(&path, encode(&file(writer())).expect("encode")).expect("write");
        assert!(read(&path).is_some());
        // as the crew before the classifier had a version wrote it
        let older = encode(&file(env!("CARGO_PKG_VERSION").to_string())).expect("encode");
        std::fs::write(&path, older).expect("write");
        assert!(read(&path).is_none());
    }
}
