//! `/tag-garden`: the vault's tags — counts, taxonomy, one tag written several ways (merged
//! into its most-used spelling with `--fix`, see [`super::tag_merge`] and [`super::tag_fix`]),
//! look-alikes to judge, over- and under-used tags and formats.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use super::list;
use super::tag_fix::{self, Outcome};
use super::tag_merge::{Merge, look_alikes, plan_merges, renames};
use crate::agents::common::suggestion;
use crate::agents::{Ctx, NativeOutput};
use crate::analysis::health::exempt;
use crate::gate::GateError;
use crate::tr;

/// Tags listed in `Meta/tag-taxonomy.md` (every `#tag` written in it).
fn taxonomy(ctx: &Ctx) -> BTreeSet<String> {
    let path = format!("{}/tag-taxonomy.md", ctx.config.folders.meta);
    ctx.gate
        .vault()
        .note(&path)
        .map(|n| n.tags_normalized().into_iter().collect())
        .unwrap_or_default()
}

/// What the garden found, before any change.
struct Garden {
    /// The notes counted (not crew's, not templates, maps of content or indexes).
    paths: Vec<String>,
    tagged_notes: usize,
    /// Tag, lower-cased → notes using it.
    counts: BTreeMap<String, usize>,
    /// Tag as written → notes writing it so.
    uses: BTreeMap<String, usize>,
    taxonomy: BTreeSet<String>,
    merges: Vec<Merge>,
    look_alikes: Vec<(String, String)>,
}

fn survey(ctx: &Ctx) -> Garden {
    let f = &ctx.config.folders;
    let mut g = Garden {
        paths: Vec::new(),
        tagged_notes: 0,
        counts: BTreeMap::new(),
        uses: BTreeMap::new(),
        taxonomy: taxonomy(ctx),
        merges: Vec::new(),
        look_alikes: Vec::new(),
    };
    for n in ctx
        .gate
        .vault()
        .notes
        .iter()
        .filter(|n| !exempt(&n.path, f))
    {
        g.paths.push(n.path.clone());
        let tags = n.tags_normalized();
        g.tagged_notes += usize::from(!tags.is_empty());
        for t in tags {
            *g.counts.entry(t).or_default() += 1;
        }
        let written: BTreeSet<&String> = n.tags.iter().collect();
        for t in written {
            *g.uses.entry(t.clone()).or_default() += 1;
        }
    }
    g.merges = plan_merges(&g.uses);
    g.look_alikes = look_alikes(&g.counts);
    g
}

/// `/tag-garden`: the report; with `--fix` the merges are applied through the gate.
pub fn tag_garden(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let g = survey(ctx);
    let outcome = if ctx.apply {
        Some(tag_fix::apply(ctx, &g.paths, &renames(&g.merges))?)
    } else {
        None
    };
    let bad = format_fixes(&g);
    let mut out = report(ctx, &g, &bad);
    applied_lines(&mut out, ctx, &g, outcome.as_ref());
    if g.taxonomy.is_empty() {
        ctx.hand_off(suggestion(
            "architect",
            "the vault has no tag taxonomy to compare against",
            &format!("create {}/tag-taxonomy.md", ctx.config.folders.meta),
        ));
    }
    let renamed = outcome.as_ref().map_or(0, |o| o.renamed.len());
    ctx.data = Some(json!({
        "tags": g.counts.len(),
        "tagged_notes": g.tagged_notes,
        "notes": g.paths.len(),
        "merges": g.merges,
        "look_alikes": g.look_alikes,
        "renamed": outcome.as_ref().map(|o| &o.renamed),
        "skipped": outcome.as_ref().map(|o| &o.skipped),
        "dry_run": ctx.gate.is_dry_run(),
    }));
    Ok(NativeOutput {
        attention: (!g.merges.is_empty() && outcome.is_none()) || !bad.is_empty(),
        postit: format!(
            "tag garden {}: {} tags, {} merges, {} notes renamed, {} format fixes",
            ctx.today(),
            g.counts.len(),
            g.merges.len(),
            renamed,
            bad.len()
        ),
        text: out,
    })
}

/// Spellings not in the lowercase-hyphen form and not merged into another: renaming them is
/// the user's call (the spelling may be a name).
fn format_fixes(g: &Garden) -> Vec<String> {
    let merged = renames(&g.merges);
    g.uses
        .keys()
        .filter(|t| !merged.contains_key(*t))
        .filter_map(|t| {
            let canonical = canonical_tag(t);
            (canonical != *t).then(|| format!("#{t} → #{canonical}"))
        })
        .collect()
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// The findings, as Markdown.
fn report(ctx: &Ctx, g: &Garden, bad: &[String]) -> String {
    let total = g.paths.len().max(1);
    let l = ctx.lang;
    let mut out = tr!(
        l,
        "tags.heading",
        date = ctx.today(),
        tags = g.counts.len(),
        tagged = g.tagged_notes,
        notes = g.paths.len()
    );
    let mut top: Vec<(&String, &usize)> = g.counts.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    list(
        &mut out,
        &tr!(l, "tags.top"),
        &top[..top.len().min(10)],
        |(t, c)| format!("#{t} — {c}"),
    );
    if !g.taxonomy.is_empty() {
        let unused: Vec<&String> = g
            .taxonomy
            .iter()
            .filter(|t| !g.counts.contains_key(*t))
            .collect();
        list(&mut out, &tr!(l, "tags.unused"), &unused, |t| {
            format!("#{t}")
        });
        let orphan: Vec<&String> = g
            .counts
            .keys()
            .filter(|t| !g.taxonomy.contains(*t))
            .collect();
        list(&mut out, &tr!(l, "tags.not_in_taxonomy"), &orphan, |t| {
            format!("#{t}")
        });
    }
    list(&mut out, &tr!(l, "tags.merges"), &g.merges, |m| {
        let from: Vec<String> = m
            .from
            .iter()
            .map(|v| format!("#{} ({} note{})", v.tag, v.notes, plural(v.notes)))
            .collect();
        let kept = g.uses.get(&m.into).copied().unwrap_or(0);
        format!(
            "{} → #{} ({kept} note{})",
            from.join(", "),
            m.into,
            plural(kept)
        )
    });
    list(
        &mut out,
        &tr!(l, "tags.look_alikes"),
        &g.look_alikes,
        |(less, more)| format!("#{less} → #{more}?"),
    );
    let over: Vec<String> = g
        .counts
        .iter()
        .filter(|(_, c)| g.paths.len() >= 10 && **c * 2 >= total)
        .map(|(t, c)| tr!(l, "tags.too_broad", tag = t, count = c, total = total))
        .collect();
    list(&mut out, &tr!(l, "tags.over_used"), &over, |s| s.clone());
    let under: Vec<String> = g
        .counts
        .iter()
        .filter(|(_, c)| **c <= 2)
        .map(|(t, c)| format!("#{t} — {c}"))
        .collect();
    list(&mut out, &tr!(l, "tags.rare"), &under, |s| s.clone());
    list(&mut out, &tr!(l, "tags.format"), bad, |s| s.clone());
    out
}

/// What `--fix` did (or, in a dry run, would do), or how to ask for it.
fn applied_lines(out: &mut String, ctx: &Ctx, g: &Garden, outcome: Option<&Outcome>) {
    let l = ctx.lang;
    let dry_run = ctx.gate.is_dry_run();
    let Some(o) = outcome else {
        if g.merges.is_empty() {
            out.push_str(&tr!(l, "tags.nothing_changed"));
        } else {
            out.push_str(&tr!(l, "tags.fix_hint", count = g.merges.len()));
        }
        return;
    };
    let tags: usize = o.renamed.iter().map(|r| r.tags).sum();
    out.push_str(&if dry_run {
        tr!(l, "tags.planned", notes = o.renamed.len(), tags = tags)
    } else {
        tr!(l, "tags.applied", notes = o.renamed.len(), tags = tags)
    });
    for r in o.renamed.iter().take(50) {
        out.push_str(&format!("- `{}`: {}\n", r.path, r.changes.join(", ")));
    }
    if o.renamed.len() > 50 {
        out.push_str(&format!("- … and {} more\n", o.renamed.len() - 50));
    }
    for s in &o.skipped {
        out.push_str(&format!("- left as it is: `{}` — {}\n", s.path, s.why));
    }
    out.push('\n');
    if !dry_run && !o.renamed.is_empty() {
        out.push_str(&tr!(l, "tags.undo"));
    }
}

/// The lowercase-hyphen form of a tag. Words are cut only where a lowercase letter or digit
/// meets an uppercase one (`ProjectManagement` → `project-management`), never between
/// letters of one case (`MOC` → `moc`, `OB_Template` → `ob-template`); `_` and spaces become
/// hyphens; nesting (`/`) is kept.
pub(crate) fn canonical_tag(tag: &str) -> String {
    tag.split('/')
        .map(|segment| {
            let mut out = String::new();
            let mut prev: Option<char> = None;
            for c in segment.chars() {
                let c = if c == '_' || c.is_whitespace() {
                    '-'
                } else {
                    c
                };
                if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit())
                {
                    out.push('-');
                }
                if c == '-' && (out.is_empty() || out.ends_with('-')) {
                    prev = Some(c);
                    continue;
                }
                out.extend(c.to_lowercase());
                prev = Some(c);
            }
            out.trim_end_matches('-').to_string()
        })
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_tags_never_split_letters() {
        for (raw, want) in [
            ("MOC", "moc"),
            ("OB_Template", "ob-template"),
            ("Nested Folder", "nested-folder"),
            ("ProjectManagement", "project-management"),
            ("area/HealthCare", "area/health-care"),
            ("web3Dev", "web3-dev"),
            ("already-fine", "already-fine"),
            ("trailing_", "trailing"),
            ("Ünïcode", "ünïcode"),
        ] {
            assert_eq!(canonical_tag(raw), want, "{raw}");
        }
    }
}
