//! The counts of a vault (what `crew vault stats` prints), by Obsidian's reading of it: links
//! resolved as in [`resolve`](crate::resolve), tags and aliases as in [`note`](crate::note).

use rustc_hash::{FxHashMap, FxHashSet};

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Frontmatter, IndexId, Resolution, Vault};

/// The counts of a vault. Wikilinks and embeds are counted apart (`wikilinks` never includes
/// embeds); frontmatter links are not counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct VaultStats {
    /// Markdown notes (`.md` files).
    pub notes: usize,
    /// Every other file.
    pub attachments: usize,
    /// Notes with a closed frontmatter block, whether it parses or not.
    pub notes_with_frontmatter: usize,
    /// Notes whose frontmatter does not parse to a mapping.
    pub frontmatter_errors: usize,
    /// `[[links]]` in note bodies, `[[#Heading]]` self-links included.
    pub wikilinks: usize,
    /// Of those, the ones that resolve to no file (broken links).
    pub wikilinks_unresolved: usize,
    /// `![[embeds]]` in note bodies.
    pub embeds: usize,
    /// Of those, the ones that resolve to no file.
    pub embeds_unresolved: usize,
    /// Distinct (source note → destination note) pairs, see [`Vault::edges`].
    pub graph_edges: usize,
    /// Notes that no note links to (a note linking to itself by name has a link).
    pub notes_without_incoming: usize,
    /// Notes with neither incoming nor outgoing edges.
    pub orphans: usize,
    /// Distinct tags, inline and frontmatter, compared case-insensitively.
    pub tags_distinct: usize,
    /// Notes with at least one tag.
    pub notes_with_tags: usize,
    /// Aliases, all notes together.
    pub aliases: usize,
    /// Note names (lower-cased, without `.md`) used in more than one folder: a link by such a
    /// name is ambiguous.
    pub duplicate_name_groups: usize,
    /// Links and embeds whose target matched several files (resolved by the tie rules).
    pub links_ambiguous: usize,
}

impl VaultStats {
    /// The per-note counts of one note (summed over the vault in parallel).
    pub(crate) fn of_note(note: &super::Note, resolved: &[Resolution]) -> VaultStats {
        let mut s = VaultStats {
            notes_with_frontmatter: usize::from(note.frontmatter_block.is_some()),
            frontmatter_errors: usize::from(matches!(
                note.frontmatter,
                Frontmatter::Invalid { .. }
            )),
            notes_with_tags: usize::from(!note.tags.is_empty()),
            aliases: note.aliases.len(),
            ..VaultStats::default()
        };
        for (link, res) in note.wikilinks.iter().zip(resolved) {
            let unresolved = matches!(res, Resolution::Unresolved);
            if matches!(
                res,
                Resolution::File {
                    ambiguous: true,
                    ..
                }
            ) {
                s.links_ambiguous += 1;
            }
            if link.embed {
                s.embeds += 1;
                s.embeds_unresolved += usize::from(unresolved);
            } else {
                s.wikilinks += 1;
                s.wikilinks_unresolved += usize::from(unresolved);
            }
        }
        s
    }

    #[allow(clippy::needless_pass_by_value)] // the shape `reduce` folds with
    pub(crate) fn add(mut self, o: VaultStats) -> VaultStats {
        self.notes_with_frontmatter += o.notes_with_frontmatter;
        self.frontmatter_errors += o.frontmatter_errors;
        self.notes_with_tags += o.notes_with_tags;
        self.aliases += o.aliases;
        self.links_ambiguous += o.links_ambiguous;
        self.embeds += o.embeds;
        self.embeds_unresolved += o.embeds_unresolved;
        self.wikilinks += o.wikilinks;
        self.wikilinks_unresolved += o.wikilinks_unresolved;
        self
    }

    /// The counts kept beside the index file `index` ([`keep`]) and the id of the index they
    /// were counted from: they are the vault's counts while [`VaultStats::counted`] finds
    /// that index current. `None` when none were kept (or the file is damaged).
    ///
    /// [`keep`]: VaultStats::keep
    pub fn kept(index: &Path) -> Option<(IndexId, VaultStats)> {
        let kept: Kept = serde_json::from_slice(&std::fs::read(kept_path(index)).ok()?).ok()?;
        Some((kept.index, kept.stats))
    }

    /// Keeps these counts of `vault` beside the index it was opened with, for [`kept`] to give
    /// back; nothing is written when the vault's index does not describe
    /// it exactly, or when the same counts are kept already. A failed write only costs time.
    ///
    /// [`kept`]: VaultStats::kept
    pub fn keep(&self, vault: &Vault) {
        let (Some(index), Some(id)) = (vault.origin.index.as_deref(), vault.index_id()) else {
            return;
        };
        let path = kept_path(index);
        let kept = Kept {
            index: id,
            stats: self.clone(),
        };
        let Ok(bytes) = serde_json::to_vec(&kept) else {
            return;
        };
        if std::fs::read(&path).is_ok_and(|old| old == bytes) {
            return;
        }
        if let Err(e) = crate::index::write_unsynced(&path, &bytes) {
            tracing::info!(
                "could not keep the vault's counts in {}: {e}",
                path.display()
            );
        }
    }

    /// Counts `vault` (in parallel over its notes).
    pub fn of(vault: &Vault) -> VaultStats {
        use rayon::prelude::*;
        let mut s = vault
            .notes
            .par_iter()
            .zip(&vault.resolved)
            .map(|(note, resolved)| VaultStats::of_note(note, resolved))
            .reduce(VaultStats::default, VaultStats::add);
        s.notes = vault.notes.len();
        s.attachments = vault.attachments().count();
        // both keyed by borrowed text where it can be: a tag already in lower case, and each
        // note's name from the file table's lower-cased path
        let mut tags: FxHashSet<std::borrow::Cow<str>> = FxHashSet::default();
        // per lower-cased name: the first folder seen, and whether another folder has it too
        let mut names: FxHashMap<&str, (&str, bool)> = FxHashMap::default();
        for (note, &file) in vault.notes.iter().zip(&vault.note_file_ids) {
            for t in &note.tags {
                if t.bytes().all(|b| b.is_ascii() && !b.is_ascii_uppercase()) {
                    tags.insert(std::borrow::Cow::Borrowed(t));
                } else {
                    tags.insert(std::borrow::Cow::Owned(t.to_lowercase()));
                }
            }
            let lower = vault.files.lower_path(file);
            let name = lower.rsplit('/').next().unwrap_or(lower);
            let name = name.strip_suffix(".md").unwrap_or(name);
            let seen = names.entry(name).or_insert((note.folder(), false));
            if seen.0 != note.folder() {
                seen.1 = true;
            }
        }
        let edges = vault.edges();
        s.graph_edges = edges.len();
        let mut has_in = vec![false; vault.notes.len()];
        let mut has_out = vec![false; vault.notes.len()];
        for &(a, b) in &edges {
            has_out[a] = true;
            has_in[b] = true;
        }
        s.notes_without_incoming = has_in.iter().filter(|&&x| !x).count();
        s.orphans = has_in
            .iter()
            .zip(&has_out)
            .filter(|&(&i, &o)| !i && !o)
            .count();
        s.tags_distinct = tags.len();
        s.duplicate_name_groups = names.values().filter(|f| f.1).count();
        s
    }
}

/// The counts kept beside an index, with the id of the index they were counted from.
#[derive(Serialize, Deserialize)]
struct Kept {
    index: IndexId,
    stats: VaultStats,
}

/// Where the counts are kept: `<index>.stats`, beside the index.
fn kept_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_os_string();
    name.push(".stats");
    PathBuf::from(name)
}
