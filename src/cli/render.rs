//! Human rendering of a request's report.

use crew::dispatch::chain::ChainReport;
use crew::run::Report;

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

pub fn chain_text(report: &ChainReport) -> String {
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
        s.push_str("\n━━ deferred ━━\n");
        for d in &report.deferred {
            s.push_str(&format!(
                "- the {} also suggested {}: {} — {}; to run it: {}\n",
                d.suggested_by, d.agent, d.reason, d.why, d.command
            ));
        }
    }
    if !report.skipped.is_empty() {
        s.push_str("\n━━ not run ━━\n");
        for k in &report.skipped {
            let again = if k.phrase.is_empty() {
                String::new()
            } else {
                format!(" — say \"{}\" to run it again", k.phrase)
            };
            s.push_str(&format!(
                "- {} (suggested by {}): {}{again}\n",
                k.agent, k.suggested_by, k.why
            ));
        }
    }
    for n in &report.new_agents {
        let name = proposed_name(&n.need);
        s.push_str(&format!(
            "\nA new agent could help with {}: {}. Nothing was created. To create it:\n  crew agents new {name} --description \"{}\"\n",
            n.need,
            n.reason,
            n.suggested_role.replace('"', "'")
        ));
    }
    s
}

pub fn report_text(report: &Report) -> String {
    let mut s = chain_text(&report.chain);
    let ops: usize = report
        .chain
        .steps
        .iter()
        .map(|st| st.operations.len())
        .sum();
    if report.dry_run {
        match &report.preview {
            Some(p) => s.push_str(&format!(
                "\nNothing was written: {} ({ops} planned change{}).\nTo apply this plan: {}\nTo run another agent: crew ask --agent NAME \"…\"  (e.g. {})\n",
                p.why,
                if ops == 1 { "" } else { "s" },
                p.apply,
                p.agent
            )),
            None => s.push_str(&format!(
                "\nDry run: nothing was written ({ops} planned change{}).\n",
                if ops == 1 { "" } else { "s" }
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
pub fn fix_lines(fixes: &[serde_json::Value], held: &[serde_json::Value], dry_run: bool) -> String {
    let field = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
            .unwrap_or_default()
    };
    let mut s = String::new();
    if !fixes.is_empty() {
        s.push_str(if dry_run { "Would fix:\n" } else { "Fixed:\n" });
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
        s.push_str(&format!(
            "Held back: {} would touch {} notes (more than {} allowed unasked); to apply: {}\n",
            field(h, "kind"),
            field(h, "notes"),
            field(h, "limit"),
            field(h, "command")
        ));
    }
    s
}
