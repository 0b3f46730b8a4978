//! Maps of content: which MOC a folder feeds, and adding notes to it. The sorter adds what it
//! files; the architect adds the areas it creates.

use std::collections::BTreeSet;

use super::Ctx;
use super::common::{self, fold};
use crate::gate::GateError;

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
    let vault = ctx.gate.vault();
    let notes = vault.notes.iter().map(|n| n.path.as_str());
    if let Some(p) = crate::vault::folder_note::find(folder, notes) {
        return Some((p.to_string(), true));
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
    if let Some(n) = tagged {
        return Some((n.path.clone(), true));
    }
    ctx.gate.dir_exists(moc_dir).then_some((in_moc_dir, false))
}

/// Adds the notes just filed in `folder` (their paths) to its MOC, in one edit; creates the
/// MOC when the folder has 3 notes or more.
pub(crate) fn update_moc(
    ctx: &mut Ctx,
    folder: &str,
    note_paths: &[String],
) -> Result<Option<String>, GateError> {
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

/// Lists the notes an existing MOC does not list yet.
fn add_to_moc(
    ctx: &mut Ctx,
    moc: &str,
    note_paths: &[String],
) -> Result<Option<String>, GateError> {
    let text = ctx.gate.read_text(moc).unwrap_or_default();
    let mut lines: Vec<String> = Vec::new();
    for path in note_paths {
        let name = path
            .rsplit('/')
            .next()
            .unwrap_or(path)
            .trim_end_matches(".md");
        let line = format!("- [[{name}]]");
        let listed = text.contains(&format!("[[{name}]]"))
            || text.contains(&format!("[[{name}|"))
            || lines.contains(&line);
        if !listed {
            lines.push(line);
        }
    }
    if lines.is_empty() {
        return Ok(None);
    }
    ctx.gate.edit(moc, "MOC: add filed notes", |t| {
        lines
            .iter()
            .fold(t.to_string(), |text, line| insert_under_notes(&text, line))
    })?;
    Ok(Some(moc.to_string()))
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

/// Inserts a list line at the end of the `## Notes` section (or at the end of the text).
pub(crate) fn insert_under_notes(text: &str, line: &str) -> String {
    insert_under_heading(text, &["## notes", "## key notes"], "## Notes", line)
}

/// Inserts a list line at the end of the first section whose heading is one of `headings`
/// (compared in lowercase); without one, adds a `new_heading` section at the end.
pub(crate) fn insert_under_heading(
    text: &str,
    headings: &[&str],
    new_heading: &str,
    line: &str,
) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let Some(mut at) = section_end(&lines, headings) else {
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
    // before blank lines that end the section
    while at > 0 && lines[at - 1].trim().is_empty() {
        at -= 1;
    }
    let mut out: String = lines[..at].concat();
    if !out.ends_with('\n') && !out.is_empty() {
        out.push('\n');
    }
    out.push_str(line);
    out.push('\n');
    out.push_str(&lines[at..].concat());
    out
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
