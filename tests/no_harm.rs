//! The no-harm contract (README, "What crew may change unasked"): the nightly fix repairs faults
//! and names each change, reports are idempotent, a guessed route never writes, the vault's own
//! structure comes first, folders that are not vaults are never touched, and bad requests are
//! usage errors. Each test asserts exactly which files changed.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{crew, crew_bare, json_of, snapshot, vault};
use predicates::prelude::*;

fn today() -> String {
    chrono::Local::now().format("%Y-%m-%d").to_string()
}

/// The paths whose bytes differ between two snapshots (added, removed or changed).
fn changed(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>) -> Vec<String> {
    let mut out: Vec<String> = after
        .iter()
        .filter(|(p, b)| before.get(*p) != Some(*b))
        .map(|(p, _)| p.clone())
        .chain(before.keys().filter(|p| !after.contains_key(*p)).cloned())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The files a run changed that are the user's (crew's state folder and own notes aside).
fn user_changes(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
) -> Vec<String> {
    changed(before, after)
        .into_iter()
        .filter(|p| !p.starts_with(".crew/") && !crew_own(p))
        .collect()
}

/// Runs the nightly fix and returns the user's files it changed.
fn fix_and_diff(vault: &Path) -> Vec<String> {
    let before = snapshot(vault);
    crew(vault)
        .args(["maintain", "--fix"])
        .assert()
        .code(predicate::in_iter([0, 1]));
    user_changes(&before, &snapshot(vault))
}

/// crew's own notes: the health report of today, post-its, the agent log.
fn crew_own(path: &str) -> bool {
    path.starts_with("Meta/states/")
        || path == "Meta/agent-log.md"
        || path == format!("Meta/health-reports/{} — Vault Health.md", today())
}

fn read(dir: &Path, p: &str) -> String {
    std::fs::read_to_string(dir.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// `count` notes, each linking to `Zürich` spelled `zurich`: a broken link with a safe fix
/// apiece (only an accent differs).
fn vault_with_case_broken_links(count: usize, others: usize) -> assert_fs::TempDir {
    let mut files: Vec<(String, String)> = vec![("Zürich.md".into(), "# Zürich\n".into())];
    for i in 0..count {
        files.push((format!("n{i}.md"), format!("See [[zurich]] ({i}).\n")));
    }
    for i in 0..others {
        files.push((format!("o{i}.md"), format!("Plain note {i} [[Zürich]].\n")));
    }
    common::vault_of(&files)
}

#[test]
fn the_nightly_fix_adds_no_property_the_user_never_used() {
    let v = vault(&[
        ("Notes/a.md", "---\ntitle: A\n---\nLinks [[b]].\n"),
        ("Notes/b.md", "---\ntitle: B\n---\nLinks [[a]].\n"),
        ("Notes/plain.md", "No frontmatter at all, linking [[a]].\n"),
    ]);
    assert_eq!(fix_and_diff(v.path()), Vec::<String>::new());
}

#[test]
fn a_fix_kind_over_the_cap_is_held_back_with_its_command() {
    // 8 notes to fix among 60: more than max(1 %, 5) notes
    let v = vault_with_case_broken_links(8, 52);
    let before = snapshot(v.path());
    let out = crew(v.path())
        .args(["maintain", "--fix"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Held back: broken-links would touch 8 notes (more than 5 allowed unasked)")
            && text.contains("crew maintain --fix --only broken-links"),
        "{text}"
    );
    let after = snapshot(v.path());
    for p in changed(&before, &after) {
        assert!(p.starts_with(".crew/") || crew_own(&p), "changed {p}");
    }
    // named, the kind runs whole
    let out = crew(v.path())
        .args(["maintain", "--fix", "--only", "broken-links"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.matches("  M n").count(), 8, "{text}");
    for i in 0..8 {
        assert_eq!(
            read(v.path(), &format!("n{i}.md")),
            format!("See [[Zürich|zurich]] ({i}).\n")
        );
    }
    crew(v.path())
        .args(["maintain", "--fix", "--only", "everything"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "broken-links, frontmatter, filed-keys",
        ));
}

#[test]
fn dry_run_lists_every_change_and_writes_nothing() {
    let v = vault_with_case_broken_links(3, 40);
    let before = snapshot(v.path());
    let out = crew(v.path())
        .args(["maintain", "--fix", "--dry-run"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Would fix:"), "{text}");
    for i in 0..3 {
        assert!(
            text.contains(&format!(
                "  M n{i}.md  (broken-links: [[zurich]] → [[Zürich|zurich]])"
            )),
            "{text}"
        );
    }
    assert!(
        text.contains("Dry run: nothing was written (3 fixes planned)"),
        "{text}"
    );
    assert_eq!(changed(&before, &snapshot(v.path())), Vec::<String>::new());
    // --json carries each fix
    let j = json_of(crew(v.path()).args(["maintain", "--fix", "--dry-run", "--json"]));
    assert_eq!(j["fixes"].as_array().map(Vec::len), Some(3));
    assert_eq!(j["fixes"][0]["kind"], "broken-links");
}

#[test]
fn templates_are_never_edited() {
    let v = vault(&[
        ("Zürich.md", "# Zürich\n"),
        ("Templates/Daily.md", "---\ndate: x\n---\nSee [[zurich]]\n"),
        (
            "Journal/Stamp.md",
            "Made <% tp.date.now() %> — see [[zurich]] and {{title}}\n",
        ),
        ("Journal/Real.md", "See [[zurich]]\n"),
    ]);
    assert_eq!(fix_and_diff(v.path()), vec!["Journal/Real.md"]);
}

#[test]
fn safe_fixes_repair_frontmatter_and_keys_crew_wrote() {
    let v = vault(&[
        ("bad.md", "---\ntitle: Rust: the book\n---\nbody\n"),
        (
            "Projects/filed.md",
            "---\ntype: note\nfiled-date: 2026-01-02\n---\nfiled by crew once\n",
        ),
        (
            "Projects/mine.md",
            "---\ntype: note\n---\nnever filed by crew\n",
        ),
    ]);
    crew(v.path())
        .args(["maintain", "--fix"])
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert_eq!(
        read(v.path(), "bad.md"),
        "---\ntitle: \"Rust: the book\"\n---\nbody\n"
    );
    let filed = read(v.path(), "Projects/filed.md");
    assert!(
        filed.contains("status: filed") && filed.contains("location: Projects"),
        "{filed}"
    );
    assert_eq!(
        read(v.path(), "Projects/mine.md"),
        "---\ntype: note\n---\nnever filed by crew\n"
    );
}

#[test]
fn reports_are_idempotent_and_hold_no_live_links() {
    let v = vault(&[
        ("a.md", "[[b]] [[Gone]] [[gone too]] #Bad_Tag"),
        ("b.md", "[[a]]"),
        ("c.md", "[[a]] [[B]]"),
    ]);
    let figures = |v: &Path| -> String {
        let j = json_of(crew(v).args(["maintain", "--report", "--json"]));
        let report = j["report"].as_str().unwrap_or_default().to_string();
        report
            .lines()
            .filter(|l| l.starts_with("- "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let first = figures(v.path());
    let second = figures(v.path());
    assert_eq!(first, second);
    assert!(first.contains("broken links: 2"), "{first}");
    let report = read(
        v.path(),
        &format!("Meta/health-reports/{} — Vault Health.md", today()),
    );
    let note = crew::vault::Note::parse_text("r.md", &report);
    assert!(
        note.wikilinks.is_empty(),
        "live links in the report: {report}"
    );
    assert!(
        !note.tags_normalized().iter().any(|t| t == "bad_tag"),
        "live tags in the report: {report}"
    );
}

#[test]
fn near_duplicates_ignore_template_lines() {
    let stock = "## Summary\nWrite a short summary of the session here.\n## Action items\n- Follow up with the team about the roadmap\n- Share the slides with everyone afterwards\n## Attendees\nEveryone who joined the call today\n";
    let mut files: Vec<(String, String)> = vec![(
        "Templates/Meeting.md".into(),
        format!("---\ntype: meeting\n---\n{stock}"),
    )];
    for i in 0..12 {
        files.push((
            format!("Meetings/m{i}.md"),
            format!("---\ntype: meeting\n---\n{stock}Topic {i}: item {i}.\n"),
        ));
    }
    let dup = "The quick brown fox jumps over the lazy dog while the farmer watches from the porch and drinks his morning coffee slowly.";
    files.push(("x/one.md".into(), format!("{dup}\nOne more line here.\n")));
    files.push(("y/two.md".into(), format!("{dup}\nAnother line there.\n")));
    let v = common::vault_of(&files);
    let j = json_of(crew(v.path()).args(["maintain", "--report", "--json"]));
    let report = j["report"].as_str().unwrap_or_default();
    assert!(report.contains("near-identical: 1"), "{report}");
}

#[test]
fn a_guessed_route_only_plans_until_confirmed() {
    let v = common::sample_vault();
    // a phrase no trigger matches that the scorer sends to an agent that changes notes
    let phrase = ["organize my stuff", "tidy up", "I want a better structure"]
        .into_iter()
        .find(|p| {
            let r = json_of(crew(v.path()).args(["route", "--json", p]));
            r["reason"]
                .as_str()
                .is_some_and(|s| s.starts_with("scorer"))
                && r["name"] != "seeker"
        })
        .expect("one phrase is guessed to a writer");
    let before = snapshot(v.path());
    let j = json_of(crew(v.path()).args(["ask", "--json", phrase]));
    assert_eq!(j["dry_run"], true, "{j}");
    assert!(
        j["preview"]["apply"]
            .as_str()
            .is_some_and(|c| c.starts_with("crew ask --yes ")),
        "{j}"
    );
    assert_eq!(changed(&before, &snapshot(v.path())), Vec::<String>::new());
    let out = crew(v.path()).args(["ask", phrase]).output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("To apply this plan: crew ask --yes"),
        "{text}"
    );
    // confirmed, it runs for real
    let j = json_of(crew(v.path()).args(["ask", "--json", "--yes", phrase]));
    assert_eq!(j["dry_run"], false);
    assert!(j["preview"].is_null());
}

#[test]
fn folder_notes_are_not_inbox_items_and_receive_filed_notes() {
    let v = vault(&[
        ("00-Inbox/🗂️ 00-Inbox.md", "# Inbox\nWhat lands here.\n"),
        (
            "00-Inbox/Hive check.md",
            "---\narea: Bees\n---\nThe hive looked fine.\n",
        ),
        // a folder note that lists its folder's notes by hand: the vault's way to list them
        (
            "Areas/Bees/Bees.md",
            "# Bees\nMy folder note.\n- [[Drones]]\n- [[Queen]]\n",
        ),
        ("Areas/Bees/Drones.md", "about the drones"),
        ("Areas/Bees/Queen.md", "about the queen"),
        (
            ".crew/config.yaml",
            "adopted: true\nfolders:\n  inbox: 00-Inbox\n  areas: Areas\n",
        ),
    ]);
    crew(v.path())
        .args(["ask", "file my notes"])
        .assert()
        .code(predicate::in_iter([0, 1]));
    assert!(v.path().join("00-Inbox/🗂️ 00-Inbox.md").exists());
    assert!(v.path().join("Areas/Bees/Hive check.md").exists());
    assert_eq!(
        read(v.path(), "Areas/Bees/Bees.md"),
        "# Bees\nMy folder note.\n- [[Drones]]\n- [[Hive check]]\n- [[Queen]]\n"
    );
    assert!(
        !v.path().join("MOC").exists(),
        "no MOC folder beside the vault's own"
    );
}

#[test]
fn a_handoff_adds_no_structure_to_an_adopted_vault() {
    let v = vault(&[
        (
            "00-Inbox/Budget.md",
            "---\nproject: Taxes 2027\n---\nnumbers\n",
        ),
        ("Work/Other.md", "x"),
        (".crew/config.yaml", "adopted: true\n"),
    ]);
    let before = snapshot(v.path());
    let out = crew(v.path())
        .args(["ask", "file my notes"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let after = snapshot(v.path());
    let touched = user_changes(&before, &after);
    assert_eq!(touched, Vec::<String>::new(), "{text}");
    assert!(!v.path().join("01-Projects").exists(), "{text}");
    // asked for by name, the architect builds it
    crew(v.path())
        .args(["ask", "--agent", "architect", "create project Taxes 2027"])
        .assert()
        .success();
    assert!(v.path().join("01-Projects/Taxes 2027/_index.md").exists());
}

#[test]
fn folders_that_are_not_vaults_are_never_written() {
    let dir = assert_fs::TempDir::new().expect("tmp");
    std::fs::create_dir_all(dir.path().join("Documents")).expect("mkdir");
    std::fs::write(dir.path().join("Documents/todo.md"), "- [ ] [[x]]\n").expect("write");
    let before = snapshot(dir.path());
    for args in [
        vec!["maintain", "--fix"],
        vec!["ask", "file my notes"],
        vec!["watch", "--once"],
        vec!["state", "clear", "sorter"],
        vec!["undo"],
    ] {
        crew(dir.path())
            .args(&args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is not a vault"));
    }
    assert_eq!(snapshot(dir.path()), before);
    assert!(!dir.path().join(".crew").exists());
    // reading is fine
    crew(dir.path()).args(["vault", "stats"]).assert().success();
    // the root of the filesystem and the home folder: not even read
    crew_bare()
        .args(["--vault", "/", "vault", "stats"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("root of the filesystem"));
    crew(dir.path())
        .env("HOME", dir.path())
        .args(["vault", "stats"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("home folder"));
}

#[test]
fn bad_requests_are_usage_errors_and_run_nothing() {
    let v = common::sample_vault();
    let before = snapshot(v.path());
    for (msg, says) in [
        ("", "empty"),
        ("   ", "empty"),
        ("?!…", "no words"),
        ("@gardener prune my notes", "Did you mean @tag-garden?"),
        ("/inbox-triag now", "Did you mean /inbox-triage?"),
    ] {
        crew(v.path())
            .args(["ask", msg])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    crew(v.path())
        .args(["route", "@nobody here"])
        .assert()
        .code(2);
    assert_eq!(snapshot(v.path()), before);
}

/// The mini corpus and the real vaults in `../shared/corpora/vaults`, copied: adopt, the nightly fix, two reports,
/// questions, and `init` over them change nothing but crew's own files.
#[test]
fn real_vaults_keep_every_note() {
    for src in common::corpus_vaults("the real-vault no-harm test") {
        let tmp = assert_fs::TempDir::new().expect("tmp");
        let dst = tmp.path().join("vault");
        common::copy_dir(&src, &dst);
        let original = snapshot(&dst);
        crew_bare()
            .args(["init", "--adopt"])
            .arg(&dst)
            .assert()
            .success();
        let adopted = snapshot(&dst);
        let added: Vec<String> = changed(&original, &adopted);
        assert!(
            added.iter().all(|p| p.starts_with(".crew/")),
            "{}: adopt changed {added:?}",
            src.display()
        );
        crew(&dst)
            .args(["maintain", "--fix"])
            .assert()
            .code(predicate::in_iter([0, 1]));
        let r1 = json_of(crew(&dst).args(["maintain", "--report", "--json"]));
        let r2 = json_of(crew(&dst).args(["maintain", "--report", "--json"]));
        let lines = |j: &serde_json::Value| -> Vec<String> {
            j["report"]
                .as_str()
                .unwrap_or_default()
                .lines()
                .filter(|l| l.starts_with("- "))
                .map(str::to_string)
                .collect()
        };
        assert_eq!(lines(&r1), lines(&r2), "{}: reports differ", src.display());
        for q in [
            "what did I write about sourdough starters?",
            "what links to Dataview?",
            "organize my stuff",
        ] {
            crew(&dst)
                .args(["ask", q])
                .assert()
                .code(predicate::in_iter([0, 1]));
        }
        crew_bare().arg("init").arg(&dst).assert().code(2);
        let after = snapshot(&dst);
        let touched = user_changes(&adopted, &after);
        assert_eq!(
            touched,
            Vec::<String>::new(),
            "{}: user files changed",
            src.display()
        );
    }
}
