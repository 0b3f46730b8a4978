//! The learned classifier: trained on the filed notes' features, it knows each folder's
//! notes, centroid, hallmarks and form.

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::*;

/// One training example: (note index in [`Vault::notes`], its folder, its raw features from
/// [`features`]).
pub type Example = (usize, String, Vec<(Feature, f32)>);

/// An example with its kept features by id: (note index, folder, (feature id, raw count)).
pub(super) type Counted = (usize, String, Vec<(u32, f32)>);

/// Features with the number of documents holding each.
pub(super) type DocCounts = Vec<(Feature, u32)>;

/// A unit-length sparse vector: (feature id, weight), sorted by id.
pub(super) type Vector = Vec<(u32, f32)>;

/// One folder's score for a note, with the features that weighed most.
#[derive(Debug, Clone, Serialize)]
pub struct FolderScore {
    /// The folder, vault-relative.
    pub folder: String,
    /// Its score: the nearest neighbours' vote and the similarity to the folder's centroid,
    /// weighted 60/40, shared among folders of a kind under one parent, plus a small bonus
    /// when the note's words name the folder. Meant to be compared between folders for one
    /// note, not between notes.
    pub score: f32,
    /// The shared features that weighed most, readable ("template line 'Designed by'").
    pub evidence: Vec<String>,
}

/// A note's ranking of folders; `margin` is the best score minus the second.
#[derive(Debug, Clone, Serialize)]
pub struct Guess {
    /// Up to three allowed folders that scored, best first (ties in folder order).
    pub ranked: Vec<FolderScore>,
    /// The best score minus the second (the best score alone when only one folder scored):
    /// the confidence that [`Classifier::calibrate`] sets a threshold on.
    pub margin: f32,
    /// How near the note is to the best folder's own notes: the mean similarity of its nearest
    /// notes there (up to three). A margin says which folder is likelier; this says whether the
    /// note is like that folder's notes at all, judged against how near they are to each other
    /// ([`Calibration::typical`]).
    pub nearness: f32,
    /// The note's cosine with the best folder's centroid: how like the folder as a whole it
    /// is, where [`Guess::nearness`] says how like its nearest few notes (a grocery list can be
    /// near the three notes of a folder whose examples name fruit, and far from the folder).
    pub centrality: f32,
    /// Whether the note has the best folder's form: one feature of its signature (a key,
    /// heading or stock line nearly all its notes carry), or the folder has none.
    pub shaped: bool,
    /// Whether the note shares hallmarks of the best folder (or of its siblings of a kind under
    /// one parent): two features (not the name's shape), each at least twice as common among
    /// that folder's notes as among all, in two of them or more — or one key, value, tag,
    /// date or link (not a word of the text) with 80 % of its notes there, in three or more.
    /// Without them the ranking rests on words every folder
    /// uses, on one coincidence, or on form alone.
    pub hallmark: bool,
}

impl Guess {
    /// The best folder, if any folder scored.
    pub fn best(&self) -> Option<&FolderScore> {
        self.ranked.first()
    }
}

/// The learned classifier of one vault: [`Classifier::train`] on the notes already filed (their
/// [`features`] and folders), then [`Classifier::guess`] a folder for a new note and file it only
/// when the guess's margin reaches what [`Classifier::calibrate`] found.
pub struct Classifier {
    pub(super) vocab: FxHashMap<Feature, u32>,
    /// Feature by id.
    pub(super) features: Vec<Feature>,
    pub(super) idf: Vec<f32>,
    /// How each feature's notes spread over the folders, for leaving one note out.
    pub(super) spread: Vec<Spread>,
    /// How many notes the IDF counted.
    pub(super) trained_on: usize,
    /// Training documents: (note index, folder id, vector).
    pub(super) docs: Vec<(usize, usize, Vector)>,
    pub(super) folders: Vec<String>,
    /// Unnormalised sum of each folder's document vectors, and its squared length.
    pub(super) sums: Vec<(FxHashMap<u32, f32>, f32)>,
    pub(super) postings: Vec<Vec<(u32, f32)>>,
    /// For each folder, the feature ids of the words of its last segment.
    pub(super) folder_words: Vec<Vec<u32>>,
    /// Folders named alike under different parents (`Git/excalidraw`, `Docker/excalidraw`):
    /// each such kind's folders' sums pooled.
    pub(super) kinds: Vec<FxHashMap<u32, f32>>,
    /// Each folder's kind, when its last name recurs under another parent.
    pub(super) kind_of: Vec<Option<u32>>,
    /// For a folder of a kind, the squared length of its kind's sum without it.
    pub(super) elsewhere_norms: Vec<f32>,
    /// The folders of a kind under one parent (`Git/theory`, `Git/excalidraw`), and each
    /// such folder's family.
    pub(super) families: Vec<Vec<usize>>,
    pub(super) family_of: Vec<usize>,
    /// How many folders each kind has.
    pub(super) kind_sizes: Vec<u32>,
    /// How many training documents each folder has.
    pub(super) folder_notes: Vec<u32>,
    /// The ids of the name-shape features: form, never a hallmark.
    pub(super) shape_ids: Vec<u32>,
    /// Each folder's signature (feature ids, sorted): see [`SIGNATURE_SHARE`].
    pub(super) signatures: Vec<Vec<u32>>,
    /// Features dropped for being in too many notes ([`MAX_DF_SHARE`]).
    pub(super) common: FxHashSet<Feature>,
}

/// How one feature's training notes spread over the folders: what its weight was learned
/// from, kept so that a leave-one-out guess can weigh the feature as if the note left out had
/// never been seen.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Spread {
    /// Notes having the feature.
    pub(super) notes: u32,
    /// Of those, the notes in its commonest folder, and in the next commonest.
    pub(super) top: u32,
    pub(super) second: u32,
    /// The commonest folder, by the classifier's folder ids once trained (a feature's notes all
    /// have vectors, so their folders are the classifier's; [`NO_FOLDER`] only while training).
    pub(super) top_folder: u32,
}

pub(super) const NO_FOLDER: u32 = u32::MAX;

/// The IDF of a feature found in `df` of `n` notes.
pub(super) fn idf_of(n: usize, df: u32) -> f32 {
    ((n as f64 + 1.0) / (f64::from(df) + 0.5)).ln() as f32
}

/// How much more than its IDF a feature weighs when `top` of its `df` notes share a folder.
pub(super) fn concentration_factor(top: u32, df: u32) -> f32 {
    if df < 2 {
        return 1.0;
    }
    let concentration = (top - 1) as f32 / ((df - 1) as f32 + CONCENTRATION_PRIOR);
    1.0 + W_CONCENTRATION * concentration
}

/// A training document a guess leaves out, with its features' weights without it relative to
/// those learned (by the document's feature order).
pub(super) struct LeftOut<'a> {
    pub(super) doc: usize,
    pub(super) ratios: &'a [f32],
}

/// How the two views weigh in a folder's score.
pub(super) const VIEW_NEIGHBOURS: f32 = 0.6;
pub(super) const VIEW_CENTROID: f32 = 0.4;
/// A bonus when the note's words name the folder.
pub(super) const FOLDER_NAME_BONUS: f32 = 0.1;
/// How much of a folder's own score it keeps when its parent's is shared among kinds.
pub(super) const KIND_KEEP: f32 = 0.5;
/// How many of the best folders of a kind have their parent's score shared.
pub(super) const KIND_LEADING: usize = 4;
/// How much a feature that sticks to one folder weighs over its IDF: up to 1 + this.
pub(super) const W_CONCENTRATION: f32 = 3.0;
/// Notes counted against a feature's concentration, so that a feature seen in few notes is
/// not taken for a folder's hallmark.
pub(super) const CONCENTRATION_PRIOR: f32 = 3.0;

impl Classifier {
    /// Learns from `examples`: (note index, its folder, its raw features).
    pub fn train(examples: Vec<Example>) -> Classifier {
        let n = examples.len().max(1);
        let mut df: FxHashMap<Feature, u32> = FxHashMap::default();
        for (_, _, feats) in &examples {
            for (f, _) in feats {
                *df.entry(*f).or_default() += 1;
            }
        }
        let max_df = ((n as f64) * MAX_DF_SHARE).max(2.0) as u32;
        let mut vocab: FxHashMap<Feature, u32> = FxHashMap::default();
        let mut features = Vec::new();
        let mut idf = Vec::new();
        let (mut kept, common): (DocCounts, DocCounts) =
            df.into_iter().partition(|(_, d)| *d <= max_df || n < 20);
        kept.sort_unstable();
        for (f, d) in kept {
            vocab.insert(f, features.len() as u32);
            features.push(f);
            idf.push(idf_of(n, d));
        }
        let mut folder_ids: FxHashMap<String, usize> = FxHashMap::default();
        let mut folders: Vec<String> = Vec::new();
        let mut this = Classifier {
            vocab,
            features,
            idf,
            spread: Vec::new(),
            trained_on: n,
            docs: Vec::new(),
            folders: Vec::new(),
            sums: Vec::new(),
            postings: Vec::new(),
            folder_words: Vec::new(),
            kinds: Vec::new(),
            kind_of: Vec::new(),
            elsewhere_norms: Vec::new(),
            families: Vec::new(),
            family_of: Vec::new(),
            kind_sizes: Vec::new(),
            folder_notes: Vec::new(),
            shape_ids: Vec::new(),
            signatures: Vec::new(),
            common: FxHashSet::default(),
        };
        // each example's kept features by id, then how much each feature sticks to one folder
        let examples: Vec<Counted> = examples
            .into_iter()
            .map(|(idx, folder, feats)| {
                let ids = feats
                    .iter()
                    .filter_map(|(f, c)| Some((*this.vocab.get(f)?, *c)))
                    .collect();
                (idx, folder, ids)
            })
            .collect();
        let spread_folders = this.weigh_by_concentration(&examples);
        for (idx, folder, ids) in examples {
            let v = this.weigh(ids);
            if v.is_empty() {
                continue;
            }
            let fid = *folder_ids.entry(folder.clone()).or_insert_with(|| {
                folders.push(folder.clone());
                folders.len() - 1
            });
            this.docs.push((idx, fid, v));
        }
        this.folders = folders;
        // the commonest folders by the classifier's folder ids
        let fid_of: Vec<u32> = spread_folders
            .iter()
            .map(|f| folder_ids.get(f).map_or(NO_FOLDER, |&id| id as u32))
            .collect();
        for s in &mut this.spread {
            if s.top_folder != NO_FOLDER {
                s.top_folder = fid_of[s.top_folder as usize];
            }
        }
        this.sums = vec![(FxHashMap::default(), 0.0); this.folders.len()];
        this.postings = vec![Vec::new(); this.features.len()];
        this.folder_notes = vec![0; this.folders.len()];
        for (d, (_, fid, v)) in this.docs.iter().enumerate() {
            this.folder_notes[*fid] += 1;
            for &(f, w) in v {
                *this.sums[*fid].0.entry(f).or_default() += w;
                this.postings[f as usize].push((d as u32, w));
            }
        }
        for (sum, norm) in &mut this.sums {
            *norm = sum.values().map(|w| w * w).sum();
        }
        this.common = common.into_iter().map(|(f, _)| f).collect();
        this.pool_kinds();
        this.describe_folders();
        this
    }

    /// What the classifier knows of each folder beside its notes: its signature, the words naming
    /// it, and which features are name shapes.
    pub(super) fn describe_folders(&mut self) {
        self.signatures = self.signatures();
        self.shape_ids = NAME_SHAPES
            .iter()
            .filter_map(|shape| self.vocab.get(&feature('s', &[shape])).copied())
            .collect();
        self.folder_words = self
            .folders
            .iter()
            .map(|f| {
                let last = f.rsplit('/').next().unwrap_or(f);
                let mut ids = Vec::new();
                each_word(last, |t| {
                    ids.extend(self.vocab.get(&feature('w', &[t])).copied())
                });
                ids
            })
            .collect();
    }

    /// Each folder's signature: the structure features at least [`SIGNATURE_SHARE`] of its
    /// notes carry, for folders of [`SIGNATURE_MIN_NOTES`] notes or more.
    pub(super) fn signatures(&self) -> Vec<Vec<u32>> {
        let mut counts: FxHashMap<(usize, u32), u32> = FxHashMap::default();
        for (_, fid, v) in &self.docs {
            for &(f, _) in v {
                if STRUCTURE.contains(&family_of(self.features[f as usize])) {
                    *counts.entry((*fid, f)).or_default() += 1;
                }
            }
        }
        let mut out = vec![Vec::new(); self.folders.len()];
        for ((fid, f), n) in counts {
            let notes = self.folder_notes[fid];
            if notes >= SIGNATURE_MIN_NOTES && n as f32 >= SIGNATURE_SHARE * notes as f32 {
                out[fid].push(f);
            }
        }
        for sig in &mut out {
            sig.sort_unstable();
        }
        out
    }

    /// Groups the folders whose last name recurs under two parents or more into kinds and
    /// pools each kind's sums.
    pub(super) fn pool_kinds(&mut self) {
        let mut by_name: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for (fid, f) in self.folders.iter().enumerate() {
            if let Some((_, last)) = f.rsplit_once('/') {
                by_name.entry(last.to_lowercase()).or_default().push(fid);
            }
        }
        let mut groups: Vec<Vec<usize>> = by_name.into_values().filter(|g| g.len() >= 2).collect();
        groups.sort();
        self.kind_sizes = groups.iter().map(|g| g.len() as u32).collect();
        self.kind_of = vec![None; self.folders.len()];
        self.kinds = groups
            .iter()
            .enumerate()
            .map(|(k, g)| {
                let mut sum: FxHashMap<u32, f32> = FxHashMap::default();
                for &fid in g {
                    self.kind_of[fid] = Some(k as u32);
                    for (f, w) in &self.sums[fid].0 {
                        *sum.entry(*f).or_default() += w;
                    }
                }
                sum
            })
            .collect();
        let mut by_parent: FxHashMap<&str, usize> = FxHashMap::default();
        self.families.clear();
        self.family_of = vec![usize::MAX; self.folders.len()];
        for (fid, f) in self.folders.iter().enumerate() {
            if self.kind_of[fid].is_none() {
                continue;
            }
            let parent = f.rsplit_once('/').map_or("", |(p, _)| p);
            let family = *by_parent.entry(parent).or_insert_with(|| {
                self.families.push(Vec::new());
                self.families.len() - 1
            });
            self.families[family].push(fid);
            self.family_of[fid] = family;
        }
        // |kind − folder|² = |kind|² − 2 kind·folder + |folder|², over the folder's features
        // only, in f64: the kind less one large folder can be small beside either
        let kind_norms: Vec<f64> = self
            .kinds
            .iter()
            .map(|sum| sum.values().map(|w| f64::from(*w) * f64::from(*w)).sum())
            .collect();
        self.elsewhere_norms = (0..self.folders.len())
            .map(|fid| {
                let Some(k) = self.kind_of[fid] else {
                    return 0.0;
                };
                let kind = &self.kinds[k as usize];
                let (mut cross, mut here_norm) = (0.0f64, 0.0f64);
                for (f, w) in &self.sums[fid].0 {
                    let w = f64::from(*w);
                    cross += w * f64::from(kind.get(f).copied().unwrap_or(0.0));
                    here_norm += w * w;
                }
                (kind_norms[k as usize] - 2.0 * cross + here_norm).max(0.0) as f32
            })
            .collect();
    }

    /// Folders the classifier knows, with their number of examples.
    pub fn folders(&self) -> Vec<(String, usize)> {
        let counts = self.folder_notes.iter().map(|&n| n as usize);
        self.folders.iter().cloned().zip(counts).collect()
    }

    /// A fingerprint of everything a calibration depends on: the documents (their order,
    /// folders and vectors to the bit), the folders and the words naming them. Two classifiers with
    /// the same fingerprint calibrate to the same result and guess alike.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        VERSION.hash(&mut h);
        self.folders.hash(&mut h);
        self.folder_words.hash(&mut h);
        self.features.len().hash(&mut h);
        self.trained_on.hash(&mut h);
        for (_, fid, v) in &self.docs {
            fid.hash(&mut h);
            v.len().hash(&mut h);
            for (f, w) in v {
                f.hash(&mut h);
                w.to_bits().hash(&mut h);
            }
        }
        h.finish()
    }

    /// The share of the notes the classifier learned from whose text holds `word`.
    pub fn word_share(&self, word: &str) -> f64 {
        let f = feature('w', &[word]);
        if self.common.contains(&f) {
            return 1.0;
        }
        self.vocab.get(&f).map_or(0.0, |&id| {
            f64::from(self.spread[id as usize].notes) / self.trained_on.max(1) as f64
        })
    }

    /// How many notes the classifier learned from.
    pub fn examples(&self) -> usize {
        self.docs.len()
    }

    /// Scales each feature's IDF by how much the feature sticks to one folder: a word found
    /// in a dozen notes of one folder says more about where a note goes than one spread over
    /// a dozen folders, which plain IDF rates the same. The concentration is the share of the
    /// feature's notes in its commonest folder with one note taken from that folder and
    /// [`CONCENTRATION_PRIOR`] notes more counted, so that a feature seen in two notes is not
    /// taken for a folder's hallmark. Records each feature's [`Spread`] and returns the folders
    /// its `top_folder`s count (in the order of first appearance in `examples`).
    pub(super) fn weigh_by_concentration(&mut self, examples: &[Counted]) -> Vec<String> {
        // the folders of each feature's notes, feature by feature in one array (a vector per
        // feature would be hundreds of thousands of allocations on a large vault)
        let mut folder_ids: FxHashMap<&str, u32> = FxHashMap::default();
        let mut names: Vec<String> = Vec::new();
        let mut start = vec![0usize; self.features.len() + 1];
        for (_, _, ids) in examples {
            for (id, _) in ids {
                start[*id as usize + 1] += 1;
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut fill = start.clone();
        let mut folders = vec![0u32; start[self.features.len()]];
        for (_, folder, ids) in examples {
            let fid = *folder_ids.entry(folder.as_str()).or_insert_with(|| {
                names.push(folder.clone());
                names.len() as u32 - 1
            });
            for (id, _) in ids {
                folders[fill[*id as usize]] = fid;
                fill[*id as usize] += 1;
            }
        }
        let folders_of = start.windows(2).map(|w| &folders[w[0]..w[1]]);
        let mut counts = vec![0u32; folder_ids.len()];
        self.spread = Vec::with_capacity(self.features.len());
        for (id, of) in folders_of.enumerate() {
            let mut s = Spread {
                notes: of.len() as u32,
                top_folder: NO_FOLDER,
                ..Spread::default()
            };
            for &f in of {
                counts[f as usize] += 1;
            }
            for &f in of {
                let c = std::mem::take(&mut counts[f as usize]);
                if c > s.top || (c == s.top && f < s.top_folder) {
                    s.second = s.top;
                    s.top = c;
                    s.top_folder = f;
                } else if c > s.second {
                    s.second = c;
                }
            }
            self.idf[id] *= concentration_factor(s.top, s.notes);
            self.spread.push(s);
        }
        names
    }

    /// A unit-length vector of features given by id with their raw counts.
    pub(super) fn weigh(&self, ids: Vec<(u32, f32)>) -> Vector {
        let mut v: Vector = ids
            .into_iter()
            .map(|(id, c)| (id, (1.0 + c.ln().max(0.0)) * self.idf[id as usize]))
            .collect();
        let norm = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, w) in &mut v {
                *w /= norm;
            }
        }
        v.sort_unstable_by_key(|(f, _)| *f);
        v
    }

    pub(super) fn vectorize(&self, feats: &[(Feature, f32)]) -> Vector {
        self.weigh(
            feats
                .iter()
                .filter_map(|(f, c)| Some((*self.vocab.get(f)?, *c)))
                .collect(),
        )
    }
}
