//! `crew watch`: file inbox notes as they settle, unattended.
//!
//! File-system events (native, or polled with `--poll` where native events never arrive: network
//! shares, WSL mounts) only wake the loop; what counts is crew's own look at the inbox. A note is
//! *settled* when its size and modification time have not changed for the settle interval.
//! Editors and sync tools write through temporary files and renames, so a note still changing is
//! never handed to the sorter: it is held out of the run. A burst of notes becomes one run once
//! they have all settled (or after `max_wait`, with the stragglers held). Notes the sorter left
//! in the inbox are remembered by size and time and not retried until they change.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
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
    stop: Arc<AtomicBool>,
    report: &mut dyn FnMut(&str),
) -> Result<WatchSummary, WatchError> {
    let inbox_rel = crew.config.folders.inbox.clone();
    let inbox = vault.join(&inbox_rel);
    if !inbox.is_dir() {
        return Err(WatchError::NoInbox(inbox));
    }
    let (tx, rx) = mpsc::channel();
    let debounce = (opts.settle / 4).clamp(Duration::from_millis(50), Duration::from_millis(500));
    let watcher_err = |e: notify::Error| WatchError::Watcher {
        path: inbox.clone(),
        detail: e.to_string(),
    };
    // the watcher lives as long as the loop; it only wakes the loop up
    let _guard: Box<dyn std::any::Any> = if opts.once {
        Box::new(())
    } else if opts.poll {
        let config = notify::Config::default().with_poll_interval(debounce);
        let mut d = new_debouncer_opt::<_, PollWatcher, RecommendedCache>(
            debounce,
            None,
            tx,
            RecommendedCache::new(),
            config,
        )
        .map_err(watcher_err)?;
        d.watch(&inbox, RecursiveMode::NonRecursive)
            .map_err(watcher_err)?;
        Box::new(d)
    } else {
        let mut d = new_debouncer(debounce, None, tx).map_err(watcher_err)?;
        d.watch(&inbox, RecursiveMode::NonRecursive)
            .map_err(watcher_err)?;
        Box::new(d)
    };
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
    let tick = (opts.settle / 4).clamp(Duration::from_millis(50), Duration::from_millis(500));
    let mut settle = Settle::default();
    let mut handled: HashMap<String, Stamp> = HashMap::new();
    let mut pending_since: Option<Instant> = None;
    let mut summary = WatchSummary::default();
    loop {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let files = scan(&inbox);
        settle.observe(&files);
        let pending: Vec<&String> = files
            .iter()
            .filter(|(k, s)| handled.get(*k) != Some(s))
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
        let (ready, busy): (Vec<&String>, Vec<&String>) =
            pending.iter().partition(|k| settle.settled(k, opts.settle));
        let waited_enough = first_pending.elapsed() >= opts.max_wait;
        if ready.is_empty() || (!busy.is_empty() && !waited_enough) {
            let _ = rx.recv_timeout(tick);
            continue;
        }
        // every note not settled yet is held out of this run
        let hold: Vec<String> = files
            .keys()
            .filter(|k| !settle.settled(k, opts.settle))
            .map(|k| format!("{inbox_rel}/{k}"))
            .collect();
        let run_opts = Options {
            agent: Some("inbox-triage".into()),
            command: "watch".into(),
            lock_wait: Some(Duration::from_secs(60)),
            hold,
            ..Options::default()
        };
        let mut quiet = |_: &str| {};
        match run::ask(
            vault,
            crew,
            "triage the inbox (crew watch)",
            &run_opts,
            &mut quiet,
        ) {
            Ok(r) => {
                summary.runs += 1;
                let filed = r.chain.steps.first().map_or(0, |s| {
                    s.operations
                        .iter()
                        .filter(|o| o.op == crate::vault::gate::OpKind::Move)
                        .count()
                });
                summary.filed += filed;
                let left = scan(&inbox).len();
                let chain = r.chain.chain().join(" → ");
                report(&format!(
                    "{} {filed} filed, {left} in the inbox ({chain}; run {})",
                    chrono::Local::now().format("%H:%M:%S"),
                    r.run_id
                ));
            }
            Err(e) => {
                summary.errors += 1;
                report(&format!(
                    "{} triage failed: {e}",
                    chrono::Local::now().format("%H:%M:%S")
                ));
            }
        }
        // what is in the inbox now was seen by the sorter (or held); held notes stay pending
        let after = scan(&inbox);
        settle.observe(&after);
        handled = after
            .into_iter()
            .filter(|(k, _)| settle.settled(k, opts.settle))
            .collect();
        pending_since = None;
        if opts.once {
            // with --once, wait for held notes to settle and file them too, then stop
            let remaining = scan(&inbox)
                .into_iter()
                .any(|(k, s)| handled.get(&k) != Some(&s));
            if !remaining {
                break;
            }
        }
    }
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

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
