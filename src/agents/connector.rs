//! The connector: graph audit with the six-metric health score, and link suggestions.
//!
//! Graph health score (0–100), weighted:
//! orphan rate 25 % (100 − 5·orphan %), average links per note 20 % (100 between 3 and 5, minus
//! 25 per link outside that band), MOC coverage 20 % (% of notes reachable from a MOC),
//! cluster connectivity 15 % (100 / number of connected components), dead-end rate 10 %
//! (100 − 5·dead-end %), reciprocal links 10 % (2·reciprocal %, at most 100).

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use serde::Serialize;

use super::common::{self, suggestion};
use super::{Ctx, NativeOutput};
use crate::crew::Folders;
use crate::gate::GateError;
use crate::vault::Vault;

#[derive(Debug, Clone, Default, Serialize)]
pub struct GraphAudit {
    pub notes: usize,
    pub edges: usize,
    pub orphans: Vec<usize>,
    pub dead_ends: Vec<usize>,
    pub components: usize,
    pub largest_component: usize,
    pub avg_links: f64,
    pub moc_coverage: f64,
    pub reciprocal_pct: f64,
    pub score: u32,
    pub metrics: Vec<(String, f64, f64)>,
    pub most_connected: Vec<(usize, usize, usize)>,
}

fn is_content(path: &str, f: &Folders) -> bool {
    !(path.starts_with(&format!("{}/", f.meta)) || path.starts_with(&format!("{}/", f.templates)))
}

/// How to write a note in a link so that it is unambiguous: its name, or its path when
/// several notes share the name.
pub fn display(vault: &Vault, i: usize) -> String {
    let name = vault.notes[i].name();
    let shared = vault.files.notes_named(name) > 1;
    if shared {
        vault.notes[i].path.trim_end_matches(".md").to_string()
    } else {
        name.to_string()
    }
}

fn is_moc(vault: &Vault, i: usize, f: &Folders) -> bool {
    let n = &vault.notes[i];
    n.path.starts_with(&format!("{}/", f.moc))
        || n.property_str("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("moc"))
}

/// Audits the link graph of the notes that are content (not Meta or Templates).
pub fn graph_audit(vault: &Vault, f: &Folders) -> GraphAudit {
    let content: Vec<bool> = vault.notes.iter().map(|n| is_content(&n.path, f)).collect();
    let n = vault.notes.len();
    let edges: BTreeSet<(usize, usize)> = vault
        .edges()
        .into_iter()
        .filter(|&(a, b)| a != b && content[a] && content[b])
        .collect();
    let mut out_deg = vec![0usize; n];
    let mut in_deg = vec![0usize; n];
    let mut adj: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut directed: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in &edges {
        out_deg[a] += 1;
        in_deg[b] += 1;
        adj[a].push(b);
        adj[b].push(a);
        directed[a].push(b);
    }
    let idx: Vec<usize> = (0..n).filter(|&i| content[i]).collect();
    let total = idx.len().max(1) as f64;
    let orphans: Vec<usize> = idx.iter().copied().filter(|&i| in_deg[i] == 0).collect();
    let dead_ends: Vec<usize> = idx.iter().copied().filter(|&i| out_deg[i] == 0).collect();
    // connected components (undirected)
    let mut comp = vec![usize::MAX; n];
    let mut sizes = Vec::new();
    for &s in &idx {
        if comp[s] != usize::MAX {
            continue;
        }
        let id = sizes.len();
        let mut size = 0;
        let mut q = VecDeque::from([s]);
        comp[s] = id;
        while let Some(x) = q.pop_front() {
            size += 1;
            for &y in &adj[x] {
                if comp[y] == usize::MAX {
                    comp[y] = id;
                    q.push_back(y);
                }
            }
        }
        sizes.push(size);
    }
    // reachability from MOCs (directed)
    let mut seen = vec![false; n];
    let mut q: VecDeque<usize> = idx
        .iter()
        .copied()
        .filter(|&i| is_moc(vault, i, f))
        .collect();
    for &m in &q {
        seen[m] = true;
    }
    while let Some(x) = q.pop_front() {
        for &y in &directed[x] {
            if !seen[y] {
                seen[y] = true;
                q.push_back(y);
            }
        }
    }
    let covered = idx.iter().filter(|&&i| seen[i]).count();
    let reciprocal = edges
        .iter()
        .filter(|&&(a, b)| edges.contains(&(b, a)))
        .count();
    let orphan_pct = orphans.len() as f64 * 100.0 / total;
    let dead_pct = dead_ends.len() as f64 * 100.0 / total;
    let avg = edges.len() as f64 / total;
    let moc_cov = covered as f64 * 100.0 / total;
    let recip_pct = if edges.is_empty() {
        0.0
    } else {
        reciprocal as f64 * 100.0 / edges.len() as f64
    };
    let clamp = |x: f64| x.clamp(0.0, 100.0);
    let avg_score = if (3.0..=5.0).contains(&avg) {
        100.0
    } else if avg < 3.0 {
        clamp(100.0 - 25.0 * (3.0 - avg))
    } else {
        clamp(100.0 - 25.0 * (avg - 5.0))
    };
    let metrics = vec![
        (
            "orphan rate".to_string(),
            25.0,
            clamp(100.0 - 5.0 * orphan_pct),
        ),
        ("average links per note".to_string(), 20.0, avg_score),
        ("MOC coverage".to_string(), 20.0, clamp(moc_cov)),
        (
            "cluster connectivity".to_string(),
            15.0,
            if sizes.is_empty() {
                100.0
            } else {
                clamp(100.0 / sizes.len() as f64)
            },
        ),
        (
            "dead-end rate".to_string(),
            10.0,
            clamp(100.0 - 5.0 * dead_pct),
        ),
        ("reciprocal links".to_string(), 10.0, clamp(2.0 * recip_pct)),
    ];
    let score = (metrics.iter().map(|(_, w, v)| w * v).sum::<f64>() / 100.0).round() as u32;
    let mut most: Vec<(usize, usize, usize)> =
        idx.iter().map(|&i| (i, in_deg[i], out_deg[i])).collect();
    most.sort_by(|a, b| (b.1 + b.2).cmp(&(a.1 + a.2)).then(a.0.cmp(&b.0)));
    most.truncate(10);
    GraphAudit {
        notes: idx.len(),
        edges: edges.len(),
        orphans,
        dead_ends,
        components: sizes.len(),
        largest_component: sizes.iter().copied().max().unwrap_or(0),
        avg_links: avg,
        moc_coverage: moc_cov,
        reciprocal_pct: recip_pct,
        score,
        metrics,
        most_connected: most,
    }
}

/// Link suggestions for one note: notes sharing tags, sharing link targets, or whose title the
/// note mentions without linking. Returns (candidate, strength, reason), strongest first.
pub fn suggest_links(
    vault: &Vault,
    source: &dyn crate::vault::NoteSource,
    f: &Folders,
    i: usize,
    limit: usize,
) -> Vec<(usize, u32, String)> {
    let note = &vault.notes[i];
    let text = common::reread(source, note)
        .map(|(t, _)| t.to_lowercase())
        .unwrap_or_default();
    let tags: BTreeSet<String> = note.tags_normalized().into_iter().collect();
    let targets: BTreeSet<usize> = vault.resolved[i].iter().filter_map(|r| r.file()).collect();
    let linked: BTreeSet<usize> = targets
        .iter()
        .filter_map(|&f| vault.note_of_file(f))
        .collect();
    let mut scored: BTreeMap<usize, (u32, Vec<String>)> = BTreeMap::new();
    for (j, other) in vault.notes.iter().enumerate() {
        if j == i || linked.contains(&j) || !is_content(&other.path, f) {
            continue;
        }
        let mut s = 0;
        let mut why = Vec::new();
        let shared: Vec<String> = other
            .tags_normalized()
            .into_iter()
            .filter(|t| tags.contains(t))
            .collect();
        if !shared.is_empty() {
            s += 2 * shared.len() as u32;
            why.push(format!("shares #{}", shared.join(", #")));
        }
        let other_targets: BTreeSet<usize> =
            vault.resolved[j].iter().filter_map(|r| r.file()).collect();
        let common_links = targets.intersection(&other_targets).count();
        if common_links > 0 {
            s += 2 * common_links as u32;
            why.push(format!(
                "{common_links} shared link{}",
                if common_links == 1 { "" } else { "s" }
            ));
        }
        let name = other.name().to_lowercase();
        if name.chars().count() >= 4 && text.contains(&name) {
            s += 3;
            why.push("mentioned by title, not linked".into());
        }
        if s > 0 {
            scored.insert(j, (s, why));
        }
    }
    let mut v: Vec<(usize, u32, String)> = scored
        .into_iter()
        .map(|(j, (s, w))| (j, s, w.join("; ")))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(limit);
    v
}

fn strength(s: u32) -> &'static str {
    match s {
        6.. => "strong",
        3..=5 => "medium",
        _ => "weak",
    }
}

/// The connector agent.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let f = ctx.config.folders.clone();
    let g = graph_audit(ctx.gate.vault(), &f);
    let vault = ctx.gate.vault();
    let mut out = format!(
        "## Graph audit — {}: health score **{}**/100\n\n",
        ctx.today(),
        g.score
    );
    out.push_str(&format!(
        "{} notes, {} links ({:.1} per note), {} cluster{} (largest {}), MOC coverage {:.0} %, reciprocal {:.0} %.\n\n| metric | weight | score |\n|---|---|---|\n",
        g.notes, g.edges, g.avg_links, g.components, if g.components == 1 { "" } else { "s" }, g.largest_component, g.moc_coverage, g.reciprocal_pct
    ));
    for (name, w, v) in &g.metrics {
        out.push_str(&format!("| {name} | {w:.0} % | {v:.0} |\n"));
    }
    out.push('\n');
    out.push_str("### Most connected\n");
    for (i, inn, outn) in &g.most_connected {
        out.push_str(&format!(
            "- [[{}]] — {inn} in, {outn} out\n",
            display(vault, *i)
        ));
    }
    out.push('\n');
    let mut worst: Vec<&(String, f64, f64)> = g.metrics.iter().collect();
    worst.sort_by(|a, b| a.2.partial_cmp(&b.2).unwrap_or(std::cmp::Ordering::Equal));
    out.push_str("### Top improvements\n");
    for (name, _, v) in worst.iter().take(3) {
        out.push_str(&format!("- raise {name} (now {v:.0})\n"));
    }
    out.push('\n');
    // link suggestions for the orphans (up to 10)
    let targets: Vec<usize> = g
        .orphans
        .iter()
        .copied()
        .filter(|&i| !vault.notes[i].path.starts_with(&format!("{}/", f.moc)))
        .take(10)
        .collect();
    let mut plans: Vec<(String, Vec<String>)> = Vec::new();
    if !targets.is_empty() {
        out.push_str("### Link suggestions for orphans\n");
        for &i in &targets {
            let sugg = suggest_links(vault, &*ctx.gate, &f, i, 3);
            if sugg.is_empty() {
                out.push_str(&format!(
                    "- [[{}]]: nothing related found\n",
                    display(vault, i)
                ));
                continue;
            }
            let mut names = Vec::new();
            for (j, s, why) in &sugg {
                out.push_str(&format!(
                    "- [[{}]] ← [[{}]] ({}: {why})\n",
                    display(vault, i),
                    display(vault, *j),
                    strength(*s)
                ));
                names.push(display(vault, *j));
            }
            plans.push((vault.notes[i].path.clone(), names));
        }
        out.push('\n');
    }
    let apply = ctx.apply
        || ctx.asks(&[
            "apply",
            "add the links",
            "link them",
            "applica",
            "appliquer",
            "aplicar",
            "anwenden",
        ]);
    let mut applied = 0;
    if apply {
        for (path, names) in &plans {
            let section: String = names.iter().map(|n| format!("- [[{n}]]\n")).collect();
            let changed = ctx.gate.edit(path, "connector: add Related links", |t| {
                let mut s = t.to_string();
                if !s.ends_with('\n') {
                    s.push('\n');
                }
                s.push_str(&format!("\n## Related\n{section}"));
                s
            })?;
            if changed {
                applied += 1;
                common::log_change(
                    ctx,
                    "connector",
                    &format!("added {} related link(s) to {path}", names.len()),
                )?;
            }
        }
        out.push_str(&format!(
            "Added `## Related` sections to {applied} note(s).\n"
        ));
    } else if !plans.is_empty() {
        out.push_str("No link was added. Say \"connect the notes and apply\" (or run with `--fix`) to add them as `## Related` sections.\n");
    }
    // clusters without a MOC are the architect's
    let vault = ctx.gate.vault();
    let mut folders_without_moc = Vec::new();
    for area in ctx
        .gate
        .subdirs(&f.areas)
        .into_iter()
        .chain(ctx.gate.subdirs(&f.projects))
    {
        let members = common::notes_under(&vault.notes, &area).count();
        let leaf = area.rsplit('/').next().unwrap_or(&area);
        if members >= 3 && !ctx.gate.exists(&format!("{}/{leaf}.md", f.moc)) {
            folders_without_moc.push(area);
        }
    }
    if !folders_without_moc.is_empty() {
        out.push_str(&suggestion(
            "architect",
            &format!(
                "{} folder(s) with 3+ notes have no MOC",
                folders_without_moc.len()
            ),
            &folders_without_moc.join("; "),
        ));
    }
    Ok(NativeOutput {
        attention: g.score < 50,
        postit: format!(
            "graph audit {}: score {}, {} orphans, {} links applied",
            ctx.today(),
            g.score,
            g.orphans.len(),
            applied
        ),
        text: out,
    })
}
