//! The seeker: finds things in the vault and answers from it. Read-only but for one mode: it
//! changes a note only when the user asks for an edit, and then only through a model's
//! `edit_note` and the write gate ([`edit`]). What it sees for writers (broken links,
//! orphans) goes out as suggestions, which the chain defers for a read-only request.
//!
//! Modes ([`cues::choose`]): backlinks, an extractive answer, a comparison, a timeline,
//! notes to revisit, knowledge gaps, and ranked search (the default, reused by the model
//! tools). Filters in the request (`tag:`, `type:`, `path:`, `in:`, `after:`, `before:`)
//! narrow the notes of every mode but backlinks.

mod answer;
mod backlinks;
mod compare;
pub mod cues;
mod digest;
mod edit;
mod gaps;
mod listing;
mod passages;
mod revisit;
mod synthesis;

mod timeline;

pub use crate::analysis::search::{Hit, Query, parse_query, search, split_filters, strip_intent};

use super::common::suggestion;
use super::{Ctx, NativeOutput};
use crate::gate::GateError;
use crate::vault::Resolution;
use cues::Mode;
use listing::search_mode;

/// The seeker agent.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let request = if ctx.step.step > 1 {
        ctx.step.task.clone()
    } else {
        ctx.step.message.clone()
    };
    // a refinement of earlier results ("only the ones from …") is always a search
    if ctx.chat.within.is_some() {
        return search_mode(ctx, &request);
    }
    // the mode is read from the words, never from a filter's value (`path:"Links to X"`)
    let (filters, free) = split_filters(&request);
    if ctx.mode() == Some(EDIT_SLUG) {
        return Ok(edit::run(ctx, &free, &filters));
    }
    let mut mode = cues::choose(&free);
    // the definition's "Missing knowledge" phrases (a vault may add its own) ask for gaps too
    if ctx.mode() == Some(GAPS_SLUG) && !matches!(mode, Mode::Gaps(_)) {
        mode = Mode::Gaps(cues::gaps_topic(&free).unwrap_or_default());
    }
    match mode {
        Mode::Backlinks(target) => Ok(backlinks_mode(ctx, &target)),
        Mode::Answer(topic) => Ok(answer_mode(ctx, &topic, &filters)),
        Mode::Compare(a, b) => Ok(compare_mode(ctx, &a, &b, &filters)),
        Mode::Timeline(topic) => Ok(timeline_mode(ctx, &topic, &filters)),
        Mode::Revisit(topic) => Ok(revisit_mode(ctx, &topic, &filters)),
        Mode::Gaps(topic) => Ok(gaps_mode(ctx, &topic, &filters)),
        Mode::Search => search_mode(ctx, &request),
    }
}

/// The slug of the definition's "Missing knowledge" mode (`agents/seeker.md`, `## Modes`).
const GAPS_SLUG: &str = "missing-knowledge";

/// The slug of the definition's "Edit" mode: the one mode that may change a note (its
/// `mode_capabilities` add `edit`), and only through a model.
const EDIT_SLUG: &str = "edit";

/// Items shown per list of a gaps report.
const GAPS_SHOWN: usize = 15;

/// The search terms of a topic, without the words that only say "search".
fn terms_of(topic: &str) -> Query {
    let mut q = parse_query(topic);
    strip_intent(&mut q);
    q
}

/// Ranked hits for a topic (the whole vault's best `limit`).
fn hits_for(ctx: &Ctx, q: &Query, limit: usize) -> Vec<Hit> {
    search(
        ctx.gate.vault(),
        &*ctx.gate,
        &ctx.config.folders,
        q,
        limit,
        ctx.now.date(),
    )
}

fn backlinks_mode(ctx: &mut Ctx, target: &str) -> NativeOutput {
    let vault = ctx.gate.vault();
    let found = backlinks::find(vault, &*ctx.gate, target);
    let text = backlinks::render(&found, ctx.lang);
    if found.notes.is_empty()
        && let Some(path) = &found.target_path
    {
        ctx.hand_off(suggestion(
            "connector",
            &format!("[[{}]] is an orphan", found.target),
            path,
        ));
    }
    let postit = format!("backlinks of {}: {}", found.target, found.notes.len());
    ctx.data = Some(serde_json::json!({
        "mode": "backlinks",
        "hits": found.notes.iter().map(|b| b.path.clone()).collect::<Vec<_>>(),
        "backlinks": found,
    }));
    NativeOutput {
        text,
        postit,
        attention: false,
    }
}

fn answer_mode(ctx: &mut Ctx, topic: &str, filters: &Query) -> NativeOutput {
    let q = terms_of(topic).narrowed_by(filters);
    let hits = hits_for(ctx, &q, 30);
    let mut found = answer::build(ctx.gate.vault(), &*ctx.gate, topic, &q.terms, &hits);
    if !found.passages.is_empty()
        && let Some(writer) = crate::model::writer::Writer::for_ctx(ctx)
    {
        found.synthesis = Some(match writer {
            Ok(mut w) => match synthesis::synthesize(&mut w, topic, &found.passages) {
                Ok(text) => answer::Synthesis::By {
                    model: w.id.clone(),
                    text,
                },
                Err(e) => answer::Synthesis::Failed(e.to_string()),
            },
            Err(e) => answer::Synthesis::Failed(e.to_string()),
        });
    }
    let text = answer::render(&found, ctx.lang);
    if let Some(s) = broken_links_note(ctx, &hits) {
        ctx.hand_off(s);
    }
    let postit = format!(
        "last answer: \"{topic}\" → {} passages from {} notes",
        found.passages.len(),
        found.notes
    );
    ctx.data = Some(serde_json::json!({
        "mode": "answer",
        "hits": hits.iter().map(|h| h.path.clone()).collect::<Vec<_>>(),
        "answer": found,
    }));
    NativeOutput {
        text,
        postit,
        attention: false,
    }
}

fn compare_mode(ctx: &mut Ctx, a: &str, b: &str, filters: &Query) -> NativeOutput {
    let best = |ctx: &Ctx, name: &str| {
        hits_for(ctx, &terms_of(name).narrowed_by(filters), 1)
            .pop()
            .map(|h| h.path)
    };
    let (fa, fb) = (best(ctx, a), best(ctx, b));
    let vault = ctx.gate.vault();
    // a note of the exact name is taken only when it passes the filters
    let find = |name: &str, fallback: Option<&str>| {
        compare::find_note(vault, name, None)
            .filter(|&i| filters.admits(&vault.notes[i]))
            .or_else(|| fallback.and_then(|p| vault.note_index(p)))
    };
    let (ia, ib) = (find(a, fa.as_deref()), find(b, fb.as_deref()));
    let (Some(ia), Some(ib)) = (ia, ib) else {
        let missing = if ia.is_none() { a } else { b };
        return NativeOutput {
            text: crate::tr!(ctx.lang, "seeker.compare.missing", note = missing),
            postit: format!("compare: \"{missing}\" not found"),
            attention: false,
        };
    };
    let found = compare::build(vault, &*ctx.gate, ia, ib);
    let text = compare::render(&found, ctx.lang);
    let postit = format!("compared [[{}]] and [[{}]]", found.a.title, found.b.title);
    ctx.data = Some(serde_json::json!({
        "mode": "compare",
        "hits": [found.a.path.clone(), found.b.path.clone()],
        "comparison": found,
    }));
    NativeOutput {
        text,
        postit,
        attention: false,
    }
}

fn timeline_mode(ctx: &mut Ctx, topic: &str, filters: &Query) -> NativeOutput {
    let q = terms_of(topic).narrowed_by(filters);
    let vault = ctx.gate.vault();
    let hits = hits_for(ctx, &q, if q.terms.is_empty() { 200 } else { 100 });
    let notes: Vec<&crate::vault::Note> = hits.iter().filter_map(|h| vault.note(&h.path)).collect();
    let found = timeline::build(topic, &notes);
    let text = timeline::render(&found, ctx.lang);
    let postit = format!(
        "timeline of \"{topic}\": {} dated notes",
        found.entries.len()
    );
    ctx.data = Some(serde_json::json!({
        "mode": "timeline",
        "hits": found.entries.iter().map(|e| e.path.clone()).collect::<Vec<_>>(),
        "timeline": found,
    }));
    NativeOutput {
        text,
        postit,
        attention: false,
    }
}

fn revisit_mode(ctx: &mut Ctx, topic: &str, filters: &Query) -> NativeOutput {
    let q = terms_of(topic).narrowed_by(filters);
    let vault = ctx.gate.vault();
    let among: Option<Vec<usize>> = (!q.terms.is_empty() || q.has_filters()).then(|| {
        hits_for(ctx, &q, vault.notes.len())
            .iter()
            .filter_map(|h| vault.note_index(&h.path))
            .collect()
    });
    let folders = &ctx.config.folders;
    let skip = [
        format!("{}/", folders.templates),
        format!("{}/", folders.meta),
    ];
    let found = revisit::find(vault, ctx.now.date(), among.as_deref(), &skip);
    let text = revisit::render(&found, ctx.lang);
    let postit = format!("revisit: {} stale notes still linked", found.len());
    ctx.data = Some(serde_json::json!({
        "mode": "revisit",
        "hits": found.iter().map(|s| s.path.clone()).collect::<Vec<_>>(),
        "revisit": found,
    }));
    NativeOutput {
        text,
        postit,
        attention: false,
    }
}

fn gaps_mode(ctx: &mut Ctx, topic: &str, filters: &Query) -> NativeOutput {
    let q = terms_of(topic).narrowed_by(filters);
    let vault = ctx.gate.vault();
    let among: Vec<usize> = hits_for(ctx, &q, vault.notes.len())
        .iter()
        .filter_map(|h| vault.note_index(&h.path))
        .collect();
    let shown = if topic.is_empty() {
        crate::tr!(ctx.lang, "seeker.gaps.whole_vault")
    } else {
        topic.to_string()
    };
    let found = gaps::build(vault, &*ctx.gate, &shown, &among);
    let text = gaps::render(&found, ctx.lang, GAPS_SHOWN);
    let postit = format!(
        "gaps on \"{shown}\": {} missing notes, {} open points, {} thin spots in {} notes",
        found.missing.len(),
        found.open.len(),
        found.thin.len(),
        found.notes
    );
    ctx.data = Some(serde_json::json!({
        "mode": "gaps",
        "hits": among.iter().map(|&i| vault.notes[i].path.clone()).collect::<Vec<_>>(),
        "gaps": found,
    }));
    NativeOutput {
        text,
        postit,
        attention: false,
    }
}

/// The name to write in `[[…]]` for the note at `path`: its name, or its path when another
/// note has the same name (Obsidian's own rule for a link that must not be ambiguous).
pub(super) fn link_name(vault: &crate::vault::Vault, path: &str) -> String {
    let stem = path.strip_suffix(".md").unwrap_or(path);
    let name = stem.rsplit('/').next().unwrap_or(stem);
    if vault.files.notes_named(name) > 1 {
        stem.to_string()
    } else {
        name.to_string()
    }
}

/// A suggestion for the librarian when some of the notes shown hold broken links. The seeker
/// only reports it: the chain defers the librarian (a writer) with the command to run it.
fn broken_links_note(ctx: &Ctx, hits: &[Hit]) -> Option<crate::dispatch::suggest::NextAgent> {
    let vault = ctx.gate.vault();
    let broken: Vec<String> = hits
        .iter()
        .filter_map(|h| vault.note_index(&h.path))
        .filter(|&i| {
            vault.resolved[i]
                .iter()
                .any(|r| matches!(r, Resolution::Unresolved))
        })
        .map(|i| vault.notes[i].name().to_string())
        .take(10)
        .collect();
    if broken.is_empty() {
        return None;
    }
    Some(suggestion(
        "librarian",
        &format!("{} of these notes have broken links", broken.len()),
        &broken.join("; "),
    ))
}
