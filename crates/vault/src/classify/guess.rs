//! Guessing a note's folder, and whether the note is at home there at all.

use rustc_hash::FxHashMap;

use super::*;

impl Classifier {
    /// Ranks the folders for a note with raw features `feats`; `allowed` limits the folders
    /// that may be chosen. `names` (from [`features`]) makes each candidate's evidence
    /// readable.
    pub fn guess(
        &self,
        feats: &[(Feature, f32)],
        allowed: &dyn Fn(&str) -> bool,
        names: Option<&FxHashMap<Feature, String>>,
    ) -> Guess {
        let q = self.vectorize(feats);
        self.guess_vector(&q, None, allowed, names).0
    }

    /// Ranks the folders for training document `doc` as if it had never been seen: left out of
    /// the neighbours and of its folder's centroid, and its features weighed as they would
    /// have been without it (a feature only it has is unknown; one it shares keeps to its
    /// folder less). Without the reweighing, a note's own features would vouch for its folder
    /// and the calibration would promise more precision than filing new notes delivers. Not
    /// modelled: the other notes' lengths, and which features a vault one note smaller would
    /// keep (those in over 60 % of the notes are dropped, from 20 notes on).
    /// Also returns the note's [`Guess::nearness`] and [`Guess::centrality`] in its own folder.
    pub(super) fn guess_left_out(
        &self,
        doc: usize,
        allowed: &dyn Fn(&str) -> bool,
    ) -> (Guess, (f32, f32)) {
        let (_, fid, v) = &self.docs[doc];
        let n = self.trained_on.saturating_sub(1);
        let ratios: Vec<f32> = v
            .iter()
            .map(|&(f, _)| {
                let s = self.spread[f as usize];
                let df = s.notes.saturating_sub(1);
                let learned = self.idf[f as usize];
                if df == 0 || learned <= 0.0 {
                    return 0.0;
                }
                let top = if s.top_folder == *fid as u32 {
                    (s.top - 1).max(s.second)
                } else {
                    s.top
                };
                idf_of(n, df) * concentration_factor(top, df) / learned
            })
            .collect();
        let mut q: Vector = v
            .iter()
            .zip(&ratios)
            .map(|(&(f, w), r)| (f, w * r))
            .collect();
        let norm = q.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, w) in &mut q {
                *w /= norm;
            }
        }
        let left_out = LeftOut {
            doc,
            ratios: &ratios,
        };
        self.guess_vector(&q, Some(&left_out), allowed, None)
    }

    /// `left_out`: the training document `q` is, with its features' reweighing (`q` has its
    /// features, in its order).
    pub(super) fn guess_vector(
        &self,
        q: &[(u32, f32)],
        left_out: Option<&LeftOut>,
        allowed: &dyn Fn(&str) -> bool,
        names: Option<&FxHashMap<Feature, String>>,
    ) -> (Guess, (f32, f32)) {
        let (sims, touched) = self.similarities(q, left_out);
        // asked once per folder, not once per similar document
        let allowed_folder: Vec<bool> = self.folders.iter().map(|f| allowed(f)).collect();
        let excluded_doc = left_out.map(|l| l.doc);
        let mut near: Vec<(u32, f32)> = touched
            .iter()
            .copied()
            .filter(|d| Some(*d as usize) != excluded_doc)
            .map(|d| (d, sims[d as usize]))
            .filter(|(d, s)| *s > 0.0 && allowed_folder[self.docs[*d as usize].1])
            .collect();
        let by_similarity =
            |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if near.len() > K {
            near.select_nth_unstable_by(K, by_similarity);
            near.truncate(K);
        }
        near.sort_unstable_by(by_similarity);
        let vote_total: f32 = near.iter().map(|(_, s)| s).sum();
        let mut scores: FxHashMap<usize, f32> = FxHashMap::default();
        if vote_total > 0.0 {
            for (d, s) in &near {
                *scores.entry(self.docs[*d as usize].1).or_default() +=
                    VIEW_NEIGHBOURS * s / vote_total;
            }
        }
        // centroids: cosine with each folder's sum, without the left-out document
        let mut cos: Vec<(usize, f32)> = Vec::new();
        for (fid, (sum, norm)) in self.sums.iter().enumerate() {
            if !allowed_folder[fid] {
                continue;
            }
            let (d, n2) = match left_out {
                None => (
                    q.iter()
                        .map(|(f, w)| w * sum.get(f).copied().unwrap_or(0.0))
                        .sum(),
                    *norm,
                ),
                Some(l) => self.centroid_left_out(q, l, fid),
            };
            if n2 > 1e-6 && d > 0.0 {
                cos.push((fid, d / n2.sqrt()));
            }
        }
        let cos_total: f32 = {
            let mut top: Vec<f32> = cos.iter().map(|(_, c)| *c).collect();
            top.sort_unstable_by(|a, b| b.total_cmp(a));
            top.iter().take(3).sum()
        };
        if cos_total > 0.0 {
            for (fid, c) in &cos {
                *scores.entry(*fid).or_default() += VIEW_CENTROID * c / cos_total;
            }
        }
        self.share_by_kind(q, left_out, &allowed_folder, &mut scores);
        self.name_bonus(q, &mut scores);
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let margin = match ranked.as_slice() {
            [] => 0.0,
            [one] => one.1,
            [a, b, ..] => a.1 - b.1,
        };
        let (nearness, hallmark, shaped) =
            ranked.first().map_or((0.0, false, false), |&(fid, _)| {
                (
                    self.nearness_in(&sims, &touched, fid, excluded_doc),
                    self.hallmark(q, left_out, fid),
                    self.shaped(q, fid),
                )
            });
        let centrality_of = |fid: usize| cos.iter().find(|(f, _)| *f == fid).map_or(0.0, |c| c.1);
        let centrality = ranked.first().map_or(0.0, |&(fid, _)| centrality_of(fid));
        let own = left_out.map_or((0.0, 0.0), |l| {
            let fid = self.docs[l.doc].1;
            (
                self.nearness_in(&sims, &touched, fid, excluded_doc),
                centrality_of(fid),
            )
        });
        let ranked = ranked
            .into_iter()
            .take(3)
            .map(|(fid, score)| FolderScore {
                folder: self.folders[fid].clone(),
                score,
                evidence: names.map(|n| self.evidence(q, fid, n)).unwrap_or_default(),
            })
            .collect();
        let guess = Guess {
            ranked,
            margin,
            nearness,
            centrality,
            hallmark,
            shaped,
        };
        (guess, own)
    }

    /// Words naming a folder: a small bonus to folders already in the running.
    pub(super) fn name_bonus(&self, q: &[(u32, f32)], scores: &mut FxHashMap<usize, f32>) {
        for (fid, score) in scores.iter_mut() {
            let words = &self.folder_words[*fid];
            if !words.is_empty() {
                let named = words
                    .iter()
                    // (a left-out note's word no other note has weighs 0: no classifier knows it)
                    .filter(|w| {
                        let at = q.binary_search_by_key(*w, |(f, _)| *f);
                        at.is_ok_and(|i| q[i].1 > 0.0)
                    })
                    .count();
                *score += FOLDER_NAME_BONUS * named as f32 / words.len() as f32;
            }
        }
    }

    /// The query's similarity to each document (by document), and the documents it touched,
    /// sorted.
    pub(super) fn similarities(
        &self,
        q: &[(u32, f32)],
        left_out: Option<&LeftOut>,
    ) -> (Vec<f32>, Vec<u32>) {
        // one slot per document (each sum is added in the order of the query's features, as a
        // hash map would): a hash map per guess cost most of a calibration
        let mut sims: Vec<f32> = vec![0.0; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for (i, &(f, w)) in q.iter().enumerate() {
            // the other documents' weights of the feature, reweighed as the query's was
            let w = left_out.map_or(w, |l| w * l.ratios[i]);
            for &(d, dw) in &self.postings[f as usize] {
                let slot = &mut sims[d as usize];
                if *slot == 0.0 {
                    touched.push(d);
                }
                *slot += w * dw;
            }
        }
        touched.sort_unstable();
        touched.dedup();
        (sims, touched)
    }

    /// Whether the query has a feature of folder `fid`'s signature, or the folder has none.
    pub(super) fn shaped(&self, q: &[(u32, f32)], fid: usize) -> bool {
        let has = |f: &u32| {
            let at = q.binary_search_by_key(f, |(g, _)| *g);
            at.is_ok_and(|i| q[i].1 > 0.0)
        };
        let signature = &self.signatures[fid];
        signature.is_empty() || signature.iter().any(has)
    }

    /// The mean similarity of the (up to) three documents of folder `fid` nearest to the
    /// query, from the query's similarities `sims` to the `touched` documents.
    pub(super) fn nearness_in(
        &self,
        sims: &[f32],
        touched: &[u32],
        fid: usize,
        skip: Option<usize>,
    ) -> f32 {
        let mut top = [0.0f32; 3];
        for &d in touched {
            let (_, folder, _) = &self.docs[d as usize];
            if *folder != fid || Some(d as usize) == skip {
                continue;
            }
            let s = sims[d as usize];
            if s > top[2] {
                top[2] = s;
                top.sort_unstable_by(|a, b| b.total_cmp(a));
            }
        }
        let others = self.folder_notes[fid] as usize
            - usize::from(skip.is_some_and(|d| self.docs[d].1 == fid));
        let counted = others.clamp(1, 3);
        top.iter().take(counted).sum::<f32>() / counted as f32
    }

    /// Whether the query holds a hallmark of folder `fid` (see [`Guess::hallmark`]), counted
    /// without the left-out document.
    pub(super) fn hallmark(
        &self,
        q: &[(u32, f32)],
        left_out: Option<&LeftOut>,
        fid: usize,
    ) -> bool {
        let total = self.docs.len() as f32 - left_out.map_or(0.0, |_| 1.0);
        // the folder and, where it is of a kind, its siblings under one parent: a drawing of
        // Git's is known by Git's words, which live in `Git/theory`
        let home: &[usize] = match self.kind_of[fid] {
            Some(_) => &self.families[self.family_of[fid]],
            None => std::slice::from_ref(&fid),
        };
        let left_folder = left_out.map(|l| self.docs[l.doc].1);
        let mut found = 0;
        for (i, &(f, w)) in q.iter().enumerate() {
            let s = self.spread[f as usize];
            let weight = left_out.map_or(w, |l| w * l.ratios[i]);
            let top_folder = s.top_folder as usize;
            if weight <= 0.0 || !home.contains(&top_folder) || self.shape_ids.contains(&f) {
                continue;
            }
            let own = left_folder == Some(top_folder);
            let in_folder = self.folder_notes[top_folder] as f32 - if own { 1.0 } else { 0.0 };
            // the left-out document holds every feature of the query
            let notes = s.notes - u32::from(left_out.is_some());
            let top = s.top - u32::from(own);
            if in_folder < 2.0 || notes == 0 || total <= 0.0 || top < 2 {
                continue;
            }
            let share = top as f32 / notes as f32;
            // twice its folder's share of the notes; where that folder holds most of them,
            // the share of a strong hallmark
            if share < (2.0 * in_folder / total).min(STRONG_HALLMARK) {
                continue;
            }
            // one feature the author chose (not a word of the text) nearly all of whose notes
            // are there is enough (`type: person` in People, a month in its journal folder);
            // other hallmarks take two, as one shared word is a coincidence ("list" in a
            // shopping list and in Python's notes, "eggs" in a recipe and in its examples)
            found += 1;
            // a word is the note's text, a key, value, tag, date or link the author's choice
            let chosen = !matches!(family_of(self.features[f as usize]), b'w' | b'l');
            if found >= HALLMARKS || (chosen && share >= STRONG_HALLMARK && top >= 3) {
                return true;
            }
        }
        false
    }

    /// Shares each parent's score among its children of a kind by how the note resembles each
    /// kind across the vault: a drawing of Git's goes to `Git/excalidraw` though its words are
    /// those of `Git/theory`.
    pub(super) fn share_by_kind(
        &self,
        q: &[(u32, f32)],
        left_out: Option<&LeftOut>,
        allowed_folder: &[bool],
        scores: &mut FxHashMap<usize, f32>,
    ) {
        if self.kinds.is_empty() {
            return;
        }
        // only the parents of the leading folders: sharing keeps a parent's total, and a
        // guess reads its first folders (sharing every parent's would cost a calibration on a
        // vault of many projects, each with its `notes` and `meetings`, seconds)
        let mut leading: Vec<(usize, f32)> = scores
            .iter()
            .filter(|(fid, _)| self.kind_of[**fid].is_some())
            .map(|(fid, s)| (*fid, *s))
            .collect();
        leading.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut families: Vec<usize> = leading
            .iter()
            .take(KIND_LEADING)
            .map(|(fid, _)| self.family_of[*fid])
            .collect();
        families.sort_unstable();
        families.dedup();
        let vanished = left_out
            .map(|l| self.docs[l.doc].1)
            .filter(|&fid| self.folder_notes[fid] == 1);
        for family in families {
            // the children in the running: one with no score of its own is not lifted by its
            // kind alone (it would tie with the one that scored), and a folder only the
            // left-out note is in does not exist for it, nor does a kind that folder made
            let children: Vec<usize> = self.families[family]
                .iter()
                .copied()
                .filter(|&c| {
                    allowed_folder[c]
                        && scores.get(&c).is_some_and(|s| *s > 0.0)
                        && self.still_a_kind(c, vanished)
                })
                .collect();
            if children.len() < 2 {
                continue;
            }
            let total: f32 = children.iter().filter_map(|c| scores.get(c)).sum();
            if total <= 0.0 {
                continue;
            }
            let shares: Vec<f32> = children
                .iter()
                .map(|&c| self.like_kind_elsewhere(q, left_out, c))
                .collect();
            let share_total: f32 = shares.iter().sum();
            if share_total <= 0.0 {
                continue;
            }
            for (&c, share) in children.iter().zip(shares) {
                let own = scores.get(&c).copied().unwrap_or(0.0);
                let shared = total * share / share_total;
                let new = KIND_KEEP * own + (1.0 - KIND_KEEP) * shared;
                if new > 0.0 {
                    scores.insert(c, new);
                }
            }
        }
    }

    /// Whether folder `fid` is of a kind when folder `vanished` is not there: it is not that
    /// folder, and its kind has another.
    pub(super) fn still_a_kind(&self, fid: usize, vanished: Option<usize>) -> bool {
        let Some(k) = self.kind_of[fid] else {
            return false;
        };
        match vanished {
            Some(v) if v == fid => false,
            Some(v) if self.kind_of[v] == Some(k) => self.kind_sizes[k as usize] > 2,
            _ => true,
        }
    }

    /// The cosine of `q` with the folders of `fid`'s kind under other parents: how much the
    /// note is of that kind, its topic's words (those of `fid`'s parent) left aside.
    pub(super) fn like_kind_elsewhere(
        &self,
        q: &[(u32, f32)],
        left_out: Option<&LeftOut>,
        fid: usize,
    ) -> f32 {
        let Some(k) = self.kind_of[fid] else {
            return 0.0;
        };
        let kind = &self.kinds[k as usize];
        let here = &self.sums[fid].0;
        let value =
            |f: &u32| kind.get(f).copied().unwrap_or(0.0) - here.get(f).copied().unwrap_or(0.0);
        let norm = self.elsewhere_norms[fid];
        let (d, n2) = match left_out {
            None => (q.iter().map(|(f, w)| w * value(f)).sum(), norm),
            Some(l) => {
                let doc_folder = self.docs[l.doc].1;
                let own = doc_folder != fid && self.kind_of[doc_folder] == Some(k);
                self.dot_left_out(q, l, value, norm, own)
            }
        };
        if n2 > 1e-6 && d > 0.0 {
            d / n2.sqrt()
        } else {
            0.0
        }
    }

    /// The dot product of `q` (the left-out document, reweighed) with folder `fid`'s sum and
    /// the sum's squared length, the document taken out of the sum and its features reweighed
    /// in it as in `q`.
    pub(super) fn centroid_left_out(
        &self,
        q: &[(u32, f32)],
        l: &LeftOut,
        fid: usize,
    ) -> (f32, f32) {
        let (sum, norm) = &self.sums[fid];
        let own = self.docs[l.doc].1 == fid;
        self.dot_left_out(q, l, |f| sum.get(f).copied().unwrap_or(0.0), *norm, own)
    }

    /// The dot product of `q` (the left-out document, reweighed) with a sum of documents
    /// (`value` of each feature; `norm`, its squared length) and the sum's squared length, the
    /// document taken out of the sum when it is `own` and its features reweighed in it as in
    /// `q`.
    pub(super) fn dot_left_out(
        &self,
        q: &[(u32, f32)],
        l: &LeftOut,
        value: impl Fn(&u32) -> f32,
        norm: f32,
        own: bool,
    ) -> (f32, f32) {
        let (_, _, v) = &self.docs[l.doc];
        let (mut d, mut n2) = (0.0f32, norm);
        for ((&(f, qw), &(_, vw)), r) in q.iter().zip(v).zip(l.ratios) {
            let s = value(&f);
            let kept = (if own { s - vw } else { s }) * r;
            d += qw * kept;
            n2 += kept * kept - s * s;
        }
        (d, n2)
    }

    /// The query's features that weigh most in a folder's centroid, readable.
    pub(super) fn evidence(
        &self,
        q: &[(u32, f32)],
        fid: usize,
        names: &FxHashMap<Feature, String>,
    ) -> Vec<String> {
        let sum = &self.sums[fid].0;
        let mut shared: Vec<(f32, u32)> = q
            .iter()
            .filter_map(|(f, w)| sum.get(f).map(|s| (w * s, *f)))
            .collect();
        shared.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        shared
            .into_iter()
            .filter_map(|(_, f)| names.get(&self.features[f as usize]))
            .take(3)
            .map(|name| readable(name))
            .collect()
    }
}

/// A feature as a person reads it.
pub(super) fn readable(feature: &str) -> String {
    let (kind, rest) = feature.split_once(':').unwrap_or(("", feature));
    match kind {
        "w" => format!("word '{rest}'"),
        "k" => format!("key {rest}"),
        "v" => rest.replacen('=', ": ", 1),
        "g" => format!("tag #{rest}"),
        "h" => format!("heading '{rest}'"),
        "l" => format!("line '{}'", rest.chars().take(40).collect::<String>()),
        "f" => format!("links with notes in {rest}/"),
        "c" => format!("cited beside notes in {rest}/"),
        "b" => format!("listed with notes in {rest}/"),
        "s" => format!("{rest} name"),
        "d" => format!("dated {rest}"),
        _ => feature.to_string(),
    }
}
