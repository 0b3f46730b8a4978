//! How far this vault bears out each kind of explicit evidence. `project:`, `area:`, `type:`,
//! tags, links and titles point to a home by the template's conventions; a vault kept another
//! way (meetings inside their project, `type:` used for something else, tags that name topics
//! rather than places) contradicts them. Its filed notes tell: the sorter asks, for a sample
//! of them, where the explicit evidence alone would send each note, and counts how often that
//! is the folder the note is in. A kind the vault clearly contradicts is left out, and the
//! notes it alone would have filed go to the learned classifier, which knows when it does not know.

use std::collections::BTreeMap;

use serde::Serialize;

use super::decide::{Scene, decide_each_kind};
use crate::vault::classify::{folder_of, within};

/// Filed notes the measure looks at, at most (spread evenly over the vault).
pub(crate) const SAMPLE: usize = 400;
/// Fewer decisions than this say nothing about a kind: it stays trusted.
const MIN_DECIDED: usize = 5;

/// A kind of explicit evidence. Each `type:` value is a kind of its own: a vault may keep its
/// people in the people folder and its meetings with their projects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum Kind {
    #[serde(rename = "project:")]
    Project,
    #[serde(rename = "area:")]
    Area,
    #[serde(rename = "type: meeting")]
    Meeting,
    #[serde(rename = "type: person")]
    Person,
    #[serde(rename = "type: daily")]
    Daily,
    #[serde(rename = "type: moc")]
    Moc,
    #[serde(rename = "type: reference")]
    Reference,
    #[serde(rename = "tags")]
    Tag,
    #[serde(rename = "links")]
    Link,
    #[serde(rename = "titles")]
    Title,
}

impl Kind {
    /// How the kind is written in reports.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Project => "project:",
            Kind::Area => "area:",
            Kind::Meeting => "type: meeting",
            Kind::Person => "type: person",
            Kind::Daily => "type: daily",
            Kind::Moc => "type: moc",
            Kind::Reference => "type: reference",
            Kind::Tag => "tags",
            Kind::Link => "links",
            Kind::Title => "titles",
        }
    }
}

/// For one kind: filed notes it would have sent somewhere, and how many of those to the
/// folder they are in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub decided: usize,
    pub agreed: usize,
}

/// What the vault's filed notes say of each kind of evidence.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Trust {
    pub kinds: BTreeMap<Kind, Tally>,
    /// The precision a kind must be able to reach (config `triage_precision`).
    pub target: f64,
}

impl Trust {
    /// Measures every kind on `filed` (indices of notes in their homes), with `scene` as the
    /// decision sees the vault (its own `trust` is ignored: every kind is counted alone).
    /// Notes in the archive are left out (they keep the keys of the homes they left), and so
    /// are folder notes beside their folder (`Projects/X.md` for `Projects/X/`).
    pub(crate) fn measure(scene: &Scene, filed: &[usize], target: f64) -> Trust {
        let scene = Scene {
            trust: None,
            ..*scene
        };
        let vault = scene.vault;
        let archive = scene.folders.archive.as_str();
        let folders: rustc_hash::FxHashSet<&str> = vault
            .files
            .paths
            .iter()
            .filter_map(|p| p.rsplit_once('/').map(|(d, _)| d))
            .collect();
        let sample: Vec<usize> = filed
            .iter()
            .copied()
            .filter(|&i| {
                let path = &vault.notes[i].path;
                let folder = folder_of(path);
                (archive.is_empty() || !within(folder, archive))
                    && !path
                        .strip_suffix(".md")
                        .is_some_and(|stem| folders.contains(stem))
            })
            .collect();
        let step = sample.len().div_ceil(SAMPLE).max(1);
        let sample: Vec<usize> = sample.into_iter().step_by(step).collect();
        // each note's decisions are independent; tallied in sample order
        use rayon::prelude::*;
        let decided: Vec<(usize, Vec<(Kind, String)>)> = sample
            .par_iter()
            .map(|&i| (i, decide_each_kind(&scene, i)))
            .collect();
        let mut kinds: BTreeMap<Kind, Tally> = BTreeMap::new();
        for (i, each_kind) in decided {
            let folder = folder_of(&vault.notes[i].path);
            for (kind, dest) in each_kind {
                // a note under the home the evidence names counts: a project's sub-folders,
                // meetings by month, people by circle
                let home = if kind == Kind::Meeting {
                    scene.folders.meetings.as_str()
                } else {
                    dest.as_str()
                };
                let agreed = within(folder, home);
                let t = kinds.entry(kind).or_default();
                t.decided += 1;
                t.agreed += usize::from(agreed);
            }
        }
        Trust { kinds, target }
    }

    /// Whether evidence of this kind may file a note: unless the filed notes show, with 95 %
    /// confidence, that it files below the precision target (the upper end of the Wilson
    /// interval of its agreement is under the target).
    pub fn trusted(&self, kind: Kind) -> bool {
        self.kinds.get(&kind).is_none_or(|t| {
            t.decided < MIN_DECIDED || wilson_upper(t.agreed, t.decided) >= self.target
        })
    }

    /// The kinds left out, with their tallies.
    pub(crate) fn distrusted(&self) -> Vec<(Kind, Tally)> {
        self.kinds
            .iter()
            .filter(|(k, _)| !self.trusted(**k))
            .map(|(k, t)| (*k, *t))
            .collect()
    }
}

/// The upper bound of the 95 % Wilson score interval of `k` successes in `n` trials.
fn wilson_upper(k: usize, n: usize) -> f64 {
    // every one agreeing: exactly 1 (the formula can round to just under it)
    if k >= n {
        return 1.0;
    }
    let (k, n) = (k as f64, n as f64);
    let z2 = 1.96_f64 * 1.96;
    let p = k / n;
    let centre = p + z2 / (2.0 * n);
    let spread = 1.96 * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    (centre + spread) / (1.0 + z2 / n)
}

/// What the vault's filed notes say of each kind of explicit evidence, as a triage on `gate`
/// would measure it now (`crew triage --calibrate` shows it).
pub fn evidence_trust(
    gate: &crate::gate::Gate,
    config: &crate::crew::CrewConfig,
    today: chrono::NaiveDate,
) -> Trust {
    let homes = super::decide::homes(&config.folders, |d| gate.subdirs(d));
    let dir_exists = |d: &str| gate.dir_exists(d);
    let scene = Scene {
        vault: gate.vault(),
        folders: &config.folders,
        homes: &homes,
        today,
        threshold: config.triage_confidence,
        dir_exists: &dir_exists,
        trust: None,
    };
    let filed = super::filed_notes(gate.vault(), &config.folders);
    Trust::measure(&scene, &filed, config.triage_precision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_is_left_out_only_when_the_vault_clearly_contradicts_it() {
        let with = |decided, agreed| Trust {
            kinds: BTreeMap::from([(Kind::Person, Tally { decided, agreed })]),
            target: 0.95,
        };
        // too few decisions to say anything
        assert!(with(4, 0).trusted(Kind::Person));
        // every one right, or nearly
        assert!(with(40, 40).trusted(Kind::Person));
        assert!(with(10, 9).trusted(Kind::Person));
        // mostly wrong
        assert!(!with(5, 0).trusted(Kind::Person));
        assert!(!with(40, 30).trusted(Kind::Person));
        assert_eq!(
            with(40, 30).distrusted(),
            vec![(
                Kind::Person,
                Tally {
                    decided: 40,
                    agreed: 30
                }
            )]
        );
        // kinds never measured stay trusted
        assert!(with(40, 0).trusted(Kind::Project));
    }

    #[test]
    fn the_wilson_bound_is_what_the_formula_gives() {
        assert!((wilson_upper(0, 5) - 0.4345).abs() < 1e-3);
        assert!((wilson_upper(9, 10) - 0.9821).abs() < 1e-3);
        assert!((wilson_upper(30, 40) - 0.8581).abs() < 1e-3);
        assert!((wilson_upper(0, 0) - 1.0).abs() < 1e-12);
        // a perfect record is never under a target of 1
        for n in 1..200 {
            assert!(wilson_upper(n, n) >= 1.0, "{n}");
        }
    }
}
