//! The chain engine: runs the routed agent, then the agents it suggests, under the rules of the
//! protocol — no agent twice, no cycles, at most 3 per request — and reports what was deferred.
//! Pure logic: the agents themselves run behind the [`Executor`] trait.

use serde::Serialize;

use super::suggest::{self, NewAgent, NextAgent};
use crate::crew::config::MAX_DEPTH;
use crate::crew::{Crew, Kind};
use crate::state::journal::Operation;

/// Bounds on earlier answers passed to a chained agent.
pub(crate) const CONTEXT_TURNS: usize = 16;
pub(crate) const CONTEXT_TURN_CHARS: usize = 4_000;
pub(crate) const CONTEXT_TOTAL_CHARS: usize = 40_000;

/// What one agent run receives.
#[derive(Debug, Clone)]
pub struct Step {
    pub kind: Kind,
    pub name: String,
    /// The user's message for step 1; the suggestion's reason and context afterwards.
    pub task: String,
    /// The user's original message.
    pub message: String,
    /// `Call chain so far: [scribe, architect]. You are step 3 of max 3.`
    pub chain_line: String,
    pub step: usize,
    pub max: usize,
    pub suggested_by: Option<String>,
    /// The slug of the mode the user's message asks of step 1's route (see
    /// [`super::mode::choose`]); none for its default mode, and for every suggested step: the
    /// user's words were for the first agent.
    pub mode: Option<String>,
    /// Earlier agents' answers, attributed and bounded: (agent, answer).
    pub earlier: Vec<(String, String)>,
}

/// What did a step's work: crew's own code or a language model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RanOn {
    #[default]
    Native,
    Model,
}

impl std::fmt::Display for RanOn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RanOn::Native => "native",
            RanOn::Model => "model",
        })
    }
}

/// What one agent run produced.
#[derive(Debug, Clone, Default)]
pub struct StepOutput {
    pub output: String,
    pub executor: RanOn,
    pub model: Option<String>,
    pub operations: Vec<Operation>,
    /// Set when the run failed; the output then explains what to do.
    pub error: Option<String>,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub latency_ms: u64,
    /// The run changed the user's notes (crew's own state — post-its, the agent log — aside).
    pub changed_notes: bool,
    /// Figures beside the text, for `--json`.
    pub data: Option<serde_json::Value>,
}

/// Runs one agent or skill.
pub trait Executor {
    fn run(&mut self, step: &Step) -> StepOutput;

    /// Whether the agent or skill may change the vault. A request whose first agent is no
    /// writer, or changed nothing, is read-only: it never starts one that is.
    fn writes(&self, _kind: Kind, _name: &str) -> bool {
        false
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct StepRecord {
    pub agent: String,
    pub kind: Kind,
    pub executor: RanOn,
    pub model: Option<String>,
    pub output: String,
    pub suggestions: Vec<NextAgent>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub new_agents: Vec<NewAgent>,
    pub operations: Vec<Operation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suggested_by: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip)]
    pub tokens_in: u64,
    #[serde(skip)]
    pub tokens_out: u64,
    #[serde(skip)]
    pub latency_ms: u64,
    #[serde(skip)]
    pub changed_notes: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

/// A valid suggestion that did not run in this request, with the phrase that would run it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Deferred {
    pub agent: String,
    pub reason: String,
    pub phrase: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub suggested_by: String,
    /// Why it did not run: the chain was full, or the request was read-only.
    pub why: String,
    /// The command that runs it.
    pub command: String,
}

/// Why a valid suggestion waits for the user.
pub const DEFERRED_FULL: &str = "the chain was full";
pub const DEFERRED_READ_ONLY: &str =
    "this request changed no note, so it does not start an agent that changes notes";

/// The command that runs a deferred suggestion: its phrase when it is a trigger, else the
/// agent by name with the suggestion's reason as the task.
pub(crate) fn command_for(name: &str, phrase: &str, reason: &str) -> String {
    let task = if phrase.starts_with('@') {
        reason
    } else {
        phrase
    };
    crate::shell::crew(&["ask", "--agent", name, task])
}

/// A suggestion that could not run at all (unknown, disabled, already in the chain).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub agent: String,
    pub why: String,
    pub suggested_by: String,
    /// What to say to run it in a new request (empty when it cannot run at all).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phrase: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ChainReport {
    pub steps: Vec<StepRecord>,
    pub deferred: Vec<Deferred>,
    pub skipped: Vec<Skipped>,
    pub new_agents: Vec<NewAgent>,
}

impl ChainReport {
    pub fn failed(&self) -> bool {
        self.steps.iter().any(|s| s.error.is_some())
    }

    pub fn chain(&self) -> Vec<String> {
        self.steps.iter().map(|s| s.agent.clone()).collect()
    }
}

/// The phrase a user can say to run `name` later: the trigger sharing most words with the
/// reason (the first trigger on a tie), else `@name`.
pub(crate) fn phrase_for(crew: &Crew, kind: Kind, name: &str, reason: &str) -> String {
    let def = crew.definition(kind, name);
    let reason_words: Vec<String> = crate::text::words(&crate::text::normalize(reason))
        .filter(|w| w.len() > 2)
        .map(str::to_string)
        .collect();
    let mut best: Option<(usize, &String)> = None;
    for t in def.map(|d| d.triggers.as_slice()).unwrap_or_default() {
        let n = crate::text::normalize(t);
        let overlap = crate::text::words(&n)
            .filter(|w| reason_words.iter().any(|r| r == w))
            .count();
        if best.is_none_or(|(b, _)| overlap > b) {
            best = Some((overlap, t));
        }
    }
    best.map(|(_, t)| t.clone())
        .unwrap_or_else(|| format!("@{name}"))
}

pub(crate) fn chain_line(chain: &[String], step: usize, max: usize) -> String {
    format!(
        "Call chain so far: [{}]. You are step {step} of max {max}.",
        chain.join(", ")
    )
}

/// The earlier answers a chained agent sees: most recent turns first kept within the bounds,
/// then returned oldest first.
pub(crate) fn bounded_context(steps: &[StepRecord]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut total = 0;
    for s in steps.iter().rev().take(CONTEXT_TURNS) {
        let text: String = s.output.chars().take(CONTEXT_TURN_CHARS).collect();
        let n = text.chars().count();
        if total + n > CONTEXT_TOTAL_CHARS {
            break;
        }
        total += n;
        out.push((s.agent.clone(), text));
    }
    out.reverse();
    out
}

/// Runs a request: `first` is the routed skill or agent; `max_depth` is capped at 3.
pub fn run(
    crew: &Crew,
    first: (Kind, String),
    message: &str,
    max_depth: usize,
    exec: &mut dyn Executor,
) -> ChainReport {
    let max = max_depth.clamp(1, MAX_DEPTH);
    let mut report = ChainReport {
        steps: Vec::new(),
        deferred: Vec::new(),
        skipped: Vec::new(),
        new_agents: Vec::new(),
    };
    // suggestions waiting, in the order they were made
    let mut pending: Vec<Pending> = Vec::new();
    let first_kind = first.0;
    let mut next = Some((first, message.to_string(), None::<String>));
    while let Some(((kind, name), task, by)) = next.take() {
        let chain = report.chain();
        let mode = match by {
            // read as the route read it: the preview of a guessed route was decided on this
            // same mode
            None => super::route::mode_asked(crew, kind, &name, message),
            Some(_) => None,
        };
        let step = Step {
            kind,
            name: name.clone(),
            task,
            message: message.to_string(),
            chain_line: chain_line(&chain, chain.len() + 1, max),
            step: chain.len() + 1,
            max,
            suggested_by: by.clone(),
            mode,
            earlier: bounded_context(&report.steps),
        };
        let out = exec.run(&step);
        let parsed = if out.error.is_none() {
            suggest::parse(&out.output)
        } else {
            Default::default()
        };
        report.steps.push(record(&step, out, &parsed, by));
        report.new_agents.extend(parsed.new);
        queue_suggestions(crew, &mut report, &mut pending, parsed.next, &name);
        prune_pending(crew, &mut report, &mut pending);
        // a failed step ends the request; so does a question: the user answers before anyone
        // else runs, and what was suggested waits (deferred) with its phrase
        if report
            .steps
            .last()
            .is_some_and(|s| s.error.is_some() || super::question::parse(&s.output).is_some())
        {
            break;
        }
        // a read-only request does not start writers: they wait for the user
        let read_only = is_read_only(&report, &*exec, first_kind);
        let runnable = pending
            .iter()
            .position(|p| !read_only || !exec.writes(p.kind, &p.name));
        if report.chain().len() < max
            && let Some(at) = runnable
        {
            let p = pending.remove(at);
            let mut task = p.suggestion.reason.clone();
            if !p.suggestion.context.is_empty() {
                task.push_str("\nContext: ");
                task.push_str(&p.suggestion.context);
            }
            next = Some(((p.kind, p.name), task, Some(p.by)));
        }
    }
    let read_only = is_read_only(&report, &*exec, first_kind);
    for p in pending {
        let phrase = phrase_for(crew, p.kind, &p.name, &p.suggestion.reason);
        let why = if read_only && exec.writes(p.kind, &p.name) {
            DEFERRED_READ_ONLY
        } else {
            DEFERRED_FULL
        };
        report.deferred.push(Deferred {
            command: command_for(&p.name, &phrase, &p.suggestion.reason),
            phrase,
            agent: p.name,
            reason: p.suggestion.reason,
            suggested_by: p.by,
            why: why.into(),
        });
    }
    report
}

/// A suggestion waiting for its turn.
struct Pending {
    kind: Kind,
    name: String,
    suggestion: NextAgent,
    /// The agent that made it.
    by: String,
}

/// The record of a step that ran.
fn record(
    step: &Step,
    out: StepOutput,
    parsed: &suggest::Suggestions,
    by: Option<String>,
) -> StepRecord {
    StepRecord {
        agent: step.name.clone(),
        kind: step.kind,
        executor: out.executor,
        model: out.model,
        output: out.output,
        suggestions: parsed.next.clone(),
        new_agents: parsed.new.clone(),
        operations: out.operations,
        suggested_by: by,
        error: out.error,
        tokens_in: out.tokens_in,
        tokens_out: out.tokens_out,
        latency_ms: out.latency_ms,
        changed_notes: out.changed_notes,
        data: out.data,
    }
}

/// Queues what `by` suggested; a name the crew cannot run is skipped with the reason.
fn queue_suggestions(
    crew: &Crew,
    report: &mut ChainReport,
    pending: &mut Vec<Pending>,
    suggested: Vec<NextAgent>,
    by: &str,
) {
    for s in suggested {
        match crew.lookup(&s.agent) {
            None => report.skipped.push(Skipped {
                agent: s.agent.clone(),
                why: if crew.agent(&s.agent.to_lowercase()).is_some() {
                    "disabled in the registry".into()
                } else {
                    "no such agent in the registry".into()
                },
                suggested_by: by.to_string(),
                phrase: String::new(),
            }),
            Some((kind, name)) => pending.push(Pending {
                kind,
                name,
                suggestion: s,
                by: by.to_string(),
            }),
        }
    }
}

/// Drops suggestions that may not run: an agent that already ran (or whose skill did) is
/// skipped with the reason; the same agent suggested twice runs once.
fn prune_pending(crew: &Crew, report: &mut ChainReport, pending: &mut Vec<Pending>) {
    let ran = report.chain();
    let ran_sources: Vec<String> = report
        .steps
        .iter()
        .filter(|s| s.kind == Kind::Skill)
        .map(|s| crew.postit_owner(Kind::Skill, &s.agent))
        .collect();
    let mut keep: Vec<Pending> = Vec::new();
    for p in pending.drain(..) {
        if ran.contains(&p.name) || ran_sources.contains(&p.name) {
            report.skipped.push(Skipped {
                phrase: phrase_for(crew, p.kind, &p.name, &p.suggestion.reason),
                why: if ran.contains(&p.name) {
                    "already ran in this request".into()
                } else {
                    "its skill already ran in this request".into()
                },
                agent: p.name,
                suggested_by: p.by,
            });
        } else if keep.iter().any(|k| k.name == p.name) {
            // the same agent suggested twice: one run serves both
        } else {
            keep.push(p);
        }
    }
    *pending = keep;
}

/// Whether the request's first step changed nothing (or cannot write): then writers wait.
fn is_read_only(report: &ChainReport, exec: &dyn Executor, first_kind: Kind) -> bool {
    report
        .steps
        .first()
        .is_some_and(|first| !first.changed_notes || !exec.writes(first_kind, &first.agent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// An executor whose agents answer with scripted text.
    struct Scripted {
        outputs: HashMap<String, String>,
        seen: Vec<Step>,
    }

    impl Scripted {
        fn new(pairs: &[(&str, &str)]) -> Self {
            Scripted {
                outputs: pairs
                    .iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect(),
                seen: Vec::new(),
            }
        }
    }

    impl Executor for Scripted {
        fn run(&mut self, step: &Step) -> StepOutput {
            self.seen.push(step.clone());
            StepOutput {
                output: self
                    .outputs
                    .get(&step.name)
                    .cloned()
                    .unwrap_or_else(|| "ok".into()),
                executor: RanOn::Native,
                ..StepOutput::default()
            }
        }
    }

    /// Agents that change notes (`writers`), and which of them change some in this run.
    struct Writers {
        inner: Scripted,
        writers: Vec<&'static str>,
        changing: Vec<&'static str>,
    }

    impl Executor for Writers {
        fn run(&mut self, step: &Step) -> StepOutput {
            let mut out = self.inner.run(step);
            out.changed_notes = self.changing.contains(&step.name.as_str());
            out
        }

        fn writes(&self, _kind: Kind, name: &str) -> bool {
            self.writers.contains(&name)
        }
    }

    #[test]
    fn a_read_only_request_defers_writers_with_their_command() {
        let crew = Crew::builtin();
        let seeker_out = format!(
            "{}{}",
            suggest("connector", "3 notes on taxes have no links"),
            suggest("librarian", "a broken link")
        );
        let mut exec = Writers {
            inner: Scripted::new(&[("seeker", &seeker_out)]),
            writers: vec!["connector", "librarian"],
            changing: vec![],
        };
        let r = run(
            &crew,
            (Kind::Agent, "seeker".into()),
            "find taxes",
            3,
            &mut exec,
        );
        assert_eq!(r.chain(), vec!["seeker"]);
        assert_eq!(r.deferred.len(), 2);
        assert!(r.deferred.iter().all(|d| d.why == DEFERRED_READ_ONLY));
        assert!(
            r.deferred[0]
                .command
                .starts_with("crew ask --agent connector "),
            "{}",
            r.deferred[0].command
        );
    }

    #[test]
    fn a_writer_that_changed_nothing_does_not_start_another_writer() {
        let crew = Crew::builtin();
        let out = suggest("architect", "no home for Taxes");
        let mut exec = Writers {
            inner: Scripted::new(&[("sorter", &out)]),
            writers: vec!["sorter", "architect", "seeker"],
            changing: vec![],
        };
        let r = run(&crew, (Kind::Agent, "sorter".into()), "sort", 3, &mut exec);
        assert_eq!(r.chain(), vec!["sorter"]);
        assert_eq!(r.deferred[0].why, DEFERRED_READ_ONLY);
        // the same request that filed notes goes on to the architect
        exec.changing = vec!["sorter"];
        let r = run(&crew, (Kind::Agent, "sorter".into()), "sort", 3, &mut exec);
        assert_eq!(r.chain(), vec!["sorter", "architect"]);
    }

    #[test]
    fn a_read_only_request_still_chains_readers() {
        let crew = Crew::builtin();
        let out = format!(
            "{}{}",
            suggest("connector", "links"),
            suggest("seeker", "look further")
        );
        let mut exec = Writers {
            inner: Scripted::new(&[("librarian", &out)]),
            writers: vec!["connector", "librarian"],
            changing: vec![],
        };
        let r = run(
            &crew,
            (Kind::Agent, "librarian".into()),
            "check",
            3,
            &mut exec,
        );
        assert_eq!(r.chain(), vec!["librarian", "seeker"]);
        assert_eq!(r.deferred.len(), 1);
        assert_eq!(r.deferred[0].agent, "connector");
    }

    fn suggest(agent: &str, reason: &str) -> String {
        format!(
            "### Suggested next agent\n- **Agent**: {agent}\n- **Reason**: {reason}\n- **Context**: ctx-{agent}\n"
        )
    }

    fn run_with(
        first: (Kind, &str),
        pairs: &[(&str, &str)],
        depth: usize,
    ) -> (ChainReport, Scripted) {
        let crew = Crew::builtin();
        let mut ex = Scripted::new(pairs);
        let r = run(&crew, (first.0, first.1.to_string()), "msg", depth, &mut ex);
        (r, ex)
    }

    #[test]
    fn chains_with_the_handoff_line_and_task() {
        let a = suggest("architect", "no area");
        let (r, ex) = run_with((Kind::Agent, "scribe"), &[("scribe", &a)], 3);
        assert_eq!(r.chain(), vec!["scribe", "architect"]);
        assert_eq!(
            ex.seen[1].chain_line,
            "Call chain so far: [scribe]. You are step 2 of max 3."
        );
        assert_eq!(ex.seen[1].task, "no area\nContext: ctx-architect");
        assert_eq!(ex.seen[1].earlier, vec![("scribe".to_string(), a.clone())]);
    }

    #[test]
    fn overflow_is_deferred_with_a_phrase() {
        let s1 = format!(
            "{}{}",
            suggest("architect", "r1"),
            suggest("connector", "5 orphans")
        );
        let s2 = suggest("librarian", "check");
        let (r, _) = run_with(
            (Kind::Agent, "scribe"),
            &[("scribe", &s1), ("architect", &s2)],
            3,
        );
        assert_eq!(r.chain(), vec!["scribe", "architect", "connector"]);
        assert_eq!(r.deferred.len(), 1);
        assert_eq!(r.deferred[0].agent, "librarian");
        assert_eq!(
            r.deferred[0].phrase, "check the vault",
            "the trigger closest to the reason"
        );
    }

    #[test]
    fn a_question_stops_the_chain_and_its_suggestions_wait() {
        let asks = format!(
            "{}### Question for the user\n- **Ask**: Which project?\n",
            suggest("architect", "no area")
        );
        let (r, _) = run_with((Kind::Agent, "scribe"), &[("scribe", &asks)], 3);
        assert_eq!(r.chain(), vec!["scribe"]);
        assert_eq!(r.deferred.len(), 1);
        assert_eq!(r.deferred[0].agent, "architect");
    }

    #[test]
    fn depth_can_be_lowered_never_raised() {
        let s = suggest("architect", "x");
        let (r, _) = run_with((Kind::Agent, "scribe"), &[("scribe", &s)], 1);
        assert_eq!(r.chain(), vec!["scribe"]);
        assert_eq!(r.deferred[0].agent, "architect");
        let chain_all = format!(
            "{}{}{}{}",
            suggest("architect", ""),
            suggest("sorter", ""),
            suggest("connector", ""),
            suggest("librarian", "")
        );
        let (r, ex) = run_with((Kind::Agent, "scribe"), &[("scribe", &chain_all)], 10);
        assert_eq!(r.steps.len(), 3);
        assert_eq!(
            ex.seen[2].chain_line,
            "Call chain so far: [scribe, architect]. You are step 3 of max 3."
        );
    }

    #[test]
    fn no_repeats_no_cycles() {
        let back = suggest("scribe", "again");
        let (r, _) = run_with(
            (Kind::Agent, "scribe"),
            &[("scribe", &suggest("architect", "x")), ("architect", &back)],
            3,
        );
        assert_eq!(r.chain(), vec!["scribe", "architect"]);
        assert!(
            r.skipped
                .iter()
                .any(|s| s.agent == "scribe" && s.why.contains("already ran"))
        );
        assert!(r.deferred.is_empty());
    }

    #[test]
    fn unknown_and_disabled_are_skipped() {
        let out = format!(
            "{}{}",
            suggest("ghost", "x"),
            suggest("../../etc/passwd", "y")
        );
        let (r, _) = run_with((Kind::Agent, "scribe"), &[("scribe", &out)], 3);
        assert_eq!(r.steps.len(), 1);
        assert_eq!(r.skipped.len(), 2);
        let mut crew = Crew::builtin();
        for row in &mut crew.registry.agents {
            if row.name == "architect" {
                row.status = crate::crew::Status::Disabled;
            }
        }
        let mut ex = Scripted::new(&[("scribe", &suggest("architect", "x"))]);
        let r = run(&crew, (Kind::Agent, "scribe".into()), "m", 3, &mut ex);
        assert_eq!(r.steps.len(), 1);
        assert_eq!(r.skipped[0].why, "disabled in the registry");
    }

    #[test]
    fn a_skill_is_step_one_and_blocks_its_source_agent() {
        let out = format!(
            "{}{}",
            suggest("sorter", "more"),
            suggest("connector", "links")
        );
        let (r, ex) = run_with((Kind::Skill, "inbox-triage"), &[("inbox-triage", &out)], 3);
        assert_eq!(r.chain(), vec!["inbox-triage", "connector"]);
        assert!(r.skipped.iter().any(|s| s.agent == "sorter"));
        assert_eq!(ex.seen[1].step, 2);
    }

    #[test]
    fn new_agent_suggestions_are_reported_not_run() {
        let out = "### Suggested new agent\n- **Need**: taxes\n- **Reason**: none\n- **Suggested role**: tax helper\n";
        let (r, _) = run_with((Kind::Agent, "seeker"), &[("seeker", out)], 3);
        assert_eq!(r.steps.len(), 1);
        assert_eq!(r.new_agents[0].need, "taxes");
    }

    #[test]
    fn context_is_bounded() {
        let steps: Vec<StepRecord> = (0..20)
            .map(|i| StepRecord {
                agent: format!("a{i}"),
                kind: Kind::Agent,
                executor: RanOn::Native,
                model: None,
                output: "x".repeat(5_000),
                suggestions: vec![],
                new_agents: vec![],
                operations: vec![],
                suggested_by: None,
                error: None,
                tokens_in: 0,
                tokens_out: 0,
                latency_ms: 0,
                changed_notes: false,
                data: None,
            })
            .collect();
        let ctx = bounded_context(&steps);
        assert_eq!(ctx.len(), 10);
        assert!(ctx.iter().all(|(_, t)| t.len() == 4_000));
        assert_eq!(ctx.last().map(|c| c.0.as_str()), Some("a19"));
    }
}
