//! `crew chat`: a conversation with the crew. Each line is a turn that routes like `crew ask`,
//! but with the session's memory: the classifier sees a digest of recent turns, model agents
//! see the conversation, the seeker's last result set can be narrowed ("only the ones from
//! this year"), an agent's question (a `### Question for the user` block, see
//! [`crate::dispatch::question`]) receives the next line as its answer, and onboarding and
//! create-agent run as native interviews ([`interview`]).
//!
//! Every session is kept in `.crew/sessions/<id>.jsonl`: one record per step, and after each
//! turn a `state` record from which `crew chat --resume` goes on.

pub mod interview;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use crate::agents::ChatInput;
use crate::crew::{Crew, Kind};
use crate::dispatch::question::Question;
use crate::run::{self, Options, Report, RunError};
use interview::{Interview, Step as InterviewStep};

/// Turns of the conversation handed to model agents, and characters kept of each side.
pub(crate) const CONVERSATION_TURNS: usize = 8;
pub(crate) const CONVERSATION_CHARS: usize = 2_000;
/// Turns a session's state keeps (more than the conversation and the digest read).
pub(crate) const KEPT_TURNS: usize = 32;

/// An agent's question that waits for the user's next line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub kind: Kind,
    pub agent: String,
    pub question: Question,
}

/// Everything a session remembers between turns.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// (the user's line, what the crew answered), oldest first.
    #[serde(default)]
    pub turns: Vec<(String, String)>,
    /// The seeker's last result set (vault paths, in the order shown).
    #[serde(default)]
    pub results: Vec<String>,
    #[serde(default)]
    pub pending: Option<Pending>,
    #[serde(default)]
    pub interview: Option<Interview>,
    /// The language chosen in onboarding: the session's replies use it.
    #[serde(default)]
    pub language: Option<String>,
}

impl SessionState {
    /// The lines the classifier's digest is built from.
    pub fn history(&self) -> Vec<String> {
        let mut h = Vec::new();
        for (user, crew) in &self.turns {
            h.push(format!("user: {user}"));
            let first = crew.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            h.push(format!("crew: {first}"));
        }
        h
    }

    /// The recent conversation for model agents, bounded.
    pub fn conversation(&self) -> Vec<(String, String)> {
        let start = self.turns.len().saturating_sub(CONVERSATION_TURNS);
        let cut = |t: &str| t.chars().take(CONVERSATION_CHARS).collect::<String>();
        let mut c = Vec::new();
        for (user, crew) in &self.turns[start..] {
            c.push(("user".to_string(), cut(user)));
            // every user turn is answered, so providers that insist on alternating roles accept it
            let answer = if crew.trim().is_empty() {
                "(no answer)".to_string()
            } else {
                cut(crew)
            };
            c.push(("crew".to_string(), answer));
        }
        c
    }
}

/// Problems with sessions themselves.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("no chat session to resume in {0}; start one with `crew chat`")]
    NoneYet(String),
    #[error(
        "no chat session `{id}` in {dir}; `crew log` shows the session of each run, or resume the latest with `crew chat --resume`"
    )]
    Unknown { id: String, dir: String },
    #[error("cannot write the session file {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// The file of one session, appended to record by record.
pub struct Store {
    pub id: String,
    path: PathBuf,
}

/// Where sessions live.
pub(crate) fn sessions_dir(vault: &Path) -> PathBuf {
    crate::state::state_dir(vault).join("sessions")
}

fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

impl Store {
    /// A new session.
    pub fn create(vault: &Path) -> Result<Store, SessionError> {
        let dir = sessions_dir(vault);
        std::fs::create_dir_all(&dir).map_err(|source| SessionError::Io {
            path: dir.display().to_string(),
            source,
        })?;
        let id = crate::state::new_run_id();
        let store = Store {
            path: dir.join(format!("{id}.jsonl")),
            id,
        };
        store.record("start", json!({"session": store.id}))?;
        Ok(store)
    }

    /// An earlier session (`None`: the latest) and the state it ended in.
    pub fn resume(vault: &Path, id: Option<&str>) -> Result<(Store, SessionState), SessionError> {
        let dir = sessions_dir(vault);
        let shown = dir.display().to_string();
        let id = match id {
            Some(i) if valid_id(i) && dir.join(format!("{i}.jsonl")).is_file() => i.to_string(),
            Some(i) => {
                return Err(SessionError::Unknown {
                    id: i.to_string(),
                    dir: shown,
                });
            }
            None => {
                let mut ids: Vec<String> = std::fs::read_dir(&dir)
                    .map_err(|_| SessionError::NoneYet(shown.clone()))?
                    .flatten()
                    .filter_map(|e| {
                        let name = e.file_name().to_string_lossy().into_owned();
                        name.strip_suffix(".jsonl").map(str::to_string)
                    })
                    .filter(|i| valid_id(i))
                    .collect();
                ids.sort();
                ids.pop().ok_or(SessionError::NoneYet(shown))?
            }
        };
        let path = dir.join(format!("{id}.jsonl"));
        let text = std::fs::read_to_string(&path).map_err(|source| SessionError::Io {
            path: path.display().to_string(),
            source,
        })?;
        // the last whole state record wins; a line cut short by a crash is passed over
        let state = text
            .lines()
            .rev()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v.get("type").and_then(Value::as_str) == Some("state"))
            .and_then(|v| v.get("state").cloned())
            .and_then(|s| serde_json::from_value(s).ok())
            .unwrap_or_default();
        let store = Store { id, path };
        store.record("resume", json!({"session": store.id}))?;
        Ok((store, state))
    }

    /// Appends one record.
    pub(crate) fn record(&self, kind: &str, mut fields: Value) -> Result<(), SessionError> {
        if let Value::Object(map) = &mut fields {
            map.insert("type".into(), Value::String(kind.to_string()));
            map.insert("at".into(), Value::String(chrono::Utc::now().to_rfc3339()));
        }
        let line = serde_json::to_string(&fields).unwrap_or_default();
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)
            .and_then(|mut f| writeln!(f, "{line}"))
            .map_err(|source| SessionError::Io {
                path: self.path.display().to_string(),
                source,
            })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What a turn produced.
#[derive(Debug)]
pub enum Outcome {
    /// A request ran; its report is for the caller to render.
    Ran(Box<Report>),
    /// The crew says this (an interview's question, a cancelled turn, an error to fix).
    Said(String),
    /// The create-agent interview is confirmed: the caller creates the agent with these
    /// answers (the code path of `crew agents new`) and reports back with [`Session::settle`].
    CreateAgent(Vec<(String, String)>),
}

/// Phrases that narrow the last result set instead of asking something new.
static REFINES: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)^\s*(only|just|solo|soltanto|nur|seulement|apenas|somente|sólo)\b|\b(of|among|from) (those|them|these)\b|\bthe ones\b",
    )
    .expect("static regex")
});

/// Whether a line narrows earlier results.
pub(crate) fn refines(line: &str) -> bool {
    REFINES.is_match(line)
}

/// A chat session over one vault.
pub struct Session {
    pub store: Store,
    pub state: SessionState,
    pub vault: PathBuf,
    /// Raised by Ctrl-C while a turn runs.
    pub cancel: Arc<AtomicBool>,
    /// `--lang`: every turn answers in this language.
    pub lang: Option<crate::lang::Lang>,
}

impl Session {
    fn options(&self) -> Options {
        Options {
            command: "chat".into(),
            session: Some(self.store.id.clone()),
            lang: self.lang,
            history: self.state.history(),
            cancel: Some(self.cancel.clone()),
            chat: ChatInput {
                conversation: self.state.conversation(),
                lang: self
                    .state
                    .language
                    .as_deref()
                    .and_then(crate::lang::Lang::from_code),
                ..ChatInput::default()
            },
            ..Options::default()
        }
    }

    /// Keeps the state after a turn; the session file is the memory, so a failure to write it
    /// is reported, never hidden.
    fn remember(&mut self, user: &str, answer: &str) -> Result<(), SessionError> {
        // the full answers are in the step records; the state keeps what the next turns read
        let cut = |t: &str| t.chars().take(CONVERSATION_CHARS).collect::<String>();
        self.state.turns.push((cut(user), cut(answer)));
        let excess = self.state.turns.len().saturating_sub(KEPT_TURNS);
        self.state.turns.drain(..excess);
        self.store.record("state", json!({"state": self.state}))
    }

    /// Runs one line of the user's.
    pub fn turn(
        &mut self,
        crew: &Crew,
        line: &str,
        progress: &mut dyn FnMut(&str),
    ) -> Result<Outcome, RunError> {
        self.cancel.store(false, Ordering::SeqCst);
        self.record("user", json!({"text": line}));
        if let Some(mut iv) = self.state.interview.take() {
            return Ok(self.interview_step(crew, &mut iv, line, progress));
        }
        let mut opts = self.options();
        let mut message = line.to_string();
        let explicit = line.trim_start().starts_with(['@', '/']);
        if explicit && let Some(p) = self.state.pending.take() {
            // "@agent …" or "/skill …" is a new request: the question is left unanswered
            self.record(
                "unanswered",
                json!({"agent": p.agent, "question": p.question}),
            );
        }
        if line.trim().is_empty()
            && let Some(p) = self.state.pending.take()
        {
            let text = format!("The {}'s question stays unanswered.", p.agent);
            self.record(
                "unanswered",
                json!({"agent": p.agent, "question": p.question}),
            );
            if let Err(e) = self.remember(line, &text) {
                tracing::warn!("{e}");
            }
            return Ok(Outcome::Said(text));
        }
        let answering = self.state.pending.take();
        if let Some(p) = &answering {
            // the agent asked; this line is its answer, with the question in the conversation
            self.record("answer", json!({"agent": p.agent, "question": p.question}));
            opts.agent = Some(p.agent.clone());
            message = crate::dispatch::question::answer_message(line, &p.question.ask);
        } else {
            // the offline router only: a phrase that surely names an agent or skill wins
            let r = crate::dispatch::Router::new(crew).route(crew, line, &opts.history, None);
            let decided = !r.guessed();
            if decided && r.kind == Kind::Skill && interview::FLOWS.contains(&r.name.as_str()) {
                return Ok(self.start_interview(crew, &r.name, line));
            }
            // "only the ones …" narrows the last results, unless it plainly asks someone else
            if !self.state.results.is_empty() && refines(line) && (!decided || r.name == "seeker") {
                opts.agent = Some("seeker".into());
                opts.chat.within = Some(self.state.results.clone());
            }
        }
        let report = run::ask(&self.vault, crew, &message, &opts, progress)?;
        // a guessed route to an interview only previewed (nothing written): ask instead
        if report.preview.is_some() && interview::FLOWS.contains(&report.route.name.as_str()) {
            let flow = report.route.name.clone();
            return Ok(self.start_interview(crew, &flow, line));
        }
        if self.cancel.load(Ordering::SeqCst) {
            let undone = self.undo_run(&report.run_id);
            let text = format!("Turn cancelled. {undone}");
            self.record(
                "cancelled",
                json!({"run_id": report.run_id, "undone": undone}),
            );
            // a cancelled turn is not remembered as said, and a question it answered still waits
            self.state.pending = answering;
            self.record("state", json!({"state": self.state}));
            return Ok(Outcome::Said(text));
        }
        self.after_run(line, &report);
        Ok(Outcome::Ran(Box::new(report)))
    }

    /// Records a step of the turn; a session file that cannot be written is said once per
    /// record on stderr and the conversation goes on.
    fn record(&self, kind: &str, fields: Value) {
        if let Err(e) = self.store.record(kind, fields) {
            tracing::warn!("{e}");
        }
    }

    fn after_run(&mut self, line: &str, report: &Report) {
        for s in &report.chain.steps {
            self.record(
                "step",
                json!({"run_id": report.run_id, "agent": s.agent, "kind": s.kind, "executor": s.executor,
                       "output": s.output, "error": s.error, "operations": s.operations.len()}),
            );
        }
        if let Some(s) = report.chain.steps.iter().find(|s| s.agent == "seeker")
            && let Some(hits) = s.data.as_ref().and_then(|d| d.get("hits"))
            && let Ok(hits) = serde_json::from_value::<Vec<String>>(hits.clone())
            // an empty refinement keeps the set it narrowed, as the seeker says
            && (!hits.is_empty() || !refines(line))
        {
            self.state.results = hits;
        }
        if let Some(last) = report.chain.steps.last()
            && last.error.is_none()
            && let Some(q) = crate::dispatch::question::parse(&last.output)
        {
            self.state.pending = Some(Pending {
                kind: last.kind,
                agent: last.agent.clone(),
                question: q,
            });
        }
        let answer: Vec<&str> = report.chain.steps.iter().map(|s| s.output.trim()).collect();
        if let Err(e) = self.remember(line, &answer.join("\n\n")) {
            tracing::warn!("{e}");
        }
    }

    fn start_interview(&mut self, crew: &Crew, flow: &str, line: &str) -> Outcome {
        match Interview::start(crew, flow) {
            Err(e) => {
                let text = format!(
                    "The {flow} interview cannot start: {e}. Fix that line of the skill file and say it again."
                );
                self.record("error", json!({"text": text}));
                Outcome::Said(text)
            }
            Ok(iv) => {
                let mut text = String::new();
                if flow == "onboarding" {
                    text.push_str("Let's set up the vault. One question at a time; a blank answer skips one, /cancel stops.\n");
                    let profile = self
                        .vault
                        .join(&crew.config.folders.meta)
                        .join("user-profile.md");
                    if profile.is_file() {
                        text.push_str("You have a profile already: your answers replace it (`crew undo` brings it back).\n");
                    }
                } else {
                    text.push_str(
                        "Let's design the new agent. One question at a time; /cancel stops.\n",
                    );
                }
                text.push_str(&iv.prompt());
                self.record("interview", json!({"flow": flow, "started": true}));
                self.state.interview = Some(iv);
                if let Err(e) = self.remember(line, &text) {
                    tracing::warn!("{e}");
                }
                Outcome::Said(text)
            }
        }
    }

    fn interview_step(
        &mut self,
        crew: &Crew,
        iv: &mut Interview,
        line: &str,
        progress: &mut dyn FnMut(&str),
    ) -> Outcome {
        let step = iv.answer(line, crew);
        self.record(
            "interview",
            json!({"flow": iv.flow, "at": iv.at, "answers": iv.answers}),
        );
        match step {
            InterviewStep::Ask(text) => {
                self.state.interview = Some(iv.clone());
                if let Err(e) = self.remember(line, &text) {
                    tracing::warn!("{e}");
                }
                Outcome::Said(text)
            }
            InterviewStep::Cancelled => {
                let text = format!("Stopped the {} interview; nothing was written.", iv.flow);
                if let Err(e) = self.remember(line, &text) {
                    tracing::warn!("{e}");
                }
                Outcome::Said(text)
            }
            InterviewStep::Done if iv.flow == "create-agent" => {
                // the session state is kept by `settle` once the agent exists (or not)
                self.state.turns.push((line.to_string(), String::new()));
                Outcome::CreateAgent(iv.answers.clone())
            }
            InterviewStep::Done => {
                let mut opts = self.options();
                opts.agent = Some(iv.flow.clone());
                opts.yes = true;
                opts.chat.answers = Some(iv.answers.clone());
                // the run's message is crew's own words: the reply follows the chosen language
                opts.lang = opts.lang.or_else(|| {
                    iv.get(crate::agents::onboard::LANGUAGE_KEY)
                        .and_then(crate::lang::Lang::from_code)
                });
                match run::ask(&self.vault, crew, "set up the vault", &opts, progress) {
                    Ok(report) => {
                        if self.cancel.load(Ordering::SeqCst) {
                            let undone = self.undo_run(&report.run_id);
                            return Outcome::Said(format!("Onboarding cancelled. {undone}"));
                        }
                        if report.chain.failed() {
                            // a half-made skeleton is worse than none: the run is taken back
                            let undone = self.undo_run(&report.run_id);
                            self.record(
                                "failed",
                                json!({"run_id": report.run_id, "undone": undone}),
                            );
                        } else if let Some(lang) = iv.get(crate::agents::onboard::LANGUAGE_KEY) {
                            self.state.language = Some(lang.to_string());
                        }
                        self.after_run(line, &report);
                        Outcome::Ran(Box::new(report))
                    }
                    Err(e) => {
                        // the answers stay: the user can say "yes" again once the cause is gone
                        self.state.interview = Some(iv.clone());
                        let text = format!("{e}\nSay yes to try again, or /cancel.");
                        Outcome::Said(text)
                    }
                }
            }
        }
    }

    /// The caller's account of what became of a confirmed create-agent interview.
    pub fn settle(&mut self, answer: &str) {
        if let Some((_, said)) = self.state.turns.last_mut() {
            *said = answer.to_string();
        }
        self.record("reply", json!({"text": answer}));
        if let Err(e) = self.store.record("state", json!({"state": self.state})) {
            tracing::warn!("{e}");
        }
    }

    /// Takes back what a run changed (a cancelled or failed turn); says what happened.
    fn undo_run(&self, run_id: &str) -> String {
        let state_dir = crate::state::state_dir(&self.vault);
        let ops = crate::state::undo::read_journal(&state_dir, run_id)
            .map(|o| o.len())
            .unwrap_or(0);
        if ops == 0 {
            return "Nothing had been written.".into();
        }
        let lock = crate::state::lock::VaultLock::acquire(
            &state_dir,
            "chat undo",
            run::default_lock_wait(),
        );
        let result = lock.map_err(|e| e.to_string()).and_then(|_lock| {
            // the turn just ran, so no later run changed crew's own files: the default
            // folders are enough to tell them
            let folders = crate::crew::Folders::default();
            let actions = crate::state::undo::plan(&self.vault, &state_dir, run_id, &folders)
                .map_err(|e| e.to_string())?;
            crate::state::undo::apply(&self.vault, &state_dir, run_id, &actions)
                .map_err(|e| e.to_string())
        });
        match result {
            Ok(()) => format!("Its {ops} change(s) were undone."),
            Err(e) => {
                format!("Its changes could not be undone ({e}); `crew undo {run_id}` tries again.")
            }
        }
    }

    /// Records the end of the session.
    pub fn end(&self, why: &str) {
        self.record("end", json!({"why": why}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refinements_are_recognised() {
        assert!(refines("only the ones from this year"));
        assert!(refines("Just those tagged finance"));
        assert!(refines("which of them mention Rome"));
        assert!(!refines("find my notes about taxes"));
        assert!(!refines("set up the vault"));
    }

    #[test]
    fn the_conversation_alternates_and_is_bounded() {
        let mut s = SessionState::default();
        for i in 0..20 {
            s.turns.push((
                format!("q{i}"),
                if i == 19 {
                    String::new()
                } else {
                    "a".repeat(5000)
                },
            ));
        }
        let c = s.conversation();
        assert_eq!(c.len(), 2 * CONVERSATION_TURNS);
        assert_eq!(c[0], ("user".to_string(), "q12".to_string()));
        assert_eq!(c[1].1.chars().count(), CONVERSATION_CHARS);
        assert_eq!(c.last().map(|x| x.1.as_str()), Some("(no answer)"));
        assert_eq!(s.history().len(), 40);
    }

    #[test]
    fn a_session_resumes_from_its_last_state() {
        let dir = tempfile::tempdir().expect("tmp");
        let store = Store::create(dir.path()).expect("store");
        let state = SessionState {
            results: vec!["a.md".into()],
            ..SessionState::default()
        };
        store
            .record("state", json!({"state": state}))
            .expect("record");
        std::fs::OpenOptions::new()
            .append(true)
            .open(store.path())
            .and_then(|mut f| f.write_all(b"{\"type\":\"state\",\"sta"))
            .expect("torn line");
        let (again, got) = Store::resume(dir.path(), None).expect("resume");
        assert_eq!(again.id, store.id);
        assert_eq!(got, state);
        assert!(matches!(
            Store::resume(dir.path(), Some("../x")),
            Err(SessionError::Unknown { .. })
        ));
    }
}
