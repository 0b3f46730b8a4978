//! The connector: the link graph's health and the links to add — for the vault's orphans,
//! for one note ("find connections for X"), around one note (its constellation), between
//! clusters (bridge notes), between far folders (serendipity), among the notes of the same
//! days (temporal) and among people (the people network). Each suggested link shows the
//! sentence it would go in. The graph itself is measured in [`crate::analysis::graph`].
//!
//! Links are added only when asked (`--fix`, "apply"): an orphan gets an incoming link from
//! its best neighbour (or from its folder's MOC), which is what makes it an orphan no more.

mod discover;
mod people;
mod serendipity;
mod spot;
mod temporal;
mod topic;

use super::common::{self, suggestion};
use super::cue::Cue;
use super::moc::{self, insert_under_heading};
use super::{Ctx, NativeOutput};
use crate::analysis::graph::{Graph, GraphAudit, graph_audit, is_moc};
use crate::gate::GateError;
use crate::lang::Lang;
use crate::tr;
use crate::vault::Vault;
use discover::{Candidate, Discovery};
use topic::{Found, Named};

/// How to write a note in a link so that it is unambiguous: its name, or its path when
/// several notes share the name.
pub fn display(vault: &Vault, i: usize) -> String {
    let name = vault.notes[i].name();
    if vault.files.notes_named(name) > 1 {
        vault.notes[i].path.trim_end_matches(".md").to_string()
    } else {
        name.to_string()
    }
}

fn strength(score: f64, l: Lang) -> String {
    if score >= 6.0 {
        tr!(l, "connector.strong")
    } else if score >= 3.0 {
        tr!(l, "connector.medium")
    } else {
        tr!(l, "connector.weak")
    }
}

/// The connector's modes (`agents/connector.md`, `## Modes`), from the slug the dispatcher
/// chose; the graph audit by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ConnectorMode {
    GraphAudit,
    PeopleNetwork,
    Bridges,
    Serendipity,
    Constellation,
    Temporal,
}

impl ConnectorMode {
    fn from_slug(slug: Option<&str>) -> ConnectorMode {
        match slug {
            Some("people-network") => ConnectorMode::PeopleNetwork,
            Some("bridge-notes") => ConnectorMode::Bridges,
            Some("serendipity") => ConnectorMode::Serendipity,
            Some("constellation") => ConnectorMode::Constellation,
            Some("temporal-connections") => ConnectorMode::Temporal,
            _ => ConnectorMode::GraphAudit,
        }
    }
}

/// The connector agent: one mode per kind of request. A request that names a note is about
/// that note (its constellation when asked, else its connections); the rest audit the graph.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let mode = ConnectorMode::from_slug(ctx.mode());
    match mode {
        ConnectorMode::PeopleNetwork => return Ok(people::run(ctx)),
        ConnectorMode::Temporal => return Ok(temporal::run(ctx)),
        ConnectorMode::Bridges => return Ok(bridges(ctx)),
        ConnectorMode::Serendipity => return Ok(serendipity(ctx)),
        ConnectorMode::GraphAudit | ConnectorMode::Constellation => {}
    }
    let request = format!("{} {}", ctx.step.message, ctx.step.task);
    let scope = topic::Scope {
        vault: ctx.gate.vault(),
        source: &*ctx.gate,
        folders: &ctx.config.folders,
        today: ctx.now.date(),
    };
    if let Some(named) = topic::named_note(&scope, &request) {
        if mode == ConnectorMode::Constellation {
            return Ok(constellation(ctx, named.note));
        }
        return connections_for(ctx, &named);
    }
    graph_health(ctx)
}

/// The default mode: the graph audit, and links for the orphans that have the best ones.
fn graph_health(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let f = ctx.config.folders.clone();
    let g = graph_audit(ctx.gate.vault(), &f);
    let l = ctx.lang;
    let mut out = audit_text(ctx.gate.vault(), &g, &ctx.today(), l);
    let plans = orphan_plans(ctx, &g);
    let vault = ctx.gate.vault();
    if !plans.is_empty() {
        out.push_str(&tr!(
            l,
            "connector.orphans.heading",
            count = plans.len(),
            orphans = g.orphans.len()
        ));
        for (orphan, c, spot) in &plans {
            out.push_str(&format!(
                "- [[{}]] ← [[{}]] ({}: {})\n{spot}",
                display(vault, *orphan),
                display(vault, c.note),
                strength(c.score, l),
                c.why.join("; ")
            ));
        }
        out.push('\n');
    }
    let apply = ctx.apply || ctx.says(Cue::Apply);
    let mut applied = 0;
    if apply {
        for (orphan, c, _) in &plans {
            if link_into(ctx, c.note, *orphan, "connector: link an orphan")? {
                applied += 1;
            }
        }
        out.push_str(&tr!(l, "connector.orphans.added", count = applied));
    } else if !plans.is_empty() {
        out.push_str(&tr!(l, "connector.orphans.not_added"));
    }
    if let Some(s) = folders_without_moc(ctx) {
        ctx.hand_off(s);
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

fn audit_text(vault: &Vault, g: &GraphAudit, today: &str, l: Lang) -> String {
    let mut out = tr!(l, "connector.audit.heading", date = today, score = g.score);
    out.push_str(&tr!(
        l,
        "connector.audit.summary",
        notes = g.notes,
        links = g.edges,
        per_note = format!("{:.1}", g.avg_links),
        clusters = g.components,
        largest = g.largest_component,
        mocs = g.mocs,
        coverage = format!("{:.0}", g.moc_coverage),
        reciprocal = format!("{:.0}", g.reciprocal_pct)
    ));
    for m in &g.metrics {
        out.push_str(&format!(
            "| {} | {:.0} % | {:.0} |\n",
            m.name, m.weight, m.score
        ));
    }
    out.push_str(&tr!(l, "connector.audit.most_connected"));
    for (i, inn, outn) in &g.most_connected {
        out.push_str(&tr!(
            l,
            "connector.audit.in_out",
            note = display(vault, *i),
            incoming = inn,
            outgoing = outn
        ));
    }
    let mut worst: Vec<_> = g.metrics.iter().filter(|m| m.score < 100.0).collect();
    worst.sort_by(|a, b| {
        a.score
            .partial_cmp(&b.score)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    if !worst.is_empty() {
        out.push_str(&tr!(l, "connector.audit.lost"));
        for m in worst.iter().take(3) {
            out.push_str(&format!(
                "- {}: {} (score {:.0}/100)\n",
                m.name, m.measured, m.score
            ));
        }
    }
    out.push('\n');
    out
}

/// For each orphan (MOCs aside), its strongest candidate neighbour; the ten orphans with the
/// strongest candidates across the whole vault.
fn orphan_plans(ctx: &Ctx, g: &GraphAudit) -> Vec<(usize, Candidate, String)> {
    let vault = ctx.gate.vault();
    let f = &ctx.config.folders;
    let orphans: Vec<usize> = g
        .orphans
        .iter()
        .copied()
        .filter(|&i| !is_moc(vault, i, f))
        .collect();
    if orphans.is_empty() {
        return Vec::new();
    }
    let discovery = Discovery::new(vault, &*ctx.gate, f);
    let mut plans: Vec<(usize, Candidate)> = orphans
        .iter()
        .filter_map(|&i| {
            let best = discovery.candidates(i, 1).into_iter().next()?;
            Some((i, best))
        })
        .collect();
    plans.sort_by(|a, b| {
        b.1.score
            .partial_cmp(&a.1.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.0.cmp(&b.0))
    });
    plans.truncate(10);
    // the link goes into the neighbour, so the sentence is the neighbour's
    plans
        .into_iter()
        .map(|(orphan, c)| {
            let spot = spot_line(&discovery, c.note, orphan, ctx.lang);
            (orphan, c, spot)
        })
        .collect()
}

/// Adds `- [[to]]` to the `## Related` section of note `from` (made when missing); `false`
/// when the note already links there.
fn link_into(ctx: &mut Ctx, from: usize, to: usize, why: &str) -> Result<bool, GateError> {
    let vault = ctx.gate.vault();
    let path = vault.notes[from].path.clone();
    let line = format!("- [[{}]]", display(vault, to));
    let changed = ctx.gate.edit(&path, why, |t| {
        insert_under_heading(t, &["## related", "## related notes"], "## Related", &line)
    })?;
    if changed {
        common::log_change(ctx, "connector", &format!("linked {path} {line}"))?;
    }
    Ok(changed)
}

/// Folders of 3+ notes with no map of their own (no MOC, no folder note): the architect's.
fn folders_without_moc(ctx: &Ctx) -> Option<crate::dispatch::suggest::NextAgent> {
    let f = &ctx.config.folders;
    let vault = ctx.gate.vault();
    let missing: Vec<String> = ctx
        .gate
        .subdirs(&f.areas)
        .into_iter()
        .chain(ctx.gate.subdirs(&f.projects))
        .filter(|area| common::notes_under(&vault.notes, area).count() >= 3)
        .filter(|area| !moc::moc_for(ctx, area).is_some_and(|(_, exists)| exists))
        .collect();
    if missing.is_empty() {
        return None;
    }
    Some(suggestion(
        "architect",
        &format!("{} folder(s) with 3+ notes have no MOC", missing.len()),
        &missing.join("; "),
    ))
}

/// "Find connections for X": the notes X should link to, each with its evidence.
fn connections_for(ctx: &mut Ctx, named: &Named) -> Result<NativeOutput, GateError> {
    let target = named.note;
    let vault = ctx.gate.vault();
    let name = display(vault, target);
    let discovery = Discovery::new(vault, &*ctx.gate, &ctx.config.folders);
    let found = discovery.candidates(target, 10);
    let spots: Vec<String> = found
        .iter()
        .map(|c| spot_line(&discovery, target, c.note, ctx.lang))
        .collect();
    drop(discovery);
    let l = ctx.lang;
    let mut out = tr!(l, "connector.for.heading", note = name);
    if let Some((topic, why)) = topic_why(named, l) {
        out.push_str(&tr!(
            l,
            "connector.for.taken",
            topic = topic,
            note = name,
            why = why
        ));
    }
    out.push_str(&others_line(vault, named, l));
    if found.is_empty() {
        out.push_str(&tr!(l, "connector.for.none"));
    }
    for (c, spot) in found.iter().zip(&spots) {
        out.push_str(&format!(
            "- [[{}]] — {} ({})\n{spot}",
            display(vault, c.note),
            strength(c.score, l),
            c.why.join("; ")
        ));
    }
    let mut applied = 0;
    if !found.is_empty() && (ctx.apply || ctx.says(Cue::Apply)) {
        for c in found.iter().take(5) {
            if link_into(ctx, target, c.note, "connector: add related links")? {
                applied += 1;
            }
        }
        out.push_str(&tr!(l, "connector.for.added", count = applied, note = name));
    } else if !found.is_empty() {
        out.push_str(&tr!(l, "connector.for.not_added"));
    }
    Ok(NativeOutput {
        postit: format!(
            "connections for {name} {}: {} found, {applied} linked",
            ctx.today(),
            found.len()
        ),
        text: out,
        attention: false,
    })
}

/// What the request said and how it led to the note, when it named no note by its name.
fn topic_why(named: &Named, l: Lang) -> Option<(String, String)> {
    let (topic, how) = named.topic.as_ref()?;
    let why = match how {
        Found::Alias(alias) => tr!(l, "connector.for.why_alias", alias = alias),
        Found::NameHolds => tr!(l, "connector.for.why_name", topic = topic),
        Found::AliasHolds(alias) => tr!(
            l,
            "connector.for.why_alias_holds",
            alias = alias,
            topic = topic
        ),
        Found::Search(0) => tr!(l, "connector.for.why_search", topic = topic),
        Found::Search(line) => tr!(
            l,
            "connector.for.why_search_line",
            topic = topic,
            line = line
        ),
    };
    Some((topic.clone(), why))
}

/// The other notes the topic fitted as well, when there were some.
fn others_line(vault: &Vault, named: &Named, l: Lang) -> String {
    if named.others.is_empty() {
        return String::new();
    }
    let notes: Vec<String> = named
        .others
        .iter()
        .map(|&i| format!("[[{}]]", display(vault, i)))
        .collect();
    tr!(l, "connector.topic.others", notes = notes.join(", "))
}

/// How a mode that is about one note says which note it took, when the request named a topic.
fn taken_line(vault: &Vault, named: &Named, l: Lang) -> String {
    let mut out = topic_why(named, l).map_or(String::new(), |(topic, why)| {
        tr!(
            l,
            "connector.topic.taken",
            topic = topic,
            note = display(vault, named.note),
            why = why
        )
    });
    out.push_str(&others_line(vault, named, l));
    out
}

/// Where a suggested link from `from` to `to` would go, as a line under the suggestion.
fn spot_line(discovery: &Discovery, from: usize, to: usize, l: Lang) -> String {
    spot_text(discovery.spot(from, to), l)
}

fn spot_text(spot: Option<spot::Spot>, l: Lang) -> String {
    match spot {
        Some(s) if s.names_it => tr!(
            l,
            "connector.spot.names",
            line = s.line,
            sentence = s.sentence
        ),
        Some(s) => tr!(
            l,
            "connector.spot.shares",
            line = s.line,
            sentence = s.sentence
        ),
        None => tr!(l, "connector.spot.related"),
    }
}

/// "Surprise me": the strongest unlinked pairs of notes kept far apart, a different sample of
/// the vault each day. Nothing is linked: the user picks.
fn serendipity(ctx: &Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let found = Discovery::new(vault, &*ctx.gate, &ctx.config.folders);
    let today = ctx.today();
    let seed = today.replace('-', "").parse::<u64>().unwrap_or(1);
    let pairs = serendipity::surprises(vault, &found, seed);
    let l = ctx.lang;
    let mut out = tr!(l, "connector.serendipity.heading", date = today);
    if pairs.is_empty() {
        out.push_str(&tr!(l, "connector.serendipity.none"));
    }
    let folder = |i: usize| {
        let p = &vault.notes[i].path;
        p.rsplit_once('/')
            .map_or("/".to_string(), |(d, _)| format!("{d}/"))
    };
    for (i, c) in &pairs {
        out.push_str(&format!(
            "- [[{}]] ({}) ↔ [[{}]] ({}) — {} ({})\n",
            display(vault, *i),
            folder(*i),
            display(vault, c.note),
            folder(c.note),
            strength(c.score, l),
            c.why.join("; ")
        ));
        out.push_str(&tr!(
            l,
            "connector.serendipity.far",
            steps = serendipity::folder_distance(&vault.notes[*i].path, &vault.notes[c.note].path)
        ));
        out.push_str(&spot_line(&found, *i, c.note, l));
    }
    if let Some((i, _)) = pairs.first() {
        out.push_str(&tr!(
            l,
            "connector.serendipity.hint",
            note = display(vault, *i)
        ));
    }
    NativeOutput {
        postit: format!("serendipity {today}: {} pair(s)", pairs.len()),
        text: out,
        attention: false,
    }
}

/// "Constellation around X": the notes one and two links away, and the nearest unlinked ones.
fn constellation(ctx: &Ctx, center: usize) -> NativeOutput {
    let vault = ctx.gate.vault();
    let f = &ctx.config.folders;
    let g = Graph::of(vault, f);
    let rings = g.rings(center, 2);
    let name = display(vault, center);
    let l = ctx.lang;
    let mut out = tr!(l, "connector.constellation.heading", note = name);
    out.push_str(&tr!(
        l,
        "connector.constellation.one",
        count = rings[0].len()
    ));
    for &j in &rings[0] {
        let dir = match (g.out[center].contains(&j), g.incoming[center].contains(&j)) {
            (true, true) => tr!(l, "connector.constellation.both"),
            (true, false) => tr!(l, "connector.constellation.out"),
            _ => tr!(l, "connector.constellation.in"),
        };
        out.push_str(&format!("- [[{}]] — {dir}\n", display(vault, j)));
    }
    let mut second = rings[1].clone();
    second.sort_by_key(|&j| (std::cmp::Reverse(g.undirected[j].len()), j));
    out.push_str(&tr!(l, "connector.constellation.two", count = second.len()));
    for &j in second.iter().take(10) {
        out.push_str(&tr!(
            l,
            "connector.constellation.links",
            note = display(vault, j),
            count = g.undirected[j].len()
        ));
    }
    let discovery = Discovery::new(vault, &*ctx.gate, f);
    let near = discovery.candidates(center, 5);
    if !near.is_empty() {
        out.push_str(&tr!(l, "connector.constellation.near"));
        for c in &near {
            out.push_str(&format!(
                "- [[{}]] ({})\n",
                display(vault, c.note),
                c.why.join("; ")
            ));
            out.push_str(&spot_line(&discovery, center, c.note, l));
        }
    }
    NativeOutput {
        postit: format!(
            "constellation {name} {}: {} near, {} two links away",
            ctx.today(),
            rings[0].len(),
            rings[1].len()
        ),
        text: out,
        attention: false,
    }
}

/// "Bridge notes": the notes that alone hold parts of the graph together.
fn bridges(ctx: &Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let g = Graph::of(vault, &ctx.config.folders);
    let found = g.bridges();
    let l = ctx.lang;
    let mut out = tr!(l, "connector.bridges.heading", date = ctx.today());
    if found.is_empty() {
        out.push_str(&tr!(l, "connector.bridges.none"));
    } else {
        out.push_str(&tr!(l, "connector.bridges.summary", count = found.len()));
    }
    for (v, parts) in found.iter().take(15) {
        let sizes: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
        out.push_str(&tr!(
            l,
            "connector.bridges.item",
            note = display(vault, *v),
            parts = parts.len(),
            sizes = sizes.join(" | ")
        ));
    }
    NativeOutput {
        postit: format!("bridge notes {}: {}", ctx.today(), found.len()),
        text: out,
        attention: false,
    }
}
