//! Link features: the folders of the notes a note links with, cites beside and is listed
//! with.

use rustc_hash::FxHashMap;

use std::borrow::Cow;
use std::ops::Range;

use super::*;

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
pub(super) const MAX_LINKS_TO_LIST: usize = MAX_LINKS_TO_COCITE;

/// Where a note's wikilinks and Markdown links in `block` are (links are in text order, so
/// their blocks never decrease).
pub(super) fn block_ranges(note: &Note, block: u32) -> (Range<usize>, Range<usize>) {
    let wiki = &note.wikilinks;
    let md = &note.markdown_links;
    (
        wiki.partition_point(|l| l.block < block)..wiki.partition_point(|l| l.block <= block),
        md.partition_point(|l| l.block < block)..md.partition_point(|l| l.block <= block),
    )
}

/// How many links a note writes in `block`, resolved or not.
pub(super) fn links_written_in(note: &Note, block: u32) -> usize {
    let (wiki, md) = block_ranges(note, block);
    wiki.len() + md.len()
}

/// What a block lists: (notes listed, their folders as [`folder_counts`]).
pub(super) type Listing = (u32, Vec<(Feature, u32)>);

/// One block's listing from its resolved links (note, by a wikilink), deduplicated; `None`
/// when it lists fewer than two notes or writes more than [`MAX_LINKS_TO_LIST`] links.
pub(super) fn listing(
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
pub(super) fn listed_weights(
    (listed, folders): &Listing,
    own: Feature,
    out: &mut Vec<(Feature, f32)>,
) {
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
pub(super) fn blocks_of(mut cited: Vec<Cited>) -> Vec<(u32, Vec<(usize, bool)>)> {
    cited.sort_unstable_by_key(|&(t, b, wiki)| (b, t, !wiki));
    cited.dedup_by_key(|&mut (t, b, _)| (b, t));
    cited
        .chunk_by(|a, b| a.1 == b.1)
        .map(|c| (c[0].1, c.iter().map(|&(t, _, wiki)| (t, wiki)).collect()))
        .collect()
}

/// A link as co-citation sees it: (the note linked, the block the link is written in (see
/// [`WikiLink::block`](crate::WikiLink::block)), whether it is a wikilink).
pub(super) type Cited = (usize, u32, bool);

/// The notes note `idx` links to, by wikilinks and Markdown links.
pub(super) fn cited_blocks(vault: &Vault, idx: usize) -> Vec<Cited> {
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
pub(super) fn cited_in(
    vault: &Vault,
    idx: usize,
    wiki: Range<usize>,
    md: Range<usize>,
) -> Vec<Cited> {
    let note = &vault.notes[idx];
    vault.resolved[idx][wiki.clone()]
        .iter()
        .zip(&note.wikilinks[wiki])
        .filter_map(|(r, l)| Some((r.file()?, l.block, true)))
        .chain(note.markdown_links[md].iter().filter_map(|l| {
            let f = crate::rewrite::resolve_any(&vault.files, &note.path, &l.target, true)?;
            Some((f, l.block, false))
        }))
        .filter_map(|(f, b, wiki)| Some((vault.note_of_file(f)?, b, wiki)))
        .filter(|&(n, _, _)| n != idx)
        .collect()
}

/// The resolved links of note `s` in `block`, as [`blocks_of`] gives them: only that block's
/// links are resolved (a home page's other lists are not).
pub(super) fn block_links(vault: &Vault, s: usize, block: u32) -> Vec<(usize, bool)> {
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
pub(super) fn cocited(folder_feature: Feature) -> Feature {
    (folder_feature ^ 0xC0C1_7ED0_F01D_E125)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(17)
}

/// The listed-with feature of a folder, from its linked-folder feature: a note listed in the
/// same paragraph, list or section as notes of that folder.
pub(super) fn listed(folder_feature: Feature) -> Feature {
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
pub(super) fn add_links(
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
pub(super) fn folder_counts(folders: impl Iterator<Item = Feature>) -> Vec<(Feature, u32)> {
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
pub(super) fn cocited_folders<'g>(
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
pub(super) fn merge_sorted(a: Vec<(Feature, f32)>, b: Vec<(Feature, f32)>) -> Vec<(Feature, f32)> {
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
pub(super) fn sorted(weights: FxHashMap<Feature, f32>) -> Vec<(Feature, f32)> {
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
pub(super) fn linked_notes(
    vault: &Vault,
    idx: usize,
    incoming: impl Iterator<Item = usize>,
) -> Vec<usize> {
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
