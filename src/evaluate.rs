//! `crew triage --evaluate N`: how well filing works on this vault, measured the only honest
//! way — take N filed notes out of their folders in a scratch copy, drop them into the inbox,
//! run the real triage, and see where they land. The vault itself is only read.

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::agents::filing;
use crate::crew::Crew;
use crate::run::{self, Options, RunError};
use crate::state::journal::OpKind;
use crate::vault::{Vault, VaultError, classify};

/// The figures of one evaluation.
#[derive(Debug, Clone, Serialize)]
pub struct Evaluation {
    /// Filed notes the vault had to choose from (the rest of them are what filing learns from).
    pub filed_notes: usize,
    pub moved: usize,
    pub filed: usize,
    /// Filed into the folder they came from.
    pub right: usize,
    /// Neither in the inbox nor where triage said it moved them.
    pub lost: usize,
    pub coverage: f64,
    pub precision: f64,
    /// (note, from folder, to folder or "" when it stayed).
    pub notes: Vec<(String, String, String)>,
    /// Notes that belong nowhere in the vault (lists, recipes, journal lines…) put into the
    /// inbox beside the held-out ones.
    pub strangers: usize,
    /// Of those, how many were filed: each one is a note filed that should have stayed.
    pub strangers_filed: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum EvaluateError {
    #[error("could not make the scratch copy at {path}: {source}")]
    Copy {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Vault(#[from] VaultError),
    #[error(transparent)]
    Run(#[from] RunError),
    #[error(transparent)]
    Crew(#[from] crate::crew::CrewError),
}

/// Copies the vault into `to`, leaving out crew's run state and version-control folders.
fn copy_vault(from: &Path, to: &Path) -> Result<(), EvaluateError> {
    let skip = |rel: &str| {
        rel.starts_with(".git")
            || [".crew/journal", ".crew/runs", ".crew/undone"]
                .iter()
                .any(|p| rel.starts_with(p))
            // the index and the classifier store beside it: the copy learns from scratch, so
            // no calibration measured with the held-out notes in place is reused
            || rel.starts_with(".crew/index.bin")
            || rel == ".crew/lock"
    };
    let err = |path: &Path, source| EvaluateError::Copy {
        path: path.to_path_buf(),
        source,
    };
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let Ok(rel) = e.path().strip_prefix(from) else {
            continue;
        };
        let rel_s = crate::vault::rel_to_string(rel);
        if skip(&rel_s) {
            continue;
        }
        let target = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).map_err(|s| err(&target, s))?;
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &target).map_err(|s| err(&target, s))?;
            // the copy is a scratch vault: a read-only original (crew leaves those alone)
            // must not make the evaluation measure nothing
            make_writable(&target).map_err(|s| err(&target, s))?;
        }
    }
    // the copy is a vault crew may write, whatever marks the original
    std::fs::create_dir_all(to.join(".crew")).map_err(|s| err(to, s))?;
    Ok(())
}

#[cfg(unix)]
fn make_writable(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut p = std::fs::metadata(path)?.permissions();
    p.set_mode(p.mode() | 0o200);
    std::fs::set_permissions(path, p)
}

#[cfg(not(unix))]
fn make_writable(path: &Path) -> std::io::Result<()> {
    let mut p = std::fs::metadata(path)?.permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    p.set_readonly(false);
    std::fs::set_permissions(path, p)
}

/// Moves `n` random filed notes (by `seed`) into the inbox of a scratch copy of the vault at
/// `vault_path`, runs the inbox triage there, and counts where they went.
pub fn evaluate(
    vault_path: &Path,
    crew: &Crew,
    n: usize,
    seed: u64,
) -> Result<Evaluation, EvaluateError> {
    let scratch = tempfile::Builder::new()
        .prefix("crew-evaluate-")
        .tempdir()
        .map_err(|source| EvaluateError::Copy {
            path: std::env::temp_dir(),
            source,
        })?;
    let copy = scratch.path().join("vault");
    copy_vault(vault_path, &copy)?;
    let (moved, filed_notes) = hold_out(&copy, &crew.config.folders, n, seed)?;
    let strangers = add_strangers(&copy, &crew.config.folders, n.div_ceil(2), seed)?;
    let folders = &crew.config.folders;
    let copy_crew = Crew::load(&copy, None)?;
    let opts = Options {
        agent: Some("inbox-triage".into()),
        max_depth: Some(1),
        command: "triage --evaluate".into(),
        ..Options::default()
    };
    let report = run::ask(&copy, &copy_crew, "file my notes", &opts, &mut |_| {})?;
    let moves: Vec<(String, String)> = report
        .chain
        .steps
        .iter()
        .flat_map(|s| &s.operations)
        .filter(|op| op.op == OpKind::Move)
        .filter_map(|op| op.to.clone().map(|to| (op.path.clone(), to)))
        .collect();
    let mut e = Evaluation {
        filed_notes,
        moved: moved.len(),
        filed: 0,
        right: 0,
        lost: 0,
        coverage: 0.0,
        precision: 0.0,
        notes: Vec::new(),
        strangers: strangers.len(),
        strangers_filed: 0,
    };
    for file in &strangers {
        let in_inbox = format!("{}/{file}", folders.inbox);
        if moves.iter().any(|(p, _)| *p == in_inbox) {
            e.strangers_filed += 1;
        }
        if !copy.join(&in_inbox).is_file() && !moves.iter().any(|(p, _)| *p == in_inbox) {
            e.lost += 1;
        }
    }
    for (file, from) in moved {
        let in_inbox = format!("{}/{file}", folders.inbox);
        let dest = moves.iter().find(|(p, _)| *p == in_inbox).map(|(_, to)| to);
        let to_folder = match dest {
            Some(to) if copy.join(to).is_file() => {
                e.filed += 1;
                let folder = classify::folder_of(to).to_string();
                e.right += usize::from(folder == from);
                folder
            }
            Some(_) => {
                e.lost += 1;
                String::new()
            }
            None => {
                if !copy.join(&in_inbox).is_file() {
                    e.lost += 1;
                }
                String::new()
            }
        };
        e.notes.push((file, from, to_folder));
    }
    if e.moved > 0 {
        e.coverage = e.filed as f64 / e.moved as f64;
    }
    if e.filed > 0 {
        e.precision = e.right as f64 / e.filed as f64;
    }
    Ok(e)
}

/// Moves `n` random filed notes of the vault copy at `copy` into its inbox: (file name, the
/// folder it came from) of each, and how many filed notes there were to choose from.
fn hold_out(
    copy: &Path,
    folders: &crate::crew::Folders,
    n: usize,
    seed: u64,
) -> Result<(Vec<(String, String)>, usize), EvaluateError> {
    let vault = Vault::open(copy)?;
    let excluded: rustc_hash::FxHashSet<String> =
        [&folders.inbox, &folders.templates, &folders.meta]
            .into_iter()
            .cloned()
            .collect();
    let mut pool: Vec<&str> = vault
        .notes
        .iter()
        .map(|note| note.path.as_str())
        .filter(|p| {
            classify::candidate(classify::folder_of(p), &excluded)
                && !crate::vault::folder_note::is_inside_folder_note(p)
                && !folders.crew_owned(p)
        })
        .collect();
    let filed_notes = pool.len();
    classify::shuffle(&mut pool, seed);
    let inbox = copy.join(&folders.inbox);
    std::fs::create_dir_all(&inbox).map_err(|source| EvaluateError::Copy {
        path: inbox.clone(),
        source,
    })?;
    let mut moved: Vec<(String, String)> = Vec::new();
    for p in pool {
        if moved.len() >= n {
            break;
        }
        let file = p.rsplit('/').next().unwrap_or(p);
        let to = inbox.join(file);
        if to.exists() {
            continue;
        }
        if std::fs::rename(copy.join(p), &to).is_ok() {
            moved.push((file.to_string(), classify::folder_of(p).to_string()));
        }
    }
    Ok((moved, filed_notes))
}

/// Writes `n` notes that belong nowhere (drawn by `seed`, unlike those the calibration guesses)
/// into the inbox of the vault copy at `copy`: their file names.
fn add_strangers(
    copy: &Path,
    folders: &crate::crew::Folders,
    n: usize,
    seed: u64,
) -> Result<Vec<String>, EvaluateError> {
    let inbox = copy.join(&folders.inbox);
    let mut names = Vec::new();
    for (i, (title, text)) in filing::strangers::notes(n, seed.wrapping_add(1_000))
        .into_iter()
        .enumerate()
    {
        let file = format!("{title} {}.md", i + 1).replace(['/', '\\'], "-");
        let path = inbox.join(&file);
        if path.exists() {
            continue;
        }
        std::fs::write(&path, text).map_err(|source| EvaluateError::Copy { path, source })?;
        names.push(file);
    }
    Ok(names)
}

/// What the vault's filed notes say of each kind of explicit evidence (`project:`, `type:`,
/// tags…): the kinds a triage would leave out. Nothing is written.
pub fn evidence_trust(vault: Vault, crew: &Crew) -> Result<filing::Trust, RunError> {
    let gate = crate::gate::Gate::new(
        vault,
        crate::gate::Policy::default(),
        crate::state::journal::Journal::in_memory(),
        true,
    );
    Ok(filing::trust::evidence_trust(
        &gate,
        &crew.config,
        run::run_clock()?.date(),
    ))
}

/// The learned classifier's calibration on the vault as it is, measured now (nothing moves).
pub fn calibrate(vault: &Vault, crew: &Crew) -> Option<filing::Learned> {
    filing::Learned::learn_measured(vault, &crew.config.folders, crew.config.triage_precision)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_copy_leaves_out_run_state_the_index_and_the_classifier_store() {
        let from = tempfile::tempdir().expect("tmp");
        let to = tempfile::tempdir().expect("tmp");
        let files = [
            "Notes/a.md",
            ".crew/config.yaml",
            ".crew/index.bin",
            ".crew/index.bin.classify",
            ".crew/journal/r1/0.json",
            ".crew/lock",
            ".git/HEAD",
        ];
        for f in files {
            let p = from.path().join(f);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, "x").expect("write");
        }
        let copy = to.path().join("vault");
        copy_vault(from.path(), &copy).expect("copy");
        let kept: Vec<&str> = files
            .into_iter()
            .filter(|f| copy.join(f).exists())
            .collect();
        assert_eq!(kept, ["Notes/a.md", ".crew/config.yaml"]);
    }
}
