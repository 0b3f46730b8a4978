//! Two notes side by side: what each says, the links and tags they share, what only one has.

use serde::Serialize;

use super::passages;
use crate::agents::common;
use crate::vault::{NoteSource, Vault};

/// One side of a comparison.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Side {
    pub path: String,
    pub title: String,
    pub date: Option<String>,
    pub words: usize,
    pub sections: Vec<String>,
    /// Its first paragraph: what the note says before anything else.
    pub says: String,
    pub links: Vec<String>,
    pub tags: Vec<String>,
    pub backlinks: usize,
}

/// The comparison.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Comparison {
    pub a: Side,
    pub b: Side,
    pub shared_links: Vec<String>,
    pub shared_tags: Vec<String>,
}

/// The note a name means: by name or path, else the best title match of a search.
pub(crate) fn find_note(vault: &Vault, name: &str, fallback: Option<&str>) -> Option<usize> {
    vault
        .files
        .resolve("", name)
        .file()
        .and_then(|f| vault.note_of_file(f))
        .or_else(|| fallback.and_then(|p| vault.note_index(p)))
}

fn side(vault: &Vault, source: &dyn NoteSource, n: usize) -> Side {
    let note = &vault.notes[n];
    let (says, words, sections) = match common::reread(source, note) {
        Some((text, start)) => {
            let body = &text[start..];
            let first_line = text[..start].matches('\n').count() + 1;
            let paras = passages::paragraphs(body, first_line);
            let mut sections: Vec<String> = paras
                .iter()
                .map(|p| p.heading.clone())
                // the title heading repeats the note's name: no section of its own
                .filter(|h| !h.is_empty() && common::fold(h) != common::fold(note.name()))
                .collect();
            sections.dedup();
            let says = paras
                .iter()
                .find(|p| p.text.split_whitespace().count() >= 4)
                .or(paras.first())
                .map_or(String::new(), |p| passages::excerpt(&p.text, 240));
            (says, body.split_whitespace().count(), sections)
        }
        None => (String::new(), 0, Vec::new()),
    };
    let mut links: Vec<String> = vault.resolved[n]
        .iter()
        .filter_map(|r| r.file().and_then(|f| vault.note_of_file(f)))
        .filter(|&t| t != n)
        .map(|t| vault.notes[t].name().to_string())
        .collect();
    links.sort();
    links.dedup();
    let mut tags = note.tags_normalized();
    tags.sort();
    tags.dedup();
    Side {
        path: note.path.clone(),
        title: super::link_name(vault, &note.path),
        date: ["created", "date"]
            .iter()
            .find_map(|k| note.property_str(k).and_then(|v| common::parse_date(&v)))
            .map(|d| d.to_string()),
        words,
        sections,
        says,
        links,
        tags,
        // every form of link counts, as in the backlinks mode (the graph counts wikilinks only)
        backlinks: super::backlinks::find(vault, source, &note.path)
            .notes
            .len(),
    }
}

/// Compares notes `a` and `b` (indices into the vault's notes).
pub fn build(vault: &Vault, source: &dyn NoteSource, a: usize, b: usize) -> Comparison {
    let (a, b) = (side(vault, source, a), side(vault, source, b));
    let shared = |x: &[String], y: &[String]| -> Vec<String> {
        x.iter().filter(|v| y.contains(v)).cloned().collect()
    };
    Comparison {
        shared_links: shared(&a.links, &b.links),
        shared_tags: shared(&a.tags, &b.tags),
        a,
        b,
    }
}

fn list(items: &[String], fmt: impl Fn(&String) -> String) -> String {
    if items.is_empty() {
        "—".into()
    } else {
        items.iter().map(fmt).collect::<Vec<_>>().join(", ")
    }
}

/// The first sections of a long note, and how many more there are: a table cell stays short.
fn first(sections: &[String]) -> String {
    const SHOWN: usize = 8;
    let mut text = list(&sections[..sections.len().min(SHOWN)], String::clone);
    if sections.len() > SHOWN {
        text.push_str(&format!(" (+{} more)", sections.len() - SHOWN));
    }
    text
}

fn only(x: &[String], y: &[String]) -> Vec<String> {
    x.iter().filter(|v| !y.contains(v)).cloned().collect()
}

/// The comparison as Markdown: a table, then what is shared and what only one has.
pub fn render(c: &Comparison, l: crate::lang::Lang) -> String {
    let (a, b) = (&c.a, &c.b);
    let link = |s: &String| format!("[[{s}]]");
    let tag = |s: &String| format!("#{s}");
    let cell = |s: &str| s.replace('|', "\\|");
    let mut out = crate::tr!(l, "seeker.compare.heading", a = a.title, b = b.title);
    out.push_str(&format!(
        "| | [[{}]] | [[{}]] |\n|---|---|---|\n",
        a.title, b.title
    ));
    let rows = [
        (
            crate::tr!(l, "seeker.compare.path"),
            format!("`{}`", a.path),
            format!("`{}`", b.path),
        ),
        (
            crate::tr!(l, "seeker.compare.date"),
            a.date.clone().unwrap_or("—".into()),
            b.date.clone().unwrap_or("—".into()),
        ),
        (
            crate::tr!(l, "seeker.compare.words"),
            a.words.to_string(),
            b.words.to_string(),
        ),
        (
            crate::tr!(l, "seeker.compare.says"),
            cell(&a.says),
            cell(&b.says),
        ),
        (
            crate::tr!(l, "seeker.compare.sections"),
            cell(&first(&a.sections)),
            cell(&first(&b.sections)),
        ),
        (
            crate::tr!(l, "seeker.compare.links_out"),
            a.links.len().to_string(),
            b.links.len().to_string(),
        ),
        (
            crate::tr!(l, "seeker.compare.linked_from"),
            a.backlinks.to_string(),
            b.backlinks.to_string(),
        ),
        (
            crate::tr!(l, "seeker.compare.tags"),
            list(&a.tags, tag),
            list(&b.tags, tag),
        ),
    ];
    for (label, x, y) in rows {
        out.push_str(&format!("| {label} | {x} | {y} |\n"));
    }
    out.push_str(&crate::tr!(
        l,
        "seeker.compare.shared",
        links = list(&c.shared_links, link),
        tags = list(&c.shared_tags, tag)
    ));
    for (this, other) in [(a, b), (b, a)] {
        out.push_str(&crate::tr!(
            l,
            "seeker.compare.only",
            note = this.title,
            links = list(&only(&this.links, &other.links), link),
            tags = list(&only(&this.tags, &other.tags), tag),
            sections = list(&only(&this.sections, &other.sections), String::clone)
        ));
    }
    out
}
