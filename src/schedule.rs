//! `crew schedule`: install the nightly maintenance (and optionally the inbox watcher) in the
//! user's crontab or as systemd user units, show them, and remove exactly them.
//!
//! Cron entries sit between marker lines naming the vault, so other lines of the crontab are
//! never touched. Systemd units are named after a fingerprint of the vault's path, so several
//! vaults can be scheduled side by side.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Cron,
    Systemd,
}

#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error("`{0}` is not a time: use HH:MM, e.g. 03:30")]
    BadTime(String),
    #[error("`{cmd}` failed: {detail}")]
    Command { cmd: String, detail: String },
    #[error("cannot write {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "neither systemd user services nor crontab are available here; install cron, or run `crew maintain` from your own scheduler"
    )]
    NoBackend,
    /// A path no crontab line or unit file can carry exactly.
    #[error("cannot schedule with the {what} {path:?}: {why}")]
    BadPath {
        what: &'static str,
        path: String,
        why: &'static str,
    },
}

/// What to schedule.
#[derive(Debug, Clone)]
pub struct Plan {
    pub crew_bin: PathBuf,
    pub vault: PathBuf,
    pub hour: u8,
    pub minute: u8,
    pub watch: bool,
}

pub fn parse_time(s: &str) -> Result<(u8, u8), ScheduleError> {
    let bad = || ScheduleError::BadTime(s.to_string());
    let (h, m) = s.split_once(':').ok_or_else(bad)?;
    let h: u8 = h.parse().map_err(|_| bad())?;
    let m: u8 = m.parse().map_err(|_| bad())?;
    if h > 23 || m > 59 {
        return Err(bad());
    }
    Ok((h, m))
}

/// A path as text a crontab line or a unit file can carry: valid UTF-8 without line breaks or
/// other control characters. A line break would end the crontab line or the unit setting in
/// the middle of the path, and both formats are read line by line.
fn line_safe(what: &'static str, p: &Path) -> Result<String, ScheduleError> {
    let bad = |why| ScheduleError::BadPath {
        what,
        path: p.display().to_string(),
        why,
    };
    let s = p
        .to_str()
        .ok_or_else(|| bad("it is not valid UTF-8; rename or move it, then try again"))?;
    if s.chars().any(char::is_control) {
        return Err(bad(
            "it holds a line break or another control character, which a crontab line or a systemd unit cannot carry; rename or move it, then try again",
        ));
    }
    Ok(s.to_string())
}

/// One word of a crontab command, read back exactly by cron and then `sh -c`. Shell quoting
/// first ([`crate::shell::single_quoted`]); then each `%`, which cron turns into a line break
/// (and the rest of the line into the command's input), leaves the quotes as `\%`. cron
/// removes that backslash; a cron that does not is still right, since `sh` reads an unquoted
/// `\%` as `%` too. Preceded by a quote, the backslash never pairs with one of the path's.
fn cron_word(arg: &str) -> String {
    crate::shell::single_quoted(arg).replace('%', "'\\%'")
}

/// An argument of a systemd `ExecStart=` line (systemd.service, "Command lines"): in double
/// quotes, with `\\` and `"` escaped, since systemd undoes C escapes in a word; `%` doubled,
/// since specifiers are expanded after that; `$` doubled, since environment variables are
/// expanded when the service starts.
fn systemd_arg(arg: &str) -> String {
    systemd_quoted(arg, true)
}

/// The program of an `ExecStart=` line: quoted and with `%` doubled like an argument, but
/// `$` stays (systemd expands no variable in the program's path), and systemd refuses a
/// program path holding a quote or a backslash however it is escaped.
fn systemd_program(p: &Path) -> Result<String, ScheduleError> {
    let s = line_safe("program", p)?;
    if s.contains(['"', '\'', '\\']) {
        return Err(ScheduleError::BadPath {
            what: "program",
            path: s,
            why: "systemd refuses to start a program whose path holds a quote or a backslash; install crew in a plainer folder, or use `--cron`",
        });
    }
    Ok(systemd_quoted(&s, false))
}

fn systemd_quoted(word: &str, expands_variables: bool) -> String {
    let mut out = String::with_capacity(word.len() + 2);
    out.push('"');
    for c in word.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '%' => out.push_str("%%"),
            '$' if expands_variables => out.push_str("$$"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A path in a unit's `Description=`: shown to people, not parsed, but specifiers are expanded
/// there too, and quoting keeps a trailing backslash from joining the next line.
fn systemd_text(s: &str) -> String {
    format!("\"{}\"", s.replace('%', "%%"))
}

fn vault_id(vault: &Path) -> String {
    crate::vault::hash::fingerprint(vault.display().to_string().as_bytes())[..8].to_string()
}

fn begin_marker(vault: &Path) -> String {
    format!("# crew:begin {}", vault.display())
}

fn end_marker(vault: &Path) -> String {
    format!("# crew:end {}", vault.display())
}

/// The crontab lines for a plan, markers included.
pub(crate) fn cron_block(plan: &Plan) -> Result<String, ScheduleError> {
    let vault_text = line_safe("vault path", &plan.vault)?;
    let bin = cron_word(&line_safe("program", &plan.crew_bin)?);
    let vault = cron_word(&vault_text);
    let mut s = format!("{}\n", begin_marker(&plan.vault));
    s.push_str(&format!(
        "{} {} * * * {bin} --vault {vault} maintain --fix\n",
        plan.minute, plan.hour
    ));
    if plan.watch {
        let log = cron_word(&line_safe(
            "log path",
            &plan.vault.join(".crew").join("watch.log"),
        )?);
        s.push_str(&format!(
            "@reboot {bin} --vault {vault} watch --poll >> {log} 2>&1\n"
        ));
    }
    s.push_str(&format!("{}\n", end_marker(&plan.vault)));
    Ok(s)
}

/// Removes this vault's block from a crontab text, leaving every other line as it was.
pub(crate) fn strip_block(crontab: &str, vault: &Path) -> String {
    let begin = begin_marker(vault);
    let end = end_marker(vault);
    let mut out = String::new();
    let mut inside = false;
    for line in crontab.split_inclusive('\n') {
        let t = line.trim_end_matches(['\n', '\r']);
        if t == begin {
            inside = true;
            continue;
        }
        if inside {
            if t == end {
                inside = false;
            }
            continue;
        }
        out.push_str(line);
    }
    out
}

/// This vault's block in a crontab text, if any.
pub(crate) fn find_block(crontab: &str, vault: &Path) -> Option<String> {
    let begin = begin_marker(vault);
    let end = end_marker(vault);
    let start = crontab.find(&begin)?;
    let stop = crontab[start..].find(&end).map(|i| start + i + end.len())?;
    Some(crontab[start..stop].to_string())
}

fn run(cmd: &mut Command, input: Option<&str>) -> Result<(bool, String), ScheduleError> {
    let shown = format!("{cmd:?}");
    if input.is_some() {
        cmd.stdin(Stdio::piped());
    }
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ScheduleError::Command {
            cmd: shown.clone(),
            detail: e.to_string(),
        })?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin
            .write_all(text.as_bytes())
            .map_err(|e| ScheduleError::Command {
                cmd: shown.clone(),
                detail: e.to_string(),
            })?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| ScheduleError::Command {
            cmd: shown,
            detail: e.to_string(),
        })?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        text = String::from_utf8_lossy(&out.stderr).into_owned();
    }
    Ok((out.status.success(), text))
}

fn read_crontab() -> Result<String, ScheduleError> {
    let (ok, text) = run(Command::new("crontab").arg("-l"), None)?;
    // `crontab -l` fails when the user has no crontab yet: that is an empty one
    Ok(if ok { text } else { String::new() })
}

fn write_crontab(text: &str) -> Result<(), ScheduleError> {
    let (ok, err) = run(Command::new("crontab").arg("-"), Some(text))?;
    if ok {
        Ok(())
    } else {
        Err(ScheduleError::Command {
            cmd: "crontab -".into(),
            detail: err,
        })
    }
}

/// Where systemd user units live (`$CREW_SYSTEMD_DIR` overrides, for tests and odd setups).
pub(crate) fn systemd_dir() -> PathBuf {
    if let Ok(d) = std::env::var("CREW_SYSTEMD_DIR") {
        return PathBuf::from(d);
    }
    let config = std::env::var("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|_| {
            PathBuf::from(std::env::var("HOME").unwrap_or_else(|_| ".".into())).join(".config")
        });
    config.join("systemd").join("user")
}

/// The unit files for a plan: (file name, contents).
pub(crate) fn systemd_units(plan: &Plan) -> Result<Vec<(String, String)>, ScheduleError> {
    let id = vault_id(&plan.vault);
    let bin = systemd_program(&plan.crew_bin)?;
    let vault_text = line_safe("vault path", &plan.vault)?;
    let vault = systemd_arg(&vault_text);
    let shown = systemd_text(&vault_text);
    let mut units = vec![
        (
            format!("crew-maintain-{id}.service"),
            format!(
                "[Unit]\nDescription=crew maintenance of {shown}\n\n[Service]\nType=oneshot\nExecStart={bin} --vault {vault} maintain --fix\n"
            ),
        ),
        (
            format!("crew-maintain-{id}.timer"),
            format!(
                "[Unit]\nDescription=Nightly crew maintenance of {shown}\n\n[Timer]\nOnCalendar=*-*-* {:02}:{:02}:00\nPersistent=true\n\n[Install]\nWantedBy=timers.target\n",
                plan.hour, plan.minute
            ),
        ),
    ];
    if plan.watch {
        units.push((
            format!("crew-watch-{id}.service"),
            format!("[Unit]\nDescription=crew watching the inbox of {shown}\n\n[Service]\nExecStart={bin} --vault {vault} watch\nRestart=on-failure\nRestartSec=10\n\n[Install]\nWantedBy=default.target\n"),
        ));
    }
    Ok(units)
}

fn systemctl(args: &[&str]) -> Result<(), ScheduleError> {
    let (ok, err) = run(Command::new("systemctl").arg("--user").args(args), None)?;
    if ok {
        Ok(())
    } else {
        Err(ScheduleError::Command {
            cmd: format!("systemctl --user {}", args.join(" ")),
            detail: err,
        })
    }
}

/// Which backend this machine has: systemd user services when `systemctl --user` answers,
/// else cron when `crontab` exists.
pub fn detect() -> Result<Backend, ScheduleError> {
    if run(
        Command::new("systemctl").args(["--user", "show-environment"]),
        None,
    )
    .is_ok_and(|(ok, _)| ok)
    {
        return Ok(Backend::Systemd);
    }
    if run(Command::new("crontab").arg("-l"), None).is_ok() {
        return Ok(Backend::Cron);
    }
    Err(ScheduleError::NoBackend)
}

/// What [`install`] would write, without writing it: the crontab block's lines, or each unit
/// file's path and text.
pub fn preview(backend: Backend, plan: &Plan) -> Result<Vec<String>, ScheduleError> {
    Ok(match backend {
        Backend::Cron => cron_block(plan)?.lines().map(str::to_string).collect(),
        Backend::Systemd => {
            let dir = systemd_dir();
            systemd_units(plan)?
                .into_iter()
                .map(|(name, text)| format!("{}:\n{text}", dir.join(name).display()))
                .collect()
        }
    })
}

/// Installs the plan (replacing this vault's previous entries). Returns what was written.
pub fn install(backend: Backend, plan: &Plan) -> Result<Vec<String>, ScheduleError> {
    match backend {
        Backend::Cron => {
            // made first: a path it cannot carry is refused before the crontab is read
            let block = cron_block(plan)?;
            let current = read_crontab()?;
            let mut text = strip_block(&current, &plan.vault);
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&block);
            write_crontab(&text)?;
            Ok(block.lines().map(str::to_string).collect())
        }
        Backend::Systemd => {
            let units = systemd_units(plan)?;
            let dir = systemd_dir();
            std::fs::create_dir_all(&dir).map_err(|source| ScheduleError::Io {
                path: dir.clone(),
                source,
            })?;
            remove_units(&dir, &plan.vault)?;
            let mut written = Vec::new();
            for (name, text) in units {
                let path = dir.join(&name);
                crate::gate::atomic_write(&path, text.as_bytes(), false).map_err(|source| {
                    ScheduleError::Io {
                        path: path.clone(),
                        source,
                    }
                })?;
                written.push(path.display().to_string());
            }
            let id = vault_id(&plan.vault);
            systemctl(&["daemon-reload"])?;
            systemctl(&["enable", "--now", &format!("crew-maintain-{id}.timer")])?;
            if plan.watch {
                systemctl(&["enable", "--now", &format!("crew-watch-{id}.service")])?;
            }
            Ok(written)
        }
    }
}

fn our_units(dir: &Path, vault: &Path) -> Vec<PathBuf> {
    let id = vault_id(vault);
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    let n = p
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_default();
                    n.starts_with("crew-") && n.contains(&format!("-{id}."))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn remove_units(dir: &Path, vault: &Path) -> Result<Vec<String>, ScheduleError> {
    let mut removed = Vec::new();
    for p in our_units(dir, vault) {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.ends_with(".timer") || name.starts_with("crew-watch-") {
            let _ = systemctl(&["disable", "--now", &name]);
        }
        std::fs::remove_file(&p).map_err(|source| ScheduleError::Io {
            path: p.clone(),
            source,
        })?;
        removed.push(p.display().to_string());
    }
    Ok(removed)
}

/// This vault's scheduled entries, per backend.
pub fn show(vault: &Path) -> Vec<(Backend, String)> {
    let mut out = Vec::new();
    if let Ok(text) = read_crontab()
        && let Some(block) = find_block(&text, vault)
    {
        out.push((Backend::Cron, block));
    }
    for p in our_units(&systemd_dir(), vault) {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        out.push((Backend::Systemd, format!("{}:\n{text}", p.display())));
    }
    out
}

/// Removes this vault's entries from both backends; other entries are left as they were.
pub fn remove(vault: &Path) -> Result<Vec<String>, ScheduleError> {
    let mut removed = Vec::new();
    if let Ok(text) = read_crontab()
        && let Some(block) = find_block(&text, vault)
    {
        write_crontab(&strip_block(&text, vault))?;
        removed.extend(block.lines().map(|l| format!("crontab: {l}")));
    }
    let dir = systemd_dir();
    let units = remove_units(&dir, vault)?;
    if !units.is_empty() {
        let _ = systemctl(&["daemon-reload"]);
    }
    removed.extend(units);
    Ok(removed)
}

impl crate::fault::HasFault for ScheduleError {
    fn fault(&self) -> crate::fault::Fault {
        match self {
            ScheduleError::Command { .. } | ScheduleError::Io { .. } => crate::fault::Fault::Run,
            _ => crate::fault::Fault::Input,
        }
    }
}

#[cfg(test)]
#[path = "schedule_tests.rs"]
mod tests;
