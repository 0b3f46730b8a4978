//! The custom-agent lifecycle — disable, enable, remove — in one place, for `crew agents …`
//! and for a request ("disable the agent workout-tracker"). Core agents are protected; a removed
//! agent's file is kept under `removed/` and its registry row stays, disabled, so nothing the
//! user wrote is lost and `crew undo` takes either change back.

use std::path::Path;

use crate::agents::{Ctx, NativeOutput};
use crate::crew::registry::{self, Status};
use crate::crew::{Crew, CrewSource};
use crate::gate::{Gate, GateError};

/// What to do to a custom agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentChange {
    Disable,
    Enable,
    Remove,
}

impl AgentChange {
    /// The change a `/manage-agent` mode asks for (`None`: list the crew).
    pub fn from_slug(mode: Option<&str>) -> Option<AgentChange> {
        match mode? {
            "disable" => Some(AgentChange::Disable),
            "enable" => Some(AgentChange::Enable),
            "remove" => Some(AgentChange::Remove),
            _ => None,
        }
    }

    /// The word for what happened (`disabled`, `enabled`, `removed`).
    pub fn done_word(self) -> &'static str {
        match self {
            AgentChange::Disable => "disabled",
            AgentChange::Enable => "enabled",
            AgentChange::Remove => "removed",
        }
    }
}

/// A change that was made (or, on a dry-run gate, would be).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    pub name: String,
    pub change: AgentChange,
    /// The registry row's status afterwards.
    pub status: Status,
    /// Where a removed agent's file now is.
    pub file_kept_at: Option<String>,
}

/// Why an agent could not be changed, with what to do.
#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    #[error("`{0}` is a core agent; core agents cannot be disabled or removed")]
    Core(String),
    #[error("no custom agent `{0}` in the registry; `crew agents list` shows them")]
    NotCustom(String),
    #[error("`{0}` was removed (its file is gone); create it again with `crew agents new {0}`")]
    FileGone(String),
    #[error("no custom row for `{name}` in {path}")]
    NoRow { name: String, path: String },
    #[error(transparent)]
    Gate(#[from] GateError),
}

/// Whether `change` may be made to `name`: a custom agent with a registry row, and, to be
/// enabled, a file. Pure.
pub fn check(crew: &Crew, name: &str, change: AgentChange) -> Result<(), ManageError> {
    if Crew::is_core(name) {
        return Err(ManageError::Core(name.to_string()));
    }
    if !crew
        .registry
        .agents
        .iter()
        .any(|r| r.name == name && r.custom)
    {
        return Err(ManageError::NotCustom(name.to_string()));
    }
    if change == AgentChange::Enable && crew.agent(name).is_none() {
        return Err(ManageError::FileGone(name.to_string()));
    }
    Ok(())
}

/// Changes the custom agent `name` through `gate`, whose root holds the crew definition at
/// `prefix` (`""` when the gate is rooted at the crew folder itself, `.crew/` inside a vault).
pub fn change_agent(
    gate: &mut Gate,
    crew: &Crew,
    prefix: &str,
    name: &str,
    change: AgentChange,
) -> Result<Changed, ManageError> {
    check(crew, name, change)?;
    let reg_path = format!("{prefix}references/agents-registry.md");
    let text = gate.read_text(&reg_path).unwrap_or_default();
    let status = match change {
        AgentChange::Enable => Status::Active,
        AgentChange::Disable | AgentChange::Remove => Status::Disabled,
    };
    match registry::set_custom_status(&text, name, status) {
        Some(updated) if updated != text => gate.write(&reg_path, updated.as_bytes())?,
        Some(_) => {}
        // a removal still moves the file away when the row is gone
        None if change == AgentChange::Remove => {}
        None => {
            return Err(ManageError::NoRow {
                name: name.to_string(),
                path: reg_path,
            });
        }
    }
    let mut file_kept_at = None;
    if change == AgentChange::Remove {
        let file = format!("{prefix}agents/{name}.md");
        if gate.exists(&file) {
            file_kept_at = Some(
                gate.move_file(&file, &format!("{prefix}removed/{name}.md"))?
                    .to,
            );
        }
    }
    Ok(Changed {
        name: name.to_string(),
        change,
        status,
        file_kept_at,
    })
}

/// Where the crew's definition sits inside the vault, as a vault path prefix (`.crew/`), so a
/// run's own gate can change it; `None` for the built-in crew or a crew folder elsewhere.
pub fn definition_prefix(crew: &Crew, vault: &Path) -> Option<String> {
    let CrewSource::Dir(dir) = &crew.source else {
        return None;
    };
    let rel = dir
        .canonicalize()
        .ok()?
        .strip_prefix(vault.canonicalize().ok()?)
        .ok()?
        .to_path_buf();
    if rel.as_os_str().is_empty() {
        return None;
    }
    Some(format!("{}/", crate::vault::rel_to_string(&rel)))
}

/// The agent a request names: a registry row's name written in it as whole words (its hyphens
/// read as spaces too, "workout tracker"), the longest when several are. Pure.
pub fn named_agent<'c>(crew: &'c Crew, message: &str) -> Option<&'c str> {
    let text = format!(" {} ", crate::text::normalize(message));
    let text = text.replace('-', " ");
    crew.registry
        .agents
        .iter()
        .map(|r| r.name.as_str())
        .chain(crew.agents.iter().map(|a| a.name.as_str()))
        .filter(|name| {
            let n = crate::text::normalize(name).replace('-', " ");
            !n.trim().is_empty() && text.contains(&format!(" {} ", n.trim()))
        })
        .max_by_key(|name| name.len())
}

/// `/manage-agent` asked to change an agent: names it from the request, refuses what the
/// lifecycle refuses, plans unless the user confirmed (`--yes`, `--fix`), then changes it
/// through the run's gate — the run lets this skill, and only it, touch the definition.
pub(crate) fn on_request(ctx: &mut Ctx, change: AgentChange) -> Result<NativeOutput, GateError> {
    let l = ctx.lang;
    let answer = |text: String, postit: String| NativeOutput {
        text,
        postit,
        attention: false,
    };
    let Some(name) = named_agent(ctx.crew, &ctx.step.message).map(str::to_string) else {
        let names: Vec<String> = ctx
            .crew
            .registry
            .agents
            .iter()
            .filter(|r| r.custom)
            .map(|r| format!("`{}`", r.name))
            .collect();
        let names = if names.is_empty() {
            "—".to_string()
        } else {
            names.join(", ")
        };
        return Ok(answer(
            crate::tr!(l, "manage.which", names = names),
            "asked which agent to change".into(),
        ));
    };
    if let Err(e) = check(ctx.crew, &name, change) {
        return Ok(answer(
            format!("{e}\n"),
            format!("refused to change {name}"),
        ));
    }
    let verb = match change {
        AgentChange::Disable => "disable",
        AgentChange::Enable => "enable",
        AgentChange::Remove => "remove",
    };
    let Some(prefix) = definition_prefix(ctx.crew, ctx.gate.root()) else {
        return Ok(answer(
            crate::tr!(l, "manage.outside", verb = verb, agent = name),
            format!("could not {verb} {name}: definition outside the vault"),
        ));
    };
    if !(ctx.confirmed || ctx.apply) {
        let apply = crate::shell::crew(&["ask", "--yes", &ctx.step.message]);
        let plan = match change {
            AgentChange::Disable => {
                crate::tr!(l, "manage.plan.disable", agent = name, apply = apply)
            }
            AgentChange::Enable => crate::tr!(l, "manage.plan.enable", agent = name, apply = apply),
            AgentChange::Remove => crate::tr!(l, "manage.plan.remove", agent = name, apply = apply),
        };
        return Ok(answer(plan, format!("planned to {verb} {name}")));
    }
    let done = match change_agent(ctx.gate, ctx.crew, &prefix, &name, change) {
        Ok(done) => done,
        Err(ManageError::Gate(e)) => return Err(e),
        Err(e) => return Ok(answer(format!("{e}\n"), format!("could not {verb} {name}"))),
    };
    ctx.log.push(format!("{verb} custom agent {name}"));
    let kept = done.file_kept_at.unwrap_or_default();
    let text = match change {
        AgentChange::Disable => crate::tr!(l, "manage.done.disable", agent = name),
        AgentChange::Enable => crate::tr!(l, "manage.done.enable", agent = name),
        AgentChange::Remove => crate::tr!(l, "manage.done.remove", agent = name, kept = kept),
    };
    Ok(answer(
        text,
        format!("{} {name} on {}", change.done_word(), ctx.today()),
    ))
}
