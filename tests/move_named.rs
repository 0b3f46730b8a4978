//! "move [[Q3 budget]] to Areas/Finance": a request that asks in so many words to move a note
//! it links moves that note, from wherever it is, through the gate — links keep their target,
//! `crew undo` puts it back — and files nothing else. A note and a place without the asking
//! ("[[Q3 budget]] would fit better in Areas/Finance") is a guess: it plans, and even with `--yes` nothing moves
//! and the answer says what to write. Where the place is not one folder, nothing moves either.

mod common;

use common::{crew, snapshot};

/// A numbered vault with a note in a project, a note linking to it by its path, a second
/// folder called Finance, and an inbox note that must stay where it is.
fn vault() -> assert_fs::TempDir {
    common::adopted_vault(&[
        ("01-Projects/Q3 budget.md", "# Q3 budget\n\nnumbers\n"),
        (
            "07-Daily/2026-12-01.md",
            "see [[01-Projects/Q3 budget]] and [[Q3 budget|the budget]]\n",
        ),
        ("02-Areas/Finance/Taxes.md", "taxes\n"),
        ("03-Resources/Recipes/Pancakes.md", "flour\n"),
        ("Work/Finance/Payroll.md", "payroll\n"),
        (
            "00-Inbox/Loose thought.md",
            "a loose thought about finance\n",
        ),
    ])
}

/// The sorter asked directly, its changes made (`--agent sorter --yes`).
fn sorter(v: &std::path::Path, request: &str) -> (String, i32) {
    ask(v, &["--yes", "--agent", "sorter", request])
}

fn ask(v: &std::path::Path, args: &[&str]) -> (String, i32) {
    let out = crew(v).arg("ask").args(args).output().expect("run");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

#[test]
fn an_asked_move_is_made_with_links_kept_and_undo_restores_and_a_guess_moves_nothing() {
    let v = vault();
    let root = v.path();
    let before = snapshot(root);
    let unchanged = |label: &str| {
        let now = snapshot(root);
        for (path, bytes) in &before {
            if !path.starts_with("Meta/") && !path.starts_with(".crew/") {
                assert_eq!(now.get(path), Some(bytes), "{path} changed by {label}");
            }
        }
    };
    // a note and a place, no verb: the route is a guess, so it plans
    let (text, _) = ask(root, &["[[Q3 budget]] would fit better in Areas/Finance"]);
    assert!(text.contains("Nothing was written"), "{text}");
    unchanged("a plan");
    // and with --yes the sorter still does not read a move into it: it says what to write
    let (text, _) = ask(
        root,
        &["--yes", "[[Q3 budget]] would fit better in Areas/Finance"],
    );
    assert!(text.contains("crew ask \"move [[Q3 budget]]"), "{text}");
    unchanged("a note and a place not asked to move");

    // asked in so many words, the route is decided and the move made
    let (text, _) = ask(root, &["move [[Q3 budget]] to Areas/Finance"]);
    assert!(
        root.join("02-Areas/Finance/Q3 budget.md").is_file(),
        "{text}"
    );
    assert!(!root.join("01-Projects/Q3 budget.md").exists(), "{text}");
    let daily = std::fs::read_to_string(root.join("07-Daily/2026-12-01.md")).expect("daily");
    // the path link now names the note where it is (its name alone is unique)
    assert!(!daily.contains("01-Projects"), "{daily}");
    assert!(daily.starts_with("see [[Q3 budget]]"), "{daily}");
    assert!(daily.contains("[[Q3 budget|the budget]]"), "{daily}");
    // the inbox was not filed: the request was about one note
    assert!(root.join("00-Inbox/Loose thought.md").is_file(), "{text}");

    crew(root).arg("undo").assert().success();
    let undone = snapshot(root);
    for (path, bytes) in &before {
        if !path.starts_with("Meta/") && !path.starts_with(".crew/") {
            assert_eq!(undone.get(path), Some(bytes), "{path} not restored by undo");
        }
    }
    assert!(!root.join("02-Areas/Finance/Q3 budget.md").exists());
}

#[test]
fn a_folder_named_by_its_name_in_another_language() {
    let v = vault();
    let root = v.path();
    // the agent's own reading of the place, whatever the router makes of the request
    let (text, _) = sorter(root, "coloca a nota [[Q3 budget]] na pasta Recipes");
    assert!(
        root.join("03-Resources/Recipes/Q3 budget.md").is_file(),
        "{text}"
    );
    assert!(text.contains("movida"), "answered in Portuguese: {text}");
}

#[test]
fn where_the_place_is_not_one_folder_nothing_moves_and_the_answer_says_what_to_write() {
    let v = vault();
    let root = v.path();
    let before = snapshot(root);
    let notes = |s: &std::collections::BTreeMap<String, Vec<u8>>| -> Vec<String> {
        s.keys()
            .filter(|p| !p.starts_with("Meta/") && !p.starts_with(".crew/"))
            .cloned()
            .collect()
    };
    // two folders are called Finance
    let (text, _) = ask(
        root,
        &["--yes", "move [[Q3 budget]] into the Finance folder"],
    );
    assert!(text.contains("02-Areas/Finance, Work/Finance"), "{text}");
    // no folder of that name
    let (text, _) = ask(
        root,
        &["--yes", "move [[Q3 budget]] into the Garden folder"],
    );
    assert!(text.contains("names no folder"), "{text}");
    // no note of that name
    let (text, _) = ask(root, &["--yes", "move [[Q4 budget]] to Work/Finance"]);
    assert!(
        text.contains("No note of this vault is called Q4 budget"),
        "{text}"
    );
    assert_eq!(notes(&snapshot(root)), notes(&before));
    assert!(root.join("01-Projects/Q3 budget.md").is_file());
}

#[test]
fn a_new_folder_is_made_only_where_its_path_ends_the_request_below_an_existing_one() {
    let v = vault();
    let root = v.path();
    let (text, _) = ask(root, &["--yes", "move [[Q3 budget]] to Work/Taxes/2026"]);
    assert!(text.contains("no folder `Work/Taxes/2026`"), "{text}");
    assert!(root.join("01-Projects/Q3 budget.md").is_file(), "{text}");
    let (text, _) = ask(root, &["--yes", "move [[Q3 budget]] to Work/Tax Returns"]);
    assert!(text.contains("no folder `Work/Tax`"), "{text}");
    assert!(!root.join("Work/Tax").exists(), "{text}");
    let (text, _) = ask(root, &["--yes", "move [[Q3 budget]] to Work/Taxes"]);
    assert!(root.join("Work/Taxes/Q3 budget.md").is_file(), "{text}");
    assert!(
        text.contains("`01-Projects/Q3 budget.md` → `Work/Taxes/Q3 budget.md`"),
        "{text}"
    );
}

/// A folder written in lower case names no place to the router, but the sorter knows the
/// vault's folders: a path that is one of them is where the note goes.
#[test]
fn an_existing_folder_written_in_lower_case() {
    let v = vault();
    let root = v.path();
    let (text, _) = sorter(root, "move [[Q3 budget]] to work/finance");
    assert!(root.join("Work/Finance/Q3 budget.md").is_file(), "{text}");
}

/// A request that names a note and a place but does not ask for the move — it says not to,
/// says it was done, or asks for something else — moves nothing, even with `--yes`, and says
/// what to write to move it.
#[test]
fn what_is_not_asked_as_a_move_moves_nothing() {
    let v = vault();
    let root = v.path();
    let before = snapshot(root);
    let notes = |s: &std::collections::BTreeMap<String, Vec<u8>>| -> Vec<(String, Vec<u8>)> {
        s.iter()
            .filter(|(p, _)| !p.starts_with("Meta/") && !p.starts_with(".crew/"))
            .map(|(p, b)| (p.clone(), b.clone()))
            .collect()
    };
    for request in [
        "don't move [[Q3 budget]] to Work/Finance",
        "I moved [[Q3 budget]] to Work/Finance",
        "copy [[Q3 budget]] to Work/Finance",
        "non spostare [[Q3 budget]] nella cartella Recipes",
    ] {
        let (text, _) = sorter(root, request);
        assert!(
            text.contains("[[Q3 budget]]") && !text.contains("→"),
            "{request}: {text}"
        );
        assert_eq!(notes(&snapshot(root)), notes(&before), "{request}: {text}");
    }
    let (text, _) = sorter(root, "copy [[Q3 budget]] to Work/Finance");
    assert!(
        text.contains("crew ask \"move [[Q3 budget]] to Work/Finance\""),
        "{text}"
    );
}

/// A path and a folder named beside a folder word that disagree are two places: nothing
/// moves. A new folder goes below its parent as the vault spells it, and never takes a
/// name a link cannot reach.
#[test]
fn two_places_move_nothing_and_a_new_folder_is_spelled_as_the_vault_does() {
    let v = vault();
    let root = v.path();
    let (text, _) = ask(
        root,
        &[
            "--yes",
            "move [[Q3 budget]] to the Recipes folder, or Work/Finance",
        ],
    );
    assert!(root.join("01-Projects/Q3 budget.md").is_file(), "{text}");
    assert!(text.contains("03-Resources/Recipes"), "{text}");
    let (text, _) = sorter(root, "move [[Q3 budget]] to Work/Q#4");
    assert!(root.join("01-Projects/Q3 budget.md").is_file(), "{text}");
    let (text, _) = sorter(root, "move [[Q3 budget]] to work/Taxes");
    assert!(root.join("Work/Taxes/Q3 budget.md").is_file(), "{text}");
}

/// Two notes named with one place both move; a request that links notes and names no place
/// files only those notes, never the rest of the inbox.
#[test]
fn several_named_notes_move_together_and_a_named_triage_files_only_them() {
    let v = vault();
    let root = v.path();
    // an inbox note a triage would file, so that leaving it out shows
    std::fs::write(
        root.join("00-Inbox/Loose thought.md"),
        "---\narea: Finance\n---\nfinance\n",
    )
    .expect("write");
    let (text, _) = ask(
        root,
        &[
            "--yes",
            "move [[Q3 budget]] and [[Pancakes]] to Work/Finance",
        ],
    );
    assert!(root.join("Work/Finance/Q3 budget.md").is_file(), "{text}");
    assert!(root.join("Work/Finance/Pancakes.md").is_file(), "{text}");
    assert!(root.join("00-Inbox/Loose thought.md").is_file(), "{text}");

    // the triage skill asked for, a linked note outside the inbox files nothing
    let (text, _) = ask(root, &["--yes", "/inbox-triage file [[Payroll]]"]);
    assert!(root.join("00-Inbox/Loose thought.md").is_file(), "{text}");
    assert!(
        text.contains("None of the notes this request links"),
        "{text}"
    );
    // asked to file it with no place, the sorter asks where, and files nothing either
    let (text, _) = ask(root, &["--yes", "file [[Payroll]]"]);
    assert!(root.join("00-Inbox/Loose thought.md").is_file(), "{text}");
    assert!(root.join("Work/Finance/Payroll.md").is_file(), "{text}");
    assert!(text.contains("which folder?"), "{text}");
    // a link said of the moved notes, or left out, stays where it is
    let (text, _) = ask(
        root,
        &[
            "--yes",
            "move [[Payroll]] to 02-Areas/Finance, it is related to [[Taxes]]",
        ],
    );
    assert!(root.join("02-Areas/Finance/Payroll.md").is_file(), "{text}");
    assert!(root.join("02-Areas/Finance/Taxes.md").is_file(), "{text}");
    let (text, _) = sorter(root, "file my notes, except [[Loose thought]]");
    assert!(root.join("00-Inbox/Loose thought.md").is_file(), "{text}");
    // a link not asked for files nothing at all, nor the rest of the inbox
    std::fs::write(
        root.join("00-Inbox/Other.md"),
        "---\narea: Finance\n---\nx\n",
    )
    .expect("write");
    for unasked in [
        "don't move [[Loose thought]] anywhere",
        "is [[Loose thought]] filed?",
        "move [[Loose thought]] to reading",
    ] {
        let (text, _) = sorter(root, unasked);
        assert!(
            root.join("00-Inbox/Loose thought.md").is_file(),
            "{unasked}: {text}"
        );
        assert!(
            root.join("00-Inbox/Other.md").is_file(),
            "{unasked}: {text}"
        );
    }
    // the note alone and a verb: that note is filed, and only it
    let (text, _) = sorter(root, "file [[Loose thought]] please");
    assert!(
        root.join("02-Areas/Finance/Loose thought.md").is_file(),
        "{text}"
    );
    assert!(root.join("00-Inbox/Other.md").is_file(), "{text}");
}

/// A folder's name written last as the vault spells it is the place; a request whose place
/// crew cannot read, for a note outside the inbox, says so instead of filing the inbox.
#[test]
fn a_folder_named_last_and_a_place_not_understood() {
    let v = vault();
    let root = v.path();
    let (text, _) = sorter(root, "move [[Q3 budget]] to Recipes");
    assert!(
        root.join("03-Resources/Recipes/Q3 budget.md").is_file(),
        "{text}"
    );
    let (text, _) = sorter(root, "move [[Payroll]] somewhere nice");
    assert!(text.contains("names no folder"), "{text}");
    assert!(root.join("00-Inbox/Loose thought.md").is_file(), "{text}");
}
