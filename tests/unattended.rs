//! Unattended operation for real: `crew watch` on a temporary vault (slow writers, bursts,
//! notes that cannot be filed, SIGTERM), `crew schedule` against a fake crontab and a temporary
//! systemd directory, and two writers at once.

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::{crew, vault};
use predicates::prelude::*;

fn with_project() -> assert_fs::TempDir {
    vault(&[
        ("00-Inbox/.keep", ""),
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
    ])
}

fn spawn_watch(v: &Path, extra: &[&str]) -> Child {
    Command::new(assert_cmd::cargo::cargo_bin("crew"))
        .env("XDG_CACHE_HOME", common::test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .arg("--vault")
        .arg(v)
        .arg("watch")
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn crew watch")
}

fn stop(mut child: Child) -> (i32, String) {
    Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill");
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            let mut out = String::new();
            if let Some(mut s) = child.stdout.take() {
                use std::io::Read as _;
                let _ = s.read_to_string(&mut out);
            }
            return (status.code().unwrap_or(-1), out);
        }
        assert!(
            Instant::now() < deadline,
            "crew watch did not stop on SIGTERM"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn runs(v: &Path) -> usize {
    std::fs::read_dir(v.join(".crew/runs"))
        .map(|rd| rd.count())
        .unwrap_or(0)
}

fn wait_for(what: &str, secs: u64, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

const NOTE_HEAD: &str = "---\ntype: note\nproject: \"[[Alpha]]\"\n---\n";

#[test]
fn once_files_what_has_settled_and_exits() {
    let v = with_project();
    std::fs::write(v.path().join("00-Inbox/Plan.md"), NOTE_HEAD).expect("write");
    std::thread::sleep(Duration::from_millis(300));
    crew(v.path())
        .args(["watch", "--once", "--settle", "0.2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 filed"));
    assert!(v.path().join("01-Projects/Alpha/Plan.md").exists());
}

#[test]
fn a_note_written_slowly_is_moved_only_when_complete_and_sigterm_stops_cleanly() {
    let v = with_project();
    let watcher = spawn_watch(v.path(), &["--settle", "1"]);
    std::thread::sleep(Duration::from_millis(500));
    let inbox_note = v.path().join("00-Inbox/Slow.md");
    let mut full = String::from(NOTE_HEAD);
    {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&inbox_note)
            .expect("open");
        f.write_all(NOTE_HEAD.as_bytes()).expect("write");
        for i in 0..8 {
            std::thread::sleep(Duration::from_millis(300));
            let chunk = format!("line {i} of a note that takes a while to write\n");
            f.write_all(chunk.as_bytes()).expect("append");
            f.flush().expect("flush");
            full.push_str(&chunk);
            assert!(
                inbox_note.exists(),
                "the note was moved while it was still being written (after chunk {i})"
            );
        }
    }
    let dest = v.path().join("01-Projects/Alpha/Slow.md");
    wait_for("the settled note to be filed", 20, || dest.exists());
    let filed = std::fs::read_to_string(&dest).expect("filed");
    assert!(
        filed.contains("line 7 of a note"),
        "the whole note arrived: {filed}"
    );
    assert!(!inbox_note.exists());
    let (code, out) = stop(watcher);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("stopped: 1 run(s)"), "{out}");
}

#[test]
fn a_burst_is_one_run_and_an_unfileable_note_is_not_retried() {
    let v = with_project();
    let watcher = spawn_watch(v.path(), &["--settle", "1"]);
    std::thread::sleep(Duration::from_millis(500));
    for i in 0..200 {
        std::fs::write(
            v.path().join(format!("00-Inbox/Burst {i:03}.md")),
            NOTE_HEAD,
        )
        .expect("write");
    }
    std::fs::write(
        v.path().join("00-Inbox/Homeless.md"),
        "no frontmatter, no links",
    )
    .expect("write");
    wait_for("the burst to be filed", 40, || {
        std::fs::read_dir(v.path().join("01-Projects/Alpha"))
            .map(|d| d.count())
            .unwrap_or(0)
            >= 201
    });
    wait_for("the run log", 5, || runs(v.path()) >= 1);
    std::thread::sleep(Duration::from_secs(3));
    assert_eq!(
        runs(v.path()),
        1,
        "200 notes and one unfileable note made exactly one run"
    );
    assert!(v.path().join("00-Inbox/Homeless.md").exists());
    let (code, _) = stop(watcher);
    assert_eq!(code, 0);
}

#[test]
fn polling_watcher_works_too() {
    let v = with_project();
    let watcher = spawn_watch(v.path(), &["--poll", "--settle", "0.5"]);
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(v.path().join("00-Inbox/Polled.md"), NOTE_HEAD).expect("write");
    wait_for("the polled note to be filed", 20, || {
        v.path().join("01-Projects/Alpha/Polled.md").exists()
    });
    let (code, _) = stop(watcher);
    assert_eq!(code, 0);
}

#[test]
fn a_second_writer_waits_then_names_the_holder_and_readers_never_block() {
    let v = with_project();
    std::fs::write(v.path().join("00-Inbox/Plan.md"), NOTE_HEAD).expect("write");
    let state = v.path().join(".crew");
    let lock =
        crew::state::lock::VaultLock::acquire(&state, "watch", Duration::ZERO).expect("lock");
    crew(v.path())
        .env("CREW_LOCK_WAIT_SECS", "0.5")
        .args(["ask", "file my notes"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("another crew command is writing")
                .and(predicate::str::contains("crew watch")),
        );
    assert!(
        v.path().join("00-Inbox/Plan.md").exists(),
        "nothing moved while the lock was held"
    );
    crew(v.path()).args(["vault", "stats"]).assert().success();
    crew(v.path())
        .args(["search", "alpha"])
        .assert()
        .code(predicate::in_iter([0, 1]));
    drop(lock);
    crew(v.path())
        .args(["ask", "file my notes"])
        .assert()
        .success();
    assert!(v.path().join("01-Projects/Alpha/Plan.md").exists());
}

/// A folder of fake `crontab` and `systemctl` commands: crontab keeps its table in a file,
/// systemctl logs its arguments.
fn fake_bin(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    let table = dir.join("crontab.txt");
    let log = dir.join("systemctl.log");
    let crontab = format!(
        "#!/bin/sh\nif [ \"$1\" = \"-l\" ]; then\n  [ -f '{t}' ] || {{ echo 'no crontab for user' >&2; exit 1; }}\n  cat '{t}'\nelif [ \"$1\" = \"-\" ]; then\n  cat > '{t}'\nfi\n",
        t = table.display()
    );
    let systemctl = format!("#!/bin/sh\necho \"$@\" >> '{}'\n", log.display());
    for (name, text) in [("crontab", crontab), ("systemctl", systemctl)] {
        let p = bin.join(name);
        std::fs::write(&p, text).expect("write fake");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
    }
    bin
}

fn with_fakes(cmd: &mut assert_cmd::Command, fakes: &Path, bin: &Path) {
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    cmd.env("PATH", path)
        .env("CREW_SYSTEMD_DIR", fakes.join("systemd"));
}

#[test]
fn schedule_with_cron_touches_only_its_own_lines() {
    let v = with_project();
    let fakes = tempfile::tempdir().expect("tmp");
    let bin = fake_bin(fakes.path());
    std::fs::write(
        fakes.path().join("crontab.txt"),
        "MAILTO=me\n0 1 * * * /usr/bin/backup\n",
    )
    .expect("seed");
    // a dry run shows the lines and leaves the crontab as it was
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args([
        "schedule",
        "install",
        "--cron",
        "--at",
        "04:15",
        "--watch",
        "--dry-run",
    ])
    .assert()
    .success()
    .stdout(predicate::str::contains("Would install").and(predicate::str::contains("15 4 * * *")));
    assert_eq!(
        std::fs::read_to_string(fakes.path().join("crontab.txt")).expect("table"),
        "MAILTO=me\n0 1 * * * /usr/bin/backup\n"
    );
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "install", "--cron", "--at", "04:15", "--watch"])
        .assert()
        .success();
    let table = std::fs::read_to_string(fakes.path().join("crontab.txt")).expect("table");
    assert!(
        table.starts_with("MAILTO=me\n0 1 * * * /usr/bin/backup\n"),
        "{table}"
    );
    assert!(
        table.contains("15 4 * * * '")
            && table.contains("maintain --fix")
            && table.contains("@reboot"),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "--vault '{}'",
            v.path().canonicalize().expect("canon").display()
        )),
        "absolute vault path: {table}"
    );
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "show"])
        .assert()
        .success()
        .stdout(predicate::str::contains("maintain --fix"));
    // installing again replaces, never duplicates
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "install", "--cron"]).assert().success();
    let table = std::fs::read_to_string(fakes.path().join("crontab.txt")).expect("table");
    assert_eq!(table.matches("# crew:begin").count(), 1, "{table}");
    let installed = std::fs::read_to_string(fakes.path().join("crontab.txt")).expect("table");
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "remove", "--dry-run"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Would remove")
                .and(predicate::str::contains("maintain --fix")),
        );
    assert_eq!(
        std::fs::read_to_string(fakes.path().join("crontab.txt")).expect("table"),
        installed,
        "remove --dry-run changed the crontab"
    );
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "remove"]).assert().success();
    assert_eq!(
        std::fs::read_to_string(fakes.path().join("crontab.txt")).expect("table"),
        "MAILTO=me\n0 1 * * * /usr/bin/backup\n"
    );
}

#[test]
fn schedule_with_systemd_writes_units_and_removes_them() {
    let v = with_project();
    let fakes = tempfile::tempdir().expect("tmp");
    let bin = fake_bin(fakes.path());
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "install", "--systemd", "--watch", "--dry-run"])
        .assert()
        .success()
        .stdout(predicate::str::contains("OnCalendar").and(predicate::str::contains("Dry run")));
    assert!(
        !fakes.path().join("systemd").exists(),
        "a dry run wrote units"
    );
    assert!(
        !fakes.path().join("systemctl.log").exists(),
        "a dry run called systemctl"
    );
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "install", "--systemd", "--watch"])
        .assert()
        .success();
    let units: Vec<String> = std::fs::read_dir(fakes.path().join("systemd"))
        .expect("units")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(units.len(), 3, "{units:?}");
    let timer = units.iter().find(|u| u.ends_with(".timer")).expect("timer");
    assert!(
        std::fs::read_to_string(fakes.path().join("systemd").join(timer))
            .expect("timer")
            .contains("OnCalendar=*-*-* 03:30:00")
    );
    let log = std::fs::read_to_string(fakes.path().join("systemctl.log")).expect("log");
    assert!(
        log.contains("--user daemon-reload")
            && log.contains(&format!("--user enable --now {timer}")),
        "{log}"
    );
    let mut c = crew(v.path());
    with_fakes(&mut c, fakes.path(), &bin);
    c.args(["schedule", "remove"]).assert().success();
    assert_eq!(
        std::fs::read_dir(fakes.path().join("systemd"))
            .expect("dir")
            .count(),
        0
    );
    crew(v.path())
        .args(["schedule", "install", "--cron", "--at", "25:00"])
        .assert()
        .code(2);
}

/// A vault path with a line break cannot go into a crontab line or a unit file: refused with
/// the path named (exit 2), and neither the crontab nor the units folder is touched.
#[test]
fn schedule_refuses_a_vault_path_with_a_line_break() {
    let parent = tempfile::tempdir().expect("tmp");
    let v = parent.path().join("two\nlines");
    std::fs::create_dir_all(v.join(".obsidian")).expect("vault");
    let fakes = tempfile::tempdir().expect("tmp");
    let bin = fake_bin(fakes.path());
    for backend in ["--cron", "--systemd"] {
        for dry in [true, false] {
            let mut c = crew(&v);
            with_fakes(&mut c, fakes.path(), &bin);
            c.args(["schedule", "install", backend]);
            if dry {
                c.arg("--dry-run");
            }
            c.assert().code(2).stderr(
                predicate::str::contains("two\\nlines").and(predicate::str::contains("line break")),
            );
        }
    }
    assert!(!fakes.path().join("crontab.txt").exists());
    assert!(!fakes.path().join("systemd").exists());
    assert!(!fakes.path().join("systemctl.log").exists());
}
