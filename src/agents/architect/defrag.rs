//! `/defrag`: the five phases — structure audit, tag hygiene, MOC upkeep, structure
//! evolution, report. The audit ([`super::defrag_plan`]) decides; this applies what may be
//! applied, through the gate; [`super::defrag_report`] renders the rest as proposals.
//!
//! What it may change: in a vault crew laid out, or when asked (`--fix`, "create what is
//! missing"), it completes area structures, adds missing notes to their maps (linking each by
//! a target no other note shares), lists area maps in the master index and files inbox notes
//! that waited over 48 hours into the home their `project`/`area` names. Tags are never
//! rewritten (that is the tag garden's `--fix`) and nothing is archived unasked. A vault that
//! keeps its own layout gets the report only, unless asked.

use super::defrag_plan::{self, DefragPlan};
use super::defrag_report::{Change, DefragRun};
use crate::agents::common::{self, suggestion};
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;

/// Whether this run may change notes: crew laid the vault out, or the user asked for it
/// directly (never on another agent's hand-off).
fn changes_allowed(ctx: &Ctx) -> bool {
    ctx.crew.owns_layout()
        || (ctx.step.suggested_by.is_none()
            && (ctx.apply || ctx.says(crate::agents::cue::Cue::Build)))
}

/// `/defrag`: structural maintenance and its report.
pub fn defrag(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let today = ctx.now.date();
    let plan = defrag_plan::plan(ctx, today);
    let allowed = changes_allowed(ctx);
    let (plan, changes) = if allowed {
        let changes = apply(ctx, &plan)?;
        // what is left after the changes is what the report proposes
        (defrag_plan::plan(ctx, today), changes)
    } else {
        (plan, Vec::new())
    };
    let run = DefragRun {
        date: today,
        plan,
        changes,
        changes_allowed: allowed,
    };
    let report = format!(
        "{}/health-reports/{} — Defrag Report.md",
        ctx.config.folders.meta, today
    );
    // one report a day: a second run replaces it, so its figures are the latest
    ctx.gate.write(&report, run.note().as_bytes())?;
    common::log_change(
        ctx,
        "defrag",
        &format!("defrag: {} changes; report {report}", run.changes.len()),
    )?;
    ctx.data = serde_json::to_value(&run).ok();
    let out = run.reply(&report, ctx.lang);
    if !run.plan.stale_inbox.is_empty() {
        ctx.hand_off(suggestion(
            "sorter",
            &format!(
                "{} inbox notes are older than 48 hours",
                run.plan.stale_inbox.len()
            ),
            &run.plan.stale_inbox.join("; "),
        ));
    }
    Ok(NativeOutput {
        postit: format!(
            "defrag {today}: {} changes, {} proposals pending",
            run.changes.len(),
            run.plan.misplaced.len() + run.plan.tag_variants.len()
        ),
        attention: !run.plan.stale_inbox.is_empty(),
        text: out,
    })
}

/// Applies the plan's safe parts; returns each change.
fn apply(ctx: &mut Ctx, plan: &DefragPlan) -> Result<Vec<Change>, GateError> {
    let mut changes = Vec::new();
    for gap in &plan.area_gaps {
        for made in super::scaffold_area(ctx, &gap.name)? {
            changes.push(scaffold_change(made));
        }
    }
    for m in plan.misplaced.iter().filter(|m| m.safe) {
        let to = format!(
            "{}/{}",
            m.home,
            m.path.rsplit('/').next().unwrap_or(&m.path)
        );
        let moved = ctx.gate.move_file(&m.path, &to)?;
        changes.push(Change {
            path: moved.from,
            what: format!("moved to `{}`", moved.to),
        });
        for (path, n) in moved.rewritten {
            changes.push(Change {
                path,
                what: format!("{n} link(s) follow the move"),
            });
        }
    }
    // the maps are re-planned after the moves and the new structures, so they list both
    let fresh = defrag_plan::plan(ctx, ctx.now.date());
    for add in &fresh.moc_additions {
        let lines: Vec<String> = add.targets.iter().map(|t| format!("- [[{t}]]")).collect();
        ctx.gate.edit(&add.moc, "defrag: MOC refresh", |t| {
            lines.iter().fold(t.to_string(), |acc, l| {
                crate::agents::moc::insert_under_notes(&acc, l)
            })
        })?;
        changes.push(Change {
            path: add.moc.clone(),
            what: format!("listed {} note(s)", add.targets.len()),
        });
    }
    let index = format!("{}/Index.md", ctx.config.folders.moc);
    for moc in &fresh.index_missing {
        let target = moc.trim_end_matches(".md").to_string();
        let name = target.rsplit('/').next().unwrap_or(&target).to_string();
        ctx.gate.edit(&index, "defrag: master index", |t| {
            crate::agents::moc::insert_under_notes(t, &format!("- [[{target}|{name}]]"))
        })?;
        changes.push(Change {
            path: index.clone(),
            what: format!("listed `{moc}`"),
        });
    }
    Ok(changes)
}

/// A line from the area scaffolding (`path`, `folder/` or `path (updated)`) as a change.
fn scaffold_change(made: String) -> Change {
    match made.strip_suffix(" (updated)") {
        Some(path) => Change {
            path: path.to_string(),
            what: "updated".into(),
        },
        None => Change {
            path: made,
            what: "created".into(),
        },
    }
}
