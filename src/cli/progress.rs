//! Progress on stderr for work that takes more than a second: a spinner naming what runs now,
//! with crew's own progress lines printed above it. Hidden when stderr is not a terminal
//! (cron, pipes, tests) and with `--json`.

use std::io::IsTerminal as _;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work shorter than this shows no spinner at all.
const SHOW_AFTER: Duration = Duration::from_secs(1);

pub struct Spinner {
    bar: Option<ProgressBar>,
}

impl Spinner {
    /// A spinner saying `what`, shown only if the work is still running after a second.
    pub fn start(json: bool, what: &str) -> Spinner {
        if json || !std::io::stderr().is_terminal() {
            return Spinner { bar: None };
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_message(what.to_string());
        bar.enable_steady_tick(Duration::from_millis(120));
        let later = bar.clone();
        std::thread::spawn(move || {
            std::thread::sleep(SHOW_AFTER);
            if !later.is_finished() {
                later.set_draw_target(ProgressDrawTarget::stderr());
            }
        });
        Spinner { bar: Some(bar) }
    }

    /// Prints a progress line (above the spinner while it shows). A route line (`→ agent …`)
    /// also names what the spinner waits for.
    pub fn line(&self, line: &str) {
        match &self.bar {
            Some(bar) => {
                if let Some(rest) = line.strip_prefix("→ ") {
                    let what = rest.split(" — ").next().unwrap_or(rest);
                    bar.set_message(format!("{what} working"));
                }
                bar.suspend(|| eprintln!("{line}"));
            }
            None => eprintln!("{line}"),
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
