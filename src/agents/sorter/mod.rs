//! The sorter and `/inbox-triage`: file every inbox note where it belongs, with evidence.

mod homeless;
pub mod into;
mod keys;
mod model;
mod named;
mod report;
mod scope;
mod triage;

use std::collections::{BTreeMap, BTreeSet};

use super::common::{self, link_value_name};
use super::cue::Cue;
use super::{Ctx, NativeOutput};
use crate::agents::filing::decide::last_segment;
use crate::gate::GateError;
use crate::vault::Note;
use triage::{inbox_notes, triage};

pub use crate::agents::filing::{Kind, Tally, Trust};

/// `/inbox-triage`: file the inbox.
pub(crate) fn inbox_triage(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    triage(ctx, "inbox-triage")
}

/// The sorter's modes (`agents/sorter.md`, `## Modes`), from the slug the dispatcher chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SorterMode {
    Triage,
    SmartBatch,
    PriorityTriage,
    ProjectPulse,
}

impl SorterMode {
    fn from_slug(slug: Option<&str>) -> SorterMode {
        match slug {
            Some("smart-batch") => SorterMode::SmartBatch,
            Some("priority-triage") => SorterMode::PriorityTriage,
            Some("project-pulse") => SorterMode::ProjectPulse,
            _ => SorterMode::Triage,
        }
    }
}

/// The sorter agent: triage, or one of its modes; a request naming one note and a place for
/// it moves that note ([`named`]). Handed work by another agent, the step has no mode (the
/// user's words were for the other agent) and the sorter files what that request created.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    match SorterMode::from_slug(ctx.mode()) {
        SorterMode::ProjectPulse => Ok(project_pulse(ctx)),
        SorterMode::PriorityTriage => Ok(priority_triage(ctx)),
        SorterMode::SmartBatch => smart_batch(ctx),
        SorterMode::Triage => match named::asked(ctx).and_then(|asked| named::run(ctx, &asked)) {
            Some(moved) => moved,
            None => triage(ctx, "sorter"),
        },
    }
}

/// Groups inbox notes that belong together: linked to each other, naming the same project or
/// area, linking to the same person, or dated the same day. Returns clusters of 2+ notes as
/// (paths, reasons), largest first.
pub(crate) fn clusters(ctx: &Ctx) -> Vec<(Vec<String>, Vec<String>)> {
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    fn join(p: &mut [usize], r: &mut [BTreeSet<String>], a: usize, b: usize, why: &str) {
        r[a].insert(why.to_string());
        r[b].insert(why.to_string());
        let (ra, rb) = (find(p, a), find(p, b));
        if ra != rb {
            p[ra] = rb;
        }
    }
    let vault = ctx.gate.vault();
    let idx = inbox_notes(ctx);
    let mut parent: Vec<usize> = (0..idx.len()).collect();
    let mut reasons: Vec<BTreeSet<String>> = vec![BTreeSet::new(); idx.len()];
    let people = format!("{}/", ctx.config.folders.people);
    let mut keys: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (k, &i) in idx.iter().enumerate() {
        let n = &vault.notes[i];
        for key in ["project", "area"] {
            if let Some(v) = n.property_str(key) {
                keys.entry(format!("{key}: {}", link_value_name(&v)))
                    .or_default()
                    .push(k);
            }
        }
        if let Some(d) = n.property_str("date").and_then(|d| common::parse_date(&d)) {
            keys.entry(format!("same day {d}")).or_default().push(k);
        }
        for r in &vault.resolved[i] {
            if let Some(t) = r.file().and_then(|f| vault.note_of_file(f)) {
                if vault.notes[t].path.starts_with(&people) {
                    keys.entry(format!("mention [[{}]]", vault.notes[t].name()))
                        .or_default()
                        .push(k);
                }
                if let Some(other) = idx.iter().position(|&x| x == t)
                    && other != k
                {
                    join(&mut parent, &mut reasons, k, other, "linked to each other");
                }
            }
        }
    }
    for (why, members) in &keys {
        for w in members.windows(2) {
            join(&mut parent, &mut reasons, w[0], w[1], why);
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for k in 0..idx.len() {
        let root = find(&mut parent, k);
        groups.entry(root).or_default().push(k);
    }
    let mut out: Vec<(Vec<String>, Vec<String>)> = groups
        .into_values()
        .filter(|g| g.len() >= 2)
        .map(|g| {
            let why: BTreeSet<String> =
                g.iter().flat_map(|&k| reasons[k].iter().cloned()).collect();
            (
                g.iter()
                    .map(|&k| vault.notes[idx[k]].path.clone())
                    .collect(),
                why.into_iter().collect(),
            )
        })
        .collect();
    out.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
    out
}

fn stem_of(path: &str) -> String {
    path.rsplit('/')
        .next()
        .unwrap_or(path)
        .trim_end_matches(".md")
        .to_string()
}

/// Smart batch: show the clusters, cross-link them when asked to apply, then file the inbox.
fn smart_batch(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let groups = clusters(ctx);
    let apply = ctx.apply || ctx.says(Cue::Apply);
    let l = ctx.lang;
    let mut head = crate::trn!(l, "sorter.batch.heading", groups.len());
    for (n, (paths, why)) in groups.iter().enumerate() {
        head.push_str(&crate::tr!(
            l,
            "sorter.batch.cluster",
            number = n + 1,
            count = paths.len(),
            why = why.join("; ")
        ));
        for p in paths {
            head.push_str(&format!("- {}\n", stem_of(p)));
        }
        head.push('\n');
        if !apply {
            continue;
        }
        for p in paths {
            let text = ctx.gate.read_text(p).unwrap_or_default();
            let missing: Vec<String> = paths
                .iter()
                .filter(|o| *o != p)
                .map(|o| stem_of(o))
                .filter(|o| !text.contains(&format!("[[{o}")))
                .collect();
            if missing.is_empty() {
                continue;
            }
            let section: String = missing.iter().map(|o| format!("- [[{o}]]\n")).collect();
            ctx.gate
                .edit(p, "smart batch: cross-link the cluster", |t| {
                    let mut s = t.to_string();
                    if !s.ends_with('\n') {
                        s.push('\n');
                    }
                    s.push_str(&format!("\n## Related\n{section}"));
                    s
                })?;
            common::log_change(ctx, "sorter", &format!("cross-linked {p} with its batch"))?;
        }
    }
    if !groups.is_empty() && !apply {
        head.push_str(&crate::tr!(l, "sorter.batch.apply_hint"));
    }
    let mut filed = triage(ctx, "sorter")?;
    filed.text = format!("{head}{}", filed.text);
    Ok(filed)
}

fn deadline_of(note: &Note) -> Option<chrono::NaiveDate> {
    ["deadline", "due", "due-date"]
        .iter()
        .find_map(|k| note.property_str(k).and_then(|v| common::parse_date(&v)))
}

fn priority_triage(ctx: &mut Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let today = ctx.now.date();
    let mut rows: Vec<(u8, String, String)> = Vec::new();
    for i in inbox_notes(ctx) {
        let n = &vault.notes[i];
        let prio = n
            .property_str("priority")
            .unwrap_or_default()
            .to_lowercase();
        let kind = n.property_str("type").unwrap_or_default().to_lowercase();
        let dl = deadline_of(n);
        let (rank, why) = match dl {
            Some(d) if (d - today).num_days() <= 1 => (0, format!("deadline {d}")),
            _ if prio == "high" || prio == "urgent" => (0, format!("priority: {prio}")),
            Some(d) if (d - today).num_days() <= 7 => (1, format!("deadline {d}")),
            _ if n.property_str("project").is_some() => (1, "active project".to_string()),
            _ if matches!(kind.as_str(), "quote" | "list") || prio == "low" => (
                3,
                if prio == "low" {
                    "priority: low".into()
                } else {
                    format!("type: {kind}")
                },
            ),
            _ => (
                2,
                if kind.is_empty() {
                    "no signal".into()
                } else {
                    format!("type: {kind}")
                },
            ),
        };
        rows.push((rank, n.name().to_string(), why));
    }
    rows.sort();
    let l = ctx.lang;
    let labels = [
        crate::tr!(l, "sorter.priority.critical"),
        crate::tr!(l, "sorter.priority.high"),
        crate::tr!(l, "sorter.priority.normal"),
        crate::tr!(l, "sorter.priority.low"),
    ];
    let mut out = crate::tr!(l, "sorter.priority.heading", date = ctx.today());
    if rows.is_empty() {
        out.push_str(&crate::tr!(l, "sorter.inbox_empty"));
    }
    for (rank, label) in labels.iter().enumerate() {
        let items: Vec<_> = rows.iter().filter(|r| r.0 as usize == rank).collect();
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("### {label} ({})\n", items.len()));
        for (_, t, why) in items {
            out.push_str(&format!("- {t} — {why}\n"));
        }
        out.push('\n');
    }
    out.push_str(&crate::tr!(l, "sorter.priority.nothing_moved"));
    NativeOutput {
        attention: rows.iter().any(|r| r.0 == 0),
        postit: format!(
            "priority triage {}: {} critical of {}",
            ctx.today(),
            rows.iter().filter(|r| r.0 == 0).count(),
            rows.len()
        ),
        text: out,
    }
}

fn project_pulse(ctx: &mut Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let today = ctx.now.date();
    let projects = ctx.gate.subdirs(&ctx.config.folders.projects);
    let l = ctx.lang;
    let mut out = crate::tr!(l, "sorter.pulse.heading", date = ctx.today());
    let mut quiet = 0;
    for p in &projects {
        let notes: Vec<&Note> = common::notes_under(&vault.notes, p)
            .map(|(_, n)| n)
            .collect();
        let last = notes.iter().filter_map(|n| common::last_touched(n)).max();
        let recent = notes
            .iter()
            .filter(|n| common::last_touched(n).is_some_and(|d| (today - d).num_days() <= 7))
            .count();
        let state = match last {
            Some(d) if (today - d).num_days() > 7 => {
                quiet += 1;
                crate::tr!(l, "sorter.pulse.quiet")
            }
            None => {
                quiet += 1;
                crate::tr!(l, "sorter.pulse.empty")
            }
            _ => crate::tr!(l, "sorter.pulse.active"),
        };
        out.push_str(&format!(
            "| {} | {} | {recent} | {} | {state} |\n",
            last_segment(p),
            notes.len(),
            last.map_or("—".to_string(), |d| d.to_string())
        ));
    }
    if projects.is_empty() {
        out = crate::tr!(
            l,
            "sorter.pulse.none",
            date = ctx.today(),
            folder = ctx.config.folders.projects
        );
    }
    NativeOutput {
        postit: format!(
            "project pulse {}: {} projects, {quiet} quiet",
            ctx.today(),
            projects.len()
        ),
        text: out,
        attention: false,
    }
}
