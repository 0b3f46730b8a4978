//! The tag garden's merges, decided: one tag written several ways (`#MOC`, `#moc`;
//! `#project_management`, `#Project-Management`) becomes its most-used spelling.
//!
//! Two spellings are one tag when they differ only in case and separators (`-`, `_`, spaces),
//! segment by segment: the letters and digits, their order and the nesting (`/`) must be the
//! same, so a merge never changes a word and never moves a tag in the hierarchy. Spellings that
//! differ in letters (`#project`, `#projects`) are listed for the user to judge, never merged.
//! Pure: the vault's tag counts in, the merges out.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::tags::canonical_tag;
use crate::agents::common::fold;

/// One spelling of a tag and the number of notes that use it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Variant {
    pub tag: String,
    pub notes: usize,
}

/// Spellings of one tag and the one they become.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Merge {
    /// The spelling kept.
    pub into: String,
    /// The spellings that change, most used first.
    pub from: Vec<Variant>,
}

/// What makes two spellings one tag: each `/` segment lower-cased, without `-`, `_` and spaces.
pub(crate) fn merge_key(tag: &str) -> String {
    tag.split('/')
        .map(|segment| {
            segment
                .chars()
                .filter(|c| *c != '-' && *c != '_' && !c.is_whitespace())
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Whether a spelling can be written inline as `#spelling` (no space, no punctuation but
/// `-`, `_`, `/`, not all digits).
fn writable_inline(tag: &str) -> bool {
    !tag.is_empty()
        && tag.chars().all(|c| {
            !(c.is_whitespace() || (c.is_ascii_punctuation() && !matches!(c, '-' | '_' | '/')))
        })
        && !tag.chars().all(|c| c.is_ascii_digit())
}

/// The spelling a group becomes: the one used by the most notes; on a tie the one already in
/// the vault's lowercase-hyphen form, then the first in sort order. A spelling that cannot be
/// written inline is never chosen; when none can, the group's canonical form is.
fn choose(variants: &[Variant]) -> String {
    let best = variants
        .iter()
        .filter(|v| writable_inline(&v.tag))
        .max_by(|a, b| {
            a.notes
                .cmp(&b.notes)
                .then((canonical_tag(&a.tag) == a.tag).cmp(&(canonical_tag(&b.tag) == b.tag)))
                .then(b.tag.cmp(&a.tag))
        });
    match best {
        Some(v) => v.tag.clone(),
        None => variants
            .iter()
            .max_by(|a, b| a.notes.cmp(&b.notes).then(b.tag.cmp(&a.tag)))
            .map(|v| canonical_tag(&v.tag))
            .unwrap_or_default(),
    }
}

/// The merges for a vault whose spellings are used by `uses` notes each (spelling as written →
/// notes). Groups of one spelling need no merge.
pub(crate) fn plan_merges(uses: &BTreeMap<String, usize>) -> Vec<Merge> {
    let mut groups: BTreeMap<String, Vec<Variant>> = BTreeMap::new();
    for (tag, notes) in uses {
        groups.entry(merge_key(tag)).or_default().push(Variant {
            tag: tag.clone(),
            notes: *notes,
        });
    }
    let mut merges = Vec::new();
    for (key, variants) in groups {
        if variants.len() < 2 {
            continue;
        }
        let into = choose(&variants);
        // never a change of letters, whatever was chosen
        if merge_key(&into) != key {
            continue;
        }
        let mut from: Vec<Variant> = variants.into_iter().filter(|v| v.tag != into).collect();
        from.sort_by(|a, b| b.notes.cmp(&a.notes).then(a.tag.cmp(&b.tag)));
        merges.push(Merge { into, from });
    }
    merges
}

/// Spelling → the spelling it becomes, for every merge.
pub fn renames(merges: &[Merge]) -> HashMap<String, String> {
    merges
        .iter()
        .flat_map(|m| m.from.iter().map(|v| (v.tag.clone(), m.into.clone())))
        .collect()
}

/// Pairs of tags that may be one tag but differ in letters — singular and plural, or one typo
/// apart — for the user to judge: (the less used, the more used). Tags holding digits are
/// left out (`#cve-2019-1181` and `#cve-2019-1182` are two things).
pub(crate) fn look_alikes(counts: &BTreeMap<String, usize>) -> Vec<(String, String)> {
    let keys: Vec<(&String, String)> = counts
        .keys()
        .filter(|t| !t.chars().any(|c| c.is_numeric()))
        .map(|t| (t, fold(&merge_key(t))))
        .collect();
    let mut out = Vec::new();
    for (i, (a, fa)) in keys.iter().enumerate() {
        for (b, fb) in &keys[i + 1..] {
            if fa == fb || merge_key(a) == merge_key(b) {
                continue;
            }
            let plural = fa.len() >= 4
                && fb.len() >= 4
                && fa.trim_end_matches('s') == fb.trim_end_matches('s');
            let typo = fa.chars().count() >= 5
                && fb.chars().count() >= 5
                && crate::analysis::text::edit_distance_at_most_one(fa, fb);
            if plural || typo {
                let (less, more) = if counts[*a] >= counts[*b] {
                    (b, a)
                } else {
                    (a, b)
                };
                out.push(((*less).clone(), (*more).clone()));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn uses(list: &[(&str, usize)]) -> BTreeMap<String, usize> {
        list.iter().map(|(t, n)| (t.to_string(), *n)).collect()
    }

    #[test]
    fn case_and_separator_variants_become_the_most_used() {
        let merges = plan_merges(&uses(&[
            ("MOC", 59),
            ("moc", 3),
            ("Moc", 1),
            ("OB_Template", 2),
            ("ob-template", 1),
            ("Nested Folder", 4),
            ("nested-folder", 1),
            ("area/Health", 1),
            ("area/health", 1),
            ("area-health", 5),
            ("project", 3),
            ("projects", 9),
        ]));
        let got: Vec<(String, Vec<String>)> = merges
            .iter()
            .map(|m| {
                (
                    m.into.clone(),
                    m.from.iter().map(|v| v.tag.clone()).collect(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                // a tie goes to the lowercase-hyphen spelling; nesting is kept apart
                ("area/health".into(), vec!["area/Health".into()]),
                ("MOC".into(), vec!["moc".into(), "Moc".into()]),
                // a spelling with a space cannot be written inline
                ("nested-folder".into(), vec!["Nested Folder".into()]),
                ("OB_Template".into(), vec!["ob-template".into()]),
            ]
        );
        let map = renames(&merges);
        assert_eq!(map.get("Moc").map(String::as_str), Some("MOC"));
        assert!(!map.contains_key("project") && !map.contains_key("projects"));
    }

    #[test]
    fn only_spaced_spellings_get_the_canonical_form() {
        let merges = plan_merges(&uses(&[("Big Idea", 2), ("big idea", 1)]));
        assert_eq!(merges[0].into, "big-idea");
        assert_eq!(merges[0].from.len(), 2);
    }

    #[test]
    fn look_alikes_differ_in_letters_and_hold_no_digits() {
        let counts = uses(&[
            ("project", 3),
            ("projects", 9),
            ("cve-2019-1181", 1),
            ("cve-2019-1182", 1),
            ("ieee-802/3", 1),
            ("ieee-802/3u", 1),
            ("moc", 2),
        ]);
        assert_eq!(
            look_alikes(&counts),
            vec![("project".to_string(), "projects".to_string())]
        );
    }

    #[test]
    fn merge_keys_keep_letters_and_nesting() {
        assert_eq!(merge_key("Area/Health_Care"), "area/healthcare");
        assert_ne!(merge_key("a/b"), merge_key("a-b"));
        assert_ne!(merge_key("café"), merge_key("cafe"));
    }
}
