//! `crew agents new`: a custom agent is made whole, or the next run finishes it.
//!
//! Three files change: the agent's own file, its section in the host's agent directory (when
//! the crew keeps one), and its row in the registry. Each is written atomically through the
//! gate, and the registry row goes last: the row is what makes the agent part of the crew.
//! A run killed before the row leaves an agent file the registry does not list; `crew agents
//! validate` names it, and the same `crew agents new` run again finishes the job, keeping the
//! file as it is. A run killed after the row has done everything; running it again says so
//! and succeeds.

use anyhow::bail;
use serde_json::json;

use super::agents::{DRY_RUN_NOTE, definition_gate};
use super::{AgentsAction, Global, out, out_json};
use crew::crew::Crew;
use crew::crew::definition::{self, CAPABILITIES, ModelSpec, known_model_prefix, valid_name};
use crew::crew::host::{self, Host};
use crew::crew::registry::{self, AgentRow, Status};
use crew::gate::Gate;

/// The optional parts of `crew agents new`.
struct NewAgent {
    description: Option<String>,
    triggers: Option<String>,
    examples: Vec<String>,
    capabilities: Option<String>,
    model: Option<String>,
}

/// A registry for a crew folder that has none.
const EMPTY_REGISTRY: &str = "# Agents registry\n\n| Name | Role | Capabilities | Input | Output | Status |\n|------|------|--------------|-------|--------|--------|\n";

/// What is already where the new agent goes.
enum Found {
    /// Nothing: the agent is made from scratch.
    Nothing,
    /// Its file, without a registry row: an interrupted `crew agents new`, or a file the user
    /// wrote. The file is kept byte for byte; `words` are the file's own, and `same` says the
    /// file is exactly what this command writes (so the row follows the command's words).
    HalfMade { words: Words, same: bool },
    /// The agent exists whole, exactly as asked: an earlier run got past its last write.
    Done,
}

/// The agent's description, trigger phrases and capabilities, from which its registry row and
/// directory section are made.
#[derive(Default)]
struct Words {
    description: String,
    triggers: Vec<String>,
    /// Requests a user might send the agent: what the router learns it from.
    examples: Vec<String>,
    caps: Vec<String>,
}

/// The definition files the new agent touches, relative to the gate's root.
struct Paths {
    agent: String,
    registry: String,
    directory: String,
}

/// The crew as [`super::commands::load_crew`] loads it, refusing a crew with errors, except
/// the one error this command repairs: `name`'s file without a registry row.
fn load_crew_for(g: &Global, name: &str) -> anyhow::Result<Crew> {
    let crew = Crew::load(&g.vault_path(), g.crew_dir.as_deref())?;
    let errors: Vec<String> = crew
        .errors()
        .filter(|d| !Crew::is_unregistered_error(d, name))
        .map(ToString::to_string)
        .collect();
    if !errors.is_empty() {
        bail!(
            "the crew definition has errors (run `crew agents validate`):\n{}",
            errors.join("\n")
        );
    }
    Ok(crew)
}

/// `crew agents new` as parsed; any other action is a caller's mistake.
pub(super) fn run(g: &Global, action: AgentsAction) -> anyhow::Result<u8> {
    let AgentsAction::New {
        name,
        description,
        triggers,
        examples,
        capabilities,
        model,
        dry_run,
    } = action
    else {
        bail!("`crew agents new` was asked to run another action");
    };
    let new = NewAgent {
        description,
        triggers,
        examples,
        capabilities,
        model,
    };
    new_agent(g, &name, new, dry_run)
}

fn new_agent(g: &Global, name: &str, new: NewAgent, dry_run: bool) -> anyhow::Result<u8> {
    check_name(name)?;
    let crew = load_crew_for(g, name)?;
    let (caps, model) = checked_capabilities_and_model(new.capabilities, new.model)?;
    let asked = Words {
        description: new
            .description
            .unwrap_or_else(|| format!("Custom agent {name}.")),
        triggers: new
            .triggers
            .map(|t| {
                t.split(',')
                    .map(|x| x.trim().to_string())
                    .filter(|x| !x.is_empty())
                    .collect()
            })
            .unwrap_or_default(),
        examples: new
            .examples
            .into_iter()
            .map(|e| e.trim().to_string())
            .filter(|e| !e.is_empty())
            .collect(),
        caps,
    };
    let host = Host::of(&crew);
    let text = agent_text(host, name, &asked, &model)?;
    let (mut gate, prefix) = definition_gate(g, &crew, dry_run)?;
    let paths = Paths {
        agent: format!("{prefix}agents/{name}.md"),
        registry: format!("{prefix}references/agents-registry.md"),
        directory: format!("{prefix}references/agents.md"),
    };
    let reg_text = gate
        .read_text(&paths.registry)
        .unwrap_or_else(|| EMPTY_REGISTRY.into());
    // the agents directory gets the new agent's section, as the host's create-agent skill does
    let directory = gate.read_text(&paths.directory);
    let keeps_directory = directory.is_some() || host.is_some();
    let mut found = find(&crew, &gate, name, &paths.agent, &text)?;
    // a file that is not this command's keeps its own words: the row and section follow it
    let words = match &mut found {
        Found::HalfMade { words, same: false } => std::mem::take(words),
        _ => asked,
    };
    let row = registry_row(host, name, &words);
    let row_line = registry::render_agent_row(&row);
    let section =
        host::directory_section(name, &words.description, &words.triggers, &row.capabilities);
    let new_directory = keeps_directory
        .then(|| directory.unwrap_or_else(|| host::EMPTY_DIRECTORY.to_string()))
        .filter(|d| !has_section(d, name))
        .map(|d| host::insert_section(&d, &section));
    if let Found::Done = found {
        if reg_text.lines().any(|l| l == row_line) {
            return report_done(g, name, &paths, dry_run);
        }
        bail!(
            "`{name}` already exists in this crew; `crew agents enable {name}` brings back a disabled one"
        );
    }
    let new_registry = registry::insert_custom_row(&reg_text, &row_line);
    let agent_text = match &found {
        Found::HalfMade { .. } => gate.read_text(&paths.agent).unwrap_or_default(),
        _ => text,
    };
    // the whole change is checked before the first byte is written: the agent file and the
    // registry must read back without errors, or nothing is written
    validate_new_definition(&paths.agent, &agent_text, &paths.registry, &new_registry)?;
    let mark = gate.mark();
    let written = (|| -> Result<(), crew::gate::GateError> {
        if let Found::Nothing = found {
            // `write`, not `create`: a file that appeared since the check is an error here,
            // never a reason to make `NAME 2.md`
            gate.write(&paths.agent, agent_text.as_bytes())?;
        }
        if let Some(d) = &new_directory {
            gate.write(&paths.directory, d.as_bytes())?;
        }
        // last, in one atomic write: the row makes the agent part of the crew
        gate.write(&paths.registry, new_registry.as_bytes())
    })();
    if let Err(e) = written {
        // one operation: a step that fails takes back the steps before it
        let undone = gate.rollback_to(mark);
        bail!("could not add agent `{name}`: {e}; {undone}");
    }
    let done = Done {
        found: &found,
        directory: new_directory.is_some().then_some(paths.directory.as_str()),
        triggers: &words.triggers,
    };
    report(g, name, &paths, &done, dry_run)
}

/// The new agent's file: the host's format when the crew is a host's, else crew's own.
fn agent_text(host: Option<Host>, name: &str, w: &Words, model: &str) -> anyhow::Result<String> {
    Ok(match host {
        Some(h) => h
            .agent_file(
                name,
                &w.description,
                &w.triggers,
                &w.examples,
                &w.caps,
                model,
            )
            .map_err(|e| anyhow::anyhow!(e))?,
        None => agent_file_text(name, w, model),
    })
}

/// Whether a directory text already holds `name`'s section (a killed run may have written it).
fn has_section(directory: &str, name: &str) -> bool {
    let heading = format!("### {name}");
    directory.lines().any(|l| l.trim_end() == heading)
}

/// What is already where agent `name` goes; refuses what this command must not touch.
fn find(
    crew: &Crew,
    gate: &Gate,
    name: &str,
    agent_path: &str,
    text: &str,
) -> anyhow::Result<Found> {
    let taken = || {
        anyhow::anyhow!(
            "`{name}` already exists in this crew; `crew agents enable {name}` brings back a disabled one"
        )
    };
    if crew.skill(name).is_some() {
        return Err(taken());
    }
    let existing = gate.exists(agent_path).then(|| gate.read_text(agent_path));
    let has_row = crew.registry.agents.iter().any(|r| r.name == name);
    match existing {
        // a row and the very file this command writes: done, if the row is the asked one too
        Some(Some(t)) if has_row && t == text => Ok(Found::Done),
        _ if has_row => Err(taken()),
        None if crew.agent(name).is_some() => Err(taken()),
        None => Ok(Found::Nothing),
        Some(None) => bail!(
            "{agent_path} exists but cannot be read as a file; move it out of the way, then run `crew agents new {name}` again"
        ),
        Some(Some(t)) => {
            let mut diags = Vec::new();
            let def = definition::parse(agent_path, &t, &mut diags);
            let errors: Vec<String> = diags
                .iter()
                .filter(|d| d.severity == crew::crew::Severity::Error)
                .map(ToString::to_string)
                .collect();
            match def {
                Some(def) if errors.is_empty() && def.name == name => Ok(Found::HalfMade {
                    words: Words {
                        description: def.description,
                        triggers: def.triggers,
                        examples: def.examples,
                        caps: def.capabilities,
                    },
                    same: t == text,
                }),
                Some(def) if errors.is_empty() => bail!(
                    "{agent_path} already exists and defines agent `{}`, not `{name}`; rename or move it, then try again",
                    def.name
                ),
                _ => bail!(
                    "{agent_path} already exists and does not load as an agent, so crew leaves it alone: {}; correct or move it, then run `crew agents new {name}` again",
                    if errors.is_empty() {
                        "it has no frontmatter".to_string()
                    } else {
                        errors.join("; ")
                    }
                ),
            }
        }
    }
}

/// What was done, for the report.
struct Done<'a> {
    found: &'a Found,
    /// The directory file that got the agent's section, if one did.
    directory: Option<&'a str>,
    triggers: &'a [String],
}

/// The agent existed whole and exactly as asked: a retry after the last write succeeds.
fn report_done(g: &Global, name: &str, paths: &Paths, dry_run: bool) -> anyhow::Result<u8> {
    if g.json {
        out_json(
            &json!({"created": null, "exists": paths.agent, "registry": paths.registry, "unchanged": true, "dry_run": dry_run}),
        )?;
    } else {
        out(&format!(
            "{name} already exists exactly as asked ({} and its registry row); nothing to do.",
            paths.agent
        ))?;
    }
    Ok(0)
}

fn report(g: &Global, name: &str, paths: &Paths, done: &Done, dry_run: bool) -> anyhow::Result<u8> {
    let finished = match done.found {
        Found::HalfMade { same: true, .. } => Some(format!(
            "{} was already there from an interrupted `crew agents new {name}`; it is kept as it is",
            paths.agent
        )),
        Found::HalfMade { same: false, .. } => Some(format!(
            "{} was already there without a registry row; it is kept as it is, and its row follows the file's description, triggers and capabilities",
            paths.agent
        )),
        _ => None,
    };
    if g.json {
        return out_json(&json!({
            "created": if finished.is_some() { None } else { Some(&paths.agent) },
            "finished": finished.as_ref().map(|_| &paths.agent),
            "registry": paths.registry,
            "directory": done.directory,
            "dry_run": dry_run,
        }))
        .map(|()| 0);
    }
    let directory_note = |what: &str| {
        done.directory
            .map(|d| format!("{what}{d}"))
            .unwrap_or_default()
    };
    if dry_run {
        let head = match &finished {
            Some(f) => format!(
                "{f}.\nWould finish it: add its registry row to {}",
                paths.registry
            ),
            None => format!(
                "Would create {} and add its registry row to {}",
                paths.agent, paths.registry
            ),
        };
        out(&format!(
            "{head}{}.\n{DRY_RUN_NOTE}",
            directory_note(" and its section to ")
        ))?;
        return Ok(0);
    }
    let answers_to = if done.triggers.is_empty() {
        format!("@{name}")
    } else {
        done.triggers
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let head = match &finished {
        Some(f) => format!("Finished {name}: {f}. Added its registry row"),
        None => format!("Created {}, its registry row", paths.agent),
    };
    out(&format!(
        "{head}{}.\nIt answers to {answers_to}.\nEdit the file to write its instructions; `crew agents validate` checks it.",
        directory_note(" and its section in ")
    ))?;
    Ok(0)
}

/// A new custom agent's name is well formed and not a core agent's.
fn check_name(name: &str) -> anyhow::Result<()> {
    if !valid_name(name) {
        bail!(
            "`{name}` is not a valid agent name: use lowercase letters, digits and single hyphens (e.g. `tax-helper`)"
        );
    }
    if Crew::is_core(name) {
        bail!("`{name}` is a core agent's name; custom agents need their own (e.g. `my-{name}`)");
    }
    Ok(())
}

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
fn agent_file_text(name: &str, w: &Words, model: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {}\ncapabilities: [{}]\nmodel: {model}\ntriggers:{}{}---\n# {name}\n\nYou are {name}, a custom agent of this vault's crew. {}\n\n## Every run\n- Answer in the user's language; read `Meta/user-profile.md` and your post-it first.\n- Write only inside the vault, through your tools; never edit other agents' files.\n- When another agent should act, end with a `### Suggested next agent` block (Agent, Reason, Context).\n",
        crew::vault::edit::yaml_scalar(&w.description),
        w.caps.join(", "),
        host::yaml_list(&w.triggers),
        if w.examples.is_empty() {
            String::new()
        } else {
            format!("examples:{}", host::yaml_list(&w.examples))
        },
        w.description
    )
}

/// The registry row of a new custom agent, in the host's words when the crew is a host's.
fn registry_row(host: Option<Host>, name: &str, words: &Words) -> AgentRow {
    AgentRow {
        name: name.to_string(),
        role: words.description.chars().take(80).collect(),
        capabilities: match host {
            Some(h) => h.tools(&words.caps).join(", "),
            None => words.caps.join(", "),
        },
        input: if words.triggers.is_empty() {
            format!("@{name}")
        } else if host.is_some() {
            // quoted, as the host's dispatcher matches them against the message
            crew::crew::host::quoted_list(&words.triggers)
        } else {
            words.triggers.join(", ")
        },
        output: "answers and notes".into(),
        status: Status::Active,
        custom: true,
        line: 0,
    }
}
