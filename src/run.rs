//! One request, end to end: route, lock, run the chain through the gate, keep post-its and the
//! run log. The CLI is a thin shell over [`ask`].

use std::path::Path;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::json;

use crate::agents::{self, Ctx};
use crate::crew::root::Access;
use crate::crew::{Crew, Executor as DeclaredExecutor, Kind, ModelSpec};
use crate::dispatch::chain::{self, ChainReport, Executor, RanOn, Step, StepOutput};
use crate::dispatch::{Decider, Route, Router};
use crate::gate::{Gate, Policy};
use crate::state::journal::Journal;
use crate::state::{self, lock::VaultLock, postit, runlog::RunLog};
use crate::vault::VaultError;

/// How a request runs.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub dry_run: bool,
    /// Apply what a guessed route plans (`--yes`); without it a guess only shows its plan.
    pub yes: bool,
    /// Skip routing: run this agent or skill.
    pub agent: Option<String>,
    /// Run the routed agent on this model.
    pub model: Option<String>,
    pub max_depth: Option<usize>,
    /// Allow safe fixes (`--fix`, `maintain --fix`).
    pub apply: bool,
    /// Only these kinds of safe fixes, without their size cap (`maintain --fix --only`).
    pub fix_only: Vec<crate::agents::fixes::FixKind>,
    /// Earlier lines of the conversation, for the classifier.
    pub history: Vec<String>,
    /// How long to wait for another writer.
    pub lock_wait: Option<Duration>,
    /// What the lock file says is running.
    pub command: String,
    /// Vault paths the agents must not touch in this run (notes still being written).
    pub hold: Vec<String>,
    /// `crew triage --into FOLDER NOTE…`: the user files these inbox notes into that folder.
    pub file_into: Option<crate::agents::sorter::into::FileInto>,
    /// The `crew chat` session this request is a turn of (kept in the run log).
    pub session: Option<String>,
    /// What a chat turn adds: the conversation, a result set to refine, interview answers.
    pub chat: crate::agents::ChatInput,
    /// Raised by Ctrl-C in a chat: the steps not yet started do not start.
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Answer in this language whatever the request is written in (`--lang`).
    pub lang: Option<crate::lang::Lang>,
    /// Keep the crew definition closed even to the create-agent and manage-agent skills: the
    /// request comes from an assistant (`crew mcp`), not from the user at a terminal.
    pub definition_closed: bool,
}

/// Errors that stop a request before any agent runs.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Vault(#[from] VaultError),
    #[error(transparent)]
    Lock(#[from] state::lock::LockError),
    #[error(transparent)]
    Root(#[from] crate::crew::root::RootError),
    #[error(transparent)]
    Request(#[from] crate::dispatch::request::RequestError),
    #[error("`{0}` is no active agent or skill of this crew; `crew agents list` shows them")]
    UnknownAgent(String),
    #[error("no route: the crew declares no usable default_route")]
    NoRoute,
    #[error("CREW_TODAY=`{0}` is not a day: use YYYY-MM-DD (or YYYY-MM-DDTHH:MM:SS), or unset it")]
    Clock(String),
}

/// The run's clock: the machine's, or `CREW_TODAY` when set, so that "tomorrow" or "by Friday"
/// resolve to the same day in tests and demos whatever day they run. The only place it is read.
pub fn run_clock() -> Result<chrono::NaiveDateTime, RunError> {
    let Ok(raw) = std::env::var("CREW_TODAY") else {
        return Ok(chrono::Local::now().naive_local());
    };
    let raw = raw.trim();
    chrono::NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S")
        .or_else(|_| {
            chrono::NaiveDate::parse_from_str(raw, "%Y-%m-%d")
                .map(|d| d.and_hms_opt(9, 0, 0).unwrap_or_default())
        })
        .map_err(|_| RunError::Clock(raw.to_string()))
}

/// The result of a request.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub route: Route,
    pub chain: ChainReport,
    pub run_id: String,
    pub dry_run: bool,
    /// The route was guessed and its agent changes notes: it ran as a dry run.
    pub preview: Option<Preview>,
    /// Some agent reported something that needs the user (exit code 1).
    pub attention: bool,
    /// Notes skipped because they could not be read (exit code 1).
    pub unreadable: usize,
    /// The language the reply is written in.
    #[serde(skip)]
    pub lang: crate::lang::Lang,
}

/// A guessed route that would have changed notes, and how to apply or redirect it.
#[derive(Debug, Clone, Serialize)]
pub struct Preview {
    pub why: String,
    /// Applies exactly this plan.
    pub apply: String,
    /// Runs the same agent by name.
    pub agent: String,
}

impl Preview {
    fn of(route: &Route, message: &str, lang: crate::lang::Lang) -> Preview {
        Preview {
            why: crate::tr!(
                lang,
                "run.preview.why",
                agent = route.name,
                reason = route.reason
            ),
            apply: crate::shell::crew(&["ask", "--yes", message]),
            agent: crate::shell::crew(&["ask", "--agent", &route.name, message]),
        }
    }
}

struct CrewExecutor<'a> {
    gate: Gate,
    crew: &'a Crew,
    opts: &'a Options,
    now: chrono::NaiveDateTime,
    attention: bool,
    progress: &'a mut dyn FnMut(&str),
    log: &'a mut RunLog,
    lang: crate::lang::Lang,
}

impl CrewExecutor<'_> {
    fn model_for(&self, step: &Step) -> Option<String> {
        // an interview's answers are for the native skill that writes them, whatever its tier
        if self.opts.chat.answers.is_some() {
            return None;
        }
        if step.step == 1
            && let Some(m) = &self.opts.model
        {
            return Some(m.clone());
        }
        // a tier's model does only model and hybrid work: mechanical work stays native
        if !self.crew.executor(step.kind, &step.name).uses_models() {
            return None;
        }
        let def = self.crew.definition(step.kind, &step.name)?;
        match &def.model {
            ModelSpec::Native => None,
            ModelSpec::Tier(t) => self.crew.config.models.get(t).cloned(),
            ModelSpec::Id(id) => Some(id.clone()),
        }
    }
}

/// Why a step did not run to its end; its text is what the user reads.
#[derive(Debug, thiserror::Error)]
enum StepError {
    #[error("{0} has no definition")]
    NoDefinition(String),
    /// The step's model cannot be reached from here (no key, unknown prefix).
    #[error("{agent} cannot run on `{model}`: {source}")]
    Unavailable {
        agent: String,
        model: String,
        #[source]
        source: crate::model::ModelError,
    },
    /// The model's run failed; the runtime's words, naming the agent and the provider.
    #[error("{0}")]
    Model(String),
    #[error(transparent)]
    Gate(#[from] crate::gate::GateError),
    /// No native code and no model: the message, in the reply's language.
    #[error("{0}")]
    NoExecutor(String),
}

impl CrewExecutor<'_> {
    /// Runs a step on a model; fills tokens and returns the answer and post-it, or the error.
    fn run_model(
        &mut self,
        step: &Step,
        model_id: &str,
        postit: Option<String>,
        out: &mut StepOutput,
    ) -> Result<agents::NativeOutput, StepError> {
        let def = self
            .crew
            .definition(step.kind, &step.name)
            .ok_or_else(|| StepError::NoDefinition(step.name.clone()))?;
        let (backend, model) = crate::model::HttpBackend::for_model(model_id, &self.crew.config)
            .map_err(|source| StepError::Unavailable {
                agent: step.name.clone(),
                model: model_id.to_string(),
                source,
            })?;
        let folders = &self.crew.config.folders;
        let profile = self
            .gate
            .read_text(&format!("{}/user-profile.md", folders.meta))
            .map(|t| t.chars().take(4_000).collect())
            .unwrap_or_default();
        let run = crate::model::runner::AgentRun {
            def,
            step,
            postit,
            vault_name: self.gate.vault().name(),
            user_profile: profile,
            today: self.now.date(),
            max_tool_calls: self.crew.config.max_tool_calls,
            conversation: &self.opts.chat.conversation,
            interactive: self.opts.session.is_some(),
            scope: write_scope(def, step, out.data.as_ref()),
        };
        let result =
            crate::model::runner::run_agent(&backend, &model, &run, &mut self.gate, folders);
        out.tokens_in = result.tokens_in;
        out.tokens_out = result.tokens_out;
        match result.error {
            None => Ok(agents::NativeOutput {
                text: result.text,
                postit: result.postit,
                attention: false,
            }),
            Some(e) if !result.text.trim().is_empty() => {
                // partial results are still the user's: show them with the reason
                out.output = result.text;
                Err(StepError::Model(e))
            }
            Some(e) => Err(StepError::Model(e)),
        }
    }
}

impl CrewExecutor<'_> {
    /// Runs a step on crew's own implementation, and writes its agent-log lines.
    fn run_native(
        &mut self,
        native: agents::NativeFn,
        step: &Step,
        postit: Option<String>,
        out: &mut StepOutput,
    ) -> Result<agents::NativeOutput, StepError> {
        let model = self.model_for(step);
        let mut ctx = Ctx {
            model,
            gate: &mut self.gate,
            crew: self.crew,
            config: &self.crew.config,
            step,
            postit,
            now: self.now,
            apply: self.opts.apply,
            confirmed: self.opts.yes,
            hold: &self.opts.hold,
            file_into: self.opts.file_into.as_ref(),
            log: Vec::new(),
            fix_only: self.opts.fix_only.clone(),
            data: None,
            chat: &self.opts.chat,
            lang: self.lang,
            handoffs: Vec::new(),
            question: None,
        };
        let result = native(&mut ctx)
            .map_err(StepError::Gate)
            .map(|r| agents::NativeOutput {
                // the text may quote outside text; the hand-offs are the ones crew decided on
                text: crate::dispatch::suggest::seal(&r.text, &ctx.handoffs, ctx.question.as_ref()),
                ..r
            });
        out.data = ctx.data.take();
        let lines = std::mem::take(&mut ctx.log);
        if let Err(e) =
            agents::common::flush_log(&mut self.gate, &self.crew.config.folders.meta, &lines)
        {
            tracing::warn!("could not write the agent log: {e}");
        }
        result
    }
}

impl Executor for CrewExecutor<'_> {
    fn writes(&self, kind: Kind, name: &str) -> bool {
        self.crew.writes(kind, name)
    }

    fn run(&mut self, step: &Step) -> StepOutput {
        if let Some(by) = &step.suggested_by {
            (self.progress)(&crate::tr!(
                self.lang,
                "run.chained",
                agent = step.name,
                by = by
            ));
        }
        if self
            .opts
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(std::sync::atomic::Ordering::SeqCst))
        {
            return StepOutput {
                executor: RanOn::Native,
                output: crate::tr!(self.lang, "run.cancelled", agent = step.name),
                error: Some("cancelled".into()),
                ..StepOutput::default()
            };
        }
        let started = Instant::now();
        // only the skills whose job it is may touch the crew definition, and only for the user
        self.gate.policy.changes_definition = !self.opts.definition_closed
            && step.kind == Kind::Skill
            && matches!(step.name.as_str(), "create-agent" | "manage-agent");
        let ops_before = self.gate.operations().len();
        let owner = self.crew.postit_owner(step.kind, &step.name);
        let previous = postit::read(&self.gate, &self.crew.config.folders.states(), &owner);
        let mut out = StepOutput {
            executor: RanOn::Native,
            ..StepOutput::default()
        };
        let result = self.execute(step, previous.as_ref(), &mut out);
        self.settle(step, result, previous.as_deref(), &owner, &mut out);
        self.finish(step, &mut out, ops_before, started);
        out
    }
}

impl CrewExecutor<'_> {
    /// Runs the step on what its definition and the run choose: crew's own code, a model, or
    /// both (hybrid: crew's pass first, the model for what it left).
    fn execute(
        &mut self,
        step: &Step,
        previous: Option<&String>,
        out: &mut StepOutput,
    ) -> Result<agents::NativeOutput, StepError> {
        let model = self.model_for(step);
        // `--model` is the user's explicit choice for this request: it runs as asked, and its
        // failure is the answer; a tier's model is the crew's choice and never stops the work
        let explicit = step.step == 1 && self.opts.model.is_some();
        let native = agents::native(step.kind, &step.name).filter(|_| !explicit);
        let hybrid = self.crew.executor(step.kind, &step.name) == DeclaredExecutor::Hybrid;
        match (&model, native) {
            (Some(m), Some(native)) if hybrid => self.run_hybrid(step, m, native, previous, out),
            (Some(m), native) => self.run_model_first(step, m, native, previous, out),
            (None, Some(native)) => self.run_native(native, step, previous.cloned(), out),
            (None, None) => Err(StepError::NoExecutor(crate::tr!(
                self.lang,
                "run.no_executor",
                agent = step.name
            ))),
        }
    }

    /// Crew's own pass first; the model only for what it left to the user.
    fn run_hybrid(
        &mut self,
        step: &Step,
        m: &str,
        native: agents::NativeFn,
        previous: Option<&String>,
        out: &mut StepOutput,
    ) -> Result<agents::NativeOutput, StepError> {
        let first = match self.run_native(native, step, previous.cloned(), out) {
            Ok(first) if first.attention => first,
            other => return other,
        };
        let rest = Step {
            task: format!(
                "{}\n\nThe native pass already did this; handle only what it left:\n\n{}",
                step.task, first.text
            ),
            ..step.clone()
        };
        match self.run_model(&rest, m, Some(first.postit.clone()), out) {
            Ok(second) => {
                out.executor = RanOn::Model;
                out.model = Some(m.to_string());
                Ok(agents::NativeOutput {
                    text: format!("{}\n\n{}", first.text, second.text),
                    ..second
                })
            }
            Err(e) => {
                let partial = std::mem::take(&mut out.output);
                Ok(agents::NativeOutput {
                    text: format!(
                        "{}\n\n{}\n{partial}",
                        first.text,
                        crate::tr!(self.lang, "run.model_rest_failed", model = m, error = e)
                    ),
                    ..first
                })
            }
        }
    }

    /// The model does the work; when it fails and crew has its own implementation, that runs
    /// instead and the answer says so.
    fn run_model_first(
        &mut self,
        step: &Step,
        m: &str,
        native: Option<agents::NativeFn>,
        previous: Option<&String>,
        out: &mut StepOutput,
    ) -> Result<agents::NativeOutput, StepError> {
        out.executor = RanOn::Model;
        out.model = Some(m.to_string());
        let e = match self.run_model(step, m, previous.cloned(), out) {
            Ok(done) => return Ok(done),
            Err(e) => e,
        };
        let Some(native) = native else {
            return Err(e);
        };
        // a model that fails never stops the work: the native path runs, and the answer says so
        tracing::warn!("{}: model {m} failed ({e}); running natively", step.name);
        // a failed model's words are shown, never followed
        let partial = crate::dispatch::suggest::escape_blocks(&std::mem::take(&mut out.output));
        out.executor = RanOn::Native;
        out.model = None;
        let note = crate::tr!(
            self.lang,
            "run.model_failed",
            model = m,
            error = e,
            agent = step.name
        );
        self.run_native(native, step, previous.cloned(), out)
            .map(|r| agents::NativeOutput {
                text: format!("{note}{partial}{}", r.text),
                attention: true,
                ..r
            })
    }

    /// Keeps the step's answer and post-it, or says why it failed.
    fn settle(
        &mut self,
        step: &Step,
        result: Result<agents::NativeOutput, StepError>,
        previous: Option<&str>,
        owner: &str,
        out: &mut StepOutput,
    ) {
        match result {
            Ok(native_out) => {
                self.attention |= native_out.attention;
                out.output = native_out.text;
                let body = postit::merge(previous, &native_out.postit);
                let unchanged = previous.map(str::trim) == Some(body.trim());
                if !unchanged {
                    let stamp = crate::agents::common::now_stamp(&self.now);
                    let states = self.crew.config.folders.states();
                    if let Err(e) = postit::write(&mut self.gate, &states, owner, &stamp, &body) {
                        tracing::warn!("could not write the post-it of {owner}: {e}");
                    }
                }
            }
            Err(e) => {
                self.attention = true;
                let partial = std::mem::take(&mut out.output);
                out.output = format!(
                    "{partial}{}",
                    crate::tr!(self.lang, "run.step_failed", agent = step.name, error = e)
                );
                // the report keeps the words the user read (`--json`, the run log)
                out.error = Some(e.to_string());
            }
        }
    }

    /// What the step changed, whether any of it is the user's, and the run log's lines.
    fn finish(&mut self, step: &Step, out: &mut StepOutput, ops_before: usize, started: Instant) {
        out.operations = self.gate.operations()[ops_before..].to_vec();
        // crew's own notes (reports, post-its, the agent log) and the folders that hold them
        // are not the user's notes
        let folders = &self.crew.config.folders;
        let crew_state = |path: &str| {
            folders.crew_owned(path)
                || path == folders.meta
                || folders.crew_owned(&format!("{path}/-"))
        };
        out.changed_notes = out.operations.iter().any(|op| !crew_state(&op.path));
        out.latency_ms = started.elapsed().as_millis() as u64;
        self.log.record(
            "step",
            json!({
                "agent": step.name, "kind": step.kind.as_str(), "step": step.step,
                "executor": out.executor, "model": out.model, "tokens_in": out.tokens_in,
                "tokens_out": out.tokens_out, "latency_ms": out.latency_ms,
                "suggested_by": step.suggested_by, "error": out.error,
            }),
        );
        for op in &out.operations {
            self.log
                .record("operation", serde_json::to_value(op).unwrap_or_default());
        }
    }
}

/// What a model may write when the step's mode granted the writing (a mode's own
/// capabilities): only the notes crew's own pass found for the request (its `hits`), none when
/// it found none. `None` — the gate's rules alone — for writing the definition grants anyway.
fn write_scope(
    def: &crate::crew::Definition,
    step: &Step,
    native: Option<&serde_json::Value>,
) -> Option<Vec<String>> {
    if def.may_write(None) || !def.may_write(step.mode.as_deref()) {
        return None;
    }
    Some(
        native
            .and_then(|d| d["hits"].as_array())
            .map(|h| {
                h.iter()
                    .filter_map(|p| p.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default(),
    )
}

/// Says where the request goes; a guessed route to a writer becomes a preview (a guess never
/// writes: the agent shows its plan and the command that applies it).
fn announce_route(
    crew: &Crew,
    route: &Route,
    message: &str,
    opts: &Options,
    lang: crate::lang::Lang,
    progress: &mut dyn FnMut(&str),
) -> Option<Preview> {
    let reason = if route.by == Decider::Default
        && route.reason.ends_with(crate::dispatch::route::NO_MATCH)
    {
        crate::tr!(lang, "run.reason.no_match")
    } else {
        route.reason.clone()
    };
    progress(&crate::tr!(
        lang,
        "run.route",
        kind = route.kind,
        agent = route.name,
        reason = reason
    ));
    let preview = (!opts.dry_run
        && !opts.yes
        && route.guessed()
        && crew.writes_in(route.kind, &route.name, route.mode.as_deref()))
    .then(|| Preview::of(route, message, lang));
    if let Some(p) = &preview {
        progress(&format!("⇢ {}", p.why));
    }
    preview
}

/// The route of a request: the one `--agent` (or the chat) names, else the router's.
fn choose_route(crew: &Crew, message: &str, opts: &Options) -> Result<Route, RunError> {
    let route = match &opts.agent {
        Some(name) => {
            let (kind, n) = crew
                .lookup(name)
                .ok_or_else(|| RunError::UnknownAgent(name.clone()))?;
            Route::new(
                kind,
                &n,
                Decider::Flag,
                if opts.chat.within.is_some() {
                    "refines the last results"
                } else if opts.chat.answers.is_some() {
                    "the chat interview is complete"
                } else if opts.session.is_some() {
                    "gets the answer to its question"
                } else {
                    "chosen with --agent"
                },
                format!("--agent {name}"),
            )
        }
        None => route(crew, message, &opts.history),
    };
    if route.name.is_empty() {
        return Err(RunError::NoRoute);
    }
    Ok(route)
}

/// Takes the vault's writer lock, waiting as long as the command allows.
fn lock_vault(state_dir: &Path, opts: &Options) -> Result<VaultLock, RunError> {
    let what = if opts.command.is_empty() {
        "ask"
    } else {
        &opts.command
    };
    Ok(VaultLock::acquire(
        state_dir,
        what,
        opts.lock_wait.unwrap_or_else(default_lock_wait),
    )?)
}

/// Unreadable notes were skipped, not fatal: the line that tells the user which.
fn unreadable_line(vault: &crate::vault::Vault, lang: crate::lang::Lang) -> String {
    let unreadable = vault.unreadable.len();
    let shown: Vec<&str> = vault
        .unreadable
        .iter()
        .take(5)
        .map(|(p, _)| p.as_str())
        .collect();
    let more = if unreadable > shown.len() {
        ", …"
    } else {
        ""
    };
    crate::tr!(
        lang,
        "run.unreadable",
        count = unreadable,
        notes = format!("{}{more}", shown.join(", "))
    )
}

/// Removes temporary files a killed run left (call it holding the lock).
fn remove_stale_temps(temps: &[std::path::PathBuf]) {
    for t in temps {
        match std::fs::remove_file(t) {
            Ok(()) => tracing::info!(
                "removed a temporary file left by an interrupted run: {}",
                t.display()
            ),
            // gone already: another writer finished it while we waited for the lock
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!("could not remove {}: {e}", t.display()),
        }
    }
}

/// How long a writing command waits for another writer: `$CREW_LOCK_WAIT_SECS`, else 10 s.
pub fn default_lock_wait() -> Duration {
    std::env::var("CREW_LOCK_WAIT_SECS")
        .ok()
        .and_then(|v| v.parse::<f64>().ok())
        .filter(|s| (0.0..=86_400.0).contains(s))
        .map_or(Duration::from_secs(10), Duration::from_secs_f64)
}

/// A classifier that could not be set up: every question to it fails, so routing falls back.
struct Unavailable(String);

impl crate::dispatch::Classifier for Unavailable {
    fn classify(&self, _: &str) -> Result<String, crate::dispatch::route::ClassifierError> {
        Err(self.0.clone().into())
    }
}

/// Routes `message` without touching the vault. A configured classifier model is asked only
/// when no rule or trigger decides.
pub fn route(crew: &Crew, message: &str, history: &[String]) -> Route {
    let router = Router::new(crew);
    match &crew.config.classifier {
        None => router.route(crew, message, history, None),
        Some(id) => match crate::model::HttpBackend::for_model(id, &crew.config) {
            Ok((backend, model)) => {
                let c = crate::model::runner::ModelClassifier {
                    backend: Box::new(backend),
                    model,
                    crew,
                };
                router.route(crew, message, history, Some(&c))
            }
            Err(e) => router.route(crew, message, history, Some(&Unavailable(e.to_string()))),
        },
    }
}

/// Runs one request against the vault at `vault_path`.
pub fn ask(
    vault_path: &Path,
    crew: &Crew,
    message: &str,
    opts: &Options,
    progress: &mut dyn FnMut(&str),
) -> Result<Report, RunError> {
    let access = if opts.dry_run {
        Access::Read
    } else {
        Access::Write
    };
    crate::crew::root::check(vault_path, access)?;
    crate::dispatch::request::check(crew, message)?;
    let now = run_clock()?;
    let lang = crate::lang::choose(
        opts.lang,
        message,
        &[
            opts.chat.lang,
            crate::lang::profile_language(vault_path, &crew.config.folders.meta),
        ],
    );
    let route = choose_route(crew, message, opts)?;
    let preview = announce_route(crew, &route, message, opts, lang, progress);
    let dry_run = opts.dry_run || preview.is_some();
    let run_id = state::new_run_id();
    let state_dir = state::state_dir(vault_path);
    let _lock = if dry_run {
        None
    } else {
        Some(lock_vault(&state_dir, opts)?)
    };
    // Read only now that the lock is ours: a command that waited for another writer must plan
    // from the vault that writer left, not from a picture taken before it finished.
    let vault = crate::state::open_vault(vault_path)?;
    // unreadable notes were skipped, not fatal; the user hears of them and the exit code is 1
    let unreadable = vault.unreadable.len();
    if unreadable > 0 {
        progress(&unreadable_line(&vault, lang));
    }
    if !dry_run {
        // the lock is ours: no crew writer is mid-write, so these were left by a killed run
        remove_stale_temps(&vault.stale_temps);
    }
    let journal = if dry_run {
        Journal::in_memory()
    } else {
        Journal::at(state_dir.join("journal").join(&run_id))
    };
    let policy = Policy {
        states_dir: crew.config.folders.states(),
        ..Policy::default()
    };
    let gate = Gate::new(vault, policy, journal, dry_run);
    let mut log = if dry_run {
        RunLog::disabled()
    } else {
        RunLog::create(&state_dir, &run_id)
    };
    log.record(
        "request",
        json!({"message": message, "dry_run": dry_run, "run_id": run_id, "session": opts.session}),
    );
    log.record("route", serde_json::to_value(&route).unwrap_or_default());
    let depth = opts.max_depth.unwrap_or(crew.config.max_depth);
    let mut exec = CrewExecutor {
        gate,
        crew,
        opts,
        now,
        attention: false,
        progress,
        log: &mut log,
        lang,
    };
    let report = chain::run(
        crew,
        (route.kind, route.name.clone()),
        message,
        depth,
        &mut exec,
    );
    let attention = exec.attention || report.failed() || unreadable > 0;
    for d in &report.deferred {
        log.record("deferred", serde_json::to_value(d).unwrap_or_default());
    }
    Ok(Report {
        route,
        chain: report,
        run_id,
        dry_run,
        preview,
        attention,
        unreadable,
        lang,
    })
}

impl crate::fault::HasFault for RunError {
    fn fault(&self) -> crate::fault::Fault {
        match self {
            RunError::Vault(e) => e.fault(),
            RunError::Lock(e) => e.fault(),
            _ => crate::fault::Fault::Input,
        }
    }
}
