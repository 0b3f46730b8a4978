//! "tag taxonomy": the vault's tags as a tree (nested tags `a/b/c`) with their counts, the
//! tags written several ways (case, separators, plural), and a proposed taxonomy note —
//! written only when the request says to create it or the user confirmed.

use std::collections::BTreeMap;

use super::defrag_plan::{tag_key, tag_spellings};
use super::requests::confirmed;
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;

/// One tag of the tree: notes tagged with it exactly, and with it or a tag under it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Node {
    own: usize,
    total: usize,
}

/// The vault's tags: each key's spellings with their note counts.
type Spellings = BTreeMap<String, BTreeMap<String, usize>>;

/// The tree of keys, every ancestor of a nested tag included. Pure.
fn tree(spellings: &Spellings) -> BTreeMap<String, Node> {
    let mut out: BTreeMap<String, Node> = BTreeMap::new();
    for (key, forms) in spellings {
        // `#/s` or `#a//b` nest nothing: empty segments are dropped
        let segs: Vec<&str> = key.split('/').filter(|s| !s.is_empty()).collect();
        if segs.is_empty() {
            continue;
        }
        let n: usize = forms.values().sum();
        out.entry(segs.join("/")).or_default().own += n;
        for end in 1..=segs.len() {
            out.entry(segs[..end].join("/")).or_default().total += n;
        }
    }
    out
}

/// The singular a plural key may stand for (`recipes` → `recipe`, `stories` → `story`,
/// `boxes` → `box`); the last segment only.
fn singulars(key: &str) -> Vec<String> {
    let (head, last) = key.rsplit_once('/').map_or(("", key), |(h, l)| (h, l));
    let join = |s: String| {
        if head.is_empty() {
            s
        } else {
            format!("{head}/{s}")
        }
    };
    let mut out = Vec::new();
    if let Some(s) = last.strip_suffix("ies") {
        out.push(join(format!("{s}y")));
    }
    if let Some(s) = last.strip_suffix("es") {
        out.push(join(s.to_string()));
    }
    if let Some(s) = last.strip_suffix('s') {
        out.push(join(s.to_string()));
    }
    out.retain(|s| !s.ends_with('/') && !s.is_empty());
    out
}

/// Tags written more than one way: every spelling of a key, and a plural key folded into
/// its singular when both are used. Each group is `(proposed, spellings with counts)`, the
/// proposed form the canonical spelling of the most used key. Pure.
fn near_duplicates(spellings: &Spellings) -> Vec<(String, Vec<(String, usize)>)> {
    let mut group_of: BTreeMap<&str, &str> = BTreeMap::new();
    for key in spellings.keys() {
        if let Some(s) = singulars(key)
            .into_iter()
            .find(|s| spellings.contains_key(s))
        {
            let s = spellings.get_key_value(&s).map(|(k, _)| k.as_str());
            if let Some(s) = s {
                group_of.insert(key.as_str(), s);
            }
        }
    }
    let mut groups: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for key in spellings.keys() {
        let root = group_of.get(key.as_str()).copied().unwrap_or(key.as_str());
        groups.entry(root).or_default().push(key.as_str());
    }
    let mut out = Vec::new();
    for keys in groups.values() {
        let mut forms: Vec<(String, usize)> = keys
            .iter()
            .flat_map(|k| spellings[*k].iter().map(|(s, c)| (s.clone(), *c)))
            .collect();
        if forms.len() < 2 {
            continue;
        }
        forms.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let proposed = keys
            .iter()
            .copied()
            .max_by_key(|k| (spellings[*k].values().sum::<usize>(), std::cmp::Reverse(*k)))
            .map_or_else(String::new, str::to_string);
        out.push((proposed, forms));
    }
    out
}

/// The tree as nested list lines: `- #a (3)`, `  - #a/b (2)`.
fn tree_lines(tree: &BTreeMap<String, Node>) -> String {
    // by segments, so a tag's children follow it (`a/b` before `a-c`)
    let mut keys: Vec<(&String, &Node)> = tree.iter().collect();
    keys.sort_by(|a, b| a.0.split('/').cmp(b.0.split('/')));
    let mut out = String::new();
    for (key, node) in keys {
        let depth = key.matches('/').count();
        let counts = if node.own == node.total {
            format!("{}", node.total)
        } else {
            format!("{} / {}", node.own, node.total)
        };
        out.push_str(&format!("{}- #{key} ({counts})\n", "  ".repeat(depth)));
    }
    out
}

fn merge_lines(dups: &[(String, Vec<(String, usize)>)]) -> String {
    dups.iter()
        .map(|(to, forms)| {
            let forms: Vec<String> = forms.iter().map(|(s, c)| format!("`#{s}` ({c})")).collect();
            format!("- {} → `#{to}`\n", forms.join(", "))
        })
        .collect()
}

/// The report, and the taxonomy note when the request creates it.
pub(crate) fn tag_taxonomy(ctx: &mut Ctx, create: bool) -> Result<NativeOutput, GateError> {
    let l = ctx.lang;
    let sp = tag_spellings(ctx);
    let mut text = crate::tr!(l, "architect.taxonomy.heading", date = ctx.today());
    if sp.is_empty() {
        text.push_str(&crate::tr!(l, "architect.taxonomy.none"));
        return Ok(NativeOutput {
            text,
            postit: format!("tag taxonomy {}: no tags", ctx.today()),
            attention: false,
        });
    }
    let dups = near_duplicates(&sp);
    // a key folded into another is shown once, under the form proposed for it
    let mut kept = sp.clone();
    for (to, forms) in &dups {
        for (s, c) in forms {
            let k = tag_key(s);
            if k != *to {
                kept.remove(&k);
                *kept
                    .entry(to.clone())
                    .or_default()
                    .entry(to.clone())
                    .or_default() += c;
            }
        }
    }
    let lines = tree_lines(&tree(&kept));
    text.push_str(&crate::tr!(l, "architect.taxonomy.tree", count = sp.len()));
    text.push_str(&lines);
    if dups.is_empty() {
        text.push_str(&crate::tr!(l, "architect.taxonomy.no_variants"));
    } else {
        text.push_str(&crate::tr!(l, "architect.taxonomy.variants"));
        text.push_str(&merge_lines(&dups));
    }
    let path = format!("{}/tag-taxonomy.md", ctx.config.folders.meta);
    let mut section = format!("## Proposed taxonomy — {}\n\n{lines}", ctx.today());
    if !dups.is_empty() {
        section.push_str(&format!("\n### Merge\n{}", merge_lines(&dups)));
    }
    if !(create || confirmed(ctx)) {
        let command = crate::shell::crew(&[
            "ask",
            "--agent",
            "architect",
            "--yes",
            "create the tag taxonomy",
        ]);
        text.push_str(&crate::tr!(
            l,
            "architect.taxonomy.plan",
            path = path,
            command = command
        ));
        return Ok(NativeOutput {
            text,
            postit: format!("tag taxonomy {}: {} tags, planned", ctx.today(), sp.len()),
            attention: !dups.is_empty(),
        });
    }
    let heading = format!("## Proposed taxonomy — {}", ctx.today());
    match ctx.gate.read_text(&path) {
        Some(t) if t.contains(&heading) => {}
        Some(t) => {
            let sep = if t.ends_with('\n') { "\n" } else { "\n\n" };
            ctx.gate.append(&path, &format!("{sep}{section}"))?;
        }
        None => {
            ctx.gate.create(
                &path,
                format!(
                    "---\ntype: meta\ntags: [meta]\n---\n# Tag taxonomy\n\nTags are lowercase and hyphenated; nest them with `/`.\n\n{section}"
                )
                .as_bytes(),
            )?;
        }
    }
    common::log_change(
        ctx,
        "architect",
        &format!("wrote the tag taxonomy to {path}"),
    )?;
    text.push_str(&crate::tr!(l, "architect.taxonomy.written", path = path));
    Ok(NativeOutput {
        text,
        postit: format!("tag taxonomy {}: written to {path}", ctx.today()),
        attention: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sp(tags: &[(&str, usize)]) -> Spellings {
        let mut out: Spellings = BTreeMap::new();
        for (t, c) in tags {
            *out.entry(tag_key(t))
                .or_default()
                .entry(t.to_string())
                .or_default() += c;
        }
        out
    }

    #[test]
    fn nested_tags_make_a_tree_with_totals() {
        let t = tree(&sp(&[("food/recipes/pasta", 2), ("food", 1)]));
        assert_eq!(t["food"], Node { own: 1, total: 3 });
        assert_eq!(t["food/recipes"], Node { own: 0, total: 2 });
        assert_eq!(t["food/recipes/pasta"], Node { own: 2, total: 2 });
        let t = tree(&sp(&[("/s", 1), ("client-pdu", 1), ("client/server", 1)]));
        assert_eq!(t["s"], Node { own: 1, total: 1 });
        assert!(!t.contains_key(""));
        assert_eq!(
            tree_lines(&t),
            "- #client (0 / 1)\n  - #client/server (1)\n- #client-pdu (1)\n- #s (1)\n"
        );
    }

    #[test]
    fn case_separator_and_plural_variants_are_near_duplicates() {
        let d = near_duplicates(&sp(&[
            ("Recipe", 1),
            ("recipe", 3),
            ("recipes", 1),
            ("book_club", 1),
            ("book-club", 2),
            ("class", 4),
        ]));
        assert_eq!(d.len(), 2, "{d:?}");
        let (to, forms) = d.iter().find(|(to, _)| to == "recipe").expect("recipe");
        assert_eq!(to, "recipe");
        assert_eq!(forms.len(), 3);
        assert!(d.iter().any(|(to, _)| to == "book-club"));
    }
}
