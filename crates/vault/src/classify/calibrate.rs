//! How sure filing may be, measured on the vault itself: leave-one-out over notes already
//! filed (do guesses land where those notes are?) and guesses for notes that belong nowhere in
//! it (strangers, which the caller brings: are they left alone?). The thresholds chosen keep
//! both promises — a precision on notes that belong, a rate at which notes with no home get
//! filed anyway.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::{Classifier, Feature, Guess, shuffle};

/// The shares of a folder's typical nearness tried as the novelty threshold: never below half
/// (a note less than half as near to a folder's notes as they are to each other is not one of
/// them, whatever the strangers say).
const NOVELTY_STEPS: [f32; 11] = [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0];
/// Sampled notes of the vault's typical nearness a folder's own estimate is drawn toward: a
/// folder with one note in the sample is not judged by that note alone.
const TYPICAL_PRIOR: f32 = 2.0;

/// Precision and coverage estimated on the vault's own filed notes, and how often notes with
/// no home in it would be filed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// The margin at or above which a guess is filed (`f32::INFINITY`: never).
    pub margin: f32,
    /// The share of its folder's typical nearness a note must reach to be filed there.
    pub novelty: f32,
    /// The precision asked for (0..=1).
    pub target: f64,
    /// How many filed notes were guessed with themselves left out.
    pub sampled: usize,
    /// Share of the sample that would be filed (margin, nearness and a hallmark).
    pub coverage: f64,
    /// Of those, the share whose best folder is the one they are in.
    pub precision: f64,
    /// Per folder: (folder, sampled, filed, right).
    pub per_folder: Vec<(String, usize, usize, usize)>,
    /// Precision when filing the surest 10 %, 20 %, … 100 % of the sample by margin alone:
    /// what the vault allows at other targets.
    pub curve: Vec<(f64, f64)>,
    /// Each sampled folder's typical nearness: how near its notes are to the rest of it.
    pub typical: Vec<(String, f32)>,
    /// The typical nearness of a folder the sample did not reach: the vault's median.
    pub typical_elsewhere: f32,
    /// Each sampled folder's typical centrality: how like the folder as a whole its notes are.
    pub typical_centrality: Vec<(String, f32)>,
    /// The typical centrality of a folder the sample did not reach: the vault's median.
    pub centrality_elsewhere: f32,
    /// Notes with no home here that were guessed.
    pub strangers: usize,
    /// Of those, how many would be filed.
    pub strangers_filed: usize,
    /// The largest share of strangers filing may take in (0..=1).
    pub stranger_target: f64,
}

impl Calibration {
    /// How near a note must come to `folder`'s notes, before the novelty share.
    pub fn typical_of(&self, folder: &str) -> f32 {
        self.typical
            .binary_search_by(|(f, _)| f.as_str().cmp(folder))
            .map_or(self.typical_elsewhere, |i| self.typical[i].1)
    }

    /// How like `folder` as a whole a note must be, before the novelty share.
    pub fn typical_centrality_of(&self, folder: &str) -> f32 {
        self.typical_centrality
            .binary_search_by(|(f, _)| f.as_str().cmp(folder))
            .map_or(self.centrality_elsewhere, |i| self.typical_centrality[i].1)
    }

    /// Whether the guess is like its best folder's notes: it shares hallmarks and the form of
    /// the folder, and is near enough both to its nearest notes and to the folder as a whole.
    pub fn at_home(&self, g: &Guess) -> bool {
        g.best().is_some_and(|b| {
            g.hallmark
                && g.shaped
                && g.nearness >= self.novelty * self.typical_of(&b.folder)
                && g.centrality >= self.novelty * self.typical_centrality_of(&b.folder)
        })
    }

    /// Whether `g` is sure enough to file: at home and ahead of the next folder by the margin.
    pub fn files(&self, g: &Guess) -> bool {
        self.at_home(g) && g.margin >= self.margin
    }

    /// The share of strangers that would be filed.
    pub fn stranger_rate(&self) -> f64 {
        if self.strangers == 0 {
            0.0
        } else {
            self.strangers_filed as f64 / self.strangers as f64
        }
    }
}

/// One guess as the calibration sees it.
#[derive(Debug, Clone, Copy)]
struct Seen {
    margin: f32,
    /// The best folder (`usize::MAX`: none).
    best: usize,
    nearness: f32,
    centrality: f32,
    hallmark: bool,
    shaped: bool,
}

/// A filed note's guess with itself left out.
struct Sampled {
    seen: Seen,
    folder: usize,
    right: bool,
    own_nearness: f32,
    own_centrality: f32,
}

/// One pair of thresholds tried, with what it gives.
#[derive(Debug, Clone, Copy)]
struct Choice {
    novelty: f32,
    margin: f32,
    filed: usize,
    right: usize,
    strangers_filed: usize,
}

impl Classifier {
    /// Leave-one-out over up to `sample` filed notes (chosen by `seed`) and guesses for the
    /// `strangers` (raw features of notes that belong nowhere in this vault): the novelty
    /// share and the smallest margin that file most notes while the notes filed reach `target`
    /// precision and at most `stranger_target` of the strangers are filed.
    pub fn calibrate(
        &self,
        target: f64,
        stranger_target: f64,
        sample: usize,
        seed: u64,
        strangers: &[Vec<(Feature, f32)>],
    ) -> Calibration {
        let sampled = self.sample_left_out(sample, seed);
        let (typical, typical_elsewhere) = self.typical(&sampled, |s| s.own_nearness);
        let (central, central_elsewhere) = self.typical(&sampled, |s| s.own_centrality);
        let all = |_: &str| true;
        let strange: Vec<Seen> = strangers
            .iter()
            .map(|feats| {
                let q = self.vectorize(feats);
                let (g, _) = self.guess_vector(&q, None, &all, None);
                self.seen(&g)
            })
            .collect();
        let typical_at = |fid: usize| typical.get(fid).copied().unwrap_or(typical_elsewhere);
        let central_at = |fid: usize| central.get(fid).copied().unwrap_or(central_elsewhere);
        let at_home = |s: &Seen, novelty: f32| {
            s.best != usize::MAX
                && s.hallmark
                && s.shaped
                && s.nearness >= novelty * typical_at(s.best)
                && s.centrality >= novelty * central_at(s.best)
        };
        let allowed_strangers = (stranger_target * strange.len() as f64).floor() as usize;
        let choices: Vec<Choice> = NOVELTY_STEPS
            .iter()
            .map(|&novelty| {
                let mut home: Vec<&Sampled> = sampled
                    .iter()
                    .filter(|s| at_home(&s.seen, novelty))
                    .collect();
                home.sort_by(|a, b| b.seen.margin.total_cmp(&a.seen.margin));
                let (margin, filed, right) = margin_for(&home, target);
                let strangers_filed = strange
                    .iter()
                    .filter(|s| at_home(s, novelty) && s.margin >= margin)
                    .count();
                Choice {
                    novelty,
                    margin,
                    filed,
                    right,
                    strangers_filed,
                }
            })
            .collect();
        // the most coverage that keeps both promises, at the lowest novelty that gives it
        // (strictness the strangers do not ask for costs new notes and buys nothing measured);
        // else the fewest strangers filed
        let keeps = choices
            .iter()
            .filter(|c| c.strangers_filed <= allowed_strangers)
            .max_by(|a, b| a.filed.cmp(&b.filed).then(b.novelty.total_cmp(&a.novelty)));
        let fewest_strangers = choices.iter().min_by(|a, b| {
            a.strangers_filed
                .cmp(&b.strangers_filed)
                .then(b.filed.cmp(&a.filed))
        });
        let Some(&chosen) = keeps.or(fewest_strangers) else {
            unreachable!("one choice per novelty step, and there are steps")
        };
        let files =
            |s: &Sampled| at_home(&s.seen, chosen.novelty) && s.seen.margin >= chosen.margin;
        let mut per: FxHashMap<usize, (usize, usize, usize)> = FxHashMap::default();
        for s in &sampled {
            let e = per.entry(s.folder).or_default();
            e.0 += 1;
            if files(s) {
                e.1 += 1;
                e.2 += usize::from(s.right);
            }
        }
        let mut per_folder: Vec<(String, usize, usize, usize)> = per
            .into_iter()
            .map(|(f, (s, fl, r))| (self.folders[f].clone(), s, fl, r))
            .collect();
        per_folder.sort();
        let named = |values: &[f32]| {
            let mut out: Vec<(String, f32)> = values
                .iter()
                .enumerate()
                .filter(|(fid, _)| sampled.iter().any(|s| s.folder == *fid))
                .map(|(fid, t)| (self.folders[fid].clone(), *t))
                .collect();
            out.sort_by(|a, b| a.0.cmp(&b.0));
            out
        };
        Calibration {
            margin: chosen.margin,
            novelty: chosen.novelty,
            target,
            sampled: sampled.len(),
            coverage: share(chosen.filed, sampled.len()),
            precision: share(chosen.right, chosen.filed),
            per_folder,
            curve: curve(&sampled),
            typical: named(&typical),
            typical_elsewhere,
            typical_centrality: named(&central),
            centrality_elsewhere: central_elsewhere,
            strangers: strange.len(),
            strangers_filed: chosen.strangers_filed,
            stranger_target,
        }
    }

    fn seen(&self, g: &Guess) -> Seen {
        let best = g
            .best()
            .and_then(|b| self.folders.iter().position(|f| *f == b.folder))
            .unwrap_or(usize::MAX);
        Seen {
            margin: g.margin,
            best,
            nearness: g.nearness,
            centrality: g.centrality,
            hallmark: g.hallmark,
            shaped: g.shaped,
        }
    }

    /// Up to `sample` filed notes (chosen by `seed`), each guessed with itself left out.
    fn sample_left_out(&self, sample: usize, seed: u64) -> Vec<Sampled> {
        let mut order: Vec<usize> = (0..self.docs.len()).collect();
        shuffle(&mut order, seed);
        order.truncate(sample);
        use rayon::prelude::*;
        let all = |_: &str| true;
        let all: &(dyn Fn(&str) -> bool + Sync) = &all;
        // the guesses are independent; collected in sample order, as one by one
        order
            .par_iter()
            .map(|&d| {
                let folder = self.docs[d].1;
                let (g, (own_nearness, own_centrality)) = self.guess_left_out(d, all);
                let right = g.best().is_some_and(|b| b.folder == self.folders[folder]);
                Sampled {
                    seen: self.seen(&g),
                    folder,
                    right,
                    own_nearness,
                    own_centrality,
                }
            })
            .collect()
    }

    /// Each folder's typical value (by folder id) of a measure of its notes' likeness to the
    /// rest of it (`of`), and the vault's median: the mean over its sampled notes, drawn toward
    /// the median by [`TYPICAL_PRIOR`] notes.
    fn typical(&self, sampled: &[Sampled], of: impl Fn(&Sampled) -> f32) -> (Vec<f32>, f32) {
        let mut all: Vec<f32> = sampled.iter().map(&of).collect();
        all.sort_unstable_by(f32::total_cmp);
        let median = all.get(all.len() / 2).copied().unwrap_or(0.0);
        let mut sums = vec![(0.0f32, 0.0f32); self.folders.len()];
        for s in sampled {
            sums[s.folder].0 += of(s);
            sums[s.folder].1 += 1.0;
        }
        let typical = sums
            .into_iter()
            .map(|(sum, n)| (sum + TYPICAL_PRIOR * median) / (n + TYPICAL_PRIOR))
            .collect();
        (typical, median)
    }
}

/// The smallest margin at which the notes `home` (sorted by margin, largest first) are filed
/// with at least `target` precision, trusted from ten guesses on, with how many it files and
/// how many of those rightly (`f32::INFINITY` and nothing when no margin does).
fn margin_for(home: &[&Sampled], target: f64) -> (f32, usize, usize) {
    let mut best = (f32::INFINITY, 0, 0);
    let (mut right, mut taken) = (0usize, 0usize);
    for (i, s) in home.iter().enumerate() {
        taken += 1;
        right += usize::from(s.right);
        let m = s.seen.margin;
        let last_of_margin = home.get(i + 1).is_none_or(|n| n.seen.margin < m);
        if last_of_margin && taken >= 10 && right as f64 >= target * taken as f64 {
            best = (m, taken, right);
        }
    }
    best
}

/// Precision when filing the surest 10 %, 20 %, … of the sample by margin.
fn curve(sampled: &[Sampled]) -> Vec<(f64, f64)> {
    let mut by_margin: Vec<(f32, bool)> =
        sampled.iter().map(|s| (s.seen.margin, s.right)).collect();
    by_margin.sort_by(|a, b| b.0.total_cmp(&a.0));
    (1..=10)
        .filter_map(|tenth| {
            let take = (by_margin.len() * tenth).div_ceil(10);
            let head = by_margin.get(..take).filter(|h| !h.is_empty())?;
            let ok = head.iter().filter(|r| r.1).count();
            Some((tenth as f64 / 10.0, ok as f64 / head.len() as f64))
        })
        .collect()
}

fn share(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 / whole as f64
    }
}
