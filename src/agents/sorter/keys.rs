//! The frontmatter keys filing writes on a note — `status: filed`, `filed-date`, `location` —
//! only where the vault's conventions ask for them: in a vault crew laid out, or where the
//! notes already filed carry them. Never on a daily note, a drawing or a canvas, whose
//! frontmatter belongs to their plugin or their date.

use std::sync::OnceLock;

use crate::agents::Ctx;
use crate::agents::filing;
use crate::crew::Folders;
use crate::vault::Note;
use crate::vault::edit::yaml_scalar;

/// Share of the vault's filed notes (those that could carry the key) that must carry a key for
/// filing to add it: a convention the vault follows, not a note or two that happen to.
const USED_SHARE: f64 = 0.25;

/// Which filing keys this vault uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FilingKeys {
    status: bool,
    filed_date: bool,
    location: bool,
}

/// The keys of a run's triage, measured when the first note is filed (most runs file none).
#[derive(Default)]
pub(super) struct LazyKeys(OnceLock<FilingKeys>);

impl LazyKeys {
    pub fn get(&self, ctx: &Ctx) -> FilingKeys {
        *self.0.get_or_init(|| FilingKeys::measure(ctx))
    }
}

impl FilingKeys {
    /// Every key in a vault crew laid out; in any other vault, each key that at least a
    /// quarter of the filed notes carry (`status` with the value `filed`: a vault whose
    /// `status` says `active` or `done` does not use it for filing).
    fn measure(ctx: &Ctx) -> FilingKeys {
        if ctx.crew.owns_layout() {
            return FilingKeys {
                status: true,
                filed_date: true,
                location: true,
            };
        }
        let vault = ctx.gate.vault();
        let folders = &ctx.config.folders;
        let filed: Vec<&Note> = filing::filed_notes(vault, folders)
            .into_iter()
            .map(|i| &vault.notes[i])
            .filter(|n| !keeps_its_keys(n, folders))
            .collect();
        let used = |has: &dyn Fn(&Note) -> bool| {
            let n = filed.iter().filter(|note| has(note)).count();
            n > 0 && n as f64 >= USED_SHARE * filed.len() as f64
        };
        FilingKeys {
            status: used(&|n| is_status(n, "filed")),
            filed_date: used(&|n| n.has_property("filed-date")),
            location: used(&|n| n.has_property("location")),
        }
    }

    /// The keys to set on `note` as it is filed into `dest` on `today`. A `status: inbox` the
    /// note carries becomes `filed` even where the vault does not use the key: the move makes
    /// it false, and it is the note's own key, not one crew adds.
    pub fn for_note(
        self,
        note: &Note,
        dest: &str,
        today: &str,
        folders: &Folders,
    ) -> Vec<(&'static str, Option<String>)> {
        if keeps_its_keys(note, folders) || within(dest, &folders.daily) {
            return Vec::new();
        }
        let mut keys = Vec::new();
        if self.status || is_status(note, "inbox") {
            keys.push(("status", Some("filed".to_string())));
        }
        if self.filed_date {
            keys.push(("filed-date", Some(today.to_string())));
        }
        if self.location {
            keys.push(("location", Some(yaml_scalar(dest))));
        }
        keys
    }
}

fn is_status(note: &Note, value: &str) -> bool {
    note.property_str("status")
        .is_some_and(|s| s.trim().eq_ignore_ascii_case(value))
}

fn within(path: &str, folder: &str) -> bool {
    !folder.is_empty()
        && path
            .strip_prefix(folder)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// Notes filing never gives keys: daily notes (named by their date, in the daily folder, or
/// typed `daily`), Excalidraw drawings and canvases.
pub(super) fn keeps_its_keys(note: &Note, folders: &Folders) -> bool {
    let lower = note.path.to_lowercase();
    lower.ends_with(".excalidraw.md")
        || lower.ends_with(".canvas")
        || note.has_property("excalidraw-plugin")
        || is_date_name(note.name())
        || within(&note.path, &folders.daily)
        || note
            .property_str("type")
            .is_some_and(|t| t.trim().eq_ignore_ascii_case("daily"))
}

/// Whether a note's name is a day, as daily notes are named: `2026-03-14`, `2026.03.14`,
/// `2026_03_14`, `20260314`.
fn is_date_name(name: &str) -> bool {
    let name = name.trim();
    ["%Y-%m-%d", "%Y.%m.%d", "%Y_%m_%d", "%Y%m%d"]
        .iter()
        .any(|f| name.len() >= 8 && chrono::NaiveDate::parse_from_str(name, f).is_ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(path: &str, text: &str) -> Note {
        Note::parse_text(path, text)
    }

    const ALL: FilingKeys = FilingKeys {
        status: true,
        filed_date: true,
        location: true,
    };
    const NONE: FilingKeys = FilingKeys {
        status: false,
        filed_date: false,
        location: false,
    };

    fn keys(k: FilingKeys, n: &Note, dest: &str) -> Vec<&'static str> {
        let f = Folders::default();
        k.for_note(n, dest, "2026-01-02", &f)
            .into_iter()
            .map(|(k, _)| k)
            .collect()
    }

    #[test]
    fn daily_notes_drawings_and_canvases_never_take_keys() {
        for n in [
            note("00-Inbox/2026-03-14.md", "x"),
            note("00-Inbox/20260314.md", "x"),
            note("00-Inbox/Sketch.excalidraw.md", "x"),
            note("00-Inbox/Board.md", "---\nexcalidraw-plugin: parsed\n---\n"),
            note(
                "00-Inbox/Today.md",
                "---\ntype: daily\nstatus: inbox\n---\n",
            ),
            note("00-Inbox/Plan.canvas", "{}"),
        ] {
            assert!(keys(ALL, &n, "Projects/X").is_empty(), "{}", n.path);
        }
        // filed into the daily folder: a daily note too
        assert!(keys(ALL, &note("00-Inbox/Log.md", "x"), "07-Daily/2026").is_empty());
        // a name that starts with a date is no daily note
        let email = note("00-Inbox/2026-03-14 — Email — Budget.md", "x");
        assert_eq!(
            keys(ALL, &email, "Projects/X"),
            ["status", "filed-date", "location"]
        );
    }

    #[test]
    fn a_vault_that_does_not_use_the_keys_gets_none_but_inbox_becomes_filed() {
        assert!(keys(NONE, &note("00-Inbox/A.md", "x"), "Projects/X").is_empty());
        let marked = note("00-Inbox/A.md", "---\nstatus: Inbox\n---\n");
        assert_eq!(keys(NONE, &marked, "Projects/X"), ["status"]);
        let active = note("00-Inbox/A.md", "---\nstatus: active\n---\n");
        assert!(keys(NONE, &active, "Projects/X").is_empty());
    }
}
