//! The seeker's edit mode: the user asks to change a note they name ("edit the note on
//! sourdough: feed it twice a day"). Crew's own pass finds the note the request names;
//! rewriting its text is a model's work. The mode adds one capability, `edit` (the
//! definition's `mode_capabilities`), so the model gets `edit_note` — an exact passage
//! replaced through the write gate, journaled, undone by `crew undo` — and nothing that
//! creates, overwrites, moves or empties a note. Without a model nothing is changed and the
//! answer says what would be edited and what to configure.

use super::{Hit, Query, hits_for, link_name, terms_of};
use crate::agents::{Ctx, NativeOutput};
use crate::crew::Kind;

/// Candidate notes shown for an edit.
const SHOWN: usize = 3;

/// What an edit request names: the words that find the note (after the mode's phrase, up to a
/// colon) and the change asked for (after the colon; may be empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Asked {
    pub topic: String,
    pub change: String,
}

/// Reads an edit request: the text after `phrase` (the mode phrase the router found), cut at
/// the first colon into the note's words and the change. Without the phrase in the text, the
/// whole request names the note.
pub(super) fn asked(request: &str, phrase: Option<&str>) -> Asked {
    let lower = request.to_lowercase();
    let rest = phrase
        .map(str::to_lowercase)
        .filter(|p| !p.is_empty())
        .and_then(|p| lower.find(&p).map(|i| lower[i + p.len()..].to_string()))
        .unwrap_or(lower);
    let (topic, change) = match rest.find([':', '\n']) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest.as_str(), ""),
    };
    Asked {
        topic: topic.trim().trim_matches(['"', '\'', '“', '”']).to_string(),
        change: change.trim().to_string(),
    }
}

/// The seeker's native pass on an edit request: the notes it may concern, and who changes it.
/// Leaves the edit itself to the model (`attention`), which a hybrid run then calls.
pub(super) fn run(ctx: &mut Ctx, request: &str, filters: &Query) -> NativeOutput {
    let chosen = crate::dispatch::mode::of_route(ctx.crew, Kind::Agent, &ctx.step.name, request);
    let asked = asked(request, chosen.as_ref().map(|c| c.phrase.as_str()));
    let hits: Vec<Hit> = if asked.topic.is_empty() {
        Vec::new()
    } else {
        hits_for(ctx, &terms_of(&asked.topic).narrowed_by(filters), SHOWN)
    };
    let vault = ctx.gate.vault();
    let mut text = if hits.is_empty() {
        crate::tr!(ctx.lang, "seeker.edit.none", topic = asked.topic)
    } else {
        let mut t = crate::tr!(ctx.lang, "seeker.edit.heading");
        for h in &hits {
            t.push_str(&crate::tr!(
                ctx.lang,
                "seeker.edit.candidate",
                note = link_name(vault, &h.path),
                path = h.path
            ));
        }
        t
    };
    text.push('\n');
    // an installed crew's seeker may be read-only by its own file: that is respected
    let may_edit = ctx
        .crew
        .writes_in(Kind::Agent, &ctx.step.name, Some(super::EDIT_SLUG));
    text.push_str(&match &ctx.model {
        _ if !may_edit => crate::tr!(
            ctx.lang,
            "seeker.edit.not_allowed",
            file = ctx
                .crew
                .agent(&ctx.step.name)
                .map_or("agents/seeker.md", |d| d.file.as_str())
        ),
        Some(m) => crate::tr!(ctx.lang, "seeker.edit.by_model", model = m),
        None => crate::tr!(ctx.lang, "seeker.edit.needs_model"),
    });
    ctx.data = Some(serde_json::json!({
        "mode": "edit",
        "hits": hits.iter().map(|h| h.path.clone()).collect::<Vec<_>>(),
        "topic": asked.topic,
        "change": asked.change,
    }));
    let postit = format!(
        "edit asked on \"{}\": {}",
        asked.topic,
        hits.first().map_or("no note found", |h| h.path.as_str())
    );
    // the edit is left to the model, on the notes found (and only those: see
    // `run::write_scope`); where the seeker may not edit, or no note was found, there is
    // nothing to leave
    NativeOutput {
        text,
        postit,
        attention: may_edit && !hits.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_splits_into_the_note_and_the_change() {
        let a = asked(
            "Edit the note on Sourdough: feed it twice a day",
            Some("edit the note on"),
        );
        assert_eq!(a.topic, "sourdough");
        assert_eq!(a.change, "feed it twice a day");
        let a = asked("aggiorna la nota \"Pane\"", Some("aggiorna la nota"));
        assert_eq!(a.topic, "pane");
        assert_eq!(a.change, "");
        // the phrase may be missing (an explicit `--agent seeker` with the mode named)
        let a = asked("Sourdough: add rye", None);
        assert_eq!(a.topic, "sourdough");
        assert_eq!(a.change, "add rye");
    }
}
