//! Link resolution, the Obsidian way.
//!
//! Comparison is case-insensitive. A target without `/` names a note (file name without `.md`)
//! or any file by its full name (`[[Note.md]]`, `[[image.png]]`). A target with `/` loses a
//! leading `/` or `./`; one starting with `.` is first tried relative to the linking note's
//! folder; then it must equal a vault path (with or without `.md`) or end one after a `/`.
//! Aliases never resolve a link. When several files match, Obsidian's tie rules pick one: the
//! file in the linking note's folder, else the one with the fewest path segments, else the first
//! in path order — and the link is marked ambiguous.

use rustc_hash::FxHashMap as HashMap;

/// Where a link points. A link is *resolved* when it points to a file or to its own note, and
/// *unresolved* — a broken link; Obsidian would create the note when it is clicked — otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Resolution {
    /// `[[#Heading]]`: the linking note itself.
    SelfLink,
    /// A file of the vault (index into [`FileTable::paths`]), and whether other files matched too.
    File {
        /// The file's id.
        id: usize,
        /// Whether several files matched and the tie rules chose this one.
        ambiguous: bool,
    },
    /// No file matches the target.
    Unresolved,
}

impl Resolution {
    /// The file id the link points to; `None` for self-links and unresolved links.
    pub fn file(self) -> Option<usize> {
        match self {
            Resolution::File { id, .. } => Some(id),
            _ => None,
        }
    }
}

impl Resolution {
    /// This resolution with a file id of a table from [`FileTable::for_links`] turned into
    /// the id of the whole listing.
    pub(crate) fn mapped(self, ids: &[usize]) -> Resolution {
        match self {
            Resolution::File { id, ambiguous } => Resolution::File {
                id: ids[id],
                ambiguous,
            },
            other => other,
        }
    }
}

/// Every file of the vault with the lookup tables that resolution needs. Ids are stable: a
/// file keeps its id when renamed, and a removed file leaves an empty path behind.
#[derive(Debug, Default, Clone)]
pub struct FileTable {
    /// Vault-relative paths by id (sorted when the table was built; `""` for a removed file).
    pub paths: Vec<String>,
    /// Each path lower-cased, by id: the one string per file the lookups compare against.
    lower: Vec<String>,
    /// [`key`] of a lower-cased path → files. Keys are hashes, so every hit is checked
    /// against `lower` (several ids only when paths differ by case alone, or on a collision).
    by_path: HashMap<u64, Ids>,
    /// [`key`] of a lower-cased file name (`note.md`, `image.png`) → files. A note's name
    /// without `.md` is looked up as that name plus `.md`.
    by_file_name: HashMap<u64, Ids>,
}

/// Files sharing a key: almost always one, kept inline (a vault has two such maps, each with
/// an entry per file).
type Ids = smallvec::SmallVec<[usize; 1]>;

/// The lookup key of a lower-cased string given in parts (FNV-1a: a byte at a time, so the
/// parts hash as their concatenation would). Building a table costs no string per key.
fn key(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in parts.iter().flat_map(|p| p.bytes()) {
        h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Whether a vault path is a note: it ends in `.md` (in any case) after at least one character.
pub fn is_note_path(path: &str) -> bool {
    path.len() > 3 && path[path.len() - 3..].eq_ignore_ascii_case(".md")
}

impl FileTable {
    /// Builds the table; `paths` need not be sorted.
    pub(crate) fn new(mut paths: Vec<String>) -> Self {
        paths.sort();
        FileTable::lookups_of(&paths).with_paths(paths)
    }

    /// The lookup maps of `sorted` paths (ids are positions), without the paths themselves:
    /// built while the caller still reads the paths, then completed by [`Self::with_paths`].
    pub(crate) fn lookups_of(sorted: &[String]) -> Self {
        let mut table = FileTable {
            paths: Vec::new(),
            lower: Vec::with_capacity(sorted.len()),
            by_path: HashMap::with_capacity_and_hasher(sorted.len(), Default::default()),
            by_file_name: HashMap::with_capacity_and_hasher(sorted.len(), Default::default()),
        };
        for (id, p) in sorted.iter().enumerate() {
            table.lower.push(p.to_lowercase());
            table.index_path(id);
        }
        table
    }

    /// The table of the files among `sorted` that the links `(from, target)` could resolve
    /// to, and each one's position in `sorted`. [`Self::resolve`] only ever looks at files
    /// named like a target's last segment (with or without `.md`; for `./` and `../` targets,
    /// like the path they lead to), so a link resolves against this small table as against
    /// the whole one, once its ids are mapped back ([`Resolution::mapped`]). Builds in a scan
    /// of the names instead of the lookups of every path.
    pub(crate) fn for_links<'a>(
        sorted: &[String],
        links: impl Iterator<Item = (&'a str, &'a str)>,
    ) -> (FileTable, Vec<usize>) {
        let mut names: rustc_hash::FxHashSet<String> = Default::default();
        for (from, target) in links {
            let lower = target.trim().to_lowercase();
            let stripped = lower
                .strip_prefix("./")
                .or_else(|| lower.strip_prefix('/'))
                .unwrap_or(&lower);
            let leaf = file_name(stripped).to_string();
            names.insert(format!("{leaf}.md"));
            names.insert(leaf);
            // `exact` lowercases the target with `.md` added, and a final capital sigma
            // lowercases by what follows it (`ΟΔΟΣ` → `οδος`, `ΟΔΟΣ.md` → `οδοσ.md`)
            let original = target.trim();
            let original = original
                .strip_prefix("./")
                .or_else(|| original.strip_prefix('/'))
                .unwrap_or(original);
            names.insert(file_name(&format!("{original}.md").to_lowercase()).to_string());
            if lower.starts_with('.')
                && let Some(joined) = join_relative(folder(from), target.trim())
            {
                let leaf = file_name(&joined).to_lowercase();
                names.insert(format!("{leaf}.md"));
                names.insert(leaf);
                names.insert(file_name(&format!("{joined}.md").to_lowercase()).to_string());
            }
        }
        let ids: Vec<usize> = (0..sorted.len())
            .filter(|&i| names.contains(&file_name(&sorted[i]).to_lowercase()))
            .collect();
        let paths: Vec<String> = ids.iter().map(|&i| sorted[i].clone()).collect();
        (FileTable::lookups_of(&paths).with_paths(paths), ids)
    }

    /// Completes a table from [`Self::lookups_of`] with the same sorted paths.
    pub(crate) fn with_paths(mut self, sorted: Vec<String>) -> Self {
        self.paths = sorted;
        self
    }

    /// Enters file `id` (its lower-cased path already in `lower`) in the maps.
    fn index_path(&mut self, id: usize) {
        let lower = self.lower[id].as_str();
        self.by_path.entry(key(&[lower])).or_default().push(id);
        self.by_file_name
            .entry(key(&[file_name(lower)]))
            .or_default()
            .push(id);
    }

    fn unindex_path(&mut self, id: usize) {
        let lower = self.lower[id].as_str();
        let drop = |m: &mut HashMap<u64, Ids>, k: u64| {
            if let Some(v) = m.get_mut(&k) {
                v.retain(|x| *x != id);
                if v.is_empty() {
                    m.remove(&k);
                }
            }
        };
        drop(&mut self.by_path, key(&[lower]));
        drop(&mut self.by_file_name, key(&[file_name(lower)]));
    }

    /// The lower-cased path of file `id`.
    pub(crate) fn lower_path(&self, id: usize) -> &str {
        &self.lower[id]
    }

    /// The files whose lower-cased path is `lower`.
    fn with_lower_path<'a>(&'a self, lower: &'a str) -> impl Iterator<Item = usize> + 'a {
        self.by_path
            .get(&key(&[lower]))
            .into_iter()
            .flatten()
            .copied()
            .filter(move |&id| self.lower[id] == lower)
    }

    /// The files whose lower-cased file name is the concatenation of `parts`.
    fn with_lower_name<'a>(&'a self, parts: &'a [&'a str]) -> impl Iterator<Item = usize> + 'a {
        self.by_file_name
            .get(&key(parts))
            .into_iter()
            .flatten()
            .copied()
            .filter(move |&id| {
                let mut name = file_name(&self.lower[id]);
                parts.iter().all(|p| match name.strip_prefix(p) {
                    Some(rest) => {
                        name = rest;
                        true
                    }
                    None => false,
                }) && name.is_empty()
            })
    }

    /// Adds a file and returns its id.
    pub(crate) fn insert(&mut self, path: &str) -> usize {
        self.paths.push(path.to_string());
        self.lower.push(path.to_lowercase());
        let id = self.paths.len() - 1;
        self.index_path(id);
        id
    }

    /// Gives a file a new path, keeping its id.
    pub(crate) fn rename(&mut self, id: usize, to: &str) {
        self.unindex_path(id);
        self.paths[id] = to.to_string();
        self.lower[id] = to.to_lowercase();
        self.index_path(id);
    }

    /// The live files (removed ones left out), as (id, path).
    pub(crate) fn live(&self) -> impl Iterator<Item = (usize, &str)> {
        self.paths
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.is_empty())
            .map(|(i, p)| (i, p.as_str()))
    }

    /// The file at a path, compared case-insensitively; when files differ only by case, the
    /// one written exactly so wins.
    pub fn id_of(&self, path: &str) -> Option<usize> {
        let lower = path.to_lowercase();
        let ids: Ids = self.with_lower_path(&lower).collect();
        ids.iter()
            .copied()
            .find(|&id| self.paths[id] == path)
            .or_else(|| {
                ids.iter()
                    .copied()
                    .min_by(|&a, &b| self.paths[a].cmp(&self.paths[b]))
            })
    }

    /// How many notes are called `name` (without `.md`, compared as resolution compares it).
    pub fn notes_named(&self, name: &str) -> usize {
        let lower = name.to_lowercase();
        self.with_lower_name(&[&lower, ".md"]).count()
    }

    /// Resolves a link target written in the note at vault path `from`, by the rules in the
    /// module documentation. `target` is [`WikiLink::target`](crate::markdown::WikiLink::target):
    /// no `#subpath` or `|alias`; an empty (or blank) target is a self-link.
    pub fn resolve(&self, from: &str, target: &str) -> Resolution {
        let target = target.trim();
        if target.is_empty() {
            return Resolution::SelfLink;
        }
        let lower = target.to_lowercase();
        let from_dir = folder(from);
        if !lower.contains('/') {
            let mut candidates: Vec<usize> = self.with_lower_name(&[&lower, ".md"]).collect();
            candidates.extend(self.with_lower_name(&[&lower]));
            candidates.sort_unstable();
            candidates.dedup();
            return self.pick(from_dir, &candidates);
        }
        if lower.starts_with('.')
            && let Some(joined) = join_relative(from_dir, target)
            && let Some(id) = self.exact(&joined)
        {
            return Resolution::File {
                id,
                ambiguous: false,
            };
        }
        let original = target
            .strip_prefix("./")
            .or_else(|| target.strip_prefix('/'))
            .unwrap_or(target);
        let stripped = lower
            .strip_prefix("./")
            .or_else(|| lower.strip_prefix('/'))
            .unwrap_or(&lower);
        if let Some(id) = self.exact(original) {
            return Resolution::File {
                id,
                ambiguous: false,
            };
        }
        // a file ending in `/a/b` or `/a/b.md` is named `b` or `b.md`: only those are checked
        let suffix = format!("/{stripped}");
        let suffix_md = format!("{suffix}.md");
        let leaf = file_name(stripped);
        let mut candidates: Vec<usize> = self
            .with_lower_name(&[leaf, ".md"])
            .chain(self.with_lower_name(&[leaf]))
            .filter(|&i| {
                let p = &self.lower[i];
                p.ends_with(&suffix) || p.ends_with(&suffix_md)
            })
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        self.pick(from_dir, &candidates)
    }

    fn exact(&self, path: &str) -> Option<usize> {
        self.id_of(path)
            .or_else(|| self.id_of(&format!("{path}.md")))
    }

    fn pick(&self, from_dir: &str, candidates: &[usize]) -> Resolution {
        match candidates.len() {
            0 => Resolution::Unresolved,
            1 => Resolution::File {
                id: candidates[0],
                ambiguous: false,
            },
            _ => {
                let path = |id: usize| self.paths[id].as_str();
                // the linking note's folder, else the fewest segments, else path order
                let same_folder = candidates
                    .iter()
                    .copied()
                    .filter(|&id| folder(path(id)).eq_ignore_ascii_case(from_dir))
                    .min_by(|&a, &b| path(a).cmp(path(b)));
                let id = same_folder.unwrap_or_else(|| {
                    candidates
                        .iter()
                        .copied()
                        .min_by(|&a, &b| {
                            (path(a).matches('/').count(), path(a))
                                .cmp(&(path(b).matches('/').count(), path(b)))
                        })
                        .unwrap_or(candidates[0])
                });
                Resolution::File {
                    id,
                    ambiguous: true,
                }
            }
        }
    }
}

/// Joins a `./` or `../` target to a folder, normalising the dots; `None` if it leaves the vault.
pub(crate) fn join_relative(dir: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for seg in target.split('/') {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Resolving against the small table of [`FileTable::for_links`] gives what the whole
    /// table gives, for every kind of target.
    #[test]
    fn the_table_for_some_links_resolves_as_the_whole() {
        let mut paths: Vec<String> = [
            "Home.md",
            "a/Note.md",
            "b/Note.md",
            "b/deep/Note.md",
            "b/note.MD",
            "img/pic.png",
            "a/sub/Child.md",
            "x/Café ☕.md",
            "x/ΣΟΦΙΑ.md",
            "x/ΟΔΟΣ.md",
            "sub/ΛΟΓΟΣ.md",
            "a/b/c.md",
            "c.md",
            "a/Note",
        ]
        .map(String::from)
        .to_vec();
        paths.sort();
        let whole = FileTable::lookups_of(&paths).with_paths(paths.clone());
        let targets = [
            "Note",
            "note.md",
            "NOTE",
            "b/Note",
            "/b/Note",
            "./Note",
            "../b/Note",
            "../b/..",
            "./sub/Child",
            "sub/child",
            "pic.png",
            "img/pic.png",
            "Café ☕",
            "σοφια",
            "c",
            "b/c",
            "a/b/c",
            "missing",
            "",
            " Note ",
            "deep/Note.md",
            "a/Note",
        ];
        for from in ["Home.md", "a/x.md", "b/deep/y.md", "x/z.md"] {
            let links: Vec<(&str, &str)> = targets.iter().map(|t| (from, *t)).collect();
            let (small, ids) = FileTable::for_links(&paths, links.iter().copied());
            assert!(ids.len() < paths.len());
            for t in targets {
                assert_eq!(
                    small.resolve(from, t).mapped(&ids),
                    whole.resolve(from, t),
                    "{from} → {t:?}"
                );
            }
        }
    }

    fn table() -> FileTable {
        FileTable::new(
            [
                "Home.md",
                "a/Note.md",
                "b/Note.md",
                "b/deep/Note.md",
                "img/pic.png",
                "a/sub/Child.md",
                "x/Café ☕.md",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        )
    }

    fn resolved(t: &FileTable, from: &str, target: &str) -> Option<String> {
        t.resolve(from, target).file().map(|i| t.paths[i].clone())
    }

    #[test]
    fn by_name_case_insensitive() {
        let t = table();
        assert_eq!(resolved(&t, "Home.md", "home").as_deref(), Some("Home.md"));
        assert_eq!(
            resolved(&t, "Home.md", "HOME.md").as_deref(),
            Some("Home.md")
        );
        assert_eq!(
            resolved(&t, "Home.md", "PIC.png").as_deref(),
            Some("img/pic.png")
        );
        assert_eq!(
            resolved(&t, "Home.md", "café ☕").as_deref(),
            Some("x/Café ☕.md")
        );
    }

    #[test]
    fn ambiguous_prefers_same_folder_then_shallowest_then_path_order() {
        let t = table();
        assert_eq!(
            resolved(&t, "b/deep/X.md", "Note").as_deref(),
            Some("b/deep/Note.md")
        );
        assert_eq!(
            resolved(&t, "Home.md", "Note").as_deref(),
            Some("a/Note.md")
        );
        assert!(matches!(
            t.resolve("Home.md", "Note"),
            Resolution::File {
                ambiguous: true,
                ..
            }
        ));
    }

    #[test]
    fn paths_and_suffixes() {
        let t = table();
        assert_eq!(
            resolved(&t, "Home.md", "b/Note").as_deref(),
            Some("b/Note.md")
        );
        assert_eq!(
            resolved(&t, "Home.md", "/b/Note").as_deref(),
            Some("b/Note.md")
        );
        assert_eq!(
            resolved(&t, "Home.md", "deep/Note").as_deref(),
            Some("b/deep/Note.md")
        );
        assert_eq!(
            resolved(&t, "Home.md", "sub/Child.md").as_deref(),
            Some("a/sub/Child.md")
        );
        assert_eq!(
            resolved(&t, "a/Note.md", "./sub/Child").as_deref(),
            Some("a/sub/Child.md")
        );
        assert_eq!(
            resolved(&t, "a/sub/Child.md", "../Note").as_deref(),
            Some("a/Note.md")
        );
        assert_eq!(t.resolve("Home.md", "nope/Note"), Resolution::Unresolved);
        assert_eq!(t.resolve("Home.md", ""), Resolution::SelfLink);
    }
}
