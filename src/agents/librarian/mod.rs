//! The librarian and its skills: quick health check, vault audit with a health report, deep
//! clean and tag garden. The checks themselves are [`crate::analysis::health`]; this room
//! chooses the mode, applies the safe fixes and writes the reports.

use std::collections::{BTreeMap, BTreeSet};

use super::common::{self, fold, suggestion};
use super::fixes::{self, Fix, Held};
use super::{Ctx, NativeOutput};
use crate::analysis::health::{Audit, Verdict, audit, exempt, health_score, pct, verdict};
use crate::crew::Folders;
use crate::gate::GateError;

fn list<T>(out: &mut String, title: &str, items: &[T], show: impl Fn(&T) -> String) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!("### {title} ({})\n", items.len()));
    for it in items.iter().take(25) {
        out.push_str(&format!("- {}\n", show(it)));
    }
    if items.len() > 25 {
        out.push_str(&format!("- … and {} more\n", items.len() - 25));
    }
    out.push('\n');
}

fn name_of(path: &str) -> &str {
    let f = path.rsplit('/').next().unwrap_or(path);
    f.strip_suffix(".md").unwrap_or(f)
}

/// Plans and applies the safe fixes ([`fixes`]); returns what changed, plus the kinds held
/// back. In a dry run the gate only simulates, so the list is what a real run would do.
fn run_fixes(ctx: &mut Ctx, a: &Audit) -> Result<(Vec<Fix>, Vec<Held>), GateError> {
    let plan = fixes::plan(ctx.gate, a, &ctx.config.folders, &ctx.fix_only);
    let done = fixes::apply(ctx, &plan)?;
    ctx.data = Some(serde_json::json!({"fixes": done, "held": plan.held}));
    Ok((done, plan.held))
}

/// The fixes as `git status` would show them: one line per note and change.
fn fix_lines(out: &mut String, dry_run: bool, done: &[Fix], held: &[Held]) {
    if !done.is_empty() {
        out.push_str(&format!(
            "### Safe fixes {} ({})\n",
            if dry_run { "planned" } else { "applied" },
            done.len()
        ));
        for f in done {
            out.push_str(&format!("- {} `{}`: {}\n", f.kind.name(), f.path, f.what));
        }
        out.push('\n');
    }
    for h in held {
        out.push_str(&format!("- {h}\n"));
    }
}

fn audit_suggestions(a: &Audit, f: &Folders) -> String {
    let mut s = String::new();
    if !a.orphans.is_empty() {
        s.push_str(&suggestion(
            "connector",
            &format!("{} orphan notes have no links in or out", a.orphans.len()),
            &a.orphans
                .iter()
                .take(10)
                .map(|p| name_of(p))
                .collect::<Vec<_>>()
                .join("; "),
        ));
    }
    if a.inbox > 0 && !a.inbox_old.is_empty() {
        s.push_str(&suggestion(
            "sorter",
            &format!("{} inbox notes are older than 48 hours", a.inbox_old.len()),
            &format!("{}/", f.inbox),
        ));
    }
    s
}

/// The librarian agent: quick check by default; consistency, growth and stale modes.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let today = ctx.now.date();
    let a = audit(ctx.gate.vault(), &*ctx.gate, &ctx.config.folders, today);
    if ctx.asks(&[
        "growth",
        "growth analytics",
        "crescita",
        "croissance",
        "crecimiento",
        "wachstum",
        "crescimento",
    ]) {
        return Ok(growth(ctx));
    }
    if ctx.asks(&["stale", "stale content", "obsolete", "old notes"]) {
        let mut out = format!("## Stale content — {}\n\n", ctx.today());
        stale_bands(&mut out, &a);
        return Ok(NativeOutput {
            postit: format!("stale check {}: {} stale", ctx.today(), a.stale.len()),
            text: out,
            attention: !a.stale.is_empty(),
        });
    }
    let consistency = ctx.asks(&[
        "consistency",
        "consistency report",
        "check consistency",
        "coerenza",
        "cohérence",
        "consistencia",
        "konsistenz",
    ]);
    let (done, held) = if ctx.apply {
        run_fixes(ctx, &a)?
    } else {
        Default::default()
    };
    let a = if done.is_empty() {
        a
    } else {
        audit(ctx.gate.vault(), &*ctx.gate, &ctx.config.folders, today)
    };
    let v = verdict(&a);
    let mut out = format!("## Quick health check — {}: **{v}**\n\n", ctx.today());
    out.push_str(&format!(
        "| check | count |\n|---|---|\n| notes | {} |\n| inbox notes | {} |\n| broken links | {} |\n| notes without frontmatter | {} |\n| orphans | {} |\n| duplicate names | {} |\n\n",
        a.notes, a.inbox, a.broken.len(), a.without_frontmatter.len(), a.orphans.len(), a.duplicate_names.len()
    ));
    list(&mut out, "Broken links", &a.broken, |b| {
        let likely = match b.likely.as_slice() {
            [one] => format!(" → likely [[{}]] (safe fix)", name_of(one)),
            [] => String::new(),
            many => format!(" → {} candidates", many.len()),
        };
        format!("[[{}]] in {}{likely}", b.target, b.source)
    });
    list(
        &mut out,
        "Duplicate names",
        &a.duplicate_names,
        |(n, ps)| format!("{n}: {}", ps.join(", ")),
    );
    if consistency {
        list(
            &mut out,
            "Names not following `YYYY-MM-DD — Type — Title`",
            &a.naming_bad,
            |p| p.clone(),
        );
        list(
            &mut out,
            "Missing required keys",
            &a.missing_keys,
            |(p, k)| format!("{p}: {}", k.join(", ")),
        );
        list(&mut out, "Dates not YYYY-MM-DD", &a.bad_dates, |(p, d)| {
            format!("{p}: {d}")
        });
        list(
            &mut out,
            "Tags not lowercase-hyphen",
            &a.bad_tags,
            |(p, t)| format!("{p}: #{t}"),
        );
        list(
            &mut out,
            "Status versus folder",
            &a.status_mismatch,
            |(p, w)| format!("{p}: {w}"),
        );
    }
    fix_lines(&mut out, ctx.gate.is_dry_run(), &done, &held);
    if !ctx.apply && a.broken.iter().any(|b| b.likely.len() == 1) {
        out.push_str("Safe fixes are available: run `crew maintain --fix` (or ask to \"fix the vault\") to apply them.\n");
    }
    out.push_str(&audit_suggestions(&a, &ctx.config.folders));
    Ok(NativeOutput {
        attention: v != Verdict::Healthy,
        postit: format!(
            "quick check {}: {v}; {} broken links, {} orphans, {} duplicate names",
            ctx.today(),
            a.broken.len(),
            a.orphans.len(),
            a.duplicate_names.len()
        ),
        text: out,
    })
}

fn stale_bands(out: &mut String, a: &Audit) {
    let bands = [
        (30, 60, "possibly stale (30–60 days)"),
        (60, 90, "likely stale (60–90 days)"),
        (90, i64::MAX, "almost certainly stale (90+ days)"),
    ];
    for (lo, hi, label) in bands {
        let items: Vec<_> = a
            .stale
            .iter()
            .filter(|(_, age, _)| *age >= lo && *age < hi)
            .collect();
        list(out, label, &items, |(p, age, linked)| {
            format!(
                "{p} — {age} days{}",
                if *linked { " (still linked: keep)" } else { "" }
            )
        });
    }
}

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

/// `/vault-audit`: the full audit and a health report note with the trend.
pub fn vault_audit(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let today = ctx.now.date();
    let (done, held) = if ctx.apply {
        let a = audit(ctx.gate.vault(), &*ctx.gate, &ctx.config.folders, today);
        run_fixes(ctx, &a)?
    } else {
        Default::default()
    };
    let a = audit(ctx.gate.vault(), &*ctx.gate, &ctx.config.folders, today);
    let score = health_score(&a);
    let v = verdict(&a);
    let dir = format!("{}/health-reports", ctx.config.folders.meta);
    let report_path = format!("{dir}/{} — Vault Health.md", ctx.today());
    let prev = previous_score(ctx, &dir);
    let trend = match &prev {
        Some((path, p)) => {
            let d = score as i64 - *p as i64;
            let since = if *path == report_path {
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
    };
    let mut body = format!(
        "---\ntype: report\ndate: {}\ntags: [meta, vault-health, report]\nhealth-score: {score}\nverdict: {v}\n---\n# Vault Health — {}\n\n## Summary\n- Health score: {trend}\n- Verdict: {v}\n- Notes: {}; links: {}; broken: {}; orphans: {}; inbox: {}\n\n",
        ctx.today(),
        ctx.today(),
        a.notes,
        a.links,
        a.broken.len(),
        a.orphans.len(),
        a.inbox
    );
    list(&mut body, "Broken links", &a.broken, |b| {
        let link = code(&format!("[[{}]]", b.target));
        match b.likely.as_slice() {
            [one] => format!(
                "{link} in {} → likely {}",
                code(&b.source),
                code(&format!("[[{}]]", name_of(one)))
            ),
            _ => format!("{link} in {}", code(&b.source)),
        }
    });
    list(
        &mut body,
        "Ambiguous links (several notes share the name)",
        &a.ambiguous,
        |(s, t)| format!("{} in {}", code(&format!("[[{t}]]")), code(s)),
    );
    list(&mut body, "Orphans", &a.orphans, |p| code(p));
    list(
        &mut body,
        "Duplicate names",
        &a.duplicate_names,
        |(n, ps)| format!("{}: {}", code(n), codes(ps)),
    );
    list(&mut body, "Identical content", &a.identical, |ps| {
        ps.iter().map(|p| code(p)).collect::<Vec<_>>().join(" = ")
    });
    list(
        &mut body,
        "Near-identical content (word 3-shingle Jaccard ≥ 70 %, template and stock lines left out)",
        &a.near_duplicates,
        |(x, y, s)| format!("{} ~ {} ({s} %)", code(x), code(y)),
    );
    list(
        &mut body,
        "Notes without frontmatter",
        &a.without_frontmatter,
        |p| code(p),
    );
    list(
        &mut body,
        "Frontmatter errors",
        &a.frontmatter_errors,
        |(p, e)| format!("{}: {}", code(p), code(e)),
    );
    list(
        &mut body,
        "Missing required keys",
        &a.missing_keys,
        |(p, k)| format!("{}: {}", code(p), k.join(", ")),
    );
    list(&mut body, "Dates not YYYY-MM-DD", &a.bad_dates, |(p, d)| {
        format!("{}: {}", code(p), code(d))
    });
    list(
        &mut body,
        "Tags not lowercase-hyphen",
        &a.bad_tags,
        |(p, t)| format!("{}: {}", code(p), code(&format!("#{t}"))),
    );
    list(
        &mut body,
        "Status versus folder",
        &a.status_mismatch,
        |(p, w)| format!("{}: {w}", code(p)),
    );
    list(
        &mut body,
        "Names not following the convention",
        &a.naming_bad,
        |p| code(p),
    );
    list(
        &mut body,
        "Inbox notes older than 48 hours",
        &a.inbox_old,
        |p| code(p),
    );
    if !done.is_empty() || !held.is_empty() {
        body.push_str("## Fixes\n");
        list(&mut body, "Applied", &done, |f| {
            format!("{} `{}`: {}", f.kind.name(), f.path, code(&f.what))
        });
        for h in &held {
            body.push_str(&format!("- {h}\n"));
        }
        body.push('\n');
    }
    body.push_str("## Recommendations\n");
    if a.broken.iter().any(|b| b.likely.len() == 1) {
        body.push_str("- Run `crew maintain --fix` to repair broken links that differ only in case or accents.\n");
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
    ctx.gate.write(&report_path, body.as_bytes())?;
    common::log_change(
        ctx,
        "librarian",
        &format!("wrote health report {report_path} (score {score})"),
    )?;
    let mut out = format!(
        "## Vault audit — {}: **{v}**, health score {trend}\n\nReport: `{report_path}`\n\n",
        ctx.today()
    );
    out.push_str(&format!(
        "- broken links: {} ({} with a safe fix)\n- ambiguous links: {}\n- orphans: {}\n- duplicate names: {}; identical content: {}; near-identical: {}\n- frontmatter: {} without, {} invalid, {} missing keys\n- inbox: {} ({} older than 48 h)\n",
        a.broken.len(),
        a.broken.iter().filter(|b| b.likely.len() == 1).count(),
        a.ambiguous.len(),
        a.orphans.len(),
        a.duplicate_names.len(),
        a.identical.len(),
        a.near_duplicates.len(),
        a.without_frontmatter.len(),
        a.frontmatter_errors.len(),
        a.missing_keys.len(),
        a.inbox,
        a.inbox_old.len()
    ));
    out.push('\n');
    fix_lines(&mut out, ctx.gate.is_dry_run(), &done, &held);
    out.push_str(&audit_suggestions(&a, &ctx.config.folders));
    Ok(NativeOutput {
        attention: v != Verdict::Healthy,
        postit: format!(
            "vault audit {}: score {score}, {v}; report {report_path}",
            ctx.today()
        ),
        text: out,
    })
}

/// `/deep-clean`: the audit plus stale content, outdated references, expired deadlines and
/// near-empty notes. Proposes; archives nothing by itself.
pub fn deep_clean(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let mut result = vault_audit(ctx)?;
    let vault = ctx.gate.vault();
    let today = ctx.now.date();
    let a = audit(vault, &*ctx.gate, &ctx.config.folders, today);
    let mut out = String::from("\n## Deep clean\n\n");
    stale_bands(&mut out, &a);
    let finished: BTreeSet<usize> = vault
        .notes
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            n.property_str("status")
                .is_some_and(|s| matches!(s.to_lowercase().as_str(), "completed" | "archived"))
        })
        .map(|(i, _)| i)
        .collect();
    let mut outdated = Vec::new();
    for (s, d) in vault.edges() {
        if finished.contains(&d) && !finished.contains(&s) {
            outdated.push(format!(
                "{} links to finished [[{}]]",
                vault.notes[s].path,
                vault.notes[d].name()
            ));
        }
    }
    list(
        &mut out,
        "Links to completed or archived notes",
        &outdated,
        |s| s.clone(),
    );
    let mut expired = Vec::new();
    for n in &vault.notes {
        for k in ["deadline", "due", "due-date"] {
            if let Some(d) = n.property_str(k).and_then(|v| common::parse_date(&v))
                && d < today
                && !n.property_str("status").is_some_and(|s| {
                    matches!(s.to_lowercase().as_str(), "completed" | "done" | "archived")
                })
            {
                expired.push(format!("{}: {k} {d}", n.path));
            }
        }
    }
    list(&mut out, "Expired deadlines", &expired, |s| s.clone());
    let tiny: Vec<String> = vault
        .notes
        .iter()
        .filter(|n| !exempt(&n.path, &ctx.config.folders) && n.body_len < 40)
        .map(|n| n.path.clone())
        .collect();
    list(
        &mut out,
        "Empty or near-empty notes (under 40 bytes of body)",
        &tiny,
        |s| s.clone(),
    );
    out.push_str(
        "Nothing was archived or deleted: review the lists and archive what you no longer need.\n",
    );
    // suggestions must stay at the end of the answer
    let (head, tail) = match result.text.find("\n### Suggested next agent") {
        Some(i) => (result.text[..i].to_string(), result.text[i..].to_string()),
        None => (result.text.clone(), String::new()),
    };
    result.text = format!("{head}{out}{tail}");
    result.attention |= !a.stale.is_empty() || !expired.is_empty();
    Ok(result)
}

/// Tag statistics for the tag garden.
#[derive(Debug, Default)]
pub struct TagReport {
    pub counts: BTreeMap<String, usize>,
    pub taxonomy: BTreeSet<String>,
}

/// Tags listed in `Meta/tag-taxonomy.md` (every `#tag` written in it).
fn taxonomy(ctx: &Ctx) -> BTreeSet<String> {
    let path = format!("{}/tag-taxonomy.md", ctx.config.folders.meta);
    ctx.gate
        .vault()
        .note(&path)
        .map(|n| n.tags_normalized().into_iter().collect())
        .unwrap_or_default()
}

/// `/tag-garden`: unused, orphan, near-duplicate, over- and under-used tags and bad formats.
pub fn tag_garden(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let vault = ctx.gate.vault();
    let f = &ctx.config.folders;
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    let mut raw_forms: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut tagged_notes = 0;
    let counted: Vec<_> = vault.notes.iter().filter(|n| !exempt(&n.path, f)).collect();
    for n in &counted {
        let tags = n.tags_normalized();
        if !tags.is_empty() {
            tagged_notes += 1;
        }
        for t in tags {
            *counts.entry(t.clone()).or_default() += 1;
        }
        for t in &n.tags {
            raw_forms
                .entry(t.to_lowercase())
                .or_default()
                .insert(t.clone());
        }
    }
    let tax = taxonomy(ctx);
    let total = counted.len().max(1);
    let mut out = format!(
        "## Tag garden — {}\n\n{} distinct tags on {} of {} notes.\n\n",
        ctx.today(),
        counts.len(),
        tagged_notes,
        counted.len()
    );
    let mut top: Vec<(&String, &usize)> = counts.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    list(
        &mut out,
        "Top tags",
        &top.iter().take(10).collect::<Vec<_>>(),
        |(t, c)| format!("#{t} — {c}"),
    );
    if !tax.is_empty() {
        let unused: Vec<&String> = tax.iter().filter(|t| !counts.contains_key(*t)).collect();
        list(&mut out, "In the taxonomy but unused", &unused, |t| {
            format!("#{t}")
        });
        let orphan: Vec<&String> = counts.keys().filter(|t| !tax.contains(*t)).collect();
        list(&mut out, "Used but not in the taxonomy", &orphan, |t| {
            format!("#{t}")
        });
    }
    // near-duplicates: same letters ignoring separators, singular/plural, or one typo
    let keys: Vec<&String> = counts.keys().collect();
    let mut merges = Vec::new();
    for i in 0..keys.len() {
        for j in i + 1..keys.len() {
            let (a, b) = (keys[i], keys[j]);
            let (fa, fb) = (fold(a), fold(b));
            let close = fa == fb
                || fa.trim_end_matches('s') == fb.trim_end_matches('s')
                || (fa.len() >= 5
                    && fb.len() >= 5
                    && super::seeker::edit_distance_at_most_one(&fa, &fb));
            if close {
                let (keep, drop) = if counts[a] >= counts[b] {
                    (a, b)
                } else {
                    (b, a)
                };
                merges.push(format!(
                    "#{drop} → #{keep} ({} note{})",
                    counts[drop],
                    if counts[drop] == 1 { "" } else { "s" }
                ));
            }
        }
    }
    list(
        &mut out,
        "Suggested merges (near-duplicates)",
        &merges,
        |s| s.clone(),
    );
    let over: Vec<String> = counts
        .iter()
        .filter(|(_, c)| counted.len() >= 10 && **c * 2 >= total)
        .map(|(t, c)| format!("#{t} — on {c} of {total} notes, too broad"))
        .collect();
    list(&mut out, "Over-used", &over, |s| s.clone());
    let under: Vec<String> = counts
        .iter()
        .filter(|(_, c)| **c <= 2)
        .map(|(t, c)| format!("#{t} — {c}"))
        .collect();
    list(
        &mut out,
        "Used once or twice (typo or too narrow?)",
        &under,
        |s| s.clone(),
    );
    let bad: Vec<String> = raw_forms
        .values()
        .flatten()
        .filter(|t| t.chars().any(|c| c.is_uppercase()) || t.contains('_'))
        .map(|t| {
            let mut fixed = String::new();
            for (i, c) in t.chars().enumerate() {
                if c.is_uppercase() && i > 0 && !fixed.ends_with(['-', '/']) {
                    fixed.push('-');
                }
                fixed.extend(c.to_lowercase());
            }
            format!("#{t} → #{}", fixed.replace('_', "-"))
        })
        .collect();
    list(&mut out, "Format (lowercase, hyphens)", &bad, |s| s.clone());
    out.push_str("No tag was changed: apply the merges you agree with.\n");
    if tax.is_empty() {
        out.push_str(&suggestion(
            "architect",
            "the vault has no tag taxonomy to compare against",
            &format!("create {}/tag-taxonomy.md", f.meta),
        ));
    }
    Ok(NativeOutput {
        attention: !merges.is_empty() || !bad.is_empty(),
        postit: format!(
            "tag garden {}: {} tags, {} merges suggested, {} format fixes",
            ctx.today(),
            counts.len(),
            merges.len(),
            bad.len()
        ),
        text: out,
    })
}

fn growth(ctx: &mut Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let today = ctx.now.date();
    let f = &ctx.config.folders;
    let dated: Vec<(chrono::NaiveDate, &crate::vault::Note)> = vault
        .notes
        .iter()
        .filter(|n| !exempt(&n.path, f))
        .filter_map(|n| {
            n.property_str("created")
                .or_else(|| n.property_str("date"))
                .and_then(|d| common::parse_date(&d))
                .or_else(|| common::last_touched(n))
                .map(|d| (d, n))
        })
        .collect();
    let within = |lo: i64, hi: i64| {
        dated
            .iter()
            .filter(|(d, _)| {
                let age = (today - *d).num_days();
                age >= lo && age < hi
            })
            .count()
    };
    let mut by_area: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_weekday: BTreeMap<String, usize> = BTreeMap::new();
    for (d, n) in &dated {
        let top = n.path.split('/').next().unwrap_or("").to_string();
        if (today - *d).num_days() < 30 {
            *by_area.entry(top).or_default() += 1;
        }
        *by_type
            .entry(n.property_str("type").unwrap_or_else(|| "untyped".into()))
            .or_default() += 1;
        *by_weekday.entry(d.format("%A").to_string()).or_default() += 1;
    }
    let mut out = format!(
        "## Growth analytics — {}\n\n- notes: {}\n- this week: {} (previous week: {})\n- this month: {} (previous month: {})\n\n",
        ctx.today(),
        vault.notes.len(),
        within(0, 7),
        within(7, 14),
        within(0, 30),
        within(30, 60)
    );
    let types: Vec<(String, usize)> = by_type.into_iter().collect();
    list(&mut out, "Types", &types, |(t, c)| {
        format!("{t}: {c} ({:.0} %)", pct(*c, dated.len()))
    });
    let areas: Vec<(String, usize)> = by_area.into_iter().collect();
    list(
        &mut out,
        "New notes by top folder (30 days)",
        &areas,
        |(a, c)| format!("{a}: {c}"),
    );
    if let Some((day, c)) = by_weekday.iter().max_by_key(|(_, c)| **c) {
        out.push_str(&format!("Most productive weekday: {day} ({c} notes).\n"));
    }
    NativeOutput {
        postit: format!("growth {}: {} this week", ctx.today(), within(0, 7)),
        text: out,
        attention: false,
    }
}
