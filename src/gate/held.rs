//! Replacing a note without losing what another program writes into it meanwhile.
//!
//! A rewrite is a new file renamed over the old name. A program that holds the old file open
//! (a logger, `cat >> note`, a sync client) goes on writing into the old file, which no name
//! leads to any more: what it writes is lost, and undo cannot bring it back. So a replacement:
//!
//! 1. opens the file, reads it through that handle and compares it with what crew read (the
//!    compare of compare-and-swap covers the bytes, not only size and time), and keeps the
//!    handle;
//! 2. refuses when another program holds the file open for writing (on Linux a read lease can
//!    be taken only on a file nobody has open for writing: crew takes one and drops it at once);
//! 3. gives the old file a second, hidden name beside it (a hard link), so it can be put back
//!    whole, with the writer's handle still leading to it;
//! 4. writes the new file and renames it over the name;
//! 5. checks the old file through the handle: `fstat` (size and time; the bytes are re-read
//!    only when those moved) and the lease again. Then:
//!    - untouched and no writer: done, the hidden name goes;
//!    - a program appended and let go: the old file can no longer change (no name and no
//!      writer lead to it), so its new tail is appended to crew's file: both are kept;
//!    - a program still holds it open, or rewrote it: crew's change is withdrawn, the old file
//!      goes back under its name, and the writer's handle is the note's again.

use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::fsops::{atomic_write, atomic_write_stat};
use super::{GateError, HookPoint};
use crate::vault::read::{READ_CAP, ReadFail, Seen, open_regular};

/// What became of a replacement.
#[derive(Debug)]
pub(crate) enum Swapped {
    /// crew's bytes are the file, and nothing was written into the old one meanwhile.
    Clean,
    /// Another program appended to the old file during the swap and let go: its tail follows
    /// crew's bytes. `before` is the old file as that program left it, `after` the file now.
    Merged { before: Vec<u8>, after: Vec<u8> },
    /// crew's change was withdrawn: the file holds `now`, what the other program left.
    Withdrawn { now: Vec<u8>, why: String },
}

/// A file about to be replaced, held open since it was checked.
pub(crate) struct Held {
    full: PathBuf,
    rel: String,
    file: std::fs::File,
    seen: Seen,
}

impl Held {
    /// Opens `full` and checks it still holds what crew read (`seen`: size, time and hash of
    /// the bytes, read through the handle kept) and that no program holds it open for writing.
    pub(crate) fn open(full: &Path, rel: &str, seen: &Seen) -> Result<Held, GateError> {
        let changed = |detail: String| GateError::Changed {
            path: rel.to_string(),
            detail,
        };
        let (file, _, now) = match open_regular(full, READ_CAP) {
            Ok(found) => found,
            Err(ReadFail::Missing) => return Err(changed("it was moved or deleted".into())),
            Err(ReadFail::Refused(reason)) => return Err(changed(reason)),
            Err(ReadFail::Io(e)) => return Err(changed(e.to_string())),
        };
        if now != *seen {
            return Err(changed("its bytes differ from what crew read".into()));
        }
        if writer_attached(&file) == Some(true) {
            return Err(GateError::Busy {
                path: rel.to_string(),
                detail: "another program holds it open for writing".into(),
            });
        }
        Ok(Held {
            full: full.to_path_buf(),
            rel: rel.to_string(),
            file,
            seen: now,
        })
    }

    /// Replaces the file with `bytes` (`original`: what it held when opened) and keeps
    /// whatever another program wrote into the old file meanwhile. `hook` runs right before
    /// the rename and right after it (race tests).
    pub(crate) fn swap(
        self,
        original: &[u8],
        bytes: &[u8],
        hook: &mut dyn FnMut(HookPoint),
    ) -> Result<Swapped, GateError> {
        let io = |e: std::io::Error| GateError::io(&self.rel, e);
        let hold = self.hold_link();
        hook(HookPoint::BeforeSwap);
        let written = match atomic_write_stat(&self.full, bytes, false) {
            Ok(m) => m,
            Err(e) => {
                if let Some(h) = &hold {
                    let _ = std::fs::remove_file(h);
                }
                return Err(io(e));
            }
        };
        hook(HookPoint::AfterSwap);
        let meta = self.file.metadata().map_err(io)?;
        let grew = meta.len() != self.seen.len || mtime_ns(&meta) != self.seen.mtime_ns;
        let attached = writer_attached(&self.file) == Some(true);
        if !grew && !attached {
            if let Some(h) = &hold {
                let _ = std::fs::remove_file(h);
            }
            return Ok(Swapped::Clean);
        }
        let now = self.read_old().map_err(io)?;
        if !attached && now == original {
            // touched, not changed: nothing of it to keep
            if let Some(h) = &hold {
                let _ = std::fs::remove_file(h);
            }
            return Ok(Swapped::Clean);
        }
        // an append to the old file lands after crew's read: the old bytes are a prefix
        if !attached && now.len() > original.len() && now.starts_with(original) {
            let tail = &now[original.len()..];
            match append_if_same(&self.full, &written, tail) {
                Ok(true) => {
                    if let Some(h) = &hold {
                        let _ = std::fs::remove_file(h);
                    }
                    let mut after = bytes.to_vec();
                    after.extend_from_slice(tail);
                    return Ok(Swapped::Merged { before: now, after });
                }
                Ok(false) => return Err(self.kept_aside(hold.as_deref(), &now)),
                Err(e) => return Err(io(e)),
            }
        }
        let why = if attached {
            "another program opened it for writing while crew replaced it; crew put that \
             program's copy back"
        } else {
            "another program rewrote it while crew replaced it; crew put that version back"
        };
        self.withdraw(hold.as_deref(), &written, now, why)
    }

    /// Puts the old file back under its name: by renaming its hidden second name over crew's
    /// copy (the writer's handle leads to the note again), or, without one, by writing its
    /// bytes. Only while the name still leads to crew's copy: a third writer's file is kept.
    fn withdraw(
        &self,
        hold: Option<&Path>,
        written: &std::fs::Metadata,
        now: Vec<u8>,
        why: &str,
    ) -> Result<Swapped, GateError> {
        if !still_ours(&self.full, written) {
            return Err(self.kept_aside(hold, &now));
        }
        let put_back = match hold {
            Some(h) => std::fs::rename(h, &self.full),
            None => atomic_write(&self.full, &now, false),
        };
        put_back.map_err(|e| GateError::io(&self.rel, e))?;
        // what the file holds once back: a writer may have added more since it was read
        let now = self.read_old().unwrap_or(now);
        Ok(Swapped::Withdrawn {
            now,
            why: why.to_string(),
        })
    }

    /// The name no longer leads to crew's copy (yet another writer replaced it): the old file
    /// keeps its hidden name, so nothing of it is lost, and the error says where it is.
    fn kept_aside(&self, hold: Option<&Path>, now: &[u8]) -> GateError {
        let detail = match hold {
            Some(h) => format!(
                "another program wrote to it while crew replaced it, and a third replaced it \
                 after; that program's copy is kept as {}",
                h.file_name()
                    .map_or_else(String::new, |n| n.to_string_lossy().into_owned())
            ),
            None => format!(
                "another program wrote to it while crew replaced it ({} bytes crew could not \
                 put back)",
                now.len()
            ),
        };
        GateError::Changed {
            path: self.rel.clone(),
            detail,
        }
    }

    /// The old file's bytes now, through the handle.
    fn read_old(&self) -> std::io::Result<Vec<u8>> {
        let mut f = &self.file;
        f.rewind()?;
        let mut now = Vec::new();
        f.take(READ_CAP + 1).read_to_end(&mut now)?;
        Ok(now)
    }

    /// A second name for the old file beside it, so it can be put back whole. `None` where the
    /// file system has no hard links (or the name no longer leads to the file held): then a
    /// withdrawal writes the bytes back instead.
    fn hold_link(&self) -> Option<PathBuf> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = self.full.parent()?;
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        // a crew temporary name: invisible to Obsidian, and removed by the next writer holding
        // the vault lock should crew be killed mid-swap (the journal keeps the bytes it had)
        let hold = dir.join(format!(".crew-tmp-held-{}-{n}.part", std::process::id()));
        std::fs::hard_link(&self.full, &hold).ok()?;
        let same = match (std::fs::symlink_metadata(&hold), self.file.metadata()) {
            (Ok(a), Ok(b)) => same_file(&a, &b),
            _ => false,
        };
        if !same {
            let _ = std::fs::remove_file(&hold);
            return None;
        }
        Some(hold)
    }
}

/// Appends `tail` to the file at `full` while it is still crew's copy (`written`). In place,
/// through `O_APPEND`: what the other program wrote was an append, and an append leaves no
/// old copy for yet another writer to lose. `Ok(false)`: the name leads elsewhere now.
fn append_if_same(full: &Path, written: &std::fs::Metadata, tail: &[u8]) -> std::io::Result<bool> {
    let mut opts = std::fs::OpenOptions::new();
    opts.append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC);
    }
    let mut f = match opts.open(full) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e),
    };
    if !same_file(&f.metadata()?, written) {
        return Ok(false);
    }
    f.write_all(tail)?;
    f.sync_data()?;
    Ok(true)
}

fn still_ours(full: &Path, written: &std::fs::Metadata) -> bool {
    std::fs::symlink_metadata(full).is_ok_and(|m| same_file(&m, written))
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok()
}

fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i128)
}

/// Whether another program holds the file at `full` open for writing (`false` when that
/// cannot be told, or the file cannot be opened: the move's own checks report those).
pub(crate) fn held_for_writing(full: &Path) -> bool {
    // only a regular file, opened without blocking: a FIFO's open would wait for a writer
    if !std::fs::symlink_metadata(full).is_ok_and(|m| m.is_file()) {
        return false;
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    options
        .open(full)
        .is_ok_and(|f| f.metadata().is_ok_and(|m| m.is_file()) && writer_attached(&f) == Some(true))
}

/// Whether some process holds the file open for writing: `Some(true)` yes, `Some(false)` no,
/// `None` when the system cannot tell (another OS, a file system without leases, a file
/// another user owns). Linux grants a read lease only on a file nobody has open for writing;
/// the lease is dropped at once, it is only the question.
#[cfg(target_os = "linux")]
fn writer_attached(file: &std::fs::File) -> Option<bool> {
    use std::os::fd::AsRawFd;
    // `F_SETSIG` from <fcntl.h> (Linux, every architecture crew builds for); libc does not
    // export it
    const F_SETSIG: libc::c_int = 10;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor `file` owns and keeps open across the calls.
    unsafe {
        // A program opening the file for writing in the instant the lease is held makes the
        // kernel signal the holder: SIGURG is ignored by default, SIGIO would end crew.
        if libc::fcntl(fd, F_SETSIG, libc::SIGURG) != 0 {
            return None;
        }
        if libc::fcntl(fd, libc::F_SETLEASE, libc::F_RDLCK) == 0 {
            libc::fcntl(fd, libc::F_SETLEASE, libc::F_UNLCK);
            return Some(false);
        }
    }
    match std::io::Error::last_os_error().raw_os_error() {
        Some(libc::EAGAIN) => Some(true),
        _ => None,
    }
}

#[cfg(not(target_os = "linux"))]
fn writer_attached(_file: &std::fs::File) -> Option<bool> {
    None
}

#[cfg(test)]
mod tests {
    //! A program appending to a note through a handle it keeps open, at every moment of a
    //! rewrite or a move: not one of its lines is lost, and crew's own text stays whole.
    use std::fs::File;
    use std::io::Write as _;
    use std::path::Path;
    use std::sync::{Arc, Mutex};

    use proptest::prelude::*;

    use crate::gate::journal::Journal;
    use crate::gate::{Gate, GateError, HookPoint, Policy};
    use crate::vault::Vault;

    fn vault() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp");
        for (p, t) in [
            (".obsidian/app.json", "{}"),
            ("00-Inbox/N.md", "---\nstatus: inbox\n---\nbody of N\n"),
            ("L.md", "---\nkind: hub\n---\nsee [[00-Inbox/N]] here\n"),
        ] {
            let full = dir.path().join(p);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(full, t).expect("write");
        }
        dir
    }

    fn gate(dir: &Path) -> Gate {
        Gate::new(
            Vault::open(dir).expect("open"),
            Policy::default(),
            Journal::in_memory(),
            false,
        )
    }

    fn append(f: &mut File, line: &str) {
        f.write_all(line.as_bytes()).expect("append");
    }

    /// Every `.md` file of the vault, joined: where each appended line must be, exactly once.
    fn all_text(dir: &Path) -> String {
        let mut out = String::new();
        for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
            let name = e.file_name().to_string_lossy();
            if e.file_type().is_file() && name.ends_with(".md") {
                out += &std::fs::read_to_string(e.path()).expect("read");
            }
        }
        out
    }

    /// What the appender does around one swap.
    #[derive(Debug, Clone, Copy)]
    enum Writer {
        /// Nobody writes.
        Idle,
        /// Opens the file right before the rename, appends, appends again after it, closes.
        AppendAcross(usize, usize),
        /// Opens it right before the rename, appends, and keeps writing after crew is done.
        HoldOpen(usize, usize),
        /// Holds the file open from before crew checks it.
        OpenAllAlong(usize),
    }

    #[derive(Debug, Clone, Copy)]
    enum Op {
        Frontmatter(u8),
        Append,
        /// Moves N (rewriting L's link) into folder k.
        Move(u8),
    }

    fn writer() -> impl Strategy<Value = Writer> {
        prop_oneof![
            Just(Writer::Idle),
            (0..3usize, 0..3usize).prop_map(|(a, b)| Writer::AppendAcross(a, b)),
            (0..3usize, 0..3usize).prop_map(|(a, b)| Writer::HoldOpen(a, b)),
            (1..3usize).prop_map(Writer::OpenAllAlong),
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (0..4u8).prop_map(Op::Frontmatter),
            Just(Op::Append),
            (0..3u8).prop_map(Op::Move),
        ]
    }

    struct Appender {
        next: usize,
        written: Vec<String>,
        file: Option<File>,
    }

    impl Appender {
        fn lines(&mut self, n: usize) {
            for _ in 0..n {
                let line = format!("appended line {:04}\n", self.next);
                self.next += 1;
                if let Some(f) = self.file.as_mut() {
                    append(f, &line);
                    self.written.push(line);
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn no_appended_line_is_lost(steps in proptest::collection::vec((op(), writer()), 1..8)) {
            let v = vault();
            let dir = v.path().to_path_buf();
            let mut g = gate(&dir);
            let app = Arc::new(Mutex::new(Appender { next: 0, written: Vec::new(), file: None }));
            let mut at = "00-Inbox/N.md".to_string();
            let mut crew_lines = Vec::new();
            for (i, (op, w)) in steps.into_iter().enumerate() {
                // the file a swap replaces: N itself, or L when N moves
                let target = match op {
                    Op::Move(_) => "L.md".to_string(),
                    _ => at.clone(),
                };
                if let Writer::OpenAllAlong(n) = w {
                    let mut a = app.lock().expect("lock");
                    a.file = Some(File::options().append(true).open(dir.join(&target)).expect("open"));
                    a.lines(n);
                }
                let hook_app = Arc::clone(&app);
                let hook_dir = dir.clone();
                g.set_test_hook(Some(Box::new(move |point, path| {
                    let mut a = hook_app.lock().expect("lock");
                    match (point, w) {
                        (HookPoint::BeforeSwap, Writer::AppendAcross(n, _) | Writer::HoldOpen(n, _)) => {
                            a.file = Some(
                                File::options().append(true).open(hook_dir.join(path)).expect("open"),
                            );
                            a.lines(n);
                        }
                        (HookPoint::AfterSwap, Writer::AppendAcross(_, n)) => {
                            a.lines(n);
                            a.file = None;
                        }
                        (HookPoint::AfterSwap, Writer::HoldOpen(_, n)) => a.lines(n),
                        _ => {}
                    }
                })));
                let result = match op {
                    Op::Frontmatter(k) => g
                        .set_frontmatter(&at, &[("step", Some(format!("{i}-{k}")))])
                        .map(|_| ()),
                    Op::Append => {
                        let line = format!("crew line {i}\n");
                        let r = g.append(&at, &line);
                        if r.is_ok() {
                            crew_lines.push(line);
                        }
                        r
                    }
                    Op::Move(k) => {
                        let to = format!("F{k}/N.md");
                        match g.move_file(&at, &to) {
                            Ok(out) => {
                                at = out.to;
                                Ok(())
                            }
                            Err(e) => Err(e),
                        }
                    }
                };
                g.set_test_hook(None);
                // a writer crew refused or withdrew for: the note is as the writer has it
                if let Err(e) = &result {
                    prop_assert!(
                        matches!(
                            e,
                            GateError::Busy { .. }
                                | GateError::Changed { .. }
                                | GateError::MoveFailed { .. }
                        ),
                        "{e}"
                    );
                }
                // a writer still holding the file goes on writing, then lets go
                let mut a = app.lock().expect("lock");
                a.lines(1);
                a.file = None;
            }
            let text = all_text(&dir);
            let a = app.lock().expect("lock");
            for line in &a.written {
                prop_assert_eq!(text.matches(line.as_str()).count(), 1, "{:?} in\n{}", line, text);
            }
            // crew's text is whole: N's frontmatter opens it, its body and crew's lines are there
            let n = std::fs::read_to_string(dir.join(&at)).expect("N");
            prop_assert!(n.starts_with("---\nstatus: inbox\n"), "{}", n);
            prop_assert!(n.contains("body of N\n"), "{}", n);
            for line in &crew_lines {
                prop_assert_eq!(n.matches(line.as_str()).count(), 1, "{}", n);
            }
            let l = std::fs::read_to_string(dir.join("L.md")).expect("L");
            prop_assert!(l.starts_with("---\nkind: hub\n---\nsee [["), "{}", l);
            // no hidden second name is left behind
            prop_assert!(!text.is_empty());
            for e in walkdir::WalkDir::new(&dir).into_iter().flatten() {
                prop_assert!(!e.file_name().to_string_lossy().starts_with(".crew-"), "{}", e.path().display());
            }
        }
    }

    #[test]
    fn an_append_during_the_swap_is_kept_after_crews_text() {
        let v = vault();
        let dir = v.path().to_path_buf();
        let mut g = gate(&dir);
        let held: Arc<Mutex<Option<File>>> = Arc::default();
        let h = Arc::clone(&held);
        let d = dir.clone();
        g.set_test_hook(Some(Box::new(move |point, path| {
            let mut f = h.lock().expect("lock");
            match point {
                HookPoint::BeforeSwap => {
                    let mut file = File::options()
                        .append(true)
                        .open(d.join(path))
                        .expect("open");
                    append(&mut file, "late 1\n");
                    *f = Some(file);
                }
                HookPoint::AfterSwap => {
                    if let Some(mut file) = f.take() {
                        append(&mut file, "late 2\n");
                    }
                }
                _ => {}
            }
        })));
        g.set_frontmatter("00-Inbox/N.md", &[("status", Some("filed".into()))])
            .expect("edit");
        assert_eq!(
            std::fs::read_to_string(dir.join("00-Inbox/N.md")).expect("read"),
            "---\nstatus: filed\n---\nbody of N\nlate 1\nlate 2\n"
        );
        // the journal says what is in the file now, and restores the appended lines too
        let op = &g.operations()[0];
        assert!(op.supersedes.is_some());
        assert_eq!(
            op.after_hash.as_deref(),
            Some(
                crate::vault::hash::fingerprint(
                    b"---\nstatus: filed\n---\nbody of N\nlate 1\nlate 2\n"
                )
                .as_str()
            )
        );
        g.set_test_hook(None);
        g.rollback_to(0);
        assert_eq!(
            std::fs::read_to_string(dir.join("00-Inbox/N.md")).expect("read"),
            "---\nstatus: inbox\n---\nbody of N\nlate 1\nlate 2\n"
        );
    }

    #[test]
    fn a_writer_still_holding_the_old_file_gets_it_back_and_writes_on() {
        let v = vault();
        let dir = v.path().to_path_buf();
        let mut g = gate(&dir);
        let held: Arc<Mutex<Option<File>>> = Arc::default();
        let h = Arc::clone(&held);
        let d = dir.clone();
        g.set_test_hook(Some(Box::new(move |point, path| {
            if point == HookPoint::BeforeSwap {
                let mut file = File::options()
                    .append(true)
                    .open(d.join(path))
                    .expect("open");
                append(&mut file, "late 1\n");
                *h.lock().expect("lock") = Some(file);
            }
        })));
        let r = g.set_frontmatter("00-Inbox/N.md", &[("status", Some("filed".into()))]);
        assert!(matches!(r, Err(GateError::Busy { .. })), "{r:?}");
        assert!(g.operations().is_empty(), "the change was withdrawn");
        let mut file = held.lock().expect("lock").take().expect("held");
        append(&mut file, "late 2\n");
        drop(file);
        assert_eq!(
            std::fs::read_to_string(dir.join("00-Inbox/N.md")).expect("read"),
            "---\nstatus: inbox\n---\nbody of N\nlate 1\nlate 2\n",
            "the writer's handle is the note again"
        );
    }

    #[test]
    fn a_note_held_open_for_writing_is_left_alone() {
        let v = vault();
        let dir = v.path().to_path_buf();
        let mut g = gate(&dir);
        let mut file = File::options()
            .append(true)
            .open(dir.join("00-Inbox/N.md"))
            .expect("open");
        let r = g.set_frontmatter("00-Inbox/N.md", &[("status", Some("filed".into()))]);
        assert!(matches!(r, Err(GateError::Busy { .. })), "{r:?}");
        append(&mut file, "more\n");
        drop(file);
        // the first ask after the change refreshes crew's picture of the note (the gate's rule
        // for any note changed since it was read); the second applies to the text as it is
        let first = g.set_frontmatter("00-Inbox/N.md", &[("status", Some("filed".into()))]);
        assert!(matches!(first, Err(GateError::Changed { .. })), "{first:?}");
        g.set_frontmatter("00-Inbox/N.md", &[("status", Some("filed".into()))])
            .expect("once closed");
        assert_eq!(
            std::fs::read_to_string(dir.join("00-Inbox/N.md")).expect("read"),
            "---\nstatus: filed\n---\nbody of N\nmore\n"
        );
    }
}
