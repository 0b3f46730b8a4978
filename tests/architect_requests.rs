//! The architect on request (issue 38): a MOC for a topic, a template by kind, a sub-folder
//! inside an existing home, the tag taxonomy, names parsed from the request, and new folders
//! in an adopted vault proposed with the command that makes them.

mod common;

use assert_fs::TempDir;
use assert_fs::prelude::*;
use common::{adopted_vault, crew, crew_bare, json_of, snapshot, vault};

fn ask(v: &std::path::Path, args: &[&str]) -> String {
    let mut all = vec!["ask", "--json"];
    all.extend_from_slice(args);
    let j = json_of(crew(v).args(&all));
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

fn read(v: &std::path::Path, p: &str) -> String {
    std::fs::read_to_string(v.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// A vault laid out by `crew init`, then `files` written into it.
fn crew_vault(files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new().expect("tmp");
    crew_bare().arg("init").arg(dir.path()).assert().success();
    for (p, t) in files {
        dir.child(p).write_str(t).expect("write");
    }
    dir
}

/// The user's files a run changed (crew's own folder, post-its and log left out).
fn changed(
    before: &std::collections::BTreeMap<String, Vec<u8>>,
    after: &std::collections::BTreeMap<String, Vec<u8>>,
) -> Vec<String> {
    after
        .keys()
        .chain(before.keys())
        .filter(|k| before.get(*k) != after.get(*k))
        .filter(|k| {
            !k.starts_with(".crew/") && !k.contains("/states/") && !k.ends_with("agent-log.md")
        })
        .cloned()
        .collect()
}

#[test]
fn a_moc_for_a_topic_lists_its_notes_and_is_never_replaced() {
    let v = vault(&[
        (
            "03-Resources/Recipes/Pasta carbonara.md",
            "eggs and pecorino\n",
        ),
        (
            "Notes/Lasagna.md",
            "---\ntags: [food/recipe]\n---\nlayers\n",
        ),
        ("Notes/Bread recipe.md", "flour, water\n"),
        ("Notes/Sunday.md", "lunch: [[Pasta carbonara]]\n"),
        ("Notes/Shopping.md", "buy what the recipes need\n"),
        ("Notes/Taxes.md", "file by June\n"),
        ("MOC/Index.md", "# Index\n"),
    ]);
    let out = ask(v.path(), &["create a MOC for Recipes"]);
    let moc = read(v.path(), "MOC/Recipes.md");
    for n in [
        "[[Pasta carbonara]]",
        "[[Lasagna]]",
        "[[Bread recipe]]",
        "[[Shopping]]",
    ] {
        assert!(moc.contains(n), "{n} missing:\n{moc}\n{out}");
    }
    assert!(!moc.contains("[[Taxes]]"), "{moc}");
    assert!(moc.starts_with("---\ntype: moc\n"), "{moc}");
    assert!(read(v.path(), "MOC/Index.md").contains("[[MOC/Recipes|Recipes]]"));
    assert!(out.contains("MOC/Recipes.md"), "{out}");
    // asked again, the MOC is left as it is and no twin is made
    let again = ask(
        v.path(),
        &["--agent", "architect", "create a MOC for recipes"],
    );
    assert!(again.contains("MOC/Recipes.md"), "{again}");
    assert_eq!(read(v.path(), "MOC/Recipes.md"), moc);
    assert!(!v.path().join("MOC/Recipes 2.md").exists());
}

#[test]
fn a_template_by_kind_from_data_and_an_existing_one_is_kept() {
    let v = crew_vault(&[]);
    let out = ask(
        v.path(),
        &["--agent", "architect", "add a template for book notes"],
    );
    let t = read(v.path(), "Templates/Book.md");
    assert!(t.starts_with("---\ntype: book\n"), "{t}\n{out}");
    assert!(t.contains("author: ") && t.contains("\n## Quotes\n"), "{t}");
    assert!(out.contains("Templates/Book.md"), "{out}");
    // the vault's own Meeting template is never overwritten
    let meeting = read(v.path(), "Templates/Meeting.md");
    let before = snapshot(v.path());
    let out = ask(
        v.path(),
        &["--agent", "architect", "add a template for meeting notes"],
    );
    assert!(out.contains("Templates/Meeting.md"), "{out}");
    assert!(out.contains("never overwrites"), "{out}");
    assert_eq!(read(v.path(), "Templates/Meeting.md"), meeting);
    assert_eq!(changed(&before, &snapshot(v.path())), Vec::<String>::new());
}

#[test]
fn a_sub_folder_goes_inside_the_existing_home_found_in_any_case() {
    let v = vault(&[(
        "02-Areas/finance/_index.md",
        "---\ntype: area\n---\n# finance\n\n## Sub-Areas\n\n## Key Resources\n",
    )]);
    let out = ask(
        v.path(),
        &["--agent", "architect", "a sub-folder Receipts in Finance"],
    );
    let index = read(v.path(), "02-Areas/finance/Receipts/_index.md");
    assert!(index.contains("# Receipts"), "{index}\n{out}");
    let parent = read(v.path(), "02-Areas/finance/_index.md");
    assert!(
        parent.contains("## Sub-Areas\n- [[02-Areas/finance/Receipts/_index|Receipts]]"),
        "{parent}"
    );
    assert!(!v.path().join("01-Projects").exists(), "{out}");
    // a home that does not exist: said, with the command that would make it
    let before = snapshot(v.path());
    let out = ask(
        v.path(),
        &[
            "--agent",
            "architect",
            "create a subfolder Receipts under Health",
        ],
    );
    assert!(out.contains("Health") && out.contains("crew ask"), "{out}");
    assert_eq!(changed(&before, &snapshot(v.path())), Vec::<String>::new());
}

#[test]
fn the_tag_taxonomy_is_a_tree_with_near_duplicates_written_only_on_create() {
    let v = vault(&[
        ("a.md", "---\ntags: [food/recipes/pasta, Recipe]\n---\nx\n"),
        ("b.md", "---\ntags: [recipe, book_club]\n---\nx\n"),
        ("c.md", "---\ntags: [recipes, book-club]\n---\nx\n"),
        ("d.md", "#food/wine and #recipe\n"),
    ]);
    let before = snapshot(v.path());
    let out = ask(v.path(), &["--agent", "architect", "tag taxonomy"]);
    assert!(out.contains("- #food (0 / 2)"), "{out}");
    assert!(out.contains("  - #food/recipes (0 / 1)"), "{out}");
    assert!(out.contains("    - #food/recipes/pasta (1)"), "{out}");
    assert!(
        out.contains("`#recipe` (2), `#Recipe` (1), `#recipes` (1) → `#recipe`"),
        "{out}"
    );
    assert!(out.contains("→ `#book-club`"), "{out}");
    assert!(out.contains("--yes"), "{out}");
    assert_eq!(changed(&before, &snapshot(v.path())), Vec::<String>::new());
    let out = ask(
        v.path(),
        &["--agent", "architect", "create the tag taxonomy"],
    );
    let note = read(v.path(), "Meta/tag-taxonomy.md");
    assert!(note.contains("- #recipe (4)"), "{note}\n{out}");
    assert!(note.contains("## Proposed taxonomy"), "{note}");
}

#[test]
fn an_area_with_sub_folders_is_read_from_the_request() {
    let v = crew_vault(&[]);
    let out = ask(
        v.path(),
        &[
            "--agent",
            "architect",
            "create an area for Finance with budget and investments",
        ],
    );
    for p in [
        "02-Areas/Finance/_index.md",
        "02-Areas/Finance/Budget/_index.md",
        "02-Areas/Finance/Investments/_index.md",
        "MOC/Finance.md",
    ] {
        assert!(v.path().join(p).exists(), "{p}: {out}");
    }
    let areas: Vec<String> = std::fs::read_dir(v.path().join("02-Areas"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    assert_eq!(areas, ["Finance"], "{out}");
    ask(
        v.path(),
        &[
            "--agent",
            "architect",
            "crea una nuova area Casa con bollette e mutuo",
        ],
    );
    assert!(v.path().join("02-Areas/Casa/Bollette/_index.md").exists());
    assert!(v.path().join("02-Areas/Casa/Mutuo/_index.md").exists());
}

#[test]
fn new_folders_in_an_adopted_vault_are_proposed_with_the_command() {
    let v = adopted_vault(&[("Finance/Budget 2027.md", "numbers\n")]);
    let before = snapshot(v.path());
    let out = ask(
        v.path(),
        &["--agent", "architect", "a sub-folder Receipts in Finance"],
    );
    assert!(out.contains("`Finance/Receipts/`"), "{out}");
    assert!(
        out.contains("crew ask --agent architect --yes 'a sub-folder Receipts in Finance'"),
        "{out}"
    );
    assert_eq!(changed(&before, &snapshot(v.path())), Vec::<String>::new());
    assert!(!v.path().join("Finance/Receipts").exists());
    // the printed command applies it
    ask(
        v.path(),
        &[
            "--agent",
            "architect",
            "--yes",
            "a sub-folder Receipts in Finance",
        ],
    );
    assert!(v.path().join("Finance/Receipts/_index.md").exists());
}
