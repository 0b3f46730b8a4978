//! Fixes that keep meaning (issue #33): the nightly fix (`crew maintain --fix`) points a broken
//! link at another note only when case, accents or Unicode form differ, or when the target is
//! one of that note's aliases, and the link keeps the text it showed. A dropped space or hyphen
//! or other words is a proposal in the report, never a change. The report's "N with a safe
//! fix" is the number of links `--fix` then changes.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{crew, json_of, snapshot, vault};
use crew::vault::Note;
use predicates::prelude::*;

/// The notes of a vault that are the user's (crew's state and its own notes left out).
fn user_notes(v: &Path) -> BTreeMap<String, String> {
    snapshot(v)
        .into_iter()
        .filter(|(p, _)| p.ends_with(".md") && !p.starts_with(".crew/") && !p.starts_with("Meta/"))
        .map(|(p, b)| (p, String::from_utf8_lossy(&b).into_owned()))
        .collect()
}

/// How many wikilinks differ between two versions of the vault's notes, link by link.
fn links_changed(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> usize {
    let links = |text: &str| -> Vec<String> {
        let note = Note::parse_text("n.md", text);
        note.wikilinks
            .iter()
            .map(|l| text[l.span.clone()].to_string())
            .collect()
    };
    before
        .iter()
        .map(|(path, old)| {
            let new = after.get(path).map(String::as_str).unwrap_or_default();
            let (old, new) = (links(old), links(new));
            assert_eq!(old.len(), new.len(), "{path}: a fix adds or drops no link");
            old.iter().zip(&new).filter(|(o, n)| o != n).count()
        })
        .sum()
}

fn read(v: &Path, p: &str) -> String {
    std::fs::read_to_string(v.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// The audit's figures without fixing: `counts` of `crew --json maintain`.
fn counts(v: &Path) -> serde_json::Value {
    json_of(crew(v).args(["--json", "maintain"]))["counts"].clone()
}

fn fix(v: &Path) {
    crew(v)
        .args(["maintain", "--fix"])
        .assert()
        .code(predicate::in_iter([0, 1]));
}

/// The three links of the issue: a dropped space, a hyphen and other words.
fn issue_vault() -> assert_fs::TempDir {
    vault(&[
        ("People/MichaBrugger.md", "# Micha\n"),
        ("Tools/RStudio.md", "# The IDE\n"),
        ("Code/C String.md", "# C strings\n"),
        (
            "Notes/Recovery.md",
            "Talked to [[Micha Brugger]] about [[r-studio]], the recovery tool.\n",
        ),
        ("Notes/Cpp.md", "See [[C++ string]].\n"),
    ])
}

#[test]
fn spaces_hyphens_and_other_words_are_proposed_never_changed() {
    let dir = issue_vault();
    let v = dir.path();
    let before = user_notes(v);
    let c = counts(v);
    assert_eq!(c["broken_links"], 3, "{c}");
    assert_eq!(c["broken_with_safe_fix"], 0, "{c}");
    assert_eq!(c["broken_with_proposal"], 3, "{c}");
    fix(v);
    assert_eq!(before, user_notes(v), "--fix changes none of them");
    let report = json_of(crew(v).args(["--json", "maintain", "--report"]))["report"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(report.contains("(0 with a safe fix)"), "{report}");
    let today = chrono::Local::now().format("%Y-%m-%d");
    let note = read(v, &format!("Meta/health-reports/{today} — Vault Health.md"));
    for (link, proposed) in [
        ("[[Micha Brugger]]", "[[MichaBrugger]]"),
        ("[[r-studio]]", "[[RStudio]]"),
        ("[[C++ string]]", "[[C String]]"),
    ] {
        let line = note
            .lines()
            .find(|l| l.contains(link))
            .unwrap_or_else(|| panic!("{link} not reported:\n{note}"));
        assert!(
            line.contains(&format!("perhaps `{proposed}` (a proposal")),
            "{line}"
        );
    }
}

#[test]
fn case_accents_and_aliases_are_fixed_keeping_the_text_shown() {
    let dir = vault(&[
        ("Places/Zürich.md", "# Zürich\n"),
        (
            "People/Micha Brugger.md",
            "---\naliases: [Micha]\n---\n# Micha\n",
        ),
        (
            "Journal/Trip.md",
            "In [[zurich]] with [[Micha]] and [[micha|him]] again.\n\n\
            |who|where|\n|-|-|\n|[[Micha]]|[[ZURICH#Old town]]|\n",
        ),
        ("Journal/Photo.md", "![[zurich]]\n"),
        ("Journal/Face.md", "![[Micha]]\n"),
    ]);
    let v = dir.path();
    let before = user_notes(v);
    let safe = counts(v)["broken_with_safe_fix"].as_u64();
    fix(v);
    let after = user_notes(v);
    assert_eq!(
        read(v, "Journal/Trip.md"),
        "In [[Zürich|zurich]] with [[Micha Brugger|Micha]] and [[Micha Brugger|him]] again.\n\n\
        |who|where|\n|-|-|\n|[[Micha Brugger\\|Micha]]|[[Zürich#Old town\\|ZURICH > Old town]]|\n"
    );
    assert_eq!(
        read(v, "Journal/Photo.md"),
        "![[Zürich]]\n",
        "an embed shows the note"
    );
    // embedding a whole other note by its alias is only proposed
    assert_eq!(read(v, "Journal/Face.md"), "![[Micha]]\n");
    let changed = links_changed(&before, &after);
    assert_eq!(changed, 6);
    assert_eq!(
        safe,
        Some(changed as u64),
        "the report's count is what --fix did"
    );
    let left = counts(v);
    assert_eq!(left["broken_links"], 1, "{left}");
    assert_eq!(left["broken_with_proposal"], 1, "{left}");
}

#[test]
fn the_safe_fix_count_matches_the_fix_on_a_mixed_vault() {
    let dir = vault(&[
        ("Places/Zürich.md", ""),
        ("Places/Genève.md", "---\naliases: [Geneva]\n---\n"),
        ("People/MichaBrugger.md", ""),
        ("Tools/RStudio.md", ""),
        (
            "a.md",
            "[[zurich]] [[Micha Brugger]] [[geneve]] [[Geneva]] [[nowhere]]\n",
        ),
        ("b.md", "[[r-studio]] [[ZURICH]] [[zurich]]\n"),
        ("Templates/t.md", "[[zurich]]\n"),
    ]);
    let v = dir.path();
    let before = user_notes(v);
    let c = counts(v);
    fix(v);
    let changed = links_changed(&before, &user_notes(v));
    assert_eq!(
        c["broken_with_safe_fix"].as_u64(),
        Some(changed as u64),
        "{c}"
    );
    assert_eq!(changed, 5);
    assert_eq!(c["broken_with_proposal"], 2, "{c}");
}
