//! Where a note belongs, learned from the vault itself: every note already filed is an example
//! of where notes go.
//!
//! Each note becomes a sparse TF-IDF vector over several families of features — its words
//! (title words count double), its structure (frontmatter keys and short values, headings,
//! short lines such as a template's stock lines, tags and their parents), the folders of the
//! notes it links to and of those linking to it, the folders of the notes cited beside it (the
//! other links of the notes linking to it) and of those listed with it (the other links of the
//! same paragraph, list or section), and the shape of its name. A feature weighs by its
//! rarity (IDF) and by how much the notes having it keep to one folder. A query note gets a
//! score per folder from two views that fail differently: a vote of its nearest neighbours
//! (cosine similarity, `K` of them) and its similarity to each folder's centroid. Where folders
//! named alike sit under several parents (`Git/theory` and `Git/excalidraw`, `Docker/theory`
//! and `Docker/excalidraw`), a parent's score is shared among its children half by their own
//! scores and half by how much the note resembles each kind under the other parents: the
//! topic's words pick the parent, the kind's hallmarks the child. The margin
//! between the best folder and the next is the confidence; [`Classifier::calibrate`] finds, by
//! leave-one-out over filed notes, the margin above which filing reaches a precision target.
//!
//! Pure: the caller supplies each note's text; nothing here reads the disk.

use rustc_hash::FxHashSet;

use super::Vault;
use super::note::Note;

mod calibrate;
mod classifier;
mod features;
mod guess;
mod links;

pub use calibrate::Calibration;
use classifier::*;
pub use classifier::{Classifier, Example, FolderScore, Guess};
use features::*;
pub use features::{Feature, VERSION, content_features, each_word, features, folder_of};
use links::*;
pub use links::{LinkGraph, links_from, lists_the_vault, with_links, with_links_given};

/// Shuffles `items` in place, the same way for the same `seed` (xorshift), so a sample can be
/// drawn again exactly.
pub fn shuffle<T>(items: &mut [T], seed: u64) {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    for i in (1..items.len()).rev() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let j = (x % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// Whether `folder` is `dir` or inside it.
pub fn within(folder: &str, dir: &str) -> bool {
    folder
        .strip_prefix(dir)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Whether notes may be filed into `folder`: not the vault root, and neither one of the
/// `excluded` folders (an inbox, templates, …) nor inside one.
pub fn candidate(folder: &str, excluded: &FxHashSet<String>) -> bool {
    !folder.is_empty() && !excluded.iter().any(|e| within(folder, e))
}

#[cfg(test)]
mod tests;
