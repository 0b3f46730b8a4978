//! What the gate protects: Obsidian's and git's folders, hidden files, the crew definition,
//! the dispatcher files and other agents' post-its.

use super::GateError;

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
    /// The lifecycle commands (`crew agents …`) and the create-agent / manage-agent skills:
    /// custom agents and the registry may change. Everything else — any agent, any model —
    /// finds every crew folder closed, so no run can plant or rewrite an agent.
    pub changes_definition: bool,
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
            changes_definition: false,
        }
    }
}

pub use crate::crew::root::CREW_FOLDERS;

/// The dispatcher files of the anchor project at the vault root.
const DISPATCHER_FILES: &[&str] = &["claude.md", "gemini.md", "agents.md"];

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
            if !self.changes_definition {
                return Err(protect(
                    "the crew definition changes only through `crew agents …` or the create-agent and manage-agent skills".to_string(),
                ));
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
