//! The kill loop of `crash.rs`, for the postman's imports (an `.ics` calendar into meeting
//! notes, mail from a Maildir into notes) and for `crew agents new`. Each run is SIGKILLed at
//! points spread over its journal (see `common::kill`). After each kill every file is whole:
//! as it was before the run, or as an uninterrupted run leaves it, never anything between or
//! beside; then, alternately, the same command run again ends exactly where an uninterrupted
//! run ends, or `crew undo` puts the vault back byte for byte.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use common::kill::{self, Kill};

type Files = BTreeMap<String, Vec<u8>>;

/// Runs crew to the end, its output kept for the failure message.
fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    common::crew_process(dir, args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("run crew")
}

/// Every visible file of a vault (crew's hidden state left out).
fn visible(dir: &Path) -> Files {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
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

/// Crew's own running notes: the post-its and the agent log say when they were written, so
/// they differ from run to run; they must still be whole.
fn crew_log(path: &str) -> bool {
    path.starts_with("Meta/states/") || path == "Meta/agent-log.md"
}

/// `now` holds only whole files: each as in `before`, or as in `after` (an uninterrupted
/// run's result), and no file of `before` that `after` keeps is missing.
fn only_whole_files(now: &Files, before: &Files, after: &Files, when: &str) {
    for (path, bytes) in now {
        assert!(
            !path.contains(".crew-tmp"),
            "{when}: a temporary file is visible as {path}"
        );
        if crew_log(path) {
            let text = std::str::from_utf8(bytes).unwrap_or_else(|_| panic!("{when}: {path}"));
            let note = crew::vault::note::Note::parse_text(path.as_str(), text);
            assert!(
                !matches!(note.frontmatter, crew::vault::Frontmatter::Invalid { .. }),
                "{when}: {path} is broken:\n{text}"
            );
            continue;
        }
        let was = before.get(path) == Some(bytes);
        let will_be = after.get(path) == Some(bytes);
        assert!(
            was || will_be,
            "{when}: {path} is neither as before nor as a whole run leaves it:\n{}",
            String::from_utf8_lossy(bytes)
        );
    }
    for path in before.keys().filter(|p| after.contains_key(*p)) {
        assert!(now.contains_key(path), "{when}: {path} was lost");
    }
}

/// The files that are not crew's running notes.
fn notes_only(files: &Files) -> Files {
    files
        .iter()
        .filter(|(p, _)| !crew_log(p))
        .map(|(p, b)| (p.clone(), b.clone()))
        .collect()
}

/// What a kill loop runs: `args` on a vault `make` builds.
struct Loop<'a> {
    make: &'a dyn Fn(&Path),
    args: &'a [&'a str],
    kills: u64,
    /// How many notes an uninterrupted run adds.
    adds: usize,
}

/// Kills `args` at `kills` points of its journal on fresh vaults and checks each outcome;
/// returns how many kills hit the run while it worked.
fn kill_loop(l: &Loop) -> u64 {
    let probe = tempfile::tempdir().expect("tmp");
    (l.make)(probe.path());
    let before = visible(probe.path());
    let out = run(probe.path(), l.args);
    assert!(out.status.success(), "{:?}: {out:?}", l.args);
    let after = visible(probe.path());
    let total = kill::journal_bytes(probe.path());
    assert!(total > 0, "{:?} journals its writes", l.args);
    assert_eq!(
        notes_only(&after).len(),
        notes_only(&before).len() + l.adds,
        "{:?} adds its notes",
        l.args
    );

    let seed = kill::seed();
    let mut mid_run = 0;
    for k in 1..=l.kills {
        // a kill that finds the run finished (the pause outlasted what was left) is checked
        // too, then tried again, a bounded number of times, so each point is really hit
        for attempt in 0..3 {
            let at = total * k / (l.kills + 1);
            let pause = kill::pause(seed, k * 4 + attempt, 3000);
            let when = format!(
                "{:?} killed at {at} of {total} journal bytes + {pause:?} (seed {seed})",
                l.args
            );
            if kill_once(l, at, pause, k.is_multiple_of(2), &when, (&before, &after)) {
                mid_run += 1;
                break;
            }
        }
    }
    mid_run
}

/// One kill on a fresh vault, then `undo` or a re-run; whether the kill hit the running
/// command. `whole` is the vault before and after an uninterrupted run.
fn kill_once(
    l: &Loop,
    at: u64,
    pause: Duration,
    undo: bool,
    when: &str,
    whole: (&Files, &Files),
) -> bool {
    let (before, after) = whole;
    let dir = tempfile::tempdir().expect("tmp");
    (l.make)(dir.path());
    let original = visible(dir.path());
    assert_eq!(
        notes_only(&original),
        notes_only(before),
        "vaults are built alike"
    );
    let runs_before = kill::journal_runs(dir.path());
    let outcome = kill::kill_at(
        common::crew_process(dir.path(), l.args),
        dir.path(),
        at,
        pause,
    );
    only_whole_files(&visible(dir.path()), before, after, when);
    if undo {
        if kill::journal_runs(dir.path()) > runs_before {
            let undo = run(dir.path(), &["undo"]);
            assert!(undo.status.success(), "{when}: undo failed: {undo:?}");
        }
        assert_eq!(
            visible(dir.path()),
            original,
            "{when}: undo is not byte-identical"
        );
    } else {
        let rerun = run(dir.path(), l.args);
        assert!(rerun.status.success(), "{when}: re-run failed: {rerun:?}");
        let now = visible(dir.path());
        only_whole_files(&now, before, after, &format!("re-run after {when}"));
        assert_eq!(
            notes_only(&now),
            notes_only(after),
            "{when}: the re-run does not end where a whole run ends"
        );
    }
    matches!(outcome, Kill::MidRun { .. })
}

/// Notes of the user's that an import must leave as they are.
fn user_notes(dir: &Path) {
    std::fs::create_dir_all(dir.join(".obsidian")).expect("vault");
    std::fs::create_dir_all(dir.join("00-Inbox")).expect("inbox");
    std::fs::create_dir_all(dir.join("05-People")).expect("people");
    for i in 0..20 {
        std::fs::write(
            dir.join(format!("00-Inbox/Idea {i}.md")),
            format!("---\ntype: note\n---\nidea {i}, the user's own words\n"),
        )
        .expect("note");
    }
    std::fs::write(
        dir.join("05-People/Ana Lima.md"),
        "---\ntype: person\nemail: ana@example.org\n---\n# Ana Lima\n",
    )
    .expect("person");
}

const EVENTS: usize = 120;

#[test]
fn killed_calendar_import_leaves_whole_notes_and_a_rerun_or_undo_completes() {
    let cal = tempfile::tempdir().expect("tmp");
    let start = chrono::Local::now().date_naive();
    let mut ics = String::from("BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//crew tests//EN\r\n");
    for i in 0..EVENTS {
        // three a day, all inside the weeks an import looks ahead
        let day = start + chrono::Duration::days((i / 3) as i64);
        ics.push_str(&format!(
            "BEGIN:VEVENT\r\nUID:ev-{i}@test\r\nDTSTAMP:20260101T000000Z\r\nDTSTART;TZID=Europe/Rome:{}T{:02}0000\r\nDURATION:PT1H\r\nSUMMARY:Review {i}\r\nDESCRIPTION:Point {i}\\, then the next.\r\nEND:VEVENT\r\n",
            day.format("%Y%m%d"),
            9 + i % 3
        ));
    }
    ics.push_str("END:VCALENDAR\r\n");
    let file = cal.path().join("work.ics");
    std::fs::write(&file, ics).expect("ics");
    let config = format!(
        "calendar:\n  ics: [{}]\n  timezone: Europe/Rome\n",
        file.display()
    );
    let make = |dir: &Path| {
        user_notes(dir);
        std::fs::create_dir_all(dir.join(".crew")).expect("crew");
        std::fs::write(dir.join(".crew/config.yaml"), &config).expect("config");
    };
    let hits = kill_loop(&Loop {
        make: &make,
        args: &["ask", "import events"],
        kills: 8,
        adds: EVENTS,
    });
    assert!(hits >= 7, "only {hits} of 8 kills hit a running import");
}

const MAILS: usize = 50;

/// A Maildir of `MAILS` messages from a person the vault knows, so "save important emails"
/// saves each of them.
fn maildir(dir: &Path) {
    for s in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(dir.join(s)).expect("maildir");
    }
    let date = chrono::Local::now() - chrono::Duration::days(1);
    for i in 0..MAILS {
        let msg = format!(
            "From: Ana Lima <ana@example.org>\r\nTo: me@example.org\r\nSubject: Budget line {i}\r\nDate: {}\r\nMessage-ID: <m{i}@example.org>\r\n\r\nLine {i} of the budget needs a look.\r\n",
            date.to_rfc2822()
        );
        std::fs::write(dir.join(format!("new/{}.m{i}.host", 1000 + i)), msg).expect("deliver");
    }
}

#[test]
fn killed_mail_import_leaves_whole_notes_and_a_rerun_or_undo_completes() {
    let md = tempfile::tempdir().expect("tmp");
    maildir(md.path());
    let config = format!("mail:\n  maildir: {}\n", md.path().display());
    // the listing "save important emails" works from is made before, unkilled
    let make = |dir: &Path| {
        user_notes(dir);
        std::fs::create_dir_all(dir.join(".crew")).expect("crew");
        std::fs::write(dir.join(".crew/config.yaml"), &config).expect("config");
        let out = run(dir, &["ask", "check my email"]);
        assert!(out.status.success(), "{out:?}");
    };
    let hits = kill_loop(&Loop {
        make: &make,
        args: &["ask", "save important emails"],
        kills: 8,
        adds: MAILS,
    });
    assert!(hits >= 7, "only {hits} of 8 kills hit a running save");
}

/// The crew definition and the vault's files: everything but crew's run state (journals, run
/// logs, the lock, the index), the files undo sets aside, and a killed write's temporary,
/// which crew never reads as a definition and the next writer removes.
fn definition(dir: &Path) -> Files {
    common::snapshot(dir)
        .into_iter()
        .filter(|(p, _)| !p.starts_with(".crew/undone/") && !p.contains("/.crew-tmp-"))
        .collect()
}

/// The byte offsets at which each line of the vault's journals ends.
fn line_ends(dir: &Path) -> Vec<u64> {
    let mut ends = Vec::new();
    let mut at = 0u64;
    for run in std::fs::read_dir(dir.join(".crew/journal"))
        .expect("journal")
        .flatten()
    {
        let text = std::fs::read(run.path().join("journal.jsonl")).unwrap_or_default();
        for b in text {
            at += 1;
            if b == b'\n' {
                ends.push(at);
            }
        }
    }
    ends
}

/// `crew agents validate` after a kill passes, or names the half-made agent and what to do.
fn validate_names_a_half_made_agent(dir: &Path, when: &str) {
    let out = run(dir, &["agents", "validate"]);
    let text = String::from_utf8_lossy(&out.stdout);
    match out.status.code() {
        Some(0) => {}
        Some(2) => assert!(
            text.contains("agents/tax-helper.md:")
                && text.contains("run `crew agents new tax-helper` again")
                && text.contains(" 1 error(s)"),
            "{when}: validate does not say what to do:\n{text}"
        ),
        code => panic!("{when}: validate exited {code:?}:\n{text}"),
    }
}

const AGENTS_NEW: [&str; 7] = [
    "agents",
    "new",
    "tax-helper",
    "--description",
    "Keeps tax papers in order",
    "--triggers",
    "my taxes,tax papers",
];

/// Kills `crew agents new` before its first write and right after each journal line, on
/// vaults `make` builds; returns how many kills hit it running, and how many points there were.
fn agents_new_kill_loop(make: &dyn Fn(&Path), layout: &str) -> (usize, usize) {
    let probe = tempfile::tempdir().expect("tmp");
    make(probe.path());
    let before = definition(probe.path());
    let started = std::time::Instant::now();
    let out = run(probe.path(), &AGENTS_NEW);
    let took = started.elapsed();
    assert!(out.status.success(), "{layout}: {out:?}");
    let after = definition(probe.path());
    let ends = line_ends(probe.path());
    assert!(ends.len() >= 2, "{layout}: a file and a registry row");
    let seed = kill::seed();
    // before the first write, on a clock spread over the whole run; then right after each
    // journal line, up to a millisecond on: before, inside or after the write it announces
    let mut points: Vec<(u64, u64)> = vec![(0, took.as_micros() as u64)];
    points.extend(ends.iter().map(|e| (*e, 1000)));
    let slots = points.len() * 2;
    let mut mid_run = 0;
    for (i, (at, max_us)) in points.into_iter().enumerate() {
        for undo in [false, true] {
            // a kill that finds the command finished is checked too, then tried again
            for attempt in 0..3 {
                let pause =
                    kill::pause(seed, (i as u64 * 2 + u64::from(undo)) * 4 + attempt, max_us);
                let when = format!(
                    "{layout}: agents new killed at {at} journal bytes + {pause:?} (seed {seed})"
                );
                if agents_new_once(make, (at, pause), undo, &when, (&before, &after)) {
                    mid_run += 1;
                    break;
                }
            }
        }
    }
    (mid_run, slots)
}

/// One kill of `crew agents new` on a fresh vault; then validate, `undo` if asked, and the
/// same command again. Whether the kill hit it running.
fn agents_new_once(
    make: &dyn Fn(&Path),
    (at, pause): (u64, Duration),
    undo: bool,
    when: &str,
    (before, after): (&Files, &Files),
) -> bool {
    let dir = tempfile::tempdir().expect("tmp");
    make(dir.path());
    let runs_before = kill::journal_runs(dir.path());
    let outcome = kill::kill_at(
        common::crew_process(dir.path(), &AGENTS_NEW),
        dir.path(),
        at,
        pause,
    );
    let when = format!("{when}: {outcome:?}");
    only_whole_files(&definition(dir.path()), before, after, &when);
    validate_names_a_half_made_agent(dir.path(), &when);
    if undo && kill::journal_runs(dir.path()) > runs_before {
        let out = run(dir.path(), &["undo"]);
        assert!(out.status.success(), "{when}: undo failed: {out:?}");
        assert_eq!(
            &definition(dir.path()),
            before,
            "{when}: undo is not byte-identical"
        );
    }
    // the same command, run again, finishes the agent or finds it done
    let out = run(dir.path(), &AGENTS_NEW);
    assert!(out.status.success(), "{when}: the retry failed: {out:?}");
    assert_eq!(
        &definition(dir.path()),
        after,
        "{when}: the retry does not end where a whole run ends"
    );
    validate_names_a_half_made_agent(dir.path(), &when);
    matches!(outcome, Kill::MidRun { .. })
}

/// A vault with `crew init --adopt`'s own crew in `.crew/`.
fn adopted(dir: &Path) {
    std::fs::create_dir_all(dir.join(".obsidian")).expect("vault");
    std::fs::write(dir.join("note.md"), "x").expect("note");
    let out = common::crew_bare()
        .args(["init", "--adopt"])
        .arg(dir)
        .output()
        .expect("init");
    assert!(out.status.success(), "{out:?}");
}

/// The anchor's Claude Code layout (`.claude/`), whose agent directory gets a section too.
fn anchor(dir: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault");
    for e in walkdir::WalkDir::new(&src).into_iter().flatten() {
        let to = dir.join(e.path().strip_prefix(&src).expect("under"));
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(e.path(), &to).expect("copy");
        }
    }
    std::fs::create_dir_all(dir.join(".obsidian")).expect("vault");
}

#[test]
fn killed_agents_new_is_finished_by_the_same_command_or_undone() {
    for (make, layout) in [
        (&adopted as &dyn Fn(&Path), "crew's layout"),
        (&anchor, "Claude Code's layout"),
    ] {
        let (hits, slots) = agents_new_kill_loop(make, layout);
        assert!(
            hits + 2 >= slots,
            "{layout}: only {hits} of {slots} kills hit a running `agents new`"
        );
    }
}
