//! Folder names exactly as the user wrote them, and the existing folder a requested one
//! already is. A name keeps its parentheses, accents, emoji and dots; a request for a folder
//! that differs from an existing one only in case, spacing or punctuation means that folder.

use crate::agents::common::fold;

/// The leaf of an existing folder (one of `existing`, leaves of the home root) that `name`
/// names once case, accents, spacing and punctuation are ignored.
pub(crate) fn existing_twin<'a>(name: &str, existing: &'a [String]) -> Option<&'a str> {
    let want = fold(name);
    if want.is_empty() {
        return None;
    }
    existing
        .iter()
        .map(String::as_str)
        .find(|leaf| *leaf == name)
        .or_else(|| {
            existing
                .iter()
                .map(String::as_str)
                .find(|leaf| fold(leaf) == want)
        })
}

/// The folder name at the start of `text` (what follows `01-Projects/` in a hand-off). An
/// existing folder whose name starts the text wins, so `Projects (2026)` is read whole; else
/// the name runs to the next `/`, `;` or line end, and a trailing remark in parentheses with
/// several words (`Kitchen (with _index.md and a MOC)`) is left out.
pub(crate) fn name_at(text: &str, existing: &[String]) -> String {
    let line = text.lines().next().unwrap_or("");
    let mut known: Vec<&String> = existing
        .iter()
        .filter(|leaf| {
            line.get(..leaf.len())
                .is_some_and(|head| head.eq_ignore_ascii_case(leaf))
                && line[leaf.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| !c.is_alphanumeric())
        })
        .collect();
    known.sort_by_key(|leaf| std::cmp::Reverse(leaf.len()));
    if let Some(leaf) = known.first() {
        return leaf.to_string();
    }
    let raw = line.split(['/', ';']).next().unwrap_or("");
    without_remark(raw)
        .trim()
        .trim_end_matches([',', ':'])
        .trim_end_matches('.')
        .trim()
        .to_string()
}

/// `raw` without a trailing parenthesised remark of several words, or an unclosed one.
fn without_remark(raw: &str) -> &str {
    let Some(open) = raw.find(" (") else {
        return raw;
    };
    let inside = &raw[open + 2..];
    match inside.find(')') {
        Some(close) if !inside[..close].trim().contains(' ') => raw,
        _ => &raw[..open],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaves(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn an_existing_folder_is_found_whatever_its_spelling() {
        let have = leaves(&["Projects (2026)", "Café ☕", "v1.2 notes"]);
        assert_eq!(
            existing_twin("projects 2026", &have),
            Some("Projects (2026)")
        );
        assert_eq!(
            existing_twin("Projects-(2026)", &have),
            Some("Projects (2026)")
        );
        assert_eq!(existing_twin("cafe ☕", &have), Some("Café ☕"));
        assert_eq!(existing_twin("V1.2 Notes", &have), Some("v1.2 notes"));
        assert_eq!(existing_twin("Projects 2027", &have), None);
    }

    #[test]
    fn names_keep_parentheses_accents_emoji_and_dots() {
        let none = Vec::new();
        assert_eq!(name_at("Projects (2026)", &none), "Projects (2026)");
        assert_eq!(name_at("Été 🌞 v2.1/ and more", &none), "Été 🌞 v2.1");
        assert_eq!(
            name_at("Kitchen (with _index.md and a MOC)", &none),
            "Kitchen"
        );
        assert_eq!(name_at("Kitchen/ (with _index.md)", &none), "Kitchen");
        assert_eq!(name_at("Kitchen (unclosed", &none), "Kitchen");
    }

    #[test]
    fn an_existing_folder_name_is_read_whole() {
        let have = leaves(&["Side (Personal Stuff)", "Side"]);
        assert_eq!(
            name_at("Side (Personal Stuff) for the notes", &have),
            "Side (Personal Stuff)"
        );
        assert_eq!(name_at("Sidecar", &have), "Sidecar");
    }
}
