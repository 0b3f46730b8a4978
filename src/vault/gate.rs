//! The write gate: the one door every change to a vault goes through.
//!
//! - Paths are jailed to the vault: no absolute paths, no `..`, no symlinks on the way, no
//!   control characters or names Windows cannot hold.
//! - Protected places are refused: `.obsidian/`, `.git/`, hidden folders in general, the crew
//!   definition's core files, the anchor's dispatcher files, and other agents' post-its.
//! - Writes are atomic (a hidden temporary file in the same folder, then a rename); a create or a
//!   move never replaces an existing file (a free name is chosen and reported).
//! - A move keeps every link in the vault pointing at the same file, rewriting only the links
//!   that would otherwise break or change meaning.
//! - Every operation is journaled before it happens, with what is needed to reverse it.
//! - Nothing is deleted.
//!
//! The gate owns the in-memory [`Vault`], so every reader sees the vault as the gate has
//! changed it, and a `--dry-run` plans exactly what a real run would do without touching disk.

use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Vault;
use super::edit::{self, Replacement};
use super::leaves::{LinkKind, LinkRef};
use super::note::Note;
use super::resolve::{FileTable, Resolution, is_note_path};

/// Why the gate refused or failed an operation.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error("refused {path:?}: {reason}")]
    Jail { path: String, reason: String },
    #[error("refused {path:?}: {reason}")]
    Protected { path: String, reason: String },
    #[error("{path:?} does not exist in the vault")]
    NotFound { path: String },
    #[error("could not write {path}: {source} (the original is untouched)")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

impl GateError {
    fn io(path: &str, source: std::io::Error) -> Self {
        GateError::Io {
            path: path.to_string(),
            source,
        }
    }
}

/// Kinds of operations, as they appear in journals, run logs and `--json` output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Create,
    Write,
    Edit,
    Move,
    Mkdir,
}

/// One change to the vault, recorded before it happens.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    pub seq: usize,
    pub op: OpKind,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub to: Option<String>,
    /// File (in the journal folder) holding the bytes the path had before, for edits/writes.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub backup: Option<String>,
    /// FNV-1a hash of the bytes after the operation, so undo can tell a later change.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub after_hash: Option<String>,
    /// Why (e.g. "link to moved note"), for the human reading a plan.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub note: Option<String>,
}

/// Where the core crew definition lives inside a vault, and which folders hold post-its.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Core agent names: their definition files are never written.
    pub core_agents: Vec<String>,
    /// The agent running now: only it may write its own post-it.
    pub actor: Option<String>,
    /// Folder of post-its, vault-relative (default `Meta/states`).
    pub states_dir: String,
    /// The gate is rooted at a crew-definition folder rather than a vault.
    pub crew_definition_root: bool,
    /// `crew init` installing the crew definition: its files may be created (never replaced).
    pub installing: bool,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            core_agents: crate::crew::CORE_AGENTS
                .iter()
                .map(|s| s.to_string())
                .collect(),
            actor: None,
            states_dir: "Meta/states".to_string(),
            crew_definition_root: false,
            installing: false,
        }
    }
}

/// Folders where the anchor project (and crew) install a crew definition inside a vault.
pub const CREW_FOLDERS: &[&str] = &[
    ".crew",
    ".claude",
    ".gemini",
    ".opencode",
    ".codex",
    ".agents",
    ".platform",
];

/// The dispatcher files of the anchor project at the vault root.
const DISPATCHER_FILES: &[&str] = &["claude.md", "gemini.md", "agents.md"];

const WINDOWS_RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Checks a vault-relative path and returns it normalised (`/`-separated, no `.` segments).
pub fn jail(path: &str) -> Result<String, GateError> {
    let refuse = |reason: &str| GateError::Jail {
        path: path.to_string(),
        reason: reason.to_string(),
    };
    if path.trim().is_empty() {
        return Err(refuse("empty path"));
    }
    if path.chars().any(|c| c.is_control()) {
        return Err(refuse("control characters in the path"));
    }
    if path.contains('\\') {
        return Err(refuse("backslashes are not allowed; use / between folders"));
    }
    let p = Path::new(path);
    if p.is_absolute() || path.starts_with('/') || path.get(1..2) == Some(":") {
        return Err(refuse(
            "absolute paths are outside the vault; give a vault-relative path",
        ));
    }
    let mut parts = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_string_lossy();
                let stem = s.split('.').next().unwrap_or("").to_ascii_lowercase();
                if WINDOWS_RESERVED.contains(&stem.as_str()) {
                    return Err(refuse("a name Windows reserves (CON, NUL, COM1, …)"));
                }
                if s.ends_with(' ') || (s.ends_with('.') && s != ".") {
                    return Err(refuse("a name ending in a space or a dot"));
                }
                parts.push(s.into_owned());
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(refuse("`..` leaves the vault")),
            _ => return Err(refuse("not a vault-relative path")),
        }
    }
    if parts.is_empty() {
        return Err(refuse("names no file"));
    }
    Ok(parts.join("/"))
}

impl Policy {
    /// Refuses protected paths (the path is already jailed).
    pub fn check(&self, path: &str) -> Result<(), GateError> {
        let protect = |reason: String| GateError::Protected {
            path: path.to_string(),
            reason,
        };
        let parts: Vec<&str> = path.split('/').collect();
        let lower = path.to_lowercase();
        if self.crew_definition_root {
            return self.check_definition_file(&parts, &lower).map_err(protect);
        }
        let first = parts[0].to_lowercase();
        if first == ".obsidian" || first == ".git" || first == ".trash" {
            return Err(protect(format!(
                "{} belongs to Obsidian or git, not to the crew",
                parts[0]
            )));
        }
        if CREW_FOLDERS.contains(&first.as_str()) {
            if self.installing && first == ".crew" {
                return Ok(());
            }
            return self
                .check_definition_file(&parts[1..], &parts[1..].join("/").to_lowercase())
                .map_err(protect);
        }
        if parts.iter().any(|p| p.starts_with('.')) {
            return Err(protect(
                "hidden files and folders are not vault notes".to_string(),
            ));
        }
        if parts.len() == 1 && DISPATCHER_FILES.contains(&lower.as_str()) {
            return Err(protect(
                "the dispatcher file is part of the crew definition".to_string(),
            ));
        }
        let states = format!("{}/", self.states_dir.to_lowercase());
        if let Some(rest) = lower.strip_prefix(&states) {
            let owner = rest.strip_suffix(".md").unwrap_or(rest);
            if self.actor.as_deref().map(str::to_lowercase).as_deref() != Some(owner) {
                return Err(protect(format!(
                    "this is the post-it of agent `{owner}`; only that agent writes it"
                )));
            }
        }
        Ok(())
    }

    fn check_definition_file(&self, parts: &[&str], lower: &str) -> Result<(), String> {
        match parts {
            ["references", f]
                if ["agents-registry.md", "agents.md"].contains(&f.to_lowercase().as_str()) =>
            {
                Ok(())
            }
            ["agents", f] | ["removed", f] => {
                let name = f.to_lowercase();
                let name = name.strip_suffix(".md").unwrap_or(&name);
                if self.core_agents.iter().any(|c| c == name) {
                    Err(format!(
                        "`{name}` is a core agent; its definition ships with crew"
                    ))
                } else {
                    Ok(())
                }
            }
            _ => Err(format!(
                "{lower} is part of the crew definition; only custom agents and the registry may change"
            )),
        }
    }
}

/// FNV-1a, 64 bit: a stable fingerprint of file contents for the journal.
pub fn fingerprint(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a(FNV_OFFSET, bytes))
}

/// The FNV-1a start value; feeding pieces one after another to [`fnv1a`] hashes their
/// concatenation.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// 64-bit FNV-1a, continued from `h`.
pub fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// What a move did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveOutcome {
    pub from: String,
    /// Where the note ended up (differs from the request when that name was taken).
    pub to: String,
    /// Notes whose links were rewritten, with how many links each.
    pub rewritten: Vec<(String, usize)>,
}

/// The journal of one run: entries appended to `journal.jsonl` before each change, backups of
/// original bytes beside it. `None` dir: kept in memory only (tests, dry runs).
#[derive(Debug, Default)]
pub struct Journal {
    dir: Option<PathBuf>,
    pub entries: Vec<Operation>,
}

impl Journal {
    pub fn in_memory() -> Self {
        Journal::default()
    }

    pub fn at(dir: PathBuf) -> Self {
        Journal {
            dir: Some(dir),
            entries: Vec::new(),
        }
    }

    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    fn record(&mut self, mut op: Operation, original: Option<&[u8]>) -> Result<(), GateError> {
        op.seq = self.entries.len() + 1;
        if let Some(dir) = &self.dir {
            std::fs::create_dir_all(dir).map_err(|e| GateError::io(&dir.to_string_lossy(), e))?;
            if let Some(bytes) = original {
                let name = format!("{}.orig", op.seq);
                write_synced(&dir.join(&name), bytes).map_err(|e| GateError::io(&name, e))?;
                op.backup = Some(name);
            }
            let line = serde_json::to_string(&op).unwrap_or_default();
            let path = dir.join("journal.jsonl");
            let mut f = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| GateError::io(&path.to_string_lossy(), e))?;
            writeln!(f, "{line}")
                .and_then(|_| f.sync_data())
                .map_err(|e| GateError::io(&path.to_string_lossy(), e))?;
        }
        self.entries.push(op);
        Ok(())
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// The gate over one vault.
pub struct Gate {
    vault: Vault,
    pub policy: Policy,
    pub journal: Journal,
    dry_run: bool,
    /// Contents as the gate has written them (in a dry run, the only place they exist);
    /// `None` marks a path moved away.
    overlay: HashMap<String, Option<Vec<u8>>>,
}

impl Gate {
    pub fn new(vault: Vault, policy: Policy, journal: Journal, dry_run: bool) -> Gate {
        Gate {
            vault,
            policy,
            journal,
            dry_run,
            overlay: HashMap::new(),
        }
    }

    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    pub fn into_vault(self) -> Vault {
        self.vault
    }

    pub fn is_dry_run(&self) -> bool {
        self.dry_run
    }

    pub fn operations(&self) -> &[Operation] {
        &self.journal.entries
    }

    pub fn root(&self) -> &Path {
        &self.vault.root
    }

    /// Reads a file as the gate sees it (its own pending writes first).
    pub fn read(&self, path: &str) -> Option<Vec<u8>> {
        let path = jail(path).ok()?;
        if let Some(entry) = self.overlay.get(&path) {
            return entry.clone();
        }
        std::fs::read(self.vault.root.join(&path)).ok()
    }

    pub fn read_text(&self, path: &str) -> Option<String> {
        self.read(path)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    }

    pub fn exists(&self, path: &str) -> bool {
        let Ok(path) = jail(path) else { return false };
        match self.overlay.get(&path) {
            Some(entry) => entry.is_some(),
            None => self.vault.root.join(&path).exists() || self.vault.files.id_of(&path).is_some(),
        }
    }

    /// Whether a folder exists (on disk, or created by this gate in a dry run).
    pub fn dir_exists(&self, dir: &str) -> bool {
        let Ok(dir) = jail(dir) else { return false };
        self.vault.root.join(&dir).is_dir() || self.overlay.contains_key(&format!("{dir}/"))
    }

    /// Immediate sub-folders of a folder ("" for the vault root), hidden ones left out.
    pub fn subdirs(&self, dir: &str) -> Vec<String> {
        let mut out = std::collections::BTreeSet::new();
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        if let Ok(rd) = std::fs::read_dir(self.vault.root.join(dir)) {
            for e in rd.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                if !name.starts_with('.') && e.file_type().is_ok_and(|t| t.is_dir()) {
                    out.insert(format!("{prefix}{name}"));
                }
            }
        }
        let mut from_paths = |p: &str| {
            if let Some(rest) = p.strip_prefix(&prefix)
                && let Some((first, _)) = rest.split_once('/')
                && !first.starts_with('.')
                && !first.is_empty()
            {
                out.insert(format!("{prefix}{first}"));
            }
        };
        for p in &self.vault.files.paths {
            from_paths(p);
        }
        for (k, v) in &self.overlay {
            if v.is_some() {
                from_paths(k);
            }
        }
        out.into_iter().collect()
    }

    /// Creates a folder (journaled); nothing happens when it exists.
    pub fn mkdir(&mut self, dir: &str) -> Result<(), GateError> {
        let dir = self.admit(dir)?;
        if self.dir_exists(&dir) {
            return Ok(());
        }
        self.ensure_parent(&format!("{dir}/x"))
    }

    /// Whether the gate would accept a change at `path` (jail, policy, symlinks), without
    /// changing anything.
    pub fn check(&self, path: &str) -> Result<String, GateError> {
        self.admit(path)
    }

    /// Jail + policy + no symlink on the way.
    fn admit(&self, path: &str) -> Result<String, GateError> {
        let path = jail(path)?;
        self.policy.check(&path)?;
        let mut cur = self.vault.root.clone();
        for part in path.split('/') {
            cur.push(part);
            if let Ok(meta) = std::fs::symlink_metadata(&cur)
                && meta.file_type().is_symlink()
            {
                return Err(GateError::Jail {
                    path: path.clone(),
                    reason: "a symbolic link on the way could lead outside the vault".into(),
                });
            }
        }
        Ok(path)
    }

    /// A free variant of `path`: `Name.md`, then `Name 2.md`, `Name 3.md`, …
    pub fn free_name(&self, path: &str) -> String {
        if !self.exists(path) {
            return path.to_string();
        }
        let (stem, ext) = match path.rfind('.') {
            Some(dot) if dot > path.rfind('/').map_or(0, |s| s + 1) => (&path[..dot], &path[dot..]),
            _ => (path, ""),
        };
        (2..)
            .map(|n| format!("{stem} {n}{ext}"))
            .find(|p| !self.exists(p))
            .unwrap_or_else(|| path.to_string())
    }

    /// Creates the folders above `path` that are missing, journaling each level so an undo
    /// removes exactly the folders this run made.
    fn ensure_parent(&mut self, path: &str) -> Result<(), GateError> {
        let Some((dir, _)) = path.rsplit_once('/') else {
            return Ok(());
        };
        let parts: Vec<&str> = dir.split('/').collect();
        for depth in 1..=parts.len() {
            let level = parts[..depth].join("/");
            if self.vault.root.join(&level).is_dir()
                || self.overlay.contains_key(&format!("{level}/"))
            {
                continue;
            }
            self.journal.record(
                Operation {
                    seq: 0,
                    op: OpKind::Mkdir,
                    path: level.clone(),
                    to: None,
                    backup: None,
                    after_hash: None,
                    note: None,
                },
                None,
            )?;
            if self.dry_run {
                self.overlay.insert(format!("{level}/"), Some(Vec::new()));
            } else {
                std::fs::create_dir(self.vault.root.join(&level))
                    .map_err(|e| GateError::io(&level, e))?;
            }
        }
        Ok(())
    }

    fn put(&mut self, path: &str, bytes: &[u8], no_clobber: bool) -> Result<(), GateError> {
        if !self.dry_run {
            atomic_write(&self.vault.root.join(path), bytes, no_clobber)
                .map_err(|e| GateError::io(path, e))?;
        }
        self.overlay.insert(path.to_string(), Some(bytes.to_vec()));
        if is_note_path(path) {
            self.vault.upsert_note(Note::parse(path.to_string(), bytes));
        } else {
            self.vault.add_attachment(path);
        }
        Ok(())
    }

    /// Creates a new file; if the name is taken, a free variant is used. Returns the path used.
    pub fn create(&mut self, path: &str, bytes: &[u8]) -> Result<String, GateError> {
        let wanted = self.admit(path)?;
        let path = self.free_name(&wanted);
        let path = self.admit(&path)?;
        self.ensure_parent(&path)?;
        self.journal.record(
            Operation {
                seq: 0,
                op: OpKind::Create,
                path: path.clone(),
                to: None,
                backup: None,
                after_hash: Some(fingerprint(bytes)),
                note: (path != wanted).then(|| format!("{wanted} was taken")),
            },
            None,
        )?;
        self.put(&path, bytes, true)?;
        Ok(path)
    }

    /// Writes a whole file, replacing it if it exists (the original is journaled first).
    pub fn write(&mut self, path: &str, bytes: &[u8]) -> Result<(), GateError> {
        let path = self.admit(path)?;
        let original = self.read(&path);
        if original.as_deref() == Some(bytes) {
            return Ok(());
        }
        if original.is_none() {
            self.ensure_parent(&path)?;
        }
        self.journal.record(
            Operation {
                seq: 0,
                op: if original.is_some() {
                    OpKind::Write
                } else {
                    OpKind::Create
                },
                path: path.clone(),
                to: None,
                backup: None,
                after_hash: Some(fingerprint(bytes)),
                note: None,
            },
            original.as_deref(),
        )?;
        self.put(&path, bytes, false)
    }

    /// Changes an existing note's text with `change`; nothing is written when the text is equal.
    pub fn edit(
        &mut self,
        path: &str,
        why: &str,
        change: impl FnOnce(&str) -> String,
    ) -> Result<bool, GateError> {
        let path = self.admit(path)?;
        let original = self
            .read(&path)
            .ok_or_else(|| GateError::NotFound { path: path.clone() })?;
        if std::str::from_utf8(&original).is_err() {
            return Err(GateError::Protected {
                path,
                reason: "the file is not valid UTF-8; crew does not edit it so no byte is lost"
                    .into(),
            });
        }
        let text = String::from_utf8_lossy(&original);
        let updated = change(&text);
        if updated.as_bytes() == original.as_slice() {
            return Ok(false);
        }
        self.journal.record(
            Operation {
                seq: 0,
                op: OpKind::Edit,
                path: path.clone(),
                to: None,
                backup: None,
                after_hash: Some(fingerprint(updated.as_bytes())),
                note: Some(why.to_string()),
            },
            Some(&original),
        )?;
        self.put(&path, updated.as_bytes(), false)?;
        Ok(true)
    }

    /// Appends text to a file, creating it when absent.
    pub fn append(&mut self, path: &str, text: &str) -> Result<(), GateError> {
        let path = self.admit(path)?;
        match self.read(&path) {
            Some(_) => {
                self.edit(&path, "append", |old| {
                    let mut s = old.to_string();
                    if !s.is_empty() && !s.ends_with('\n') {
                        s.push('\n');
                    }
                    s.push_str(text);
                    s
                })?;
                Ok(())
            }
            None => self.write(&path, text.as_bytes()),
        }
    }

    /// Sets or removes frontmatter keys, changing no other byte.
    pub fn set_frontmatter(
        &mut self,
        path: &str,
        changes: &[(&str, Option<String>)],
    ) -> Result<bool, GateError> {
        let why = changes
            .iter()
            .map(|(k, _)| *k)
            .collect::<Vec<_>>()
            .join(", ");
        self.edit(path, &format!("frontmatter: {why}"), |t| {
            edit::set_frontmatter_keys(t, changes)
        })
    }

    /// Moves a file inside the vault, never over an existing one, and keeps every link in the
    /// vault pointing at the file it pointed at before.
    pub fn move_file(&mut self, from: &str, to: &str) -> Result<MoveOutcome, GateError> {
        let from = self.admit(from)?;
        if self.vault.files.id_of(&from).is_none() && !self.exists(&from) {
            return Err(GateError::NotFound { path: from });
        }
        // the vault's own spelling of the path (links compare case-insensitively)
        let from = self
            .vault
            .files
            .id_of(&from)
            .map_or(from, |id| self.vault.files.paths[id].clone());
        let wanted = self.admit(to)?;
        if wanted == from {
            return Ok(MoveOutcome {
                from: from.clone(),
                to: from,
                rewritten: Vec::new(),
            });
        }
        let to = self.free_name(&wanted);
        let to = self.admit(&to)?;

        let plan = plan_link_rewrites(&mut self.vault, &from, &to);
        // Links are rewritten before the note moves: if crew is killed in between, the
        // links already name the new place and a re-run of the move completes the job
        // (moving first would leave links broken with nothing left to revisit them).
        let mut rewritten = Vec::new();
        for (note_path, reps) in plan {
            let count = reps.len();
            let at = if note_path == to {
                from.clone()
            } else {
                note_path.clone()
            };
            let changed = self.edit(&at, &format!("links follow {from} → {to}"), |t| {
                edit::apply_replacements(t, reps)
            })?;
            if changed {
                rewritten.push((note_path, count));
            }
        }
        self.ensure_parent(&to)?;
        self.journal.record(
            Operation {
                seq: 0,
                op: OpKind::Move,
                path: from.clone(),
                to: Some(to.clone()),
                backup: None,
                after_hash: None,
                note: (to != wanted).then(|| format!("{wanted} was taken")),
            },
            None,
        )?;
        let bytes = self.read(&from);
        if !self.dry_run {
            move_no_clobber(&self.vault.root.join(&from), &self.vault.root.join(&to))
                .map_err(|e| GateError::io(&from, e))?;
        }
        self.overlay.insert(from.clone(), None);
        if let Some(b) = bytes {
            self.overlay.insert(to.clone(), Some(b));
        }
        self.vault.rename_file(&from, &to);
        Ok(MoveOutcome {
            from,
            to,
            rewritten,
        })
    }
}

/// Writes `bytes` to `path` through a hidden temporary file in the same folder and a rename.
/// With `no_clobber`, fails instead of replacing an existing file.
pub fn atomic_write(path: &Path, bytes: &[u8], no_clobber: bool) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new()
        .prefix(".crew-tmp-")
        .suffix(".part")
        .tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    if let Ok(meta) = std::fs::metadata(path) {
        // keep the note's permissions when replacing it
        let _ = std::fs::set_permissions(tmp.path(), meta.permissions());
    }
    if no_clobber {
        tmp.persist_noclobber(path).map_err(|e| e.error)?;
    } else {
        tmp.persist(path).map_err(|e| e.error)?;
    }
    Ok(())
}

/// Moves a file without ever replacing an existing one, atomically: the note has exactly one
/// name at every instant (on Linux `renameat2` with `RENAME_NOREPLACE`; elsewhere a checked
/// rename, which the vault lock protects from other crew writers).
fn move_no_clobber(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir)?;
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::ffi::OsStrExt;
        let c = |p: &Path| {
            std::ffi::CString::new(p.as_os_str().as_bytes())
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "NUL in path"))
        };
        let (f, t) = (c(from)?, c(to)?);
        // SAFETY: both arguments are valid NUL-terminated paths that live across the call.
        let rc = unsafe {
            libc::renameat2(
                libc::AT_FDCWD,
                f.as_ptr(),
                libc::AT_FDCWD,
                t.as_ptr(),
                libc::RENAME_NOREPLACE,
            )
        };
        if rc == 0 {
            return Ok(());
        }
        let err = std::io::Error::last_os_error();
        // file systems without RENAME_NOREPLACE support answer EINVAL: fall back below
        if err.raw_os_error() != Some(libc::EINVAL) {
            return Err(err);
        }
    }
    if to.exists() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "destination exists",
        ));
    }
    std::fs::rename(from, to)
}

/// For a move `from → to`, the replacements each note needs so that every link keeps its
/// target. Links already right after the move are left byte for byte as they are.
///
/// Only links that can change meaning are looked at: those whose target's leaf names the moved
/// file (before or after), and all links of the moved note itself (its folder changes). The
/// file table is renamed in place for the "after" view and renamed back.
pub fn plan_link_rewrites(
    vault: &mut Vault,
    from: &str,
    to: &str,
) -> Vec<(String, Vec<Replacement>)> {
    struct Candidate {
        note: usize,
        span: std::ops::Range<usize>,
        target: String,
        markdown: bool,
        link: Option<super::markdown::WikiLink>,
        fragment: Option<String>,
        before: Option<String>,
    }
    let Some(moved) = vault.files.id_of(from) else {
        return Vec::new();
    };
    let leaves = [super::leaves::leaf(from), super::leaves::leaf(to)];
    let moved_note = vault.note_of_file(moved);
    let wiki = |n: usize, link: &super::markdown::WikiLink| Candidate {
        note: n,
        span: link.span.clone(),
        target: link.target.clone(),
        markdown: false,
        link: Some(link.clone()),
        fragment: None,
        before: None,
    };
    // the links naming the moved file's leaf, and every link of the moved note itself
    let mut refs = vault.leaf_index().naming(&vault.notes, &leaves);
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
    let mut cands: Vec<Candidate> = Vec::new();
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
                    cands.push(wiki(r.note, link));
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
        let Some(desired) = &c.before else { continue };
        let note_path = if Some(c.note) == moved_note {
            to.to_string()
        } else {
            vault.notes[c.note].path.clone()
        };
        let now = resolve_any(&vault.files, &note_path, &c.target, c.markdown)
            .map(|id| vault.files.paths[id].clone());
        if now.as_deref() == Some(desired.as_str()) {
            continue;
        }
        let with = if c.markdown {
            let t = best_markdown_target(&vault.files, &note_path, desired);
            match &c.fragment {
                Some(f) => format!("{t}#{f}"),
                None => t,
            }
        } else {
            let t = best_wikilink_target(&vault.files, &note_path, desired);
            c.link
                .as_ref()
                .map_or(t.clone(), |l| edit::render_wikilink(l, &t))
        };
        match plans.iter_mut().find(|(p, _)| *p == note_path) {
            Some((_, reps)) => reps.push(Replacement {
                range: c.span.clone(),
                with,
            }),
            None => plans.push((
                note_path,
                vec![Replacement {
                    range: c.span.clone(),
                    with,
                }],
            )),
        }
    }
    vault.files.rename(moved, from);
    plans
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
        let rel = if dir.is_empty() {
            target.to_string()
        } else {
            format!("{dir}/{target}")
        };
        if let Some(id) = normalise(&rel).and_then(|p| table.id_of(&p)) {
            return Some(id);
        }
    }
    match table.resolve(from, target) {
        Resolution::File { id, .. } => Some(id),
        _ => None,
    }
}

fn normalise(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jail_refuses_escapes() {
        for bad in [
            "",
            "/etc/passwd",
            "../x.md",
            "a/../../x.md",
            "C:/x.md",
            "a\\b.md",
            "a/CON.md",
            "x\u{0}.md",
            "dot./x.md",
        ] {
            assert!(jail(bad).is_err(), "{bad:?} should be refused");
        }
        assert_eq!(jail("./a//b.md").ok().as_deref(), Some("a/b.md"));
    }

    #[test]
    fn policy_protects_the_right_places() {
        let p = Policy {
            actor: Some("sorter".into()),
            ..Policy::default()
        };
        for bad in [
            ".obsidian/app.json",
            ".git/config",
            "CLAUDE.md",
            ".crew/agents/sorter.md",
            ".claude/skills/x/SKILL.md",
            "Meta/states/librarian.md",
            "a/.hidden.md",
            ".crew/references/other.md",
        ] {
            assert!(p.check(bad).is_err(), "{bad} should be protected");
        }
        for ok in [
            "Meta/states/sorter.md",
            ".crew/agents/my-helper.md",
            ".claude/references/agents-registry.md",
            "00-Inbox/x.md",
        ] {
            assert!(p.check(ok).is_ok(), "{ok} should be allowed");
        }
    }

    #[test]
    fn fingerprint_is_stable() {
        assert_eq!(fingerprint(b""), "cbf29ce484222325");
        assert_ne!(fingerprint(b"a"), fingerprint(b"b"));
    }
}
