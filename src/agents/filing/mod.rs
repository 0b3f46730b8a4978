//! Filing learned from the vault: which folders are homes, the classifier trained on the notes
//! already in them, its calibration, the decision that weighs it with the explicit evidence
//! ([`decide`], [`trust`]). `crew triage --evaluate`, which runs whole requests on a scratch
//! copy, sits above the run in `crate::evaluate`.
//!
//! Every folder holding notes is a candidate home, except the inbox, the templates folder,
//! crew's own notes and the vault's root; the archive only for notes that are done.

pub(crate) mod decide;
pub(crate) mod strangers;
pub(crate) mod trust;

pub use trust::{Kind, Tally, Trust};

use rustc_hash::FxHashSet;
use serde::Serialize;

use crate::crew::Folders;
use crate::vault::Vault;
use crate::vault::classify::{self, Calibration, Classifier, Guess};
use crate::vault::feature_store::{FeatureStore, body_of};

/// Filed notes a calibration looks at.
pub(crate) const CALIBRATION_SAMPLE: usize = 400;

/// The vault's learned classifier with its calibration.
pub struct Learned {
    pub classifier: Classifier,
    pub calibration: Calibration,
    excluded: FxHashSet<String>,
    archive: String,
    /// Notes (vault paths) this run found no folder like, as their guesses were made: a new
    /// folder is proposed from them without guessing again.
    homeless: std::sync::Mutex<FxHashSet<String>>,
}

/// Folders that are never a home.
fn excluded(f: &Folders) -> FxHashSet<String> {
    [&f.inbox, &f.templates, &f.meta]
        .into_iter()
        .filter(|d| !d.is_empty())
        .cloned()
        .collect()
}

/// Whether a note counts as done (the archive is a home only for those).
fn done(note: &crate::vault::Note) -> bool {
    note.property_str("status").is_some_and(|s| {
        matches!(
            s.trim().to_lowercase().as_str(),
            "done" | "archived" | "completed" | "complete" | "finished" | "closed"
        )
    })
}

/// The notes already in a home: the examples filing learns from.
pub(crate) fn filed_notes(vault: &Vault, folders: &Folders) -> Vec<usize> {
    let excluded = excluded(folders);
    (0..vault.notes.len())
        .filter(|&i| {
            let path = &vault.notes[i].path;
            classify::candidate(classify::folder_of(path), &excluded)
                && !folders.crew_owned(path)
                && !crate::vault::folder_note::is_inside_folder_note(path)
        })
        .collect()
}

impl Learned {
    /// Trains on every note in a candidate home, reading through `source` (the gate in a run,
    /// so a dry run learns what a real run would). Returns `None` for a vault with too few
    /// filed notes to learn from. Notes unchanged since an earlier run are not read again:
    /// their features, and the calibration while at most a hundredth of the notes changed
    /// since it was measured, come from the store kept next to the vault's index.
    pub fn learn(
        vault: &Vault,
        source: &dyn crate::vault::NoteSource,
        folders: &Folders,
        target: f64,
    ) -> Option<Learned> {
        let mut store = FeatureStore::load(vault);
        let learned = Learned::learn_with(vault, source, folders, target, &mut store);
        store.save();
        learned
    }

    /// [`Learned::learn`] with the calibration measured now, whatever the store kept (and
    /// kept in its place): for a person asking for the estimate.
    pub fn learn_measured(vault: &Vault, folders: &Folders, target: f64) -> Option<Learned> {
        let mut store = FeatureStore::load(vault);
        store.forget_calibration();
        let learned = Learned::learn_with(vault, vault, folders, target, &mut store);
        store.save();
        learned
    }

    /// [`Learned::learn`] through `store` ([`FeatureStore::disabled`]: every note read, the
    /// calibration computed).
    pub fn learn_with(
        vault: &Vault,
        source: &dyn crate::vault::NoteSource,
        folders: &Folders,
        target: f64,
        store: &mut FeatureStore,
    ) -> Option<Learned> {
        let excluded = excluded(folders);
        let homed = filed_notes(vault, folders);
        let examples = store.examples(
            vault,
            &homed,
            source,
            &crate::crew::config::holds_template_syntax,
        );
        if examples.len() < 5 {
            return None;
        }
        let classifier = Classifier::train(examples);
        let calibration = store.calibrate(
            &classifier,
            (target, strangers::STRANGER_TARGET),
            CALIBRATION_SAMPLE,
            0,
            strangers::features(),
        );
        Some(Learned {
            classifier,
            calibration,
            excluded,
            archive: folders.archive.clone(),
            homeless: std::sync::Mutex::default(),
        })
    }

    /// The model's ranking for the note at `idx`, whose text is `text`.
    pub fn guess(&self, vault: &Vault, idx: usize, text: &str) -> Guess {
        let note = &vault.notes[idx];
        let body = body_of(text, note);
        let mut names = rustc_hash::FxHashMap::default();
        let feats = classify::features(vault, idx, body, Some(&mut names));
        let is_done = done(note);
        let archive = self.archive.as_str();
        let allowed = |folder: &str| {
            classify::candidate(folder, &self.excluded)
                && (is_done || archive.is_empty() || !classify::within(folder, archive))
        };
        self.classifier.guess(&feats, &allowed, Some(&names))
    }

    /// Whether a guess is sure enough to file: like its folder's notes (a hallmark of the
    /// folder, and as near to its notes as they are to each other, by the calibrated share)
    /// and ahead of the next folder by the calibrated margin.
    pub fn sure(&self, g: &Guess) -> bool {
        self.calibration.files(g)
    }

    /// Remembers whether no folder is like the note at `path`, by its latest guess `g`.
    pub(crate) fn note_homeless(&self, path: &str, g: &Guess) {
        if let Ok(mut h) = self.homeless.lock() {
            if self.calibration.at_home(g) {
                h.remove(path);
            } else {
                h.insert(path.to_string());
            }
        }
    }

    /// Whether a guess of this run found no folder like the note at `path`.
    pub(crate) fn is_homeless(&self, path: &str) -> bool {
        self.homeless.lock().is_ok_and(|h| h.contains(path))
    }

    /// Why a note stays: no folder is like it, or the two best candidates with their evidence.
    pub(crate) fn unsure_reason(&self, g: &Guess) -> String {
        let show = |s: &classify::FolderScore| {
            format!("{} {:.2}: {}", s.folder, s.score, s.evidence.join(", "))
        };
        match g.ranked.as_slice() {
            [] => {
                "no project, area, type, tag or link points to a home, and no filed note is like it"
                    .into()
            }
            [best, ..] if !self.calibration.at_home(g) => {
                let why = if !g.shaped {
                    format!(
                        "nearest {}, whose notes share a form — a template, keys or stock lines — this one lacks",
                        best.folder
                    )
                } else if g.hallmark {
                    format!(
                        "nearest {} at {:.2}, where its notes are {:.2} near each other",
                        best.folder,
                        g.nearness,
                        self.calibration.typical_of(&best.folder)
                    )
                } else {
                    format!(
                        "nearest {}, on words any folder uses: {}",
                        best.folder,
                        best.evidence.join(", ")
                    )
                };
                format!("no folder of this vault is like it ({why})")
            }
            [one] => format!("not sure enough to file: {}", show(one)),
            [a, b, ..] => format!("not sure enough to file: {} — {}", show(a), show(b)),
        }
    }
}

/// What `crew init --adopt` and `crew triage --calibrate` show of the learned map.
#[derive(Debug, Clone, Serialize)]
pub struct FolderMap {
    pub folder: String,
    pub notes: usize,
}

pub fn folder_map(l: &Learned) -> Vec<FolderMap> {
    let mut out: Vec<FolderMap> = l
        .classifier
        .folders()
        .into_iter()
        .map(|(folder, notes)| FolderMap { folder, notes })
        .collect();
    out.sort_by(|a, b| b.notes.cmp(&a.notes).then(a.folder.cmp(&b.folder)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_archive_is_a_home_only_for_done_notes() {
        let n = crate::vault::Note::parse_text("x.md", "---\nstatus: Done\n---\n");
        assert!(done(&n));
        let n = crate::vault::Note::parse_text("x.md", "---\nstatus: active\n---\n");
        assert!(!done(&n));
    }
}
