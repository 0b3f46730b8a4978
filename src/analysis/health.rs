//! The health audit: every mechanical check over a vault, as data.
//!
//! Thresholds (documented in docs/agents.md):
//! - verdict **critical**: broken links ≥ 10 % of all links, or frontmatter errors ≥ 5 % of notes,
//!   or orphans ≥ 20 % of notes;
//! - **needs attention**: any broken link, any duplicate name, more than 10 inbox notes, inbox
//!   notes older than 48 hours, orphans ≥ 10 %, or notes without frontmatter ≥ 10 %;
//! - otherwise **healthy**.
//!
//! Health score (0–100) of the audit, a weighted mean of six parts each clamped to 0–100:
//! links 30 % (100 − 10·broken %), frontmatter 25 % (% notes carrying what their kind expects:
//! crew's type/date/tags/status in a vault crew laid out, else the vault's own schema, see
//! [`crate::analysis::schema`]), orphans 20 % (100 − 5·orphan %), duplicates 10 % (100 −
//! 20·groups), inbox 10 % (100 − 10·notes older than 48 h), naming 5 % (% dated notes following
//! crew's convention; checked only in a vault crew laid out).
//!
//! "Notes without frontmatter" counts only notes whose kind expects frontmatter.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use chrono::NaiveDate;
use rayon::prelude::*;
use serde::Serialize;

use crate::analysis::link_fix::{FixIndex, SafeFix};
use crate::analysis::notes::{self as common, fold};
use crate::analysis::schema::Schema;
use crate::crew::Folders;
use crate::vault::hash::{FNV_OFFSET, fingerprint, fnv1a};
use crate::vault::{Frontmatter, Note, NoteSource, Resolution, Vault};

/// MinHash sketch size for near-duplicate candidates.
const SKETCH: usize = 10;

/// A line in this many notes or more is boilerplate (a template's or a folder's stock lines).
const BOILERPLATE_NOTES: u32 = 3;

/// A broken link and the note it most likely meant.
#[derive(Debug, Clone, Serialize)]
pub struct BrokenLink {
    pub source: String,
    pub target: String,
    pub embed: bool,
    /// Written as a Markdown link (`[text](path.md)`), not a wikilink.
    pub markdown: bool,
    /// Notes whose name matches once case, accents, spaces and punctuation are ignored: what
    /// the report proposes when there is no safe fix.
    pub likely: Vec<String>,
    /// The fix `crew maintain --fix` applies unasked ([`crate::analysis::link_fix`]): only
    /// case, accents or Unicode form differ, or the target is one of the note's aliases.
    pub fix: Option<SafeFix>,
}

impl Audit {
    /// The broken links `crew maintain --fix` repairs unasked, one per link written.
    pub fn safe_link_fixes(&self) -> usize {
        self.broken.iter().filter(|b| b.fix.is_some()).count()
    }

    /// The broken links with a proposal and no safe fix: the report's call, never a change.
    pub fn proposed_link_fixes(&self) -> usize {
        self.broken
            .iter()
            .filter(|b| b.fix.is_none() && !b.likely.is_empty())
            .count()
    }
}

/// What the audit found.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Audit {
    pub notes: usize,
    pub links: usize,
    pub inbox: usize,
    pub inbox_old: Vec<String>,
    pub broken: Vec<BrokenLink>,
    pub ambiguous: Vec<(String, String)>,
    pub without_frontmatter: Vec<String>,
    pub frontmatter_errors: Vec<(String, String)>,
    pub missing_keys: Vec<(String, Vec<String>)>,
    pub bad_dates: Vec<(String, String)>,
    pub bad_tags: Vec<(String, String)>,
    pub status_mismatch: Vec<(String, String)>,
    pub orphans: Vec<String>,
    pub duplicate_names: Vec<(String, Vec<String>)>,
    pub identical: Vec<Vec<String>>,
    pub near_duplicates: Vec<(String, String, u32)>,
    pub naming_checked: usize,
    pub naming_bad: Vec<String>,
    pub stale: Vec<(String, i64, bool)>,
    /// Notes that are templates: in the templates folder, or holding template syntax. Their
    /// placeholder links are not faults, and no fix edits them.
    #[serde(skip)]
    pub templates: BTreeSet<String>,
}

/// The verdict of the quick health check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Verdict {
    #[serde(rename = "healthy")]
    Healthy,
    #[serde(rename = "needs attention")]
    NeedsAttention,
    #[serde(rename = "critical")]
    Critical,
}

impl Verdict {
    pub fn label(self) -> &'static str {
        match self {
            Verdict::Healthy => "healthy",
            Verdict::NeedsAttention => "needs attention",
            Verdict::Critical => "critical",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.label())
    }
}

/// Notes the frontmatter, naming and duplicate checks leave alone: crew's meta notes,
/// templates, maps of content and area indexes.
pub(crate) fn exempt(path: &str, f: &Folders) -> bool {
    [&f.meta, &f.templates, &f.moc]
        .iter()
        .any(|d| path.starts_with(&format!("{d}/")))
        || path.ends_with("/_index.md")
        || path == "_index.md"
}

/// Runs every mechanical check over the vault. crew's own notes (reports, post-its, the
/// agent log) are not part of it: they are left out of every figure.
pub fn audit(
    vault: &Vault,
    source: &dyn NoteSource,
    f: &Folders,
    schema: &Schema,
    today: NaiveDate,
) -> Audit {
    let owned: Vec<bool> = vault.notes.iter().map(|n| f.crew_owned(&n.path)).collect();
    let mut a = Audit {
        notes: owned.iter().filter(|o| !**o).count(),
        ..Audit::default()
    };
    let names = NameIndex::of(vault, &owned);
    let fixes = FixIndex::of(vault, &owned);
    let (linked, incoming) = link_degrees(vault, &owned);
    let boilerplate = boilerplate_lines(vault, source, f, &owned, &mut a.templates);
    let mut bodies = body_prints(vault, source, f, &owned, &a.templates, &boilerplate).into_iter();
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut by_content: HashMap<String, Vec<String>> = HashMap::new();
    let mut shingle_sets: Vec<(String, Vec<u64>)> = Vec::new();
    for (i, n) in vault.notes.iter().enumerate() {
        let body = bodies.next().flatten();
        if owned[i] {
            continue;
        }
        check_links(&mut a, vault, i, &names, &fixes);
        check_inbox(&mut a, n, f, today);
        by_name
            .entry(n.name().to_lowercase())
            .or_default()
            .push(n.path.clone());
        if exempt(&n.path, f) {
            continue;
        }
        check_frontmatter(&mut a, n, f, schema);
        if !linked[i] {
            a.orphans.push(n.path.clone());
        }
        if schema.crew_naming() {
            check_naming(&mut a, n, f);
        }
        if !n.path.starts_with(&format!("{}/", f.archive))
            && let Some(d) = common::last_touched(n)
        {
            let age = (today - d).num_days();
            if age >= 30 {
                a.stale.push((n.path.clone(), age, incoming[i] > 0));
            }
        }
        if let Some((print, sh)) = body {
            by_content.entry(print).or_default().push(n.path.clone());
            if sh.len() >= 8 {
                shingle_sets.push((n.path.clone(), sh));
            }
        }
    }
    a.duplicate_names = duplicate_names(by_name);
    let mut identical: Vec<Vec<String>> =
        by_content.into_values().filter(|v| v.len() > 1).collect();
    identical.sort();
    a.near_duplicates = near_duplicates(&shingle_sets, &identical);
    a.identical = identical;
    a.stale.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    a
}

/// Note paths by folded name: where a broken link most likely meant to go.
struct NameIndex<'a>(HashMap<String, Vec<&'a str>>);

impl<'a> NameIndex<'a> {
    fn of(vault: &'a Vault, owned: &[bool]) -> NameIndex<'a> {
        let mut m: HashMap<String, Vec<&str>> = HashMap::new();
        for (n, _) in vault.notes.iter().zip(owned).filter(|(_, o)| !**o) {
            m.entry(fold(n.name())).or_default().push(&n.path);
        }
        NameIndex(m)
    }

    /// The notes a broken link may have meant: by name, loosely folded, else by alias.
    fn likely(&self, target: &str, fixes: &FixIndex) -> Vec<String> {
        let leaf = target.rsplit('/').next().unwrap_or(target);
        let leaf = leaf.strip_suffix(".md").unwrap_or(leaf);
        match self.0.get(&fold(leaf)) {
            Some(v) => v.iter().map(|s| s.to_string()).collect(),
            None => fixes.alias_notes(target),
        }
    }
}

/// The edges Markdown links make (`[text](other%20note.md)`, relative paths resolved as
/// Obsidian does): a vault written in them is as linked as one written in wikilinks.
fn markdown_edges(vault: &Vault) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = vault
        .notes
        .par_iter()
        .enumerate()
        .flat_map_iter(|(s, n)| {
            n.markdown_links.iter().filter_map(move |l| {
                let id = vault.files.resolve(&n.path, &l.target).file()?;
                vault.note_of_file(id).map(|d| (s, d))
            })
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// For each note: whether any link touches it, and how many notes link to it (crew's own
/// notes left out). Wikilinks, embeds and Markdown links that reach a note all count.
fn link_degrees(vault: &Vault, owned: &[bool]) -> (Vec<bool>, Vec<usize>) {
    let mut linked = vec![false; vault.notes.len()];
    let mut incoming = vec![0usize; vault.notes.len()];
    let mut edges = vault.edges();
    edges.extend(markdown_edges(vault));
    edges.sort_unstable();
    edges.dedup();
    for &(s, d) in edges.iter().filter(|(s, d)| !owned[*s] && !owned[*d]) {
        linked[s] = true;
        linked[d] = true;
        if s != d {
            incoming[d] += 1;
        }
    }
    (linked, incoming)
}

/// The hash of a body line as boilerplate detection compares it: trimmed, blank lines none.
fn line_hash(line: &str) -> Option<u64> {
    let t = line.trim();
    (!t.is_empty()).then(|| fnv1a(FNV_OFFSET, t.as_bytes()))
}

/// First read (the vault keeps no text): which notes are templates (into `templates`), and
/// the body lines stamped by a template or repeated across notes, so they do not make notes
/// look alike.
fn boilerplate_lines(
    vault: &Vault,
    source: &dyn NoteSource,
    f: &Folders,
    owned: &[bool],
    templates: &mut BTreeSet<String>,
) -> HashSet<u64> {
    let scans: Vec<Option<(bool, Vec<u64>)>> = vault
        .notes
        .par_iter()
        .zip(owned)
        .map(|(n, o)| {
            if *o {
                return None;
            }
            let (text, body_start) = common::reread(source, n)?;
            let template =
                f.in_templates(&n.path) || crate::crew::config::holds_template_syntax(&text);
            let mut lines: Vec<u64> = text[body_start..].lines().filter_map(line_hash).collect();
            lines.sort_unstable();
            lines.dedup();
            Some((template, lines))
        })
        .collect();
    let mut line_notes: HashMap<u64, u32> = HashMap::new();
    let mut boilerplate: HashSet<u64> = HashSet::new();
    for (n, scan) in vault.notes.iter().zip(&scans) {
        let Some((template, lines)) = scan else {
            continue;
        };
        if *template {
            templates.insert(n.path.clone());
            boilerplate.extend(lines.iter().copied());
        }
        for h in lines {
            *line_notes.entry(*h).or_default() += 1;
        }
    }
    boilerplate.extend(
        line_notes
            .into_iter()
            .filter(|(_, c)| *c >= BOILERPLATE_NOTES)
            .map(|(h, _)| h),
    );
    boilerplate
}

/// Second read: each note's content fingerprint and shingles, of what is the note's own
/// (boilerplate lines left out; bodies under 40 bytes are not compared).
fn body_prints(
    vault: &Vault,
    source: &dyn NoteSource,
    f: &Folders,
    owned: &[bool],
    templates: &BTreeSet<String>,
    boilerplate: &HashSet<u64>,
) -> Vec<Option<(String, Vec<u64>)>> {
    vault
        .notes
        .par_iter()
        .zip(owned)
        .map(|(n, o)| {
            if *o || exempt(&n.path, f) || templates.contains(&n.path) {
                return None;
            }
            let (text, body_start) = common::reread(source, n)?;
            let own: Vec<&str> = text[body_start..]
                .lines()
                .filter(|l| line_hash(l).is_some_and(|h| !boilerplate.contains(&h)))
                .collect();
            let own = own.join("\n");
            let body = own.trim();
            (body.len() >= 40).then(|| (fingerprint(body.as_bytes()), shingles(body)))
        })
        .collect()
}

/// Broken links (outside templates, with their likely target) and ambiguous bare names.
fn check_links(a: &mut Audit, vault: &Vault, i: usize, names: &NameIndex, fixes: &FixIndex) {
    let n = &vault.notes[i];
    let template = a.templates.contains(&n.path);
    for (link, r) in n.wikilinks.iter().zip(&vault.resolved[i]) {
        a.links += 1;
        match r {
            Resolution::Unresolved if !template => a.broken.push(BrokenLink {
                source: n.path.clone(),
                target: link.target.clone(),
                embed: link.embed,
                markdown: false,
                likely: names.likely(&link.target, fixes),
                fix: fixes.safe_fix(&link.target, link.embed),
            }),
            Resolution::File {
                ambiguous: true, ..
            } if !link.target.contains('/') => {
                a.ambiguous.push((n.path.clone(), link.target.clone()));
            }
            _ => {}
        }
    }
    // a vault written in Markdown links is judged by them too: counted, and a broken one
    // reported with the note its file name names; the nightly fix rewrites wikilinks only, so
    // these are proposals, never a change
    for l in &n.markdown_links {
        a.links += 1;
        if !template && vault.files.resolve(&n.path, &l.target).file().is_none() {
            let leaf = l.target.rsplit('/').next().unwrap_or(&l.target);
            let name = leaf.strip_suffix(".md").unwrap_or(leaf);
            a.broken.push(BrokenLink {
                source: n.path.clone(),
                target: l.target.clone(),
                embed: l.embed,
                markdown: true,
                likely: names.likely(name, fixes),
                fix: None,
            });
        }
    }
}

/// Notes in the inbox (its own folder note aside), and those waiting 48 hours or more.
fn check_inbox(a: &mut Audit, n: &Note, f: &Folders, today: NaiveDate) {
    if n.path.starts_with(&format!("{}/", f.inbox))
        && n.folder() == f.inbox
        && !crate::vault::folder_note::is_inside_folder_note(&n.path)
    {
        a.inbox += 1;
        if common::last_touched(n).is_some_and(|d| (today - d).num_days() >= 2) {
            a.inbox_old.push(n.path.clone());
        }
    }
}

/// Frontmatter: absent where expected, invalid, missing expected keys, dates, tag formats,
/// status.
fn check_frontmatter(a: &mut Audit, n: &Note, f: &Folders, schema: &Schema) {
    match &n.frontmatter {
        Frontmatter::Absent => {
            if schema.expects_frontmatter(n) {
                a.without_frontmatter.push(n.path.clone());
            }
        }
        Frontmatter::Invalid { line, message } => a
            .frontmatter_errors
            .push((n.path.clone(), format!("line {line}: {message}"))),
        Frontmatter::Parsed => {
            let missing = schema.missing_keys(n);
            if !missing.is_empty() {
                a.missing_keys.push((n.path.clone(), missing));
            }
            if let Some(d) = n.property_str("date")
                && (common::parse_date(&d).is_none() || d.trim().len() > 10 && !d.contains('T'))
            {
                a.bad_dates.push((n.path.clone(), d));
            }
            for t in n.frontmatter_tag_list() {
                if t != t.to_lowercase() || t.contains(' ') || t.contains('_') {
                    a.bad_tags.push((n.path.clone(), t));
                }
            }
            if n.property_str("status")
                .is_some_and(|s| s.eq_ignore_ascii_case("inbox"))
                && n.folder() != f.inbox
            {
                a.status_mismatch
                    .push((n.path.clone(), "status: inbox outside the inbox".into()));
            }
        }
    }
}

/// The naming convention, checked on dated notes in the inbox, projects, areas and resources.
fn check_naming(a: &mut Audit, n: &Note, f: &Folders) {
    let filed_area = [&f.inbox, &f.projects, &f.areas, &f.resources]
        .iter()
        .any(|d| n.path.starts_with(&format!("{d}/")));
    if filed_area
        && n.name()
            .get(..4)
            .is_some_and(|y| y.chars().all(|c| c.is_ascii_digit()))
    {
        a.naming_checked += 1;
        if !common::follows_convention(n.name()) {
            a.naming_bad.push(n.path.clone());
        }
    }
}

/// Names shared by notes in different folders.
fn duplicate_names(by_name: BTreeMap<String, Vec<String>>) -> Vec<(String, Vec<String>)> {
    by_name
        .into_iter()
        .filter(|(_, v)| {
            let folders: BTreeSet<&str> = v
                .iter()
                .map(|p| p.rsplit_once('/').map_or("", |(d, _)| d))
                .collect();
            folders.len() > 1
        })
        .collect()
}

/// The hashes of a text's word 3-shingles (the FNV-1a of `"w1 w2 w3"`), sorted, no repeats.
fn shingles(text: &str) -> Vec<u64> {
    let normal = crate::text::normalize(text);
    let ws: Vec<&str> = crate::text::words(&normal).collect();
    let mut out: Vec<u64> = ws
        .windows(3)
        .map(|w| {
            let h = fnv1a(FNV_OFFSET, w[0].as_bytes());
            let h = fnv1a(fnv1a(h, b" "), w[1].as_bytes());
            fnv1a(fnv1a(h, b" "), w[2].as_bytes())
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// How many values two sorted, repeat-free lists share.
fn shared_count(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// Near-duplicates: Jaccard similarity of word 3-shingles ≥ 70 %. Candidate pairs come from
/// bottom-10 MinHash sketches: two notes are compared exactly only when their sketches share
/// at least two values. A pair that similar shares fewer with a probability of about
/// 0.3^11 + 11 · 0.7 · 0.3^10 < 0.005 %; a value in more than 200 sketches (a stock phrase)
/// proposes no pairs. Pairs already in one `identical` group are not repeated.
fn near_duplicates(
    shingle_sets: &[(String, Vec<u64>)],
    identical: &[Vec<String>],
) -> Vec<(String, String, u32)> {
    let identical_set: BTreeSet<&String> = identical.iter().flatten().collect();
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, (_, set)) in shingle_sets.iter().enumerate() {
        for h in set.iter().take(SKETCH) {
            buckets.entry(*h).or_default().push(i);
        }
    }
    (0..shingle_sets.len())
        .into_par_iter()
        .flat_map_iter(|i| {
            let (pa, sa) = &shingle_sets[i];
            let identical_set = &identical_set;
            sketch_partners(&buckets, sa, i)
                .into_iter()
                .filter_map(move |j| {
                    let (pb, sb) = &shingle_sets[j];
                    if identical_set.contains(pa) && identical_set.contains(pb) {
                        return None;
                    }
                    jaccard_percent(sa, sb)
                        .filter(|sim| *sim >= 70)
                        .map(|sim| (pa.clone(), pb.clone(), sim))
                })
        })
        .collect()
}

/// Later notes whose sketch shares at least two values with note `i`'s.
fn sketch_partners(buckets: &HashMap<u64, Vec<usize>>, set: &[u64], i: usize) -> Vec<usize> {
    let mut partners: Vec<usize> = set
        .iter()
        .take(SKETCH)
        .filter_map(|h| buckets.get(h))
        .filter(|members| members.len() <= 200)
        .flatten()
        .copied()
        .filter(|&j| j > i)
        .collect();
    partners.sort_unstable();
    let mut twice: Vec<usize> = partners
        .windows(2)
        .filter(|w| w[0] == w[1])
        .map(|w| w[0])
        .collect();
    twice.dedup();
    twice
}

/// The Jaccard similarity in percent; `None` when the sizes alone rule out 70 %.
fn jaccard_percent(a: &[u64], b: &[u64]) -> Option<u32> {
    let (small, big) = if a.len() < b.len() { (a, b) } else { (b, a) };
    if (small.len() as f64) < 0.7 * big.len() as f64 {
        return None;
    }
    let inter = shared_count(a, b);
    let union = a.len() + b.len() - inter;
    Some((inter * 100 / union.max(1)) as u32)
}

/// `part` as a percentage of `whole` (0 when `whole` is 0).
pub fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The verdict of the quick health check (thresholds in the module docs).
pub fn verdict(a: &Audit) -> Verdict {
    let broken = pct(a.broken.len(), a.links);
    let fm_err = pct(a.frontmatter_errors.len(), a.notes);
    let orphans = pct(a.orphans.len(), a.notes);
    if broken >= 10.0 || fm_err >= 5.0 || orphans >= 20.0 {
        Verdict::Critical
    } else if !a.broken.is_empty()
        || !a.duplicate_names.is_empty()
        || a.inbox > 10
        || !a.inbox_old.is_empty()
        || orphans >= 10.0
        || pct(a.without_frontmatter.len(), a.notes) >= 10.0
    {
        Verdict::NeedsAttention
    } else {
        Verdict::Healthy
    }
}

/// The audit's health score, 0–100 (weights in the module docs).
pub fn health_score(a: &Audit) -> u32 {
    let clamp = |x: f64| x.clamp(0.0, 100.0);
    let checked = a.notes.max(1);
    let complete = a.notes.saturating_sub(
        a.missing_keys.len() + a.without_frontmatter.len() + a.frontmatter_errors.len(),
    );
    let parts = [
        (30.0, clamp(100.0 - 10.0 * pct(a.broken.len(), a.links))),
        (25.0, clamp(pct(complete, checked))),
        (20.0, clamp(100.0 - 5.0 * pct(a.orphans.len(), a.notes))),
        (10.0, clamp(100.0 - 20.0 * a.duplicate_names.len() as f64)),
        (10.0, clamp(100.0 - 10.0 * a.inbox_old.len() as f64)),
        (
            5.0,
            if a.naming_checked == 0 {
                100.0
            } else {
                clamp(100.0 - pct(a.naming_bad.len(), a.naming_checked))
            },
        ),
    ];
    (parts.iter().map(|(w, v)| w * v).sum::<f64>() / 100.0).round() as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_of_sorted_sets() {
        assert_eq!(shared_count(&[1, 2, 3, 5], &[2, 3, 4, 5]), 3);
        assert_eq!(jaccard_percent(&[1, 2, 3, 4], &[1, 2, 3, 4]), Some(100));
        assert_eq!(jaccard_percent(&[1, 2, 3, 4], &[1, 2, 3, 5]), Some(60));
        assert_eq!(jaccard_percent(&[1], &[1, 2, 3, 4]), None);
    }

    #[test]
    fn verdicts_follow_the_thresholds() {
        let mut a = Audit {
            notes: 100,
            links: 100,
            ..Audit::default()
        };
        assert_eq!(verdict(&a), Verdict::Healthy);
        a.orphans = (0..10).map(|i| format!("{i}.md")).collect();
        assert_eq!(verdict(&a), Verdict::NeedsAttention);
        a.orphans = (0..20).map(|i| format!("{i}.md")).collect();
        assert_eq!(verdict(&a), Verdict::Critical);
        assert_eq!(Verdict::NeedsAttention.to_string(), "needs attention");
        assert_eq!(
            serde_json::to_value(Verdict::NeedsAttention).ok(),
            Some(serde_json::json!("needs attention"))
        );
    }

    use crate::vault::Vault;

    /// The sketches find every pair an all-pairs comparison finds, and nothing else.
    #[test]
    fn near_duplicates_match_an_all_pairs_comparison() {
        let dir = tempfile::tempdir().expect("tmp");
        crew_synth::generate(dir.path(), 300, 5, 5).expect("generate");
        let words: Vec<String> = (0..400)
            .map(|i| format!("w{}x{}", i * 7919 % 1000, i))
            .collect();
        // 12 notes with bodies of their own, each copied with 0..6 of 100 words changed
        for k in 0..12 {
            let body: Vec<&str> = (0..100)
                .map(|i| words[(k * 31 + i * 3) % 400].as_str())
                .collect();
            std::fs::write(
                dir.path().join(format!("03-Resources/Orig {k}.md")),
                body.join(" "),
            )
            .expect("orig");
            let mut copy = body.clone();
            for c in 0..k / 2 {
                copy[c * 17 % 100] = "changed";
            }
            std::fs::write(
                dir.path().join(format!("03-Resources/Copy {k}.md")),
                copy.join(" "),
            )
            .expect("copy");
        }
        let vault = Vault::open(dir.path()).expect("open");
        let f = Folders::default();
        let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 30).expect("date");
        let a = audit(&vault, &vault, &f, &Schema::Crew, today);
        let sets: Vec<(String, Vec<u64>)> = vault
            .notes
            .iter()
            .filter(|n| !exempt(&n.path, &f))
            .filter_map(|n| {
                let text = std::fs::read_to_string(vault.root.join(&n.path)).ok()?;
                let start = n.frontmatter_block.as_ref().map_or(0, |b| b.block.end);
                let body = text[start..].trim();
                let sh = shingles(body);
                (body.len() >= 40 && sh.len() >= 8).then(|| (n.path.clone(), sh))
            })
            .collect();
        let mut expected = Vec::new();
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                let inter = shared_count(&sets[i].1, &sets[j].1);
                let union = sets[i].1.len() + sets[j].1.len() - inter;
                let sim = (inter * 100 / union.max(1)) as u32;
                let identical = inter == sets[i].1.len() && inter == sets[j].1.len();
                if sim >= 70 && !identical {
                    expected.push((sets[i].0.clone(), sets[j].0.clone(), sim));
                }
            }
        }
        assert!(
            expected.len() >= 10,
            "the test vault should hold near-duplicates: {expected:?}"
        );
        assert_eq!(a.near_duplicates, expected);
    }
}
