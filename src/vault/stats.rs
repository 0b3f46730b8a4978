//! `crew vault stats`: the counts of a vault, by the rules of `spec/vault-conventions.md`.

use rustc_hash::{FxHashMap, FxHashSet};

use serde::Serialize;

use super::{Frontmatter, Resolution, Vault};

/// The figures `crew vault stats` prints.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct VaultStats {
    pub notes: usize,
    pub attachments: usize,
    pub notes_with_frontmatter: usize,
    pub frontmatter_errors: usize,
    pub wikilinks: usize,
    pub wikilinks_unresolved: usize,
    pub embeds: usize,
    pub embeds_unresolved: usize,
    pub graph_edges: usize,
    pub notes_without_incoming: usize,
    pub orphans: usize,
    pub tags_distinct: usize,
    pub notes_with_tags: usize,
    pub aliases: usize,
    pub duplicate_name_groups: usize,
    /// Links whose target matched several files (resolved by the tie rules).
    pub links_ambiguous: usize,
}

impl VaultStats {
    pub fn of(vault: &Vault) -> VaultStats {
        let mut s = VaultStats {
            notes: vault.notes.len(),
            attachments: vault.attachments().count(),
            ..VaultStats::default()
        };
        let mut tags = FxHashSet::default();
        // per lower-cased name: the first folder seen, and whether another folder has it too
        let mut names: FxHashMap<String, (&str, bool)> = FxHashMap::default();
        for (i, note) in vault.notes.iter().enumerate() {
            if note.frontmatter_block.is_some() {
                s.notes_with_frontmatter += 1;
            }
            if matches!(note.frontmatter, Frontmatter::Invalid { .. }) {
                s.frontmatter_errors += 1;
            }
            for (link, res) in note.wikilinks.iter().zip(&vault.resolved[i]) {
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
            if !note.tags.is_empty() {
                s.notes_with_tags += 1;
            }
            for t in &note.tags {
                if !tags.contains(t.as_str()) {
                    tags.insert(t.to_lowercase());
                }
            }
            s.aliases += note.aliases.len();
            let seen = names
                .entry(note.name().to_lowercase())
                .or_insert((note.folder(), false));
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
