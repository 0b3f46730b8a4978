//! The vault: walking it, reading every note once, resolving links, and the write gate.
//!
//! This room depends on nothing else in crew, so it could become its own crate: an Obsidian
//! vault reader with exact link semantics plus a safe writer.

pub mod edit;
pub mod gate;
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
}

impl Vault {
    /// Walks and parses the vault at `root`.
    pub fn open(root: impl AsRef<Path>) -> Result<Vault, VaultError> {
        let root = root.as_ref();
        if !root.exists() {
            return Err(VaultError::Missing(root.to_path_buf()));
        }
        if !root.is_dir() {
            return Err(VaultError::NotADir(root.to_path_buf()));
        }
        let mut paths = Vec::new();
        let walker = walkdir::WalkDir::new(root)
            .follow_links(false)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
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
            paths.push(rel_to_string(rel));
        }
        let files = FileTable::new(paths);
        let mut notes = Vec::new();
        let mut note_file_ids = Vec::new();
        for (id, rel) in files.paths.iter().enumerate() {
            if !resolve::is_note_path(rel) {
                continue;
            }
            let full = root.join(rel);
            let bytes = std::fs::read(&full).map_err(|source| VaultError::Io {
                path: full.clone(),
                source,
            })?;
            let mut note = Note::parse(rel.clone(), &bytes);
            if let Ok(meta) = std::fs::metadata(&full) {
                note.modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_secs() as i64);
            }
            notes.push(note);
            note_file_ids.push(id);
        }
        Ok(Vault::from_parts(
            root.to_path_buf(),
            files,
            notes,
            note_file_ids,
        ))
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
        let resolved = notes
            .iter()
            .map(|n| {
                n.wikilinks
                    .iter()
                    .map(|l| files.resolve(&n.path, &l.target))
                    .collect()
            })
            .collect();
        Vault {
            root,
            notes,
            files,
            note_file_ids: ids,
            file_note,
            resolved,
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
            .paths
            .iter()
            .filter(|p| !resolve::is_note_path(p))
            .map(String::as_str)
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

    /// Adds or replaces a note (after the gate wrote it) and re-resolves links.
    pub fn upsert_note(&mut self, mut note: Note) {
        note.modified = chrono::Utc::now().timestamp();
        let mut notes = std::mem::take(&mut self.notes);
        match notes
            .iter()
            .position(|n| n.path.eq_ignore_ascii_case(&note.path))
        {
            Some(i) => notes[i] = note,
            None => notes.push(note),
        }
        self.rebuild(notes, self.attachments().map(str::to_string).collect());
    }

    /// Records a new attachment (after the gate wrote it).
    pub fn add_attachment(&mut self, path: &str) {
        if self.files.id_of(path).is_some() {
            return;
        }
        let mut attachments: Vec<String> = self.attachments().map(str::to_string).collect();
        attachments.push(path.to_string());
        let notes = std::mem::take(&mut self.notes);
        self.rebuild(notes, attachments);
    }

    /// Renames a file in memory (after the gate moved it on disk).
    pub fn rename_file(&mut self, from: &str, to: &str) {
        let mut notes = std::mem::take(&mut self.notes);
        for n in &mut notes {
            if n.path == from {
                n.path = to.to_string();
            }
        }
        let attachments = self
            .attachments()
            .map(|p| {
                if p == from {
                    to.to_string()
                } else {
                    p.to_string()
                }
            })
            .collect();
        self.rebuild(notes, attachments);
    }

    fn rebuild(&mut self, notes: Vec<Note>, attachments: Vec<String>) {
        let root = std::mem::take(&mut self.root);
        *self = Vault::from_notes(root, notes, attachments);
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
