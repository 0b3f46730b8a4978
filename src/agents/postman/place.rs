//! Where the postman puts the notes it makes: imported events and saved emails go where the
//! vault keeps notes of that kind, else in the inbox — never in a new top-level folder unasked.
//!
//! In a vault crew laid out, crew's own places stand: events in `<meetings>/YYYY/MM/`, emails in
//! the inbox. Elsewhere the place is learned: the folder holding most of the vault's notes of
//! that kind (a `type` or key from `references/conventions/note-kinds.yaml`), with the year and
//! month subfolders its notes sit in when they do (`Work/Meetings/2026/03/`); else the meetings
//! folder when the vault has one (events); else the inbox; else, in a vault without an inbox,
//! its root.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::NaiveDate;
use serde::Deserialize;

use crate::crew::{Crew, Folders};
use crate::vault::{Note, Vault};

/// The kinds of note the postman makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Meeting,
    Email,
}

/// What marks a note as one kind, as `note-kinds.yaml` lists it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Marks {
    types: Vec<String>,
    keys: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Kinds {
    meeting: Marks,
    email: Marks,
}

const SOURCE: &str = include_str!("../../../references/conventions/note-kinds.yaml");

/// The marks, lower-cased; empty when the file does not parse (a unit test holds it to
/// parsing), and then nothing is learned: notes go to the configured place.
fn kinds() -> &'static Kinds {
    static KINDS: OnceLock<Kinds> = OnceLock::new();
    KINDS.get_or_init(|| match yaml_serde::from_str::<Kinds>(SOURCE) {
        Ok(mut k) => {
            for m in [&mut k.meeting, &mut k.email] {
                m.types.iter_mut().for_each(|t| *t = t.to_lowercase());
            }
            k
        }
        Err(e) => {
            tracing::warn!("note-kinds.yaml does not parse: {e}");
            Kinds::default()
        }
    })
}

impl Kind {
    fn marks(self) -> &'static Marks {
        match self {
            Kind::Meeting => &kinds().meeting,
            Kind::Email => &kinds().email,
        }
    }

    /// Whether a note is of this kind by its `type` or its keys.
    fn marks_note(self, n: &Note) -> bool {
        let m = self.marks();
        n.property_str("type")
            .is_some_and(|t| m.types.contains(&t.trim().to_lowercase()))
            || m.keys.iter().any(|k| n.has_property(k))
    }
}

/// How notes sit under their folder: flat, in year folders, or in year and month folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Dated {
    Flat,
    Year,
    YearMonth,
}

/// A place for new notes: a folder, and how dated notes sit under it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    pub base: String,
    pub dated: Dated,
}

impl Place {
    /// The folder a note of `date` goes in.
    pub fn folder_for(&self, date: NaiveDate) -> String {
        let sub = match self.dated {
            Dated::Flat => return self.base.clone(),
            Dated::Year => date.format("%Y").to_string(),
            Dated::YearMonth => date.format("%Y/%m").to_string(),
        };
        if self.base.is_empty() {
            sub
        } else {
            format!("{}/{sub}", self.base)
        }
    }

    /// The path of a note named `name` (without `.md`) of `date`.
    pub fn path_for(&self, date: NaiveDate, name: &str) -> String {
        match self.folder_for(date) {
            folder if folder.is_empty() => format!("{name}.md"),
            folder => format!("{folder}/{name}.md"),
        }
    }

    /// Whether a note lies under this place.
    pub fn holds(&self, path: &str) -> bool {
        self.base.is_empty() || path.starts_with(&format!("{}/", self.base))
    }
}

/// A folder without its trailing year (`2026`) and month (`03`) folders, and how deep they went.
fn undated(folder: &str) -> (&str, Dated) {
    fn split(f: &str) -> (&str, &str) {
        f.rsplit_once('/').unwrap_or(("", f))
    }
    let is = |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_digit());
    let (parent, last) = split(folder);
    if is(last, 2) {
        let (grand, year) = split(parent);
        if is(year, 4) {
            return (grand, Dated::YearMonth);
        }
    }
    if is(last, 4) {
        return (parent, Dated::Year);
    }
    (folder, Dated::Flat)
}

/// The folder holding most of the vault's notes of `kind` (templates and crew's own notes left
/// out), with the date layout most of them there use; ties go to the first folder by name.
fn learned(vault: &Vault, f: &Folders, kind: Kind) -> Option<Place> {
    let mut by_base: BTreeMap<&str, BTreeMap<Dated, usize>> = BTreeMap::new();
    for n in vault
        .notes
        .iter()
        .filter(|n| !f.in_templates(&n.path) && !f.crew_owned(&n.path))
        .filter(|n| kind.marks_note(n))
    {
        let (base, dated) = undated(n.folder());
        *by_base.entry(base).or_default().entry(dated).or_default() += 1;
    }
    let total = |m: &BTreeMap<Dated, usize>| m.values().sum::<usize>();
    let (base, layouts) = by_base
        .iter()
        .max_by(|a, b| total(a.1).cmp(&total(b.1)).then(b.0.cmp(a.0)))?;
    let dated = layouts
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map_or(Dated::Flat, |(d, _)| *d);
    Some(Place {
        base: base.to_string(),
        dated,
    })
}

/// Where new notes of `kind` go (see the module docs). `dir_exists` asks the vault as the run
/// sees it.
pub(crate) fn place(
    vault: &Vault,
    crew: &Crew,
    f: &Folders,
    kind: Kind,
    dir_exists: impl Fn(&str) -> bool,
) -> Place {
    let configured = match kind {
        Kind::Meeting => Place {
            base: f.meetings.clone(),
            dated: Dated::YearMonth,
        },
        Kind::Email => Place {
            base: f.inbox.clone(),
            dated: Dated::Flat,
        },
    };
    if crew.owns_layout() {
        return configured;
    }
    if let Some(p) = learned(vault, f, kind) {
        return p;
    }
    if dir_exists(&configured.base) {
        return configured;
    }
    // a vault with no inbox either gets the note at its root: a folder of crew's naming would
    // be structure nobody asked for
    Place {
        base: if dir_exists(&f.inbox) {
            f.inbox.clone()
        } else {
            String::new()
        },
        dated: Dated::Flat,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault(files: &[(&str, &str)]) -> Vault {
        let notes = files.iter().map(|(p, t)| Note::parse_text(*p, t)).collect();
        Vault::from_notes(std::path::PathBuf::from("/v"), notes, Vec::new())
    }

    #[test]
    fn the_kinds_file_parses() {
        assert!(yaml_serde::from_str::<Kinds>(SOURCE).is_ok());
        assert!(kinds().meeting.types.contains(&"meeting".to_string()));
        assert!(kinds().email.keys.contains(&"message-id".to_string()));
    }

    #[test]
    fn date_folders_are_the_layout_not_the_place() {
        assert_eq!(
            undated("Work/Meetings/2026/03"),
            ("Work/Meetings", Dated::YearMonth)
        );
        assert_eq!(
            undated("Work/Meetings/2026"),
            ("Work/Meetings", Dated::Year)
        );
        assert_eq!(undated("2026/03"), ("", Dated::YearMonth));
        assert_eq!(undated("Work/Q3/03"), ("Work/Q3/03", Dated::Flat));
        let p = Place {
            base: "Work/Meetings".into(),
            dated: Dated::YearMonth,
        };
        let d = NaiveDate::from_ymd_opt(2026, 5, 4).expect("date");
        assert_eq!(p.folder_for(d), "Work/Meetings/2026/05");
        assert_eq!(p.path_for(d, "x"), "Work/Meetings/2026/05/x.md");
        let root = Place {
            base: String::new(),
            dated: Dated::Flat,
        };
        assert_eq!(root.path_for(d, "x"), "x.md");
        assert!(p.holds("Work/Meetings/2024/01/x.md") && !p.holds("Work/x.md"));
    }

    #[test]
    fn the_folder_holding_most_notes_of_the_kind_is_learned() {
        let v = vault(&[
            ("Work/Calls/2025/11/a.md", "---\ntype: Meeting\n---\n"),
            ("Work/Calls/2025/12/b.md", "---\ntype: meeting\n---\n"),
            ("Work/Calls/c.md", "---\ntype: meeting\n---\n"),
            ("06 - Inbox/d.md", "---\ntype: meeting\n---\n"),
            ("Mail/e.md", "---\nmessage-id: \"<x@y>\"\n---\n"),
            ("Templates/Meeting.md", "---\ntype: meeting\n---\n"),
            ("Templates/Meeting 2.md", "---\ntype: meeting\n---\n"),
            ("Templates/Meeting 3.md", "---\ntype: meeting\n---\n"),
        ]);
        let f = Folders {
            inbox: "06 - Inbox".into(),
            ..Folders::default()
        };
        assert_eq!(
            learned(&v, &f, Kind::Meeting),
            Some(Place {
                base: "Work/Calls".into(),
                dated: Dated::YearMonth
            })
        );
        assert_eq!(
            learned(&v, &f, Kind::Email),
            Some(Place {
                base: "Mail".into(),
                dated: Dated::Flat
            })
        );
        let plain = vault(&[("notes/a.md", "plain")]);
        assert_eq!(learned(&plain, &f, Kind::Meeting), None);
    }
}
