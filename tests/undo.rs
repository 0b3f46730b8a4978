//! `crew undo`: every kind of operation round-trips to a byte-identical vault, and a note
//! changed since the run makes undo refuse without touching anything.

mod common;

use common::{crew, snapshot};
use predicates::prelude::*;

/// The vault's own files: what a user sees, crew's state folder left out.
fn notes(root: &std::path::Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    snapshot(root)
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".crew/"))
        .collect()
}

fn dirs(root: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_dir())
        .map(|e| {
            e.path()
                .strip_prefix(root)
                .expect("under")
                .to_string_lossy()
                .into_owned()
        })
        .filter(|p| !p.starts_with(".crew"))
        .collect();
    out.sort();
    out
}

#[test]
fn a_triage_with_moves_edits_creates_and_folders_undoes_exactly() {
    let dir = common::sample_vault();
    let v = dir.path();
    let before = notes(v);
    let before_dirs = dirs(v);
    crew(v).args(["ask", "file these notes"]).assert().success();
    assert_ne!(before, notes(v), "the run changed the vault");
    crew(v)
        .args(["undo", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Would undo"));
    crew(v)
        .arg("undo")
        .assert()
        .success()
        .stdout(predicate::str::contains("Undid run"));
    assert_eq!(before, notes(v), "byte-identical after undo");
    assert_eq!(
        before_dirs,
        dirs(v),
        "folders the run made are gone, others kept"
    );
    // undoing twice is refused
    crew(v).arg("undo").assert().code(2);
}

#[test]
fn maintenance_fixes_and_reports_undo() {
    let dir = common::sample_vault();
    let v = dir.path();
    let before = notes(v);
    crew(v).args(["maintain", "--fix"]).assert().code(1);
    assert_ne!(before, notes(v));
    crew(v).arg("undo").assert().success();
    assert_eq!(before, notes(v));
}

#[test]
fn capture_and_custom_agent_creation_undo() {
    let dir = common::sample_vault();
    let v = dir.path();
    let before = notes(v);
    crew(v)
        .args(["ask", "quick note: buy tiles"])
        .assert()
        .success();
    crew(v).arg("undo").assert().success();
    assert_eq!(before, notes(v));
    assert!(
        std::fs::read_dir(v.join(".crew/undone"))
            .expect("set aside")
            .count()
            > 0,
        "the created note was set aside, not deleted"
    );
}

#[test]
fn a_note_changed_since_the_run_makes_undo_refuse() {
    let dir = common::sample_vault();
    let v = dir.path();
    crew(v).args(["ask", "file these notes"]).assert().success();
    let moved = v.join("01-Projects/Kitchen Renovation/Tile options.md");
    std::fs::write(&moved, "the user rewrote this note after the run").expect("edit");
    let during = notes(v);
    crew(v)
        .arg("undo")
        .assert()
        .code(1)
        .stderr(predicate::str::contains("has been changed since this run"));
    assert_eq!(during, notes(v), "nothing was undone");
}

#[test]
fn a_specific_run_by_id() {
    let dir = common::sample_vault();
    let v = dir.path();
    crew(v)
        .args(["ask", "quick note: first"])
        .assert()
        .success();
    let after_first = notes(v);
    crew(v)
        .args(["ask", "quick note: second"])
        .assert()
        .success();
    let log = common::json_of(crew(v).args(["log", "--json"]));
    let newest = log[0]["run_id"].as_str().expect("run id").to_string();
    crew(v).args(["undo", &newest]).assert().success();
    assert_eq!(after_first, notes(v));
    crew(v)
        .args(["undo", "no-such-run"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no journal"));
}
