//! `crew agents …` and `crew skills …`: the crew definition and the custom-agent lifecycle.

use std::path::PathBuf;

use anyhow::bail;
use serde_json::json;

use super::commands::load_crew;
use super::{AgentsAction, Global, SkillsAction, out, out_json};
use crew::crew::definition::{CAPABILITIES, Definition, ModelSpec, known_model_prefix, valid_name};
use crew::crew::registry::{self, AgentRow, Status};
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
        AgentsAction::New {
            name,
            description,
            triggers,
            capabilities,
            model,
            dry_run,
        } => new_agent(
            g,
            &name,
            NewAgent {
                description,
                triggers,
                capabilities,
                model,
            },
            dry_run,
        ),
        AgentsAction::Disable { name, dry_run } => set_status(g, &name, Status::Disabled, dry_run),
        AgentsAction::Enable { name, dry_run } => set_status(g, &name, Status::Active, dry_run),
        AgentsAction::Remove { name, dry_run } => remove_agent(g, &name, dry_run),
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
/// those files inside it.
/// A gate over the crew definition; with `dry_run` it only simulates (nothing is written, no
/// journal is kept).
fn definition_gate(g: &Global, crew: &Crew, dry_run: bool) -> anyhow::Result<(Gate, String)> {
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

/// The optional parts of `crew agents new`.
struct NewAgent {
    description: Option<String>,
    triggers: Option<String>,
    capabilities: Option<String>,
    model: Option<String>,
}

/// The last line of a dry run's report.
const DRY_RUN_NOTE: &str = "Dry run: nothing was written.";

/// Reads back a new agent file and the registry that will list it; any error refuses the
/// change (exit 2) before anything is written.
fn validate_new_definition(
    agent_path: &str,
    agent_text: &str,
    reg_path: &str,
    reg_text: &str,
) -> anyhow::Result<()> {
    let mut diags = Vec::new();
    let parsed = crew::crew::definition::parse(agent_path, agent_text, &mut diags);
    crew::crew::registry::parse(reg_path, reg_text, &mut diags);
    let errors: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == crew::crew::Severity::Error)
        .map(|d| d.to_string())
        .collect();
    if parsed.is_none() || !errors.is_empty() {
        bail!(
            "the new agent would not load, so nothing was written: {}",
            errors.join("; ")
        );
    }
    Ok(())
}

fn new_agent(g: &Global, name: &str, new: NewAgent, dry_run: bool) -> anyhow::Result<u8> {
    let crew = load_crew(g)?;
    check_new_name(&crew, name)?;
    let (caps, model) = checked_capabilities_and_model(new.capabilities, new.model)?;
    let description = new
        .description
        .unwrap_or_else(|| format!("Custom agent {name}."));
    let triggers: Vec<String> = new
        .triggers
        .map(|t| {
            t.split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let host = crew::crew::host::Host::of(&crew);
    let text = match host {
        Some(h) => h
            .agent_file(name, &description, &triggers, &caps, &model)
            .map_err(|e| anyhow::anyhow!(e))?,
        None => agent_file_text(name, &description, &triggers, &caps, &model),
    };
    let row = registry_row(host, name, &description, &triggers, &caps);
    let (mut gate, prefix) = definition_gate(g, &crew, dry_run)?;
    let reg_path = format!("{prefix}references/agents-registry.md");
    let reg_text = gate.read_text(&reg_path).unwrap_or_else(|| "# Agents registry\n\n| Name | Role | Capabilities | Input | Output | Status |\n|------|------|--------------|-------|--------|--------|\n".into());
    // the agents directory gets the new agent's section, as the host's create-agent skill does
    let dir_path = format!("{prefix}references/agents.md");
    let directory = gate.read_text(&dir_path);
    let wrote_directory = directory.is_some() || host.is_some();
    let new_registry = registry::insert_custom_row(&reg_text, &registry::render_agent_row(&row));
    let agent_path = format!("{prefix}agents/{name}.md");
    // the whole change is checked before the first byte is written: the new agent file and
    // registry must read back without errors, or nothing is written
    validate_new_definition(&agent_path, &text, &reg_path, &new_registry)?;
    let mark = gate.mark();
    let written = (|| -> Result<String, crew::gate::GateError> {
        let file = gate.create(&agent_path, text.as_bytes())?;
        gate.write(&reg_path, new_registry.as_bytes())?;
        if wrote_directory {
            let section = crew::crew::host::directory_section(
                name,
                &description,
                &triggers,
                &row.capabilities,
            );
            let base = directory
                .clone()
                .unwrap_or_else(|| crew::crew::host::EMPTY_DIRECTORY.to_string());
            gate.write(
                &dir_path,
                crew::crew::host::insert_section(&base, &section).as_bytes(),
            )?;
        }
        Ok(file)
    })();
    let file = match written {
        Ok(file) => file,
        Err(e) => {
            // one operation: a step that fails takes back the steps before it
            let undone = gate.rollback_to(mark);
            bail!("could not add agent `{name}`: {e}; {undone}");
        }
    };
    if g.json {
        return out_json(
            &json!({"created": file, "registry": reg_path, "directory": wrote_directory.then_some(&dir_path), "dry_run": dry_run}),
        )
        .map(|()| 0);
    }
    let directory_note = |done: &str| {
        if wrote_directory {
            done.to_string()
        } else {
            String::new()
        }
    };
    if dry_run {
        out(&format!(
            "Would create {file} and add its registry row to {reg_path}{}.\n{DRY_RUN_NOTE}",
            directory_note(&format!(" and its section to {dir_path}"))
        ))?;
    } else {
        let answers_to = if triggers.is_empty() {
            format!("@{name}")
        } else {
            triggers
                .iter()
                .map(|t| format!("\"{t}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        out(&format!(
            "Created {file}, its registry row{}.\nIt answers to {answers_to}.\nEdit the file to write its instructions; `crew agents validate` checks it.",
            directory_note(" and its section in the agents directory"),
        ))?;
    }
    Ok(0)
}

/// A new custom agent's name is well formed and free.
fn check_new_name(crew: &Crew, name: &str) -> anyhow::Result<()> {
    if !valid_name(name) {
        bail!(
            "`{name}` is not a valid agent name: use lowercase letters, digits and single hyphens (e.g. `tax-helper`)"
        );
    }
    if Crew::is_core(name) {
        bail!("`{name}` is a core agent's name; custom agents need their own (e.g. `my-{name}`)");
    }
    if crew.agent(name).is_some()
        || crew.skill(name).is_some()
        || crew.registry.agents.iter().any(|r| r.name == name)
    {
        bail!(
            "`{name}` already exists in this crew; `crew agents enable {name}` brings back a disabled one"
        );
    }
    Ok(())
}

/// The capabilities (default: read) and model (default: the mid tier) a user asked for,
/// checked.
fn checked_capabilities_and_model(
    capabilities: Option<String>,
    model: Option<String>,
) -> anyhow::Result<(Vec<String>, String)> {
    let caps: Vec<String> = capabilities
        .unwrap_or_else(|| "read".into())
        .split(',')
        .map(|c| c.trim().to_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    if let Some(bad) = caps.iter().find(|c| !CAPABILITIES.contains(&c.as_str())) {
        bail!(
            "unknown capability `{bad}`; use some of: {}",
            CAPABILITIES.join(", ")
        );
    }
    let model = model.unwrap_or_else(|| "mid".into());
    if let ModelSpec::Id(id) = ModelSpec::parse(&model)
        && !known_model_prefix(&id)
    {
        bail!(
            "unknown model `{id}`: use low|mid|high, native, or an id starting with claude-, gpt-, gemini- or ollama/"
        );
    }
    Ok((caps, model))
}

/// A custom agent's definition file in crew's own layout.
fn agent_file_text(
    name: &str,
    description: &str,
    triggers: &[String],
    caps: &[String],
    model: &str,
) -> String {
    let trig_yaml: String = triggers
        .iter()
        .map(|t| format!("  - {}\n", serde_json::to_string(t).unwrap_or_default()))
        .collect();
    format!(
        "---\nname: {name}\ndescription: {}\ncapabilities: [{}]\nmodel: {model}\ntriggers:\n{}---\n# {name}\n\nYou are {name}, a custom agent of this vault's crew. {description}\n\n## Every run\n- Answer in the user's language; read `Meta/user-profile.md` and your post-it first.\n- Write only inside the vault, through your tools; never edit other agents' files.\n- When another agent should act, end with a `### Suggested next agent` block (Agent, Reason, Context).\n",
        crew::vault::edit::yaml_scalar(description),
        caps.join(", "),
        if trig_yaml.is_empty() { "  []\n".to_string() } else { trig_yaml }
    )
    .replace("triggers:\n  []\n", "triggers: []\n")
}

/// The registry row of a new custom agent, in the host's words when the crew is a host's.
fn registry_row(
    host: Option<crew::crew::host::Host>,
    name: &str,
    description: &str,
    triggers: &[String],
    caps: &[String],
) -> AgentRow {
    AgentRow {
        name: name.to_string(),
        role: description.chars().take(80).collect(),
        capabilities: match host {
            Some(h) => h.tools(caps).join(", "),
            None => caps.join(", "),
        },
        input: if triggers.is_empty() {
            format!("@{name}")
        } else if host.is_some() {
            // quoted, as the host's dispatcher matches them against the message
            crew::crew::host::quoted_list(triggers)
        } else {
            triggers.join(", ")
        },
        output: "answers and notes".into(),
        status: Status::Active,
        custom: true,
        line: 0,
    }
}

fn custom_row_or_fail(crew: &Crew, name: &str) -> anyhow::Result<()> {
    if Crew::is_core(name) {
        bail!("`{name}` is a core agent; core agents cannot be disabled or removed");
    }
    if !crew
        .registry
        .agents
        .iter()
        .any(|r| r.name == name && r.custom)
    {
        bail!("no custom agent `{name}` in the registry; `crew agents list` shows them");
    }
    Ok(())
}

fn set_status(g: &Global, name: &str, status: Status, dry_run: bool) -> anyhow::Result<u8> {
    let crew = load_crew(g)?;
    custom_row_or_fail(&crew, name)?;
    if status == Status::Active && crew.agent(name).is_none() {
        bail!(
            "`{name}` was removed (its file is gone); create it again with `crew agents new {name}`"
        );
    }
    let (mut gate, prefix) = definition_gate(g, &crew, dry_run)?;
    let reg_path = format!("{prefix}references/agents-registry.md");
    let text = gate.read_text(&reg_path).unwrap_or_default();
    let Some(updated) = registry::set_custom_status(&text, name, status) else {
        bail!("no custom row for `{name}` in {reg_path}");
    };
    gate.write(&reg_path, updated.as_bytes())?;
    let word = if status == Status::Active {
        "enabled"
    } else {
        "disabled"
    };
    if g.json {
        out_json(&json!({"agent": name, "status": word, "dry_run": dry_run}))?;
    } else if dry_run {
        out(&format!("{name} would be {word}.\n{DRY_RUN_NOTE}"))?;
    } else {
        out(&format!("{name} is {word}."))?;
    }
    Ok(0)
}

fn remove_agent(g: &Global, name: &str, dry_run: bool) -> anyhow::Result<u8> {
    let crew = load_crew(g)?;
    custom_row_or_fail(&crew, name)?;
    let (mut gate, prefix) = definition_gate(g, &crew, dry_run)?;
    let reg_path = format!("{prefix}references/agents-registry.md");
    let text = gate.read_text(&reg_path).unwrap_or_default();
    if let Some(updated) = registry::set_custom_status(&text, name, Status::Disabled) {
        gate.write(&reg_path, updated.as_bytes())?;
    }
    let file = format!("{prefix}agents/{name}.md");
    let kept = if gate.exists(&file) {
        Some(
            gate.move_file(&file, &format!("{prefix}removed/{name}.md"))?
                .to,
        )
    } else {
        None
    };
    if g.json {
        out_json(
            &json!({"agent": name, "status": "disabled", "file_kept_at": kept, "dry_run": dry_run}),
        )?;
    } else {
        let kept = kept
            .map(|k| format!(" and its file is kept at {k}"))
            .unwrap_or_default();
        if dry_run {
            out(&format!(
                "{name} would be removed: its registry row would stay as disabled{}.\n{DRY_RUN_NOTE}",
                kept.replace("is kept", "would be kept")
            ))?;
        } else {
            out(&format!(
                "{name} is removed: its registry row stays as disabled{kept}."
            ))?;
        }
    }
    Ok(0)
}
