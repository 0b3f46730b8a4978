//! Link resolution, the Obsidian way (see `spec/vault-conventions.md`).

use std::collections::HashMap;

/// Where a link points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// `[[#Heading]]`: the linking note itself.
    SelfLink,
    /// A file of the vault (index into [`FileTable::paths`]), and whether other files matched too.
    File {
        id: usize,
        ambiguous: bool,
    },
    Unresolved,
}

impl Resolution {
    pub fn file(self) -> Option<usize> {
        match self {
            Resolution::File { id, .. } => Some(id),
            _ => None,
        }
    }
}

/// Every file of the vault with the lookup tables that resolution needs.
#[derive(Debug, Default, Clone)]
pub struct FileTable {
    /// Vault-relative paths, sorted as strings.
    pub paths: Vec<String>,
    /// Lower-cased path → files (several only when names differ by case alone).
    by_path: HashMap<String, Vec<usize>>,
    by_file_name: HashMap<String, Vec<usize>>,
    by_note_name: HashMap<String, Vec<usize>>,
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

fn folder(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

pub fn is_note_path(path: &str) -> bool {
    path.len() > 3 && path[path.len() - 3..].eq_ignore_ascii_case(".md")
}

impl FileTable {
    /// Builds the table; `paths` need not be sorted.
    pub fn new(mut paths: Vec<String>) -> Self {
        paths.sort();
        let mut table = FileTable::default();
        for (id, p) in paths.iter().enumerate() {
            let lower = p.to_lowercase();
            table.by_path.entry(lower.clone()).or_default().push(id);
            let name = file_name(&lower).to_string();
            if let Some(stem) = name.strip_suffix(".md") {
                table
                    .by_note_name
                    .entry(stem.to_string())
                    .or_default()
                    .push(id);
            }
            table.by_file_name.entry(name).or_default().push(id);
        }
        table.paths = paths;
        table
    }

    /// The file at a path, compared case-insensitively; when files differ only by case, the
    /// one written exactly so wins.
    pub fn id_of(&self, path: &str) -> Option<usize> {
        let ids = self.by_path.get(&path.to_lowercase())?;
        ids.iter()
            .copied()
            .find(|&id| self.paths[id] == path)
            .or_else(|| ids.first().copied())
    }

    /// Resolves a link target written in the note at `from`.
    pub fn resolve(&self, from: &str, target: &str) -> Resolution {
        let target = target.trim();
        if target.is_empty() {
            return Resolution::SelfLink;
        }
        let lower = target.to_lowercase();
        let from_dir = folder(from);
        if !lower.contains('/') {
            let mut candidates: Vec<usize> = Vec::new();
            if let Some(ids) = self.by_note_name.get(&lower) {
                candidates.extend(ids);
            }
            if let Some(ids) = self.by_file_name.get(&lower) {
                candidates.extend(ids);
            }
            candidates.sort_unstable();
            candidates.dedup();
            return self.pick(from_dir, candidates);
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
        let suffix = format!("/{stripped}");
        let suffix_md = format!("{suffix}.md");
        let candidates: Vec<usize> = self
            .paths
            .iter()
            .enumerate()
            .filter(|(_, p)| {
                let p = p.to_lowercase();
                p.ends_with(&suffix) || p.ends_with(&suffix_md)
            })
            .map(|(i, _)| i)
            .collect();
        self.pick(from_dir, candidates)
    }

    fn exact(&self, path: &str) -> Option<usize> {
        self.id_of(path)
            .or_else(|| self.id_of(&format!("{path}.md")))
    }

    fn pick(&self, from_dir: &str, candidates: Vec<usize>) -> Resolution {
        match candidates.len() {
            0 => Resolution::Unresolved,
            1 => Resolution::File {
                id: candidates[0],
                ambiguous: false,
            },
            _ => {
                let same_folder = candidates
                    .iter()
                    .copied()
                    .find(|&id| folder(&self.paths[id]).eq_ignore_ascii_case(from_dir));
                let id = same_folder.unwrap_or_else(|| {
                    // fewest segments, then path order (ids are in path order already)
                    candidates
                        .iter()
                        .copied()
                        .min_by_key(|&id| (self.paths[id].matches('/').count(), id))
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
fn join_relative(dir: &str, target: &str) -> Option<String> {
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
