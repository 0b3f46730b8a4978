//! Maps of content: which MOC a folder feeds, and adding notes to it. The sorter adds what it
//! files; the architect adds the areas it creates.
//!
//! Only what the vault's conventions ask: in a vault crew laid out, its own `MOC/<name>.md`
//! lists what is filed under `## Notes`. A vault with its own layout gets a filed note listed
//! only in a folder note or MOC that already lists the folder's notes by hand ([`listing`]),
//! and never a new MOC. Either way nothing is written inside or below a region the note marks
//! as generated or not to edit ([`Regions`]), a template is never edited, and a note already
//! linked anywhere in the map is not listed again.

mod listing;

use std::collections::BTreeSet;

use super::Ctx;
use super::common::{self, fold};
use super::regions::Regions;
use crate::crew::config::holds_template_syntax;
use crate::gate::GateError;
use crate::vault::Vault;

fn last_segment(folder: &str) -> &str {
    folder.rsplit('/').next().unwrap_or(folder)
}

/// The map a filing home feeds, `(path, exists)`. crew's own layout keeps `MOC/<name>.md`
/// beside each area's `_index.md`. A vault with its own layout is served in its own terms:
/// the folder's folder note, then an existing MOC of that name (`MOC/<name>.md`, or a note
/// typed or tagged `moc`); a new `MOC/<name>.md` only where the vault has a MOC folder.
pub(crate) fn moc_for(ctx: &Ctx, folder: &str) -> Option<(String, bool)> {
    let moc_dir = &ctx.config.folders.moc;
    let in_moc_dir = format!("{moc_dir}/{}.md", last_segment(folder));
    if ctx.gate.exists(&in_moc_dir) {
        return Some((in_moc_dir, true));
    }
    if ctx.crew.owns_layout() {
        return Some((in_moc_dir, false));
    }
    if let Some(p) = vaults_own_maps(ctx, folder).into_iter().next() {
        return Some((p, true));
    }
    ctx.gate.dir_exists(moc_dir).then_some((in_moc_dir, false))
}

/// The maps a vault with its own layout keeps for `folder`, in the order crew prefers them:
/// `MOC/<name>.md`, the folder's folder note, a note of the folder's name typed or tagged
/// `moc`.
fn vaults_own_maps(ctx: &Ctx, folder: &str) -> Vec<String> {
    let mut out = Vec::new();
    let in_moc_dir = format!("{}/{}.md", ctx.config.folders.moc, last_segment(folder));
    if ctx.gate.exists(&in_moc_dir) {
        out.push(in_moc_dir);
    }
    let vault = ctx.gate.vault();
    let notes = vault.notes.iter().map(|n| n.path.as_str());
    if let Some(p) = crate::vault::folder_note::find(folder, notes) {
        out.push(p.to_string());
    }
    let want = fold(last_segment(folder));
    let want_moc = format!("{want}moc");
    // cheap tests first: folding every note's name, or reading every note's type, costs
    // more than looking for "moc" in its frontmatter's text
    let typed_moc = |n: &crate::vault::Note| {
        n.tags.iter().any(|t| t.eq_ignore_ascii_case("moc"))
            || n.frontmatter_mentions("moc")
                && n.property_str("type")
                    .is_some_and(|t| t.eq_ignore_ascii_case("moc"))
    };
    let tagged = vault.notes.iter().find(|n| {
        typed_moc(n) && {
            let name = fold(n.name());
            name == want || name == want_moc
        }
    });
    if let Some(n) = tagged.filter(|n| !out.contains(&n.path)) {
        out.push(n.path.clone());
    }
    out
}

/// Adds the notes just filed in `folder` (their paths) to its map, in one edit: crew's own MOC
/// in a vault crew laid out (created when the folder has 3 notes or more), else the vault's
/// own map that lists the folder's notes by hand, if one does. The map changed, if any.
pub(crate) fn update_moc(
    ctx: &mut Ctx,
    folder: &str,
    note_paths: &[String],
) -> Result<Option<String>, GateError> {
    if !ctx.crew.owns_layout() {
        return add_to_hand_list(ctx, folder, note_paths);
    }
    let Some((moc, exists)) = moc_for(ctx, folder) else {
        return Ok(None);
    };
    if exists {
        return add_to_moc(ctx, &moc, note_paths);
    }
    let members: Vec<String> = common::notes_in(&ctx.gate.vault().notes, folder)
        .filter(|(_, n)| n.name() != "_index")
        .map(|(_, n)| n.name().to_string())
        .collect();
    if members.len() < 3 {
        return Ok(None);
    }
    let topic = last_segment(folder);
    let list: String = members.iter().map(|m| format!("- [[{m}]]\n")).collect();
    // link the master index only when there is one: crew never creates a dangling link
    let index = format!("{}/Index", ctx.config.folders.moc);
    let related = if ctx.gate.exists(&format!("{index}.md")) {
        format!("\n## Related MOCs\n- [[{index}|Master Index]]\n")
    } else {
        String::new()
    };
    let body = format!(
        "---\ntype: moc\ntags: [moc, topic]\nupdated: {}\n---\n# {topic} — Map of Content\n\n## Overview\nNotes filed in `{folder}/`.\n\n## Notes\n{list}{related}",
        ctx.today(),
    );
    let path = ctx.gate.create(&moc, body.as_bytes())?;
    Ok(Some(path))
}

/// Lists the notes crew's own MOC does not list yet, under its `## Notes`.
fn add_to_moc(
    ctx: &mut Ctx,
    moc: &str,
    note_paths: &[String],
) -> Result<Option<String>, GateError> {
    let Some(text) = ctx.gate.read_text(moc) else {
        return Ok(None);
    };
    if holds_template_syntax(&text) {
        return Ok(None);
    }
    let lines: Vec<String> = unlisted(ctx.gate.vault(), moc, &text, note_paths)
        .into_iter()
        .map(|(_, link)| format!("- {link}"))
        .collect();
    if lines.is_empty() {
        return Ok(None);
    }
    let changed = ctx.gate.edit(moc, "MOC: add filed notes", |t| {
        let mut text = t.to_string();
        for line in &lines {
            match insert_under_notes_outside_regions(&text, line) {
                Some(longer) => text = longer,
                None => break,
            }
        }
        text
    })?;
    Ok(changed.then(|| moc.to_string()))
}

/// Lists the notes filed in `folder` in the first of the vault's own maps for it that lists
/// the folder's notes by hand, in that list ([`listing`]). Never creates a map.
fn add_to_hand_list(
    ctx: &mut Ctx,
    folder: &str,
    note_paths: &[String],
) -> Result<Option<String>, GateError> {
    for map in vaults_own_maps(ctx, folder) {
        let vault = ctx.gate.vault();
        let Some(m) = vault.note_index(&map) else {
            continue;
        };
        let Some(text) = ctx.gate.read_text(&map) else {
            continue;
        };
        // a template is copied into new notes: a line added to it would spread
        if vault.notes[m].invalid_utf8
            || ctx.config.folders.in_templates(&map)
            || holds_template_syntax(&text)
        {
            continue;
        }
        let mut links = folder_links(vault, m, folder);
        if !listing::lists_by_hand(&text, &links) {
            continue;
        }
        let new = unlisted(vault, &map, &text, note_paths);
        if new.is_empty() {
            return Ok(None);
        }
        // a note added counts as listed, so the next one finds the same list
        for (target, _) in &new {
            links.insert(target.to_lowercase(), usize::MAX);
        }
        let changed = ctx.gate.edit(&map, "folder note: list filed notes", |t| {
            let mut text = t.to_string();
            for (target, link) in &new {
                match listing::add_to_hand_list(&text, &links, target, link) {
                    Some(longer) => text = longer,
                    None => break,
                }
            }
            text
        })?;
        return Ok(changed.then_some(map));
    }
    Ok(None)
}

/// The notes of `folder` (in it or below) the map at index `map` links to, by link target as
/// written there.
fn folder_links(vault: &Vault, map: usize, folder: &str) -> listing::FolderLinks {
    let prefix = format!("{folder}/");
    vault.notes[map]
        .wikilinks
        .iter()
        .zip(&vault.resolved[map])
        .filter_map(|(link, to)| {
            let n = to.file().and_then(|f| vault.note_of_file(f))?;
            (n != map && vault.notes[n].path.starts_with(&prefix))
                .then(|| (link.target.to_lowercase(), n))
        })
        .collect()
}

/// The filed notes (paths) that the map at `map_path`, whose text is `text`, does not link to
/// anywhere yet, each with its link target and the wikilink that lists it: `[[name]]`, or
/// `[[path|name]]` when another note has that name.
fn unlisted(
    vault: &Vault,
    map_path: &str,
    text: &str,
    note_paths: &[String],
) -> Vec<(String, String)> {
    let map = vault.note_index(map_path);
    let lower = text.to_lowercase();
    let mut out: Vec<(String, String)> = Vec::new();
    for path in note_paths {
        let stem = path.trim_end_matches(".md");
        let name = stem.rsplit('/').next().unwrap_or(stem);
        let linked = vault
            .note_index(path)
            .is_some_and(|n| vault.links_to(n).iter().any(|(src, _)| Some(*src) == map));
        if linked || mentions(&lower, name) || out.iter().any(|(t, _)| t == name || t == stem) {
            continue;
        }
        if vault.files.notes_named(name) > 1 {
            out.push((stem.to_string(), format!("[[{stem}|{name}]]")));
        } else {
            out.push((name.to_string(), format!("[[{name}]]")));
        }
    }
    out
}

/// Whether the lowercased text of a map links to a note called `name` in any form Obsidian
/// reads — `[[name]]`, `[[name|…]]`, `[[name#…]]`, `[[folder/name]]`, `[text](name.md)`, a
/// link inside a comment or a generated region too — whether or not it resolves there.
fn mentions(lower: &str, name: &str) -> bool {
    let name = name.to_lowercase();
    let encoded = name.replace(' ', "%20");
    let forms = [
        format!("[[{name}]]"),
        format!("[[{name}|"),
        format!("[[{name}#"),
        format!("[[{name}.md"),
        format!("/{name}]]"),
        format!("/{name}|"),
        format!("/{name}#"),
        format!("/{name}.md"),
        format!("({name}.md"),
        format!("({encoded}.md"),
        format!("/{encoded}.md"),
        format!("<{name}.md"),
    ];
    forms.iter().any(|f| lower.contains(f.as_str()))
}

/// Notes filed before their MOCs are brought up to date: a run stopped in between leaves at
/// most this many filed notes not yet listed in their MOC.
const MOC_BATCH: usize = 64;

/// Filed notes waiting to be listed in their folders' MOCs: a MOC is re-read and re-written
/// once per batch, not once per note (a folder of thousands of notes made that quadratic).
#[derive(Default)]
pub(crate) struct MocBatch {
    pending: Vec<(String, Vec<String>)>,
    count: usize,
    /// The MOCs changed so far.
    pub updated: BTreeSet<String>,
    /// MOCs crew could not write (read-only, changed meanwhile), with why: the notes stay
    /// filed, only their listing is missing.
    pub not_written: Vec<String>,
}

impl MocBatch {
    /// Queues a note filed in `folder`; writes the batch when it is full.
    pub fn add(&mut self, ctx: &mut Ctx, folder: &str, path: String) -> Result<(), GateError> {
        match self.pending.iter_mut().find(|(f, _)| f == folder) {
            Some((_, paths)) => paths.push(path),
            None => self.pending.push((folder.to_string(), vec![path])),
        }
        self.count += 1;
        if self.count >= MOC_BATCH {
            self.flush(ctx)?;
        }
        Ok(())
    }

    /// Writes every queued note into its MOC.
    pub fn flush(&mut self, ctx: &mut Ctx) -> Result<(), GateError> {
        for (folder, paths) in std::mem::take(&mut self.pending) {
            match update_moc(ctx, &folder, &paths) {
                Ok(Some(m)) => {
                    self.updated.insert(m);
                }
                Ok(None) => {}
                Err(e) if common::note_error(&e).is_some() => self.not_written.push(e.to_string()),
                Err(e) => return Err(e),
            }
        }
        self.count = 0;
        Ok(())
    }
}

/// The headings of the section a MOC lists its notes under (lowercase).
const NOTES_HEADINGS: [&str; 2] = ["## notes", "## key notes"];

/// Inserts a list line at the end of the `## Notes` section (or at the end of the text).
pub(crate) fn insert_under_notes(text: &str, line: &str) -> String {
    insert_under_heading(text, &NOTES_HEADINGS, "## Notes", line)
}

/// [`insert_under_notes`], or `None` when the line would land inside or below a region the
/// note marks as generated or not to edit.
fn insert_under_notes_outside_regions(text: &str, line: &str) -> Option<String> {
    let at = section_insert_at(text, &NOTES_HEADINGS).unwrap_or(text.len());
    (!Regions::of(text).forbids(at)).then(|| insert_under_notes(text, line))
}

/// Inserts a list line at the end of the first section whose heading is one of `headings`
/// (compared in lowercase); without one, adds a `new_heading` section at the end.
pub(crate) fn insert_under_heading(
    text: &str,
    headings: &[&str],
    new_heading: &str,
    line: &str,
) -> String {
    let Some(at) = section_insert_at(text, headings) else {
        let mut out = text.to_string();
        if !out.ends_with('\n') && !out.is_empty() {
            out.push('\n');
        }
        out.push('\n');
        out.push_str(new_heading);
        out.push('\n');
        out.push_str(line);
        out.push('\n');
        return out;
    };
    let mut out = text[..at].to_string();
    if !out.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line);
    out.push('\n');
    out.push_str(&text[at..]);
    out
}

/// The byte offset where a line goes at the end of the first section under one of
/// `headings`, before the blank lines that end it; `None` when there is no such section.
fn section_insert_at(text: &str, headings: &[&str]) -> Option<usize> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut at = section_end(&lines, headings)?;
    while at > 0 && lines[at - 1].trim().is_empty() {
        at -= 1;
    }
    Some(lines[..at].iter().map(|l| l.len()).sum())
}

/// The line index where the section under one of `headings` ends, if there is one.
fn section_end(lines: &[&str], headings: &[&str]) -> Option<usize> {
    let mut inside = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim();
        if t.starts_with("## ") {
            if inside {
                return Some(i);
            }
            inside = headings.contains(&t.to_lowercase().as_str());
        }
    }
    inside.then_some(lines.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_into_the_notes_section() {
        let t = "# X\n\n## Notes\n- [[a]]\n\n## Related MOCs\n- [[Index]]\n";
        assert_eq!(
            insert_under_notes(t, "- [[b]]"),
            "# X\n\n## Notes\n- [[a]]\n- [[b]]\n\n## Related MOCs\n- [[Index]]\n"
        );
        assert_eq!(
            insert_under_notes("# X\n", "- [[b]]"),
            "# X\n\n## Notes\n- [[b]]\n"
        );
        assert_eq!(
            insert_under_notes("## Notes\n- [[a]]", "- [[b]]"),
            "## Notes\n- [[a]]\n- [[b]]\n"
        );
        assert_eq!(
            insert_under_notes("## Key notes\n- [[a]]\n\n", "- [[b]]"),
            "## Key notes\n- [[a]]\n- [[b]]\n\n"
        );
    }
}
