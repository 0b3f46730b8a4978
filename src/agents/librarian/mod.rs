//! The librarian and its skills: quick health check, vault audit with a health report, deep
//! clean and tag garden. The checks themselves are [`crate::analysis::health`]; this room
//! chooses the mode, applies the safe fixes and writes the reports.

mod report;
pub mod tag_fix;
pub mod tag_merge;
pub mod tags;

use std::collections::{BTreeMap, BTreeSet};

pub use report::vault_audit;
pub use tags::tag_garden;

use super::common::{self, suggestion};
use super::fixes::{self, Fix, Held};
use super::{Ctx, NativeOutput};
use crate::analysis::health::{Audit, Verdict, audit, exempt, pct, verdict};
use crate::analysis::schema::Schema;
use crate::crew::Folders;
use crate::dispatch::suggest::NextAgent;
use crate::gate::GateError;
use crate::lang::Lang;
use crate::tr;

/// The verdict in the reply's language (the report note and `--json` keep the English label).
fn verdict_text(l: Lang, v: Verdict) -> String {
    match v {
        Verdict::Healthy => tr!(l, "verdict.healthy"),
        Verdict::NeedsAttention => tr!(l, "verdict.needs_attention"),
        Verdict::Critical => tr!(l, "verdict.critical"),
    }
}

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

/// What the safe fixes did: applied, held back by kind, and notes crew could not write.
#[derive(Debug, Default)]
struct Fixed {
    done: Vec<Fix>,
    held: Vec<Held>,
    not_written: Vec<fixes::NotWritten>,
}

/// Plans and applies the safe fixes ([`fixes`]). In a dry run the gate only simulates, so the
/// list is what a real run would do.
fn run_fixes(ctx: &mut Ctx, a: &Audit) -> Result<Fixed, GateError> {
    let plan = fixes::plan(ctx.gate, a, &ctx.config.folders, &ctx.fix_only);
    let applied = fixes::apply(ctx, &plan)?;
    ctx.data = Some(serde_json::json!({
        "fixes": applied.done, "held": plan.held, "not_written": applied.not_written,
    }));
    Ok(Fixed {
        done: applied.done,
        held: plan.held,
        not_written: applied.not_written,
    })
}

/// The fixes as `git status` would show them: one line per note and change.
fn fix_lines(out: &mut String, l: Lang, dry_run: bool, fixed: &Fixed) {
    let (done, held) = (&fixed.done, &fixed.held);
    if !done.is_empty() {
        out.push_str(&if dry_run {
            tr!(l, "fixes.planned", count = done.len())
        } else {
            tr!(l, "fixes.applied", count = done.len())
        });
        for f in done {
            out.push_str(&format!("- {} `{}`: {}\n", f.kind.name(), f.path, f.what));
        }
        out.push('\n');
    }
    for h in held {
        out.push_str(&format!("- {h}\n"));
    }
    if !fixed.not_written.is_empty() {
        out.push_str(&tr!(
            l,
            "fixes.not_written",
            count = fixed.not_written.len()
        ));
        for n in &fixed.not_written {
            out.push_str(&format!("- {} `{}`: {}\n", n.kind.name(), n.path, n.why));
        }
        out.push('\n');
    }
}

fn audit_suggestions(a: &Audit, f: &Folders) -> Vec<NextAgent> {
    let mut s = Vec::new();
    if !a.orphans.is_empty() {
        s.push(suggestion(
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
        s.push(suggestion(
            "sorter",
            &format!("{} inbox notes are older than 48 hours", a.inbox_old.len()),
            &format!("{}/", f.inbox),
        ));
    }
    s
}

/// The audit of the vault as it is now, held to the schema it keeps: crew's in a vault crew
/// laid out, else the one its own notes show.
fn audit_now(ctx: &Ctx) -> Audit {
    let vault = ctx.gate.vault();
    let f = &ctx.config.folders;
    let schema = Schema::of(ctx.crew, vault, f);
    audit(vault, &*ctx.gate, f, &schema, ctx.now.date())
}

/// The librarian's modes (`agents/librarian.md`, `## Modes`), from the slug the dispatcher
/// chose; the quick check by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum LibrarianMode {
    QuickCheck,
    Consistency,
    Growth,
    Stale,
}

impl LibrarianMode {
    fn from_slug(slug: Option<&str>) -> LibrarianMode {
        match slug {
            Some("consistency-report") => LibrarianMode::Consistency,
            Some("growth-analytics") => LibrarianMode::Growth,
            Some("stale-content") => LibrarianMode::Stale,
            _ => LibrarianMode::QuickCheck,
        }
    }
}

/// The librarian agent: quick check by default; consistency, growth and stale modes.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let a = audit_now(ctx);
    let mode = LibrarianMode::from_slug(ctx.mode());
    if mode == LibrarianMode::Growth {
        return Ok(growth(ctx));
    }
    if mode == LibrarianMode::Stale {
        let mut out = tr!(ctx.lang, "librarian.stale.heading", date = ctx.today());
        stale_bands(&mut out, ctx.lang, &a);
        return Ok(NativeOutput {
            postit: format!("stale check {}: {} stale", ctx.today(), a.stale.len()),
            text: out,
            attention: !a.stale.is_empty(),
        });
    }
    let consistency = mode == LibrarianMode::Consistency;
    let fixed = if ctx.apply {
        run_fixes(ctx, &a)?
    } else {
        Fixed::default()
    };
    let a = if fixed.done.is_empty() {
        a
    } else {
        audit_now(ctx)
    };
    let v = verdict(&a);
    let l = ctx.lang;
    let mut out = quick_check_text(l, &ctx.today(), v, &a);
    if consistency {
        consistency_lists(&mut out, &a);
    }
    fix_lines(&mut out, l, ctx.gate.is_dry_run(), &fixed);
    if !ctx.apply && a.safe_link_fixes() > 0 {
        out.push_str(&tr!(l, "librarian.fixes_available"));
    }
    let handoffs = audit_suggestions(&a, &ctx.config.folders);
    ctx.handoffs.extend(handoffs);
    Ok(NativeOutput {
        attention: v != Verdict::Healthy || !fixed.not_written.is_empty(),
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

/// The quick check's heading, figures, broken links and duplicate names.
fn quick_check_text(l: crate::lang::Lang, today: &str, v: Verdict, a: &Audit) -> String {
    let mut out = tr!(
        l,
        "librarian.quick.heading",
        date = today,
        verdict = verdict_text(l, v)
    );
    out.push_str(&tr!(
        l,
        "librarian.quick.table",
        notes = a.notes,
        inbox = a.inbox,
        broken = a.broken.len(),
        without = a.without_frontmatter.len(),
        orphans = a.orphans.len(),
        duplicates = a.duplicate_names.len()
    ));
    list(
        &mut out,
        &tr!(l, "librarian.broken_links"),
        &a.broken,
        |b| {
            let likely = match (&b.fix, b.likely.as_slice()) {
                (Some(fix), _) => tr!(l, "librarian.broken.likely", note = fix.to),
                (None, [one]) => tr!(l, "librarian.broken.proposal", note = name_of(one)),
                (None, []) => String::new(),
                (None, many) => tr!(l, "librarian.broken.candidates", count = many.len()),
            };
            tr!(
                l,
                "librarian.broken.item",
                target = b.target,
                source = b.source,
                likely = likely
            )
        },
    );
    list(
        &mut out,
        &tr!(l, "librarian.duplicate_names"),
        &a.duplicate_names,
        |(n, ps)| format!("{n}: {}", ps.join(", ")),
    );
    out
}

/// The consistency lists of the quick check: naming, keys, dates, tags, status.
fn consistency_lists(out: &mut String, a: &Audit) {
    list(
        out,
        "Names not following `YYYY-MM-DD — Type — Title`",
        &a.naming_bad,
        |p| p.clone(),
    );
    list(out, "Missing required keys", &a.missing_keys, |(p, k)| {
        format!("{p}: {}", k.join(", "))
    });
    list(out, "Dates not YYYY-MM-DD", &a.bad_dates, |(p, d)| {
        format!("{p}: {d}")
    });
    list(out, "Tags not lowercase-hyphen", &a.bad_tags, |(p, t)| {
        format!("{p}: #{t}")
    });
    list(out, "Status versus folder", &a.status_mismatch, |(p, w)| {
        format!("{p}: {w}")
    });
}

fn stale_bands(out: &mut String, l: Lang, a: &Audit) {
    let bands = [
        (30, 60, tr!(l, "librarian.stale.possibly")),
        (60, 90, tr!(l, "librarian.stale.likely")),
        (90, i64::MAX, tr!(l, "librarian.stale.certainly")),
    ];
    for (lo, hi, label) in bands {
        let items: Vec<_> = a
            .stale
            .iter()
            .filter(|(_, age, _)| *age >= lo && *age < hi)
            .collect();
        list(out, &label, &items, |(p, age, linked)| {
            let keep = if *linked {
                tr!(l, "librarian.stale.keep")
            } else {
                String::new()
            };
            tr!(l, "librarian.stale.item", note = p, days = age, keep = keep)
        });
    }
}

/// `/deep-clean`: the audit plus stale content, outdated references, expired deadlines and
/// near-empty notes. Proposes; archives nothing by itself.
pub(crate) fn deep_clean(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let mut result = vault_audit(ctx)?;
    let a = audit_now(ctx);
    let vault = ctx.gate.vault();
    let today = ctx.now.date();
    let l = ctx.lang;
    let mut out = tr!(l, "librarian.deep.heading");
    stale_bands(&mut out, l, &a);
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
        &tr!(l, "librarian.deep.finished_links"),
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
    list(&mut out, &tr!(l, "librarian.deep.expired"), &expired, |s| {
        s.clone()
    });
    let tiny: Vec<String> = vault
        .notes
        .iter()
        .filter(|n| !exempt(&n.path, &ctx.config.folders) && n.body_len < 40)
        .map(|n| n.path.clone())
        .collect();
    list(&mut out, &tr!(l, "librarian.deep.tiny"), &tiny, |s| {
        s.clone()
    });
    out.push_str(&tr!(l, "librarian.deep.nothing_archived"));
    // hand-offs are not in the text: crew writes them after the whole answer
    result.text.push_str(&out);
    result.attention |= !a.stale.is_empty() || !expired.is_empty();
    Ok(result)
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
    let l = ctx.lang;
    let mut out = tr!(
        l,
        "librarian.growth.heading",
        date = ctx.today(),
        notes = vault.notes.len(),
        week = within(0, 7),
        previous_week = within(7, 14),
        month = within(0, 30),
        previous_month = within(30, 60)
    );
    let types: Vec<(String, usize)> = by_type.into_iter().collect();
    list(
        &mut out,
        &tr!(l, "librarian.growth.types"),
        &types,
        |(t, c)| format!("{t}: {c} ({:.0} %)", pct(*c, dated.len())),
    );
    let areas: Vec<(String, usize)> = by_area.into_iter().collect();
    list(
        &mut out,
        &tr!(l, "librarian.growth.folders"),
        &areas,
        |(a, c)| format!("{a}: {c}"),
    );
    if let Some((day, c)) = by_weekday.iter().max_by_key(|(_, c)| **c) {
        out.push_str(&tr!(l, "librarian.growth.weekday", day = day, count = c));
    }
    NativeOutput {
        postit: format!("growth {}: {} this week", ctx.today(), within(0, 7)),
        text: out,
        attention: false,
    }
}
