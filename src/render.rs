//! The text of a request's report: what `crew ask`, `crew chat` and the MCP server's `ask`
//! show. One renderer, so a reply reads the same wherever it is asked.

use crate::dispatch::chain::{self, ChainReport};
use crate::lang::Lang;
use crate::run::Report;
use crate::{tr, trn};

/// A name for a suggested new agent: the need's first two words, lowercase and hyphenated.
fn proposed_name(need: &str) -> String {
    let words: Vec<String> = crate::text::normalize(need)
        .split(' ')
        .filter(|w| w.len() > 2 && w.chars().all(|c| c.is_ascii_alphanumeric()))
        .take(2)
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        "helper".into()
    } else {
        words.join("-")
    }
}

/// Why a suggestion waited, in the reply's language (the JSON keeps the engine's words).
fn deferred_why(lang: Lang, why: &str) -> String {
    match why {
        chain::DEFERRED_FULL => tr!(lang, "render.deferred.full"),
        chain::DEFERRED_READ_ONLY => tr!(lang, "render.deferred.read_only"),
        other => other.to_string(),
    }
}

pub fn chain_text(report: &ChainReport, lang: Lang) -> String {
    let mut s = String::new();
    let many = report.steps.len() > 1;
    for step in &report.steps {
        if many {
            s.push_str(&format!(
                "\n━━ {} ({}{}) ━━\n\n",
                step.agent,
                step.executor,
                step.model
                    .as_ref()
                    .map(|m| format!(", {m}"))
                    .unwrap_or_default()
            ));
        }
        s.push_str(step.output.trim_end());
        s.push('\n');
    }
    if !report.deferred.is_empty() {
        s.push_str(&tr!(lang, "render.deferred.heading"));
        for d in &report.deferred {
            s.push_str(&tr!(
                lang,
                "render.deferred.item",
                by = d.suggested_by,
                agent = d.agent,
                reason = d.reason,
                why = deferred_why(lang, &d.why),
                command = d.command
            ));
        }
    }
    if !report.skipped.is_empty() {
        s.push_str(&tr!(lang, "render.skipped.heading"));
        for k in &report.skipped {
            let again = if k.phrase.is_empty() {
                String::new()
            } else {
                tr!(lang, "render.skipped.again", phrase = k.phrase)
            };
            s.push_str(&tr!(
                lang,
                "render.skipped.item",
                agent = k.agent,
                by = k.suggested_by,
                why = k.why,
                again = again
            ));
        }
    }
    for n in &report.new_agents {
        let name = proposed_name(&n.need);
        s.push_str(&tr!(
            lang,
            "render.new_agent",
            need = n.need,
            reason = n.reason,
            name = name,
            role = crate::shell::quote(&n.suggested_role)
        ));
    }
    s
}

pub fn report_text(report: &Report) -> String {
    let lang = report.lang;
    let mut s = chain_text(&report.chain, lang);
    let ops: usize = report
        .chain
        .steps
        .iter()
        .map(|st| st.operations.len())
        .sum();
    if report.dry_run {
        match &report.preview {
            Some(p) => s.push_str(&tr!(
                lang,
                "render.preview",
                why = p.why,
                changes = trn!(lang, "render.changes", ops),
                apply = p.apply,
                agent = p.agent
            )),
            None => s.push_str(&tr!(
                lang,
                "render.dry_run",
                changes = trn!(lang, "render.changes", ops)
            )),
        }
        for st in &report.chain.steps {
            for op in &st.operations {
                let to = op
                    .to
                    .as_ref()
                    .map(|t| format!(" → {t}"))
                    .unwrap_or_default();
                let kind = serde_json::to_value(op.op)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default();
                s.push_str(&format!("  {kind} {}{to}\n", op.path));
            }
        }
    }
    s
}

/// [`report_text`], then the question the last agent asks back, if it asks one.
pub fn answer_text(report: &Report) -> String {
    let mut text = report_text(report);
    if let Some(step) = report.chain.steps.last()
        && let Some(q) = crate::dispatch::question::parse(&step.output)
    {
        text.push_str(&tr!(
            report.lang,
            "render.question",
            agent = step.agent,
            ask = q.ask
        ));
    }
    text
}
