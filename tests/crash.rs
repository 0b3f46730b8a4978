//! Crash safety: crew is killed (SIGKILL) at many points during a large triage and during
//! `maintain --fix`. After each kill every note exists exactly once, whole, with either its old
//! or its new content; no temporary file is left where it would be read as a note; and a re-run
//! (or `crew undo`) completes the job. Kill points are spread over the run's journal, not over
//! time (see `common::kill`), so a slow or loaded machine cannot make them all miss; the postman's
//! imports and `crew agents new` have their kill loops in `crash_imports.rs`.

mod common;

use common::kill::{self, Kill};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

const NOTES: usize = 300;
const PROJECTS: usize = 5;

fn build_vault(dir: &Path) {
    std::fs::create_dir_all(dir.join(".obsidian")).expect("vault marker");
    for p in 0..PROJECTS {
        std::fs::create_dir_all(dir.join(format!("01-Projects/P{p}"))).expect("project");
    }
    std::fs::create_dir_all(dir.join("00-Inbox")).expect("inbox");
    for i in 0..NOTES {
        let next = (i + 1) % NOTES;
        let text = format!(
            "---\ntype: note\nproject: \"[[P{}]]\"\nstatus: inbox\n---\nmarker-{i:03}\nSee [[00-Inbox/N{next:03}]] and [[N{next:03}|the next one]].\n",
            i % PROJECTS
        );
        std::fs::write(dir.join(format!("00-Inbox/N{i:03}.md")), text).expect("note");
    }
}

/// Every visible file of the vault (crew's hidden state and temporaries left out).
fn visible(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .flatten()
    {
        if e.file_type().is_file() {
            let rel = e
                .path()
                .strip_prefix(dir)
                .expect("under")
                .to_string_lossy()
                .into_owned();
            out.insert(rel, std::fs::read(e.path()).expect("read"));
        }
    }
    out
}

/// The body with link targets blanked, so old and rewritten links compare equal.
fn shape(body: &str) -> String {
    let re = regex::Regex::new(r"\[\[[^\]|]*").expect("regex");
    re.replace_all(body, "[[").into_owned()
}

fn check_invariants(dir: &Path, when: &str) {
    let files = visible(dir);
    let mut seen = vec![0usize; NOTES];
    for (path, bytes) in &files {
        assert!(
            !path.contains(".crew-tmp"),
            "{when}: a temporary file is visible as {path}"
        );
        let text =
            std::str::from_utf8(bytes).unwrap_or_else(|_| panic!("{when}: {path} is not UTF-8"));
        if let Some(pos) = text.find("marker-") {
            let n: usize = text[pos + 7..pos + 10].parse().expect("marker number");
            seen[n] += 1;
            let note = crew::vault::note::Note::parse_text(path.as_str(), text);
            assert!(
                matches!(note.frontmatter, crew::vault::Frontmatter::Parsed),
                "{when}: {path} frontmatter broken:\n{text}"
            );
            let body = &text[note.frontmatter_block.as_ref().expect("block").block.end..];
            let next = (n + 1) % NOTES;
            let expected = format!(
                "marker-{n:03}\nSee [[00-Inbox/N{next:03}]] and [[N{next:03}|the next one]].\n"
            );
            assert_eq!(shape(body), shape(&expected), "{when}: {path} body damaged");
        }
    }
    for (n, count) in seen.iter().enumerate() {
        assert_eq!(*count, 1, "{when}: note {n} exists {count} times");
    }
}

fn kill_after(dir: &Path, args: &[&str], delay: Duration) -> bool {
    let mut child = common::crew_process(dir, args).spawn().expect("spawn");
    std::thread::sleep(delay);
    let finished = child.try_wait().expect("poll").is_some();
    let _ = child.kill();
    let _ = child.wait();
    !finished
}

fn unresolved(dir: &Path) -> i64 {
    let v = crew::vault::Vault::open(dir).expect("open");
    crew::vault::stats::VaultStats::of(&v).wikilinks_unresolved as i64
}

/// After a kill, alternately: `crew undo` puts the vault back byte for byte, or a re-run
/// files everything with every link resolved.
fn undo_or_rerun(dir: &Path, original: &BTreeMap<String, Vec<u8>>, k: u64, when: &str) {
    if k.is_multiple_of(2) {
        // undo restores the vault exactly, whatever point the run reached
        let journaled = dir.join(".crew/journal").exists();
        let undo = common::crew_process(dir, &["undo"]).status().expect("undo");
        if journaled {
            assert!(undo.success(), "{when}: undo after a kill must complete");
        }
        assert_eq!(
            original,
            &visible(dir),
            "{when}: undo is not byte-identical"
        );
    } else {
        assert!(
            common::crew_process(dir, &["ask", "file my notes"])
                .status()
                .expect("rerun")
                .success(),
            "{when}: re-run failed"
        );
        check_invariants(dir, &format!("re-run after {when}"));
        let inbox_left = std::fs::read_dir(dir.join("00-Inbox"))
            .expect("inbox")
            .count();
        assert_eq!(inbox_left, 0, "{when}: the re-run filed everything");
        assert_eq!(
            unresolved(dir),
            0,
            "{when}: links converge after the re-run"
        );
    }
}

#[test]
fn killed_triage_keeps_every_note_and_a_rerun_or_undo_completes() {
    // one full run: its journal's length is the scale the kill points are spread over
    let probe = tempfile::tempdir().expect("tmp");
    build_vault(probe.path());
    assert!(
        common::crew_process(probe.path(), &["ask", "file my notes"])
            .status()
            .expect("run")
            .success()
    );
    let total = kill::journal_bytes(probe.path());
    check_invariants(probe.path(), "after a full run");
    assert_eq!(unresolved(probe.path()), 0);
    assert!(total > 0, "a triage journals its moves");

    let seed = kill::seed();
    let mut mid_run = 0;
    for k in 1..=10u64 {
        // each kill lands after a share of the run's changes, plus up to 3 ms so it also
        // falls inside a write; a run that ends first (the pause outlasted what was left) is
        // tried again, a bounded number of times, so every kill point is really hit
        for attempt in 0..3u64 {
            let dir = tempfile::tempdir().expect("tmp");
            build_vault(dir.path());
            let original = visible(dir.path());
            let at = total * k / 11;
            let pause = kill::pause(seed, k * 8 + attempt, 3000);
            let outcome = kill::kill_at(
                common::crew_process(dir.path(), &["ask", "file my notes"]),
                dir.path(),
                at,
                pause,
            );
            let when =
                format!("kill {k} at {at} of {total} journal bytes + {pause:?} (seed {seed})");
            check_invariants(dir.path(), &when);
            if let Kill::MidRun { .. } = outcome {
                mid_run += 1;
                undo_or_rerun(dir.path(), &original, k, &when);
                break;
            }
        }
    }
    // a kill that found the run finished tests nothing: the loop must interrupt real work
    assert!(
        mid_run >= 9,
        "only {mid_run} of 10 kills hit a running triage (seed {seed})"
    );
}

#[test]
fn killed_maintenance_fix_keeps_every_note() {
    let make = |dir: &Path| {
        build_vault(dir);
        // links that differ from their target only by case of an accent: safe fixes
        for i in 0..NOTES {
            let p = dir.join(format!("00-Inbox/N{i:03}.md"));
            let t = std::fs::read_to_string(&p)
                .expect("read")
                .replace("[[00-Inbox/N", "[[00-Inbox/n");
            std::fs::write(&p, t.replace("status: inbox\n", "")).expect("write");
        }
    };
    let probe = tempfile::tempdir().expect("tmp");
    make(probe.path());
    let start = std::time::Instant::now();
    let _ = common::crew_process(probe.path(), &["maintain", "--fix"])
        .status()
        .expect("run");
    let full = start.elapsed();
    check_invariants(probe.path(), "after a full maintenance");
    for k in 1..=6u32 {
        let dir = tempfile::tempdir().expect("tmp");
        make(dir.path());
        kill_after(dir.path(), &["maintain", "--fix"], full * k / 7);
        check_invariants(dir.path(), &format!("maintenance kill {k}"));
        let _ = common::crew_process(dir.path(), &["maintain", "--fix"])
            .status()
            .expect("rerun");
        check_invariants(dir.path(), &format!("maintenance re-run {k}"));
    }
}

#[test]
fn temporary_files_left_by_a_killed_run_are_removed_by_the_next_writer() {
    let dir = tempfile::tempdir().expect("tmp");
    build_vault(dir.path());
    let stale = dir.path().join("00-Inbox/.crew-tmp-AbCdEf.part");
    std::fs::write(&stale, "half a note").expect("write");
    let keep = dir.path().join("00-Inbox/.my-own-hidden-file");
    std::fs::write(&keep, "not crew's").expect("write");
    assert!(
        common::crew_process(dir.path(), &["vault", "stats"])
            .status()
            .expect("stats")
            .success()
    );
    assert!(stale.exists(), "read-only commands remove nothing");
    assert!(
        common::crew_process(dir.path(), &["ask", "file my notes"])
            .status()
            .expect("run")
            .success()
    );
    assert!(!stale.exists(), "the writer cleaned up");
    assert!(keep.exists(), "other hidden files are left alone");
}
