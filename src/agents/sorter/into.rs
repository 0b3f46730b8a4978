//! `crew triage --into FOLDER NOTE…`: the user's own decision, files the named inbox notes into
//! one folder (made when missing), the way a proposed new home is applied.

/// A folder and the inbox notes the user files into it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileInto {
    /// Vault-relative folder.
    pub folder: String,
    /// The notes as the user named them: vault paths, or file names with or without `.md`.
    pub notes: Vec<String>,
}

impl FileInto {
    /// Whether the inbox note at `path` is one the user named.
    pub(crate) fn names(&self, path: &str) -> bool {
        self.notes.iter().any(|n| same(path, n))
    }
}

/// Whether `asked` names the note at vault path `path`: the path itself, or its file name,
/// with or without `.md`, in any case.
pub(crate) fn same(path: &str, asked: &str) -> bool {
    let asked = asked.trim().trim_start_matches("./");
    let with_md = |s: &str| {
        if s.to_lowercase().ends_with(".md") {
            s.to_lowercase()
        } else {
            format!("{}.md", s.to_lowercase())
        }
    };
    let path = path.to_lowercase();
    let file = path.rsplit('/').next().unwrap_or(&path);
    let asked = with_md(asked);
    asked == path || (!asked.contains('/') && asked == file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_is_named_by_its_path_or_its_file_name() {
        assert!(same("00-Inbox/Pancakes.md", "00-Inbox/Pancakes.md"));
        assert!(same("00-Inbox/Pancakes.md", "pancakes"));
        assert!(same("00-Inbox/Pancakes.md", "./00-Inbox/pancakes.md"));
        assert!(!same("00-Inbox/Pancakes.md", "Other/Pancakes.md"));
        assert!(!same("00-Inbox/Pancakes.md", "Pan"));
    }
}
