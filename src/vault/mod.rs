//! The vault: walking it, reading every note once, resolving links, and the write gate.
//!
//! This room depends on nothing else in crew, so it could become its own crate: an Obsidian
//! vault reader with exact link semantics plus a safe writer.

pub mod edit;
pub mod gate;
pub mod index;
pub mod markdown;
pub mod note;
pub mod resolve;
pub mod stats;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub use note::{Frontmatter, Note};
pub use resolve::{FileTable, Resolution};

/// Errors reading a vault.
#[derive(Debug, thiserror::Error)]
pub enum VaultError {
    #[error(
        "vault folder {0} does not exist: pass --vault PATH or set CREW_VAULT, or run `crew init PATH`"
    )]
    Missing(PathBuf),
    #[error("{0} is not a folder: --vault must name the vault's top folder")]
    NotADir(PathBuf),
    #[error("cannot read {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// A vault read into memory: every note parsed, every file known, every link resolved.
#[derive(Debug, Clone)]
pub struct Vault {
    pub root: PathBuf,
    /// Notes in path order.
    pub notes: Vec<Note>,
    /// Every file (notes and attachments), in path order; resolution runs against it.
    pub files: FileTable,
    /// For each note, its id in `files`.
    note_file_ids: Vec<usize>,
    /// For each file id, the note index when the file is a note.
    file_note: HashMap<usize, usize>,
    /// Resolved links per note, parallel to `note.wikilinks`.
    pub resolved: Vec<Vec<Resolution>>,
    /// The leaf ([`Vault::leaf`]) of each link target, parallel to `note.wikilinks`: a change to
    /// a file can only affect the links naming its leaf.
    pub link_leaves: Vec<Vec<String>>,
    /// crew's own temporary files found by the walk (`.crew-tmp-*.part`): left by a run that
    /// was killed mid-write; a writing run removes them once it holds the vault lock.
    pub stale_temps: Vec<PathBuf>,
}

impl Vault {
    /// Walks and parses the vault at `root`. When the vault has crew's state folder
    /// (`.crew/`), unchanged notes come from the persistent index and the index is refreshed.
    pub fn open(root: impl AsRef<Path>) -> Result<Vault, VaultError> {
        let root = root.as_ref();
        let index = root
            .join(".crew")
            .is_dir()
            .then(|| root.join(".crew").join("index.bin"));
        Vault::open_with(root, index.as_deref())
    }

    /// Walks and parses every note, ignoring any index.
    pub fn open_fresh(root: impl AsRef<Path>) -> Result<Vault, VaultError> {
        Vault::open_with(root.as_ref(), None)
    }

    fn open_with(root: &Path, index_path: Option<&Path>) -> Result<Vault, VaultError> {
        use rayon::prelude::*;
        if !root.exists() {
            return Err(VaultError::Missing(root.to_path_buf()));
        }
        if !root.is_dir() {
            return Err(VaultError::NotADir(root.to_path_buf()));
        }
        // (path, size, mtime) of every file; hidden entries and symlinks are not followed
        let mut listing: Vec<(String, u64, i128, i128)> = Vec::new();
        let mut temps: Vec<PathBuf> = Vec::new();
        let walker = walkdir::WalkDir::new(root)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| {
                let name = e.file_name().to_string_lossy();
                if name.starts_with(".crew-tmp-")
                    && name.ends_with(".part")
                    && e.file_type().is_file()
                {
                    temps.push(e.path().to_path_buf());
                }
                e.depth() == 0 || !name.starts_with('.')
            });
        for entry in walker {
            let entry = match entry {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!("skipping an unreadable entry: {e}");
                    continue;
                }
            };
            if !entry.file_type().is_file() {
                continue;
            }
            let Ok(rel) = entry.path().strip_prefix(root) else {
                continue;
            };
            let (size, mtime, ctime) = entry.metadata().map_or((0, 0, 0), |m| {
                (m.len(), index::mtime_ns(&m), index::ctime_ns(&m))
            });
            listing.push((rel_to_string(rel), size, mtime, ctime));
        }
        listing.sort_by(|a, b| a.0.cmp(&b.0));
        let files = FileTable::new(listing.iter().map(|l| l.0.clone()).collect());
        let mut cached = index_path.and_then(index::Index::load);
        let cached_count = cached.as_ref().map_or(0, index::Index::len);
        let note_files: Vec<&(String, u64, i128, i128)> = listing
            .iter()
            .filter(|l| resolve::is_note_path(&l.0))
            .collect();
        // trusted notes move out of the index; the rest are read and parsed in parallel
        let mut slots: Vec<Option<Note>> = note_files
            .iter()
            .map(|(rel, size, mtime, ctime)| {
                cached
                    .as_mut()
                    .and_then(|c| c.take(rel, *size, *mtime, *ctime))
            })
            .collect();
        let todo: Vec<usize> = (0..note_files.len())
            .filter(|&i| slots[i].is_none())
            .collect();
        let parsed: Vec<Result<(usize, Note), VaultError>> = todo
            .par_iter()
            .map(|&i| {
                let (rel, _, mtime, _) = note_files[i];
                let full = root.join(rel);
                let bytes = std::fs::read(&full).map_err(|source| VaultError::Io {
                    path: full.clone(),
                    source,
                })?;
                let mut note = Note::parse(rel.clone(), &bytes);
                note.modified = (*mtime / 1_000_000_000) as i64;
                Ok((i, note))
            })
            .collect();
        let fresh = parsed.len();
        for p in parsed {
            let (i, note) = p?;
            slots[i] = Some(note);
        }
        let notes: Vec<Note> = slots.into_iter().flatten().collect();
        if let Some(path) = index_path
            && (cached.is_none() || fresh > 0 || cached_count != note_files.len())
        {
            let entries = note_files
                .iter()
                .zip(&notes)
                .map(|((rel, size, mtime, ctime), note)| index::EntryRef {
                    path: rel,
                    size: *size,
                    mtime_ns: *mtime,
                    ctime_ns: *ctime,
                    note,
                })
                .collect();
            index::save(path, entries);
        }
        let note_file_ids = notes
            .iter()
            .map(|n| files.id_of(&n.path).unwrap_or(0))
            .collect();
        let mut vault = Vault::from_parts(root.to_path_buf(), files, notes, note_file_ids);
        vault.stale_temps = temps;
        Ok(vault)
    }

    /// Builds a vault from notes held in memory (used by tests and by tools that plan changes).
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
        Vault::from_parts(root, files, notes, ids)
    }

    fn from_parts(root: PathBuf, files: FileTable, notes: Vec<Note>, ids: Vec<usize>) -> Vault {
        let file_note = ids.iter().enumerate().map(|(n, &f)| (f, n)).collect();
        use rayon::prelude::*;
        // each note's links resolve independently against the shared table
        let resolved = notes
            .par_iter()
            .map(|n| {
                n.wikilinks
                    .iter()
                    .map(|l| files.resolve(&n.path, &l.target))
                    .collect()
            })
            .collect();
        let link_leaves = notes
            .iter()
            .map(|n| n.wikilinks.iter().map(|l| Vault::leaf(&l.target)).collect())
            .collect();
        Vault {
            root,
            notes,
            files,
            note_file_ids: ids,
            file_note,
            resolved,
            link_leaves,
            stale_temps: Vec::new(),
        }
    }

    /// The note index for a vault-relative path (case-insensitive).
    pub fn note_index(&self, path: &str) -> Option<usize> {
        self.files
            .id_of(path)
            .and_then(|id| self.file_note.get(&id).copied())
    }

    pub fn note(&self, path: &str) -> Option<&Note> {
        self.note_index(path).map(|i| &self.notes[i])
    }

    /// The note a file id belongs to, if it is a note.
    pub fn note_of_file(&self, file_id: usize) -> Option<usize> {
        self.file_note.get(&file_id).copied()
    }

    pub fn file_id_of_note(&self, note: usize) -> usize {
        self.note_file_ids[note]
    }

    /// Attachments (non-note files), vault-relative.
    pub fn attachments(&self) -> impl Iterator<Item = &str> {
        self.files
            .live()
            .map(|(_, p)| p)
            .filter(|p| !resolve::is_note_path(p))
    }

    /// Outgoing note-to-note edges of the link graph, de-duplicated: `(source, destination)`.
    pub fn edges(&self) -> BTreeSet<(usize, usize)> {
        let mut edges = BTreeSet::new();
        for (src, links) in self.resolved.iter().enumerate() {
            for r in links {
                if let Some(dst) = r.file().and_then(|f| self.note_of_file(f)) {
                    edges.insert((src, dst));
                }
            }
        }
        edges
    }

    /// For each note, the notes linking to it.
    pub fn backlinks(&self) -> Vec<Vec<usize>> {
        let mut back = vec![Vec::new(); self.notes.len()];
        for (src, dst) in self.edges() {
            back[dst].push(src);
        }
        back
    }

    /// Notes whose links or embeds point to `note` (by index), with the link indices.
    pub fn links_to(&self, note: usize) -> Vec<(usize, usize)> {
        let file = self.note_file_ids[note];
        let mut out = Vec::new();
        for (src, links) in self.resolved.iter().enumerate() {
            for (li, r) in links.iter().enumerate() {
                if r.file() == Some(file) {
                    out.push((src, li));
                }
            }
        }
        out
    }

    /// The top-level vault folders that exist (used to map folder roles).
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

    /// The lower-cased last segment of a link target or a path, without `.md`: resolution only
    /// ever matches a target against files with this leaf.
    pub fn leaf(s: &str) -> String {
        let last = s.rsplit('/').next().unwrap_or(s).trim().to_lowercase();
        last.strip_suffix(".md").map(str::to_string).unwrap_or(last)
    }

    /// Re-resolves every link whose target's leaf is one of `leaves`.
    fn reresolve_leaves(&mut self, leaves: &[String]) {
        for (n, note) in self.notes.iter().enumerate() {
            for (li, link) in note.wikilinks.iter().enumerate() {
                if !link.target.is_empty() && leaves.contains(&self.link_leaves[n][li]) {
                    self.resolved[n][li] = self.files.resolve(&note.path, &link.target);
                }
            }
        }
    }

    fn resolve_note(&mut self, n: usize) {
        let note = &self.notes[n];
        self.link_leaves[n] = note
            .wikilinks
            .iter()
            .map(|l| Vault::leaf(&l.target))
            .collect();
        self.resolved[n] = note
            .wikilinks
            .iter()
            .map(|l| self.files.resolve(&note.path, &l.target))
            .collect();
    }

    /// Adds or replaces a note (after the gate wrote it). Only the links that can change are
    /// re-resolved: the note's own, and, for a new file, those naming its leaf.
    pub fn upsert_note(&mut self, mut note: Note) {
        note.modified = chrono::Utc::now().timestamp();
        match self
            .files
            .id_of(&note.path)
            .filter(|id| self.files.paths[*id].eq_ignore_ascii_case(&note.path))
        {
            Some(id) if self.file_note.contains_key(&id) => {
                let n = self.file_note[&id];
                note.path = self.files.paths[id].clone();
                self.notes[n] = note;
                self.resolve_note(n);
            }
            _ => {
                let leaf = Vault::leaf(&note.path);
                let id = self.files.insert(&note.path);
                self.notes.push(note);
                let n = self.notes.len() - 1;
                self.note_file_ids.push(id);
                self.file_note.insert(id, n);
                self.resolved.push(Vec::new());
                self.link_leaves.push(Vec::new());
                self.resolve_note(n);
                self.reresolve_leaves(&[leaf]);
            }
        }
    }

    /// Records a new attachment (after the gate wrote it).
    pub fn add_attachment(&mut self, path: &str) {
        if self
            .files
            .id_of(path)
            .is_some_and(|id| self.files.paths[id] == path)
        {
            return;
        }
        self.files.insert(path);
        self.reresolve_leaves(&[Vault::leaf(path)]);
    }

    /// Renames a file in memory (after the gate moved it on disk).
    pub fn rename_file(&mut self, from: &str, to: &str) {
        let Some(id) = self.files.id_of(from) else {
            return;
        };
        self.files.rename(id, to);
        if let Some(&n) = self.file_note.get(&id) {
            self.notes[n].path = to.to_string();
            self.resolve_note(n);
        }
        self.reresolve_leaves(&[Vault::leaf(from), Vault::leaf(to)]);
    }

    pub fn name(&self) -> String {
        self.root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone())
            .file_name()
            .map_or_else(|| "vault".to_string(), |n| n.to_string_lossy().into_owned())
    }
}

/// A vault-relative path as a `/`-separated string.
pub fn rel_to_string(rel: &Path) -> String {
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}
