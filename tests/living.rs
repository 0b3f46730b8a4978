//! The gate on a living vault: the vault changes while crew works on it. Races are made
//! deterministic with the gate's test hook, which runs between a change's checks and its first
//! write: the test changes the vault exactly there (a user edit, a rename, a delete, a second
//! crew process) and checks that crew never applies an edit to bytes it has not verified, and
//! that a move either completes with all its link rewrites or leaves no trace.

mod common;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crew::gate::{Gate, GateError, HookPoint, Policy};
use crew::state::journal::Journal;
use crew::vault::Vault;

fn gate_on(dir: &Path) -> Gate {
    Gate::new(
        Vault::open(dir).expect("open"),
        Policy::default(),
        Journal::in_memory(),
        false,
    )
}

/// Runs `f` once, at the first time the gate reaches `point`.
fn once_at(gate: &mut Gate, point: HookPoint, f: impl FnOnce() + Send + 'static) {
    let f = Arc::new(Mutex::new(Some(f)));
    gate.set_test_hook(Some(Box::new(move |p, _| {
        if p == point
            && let Some(f) = f.lock().ok().and_then(|mut g| g.take())
        {
            f();
        }
    })));
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Z sits in the inbox; Linker names it by path, so moving Z rewrites Linker.
fn linked_vault() -> assert_fs::TempDir {
    common::vault(&[
        ("00-Inbox/Z small.md", "the note\n"),
        ("Linker.md", "héllo wörld [[00-Inbox/Z small]] ände\n"),
    ])
}

#[test]
fn a_user_edit_between_planning_and_applying_is_kept_and_the_links_replanned() {
    let v = linked_vault();
    let dir = v.path().to_path_buf();
    let mut g = gate_on(&dir);
    let d = dir.clone();
    once_at(&mut g, HookPoint::MovePlanned, move || {
        // multi-byte text in front of the link: the planned offsets no longer fit
        let old = read(&d, "Linker.md");
        std::fs::write(d.join("Linker.md"), format!("ÜSER PREPENDED ✓ {old}")).expect("edit");
    });
    let out = g
        .move_file("00-Inbox/Z small.md", "10/Z small.md")
        .expect("move");
    assert_eq!(out.to, "10/Z small.md");
    assert_eq!(
        read(&dir, "Linker.md"),
        "ÜSER PREPENDED ✓ héllo wörld [[Z small]] ände\n",
        "the user's text is kept and the link rewritten in the current text"
    );
    assert_eq!(read(&dir, "10/Z small.md"), "the note\n");
}

#[test]
fn an_edit_whose_file_changed_after_it_was_read_is_refused_not_applied() {
    let v = common::vault(&[("a.md", "---\nstatus: inbox\n---\nbody\n")]);
    let dir = v.path().to_path_buf();
    let mut g = gate_on(&dir);
    let d = dir.clone();
    once_at(&mut g, HookPoint::EditPlanned, move || {
        std::fs::write(
            d.join("a.md"),
            "---\nstatus: inbox\n---\nbody and the user's line\n",
        )
        .expect("edit");
    });
    let r = g.set_frontmatter("a.md", &[("status", Some("filed".into()))]);
    assert!(matches!(r, Err(GateError::Changed { .. })), "{r:?}");
    assert_eq!(
        read(&dir, "a.md"),
        "---\nstatus: inbox\n---\nbody and the user's line\n"
    );
    assert!(
        g.operations().is_empty(),
        "a refused change is not journaled"
    );
    // asked again, the edit applies to the text as it is now
    g.set_test_hook(None);
    g.set_frontmatter("a.md", &[("status", Some("filed".into()))])
        .expect("edit");
    assert_eq!(
        read(&dir, "a.md"),
        "---\nstatus: filed\n---\nbody and the user's line\n"
    );
}

#[test]
fn a_linking_note_renamed_or_deleted_meanwhile_is_skipped_and_reported() {
    for delete in [false, true] {
        let v = linked_vault();
        let dir = v.path().to_path_buf();
        let mut g = gate_on(&dir);
        let d = dir.clone();
        once_at(&mut g, HookPoint::MovePlanned, move || {
            if delete {
                std::fs::remove_file(d.join("Linker.md")).expect("delete");
            } else {
                std::fs::rename(d.join("Linker.md"), d.join("Renamed.md")).expect("rename");
            }
        });
        let out = g
            .move_file("00-Inbox/Z small.md", "10/Z small.md")
            .expect("move");
        assert_eq!(out.rewritten, vec![]);
        assert_eq!(out.skipped.len(), 1, "{out:?}");
        assert_eq!(out.skipped[0].0, "Linker.md");
        assert!(dir.join("10/Z small.md").is_file());
        if !delete {
            assert_eq!(
                read(&dir, "Renamed.md"),
                "héllo wörld [[00-Inbox/Z small]] ände\n",
                "the renamed note is not written behind the user's back"
            );
        }
    }
}

#[test]
fn a_source_renamed_or_deleted_meanwhile_fails_the_move_and_rolls_back_the_links() {
    for delete in [false, true] {
        let v = linked_vault();
        let dir = v.path().to_path_buf();
        let mut g = gate_on(&dir);
        let d = dir.clone();
        // after the links were rewritten, before the rename
        once_at(&mut g, HookPoint::BeforeRename, move || {
            if delete {
                std::fs::remove_file(d.join("00-Inbox/Z small.md")).expect("delete");
            } else {
                std::fs::rename(d.join("00-Inbox/Z small.md"), d.join("Elsewhere.md"))
                    .expect("rename");
            }
        });
        let r = g.move_file("00-Inbox/Z small.md", "10/Z small.md");
        let Err(GateError::MoveFailed { reason, undone, .. }) = &r else {
            panic!("{r:?}")
        };
        assert!(reason.contains("moved or deleted"), "{reason}");
        assert!(
            undone.undone > 0 && undone.not_undone.is_empty(),
            "{undone}"
        );
        assert_eq!(
            read(&dir, "Linker.md"),
            "héllo wörld [[00-Inbox/Z small]] ände\n",
            "the link rewrite was rolled back"
        );
        assert!(!dir.join("10").exists(), "the folder made for it is gone");
        assert!(g.operations().is_empty(), "{:?}", g.operations());
    }
}

/// A second crew process files a note while this gate moves another one: both rewrite links
/// in the same note. This gate re-plans from what the other left and keeps both changes.
#[test]
fn a_second_crew_process_between_planning_and_applying() {
    let v = common::vault(&[
        ("01-Projects/P/_index.md", ""),
        ("00-Inbox/Y.md", "---\nproject: \"[[P]]\"\n---\ny\n"),
        ("Notes/X.md", "x\n"),
        ("Linker.md", "First [[Notes/X]] [[00-Inbox/Y]] end.\n"),
    ]);
    let dir = v.path().to_path_buf();
    let mut g = gate_on(&dir);
    let d = dir.clone();
    once_at(&mut g, HookPoint::MovePlanned, move || {
        let status = std::process::Command::new(assert_cmd::cargo::cargo_bin("crew"))
            .env("XDG_CACHE_HOME", common::test_cache())
            .env_remove("CREW_VAULT")
            .env_remove("CREW_DIR")
            .arg("--vault")
            .arg(&d)
            .args(["ask", "file my notes"])
            .output()
            .expect("second crew");
        assert!(
            status.status.success(),
            "{}",
            String::from_utf8_lossy(&status.stderr)
        );
        assert!(
            d.join("01-Projects/P/Y.md").is_file(),
            "the other process filed Y"
        );
    });
    g.move_file("Notes/X.md", "Other/X renamed by the model.md")
        .expect("move");
    assert_eq!(
        read(&dir, "Linker.md"),
        "First [[X renamed by the model]] [[Y]] end.\n"
    );
}

#[test]
fn a_destination_taken_meanwhile_fails_the_move_and_rolls_back_everything() {
    let v = linked_vault();
    let dir = v.path().to_path_buf();
    let mut g = gate_on(&dir);
    let d = dir.clone();
    once_at(&mut g, HookPoint::BeforeRename, move || {
        std::fs::write(d.join("10/Z small.md"), "somebody else's note").expect("take");
    });
    let r = g.move_file("00-Inbox/Z small.md", "10/Z small.md");
    let Err(e @ GateError::MoveFailed { .. }) = &r else {
        panic!("{r:?}")
    };
    let msg = e.to_string();
    assert!(msg.contains("10/Z small.md appeared"), "{msg}");
    assert!(msg.contains("rolled back"), "{msg}");
    assert!(!msg.contains("untouched"), "{msg}");
    assert_eq!(
        read(&dir, "Linker.md"),
        "héllo wörld [[00-Inbox/Z small]] ände\n"
    );
    assert_eq!(read(&dir, "00-Inbox/Z small.md"), "the note\n");
    assert_eq!(read(&dir, "10/Z small.md"), "somebody else's note");
}

#[test]
fn a_destination_folder_that_cannot_be_made_rolls_back_the_status_mark_too() {
    // what the sorter does: mark the note filed, then move it; the move fails at its folder
    let v = common::vault(&[
        (
            "00-Inbox/N.md",
            "---\nstatus: inbox\n---\nn [[00-Inbox/N]]\n",
        ),
        ("Linker.md", "see [[00-Inbox/N]]\n"),
    ]);
    let dir = v.path().to_path_buf();
    let before_mtime = std::fs::metadata(dir.join("00-Inbox/N.md"))
        .and_then(|m| m.modified())
        .expect("mtime");
    let mut g = gate_on(&dir);
    let mark = g.mark();
    g.set_frontmatter("00-Inbox/N.md", &[("status", Some("filed".into()))])
        .expect("mark");
    let d = dir.clone();
    once_at(&mut g, HookPoint::MovePlanned, move || {
        // the folder's name is taken by a file: creating the folder fails
        std::fs::write(d.join("Dest"), "a file").expect("block");
    });
    let r = g.move_file("00-Inbox/N.md", "Dest/N.md");
    let Err(GateError::MoveFailed { to, reason, .. }) = &r else {
        panic!("{r:?}")
    };
    assert_eq!(to, "Dest/N.md", "the error names the destination");
    assert!(reason.contains("Dest"), "{reason}");
    let undone = g.rollback_to(mark);
    assert!(
        undone.undone > 0 && undone.not_undone.is_empty(),
        "{undone}"
    );
    assert_eq!(
        read(&dir, "00-Inbox/N.md"),
        "---\nstatus: inbox\n---\nn [[00-Inbox/N]]\n"
    );
    assert_eq!(read(&dir, "Linker.md"), "see [[00-Inbox/N]]\n");
    let after_mtime = std::fs::metadata(dir.join("00-Inbox/N.md"))
        .and_then(|m| m.modified())
        .expect("mtime");
    assert_eq!(before_mtime, after_mtime, "the rollback restores the time");
}

#[test]
fn a_move_that_cannot_keep_every_link_changes_nothing() {
    // a linking note that is not UTF-8, one that is read-only, a destination folder that is
    // a file: each refuses the move before any byte changes
    type Setup = Box<dyn Fn(&Path)>;
    let cases: Vec<(&str, Setup)> = vec![
        (
            "not valid UTF-8",
            Box::new(|d: &Path| {
                std::fs::write(d.join("Other.md"), b"\xff\xfe [[00-Inbox/Target]]").expect("w")
            }),
        ),
        (
            "read-only",
            Box::new(|d: &Path| {
                use std::os::unix::fs::PermissionsExt;
                std::fs::write(d.join("Other.md"), "[[00-Inbox/Target]]").expect("w");
                std::fs::set_permissions(
                    d.join("Other.md"),
                    std::fs::Permissions::from_mode(0o444),
                )
                .expect("chmod");
            }),
        ),
        (
            "is a file, not a folder",
            Box::new(|d: &Path| std::fs::write(d.join("Dest"), "x").expect("w")),
        ),
    ];
    for (why, setup) in cases {
        let v = common::vault(&[
            ("00-Inbox/Target.md", "t"),
            ("01-Projects/Target.md", "already there"),
            ("Plain.md", "[[00-Inbox/Target]]"),
        ]);
        setup(v.path());
        let before = common::snapshot(v.path());
        let mut g = gate_on(v.path());
        let dest = if why.contains("folder") {
            "Dest/Target.md"
        } else {
            "01-Projects/Target.md"
        };
        let r = g.move_file("00-Inbox/Target.md", dest);
        let Err(GateError::MoveFailed { reason, undone, .. }) = &r else {
            panic!("{why}: {r:?}")
        };
        assert!(reason.contains(why), "{why}: {reason}");
        assert!(undone.nothing_changed(), "{why}: {undone}");
        assert_eq!(before, common::snapshot(v.path()), "{why}: nothing changed");
        assert!(g.operations().is_empty());
    }
}

#[test]
fn read_only_notes_are_left_alone() {
    use std::os::unix::fs::PermissionsExt;
    let v = common::vault(&[("ro.md", "---\nstatus: inbox\n---\nx\n")]);
    let p = v.path().join("ro.md");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).expect("chmod");
    let mut g = gate_on(v.path());
    for r in [
        g.set_frontmatter("ro.md", &[("status", Some("filed".into()))])
            .map(|_| ()),
        g.write("ro.md", b"replaced"),
        g.append("ro.md", "more"),
    ] {
        let Err(GateError::Protected { reason, .. }) = &r else {
            panic!("{r:?}")
        };
        assert!(reason.contains("read-only"), "{reason}");
    }
    assert_eq!(read(v.path(), "ro.md"), "---\nstatus: inbox\n---\nx\n");
}

#[test]
fn new_names_with_bidi_controls_are_refused() {
    let v = common::vault(&[("a.md", "x")]);
    let mut g = gate_on(v.path());
    let evil = "invoice\u{202E}dm.exe.md";
    assert!(matches!(g.create(evil, b"x"), Err(GateError::Jail { .. })));
    assert!(matches!(g.write(evil, b"x"), Err(GateError::Jail { .. })));
    assert!(matches!(
        g.move_file("a.md", evil),
        Err(GateError::Jail { .. })
    ));
    assert!(matches!(
        g.create("fold\u{2067}er/x.md", b"x"),
        Err(GateError::Jail { .. })
    ));
    assert_eq!(common::snapshot(v.path()).len(), 1);
}

#[cfg(unix)]
#[test]
fn new_files_get_the_usual_mode_and_replaced_files_keep_theirs() {
    use std::os::unix::fs::PermissionsExt;
    let v = common::vault(&[("keep.md", "x")]);
    std::fs::set_permissions(
        v.path().join("keep.md"),
        std::fs::Permissions::from_mode(0o640),
    )
    .expect("chmod");
    // the umask of this process, read without changing it for other threads for long
    // SAFETY: umask only swaps the process mask; it is put back on the next line
    let umask = unsafe {
        let m = libc::umask(0o022);
        libc::umask(m);
        m
    };
    let mut g = gate_on(v.path());
    let p = g.create("new.md", b"hello").expect("create");
    let mode = |rel: &str| {
        std::fs::metadata(v.path().join(rel))
            .expect("meta")
            .permissions()
            .mode()
            & 0o777
    };
    assert_eq!(mode(&p), 0o666 & !(umask as u32), "not 0600");
    g.write("keep.md", b"y").expect("write");
    assert_eq!(mode("keep.md"), 0o640);
}

/// The paths a model could be pointed at outside the vault or at something that is no file.
#[cfg(unix)]
fn hostile_vault() -> (assert_fs::TempDir, tempfile::TempDir) {
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret.md"), "TOP SECRET").expect("secret");
    let v = common::vault(&[("a.md", "hello [[b]]"), ("b.md", "bee")]);
    let root = v.path();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("alias.md"))
        .expect("symlink note");
    std::os::unix::fs::symlink(outside.path(), root.join("linked")).expect("symlink folder");
    std::os::unix::fs::symlink("/etc/passwd", root.join("passwd.md")).expect("symlink passwd");
    std::os::unix::fs::symlink("/dev/zero", root.join("zero.md")).expect("symlink zero");
    let fifo =
        std::ffi::CString::new(root.join("fifo.md").as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: a valid NUL-terminated path
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0, "mkfifo");
    (v, outside)
}

#[cfg(unix)]
#[test]
fn every_model_tool_refuses_symlinks_fifos_and_devices_without_hanging() {
    use crew::model::ToolCall;
    use serde_json::json;
    let (v, outside) = hostile_vault();
    let root: PathBuf = v.path().to_path_buf();
    let bad = [
        "alias.md",
        "linked/secret.md",
        "passwd.md",
        "zero.md",
        "fifo.md",
    ];
    let (tx, rx) = std::sync::mpsc::channel();
    let r = root.clone();
    // on a thread: a tool that blocks on the FIFO must fail the test, not hang it
    std::thread::spawn(move || {
        let mut g = gate_on(&r);
        let caps: Vec<String> = ["read", "write", "edit"].map(String::from).to_vec();
        let ctx = crew::model::tools::ToolContext {
            folders: &crew::crew::Folders::default(),
            capabilities: &caps,
            today: chrono::NaiveDate::from_ymd_opt(2026, 1, 1).expect("date"),
            request: "read and change everything",
            scope: None,
        };
        let mut answers = Vec::new();
        for path in bad {
            let calls = [
                ("read_note", json!({"path": path})),
                ("read_note", json!({"path": path, "offset": 10})),
                (
                    "edit_note",
                    json!({"path": path, "find": "SECRET", "replace": "x"}),
                ),
                (
                    "write_note",
                    json!({"path": path, "content": "x", "mode": "append"}),
                ),
                (
                    "write_note",
                    json!({"path": path, "content": "x", "mode": "overwrite"}),
                ),
                ("move_note", json!({"from": path, "to": "moved.md"})),
                ("move_note", json!({"from": "b.md", "to": path})),
            ];
            for (name, args) in calls {
                let call = ToolCall {
                    id: "1".into(),
                    name: name.into(),
                    arguments: Ok(args.clone()),
                };
                let out = crew::model::tools::execute(&mut g, &ctx, &call);
                answers.push((name, args, out));
            }
        }
        for (name, args) in [
            ("search_notes", json!({"query": "SECRET"})),
            ("search_notes", json!({"query": "root"})),
            ("list_notes", json!({})),
        ] {
            let call = ToolCall {
                id: "1".into(),
                name: name.into(),
                arguments: Ok(args.clone()),
            };
            let out = crew::model::tools::execute(&mut g, &ctx, &call);
            answers.push((name, args, out));
        }
        let _ = tx.send(answers);
    });
    let answers = rx
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a model tool hung (FIFO or device read)");
    for (name, args, out) in &answers {
        assert!(!out.contains("TOP SECRET"), "{name} {args}: {out}");
        assert!(!out.contains("root:"), "{name} {args}: {out}");
        assert!(out.len() < 10_000, "{name} {args}: {} bytes", out.len());
        if *name == "move_note" && args["from"] == "b.md" {
            // as a destination the name is only taken, never written through
            assert!(
                out.starts_with("error:") || out.contains(" 2.md"),
                "{name} {args}: {out}"
            );
        } else if !["search_notes", "list_notes"].contains(name) {
            assert!(out.starts_with("error:"), "{name} {args}: {out}");
        }
    }
    assert_eq!(
        std::fs::read_to_string(outside.path().join("secret.md")).expect("secret"),
        "TOP SECRET",
        "nothing outside the vault was written"
    );
    assert_eq!(std::fs::read_dir(outside.path()).expect("dir").count(), 1);
    for path in bad {
        assert!(
            std::fs::symlink_metadata(root.join(path)).is_ok(),
            "{path} is still there"
        );
    }
    assert!(
        std::fs::symlink_metadata(root.join("fifo.md")).is_ok_and(|m| !m.file_type().is_file()),
        "the FIFO was not replaced by a file"
    );
}

#[test]
fn a_model_read_of_a_huge_note_is_capped() {
    let v = common::vault(&[]);
    let big = "x".repeat((crew::gate::MODEL_READ_CAP + 1) as usize);
    std::fs::write(v.path().join("big.md"), &big).expect("big");
    let g = gate_on(v.path());
    let r = g.read_checked("big.md", crew::gate::MODEL_READ_CAP);
    assert!(matches!(r, Err(GateError::Unreadable { .. })), "{r:?}");
}

#[test]
fn a_frontmatter_of_100000_keys_is_read_and_edited_in_linear_time() {
    let mut text = String::from("---\n");
    for i in 0..100_000 {
        text.push_str(&format!("k{i:06}: v{i}\n"));
    }
    text.push_str("status: inbox\n---\nbody\n");
    assert!(text.len() > 1_400_000);
    let note = crew::vault::Note::parse_text("Big.md", &text);
    assert_eq!(note.property_str("status").as_deref(), Some("inbox"));
    let edited =
        crew::vault::edit::set_frontmatter_keys(&text, &[("status", Some("filed".into()))]);
    assert!(edited.ends_with("status: filed\n---\nbody\n"));
    // (quadratic, this took minutes: a test does not time it — a busy machine would fail a
    // bound — the CI's time limit and the benchmarks do)
    // a block too big for the full parser (the fast path declines odd shapes) is capped
    let odd = format!("---\n{}---\nbody\n", "k: &a [x]\n".repeat(30_000));
    let note = crew::vault::Note::parse_text("Odd.md", &odd);
    assert!(
        matches!(note.frontmatter, crew::vault::Frontmatter::Invalid { .. }),
        "{:?}",
        note.frontmatter
    );
}

/// A writer pauses far longer than the settle time, holding its one handle open, then goes on
/// writing: `crew watch` does not file the note until the writer closes it, so nothing is lost.
#[cfg(target_os = "linux")]
#[test]
fn watch_does_not_file_a_note_a_slow_writer_still_holds_open() {
    use std::io::Write as _;
    let v = common::vault(&[
        ("00-Inbox/.keep", ""),
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
    ]);
    let note = v.path().join("00-Inbox/Slow.md");
    let mut writer = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&note)
        .expect("open");
    writer
        .write_all(b"---\ntype: note\nproject: \"[[Alpha]]\"\n---\nfirst half\n")
        .expect("write");
    writer.flush().expect("flush");
    let mut watch = std::process::Command::new(assert_cmd::cargo::cargo_bin("crew"))
        .env("XDG_CACHE_HOME", common::test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .arg("--vault")
        .arg(v.path())
        .args(["watch", "--once", "--poll", "--settle", "0.2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("watch");
    // the pause of a slow writer: many settle intervals, the handle open all along
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert!(note.is_file(), "filed while a writer still held it open");
    assert!(
        watch.try_wait().expect("poll").is_none(),
        "watch --once waits for the held note"
    );
    writer.write_all(b"second half\n").expect("write");
    drop(writer);
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    let status = loop {
        if let Some(s) = watch.try_wait().expect("poll") {
            break s;
        }
        assert!(std::time::Instant::now() < deadline, "watch did not finish");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success());
    let filed = read(v.path(), "01-Projects/Alpha/Slow.md");
    assert!(filed.ends_with("first half\nsecond half\n"), "{filed}");
    assert!(!note.exists());
}

/// `crew undo` puts back the modification times of the notes it restores.
#[test]
fn undo_restores_modification_times() {
    let v = common::vault(&[
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
        (
            "00-Inbox/Plan.md",
            "---\ntype: note\nproject: \"[[Alpha]]\"\n---\nplan\n",
        ),
        ("Links.md", "see [[00-Inbox/Plan]]\n"),
    ]);
    let old = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000);
    for rel in ["00-Inbox/Plan.md", "Links.md"] {
        std::fs::File::options()
            .write(true)
            .open(v.path().join(rel))
            .and_then(|f| f.set_modified(old))
            .expect("set time");
    }
    let before = common::snapshot(v.path());
    common::crew(v.path())
        .args(["ask", "file my notes"])
        .assert()
        .success();
    assert!(v.path().join("01-Projects/Alpha/Plan.md").is_file());
    assert_ne!(read(v.path(), "Links.md"), "see [[00-Inbox/Plan]]\n");
    // a temporary file a killed undo would leave
    std::fs::write(v.path().join("01-Projects/.crew-tmp-AbC.part"), "half").expect("temp");
    common::crew(v.path()).arg("undo").assert().success();
    let after: std::collections::BTreeMap<_, _> = common::snapshot(v.path())
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".crew/"))
        .collect();
    let before: std::collections::BTreeMap<_, _> = before
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".crew/"))
        .collect();
    assert_eq!(
        before, after,
        "byte-identical, and the temporary file is gone"
    );
    for rel in ["00-Inbox/Plan.md", "Links.md"] {
        let t = std::fs::metadata(v.path().join(rel))
            .and_then(|m| m.modified())
            .expect("time");
        assert_eq!(t, old, "{rel}: time restored");
    }
}

/// One unreadable note is skipped with a warning and counted (exit 1); it does not stop the
/// run. Root reads anything, so the run is made as user `nobody` when the test runs as root.
#[cfg(target_os = "linux")]
#[test]
fn an_unreadable_note_is_skipped_with_a_warning_not_fatal() {
    use std::os::unix::fs::PermissionsExt;
    let v = common::vault(&[
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
        (
            "00-Inbox/Plan.md",
            "---\ntype: note\nproject: \"[[Alpha]]\"\n---\nplan\n",
        ),
        ("Secret.md", "nobody may read this"),
    ]);
    std::fs::set_permissions(
        v.path().join("Secret.md"),
        std::fs::Permissions::from_mode(0o000),
    )
    .expect("chmod");
    // SAFETY: geteuid has no preconditions
    let root = unsafe { libc::geteuid() } == 0;
    let mut cmd = if root {
        if !Path::new("/usr/bin/setpriv").exists() {
            common::skipped("running as root without setpriv: permissions do not stop reads");
            return;
        }
        // everything but Secret.md must be usable by `nobody`
        for e in walkdir::WalkDir::new(v.path()).into_iter().flatten() {
            let mode = if e.file_type().is_dir() { 0o777 } else { 0o666 };
            if e.file_name() != "Secret.md" {
                std::fs::set_permissions(e.path(), std::fs::Permissions::from_mode(mode))
                    .expect("chmod");
            }
        }
        let mut c = std::process::Command::new("/usr/bin/setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(assert_cmd::cargo::cargo_bin("crew"));
        c
    } else {
        std::process::Command::new(assert_cmd::cargo::cargo_bin("crew"))
    };
    let out = cmd
        .env("XDG_CACHE_HOME", common::test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .arg("--vault")
        .arg(v.path())
        .args(["ask", "file my notes"])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("Secret.md"),
        "the skipped note is named: {stdout}\n{stderr}"
    );
    assert!(
        v.path().join("01-Projects/Alpha/Plan.md").is_file(),
        "the rest of the vault was triaged: {stdout}\n{stderr}"
    );
}

/// A caller that planned byte offsets on the vault as loaded (as link fixes do) never has
/// them applied to a note that changed since: the edit is refused, and the next try sees the
/// note as it is now.
#[test]
fn an_offset_plan_on_a_note_changed_since_load_is_refused_then_replanned() {
    let v = common::vault(&[("Fix.md", "ä [[brokn]] end\n")]);
    let mut g = gate_on(v.path());
    let note = g.vault().note("Fix.md").expect("note").clone();
    let span = note.wikilinks[0].span.clone();
    std::fs::write(v.path().join("Fix.md"), "ÜSER ✓ ä [[brokn]] end\n").expect("user edit");
    let reps = vec![crew::vault::edit::Replacement {
        range: span,
        with: "[[broken]]".into(),
    }];
    let r = g.edit("Fix.md", "fix", |t| {
        crew::vault::edit::apply_replacements(t, reps)
    });
    assert!(matches!(r, Err(GateError::Changed { .. })), "{r:?}");
    assert_eq!(read(v.path(), "Fix.md"), "ÜSER ✓ ä [[brokn]] end\n");
    // planned again from the refreshed picture, the fix lands where the link is now
    let span = g.vault().note("Fix.md").expect("note").wikilinks[0]
        .span
        .clone();
    g.edit("Fix.md", "fix", |t| {
        crew::vault::edit::apply_replacements(
            t,
            vec![crew::vault::edit::Replacement {
                range: span,
                with: "[[broken]]".into(),
            }],
        )
    })
    .expect("edit");
    assert_eq!(read(v.path(), "Fix.md"), "ÜSER ✓ ä [[broken]] end\n");
}

/// A writing command that waited for the lock reads the vault once it holds it: it files
/// from the picture the other writer left, and both writers' link changes survive.
#[test]
fn a_command_that_waited_for_the_lock_works_on_what_the_other_writer_left() {
    let v = common::vault(&[
        ("01-Projects/P/_index.md", ""),
        ("00-Inbox/Y.md", "---\nproject: \"[[P]]\"\n---\ny\n"),
        ("Notes/X.md", "x\n"),
        ("Linker.md", "First [[Notes/X]] [[00-Inbox/Y]] end.\n"),
    ]);
    let dir = v.path().to_path_buf();
    let lock = crew::state::lock::VaultLock::acquire(
        &dir.join(".crew"),
        "test",
        std::time::Duration::ZERO,
    )
    .expect("lock");
    let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("crew"))
        .env("XDG_CACHE_HOME", common::test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .env("CREW_LOCK_WAIT_SECS", "60")
        .arg("--vault")
        .arg(&dir)
        .args(["ask", "file my notes"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("second crew");
    // not needed for the outcome, only so the waiting command has started before the other
    // writer changes the vault (the old order read the vault before waiting)
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut g = gate_on(&dir);
    g.move_file("Notes/X.md", "Other/X renamed.md")
        .expect("move");
    assert_eq!(
        read(&dir, "Linker.md"),
        "First [[X renamed]] [[00-Inbox/Y]] end.\n"
    );
    drop(lock);
    let out = child.wait_with_output().expect("wait");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("01-Projects/P/Y.md").is_file());
    assert_eq!(read(&dir, "Linker.md"), "First [[X renamed]] [[Y]] end.\n");
}

/// A writer that closed the note, let it be filed, then reopened the old name and went on
/// writing: nothing is lost (the rest is a note of its own, filed next to the first part) and
/// watch says what happened, so the user can merge the two.
#[cfg(target_os = "linux")]
#[test]
fn watch_reports_a_note_reopened_under_its_old_name_after_filing() {
    use std::io::{Read as _, Write as _};
    let v = common::vault(&[
        ("00-Inbox/.keep", ""),
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
    ]);
    let head = "---\ntype: note\nproject: \"[[Alpha]]\"\n---\n";
    std::fs::write(v.path().join("00-Inbox/Split.md"), format!("{head}first\n")).expect("w");
    let mut watch = std::process::Command::new(assert_cmd::cargo::cargo_bin("crew"))
        .env("XDG_CACHE_HOME", common::test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .arg("--vault")
        .arg(v.path())
        .args(["watch", "--poll", "--settle", "0.2"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("watch");
    let wait_for = |what: &str, cond: &dyn Fn() -> bool| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while !cond() {
            assert!(std::time::Instant::now() < deadline, "timed out: {what}");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    };
    let filed = v.path().join("01-Projects/Alpha/Split.md");
    wait_for("the first part filed", &|| filed.is_file());
    let mut again = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(v.path().join("00-Inbox/Split.md"))
        .expect("reopen");
    again
        .write_all(format!("{head}second\n").as_bytes())
        .expect("w");
    drop(again);
    let second = v.path().join("01-Projects/Alpha/Split 2.md");
    wait_for("the second part filed", &|| second.is_file());
    // SAFETY: kill with a valid pid and signal
    unsafe { libc::kill(watch.id() as i32, libc::SIGTERM) };
    let mut out = String::new();
    if let Some(mut s) = watch.stdout.take() {
        let _ = s.read_to_string(&mut out);
    }
    let _ = watch.wait();
    assert!(read(v.path(), "01-Projects/Alpha/Split.md").contains("first\n"));
    assert!(read(v.path(), "01-Projects/Alpha/Split 2.md").contains("second\n"));
    assert!(out.contains("appeared again after it was filed"), "{out}");
}

/// Programs that keep notes open and append to them while `crew ask "file my notes"` files
/// and rewrites those notes (issue #32, item 5): not one appended line is lost, neither by the
/// run nor by its undo. Each round appends to random notes through handles held open for a
/// few lines, as long as the run lasts.
#[cfg(target_os = "linux")]
#[test]
fn appenders_lose_no_line_while_crew_files_and_undoes() {
    use std::io::Write as _;
    use std::sync::atomic::{AtomicBool, Ordering};
    const NOTES: usize = 30;
    let inbox = |i: usize| format!("00-Inbox/N{i:03}.md");
    let filed = |i: usize| format!("01-Projects/P{}/N{i:03}.md", i % 3);
    let mut appended = 0;
    for round in 0..4u64 {
        let mut files = vec![("00-Inbox/.keep".to_string(), String::new())];
        for p in 0..3 {
            files.push((
                format!("01-Projects/P{p}/_index.md"),
                "---\ntype: project\n---\n".to_string(),
            ));
        }
        for i in 0..NOTES {
            files.push((
                inbox(i),
                format!(
                    "---\ntype: note\nproject: \"[[P{}]]\"\n---\nmarker {i}\nSee [[00-Inbox/N{:03}]].\n",
                    i % 3,
                    (i + 1) % NOTES
                ),
            ));
        }
        let v = common::vault_of(&files);
        let dir = v.path().to_path_buf();
        let mut lines = Vec::new();
        for command in [&["ask", "file my notes"][..], &["undo"][..]] {
            let stop = Arc::new(AtomicBool::new(false));
            let (d, s) = (dir.clone(), Arc::clone(&stop));
            let writer = std::thread::spawn(move || {
                let mut seed = 0x9e37_79b9_7f4a_7c15_u64 ^ (round << 32) ^ command.len() as u64;
                let mut rand = move |n: u64| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed % n
                };
                let mut out = Vec::new();
                let mut k = 0;
                while !s.load(Ordering::Relaxed) {
                    let i = rand(NOTES as u64) as usize;
                    let Some(mut f) = [inbox(i), filed(i)]
                        .iter()
                        .find_map(|p| std::fs::File::options().append(true).open(d.join(p)).ok())
                    else {
                        continue;
                    };
                    for _ in 0..1 + rand(3) {
                        let line = format!("appended r{round} {} #{k}\n", command[0]);
                        k += 1;
                        f.write_all(line.as_bytes()).expect("append");
                        out.push(line);
                        std::thread::sleep(std::time::Duration::from_micros(rand(3000)));
                    }
                    drop(f);
                    std::thread::sleep(std::time::Duration::from_micros(rand(2000)));
                }
                out
            });
            let out = common::crew(&dir).args(command).output().expect("crew");
            stop.store(true, Ordering::Relaxed);
            lines.extend(writer.join().expect("writer"));
            // a run may leave notes it could not file (held open) and an undo may refuse
            // (notes changed since the run): both fine; losing a line is not
            assert!(
                out.status.code().is_some_and(|c| c <= 2),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text: String = common::snapshot(&dir)
                .into_iter()
                .filter(|(k, _)| k.ends_with(".md") && !k.starts_with(".crew/"))
                .map(|(_, v)| String::from_utf8_lossy(&v).into_owned())
                .collect();
            for line in &lines {
                assert_eq!(
                    text.matches(line.as_str()).count(),
                    1,
                    "{line:?} lost or doubled"
                );
            }
            for i in 0..NOTES {
                assert_eq!(
                    text.matches(&format!("marker {i}\n")).count(),
                    1,
                    "note {i}"
                );
            }
        }
        appended += lines.len();
    }
    eprintln!("{appended} lines appended, none lost");
    assert!(appended > 0);
}
