//! `crew chat`: the terminal side of a session. With a terminal, lines are read with line
//! editing and history (rustyline); otherwise every input line is one turn and every answer goes
//! to stdout, so a chat can be scripted. End of input ends the session (exit 0); Ctrl-C cancels
//! the running turn (its changes are undone) and a second Ctrl-C leaves.

use std::io::{BufRead as _, IsTerminal as _};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use serde_json::json;

use super::commands::crew_to_run;
use super::{AgentsAction, Global, out, render};
use crew::chat::{Outcome, Session, SessionState, Store};

/// Where the terminal's line history is kept between sessions.
const HISTORY_FILE: &str = "chat-history";

/// Lines typed at a terminal or piped in.
enum Input {
    Terminal(Box<rustyline::DefaultEditor>),
    Piped(std::io::StdinLock<'static>),
}

/// What reading a line gave.
enum Read {
    Line(String),
    /// Ctrl-C at the prompt.
    Interrupted,
    End,
}

impl Input {
    fn open() -> Input {
        if std::io::stdin().is_terminal()
            && let Ok(ed) = rustyline::DefaultEditor::new()
        {
            return Input::Terminal(Box::new(ed));
        }
        Input::Piped(std::io::stdin().lock())
    }

    fn read(&mut self) -> anyhow::Result<Read> {
        match self {
            Input::Terminal(ed) => match ed.readline("you › ") {
                Ok(l) => {
                    if !l.trim().is_empty() {
                        let _ = ed.add_history_entry(l.as_str());
                    }
                    Ok(Read::Line(l))
                }
                Err(rustyline::error::ReadlineError::Interrupted) => Ok(Read::Interrupted),
                Err(rustyline::error::ReadlineError::Eof) => Ok(Read::End),
                Err(e) => Err(e.into()),
            },
            Input::Piped(stdin) => {
                let mut buf = Vec::new();
                if stdin.read_until(b'\n', &mut buf)? == 0 {
                    return Ok(Read::End);
                }
                // a stray byte that is no UTF-8 must not end the conversation
                let line = String::from_utf8_lossy(&buf);
                Ok(Read::Line(line.trim_end_matches(['\n', '\r']).to_string()))
            }
        }
    }
}

/// The Ctrl-C state shared with the signal handler.
struct Interrupts {
    busy: AtomicBool,
    presses: AtomicUsize,
    leave: AtomicBool,
}

fn watch_interrupts(cancel: Arc<AtomicBool>) -> Arc<Interrupts> {
    let state = Arc::new(Interrupts {
        busy: AtomicBool::new(false),
        presses: AtomicUsize::new(0),
        leave: AtomicBool::new(false),
    });
    let s = state.clone();
    let set = ctrlc::set_handler(move || {
        let n = s.presses.fetch_add(1, Ordering::SeqCst) + 1;
        if s.busy.load(Ordering::SeqCst) {
            if n == 1 {
                cancel.store(true, Ordering::SeqCst);
                eprintln!(
                    "\n(cancelling this turn: what it changed will be undone; Ctrl-C again leaves)"
                );
            } else {
                s.leave.store(true, Ordering::SeqCst);
                eprintln!("\n(leaving once the turn has stopped)");
            }
        } else if n >= 2 {
            // nothing runs and every turn's state is already on disk: leaving loses nothing
            std::process::exit(130);
        } else {
            eprintln!("\n(Ctrl-C again, or end of input, leaves)");
        }
    });
    if let Err(e) = set {
        tracing::warn!("Ctrl-C cannot be caught here ({e}); it ends crew at once");
    }
    state
}

pub fn chat(g: &Global, resume: Option<Option<&str>>) -> anyhow::Result<u8> {
    let mut crew = crew_to_run(g)?;
    let vault = g.vault_path();
    // caught before the session file exists, so a Ctrl-C never finds crew unprepared
    let cancel = Arc::new(AtomicBool::new(false));
    let interrupts = watch_interrupts(cancel.clone());
    let (store, state) = match &resume {
        None => (Store::create(&vault)?, SessionState::default()),
        Some(id) => Store::resume(&vault, *id)?,
    };
    let mut session = Session {
        store,
        state,
        vault: vault.clone(),
        cancel,
        lang: g.lang,
    };
    let mut input = Input::open();
    let history_path = crew::state::state_dir(&vault).join(HISTORY_FILE);
    if let Input::Terminal(ed) = &mut input {
        let _ = ed.load_history(&history_path);
    }
    let terminal = matches!(input, Input::Terminal(_));
    if terminal || resume.is_some() {
        eprintln!("{}", hello(&session, resume.is_some()));
    }
    let mut turn_no = 0usize;
    let mut interrupted_at_prompt = false;
    let why = loop {
        let line = match input.read()? {
            Read::End => break "end of input",
            Read::Interrupted if interrupted_at_prompt => break "Ctrl-C",
            Read::Interrupted => {
                interrupted_at_prompt = true;
                eprintln!("(Ctrl-C again, or Ctrl-D, leaves)");
                continue;
            }
            Read::Line(l) => l,
        };
        interrupted_at_prompt = false;
        interrupts.presses.store(0, Ordering::SeqCst);
        let waiting = session.state.interview.is_some() || session.state.pending.is_some();
        let trimmed = line.trim();
        if trimmed.is_empty() && !waiting {
            continue;
        }
        if matches!(trimmed, "/exit" | "/quit") {
            break "asked to leave";
        }
        turn_no += 1;
        interrupts.busy.store(true, Ordering::SeqCst);
        let mut progress = |l: &str| eprintln!("{l}");
        let outcome = session.turn(&crew, &line, &mut progress);
        interrupts.busy.store(false, Ordering::SeqCst);
        interrupts.presses.store(0, Ordering::SeqCst);
        if show(g, &mut session, turn_no, outcome)? {
            // the new agent answers from the next turn on
            crew = crew_to_run(g)?;
        }
        if interrupts.leave.load(Ordering::SeqCst) {
            break "Ctrl-C";
        }
    };
    session.end(why);
    if let Input::Terminal(ed) = &mut input
        && let Some(dir) = history_path.parent()
        && std::fs::create_dir_all(dir).is_ok()
    {
        let _ = ed.save_history(&history_path);
    }
    if terminal || !g.json {
        eprintln!(
            "Session {0} is kept; `crew chat --resume {0}` goes on with it.",
            session.store.id
        );
    }
    // leaving with Ctrl-C says so to a script, as an interrupted program does
    Ok(if why == "Ctrl-C" { 130 } else { 0 })
}

/// The first words of a session: which one it is, and the question still waiting in it.
fn hello(session: &Session, resumed: bool) -> String {
    let mut hello = if resumed {
        format!(
            "Resumed session {} ({} turn(s) so far).",
            session.store.id,
            session.state.turns.len()
        )
    } else {
        format!(
            "crew chat — session {}. Ask anything; /exit or Ctrl-D leaves.",
            session.store.id
        )
    };
    if let Some(iv) = &session.state.interview {
        hello.push_str(&format!("\n{}", iv.prompt()));
    } else if let Some(p) = &session.state.pending {
        hello.push_str(&format!("\nThe {} asked: {}", p.agent, p.question.ask));
    }
    hello
}

/// Shows a turn's outcome; whether the crew changed (a new agent was created).
fn show(
    g: &Global,
    session: &mut Session,
    turn_no: usize,
    outcome: Result<Outcome, crew::run::RunError>,
) -> anyhow::Result<bool> {
    match outcome {
        Ok(Outcome::Ran(report)) => {
            if g.json {
                out(&serde_json::to_string(&json!({
                    "session": session.store.id, "turn": turn_no, "run_id": report.run_id,
                    "route": report.route, "chain": report.chain.steps,
                    "deferred": report.chain.deferred, "dry_run": report.dry_run,
                    "preview": report.preview, "question": session.state.pending,
                }))?)?;
            } else {
                out(&render::report_text(&report))?;
            }
        }
        Ok(Outcome::Said(text)) => say(g, session, turn_no, &text)?,
        Ok(Outcome::CreateAgent(answers)) => {
            let said = create_agent(g, &answers);
            session.settle(&said);
            if !said.starts_with("Created") {
                say(g, session, turn_no, &said)?;
            }
            return Ok(true);
        }
        // a refused turn (a message too long, a busy vault) is said; the chat goes on
        Err(e) => say(g, session, turn_no, &format!("error: {e}"))?,
    }
    Ok(false)
}

fn say(g: &Global, session: &Session, turn: usize, text: &str) -> anyhow::Result<()> {
    if g.json {
        out(&serde_json::to_string(
            &json!({"session": session.store.id, "turn": turn, "said": text}),
        )?)
    } else {
        out(text)
    }
}

/// The confirmed create-agent interview, through `crew agents new` itself (either crew layout;
/// the built-in crew is refused there with what to do). Returns what to remember of it.
fn create_agent(g: &Global, answers: &[(String, String)]) -> String {
    let get = |k: &str| {
        answers
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.clone())
    };
    let Some(name) = get("name") else {
        return "The agent needs a name; nothing was created.".into();
    };
    let action = AgentsAction::New {
        name: name.clone(),
        description: get("description"),
        triggers: get("triggers"),
        examples: get("examples")
            .map(|e| crew::chat::interview::split_examples(&e))
            .unwrap_or_default(),
        capabilities: get("capabilities"),
        model: get("model"),
        dry_run: false,
    };
    match super::agents::agents(g, action) {
        Ok(_) => format!("Created the agent {name}."),
        Err(e) => format!("The agent {name} was not created: {e}"),
    }
}
