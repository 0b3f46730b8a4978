//! Human rendering of a request's report.

use crew::dispatch::chain::{self, ChainReport};
use crew::lang::Lang;
use crew::run::Report;
use crew::{tr, trn};

/// A name for a suggested new agent: the need's first two words, lowercase and hyphenated.
fn proposed_name(need: &str) -> String {
    let words: Vec<String> = crew::dispatch::normalize::normalize(need)
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
            role = crew::shell::quote(&n.suggested_role)
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

/// The nightly fixes, one line per note and change (like `git status`), then the kinds held
/// back with the command that applies them.
/// The notes a fix could not be written to, one line each (`! path  (kind: why)`).
pub fn not_written_lines(not_written: &[serde_json::Value], lang: Lang) -> String {
    if not_written.is_empty() {
        return String::new();
    }
    let field = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let mut s = tr!(lang, "fixes.not_written", count = not_written.len())
        .trim_start_matches('#')
        .trim_start()
        .to_string();
    for n in not_written {
        s.push_str(&format!(
            "  ! {}  ({}: {})\n",
            field(n, "path"),
            field(n, "kind"),
            field(n, "why")
        ));
    }
    s
}

pub fn fix_lines(
    fixes: &[serde_json::Value],
    held: &[serde_json::Value],
    dry_run: bool,
    lang: Lang,
) -> String {
    let field = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
            .unwrap_or_default()
    };
    let mut s = String::new();
    if !fixes.is_empty() {
        s.push_str(&if dry_run {
            tr!(lang, "render.fixes.would")
        } else {
            tr!(lang, "render.fixes.done")
        });
    }
    for f in fixes {
        s.push_str(&format!(
            "  M {}  ({}: {})\n",
            field(f, "path"),
            field(f, "kind"),
            field(f, "what")
        ));
    }
    for h in held {
        s.push_str(&tr!(
            lang,
            "render.fixes.held",
            kind = field(h, "kind"),
            notes = field(h, "notes"),
            limit = field(h, "limit"),
            command = field(h, "command")
        ));
    }
    s
}
