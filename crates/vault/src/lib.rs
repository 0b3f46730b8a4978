//! An Obsidian vault in memory, read the way Obsidian reads it.
//!
//! [`Vault::open`] walks a vault folder (hidden entries skipped, symlinks not followed), parses
//! every note once, in parallel, and resolves every `[[wikilink]]` and `![[embed]]` against the
//! vault's files. What it gives:
//!
//! - [`note`]: one parsed [`Note`] — frontmatter state and properties, links with their byte
//!   spans, tags, aliases, tasks. Flat frontmatter takes a fast path; anything else goes to a
//!   full YAML parser, with the same answers.
//! - [`markdown`]: the Markdown scanning behind it. Links and tags are never read from code,
//!   and code is found as CommonMark finds it (fences inside lists, quotes and callouts, code
//!   spans over line breaks); `%% %%` and `<!-- -->` comments are masked too.
//! - [`resolve`]: link resolution as Obsidian does it — case-insensitive, by note name, file
//!   name, vault path or path suffix, with Obsidian's tie rules when several files match.
//! - A persistent index ([`Vault::open_indexed`]) so a large vault is not parsed again while
//!   its files are unchanged.
//! - [`stats`]: the counts of a vault; [`classify`]: a filing classifier that learns from the
//!   notes already filed where a new note belongs, with [`feature_store`] keeping its per-note
//!   features and last calibration next to the index.
//! - [`edit`] and [`rewrite`]: pure text edits (frontmatter keys, link targets) and the plan of
//!   link rewrites that keeps every link pointing at the same file when files move.
//! - [`tag_edit`]: where each tag is written in a note, and renaming tags without touching any
//!   other byte.
//! - [`read`], [`hash`], [`folder_note`]: jailed reads of one file, content fingerprints, and
//!   the folder-note conventions.
//! - [`text`]: the one normaliser and tokeniser every reader of words shares.
//!
//! What it deliberately does not do: write. Nothing here changes a file on disk. A writer (crew's
//! write gate, for one) builds on it: it applies the edits this crate plans, atomically, then
//! tells the in-memory vault what changed ([`Vault::upsert_note`], [`Vault::rename_file`]) so
//! only the affected links are resolved again.
//!
//! Positions are byte offsets into the note's text (UTF-8), vault paths are relative to the
//! vault root with `/` separators, and notes and files are addressed by their index in
//! [`Vault::notes`] and [`FileTable::paths`].
//!
//! ```
//! use crew_vault::{Resolution, Vault};
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join("People"))?;
//! std::fs::write(
//!     dir.path().join("Home.md"),
//!     "Met [[Ada]] and [[Nobody]]; `[[in code]]` is no link.\n",
//! )?;
//! std::fs::write(
//!     dir.path().join("People/Ada.md"),
//!     "---\ntags: [person]\n---\nBack [[home]], see ![[portrait.png]].\n",
//! )?;
//!
//! let vault = Vault::open(dir.path())?;
//! let links: usize = vault.notes.iter().map(|n| n.wikilinks.len()).sum();
//! let broken = vault
//!     .resolved
//!     .iter()
//!     .flatten()
//!     .filter(|r| **r == Resolution::Unresolved)
//!     .count();
//! // `[[home]]` finds Home.md (case does not matter); Nobody and the missing picture do not.
//! assert_eq!((vault.notes.len(), links, broken), (2, 4, 2));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod classify;
pub mod edit;
pub mod feature_store;
pub mod folder_note;
pub mod hash;
pub(crate) mod index;
pub(crate) mod leaves;
pub mod markdown;
pub mod note;
pub mod read;
pub mod resolve;
pub mod rewrite;
pub mod stats;
pub mod tag_edit;
mod tally;
pub mod text;
mod walk;
pub(crate) mod yaml_lite;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use walk::is_crew_temp;

pub use index::IndexId;
pub use note::{Frontmatter, Note};

/// The README's example compiles (rustdoc checks it with the other doctests).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;

/// Where a note's text comes from, so analyses can read notes without knowing who holds them.
///
/// [`Vault`] reads the file on disk (jailed and regular-file-only, see
/// [`read::read_regular_file`]). A writer can answer with its pending changes laid over the disk
/// (crew's write gate does), so a dry run reads exactly what a real run would.
pub trait NoteSource: Sync {
    /// The text of the note at the vault-relative `path`, or `None` when it cannot be read.
    /// Bytes that are not UTF-8 are replaced, as [`Note::parse`] does.
    fn note_text(&self, path: &str) -> Option<String>;
}

impl NoteSource for Vault {
    fn note_text(&self, path: &str) -> Option<String> {
        read::read_regular_file(&self.root.join(path))
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }
}
pub use resolve::{FileTable, Resolution};

/// Errors reading a vault.
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    /// The vault folder does not exist.
    #[error("vault folder {0} does not exist")]
    Missing(PathBuf),
    /// The path exists but is a file, not a folder.
    #[error("{0} is not a folder; a vault is a folder of notes")]
    NotADir(PathBuf),
    /// The vault folder itself could not be listed. A single unreadable note is not an error:
    /// it is skipped and listed in [`Vault::unreadable`].
    #[error("cannot read {path}: {source}")]
    Io {
        /// The folder that could not be read.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

/// An index [`Vault::assemble_unsaved`] found stale and left to write: where, for which
/// listing, and the old file's chunks that may be copied (with which notes came from it).
struct UnsavedIndex {
    path: PathBuf,
    listing_hash: u64,
    patch: Option<(index::Reuse, Vec<bool>)>,
}

/// A vault read into memory: every note parsed, every file known, every link resolved.
///
/// Notes are addressed by their index in [`Vault::notes`], files (notes and attachments) by
/// their id in [`Vault::files`]. The vault is a snapshot: it does not watch the disk. A writer
/// that changes files reports each change ([`Vault::upsert_note`], [`Vault::add_attachment`],
/// [`Vault::rename_file`]) to keep it current.
#[derive(Debug, Clone)]
pub struct Vault {
    /// The vault folder, as given to [`Vault::open`].
    pub root: PathBuf,
    /// The notes, in path order when read (a note added later goes last).
    pub notes: Vec<Note>,
    /// Every file (notes and attachments), in path order when read (files added later go
    /// last); links resolve against it.
    pub files: FileTable,
    /// For each note, its id in `files`.
    note_file_ids: Vec<usize>,
    /// For each file id, the note index when the file is a note.
    file_note: Vec<Option<usize>>,
    /// Where each note's links point: `resolved[n][i]` is the resolution of
    /// `notes[n].wikilinks[i]` (embeds included), kept current by the change methods.
    pub resolved: Vec<Vec<Resolution>>,
    /// The links by the leaf ([`leaves::leaf`]) they name: a change to a file can only affect
    /// the links naming its leaf. Built on first use (only changes to the vault need it).
    leaf_index: std::sync::OnceLock<leaves::LeafIndex>,
    /// crew's own temporary files found by the walk (`.crew-tmp-*.part`): left by a writer
    /// killed mid-write. Never notes or attachments; a writer holding the vault's lock may
    /// remove them.
    pub stale_temps: Vec<PathBuf>,
    /// Notes that could not be read, as (vault path, why), sorted: skipped with a warning and
    /// not parsed. They stay in [`Vault::files`], so links to them still resolve; a writer
    /// should leave them alone and report them.
    pub unreadable: Vec<(String, String)>,
    /// The index the vault was opened with and each note's stamp then.
    pub(crate) origin: index::Origin,
}

impl Vault {
    /// Walks the vault at `root` and parses every note.
    ///
    /// Hidden files and folders (name starting with `.`) are skipped and symlinks are not
    /// followed. A note that cannot be read is skipped with a warning and listed in
    /// [`Vault::unreadable`]; only a missing or unreadable vault folder is an error.
    pub fn open(root: impl AsRef<Path>) -> Result<Vault, VaultError> {
        Vault::open_with(root.as_ref(), None)
    }

    /// Walks the vault at `root`, taking unchanged notes from the persistent index file at
    /// `index` and writing the refreshed index back. A missing, stale or damaged index only
    /// costs time: every note it cannot vouch for is parsed again.
    ///
    /// A note is taken from the index only when its size, nanosecond modification time and (on
    /// Unix) change time all match, and it last changed well before the index was written.
    /// The index is a private binary format; the caller only chooses where it lives (outside
    /// the vault's notes: a hidden folder such as `.crew/` is never walked).
    pub fn open_indexed(root: impl AsRef<Path>, index: &Path) -> Result<Vault, VaultError> {
        Vault::open_with(root.as_ref(), Some(index))
    }

    /// [`Vault::open_indexed`], unless the index at `index` is the one with id `id` and still
    /// describes the vault exactly (same files, every note's size and times unchanged and
    /// settled before it was written): then `None`, and no note was read or decoded, only a
    /// walk that stats every note and the index's head and stamps. For results kept under an
    /// index's id ([`Vault::index_id`]) and valid while nothing changed.
    pub fn open_unless_current(
        root: impl AsRef<Path>,
        index: &Path,
        id: IndexId,
    ) -> Result<Option<Vault>, VaultError> {
        let root = root.as_ref();
        check_root(root)?;
        if !index.is_file() {
            return Vault::open_with(root, Some(index)).map(Some);
        }
        // the index is decoded after the walk, not beside it: when nothing changed it is not
        // decoded at all
        let walked = walk::walk(root, true)?;
        if walked.notes().described_by(index, id) {
            return Ok(None);
        }
        Vault::assemble(root, Some(index), walked, index::Index::load(index)).map(Some)
    }

    fn open_with(root: &Path, index_path: Option<&Path>) -> Result<Vault, VaultError> {
        check_root(root)?;
        // Every file's path and, with an index, each note's stamp (see `walk`), while the
        // index is decoded; without an index the stat comes from the open file, so each note
        // costs one open, fstat and read.
        let has_index = index_path.is_some_and(Path::is_file);
        let (walked, cached) = rayon::join(
            || walk::walk(root, has_index),
            || {
                index_path
                    .filter(|_| has_index)
                    .and_then(index::Index::load)
            },
        );
        Vault::assemble(root, index_path, walked?, cached)
    }

    /// The vault from its walk and the index loaded beside it (see [`Vault::open_with`]).
    fn assemble(
        root: &Path,
        index_path: Option<&Path>,
        walked: walk::Walked,
        cached: Option<index::Index>,
    ) -> Result<Vault, VaultError> {
        let (mut vault, unsaved) = Vault::assemble_unsaved(root, index_path, walked, cached)?;
        if let Some(unsaved) = unsaved {
            vault.origin.current = vault.save_index(&unsaved);
        }
        Ok(vault)
    }

    /// [`Vault::assemble`] up to the index: what it would write, when it must be written, is
    /// handed back so a caller can write it while it works on the vault
    /// ([`Vault::save_index`]; the vault's [`Vault::index_id`] stays `None` until the caller
    /// sets what that returns).
    fn assemble_unsaved(
        root: &Path,
        index_path: Option<&Path>,
        walked: walk::Walked,
        cached: Option<index::Index>,
    ) -> Result<(Vault, Option<UnsavedIndex>), VaultError> {
        let has_index = cached.is_some();
        let walk::Walked {
            paths: listing,
            stamps: file_stamps,
            temps,
        } = walked;
        // file ids are positions in the sorted listing (the table keeps its order)
        let note_file_ids: Vec<usize> = (0..listing.len())
            .filter(|&i| resolve::is_note_path(&listing[i]))
            .collect();
        let note_files: Vec<&String> = note_file_ids.iter().map(|&i| &listing[i]).collect();
        let mut stamps: Vec<Option<index::Stamp>> =
            note_file_ids.iter().map(|&i| file_stamps[i]).collect();
        drop(file_stamps);
        // resolutions depend only on the set of paths: kept when it is the same
        let listing_hash = index::listing_hash(&listing);
        // the listing is sorted: the lookup maps are built from it in place, paths added after
        let build_lookups = || FileTable::lookups_of(&listing);
        let cached_count = cached.as_ref().map_or(0, index::Index::len);
        let cached_id = cached.as_ref().map(index::Index::id);
        let mut cached = cached;
        let reuse = cached.as_mut().and_then(index::Index::take_reuse);
        let same_listing = cached
            .as_ref()
            .is_some_and(|c| c.listing_hash() == listing_hash);
        let had_index = cached.is_some();
        // with an index the lookup tables are built while the entries are matched
        let (lookups, (mut slots, mut known)) = rayon::join(
            || has_index.then(build_lookups),
            || match cached {
                Some(c) => c.take_trusted(&note_files, &stamps),
                None => (vec![None; note_files.len()], vec![None; note_files.len()]),
            },
        );
        if !same_listing {
            known.iter_mut().for_each(|k| *k = None);
        }
        // which notes came from the index unchanged, for a rewrite that copies their chunks
        let from_index: Vec<bool> = match reuse {
            Some(_) => slots.iter().map(Option::is_some).collect(),
            None => Vec::new(),
        };
        // Notes not taken from the index are read and parsed in parallel straight into their
        // slots (no second array of notes: at 100,000 notes each copy costs tens of MB).
        // A note that cannot be read (no permission, gone meanwhile, no longer a regular file)
        // is skipped with a warning: one bad file must not stop every command.
        let unreadable: std::sync::Mutex<Vec<(String, String)>> = Default::default();
        let mut parse_rest =
            || parse_missing(root, &mut slots, &mut stamps, &note_files, &unreadable);
        // without an index the lookup tables are built while the notes are read
        let (fresh, lookups) = match lookups {
            Some(lookups) => (parse_rest(), lookups),
            None => rayon::join(parse_rest, build_lookups),
        };
        let fresh: usize = fresh?;
        let mut unreadable = unreadable.into_inner().unwrap_or_default();
        unreadable.sort();
        let (note_file_ids, known, stamps) = if unreadable.is_empty() {
            (note_file_ids, known, stamps)
        } else {
            // an unreadable file stays in the file table (links to it still resolve) but is
            // not a note: drop it from the arrays parallel to the notes
            let keep: Vec<bool> = slots.iter().map(Option::is_some).collect();
            (
                kept(note_file_ids, &keep),
                kept(known, &keep),
                kept(stamps, &keep),
            )
        };
        let notes: Vec<Note> = slots.into_iter().flatten().collect();
        // Rewriting the index costs about as much as encoding every note. A few changed notes
        // (up to 2 % of the vault) in an index that otherwise matches the vault one for one
        // are patched in: only the chunks holding them are encoded again, the others copied,
        // so the next run finds the index current. Failing that, they are cheaper to read
        // again next time than to save now.
        let one_for_one = had_index && same_listing && cached_count == note_files.len();
        let few = fresh <= note_files.len() / 50;
        // a note changed in the last instants could not be vouched for by the patched index
        // either (see `index`): then patching gains the next run nothing
        let now = index::now_ns();
        let settled = || {
            from_index
                .iter()
                .zip(&stamps)
                .all(|(&kept, stamp)| kept || stamp.is_some_and(|s| s.settled_before(now)))
        };
        let patch =
            reuse.filter(|_| one_for_one && few && fresh > 0 && unreadable.is_empty() && settled());
        let stale_index = !(one_for_one && few) || patch.is_some();
        drop(note_files);
        let files = lookups.with_paths(listing);
        let mut vault = Vault::from_parts(root.to_path_buf(), files, notes, note_file_ids, known);
        vault.stale_temps = temps;
        vault.unreadable = unreadable;
        vault.origin.index = index_path.map(Path::to_path_buf);
        // every note taken from the index as it is: it describes this vault exactly
        if !stale_index && fresh == 0 && vault.unreadable.is_empty() {
            vault.origin.current = cached_id;
        }
        let unsaved = index_path.filter(|_| stale_index).map(|path| UnsavedIndex {
            path: path.to_path_buf(),
            listing_hash,
            patch: patch.map(|r| (r, from_index)),
        });
        vault.origin.stamps = stamps;
        Ok((vault, unsaved))
    }

    /// Writes the index [`Vault::assemble_unsaved`] left to write; its id when it was written
    /// and describes every note.
    fn save_index(&self, unsaved: &UnsavedIndex) -> Option<IndexId> {
        let entries: Vec<index::EntryRef> = self
            .origin
            .stamps
            .iter()
            .zip(self.notes.iter().zip(&self.resolved))
            .filter_map(|(stamp, (note, resolved))| {
                Some(index::EntryRef {
                    stamp: (*stamp)?,
                    note,
                    resolved,
                })
            })
            .collect();
        let reuse = unsaved.patch.as_ref().map(|(r, kept)| (r, kept.as_slice()));
        index::save(&unsaved.path, unsaved.listing_hash, &entries, reuse)
            .filter(|_| entries.len() == self.notes.len())
    }

    /// The id of the index file this vault was opened with while that file describes every
    /// note exactly as the vault holds it (`None` without an index, when some note was read
    /// again but the index not rewritten, or once a note changed in memory): results derived
    /// from the vault may be kept under this id and trusted while
    /// [`Vault::open_unless_current`] finds it current.
    pub fn index_id(&self) -> Option<IndexId> {
        self.origin.current
    }

    /// Builds a vault from notes held in memory, without touching the disk: for tests and for
    /// tools that plan changes. `attachments` are the vault-relative paths of the other files
    /// links may point to. Notes are put in path order and every link is resolved.
    pub fn from_notes(root: PathBuf, notes: Vec<Note>, attachments: Vec<String>) -> Vault {
        let mut paths: Vec<String> = notes.iter().map(|n| n.path.clone()).collect();
        paths.extend(attachments);
        let files = FileTable::new(paths);
        let mut notes = notes;
        notes.sort_by(|a, b| a.path.cmp(&b.path));
        let ids = notes
            .iter()
            .map(|n| files.id_of(&n.path).unwrap_or(0))
            .collect();
        let known = vec![None; notes.len()];
        Vault::from_parts(root, files, notes, ids, known)
    }

    /// Assembles a vault; `known` holds resolutions still valid from the index (same files).
    fn from_parts(
        root: PathBuf,
        files: FileTable,
        notes: Vec<Note>,
        ids: Vec<usize>,
        known: Vec<Option<Vec<Resolution>>>,
    ) -> Vault {
        let mut file_note = vec![None; files.paths.len()];
        for (n, &f) in ids.iter().enumerate() {
            file_note[f] = Some(n);
        }
        use rayon::prelude::*;
        // each note's links resolve independently against the shared table
        let resolved = notes
            .par_iter()
            .zip(known)
            .map(|(n, known)| {
                known.unwrap_or_else(|| {
                    n.wikilinks
                        .iter()
                        .map(|l| files.resolve(&n.path, &l.target))
                        .collect()
                })
            })
            .collect();
        let leaf_index = std::sync::OnceLock::new();
        Vault {
            root,
            notes,
            files,
            note_file_ids: ids,
            file_note,
            resolved,
            leaf_index,
            stale_temps: Vec::new(),
            unreadable: Vec::new(),
            origin: index::Origin::default(),
        }
    }

    /// The index in [`Vault::notes`] of the note at a vault-relative path (case-insensitive;
    /// when paths differ by case alone, the exact one wins).
    pub fn note_index(&self, path: &str) -> Option<usize> {
        self.files.id_of(path).and_then(|id| self.note_of_file(id))
    }

    /// The note at a vault-relative path (case-insensitive, as [`FileTable::id_of`]).
    pub fn note(&self, path: &str) -> Option<&Note> {
        self.note_index(path).map(|i| &self.notes[i])
    }

    /// The index in [`Vault::notes`] of the file with id `file_id`, when that file is a note
    /// (`None` for attachments and unreadable notes).
    pub fn note_of_file(&self, file_id: usize) -> Option<usize> {
        self.file_note.get(file_id).copied().flatten()
    }

    /// The id in [`Vault::files`] of the note at index `note` (panics if out of range).
    pub fn file_id_of_note(&self, note: usize) -> usize {
        self.note_file_ids[note]
    }

    /// Attachments (non-note files), vault-relative.
    pub(crate) fn attachments(&self) -> impl Iterator<Item = &str> {
        self.files
            .live()
            .map(|(_, p)| p)
            .filter(|p| !resolve::is_note_path(p))
    }

    fn set_file_note(&mut self, file_id: usize, note: usize) {
        if self.file_note.len() <= file_id {
            self.file_note.resize(file_id + 1, None);
        }
        self.file_note[file_id] = Some(note);
    }

    /// The link graph's edges as `(source, destination)` note indices, de-duplicated and
    /// sorted: wikilinks and embeds that resolve to a note. Links to attachments, unresolved
    /// links and `[[#Heading]]` self-links make no edge; a note naming itself does.
    pub fn edges(&self) -> Vec<(usize, usize)> {
        use rayon::prelude::*;
        let per_source: Vec<Vec<(usize, usize)>> = self
            .resolved
            .par_iter()
            .enumerate()
            .map(|(src, links)| {
                let mut targets: Vec<usize> = links
                    .iter()
                    .filter_map(|r| r.file().and_then(|f| self.note_of_file(f)))
                    .collect();
                targets.sort_unstable();
                targets.dedup();
                targets.into_iter().map(|dst| (src, dst)).collect()
            })
            .collect();
        per_source.concat()
    }

    /// For each note (by index), the notes with an edge to it (see [`Vault::edges`]).
    pub fn backlinks(&self) -> Vec<Vec<usize>> {
        let mut back = vec![Vec::new(); self.notes.len()];
        for (src, dst) in self.edges() {
            back[dst].push(src);
        }
        back
    }

    /// Every link or embed that resolves to the note at index `note`, as `(linking note, index
    /// in its wikilinks)`, in note and link order. Only links naming the note's leaf (its file
    /// name, lower-cased, without `.md`) can resolve to it, so only those are looked at.
    pub fn links_to(&self, note: usize) -> Vec<(usize, usize)> {
        let file = self.note_file_ids[note];
        let leaf = leaves::leaf(&self.files.paths[file]);
        self.leaf_index()
            .naming(&[leaf])
            .into_iter()
            .filter(|r| {
                r.kind == leaves::LinkKind::Wiki
                    && self.resolved[r.note][r.index].file() == Some(file)
            })
            .map(|r| (r.note, r.index))
            .collect()
    }

    /// The names of the vault's top-level folders, sorted: those holding files plus empty ones
    /// still on disk (read again from the root). Hidden folders are left out.
    pub fn top_folders(&self) -> Vec<String> {
        let mut set = BTreeSet::new();
        for p in &self.files.paths {
            if let Some((top, _)) = p.split_once('/') {
                set.insert(top.to_string());
            }
        }
        if let Ok(rd) = std::fs::read_dir(&self.root) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if e.file_type().is_ok_and(|t| t.is_dir()) && !name.starts_with('.') {
                    set.insert(name);
                }
            }
        }
        set.into_iter().collect()
    }

    /// Every link of the vault by the leaf it names.
    pub(crate) fn leaf_index(&self) -> &leaves::LeafIndex {
        self.leaf_index
            .get_or_init(|| leaves::LeafIndex::build(&self.notes))
    }

    /// Re-resolves every wikilink naming one of `leaves`.
    fn reresolve_leaves(&mut self, leaves: &[String]) {
        let refs = self.leaf_index().naming(leaves);
        for r in refs {
            if r.kind == leaves::LinkKind::Wiki {
                let note = &self.notes[r.note];
                self.resolved[r.note][r.index] = self
                    .files
                    .resolve(&note.path, &note.wikilinks[r.index].target);
            }
        }
    }

    fn resolve_note(&mut self, n: usize) {
        let note = &self.notes[n];
        self.resolved[n] = note
            .wikilinks
            .iter()
            .map(|l| self.files.resolve(&note.path, &l.target))
            .collect();
    }

    /// Adds or replaces a note in memory, after a writer has written it to disk (nothing is
    /// written here). Its modification time becomes now. Only the links that can change are
    /// resolved again: the note's own and, for a new file, every link naming its leaf.
    pub fn upsert_note(&mut self, mut note: Note) {
        note.modified = chrono::Utc::now().timestamp();
        let existing = self
            .files
            .id_of(&note.path)
            .filter(|id| self.files.paths[*id].eq_ignore_ascii_case(&note.path))
            .and_then(|id| Some((id, self.note_of_file(id)?)));
        match existing {
            Some((id, n)) => {
                note.path = self.files.paths[id].clone();
                if let Some(index) = self.leaf_index.get_mut() {
                    index.replace(n, &self.notes[n], &note);
                }
                self.notes[n] = note;
                self.origin.forget(n);
                self.resolve_note(n);
            }
            _ => {
                let leaf = leaves::leaf(&note.path);
                let id = self.files.insert(&note.path);
                self.notes.push(note);
                let n = self.notes.len() - 1;
                self.note_file_ids.push(id);
                self.set_file_note(id, n);
                self.resolved.push(Vec::new());
                if let Some(index) = self.leaf_index.get_mut() {
                    index.add(n, &self.notes[n]);
                }
                self.resolve_note(n);
                self.reresolve_leaves(&[leaf]);
            }
        }
    }

    /// Records a new attachment in memory after a writer created it; links naming it are
    /// resolved again. Does nothing if the path is already known.
    pub fn add_attachment(&mut self, path: &str) {
        if self
            .files
            .id_of(path)
            .is_some_and(|id| self.files.paths[id] == path)
        {
            return;
        }
        self.files.insert(path);
        self.reresolve_leaves(&[leaves::leaf(path)]);
    }

    /// Renames a file (note or attachment) in memory after a writer moved it on disk. The file
    /// keeps its id; links naming its old or new leaf are resolved again. The links themselves
    /// are not rewritten: [`rewrite::plan_link_rewrites`] plans that, before the move.
    pub fn rename_file(&mut self, from: &str, to: &str) {
        let Some(id) = self.files.id_of(from) else {
            return;
        };
        self.files.rename(id, to);
        if let Some(n) = self.note_of_file(id) {
            self.notes[n].path = to.to_string();
            self.origin.forget(n);
            self.resolve_note(n);
        }
        self.reresolve_leaves(&[leaves::leaf(from), leaves::leaf(to)]);
    }

    /// The vault's display name: the last segment of its canonical root, or `vault`.
    pub fn name(&self) -> String {
        self.root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone())
            .file_name()
            .map_or_else(|| "vault".to_string(), |n| n.to_string_lossy().into_owned())
    }
}

/// crew's temporary files (`.crew-tmp-*.part`) anywhere under `root`, hidden folders such as
/// crew's state folder included: what a killed write or undo left. `.git`, `.obsidian` and
/// `.trash` are skipped. Only a writer holding the vault's lock may remove them (no other
/// writer can be mid-write then); this function only finds them.
pub fn find_stale_temps(root: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(root)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0 || !matches!(name.as_ref(), ".git" | ".obsidian" | ".trash")
        })
        .flatten()
        .filter(|e| e.file_type().is_file() && is_crew_temp(&e.file_name().to_string_lossy()))
        .map(|e| e.path().to_path_buf())
        .collect()
}

/// A vault folder must exist and be a folder.
fn check_root(root: &Path) -> Result<(), VaultError> {
    if !root.exists() {
        return Err(VaultError::Missing(root.to_path_buf()));
    }
    if !root.is_dir() {
        return Err(VaultError::NotADir(root.to_path_buf()));
    }
    Ok(())
}

/// Reads and parses, in parallel, the notes the index could not vouch for, straight into
/// their slots (no second array of notes: at 100,000 notes each copy costs tens of MB). A
/// note that cannot be read (no permission, gone meanwhile, no longer a regular file) is
/// skipped with a warning and listed in `unreadable`: one bad file must not stop every
/// command. Returns how many were read.
fn parse_missing(
    root: &Path,
    slots: &mut [Option<Note>],
    stamps: &mut [Option<index::Stamp>],
    note_files: &[&String],
    unreadable: &std::sync::Mutex<Vec<(String, String)>>,
) -> Result<usize, VaultError> {
    use rayon::prelude::*;
    slots
        .par_iter_mut()
        .zip(stamps.par_iter_mut())
        .zip(note_files.par_iter())
        .filter(|((slot, _), _)| slot.is_none())
        .map_init(FolderHandle::default, |folder, ((slot, stamp), rel)| {
            let (bytes, read_stamp) = match folder.read(root, rel) {
                Ok(read) => read,
                Err(e) => {
                    tracing::warn!("skipping {rel}: it cannot be read ({e})");
                    if let Ok(mut list) = unreadable.lock() {
                        list.push(((*rel).clone(), e.to_string()));
                    }
                    return Ok(0);
                }
            };
            let mut note = Note::parse((*rel).clone(), &bytes);
            note.modified = (read_stamp.mtime_ns / 1_000_000_000) as i64;
            *slot = Some(note);
            *stamp = Some(read_stamp);
            Ok(1)
        })
        .try_reduce(|| 0, |a, b| Ok(a + b))
}

/// The items of `v` whose position is marked in `keep`.
fn kept<T>(v: Vec<T>, keep: &[bool]) -> Vec<T> {
    v.into_iter()
        .zip(keep)
        .filter(|(_, k)| **k)
        .map(|(x, _)| x)
        .collect()
}

/// A handle on the folder of the note read last, kept for the next note of the same folder:
/// notes are read in path order, so most follow one of their folder, and the kernel then looks
/// up one name instead of the whole path again (1–2 % of a cold count of 20,000 notes,
/// BENCHMARKS.md). A folder renamed while its notes are read is read through its old handle;
/// each stamp is the file's that was read, so the next read sees the change. Elsewhere than on
/// Unix each note is opened by its full path.
#[derive(Default)]
struct FolderHandle {
    #[cfg(unix)]
    open: Option<(String, std::os::fd::OwnedFd)>,
}

impl FolderHandle {
    /// [`read_with_stamp`] of note `rel` of the vault at `root`.
    #[cfg(unix)]
    fn read(&mut self, root: &Path, rel: &str) -> std::io::Result<(Vec<u8>, index::Stamp)> {
        use rustix::fs::{Mode, OFlags};
        let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let (open, dir) = match self.open.take() {
            Some((open, fd)) if open == folder => (open, fd),
            // a folder that can be searched but not listed is opened for reading only by its
            // full path: read the note that way
            _ => match rustix::fs::open(
                root.join(folder),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            ) {
                Ok(fd) => (folder.to_string(), fd),
                Err(_) => return read_with_stamp(&root.join(rel)),
            },
        };
        // the walk saw a regular file, but it may have become a FIFO or a link since: never
        // block on it, never follow it
        let opened = rustix::fs::openat(
            &dir,
            name,
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
            Mode::empty(),
        );
        self.open = Some((open, dir));
        read_open(std::fs::File::from(opened?))
    }

    #[cfg(not(unix))]
    fn read(&mut self, root: &Path, rel: &str) -> std::io::Result<(Vec<u8>, index::Stamp)> {
        read_with_stamp(&root.join(rel))
    }
}

/// Reads a file with the stamp of the open file, taken before the read: a change after the
/// stamp makes the next stamp differ, so the index never pairs old bytes with a new stamp.
fn read_with_stamp(path: &Path) -> std::io::Result<(Vec<u8>, index::Stamp)> {
    let mut opts = std::fs::OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    {
        // the walk saw a regular file, but it may have become a FIFO since: never block on it
        use std::os::unix::fs::OpenOptionsExt;
        opts.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW);
    }
    read_open(opts.open(path)?)
}

/// [`read_with_stamp`] of a file opened for it.
fn read_open(mut file: std::fs::File) -> std::io::Result<(Vec<u8>, index::Stamp)> {
    use std::io::Read as _;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no longer a regular file",
        ));
    }
    let stamp = index::Stamp::of(&meta);
    // sized from the stamp, read directly: `read_to_end` would ask the kernel for the size and
    // position again on every file
    let mut bytes = vec![0; usize::try_from(meta.len()).unwrap_or(0) + 1];
    let mut filled = 0;
    loop {
        if filled == bytes.len() {
            bytes.resize(bytes.len() * 2, 0);
        }
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    Ok((bytes, stamp))
}

/// A relative path as a `/`-separated string, the form every vault path in this crate takes
/// (non-UTF-8 names are converted lossily).
pub fn rel_to_string(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod walk_tests;
