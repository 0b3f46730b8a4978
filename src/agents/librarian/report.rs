//! `/vault-audit`: the full audit written as a health report note, with the trend since the
//! last report.

use super::{Fixed, audit_now, audit_suggestions, fix_lines, list, name_of, run_fixes};
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::analysis::health::{Audit, Verdict, health_score, verdict};
use crate::gate::GateError;
use crate::tr;

/// The latest health report before this one — today's own, when this is a second run today —
/// and its score.
fn previous_score(ctx: &Ctx, dir: &str) -> Option<(String, u32)> {
    let mut reports: Vec<String> = ctx
        .gate
        .vault()
        .notes
        .iter()
        .filter(|n| n.folder() == dir && n.name().ends_with("— Vault Health"))
        .map(|n| n.path.clone())
        .collect();
    reports.sort();
    let last = reports.pop()?;
    let n = ctx.gate.vault().note(&last)?;
    let score = n.property_str("health-score")?.parse().ok()?;
    Some((last, score))
}

/// Text as an inline code span: a report note names broken targets, paths and tags without
/// making them live links or tags of the vault.
fn codes(paths: &[String]) -> String {
    paths.iter().map(|p| code(p)).collect::<Vec<_>>().join(", ")
}

fn code(text: &str) -> String {
    let mut ticks = 1;
    while text.contains(&"`".repeat(ticks)) {
        ticks += 1;
    }
    let fence = "`".repeat(ticks);
    if ticks > 1 || text.starts_with('`') || text.ends_with('`') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// The audit's figures for `--json`.
fn audit_data(
    a: &Audit,
    score: u32,
    v: Verdict,
    previous: Option<u32>,
    report_path: &str,
    fixed: &Fixed,
) -> serde_json::Value {
    serde_json::json!({
        "health_score": score,
        "verdict": v,
        "previous_score": previous,
        "report_note": report_path,
        "counts": {
            "notes": a.notes,
            "links": a.links,
            "broken_links": a.broken.len(),
            "broken_with_safe_fix": a.safe_link_fixes(),
            "broken_with_proposal": a.proposed_link_fixes(),
            "ambiguous_links": a.ambiguous.len(),
            "orphans": a.orphans.len(),
            "duplicate_names": a.duplicate_names.len(),
            "identical": a.identical.len(),
            "near_duplicates": a.near_duplicates.len(),
            "without_frontmatter": a.without_frontmatter.len(),
            "frontmatter_errors": a.frontmatter_errors.len(),
            "missing_keys": a.missing_keys.len(),
            "inbox": a.inbox,
            "inbox_old": a.inbox_old.len(),
        },
        "fixes": fixed.done,
        "held": fixed.held,
        "not_written": fixed.not_written,
    })
}

/// `/vault-audit`: the full audit and a health report note with the trend.
pub fn vault_audit(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let fixed = if ctx.apply {
        let a = audit_now(ctx);
        run_fixes(ctx, &a)?
    } else {
        Fixed::default()
    };
    let a = audit_now(ctx);
    let score = health_score(&a);
    let v = verdict(&a);
    let dir = format!("{}/health-reports", ctx.config.folders.meta);
    let report_path = format!("{dir}/{} — Vault Health.md", ctx.today());
    let prev = previous_score(ctx, &dir);
    let trend = trend(score, prev.as_ref(), &report_path);
    let body = report_note(&a, score, v, &trend, &ctx.today(), &fixed);
    ctx.gate.write(&report_path, body.as_bytes())?;
    ctx.data = Some(audit_data(
        &a,
        score,
        v,
        prev.as_ref().map(|(_, p)| *p),
        &report_path,
        &fixed,
    ));
    common::log_change(
        ctx,
        "librarian",
        &format!("wrote health report {report_path} (score {score})"),
    )?;
    let l = ctx.lang;
    let reply_trend = match &prev {
        Some((path, p)) => {
            let d = i64::from(score) - i64::from(*p);
            let change = format!("{}{d}", if d >= 0 { "+" } else { "" });
            if *path == report_path {
                tr!(l, "audit.trend.today", score = score, change = change)
            } else {
                let since = format!("[[{}]]", name_of(path));
                tr!(
                    l,
                    "audit.trend.since",
                    score = score,
                    change = change,
                    since = since
                )
            }
        }
        None => tr!(l, "audit.trend.first", score = score),
    };
    let mut out = tr!(
        l,
        "audit.heading",
        date = ctx.today(),
        verdict = super::verdict_text(l, v),
        trend = reply_trend,
        report = report_path
    );
    out.push_str(&tr!(
        l,
        "audit.counts",
        broken = a.broken.len(),
        safe = a.safe_link_fixes(),
        ambiguous = a.ambiguous.len(),
        orphans = a.orphans.len(),
        duplicates = a.duplicate_names.len(),
        identical = a.identical.len(),
        near = a.near_duplicates.len(),
        without = a.without_frontmatter.len(),
        invalid = a.frontmatter_errors.len(),
        missing = a.missing_keys.len(),
        inbox = a.inbox,
        old = a.inbox_old.len()
    ));
    out.push('\n');
    fix_lines(&mut out, l, ctx.gate.is_dry_run(), &fixed);
    let handoffs = audit_suggestions(&a, &ctx.config.folders);
    ctx.handoffs.extend(handoffs);
    Ok(NativeOutput {
        attention: v != Verdict::Healthy,
        postit: format!(
            "vault audit {}: score {score}, {v}; report {report_path}",
            ctx.today()
        ),
        text: out,
    })
}

/// The score with its change since the previous report (`[[that report]]`, or today's own).
fn trend(score: u32, prev: Option<&(String, u32)>, report_path: &str) -> String {
    match prev {
        Some((path, p)) => {
            let d = i64::from(score) - i64::from(*p);
            let since = if path == report_path {
                "the earlier report today".to_string()
            } else {
                format!("[[{}]]", name_of(path))
            };
            format!(
                "{score} ({}{d} since {since})",
                if d >= 0 { "+" } else { "" }
            )
        }
        None => format!("{score} (first report)"),
    }
}

/// The health report note: frontmatter with the score, every finding in code spans.
fn report_note(
    a: &Audit,
    score: u32,
    v: Verdict,
    trend: &str,
    today: &str,
    fixed: &Fixed,
) -> String {
    let (done, held) = (&fixed.done, &fixed.held);
    let mut body = format!(
        "---\ntype: report\ndate: {}\ntags: [meta, vault-health, report]\nhealth-score: {score}\nverdict: {v}\n---\n# Vault Health — {}\n\n## Summary\n- Health score: {trend}\n- Verdict: {v}\n- Notes: {}; links: {}; broken: {}; orphans: {}; inbox: {}\n\n",
        today,
        today,
        a.notes,
        a.links,
        a.broken.len(),
        a.orphans.len(),
        a.inbox
    );
    findings(&mut body, a);
    if !done.is_empty() || !held.is_empty() {
        body.push_str("## Fixes\n");
        list(&mut body, "Applied", done, |f| {
            format!("{} `{}`: {}", f.kind.name(), f.path, code(&f.what))
        });
        for h in held {
            body.push_str(&format!("- {h}\n"));
        }
        body.push('\n');
    }
    list(&mut body, "Not written", &fixed.not_written, |n| {
        format!("{} `{}`: {}", n.kind.name(), n.path, code(&n.why))
    });
    body.push_str("## Recommendations\n");
    if a.safe_link_fixes() > 0 {
        body.push_str("- Run `crew maintain --fix` to repair broken links that differ only in case, accents or Unicode form, or name a note by one of its aliases; each keeps the text it shows.\n");
    }
    if a.proposed_link_fixes() > 0 {
        body.push_str("- Check the proposed link targets by hand: they differ in spaces, punctuation or words, so `--fix` leaves them.\n");
    }
    if !a.orphans.is_empty() {
        body.push_str("- Link the orphans: say \"connect the notes\".\n");
    }
    if !a.inbox_old.is_empty() {
        body.push_str("- File the inbox: say \"file my notes\".\n");
    }
    if v == Verdict::Healthy {
        body.push_str("- Nothing urgent.\n");
    }
    body
}

/// Every finding of the audit, as lists whose paths, targets and tags are code spans.
fn findings(body: &mut String, a: &Audit) {
    list(body, "Broken links", &a.broken, |b| {
        let link = if b.markdown {
            code(&format!("({})", b.target))
        } else {
            code(&format!("[[{}]]", b.target))
        };
        match (&b.fix, b.likely.as_slice()) {
            (Some(fix), _) => format!(
                "{link} in {} → safe fix {}, showing the same text",
                code(&b.source),
                code(&format!("[[{}]]", fix.to))
            ),
            (None, [one]) => format!(
                "{link} in {} → perhaps {} (a proposal: `--fix` leaves it)",
                code(&b.source),
                code(&format!("[[{}]]", name_of(one)))
            ),
            _ => format!("{link} in {}", code(&b.source)),
        }
    });
    list(
        body,
        "Ambiguous links (several notes share the name)",
        &a.ambiguous,
        |(s, t)| format!("{} in {}", code(&format!("[[{t}]]")), code(s)),
    );
    list(body, "Orphans", &a.orphans, |p| code(p));
    list(body, "Duplicate names", &a.duplicate_names, |(n, ps)| {
        format!("{}: {}", code(n), codes(ps))
    });
    list(body, "Identical content", &a.identical, |ps| {
        ps.iter().map(|p| code(p)).collect::<Vec<_>>().join(" = ")
    });
    list(
        body,
        "Near-identical content (word 3-shingle Jaccard ≥ 70 %, template and stock lines left out)",
        &a.near_duplicates,
        |(x, y, s)| format!("{} ~ {} ({s} %)", code(x), code(y)),
    );
    list(
        body,
        "Notes without frontmatter",
        &a.without_frontmatter,
        |p| code(p),
    );
    list(
        body,
        "Frontmatter errors",
        &a.frontmatter_errors,
        |(p, e)| format!("{}: {}", code(p), code(e)),
    );
    list(body, "Missing required keys", &a.missing_keys, |(p, k)| {
        format!("{}: {}", code(p), k.join(", "))
    });
    list(body, "Dates not YYYY-MM-DD", &a.bad_dates, |(p, d)| {
        format!("{}: {}", code(p), code(d))
    });
    list(body, "Tags not lowercase-hyphen", &a.bad_tags, |(p, t)| {
        format!("{}: {}", code(p), code(&format!("#{t}")))
    });
    list(
        body,
        "Status versus folder",
        &a.status_mismatch,
        |(p, w)| format!("{}: {w}", code(p)),
    );
    list(
        body,
        "Names not following the convention",
        &a.naming_bad,
        |p| code(p),
    );
    list(body, "Inbox notes older than 48 hours", &a.inbox_old, |p| {
        code(p)
    });
}
