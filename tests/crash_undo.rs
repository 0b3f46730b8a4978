//! Kills during `crew undo`: undo is SIGKILLed again and again at growing delays. After each
//! kill every note exists exactly once and whole (its triaged or its original version); the
//! next undo goes on where the killed one stopped; the last one leaves the vault byte-identical
//! to before the run, with no temporary file anywhere.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const NOTES: usize = 200;

fn build_vault(dir: &Path) {
    // a vault is a folder Obsidian has opened
    std::fs::create_dir_all(dir.join(".obsidian")).expect("obsidian");
    for p in 0..4 {
        std::fs::create_dir_all(dir.join(format!("01-Projects/P{p}"))).expect("project");
    }
    std::fs::create_dir_all(dir.join("00-Inbox")).expect("inbox");
    for i in 0..NOTES {
        let next = (i + 1) % NOTES;
        let text = format!(
            "---\ntype: note\nproject: \"[[P{}]]\"\nstatus: inbox\n---\nmarker-{i:03}\nSee [[00-Inbox/N{next:03}]].\n",
            i % 4
        );
        std::fs::write(dir.join(format!("00-Inbox/N{i:03}.md")), text).expect("note");
    }
}

/// Every file of the vault but crew's state folder, temporaries included.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".crew")
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).expect("under");
            (
                rel.to_string_lossy().into_owned(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

fn check(dir: &Path, when: &str) {
    let mut seen = vec![0usize; NOTES];
    for (path, bytes) in files(dir) {
        if path.contains(".crew-tmp-") {
            continue; // a killed write's temporary: invisible to Obsidian, removed later
        }
        let text = std::str::from_utf8(&bytes).expect("utf-8");
        if let Some(pos) = text.find("marker-") {
            let n: usize = text[pos + 7..pos + 10].parse().expect("marker");
            seen[n] += 1;
            assert!(text.starts_with("---\ntype: note\n"), "{when}: {path}");
            assert!(text.contains("\nSee [["), "{when}: {path} lost its body");
        }
    }
    for (n, count) in seen.iter().enumerate() {
        assert_eq!(*count, 1, "{when}: note {n} exists {count} times");
    }
}

#[test]
fn undo_killed_anywhere_loses_nothing_and_a_second_undo_completes() {
    let dir = tempfile::tempdir().expect("tmp");
    let v = dir.path();
    build_vault(v);
    let before = files(v);
    assert!(
        common::crew_process(v, &["ask", "file my notes"])
            .status()
            .expect("triage")
            .success()
    );
    assert_ne!(before, files(v));
    let mut delay = Duration::from_millis(3);
    let mut kills = 0;
    let started = Instant::now();
    loop {
        let mut child = common::crew_process(v, &["undo"])
            .stderr(Stdio::piped())
            .spawn()
            .expect("undo");
        std::thread::sleep(delay);
        let finished = child.try_wait().expect("poll").is_some();
        let _ = child.kill();
        let out = child.wait_with_output().expect("wait");
        let status = out.status;
        check(v, &format!("undo killed after {delay:?}"));
        if finished {
            // a kill that landed after the undo marked the run undone leaves the next undo
            // nothing to do (exit 2): the comparison below is what counts
            eprintln!(
                "last undo: {status}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            break;
        }
        kills += 1;
        delay = delay * 3 / 2;
        assert!(
            started.elapsed() < Duration::from_secs(240),
            "undo never finished"
        );
    }
    assert!(
        kills >= 3,
        "only {kills} kills landed: the undo was too quick"
    );
    let after = files(v);
    assert!(
        after.keys().all(|k| !k.contains(".crew-tmp-")),
        "temporary files left: {:?}",
        after
            .keys()
            .filter(|k| k.contains(".crew-tmp-"))
            .collect::<Vec<_>>()
    );
    assert_eq!(before, after, "byte-identical to before the run");
}
