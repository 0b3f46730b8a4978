//! `/tag-garden`: the vault's tags — counts, taxonomy, near-duplicates and formats.

use std::collections::{BTreeMap, BTreeSet};

use super::list;
use crate::agents::common::{fold, suggestion};
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
    let l = ctx.lang;
    let mut out = tr!(
        l,
        "tags.heading",
        date = ctx.today(),
        tags = counts.len(),
        tagged = tagged_notes,
        notes = counted.len()
    );
    let mut top: Vec<(&String, &usize)> = counts.iter().collect();
    top.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    list(
        &mut out,
        &tr!(l, "tags.top"),
        &top.iter().take(10).collect::<Vec<_>>(),
        |(t, c)| format!("#{t} — {c}"),
    );
    if !tax.is_empty() {
        let unused: Vec<&String> = tax.iter().filter(|t| !counts.contains_key(*t)).collect();
        list(&mut out, &tr!(l, "tags.unused"), &unused, |t| {
            format!("#{t}")
        });
        let orphan: Vec<&String> = counts.keys().filter(|t| !tax.contains(*t)).collect();
        list(&mut out, &tr!(l, "tags.not_in_taxonomy"), &orphan, |t| {
            format!("#{t}")
        });
    }
    let merges = merge_suggestions(&counts);
    list(&mut out, &tr!(l, "tags.merges"), &merges, |s| s.clone());
    let over: Vec<String> = counts
        .iter()
        .filter(|(_, c)| counted.len() >= 10 && **c * 2 >= total)
        .map(|(t, c)| tr!(l, "tags.too_broad", tag = t, count = c, total = total))
        .collect();
    list(&mut out, &tr!(l, "tags.over_used"), &over, |s| s.clone());
    let under: Vec<String> = counts
        .iter()
        .filter(|(_, c)| **c <= 2)
        .map(|(t, c)| format!("#{t} — {c}"))
        .collect();
    list(&mut out, &tr!(l, "tags.rare"), &under, |s| s.clone());
    let bad: Vec<String> = raw_forms
        .values()
        .flatten()
        .filter_map(|t| {
            let canonical = canonical_tag(t);
            (canonical != *t).then(|| format!("#{t} → #{canonical}"))
        })
        .collect();
    list(&mut out, &tr!(l, "tags.format"), &bad, |s| s.clone());
    out.push_str(&tr!(l, "tags.nothing_changed"));
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

/// The lowercase-hyphen form of a tag. Words are cut only where a lowercase letter or digit
/// meets an uppercase one (`ProjectManagement` → `project-management`), never between
/// letters of one case (`MOC` → `moc`, `OB_Template` → `ob-template`); `_` and spaces become
/// hyphens; nesting (`/`) is kept.
pub fn canonical_tag(tag: &str) -> String {
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

/// Tags that are one tag written two ways — the same letters once separators and case are
/// ignored, singular and plural, or one typo apart — each with the spelling to keep (the more
/// used one).
fn merge_suggestions(counts: &BTreeMap<String, usize>) -> Vec<String> {
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
                    && crate::analysis::text::edit_distance_at_most_one(&fa, &fb));
            if !close {
                continue;
            }
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
    merges
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
