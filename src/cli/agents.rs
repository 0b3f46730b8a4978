//! `crew agents …` and `crew skills …`: the crew definition and the custom-agent lifecycle.

use std::path::PathBuf;

use anyhow::bail;
use serde_json::json;

use super::commands::load_crew;
use super::{AgentsAction, Global, SkillsAction, out, out_json};
use crew::agents::architect::manage::{AgentChange, change_agent, check};
use crew::crew::definition::Definition;
use crew::crew::registry::Status;
use crew::crew::{Crew, CrewSource, Executor, Kind};
use crew::gate::{Gate, Policy};
use crew::state::journal::Journal;

fn row_status(crew: &Crew, name: &str) -> &'static str {
    match crew
        .registry
        .agents
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.status)
    {
        Some(Status::Disabled) => "disabled",
        Some(Status::Active) => "active",
        None if crew.registry.agents.is_empty() => "active",
        None => "no registry row",
    }
}

fn show_def(d: &Definition, kind: Kind, crew: &Crew) -> String {
    let mut s = format!(
        "{} {} — {}\n\nfile: {}\nmodel: {}\ncapabilities: {}\n",
        kind.as_str(),
        d.name,
        d.description,
        d.file,
        d.model.label(),
        d.capabilities.join(", ")
    );
    if kind == Kind::Agent {
        s.push_str(&format!("status: {}\n", row_status(crew, &d.name)));
    } else {
        s.push_str(&format!(
            "post-it of: {}\n",
            crew.postit_owner(Kind::Skill, &d.name)
        ));
    }
    s.push_str(&format!(
        "executor: {}\n",
        match crew.executor(kind, &d.name) {
            Executor::Native => "native (no model needed)",
            Executor::Hybrid => "hybrid (native, then the tier's model for what is left)",
            Executor::Model => "model (needs one; without it, says what to configure)",
        }
    ));
    s.push_str(&format!(
        "triggers ({}): {}\n\n{}",
        d.triggers.len(),
        d.triggers.join(" · "),
        d.body
    ));
    s
}

pub fn agents(g: &Global, action: AgentsAction) -> anyhow::Result<u8> {
    match action {
        AgentsAction::Validate => {
            let vault = g.vault_path();
            if !vault.is_dir() {
                bail!(
                    "vault folder {} does not exist: pass --vault PATH or set CREW_VAULT",
                    vault.display()
                );
            }
            let crew = Crew::load(&vault, g.crew_dir.as_deref())?;
            let errors = crew.errors().count();
            if g.json {
                out_json(&json!({"valid": errors == 0, "diagnostics": crew.diagnostics}))?;
            } else {
                let mut s = String::new();
                for d in &crew.diagnostics {
                    s.push_str(&format!("{d}\n"));
                }
                s.push_str(&format!(
                    "{}: {} agents, {} skills, {} error(s), {} warning(s)\n",
                    if errors == 0 { "valid" } else { "invalid" },
                    crew.agents.len(),
                    crew.skills.len(),
                    errors,
                    crew.diagnostics.len() - errors
                ));
                out(&s)?;
            }
            Ok(if errors == 0 { 0 } else { 2 })
        }
        AgentsAction::List => {
            let crew = load_crew(g)?;
            let mut rows: Vec<&Definition> = crew.agents.iter().collect();
            rows.sort_by_key(|a| (Crew::priority(&a.name), a.name.clone()));
            if g.json {
                let v: Vec<_> = rows
                    .iter()
                    .map(|a| json!({"name": a.name, "core": Crew::is_core(&a.name), "status": row_status(&crew, &a.name), "model": a.model.label(), "executor": crew.executor(Kind::Agent, &a.name).as_str(), "capabilities": a.capabilities, "description": a.description}))
                    .collect();
                out_json(&v)?;
            } else {
                let mut s = String::from("AGENT         KIND    STATUS    MODEL   ROLE\n");
                for a in rows {
                    let role = crew
                        .registry
                        .agents
                        .iter()
                        .find(|r| r.name == a.name)
                        .map_or(a.description.as_str(), |r| r.role.as_str());
                    s.push_str(&format!(
                        "{:<13} {:<7} {:<9} {:<7} {}\n",
                        a.name,
                        if Crew::is_core(&a.name) {
                            "core"
                        } else {
                            "custom"
                        },
                        row_status(&crew, &a.name),
                        a.model.label(),
                        role
                    ));
                }
                out(&s)?;
            }
            Ok(0)
        }
        AgentsAction::Show { name } => {
            let crew = load_crew(g)?;
            let Some(d) = crew.agent(&name) else {
                bail!("no agent `{name}`; `crew agents list` shows them");
            };
            if g.json {
                out_json(d)?;
            } else {
                out(&show_def(d, Kind::Agent, &crew))?;
            }
            Ok(0)
        }
        new @ AgentsAction::New { .. } => super::agent_new::run(g, new),
        AgentsAction::Disable { name, dry_run } => change(g, &name, AgentChange::Disable, dry_run),
        AgentsAction::Enable { name, dry_run } => change(g, &name, AgentChange::Enable, dry_run),
        AgentsAction::Remove { name, dry_run } => change(g, &name, AgentChange::Remove, dry_run),
    }
}

pub fn skills(g: &Global, action: SkillsAction) -> anyhow::Result<u8> {
    let crew = load_crew(g)?;
    match action {
        SkillsAction::List => {
            if g.json {
                let v: Vec<_> = crew.skills.iter().map(|s| {
                    let executor = crew.executor(Kind::Skill, &s.name);
                    json!({"name": s.name, "source_agent": crew.postit_owner(Kind::Skill, &s.name), "executor": executor.as_str(), "native": executor != Executor::Model, "description": s.description})
                }).collect();
                out_json(&v)?;
            } else {
                let mut s = String::from("SKILL           AGENT        RUNS    PURPOSE\n");
                for k in &crew.skills {
                    let purpose = crew
                        .registry
                        .skills
                        .iter()
                        .find(|r| r.name == k.name)
                        .map_or(k.description.as_str(), |r| r.purpose.as_str());
                    s.push_str(&format!(
                        "{:<15} {:<12} {:<7} {}\n",
                        k.name,
                        crew.postit_owner(Kind::Skill, &k.name),
                        crew.executor(Kind::Skill, &k.name).as_str(),
                        purpose
                    ));
                }
                out(&s)?;
            }
        }
        SkillsAction::Show { name } => {
            let Some(d) = crew.skill(&name) else {
                bail!("no skill `{name}`; `crew skills list` shows them");
            };
            if g.json {
                out_json(d)?;
            } else {
                out(&show_def(d, Kind::Skill, &crew))?;
            }
        }
    }
    Ok(0)
}

/// A gate over the folder holding the crew's editable definition files, and the path prefix of
/// those files inside it; with `dry_run` it only simulates (nothing is written, no journal is
/// kept).
pub(super) fn definition_gate(
    g: &Global,
    crew: &Crew,
    dry_run: bool,
) -> anyhow::Result<(Gate, String)> {
    let vault = g.vault_path();
    match &crew.source {
        CrewSource::Builtin => bail!(
            "this vault uses the built-in crew, which cannot change; run `crew init --adopt` to give the vault its own crew in .crew/, then try again"
        ),
        CrewSource::Dir(dir) => {
            let inside = dir
                .canonicalize()
                .ok()
                .zip(vault.canonicalize().ok())
                .and_then(|(d, v)| d.strip_prefix(&v).ok().map(|r| r.to_path_buf()));
            let (root, prefix): (PathBuf, String) = match inside {
                Some(rel) if !rel.as_os_str().is_empty() => (
                    vault.clone(),
                    format!("{}/", crew::vault::rel_to_string(&rel)),
                ),
                _ => (dir.clone(), String::new()),
            };
            let state_dir = crew::state::state_dir(&vault);
            let journal = if vault.is_dir() && !dry_run {
                Journal::at(state_dir.join("journal").join(crew::state::new_run_id()))
            } else {
                Journal::in_memory()
            };
            let policy = Policy {
                crew_definition_root: prefix.is_empty(),
                changes_definition: true,
                ..Policy::default()
            };
            let v = crew::state::open_vault(&root)?;
            Ok((Gate::new(v, policy, journal, dry_run), prefix))
        }
    }
}

/// The last line of a dry run's report.
pub(super) const DRY_RUN_NOTE: &str = "Dry run: nothing was written.";

/// Disables, enables or removes a custom agent (the library's one lifecycle), and says so.
fn change(g: &Global, name: &str, change: AgentChange, dry_run: bool) -> anyhow::Result<u8> {
    let crew = load_crew(g)?;
    // the protections first: a core or unknown name never needs the definition's folder
    check(&crew, name, change)?;
    let (mut gate, prefix) = definition_gate(g, &crew, dry_run)?;
    let done = change_agent(&mut gate, &crew, &prefix, name, change)?;
    if g.json {
        let mut j = json!({"agent": name, "dry_run": dry_run});
        if change == AgentChange::Remove {
            j["status"] = json!("disabled");
            j["file_kept_at"] = json!(done.file_kept_at);
        } else {
            j["status"] = json!(change.done_word());
        }
        out_json(&j)?;
        return Ok(0);
    }
    let text = match change {
        AgentChange::Remove => {
            let kept = done
                .file_kept_at
                .map(|k| format!(" and its file is kept at {k}"))
                .unwrap_or_default();
            if dry_run {
                format!(
                    "{name} would be removed: its registry row would stay as disabled{}.\n{DRY_RUN_NOTE}",
                    kept.replace("is kept", "would be kept")
                )
            } else {
                format!("{name} is removed: its registry row stays as disabled{kept}.")
            }
        }
        _ if dry_run => format!("{name} would be {}.\n{DRY_RUN_NOTE}", change.done_word()),
        _ => format!("{name} is {}.", change.done_word()),
    };
    out(&text)?;
    Ok(0)
}
