//! The commands that run unattended or in bulk: maintenance, triage over the inbox, the
//! inbox watcher and the schedule that runs them.

use anyhow::bail;
use serde_json::json;

use super::commands::{AskFlags, ask, crew_to_run, open_vault};
use super::progress::Spinner;
use super::{Failed, Global, ScheduleAction, out, out_json, render};
use crew::run::{self, Options};

pub fn maintain(
    g: &Global,
    fix: bool,
    only: &[String],
    report: bool,
    dry_run: bool,
) -> anyhow::Result<u8> {
    use crew::agents::fixes::FixKind;
    let mut kinds = Vec::new();
    for raw in only {
        match FixKind::parse(raw) {
            Some(k) => kinds.push(k),
            None => bail!(
                "--only {raw}: no such fix kind; the kinds are {}",
                FixKind::ALL.map(FixKind::name).join(", ")
            ),
        }
    }
    let crew = crew_to_run(g)?;
    let opts = Options {
        dry_run,
        agent: Some("vault-audit".into()),
        apply: fix,
        fix_only: kinds,
        max_depth: Some(1),
        command: "maintain".into(),
        lang: g.lang,
        ..Options::default()
    };
    // cron mails any output: the spinner shows on a terminal only, the route lines never
    let spinner = Spinner::start(g.json, "maintaining the vault");
    let r = run::ask(
        &g.vault_path(),
        &crew,
        "vault maintenance",
        &opts,
        &mut |_| {},
    )?;
    drop(spinner);
    let step = r.chain.steps.first();
    let text = step.map(|s| s.output.clone()).unwrap_or_default();
    let data = step.and_then(|s| s.data.clone()).unwrap_or_default();
    let fixes = data
        .get("fixes")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let held = data
        .get("held")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    let not_written = data
        .get("not_written")
        .and_then(|v| v.as_array())
        .cloned()
        .unwrap_or_default();
    if g.json {
        out_json(&json!({
            "not_written": not_written,
            "attention": r.attention, "run_id": r.run_id, "dry_run": r.dry_run,
            "health_score": data.get("health_score"), "verdict": data.get("verdict"),
            "previous_score": data.get("previous_score"), "report_note": data.get("report_note"),
            "counts": data.get("counts"),
            "fixes": fixes, "held": held, "report": text, "deferred": r.chain.deferred,
        }))?;
    } else if report {
        out(&render::report_text(&r))?;
    } else if r.attention || r.chain.failed() || !fixes.is_empty() || !held.is_empty() || dry_run {
        // cron mails any output: quiet when all is well, every change named when not
        let first = text
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches('#')
            .trim();
        let mut s = format!("crew maintain: {first}\n");
        for l in text
            .lines()
            .take_while(|l| !l.starts_with("### "))
            .filter(|l| l.starts_with("- "))
            .take(8)
        {
            s.push_str(&format!("  {l}\n"));
        }
        s.push_str(&render::fix_lines(&fixes, &held, r.dry_run, r.lang));
        s.push_str(&render::not_written_lines(&not_written, r.lang));
        if r.dry_run {
            s.push_str(&crew::trn!(r.lang, "render.maintain.dry_run", fixes.len()));
        }
        out(&s)?;
    }
    if r.chain.failed() {
        return Err(Failed("the maintenance run failed".into()).into());
    }
    Ok(if r.attention { 1 } else { 0 })
}

/// `crew triage --evaluate`'s figures, as JSON or text.
fn show_evaluation(g: &Global, e: &crew::evaluate::Evaluation, seed: u64) -> anyhow::Result<()> {
    if g.json {
        out_json(e)?;
    } else {
        out(&format!(
            "Evaluated on a scratch copy (seed {seed}): {} filed notes moved to the inbox, with {} notes that belong nowhere (lists, recipes, journal lines…).\n  filed:     {} ({:.1} % coverage)\n  own folder: {} ({:.1} % precision)\n  lost:      {}\n  no home, filed anyway: {} of {}\n",
            e.moved,
            e.strangers,
            e.filed,
            100.0 * e.coverage,
            e.right,
            100.0 * e.precision,
            e.lost,
            e.strangers_filed,
            e.strangers
        ))?;
    }
    if !g.json && e.moved * 4 > e.filed_notes {
        // a quarter of the examples gone changes what there is to learn from
        out(&format!(
            "  note: {} of the vault's {} filed notes were taken out, leaving {} to learn from: these figures are for a thinner vault than this one (try a smaller N)\n",
            e.moved,
            e.filed_notes,
            e.filed_notes - e.moved
        ))?;
    }
    Ok(())
}

pub fn triage(
    g: &Global,
    calibrate: bool,
    evaluate: Option<usize>,
    seed: u64,
    dry_run: bool,
    file_into: Option<crew::agents::sorter::into::FileInto>,
) -> anyhow::Result<u8> {
    let crew = crew_to_run(g)?;
    if let Some(n) = evaluate {
        let spinner = Spinner::start(g.json, "filing held-out notes on a scratch copy");
        let e = crew::evaluate::evaluate(&g.vault_path(), &crew, n, seed)?;
        drop(spinner);
        show_evaluation(g, &e, seed)?;
        return Ok(if e.lost > 0 { 1 } else { 0 });
    }
    if calibrate {
        let vault = open_vault(g)?;
        let spinner = Spinner::start(g.json, "learning where this vault files its notes");
        let learned = crew::evaluate::calibrate(&vault, &crew);
        let trust =
            crew::evaluate::evidence_trust(std::mem::ManuallyDrop::into_inner(vault), &crew)?;
        drop(spinner);
        let Some(l) = learned else {
            bail!("too few filed notes to learn from (fewer than 5 outside the inbox)");
        };
        let c = &l.calibration;
        if g.json {
            out_json(&json!({
                "calibration": c,
                "folders": crew::agents::filing::folder_map(&l),
                "explicit_evidence": trust,
            }))?;
            return Ok(0);
        }
        let mut s = format!(
            "Learned from {} filed notes in {} folders; leave-one-out on {}:\n",
            l.classifier.examples(),
            l.classifier.folders().len(),
            c.sampled
        );
        if c.margin.is_finite() {
            s.push_str(&format!(
                "  at margin ≥ {:.3}, at least {:.0} % of a folder's typical nearness and with one of its hallmarks: estimated precision {:.1} % (target {:.0} %), coverage {:.1} %\n",
                c.margin,
                100.0 * c.novelty,
                100.0 * c.precision,
                100.0 * c.target,
                100.0 * c.coverage
            ));
        } else {
            s.push_str(&format!(
                "  no margin reaches {:.0} % precision: notes without explicit evidence stay in the inbox\n",
                100.0 * c.target
            ));
        }
        s.push_str(&format!(
            "  notes with no home here (lists, recipes, journal lines…): {} of {} would be filed ({:.1} %, target at most {:.0} %)\n",
            c.strangers_filed,
            c.strangers,
            100.0 * c.stranger_rate(),
            100.0 * c.stranger_target
        ));
        s.push_str("  precision when filing the surest share of notes:");
        for (cover, precision) in &c.curve {
            s.push_str(&format!(" {:.0}%→{:.0}%", 100.0 * cover, 100.0 * precision));
        }
        s.push_str(&explicit_evidence_lines(&trust));
        s.push_str("\n  folder                                    sampled  filed  right\n");
        for (f, sampled, filed, right) in &c.per_folder {
            s.push_str(&format!("  {f:<40} {sampled:>8} {filed:>6} {right:>6}\n"));
        }
        out(&s)?;
        return Ok(0);
    }
    ask(
        g,
        "file my notes",
        AskFlags {
            dry_run,
            agent: Some("inbox-triage".into()),
            model: None,
            // the user's own placement is the whole request: nothing chains after it
            max_depth: file_into.as_ref().map(|_| 1),
            fix: false,
            yes: false,
            file_into,
        },
    )
}

/// The calibration's lines on explicit evidence: per kind, how many sampled filed notes it
/// would have placed and how many of those where they are, and whether triage uses it.
fn explicit_evidence_lines(trust: &crew::agents::sorter::Trust) -> String {
    if trust.kinds.is_empty() {
        return "\n  explicit evidence (project:, area:, type:, tags, links, titles): none points to a home for the sampled filed notes\n".into();
    }
    let mut s = String::from("\n  explicit evidence   placed  where they are  used\n");
    for (kind, tally) in &trust.kinds {
        s.push_str(&format!(
            "  {:<18} {:>7} {:>15}  {}\n",
            kind.label(),
            tally.decided,
            tally.agreed,
            if trust.trusted(*kind) {
                "yes"
            } else {
                "no: the vault contradicts it"
            }
        ));
    }
    s
}

pub fn watch(g: &Global, poll: bool, once: bool, settle: f64) -> anyhow::Result<u8> {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    if !(0.0..=3600.0).contains(&settle) {
        bail!("--settle takes seconds from 0 to 3600");
    }
    let crew = crew_to_run(g)?;
    let vault = g.vault_path();
    if !vault.is_dir() {
        bail!(
            "vault folder {} does not exist: pass --vault PATH or set CREW_VAULT",
            vault.display()
        );
    }
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    // Ctrl-C and SIGTERM only raise the flag: the run in progress finishes first
    ctrlc::set_handler(move || flag.store(true, Ordering::SeqCst))?;
    let opts = crew::watch::WatchOptions {
        poll,
        once,
        settle: std::time::Duration::from_secs_f64(settle),
        ..Default::default()
    };
    let json = g.json;
    let mut report = |line: &str| {
        if json {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    let summary = crew::watch::watch(&vault, &crew, &opts, &stop, &mut report)?;
    if g.json {
        out_json(&summary)?;
    } else {
        report(&format!(
            "stopped: {} run(s), {} filed, {} error(s)",
            summary.runs, summary.filed, summary.errors
        ));
    }
    Ok(if summary.errors > 0 { 1 } else { 0 })
}

pub fn schedule(g: &Global, action: ScheduleAction) -> anyhow::Result<u8> {
    use crew::schedule::{self, Backend};
    let vault = g.vault_path();
    if !vault.is_dir() {
        bail!(
            "vault folder {} does not exist: pass --vault PATH or set CREW_VAULT",
            vault.display()
        );
    }
    let vault = vault.canonicalize()?;
    match action {
        ScheduleAction::Install {
            at,
            watch,
            systemd,
            cron,
            dry_run,
        } => {
            let (hour, minute) = schedule::parse_time(&at)?;
            let backend = if systemd {
                Backend::Systemd
            } else if cron {
                Backend::Cron
            } else {
                schedule::detect()?
            };
            let plan = schedule::Plan {
                crew_bin: std::env::current_exe()?,
                vault: vault.clone(),
                hour,
                minute,
                watch,
            };
            if dry_run {
                let would = schedule::preview(backend, &plan)?;
                if g.json {
                    out_json(
                        &json!({"backend": backend, "would_install": would, "dry_run": true}),
                    )?;
                } else {
                    out(&format!(
                        "Would install ({backend:?}):\n  {}\nDry run: nothing was installed.",
                        would.join("\n  ")
                    ))?;
                }
                return Ok(0);
            }
            let written = schedule::install(backend, &plan)?;
            if g.json {
                out_json(&json!({"backend": backend, "installed": written}))?;
            } else {
                out(&format!(
                    "Installed ({backend:?}):\n  {}\n`crew schedule remove` undoes it exactly.",
                    written.join("\n  ")
                ))?;
            }
        }
        ScheduleAction::Show => {
            let entries = schedule::show(&vault);
            if g.json {
                out_json(
                    &entries
                        .iter()
                        .map(|(b, t)| json!({"backend": b, "entry": t}))
                        .collect::<Vec<_>>(),
                )?;
            } else if entries.is_empty() {
                out("Nothing is scheduled for this vault.")?;
            } else {
                out(&entries
                    .iter()
                    .map(|(b, t)| format!("[{b:?}]\n{t}"))
                    .collect::<Vec<_>>()
                    .join("\n"))?;
            }
        }
        ScheduleAction::Remove { dry_run: true } => {
            // what `remove` takes out is exactly what is installed for this vault
            let entries: Vec<String> = schedule::show(&vault).into_iter().map(|(_, t)| t).collect();
            if g.json {
                out_json(&json!({"would_remove": entries, "dry_run": true}))?;
            } else if entries.is_empty() {
                out("Nothing is scheduled for this vault.")?;
            } else {
                out(&format!(
                    "Would remove:\n  {}\nDry run: nothing was removed.",
                    entries.join("\n  ")
                ))?;
            }
        }
        ScheduleAction::Remove { dry_run: false } => {
            let removed = schedule::remove(&vault)?;
            if g.json {
                out_json(&json!({"removed": removed}))?;
            } else if removed.is_empty() {
                out("Nothing was scheduled for this vault.")?;
            } else {
                out(&format!("Removed:\n  {}", removed.join("\n  ")))?;
            }
        }
    }
    Ok(0)
}
