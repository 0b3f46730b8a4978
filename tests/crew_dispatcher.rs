//! An installed crew's dispatcher file (`CLAUDE.md`, `AGENTS.md`, …) and its registry's
//! `Input` column take part in routing: phrases that live only there route right.

mod common;

use std::path::{Path, PathBuf};

use assert_fs::TempDir;
use assert_fs::prelude::*;
use crew::crew::Crew;
use crew::dispatch::Router;

fn anchor_fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault")
}

/// A copy of the anchor snapshot, its dispatcher file renamed (or dropped with `None`) and its
/// `.claude` folder renamed to `crew_dir`.
fn anchor_copy(dispatcher_as: Option<&str>, crew_dir: &str) -> TempDir {
    let tmp = TempDir::new().expect("tmp");
    for e in walkdir::WalkDir::new(anchor_fixture())
        .into_iter()
        .flatten()
    {
        if !e.file_type().is_file() {
            continue;
        }
        let rel = e
            .path()
            .strip_prefix(anchor_fixture())
            .expect("under fixture")
            .to_string_lossy()
            .replace('\\', "/");
        let rel = match rel.as_str() {
            "CLAUDE.md" => match dispatcher_as {
                Some(name) => name.to_string(),
                None => continue,
            },
            r => r.replacen(".claude/", &format!("{crew_dir}/"), 1),
        };
        tmp.child(&rel)
            .write_binary(&std::fs::read(e.path()).expect("read"))
            .expect("copy");
    }
    tmp
}

/// Phrases of the public corpus the crew at `vault` routes wrong.
fn misroutes(vault: &Path) -> Option<Vec<String>> {
    let shared = common::shared()?;
    let text =
        std::fs::read_to_string(shared.join("corpora/routing-cases.tsv")).expect("routing cases");
    let crew = Crew::load(vault, None).expect("crew");
    let router = Router::new(&crew);
    let mut wrong = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let r = router.route(&crew, f[3], &[], None);
        if (r.kind.as_str(), r.name.as_str()) != (f[1], f[2]) {
            wrong.push(format!("{:?} → {} (want {})", f[3], r.name, f[2]));
        }
    }
    Some(wrong)
}

#[test]
fn the_snapshot_reads_its_dispatcher() {
    let crew = Crew::load(&anchor_fixture(), None).expect("crew");
    let file = crew.dispatcher_file.clone().expect("a dispatcher file");
    assert!(file.ends_with("CLAUDE.md"), "{file}");
    let scribe = crew.agent("scribe").expect("scribe");
    // in the snapshot these live in CLAUDE.md only, as in an installed vault
    for p in ["take note", "I have a thought", "evening gratitude"] {
        assert!(scribe.triggers.iter().any(|t| t == p), "{p} missing");
    }
    let warnings: Vec<_> = crew.diagnostics.iter().collect();
    assert!(warnings.is_empty(), "{warnings:?}");
}

#[test]
fn public_phrases_need_the_dispatcher_and_all_route_with_it() {
    let without = anchor_copy(None, ".claude");
    let Some(lost) = misroutes(without.path()) else {
        common::skipped("../shared is absent, so the dispatcher corpus check did not run");
        return;
    };
    eprintln!(
        "without the dispatcher file: {} of 513 misrouted\n{}",
        lost.len(),
        lost.join("\n")
    );
    // the snapshot is faithful: the agents' own files do not carry every phrase, and the
    // scorer's guesses do not make up for all of them
    assert!(
        !lost.is_empty(),
        "every phrase routed without the dispatcher"
    );
    let with = misroutes(&anchor_fixture()).expect("shared present");
    assert!(with.is_empty(), "with CLAUDE.md: {with:#?}");
}

#[test]
fn other_hosts_dispatcher_files_count_too() {
    for (file, dir) in [
        ("AGENTS.md", ".codex"),
        ("GEMINI.md", ".gemini"),
        ("DISPATCHER.md", ".claude"),
    ] {
        let v = anchor_copy(Some(file), dir);
        for (msg, want) in [
            ("take note: buy stamps", "scribe"),
            ("evening triage", "sorter"),
            ("calendar search for the dentist", "postman"),
            ("fix the structure", "architect"),
        ] {
            let r = common::json_of(common::crew(v.path()).args(["route", "--json", msg]));
            assert_eq!(r["name"], want, "{file} in {dir}: {msg}");
        }
    }
}

#[test]
fn a_dispatcher_naming_an_unknown_agent_warns_and_still_loads() {
    let v = anchor_copy(None, ".claude");
    v.child("CLAUDE.md")
        .write_str("# Dispatcher\n\n## 1. GHOST (agent)\n\nTriggers: \"haunt the vault\"\n")
        .expect("write");
    let crew = Crew::load(v.path(), None).expect("crew");
    assert!(!crew.has_errors());
    let w: Vec<_> = crew.diagnostics.iter().map(|d| d.to_string()).collect();
    assert!(
        w.iter()
            .any(|d| d.contains("CLAUDE.md:5") && d.contains("ghost")),
        "{w:?}"
    );
}

const TAX_AGENT: &str = "---\nname: tax-helper\ndescription: Keeps the yearly paperwork in order.\ntools: Read, Glob, Grep, Write\nmodel: sonnet\n---\nBody.\n";

fn with_custom_agent(input: &str) -> TempDir {
    let v = anchor_copy(Some("CLAUDE.md"), ".claude");
    v.child(".claude/agents/tax-helper.md")
        .write_str(TAX_AGENT)
        .expect("agent");
    let reg_path = v.child(".claude/references/agents-registry.md");
    let reg = std::fs::read_to_string(reg_path.path()).expect("registry");
    let reg = reg.replace(
        "<!-- MBIFC:CUSTOM_AGENTS_END -->",
        &format!(
            "| tax-helper | taxes | Read, Glob, Grep, Write | {input} | notes | active |\n<!-- MBIFC:CUSTOM_AGENTS_END -->"
        ),
    );
    reg_path.write_str(&reg).expect("registry");
    v
}

#[test]
fn a_custom_agent_is_routed_by_its_registry_input() {
    let v = with_custom_agent("receipts, deductions, \"prepare my tax return\"");
    let crew = Crew::load(v.path(), None).expect("crew");
    assert!(!crew.has_errors(), "{:?}", crew.diagnostics);
    let router = Router::new(&crew);
    let r = router.route(&crew, "can you prepare my tax return?", &[], None);
    assert_eq!(r.name, "tax-helper", "{}", r.reason);
    let r = router.route(&crew, "deductions and receipts from 2025", &[], None);
    assert_eq!(r.name, "tax-helper", "{}", r.reason);
    // a core agent's trigger still wins over a custom agent's input
    let r = router.route(&crew, "take note: receipts are in the drawer", &[], None);
    assert_eq!(r.name, "scribe", "{}", r.reason);
    // the same crew without the input column's words has no reason to pick it
    let plain = with_custom_agent("requests");
    let crew = Crew::load(plain.path(), None).expect("crew");
    let r = Router::new(&crew).route(&crew, "deductions and receipts from 2025", &[], None);
    assert_ne!(r.name, "tax-helper", "{}", r.reason);
}
