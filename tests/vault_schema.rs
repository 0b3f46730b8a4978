//! The audit holds a vault to its own schema: in a vault crew adopted (or never installed
//! into), a key is missing only where the vault's own notes of that kind carry it; a vault
//! crew laid out keeps crew's required keys.

mod common;

use common::{crew, crew_bare, json_of, vault_of};

/// A tidy vault of its owner's making: recipes with their own keys (one lacks `servings`),
/// journal pages without frontmatter, linked to each other by Markdown links only.
fn tidy() -> Vec<(String, String)> {
    let mut files = Vec::new();
    for i in 0..6 {
        let servings = if i == 5 { "" } else { "servings: 2\n" };
        files.push((
            format!("Recipes/Dish {i}.md"),
            format!(
                "---\ncuisine: thai\n{servings}---\n# Dish {i}\n\nGoes with [[Dish {}]].\n",
                (i + 1) % 6
            ),
        ));
    }
    for i in 0..5 {
        files.push((
            format!("Journal/Page {i}.md"),
            format!(
                "Written by hand. Next: [page](Page%20{}.md).\n",
                (i + 1) % 5
            ),
        ));
    }
    files
}

fn maintain(v: &std::path::Path) -> (serde_json::Value, i32) {
    let out = crew(v)
        .args(["--json", "maintain", "--fix"])
        .output()
        .expect("run");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    (j, out.status.code().unwrap_or(-1))
}

#[test]
fn an_adopted_vault_is_held_to_its_own_keys_and_a_tidy_one_is_healthy() {
    let v = vault_of(&tidy());
    crew_bare()
        .args(["init", "--adopt"])
        .arg(v.path())
        .assert()
        .success();
    let (j, code) = maintain(v.path());
    assert_eq!(j["verdict"], "healthy", "{j}");
    assert_eq!(code, 0, "{j}");
    let counts = &j["counts"];
    // only the recipe without the key four of five others carry; never crew's type/date/status
    assert_eq!(counts["missing_keys"], 1, "{j}");
    // journal pages never had frontmatter: that is the vault's way, not a fault
    assert_eq!(counts["without_frontmatter"], 0, "{j}");
    // pages linked only by Markdown links are not orphans
    assert_eq!(counts["orphans"], 0, "{j}");
    assert!(j["health_score"].as_u64().expect("score") >= 95, "{j}");
    let report = std::fs::read_to_string(
        v.path()
            .join(j["report_note"].as_str().expect("report note")),
    )
    .expect("report");
    assert!(report.contains("`Recipes/Dish 5.md`: servings"), "{report}");
    assert!(!report.contains(": type, date"), "{report}");
    // the quick check's consistency lists say the same
    let q = json_of(crew(v.path()).args(["ask", "--json", "check consistency"]));
    let out = q["chain"][0]["output"].as_str().unwrap_or("");
    assert!(out.contains("Recipes/Dish 5.md: servings"), "{out}");
    assert!(!out.contains("Journal/Page 0.md"), "{out}");
}

#[test]
fn a_vault_crew_laid_out_keeps_crews_required_keys() {
    let mut files = tidy();
    files.push((".crew/config.yaml".into(), "max_depth: 3\n".into()));
    let v = vault_of(&files);
    let (j, code) = maintain(v.path());
    assert_eq!(code, 1, "{j}");
    assert_eq!(j["counts"]["missing_keys"], 6, "{j}");
    assert_eq!(j["counts"]["without_frontmatter"], 5, "{j}");
    assert_eq!(j["verdict"], "needs attention", "{j}");
}

#[test]
fn a_kind_without_a_convention_reports_nothing_and_a_breach_of_one_does() {
    // a `type` is a kind across folders: 5 of 6 books carry `author`
    let mut files: Vec<(String, String)> = (0..6)
        .map(|i| {
            let author = if i == 0 { "" } else { "author: someone\n" };
            (
                format!("Shelf {}/Book {i}.md", i % 3),
                format!("---\ntype: book\n{author}---\n[[Book {}]]\n", (i + 1) % 6),
            )
        })
        .collect();
    // notes in a folder of two, one with frontmatter: no convention to break
    files.push(("Loose/a.md".into(), "---\nmood: ok\n---\n[[b]]\n".into()));
    files.push(("Loose/b.md".into(), "[[a]]\n".into()));
    let v = vault_of(&files);
    let (j, code) = maintain(v.path());
    assert_eq!(code, 0, "{j}");
    assert_eq!(j["counts"]["missing_keys"], 1, "{j}");
    assert_eq!(j["counts"]["without_frontmatter"], 0, "{j}");
    let report = std::fs::read_to_string(
        v.path()
            .join(j["report_note"].as_str().expect("report note")),
    )
    .expect("report");
    assert!(report.contains("`Shelf 0/Book 0.md`: author"), "{report}");
}

/// A vault written in Markdown links is judged by them: each counts as a link, a broken one is
/// reported as written (a Markdown link, with the note its file name names as a proposal), and
/// the nightly fix, which rewrites wikilinks only, leaves it.
#[test]
fn markdown_links_count_and_a_broken_one_is_a_proposal() {
    let mut files = tidy();
    files.push((
        "Journal/Moved.md".into(),
        "See [the dish](../Recipes/Old/Dish%201.md) and [page](Page%200.md).\n".into(),
    ));
    let v = vault_of(&files);
    crew_bare()
        .args(["init", "--adopt"])
        .arg(v.path())
        .assert()
        .success();
    let before = std::fs::read(v.path().join("Journal/Moved.md")).expect("read");
    let (j, _) = maintain(v.path());
    let counts = &j["counts"];
    // six wikilinks, five Markdown links between pages, two in the new note
    assert_eq!(counts["links"], 13, "{j}");
    assert_eq!(counts["broken_links"], 1, "{j}");
    assert_eq!(counts["broken_with_safe_fix"], 0, "{j}");
    let report = std::fs::read_to_string(
        v.path()
            .join(j["report_note"].as_str().expect("report note")),
    )
    .expect("report");
    assert!(
        report
            .contains("`(../Recipes/Old/Dish 1.md)` in `Journal/Moved.md` → perhaps `[[Dish 1]]`"),
        "{report}"
    );
    assert_eq!(
        before,
        std::fs::read(v.path().join("Journal/Moved.md")).expect("read"),
        "the fix leaves a Markdown link"
    );
}
