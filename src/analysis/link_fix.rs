//! Which broken links the nightly fix may repair unasked, and which it may only propose.
//!
//! An unasked fix must keep what the note means and what its reader sees. So a broken link is
//! pointed at another note only when its target names that note in another spelling of the
//! same words — letters differing in case, accents or Unicode form (`[[zurich]]` for
//! `Zürich.md`, a decomposed `é` for a composed one) — or when it is one of that note's own
//! `aliases` (`[[Micha]]` for `Micha Brugger.md` whose aliases list `Micha`) — for a link, not
//! an embed: an embed by alias would show a whole other note where the writer may have meant
//! an image, so it is proposed instead. Everything else a
//! looser reading would match — a dropped hyphen, space or other punctuation (`[[r-studio]]`
//! and `RStudio`, `[[Micha Brugger]]` and `MichaBrugger`), or a choice between different words
//! (`[[C++ string]]` and `C String`) — is a proposal in the report, never a change.

use std::collections::HashMap;

use serde::Serialize;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

use crate::vault::Vault;

/// How a safe fix finds its note.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixVia {
    /// The target is the note's name (and folders) spelled with other case, accents or
    /// Unicode form.
    Spelling,
    /// The target is one of the note's aliases.
    Alias,
}

/// A broken link's safe fix: the note it meant and the target to write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SafeFix {
    /// The vault path of the note the link meant.
    pub note: String,
    /// The new target, shaped as the old one: as many folders, `.md` kept when written.
    pub to: String,
    pub via: FixVia,
}

/// Text compared as the reader reads it: compatibility-decomposed (NFKD), accents and other
/// combining marks dropped, lower-cased. Spaces, hyphens and every other character stay.
pub fn meaning_fold(s: &str) -> String {
    // ASCII decomposes to itself: most note names skip the normalisation
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    s.nfkd()
        .filter(|c| !is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .collect()
}

/// The vault's notes by folded name and by folded alias, crew's own notes left out.
pub struct FixIndex<'a> {
    by_name: HashMap<String, Vec<&'a str>>,
    by_alias: HashMap<String, Vec<&'a str>>,
}

fn stem(path: &str) -> &str {
    path.strip_suffix(".md").unwrap_or(path)
}

fn leaf(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

impl<'a> FixIndex<'a> {
    /// Built over the notes of `vault` for which `owned` (by note index) is false.
    pub fn of(vault: &'a Vault, owned: &[bool]) -> FixIndex<'a> {
        let mut by_name: HashMap<String, Vec<&str>> = HashMap::new();
        let mut by_alias: HashMap<String, Vec<&str>> = HashMap::new();
        for (n, _) in vault.notes.iter().zip(owned).filter(|(_, o)| !**o) {
            by_name
                .entry(meaning_fold(n.name()))
                .or_default()
                .push(&n.path);
            for a in &n.aliases {
                let list = by_alias.entry(meaning_fold(a.trim())).or_default();
                if !list.contains(&n.path.as_str()) {
                    list.push(&n.path);
                }
            }
        }
        FixIndex { by_name, by_alias }
    }

    /// The notes that list `target` among their aliases (compared as [`meaning_fold`] does):
    /// proposals for a link or embed with no safe fix.
    pub fn alias_notes(&self, target: &str) -> Vec<String> {
        self.by_alias
            .get(&meaning_fold(target.trim()))
            .map(|v| v.iter().map(|p| p.to_string()).collect())
            .unwrap_or_default()
    }

    /// The safe fix of a broken link (`embed`: of an embed) to `target`: `Some` when exactly
    /// one note is meant. Targets relative to the linking note (`./x`, `../x`) or to the vault
    /// root (`/x`) get none: their folders are read in another way.
    pub fn safe_fix(&self, target: &str, embed: bool) -> Option<SafeFix> {
        let t = target.trim();
        if t.is_empty() || t.starts_with(['.', '/']) {
            return None;
        }
        let (written, ext) = match t.len().checked_sub(3) {
            Some(cut) if t.is_char_boundary(cut) && t[cut..].eq_ignore_ascii_case(".md") => {
                (&t[..cut], &t[cut..])
            }
            _ => (t, ""),
        };
        let folded = meaning_fold(written);
        let segments = written.split('/').count();
        let mut found: Vec<SafeFix> = Vec::new();
        for &path in self
            .by_name
            .get(&meaning_fold(leaf(written)))
            .into_iter()
            .flatten()
        {
            // the link's folders too must be the note's, in another spelling
            let parts: Vec<&str> = stem(path).split('/').collect();
            let Some(first) = parts.len().checked_sub(segments) else {
                continue;
            };
            let tail = parts[first..].join("/");
            if meaning_fold(&tail) == folded {
                found.push(SafeFix {
                    note: path.to_string(),
                    to: format!("{tail}{ext}"),
                    via: FixVia::Spelling,
                });
            }
        }
        if segments == 1 && ext.is_empty() && !embed {
            for &path in self.by_alias.get(&folded).into_iter().flatten() {
                if found.iter().any(|f| f.note == path) {
                    continue;
                }
                let name = stem(leaf(path));
                // written by name, the link must lead to this note alone
                if self.by_name.get(&meaning_fold(name)).map_or(0, Vec::len) != 1 {
                    return None;
                }
                found.push(SafeFix {
                    note: path.to_string(),
                    to: name.to_string(),
                    via: FixVia::Alias,
                });
            }
        }
        match <[SafeFix; 1]>::try_from(found) {
            Ok([one]) => Some(one),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::Note;

    fn vault(notes: &[(&str, &str)]) -> Vault {
        let notes = notes.iter().map(|(p, t)| Note::parse_text(*p, t)).collect();
        Vault::from_notes(std::path::PathBuf::from("/v"), notes, Vec::new())
    }

    fn fix(v: &Vault, target: &str) -> Option<(String, FixVia)> {
        let owned = vec![false; v.notes.len()];
        FixIndex::of(v, &owned)
            .safe_fix(target, false)
            .map(|f| (f.to, f.via))
    }

    #[test]
    fn case_accents_and_unicode_form_are_safe() {
        let v = vault(&[("Places/Zürich.md", ""), ("Café.md", "")]);
        let spelling = |to: &str| Some((to.to_string(), FixVia::Spelling));
        assert_eq!(fix(&v, "zurich"), spelling("Zürich"));
        assert_eq!(fix(&v, "places/ZURICH"), spelling("Places/Zürich"));
        assert_eq!(fix(&v, "zurich.MD"), spelling("Zürich.MD"));
        // a decomposed é (e and a combining accent) and a full-width letter
        assert_eq!(fix(&v, "Cafe\u{301}"), spelling("Café"));
        assert_eq!(fix(&v, "Ｃafe"), spelling("Café"));
        // the folders must match too
        assert_eq!(fix(&v, "Archive/zurich"), None);
    }

    #[test]
    fn dropped_spaces_hyphens_and_other_words_are_no_safe_fix() {
        let v = vault(&[
            ("People/MichaBrugger.md", ""),
            ("Tools/RStudio.md", ""),
            ("Code/C String.md", ""),
        ]);
        assert_eq!(fix(&v, "Micha Brugger"), None);
        assert_eq!(fix(&v, "r-studio"), None);
        assert_eq!(fix(&v, "C++ string"), None);
    }

    #[test]
    fn the_vaults_own_aliases_are_followed() {
        let v = vault(&[
            (
                "People/Micha Brugger.md",
                "---\naliases: [Micha, MB]\n---\n",
            ),
            ("People/Anna Meier.md", "---\naliases: Anna\n---\n"),
            ("Other/Anna Meier.md", ""),
            ("Shared A.md", "---\naliases: [Shared]\n---\n"),
            ("Shared B.md", "---\naliases: [shared]\n---\n"),
        ]);
        assert_eq!(
            fix(&v, "micha"),
            Some(("Micha Brugger".to_string(), FixVia::Alias))
        );
        // the name is ambiguous, or the alias is two notes': no safe fix
        assert_eq!(fix(&v, "Anna"), None);
        assert_eq!(fix(&v, "Shared"), None);
        // aliases name notes, not paths
        assert_eq!(fix(&v, "People/Micha"), None);
        // an embed by alias is only proposed
        let owned = vec![false; v.notes.len()];
        let index = FixIndex::of(&v, &owned);
        assert_eq!(index.safe_fix("micha", true), None);
        assert_eq!(index.alias_notes("MICHA"), vec!["People/Micha Brugger.md"]);
    }

    #[test]
    fn several_notes_of_the_same_spelling_are_no_safe_fix() {
        let v = vault(&[("A/Zürich.md", ""), ("B/Zurich.md", "")]);
        assert_eq!(fix(&v, "zurich"), None);
        assert_eq!(
            fix(&v, "a/zurich"),
            Some(("A/Zürich".to_string(), FixVia::Spelling))
        );
        assert_eq!(fix(&v, ".hidden/x"), None);
    }
}
