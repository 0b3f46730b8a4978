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

/// The newest run's id.
fn newest_run(v: &std::path::Path) -> String {
    let log = common::json_of(crew(v).args(["log", "--json"]));
    log[0]["run_id"].as_str().expect("run id").to_string()
}

#[test]
fn crews_own_files_never_block_undoing_an_earlier_run() {
    let dir = common::sample_vault();
    let v = dir.path();
    let before = notes(v);
    crew(v)
        .args(["ask", "quick note: first"])
        .assert()
        .success();
    let first = newest_run(v);
    let after_first = notes(v);
    crew(v)
        .args(["ask", "quick note: second"])
        .assert()
        .success();
    let after_second = notes(v);
    // the second run appended to the agent log the first one wrote
    let log = "Meta/agent-log.md";
    assert_ne!(after_first.get(log), after_second.get(log));
    let plan = common::json_of(crew(v).args(["undo", &first, "--dry-run", "--json"]));
    assert!(
        plan["actions"]
            .as_array()
            .expect("actions")
            .iter()
            .any(|a| a["action"] == "keep" && a["path"] == log),
        "{plan}"
    );
    crew(v)
        .args(["undo", &first])
        .assert()
        .success()
        .stdout(predicate::str::contains("keep Meta/agent-log.md"));
    let now = notes(v);
    // the first run's note is gone, the second's stays, crew's log is as the second left it
    for (path, bytes) in &after_first {
        if before.get(path) != Some(bytes) && path != log {
            assert_ne!(now.get(path), Some(bytes), "{path} was not undone");
        }
    }
    for (path, bytes) in &after_second {
        if after_first.get(path) != Some(bytes) {
            assert_eq!(
                now.get(path),
                Some(bytes),
                "{path} of the second run changed"
            );
        }
    }
}

/// One `crew ask` answered by a model that makes `calls` (tool name, arguments) and then
/// answers; returns the run id. `marker` is text the second request holds (a tool result).
fn model_run(v: &std::path::Path, calls: &[(&str, serde_json::Value)], marker: &str) -> String {
    let mut server = mockito::Server::new();
    let calls: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| serde_json::json!({"id": format!("c{i}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    let first =
        serde_json::json!({"choices": [{"message": {"content": null, "tool_calls": calls}}]});
    let _a = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(first.to_string())
        .expect(1)
        .create();
    let done = server
        .mock("POST", "/v1/chat/completions")
        .match_body(mockito::Matcher::Regex(regex_escape(marker)))
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"Done."}}]}"#)
        .create();
    crew(v)
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .args([
            "ask",
            "--agent",
            "scribe",
            "--model",
            "gpt-4.1",
            "rework my plan",
        ])
        .assert()
        .success();
    done.assert();
    newest_run(v)
}

fn regex_escape(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_alphanumeric() || c == ' ' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect()
}

const PLAN: &str = "Projects/plan.md";
const ORIGINAL: &str = "# Plan\n\nThe user's careful words, kept for years.\n";

/// A vault whose plan a model overwrote (run 1) and then appended to (run 2).
fn wiped_then_edited() -> (assert_fs::TempDir, String, String) {
    let dir = common::adopted_vault(&[(PLAN, ORIGINAL)]);
    let v = dir.path();
    let wipe = model_run(
        v,
        &[(
            "write_note",
            serde_json::json!({"path": PLAN, "content": "replaced by the model", "mode": "overwrite"}),
        )],
        "wrote Projects/plan.md",
    );
    assert_eq!(
        std::fs::read_to_string(v.join(PLAN)).expect("read"),
        "replaced by the model"
    );
    let edit = model_run(
        v,
        &[(
            "write_note",
            serde_json::json!({"path": PLAN, "content": "a later line\n", "mode": "append"}),
        )],
        "appended to Projects/plan.md",
    );
    assert_ne!(wipe, edit);
    (dir, wipe, edit)
}

#[test]
fn a_later_run_on_the_same_note_is_named_as_the_one_to_undo_first() {
    let (dir, wipe, edit) = wiped_then_edited();
    let v = dir.path();
    let during = notes(v);
    crew(v)
        .args(["undo", &wipe])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "{PLAN} was changed since by run {edit}"
        )))
        .stderr(predicate::str::contains(format!("`crew undo {edit}`")));
    crew(v)
        .args(["undo", &wipe, "--note", PLAN])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "`crew undo {edit} --note {PLAN}`"
        )));
    assert_eq!(during, notes(v), "nothing was undone");
}

#[test]
fn one_note_goes_back_alone_and_the_restore_is_itself_undoable() {
    let (dir, wipe, edit) = wiped_then_edited();
    let v = dir.path();
    let wiped = "replaced by the model";
    // --note without a run: the newest run that changed the note
    crew(v)
        .args(["undo", "--note", PLAN, "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "Would restore {PLAN} to what it held before run {edit}"
        )));
    crew(v)
        .args(["undo", &edit, "--note", PLAN])
        .assert()
        .success();
    assert_eq!(std::fs::read_to_string(v.join(PLAN)).expect("read"), wiped);
    // --dry-run and --json with --note: the plan, nothing changed
    let plan =
        common::json_of(crew(v).args(["undo", &wipe, "--note", PLAN, "--dry-run", "--json"]));
    assert_eq!(plan["note"], PLAN);
    assert_eq!(plan["dry_run"], true);
    assert_eq!(plan["actions"][0]["action"], "restore");
    assert_eq!(std::fs::read_to_string(v.join(PLAN)).expect("read"), wiped);
    let done = common::json_of(crew(v).args(["undo", &wipe, "--note", PLAN, "--json"]));
    assert_eq!(
        std::fs::read(v.join(PLAN)).expect("read"),
        ORIGINAL.as_bytes(),
        "byte-exact"
    );
    let restore = done["journal"]
        .as_str()
        .expect("the restore's run")
        .to_string();
    // twice is nothing to do
    crew(v)
        .args(["undo", &wipe, "--note", PLAN])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already holds"));
    // the restore went through the gate and its journal: `crew undo` takes it back
    crew(v).args(["undo", &restore]).assert().success();
    assert_eq!(std::fs::read_to_string(v.join(PLAN)).expect("read"), wiped);
    // and again, now that the note is as the run left it
    crew(v)
        .args(["undo", &wipe, "--note", PLAN])
        .assert()
        .success();
    assert_eq!(
        std::fs::read(v.join(PLAN)).expect("read"),
        ORIGINAL.as_bytes()
    );
}

#[test]
fn a_whole_run_undoes_once_a_later_runs_change_to_its_note_is_undone() {
    let (dir, wipe, edit) = wiped_then_edited();
    let v = dir.path();
    crew(v)
        .args(["undo", &edit, "--note", PLAN])
        .assert()
        .success();
    // the later run's post-it and agent-log lines stay; they do not block
    crew(v).args(["undo", &wipe]).assert().success();
    assert_eq!(
        std::fs::read(v.join(PLAN)).expect("read"),
        ORIGINAL.as_bytes()
    );
}

#[test]
fn a_note_the_user_changed_since_needs_force_and_nothing_is_lost() {
    let (dir, wipe, edit) = wiped_then_edited();
    let v = dir.path();
    std::fs::write(v.join("Projects/other.md"), "untouched").expect("write");
    std::fs::write(v.join(PLAN), "the user typed this after").expect("write");
    crew(v)
        .args(["undo", &wipe, "--note", PLAN])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("--note"));
    // the user's own change, with no later run on the note: --force is offered
    crew(v)
        .args(["undo", &edit, "--note", PLAN])
        .assert()
        .code(1)
        .stderr(predicate::str::contains("has been changed since this run"))
        .stderr(predicate::str::contains("`--force` restores it anyway"));
    let out = common::json_of(crew(v).args(["undo", &wipe, "--note", PLAN, "--force", "--json"]));
    assert_eq!(
        std::fs::read(v.join(PLAN)).expect("read"),
        ORIGINAL.as_bytes()
    );
    let restore = out["journal"].as_str().expect("run").to_string();
    crew(v).args(["undo", &restore]).assert().success();
    assert_eq!(
        std::fs::read_to_string(v.join(PLAN)).expect("read"),
        "the user typed this after"
    );
    assert_eq!(
        std::fs::read_to_string(v.join("Projects/other.md")).expect("read"),
        "untouched"
    );
    crew(v)
        .args(["undo", &wipe, "--note", "Projects/other.md"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("did not change Projects/other.md"));
}
