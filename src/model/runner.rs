//! Running an agent on a model: the prompt, the tool loop with its cap, the post-it, and the
//! routing classifier.

use std::time::Instant;

use super::{ChatBackend, ChatRequest, Message, Settings, tools};
use crate::crew::{Crew, Definition, Folders};
use crate::dispatch::Classifier;
use crate::dispatch::chain::Step;
use crate::gate::Gate;

/// Everything the prompt of one model run is built from.
pub(crate) struct AgentRun<'a> {
    pub def: &'a Definition,
    pub step: &'a Step,
    pub postit: Option<String>,
    pub vault_name: String,
    pub user_profile: String,
    pub today: chrono::NaiveDate,
    pub max_tool_calls: usize,
    /// Earlier turns of a chat, oldest first: ("user" | "crew", text).
    pub conversation: &'a [(String, String)],
    /// A user is there to answer: the agent may end with a question block.
    pub interactive: bool,
    /// The notes a write may touch (see [`tools::ToolContext::scope`]).
    pub scope: Option<Vec<String>>,
}

impl AgentRun<'_> {
    /// The capabilities of this run: the definition's, and what the step's mode adds.
    pub fn capabilities(&self) -> Vec<String> {
        self.def.capabilities_in(self.step.mode.as_deref())
    }
}

/// What a model run produced.
#[derive(Debug, Clone, Default)]
pub(crate) struct ModelOutcome {
    pub text: String,
    pub postit: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
    pub tool_calls: usize,
    pub latency_ms: u64,
    /// Set when the run did not finish (provider error, tool-call cap).
    pub error: Option<String>,
}

/// Fills `{{current_date}}`, `{{vault_name}}`, `{{user_profile}}` and the folder placeholders.
pub(crate) fn substitute(text: &str, run: &AgentRun, folders: &Folders) -> String {
    let mut out = text
        .replace("{{current_date}}", &run.today.to_string())
        .replace("{{vault_name}}", &run.vault_name)
        .replace("{{user_profile}}", &run.user_profile);
    for (role, folder) in folders.roles() {
        out = out.replace(&format!("{{{{{role}}}}}"), folder);
    }
    out
}

pub(crate) fn system_prompt(run: &AgentRun, folders: &Folders) -> String {
    let mut s = substitute(&run.def.body, run, folders);
    s.push_str(&format!(
        "\n\n## This run\nToday is {}. The vault is \"{}\". {}\nYou work only through your tools; paths are vault-relative. The inbox is `{}/`.\n",
        run.today, run.vault_name, run.step.chain_line, folders.inbox
    ));
    // the instructions may be another program's (an installed crew written for Claude Code
    // names Read, Glob, Write …): the model learns which tools this run really has
    let tools: Vec<String> = tools::specs(&run.capabilities())
        .into_iter()
        .map(|t| format!("`{}`", t.name))
        .collect();
    s.push_str(&format!(
        "\n## Your tools\nThis run has: {}. Where the instructions above name another program's tools (Read, Write, Edit, Glob, Grep, Bash, web access), use these instead; anything they do not offer is not available here, so say what you could not do.\n",
        if tools.is_empty() {
            "no tools".to_string()
        } else {
            tools.join(", ")
        }
    ));
    if !run.user_profile.trim().is_empty() {
        s.push_str(&format!(
            "\n## The user's profile\n{}\n",
            run.user_profile.trim()
        ));
    }
    s.push_str(&format!(
        "\n## Your post-it from your last run\n{}\n",
        run.postit
            .as_deref()
            .filter(|p| !p.trim().is_empty())
            .unwrap_or("(empty)")
    ));
    if run.interactive {
        s.push_str(&format!(
            "\n## Asking the user\nThis is a conversation: the earlier turns come first. When you cannot go on without the user, end your answer with a block `{}` holding one line `- **Ask**: your question`; the user's next line comes back to you as the answer.\n",
            crate::dispatch::question::HEADING
        ));
    }
    s.push_str("\n## Your answer\nAnswer the user directly, in their language. To hand work to another agent, end with `### Suggested next agent` blocks (Agent, Reason, Context). Last, add a `### Post-it` section of at most 30 lines: what your next run needs to know.\n");
    s
}

fn messages(run: &AgentRun) -> Vec<Message> {
    let mut m = Vec::new();
    // the chat so far, as the turns it was, so the model reads it as a conversation
    for (who, text) in run.conversation {
        if who == "user" {
            m.push(Message::User(text.clone()));
        } else {
            m.push(Message::Assistant {
                text: text.clone(),
                tool_calls: Vec::new(),
            });
        }
    }
    m.push(Message::User(run.step.message.clone()));
    for (agent, answer) in &run.step.earlier {
        m.push(Message::Assistant {
            text: format!("[{agent}]\n{answer}"),
            tool_calls: Vec::new(),
        });
    }
    if run.step.step > 1 {
        m.push(Message::User(format!(
            "{}\nYour task{}: {}",
            run.step.chain_line,
            run.step
                .suggested_by
                .as_deref()
                .map(|b| format!(" (from the {b})"))
                .unwrap_or_default(),
            run.step.task
        )));
    }
    m
}

/// Splits a trailing `### Post-it` section off an answer: (answer, post-it).
pub(crate) fn split_postit(text: &str) -> (String, Option<String>) {
    let lower = text.to_lowercase();
    let Some(pos) = ["### post-it", "## post-it"]
        .iter()
        .filter_map(|h| lower.rfind(h))
        .max()
    else {
        return (text.to_string(), None);
    };
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let after_heading = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
    let rest = &text[after_heading..];
    // the post-it runs to the next heading of the same or a higher level, or the end
    let end = rest
        .find("\n### ")
        .or_else(|| rest.find("\n## "))
        .map_or(rest.len(), |i| i + 1);
    let postit = rest[..end].trim().to_string();
    let answer = format!("{}{}", &text[..line_start], &rest[end..]);
    (answer.trim_end().to_string() + "\n", Some(postit))
}

/// Runs one agent on a model with its vault tools.
pub(crate) fn run_agent(
    backend: &dyn ChatBackend,
    model: &str,
    run: &AgentRun,
    gate: &mut Gate,
    folders: &Folders,
) -> ModelOutcome {
    let started = Instant::now();
    let capabilities = run.capabilities();
    let specs = tools::specs(&capabilities);
    let mut request = ChatRequest {
        model: model.to_string(),
        system: system_prompt(run, folders),
        messages: messages(run),
        tools: specs,
        settings: Settings {
            max_output_tokens: run.def.generation.max_output_tokens,
            temperature: run.def.generation.temperature,
            thinking_budget: run.def.generation.thinking_budget,
        },
    };
    let mut out = ModelOutcome::default();
    let mut partial = String::new();
    // the user's own words: their earlier chat turns and this request (never a chained
    // agent's task or a tool's result, which may carry text from strangers)
    let mut words: Vec<&str> = run
        .conversation
        .iter()
        .filter(|(who, _)| who == "user")
        .map(|(_, text)| text.as_str())
        .collect();
    words.push(&run.step.message);
    let words = words.join("\n");
    let ctx = tools::ToolContext {
        folders,
        capabilities: &capabilities,
        today: run.today,
        request: &words,
        scope: run.scope.as_deref(),
    };
    loop {
        let reply = match backend.chat(&request) {
            Ok(r) => r,
            Err(e) => {
                out.error = Some(format!("{} on {}: {e}", run.def.name, backend.label()));
                out.text = if partial.is_empty() {
                    String::new()
                } else {
                    format!("{partial}\n")
                };
                break;
            }
        };
        out.tokens_in += reply.tokens_in;
        out.tokens_out += reply.tokens_out;
        if !reply.text.trim().is_empty() {
            partial = reply.text.clone();
        }
        if reply.tool_calls.is_empty() {
            out.text = reply.text;
            break;
        }
        if out.tool_calls + reply.tool_calls.len() > run.max_tool_calls {
            let msg = format!(
                "the model kept calling tools: stopped after {} tool calls (the limit is {}; `max_tool_calls` in .crew/config.yaml)",
                out.tool_calls, run.max_tool_calls
            );
            out.text = format!(
                "{}\n**Stopped:** {msg}. Partial results are above; the changes made so far are in the run log.\n",
                partial.trim_end()
            );
            out.error = Some(msg);
            break;
        }
        let calls = reply.tool_calls.clone();
        request.messages.push(Message::Assistant {
            text: reply.text.clone(),
            tool_calls: calls.clone(),
        });
        for c in &calls {
            out.tool_calls += 1;
            let result = tools::execute(gate, &ctx, c);
            tracing::debug!(tool = %c.name, "tool call");
            request.messages.push(Message::ToolResult {
                id: c.id.clone(),
                name: c.name.clone(),
                // a note or mail the tool read is data: a block in it is shown to the model
                // escaped, so quoting it does not hand work to anyone
                content: crate::dispatch::suggest::escape_blocks(&result),
            });
        }
    }
    let (answer, postit) = split_postit(&out.text);
    out.text = if answer.trim().is_empty() {
        String::new()
    } else {
        format!("{}\n", answer.trim_end())
    };
    out.postit = postit.unwrap_or_else(|| {
        let first = out
            .text
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim()
            .to_string();
        format!("last run {}: {first}", run.today)
    });
    out.latency_ms = started.elapsed().as_millis() as u64;
    out
}

/// The routing classifier: a model names the agent or skill for a message no trigger matched.
pub(crate) struct ModelClassifier<'a> {
    pub backend: Box<dyn ChatBackend + 'a>,
    pub model: String,
    pub crew: &'a Crew,
}

impl Classifier for ModelClassifier<'_> {
    fn classify(&self, digest: &str) -> Result<String, crate::dispatch::route::ClassifierError> {
        let mut routes = String::new();
        for s in self
            .crew
            .skills
            .iter()
            .filter(|s| self.crew.skill_active(&s.name))
        {
            routes.push_str(&format!("- {} (skill): {}\n", s.name, s.description));
        }
        for a in self
            .crew
            .agents
            .iter()
            .filter(|a| self.crew.agent_active(&a.name))
        {
            routes.push_str(&format!("- {} (agent): {}\n", a.name, a.description));
        }
        let system = format!(
            "You route one message to the agent or skill that should handle it.\nRoutes:\n{routes}\nAnswer with exactly one JSON object and nothing else: {{\"route\": \"<name>\", \"reason\": \"<a few words>\"}}"
        );
        let request = ChatRequest {
            model: self.model.clone(),
            system,
            messages: vec![Message::User(digest.to_string())],
            tools: Vec::new(),
            settings: Settings {
                max_output_tokens: Some(200),
                temperature: Some(0.0),
                thinking_budget: None,
            },
        };
        Ok(self.backend.chat(&request)?.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Policy;
    use crate::model::{ChatResponse, ModelError, ToolCall};
    use crate::state::journal::Journal;
    use crate::vault::Vault;
    use std::cell::RefCell;

    /// A backend that answers from a script and records what it was sent.
    struct Scripted {
        replies: RefCell<Vec<Result<ChatResponse, ModelError>>>,
        seen: RefCell<Vec<ChatRequest>>,
        forever: Option<ChatResponse>,
    }

    impl ChatBackend for Scripted {
        fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
            self.seen.borrow_mut().push(request.clone());
            if let Some(f) = &self.forever {
                return Ok(f.clone());
            }
            let mut r = self.replies.borrow_mut();
            if r.is_empty() {
                Ok(ChatResponse {
                    text: "done".into(),
                    ..Default::default()
                })
            } else {
                r.remove(0)
            }
        }
        fn label(&self) -> String {
            "scripted".into()
        }
    }

    fn setup() -> (tempfile::TempDir, Gate, Definition, Step) {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(dir.path().join("a.md"), "alpha").expect("write");
        let gate = Gate::new(
            Vault::open(dir.path()).expect("open"),
            Policy::default(),
            Journal::in_memory(),
            false,
        );
        let mut d = Crew::builtin().agent("scribe").cloned().expect("scribe");
        d.body =
            "You are the scribe of {{vault_name}} on {{current_date}}; inbox {{inbox}}.".into();
        let step = Step {
            kind: crate::crew::Kind::Agent,
            name: "scribe".into(),
            task: "save the note".into(),
            message: "save the note".into(),
            chain_line: "Call chain so far: []. You are step 1 of max 3.".into(),
            step: 1,
            max: 3,
            suggested_by: None,
            mode: None,
            earlier: vec![],
        };
        (dir, gate, d, step)
    }

    fn run_of<'a>(d: &'a Definition, step: &'a Step, cap: usize) -> AgentRun<'a> {
        AgentRun {
            def: d,
            step,
            postit: Some("remember X".into()),
            vault_name: "Notes".into(),
            user_profile: String::new(),
            today: chrono::NaiveDate::from_ymd_opt(2026, 11, 30).expect("date"),
            max_tool_calls: cap,
            conversation: &[],
            interactive: false,
            scope: None,
        }
    }

    /// An installed crew's instructions name Claude Code's tools; the prompt keeps them whole
    /// and says which of crew's tools stand for them.
    #[test]
    fn the_prompt_names_the_tools_this_run_has() {
        let (_dir, _gate, mut d, step) = setup();
        d.body = "Use Glob to list the inbox, then Read each note.".into();
        let prompt = system_prompt(&run_of(&d, &step, 5), &Folders::default());
        assert!(prompt.starts_with("Use Glob to list the inbox, then Read each note."));
        let tools = prompt
            .split("## Your tools\n")
            .nth(1)
            .and_then(|t| t.lines().next())
            .unwrap_or_default();
        for name in tools::specs(&d.capabilities).iter().map(|t| &t.name) {
            assert!(tools.contains(&format!("`{name}`")), "{name}: {tools}");
        }
        assert!(tools.contains("(Read, Write, Edit, Glob, Grep"), "{tools}");
    }

    #[test]
    fn tool_call_then_answer_with_postit() {
        let (dir, mut gate, d, step) = setup();
        let call = ToolCall {
            id: "c1".into(),
            name: "write_note".into(),
            arguments: Ok(serde_json::json!({"path": "00-Inbox/n.md", "content": "hi"})),
        };
        let backend = Scripted {
            replies: RefCell::new(vec![
                Ok(ChatResponse {
                    text: String::new(),
                    tool_calls: vec![call],
                    tokens_in: 10,
                    tokens_out: 5,
                }),
                Ok(ChatResponse {
                    text: "Saved it.\n\n### Post-it\n- saved n.md\n".into(),
                    tool_calls: vec![],
                    tokens_in: 20,
                    tokens_out: 7,
                }),
            ]),
            seen: RefCell::new(vec![]),
            forever: None,
        };
        let r = run_of(&d, &step, 5);
        let out = run_agent(&backend, "m", &r, &mut gate, &Folders::default());
        assert!(out.error.is_none(), "{:?}", out.error);
        assert_eq!(out.text, "Saved it.\n");
        assert_eq!(out.postit, "- saved n.md");
        assert_eq!((out.tokens_in, out.tokens_out, out.tool_calls), (30, 12, 1));
        assert!(dir.path().join("00-Inbox/n.md").exists());
        let seen = backend.seen.borrow();
        assert!(
            seen[0]
                .system
                .starts_with("You are the scribe of Notes on 2026-11-30; inbox 00-Inbox.")
        );
        assert!(seen[0].system.contains("remember X"));
        assert!(
            matches!(&seen[1].messages[2], Message::ToolResult { content, .. } if content == "created 00-Inbox/n.md")
        );
    }

    #[test]
    fn a_runaway_model_is_stopped() {
        let (_dir, mut gate, d, step) = setup();
        let call = ToolCall {
            id: "c".into(),
            name: "list_notes".into(),
            arguments: Ok(serde_json::json!({})),
        };
        let backend = Scripted {
            replies: RefCell::new(vec![]),
            seen: RefCell::new(vec![]),
            forever: Some(ChatResponse {
                text: "looking…".into(),
                tool_calls: vec![call],
                ..Default::default()
            }),
        };
        let r = run_of(&d, &step, 4);
        let out = run_agent(&backend, "m", &r, &mut gate, &Folders::default());
        assert_eq!(out.tool_calls, 4);
        assert!(
            out.error
                .as_deref()
                .is_some_and(|e| e.contains("stopped after 4 tool calls"))
        );
        assert!(out.text.contains("looking…") && out.text.contains("**Stopped:**"));
    }

    #[test]
    fn provider_errors_are_reported_with_agent_and_provider() {
        let (_dir, mut gate, d, step) = setup();
        let backend = Scripted {
            replies: RefCell::new(vec![Err(ModelError::Auth {
                provider: "anthropic".into(),
                status: 401,
                key_var: "ANTHROPIC_API_KEY".into(),
            })]),
            seen: RefCell::new(vec![]),
            forever: None,
        };
        let r = run_of(&d, &step, 4);
        let out = run_agent(&backend, "m", &r, &mut gate, &Folders::default());
        let e = out.error.expect("error");
        assert!(
            e.contains("scribe") && e.contains("anthropic") && e.contains("ANTHROPIC_API_KEY"),
            "{e}"
        );
    }

    #[test]
    fn chained_runs_see_earlier_answers_as_attributed_turns() {
        let (_dir, mut gate, d, mut step) = setup();
        step.step = 2;
        step.suggested_by = Some("sorter".into());
        step.task = "file the new note".into();
        step.earlier = vec![("sorter".into(), "filed 3 notes".into())];
        let backend = Scripted {
            replies: RefCell::new(vec![]),
            seen: RefCell::new(vec![]),
            forever: None,
        };
        let r = run_of(&d, &step, 4);
        run_agent(&backend, "m", &r, &mut gate, &Folders::default());
        let seen = backend.seen.borrow();
        assert!(
            matches!(&seen[0].messages[1], Message::Assistant { text, .. } if text == "[sorter]\nfiled 3 notes")
        );
        assert!(
            matches!(&seen[0].messages[2], Message::User(t) if t.contains("(from the sorter): file the new note"))
        );
    }

    #[test]
    fn postit_split() {
        let (a, p) = split_postit(
            "Answer\n\n### Suggested next agent\n- **Agent**: x\n\n### Post-it\nline 1\nline 2\n",
        );
        assert_eq!(a, "Answer\n\n### Suggested next agent\n- **Agent**: x\n");
        assert_eq!(p.as_deref(), Some("line 1\nline 2"));
        assert_eq!(split_postit("no section").1, None);
    }
}
