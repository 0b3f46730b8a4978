//! Serendipity ("surprise me"): strong links nobody made between notes kept far apart — in
//! folders with little of their path in common — found by the same evidence as targeted
//! discovery. A different sample of the vault each day, the same all day.

use super::discover::{Candidate, Discovery};
use crate::vault::Vault;

/// Notes looked at in one run: discovery for each costs a scan of its rarer words.
const SAMPLE: usize = 400;
/// Pairs shown.
const SHOWN: usize = 3;
/// A pair below this score is a coincidence, not a surprise (the "medium" strength).
const MIN_SCORE: f64 = 3.0;
/// Folders this many steps apart or more (up to their common parent and down again) are far.
const MIN_DISTANCE: usize = 2;

/// Steps from `a`'s folder to `b`'s through their common parent.
pub(crate) fn folder_distance(a: &str, b: &str) -> usize {
    let parts = |p: &str| -> Vec<String> {
        let folder = p.rsplit_once('/').map_or("", |(d, _)| d);
        folder
            .split('/')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (a, b) = (parts(a), parts(b));
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    a.len() + b.len() - 2 * common
}

/// The strongest unlinked pairs of far-apart notes among a sample drawn with `seed`: each note
/// in one pair at most, strongest first.
pub(crate) fn surprises(vault: &Vault, found: &Discovery, seed: u64) -> Vec<(usize, Candidate)> {
    let mut sample: Vec<usize> = (0..vault.notes.len())
        .filter(|&i| found.is_content(i))
        .collect();
    crate::vault::classify::shuffle(&mut sample, seed);
    sample.truncate(SAMPLE);
    let mut pairs: Vec<(usize, Candidate)> = sample
        .iter()
        .flat_map(|&i| {
            found
                .candidates(i, 5)
                .into_iter()
                .filter(move |c| {
                    c.score >= MIN_SCORE
                        && folder_distance(&vault.notes[i].path, &vault.notes[c.note].path)
                            >= MIN_DISTANCE
                })
                .map(move |c| (i, c))
        })
        .collect();
    pairs.sort_by(|(a, x), (b, y)| {
        y.score
            .total_cmp(&x.score)
            .then_with(|| vault.notes[*a].path.cmp(&vault.notes[*b].path))
            .then_with(|| vault.notes[x.note].path.cmp(&vault.notes[y.note].path))
    });
    let mut used = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (i, c) in pairs {
        if used.contains(&i) || used.contains(&c.note) {
            continue;
        }
        used.insert(i);
        used.insert(c.note);
        out.push((i, c));
        if out.len() == SHOWN {
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_are_far_when_little_of_their_path_is_shared() {
        assert_eq!(folder_distance("A/x.md", "A/y.md"), 0);
        assert_eq!(folder_distance("A/x.md", "A/B/y.md"), 1);
        assert_eq!(folder_distance("A/C/x.md", "A/B/y.md"), 2);
        assert_eq!(folder_distance("x.md", "B/y.md"), 1);
        assert_eq!(folder_distance("Cooking/x.md", "Physics/Waves/y.md"), 3);
    }
}
