//! `crew doctor`: what crew sees of a vault, its crew and its models, as data. The CLI renders
//! it as text or JSON; problems make the exit code 1.

use std::path::Path;

use serde::Serialize;

use crate::crew::definition::{Executor, ModelSpec};
use crate::crew::{Crew, CrewSource, Kind};

/// One folder role and whether its folder exists.
#[derive(Debug, Clone, Serialize)]
pub struct FolderRole {
    pub role: String,
    pub folder: String,
    pub exists: bool,
}

/// One model tier: what it maps to and whether that can work.
#[derive(Debug, Clone, Serialize)]
pub struct Tier {
    pub tier: &'static str,
    /// The model id, `None` when the tier has no model (its agents run natively).
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub check: Option<crate::model::provider::Check>,
    /// Why the model id cannot be used (an unknown prefix, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Tier {
    fn ok(&self) -> bool {
        self.error.is_none() && self.check.as_ref().is_none_or(|c| c.ok())
    }
}

/// Who does one agent's or skill's work here.
#[derive(Debug, Clone, Serialize)]
pub struct Route {
    pub name: String,
    pub kind: Kind,
    pub executor: Executor,
    /// The model its tier or its definition names, when one is mapped.
    pub model: Option<String>,
}

/// Everything `crew doctor` checks.
#[derive(Debug, Clone, Serialize)]
pub struct Doctor {
    pub vault: String,
    pub vault_ok: bool,
    /// The crew definition's folder, or `built-in crew`.
    pub crew: String,
    pub agents: usize,
    pub skills: usize,
    pub crew_errors: usize,
    pub config: Option<String>,
    pub folders: Vec<FolderRole>,
    pub tiers: Vec<Tier>,
    pub routes: Vec<Route>,
    /// Agents and skills that cannot work without a language model.
    pub need_model: Vec<String>,
    pub diagnostics: Vec<String>,
    /// How many of the checks above need attention.
    pub problems: usize,
    /// Whether crew laid out the vault (then a folder role without its folder is a problem).
    pub owns_layout: bool,
}

/// Checks the vault at `vault` with its crew.
pub fn check(vault: &Path, crew: &Crew) -> Doctor {
    let vault_ok = vault.is_dir();
    let folders: Vec<FolderRole> = crew
        .config
        .folders
        .roles()
        .iter()
        .map(|(r, f)| FolderRole {
            role: r.to_string(),
            folder: f.to_string(),
            exists: vault.join(f).is_dir(),
        })
        .collect();
    let tiers: Vec<Tier> = ["low", "mid", "high"]
        .into_iter()
        .map(|tier| tier_check(crew, tier))
        .collect();
    let routes = routes(crew);
    let need_model = routes
        .iter()
        .filter(|r| r.executor == Executor::Model)
        .map(|r| r.name.clone())
        .collect();
    let crew_errors = crew.errors().count();
    // in a vault crew laid out, a role without its folder is damage; in one its owner laid out
    // (adopted, or no crew config), a role the vault has no folder for is only information
    let owns_layout = crew.owns_layout();
    let missing_folders = vault_ok && owns_layout && folders.iter().any(|f| !f.exists);
    let problems = usize::from(!vault_ok)
        + crew_errors
        + usize::from(missing_folders)
        + tiers.iter().filter(|t| !t.ok()).count();
    Doctor {
        vault: vault.display().to_string(),
        vault_ok,
        crew: match &crew.source {
            CrewSource::Dir(d) => d.display().to_string(),
            CrewSource::Builtin => "built-in crew".into(),
        },
        agents: crew.agents.len(),
        skills: crew.skills.len(),
        crew_errors,
        config: crew.config_file.clone(),
        folders,
        tiers,
        routes,
        need_model,
        diagnostics: crew.diagnostics.iter().map(|d| d.to_string()).collect(),
        problems,
        owns_layout,
    }
}

fn tier_check(crew: &Crew, tier: &'static str) -> Tier {
    let Some(id) = crew.config.models.get(tier) else {
        return Tier {
            tier,
            model: None,
            check: None,
            error: None,
        };
    };
    match crate::model::provider::check(id, &crew.config) {
        Ok(c) => Tier {
            tier,
            model: Some(id.clone()),
            check: Some(c),
            error: None,
        },
        Err(e) => Tier {
            tier,
            model: Some(id.clone()),
            check: None,
            error: Some(e.to_string()),
        },
    }
}

fn routes(crew: &Crew) -> Vec<Route> {
    crew.agents
        .iter()
        .map(|d| (Kind::Agent, d))
        .chain(crew.skills.iter().map(|d| (Kind::Skill, d)))
        .map(|(kind, d)| Route {
            name: d.name.clone(),
            kind,
            executor: crew.executor(kind, &d.name),
            model: match &d.model {
                ModelSpec::Native => None,
                ModelSpec::Tier(t) => crew.config.models.get(t).cloned(),
                ModelSpec::Id(id) => Some(id.clone()),
            },
        })
        .collect()
}

impl Doctor {
    /// The report as the terminal shows it.
    pub fn text(&self) -> String {
        let mut lines = vec![
            format!(
                "vault       {} {}",
                self.vault,
                if self.vault_ok { "ok" } else { "MISSING" }
            ),
            format!(
                "crew        {}: {} agents, {} skills, {} error(s)",
                self.crew, self.agents, self.skills, self.crew_errors
            ),
            format!(
                "config      {}",
                self.config
                    .as_deref()
                    .unwrap_or("defaults (no config.yaml)")
            ),
        ];
        lines.extend(self.folder_lines());
        lines.extend(self.tiers.iter().map(tier_line));
        let total = self.routes.len();
        lines.push(format!(
            "offline     {} of {total} agents and skills work without a model{}",
            total - self.need_model.len(),
            if self.need_model.is_empty() {
                String::new()
            } else {
                format!("; these need one: {}", self.need_model.join(", "))
            }
        ));
        let per_route: Vec<String> = self.routes.iter().map(route_line).collect();
        lines.push(format!("executors   {}", per_route.join(", ")));
        let mut s = lines.join("\n");
        for d in &self.diagnostics {
            s.push_str(&format!("\n  {d}"));
        }
        s.push_str(if self.problems == 0 {
            "\nAll good.\n"
        } else {
            "\nSome things need attention (above).\n"
        });
        s
    }

    fn folder_lines(&self) -> Vec<String> {
        let shown: Vec<String> = self
            .folders
            .iter()
            .map(|f| {
                format!(
                    "{}={}{}",
                    f.role,
                    f.folder,
                    if f.exists { "" } else { " (missing)" }
                )
            })
            .collect();
        let mut lines = vec![format!("folders     {}", shown.join(", "))];
        let missing: Vec<String> = self
            .folders
            .iter()
            .filter(|f| !f.exists)
            .map(|f| format!("{}={}", f.role, f.folder))
            .collect();
        if self.vault_ok && !missing.is_empty() {
            let config = self.config.as_deref().unwrap_or(".crew/config.yaml");
            lines.push(if self.owns_layout {
                // agents file into and report from these folders: without them filing stops
                // at the inbox and reports have nowhere to go
                format!(
                    "            {} folder role(s) have no folder ({}): create them, or map the roles to your own folders under `folders:` in {config}",
                    missing.len(),
                    missing.join(", "),
                )
            } else {
                format!(
                    "            this vault has no folder for {} role(s) ({}): fine in a vault you laid out yourself; crew makes one only when asked (map them to your own folders under `folders:` in {config})",
                    missing.len(),
                    missing.join(", "),
                )
            });
        }
        lines
    }
}

fn tier_line(t: &Tier) -> String {
    let tier = t.tier;
    match (&t.model, &t.check, &t.error) {
        (None, _, _) => format!("tier {tier:<6} no model: agents of this tier run natively"),
        (Some(id), _, Some(e)) => format!("tier {tier:<6} {id}: {e}"),
        (Some(id), Some(c), None) => {
            let key = match c.key_set {
                Some(true) => format!("{} set", c.key_var),
                Some(false) => format!("{} NOT SET", c.key_var),
                None => "no key needed".into(),
            };
            let server = match c.reachable {
                Some(true) => format!("; server at {} answers", c.base_url),
                Some(false) => format!("; server at {} does NOT answer", c.base_url),
                None => format!("; {}", c.base_url),
            };
            format!("tier {tier:<6} {id} via {}; {key}{server}", c.provider)
        }
        (Some(id), None, None) => format!("tier {tier:<6} {id}"),
    }
}

fn route_line(r: &Route) -> String {
    let exec = match (r.executor, &r.model) {
        (Executor::Native, _) | (Executor::Hybrid, None) => "native".to_string(),
        (Executor::Hybrid, Some(m)) => format!("native, then model {m} for what is left"),
        (Executor::Model, Some(m)) => format!("model {m} (native when it fails)"),
        (Executor::Model, None) => "needs a model (none mapped)".to_string(),
    };
    format!("{}: {exec}", r.name)
}
