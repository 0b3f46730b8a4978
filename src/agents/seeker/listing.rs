//! The search mode: the ranked list of matching notes, with date filters said in words and the
//! chat's refinement of the last result set.

use super::{Hit, broken_links_note, parse_query, search, strip_intent};
use crate::agents::{Ctx, NativeOutput};
use crate::analysis::search::REFINING_WORDS;
use crate::gate::GateError;

/// Runs a search for `request` and lists what matched.
pub(crate) fn search_mode(ctx: &mut Ctx, request: &str) -> Result<NativeOutput, GateError> {
    let vault = ctx.gate.vault();
    // "from this year", "last month": date filters said in words
    let span = crate::agents::timeframe::find(request, ctx.now.date());
    let mut q = parse_query(span.as_ref().map_or(request, |s| s.rest.as_str()));
    if let Some(s) = &span {
        q.after = q.after.or(Some(s.after));
        q.before = q.before.or(Some(s.before));
    }
    strip_intent(&mut q);
    let within = ctx.chat.within.as_deref();
    if within.is_some() {
        // "only the ones …" refines the earlier results: those words name no topic
        q.terms.retain(|t| !REFINING_WORDS.contains(&t.as_str()));
    }
    let limit = if within.is_some() {
        vault.notes.len()
    } else {
        20
    };
    let mut hits = search(
        vault,
        &*ctx.gate,
        &ctx.config.folders,
        &q,
        limit,
        ctx.now.date(),
    );
    if let Some(earlier) = within {
        hits.retain(|h| earlier.contains(&h.path));
        if q.terms.is_empty() {
            // nothing new to rank by: keep the order the user already saw
            hits.sort_by_key(|h| earlier.iter().position(|p| *p == h.path));
        }
    }
    let mut shown = q.terms.join(" ");
    if let Some(s) = &span {
        shown = format!("{shown} {} to {}", s.after, s.before)
            .trim()
            .to_string();
    }
    let out = render(&hits, within, &shown, ctx.lang);
    if let Some(s) = broken_links_note(ctx, &hits) {
        ctx.hand_off(s);
    }
    ctx.data = Some(serde_json::json!({
        "mode": "search",
        "hits": hits.iter().map(|h| h.path.clone()).collect::<Vec<_>>(),
    }));
    Ok(NativeOutput {
        postit: format!("last search: \"{shown}\" → {} results", hits.len()),
        text: out,
        attention: false,
    })
}

/// The hits as a numbered list; `within` is the earlier result set being refined.
fn render(hits: &[Hit], within: Option<&[String]>, shown: &str, l: crate::lang::Lang) -> String {
    let mut out = String::new();
    if let Some(earlier) = within {
        out.push_str(&crate::tr!(
            l,
            "seeker.refine.heading",
            count = hits.len(),
            earlier = earlier.len(),
            query = if shown.is_empty() {
                String::new()
            } else {
                format!(" (\"{shown}\")")
            }
        ));
        for (i, h) in hits.iter().enumerate() {
            out.push_str(&format!("{}. [[{}]] — `{}`\n", i + 1, h.title, h.path));
        }
    } else {
        out.push_str(&crate::trn!(
            l,
            "seeker.found.heading",
            hits.len(),
            query = shown
        ));
        for (i, h) in hits.iter().enumerate() {
            if h.line > 0 {
                out.push_str(&format!(
                    "{}. [[{}]] — `{}`:{} — {}\n",
                    i + 1,
                    h.title,
                    h.path,
                    h.line,
                    h.text
                ));
            } else {
                out.push_str(&format!("{}. [[{}]] — `{}`\n", i + 1, h.title, h.path));
            }
        }
    }
    if hits.is_empty() && within.is_some() {
        out.push_str(&crate::tr!(l, "seeker.refine.none"));
    } else if hits.is_empty() {
        out.push_str(&crate::tr!(l, "seeker.found.none"));
    }
    out
}
