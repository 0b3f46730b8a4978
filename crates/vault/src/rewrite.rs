//! Link-rewrite planning for a move: which links in which notes must change so that every link
//! keeps pointing at the same file.

use crate::Vault;
use crate::edit::{self, Replacement};
use crate::leaves::{LinkKind, LinkRef};
use crate::resolve::{FileTable, Resolution};

/// For a move of the file at vault path `from` to `to` (planned, not yet done), the
/// replacements each note needs so that every link keeps pointing at the file it pointed at:
/// wikilinks and embeds (body and frontmatter) and Markdown links. Call it before the move.
///
/// Each entry is a note's path *after* the move (the moved note under `to`) and its
/// replacements, whose ranges are byte spans in that note's text as the vault parsed it: apply
/// them with [`edit::apply_replacements`] to the same text, then move the file and tell the
/// vault ([`Vault::rename_file`]). A new wikilink target is the shortest that resolves to the
/// same file (the bare name when that is unambiguous), keeping `#subpath`, `|alias` and the
/// embed mark; a new Markdown destination is the %-encoded vault path, or a relative one. Links that resolve to the same file
/// after the move, and links that resolved to nothing before, are left as they are.
///
/// Only links that can change meaning are looked at: those whose target's leaf names the moved
/// file (before or after), and all links of the moved note itself (its folder changes). The
/// vault is borrowed mutably to try the move in its file table; it is left as it was.
pub fn plan_link_rewrites(
    vault: &mut Vault,
    from: &str,
    to: &str,
) -> Vec<(String, Vec<Replacement>)> {
    let Some(moved) = vault.files.id_of(from) else {
        return Vec::new();
    };
    let moved_note = vault.note_of_file(moved);
    let mut cands = candidates(vault, from, to, moved_note);
    for c in &mut cands {
        let path = &vault.notes[c.note].path;
        c.before = resolve_any(&vault.files, path, &c.target, c.markdown).map(|id| {
            if id == moved {
                to.to_string()
            } else {
                vault.files.paths[id].clone()
            }
        });
    }
    vault.files.rename(moved, to);
    let mut plans: Vec<(String, Vec<Replacement>)> = Vec::new();
    for c in &cands {
        let note_path = if Some(c.note) == moved_note {
            to.to_string()
        } else {
            vault.notes[c.note].path.clone()
        };
        let Some(with) = replacement_after_move(&vault.files, c, &note_path) else {
            continue;
        };
        let replacement = Replacement {
            range: c.span.clone(),
            with,
        };
        match plans.iter_mut().find(|(p, _)| *p == note_path) {
            Some((_, reps)) => reps.push(replacement),
            None => plans.push((note_path, vec![replacement])),
        }
    }
    vault.files.rename(moved, from);
    plans
}

/// A link that may change meaning with the move.
struct Candidate {
    note: usize,
    span: std::ops::Range<usize>,
    target: String,
    markdown: bool,
    link: Option<crate::markdown::WikiLink>,
    fragment: Option<String>,
    /// The vault path the link resolved to before the move (the moved file under its new path).
    before: Option<String>,
}

/// The links naming the moved file's leaf (before or after the move), and every link of the
/// moved note itself.
fn candidates(vault: &Vault, from: &str, to: &str, moved_note: Option<usize>) -> Vec<Candidate> {
    let leaves = [crate::leaves::leaf(from), crate::leaves::leaf(to)];
    let mut refs = vault.leaf_index().naming(&leaves);
    if let Some(n) = moved_note {
        let note = &vault.notes[n];
        let own = |kind, count: usize| {
            (0..count).map(move |index| LinkRef {
                note: n,
                kind,
                index,
            })
        };
        refs.extend(own(LinkKind::Wiki, note.wikilinks.len()));
        refs.extend(own(LinkKind::Frontmatter, note.frontmatter_links.len()));
        refs.extend(own(LinkKind::Markdown, note.markdown_links.len()));
        refs.sort_unstable();
        refs.dedup();
    }
    let mut cands = Vec::new();
    for r in refs {
        let note = &vault.notes[r.note];
        match r.kind {
            LinkKind::Wiki | LinkKind::Frontmatter => {
                let link = if r.kind == LinkKind::Wiki {
                    &note.wikilinks[r.index]
                } else {
                    &note.frontmatter_links[r.index]
                };
                if !link.target.is_empty() {
                    cands.push(Candidate {
                        note: r.note,
                        span: link.span.clone(),
                        target: link.target.clone(),
                        markdown: false,
                        link: Some(link.clone()),
                        fragment: None,
                        before: None,
                    });
                }
            }
            LinkKind::Markdown => {
                let link = &note.markdown_links[r.index];
                cands.push(Candidate {
                    note: r.note,
                    span: link.dest_span.clone(),
                    target: link.target.clone(),
                    markdown: true,
                    link: None,
                    fragment: link.fragment.clone(),
                    before: None,
                });
            }
        }
    }
    cands
}

/// With the move tried in `table`: the new text of the link `c` in the note now at
/// `note_path`, or `None` when it still lands where it did (or landed nowhere).
fn replacement_after_move(table: &FileTable, c: &Candidate, note_path: &str) -> Option<String> {
    let desired = c.before.as_ref()?;
    let now = resolve_any(table, note_path, &c.target, c.markdown).map(|id| &table.paths[id]);
    if now == Some(desired) {
        return None;
    }
    Some(if c.markdown {
        let t = best_markdown_target(table, note_path, desired);
        match &c.fragment {
            Some(f) => format!("{t}#{f}"),
            None => t,
        }
    } else {
        let t = best_wikilink_target(table, note_path, desired);
        c.link
            .as_ref()
            .map_or(t.clone(), |l| edit::render_wikilink(l, &t))
    })
}

pub(crate) fn resolve_any(
    table: &FileTable,
    from: &str,
    target: &str,
    markdown: bool,
) -> Option<usize> {
    if markdown {
        // Markdown links are paths: relative to the note's folder first, then from the root.
        let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
        if let Some(id) = crate::resolve::join_relative(dir, target).and_then(|p| table.id_of(&p)) {
            return Some(id);
        }
    }
    match table.resolve(from, target) {
        Resolution::File { id, .. } => Some(id),
        _ => None,
    }
}

/// The shortest wikilink target that resolves to `desired` from the note at `from`: the bare
/// name when that is unambiguous, else the vault path (without `.md` for notes), else the vault
/// path with a leading `/` (a note at the root shares its path with its bare name).
fn best_wikilink_target(table: &FileTable, from: &str, desired: &str) -> String {
    let file = desired.rsplit('/').next().unwrap_or(desired);
    let short = file.strip_suffix(".md").unwrap_or(file);
    let full = desired.strip_suffix(".md").unwrap_or(desired);
    let lands = |target: &str, allow_ambiguous: bool| match table.resolve(from, target) {
        Resolution::File { id, ambiguous } => {
            table.paths[id] == desired && (allow_ambiguous || !ambiguous)
        }
        _ => false,
    };
    if lands(short, false) {
        short.to_string()
    } else if lands(full, true) {
        full.to_string()
    } else {
        format!("/{full}")
    }
}

/// A Markdown link destination (%-encoded) that resolves to `desired` from the note at `from`:
/// the vault path when it does, else the path relative to the note's folder.
fn best_markdown_target(table: &FileTable, from: &str, desired: &str) -> String {
    if resolve_any(table, from, desired, true).map(|id| table.paths[id].as_str()) == Some(desired) {
        return edit::encode_md_path(desired);
    }
    let from_dir: Vec<&str> = from
        .rsplit_once('/')
        .map_or(Vec::new(), |(d, _)| d.split('/').collect());
    let to: Vec<&str> = desired.split('/').collect();
    let shared = from_dir.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut rel: Vec<&str> = vec![".."; from_dir.len() - shared];
    rel.extend(&to[shared..]);
    edit::encode_md_path(&rel.join("/"))
}
