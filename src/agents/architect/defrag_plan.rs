//! What `/defrag` finds: the five phases' audit as data, decided from the vault without
//! writing anything. [`super::defrag`] applies the parts it may; [`super::defrag_report`]
//! renders the rest as proposals.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::NaiveDate;
use serde::Serialize;

use crate::agents::Ctx;
use crate::agents::common::{self, fold};
use crate::agents::librarian::tags::canonical_tag;
use crate::crew::Folders;
use crate::vault::Vault;

/// An area folder without its `_index.md` or its MOC.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AreaGap {
    pub folder: String,
    pub name: String,
    pub no_index: bool,
    pub no_moc: bool,
}

/// Notes of a folder its map does not list yet, each as an unambiguous link target.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct MocAddition {
    pub moc: String,
    pub targets: Vec<String>,
}

/// A note whose `project` or `area` names a home it does not live in.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Misplaced {
    pub path: String,
    pub home: String,
    /// Safe to move unattended: waiting in the inbox for over 48 hours, and the home holds
    /// no note of the same name.
    pub safe: bool,
}

/// One tag written several ways, or in a form other than lowercase-hyphen.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct TagFinding {
    pub canonical: String,
    /// Each spelling with the number of notes using it.
    pub forms: Vec<(String, usize)>,
}

/// Everything the five phases found.
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct DefragPlan {
    pub stale_inbox: Vec<String>,
    pub area_gaps: Vec<AreaGap>,
    pub index_missing: Vec<String>,
    pub orphan_mocs: Vec<String>,
    pub moc_additions: Vec<MocAddition>,
    /// `(map, target)`: links in a map to notes that no longer exist.
    pub moc_dead_links: Vec<(String, String)>,
    pub misplaced: Vec<Misplaced>,
    pub tag_variants: Vec<TagFinding>,
    pub tags_outside_taxonomy: Vec<String>,
    /// `(path, why)`: done or long-untouched notes outside the archive.
    pub archive_candidates: Vec<(String, String)>,
    /// `(kind, name, notes)`: 3+ notes naming a project or area that has no folder.
    pub new_homes: Vec<(String, String, usize)>,
}

/// Days without a change after which a project note is an archiving candidate.
const QUIET_PROJECT_DAYS: i64 = 180;

/// Runs the audit of every phase.
pub fn plan(ctx: &Ctx, today: NaiveDate) -> DefragPlan {
    let f = &ctx.config.folders;
    let vault = ctx.gate.vault();
    let mut p = DefragPlan {
        stale_inbox: common::notes_in(&vault.notes, &f.inbox)
            .filter(|(_, n)| common::last_touched(n).is_some_and(|d| (today - d).num_days() >= 2))
            .map(|(_, n)| n.path.clone())
            .collect(),
        ..DefragPlan::default()
    };
    structure(ctx, &mut p);
    mocs(ctx, &mut p);
    p.misplaced = misplaced(ctx, today);
    tags(ctx, &mut p);
    p.archive_candidates = archive_candidates(vault, f, today);
    p.new_homes = new_homes(ctx);
    p
}

/// The link target for note `i`: its name when no other note shares it, else its path.
fn target_of(vault: &Vault, i: usize) -> String {
    crate::agents::connector::display(vault, i)
}

/// Phase 1: areas without their index or map.
fn structure(ctx: &Ctx, p: &mut DefragPlan) {
    let f = &ctx.config.folders;
    for area in ctx.gate.subdirs(&f.areas) {
        let name = area.rsplit('/').next().unwrap_or(&area).to_string();
        let no_index = !ctx.gate.exists(&format!("{area}/_index.md"));
        let no_moc = crate::agents::moc::moc_for(ctx, &area).is_none_or(|(_, exists)| !exists);
        if no_index || no_moc {
            p.area_gaps.push(AreaGap {
                folder: area.clone(),
                name,
                no_index,
                no_moc,
            });
        }
    }
}

/// Whether a note is a map of content: in the MOC folder, or typed or tagged `moc`.
fn is_moc(n: &crate::vault::Note, f: &Folders) -> bool {
    n.path.starts_with(&format!("{}/", f.moc))
        || n.property_str("type")
            .is_some_and(|t| t.eq_ignore_ascii_case("moc"))
        || n.tags_normalized().iter().any(|t| t == "moc")
}

/// Phase 3: notes missing from their area's map, dead links in maps, the master index's
/// gaps and maps nothing links to.
fn mocs(ctx: &Ctx, p: &mut DefragPlan) {
    let f = &ctx.config.folders;
    let vault = ctx.gate.vault();
    let mut linked: BTreeMap<usize, HashSet<usize>> = BTreeMap::new();
    let mut has_backlink = vec![false; vault.notes.len()];
    for (src, dst) in vault.edges() {
        linked.entry(src).or_default().insert(dst);
        if src != dst && !f.crew_owned(&vault.notes[src].path) {
            has_backlink[dst] = true;
        }
    }
    let index_path = format!("{}/Index.md", f.moc);
    let index = vault.note_index(&index_path);
    for area in ctx.gate.subdirs(&f.areas) {
        let Some((moc, true)) = crate::agents::moc::moc_for(ctx, &area) else {
            continue;
        };
        let Some(mi) = vault.note_index(&moc) else {
            continue;
        };
        let listed = linked.get(&mi).cloned().unwrap_or_default();
        let targets: Vec<String> = common::notes_under(&vault.notes, &area)
            .filter(|(i, n)| *i != mi && n.name() != "_index" && !listed.contains(i))
            .map(|(i, _)| target_of(vault, i))
            .collect();
        if !targets.is_empty() {
            p.moc_additions.push(MocAddition {
                moc: moc.clone(),
                targets,
            });
        }
        if let Some(ii) = index
            && moc.starts_with(&format!("{}/", f.moc))
            && !linked.get(&ii).is_some_and(|s| s.contains(&mi))
        {
            p.index_missing.push(moc);
        }
    }
    for (i, n) in vault.notes.iter().enumerate() {
        let crews_or_template = n.path.starts_with(&format!("{}/", f.meta))
            || n.path.starts_with(&format!("{}/", f.templates));
        if !is_moc(n, f) || crews_or_template {
            continue;
        }
        for l in n.wikilinks.iter().filter(|l| !l.target.is_empty()) {
            if vault.files.resolve(&n.path, &l.target).file().is_none() && !l.target.contains('.') {
                p.moc_dead_links.push((n.path.clone(), l.target.clone()));
            }
        }
        if Some(i) != index && !has_backlink[i] {
            p.orphan_mocs.push(n.path.clone());
        }
    }
}

/// The home folder a note's `project` or `area` value names, when that folder exists.
fn named_home(ctx: &Ctx, n: &crate::vault::Note) -> Option<String> {
    let f = &ctx.config.folders;
    for (key, root) in [("project", &f.projects), ("area", &f.areas)] {
        let Some(raw) = n.property_str(key) else {
            continue;
        };
        let want = fold(&common::link_value_name(&raw));
        if want.is_empty() {
            continue;
        }
        if let Some(dir) = ctx
            .gate
            .subdirs(root)
            .into_iter()
            .find(|d| fold(d.rsplit('/').next().unwrap_or(d)) == want)
        {
            return Some(dir);
        }
    }
    None
}

/// Phase 1: notes whose `project`/`area` names an existing home they are not in.
fn misplaced(ctx: &Ctx, today: NaiveDate) -> Vec<Misplaced> {
    let f = &ctx.config.folders;
    let vault = ctx.gate.vault();
    let inbox = format!("{}/", f.inbox);
    let archive = format!("{}/", f.archive);
    let mut out = Vec::new();
    for n in &vault.notes {
        if crate::analysis::health::exempt(&n.path, f)
            || f.crew_owned(&n.path)
            || n.path.starts_with(&archive)
        {
            continue;
        }
        let Some(home) = named_home(ctx, n) else {
            continue;
        };
        if n.path.starts_with(&format!("{home}/")) {
            continue;
        }
        let waiting = n.path.starts_with(&inbox)
            && common::last_touched(n).is_some_and(|d| (today - d).num_days() >= 2);
        let free = !ctx.gate.exists(&format!("{home}/{}.md", n.name()));
        out.push(Misplaced {
            path: n.path.clone(),
            home,
            safe: waiting && free,
        });
    }
    out
}

/// The key two spellings of one tag share: canonical form, with `areas/`, `area-` and
/// `area_` read as the `area/` prefix.
pub(super) fn tag_key(tag: &str) -> String {
    let c = canonical_tag(tag);
    for (from, to) in [
        ("areas/", "area/"),
        ("area-", "area/"),
        ("projects/", "project/"),
    ] {
        if let Some(rest) = c.strip_prefix(from) {
            return format!("{to}{rest}");
        }
    }
    c
}

/// The tags of the vault's own notes (health-exempt and crew's files left out), by
/// [`tag_key`]: each spelling with the number of notes that carry it.
pub(super) fn tag_spellings(ctx: &Ctx) -> BTreeMap<String, BTreeMap<String, usize>> {
    let f = &ctx.config.folders;
    let mut forms: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for n in ctx
        .gate
        .vault()
        .notes
        .iter()
        .filter(|n| !crate::analysis::health::exempt(&n.path, f) && !f.crew_owned(&n.path))
    {
        let mut seen = BTreeSet::new();
        for t in &n.tags {
            if seen.insert(t.clone()) {
                *forms
                    .entry(tag_key(t))
                    .or_default()
                    .entry(t.clone())
                    .or_default() += 1;
            }
        }
    }
    forms
}

/// Phase 2: spellings of one tag, tags not in lowercase-hyphen form, and tags missing from
/// the taxonomy (when the vault keeps one).
fn tags(ctx: &Ctx, p: &mut DefragPlan) {
    let f = &ctx.config.folders;
    let vault = ctx.gate.vault();
    let forms = tag_spellings(ctx);
    for (canonical, spellings) in &forms {
        let odd = spellings.len() > 1 || spellings.keys().any(|s| s != canonical);
        if odd {
            let mut forms: Vec<(String, usize)> =
                spellings.iter().map(|(s, c)| (s.clone(), *c)).collect();
            forms.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            p.tag_variants.push(TagFinding {
                canonical: canonical.clone(),
                forms,
            });
        }
    }
    let taxonomy_path = format!("{}/tag-taxonomy.md", f.meta);
    if let Some(tax) = vault.note(&taxonomy_path) {
        let known: BTreeSet<String> = tax.tags.iter().map(|t| tag_key(t)).collect();
        p.tags_outside_taxonomy = forms
            .keys()
            .filter(|k| !known.contains(*k))
            .cloned()
            .collect();
    }
}

/// Phase 1: notes marked done, and project notes untouched for half a year, outside the
/// archive. Listed only: archiving is the user's call.
fn archive_candidates(vault: &Vault, f: &Folders, today: NaiveDate) -> Vec<(String, String)> {
    let archive = format!("{}/", f.archive);
    let projects = format!("{}/", f.projects);
    let mut out = Vec::new();
    for n in &vault.notes {
        if n.path.starts_with(&archive)
            || f.crew_owned(&n.path)
            || n.path.starts_with(&format!("{}/", f.templates))
        {
            continue;
        }
        let status = n.property_str("status").map(|s| s.to_lowercase());
        if let Some(s) = status.as_deref()
            && matches!(
                s,
                "done" | "completed" | "complete" | "archived" | "cancelled"
            )
        {
            out.push((n.path.clone(), format!("status {s}")));
        } else if n.path.starts_with(&projects)
            && let Some(d) = common::last_touched(n)
            && (today - d).num_days() >= QUIET_PROJECT_DAYS
        {
            out.push((n.path.clone(), format!("untouched since {d}")));
        }
    }
    out
}

/// Phase 4: three or more notes naming a project or area that has no folder yet.
fn new_homes(ctx: &Ctx) -> Vec<(String, String, usize)> {
    let f = &ctx.config.folders;
    let vault = ctx.gate.vault();
    let mut counts: BTreeMap<(String, String), (String, usize)> = BTreeMap::new();
    for n in vault.notes.iter().filter(|n| !f.crew_owned(&n.path)) {
        for key in ["project", "area"] {
            let Some(raw) = n.property_str(key) else {
                continue;
            };
            let name = common::link_value_name(&raw);
            if fold(&name).is_empty() || named_home(ctx, n).is_some() {
                continue;
            }
            let e = counts
                .entry((key.to_string(), fold(&name)))
                .or_insert((name, 0));
            e.1 += 1;
        }
    }
    counts
        .into_iter()
        .filter(|(_, (_, c))| *c >= 3)
        .map(|((kind, _), (name, c))| (kind, name, c))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tag_spellings_share_one_key() {
        assert_eq!(tag_key("Area_Health"), "area/health");
        assert_eq!(tag_key("areas/Health"), "area/health");
        assert_eq!(tag_key("area/health"), "area/health");
        assert_eq!(tag_key("ProjectManagement"), "project-management");
        assert_eq!(tag_key("MOC"), "moc");
    }
}
