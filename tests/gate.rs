//! The write gate on real folders: refusals, symlinks, atomicity, no overwrite, the journal.

mod common;

use crew::gate::{Gate, GateError, Policy};
use crew::state::journal::{Journal, OpKind};
use crew::vault::Vault;

fn gate_on(dir: &std::path::Path, journal: Journal) -> Gate {
    Gate::new(
        Vault::open(dir).expect("open"),
        Policy::default(),
        journal,
        false,
    )
}

#[test]
fn refuses_protected_and_escaping_paths_and_writes_nothing() {
    let v = common::vault(&[
        ("a.md", "keep"),
        (".obsidian/app.json", "{}"),
        ("Meta/states/librarian.md", "x"),
    ]);
    let before = common::snapshot(v.path());
    let mut g = gate_on(v.path(), Journal::in_memory());
    for bad in [
        "../outside.md",
        "/etc/passwd",
        ".obsidian/app.json",
        ".git/config",
        ".crew/agents/sorter.md",
        "CLAUDE.md",
        "Meta/states/librarian.md",
        "x/../../y.md",
        "con.md",
        "a\u{7}.md",
    ] {
        let r = g.write(bad, b"evil");
        assert!(
            matches!(r, Err(GateError::Jail { .. } | GateError::Protected { .. })),
            "{bad}: {r:?}"
        );
    }
    assert!(g.move_file("a.md", "../a.md").is_err());
    assert!(g.move_file("a.md", ".obsidian/a.md").is_err());
    assert_eq!(before, common::snapshot(v.path()), "nothing was written");
    assert!(g.operations().is_empty());
}

#[cfg(unix)]
#[test]
fn refuses_to_write_through_a_symlink_out_of_the_vault() {
    let outside = tempfile::tempdir().expect("outside");
    let v = common::vault(&[("a.md", "x")]);
    std::os::unix::fs::symlink(outside.path(), v.path().join("escape")).expect("symlink");
    std::os::unix::fs::symlink(outside.path().join("t.md"), v.path().join("link.md"))
        .expect("symlink");
    let mut g = gate_on(v.path(), Journal::in_memory());
    assert!(matches!(
        g.write("escape/new.md", b"x"),
        Err(GateError::Jail { .. })
    ));
    assert!(matches!(
        g.write("link.md", b"x"),
        Err(GateError::Jail { .. })
    ));
    assert!(matches!(
        g.move_file("a.md", "escape/a.md"),
        Err(GateError::Jail { .. })
    ));
    assert_eq!(std::fs::read_dir(outside.path()).expect("read").count(), 0);
}

#[test]
fn create_never_overwrites_and_leaves_no_temp_files() {
    let v = common::vault(&[("n/Note.md", "original")]);
    let mut g = gate_on(v.path(), Journal::in_memory());
    let p = g.create("n/Note.md", b"new").expect("create");
    assert_eq!(p, "n/Note 2.md");
    let p3 = g.create("n/Note.md", b"newer").expect("create");
    assert_eq!(p3, "n/Note 3.md");
    assert_eq!(
        std::fs::read_to_string(v.path().join("n/Note.md")).expect("read"),
        "original"
    );
    let names: Vec<String> = std::fs::read_dir(v.path().join("n"))
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().all(|n| !n.starts_with(".crew-tmp")),
        "{names:?}"
    );
}

#[test]
fn journal_is_written_before_changes_with_original_bytes() {
    let v = common::vault(&[
        ("a.md", "---\nstatus: inbox\nz: 1\n---\nbody\n"),
        ("b.md", "[[a]]"),
    ]);
    let jdir = v.path().join(".crew/journal/run1");
    let mut g = gate_on(v.path(), Journal::at(jdir.clone()));
    g.set_frontmatter("a.md", &[("status", Some("filed".into()))])
        .expect("edit");
    let out = g.move_file("a.md", "sub/a.md").expect("move");
    assert_eq!(out.to, "sub/a.md");
    let text = std::fs::read_to_string(v.path().join("sub/a.md")).expect("moved");
    assert_eq!(
        text, "---\nstatus: filed\nz: 1\n---\nbody\n",
        "only the key changed"
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(jdir.join("journal.jsonl"))
        .expect("journal")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect();
    let ops: Vec<&str> = lines
        .iter()
        .map(|l| l["op"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(ops, vec!["edit", "mkdir", "move"]);
    let backup = lines[0]["backup"].as_str().expect("backup");
    assert_eq!(
        std::fs::read_to_string(jdir.join(backup)).expect("backup"),
        "---\nstatus: inbox\nz: 1\n---\nbody\n"
    );
    assert_eq!(g.operations()[2].op, OpKind::Move);
    // [[a]] still resolves: the bare name is unique, so b.md needed no rewrite
    assert_eq!(
        std::fs::read_to_string(v.path().join("b.md")).expect("b"),
        "[[a]]"
    );
}

#[test]
fn dry_run_plans_without_touching_disk() {
    let v = common::vault(&[("a.md", "x"), ("b.md", "[[a]] [[./a]]")]);
    let before = common::snapshot(v.path());
    let mut g = Gate::new(
        Vault::open(v.path()).expect("open"),
        Policy::default(),
        Journal::in_memory(),
        true,
    );
    g.move_file("a.md", "deep/er/a.md").expect("plan");
    g.write("new.md", b"hello").expect("plan");
    assert!(
        g.read_text("deep/er/a.md").is_some(),
        "the plan sees its own changes"
    );
    // both links still land on the moved note ([[./a]] by the path-suffix rule): no rewrite
    assert_eq!(g.read_text("b.md").as_deref(), Some("[[a]] [[./a]]"));
    assert_eq!(before, common::snapshot(v.path()));
    assert!(g.operations().len() >= 3);
}

#[test]
fn refuses_to_edit_a_note_that_is_not_utf8() {
    let v = common::vault(&[]);
    std::fs::write(v.path().join("bin.md"), b"\xff\xfe[[x]]").expect("write");
    let mut g = gate_on(v.path(), Journal::in_memory());
    assert!(
        g.set_frontmatter("bin.md", &[("status", Some("filed".into()))])
            .is_err()
    );
    assert_eq!(
        std::fs::read(v.path().join("bin.md")).expect("read"),
        b"\xff\xfe[[x]]"
    );
}

#[cfg(unix)]
#[test]
fn a_read_only_folder_fails_cleanly_with_the_original_intact() {
    use std::os::unix::fs::PermissionsExt;
    let v = common::vault(&[("ro/a.md", "original")]);
    let ro = v.path().join("ro");
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).expect("chmod");
    // root writes through permissions; an immutable folder (chattr +i) stops root too
    let chattr = |flag: &str| {
        std::process::Command::new("chattr")
            .arg(flag)
            .arg(&ro)
            .status()
            .is_ok_and(|s| s.success())
    };
    let probe = std::fs::write(ro.join("probe"), b"x");
    let immutable = probe.is_ok() && {
        let _ = std::fs::remove_file(ro.join("probe"));
        chattr("+i")
    };
    if probe.is_ok() && !immutable {
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        common::skipped("read-only folders are writable for this user (root) and chattr failed");
        return;
    }
    let mut g = gate_on(v.path(), Journal::in_memory());
    let r = g.set_frontmatter("ro/a.md", &[("status", Some("filed".into()))]);
    if immutable {
        assert!(chattr("-i"), "chattr -i");
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    assert!(matches!(r, Err(GateError::Io { .. })), "{r:?}");
    assert_eq!(
        std::fs::read_to_string(ro.join("a.md")).expect("read"),
        "original"
    );
}
