//! The learned router: a nearest-phrase and centroid model over the crew definition's own
//! phrases (see [`examples`]), with features that carry across phrasing and language (see
//! [`features`]). One model per crew definition, built on first need and kept for the
//! process; below its calibrated margin it says it is not sure, and the router falls back.
//!
//! Pure but for [`store`], which keeps a trained model on disk for the next process. The
//! margin is calibrated by leaving each phrase out in turn and
//! asking the rest of the model for it: the smallest margin above which the answers are right
//! at least [`PRECISION`] of the time.

pub mod examples;
pub mod features;
pub mod persist;
pub mod store;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use serde::{Deserialize, Serialize};

use crate::crew::{Crew, Kind};
use examples::{Phrase, Source, Unit};
use features::{FAMILIES, Family, Feature, content_words, of_text};

/// How often a confident answer must be right on the definition's own held-out phrases. A
/// property of what a guess may cost (a guessed route only plans), not of any one corpus.
pub const PRECISION: f32 = 0.9;

/// A phrase's vector: (feature, weight), weights of each family L2-normalized and the
/// families weighed equally, so a whole vector has length at most 1.
type Sparse = Vec<(Feature, f32)>;

/// One route's score for a message.
#[derive(Debug, Clone, PartialEq)]
pub struct Scored {
    pub unit: usize,
    pub score: f32,
    /// The unit's phrase closest to the message.
    pub nearest: usize,
}

/// The model's answer: the ranking, and whether the best is ahead by the calibrated margin.
#[derive(Debug, Clone)]
pub struct Guess {
    pub kind: Kind,
    pub name: String,
    pub score: f32,
    pub margin: f32,
    pub sure: bool,
    /// The definition phrase that weighed most.
    pub nearest: String,
}

pub struct Model {
    units: Vec<Unit>,
    phrases: Vec<Phrase>,
    table: Table,
    /// |Σ vectors of the unit's phrases|², for the centroid's cosine.
    centroid_norm2: Vec<f32>,
    /// (margin, least score) a sure answer needs; see [`calibrate`].
    margin: OnceLock<(f32, f32)>,
}

/// The features the definition uses, sorted, each with its weight and its postings: flat
/// arrays rather than maps, so a model read back from disk is ready without rebuilding one.
#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Table {
    features: Vec<Feature>,
    /// How many units use each feature: the rarer, the more it says.
    idf: Vec<f32>,
    /// Feature `i`'s postings are `phrase[starts[i]..starts[i + 1]]` (and `weight` alike).
    starts: Vec<u32>,
    phrase: Vec<u32>,
    weight: Vec<f32>,
}

impl Table {
    fn build(idf: HashMap<Feature, f32>, mut postings: HashMap<Feature, Vec<(u32, f32)>>) -> Table {
        let mut features: Vec<(Feature, f32)> = idf.into_iter().collect();
        features.sort_unstable_by_key(|f| f.0);
        let mut t = Table {
            starts: vec![0],
            ..Table::default()
        };
        for (f, w) in features {
            t.features.push(f);
            t.idf.push(w);
            for (p, pw) in postings.remove(&f).unwrap_or_default() {
                t.phrase.push(p);
                t.weight.push(pw);
            }
            t.starts.push(t.phrase.len() as u32);
        }
        t
    }

    fn find(&self, f: Feature) -> Option<usize> {
        self.features.binary_search(&f).ok()
    }

    fn idf(&self, f: Feature) -> Option<f32> {
        self.find(f).map(|i| self.idf[i])
    }

    /// The (phrase, weight) postings of a feature.
    fn postings(&self, f: Feature) -> impl Iterator<Item = (u32, f32)> + '_ {
        let range = self.find(f).map_or(0..0, |i| {
            self.starts[i] as usize..self.starts[i + 1] as usize
        });
        self.phrase[range.clone()]
            .iter()
            .copied()
            .zip(self.weight[range].iter().copied())
    }

    /// Whether the arrays agree with each other and every posting names one of `phrases`
    /// phrases: what a model read from disk must hold before it is used.
    fn consistent(&self, phrases: usize) -> bool {
        let n = self.features.len();
        self.idf.len() == n
            && self.starts.len() == n + 1
            && self.starts.first() == Some(&0)
            && self.starts.last().map(|&s| s as usize) == Some(self.phrase.len())
            && self.starts.windows(2).all(|w| w[0] <= w[1])
            && self.features.windows(2).all(|w| w[0] < w[1])
            && self.phrase.len() == self.weight.len()
            && self.phrase.iter().all(|&p| (p as usize) < phrases)
            && self.idf.iter().chain(&self.weight).all(|w| w.is_finite())
    }
}

impl Model {
    /// The model of a crew: from the process's cache when the definition is unchanged, else
    /// from the disk cache ([`store`]) when this process was given one, else trained.
    pub fn of(crew: &Crew) -> Arc<Model> {
        static CACHE: OnceLock<Mutex<HashMap<u64, Arc<Model>>>> = OnceLock::new();
        let (units, phrases) = examples::collect(crew);
        let key = fingerprint(&units, &phrases);
        let cache = CACHE.get_or_init(Default::default);
        if let Ok(map) = cache.lock()
            && let Some(m) = map.get(&key)
        {
            return Arc::clone(m);
        }
        let model = Arc::new(store::load(key).unwrap_or_else(|| {
            let model = Model::train(units, phrases);
            store::save(&model, key);
            model
        }));
        if let Ok(mut map) = cache.lock() {
            // a long-lived process sees few definitions; forget them all past a handful
            if map.len() >= 8 {
                map.clear();
            }
            map.insert(key, Arc::clone(&model));
        }
        model
    }

    pub fn train(units: Vec<Unit>, phrases: Vec<Phrase>) -> Model {
        let feats: Vec<Vec<(Feature, Family)>> = phrases.iter().map(|p| of_text(&p.text)).collect();
        let mut df: HashMap<Feature, Vec<usize>> = HashMap::new();
        for (p, fs) in phrases.iter().zip(&feats) {
            for (f, _) in fs {
                let us = df.entry(*f).or_default();
                if us.last() != Some(&p.unit) && !us.contains(&p.unit) {
                    us.push(p.unit);
                }
            }
        }
        let n = units.len().max(1) as f32;
        let idf: HashMap<Feature, f32> = df
            .into_iter()
            .map(|(f, us)| (f, (1.0 + n / us.len() as f32).ln()))
            .collect();
        let idf_of = |f: Feature| idf.get(&f).copied();
        let mut postings: HashMap<Feature, Vec<(u32, f32)>> = HashMap::new();
        let mut sums: Vec<HashMap<Feature, f32>> = vec![HashMap::new(); units.len()];
        for (i, fs) in feats.iter().enumerate() {
            let v = vectorize(fs, idf_of);
            for &(f, w) in &v {
                postings.entry(f).or_default().push((i as u32, w));
                *sums[phrases[i].unit].entry(f).or_insert(0.0) += w;
            }
        }
        // summed in feature order: a map's order differs from process to process, and a
        // float sum in another order can tip a request at the margin to another route
        let centroid_norm2 = sums
            .iter()
            .map(|s| {
                let mut ws: Vec<(Feature, f32)> = s.iter().map(|(&f, &w)| (f, w)).collect();
                ws.sort_unstable_by_key(|&(f, _)| f);
                ws.iter().map(|&(_, w)| w * w).sum()
            })
            .collect();
        Model {
            units,
            phrases,
            table: Table::build(idf, postings),
            centroid_norm2,
            margin: OnceLock::new(),
        }
    }

    /// Whether answering `unit` for `phrase` does the phrase's job: its own unit, or the
    /// agent and a skill of the same family.
    pub fn same_job(&self, phrase: usize, unit: usize) -> bool {
        let own = &self.units[self.phrases[phrase].unit];
        let answered = &self.units[unit];
        own == answered || own.family == answered.family
    }

    /// Whether two units do the same job (see [`Unit::family`]).
    pub fn same_family(&self, a: &str, b: &str) -> bool {
        let family = |n: &str| self.units.iter().find(|u| u.name == n).map(|u| &u.family);
        a == b || family(a).is_some_and(|f| Some(f) == family(b))
    }

    /// How many words and word pairs of normalized text the model knows: the evidence it
    /// has beyond a phrase.
    pub fn known_words(&self, normalized: &str) -> usize {
        content_words(normalized)
            .iter()
            .filter(|&&f| self.table.find(f).is_some())
            .count()
    }

    pub fn units(&self) -> &[Unit] {
        &self.units
    }

    pub fn phrases(&self) -> &[Phrase] {
        &self.phrases
    }

    /// Every unit's score for a message as written, best first; `leave_out` scores as if that
    /// phrase were not in the definition.
    pub fn rank(&self, text: &str, leave_out: Option<usize>) -> Vec<Scored> {
        let fs = of_text(text);
        let m = vectorize(&fs, |f| self.table.idf(f));
        // dense: a query touches many phrases through its common n-grams, and a vector
        // indexed by phrase accumulates them far faster than a map
        let mut dots = vec![0.0f32; self.phrases.len()];
        for &(f, w) in &m {
            for (p, pw) in self.table.postings(f) {
                dots[p as usize] += w * pw;
            }
        }
        let mut nearest: Vec<(f32, usize)> = vec![(0.0, usize::MAX); self.units.len()];
        let mut sum = vec![0.0f32; self.units.len()];
        for (p, &d) in dots.iter().enumerate() {
            if d == 0.0 {
                continue;
            }
            let u = self.phrases[p].unit;
            sum[u] += d;
            if Some(p) == leave_out {
                continue;
            }
            if d > nearest[u].0 {
                nearest[u] = (d, p);
            }
        }
        let mut out: Vec<Scored> = (0..self.units.len())
            .map(|u| {
                let mut norm2 = self.centroid_norm2[u];
                let mut s = sum[u];
                if let Some(q) = leave_out
                    && self.phrases[q].unit == u
                {
                    // the centroid without the phrase: |S − v|² = |S|² − 2 S·v + |v|²
                    let own = dots[q];
                    norm2 = norm2 - 2.0 * s + own;
                    s -= own;
                }
                let centroid = if norm2 > 1e-9 { s / norm2.sqrt() } else { 0.0 };
                Scored {
                    unit: u,
                    score: (nearest[u].0 + centroid) / 2.0,
                    nearest: nearest[u].1,
                }
            })
            .collect();
        // best first; on a tie the earlier unit (skills come first)
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.unit.cmp(&b.unit)));
        out
    }

    /// The calibrated margin and least score (computed on first need).
    pub fn calibration(&self) -> (f32, f32) {
        *self
            .margin
            .get_or_init(|| calibrate(&self.leave_one_out(), |p, u| self.same_job(p, u)))
    }

    /// The margin a sure answer needs over the second route.
    pub fn margin(&self) -> f32 {
        self.calibration().0
    }

    /// For every phrase (names aside: a name is no phrasing), the model's answer without it:
    /// (phrase, unit answered, margin, score).
    pub fn leave_one_out(&self) -> Vec<(usize, usize, f32, f32)> {
        self.phrases
            .iter()
            .enumerate()
            .filter(|(_, p)| p.source != Source::Name)
            .filter_map(|(i, p)| {
                let ranked = self.rank(&p.text, Some(i));
                let best = ranked.first()?;
                let second = ranked.get(1).map_or(0.0, |s| s.score);
                (best.score > 0.0).then_some((i, best.unit, best.score - second, best.score))
            })
            .collect()
    }

    /// The model's guess for a message as written, if it has any evidence at all.
    pub fn guess(&self, message: &str) -> Option<Guess> {
        let ranked = self.rank(message, None);
        let best = ranked.first()?;
        if best.score <= 0.0 {
            return None;
        }
        let margin = best.score - ranked.get(1).map_or(0.0, |s| s.score);
        let unit = &self.units[best.unit];
        Some(Guess {
            kind: unit.kind,
            name: unit.name.clone(),
            score: best.score,
            margin,
            sure: margin >= self.calibration().0 && best.score >= self.calibration().1,
            nearest: self
                .phrases
                .get(best.nearest)
                .map(|p| p.text.clone())
                .unwrap_or_default(),
        })
    }
}

/// The smallest margin above which the held-out answers are right at least [`PRECISION`] of
/// the time (when none is, a margin no answer reaches), and the least score: what all but
/// `1 − PRECISION` of the right held-out answers score, so a message that shares only a stray
/// n-gram with the crew ("tell me a joke about the weather") is no sure answer, whatever its
/// margin. `right(phrase, unit answered)`.
pub fn calibrate(
    loo: &[(usize, usize, f32, f32)],
    right: impl Fn(usize, usize) -> bool,
) -> (f32, f32) {
    let mut by_margin: Vec<(f32, bool)> = loo
        .iter()
        .map(|&(p, answered, m, _)| (m, right(p, answered)))
        .collect();
    by_margin.sort_by(|a, b| b.0.total_cmp(&a.0));
    let (mut hits, mut seen) = (0usize, 0usize);
    let mut threshold = f32::INFINITY;
    for (m, ok) in by_margin {
        seen += 1;
        hits += usize::from(ok);
        if hits as f32 >= PRECISION * seen as f32 {
            threshold = m;
        }
    }
    let mut scores: Vec<f32> = loo
        .iter()
        .filter(|&&(p, answered, _, _)| right(p, answered))
        .map(|l| l.3)
        .collect();
    scores.sort_by(f32::total_cmp);
    let cut = ((1.0 - PRECISION) * scores.len() as f32) as usize;
    let least = scores.get(cut).copied().unwrap_or(f32::INFINITY);
    (threshold, least)
}

/// A phrase's or message's vector (see [`Sparse`]); features the model never saw are not
/// evidence and do not dilute the rest.
fn vectorize(fs: &[(Feature, Family)], idf: impl Fn(Feature) -> Option<f32>) -> Sparse {
    let mut norm2 = [0.0f32; FAMILIES];
    let known: Vec<(Feature, Family, f32)> = fs
        .iter()
        .filter_map(|&(f, fam)| idf(f).map(|w| (f, fam, w)))
        .collect();
    for &(_, fam, w) in &known {
        norm2[fam as usize] += w * w;
    }
    let share = (1.0 / FAMILIES as f32).sqrt();
    known
        .into_iter()
        .map(|(f, fam, w)| (f, w / norm2[fam as usize].sqrt() * share))
        .collect()
}

/// A stable hash of a definition's units and phrases (FNV-1a over their text).
pub fn fingerprint(units: &[Unit], phrases: &[Phrase]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |s: &str| {
        for b in s.bytes().chain([0xff]) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for u in units {
        eat(u.kind.as_str());
        eat(&u.name);
    }
    for p in phrases {
        eat(&p.unit.to_string());
        eat(p.source.as_str());
        eat(&p.text);
    }
    h
}
