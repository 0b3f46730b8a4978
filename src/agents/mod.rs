//! The native crew: crew's own Rust implementation of the mechanical work of each agent and
//! skill. Deterministic, offline, instant. Each one reads its post-it, works through the write
//! gate, returns its answer (ending with real suggestion blocks when it sees work for another
//! agent) and the post-it to keep.

pub mod architect;
pub use architect::onboard;
pub mod common;
pub mod connector;
pub mod cue;
pub mod filing;
pub mod fixes;
pub(crate) mod inert;
pub mod librarian;
pub mod moc;
pub mod modelonly;

pub mod planner;
pub mod postman;
pub(crate) mod regions;
pub mod scribe;
pub mod seeker;
pub mod sorter;
pub mod timeframe;
pub mod user_dates;

use chrono::NaiveDateTime;

use crate::crew::{Crew, CrewConfig, Kind};
use crate::dispatch::chain::Step;
use crate::gate::{Gate, GateError};

/// What a chat turn hands to the agents beside the message (defined here, where agents
/// read it, so that the agents need nothing of the chat above them).
#[derive(Debug, Clone, Default)]
pub struct ChatInput {
    /// Earlier turns, oldest first: ("user" | "crew", text).
    pub conversation: Vec<(String, String)>,
    /// The seeker narrows these notes instead of searching the whole vault.
    pub within: Option<Vec<String>>,
    /// The onboarding interview's answers (key, answer), in the order asked.
    pub answers: Option<Vec<(String, String)>>,
    /// The language chosen in this session's onboarding: answers use it unless the request
    /// is clearly in another.
    pub lang: Option<crate::lang::Lang>,
}

/// Everything a native agent may use for one run.
pub struct Ctx<'a> {
    pub gate: &'a mut Gate,
    pub crew: &'a Crew,
    pub config: &'a CrewConfig,
    pub step: &'a Step,
    /// The agent's post-it body from its last run.
    pub postit: Option<String>,
    pub now: NaiveDateTime,
    /// `--fix` / "apply": allow the agent's safe changes beyond its default ones.
    pub apply: bool,
    /// `--yes`: the user confirmed what the request asks, so a change an agent would only plan
    /// (a custom agent disabled or removed) is made.
    pub confirmed: bool,
    /// Vault paths not to touch in this run (notes still being written).
    pub hold: &'a [String],
    /// `crew triage --into FOLDER NOTE…`: the notes the user files, and where.
    pub file_into: Option<&'a sorter::into::FileInto>,
    /// Lines for `Meta/agent-log.md`, written once when the agent is done.
    pub log: Vec<String>,
    /// `maintain --fix --only KIND`: just these fix kinds, without the size cap.
    pub fix_only: Vec<fixes::FixKind>,
    /// Figures for `--json` beside the text (e.g. each fix of the nightly maintenance).
    pub data: Option<serde_json::Value>,
    /// What a `crew chat` turn adds (empty for one-shot requests).
    pub chat: &'a ChatInput,
    /// The model this step may use (the run's choice: `--model`, else the definition's tier
    /// when it does model or hybrid work); hybrid agents call it for what needs one.
    pub model: Option<String>,
    /// The language the reply is written in (the request's, else the user's).
    pub lang: crate::lang::Lang,
    /// The agents this run hands work to. Only these become hand-off blocks: the answer's own
    /// text may quote mail, events or notes, and is never read for them.
    pub handoffs: Vec<crate::dispatch::suggest::NextAgent>,
    /// The question this run puts to the user, kept out of the text for the same reason.
    pub question: Option<crate::dispatch::question::Question>,
}

impl Ctx<'_> {
    /// Hands work to another agent after this one (see [`common::suggestion`]).
    pub fn hand_off(&mut self, s: crate::dispatch::suggest::NextAgent) {
        self.handoffs.push(s);
    }

    pub fn today(&self) -> String {
        self.now.format("%Y-%m-%d").to_string()
    }

    /// Whether the request turns on an option of the mode the agent runs.
    pub fn says(&self, cue: cue::Cue) -> bool {
        cue.in_text(&format!("{} {}", self.step.message, self.step.task))
    }

    /// The slug of the mode the dispatcher chose for this step (none: the default mode).
    pub fn mode(&self) -> Option<&str> {
        self.step.mode.as_deref()
    }
}

/// A native agent's result.
#[derive(Debug, Clone, Default)]
pub struct NativeOutput {
    /// The answer, Markdown, suggestion blocks included.
    pub text: String,
    /// What to keep in the post-it (at most 30 lines are kept).
    pub postit: String,
    /// Something needs the user's attention (exit code 1 for unattended runs).
    pub attention: bool,
}

pub(crate) type NativeFn = fn(&mut Ctx) -> Result<NativeOutput, GateError>;

/// Every agent and skill crew runs in its own code, and the function that does it: the one
/// place where a role's name meets its implementation. The core agents' names and routing
/// priority are crew data (`crate::crew::CORE_AGENTS`, the registry); a test keeps the two in
/// step with the built-in definitions.
pub(crate) const NATIVE: &[(Kind, &str, NativeFn)] = &[
    (Kind::Agent, "postman", postman::run),
    (Kind::Agent, "transcriber", modelonly::run),
    (Kind::Agent, "scribe", scribe::run),
    (Kind::Agent, "seeker", seeker::run),
    (Kind::Agent, "architect", architect::run),
    (Kind::Agent, "sorter", sorter::run),
    (Kind::Agent, "connector", connector::run),
    (Kind::Agent, "librarian", librarian::run),
    (Kind::Skill, "inbox-triage", sorter::inbox_triage),
    (Kind::Skill, "vault-audit", librarian::vault_audit),
    (Kind::Skill, "deep-clean", librarian::deep_clean),
    (Kind::Skill, "tag-garden", librarian::tag_garden),
    (Kind::Skill, "defrag", architect::defrag),
    (Kind::Skill, "onboarding", architect::onboarding),
    (Kind::Skill, "manage-agent", architect::manage_agent),
    (Kind::Skill, "deadline-radar", planner::deadline_radar),
    (Kind::Skill, "weekly-agenda", planner::weekly_agenda),
    (Kind::Skill, "email-triage", postman::run),
    (Kind::Skill, "meeting-prep", postman::prep::meeting_prep),
    (Kind::Skill, "transcribe", modelonly::run),
    (Kind::Skill, "contact-sync", modelonly::run),
    (Kind::Skill, "create-agent", modelonly::run),
];

/// The native implementation of a skill or agent, if crew has one.
pub fn native(kind: Kind, name: &str) -> Option<NativeFn> {
    NATIVE
        .iter()
        .find(|(k, n, _)| *k == kind && *n == name)
        .map(|(_, _, f)| *f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crew::{CORE_AGENTS, Crew, Executor};

    #[test]
    fn the_native_table_and_the_crew_definition_agree() {
        let agents: Vec<&str> = NATIVE
            .iter()
            .filter(|(k, _, _)| *k == Kind::Agent)
            .map(|(_, n, _)| *n)
            .collect();
        assert_eq!(
            agents, CORE_AGENTS,
            "one entry per core agent, in priority order"
        );
        let crew = Crew::builtin();
        for (kind, name, _) in NATIVE {
            assert!(
                crew.definition(*kind, name).is_some(),
                "{name} has no built-in definition"
            );
        }
        let definitions = crew
            .agents
            .iter()
            .map(|d| (Kind::Agent, d))
            .chain(crew.skills.iter().map(|d| (Kind::Skill, d)));
        for (kind, d) in definitions {
            if crew.executor(kind, &d.name) != Executor::Model {
                assert!(
                    native(kind, &d.name).is_some(),
                    "{} declares native work but has no entry",
                    d.name
                );
            }
        }
        let mut seen: Vec<(Kind, &str)> = NATIVE.iter().map(|(k, n, _)| (*k, *n)).collect();
        seen.sort_by_key(|(k, n)| (k.as_str(), *n));
        seen.dedup();
        assert_eq!(seen.len(), NATIVE.len(), "no role twice");
    }
}
