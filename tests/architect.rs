//! The architect and `/defrag` on crafted vaults: exact folder names, no twin folders, the
//! defrag report's lines, and what defrag may change in a vault crew laid out or adopted.

mod common;

use assert_fs::TempDir;
use assert_fs::prelude::*;
use common::{adopted_vault, crew, crew_bare, json_of, snapshot, vault};

fn ask(v: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["ask", "--json"];
    all.extend_from_slice(args);
    json_of(crew(v).args(&all))
}

fn today() -> chrono::NaiveDate {
    chrono::Local::now().date_naive()
}

fn read(v: &std::path::Path, p: &str) -> String {
    std::fs::read_to_string(v.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn subdirs(v: &std::path::Path, p: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(v.join(p))
        .expect("dir")
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().to_string())
        .collect();
    out.sort();
    out
}

#[test]
fn a_folder_with_parentheses_stays_exact_and_gets_no_twin() {
    let v = vault(&[
        ("01-Projects/Projects (2026)/plan.md", "the plan\n"),
        ("MOC/Index.md", "# Index\n"),
    ]);
    for request in [
        "create project Projects 2026",
        "create 01-Projects/Projects (2026)/ (with _index.md and a MOC)",
        "new project: projects-(2026)",
    ] {
        let j = ask(v.path(), &["--agent", "architect", request]);
        let out = j["chain"][0]["output"].as_str().unwrap_or("");
        assert!(
            out.contains("`01-Projects/Projects (2026)/`"),
            "{request}: {out}"
        );
        assert_eq!(
            subdirs(v.path(), "01-Projects"),
            ["Projects (2026)"],
            "{request}"
        );
    }
    assert!(read(v.path(), "01-Projects/Projects (2026)/_index.md").contains("# Projects (2026)"));
}

#[test]
fn new_folder_names_keep_accents_emoji_and_dots() {
    let v = vault(&[("MOC/Index.md", "# Index\n")]);
    ask(
        v.path(),
        &["--agent", "architect", "create project Été 🌞 (v2.1)"],
    );
    assert_eq!(subdirs(v.path(), "01-Projects"), ["Été 🌞 (v2.1)"]);
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

#[test]
fn defrag_reports_each_change_on_a_clean_line() {
    let v = crew_vault(&[
        ("02-Areas/Travel/Lisbon.md", "---\ntags: [MOC]\n---\ntrip\n"),
        (
            "02-Areas/Travel/Index.md",
            "---\ntags: [moc]\n---\ntravel index\n",
        ),
        ("01-Projects/Alpha/_index.md", "# Alpha\n"),
        (
            "00-Inbox/Alpha kickoff.md",
            "---\ndate: 2020-01-01\nproject: \"[[Alpha]]\"\n---\nkickoff\n",
        ),
        ("00-Inbox/Loose.md", "---\ndate: 2020-01-01\n---\nloose\n"),
        ("03-Resources/Old plan.md", "---\nstatus: done\n---\nold\n"),
    ]);
    let j = ask(v.path(), &["defragment the vault"]);
    assert_eq!(j["route"]["name"], "defrag");
    let report = read(
        v.path(),
        &format!("Meta/health-reports/{} — Defrag Report.md", today()),
    );
    for line in [
        "- `02-Areas/Travel/_index.md`: created\n",
        "- `MOC/Travel.md`: created\n",
        "- `MOC/Index.md`: updated\n",
        "- `MOC/Travel.md`: listed 2 note(s)\n",
        "- `00-Inbox/Alpha kickoff.md`: moved to `01-Projects/Alpha/Alpha kickoff.md`\n",
        "- files moved: 1\n",
        "- `#MOC` (1), `#moc` (1) → `#moc`\n",
        "- `03-Resources/Old plan.md` — status done\n",
        "- `00-Inbox/Loose.md`\n",
    ] {
        assert!(report.contains(line), "missing {line:?} in:\n{report}");
    }
    assert!(!report.contains("(+ "), "{report}");
    let moc = read(v.path(), "MOC/Travel.md");
    assert!(moc.contains("- [[Lisbon]]"), "{moc}");
    assert!(
        moc.contains("- [[02-Areas/Travel/Index]]") && !moc.contains("[[Index]]"),
        "a name two notes share is linked by path: {moc}"
    );
    assert!(
        v.path().join("03-Resources/Old plan.md").exists(),
        "never archived unasked"
    );
    assert!(v.path().join("00-Inbox/Loose.md").exists());
    let reply = j["chain"][0]["output"].as_str().unwrap_or("");
    assert!(
        reply.contains("- `MOC/Travel.md`: listed 2 note(s)"),
        "{reply}"
    );
    // a second run has nothing left to change
    let j = ask(v.path(), &["defragment the vault"]);
    let reply = j["chain"][0]["output"].as_str().unwrap_or("");
    assert!(reply.contains("Changes:\n- none needed\n"), "{reply}");
}

#[test]
fn defrag_in_an_adopted_vault_proposes_until_asked() {
    let v = adopted_vault(&[
        ("Travel/Lisbon.md", "trip\n"),
        ("Travel/Travel.md", "# Travel\n- [[Porto]]\n"),
        ("Travel/Porto.md", "---\ntags: [Trip, trip]\n---\nporto\n"),
    ]);
    let before = snapshot(v.path());
    let j = ask(v.path(), &["defragment the vault"]);
    let reply = j["chain"][0]["output"].as_str().unwrap_or("");
    assert!(reply.contains("crew ask --fix"), "{reply}");
    let after = snapshot(v.path());
    let changed: Vec<&String> = after
        .keys()
        .filter(|k| before.get(*k) != after.get(*k))
        .filter(|k| !k.starts_with(".crew/") && !k.contains("/states/"))
        .collect();
    assert!(
        changed
            .iter()
            .all(|k| k.ends_with("Defrag Report.md") || k.ends_with("agent-log.md")),
        "only the report and the log: {changed:?}"
    );
    assert!(!v.path().join("Travel/_index.md").exists());
}

/// Copies a corpus vault into a folder crew may write, with `.obsidian/` so it is a vault.
#[cfg(unix)]
fn writable_copy(from: &std::path::Path, to: &std::path::Path) {
    use std::os::unix::fs::PermissionsExt as _;
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let target = to.join(e.path().strip_prefix(from).expect("under"));
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &target).expect("copy");
            let mut p = std::fs::metadata(&target).expect("meta").permissions();
            p.set_mode(p.mode() | 0o200);
            std::fs::set_permissions(&target, p).expect("chmod");
        }
    }
    std::fs::create_dir_all(to.join(".obsidian")).expect("mkdir .obsidian");
}

/// On copies of the real vaults, adopted: every note defrag changes — asked to apply or not —
/// is one its answer lists; crew's own report, log and post-it aside.
#[cfg(unix)]
#[test]
fn defrag_on_real_vaults_changes_only_what_it_lists() {
    let Some(shared) = common::shared() else {
        common::skipped("../shared is absent: defrag on the real vaults did not run");
        return;
    };
    let Ok(entries) = std::fs::read_dir(shared.join("corpora/vaults")) else {
        common::skipped("no corpora/vaults");
        return;
    };
    let mut names: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    for src in names {
        let tmp = TempDir::new().expect("tmp");
        let dst = tmp.path().join("vault");
        writable_copy(&src, &dst);
        crew_bare()
            .args(["init", "--adopt"])
            .arg(&dst)
            .assert()
            .success();
        for args in [
            vec!["defragment the vault"],
            vec!["--fix", "defragment the vault"],
        ] {
            let before = snapshot(&dst);
            let j = ask(&dst, &args);
            let reply = j["chain"][0]["output"].as_str().unwrap_or("").to_string();
            let after = snapshot(&dst);
            let changed: Vec<&String> = after
                .keys()
                .chain(before.keys())
                .filter(|k| before.get(*k) != after.get(*k))
                .filter(|k| {
                    !k.starts_with(".crew/")
                        && !k.starts_with("Meta/health-reports/")
                        && !k.starts_with("Meta/states/")
                        && *k != "Meta/agent-log.md"
                })
                .collect();
            for path in &changed {
                assert!(
                    reply.contains(&format!("`{path}`")),
                    "{}: {path} changed but is not listed:\n{reply}",
                    src.display()
                );
            }
            assert!(reply.contains("Report: `Meta/health-reports/"), "{reply}");
        }
    }
}
