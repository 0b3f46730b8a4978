//! The counts of a vault kept note by note (issue #34), so the run after a few notes changed
//! reads and parses only those notes instead of decoding every note of the index.
//!
//! Beside the index lives `<index>.tally`: for each note (in path order) the stamp it was read
//! at and its share of the counts — the per-note sums, its tags, and the notes it links to.
//! The whole vault's counts are summed again from these shares on every use (cheap: no note is
//! decoded), so a share replaced is never subtracted by hand. A share is trusted by the index's
//! own rule: the note's stamp is unchanged and settled before the file was written. Link
//! targets depend on the set of paths alone, so the file holds only while the vault has the
//! same files; anything else — other files, more than a few notes changed, a note that cannot
//! be read — counts the vault in full, as before, and writes the file anew.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::index::{self, Stamp};
use crate::resolve::FileTable;
use crate::stats::VaultStats;
use crate::{Note, Resolution, Vault, VaultError, walk};

/// Bumped when what the file holds changes.
const FORMAT: u32 = 2;

/// The per-note sums of [`VaultStats::of_note`], in a fixed order (decoded for 20,000 notes
/// on every use, so kept small: nine numbers rather than the whole struct).
type Sums = [u32; 9];

fn sums_of(s: &VaultStats) -> Sums {
    let n = |x: usize| u32::try_from(x).unwrap_or(u32::MAX);
    [
        n(s.notes_with_frontmatter),
        n(s.frontmatter_errors),
        n(s.notes_with_tags),
        n(s.aliases),
        n(s.links_ambiguous),
        n(s.embeds),
        n(s.embeds_unresolved),
        n(s.wikilinks),
        n(s.wikilinks_unresolved),
    ]
}

/// One list of numbers per note, stored flat: list `n` is `items[ends[n-1]..ends[n]]`.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Lists {
    ends: Vec<u32>,
    items: Vec<u32>,
}

impl Lists {
    fn get(&self, n: usize) -> &[u32] {
        let start = if n == 0 { 0 } else { self.ends[n - 1] as usize };
        &self.items[start..self.ends[n] as usize]
    }

    fn push(&mut self, list: &[u32]) {
        self.items.extend_from_slice(list);
        self.ends
            .push(u32::try_from(self.items.len()).unwrap_or(u32::MAX));
    }

    /// Replaces list `n`, moving the lists after it.
    fn set(&mut self, n: usize, list: &[u32]) {
        let start = if n == 0 { 0 } else { self.ends[n - 1] as usize };
        let end = self.ends[n] as usize;
        self.items.splice(start..end, list.iter().copied());
        let delta = list.len() as i64 - (end - start) as i64;
        for e in &mut self.ends[n..] {
            *e = u32::try_from(i64::from(*e) + delta).unwrap_or(u32::MAX);
        }
    }

    /// Whether there are `len` lists, in order, within the items, each number below `below`.
    fn sound(&self, len: usize, below: usize) -> bool {
        self.ends.len() == len
            && self.ends.windows(2).all(|w| w[0] <= w[1])
            && self
                .ends
                .last()
                .is_none_or(|&e| e as usize == self.items.len())
            && self.items.iter().all(|&x| (x as usize) < below)
    }
}

/// One note's share of the counts: its sums, its tags (lower-cased) and the notes it links
/// to (by position in path order), each once.
struct Share {
    sums: Sums,
    tags: Vec<String>,
    targets: Vec<u32>,
}

/// What `<index>.tally` holds: per note (in path order) its stamp and share.
#[derive(Serialize, Deserialize)]
struct Tally {
    format: u32,
    version: String,
    listing_hash: u64,
    written_ns: i128,
    /// The counts that depend on the set of files alone.
    notes: usize,
    attachments: usize,
    duplicate_name_groups: usize,
    stamps: Vec<Stamp>,
    sums: Vec<Sums>,
    /// Every tag seen, lower-cased; `tags` holds positions in it (a name no note uses any
    /// more stays until the file is written anew).
    tag_names: Vec<String>,
    tags: Lists,
    targets: Lists,
}

impl Tally {
    fn new(listing_hash: u64, stats: &VaultStats) -> Tally {
        Tally {
            format: FORMAT,
            version: env!("CARGO_PKG_VERSION").to_string(),
            listing_hash,
            written_ns: index::now_ns(),
            notes: stats.notes,
            attachments: stats.attachments,
            duplicate_name_groups: stats.duplicate_name_groups,
            stamps: Vec::new(),
            sums: Vec::new(),
            tag_names: Vec::new(),
            tags: Lists::default(),
            targets: Lists::default(),
        }
    }

    /// The position of a tag name, added when new.
    fn tag_id(&mut self, name: &str, known: &mut rustc_hash::FxHashMap<String, u32>) -> u32 {
        if let Some(&id) = known.get(name) {
            return id;
        }
        let id = u32::try_from(self.tag_names.len()).unwrap_or(u32::MAX);
        self.tag_names.push(name.to_string());
        known.insert(name.to_string(), id);
        id
    }

    fn tag_ids(&self) -> rustc_hash::FxHashMap<String, u32> {
        self.tag_names
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), u32::try_from(i).unwrap_or(u32::MAX)))
            .collect()
    }

    fn push(
        &mut self,
        stamp: Stamp,
        share: &Share,
        known: &mut rustc_hash::FxHashMap<String, u32>,
    ) {
        let tags: Vec<u32> = share.tags.iter().map(|t| self.tag_id(t, known)).collect();
        self.stamps.push(stamp);
        self.sums.push(share.sums);
        self.tags.push(&tags);
        self.targets.push(&share.targets);
    }

    fn set(
        &mut self,
        n: usize,
        stamp: Stamp,
        share: &Share,
        known: &mut rustc_hash::FxHashMap<String, u32>,
    ) {
        let tags: Vec<u32> = share.tags.iter().map(|t| self.tag_id(t, known)).collect();
        self.stamps[n] = stamp;
        self.sums[n] = share.sums;
        self.tags.set(n, &tags);
        self.targets.set(n, &share.targets);
    }

    /// The vault's counts, summed from the shares.
    fn stats(&self) -> VaultStats {
        let mut t = [0usize; 9];
        for sums in &self.sums {
            for (acc, &x) in t.iter_mut().zip(sums) {
                *acc += x as usize;
            }
        }
        let mut has_in = vec![false; self.notes];
        for &x in &self.targets.items {
            has_in[x as usize] = true;
        }
        let mut used = vec![false; self.tag_names.len()];
        for &x in &self.tags.items {
            used[x as usize] = true;
        }
        VaultStats {
            notes: self.notes,
            attachments: self.attachments,
            notes_with_frontmatter: t[0],
            frontmatter_errors: t[1],
            notes_with_tags: t[2],
            aliases: t[3],
            links_ambiguous: t[4],
            embeds: t[5],
            embeds_unresolved: t[6],
            wikilinks: t[7],
            wikilinks_unresolved: t[8],
            graph_edges: self.targets.items.len(),
            notes_without_incoming: has_in.iter().filter(|&&x| !x).count(),
            orphans: (0..self.notes)
                .filter(|&n| !has_in[n] && self.targets.get(n).is_empty())
                .count(),
            tags_distinct: used.iter().filter(|&&x| x).count(),
            duplicate_name_groups: self.duplicate_name_groups,
        }
    }

    fn load(path: &Path) -> Option<Tally> {
        let bytes = std::fs::read(path).ok()?;
        let (sum, body) = bytes.split_at_checked(8)?;
        if u64::from_le_bytes(sum.try_into().ok()?) != index::checksum(body) {
            return None;
        }
        let t: Tally = postcard::from_bytes(body).ok()?;
        let sound = t.format == FORMAT
            && t.version == env!("CARGO_PKG_VERSION")
            && t.stamps.len() == t.notes
            && t.sums.len() == t.notes
            && t.targets.sound(t.notes, t.notes)
            && t.tags.sound(t.notes, t.tag_names.len());
        sound.then_some(t)
    }

    /// Writes the file (a cache: atomically, without fsync; failing only costs time).
    fn save(&self, path: &Path) {
        let Ok(body) = postcard::to_allocvec(self) else {
            return;
        };
        let mut bytes = index::checksum(&body).to_le_bytes().to_vec();
        bytes.extend_from_slice(&body);
        if let Err(e) = index::write_unsynced(path, &bytes) {
            tracing::info!(
                "could not keep the counts by note in {}: {e}",
                path.display()
            );
        }
    }
}

/// Where the shares are kept: `<index>.tally`.
fn tally_path(index: &Path) -> PathBuf {
    let mut name = index.as_os_str().to_os_string();
    name.push(".tally");
    PathBuf::from(name)
}

/// The share of note `note` whose links resolved to `resolved`; `note_of_file` maps a file id
/// to the note's position.
fn share_of(
    note: &Note,
    resolved: &[Resolution],
    note_of_file: impl Fn(usize) -> Option<usize>,
) -> Share {
    let mut tags: Vec<String> = note.tags.iter().map(|t| t.to_lowercase()).collect();
    tags.sort_unstable();
    tags.dedup();
    let mut targets: Vec<u32> = resolved
        .iter()
        .filter_map(|r| r.file().and_then(&note_of_file))
        .filter_map(|n| u32::try_from(n).ok())
        .collect();
    targets.sort_unstable();
    targets.dedup();
    Share {
        sums: sums_of(&VaultStats::of_note(note, resolved)),
        tags,
        targets,
    }
}

/// The shares of every note of `vault` as read, when each note has the stamp it was read at
/// and no note was left out as unreadable.
fn of_vault(vault: &Vault, listing_hash: u64, stats: &VaultStats) -> Option<Tally> {
    if !vault.unreadable.is_empty() || vault.origin.stamps.len() != vault.notes.len() {
        return None;
    }
    use rayon::prelude::*;
    let shares: Vec<Share> = vault
        .notes
        .par_iter()
        .zip(&vault.resolved)
        .map(|(n, r)| share_of(n, r, |f| vault.note_of_file(f)))
        .collect();
    let mut tally = Tally::new(listing_hash, stats);
    let mut known = rustc_hash::FxHashMap::default();
    for (stamp, share) in vault.origin.stamps.iter().zip(&shares) {
        tally.push((*stamp)?, share, &mut known);
    }
    Some(tally)
}

impl VaultStats {
    /// The counts of the vault at `root` with its index at `index`: the counts kept beside a
    /// current index ([`VaultStats::kept`]); else, when only a few notes changed since the
    /// counts by note were kept, those notes read again and the counts summed from the
    /// shares; else the vault opened (refreshing its index) and counted in full. What was
    /// counted is kept for next time. The vault, when opened, is never freed (a command that
    /// counts ends after it).
    pub fn counted(root: &Path, index: &Path) -> Result<VaultStats, VaultError> {
        counted_how(root, index).map(|(stats, _)| stats)
    }
}

/// How [`VaultStats::counted`] came by its counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// Kept beside a current index.
    Kept,
    /// Summed from the notes' shares, the changed ones read again.
    ByNote,
    /// The vault opened and counted in full.
    Full,
}

fn counted_how(root: &Path, index: &Path) -> Result<(VaultStats, How), VaultError> {
    crate::check_root(root)?;
    let kept = VaultStats::kept(index);
    let path = tally_path(index);
    // with nothing kept to check against, each note's stamp comes from its open file when it
    // is read: stat-ing it in the walk as well cost 5–10 % of a cold count (BENCHMARKS.md)
    let walked = walk::walk(root, index.is_file() || path.is_file())?;
    let notes = walked.notes();
    if let Some((id, stats)) = kept
        && notes.described_by(index, id)
    {
        return Ok((stats, How::Kept));
    }
    let walk::Notes {
        ids: note_ids,
        stamps: note_stamps,
        listing_hash,
    } = notes;
    if let Some(mut tally) = Tally::load(&path).filter(|t| t.listing_hash == listing_hash)
        && let Some(read) = reread(&tally, root, &walked.paths, &note_ids, &note_stamps)
    {
        replace(&mut tally, read, &walked.paths, &note_ids);
        let stats = tally.stats();
        tally.save(&path);
        return Ok((stats, How::ByNote));
    }
    let cached = index.is_file().then(|| index::Index::load(index)).flatten();
    let (vault, unsaved) = Vault::assemble_unsaved(root, Some(index), walked, cached)?;
    let mut vault = std::mem::ManuallyDrop::new(vault);
    // the index is written while the notes are counted: neither reads what the other writes,
    // and each has a serial part (a write of megabytes, the shares' table) the other can fill
    let (current, stats) = rayon::join(
        || unsaved.as_ref().and_then(|u| vault.save_index(u)),
        || {
            let stats = VaultStats::of(&vault);
            if let Some(t) = of_vault(&vault, listing_hash, &stats) {
                t.save(&path);
            }
            stats
        },
    );
    if unsaved.is_some() {
        vault.origin.current = current;
    }
    stats.keep(&vault);
    Ok((stats, How::Full))
}

/// The notes whose stamps the tally cannot vouch for, read again (with the stamps they were
/// read at); `None` — count in full — when more than a few changed or one cannot be read.
fn reread(
    tally: &Tally,
    root: &Path,
    paths: &[String],
    note_ids: &[usize],
    now: &[Option<Stamp>],
) -> Option<Vec<(usize, Note, Stamp)>> {
    if now.len() != tally.stamps.len() {
        return None;
    }
    let changed: Vec<usize> = (0..now.len())
        .filter(|&n| {
            now[n].is_none_or(|s| s != tally.stamps[n] || !s.settled_before(tally.written_ns))
        })
        .collect();
    // a few: as the index patches (beyond that a full count is about as cheap)
    if changed.len() > (now.len() / 50).max(1) {
        return None;
    }
    changed
        .into_iter()
        .map(|n| {
            let rel = &paths[note_ids[n]];
            let (bytes, stamp) = crate::read_with_stamp(&root.join(rel)).ok()?;
            let mut note = Note::parse(rel.clone(), &bytes);
            note.modified = (stamp.mtime_ns / 1_000_000_000) as i64;
            Some((n, note, stamp))
        })
        .collect()
}

/// Replaces the shares of the notes read again; their links resolve against the same files
/// as before (`paths`, the vault's sorted listing).
fn replace(
    tally: &mut Tally,
    read: Vec<(usize, Note, Stamp)>,
    paths: &[String],
    note_ids: &[usize],
) {
    let (files, ids) = FileTable::for_links(
        paths,
        read.iter().flat_map(|(_, note, _)| {
            note.wikilinks
                .iter()
                .map(|l| (note.path.as_str(), l.target.as_str()))
        }),
    );
    let note_of_file = |f: usize| note_ids.binary_search(&f).ok();
    let mut known = tally.tag_ids();
    for (n, note, stamp) in read {
        let resolved: Vec<Resolution> = note
            .wikilinks
            .iter()
            .map(|l| files.resolve(&note.path, &l.target).mapped(&ids))
            .collect();
        let share = share_of(&note, &resolved, note_of_file);
        tally.set(n, stamp, &share, &mut known);
    }
    tally.written_ns = index::now_ns();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    /// Moves the tally's time an hour ahead, as if it had been written long after the notes
    /// last changed (the notes a test writes are all too fresh to be vouched for).
    fn age(index: &Path) {
        let path = tally_path(index);
        let mut t = Tally::load(&path).expect("tally");
        t.written_ns += 3_600 * 1_000_000_000;
        t.save(&path);
    }

    /// The counts of the vault read from scratch, with no index.
    fn fresh(root: &Path) -> VaultStats {
        VaultStats::of(&Vault::open(root).expect("open"))
    }

    /// Edits that change every kind of count — links made and broken, a note orphaned, tags
    /// added and dropped, frontmatter broken, embeds — each counted from the shares equal to a
    /// count from scratch; a new file counts in full.
    #[test]
    fn counts_by_note_match_a_full_count_after_each_edit() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("v");
        let cache = dir.path().join("cache");
        std::fs::create_dir_all(&cache).expect("mkdir");
        let index = cache.join("index.bin");
        write(&root, "a.md", "# A\n[[b]] [[missing]] #Alpha\n");
        write(
            &root,
            "b.md",
            "---\ntags: [beta]\naliases: [bee]\n---\n[[c]]\n",
        );
        write(&root, "c.md", "lonely #alpha\n");
        write(&root, "sub/b.md", "another b\n");
        write(&root, "pic.png", "png");
        let (first, how) = counted_how(&root, &index).expect("count");
        assert_eq!((first.clone(), how), (fresh(&root), How::Full));
        assert!(tally_path(&index).is_file());
        // the index written while the notes were counted is the one the counts are kept under
        let written = index::Index::load(&index).map(|i| i.id());
        assert!(written.is_some(), "the index was written");
        assert_eq!(VaultStats::kept(&index), written.map(|id| (id, first)));
        // a vault of 5 notes: one changed note at a time is "a few"
        let edits: [(&str, &str); 5] = [
            ("c.md", "now linked out [[a]] ![[pic.png]] ![[nope.png]]\n"),
            ("a.md", "# A\nno links, #Gamma #gamma\n"),
            (
                "b.md",
                "---\ntags: [beta\n---\nbroken frontmatter [[sub/b]]\n",
            ),
            ("sub/b.md", "[[b]] [[b#Heading]] [[]]\n"),
            ("c.md", "lonely again\n"),
        ];
        for (rel, text) in edits {
            age(&index);
            write(&root, rel, text);
            let (counted, how) = counted_how(&root, &index).expect("count");
            assert_eq!(how, How::ByNote, "after editing {rel}");
            assert_eq!(counted, fresh(&root), "after editing {rel}");
            // and again, from the tally written by the run before
            age(&index);
            assert_eq!(
                counted_how(&root, &index).expect("count"),
                (counted, How::ByNote)
            );
        }
        // two notes changed of five is more than a few; a new file changes the paths
        age(&index);
        write(&root, "a.md", "[[c]]\n");
        write(&root, "b.md", "[[a]]\n");
        let (counted, how) = counted_how(&root, &index).expect("count");
        assert_eq!((counted, how), (fresh(&root), How::Full));
        age(&index);
        write(&root, "d.md", "[[c]]\n");
        let (counted, how) = counted_how(&root, &index).expect("count");
        assert_eq!((counted, how), (fresh(&root), How::Full));
    }

    /// Many random edits, one note at a time, in a vault of 60 notes: each count from the
    /// shares equals a count from scratch.
    #[test]
    fn random_edits_count_as_from_scratch() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("v");
        let index = dir.path().join("index.bin");
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |n: u64| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (seed >> 33) % n
        };
        let note = |next: &mut dyn FnMut(u64) -> u64| {
            let mut text = String::new();
            if next(3) == 0 {
                text.push_str(&format!("---\ntags: [t{}]\n---\n", next(5)));
            }
            for _ in 0..next(5) {
                match next(7) {
                    0 => text.push_str(&format!("[[n{}]] ", next(70))),
                    1 => text.push_str(&format!("![[n{}]] ", next(70))),
                    2 => text.push_str(&format!("#T{} ", next(8))),
                    3 => text.push_str(&format!("[[./N{}.md]] ", next(70))),
                    4 => text.push_str(&format!("[[../n{}#h]] ", next(70))),
                    5 => text.push_str("[[#self]] "),
                    _ => text.push_str(&format!("[[dir/n{}|x]] ", next(70))),
                }
            }
            text.push('\n');
            text
        };
        // every seventh note in a folder, so links by name and by path both have work
        let rel_of = |i: u64| {
            if i.is_multiple_of(7) {
                format!("dir/n{i}.md")
            } else {
                format!("n{i}.md")
            }
        };
        for i in 0..60 {
            let text = note(&mut next);
            write(&root, &rel_of(i), &text);
        }
        assert_eq!(counted_how(&root, &index).expect("count").1, How::Full);
        for round in 0..40 {
            age(&index);
            let rel = rel_of(next(60));
            let text = note(&mut next);
            write(&root, &rel, &text);
            let (counted, how) = counted_how(&root, &index).expect("count");
            assert_eq!(how, How::ByNote, "round {round}");
            assert_eq!(counted, fresh(&root), "round {round}: {rel} = {text}");
        }
    }

    /// A damaged tally is not trusted: the vault is counted in full.
    #[test]
    fn a_damaged_tally_counts_in_full() {
        let dir = tempfile::tempdir().expect("tmp");
        let root = dir.path().join("v");
        let index = dir.path().join("index.bin");
        write(&root, "a.md", "[[b]]\n");
        write(&root, "b.md", "#x\n");
        VaultStats::counted(&root, &index).expect("count");
        let path = tally_path(&index);
        let mut bytes = std::fs::read(&path).expect("read");
        let last = bytes.len() - 1;
        bytes[last] ^= 0x55;
        std::fs::write(&path, &bytes).expect("write");
        assert!(Tally::load(&path).is_none());
        write(&root, "a.md", "no link\n");
        let (counted, how) = counted_how(&root, &index).expect("count");
        assert_eq!((counted, how), (fresh(&root), How::Full));
    }
}
