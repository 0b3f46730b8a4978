//! `crew agents new` in a crew the anchor installed for Claude Code (`.claude/`): the agent file
//! is written in the host's own format, like the snapshot's agent files, and the registry and
//! the agents directory get their entries, as the anchor's create-agent skill does.

mod common;

use std::path::Path;

use assert_fs::TempDir;
use crew::crew::registry::{CUSTOM_END, CUSTOM_START, Status};
use crew::crew::{Crew, Kind};
use crew::dispatch::Router;

fn anchor_copy() -> TempDir {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault");
    let v = TempDir::new().expect("tmp");
    for e in walkdir::WalkDir::new(&src).into_iter().flatten() {
        let rel = e.path().strip_prefix(&src).expect("under");
        let to = v.path().join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(e.path(), &to).expect("copy");
        }
    }
    std::fs::create_dir_all(v.path().join(".obsidian")).expect("mkdir");
    v
}

/// The frontmatter keys of a definition file, in order.
fn keys(text: &str) -> Vec<String> {
    let body = text.strip_prefix("---\n").expect("frontmatter");
    let end = body.find("\n---").expect("closing fence");
    body[..end]
        .lines()
        .filter(|l| !l.starts_with(' ') && l.contains(':'))
        .map(|l| l.split(':').next().unwrap_or("").to_string())
        .collect()
}

#[test]
fn a_new_agent_is_written_for_the_host_and_registered_like_the_anchor_does() {
    let v = anchor_copy();
    let out = common::json_of(common::crew(v.path()).args([
        "agents",
        "new",
        "tax-helper",
        "--json",
        "--description",
        "Keeps the yearly tax paperwork in order",
        "--triggers",
        "prepare my tax return, where are my receipts for taxes, tax deadline",
        "--capabilities",
        "read,write",
    ]));
    assert_eq!(out["dry_run"], false);

    // the file has the host's keys, in the order the snapshot's agents have them
    let file =
        std::fs::read_to_string(v.path().join(".claude/agents/tax-helper.md")).expect("file");
    let scribe =
        std::fs::read_to_string(v.path().join(".claude/agents/scribe.md")).expect("snapshot");
    assert_eq!(keys(&file), keys(&scribe), "{file}");
    assert_eq!(keys(&file), ["name", "description", "tools", "model"]);
    assert!(
        file.contains("\ntools: Read, Glob, Grep, Write\n"),
        "{file}"
    );
    assert!(file.contains("\nmodel: sonnet\n"), "{file}");
    assert!(
        file.contains("\"prepare my tax return\""),
        "triggers are quoted in the description: {file}"
    );
    for crew_only in ["capabilities:", "triggers:", "model: mid"] {
        assert!(!file.contains(crew_only), "{crew_only} in {file}");
    }

    // crew reads it back as the host does: same triggers, capabilities and tier, no warnings
    let crew = Crew::load(v.path(), None).expect("crew");
    assert!(crew.diagnostics.is_empty(), "{:?}", crew.diagnostics);
    let def = crew.agent("tax-helper").expect("loaded");
    assert_eq!(
        def.triggers,
        [
            "prepare my tax return",
            "where are my receipts for taxes",
            "tax deadline"
        ]
    );
    assert_eq!(def.capabilities, ["read", "write"]);
    assert_eq!(def.model.label(), "mid");
    assert!(crew.agent_active("tax-helper"));
    assert!(crew.writes(Kind::Agent, "tax-helper"));

    // registry: a custom row between the markers, tools as capabilities, triggers as input
    let reg = std::fs::read_to_string(v.path().join(".claude/references/agents-registry.md"))
        .expect("registry");
    let (start, end) = (
        reg.find(CUSTOM_START).expect("start"),
        reg.find(CUSTOM_END).expect("end"),
    );
    let at = reg.find("| tax-helper |").expect("row");
    assert!(start < at && at < end, "{reg}");
    let row = crew
        .registry
        .agents
        .iter()
        .find(|r| r.name == "tax-helper")
        .expect("row parsed");
    assert!(row.custom && row.status == Status::Active);
    assert_eq!(row.capabilities, "Read, Glob, Grep, Write");
    assert!(row.input.contains("\"tax deadline\""), "{}", row.input);

    // directory: its section between the markers
    let dir =
        std::fs::read_to_string(v.path().join(".claude/references/agents.md")).expect("directory");
    let (start, end) = (
        dir.find(CUSTOM_START).expect("start"),
        dir.find(CUSTOM_END).expect("end"),
    );
    let at = dir.find("### tax-helper").expect("section");
    assert!(start < at && at < end, "{dir}");
    assert!(dir.contains("Keeps the yearly tax paperwork in order"));

    // it routes, and the core crew still does
    let router = Router::new(&crew);
    let r = router.route(&crew, "could you prepare my tax return", &[], None);
    assert_eq!(r.name, "tax-helper", "{}", r.reason);
    let r = router.route(&crew, "take note: buy stamps", &[], None);
    assert_eq!(r.name, "scribe");

    // the lifecycle keeps working on the host's files
    common::crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .success();
    common::crew(v.path())
        .args(["agents", "remove", "tax-helper"])
        .assert()
        .success();
    let crew = Crew::load(v.path(), None).expect("crew");
    assert!(!crew.has_errors(), "{:?}", crew.diagnostics);
    assert!(!crew.agent_active("tax-helper"));
}

#[test]
fn a_model_the_host_cannot_run_is_refused_and_nothing_is_written() {
    let v = anchor_copy();
    let before = common::snapshot(v.path());
    let out = common::crew(v.path())
        .args(["agents", "new", "mailer", "--model", "gpt-4.1"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("Claude Code") && err.contains("gpt-4.1"),
        "{err}"
    );
    assert_eq!(common::snapshot(v.path()), before);
}

#[test]
fn crews_own_layout_keeps_crews_format() {
    let v = common::sample_vault();
    common::crew(v.path())
        .args([
            "agents",
            "new",
            "tax-helper",
            "--triggers",
            "prepare my tax return",
        ])
        .assert()
        .success();
    let file = std::fs::read_to_string(v.path().join(".crew/agents/tax-helper.md")).expect("file");
    assert!(
        file.contains("\ntriggers:\n") && file.contains("\nmodel: mid\n"),
        "{file}"
    );
}

/// A `crew agents new` killed after its file and directory section but before its registry
/// row (the last write): validate names the half-made agent and what to do, and the same
/// command finishes it without a second directory section; once more, it has nothing to do.
#[test]
fn a_half_made_agent_is_named_by_validate_and_finished_by_the_same_command() {
    let v = anchor_copy();
    let reg_path = v.path().join(".claude/references/agents-registry.md");
    let registry_before = std::fs::read(&reg_path).expect("registry");
    let args = [
        "agents",
        "new",
        "tax-helper",
        "--description",
        "Keeps the yearly tax paperwork in order",
        "--triggers",
        "prepare my tax return",
    ];
    common::crew(v.path()).args(args).assert().success();
    let whole = common::snapshot(v.path());
    // the state a kill before the last write leaves: the row is missing
    std::fs::write(&reg_path, &registry_before).expect("registry");
    let out = common::crew(v.path())
        .args(["agents", "validate"])
        .output()
        .expect("validate");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(".claude/agents/tax-helper.md:")
            && text.contains("run `crew agents new tax-helper` again"),
        "{text}"
    );
    let out = common::crew(v.path()).args(args).output().expect("retry");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("interrupted"),
        "{out:?}"
    );
    assert_eq!(
        common::snapshot(v.path()),
        whole,
        "the retry ends where an uninterrupted run ends, with one directory section"
    );
    common::crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .success();
    let again = common::json_of(common::crew(v.path()).args(args).arg("--json"));
    assert_eq!(again["unchanged"], true, "{again}");
    assert_eq!(common::snapshot(v.path()), whole);
}
