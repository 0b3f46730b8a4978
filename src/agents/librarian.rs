//! The librarian and its skills: quick health check, vault audit with a health report, deep
//! clean and tag garden.
//!
//! Thresholds (documented in the README):
//! - verdict **critical**: broken links ≥ 10 % of all links, or frontmatter errors ≥ 5 % of notes,
//!   or orphans ≥ 20 % of notes;
//! - **needs attention**: any broken link, any duplicate name, more than 10 inbox notes, inbox
//!   notes older than 48 hours, orphans ≥ 10 %, or notes without frontmatter ≥ 10 %;
//! - otherwise **healthy**.
//!
//! Health score (0–100) of the audit, a weighted mean of six parts each clamped to 0–100:
//! links 30 % (100 − 10·broken %), frontmatter 25 % (% notes with type/date/tags/status),
//! orphans 20 % (100 − 5·orphan %), duplicates 10 % (100 − 20·groups), inbox 10 % (100 − 10·notes
//! older than 48 h), naming 5 % (% dated notes following the convention).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use serde::Serialize;

use super::common::{self, fold, suggestion};
use super::fixes::{self, Fix, Held};
use super::{Ctx, NativeOutput};
use crate::crew::Folders;
use crate::gate::GateError;
use crate::vault::{Frontmatter, Resolution, Vault};

pub const REQUIRED_KEYS: &[&str] = &["type", "date", "tags", "status"];

/// MinHash sketch size for near-duplicate candidates.
const SKETCH: usize = 10;

/// A broken link and the note it most likely meant.
#[derive(Debug, Clone, Serialize)]
pub struct BrokenLink {
    pub source: String,
    pub target: String,
    pub embed: bool,
    /// Candidates whose name matches ignoring case and accents (a safe fix when exactly one).
    pub likely: Vec<String>,
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

fn exempt(path: &str, f: &Folders) -> bool {
    [&f.meta, &f.templates, &f.moc]
        .iter()
        .any(|d| path.starts_with(&format!("{d}/")))
        || path.ends_with("/_index.md")
        || path == "_index.md"
}

/// The hashes of a text's word 3-shingles (the FNV-1a of `"w1 w2 w3"`), sorted, no repeats.
fn shingles(text: &str) -> Vec<u64> {
    use crate::vault::hash::{FNV_OFFSET, fnv1a};
    let normal = crate::dispatch::normalize::normalize(text);
    let ws: Vec<&str> = crate::dispatch::normalize::words(&normal).collect();
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

/// The hash of a body line as boilerplate detection compares it: trimmed, blank lines none.
fn line_hash(line: &str) -> Option<u64> {
    use crate::vault::hash::{FNV_OFFSET, fnv1a};
    let t = line.trim();
    (!t.is_empty()).then(|| fnv1a(FNV_OFFSET, t.as_bytes()))
}

/// A body without its boilerplate lines.
fn without_boilerplate(body: &str, boilerplate: &HashSet<u64>) -> String {
    body.lines()
        .filter(|l| line_hash(l).is_some_and(|h| !boilerplate.contains(&h)))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line in this many notes or more is boilerplate (a template's or a folder's stock lines).
const BOILERPLATE_NOTES: u32 = 3;

/// Runs every mechanical check over the vault. crew's own notes (reports, post-its, the
/// agent log) are not part of it: they are left out of every figure.
pub fn audit(
    vault: &Vault,
    source: &dyn crate::vault::NoteSource,
    f: &Folders,
    today: chrono::NaiveDate,
) -> Audit {
    use rayon::prelude::*;
    let owned: Vec<bool> = vault.notes.iter().map(|n| f.crew_owned(&n.path)).collect();
    let mut a = Audit {
        notes: owned.iter().filter(|o| !**o).count(),
        ..Audit::default()
    };
    let name_index: HashMap<String, Vec<&str>> =
        vault.notes.iter().zip(&owned).filter(|(_, o)| !**o).fold(
            HashMap::new(),
            |mut m, (n, _)| {
                m.entry(fold(n.name()))
                    .or_insert_with(Vec::new)
                    .push(&n.path);
                m
            },
        );
    let edges = vault.edges();
    let mut linked = vec![false; vault.notes.len()];
    let mut incoming = vec![0usize; vault.notes.len()];
    for &(s, d) in edges.iter().filter(|(s, d)| !owned[*s] && !owned[*d]) {
        linked[s] = true;
        linked[d] = true;
        if s != d {
            incoming[d] += 1;
        }
    }
    // first read (the vault keeps no text): which notes are templates, and each note's
    // distinct body lines, so lines stamped by a template or repeated across a folder do not
    // make notes look alike
    let scans: Vec<Option<(bool, Vec<u64>)>> = vault
        .notes
        .par_iter()
        .zip(&owned)
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
            a.templates.insert(n.path.clone());
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
    drop(scans);
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut by_content: HashMap<String, Vec<String>> = HashMap::new();
    let mut shingle_sets: Vec<(String, Vec<u64>)> = Vec::new();
    // second read: content fingerprint and shingles of what is the note's own
    let bodies: Vec<Option<(String, Vec<u64>)>> = vault
        .notes
        .par_iter()
        .zip(&owned)
        .map(|(n, o)| {
            if *o || exempt(&n.path, f) || a.templates.contains(&n.path) {
                return None;
            }
            let (text, body_start) = common::reread(source, n)?;
            let own = without_boilerplate(&text[body_start..], &boilerplate);
            let body = own.trim();
            (body.len() >= 40).then(|| {
                (
                    crate::vault::hash::fingerprint(body.as_bytes()),
                    shingles(body),
                )
            })
        })
        .collect();
    let mut bodies = bodies.into_iter();
    for (i, n) in vault.notes.iter().enumerate() {
        let body = bodies.next().flatten();
        if owned[i] {
            continue;
        }
        let templates = a.templates.contains(&n.path);
        for (link, r) in n.wikilinks.iter().zip(&vault.resolved[i]) {
            a.links += 1;
            match r {
                Resolution::Unresolved if !templates => {
                    let leaf = link.target.rsplit('/').next().unwrap_or(&link.target);
                    let leaf = leaf.strip_suffix(".md").unwrap_or(leaf);
                    let likely = name_index
                        .get(&fold(leaf))
                        .map(|v| v.iter().map(|s| s.to_string()).collect())
                        .unwrap_or_default();
                    a.broken.push(BrokenLink {
                        source: n.path.clone(),
                        target: link.target.clone(),
                        embed: link.embed,
                        likely,
                    });
                }
                Resolution::File {
                    ambiguous: true, ..
                } if !link.target.contains('/') => {
                    a.ambiguous.push((n.path.clone(), link.target.clone()));
                }
                _ => {}
            }
        }
        if n.path.starts_with(&format!("{}/", f.inbox))
            && n.folder() == f.inbox
            && !crate::vault::folder_note::is_inside_folder_note(&n.path)
        {
            a.inbox += 1;
            if common::last_touched(n).is_some_and(|d| (today - d).num_days() >= 2) {
                a.inbox_old.push(n.path.clone());
            }
        }
        by_name
            .entry(n.name().to_lowercase())
            .or_default()
            .push(n.path.clone());
        if exempt(&n.path, f) {
            continue;
        }
        match &n.frontmatter {
            Frontmatter::Absent => a.without_frontmatter.push(n.path.clone()),
            Frontmatter::Invalid { line, message } => a
                .frontmatter_errors
                .push((n.path.clone(), format!("line {line}: {message}"))),
            Frontmatter::Parsed => {
                let missing: Vec<String> = REQUIRED_KEYS
                    .iter()
                    .filter(|k| !n.has_property(k))
                    .map(|k| k.to_string())
                    .collect();
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
        if !linked[i] {
            a.orphans.push(n.path.clone());
        }
        // naming: dated notes in the inbox, projects, areas and resources
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
    a.duplicate_names = by_name
        .into_iter()
        .filter(|(_, v)| {
            let folders: BTreeSet<&str> = v
                .iter()
                .map(|p| p.rsplit_once('/').map_or("", |(d, _)| d))
                .collect();
            folders.len() > 1
        })
        .collect();
    let mut identical: Vec<Vec<String>> =
        by_content.into_values().filter(|v| v.len() > 1).collect();
    identical.sort();
    let identical_set: BTreeSet<&String> = identical.iter().flatten().collect();
    // near-duplicates: Jaccard similarity of word 3-shingles ≥ 70 %. Candidate pairs come from
    // bottom-10 MinHash sketches: two notes are compared exactly only when their sketches
    // share at least two values. A pair that similar shares fewer with a probability of about
    // 0.3^11 + 11 · 0.7 · 0.3^10 < 0.005 %; a value in more than 200 sketches (a stock phrase)
    // proposes no pairs.
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
    for (i, (_, set)) in shingle_sets.iter().enumerate() {
        for h in set.iter().take(SKETCH) {
            buckets.entry(*h).or_default().push(i);
        }
    }
    let near: Vec<(String, String, u32)> = {
        (0..shingle_sets.len())
            .into_par_iter()
            .flat_map_iter(|i| {
                let (pa, sa) = &shingle_sets[i];
                let mut partners: Vec<usize> = sa
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
                let identical_set = &identical_set;
                let shingle_sets = &shingle_sets;
                twice.into_iter().filter_map(move |j| {
                    let (pb, sb) = &shingle_sets[j];
                    if identical_set.contains(pa) && identical_set.contains(pb) {
                        return None;
                    }
                    let (small, big) = if sa.len() < sb.len() {
                        (sa, sb)
                    } else {
                        (sb, sa)
                    };
                    if (small.len() as f64) < 0.7 * big.len() as f64 {
                        return None;
                    }
                    let inter = shared_count(sa, sb);
                    let union = sa.len() + sb.len() - inter;
                    let sim = (inter * 100 / union.max(1)) as u32;
                    (sim >= 70).then(|| (pa.clone(), pb.clone(), sim))
                })
            })
            .collect()
    };
    a.near_duplicates.extend(near);
    a.identical = identical;
    a.stale.sort_by(|x, y| y.1.cmp(&x.1).then(x.0.cmp(&y.0)));
    a
}

fn pct(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        part as f64 * 100.0 / whole as f64
    }
}

/// The verdict of the quick health check.
pub fn verdict(a: &Audit) -> &'static str {
    let broken = pct(a.broken.len(), a.links);
    let fm_err = pct(a.frontmatter_errors.len(), a.notes);
    let orphans = pct(a.orphans.len(), a.notes);
    if broken >= 10.0 || fm_err >= 5.0 || orphans >= 20.0 {
        "critical"
    } else if !a.broken.is_empty()
        || !a.duplicate_names.is_empty()
        || a.inbox > 10
        || !a.inbox_old.is_empty()
        || orphans >= 10.0
        || pct(a.without_frontmatter.len(), a.notes) >= 10.0
    {
        "needs attention"
    } else {
        "healthy"
    }
}

/// The audit's health score, 0–100 (weights in the module docs).
pub fn health_score(a: &Audit) -> u32 {
    let clamp = |x: f64| x.clamp(0.0, 100.0);
    let checked = a.notes.saturating_sub(0).max(1);
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
        attention: v != "healthy",
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
    if v == "healthy" {
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
        attention: v != "healthy",
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

#[cfg(test)]
mod tests {
    use super::*;

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
        let a = audit(&vault, &vault, &f, today);
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
