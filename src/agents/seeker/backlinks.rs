//! Backlinks: every note linking to one note — wikilinks, embeds, Markdown links and links in
//! the frontmatter — with the line of each link.

use serde::Serialize;

use crate::agents::common;
use crate::vault::{Note, NoteSource, Resolution, Vault};

/// How a link is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum LinkForm {
    Wikilink,
    Embed,
    Markdown,
    Frontmatter,
}

impl LinkForm {
    fn label(self) -> &'static str {
        match self {
            LinkForm::Wikilink => "link",
            LinkForm::Embed => "embed",
            LinkForm::Markdown => "Markdown link",
            LinkForm::Frontmatter => "frontmatter",
        }
    }
}

/// One link to the target.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct LinkAt {
    pub line: usize,
    pub form: LinkForm,
    /// The line the link sits on, trimmed and shortened.
    pub text: String,
}

/// A note linking to the target, with each of its links.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Backlink {
    pub path: String,
    pub title: String,
    pub links: Vec<LinkAt>,
}

/// What a backlinks request found.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Backlinks {
    /// The target's note name as the vault spells it, or the name asked for when no note has
    /// it (links to a missing note are still links).
    pub target: String,
    pub target_path: Option<String>,
    pub notes: Vec<Backlink>,
}

/// The byte offsets of a note's links and how each is written, with its target as written.
fn link_spans(note: &Note) -> impl Iterator<Item = (usize, LinkForm, &str)> {
    let wiki = note.wikilinks.iter().map(|l| {
        let form = if l.embed {
            LinkForm::Embed
        } else {
            LinkForm::Wikilink
        };
        (l.span.start, form, l.target.as_str())
    });
    let front = note
        .frontmatter_links
        .iter()
        .map(|l| (l.span.start, LinkForm::Frontmatter, l.target.as_str()));
    let md = note
        .markdown_links
        .iter()
        .map(|l| (l.dest_span.start, LinkForm::Markdown, l.target.as_str()));
    wiki.chain(front).chain(md)
}

/// Whether a link written in `from` names the target: it resolves to the target's file, or —
/// when no file has the name — it names the same missing note.
fn names_target(
    vault: &Vault,
    from: &str,
    written: &str,
    target_id: Option<usize>,
    name: &str,
) -> bool {
    match (vault.files.resolve(from, written), target_id) {
        (Resolution::File { id, .. }, Some(t)) => id == t,
        (Resolution::Unresolved, None) => {
            let leaf = written.rsplit('/').next().unwrap_or(written);
            let leaf = leaf.strip_suffix(".md").unwrap_or(leaf);
            leaf.eq_ignore_ascii_case(name) || leaf.to_lowercase() == name.to_lowercase()
        }
        _ => false,
    }
}

/// The target's file: a note or file by that name or path, else a note with that alias.
fn find_target(vault: &Vault, name: &str) -> Option<usize> {
    if let Some(id) = vault.files.resolve("", name).file() {
        return Some(id);
    }
    let folded = common::fold(name);
    vault
        .notes
        .iter()
        .position(|n| n.aliases.iter().any(|a| common::fold(a) == folded))
        .map(|i| vault.file_id_of_note(i))
}

/// Every note linking to `name`. Lines are counted in the text read from `source`.
pub fn find(vault: &Vault, source: &dyn NoteSource, name: &str) -> Backlinks {
    let target_id = find_target(vault, name);
    let target_path = target_id.map(|id| vault.files.paths[id].clone());
    let target = match target_id.and_then(|id| vault.note_of_file(id)) {
        Some(n) => super::link_name(vault, &vault.notes[n].path),
        None => target_path.as_deref().map_or(name.to_string(), |p| {
            p.rsplit('/').next().unwrap_or(p).into()
        }),
    };
    let mut notes = Vec::new();
    for note in &vault.notes {
        if target_path.as_deref() == Some(note.path.as_str()) {
            continue;
        }
        let mut offsets: Vec<(usize, LinkForm)> = link_spans(note)
            .filter(|(_, _, written)| names_target(vault, &note.path, written, target_id, name))
            .map(|(at, form, _)| (at, form))
            .collect();
        if offsets.is_empty() {
            continue;
        }
        offsets.sort_unstable_by_key(|(at, _)| *at);
        let Some(text) = source.note_text(&note.path) else {
            continue;
        };
        let mut links: Vec<LinkAt> = offsets
            .into_iter()
            .map(|(at, form)| line_of(&text, at, form))
            .collect();
        // two links on one line are one place to look
        links.dedup_by(|b, a| a.line == b.line && a.form == b.form);
        notes.push(Backlink {
            path: note.path.clone(),
            title: super::link_name(vault, &note.path),
            links,
        });
    }
    Backlinks {
        target,
        target_path,
        notes,
    }
}

/// The link at byte `at` of `text`: its 1-based line and the part of that line around it.
fn line_of(text: &str, at: usize, form: LinkForm) -> LinkAt {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
    let line = text[..start].matches('\n').count() + 1;
    LinkAt {
        line,
        form,
        text: around(&text[start..end], at - start, 140),
    }
}

/// Up to `max` characters of `line` around byte `col`, marked with `…` where cut.
fn around(line: &str, col: usize, max: usize) -> String {
    let lead = line.len() - line.trim_start().len();
    let line = line.trim();
    let col = col.saturating_sub(lead);
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    if chars.len() <= max {
        return line.to_string();
    }
    let at = chars.iter().take_while(|(b, _)| *b < col).count();
    let from = at.saturating_sub(40).min(chars.len() - max);
    let cut: String = chars[from..from + max].iter().map(|(_, c)| c).collect();
    format!(
        "{}{}{}",
        if from > 0 { "… " } else { "" },
        cut.trim(),
        if from + max < chars.len() { " …" } else { "" }
    )
}

/// The backlinks as Markdown.
pub fn render(found: &Backlinks, l: crate::lang::Lang) -> String {
    let n = found.notes.len();
    let mut out = crate::trn!(l, "seeker.backlinks.heading", n, note = found.target);
    if found.target_path.is_none() && n == 0 {
        out.push_str(&crate::tr!(
            l,
            "seeker.backlinks.no_such_note",
            note = found.target
        ));
        return out;
    }
    if found.target_path.is_none() {
        out.push_str(&crate::tr!(
            l,
            "seeker.backlinks.dangling",
            note = found.target
        ));
    }
    for b in &found.notes {
        out.push_str(&format!("- [[{}]] — `{}`\n", b.title, b.path));
        for link in &b.links {
            out.push_str(&crate::tr!(
                l,
                "seeker.backlinks.line",
                line = link.line,
                form = link.form.label(),
                text = link.text
            ));
        }
    }
    if n == 0 {
        out.push_str(&crate::tr!(l, "seeker.backlinks.none"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_from_the_link() {
        let l = line_of("a\nb [[X]]\nc", 4, LinkForm::Wikilink);
        assert_eq!(l.line, 2);
        assert_eq!(l.text, "b [[X]]");
        assert_eq!(line_of("", 10, LinkForm::Embed).line, 1);
        let long = format!("{} [[X]] {}", "a ".repeat(100), "b ".repeat(100));
        let at = long.find("[[X]]").unwrap();
        let l = line_of(&long, at, LinkForm::Wikilink);
        assert!(
            l.text.contains("[[X]]") && l.text.starts_with("… "),
            "{}",
            l.text
        );
    }
}
