//! The commands that work on a vault.

use std::path::{Path, PathBuf};

use anyhow::bail;
use serde_json::json;

use super::progress::Spinner;
use super::{Global, StateAction, VaultAction, out, out_json, render};
use crew::crew::Crew;
use crew::run::{self, Options};
use crew::vault::Vault;

/// Loads the crew for the vault; a crew with errors stops the command (exit 2). For the
/// lifecycle commands, which must not build on a damaged definition.
pub fn load_crew(g: &Global) -> anyhow::Result<Crew> {
    let vault = g.vault_path();
    let crew = Crew::load(&vault, g.crew_dir.as_deref())?;
    for d in crew
        .diagnostics
        .iter()
        .filter(|d| d.severity == crew::crew::Severity::Warning)
    {
        tracing::warn!("{d}");
    }
    if crew.has_errors() {
        let list: Vec<String> = crew.errors().map(|d| d.to_string()).collect();
        bail!(
            "the crew definition has errors (run `crew agents validate`):\n{}",
            list.join("\n")
        );
    }
    Ok(crew)
}

/// The crew a command that does the work runs with. A definition with errors does not stop
/// it: the command runs on the built-in crew (with this vault's config) and says so loudly on
/// stderr. Only `crew agents …` refuses such a crew ([`load_crew`]).
pub fn crew_to_run(g: &Global) -> anyhow::Result<Crew> {
    let crew = Crew::load(&g.vault_path(), g.crew_dir.as_deref())?;
    // the learned router's model is kept beside the vault's index for the next command
    crew::dispatch::learned::store::keep_for_vault(&g.vault_path());
    if crew.config.unreadable {
        // the built-in crew could stand in for a broken agent, but not for the user's
        // settings: with its folder map gone, crew would file notes into the wrong places
        let list: Vec<String> = crew.errors().map(|d| format!("  {d}")).collect();
        bail!(
            "the crew config cannot be read, so nothing ran; correct it (or `crew doctor`):\n{}",
            list.join("\n")
        );
    }
    if !crew.has_errors() {
        for d in crew
            .diagnostics
            .iter()
            .filter(|d| d.severity == crew::crew::Severity::Warning)
        {
            tracing::warn!("{d}");
        }
        return Ok(crew);
    }
    let list: Vec<String> = crew.errors().map(|d| format!("  {d}")).collect();
    eprintln!(
        "WARNING: the crew definition has errors, so this runs on the built-in crew (run `crew agents validate`, or `crew undo` if a run planted them):\n{}",
        list.join("\n")
    );
    Ok(crew.fallback())
}

/// Opens the vault for a command that reads it until the process ends. It is never freed:
/// releasing a large vault's memory one allocation at a time costs measurable time at exit and
/// gives nothing back.
pub fn open_vault(g: &Global) -> anyhow::Result<std::mem::ManuallyDrop<Vault>> {
    Ok(std::mem::ManuallyDrop::new(crew::state::open_vault(
        &g.vault_path(),
    )?))
}

pub fn init(
    g: &Global,
    path: Option<PathBuf>,
    adopt: bool,
    samples: bool,
    dry_run: bool,
) -> anyhow::Result<u8> {
    let path = path.unwrap_or_else(|| g.vault_path());
    let report = crew::setup::init(&path, adopt, samples, dry_run)?;
    if g.json {
        out_json(&report)?;
        return Ok(0);
    }
    if dry_run {
        let mut s = format!(
            "{} {} would create {} file(s) and folder(s) and keep {} existing:\n",
            if adopt { "Adopting" } else { "Initialising" },
            report.vault,
            report.created.len(),
            report.kept.len()
        );
        for c in &report.created {
            s.push_str(&format!("  + {c}\n"));
        }
        s.push_str("Dry run: nothing was written.\n");
        out(&s)?;
        return Ok(0);
    }
    let mut s = format!(
        "{} {}: created {} file(s) and folder(s), kept {} existing.\n",
        if adopt { "Adopted" } else { "Initialised" },
        report.vault,
        report.created.len(),
        report.kept.len()
    );
    if adopt {
        s.push_str("\nFolder roles (written to .crew/config.yaml; edit to change):\n");
        for (role, folder, found) in &report.roles {
            s.push_str(&format!(
                "  {role:<10} {folder}{}\n",
                if *found {
                    ""
                } else {
                    "   (not found; default name)"
                }
            ));
        }
    }
    if adopt {
        s.push_str(&learned_map(&path));
    }
    s.push_str(&format!(
        "\nNext: cd {} && crew vault stats && crew ask \"file my notes\"\n",
        path.display()
    ));
    out(&s)?;
    Ok(0)
}

/// The folders filing learned from an adopted vault, and how sure it can be there.
fn learned_map(path: &Path) -> String {
    let (Ok(vault), Ok(crew)) = (crew::state::open_vault(path), Crew::load(path, None)) else {
        return String::new();
    };
    let Some(l) = crew::evaluate::calibrate(&vault, &crew) else {
        return "\nFiling: too few filed notes to learn from yet; notes are filed on explicit evidence (project:, area:, type:, tags, links).\n".into();
    };
    let map = crew::agents::filing::folder_map(&l);
    let mut s = format!(
        "\nFolders notes are filed into, learned from {} notes in {} folders:\n",
        l.classifier.examples(),
        map.len()
    );
    for f in map.iter().take(15) {
        s.push_str(&format!("  {:<48} {:>6} notes\n", f.folder, f.notes));
    }
    if map.len() > 15 {
        s.push_str(&format!("  … and {} more folders\n", map.len() - 15));
    }
    let c = &l.calibration;
    if c.margin.is_finite() {
        s.push_str(&format!(
            "Filing notes without explicit evidence: estimated {:.0} % in their own folder for {:.0} % of notes (the rest stay in the inbox with a reason). `crew triage --calibrate` shows more.\n",
            100.0 * c.precision,
            100.0 * c.coverage
        ));
    } else {
        s.push_str(&format!(
            "Filing notes without explicit evidence: this vault's folders are too alike to reach {:.0} % precision, so such notes stay in the inbox with their two best candidates named.\n",
            100.0 * c.target
        ));
    }
    s
}

pub fn demo(g: &Global, dir: Option<PathBuf>) -> anyhow::Result<u8> {
    let dir = match dir {
        Some(d) => d,
        None => tempfile::Builder::new()
            .prefix("crew-demo-")
            .tempdir()?
            .keep(),
    };
    if dir.exists() && std::fs::read_dir(&dir)?.next().is_some() {
        bail!(
            "{} is not empty; give `crew demo` a new or empty folder",
            dir.display()
        );
    }
    crew::setup::init(&dir, false, true, false)?;
    let crew = Crew::load(&dir, None)?;
    let mut runs = Vec::new();
    let mut text = format!("crew demo — a sample vault at {}\n", dir.display());
    for message in ["file these notes", "check the vault"] {
        text.push_str(&format!("\n════ crew ask \"{message}\" ════\n"));
        let mut lines = Vec::new();
        let opts = Options {
            command: "demo".into(),
            ..Options::default()
        };
        let report = run::ask(&dir, &crew, message, &opts, &mut |l: &str| {
            lines.push(l.to_string())
        })?;
        for l in &lines {
            text.push_str(&format!("{l}\n"));
        }
        text.push_str(&format!("chain: [{}]\n\n", report.chain.chain().join(", ")));
        text.push_str(&render::report_text(&report));
        runs.push(report);
    }
    let vault = crew::state::open_vault(&dir)?;
    let q = crew::analysis::search::parse_query("knee");
    let hits = crew::analysis::search::search(
        &vault,
        &vault,
        &crew.config.folders,
        &q,
        5,
        crew::run::run_clock()?.date(),
    );
    text.push_str("\n════ crew search knee ════\n");
    for h in &hits {
        text.push_str(&format!("{}:{}: {}\n", h.path, h.line, h.text));
    }
    text.push_str(&format!(
        "\nWhere to look:\n  {0}/00-Inbox/            what stayed, and why (see the triage digest above)\n  {0}/02-Areas/Finance/    created by the architect when the sorter found no home\n  {0}/Meta/health-reports/ the librarian's report\n  {0}/Meta/agent-log.md    one line per change\n  {0}/.crew/runs/          the run logs\nTry: crew --vault {0} ask \"file my notes\"  (files what now has a home)\n",
        dir.display()
    ));
    if g.json {
        out_json(&json!({"vault": dir, "runs": runs, "search": hits}))?;
    } else {
        out(&text)?;
    }
    Ok(0)
}

/// The flags of `crew ask`.
pub struct AskFlags {
    pub dry_run: bool,
    pub agent: Option<String>,
    pub model: Option<String>,
    pub max_depth: Option<usize>,
    pub fix: bool,
    pub yes: bool,
    /// `crew triage --into`: file these inbox notes into that folder.
    pub file_into: Option<crew::agents::sorter::into::FileInto>,
}

pub fn ask(g: &Global, message: &str, flags: AskFlags) -> anyhow::Result<u8> {
    let crew = crew_to_run(g)?;
    let opts = Options {
        dry_run: flags.dry_run,
        yes: flags.yes,
        agent: flags.agent,
        model: flags.model,
        max_depth: flags.max_depth,
        apply: flags.fix,
        command: "ask".into(),
        lang: g.lang,
        file_into: flags.file_into,
        ..Options::default()
    };
    let spinner = Spinner::start(g.json, "reading the vault");
    let report = run::ask(&g.vault_path(), &crew, message, &opts, &mut |l| {
        spinner.line(l)
    })?;
    drop(spinner);
    if g.json {
        out_json(&json!({
            "route": report.route,
            "chain": report.chain.steps,
            "deferred": report.chain.deferred,
            "skipped": report.chain.skipped,
            "new_agents": report.chain.new_agents,
            "run_id": report.run_id,
            "dry_run": report.dry_run,
            "preview": report.preview,
        }))?;
    } else {
        out(&crew::render::answer_text(&report))?;
    }
    Ok(if report.chain.failed() || report.unreadable > 0 {
        1
    } else {
        0
    })
}

pub fn route(g: &Global, message: &str) -> anyhow::Result<u8> {
    let crew = crew_to_run(g)?;
    crew::dispatch::request::check(&crew, message)?;
    let r = run::route(&crew, message, &[]);
    if g.json {
        out_json(&r)?;
    } else {
        let arrow = if r.fell_back { "⇢" } else { "→" };
        let mode = r
            .mode
            .as_deref()
            .map(|m| format!(", mode {m}"))
            .unwrap_or_default();
        out(&format!(
            "{arrow} {} {}{mode} — {}",
            r.kind, r.name, r.reason
        ))?;
    }
    Ok(0)
}

pub fn state(g: &Global, action: StateAction) -> anyhow::Result<u8> {
    let crew = crew_to_run(g)?;
    let vault_path = g.vault_path();
    let states = crew.config.folders.states();
    match action {
        StateAction::Show { agent } => {
            let names: Vec<String> = match agent {
                Some(a) => vec![a],
                None => crew.agents.iter().map(|a| a.name.clone()).collect(),
            };
            let mut all = Vec::new();
            for n in names {
                let path = vault_path.join(crew::state::postit::path(&states, &n));
                let text = std::fs::read_to_string(&path).ok();
                all.push((n, text));
            }
            if g.json {
                let v: Vec<_> = all.iter().map(|(n, t)| json!({"agent": n, "postit": t.as_deref().map(crew::state::postit::body_of)})).collect();
                out_json(&v)?;
            } else {
                let mut s = String::new();
                for (n, t) in &all {
                    match t {
                        Some(t) => s.push_str(&format!(
                            "━━ {n} ━━\n{}\n\n",
                            crew::state::postit::body_of(t)
                        )),
                        None => s.push_str(&format!("━━ {n} ━━\n(no post-it yet)\n\n")),
                    }
                }
                out(&s)?;
            }
        }
        StateAction::Clear { agent, dry_run } => {
            if crew.lookup(&agent).is_none() && crew.agent(&agent).is_none() {
                bail!("no agent `{agent}`; `crew agents list` shows them");
            }
            let vault = crew::state::open_vault(&vault_path)?;
            let state_dir = crew::state::state_dir(&vault_path);
            let _lock = crew::state::lock::VaultLock::acquire(
                &state_dir,
                "state clear",
                crew::run::default_lock_wait(),
            )?;
            let run_id = crew::state::new_run_id();
            let journal = if dry_run {
                crew::state::journal::Journal::in_memory()
            } else {
                crew::state::journal::Journal::at(state_dir.join("journal").join(&run_id))
            };
            let policy = crew::gate::Policy {
                states_dir: states.clone(),
                ..Default::default()
            };
            let mut gate = crew::gate::Gate::new(vault, policy, journal, dry_run);
            let stamp = crew::run::run_clock()?
                .format("%Y-%m-%dT%H:%M:%S")
                .to_string();
            crew::state::postit::write(&mut gate, &states, &agent, &stamp, "")?;
            if g.json {
                out_json(&json!({"cleared": agent, "dry_run": dry_run}))?;
            } else if dry_run {
                out(&format!(
                    "Would clear the post-it of {agent}.\nDry run: nothing was written."
                ))?;
            } else {
                out(&format!("Cleared the post-it of {agent}."))?;
            }
        }
    }
    Ok(0)
}

pub fn vault(g: &Global, action: &VaultAction) -> anyhow::Result<u8> {
    match action {
        VaultAction::Stats => {
            // counted without opening the vault when nothing changed since the last count
            let s = crew::state::vault_stats(&g.vault_path())?;
            if g.json {
                out_json(&s)?;
            } else {
                let v = serde_json::to_value(&s)?;
                let mut text = String::new();
                if let Some(map) = v.as_object() {
                    for (k, val) in map {
                        text.push_str(&format!("{:<24} {val}\n", k.replace('_', " ")));
                    }
                }
                out(&text)?;
            }
            Ok(0)
        }
        VaultAction::Check => {
            let vault = open_vault(g)?;
            let crew = crew_to_run(g)?;
            let today = crew::run::run_clock()?.date();
            let f = &crew.config.folders;
            let schema = crew::analysis::schema::Schema::of(&crew, &vault, f);
            let a = crew::analysis::health::audit(&vault, &*vault, f, &schema, today);
            let verdict = crew::analysis::health::verdict(&a);
            if g.json {
                out_json(&json!({
                    "verdict": verdict, "notes": a.notes, "inbox": a.inbox, "broken_links": a.broken.len(),
                    "without_frontmatter": a.without_frontmatter.len(), "orphans": a.orphans.len(),
                    "duplicate_names": a.duplicate_names.len(), "health_score": crew::analysis::health::health_score(&a),
                }))?;
            } else {
                out(&format!(
                    "{verdict}: {} notes, {} in the inbox, {} broken links, {} without frontmatter, {} orphans, {} duplicate names",
                    a.notes,
                    a.inbox,
                    a.broken.len(),
                    a.without_frontmatter.len(),
                    a.orphans.len(),
                    a.duplicate_names.len()
                ))?;
            }
            Ok(if verdict == crew::analysis::health::Verdict::Healthy {
                0
            } else {
                1
            })
        }
    }
}

pub fn search(g: &Global, query: &str, limit: usize) -> anyhow::Result<u8> {
    let vault = open_vault(g)?;
    let crew = crew_to_run(g)?;
    let q = crew::analysis::search::parse_query(query);
    let hits = crew::analysis::search::search(
        &vault,
        &*vault,
        &crew.config.folders,
        &q,
        limit,
        crew::run::run_clock()?.date(),
    );
    if g.json {
        out_json(&hits)?;
    } else {
        let mut s = String::new();
        for h in &hits {
            if h.line > 0 {
                s.push_str(&format!("{}:{}: {}\n", h.path, h.line, h.text));
            } else {
                s.push_str(&format!("{}\n", h.path));
            }
        }
        if hits.is_empty() {
            eprintln!("no note matches \"{query}\"");
        }
        out(&s)?;
    }
    Ok(if hits.is_empty() { 1 } else { 0 })
}

pub fn log(g: &Global, last: usize) -> anyhow::Result<u8> {
    let runs = crew::state::runlog::list(&crew::state::state_dir(&g.vault_path()));
    let runs: Vec<_> = runs.into_iter().take(last).collect();
    if g.json {
        out_json(&runs)?;
    } else {
        let mut s = String::new();
        for r in &runs {
            s.push_str(&format!(
                "{}  {}  \"{}\"  → {}  [{}]  {} change(s){}{}\n",
                r.run_id,
                r.at.get(..19).unwrap_or(&r.at),
                r.message,
                r.route,
                r.agents.join(", "),
                r.operations,
                if r.dry_run { " (dry run)" } else { "" },
                r.session
                    .as_deref()
                    .map(|s| format!("  session {s}"))
                    .unwrap_or_default()
            ));
        }
        if runs.is_empty() {
            s.push_str("No runs yet.\n");
        }
        out(&s)?;
    }
    Ok(0)
}

pub fn doctor(g: &Global) -> anyhow::Result<u8> {
    let vault_path = g.vault_path();
    let crew = Crew::load(&vault_path, g.crew_dir.as_deref())?;
    let report = crew::doctor::check(&vault_path, &crew);
    if g.json {
        out_json(&report)?;
    } else {
        out(&report.text())?;
    }
    Ok(if report.problems == 0 { 0 } else { 1 })
}

/// What every `crew undo` starts with: the vault, its state folder and, unless it only
/// looks, the vault lock.
fn undo_setup(
    g: &Global,
    dry_run: bool,
) -> anyhow::Result<(PathBuf, PathBuf, Option<crew::state::lock::VaultLock>)> {
    let vault = g.vault_path();
    if !vault.is_dir() {
        bail!(
            "vault folder {} does not exist: pass --vault PATH or set CREW_VAULT",
            vault.display()
        );
    }
    let state_dir = crew::state::state_dir(&vault);
    let lock = if dry_run {
        None
    } else {
        Some(crew::state::lock::VaultLock::acquire(
            &state_dir,
            "undo",
            crew::run::default_lock_wait(),
        )?)
    };
    Ok((vault, state_dir, lock))
}

pub fn undo(g: &Global, run: Option<String>, dry_run: bool) -> anyhow::Result<u8> {
    use crew::state::undo;
    let (vault, state_dir, _lock) = undo_setup(g, dry_run)?;
    let run = match run {
        Some(r) => r,
        None => undo::last_undoable(&state_dir)?,
    };
    // which files are crew's own (kept when a later run changed them); a crew definition a
    // run broke must not stop its undo, so the default folders stand in then
    let folders = Crew::load(&vault, g.crew_dir.as_deref())
        .map(|c| c.config.folders)
        .unwrap_or_default();
    let actions = undo::plan(&vault, &state_dir, &run, &folders)?;
    if !dry_run {
        undo::apply(&vault, &state_dir, &run, &actions)?;
    }
    if g.json {
        out_json(&json!({"run": run, "dry_run": dry_run, "actions": actions}))?;
    } else {
        let mut s = format!(
            "{} run {run}: {} step(s)\n",
            if dry_run { "Would undo" } else { "Undid" },
            actions.len()
        );
        for a in &actions {
            let line = match a {
                undo::Action::Restore { path, .. } => format!("  restore {path}"),
                undo::Action::Move { from, to } => format!("  move {from} → {to}"),
                undo::Action::Remove { path } => {
                    format!("  set aside {path} (it did not exist before)")
                }
                undo::Action::Rmdir { path } => format!("  remove empty folder {path}/"),
                undo::Action::Keep { path } => {
                    format!("  keep {path} as it is (crew's own file, changed by a later run)")
                }
            };
            s.push_str(&line);
            s.push('\n');
        }
        out(&s)?;
    }
    Ok(0)
}

/// `crew undo [RUN] --note PATH`: one note back to what it held before the run. A restore goes
/// through the gate with a journal of its own, so it is itself a run `crew undo` takes back.
pub fn undo_note(
    g: &Global,
    run: Option<String>,
    note: &str,
    force: bool,
    dry_run: bool,
) -> anyhow::Result<u8> {
    use crew::state::undo;
    let (vault, state_dir, _lock) = undo_setup(g, dry_run)?;
    let path = crew::gate::jail(note.trim())?;
    let run = match run {
        Some(r) => r,
        None => undo::last_run_on(&state_dir, &path)?,
    };
    let plan = undo::plan_note(&vault, &state_dir, &run, &path, force)?;
    let mut restore_run = None;
    if !dry_run {
        match &plan.before {
            Some(bytes) => {
                let id = crew::state::new_run_id();
                let journal =
                    crew::state::journal::Journal::at(state_dir.join("journal").join(&id));
                let mut gate = crew::gate::Gate::new(
                    crew::state::open_vault(&vault)?,
                    crew::gate::Policy::default(),
                    journal,
                    false,
                );
                gate.write(&path, bytes)?;
                if let undo::Action::Restore {
                    mtime_ns: Some(ns), ..
                } = &plan.action
                {
                    // the bytes are back either way; the time is cosmetic
                    let _ = crew::gate::set_mtime(&vault.join(&path), *ns);
                }
                restore_run = Some(id);
            }
            None => undo::set_aside(&vault, &state_dir, &run, &path)?,
        }
    }
    if g.json {
        out_json(&json!({
            "run": run,
            "note": path,
            "dry_run": dry_run,
            "actions": [plan.action],
            "journal": restore_run,
        }))?;
    } else {
        let did = |would: &'static str, done: &'static str| if dry_run { would } else { done };
        let mut s = match plan.action {
            undo::Action::Remove { .. } => format!(
                "{} {path} (run {run} created it) into .crew/undone/{run}/\n",
                did("Would set aside", "Set aside")
            ),
            _ => format!(
                "{} {path} to what it held before run {run}\n",
                did("Would restore", "Restored")
            ),
        };
        if let Some(id) = &restore_run {
            s.push_str(&format!("`crew undo {id}` takes this back.\n"));
        }
        out(&s)?;
    }
    Ok(0)
}
