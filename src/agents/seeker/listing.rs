//! The search mode: the ranked list of matching notes, with date filters said in words and the
//! chat's refinement of the last result set.

use super::{Hit, broken_links_note, search, split_filters, strip_intent};
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;

/// Runs a search for `request` and lists what matched.
pub(crate) fn search_mode(ctx: &mut Ctx, request: &str) -> Result<NativeOutput, GateError> {
    let vault = ctx.gate.vault();
    let (mut q, free) = split_filters(request);
    // "from this year", "last month": date filters said in words
    let span = crate::agents::timeframe::find(&free, ctx.now.date());
    q.terms = terms_asked(span.as_ref().map_or(&free, |s| &s.rest));
    if let Some(s) = &span {
        q.after = q.after.or(Some(s.after));
        q.before = q.before.or(Some(s.before));
    }
    strip_intent(&mut q);
    let within = ctx.chat.within.as_deref();
    if within.is_some() {
        // "only the ones …" refines the earlier results: those words name no topic
        q.terms
            .retain(|t| !crate::text::word_list("search_refining_words").contains(&t.as_str()));
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

/// The words to search for in what a request asks: the topic of a question about one ("what
/// did I write about X?" → X); else, in a question, its words without the question's own
/// ("what", "écrit", "sur"), all of them when nothing else is left.
fn terms_asked(text: &str) -> Vec<String> {
    use crate::lang::questions::{is_question_word, topic_question};
    use crate::text::{normalize, words};
    if let Some(q) = topic_question(text) {
        return words(&q.topic).map(str::to_string).collect();
    }
    let all: Vec<String> = words(&normalize(text)).map(str::to_string).collect();
    if !crate::dispatch::intent::is_question(text) {
        return all;
    }
    let kept: Vec<String> = all
        .iter()
        .filter(|w| !is_question_word(w))
        .cloned()
        .collect();
    if kept.is_empty() { all } else { kept }
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

#[cfg(test)]
mod tests {
    use super::terms_asked;

    #[test]
    fn a_question_searches_its_topic() {
        assert_eq!(
            terms_asked("qu'est-ce que j'ai écrit sur Zotero ?"),
            ["zotero"]
        );
        assert_eq!(
            terms_asked("what did I write about graph view?"),
            ["graph", "view"]
        );
        assert_eq!(terms_asked("Zoteroについて何を書いた？"), ["zotero"]);
        // no frame, still a question: its own words go
        assert_eq!(terms_asked("qu'a-t-on écrit sur Zotero ?"), ["zotero"]);
        // not a question: every word counts
        assert_eq!(terms_asked("write about tea"), ["write", "about", "tea"]);
        // nothing but question words: they are what is asked
        assert_eq!(
            terms_asked("what did I write?"),
            ["what", "did", "i", "write"]
        );
    }
}
