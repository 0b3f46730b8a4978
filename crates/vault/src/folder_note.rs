//! Folder notes: the note that stands for a folder. Vaults mark them in several ways — the
//! Folder Notes plugin's `X/X.md` (inside) and `X.md` beside `X/` (outside), `X/_index.md` or
//! `X/index.md`, and names decorated with an emoji or numbers kept from the folder
//! (`06 - Inbox/🗂️ 06 - Inbox.md`). A folder note is the folder's own map: it is never an item
//! to file, and notes filed into the folder are listed there rather than in a new MOC beside it.

/// A name reduced to lowercase letters and digits: emoji, punctuation and spacing are
/// decoration (`🗂️ 06 - Inbox` = `06 - Inbox` = `06-inbox`).
fn bare(name: &str) -> String {
    name.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

fn split(path: &str) -> (&str, &str) {
    let (folder, file) = path.rsplit_once('/').unwrap_or(("", path));
    (folder, file.strip_suffix(".md").unwrap_or(file))
}

/// Whether the note at `path` is the folder note of the folder it sits in (`X/X.md`,
/// `X/🗂️ X.md`, `X/_index.md`, `X/index.md`).
pub fn is_inside_folder_note(path: &str) -> bool {
    let (folder, name) = split(path);
    if folder.is_empty() {
        return false;
    }
    if name.eq_ignore_ascii_case("_index") || name.eq_ignore_ascii_case("index") {
        return true;
    }
    let last = folder.rsplit('/').next().unwrap_or(folder);
    // `bare(name) == bare(last)`, compared as the characters come (no copy per note)
    let bare_chars = |s: &'_ str| {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect::<smallvec::SmallVec<[char; 32]>>()
    };
    let a = bare_chars(name);
    !a.is_empty() && a == bare_chars(last)
}

/// The folder note of `folder` among `notes` (vault paths): inside it first, then beside it
/// (`parent/X.md` for `parent/X/`).
pub fn find<'a>(folder: &str, notes: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let folder = folder.trim_end_matches('/');
    let last = folder.rsplit('/').next().unwrap_or(folder);
    let parent = folder.rsplit_once('/').map_or("", |(p, _)| p);
    let want = bare(last);
    if want.is_empty() {
        return None;
    }
    let mut beside = None;
    // only notes in the folder or its parent can be its folder note: a prefix test skips
    // the rest of a large vault without splitting their paths
    let near = |p: &str| {
        p.starts_with(parent) && (parent.is_empty() || p[parent.len()..].starts_with('/'))
    };
    for p in notes.into_iter().filter(|p| near(p)) {
        let (f, name) = split(p);
        if f == folder && is_inside_folder_note(p) {
            return Some(p);
        }
        if f == parent && bare(name) == want && beside.is_none() {
            beside = Some(p);
        }
    }
    beside
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_usual_conventions() {
        assert!(is_inside_folder_note("06 - Inbox/🗂️ 06 - Inbox.md"));
        assert!(is_inside_folder_note("Plugins/Plugins.md"));
        assert!(is_inside_folder_note("Areas/Health/_index.md"));
        assert!(is_inside_folder_note("Areas/Health/index.md"));
        assert!(!is_inside_folder_note("Plugins/Dataview.md"));
        assert!(!is_inside_folder_note("Plugins.md"));
        assert!(!is_inside_folder_note("Inbox/🗂️.md"));
    }

    #[test]
    fn finds_inside_before_beside() {
        let notes = ["Tools.md", "Tools/Tools.md", "Tools/Hammer.md"];
        assert_eq!(find("Tools", notes), Some("Tools/Tools.md"));
        let notes = ["Tools.md", "Tools/Hammer.md"];
        assert_eq!(find("Tools", notes), Some("Tools.md"));
        let notes = ["Work/Tools.md", "Work/Tools/Hammer.md"];
        assert_eq!(find("Work/Tools", notes), Some("Work/Tools.md"));
        assert_eq!(find("Work/Other", notes), None);
    }
}
