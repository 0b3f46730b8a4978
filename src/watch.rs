//! `crew watch`: file inbox notes as they settle, unattended.
//!
//! File-system events (native, or polled with `--poll` where native events never arrive: network
//! shares, WSL mounts) only wake the loop; what counts is crew's own look at the inbox. A note is
//! *settled* when its size and modification time have not changed for the settle interval.
//! Editors and sync tools write through temporary files and renames, so a note still changing is
//! never handed to the sorter: it is held out of the run. A burst of notes becomes one run once
//! they have all settled (or after `max_wait`, with the stragglers held). Notes the sorter left
//! in the inbox are remembered by size and time and not retried until they change.
//!
//! Settled is not enough: a writer may pause longer than the settle interval and go on writing
//! through the same open file. So a note some process holds open for writing is never filed
//! (on Linux crew asks `/proc` which open files are open for writing — a direct answer, in
//! native and polling mode alike; elsewhere only the settle rule applies). And should a writer
//! open the note in the instant between that look and the move, its handle points at the old
//! copy crew replaced: crew keeps that copy alive, and once the writer lets go, adds what it
//! wrote late to the filed note (or, when the writer rewrote it from the start, puts that
//! version back in the inbox to be filed again). No late write is lost.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use notify::{PollWatcher, RecursiveMode};
use notify_debouncer_full::{RecommendedCache, new_debouncer, new_debouncer_opt};

use crate::crew::Crew;
use crate::run::{self, Options};

#[derive(Debug, Clone)]
pub struct WatchOptions {
    /// Use a polling watcher instead of native events.
    pub poll: bool,
    /// Triage what has settled, then exit.
    pub once: bool,
    /// How long a note must stay unchanged to count as settled.
    pub settle: Duration,
    /// How long a burst may keep a settled note waiting for its slower neighbours.
    pub max_wait: Duration,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            poll: false,
            once: false,
            settle: Duration::from_secs(2),
            max_wait: Duration::from_secs(30),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    #[error(
        "the inbox folder {0} does not exist; create it or map the inbox role in .crew/config.yaml"
    )]
    NoInbox(PathBuf),
    #[error("cannot watch {path}: {detail}; try --poll")]
    Watcher { path: PathBuf, detail: String },
}

/// What a watch session did.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct WatchSummary {
    pub runs: usize,
    pub errors: usize,
    pub filed: usize,
}

/// An open file of the inbox that some process (crew included) can write through.
#[derive(Debug)]
struct Writer {
    /// The `/proc/<pid>/fd/<n>` link: opening it reaches the file even once it is unlinked.
    fd: PathBuf,
    /// The file's name in the inbox.
    name: String,
    /// The name no longer leads to this file (it was replaced or moved away).
    deleted: bool,
    ino: u64,
}

/// The inbox files some process holds open for writing.
#[cfg(target_os = "linux")]
fn writers(inbox: &Path) -> Vec<Writer> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    let Ok(dir) = inbox.canonicalize() else {
        return out;
    };
    let prefix = format!("{}/", dir.display());
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return out;
    };
    for p in procs.flatten() {
        let pid = p.file_name();
        if !pid.to_string_lossy().bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // processes of other users are not readable: their writes are not seen (the settle
        // rule still applies to them)
        let Ok(fds) = std::fs::read_dir(p.path().join("fd")) else {
            continue;
        };
        for fd in fds.flatten() {
            let Ok(target) = std::fs::read_link(fd.path()) else {
                continue;
            };
            let target = target.to_string_lossy();
            let Some(rest) = target.strip_prefix(&prefix) else {
                continue;
            };
            let (name, deleted) = match rest.strip_suffix(" (deleted)") {
                Some(n) => (n, true),
                None => (rest, false),
            };
            if name.contains('/') {
                continue;
            }
            let info = std::fs::read_to_string(p.path().join("fdinfo").join(fd.file_name()))
                .unwrap_or_default();
            let access = info
                .lines()
                .find_map(|l| l.strip_prefix("flags:"))
                .and_then(|f| u32::from_str_radix(f.trim(), 8).ok())
                .map(|f| f & libc::O_ACCMODE as u32);
            let writes =
                access.is_some_and(|a| a == libc::O_WRONLY as u32 || a == libc::O_RDWR as u32);
            if !writes {
                continue;
            }
            let Ok(meta) = std::fs::metadata(fd.path()) else {
                continue;
            };
            out.push(Writer {
                fd: fd.path(),
                name: name.to_string(),
                deleted,
                ino: meta.ino(),
            });
        }
    }
    out
}

#[cfg(not(target_os = "linux"))]
fn writers(_inbox: &Path) -> Vec<Writer> {
    Vec::new()
}

/// A note filed while a writer still held its old copy open. crew holds its own handle on
/// that copy (so it outlives the writer's) until the writer lets go.
struct LateWrite {
    copy: std::fs::File,
    ino: u64,
    /// The note's path in the inbox, vault-relative.
    inbox_path: String,
    /// Where it was filed, vault-relative.
    filed_to: String,
    /// The bytes crew filed from (before its own frontmatter edit).
    base: Vec<u8>,
}

/// After a run: the notes it moved out of the inbox whose old copy a writer still holds.
fn late_writes(
    vault: &Path,
    inbox: &Path,
    inbox_rel: &str,
    report: &run::Report,
) -> Vec<LateWrite> {
    use crate::state::journal::OpKind;
    let ops: Vec<&crate::state::journal::Operation> = report
        .chain
        .steps
        .iter()
        .flat_map(|s| &s.operations)
        .collect();
    let moved: Vec<(&str, &str)> = ops
        .iter()
        .filter(|o| o.op == OpKind::Move)
        .filter_map(|o| Some((o.path.as_str(), o.to.as_deref()?)))
        .filter(|(from, _)| {
            from.strip_prefix(inbox_rel)
                .is_some_and(|r| r.starts_with('/'))
        })
        .collect();
    if moved.is_empty() {
        return Vec::new();
    }
    let journal = crate::state::undo::journal_dir(&crate::state::state_dir(vault), &report.run_id);
    let mut out = Vec::new();
    for w in writers(inbox) {
        let inbox_path = format!("{inbox_rel}/{}", w.name);
        let Some((_, to)) = moved.iter().find(|(from, _)| *from == inbox_path) else {
            continue;
        };
        // the copy the writer holds was replaced by crew's edit or moved with the note; what
        // crew filed from is the backup of its first edit of the note in this run
        let base = ops
            .iter()
            .find(|o| o.path == inbox_path && o.backup.is_some())
            .and_then(|o| std::fs::read(journal.join(o.backup.as_deref()?)).ok());
        let (Some(base), true) = (base, w.deleted) else {
            continue;
        };
        if let Ok(copy) = std::fs::File::open(&w.fd) {
            out.push(LateWrite {
                copy,
                ino: w.ino,
                inbox_path,
                filed_to: to.to_string(),
                base,
            });
        }
    }
    out
}

/// Settles the late writes whose writer has let go: what was appended goes to the end of the
/// filed note; a copy rewritten from the start goes back to the inbox. Returns what was done.
fn settle_late_writes(vault: &Path, inbox: &Path, late: &mut Vec<LateWrite>) -> Vec<String> {
    use std::io::{Read as _, Seek as _};
    if late.is_empty() {
        return Vec::new();
    }
    let busy: Vec<u64> = writers(inbox).iter().map(|w| w.ino).collect();
    let mut done = Vec::new();
    let mut keep = Vec::new();
    for mut l in late.drain(..) {
        if busy.contains(&l.ino) {
            keep.push(l);
            continue;
        }
        let mut now = Vec::new();
        if l.copy
            .rewind()
            .and_then(|_| l.copy.read_to_end(&mut now))
            .is_err()
            || now == l.base
        {
            continue;
        }
        done.push(match apply_late_write(vault, &l, &now) {
            Ok(line) => line,
            Err(e) => format!("a late write to {} could not be kept: {e}", l.inbox_path),
        });
    }
    *late = keep;
    done
}

fn apply_late_write(vault: &Path, l: &LateWrite, now: &[u8]) -> Result<String, String> {
    use crate::gate::{Gate, Policy};
    use crate::state::journal::Journal;
    let _lock = crate::state::lock::VaultLock::acquire(
        &crate::state::state_dir(vault),
        "watch (late write)",
        Duration::from_secs(60),
    )
    .map_err(|e| e.to_string())?;
    let journal = Journal::at(
        crate::state::state_dir(vault)
            .join("journal")
            .join(crate::state::new_run_id()),
    );
    let v = crate::state::open_vault(vault).map_err(|e| e.to_string())?;
    let mut gate = Gate::new(v, Policy::default(), journal, false);
    match now.strip_prefix(l.base.as_slice()) {
        Some(tail) => {
            let tail = std::str::from_utf8(tail).map_err(|_| "the late text is not UTF-8")?;
            gate.edit(&l.filed_to, "late write after filing", |t| {
                format!("{t}{tail}")
            })
            .map_err(|e| e.to_string())?;
            Ok(format!(
                "{} was written to after it was filed: {} byte(s) added to {}",
                l.inbox_path,
                tail.len(),
                l.filed_to
            ))
        }
        None => {
            let back = gate.create(&l.inbox_path, now).map_err(|e| e.to_string())?;
            Ok(format!(
                "{} was rewritten after it was filed as {}: the new version is back in the inbox as {back}",
                l.inbox_path, l.filed_to
            ))
        }
    }
}

/// Size and modification time: what "unchanged" means for a file.
type Stamp = (u64, Option<SystemTime>);

fn scan(inbox: &Path) -> HashMap<String, Stamp> {
    let mut out = HashMap::new();
    let Ok(rd) = std::fs::read_dir(inbox) else {
        return out;
    };
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !name.to_lowercase().ends_with(".md") {
            continue;
        }
        if let Ok(meta) = e.metadata()
            && meta.is_file()
        {
            out.insert(name, (meta.len(), meta.modified().ok()));
        }
    }
    out
}

/// Tracks when each inbox note last changed.
#[derive(Default)]
struct Settle {
    seen: HashMap<String, (Stamp, Instant)>,
}

impl Settle {
    fn observe(&mut self, files: &HashMap<String, Stamp>) {
        self.seen.retain(|k, _| files.contains_key(k));
        for (k, stamp) in files {
            match self.seen.get(k) {
                Some((s, _)) if s == stamp => {}
                _ => {
                    self.seen.insert(k.clone(), (*stamp, Instant::now()));
                }
            }
        }
    }

    fn settled(&self, name: &str, settle: Duration) -> bool {
        let Some(((_, mtime), since)) = self.seen.get(name) else {
            return false;
        };
        let quiet_here = since.elapsed() >= settle;
        let quiet_on_disk = mtime
            .and_then(|m| SystemTime::now().duration_since(m).ok())
            .is_none_or(|age| age >= settle);
        quiet_here && quiet_on_disk
    }
}

/// Watches the inbox of `vault` until `stop` is set (or once, with `--once`).
pub fn watch(
    vault: &Path,
    crew: &Crew,
    opts: &WatchOptions,
    stop: &AtomicBool,
    report: &mut dyn FnMut(&str),
) -> Result<WatchSummary, WatchError> {
    let inbox_rel = crew.config.folders.inbox.clone();
    let inbox = vault.join(&inbox_rel);
    if !inbox.is_dir() {
        return Err(WatchError::NoInbox(inbox));
    }
    let (tx, rx) = mpsc::channel();
    let tick = (opts.settle / 4).clamp(Duration::from_millis(50), Duration::from_millis(500));
    // the watcher lives as long as the loop; it only wakes the loop up
    let _guard = start_watcher(&inbox, opts, tick, tx)?;
    report(&format!(
        "watching {}/ ({}; settle {:?}); Ctrl-C stops after the current run",
        inbox_rel,
        if opts.once {
            "once"
        } else if opts.poll {
            "polling"
        } else {
            "native events"
        },
        opts.settle
    ));
    let mut session = Session {
        vault,
        crew,
        inbox,
        inbox_rel,
        opts,
        settle: Settle::default(),
        handled: HashMap::new(),
        summary: WatchSummary::default(),
        late: Vec::new(),
        filed_names: HashMap::new(),
    };
    let mut pending_since: Option<Instant> = None;
    loop {
        for line in settle_late_writes(vault, &session.inbox, &mut session.late) {
            report(&format!("{} {line}", clock()));
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let files = scan(&session.inbox);
        session.settle.observe(&files);
        let pending: Vec<&String> = files
            .iter()
            .filter(|(k, s)| session.handled.get(*k) != Some(s))
            .map(|(k, _)| k)
            .collect();
        if pending.is_empty() {
            pending_since = None;
            if opts.once {
                break;
            }
            let _ = rx.recv_timeout(tick * 4);
            continue;
        }
        let first_pending = *pending_since.get_or_insert_with(Instant::now);
        session.report_reappeared(&pending, report);
        // a note open for writing is never settled, however long its writer pauses
        let writing: Vec<String> = writers(&session.inbox)
            .into_iter()
            .filter(|w| !w.deleted)
            .map(|w| w.name)
            .collect();
        let is_ready =
            |k: &str| session.settle.settled(k, opts.settle) && !writing.iter().any(|w| w == k);
        let (ready, busy): (Vec<&String>, Vec<&String>) = pending.iter().partition(|k| is_ready(k));
        let waited_enough = first_pending.elapsed() >= opts.max_wait;
        if ready.is_empty() || (!busy.is_empty() && !waited_enough) {
            let _ = rx.recv_timeout(tick);
            continue;
        }
        // every note not settled yet is held out of this run
        let hold: Vec<String> = files
            .keys()
            .filter(|k| !is_ready(k))
            .map(|k| format!("{}/{k}", session.inbox_rel))
            .collect();
        session.triage(hold, report);
        // what is in the inbox now was seen by the sorter (or held); held notes stay pending
        let after = scan(&session.inbox);
        session.settle.observe(&after);
        session.handled = after
            .into_iter()
            .filter(|(k, _)| {
                session.settle.settled(k, opts.settle) && !writing.iter().any(|w| w == k)
            })
            .collect();
        pending_since = None;
        // with --once, wait for held notes to settle and file them too, then stop
        if opts.once && !session.anything_pending() {
            break;
        }
    }
    session.finish_late_writes(tick, report);
    Ok(session.summary)
}

/// The time of day that starts each line of the watch log.
fn clock() -> impl std::fmt::Display {
    chrono::Local::now().format("%H:%M:%S")
}

/// A file-system watcher on the inbox that wakes the loop through `tx` (none with `--once`).
fn start_watcher(
    inbox: &Path,
    opts: &WatchOptions,
    debounce: Duration,
    tx: mpsc::Sender<notify_debouncer_full::DebounceEventResult>,
) -> Result<Box<dyn std::any::Any>, WatchError> {
    let watcher_err = |e: notify::Error| WatchError::Watcher {
        path: inbox.to_path_buf(),
        detail: e.to_string(),
    };
    if opts.once {
        return Ok(Box::new(()));
    }
    if opts.poll {
        let config = notify::Config::default().with_poll_interval(debounce);
        let mut d = new_debouncer_opt::<_, PollWatcher, RecommendedCache>(
            debounce,
            None,
            tx,
            RecommendedCache::new(),
            config,
        )
        .map_err(watcher_err)?;
        d.watch(inbox, RecursiveMode::NonRecursive)
            .map_err(watcher_err)?;
        return Ok(Box::new(d));
    }
    let mut d = new_debouncer(debounce, None, tx).map_err(watcher_err)?;
    d.watch(inbox, RecursiveMode::NonRecursive)
        .map_err(watcher_err)?;
    Ok(Box::new(d))
}

/// What one `crew watch` has seen and done so far.
struct Session<'a> {
    vault: &'a Path,
    crew: &'a Crew,
    inbox: PathBuf,
    inbox_rel: String,
    opts: &'a WatchOptions,
    settle: Settle,
    /// The inbox notes the sorter has seen, as they were then.
    handled: HashMap<String, Stamp>,
    summary: WatchSummary,
    late: Vec<LateWrite>,
    /// Inbox names filed in this session, and where to: a note of the same name showing up
    /// again is most likely a writer that reopened the old name and went on writing.
    filed_names: HashMap<String, String>,
}

impl Session<'_> {
    fn report_reappeared(&mut self, pending: &[&String], report: &mut dyn FnMut(&str)) {
        for k in pending {
            if let Some(to) = self.filed_names.remove(*k) {
                report(&format!(
                    "{} {}/{k} appeared again after it was filed as {to}; if it continues that note, merge the two (crew files it on its own, next to it)",
                    clock(),
                    self.inbox_rel
                ));
            }
        }
    }

    /// Runs inbox-triage with the notes in `hold` held out, and records what it filed.
    fn triage(&mut self, hold: Vec<String>, report: &mut dyn FnMut(&str)) {
        let run_opts = Options {
            agent: Some("inbox-triage".into()),
            command: "watch".into(),
            lock_wait: Some(Duration::from_secs(60)),
            hold,
            ..Options::default()
        };
        let mut quiet = |_: &str| {};
        let r = match run::ask(
            self.vault,
            self.crew,
            "triage the inbox (crew watch)",
            &run_opts,
            &mut quiet,
        ) {
            Ok(r) => r,
            Err(e) => {
                self.summary.errors += 1;
                report(&format!("{} triage failed: {e}", clock()));
                return;
            }
        };
        self.summary.runs += 1;
        let is_move =
            |o: &&crate::state::journal::Operation| o.op == crate::state::journal::OpKind::Move;
        let filed = r
            .chain
            .steps
            .first()
            .map_or(0, |s| s.operations.iter().filter(is_move).count());
        self.summary.filed += filed;
        self.late
            .extend(late_writes(self.vault, &self.inbox, &self.inbox_rel, &r));
        for op in r
            .chain
            .steps
            .iter()
            .flat_map(|s| &s.operations)
            .filter(is_move)
        {
            if let Some(name) = op
                .path
                .strip_prefix(&self.inbox_rel)
                .and_then(|r| r.strip_prefix('/'))
                && let Some(to) = &op.to
            {
                self.filed_names.insert(name.to_string(), to.clone());
            }
        }
        let left = scan(&self.inbox).len();
        let chain = r.chain.chain().join(" → ");
        report(&format!(
            "{} {filed} filed, {left} in the inbox ({chain}; run {})",
            clock(),
            r.run_id
        ));
    }

    fn anything_pending(&self) -> bool {
        scan(&self.inbox)
            .into_iter()
            .any(|(k, s)| self.handled.get(&k) != Some(&s))
    }

    /// A late write still in progress is waited for (up to max_wait): once crew lets go of the
    /// old copy, nothing keeps the writer's text.
    fn finish_late_writes(&mut self, tick: Duration, report: &mut dyn FnMut(&str)) {
        let deadline = Instant::now() + self.opts.max_wait;
        while !self.late.is_empty() && Instant::now() < deadline {
            for line in settle_late_writes(self.vault, &self.inbox, &mut self.late) {
                report(&format!("{} {line}", clock()));
            }
            if !self.late.is_empty() {
                std::thread::sleep(tick);
            }
        }
        for l in &self.late {
            report(&format!(
                "{} is still being written through its old copy; what is written from now on is not kept in {}",
                l.inbox_path, l.filed_to
            ));
        }
    }
}

impl crate::fault::HasFault for WatchError {
    fn fault(&self) -> crate::fault::Fault {
        match self {
            WatchError::Watcher { .. } => crate::fault::Fault::Run,
            WatchError::NoInbox(_) => crate::fault::Fault::Input,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer opened the note before crew filed it (the instant between crew's look at open
    /// files and the move). The gate sees the writer (it asks the kernel whether the note is
    /// open for writing) and leaves the note in the inbox: no old copy to track, nothing late
    /// to add. Once the writer lets go, the next run files the whole note.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_note_a_writer_opened_before_the_filing_is_filed_once_it_lets_go() {
        use std::io::Write as _;
        let dir = tempfile::tempdir().expect("tmp");
        let v = dir.path();
        // a vault is a folder Obsidian has opened
        std::fs::create_dir_all(v.join(".obsidian")).expect("obsidian");
        std::fs::create_dir_all(v.join("00-Inbox")).expect("inbox");
        std::fs::create_dir_all(v.join("01-Projects/Alpha")).expect("project");
        std::fs::write(
            v.join("01-Projects/Alpha/_index.md"),
            "---\ntype: project\n---\n",
        )
        .expect("index");
        let head = "---\ntype: note\nproject: \"[[Alpha]]\"\n---\nfirst half\n";
        std::fs::write(v.join("00-Inbox/Slow.md"), head).expect("note");
        let mut writer = std::fs::OpenOptions::new()
            .append(true)
            .open(v.join("00-Inbox/Slow.md"))
            .expect("open");
        let crew = Crew::builtin();
        let opts = Options {
            agent: Some("inbox-triage".into()),
            command: "test".into(),
            ..Options::default()
        };
        let report = run::ask(v, &crew, "triage", &opts, &mut |_| {}).expect("run");
        let filed = v.join("01-Projects/Alpha/Slow.md");
        let inbox = v.join("00-Inbox");
        assert!(!filed.exists(), "{report:?}");
        assert!(late_writes(v, &inbox, "00-Inbox", &report).is_empty());
        writer.write_all(b"second half\n").expect("late write");
        drop(writer);
        let report = run::ask(v, &crew, "triage", &opts, &mut |_| {}).expect("run");
        assert!(filed.is_file(), "{report:?}");
        // (no `status: filed`: this vault's filed notes carry no filing keys)
        let text = std::fs::read_to_string(&filed).expect("filed");
        assert!(text.ends_with("first half\nsecond half\n"), "{text}");
        assert!(!inbox.join("Slow.md").exists());
    }

    #[test]
    fn a_changing_file_is_not_settled() {
        let dir = tempfile::tempdir().expect("tmp");
        let p = dir.path().join("a.md");
        std::fs::write(&p, "x").expect("write");
        let mut s = Settle::default();
        s.observe(&scan(dir.path()));
        assert!(!s.settled("a.md", Duration::from_millis(200)));
        std::thread::sleep(Duration::from_millis(250));
        s.observe(&scan(dir.path()));
        assert!(s.settled("a.md", Duration::from_millis(200)));
        std::fs::write(&p, "xy").expect("write");
        s.observe(&scan(dir.path()));
        assert!(!s.settled("a.md", Duration::from_millis(200)));
    }
}
