//! The connector: the link graph's health and the links to add — for the vault's orphans,
//! for one note ("find connections for X"), around one note (its constellation), between
//! clusters (bridge notes) and among people (the people network). The graph itself is
//! measured in [`crate::analysis::graph`].
//!
//! Links are added only when asked (`--fix`, "apply"): an orphan gets an incoming link from
//! its best neighbour (or from its folder's MOC), which is what makes it an orphan no more.

mod discover;
mod serendipity;

use std::collections::BTreeMap;

use super::common::{self, suggestion};
use super::cue::Cue;
use super::moc::{self, insert_under_heading};
use super::{Ctx, NativeOutput};
use crate::analysis::graph::{Graph, GraphAudit, graph_audit, is_moc};
use crate::gate::GateError;
use crate::lang::Lang;
use crate::text::{normalize, words};
use crate::tr;
use crate::vault::Vault;
use discover::{Candidate, Discovery};

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
}

impl ConnectorMode {
    fn from_slug(slug: Option<&str>) -> ConnectorMode {
        match slug {
            Some("people-network") => ConnectorMode::PeopleNetwork,
            Some("bridge-notes") => ConnectorMode::Bridges,
            Some("serendipity") => ConnectorMode::Serendipity,
            Some("constellation") => ConnectorMode::Constellation,
            _ => ConnectorMode::GraphAudit,
        }
    }
}

/// The connector agent: one mode per kind of request. A request that names a note is about
/// that note (its constellation when asked, else its connections); the rest audit the graph.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let mode = ConnectorMode::from_slug(ctx.mode());
    match mode {
        ConnectorMode::PeopleNetwork => return Ok(people_network(ctx)),
        ConnectorMode::Bridges => return Ok(bridges(ctx)),
        ConnectorMode::Serendipity => return Ok(serendipity(ctx)),
        ConnectorMode::GraphAudit | ConnectorMode::Constellation => {}
    }
    let request = format!("{} {}", ctx.step.message, ctx.step.task);
    if let Some(named) = named_note(ctx.gate.vault(), &request) {
        if mode == ConnectorMode::Constellation {
            return Ok(constellation(ctx, named.note));
        }
        return connections_for(ctx, &named);
    }
    graph_health(ctx)
}

/// A note a request names; `topic` when the request named no note by its name and the note
/// was found another way (what the request said, and how it led there).
struct Named {
    note: usize,
    topic: Option<(String, Found)>,
}

/// How a topic that is no note's name led to a note.
enum Found {
    /// One of the note's aliases is the topic.
    Alias(String),
    /// The note's name holds the topic's words.
    NameHolds,
}

/// The note a request names: a `[[link]]`, or the words after "for", "of", "around", "to"…
/// when they are a note's name (the longest name found there wins), else one of its aliases,
/// else the one note whose name holds those words ("Excalidraw" →
/// `obsidian-excalidraw-plugin`: of several, the shortest name, then the most linked to). A
/// name must be named: words elsewhere in the request never pick a note.
fn named_note(vault: &Vault, request: &str) -> Option<Named> {
    if let Some(start) = request.find("[[") {
        let rest = &request[start + 2..];
        let target = rest.split([']', '|', '#']).next().unwrap_or("");
        if let crate::vault::Resolution::File { id, .. } = vault.files.resolve("", target) {
            return vault
                .note_of_file(id)
                .map(|note| Named { note, topic: None });
        }
    }
    let normal = format!(" {} ", normalize(request));
    let markers = [
        " for ",
        " of ",
        " around ",
        " to ",
        " with ",
        " per ",
        " di ",
        " pour ",
        " de ",
        " para ",
        " für ",
        " von ",
        " um ",
        " intorno a ",
        " autour de ",
        " alrededor de ",
    ];
    let tail = markers
        .iter()
        .filter_map(|m| normal.rfind(m).map(|i| &normal[i + m.len() - 1..]))
        .min_by_key(|t| t.len())?;
    let longest_in_tail = |names: &mut dyn Iterator<Item = (usize, String)>| {
        let mut best: Option<(usize, String)> = None;
        for (i, name) in names {
            if name.chars().count() < 3 || !tail.contains(&format!(" {name} ")) {
                continue;
            }
            if best.as_ref().is_none_or(|(_, b)| name.len() > b.len()) {
                best = Some((i, name));
            }
        }
        best
    };
    let mut names = vault
        .notes
        .iter()
        .enumerate()
        .map(|(i, n)| (i, normalize(n.name())));
    if let Some((note, _)) = longest_in_tail(&mut names) {
        return Some(Named { note, topic: None });
    }
    let mut aliases = vault
        .notes
        .iter()
        .enumerate()
        .flat_map(|(i, n)| n.aliases.iter().map(move |a| (i, normalize(a))));
    if let Some((note, alias)) = longest_in_tail(&mut aliases) {
        let shown = vault.notes[note]
            .aliases
            .iter()
            .find(|a| normalize(a) == alias)
            .cloned()
            .unwrap_or(alias.clone());
        return Some(Named {
            note,
            topic: Some((alias, Found::Alias(shown))),
        });
    }
    name_holding(vault, tail)
}

/// The note whose name holds the first words of `tail` (as many as any name holds, at least
/// one word of three letters that is no function word): of several, the shortest name, then
/// the most linked to.
fn name_holding(vault: &Vault, tail: &str) -> Option<Named> {
    let said: Vec<&str> = words(tail).collect();
    let name_words: Vec<Vec<String>> = vault
        .notes
        .iter()
        .map(|n| words(&normalize(n.name())).map(str::to_string).collect())
        .collect();
    for len in (1..=said.len().min(4)).rev() {
        let topic = &said[..len];
        if !topic
            .iter()
            .any(|w| w.chars().count() >= 3 && !crate::lang::detect::function_word(w))
        {
            continue;
        }
        let holding = (0..vault.notes.len()).filter(|&i| {
            topic.iter().all(|w| name_words[i].iter().any(|n| n == w))
                && name_words[i].len() > topic.len()
        });
        let best = holding.min_by_key(|&i| {
            (
                name_words[i].len(),
                std::cmp::Reverse(vault.links_to(i).len()),
                vault.notes[i].path.clone(),
            )
        });
        if let Some(note) = best {
            return Some(Named {
                note,
                topic: Some((topic.join(" "), Found::NameHolds)),
            });
        }
    }
    None
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
        for (orphan, c) in &plans {
            out.push_str(&format!(
                "- [[{}]] ← [[{}]] ({}: {})\n",
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
        for (orphan, c) in &plans {
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
fn orphan_plans(ctx: &Ctx, g: &GraphAudit) -> Vec<(usize, Candidate)> {
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
    plans
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
    let found = Discovery::new(vault, &*ctx.gate, &ctx.config.folders).candidates(target, 10);
    let l = ctx.lang;
    let mut out = tr!(l, "connector.for.heading", note = name);
    if let Some((topic, how)) = &named.topic {
        let why = match how {
            Found::Alias(alias) => tr!(l, "connector.for.why_alias", alias = alias),
            Found::NameHolds => tr!(l, "connector.for.why_name", topic = topic),
        };
        out.push_str(&tr!(
            l,
            "connector.for.taken",
            topic = topic,
            note = name,
            why = why
        ));
    }
    if found.is_empty() {
        out.push_str(&tr!(l, "connector.for.none"));
    }
    for c in &found {
        out.push_str(&format!(
            "- [[{}]] — {} ({})\n",
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
    let near = Discovery::new(vault, &*ctx.gate, f).candidates(center, 5);
    if !near.is_empty() {
        out.push_str(&tr!(l, "connector.constellation.near"));
        for c in &near {
            out.push_str(&format!(
                "- [[{}]] ({})\n",
                display(vault, c.note),
                c.why.join("; ")
            ));
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

/// "People network": who is mentioned where, and who appears together.
fn people_network(ctx: &Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let f = &ctx.config.folders;
    let people_dir = format!("{}/", f.people);
    let is_person = |i: usize| {
        let n = &vault.notes[i];
        n.path.starts_with(&people_dir)
            || n.property_str("type").is_some_and(|t| {
                matches!(
                    t.to_lowercase().as_str(),
                    "person" | "person-note" | "people"
                )
            })
    };
    let people: Vec<usize> = (0..vault.notes.len()).filter(|&i| is_person(i)).collect();
    let mut mentions: BTreeMap<usize, usize> = BTreeMap::new();
    let mut together: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for (src, n) in vault.notes.iter().enumerate() {
        let mut named: Vec<usize> = vault.resolved[src]
            .iter()
            .filter_map(|r| r.file().and_then(|id| vault.note_of_file(id)))
            .filter(|&j| j != src && is_person(j))
            .collect();
        named.sort_unstable();
        named.dedup();
        let _ = n;
        for &p in &named {
            *mentions.entry(p).or_default() += 1;
        }
        for (a, &x) in named.iter().enumerate() {
            for &y in &named[a + 1..] {
                *together.entry((x, y)).or_default() += 1;
            }
        }
    }
    let l = ctx.lang;
    let mut out = tr!(
        l,
        "connector.people.heading",
        date = ctx.today(),
        count = people.len()
    );
    let mut ranked: Vec<(usize, usize)> = people
        .iter()
        .map(|&p| (p, mentions.get(&p).copied().unwrap_or(0)))
        .collect();
    ranked.sort_by_key(|&(p, c)| (std::cmp::Reverse(c), p));
    out.push_str(&tr!(l, "connector.people.most"));
    for (p, c) in ranked.iter().filter(|(_, c)| *c > 0).take(15) {
        out.push_str(&tr!(
            l,
            "connector.people.in_notes",
            note = display(vault, *p),
            count = c
        ));
    }
    let mut pairs: Vec<((usize, usize), usize)> = together.into_iter().collect();
    pairs.sort_by_key(|&(k, c)| (std::cmp::Reverse(c), k));
    if !pairs.is_empty() {
        out.push_str(&tr!(l, "connector.people.together"));
        for ((a, b), c) in pairs.iter().take(10) {
            out.push_str(&format!(
                "- [[{}]] and [[{}]] — {c} notes\n",
                display(vault, *a),
                display(vault, *b)
            ));
        }
    }
    let unmentioned: Vec<String> = ranked
        .iter()
        .filter(|(_, c)| *c == 0)
        .map(|(p, _)| format!("[[{}]]", display(vault, *p)))
        .collect();
    if !unmentioned.is_empty() {
        out.push_str(&tr!(
            l,
            "connector.people.never",
            count = unmentioned.len(),
            notes = unmentioned
                .iter()
                .take(20)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    NativeOutput {
        postit: format!(
            "people network {}: {} people, {} never mentioned",
            ctx.today(),
            people.len(),
            unmentioned.len()
        ),
        text: out,
        attention: false,
    }
}
