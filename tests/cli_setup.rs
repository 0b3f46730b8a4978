//! `crew init`, `crew agents …`, `crew skills …`, `crew doctor`: the crew definition from the
//! command line.

mod common;

use common::{crew, crew_bare, json_of, vault};
use predicates::prelude::*;

/// `--adopt` installs into a vault that exists: a missing path is an error naming it (exit 2),
/// and no folder is made, dry run or not. A plain `crew init` makes a new vault on purpose,
/// so it creates the folder, and missing folders above it.
#[test]
fn init_adopt_never_creates_the_vault_folder() {
    let dir = assert_fs::TempDir::new().expect("tmp");
    let missing = dir.path().join("no such vault");
    for extra in [None, Some("--dry-run")] {
        let mut c = crew_bare();
        c.args(["init", "--adopt", "--vault"]).arg(&missing);
        c.args(extra);
        c.assert().code(2).stderr(
            predicate::str::contains(missing.display().to_string())
                .and(predicate::str::contains("does not exist")),
        );
        let mut c = crew_bare();
        c.args(["init", "--adopt"]).arg(&missing).args(extra);
        c.assert().code(2);
    }
    assert!(!missing.exists(), "--adopt made the folder");
    let file = dir.path().join("a file");
    std::fs::write(&file, "x").expect("write");
    crew_bare()
        .args(["init", "--adopt"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a file"));
    crew_bare()
        .arg("init")
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a file"));
    let fresh = dir.path().join("new/deeper");
    crew_bare().arg("init").arg(&fresh).assert().success();
    assert!(fresh.join(".crew/config.yaml").is_file());
}

#[test]
fn init_then_stats_and_validate() {
    let dir = assert_fs::TempDir::new().expect("tmp");
    crew_bare().arg("init").arg(dir.path()).assert().success();
    for p in [
        "00-Inbox",
        "01-Projects",
        "02-Areas",
        "MOC/Index.md",
        "Meta/vault-structure.md",
        "Meta/states",
        ".crew/agents/sorter.md",
        ".crew/skills/inbox-triage/SKILL.md",
        ".crew/references/agents-registry.md",
        ".crew/config.yaml",
        "Templates/Meeting.md",
    ] {
        assert!(dir.path().join(p).exists(), "{p} missing");
    }
    let welcome = std::fs::read_to_string(dir.path().join("00-Inbox/Welcome to your vault.md"))
        .expect("welcome");
    assert!(
        !welcome.contains("{{date}}"),
        "the template date is filled in"
    );
    let s = json_of(crew(dir.path()).args(["vault", "stats", "--json"]));
    assert!(s["notes"].as_i64().unwrap_or(0) >= 10);
    crew(dir.path())
        .args(["agents", "validate"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "valid: 8 agents, 14 skills, 0 error(s)",
        ));
}

#[test]
fn init_refuses_a_folder_with_notes_and_adopt_moves_nothing() {
    let v = vault(&[
        ("06 - Inbox/a.md", "x"),
        ("Projects/P/b.md", "y"),
        ("Daily Notes/2026-01-01.md", "z"),
    ]);
    crew_bare()
        .arg("init")
        .arg(v.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--adopt"));
    let before = common::snapshot(v.path());
    crew_bare()
        .arg("init")
        .arg("--adopt")
        .arg(v.path())
        .assert()
        .success()
        .stdout(predicate::str::contains("06 - Inbox"));
    let after = common::snapshot(v.path());
    for (k, bytes) in &before {
        assert_eq!(after.get(k), Some(bytes), "{k} changed");
    }
    let config = std::fs::read_to_string(v.path().join(".crew/config.yaml")).expect("config");
    assert!(config.contains("inbox: 06 - Inbox"), "{config}");
    assert!(config.contains("daily: Daily Notes"), "{config}");
    // the adopted inbox is the one triage reads
    let out = json_of(crew(v.path()).args(["ask", "--json", "--dry-run", "file my notes"]));
    assert!(
        out["chain"][0]["output"]
            .as_str()
            .unwrap_or("")
            .contains("a — "),
        "{out}"
    );
}

#[test]
fn init_never_overwrites_a_note() {
    let v = vault(&[("MOC/Index.md", "my own index")]);
    crew_bare()
        .arg("init")
        .arg("--adopt")
        .arg(v.path())
        .assert()
        .success();
    // a plain init over a vault refuses: it would scaffold beside the vault's own folders
    crew_bare()
        .arg("init")
        .arg(v.path())
        .assert()
        .code(2)
        .stderr(predicates::str::contains("crew init --adopt"));
    assert!(!v.path().join("00-Inbox").exists());
    assert_eq!(
        std::fs::read_to_string(v.path().join("MOC/Index.md")).expect("index"),
        "my own index"
    );
}

#[test]
fn validate_reports_file_line_and_exit_2() {
    let v = common::adopted_vault(&[
        (
            ".crew/agents/broken.md",
            "---\nname: broken\ndescription: [unclosed\n---\n",
        ),
        (
            ".crew/agents/flyer.md",
            "---\nname: flyer\ncapabilities: [read, fly]\nmodel: mistral-7b\ncolour: red\n---\nbody",
        ),
    ]);
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("broken.md:4: error: invalid YAML"))
        .stdout(predicate::str::contains(
            "flyer.md:3: error: unknown capability `fly`",
        ))
        .stdout(predicate::str::contains(
            "flyer.md:4: error: unknown model `mistral-7b`",
        ))
        .stdout(predicate::str::contains(
            "flyer.md:5: warning: unknown key `colour`",
        ))
        .stdout(predicate::str::contains(
            "agent `flyer` has no row in the registry",
        ));
    // the work goes on with the built-in crew, loudly; the lifecycle commands refuse
    crew(v.path())
        .args(["route", "hello"])
        .assert()
        .success()
        .stderr(predicate::str::contains("crew agents validate"));
    crew(v.path())
        .args(["agents", "disable", "flyer"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("crew agents validate"));
}

#[test]
fn validate_catches_registry_problems() {
    let v = common::adopted_vault(&[]);
    let reg = v.path().join(".crew/references/agents-registry.md");
    let text = std::fs::read_to_string(&reg).expect("registry");
    let text = text.replace(
        "<!-- MBIFC:CUSTOM_AGENTS_END -->",
        "| ghost | g | read | x | y | active |\n| sorter | dup | read | x | y | active |\n| half | row |\n<!-- MBIFC:CUSTOM_AGENTS_END -->",
    );
    std::fs::write(&reg, text).expect("write");
    let out = crew(v.path())
        .args(["agents", "validate", "--json"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let msgs: Vec<String> = j["diagnostics"]
        .as_array()
        .expect("list")
        .iter()
        .map(|d| d["message"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        msgs.iter()
            .any(|m| m.contains("`ghost` is active but agents/ghost.md does not exist")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.contains("custom agent `sorter` uses a core agent's name")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter().any(|m| m.contains("cells but the table has")),
        "{msgs:?}"
    );
}

#[test]
fn bad_default_route_is_an_error() {
    let v = common::adopted_vault(&[]);
    let cfg = v.path().join(".crew/config.yaml");
    let text = std::fs::read_to_string(&cfg)
        .expect("config")
        .replace("default_route: seeker", "default_route: nobody");
    std::fs::write(&cfg, text).expect("write");
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("default_route `nobody`"));
}

#[test]
fn custom_agent_lifecycle() {
    let v = common::adopted_vault(&[]);
    crew(v.path())
        .args(["agents", "new", "Tax"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("lowercase"));
    crew(v.path())
        .args(["agents", "new", "sorter"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("core agent"));
    crew(v.path())
        .args([
            "agents",
            "new",
            "tax-helper",
            "--description",
            "Keeps tax papers in order",
            "--triggers",
            "tax papers,my taxes",
        ])
        .assert()
        .success();
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .success();
    let reg = std::fs::read_to_string(v.path().join(".crew/references/agents-registry.md"))
        .expect("registry");
    let start = reg.find("CUSTOM_AGENTS_START").expect("start");
    let end = reg.find("CUSTOM_AGENTS_END").expect("end");
    assert!(
        reg[start..end].contains("| tax-helper |"),
        "row between the markers"
    );
    let r = json_of(crew(v.path()).args(["route", "--json", "sort out my taxes"]));
    assert_eq!(r["name"], "tax-helper");
    crew(v.path())
        .args(["agents", "disable", "tax-helper"])
        .assert()
        .success();
    let r = json_of(crew(v.path()).args(["route", "--json", "sort out my taxes"]));
    assert_ne!(r["name"], "tax-helper", "disabled agents are never chosen");
    crew(v.path())
        .args(["agents", "enable", "tax-helper"])
        .assert()
        .success();
    crew(v.path())
        .args(["agents", "remove", "tax-helper"])
        .assert()
        .success();
    assert!(!v.path().join(".crew/agents/tax-helper.md").exists());
    assert!(
        v.path().join(".crew/removed/tax-helper.md").exists(),
        "the file is set aside, not deleted"
    );
    let reg = std::fs::read_to_string(v.path().join(".crew/references/agents-registry.md"))
        .expect("registry");
    assert!(
        reg.contains("| tax-helper |") && reg.contains("| disabled |"),
        "row kept as disabled"
    );
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .success();
    crew(v.path())
        .args(["agents", "remove", "librarian"])
        .assert()
        .code(2);
}

/// A custom agent's example requests go into its file, and the router learns it from them:
/// requests worded like none of its triggers still reach it.
#[test]
fn agents_new_examples_teach_the_router() {
    let v = common::adopted_vault(&[]);
    crew(v.path())
        .args([
            "agents",
            "new",
            "workout-log",
            "--description",
            "Keeps a log of the user's workouts and training",
            "--triggers",
            "log my workout,training log",
            "--example",
            "I ran 8 km this morning in 42 minutes, add it to my training log",
            "--example",
            "how many push-ups did I do last week?",
            "--example",
            "ho fatto 40 minuti di bici oggi, segnalo",
        ])
        .assert()
        .success();
    let file = std::fs::read_to_string(v.path().join(".crew/agents/workout-log.md")).expect("file");
    assert!(
        file.contains(
            "examples:\n  - \"I ran 8 km this morning in 42 minutes, add it to my training log\"\n"
        ),
        "{file}"
    );
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .success();
    for message in [
        "did 10 km on the bike in 35 minutes today, write it down in my log",
        "oggi 5 km di corsa, segnalo nel registro",
    ] {
        let r = json_of(crew(v.path()).args(["route", "--json", message]));
        assert_eq!(r["name"], "workout-log", "{message}: {r}");
    }
}

/// An agent file the registry does not list is kept byte for byte: `crew agents new` registers
/// a loadable one by its own words, and refuses one that does not load, naming it.
#[test]
fn agents_new_keeps_an_unregistered_file_as_it_is() {
    let v = common::adopted_vault(&[]);
    let mine = "---\nname: helper\ndescription: Answers about my garden\ncapabilities: [read]\nmodel: low\ntriggers:\n  - \"garden question\"\n---\n# helper\n\nMy own words.\n";
    let path = v.path().join(".crew/agents/helper.md");
    std::fs::write(&path, mine).expect("write");
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "run `crew agents new helper` again",
        ));
    crew(v.path())
        .args(["agents", "new", "helper", "--description", "something else"])
        .assert()
        .success()
        .stdout(predicate::str::contains("kept as it is"));
    assert_eq!(std::fs::read_to_string(&path).expect("read"), mine);
    let reg = std::fs::read_to_string(v.path().join(".crew/references/agents-registry.md"))
        .expect("registry");
    assert!(
        reg.contains("| helper | Answers about my garden |"),
        "the row follows the file: {reg}"
    );
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .success();
    // a file that does not load is left alone and named
    let broken = v.path().join(".crew/agents/odd.md");
    std::fs::write(&broken, "no frontmatter here\n").expect("write");
    crew(v.path())
        .args(["agents", "new", "odd"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(".crew/agents/odd.md:1"));
    assert_eq!(
        std::fs::read_to_string(&broken).expect("read"),
        "no frontmatter here\n"
    );
    assert!(!v.path().join(".crew/agents/odd 2.md").exists());
}

#[test]
fn builtin_crew_cannot_grow_custom_agents() {
    let v = vault(&[("a.md", "")]);
    crew(v.path())
        .args(["agents", "new", "helper"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("crew init --adopt"));
}

#[test]
fn lists_and_shows() {
    let v = vault(&[("a.md", "")]);
    crew(v.path())
        .args(["agents", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("postman").and(predicate::str::contains("librarian")));
    crew(v.path())
        .args(["skills", "list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("inbox-triage"));
    crew(v.path())
        .args(["agents", "show", "sorter"])
        .assert()
        .success()
        .stdout(predicate::str::contains("file my notes"));
    crew(v.path())
        .args(["agents", "show", "nobody"])
        .assert()
        .code(2);
    let list = json_of(crew(v.path()).args(["skills", "list", "--json"]));
    assert_eq!(list.as_array().map(Vec::len), Some(14));
}

#[test]
fn anchor_installed_vault_works_unchanged() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault");
    crew(&src).args(["agents", "validate"]).assert().success();
    let r = json_of(crew(&src).args(["route", "--json", "controlla il vault"]));
    assert_eq!(r["name"], "vault-audit");
}

#[test]
fn doctor_reports_and_needs_no_key_by_default() {
    // a vault laid out by `crew init`: every folder role has its folder
    let v = common::sample_vault();
    crew(v.path())
        .arg("doctor")
        .assert()
        .success()
        .stdout(predicate::str::contains("run natively"));
}

#[test]
fn definition_commands_have_a_dry_run_that_writes_nothing() {
    let v = common::adopted_vault(&[]);
    let before = common::snapshot(v.path());
    crew(v.path())
        .args([
            "agents",
            "new",
            "tax-helper",
            "--triggers",
            "my taxes",
            "--dry-run",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("Would create").and(predicate::str::contains("Dry run")));
    assert_eq!(
        common::snapshot(v.path()),
        before,
        "agents new --dry-run wrote"
    );
    crew(v.path())
        .args(["agents", "new", "tax-helper", "--triggers", "my taxes"])
        .assert()
        .success();
    let created = common::snapshot(v.path());
    for (args, says) in [
        (
            &["agents", "disable", "tax-helper", "--dry-run"][..],
            "would be disabled",
        ),
        (
            &["agents", "enable", "tax-helper", "--dry-run"][..],
            "would be enabled",
        ),
        (
            &["agents", "remove", "tax-helper", "--dry-run"][..],
            "would be kept at",
        ),
    ] {
        crew(v.path())
            .args(args)
            .assert()
            .success()
            .stdout(predicate::str::contains(says).and(predicate::str::contains("Dry run")));
        assert_eq!(common::snapshot(v.path()), created, "{args:?} wrote");
    }
    let r = json_of(crew(v.path()).args(["route", "--json", "sort out my taxes"]));
    assert_eq!(r["name"], "tax-helper", "still active after the dry runs");
    // a post-it to clear
    crew(v.path())
        .args(["ask", "--agent", "seeker", "where is the budget"])
        .assert()
        .success();
    let with_postit = common::snapshot(v.path());
    crew(v.path())
        .args(["state", "clear", "seeker", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Would clear"));
    assert_eq!(
        common::snapshot(v.path()),
        with_postit,
        "state clear --dry-run wrote"
    );
    crew(v.path())
        .args(["state", "clear", "seeker"])
        .assert()
        .success();
    assert_ne!(
        common::snapshot(v.path()),
        with_postit,
        "state clear changed nothing"
    );
}

#[test]
fn init_dry_run_lists_what_it_would_create_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tmp");
    let fresh = dir.path().join("New vault");
    crew_bare()
        .args(["init", "--dry-run"])
        .arg(&fresh)
        .assert()
        .success()
        .stdout(
            predicate::str::contains("+ .crew/config.yaml")
                .and(predicate::str::contains("+ 00-Inbox/"))
                .and(predicate::str::contains("Dry run")),
        );
    assert!(!fresh.exists(), "the folder was created");
    // adopting an existing vault: nothing moves, nothing is written
    let v = vault(&[("Inbox/Idea.md", "an idea"), ("Projects/A.md", "a")]);
    let before = common::snapshot(v.path());
    let out = json_of(
        crew_bare()
            .args(["--json", "init", "--adopt", "--dry-run"])
            .arg(v.path()),
    );
    assert_eq!(out["dry_run"], true);
    assert!(
        out["created"]
            .as_array()
            .is_some_and(|c| c.iter().any(|p| p == ".crew/config.yaml")),
        "{out}"
    );
    assert_eq!(
        common::snapshot(v.path()),
        before,
        "init --adopt --dry-run wrote"
    );
    assert!(!v.path().join(".crew").exists());
}
