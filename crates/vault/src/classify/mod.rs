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
//! between the best folder and the next is the confidence; [`Model::calibrate`] finds, by
//! leave-one-out over filed notes, the margin above which filing reaches a precision target.
//!
//! Pure: the caller supplies each note's text; nothing here reads the disk.

use std::borrow::Cow;
use std::ops::Range;

use rustc_hash::{FxHashMap, FxHashSet};
use serde::Serialize;

use super::Vault;
use super::note::Note;

/// The version of what a note's content features are and of how a calibration is computed:
/// stored features and calibrations of another version are not reused, so a crew that reads
/// notes or calibrates differently does not inherit an older one's results.
pub const VERSION: u32 = 7;

/// Neighbours that vote.
const K: usize = 10;
/// A feature in more than this share of the documents says nothing about where a note goes.
const MAX_DF_SHARE: f64 = 0.6;
/// Short lines (a template's stock lines) are features up to this many characters.
const LINE_FEATURE_CHARS: usize = 80;

/// Weights of the feature families, relative to a body word.
const W_TITLE: f32 = 2.0;
const W_KEY: f32 = 1.5;
const W_VALUE: f32 = 2.0;
const W_TAG: f32 = 2.5;
const W_HEADING: f32 = 1.0;
const W_LINE: f32 = 1.0;
const W_LINK_FOLDER: f32 = 3.0;
/// Spread over the other notes each note linking to this one links to.
const W_COCITED: f32 = 16.0;
/// Spread over the other notes listed in the same paragraph, list or section as this one, in
/// each note linking to it.
const W_LISTED: f32 = 16.0;
/// A note with more links than this cites nothing beside anything.
const MAX_LINKS_TO_COCITE: usize = 1000;
const W_SHAPE: f32 = 1.0;
/// The year and the month of a date in the note's name.
const W_DATE: f32 = 2.0;

/// The words of `text` as filing reads them: runs of letters and digits, 3 to 30 characters,
/// not all digits.
pub fn tokens(text: &str) -> impl Iterator<Item = &str> + '_ {
    text.split(|c: char| !c.is_alphanumeric()).filter(|w| {
        let n = w.chars().count();
        (3..=30).contains(&n) && !w.chars().all(|c| c.is_ascii_digit())
    })
}

/// `text` without web addresses and link destinations: their pieces (`20plugins`, a hash's
/// `573e7a`) are no words of the note, and a folder whose notes link to one site would
/// otherwise claim every note citing it.
fn without_addresses(text: &str) -> Cow<'_, str> {
    let starts = |at: usize| {
        let rest = &text[at..];
        rest.starts_with("http://")
            || rest.starts_with("https://")
            || rest.starts_with("www.")
            || rest.starts_with("](")
    };
    if !text.contains("://") && !text.contains("www.") && !text.contains("](") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut kept_from = 0;
    let mut at = 0;
    while at < text.len() {
        if text.is_char_boundary(at) && starts(at) {
            out.push_str(&text[kept_from..at]);
            let skip = if text[at..].starts_with("](") { 2 } else { 0 };
            let end = text[at + skip..]
                .find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | ']' | '"' | '<'))
                .map_or(text.len(), |n| at + skip + n);
            out.push(' ');
            at = end.max(at + 1);
            kept_from = at;
        } else {
            at += 1;
        }
    }
    out.push_str(&text[kept_from.min(text.len())..]);
    Cow::Owned(out)
}

/// A feature: its family (`w` word, `k` key, `v` value, `g` tag, `h` heading, `l` line, `f`
/// linked folder, `c` co-cited folder, `b` folder listed with, `s` name shape) and its text,
/// lower-cased, hashed without allocating.
pub type Feature = u64;

fn feature(family: char, parts: &[&str]) -> Feature {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u32(family as u32);
    for p in parts {
        for c in p.chars().flat_map(char::to_lowercase) {
            h.write_u32(c as u32);
        }
        h.write_u8(0xff);
    }
    // FxHash's low bits are weak: spread them for the hash tables the features go into; the
    // top byte says the family, so a model can tell a note's structure from its words
    let spread = h
        .finish()
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29);
    (spread >> 8) | (u64::from(family as u8) << 56)
}

/// The family a feature was made in (see [`Feature`]).
fn family_of(f: Feature) -> u8 {
    (f >> 56) as u8
}

/// Hallmarks of a folder a note must share to be filed there by likeness, unless one is
/// strong: a feature at least this share of whose notes are in the folder.
const HALLMARKS: usize = 2;
const STRONG_HALLMARK: f32 = 0.8;

/// Families that make a note's form: frontmatter keys, headings, short stock lines.
const STRUCTURE: [u8; 3] = [b'k', b'h', b'l'];
/// A folder's signature: structure found in at least this share of its notes, when it has
/// [`SIGNATURE_MIN_NOTES`] or more (a template, a boilerplate line, a key all of them carry).
const SIGNATURE_SHARE: f32 = 0.8;
const SIGNATURE_MIN_NOTES: u32 = 3;

/// Collects a note's features; with `names`, also how each reads (for explaining one note).
struct Collector<'a> {
    weights: FxHashMap<Feature, f32>,
    names: Option<&'a mut FxHashMap<Feature, String>>,
}

impl Collector<'_> {
    fn add(&mut self, family: char, parts: &[&str], w: f32) {
        let f = feature(family, parts);
        *self.weights.entry(f).or_default() += w;
        if let Some(names) = self.names.as_deref_mut() {
            names
                .entry(f)
                .or_insert_with(|| format!("{family}:{}", parts.concat().to_lowercase()));
        }
    }
}

/// Keys whose values are dates, ids or free text: their values say nothing about a folder.
fn volatile_key(key: &str) -> bool {
    matches!(
        key.to_ascii_lowercase().as_str(),
        "date"
            | "created"
            | "updated"
            | "modified"
            | "id"
            | "uid"
            | "title"
            | "aliases"
            | "alias"
            | "tags"
            | "tag"
            | "filed-date"
            | "location"
            | "status"
            | "cssclass"
            | "cssclasses"
    )
}

/// Every shape [`name_shapes`] gives.
const NAME_SHAPES: [&str; 5] = ["dated", "numbered", "snake", "oneword", "long"];

/// The shape of a note's name: dated, numbered, snake_case, and so on.
fn name_shapes(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let b = name.as_bytes();
    if b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
    {
        out.push("dated");
    } else if b.first().is_some_and(u8::is_ascii_digit) {
        out.push("numbered");
    }
    if name.contains('_') && !name.contains(' ') {
        out.push("snake");
    }
    if !name.contains(' ') && name.chars().any(char::is_uppercase) && name.len() > 3 {
        out.push("oneword");
    }
    if name.split_whitespace().count() >= 5 {
        out.push("long");
    }
    out
}

/// The year and month of the first date in a note's name: `2024-01-15`, `2024_01`,
/// `2024.01.15`, or the start of a run of at least 8 digits with a valid month and day
/// (`20240115`, a zettel id `202401151230`), from 1900 to 2099.
fn name_date(name: &str) -> Option<(&str, &str)> {
    let b = name.as_bytes();
    let digits_at = |at: usize, n: usize| {
        b.get(at..at + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let month_ok = |m: &[u8]| matches!((m[0], m[1]), (b'0', b'1'..=b'9') | (b'1', b'0'..=b'2'));
    (0..b.len()).find_map(|at| {
        let starts_run = at == 0 || !b[at - 1].is_ascii_digit();
        let century = b.get(at..at + 2).is_some_and(|c| c == b"19" || c == b"20");
        if !starts_run || !century || !digits_at(at, 4) {
            return None;
        }
        let run = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        let month_at = match run {
            4 if matches!(b.get(at + 4), Some(b'-' | b'_' | b'.')) && digits_at(at + 5, 2) => {
                let after = b.get(at + 7);
                after
                    .is_none_or(|c| !c.is_ascii_digit())
                    .then_some(at + 5)?
            }
            // a compact run needs a day too: `19201080` is a number, not October 1920
            8.. if matches!(
                (b[at + 6], b[at + 7]),
                (b'0', b'1'..=b'9') | (b'1' | b'2', _) | (b'3', b'0' | b'1')
            ) =>
            {
                at + 4
            }
            _ => return None,
        };
        month_ok(&b[month_at..month_at + 2])
            .then(|| (&name[at..at + 4], &name[month_at..month_at + 2]))
    })
}

/// Where a path-like value's parents end: at each `/` with something before and after it
/// (`docs/sync/setup` → `docs`, `docs/sync`), except after a `:` or another `/` (a URL's
/// `https://host`, a drive's `c:/`) and before another `/`.
fn parent_cuts(value: &str) -> impl Iterator<Item = usize> + '_ {
    let b = value.as_bytes();
    value
        .match_indices('/')
        .map(|(at, _)| at)
        .filter(move |&at| {
            at > 0 && !matches!(b[at - 1], b':' | b'/') && b.get(at + 1).is_some_and(|&n| n != b'/')
        })
}

/// The folder part of a vault-relative path (`""` at the root).
pub fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The raw features of note `idx` of `vault`: (feature, count × family weight), sorted by
/// feature. `body` is the note's text, read by the caller (through a
/// [`NoteSource`](crate::NoteSource), for instance). With `names`, each feature's readable
/// text is recorded too, for [`Model::guess`] to explain its ranking.
///
/// The same as [`with_links`] over [`content_features`]: what the note's own text and name
/// give, which a cache can keep while the note is unchanged, and the folders of its linked
/// notes, which change with other notes.
pub fn features(
    vault: &Vault,
    idx: usize,
    body: &str,
    mut names: Option<&mut FxHashMap<Feature, String>>,
) -> Vec<(Feature, f32)> {
    let content = content_features(&vault.notes[idx], body, names.as_deref_mut());
    with_links(vault, idx, content, names)
}

/// The features a note's name, body and frontmatter give (every family but linked folders),
/// sorted by feature; `body` is its text after the frontmatter.
pub fn content_features(
    note: &Note,
    body: &str,
    names: Option<&mut FxHashMap<Feature, String>>,
) -> Vec<(Feature, f32)> {
    let mut c = Collector {
        weights: FxHashMap::default(),
        names,
    };
    for t in tokens(note.name()) {
        c.add('w', &[t], W_TITLE);
    }
    for t in tokens(&without_addresses(body)) {
        c.add('w', &[t], 1.0);
    }
    if let Some(map) = note.properties() {
        for (k, v) in map {
            let Some(k) = k.as_str() else { continue };
            c.add('k', &[k], W_KEY);
            if volatile_key(k) {
                continue;
            }
            if let Some(value) = super::note::scalar_to_string(v) {
                let value = value.trim();
                if !value.is_empty() && value.chars().count() <= 40 {
                    c.add('v', &[k, "=", value], W_VALUE);
                    // a path-like value is also each of its parents: `docs/sync/setup` is
                    // also `docs/sync` and `docs`, as a nested tag is its parents
                    for at in parent_cuts(value) {
                        c.add('v', &[k, "=", &value[..at]], W_VALUE);
                    }
                }
            }
        }
    }
    for tag in &note.tags {
        // the tag and each parent: `#area/health` is also `#area`
        for (at, _) in tag.match_indices('/') {
            c.add('g', &[&tag[..at]], W_TAG);
        }
        c.add('g', &[tag], W_TAG);
    }
    for h in &note.headings {
        let t = h.text.trim();
        if !t.is_empty() && t.chars().count() <= 60 {
            c.add('h', &[t], W_HEADING);
        }
    }
    for line in body.lines() {
        let t = line.trim();
        let n = t.chars().count();
        if (4..=LINE_FEATURE_CHARS).contains(&n) && t.chars().any(char::is_alphabetic) {
            c.add('l', &[t], W_LINE);
        }
    }
    for shape in name_shapes(note.name()) {
        c.add('s', &[shape], W_SHAPE);
    }
    // a daily note's year and month: where notes are kept by date (`Journal/2024/01`), they
    // are what places it; where they are not, they spread over the folders and weigh little
    if let Some((year, month)) = name_date(note.name()) {
        c.add('d', &[year], W_DATE);
        c.add('d', &[year, "-", month], W_DATE);
    }
    sorted(c.weights)
}

/// `content` (from [`content_features`]) with the folders of the notes note `idx` links with
/// added: the note's full features, sorted by feature.
pub fn with_links(
    vault: &Vault,
    idx: usize,
    content: Vec<(Feature, f32)>,
    names: Option<&mut FxHashMap<Feature, String>>,
) -> Vec<(Feature, f32)> {
    add_links(vault, idx, content, &vault.links_to(idx), names)
}

/// What the link features of many notes need, gathered once for the vault: each note's
/// linked-folder feature, the notes linking to it and the notes it links to.
pub struct LinkGraph {
    folder: Vec<Feature>,
    backlinks: Vec<Vec<usize>>,
    outlinks: Vec<Vec<usize>>,
    /// For each note, the folders of the notes it links to: (linked-folder feature, notes).
    outfolders: Vec<Vec<(Feature, u32)>>,
    /// Every block (paragraph, list or section) listing two notes or more.
    blocks: Vec<Listing>,
    /// The blocks each note is listed in by a wikilink, in the order of the notes listing it
    /// and then of their blocks: those of note `n` are `listed_in[listed_at[n]..listed_at[n +
    /// 1]]`.
    listed_at: Vec<usize>,
    listed_in: Vec<u32>,
}

/// A block writing more links than this lists the vault rather than a neighbourhood (see
/// [`lists_the_vault`]): nothing is listed with anything in it.
const MAX_LINKS_TO_LIST: usize = MAX_LINKS_TO_COCITE;

/// Where a note's wikilinks and Markdown links in `block` are (links are in text order, so
/// their blocks never decrease).
fn block_ranges(note: &Note, block: u32) -> (Range<usize>, Range<usize>) {
    let wiki = &note.wikilinks;
    let md = &note.markdown_links;
    (
        wiki.partition_point(|l| l.block < block)..wiki.partition_point(|l| l.block <= block),
        md.partition_point(|l| l.block < block)..md.partition_point(|l| l.block <= block),
    )
}

/// How many links a note writes in `block`, resolved or not.
fn links_written_in(note: &Note, block: u32) -> usize {
    let (wiki, md) = block_ranges(note, block);
    wiki.len() + md.len()
}

/// What a block lists: (notes listed, their folders as [`folder_counts`]).
type Listing = (u32, Vec<(Feature, u32)>);

/// One block's listing from its resolved links (note, by a wikilink), deduplicated; `None`
/// when it lists fewer than two notes or writes more than [`MAX_LINKS_TO_LIST`] links.
fn listing(
    note: &Note,
    block: u32,
    links: &[(usize, bool)],
    mut folder: impl FnMut(usize) -> Feature,
) -> Option<Listing> {
    if links.len() < 2 || links_written_in(note, block) > MAX_LINKS_TO_LIST {
        return None;
    }
    let counts = folder_counts(links.iter().map(|&(t, _)| folder(t)));
    Some((links.len() as u32, counts))
}

/// Co-citation within a block: a note listed in a block with others gets [`W_LISTED`] spread
/// over their folders. `own` is the linked-folder feature of the note listed; (folder, weight)
/// in folder order.
fn listed_weights((listed, folders): &Listing, own: Feature, out: &mut Vec<(Feature, f32)>) {
    let others = (listed - 1) as f32;
    for &(f, n) in folders {
        let n = n - u32::from(f == own);
        if n > 0 {
            out.push((f, W_LISTED * n as f32 / others));
        }
    }
}

/// A note's resolved links grouped by block: (block, its links (note, by a wikilink), each
/// note once, a wikilink preferred), blocks in order.
fn blocks_of(mut cited: Vec<Cited>) -> Vec<(u32, Vec<(usize, bool)>)> {
    cited.sort_unstable_by_key(|&(t, b, wiki)| (b, t, !wiki));
    cited.dedup_by_key(|&mut (t, b, _)| (b, t));
    cited
        .chunk_by(|a, b| a.1 == b.1)
        .map(|c| (c[0].1, c.iter().map(|&(t, _, wiki)| (t, wiki)).collect()))
        .collect()
}

/// A link as co-citation sees it: (the note linked, the block the link is written in (see
/// [`WikiLink::block`](crate::WikiLink::block)), whether it is a wikilink).
type Cited = (usize, u32, bool);

/// The notes note `idx` links to, by wikilinks and Markdown links.
fn cited_blocks(vault: &Vault, idx: usize) -> Vec<Cited> {
    let note = &vault.notes[idx];
    cited_in(
        vault,
        idx,
        0..note.wikilinks.len(),
        0..note.markdown_links.len(),
    )
}

/// The notes reached by note `idx`'s wikilinks `wiki` and Markdown links `md` (ranges of its
/// lists), itself left out.
fn cited_in(vault: &Vault, idx: usize, wiki: Range<usize>, md: Range<usize>) -> Vec<Cited> {
    let note = &vault.notes[idx];
    vault.resolved[idx][wiki.clone()]
        .iter()
        .zip(&note.wikilinks[wiki])
        .filter_map(|(r, l)| Some((r.file()?, l.block, true)))
        .chain(note.markdown_links[md].iter().filter_map(|l| {
            let f = super::rewrite::resolve_any(&vault.files, &note.path, &l.target, true)?;
            Some((f, l.block, false))
        }))
        .filter_map(|(f, b, wiki)| Some((vault.note_of_file(f)?, b, wiki)))
        .filter(|&(n, _, _)| n != idx)
        .collect()
}

/// The resolved links of note `s` in `block`, as [`blocks_of`] gives them: only that block's
/// links are resolved (a home page's other lists are not).
fn block_links(vault: &Vault, s: usize, block: u32) -> Vec<(usize, bool)> {
    let (wiki, md) = block_ranges(&vault.notes[s], block);
    blocks_of(cited_in(vault, s, wiki, md))
        .pop()
        .map(|(_, links)| links)
        .unwrap_or_default()
}

impl LinkGraph {
    /// The graph of `vault`'s links, for [`with_links_given`].
    pub fn new(vault: &Vault) -> LinkGraph {
        use rayon::prelude::*;
        let (backlinks, (folder, cited)): (_, (Vec<Feature>, Vec<Vec<Cited>>)) = rayon::join(
            || vault.backlinks(),
            || {
                rayon::join(
                    || {
                        vault
                            .notes
                            .par_iter()
                            .map(|n| feature('f', &[folder_of(&n.path)]))
                            .collect()
                    },
                    || {
                        (0..vault.notes.len())
                            .into_par_iter()
                            .map(|n| cited_blocks(vault, n))
                            .collect()
                    },
                )
            },
        );
        let outlinks: Vec<Vec<usize>> = cited
            .par_iter()
            .map(|cited| {
                let mut outs: Vec<usize> = cited.iter().map(|&(t, _, _)| t).collect();
                outs.sort_unstable();
                outs.dedup();
                outs
            })
            .collect();
        // each note's blocks, gathered source by source in note order and laid out by the
        // note listed
        let per_source: Vec<_> = cited
            .into_par_iter()
            .enumerate()
            .map(|(s, c)| {
                let (mut blocks, mut listed) = (Vec::new(), Vec::new());
                if c.len() < 2 {
                    return (blocks, listed);
                }
                for (block, links) in blocks_of(c) {
                    let note = &vault.notes[s];
                    let Some(l) = listing(note, block, &links, |t| folder[t]) else {
                        continue;
                    };
                    let local = blocks.len() as u32;
                    blocks.push(l);
                    listed.extend(links.iter().filter(|l| l.1).map(|&(t, _)| (t, local)));
                }
                (blocks, listed)
            })
            .collect();
        let mut listed_at = vec![0usize; vault.notes.len() + 1];
        for &(t, _) in per_source.iter().flat_map(|p| &p.1) {
            listed_at[t + 1] += 1;
        }
        for n in 0..vault.notes.len() {
            listed_at[n + 1] += listed_at[n];
        }
        let mut next = listed_at.clone();
        let mut listed_in = vec![0u32; listed_at[vault.notes.len()]];
        let mut blocks = Vec::new();
        for (source_blocks, listed) in per_source {
            let first = blocks.len() as u32;
            for (t, local) in listed {
                listed_in[next[t]] = first + local;
                next[t] += 1;
            }
            blocks.extend(source_blocks);
        }
        let outfolders = outlinks
            .par_iter()
            .enumerate()
            .map(|(s, outs): (usize, &Vec<usize>)| {
                if lists_the_vault(vault, s) {
                    return Vec::new();
                }
                folder_counts(outs.iter().map(|&t| folder[t]))
            })
            .collect();
        LinkGraph {
            folder,
            backlinks,
            outlinks,
            outfolders,
            blocks,
            listed_at,
            listed_in,
        }
    }
}

/// The co-citation feature of a folder, from its linked-folder feature: a note cited beside
/// notes of that folder.
fn cocited(folder_feature: Feature) -> Feature {
    (folder_feature ^ 0xC0C1_7ED0_F01D_E125)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
}

/// The listed-with feature of a folder, from its linked-folder feature: a note listed in the
/// same paragraph, list or section as notes of that folder.
fn listed(folder_feature: Feature) -> Feature {
    (folder_feature ^ 0x1157_ED00_B10C_5EC7)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(41)
}

/// [`with_links`] for many notes, with the vault's links gathered once in `graph` rather than
/// looked up note by note.
pub fn with_links_given(
    idx: usize,
    content: Vec<(Feature, f32)>,
    graph: &LinkGraph,
) -> Vec<(Feature, f32)> {
    let mut links: FxHashMap<Feature, f32> = FxHashMap::default();
    let incoming = &graph.backlinks[idx];
    // the same notes as `linked_notes`, from what the graph already resolved
    let mut linked: Vec<usize> = graph.outlinks[idx]
        .iter()
        .chain(incoming.iter().filter(|&&n| n != idx))
        .copied()
        .collect();
    linked.sort_unstable();
    linked.dedup();
    for other in linked {
        *links.entry(graph.folder[other]).or_default() += W_LINK_FOLDER;
    }
    let source = |s: usize| {
        (
            Cow::Borrowed(graph.outlinks[s].as_slice()),
            Cow::Borrowed(graph.outfolders[s].as_slice()),
        )
    };
    for (folder, w) in cocited_folders(idx, graph.folder[idx], incoming, source) {
        *links.entry(cocited(folder)).or_default() += w;
    }
    let mut weights = Vec::new();
    for &b in &graph.listed_in[graph.listed_at[idx]..graph.listed_at[idx + 1]] {
        listed_weights(&graph.blocks[b as usize], graph.folder[idx], &mut weights);
    }
    for (folder, w) in weights {
        *links.entry(listed(folder)).or_default() += w;
    }
    merge_sorted(content, sorted(links))
}

/// The link features of note `idx` added to `content`; `backlinks` are the wikilinks reaching
/// it, as [`Vault::links_to`] gives them (linking note, index in its wikilinks).
fn add_links(
    vault: &Vault,
    idx: usize,
    content: Vec<(Feature, f32)>,
    backlinks: &[(usize, usize)],
    names: Option<&mut FxHashMap<Feature, String>>,
) -> Vec<(Feature, f32)> {
    // `content` is already in feature order: the few link features are gathered apart and
    // merged in, rather than every content feature hashed again
    let mut links = Collector {
        weights: FxHashMap::default(),
        names,
    };
    let incoming: Vec<usize> = backlinks.iter().map(|&(s, _)| s).collect();
    for other in linked_notes(vault, idx, incoming.iter().copied()) {
        links.add('f', &[folder_of(&vault.notes[other].path)], W_LINK_FOLDER);
    }
    // the folders' names, for explaining one note's ranking
    let mut folder_names: FxHashMap<Feature, &str> = FxHashMap::default();
    let mut folder_feature = |n: usize| {
        let folder = folder_of(&vault.notes[n].path);
        let f = feature('f', &[folder]);
        folder_names.insert(f, folder);
        f
    };
    let own = folder_feature(idx);
    let source = |s: usize| {
        if lists_the_vault(vault, s) {
            return (Cow::Owned(Vec::new()), Cow::Owned(Vec::new()));
        }
        let outs = linked_notes(vault, s, std::iter::empty());
        let folders = folder_counts(outs.iter().map(|&t| folder_feature(t)));
        (Cow::Owned(outs), Cow::Owned(folders))
    };
    let cited = cocited_folders(idx, own, &incoming, source);
    // the same blocks in the same order as the graph's, so the same sums to the bit
    let mut listed_by: Vec<(usize, u32)> = backlinks
        .iter()
        .filter(|&&(s, _)| s != idx)
        .map(|&(s, i)| (s, vault.notes[s].wikilinks[i].block))
        .collect();
    listed_by.sort_unstable();
    listed_by.dedup();
    let mut listed_here = Vec::new();
    for (s, block) in listed_by {
        // a block too long to list anything is not resolved
        if links_written_in(&vault.notes[s], block) > MAX_LINKS_TO_LIST {
            continue;
        }
        let links = block_links(vault, s, block);
        if let Some(l) = listing(&vault.notes[s], block, &links, &mut folder_feature) {
            listed_weights(&l, own, &mut listed_here);
        }
    }
    for (family, (folder, w)) in cited
        .into_iter()
        .map(|c| ('c', c))
        .chain(listed_here.into_iter().map(|l| ('b', l)))
    {
        let f = if family == 'c' {
            cocited(folder)
        } else {
            listed(folder)
        };
        *links.weights.entry(f).or_default() += w;
        if let Some(names) = links.names.as_deref_mut()
            && let Some(name) = folder_names.get(&folder)
        {
            names
                .entry(f)
                .or_insert_with(|| format!("{family}:{}", name.to_lowercase()));
        }
    }
    merge_sorted(content, sorted(links.weights))
}

/// Whether note `s` has so many links that it lists the vault rather than a neighbourhood
/// (a home page linking to every note): being cited beside its other links says little, and
/// a single note's features (filing one inbox note) would resolve all of its links again.
pub fn lists_the_vault(vault: &Vault, s: usize) -> bool {
    vault.resolved[s].len() + vault.notes[s].markdown_links.len() > MAX_LINKS_TO_COCITE
}

/// How many of `folders` (linked-folder features) are each folder, in feature order.
fn folder_counts(folders: impl Iterator<Item = Feature>) -> Vec<(Feature, u32)> {
    let mut all: Vec<Feature> = folders.collect();
    all.sort_unstable();
    let mut out: Vec<(Feature, u32)> = Vec::new();
    for f in all {
        match out.last_mut() {
            Some((g, n)) if *g == f => *n += 1,
            _ => out.push((f, 1)),
        }
    }
    out
}

/// Co-citation: each note whose wikilinks reach note `idx` (`incoming`) spreads
/// [`W_COCITED`] over the other notes it links to, by their folder — a note listed beside a
/// folder's notes, in an index or a reading list, likely belongs with them. `source` gives a
/// linking note's out-links (sorted) and their [`folder_counts`]; `own` is the linked-folder
/// feature of note `idx`, which is not counted among its own co-citations. Counting by folder
/// keeps a hub linking to every note from costing a pass over its links per note. (folder,
/// weight) in a fixed order, so that sums come out the same to the bit however the links were
/// gathered.
fn cocited_folders<'g>(
    idx: usize,
    own: Feature,
    incoming: &[usize],
    mut source: impl FnMut(usize) -> (Cow<'g, [usize]>, Cow<'g, [(Feature, u32)]>),
) -> Vec<(Feature, f32)> {
    let mut sources = incoming.to_vec();
    sources.sort_unstable();
    sources.dedup();
    let mut out = Vec::new();
    for s in sources.into_iter().filter(|&s| s != idx) {
        let (outs, folders) = source(s);
        let cites_idx = outs.binary_search(&idx).is_ok();
        let others = outs.len() - usize::from(cites_idx);
        if others == 0 {
            continue;
        }
        for &(folder, n) in folders.iter() {
            let n = n - u32::from(cites_idx && folder == own);
            if n > 0 {
                out.push((folder, W_COCITED * n as f32 / others as f32));
            }
        }
    }
    out
}

/// Two feature lists in feature order, as one in feature order (weights of a feature in
/// both are added).
fn merge_sorted(a: Vec<(Feature, f32)>, b: Vec<(Feature, f32)>) -> Vec<(Feature, f32)> {
    if b.is_empty() {
        return a;
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut b = b.into_iter().peekable();
    for (f, w) in a {
        while let Some(&(g, v)) = b.peek()
            && g < f
        {
            out.push((g, v));
            b.next();
        }
        match b.next_if(|(g, _)| *g == f) {
            Some((_, v)) => out.push((f, w + v)),
            None => out.push((f, w)),
        }
    }
    out.extend(b);
    out
}

/// Features in one order whatever the hash table's, so that sums over them (a vector's
/// length) come out the same to the last bit however they were gathered.
fn sorted(weights: FxHashMap<Feature, f32>) -> Vec<(Feature, f32)> {
    let mut out: Vec<(Feature, f32)> = weights.into_iter().collect();
    out.sort_unstable_by_key(|(f, _)| *f);
    out
}

/// The notes note `idx` links to, by wikilinks and Markdown links, sorted: those whose
/// folders its link features count.
pub fn links_from(vault: &Vault, idx: usize) -> Vec<usize> {
    linked_notes(vault, idx, std::iter::empty())
}

/// The notes a note links to (wikilinks and Markdown links) and `incoming`, the notes that
/// link to it.
fn linked_notes(vault: &Vault, idx: usize, incoming: impl Iterator<Item = usize>) -> Vec<usize> {
    let mut out: Vec<usize> = cited_blocks(vault, idx)
        .into_iter()
        .map(|(n, _, _)| n)
        .chain(incoming)
        .filter(|&n| n != idx)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// One training example: (note index in [`Vault::notes`], its folder, its raw features from
/// [`features`]).
pub type Example = (usize, String, Vec<(Feature, f32)>);

/// An example with its kept features by id: (note index, folder, (feature id, raw count)).
type Counted = (usize, String, Vec<(u32, f32)>);

/// Features with the number of documents holding each.
type DocCounts = Vec<(Feature, u32)>;

/// A unit-length sparse vector: (feature id, weight), sorted by id.
type Vector = Vec<(u32, f32)>;

/// One folder's score for a note, with the features that weighed most.
#[derive(Debug, Clone, Serialize)]
pub struct FolderScore {
    /// The folder, vault-relative.
    pub folder: String,
    /// Its score: the nearest neighbours' vote and the similarity to the folder's centroid,
    /// weighted 60/40, shared among folders of a kind under one parent, plus a small bonus
    /// when the note's words name the folder. Meant to be compared between folders for one
    /// note, not between notes.
    pub score: f32,
    /// The shared features that weighed most, readable ("template line 'Designed by'").
    pub evidence: Vec<String>,
}

/// A note's ranking of folders; `margin` is the best score minus the second.
#[derive(Debug, Clone, Serialize)]
pub struct Guess {
    /// Up to three allowed folders that scored, best first (ties in folder order).
    pub ranked: Vec<FolderScore>,
    /// The best score minus the second (the best score alone when only one folder scored):
    /// the confidence that [`Model::calibrate`] sets a threshold on.
    pub margin: f32,
    /// How near the note is to the best folder's own notes: the mean similarity of its nearest
    /// notes there (up to three). A margin says which folder is likelier; this says whether the
    /// note is like that folder's notes at all, judged against how near they are to each other
    /// ([`Calibration::typical`]).
    pub nearness: f32,
    /// The note's cosine with the best folder's centroid: how like the folder as a whole it
    /// is, where [`Guess::nearness`] says how like its nearest few notes (a grocery list can be
    /// near the three notes of a folder whose examples name fruit, and far from the folder).
    pub centrality: f32,
    /// Whether the note has the best folder's form: one feature of its signature (a key,
    /// heading or stock line nearly all its notes carry), or the folder has none.
    pub shaped: bool,
    /// Whether the note shares hallmarks of the best folder (or of its siblings of a kind under
    /// one parent): two features (not the name's shape), each at least twice as common among
    /// that folder's notes as among all, in two of them or more — or one key, value, tag,
    /// date or link (not a word of the text) with 80 % of its notes there, in three or more.
    /// Without them the ranking rests on words every folder
    /// uses, on one coincidence, or on form alone.
    pub hallmark: bool,
}

impl Guess {
    /// The best folder, if any folder scored.
    pub fn best(&self) -> Option<&FolderScore> {
        self.ranked.first()
    }
}

/// The filing model of one vault: [`Model::train`] on the notes already filed (their
/// [`features`] and folders), then [`Model::guess`] a folder for a new note and file it only
/// when the guess's margin reaches what [`Model::calibrate`] found.
pub struct Model {
    vocab: FxHashMap<Feature, u32>,
    /// Feature by id.
    features: Vec<Feature>,
    idf: Vec<f32>,
    /// How each feature's notes spread over the folders, for leaving one note out.
    spread: Vec<Spread>,
    /// How many notes the IDF counted.
    trained_on: usize,
    /// Training documents: (note index, folder id, vector).
    docs: Vec<(usize, usize, Vector)>,
    folders: Vec<String>,
    /// Unnormalised sum of each folder's document vectors, and its squared length.
    sums: Vec<(FxHashMap<u32, f32>, f32)>,
    postings: Vec<Vec<(u32, f32)>>,
    /// For each folder, the feature ids of the words of its last segment.
    folder_words: Vec<Vec<u32>>,
    /// Folders named alike under different parents (`Git/excalidraw`, `Docker/excalidraw`):
    /// each such kind's folders' sums pooled.
    kinds: Vec<FxHashMap<u32, f32>>,
    /// Each folder's kind, when its last name recurs under another parent.
    kind_of: Vec<Option<u32>>,
    /// For a folder of a kind, the squared length of its kind's sum without it.
    elsewhere_norms: Vec<f32>,
    /// The folders of a kind under one parent (`Git/theory`, `Git/excalidraw`), and each
    /// such folder's family.
    families: Vec<Vec<usize>>,
    family_of: Vec<usize>,
    /// How many folders each kind has.
    kind_sizes: Vec<u32>,
    /// How many training documents each folder has.
    folder_notes: Vec<u32>,
    /// The ids of the name-shape features: form, never a hallmark.
    shape_ids: Vec<u32>,
    /// Each folder's signature (feature ids, sorted): see [`SIGNATURE_SHARE`].
    signatures: Vec<Vec<u32>>,
    /// Features dropped for being in too many notes ([`MAX_DF_SHARE`]).
    common: FxHashSet<Feature>,
}

/// How one feature's training notes spread over the folders: what its weight was learned
/// from, kept so that a leave-one-out guess can weigh the feature as if the note left out had
/// never been seen.
#[derive(Debug, Clone, Copy, Default)]
struct Spread {
    /// Notes having the feature.
    notes: u32,
    /// Of those, the notes in its commonest folder, and in the next commonest.
    top: u32,
    second: u32,
    /// The commonest folder, by the model's folder ids once trained (a feature's notes all
    /// have vectors, so their folders are the model's; [`NO_FOLDER`] only while training).
    top_folder: u32,
}

const NO_FOLDER: u32 = u32::MAX;

/// The IDF of a feature found in `df` of `n` notes.
fn idf_of(n: usize, df: u32) -> f32 {
    ((n as f64 + 1.0) / (f64::from(df) + 0.5)).ln() as f32
}

/// How much more than its IDF a feature weighs when `top` of its `df` notes share a folder.
fn concentration_factor(top: u32, df: u32) -> f32 {
    if df < 2 {
        return 1.0;
    }
    let concentration = (top - 1) as f32 / ((df - 1) as f32 + CONCENTRATION_PRIOR);
    1.0 + W_CONCENTRATION * concentration
}

/// A training document a guess leaves out, with its features' weights without it relative to
/// those learned (by the document's feature order).
struct LeftOut<'a> {
    doc: usize,
    ratios: &'a [f32],
}

/// How the two views weigh in a folder's score.
const VIEW_NEIGHBOURS: f32 = 0.6;
const VIEW_CENTROID: f32 = 0.4;
/// A bonus when the note's words name the folder.
const FOLDER_NAME_BONUS: f32 = 0.1;
/// How much of a folder's own score it keeps when its parent's is shared among kinds.
const KIND_KEEP: f32 = 0.5;
/// How many of the best folders of a kind have their parent's score shared.
const KIND_LEADING: usize = 4;
/// How much a feature that sticks to one folder weighs over its IDF: up to 1 + this.
const W_CONCENTRATION: f32 = 3.0;
/// Notes counted against a feature's concentration, so that a feature seen in few notes is
/// not taken for a folder's hallmark.
const CONCENTRATION_PRIOR: f32 = 3.0;

impl Model {
    /// Learns from `examples`: (note index, its folder, its raw features).
    pub fn train(examples: Vec<Example>) -> Model {
        let n = examples.len().max(1);
        let mut df: FxHashMap<Feature, u32> = FxHashMap::default();
        for (_, _, feats) in &examples {
            for (f, _) in feats {
                *df.entry(*f).or_default() += 1;
            }
        }
        let max_df = ((n as f64) * MAX_DF_SHARE).max(2.0) as u32;
        let mut vocab: FxHashMap<Feature, u32> = FxHashMap::default();
        let mut features = Vec::new();
        let mut idf = Vec::new();
        let (mut kept, common): (DocCounts, DocCounts) =
            df.into_iter().partition(|(_, d)| *d <= max_df || n < 20);
        kept.sort_unstable();
        for (f, d) in kept {
            vocab.insert(f, features.len() as u32);
            features.push(f);
            idf.push(idf_of(n, d));
        }
        let mut folder_ids: FxHashMap<String, usize> = FxHashMap::default();
        let mut folders: Vec<String> = Vec::new();
        let mut model = Model {
            vocab,
            features,
            idf,
            spread: Vec::new(),
            trained_on: n,
            docs: Vec::new(),
            folders: Vec::new(),
            sums: Vec::new(),
            postings: Vec::new(),
            folder_words: Vec::new(),
            kinds: Vec::new(),
            kind_of: Vec::new(),
            elsewhere_norms: Vec::new(),
            families: Vec::new(),
            family_of: Vec::new(),
            kind_sizes: Vec::new(),
            folder_notes: Vec::new(),
            shape_ids: Vec::new(),
            signatures: Vec::new(),
            common: FxHashSet::default(),
        };
        // each example's kept features by id, then how much each feature sticks to one folder
        let examples: Vec<Counted> = examples
            .into_iter()
            .map(|(idx, folder, feats)| {
                let ids = feats
                    .iter()
                    .filter_map(|(f, c)| Some((*model.vocab.get(f)?, *c)))
                    .collect();
                (idx, folder, ids)
            })
            .collect();
        let spread_folders = model.weigh_by_concentration(&examples);
        for (idx, folder, ids) in examples {
            let v = model.weigh(ids);
            if v.is_empty() {
                continue;
            }
            let fid = *folder_ids.entry(folder.clone()).or_insert_with(|| {
                folders.push(folder.clone());
                folders.len() - 1
            });
            model.docs.push((idx, fid, v));
        }
        model.folders = folders;
        // the commonest folders by the model's folder ids
        let fid_of: Vec<u32> = spread_folders
            .iter()
            .map(|f| folder_ids.get(f).map_or(NO_FOLDER, |&id| id as u32))
            .collect();
        for s in &mut model.spread {
            if s.top_folder != NO_FOLDER {
                s.top_folder = fid_of[s.top_folder as usize];
            }
        }
        model.sums = vec![(FxHashMap::default(), 0.0); model.folders.len()];
        model.postings = vec![Vec::new(); model.features.len()];
        model.folder_notes = vec![0; model.folders.len()];
        for (d, (_, fid, v)) in model.docs.iter().enumerate() {
            model.folder_notes[*fid] += 1;
            for &(f, w) in v {
                *model.sums[*fid].0.entry(f).or_default() += w;
                model.postings[f as usize].push((d as u32, w));
            }
        }
        for (sum, norm) in &mut model.sums {
            *norm = sum.values().map(|w| w * w).sum();
        }
        model.common = common.into_iter().map(|(f, _)| f).collect();
        model.pool_kinds();
        model.describe_folders();
        model
    }

    /// What the model knows of each folder beside its notes: its signature, the words naming
    /// it, and which features are name shapes.
    fn describe_folders(&mut self) {
        self.signatures = self.signatures();
        self.shape_ids = NAME_SHAPES
            .iter()
            .filter_map(|shape| self.vocab.get(&feature('s', &[shape])).copied())
            .collect();
        self.folder_words = self
            .folders
            .iter()
            .map(|f| {
                let last = f.rsplit('/').next().unwrap_or(f);
                tokens(last)
                    .filter_map(|t| self.vocab.get(&feature('w', &[t])).copied())
                    .collect()
            })
            .collect();
    }

    /// Each folder's signature: the structure features at least [`SIGNATURE_SHARE`] of its
    /// notes carry, for folders of [`SIGNATURE_MIN_NOTES`] notes or more.
    fn signatures(&self) -> Vec<Vec<u32>> {
        let mut counts: FxHashMap<(usize, u32), u32> = FxHashMap::default();
        for (_, fid, v) in &self.docs {
            for &(f, _) in v {
                if STRUCTURE.contains(&family_of(self.features[f as usize])) {
                    *counts.entry((*fid, f)).or_default() += 1;
                }
            }
        }
        let mut out = vec![Vec::new(); self.folders.len()];
        for ((fid, f), n) in counts {
            let notes = self.folder_notes[fid];
            if notes >= SIGNATURE_MIN_NOTES && n as f32 >= SIGNATURE_SHARE * notes as f32 {
                out[fid].push(f);
            }
        }
        for sig in &mut out {
            sig.sort_unstable();
        }
        out
    }

    /// Groups the folders whose last name recurs under two parents or more into kinds and
    /// pools each kind's sums.
    fn pool_kinds(&mut self) {
        let mut by_name: FxHashMap<String, Vec<usize>> = FxHashMap::default();
        for (fid, f) in self.folders.iter().enumerate() {
            if let Some((_, last)) = f.rsplit_once('/') {
                by_name.entry(last.to_lowercase()).or_default().push(fid);
            }
        }
        let mut groups: Vec<Vec<usize>> = by_name.into_values().filter(|g| g.len() >= 2).collect();
        groups.sort();
        self.kind_sizes = groups.iter().map(|g| g.len() as u32).collect();
        self.kind_of = vec![None; self.folders.len()];
        self.kinds = groups
            .iter()
            .enumerate()
            .map(|(k, g)| {
                let mut sum: FxHashMap<u32, f32> = FxHashMap::default();
                for &fid in g {
                    self.kind_of[fid] = Some(k as u32);
                    for (f, w) in &self.sums[fid].0 {
                        *sum.entry(*f).or_default() += w;
                    }
                }
                sum
            })
            .collect();
        let mut by_parent: FxHashMap<&str, usize> = FxHashMap::default();
        self.families.clear();
        self.family_of = vec![usize::MAX; self.folders.len()];
        for (fid, f) in self.folders.iter().enumerate() {
            if self.kind_of[fid].is_none() {
                continue;
            }
            let parent = f.rsplit_once('/').map_or("", |(p, _)| p);
            let family = *by_parent.entry(parent).or_insert_with(|| {
                self.families.push(Vec::new());
                self.families.len() - 1
            });
            self.families[family].push(fid);
            self.family_of[fid] = family;
        }
        // |kind − folder|² = |kind|² − 2 kind·folder + |folder|², over the folder's features
        // only, in f64: the kind less one large folder can be small beside either
        let kind_norms: Vec<f64> = self
            .kinds
            .iter()
            .map(|sum| sum.values().map(|w| f64::from(*w) * f64::from(*w)).sum())
            .collect();
        self.elsewhere_norms = (0..self.folders.len())
            .map(|fid| {
                let Some(k) = self.kind_of[fid] else {
                    return 0.0;
                };
                let kind = &self.kinds[k as usize];
                let (mut cross, mut here_norm) = (0.0f64, 0.0f64);
                for (f, w) in &self.sums[fid].0 {
                    let w = f64::from(*w);
                    cross += w * f64::from(kind.get(f).copied().unwrap_or(0.0));
                    here_norm += w * w;
                }
                (kind_norms[k as usize] - 2.0 * cross + here_norm).max(0.0) as f32
            })
            .collect();
    }

    /// Folders the model knows, with their number of examples.
    pub fn folders(&self) -> Vec<(String, usize)> {
        let counts = self.folder_notes.iter().map(|&n| n as usize);
        self.folders.iter().cloned().zip(counts).collect()
    }

    /// A fingerprint of everything a calibration depends on: the documents (their order,
    /// folders and vectors to the bit), the folders and the words naming them. Two models with
    /// the same fingerprint calibrate to the same result and guess alike.
    pub fn fingerprint(&self) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        VERSION.hash(&mut h);
        self.folders.hash(&mut h);
        self.folder_words.hash(&mut h);
        self.features.len().hash(&mut h);
        self.trained_on.hash(&mut h);
        for (_, fid, v) in &self.docs {
            fid.hash(&mut h);
            v.len().hash(&mut h);
            for (f, w) in v {
                f.hash(&mut h);
                w.to_bits().hash(&mut h);
            }
        }
        h.finish()
    }

    /// The share of the notes the model learned from whose text holds `word`.
    pub fn word_share(&self, word: &str) -> f64 {
        let f = feature('w', &[word]);
        if self.common.contains(&f) {
            return 1.0;
        }
        self.vocab.get(&f).map_or(0.0, |&id| {
            f64::from(self.spread[id as usize].notes) / self.trained_on.max(1) as f64
        })
    }

    /// How many notes the model learned from.
    pub fn examples(&self) -> usize {
        self.docs.len()
    }

    /// Scales each feature's IDF by how much the feature sticks to one folder: a word found
    /// in a dozen notes of one folder says more about where a note goes than one spread over
    /// a dozen folders, which plain IDF rates the same. The concentration is the share of the
    /// feature's notes in its commonest folder with one note taken from that folder and
    /// [`CONCENTRATION_PRIOR`] notes more counted, so that a feature seen in two notes is not
    /// taken for a folder's hallmark. Records each feature's [`Spread`] and returns the folders
    /// its `top_folder`s count (in the order of first appearance in `examples`).
    fn weigh_by_concentration(&mut self, examples: &[Counted]) -> Vec<String> {
        // the folders of each feature's notes, feature by feature in one array (a vector per
        // feature would be hundreds of thousands of allocations on a large vault)
        let mut folder_ids: FxHashMap<&str, u32> = FxHashMap::default();
        let mut names: Vec<String> = Vec::new();
        let mut start = vec![0usize; self.features.len() + 1];
        for (_, _, ids) in examples {
            for (id, _) in ids {
                start[*id as usize + 1] += 1;
            }
        }
        for i in 1..start.len() {
            start[i] += start[i - 1];
        }
        let mut fill = start.clone();
        let mut folders = vec![0u32; start[self.features.len()]];
        for (_, folder, ids) in examples {
            let fid = *folder_ids.entry(folder.as_str()).or_insert_with(|| {
                names.push(folder.clone());
                names.len() as u32 - 1
            });
            for (id, _) in ids {
                folders[fill[*id as usize]] = fid;
                fill[*id as usize] += 1;
            }
        }
        let folders_of = start.windows(2).map(|w| &folders[w[0]..w[1]]);
        let mut counts = vec![0u32; folder_ids.len()];
        self.spread = Vec::with_capacity(self.features.len());
        for (id, of) in folders_of.enumerate() {
            let mut s = Spread {
                notes: of.len() as u32,
                top_folder: NO_FOLDER,
                ..Spread::default()
            };
            for &f in of {
                counts[f as usize] += 1;
            }
            for &f in of {
                let c = std::mem::take(&mut counts[f as usize]);
                if c > s.top || (c == s.top && f < s.top_folder) {
                    s.second = s.top;
                    s.top = c;
                    s.top_folder = f;
                } else if c > s.second {
                    s.second = c;
                }
            }
            self.idf[id] *= concentration_factor(s.top, s.notes);
            self.spread.push(s);
        }
        names
    }

    /// A unit-length vector of features given by id with their raw counts.
    fn weigh(&self, ids: Vec<(u32, f32)>) -> Vector {
        let mut v: Vector = ids
            .into_iter()
            .map(|(id, c)| (id, (1.0 + c.ln().max(0.0)) * self.idf[id as usize]))
            .collect();
        let norm = v.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, w) in &mut v {
                *w /= norm;
            }
        }
        v.sort_unstable_by_key(|(f, _)| *f);
        v
    }

    fn vectorize(&self, feats: &[(Feature, f32)]) -> Vector {
        self.weigh(
            feats
                .iter()
                .filter_map(|(f, c)| Some((*self.vocab.get(f)?, *c)))
                .collect(),
        )
    }

    /// Ranks the folders for a note with raw features `feats`; `allowed` limits the folders
    /// that may be chosen. `names` (from [`features`]) makes each candidate's evidence
    /// readable.
    pub fn guess(
        &self,
        feats: &[(Feature, f32)],
        allowed: &dyn Fn(&str) -> bool,
        names: Option<&FxHashMap<Feature, String>>,
    ) -> Guess {
        let q = self.vectorize(feats);
        self.guess_vector(&q, None, allowed, names).0
    }

    /// Ranks the folders for training document `doc` as if it had never been seen: left out of
    /// the neighbours and of its folder's centroid, and its features weighed as they would
    /// have been without it (a feature only it has is unknown; one it shares keeps to its
    /// folder less). Without the reweighing, a note's own features would vouch for its folder
    /// and the calibration would promise more precision than filing new notes delivers. Not
    /// modelled: the other notes' lengths, and which features a vault one note smaller would
    /// keep (those in over 60 % of the notes are dropped, from 20 notes on).
    /// Also returns the note's [`Guess::nearness`] and [`Guess::centrality`] in its own folder.
    fn guess_left_out(&self, doc: usize, allowed: &dyn Fn(&str) -> bool) -> (Guess, (f32, f32)) {
        let (_, fid, v) = &self.docs[doc];
        let n = self.trained_on.saturating_sub(1);
        let ratios: Vec<f32> = v
            .iter()
            .map(|&(f, _)| {
                let s = self.spread[f as usize];
                let df = s.notes.saturating_sub(1);
                let learned = self.idf[f as usize];
                if df == 0 || learned <= 0.0 {
                    return 0.0;
                }
                let top = if s.top_folder == *fid as u32 {
                    (s.top - 1).max(s.second)
                } else {
                    s.top
                };
                idf_of(n, df) * concentration_factor(top, df) / learned
            })
            .collect();
        let mut q: Vector = v
            .iter()
            .zip(&ratios)
            .map(|(&(f, w), r)| (f, w * r))
            .collect();
        let norm = q.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
        if norm > 0.0 {
            for (_, w) in &mut q {
                *w /= norm;
            }
        }
        let left_out = LeftOut {
            doc,
            ratios: &ratios,
        };
        self.guess_vector(&q, Some(&left_out), allowed, None)
    }

    /// `left_out`: the training document `q` is, with its features' reweighing (`q` has its
    /// features, in its order).
    fn guess_vector(
        &self,
        q: &[(u32, f32)],
        left_out: Option<&LeftOut>,
        allowed: &dyn Fn(&str) -> bool,
        names: Option<&FxHashMap<Feature, String>>,
    ) -> (Guess, (f32, f32)) {
        let (sims, touched) = self.similarities(q, left_out);
        // asked once per folder, not once per similar document
        let allowed_folder: Vec<bool> = self.folders.iter().map(|f| allowed(f)).collect();
        let excluded_doc = left_out.map(|l| l.doc);
        let mut near: Vec<(u32, f32)> = touched
            .iter()
            .copied()
            .filter(|d| Some(*d as usize) != excluded_doc)
            .map(|d| (d, sims[d as usize]))
            .filter(|(d, s)| *s > 0.0 && allowed_folder[self.docs[*d as usize].1])
            .collect();
        let by_similarity =
            |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if near.len() > K {
            near.select_nth_unstable_by(K, by_similarity);
            near.truncate(K);
        }
        near.sort_unstable_by(by_similarity);
        let vote_total: f32 = near.iter().map(|(_, s)| s).sum();
        let mut scores: FxHashMap<usize, f32> = FxHashMap::default();
        if vote_total > 0.0 {
            for (d, s) in &near {
                *scores.entry(self.docs[*d as usize].1).or_default() +=
                    VIEW_NEIGHBOURS * s / vote_total;
            }
        }
        // centroids: cosine with each folder's sum, without the left-out document
        let mut cos: Vec<(usize, f32)> = Vec::new();
        for (fid, (sum, norm)) in self.sums.iter().enumerate() {
            if !allowed_folder[fid] {
                continue;
            }
            let (d, n2) = match left_out {
                None => (
                    q.iter()
                        .map(|(f, w)| w * sum.get(f).copied().unwrap_or(0.0))
                        .sum(),
                    *norm,
                ),
                Some(l) => self.centroid_left_out(q, l, fid),
            };
            if n2 > 1e-6 && d > 0.0 {
                cos.push((fid, d / n2.sqrt()));
            }
        }
        let cos_total: f32 = {
            let mut top: Vec<f32> = cos.iter().map(|(_, c)| *c).collect();
            top.sort_unstable_by(|a, b| b.total_cmp(a));
            top.iter().take(3).sum()
        };
        if cos_total > 0.0 {
            for (fid, c) in &cos {
                *scores.entry(*fid).or_default() += VIEW_CENTROID * c / cos_total;
            }
        }
        self.share_by_kind(q, left_out, &allowed_folder, &mut scores);
        self.name_bonus(q, &mut scores);
        let mut ranked: Vec<(usize, f32)> = scores.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let margin = match ranked.as_slice() {
            [] => 0.0,
            [one] => one.1,
            [a, b, ..] => a.1 - b.1,
        };
        let (nearness, hallmark, shaped) =
            ranked.first().map_or((0.0, false, false), |&(fid, _)| {
                (
                    self.nearness_in(&sims, &touched, fid, excluded_doc),
                    self.hallmark(q, left_out, fid),
                    self.shaped(q, fid),
                )
            });
        let centrality_of = |fid: usize| cos.iter().find(|(f, _)| *f == fid).map_or(0.0, |c| c.1);
        let centrality = ranked.first().map_or(0.0, |&(fid, _)| centrality_of(fid));
        let own = left_out.map_or((0.0, 0.0), |l| {
            let fid = self.docs[l.doc].1;
            (
                self.nearness_in(&sims, &touched, fid, excluded_doc),
                centrality_of(fid),
            )
        });
        let ranked = ranked
            .into_iter()
            .take(3)
            .map(|(fid, score)| FolderScore {
                folder: self.folders[fid].clone(),
                score,
                evidence: names.map(|n| self.evidence(q, fid, n)).unwrap_or_default(),
            })
            .collect();
        let guess = Guess {
            ranked,
            margin,
            nearness,
            centrality,
            hallmark,
            shaped,
        };
        (guess, own)
    }

    /// Words naming a folder: a small bonus to folders already in the running.
    fn name_bonus(&self, q: &[(u32, f32)], scores: &mut FxHashMap<usize, f32>) {
        for (fid, score) in scores.iter_mut() {
            let words = &self.folder_words[*fid];
            if !words.is_empty() {
                let named = words
                    .iter()
                    // (a left-out note's word no other note has weighs 0: no model knows it)
                    .filter(|w| {
                        let at = q.binary_search_by_key(*w, |(f, _)| *f);
                        at.is_ok_and(|i| q[i].1 > 0.0)
                    })
                    .count();
                *score += FOLDER_NAME_BONUS * named as f32 / words.len() as f32;
            }
        }
    }

    /// The query's similarity to each document (by document), and the documents it touched,
    /// sorted.
    fn similarities(&self, q: &[(u32, f32)], left_out: Option<&LeftOut>) -> (Vec<f32>, Vec<u32>) {
        // one slot per document (each sum is added in the order of the query's features, as a
        // hash map would): a hash map per guess cost most of a calibration
        let mut sims: Vec<f32> = vec![0.0; self.docs.len()];
        let mut touched: Vec<u32> = Vec::new();
        for (i, &(f, w)) in q.iter().enumerate() {
            // the other documents' weights of the feature, reweighed as the query's was
            let w = left_out.map_or(w, |l| w * l.ratios[i]);
            for &(d, dw) in &self.postings[f as usize] {
                let slot = &mut sims[d as usize];
                if *slot == 0.0 {
                    touched.push(d);
                }
                *slot += w * dw;
            }
        }
        touched.sort_unstable();
        touched.dedup();
        (sims, touched)
    }

    /// Whether the query has a feature of folder `fid`'s signature, or the folder has none.
    fn shaped(&self, q: &[(u32, f32)], fid: usize) -> bool {
        let has = |f: &u32| {
            let at = q.binary_search_by_key(f, |(g, _)| *g);
            at.is_ok_and(|i| q[i].1 > 0.0)
        };
        let signature = &self.signatures[fid];
        signature.is_empty() || signature.iter().any(has)
    }

    /// The mean similarity of the (up to) three documents of folder `fid` nearest to the
    /// query, from the query's similarities `sims` to the `touched` documents.
    fn nearness_in(&self, sims: &[f32], touched: &[u32], fid: usize, skip: Option<usize>) -> f32 {
        let mut top = [0.0f32; 3];
        for &d in touched {
            let (_, folder, _) = &self.docs[d as usize];
            if *folder != fid || Some(d as usize) == skip {
                continue;
            }
            let s = sims[d as usize];
            if s > top[2] {
                top[2] = s;
                top.sort_unstable_by(|a, b| b.total_cmp(a));
            }
        }
        let others = self.folder_notes[fid] as usize
            - usize::from(skip.is_some_and(|d| self.docs[d].1 == fid));
        let counted = others.clamp(1, 3);
        top.iter().take(counted).sum::<f32>() / counted as f32
    }

    /// Whether the query holds a hallmark of folder `fid` (see [`Guess::hallmark`]), counted
    /// without the left-out document.
    fn hallmark(&self, q: &[(u32, f32)], left_out: Option<&LeftOut>, fid: usize) -> bool {
        let total = self.docs.len() as f32 - left_out.map_or(0.0, |_| 1.0);
        // the folder and, where it is of a kind, its siblings under one parent: a drawing of
        // Git's is known by Git's words, which live in `Git/theory`
        let home: &[usize] = match self.kind_of[fid] {
            Some(_) => &self.families[self.family_of[fid]],
            None => std::slice::from_ref(&fid),
        };
        let left_folder = left_out.map(|l| self.docs[l.doc].1);
        let mut found = 0;
        for (i, &(f, w)) in q.iter().enumerate() {
            let s = self.spread[f as usize];
            let weight = left_out.map_or(w, |l| w * l.ratios[i]);
            let top_folder = s.top_folder as usize;
            if weight <= 0.0 || !home.contains(&top_folder) || self.shape_ids.contains(&f) {
                continue;
            }
            let own = left_folder == Some(top_folder);
            let in_folder = self.folder_notes[top_folder] as f32 - if own { 1.0 } else { 0.0 };
            // the left-out document holds every feature of the query
            let notes = s.notes - u32::from(left_out.is_some());
            let top = s.top - u32::from(own);
            if in_folder < 2.0 || notes == 0 || total <= 0.0 || top < 2 {
                continue;
            }
            let share = top as f32 / notes as f32;
            // twice its folder's share of the notes; where that folder holds most of them,
            // the share of a strong hallmark
            if share < (2.0 * in_folder / total).min(STRONG_HALLMARK) {
                continue;
            }
            // one feature the author chose (not a word of the text) nearly all of whose notes
            // are there is enough (`type: person` in People, a month in its journal folder);
            // other hallmarks take two, as one shared word is a coincidence ("list" in a
            // shopping list and in Python's notes, "eggs" in a recipe and in its examples)
            found += 1;
            // a word is the note's text, a key, value, tag, date or link the author's choice
            let chosen = !matches!(family_of(self.features[f as usize]), b'w' | b'l');
            if found >= HALLMARKS || (chosen && share >= STRONG_HALLMARK && top >= 3) {
                return true;
            }
        }
        false
    }

    /// Shares each parent's score among its children of a kind by how the note resembles each
    /// kind across the vault: a drawing of Git's goes to `Git/excalidraw` though its words are
    /// those of `Git/theory`.
    fn share_by_kind(
        &self,
        q: &[(u32, f32)],
        left_out: Option<&LeftOut>,
        allowed_folder: &[bool],
        scores: &mut FxHashMap<usize, f32>,
    ) {
        if self.kinds.is_empty() {
            return;
        }
        // only the parents of the leading folders: sharing keeps a parent's total, and a
        // guess reads its first folders (sharing every parent's would cost a calibration on a
        // vault of many projects, each with its `notes` and `meetings`, seconds)
        let mut leading: Vec<(usize, f32)> = scores
            .iter()
            .filter(|(fid, _)| self.kind_of[**fid].is_some())
            .map(|(fid, s)| (*fid, *s))
            .collect();
        leading.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut families: Vec<usize> = leading
            .iter()
            .take(KIND_LEADING)
            .map(|(fid, _)| self.family_of[*fid])
            .collect();
        families.sort_unstable();
        families.dedup();
        let vanished = left_out
            .map(|l| self.docs[l.doc].1)
            .filter(|&fid| self.folder_notes[fid] == 1);
        for family in families {
            // the children in the running: one with no score of its own is not lifted by its
            // kind alone (it would tie with the one that scored), and a folder only the
            // left-out note is in does not exist for it, nor does a kind that folder made
            let children: Vec<usize> = self.families[family]
                .iter()
                .copied()
                .filter(|&c| {
                    allowed_folder[c]
                        && scores.get(&c).is_some_and(|s| *s > 0.0)
                        && self.still_a_kind(c, vanished)
                })
                .collect();
            if children.len() < 2 {
                continue;
            }
            let total: f32 = children.iter().filter_map(|c| scores.get(c)).sum();
            if total <= 0.0 {
                continue;
            }
            let shares: Vec<f32> = children
                .iter()
                .map(|&c| self.like_kind_elsewhere(q, left_out, c))
                .collect();
            let share_total: f32 = shares.iter().sum();
            if share_total <= 0.0 {
                continue;
            }
            for (&c, share) in children.iter().zip(shares) {
                let own = scores.get(&c).copied().unwrap_or(0.0);
                let shared = total * share / share_total;
                let new = KIND_KEEP * own + (1.0 - KIND_KEEP) * shared;
                if new > 0.0 {
                    scores.insert(c, new);
                }
            }
        }
    }

    /// Whether folder `fid` is of a kind when folder `vanished` is not there: it is not that
    /// folder, and its kind has another.
    fn still_a_kind(&self, fid: usize, vanished: Option<usize>) -> bool {
        let Some(k) = self.kind_of[fid] else {
            return false;
        };
        match vanished {
            Some(v) if v == fid => false,
            Some(v) if self.kind_of[v] == Some(k) => self.kind_sizes[k as usize] > 2,
            _ => true,
        }
    }

    /// The cosine of `q` with the folders of `fid`'s kind under other parents: how much the
    /// note is of that kind, its topic's words (those of `fid`'s parent) left aside.
    fn like_kind_elsewhere(&self, q: &[(u32, f32)], left_out: Option<&LeftOut>, fid: usize) -> f32 {
        let Some(k) = self.kind_of[fid] else {
            return 0.0;
        };
        let kind = &self.kinds[k as usize];
        let here = &self.sums[fid].0;
        let value =
            |f: &u32| kind.get(f).copied().unwrap_or(0.0) - here.get(f).copied().unwrap_or(0.0);
        let norm = self.elsewhere_norms[fid];
        let (d, n2) = match left_out {
            None => (q.iter().map(|(f, w)| w * value(f)).sum(), norm),
            Some(l) => {
                let doc_folder = self.docs[l.doc].1;
                let own = doc_folder != fid && self.kind_of[doc_folder] == Some(k);
                self.dot_left_out(q, l, value, norm, own)
            }
        };
        if n2 > 1e-6 && d > 0.0 {
            d / n2.sqrt()
        } else {
            0.0
        }
    }

    /// The dot product of `q` (the left-out document, reweighed) with folder `fid`'s sum and
    /// the sum's squared length, the document taken out of the sum and its features reweighed
    /// in it as in `q`.
    fn centroid_left_out(&self, q: &[(u32, f32)], l: &LeftOut, fid: usize) -> (f32, f32) {
        let (sum, norm) = &self.sums[fid];
        let own = self.docs[l.doc].1 == fid;
        self.dot_left_out(q, l, |f| sum.get(f).copied().unwrap_or(0.0), *norm, own)
    }

    /// The dot product of `q` (the left-out document, reweighed) with a sum of documents
    /// (`value` of each feature; `norm`, its squared length) and the sum's squared length, the
    /// document taken out of the sum when it is `own` and its features reweighed in it as in
    /// `q`.
    fn dot_left_out(
        &self,
        q: &[(u32, f32)],
        l: &LeftOut,
        value: impl Fn(&u32) -> f32,
        norm: f32,
        own: bool,
    ) -> (f32, f32) {
        let (_, _, v) = &self.docs[l.doc];
        let (mut d, mut n2) = (0.0f32, norm);
        for ((&(f, qw), &(_, vw)), r) in q.iter().zip(v).zip(l.ratios) {
            let s = value(&f);
            let kept = (if own { s - vw } else { s }) * r;
            d += qw * kept;
            n2 += kept * kept - s * s;
        }
        (d, n2)
    }

    /// The query's features that weigh most in a folder's centroid, readable.
    fn evidence(
        &self,
        q: &[(u32, f32)],
        fid: usize,
        names: &FxHashMap<Feature, String>,
    ) -> Vec<String> {
        let sum = &self.sums[fid].0;
        let mut shared: Vec<(f32, u32)> = q
            .iter()
            .filter_map(|(f, w)| sum.get(f).map(|s| (w * s, *f)))
            .collect();
        shared.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        shared
            .into_iter()
            .filter_map(|(_, f)| names.get(&self.features[f as usize]))
            .take(3)
            .map(|name| readable(name))
            .collect()
    }
}

/// A feature as a person reads it.
fn readable(feature: &str) -> String {
    let (kind, rest) = feature.split_once(':').unwrap_or(("", feature));
    match kind {
        "w" => format!("word '{rest}'"),
        "k" => format!("key {rest}"),
        "v" => rest.replacen('=', ": ", 1),
        "g" => format!("tag #{rest}"),
        "h" => format!("heading '{rest}'"),
        "l" => format!("line '{}'", rest.chars().take(40).collect::<String>()),
        "f" => format!("links with notes in {rest}/"),
        "c" => format!("cited beside notes in {rest}/"),
        "b" => format!("listed with notes in {rest}/"),
        "s" => format!("{rest} name"),
        "d" => format!("dated {rest}"),
        _ => feature.to_string(),
    }
}

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

mod calibrate;
pub use calibrate::Calibration;

#[cfg(test)]
mod tests;
