//! `crew init`: a new vault from the bundled template, or the crew installed into an existing
//! vault with its folder roles detected. Never moves or overwrites a note.

use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};
use serde::Serialize;

use crate::crew::{self, Folders};
use crate::gate::{Gate, GateError, Policy};
use crate::state::journal::Journal;
use crate::vault::{Vault, VaultError};

static TEMPLATE_BASE: Dir = include_dir!("$CARGO_MANIFEST_DIR/vault-template/base");
static TEMPLATE_SAMPLES: Dir = include_dir!("$CARGO_MANIFEST_DIR/vault-template/samples");

#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    #[error(
        "{0} already holds notes or a crew; `crew init` only makes new vaults. To install the crew into this vault without moving anything, use `crew init --adopt {0}`"
    )]
    NotEmpty(PathBuf),
    /// `--adopt` installs into a vault that exists; it makes no folder, so a mistyped path is
    /// not mistaken for an empty vault.
    #[error(
        "{} does not exist: `crew init --adopt` installs the crew into an existing vault and creates no folder. Check the path; to make a new vault there instead, run `{new}`", path.display()
    )]
    NoVault { path: PathBuf, new: String },
    #[error("{0} is a file, not a folder; give the vault's folder")]
    NotAFolder(PathBuf),
    #[error(transparent)]
    Root(#[from] crew::root::RootError),
    #[error("cannot create {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Vault(#[from] VaultError),
    #[error(transparent)]
    Gate(#[from] GateError),
}

/// What `crew init` did.
#[derive(Debug, Clone, Default, Serialize)]
pub struct InitReport {
    pub vault: String,
    pub created: Vec<String>,
    /// Files that existed and were left as they were.
    pub kept: Vec<String>,
    /// Folder roles: role → folder, and whether it was found in the vault.
    pub roles: Vec<(String, String, bool)>,
    pub adopted: bool,
    /// Nothing was written: `created` is what would have been.
    pub dry_run: bool,
}

fn template_files(dir: &'static Dir<'static>) -> Vec<(String, &'static [u8])> {
    fn walk(d: &'static Dir<'static>, out: &mut Vec<(String, &'static [u8])>) {
        for f in d.files() {
            out.push((crate::vault::rel_to_string(f.path()), f.contents()));
        }
        for sub in d.dirs() {
            walk(sub, out);
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out.sort();
    out
}

/// The words that name each folder role, in the crew's languages (normalized).
const ROLE_WORDS: &[(&str, &[&str])] = &[
    ("inbox", &["inbox", "eingang", "posteingang"]),
    (
        "projects",
        &[
            "projects",
            "project",
            "progetti",
            "projets",
            "proyectos",
            "projekte",
            "projetos",
        ],
    ),
    ("areas", &["areas", "area", "aree", "bereiche"]),
    (
        "resources",
        &[
            "resources",
            "resource",
            "risorse",
            "ressources",
            "recursos",
            "ressourcen",
        ],
    ),
    (
        "archive",
        &[
            "archive", "archives", "archivio", "archivo", "archiv", "arquivo",
        ],
    ),
    (
        "people",
        &[
            "people",
            "persons",
            "contacts",
            "persone",
            "personnes",
            "personas",
            "personen",
            "pessoas",
        ],
    ),
    (
        "meetings",
        &[
            "meetings",
            "meeting",
            "riunioni",
            "reunions",
            "reuniones",
            "besprechungen",
            "reunioes",
        ],
    ),
    (
        "daily",
        &[
            "daily",
            "dailynotes",
            "daily notes",
            "journal",
            "diario",
            "tagebuch",
        ],
    ),
    ("moc", &["moc", "mocs", "maps", "maps of content"]),
    (
        "templates",
        &[
            "templates",
            "template",
            "modelli",
            "modeles",
            "plantillas",
            "vorlagen",
            "modelos",
        ],
    ),
    ("meta", &["meta"]),
];

/// Detects the folder playing each role in an existing vault: the top-level folder whose name,
/// without leading numbers and separators, is the role's word (`Inbox/`, `06 - Inbox/`, `0_Inbox`).
pub(crate) fn detect_roles(top_folders: &[String]) -> (Folders, Vec<(String, String, bool)>) {
    let stripped = |name: &str| -> String {
        let s = name.trim_start_matches(|c: char| {
            c.is_ascii_digit() || c.is_whitespace() || c == '-' || c == '_' || c == '.'
        });
        crate::text::normalize(s)
    };
    let mut folders = Folders::default();
    let mut roles = Vec::new();
    for (role, names) in ROLE_WORDS {
        let found = top_folders
            .iter()
            .find(|f| names.contains(&stripped(f).as_str()))
            .cloned();
        let slot = match *role {
            "inbox" => &mut folders.inbox,
            "projects" => &mut folders.projects,
            "areas" => &mut folders.areas,
            "resources" => &mut folders.resources,
            "archive" => &mut folders.archive,
            "people" => &mut folders.people,
            "meetings" => &mut folders.meetings,
            "daily" => &mut folders.daily,
            "moc" => &mut folders.moc,
            "templates" => &mut folders.templates,
            _ => &mut folders.meta,
        };
        if let Some(f) = &found {
            *slot = f.clone();
        }
        roles.push((role.to_string(), slot.clone(), found.is_some()));
    }
    (folders, roles)
}

fn config_text(folders: &Folders, adopted: bool) -> String {
    let s = String::from(
        "# crew configuration. Every key is optional; delete a line to get the default back.\n\
         # Where a message goes when nothing else decides:\n\
         default_route: seeker\n\
         # Agents per request (1 to 3):\n\
         max_depth: 3\n\
         # Minimum confidence (0-100) for the sorter to file a note:\n\
         triage_confidence: 60\n\
         # Precision (0-1) learned filing must reach on this vault's own notes before it files\n\
         # a note that names no project, area or type:\n\
         triage_precision: 0.95\n\
         # Models per tier; without one, agents run natively (offline). Examples:\n\
         # models:\n\
         #   mid: claude-sonnet-4-5\n\
         #   high: gpt-4.1\n\
         # Regex overrides, for facts a message contains:\n\
         # route_overrides:\n\
         #   - pattern: '^https?://'\n\
         #     route: scribe\n\
         # Folder roles of this vault:\nfolders:\n",
    );
    let mut s = if adopted {
        s.replacen(
            "# Folder roles of this vault:",
            "# This vault kept its own layout: crew adds no folders, indexes or MOCs unasked.\nadopted: true\n# Folder roles of this vault:",
            1,
        )
    } else {
        s
    };
    for (role, folder) in folders.roles() {
        s.push_str(&format!(
            "  {role}: {}\n",
            crate::vault::edit::yaml_scalar(folder)
        ));
    }
    s
}

fn render(bytes: &[u8], today: &str) -> Vec<u8> {
    match std::str::from_utf8(bytes) {
        Ok(t) => t.replace("{{date}}", today).into_bytes(),
        Err(_) => bytes.to_vec(),
    }
}

/// Creates a vault at `path` (or adopts an existing one) and installs the crew in `.crew/`.
/// With `dry_run` nothing is written: the report says what would be created and kept.
pub fn init(
    path: &Path,
    adopt: bool,
    samples: bool,
    dry_run: bool,
) -> Result<InitReport, SetupError> {
    let io = |source| SetupError::Io {
        path: path.to_path_buf(),
        source,
    };
    if path.is_dir() {
        crew::root::check(path, crew::root::Access::Read)?;
    } else if path.exists() {
        return Err(SetupError::NotAFolder(path.to_path_buf()));
    } else if adopt {
        return Err(SetupError::NoVault {
            path: path.to_path_buf(),
            new: crate::shell::crew(&["init", &path.display().to_string()]),
        });
    }
    // a new vault is made on purpose: its folder, and missing folders above it, are created
    // (as `git init` and `cargo new` do)
    let existing = if dry_run && !path.exists() {
        Vault::from_notes(path.to_path_buf(), Vec::new(), Vec::new())
    } else {
        if !dry_run {
            std::fs::create_dir_all(path).map_err(io)?;
        }
        crate::state::open_vault(path)?
    };
    // a folder with notes, or with a crew already, is somebody's vault: scaffolding the
    // template's folders beside its own would be a change nobody asked for
    if !adopt && (!existing.notes.is_empty() || crew::root::is_vault_with_crew(path)) {
        return Err(SetupError::NotEmpty(path.to_path_buf()));
    }
    let today = chrono::Local::now().format("%Y-%m-%d").to_string();
    let top = existing.top_folders();
    let (folders, roles) = if adopt {
        detect_roles(&top)
    } else {
        (
            Folders::default(),
            Folders::default()
                .roles()
                .iter()
                .map(|(r, f)| (r.to_string(), f.to_string(), true))
                .collect(),
        )
    };
    let policy = Policy {
        crew_definition_root: false,
        installing: true,
        ..Policy::default()
    };
    let mut gate = Gate::new(existing, policy, Journal::in_memory(), dry_run);
    let mut report = InitReport {
        vault: path.display().to_string(),
        roles,
        adopted: adopt,
        dry_run,
        ..InitReport::default()
    };
    let put = |gate: &mut Gate,
               rel: &str,
               bytes: &[u8],
               report: &mut InitReport|
     -> Result<(), GateError> {
        if gate.exists(rel) {
            report.kept.push(rel.to_string());
        } else {
            gate.create(rel, bytes)?;
            report.created.push(rel.to_string());
        }
        Ok(())
    };
    for (rel, bytes) in crew::builtin_tree() {
        put(&mut gate, &format!(".crew/{rel}"), bytes, &mut report)?;
    }
    put(
        &mut gate,
        ".crew/config.yaml",
        config_text(&folders, adopt).as_bytes(),
        &mut report,
    )?;
    if !adopt {
        for (_, folder) in folders.roles() {
            if !gate.dir_exists(folder) {
                gate.mkdir(folder)?;
                report.created.push(format!("{folder}/"));
            }
        }
        gate.mkdir(&folders.states())?;
        for (rel, bytes) in template_files(&TEMPLATE_BASE) {
            put(&mut gate, &rel, &render(bytes, &today), &mut report)?;
        }
    } else {
        // an adopted vault keeps its layout; crew only adds its state folder for post-its
        if gate.dir_exists(&folders.meta) {
            gate.mkdir(&folders.states())?;
        }
    }
    if samples {
        for (rel, bytes) in template_files(&TEMPLATE_SAMPLES) {
            put(&mut gate, &rel, &render(bytes, &today), &mut report)?;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_roles_in_other_layouts() {
        let top = vec![
            "06 - Inbox".to_string(),
            "Projects".into(),
            "0_Areas".into(),
            "Daily Notes".into(),
            "Misc".into(),
        ];
        let (f, roles) = detect_roles(&top);
        assert_eq!(f.inbox, "06 - Inbox");
        assert_eq!(f.projects, "Projects");
        assert_eq!(f.areas, "0_Areas");
        assert_eq!(f.daily, "Daily Notes");
        assert_eq!(f.archive, "04-Archive");
        assert!(roles.iter().any(|(r, _, found)| r == "archive" && !found));
    }
}
