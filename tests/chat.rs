//! `crew chat` driven through piped stdin: one turn per line, answers on stdout (`--json`: one
//! JSON document per turn).

mod common;

use chrono::Datelike;
use common::{crew, vault};
use mockito::{Matcher, Server};
use serde_json::Value;

/// Runs `crew chat ARGS…` with these lines on stdin; returns (exit code, turns, stderr).
fn chat(v: &std::path::Path, args: &[&str], lines: &[&str]) -> (i32, Vec<Value>, String) {
    chat_env(v, args, lines, &[])
}

fn chat_env(
    v: &std::path::Path,
    args: &[&str],
    lines: &[&str],
    env: &[(&str, String)],
) -> (i32, Vec<Value>, String) {
    let mut cmd = crew(v);
    for k in ["OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY"] {
        cmd.env_remove(k);
    }
    for (k, val) in env {
        cmd.env(k, val);
    }
    let mut input = lines.join("\n");
    input.push('\n');
    let out = cmd
        .args(["chat", "--json"])
        .args(args)
        .write_stdin(input)
        .output()
        .expect("run crew chat");
    let turns = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .collect::<Result<Vec<_>, _>>()
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    (
        out.status.code().unwrap_or(-1),
        turns,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn output(turn: &Value) -> String {
    turn["chain"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .filter_map(|s| s["output"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// Three notes: taxes from last year, taxes from this year, a garden note from this year.
fn tax_vault() -> assert_fs::TempDir {
    let year = chrono::Local::now().year();
    vault(&[
        (
            "Notes/Taxes old.md",
            &format!(
                "---\ndate: {}-06-15\n---\nThe taxes of that year.\n",
                year - 1
            ),
        ),
        (
            "Notes/Taxes plan.md",
            &format!("---\ndate: {year}-01-02\n---\nPlan for the taxes.\n"),
        ),
        (
            "Notes/Garden.md",
            &format!("---\ndate: {year}-01-03\n---\nTomatoes and beans.\n"),
        ),
    ])
}

#[test]
fn a_follow_up_narrows_the_last_results() {
    let v = tax_vault();
    let (code, turns, err) = chat(
        v.path(),
        &[],
        &[
            "find my notes about taxes",
            "only the ones from this year",
            "just check the vault",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert_eq!(turns.len(), 3, "{turns:?}");
    // a line that plainly asks another agent is no refinement, however it starts
    assert_ne!(turns[2]["route"]["name"], "seeker", "{}", turns[2]);
    let first = output(&turns[0]);
    assert!(
        first.contains("Taxes old") && first.contains("Taxes plan"),
        "{first}"
    );
    let second = output(&turns[1]);
    assert_eq!(turns[1]["route"]["name"], "seeker");
    assert!(second.contains("Taxes plan"), "{second}");
    assert!(
        !second.contains("Taxes old"),
        "last year's note is gone: {second}"
    );
    // a refinement of the set, not a new search: this year's garden note never joins
    assert!(!second.contains("Garden"), "{second}");
    assert_eq!(turns[0]["session"], turns[1]["session"]);
}

#[test]
fn the_runs_of_a_chat_name_their_session_in_the_log() {
    let v = tax_vault();
    let (_, turns, _) = chat(v.path(), &[], &["find my notes about taxes"]);
    let session = turns[0]["session"]
        .as_str()
        .expect("session id")
        .to_string();
    let log = crew(v.path()).arg("log").output().expect("log");
    let text = String::from_utf8_lossy(&log.stdout);
    assert!(text.contains(&format!("session {session}")), "{text}");
    let file = v.path().join(format!(".crew/sessions/{session}.jsonl"));
    let records = std::fs::read_to_string(file).expect("session file");
    for kind in ["\"start\"", "\"user\"", "\"step\"", "\"state\"", "\"end\""] {
        assert!(
            records.contains(&format!("\"type\":{kind}")),
            "{kind} in {records}"
        );
    }
}

#[test]
fn onboarding_interview_writes_the_profile_and_areas_and_undo_takes_them_back() {
    let v = vault(&[]);
    let (code, turns, err) = chat(
        v.path(),
        &[],
        &[
            "please set up the vault",
            "Ada",
            "Italiano",
            "Work, Health and Finance",
            "",
            "a quieter inbox",
            "",
            "yes",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let asked: Vec<&str> = turns.iter().filter_map(|t| t["said"].as_str()).collect();
    assert!(asked[0].contains("call you"), "name first: {asked:?}");
    assert!(
        asked[1].contains("language"),
        "then the language: {asked:?}"
    );
    assert!(asked[2].contains("areas"), "then the areas: {asked:?}");
    let profile = std::fs::read_to_string(v.path().join("Meta/user-profile.md")).expect("profile");
    assert!(profile.contains("name: Ada\n"), "{profile}");
    assert!(profile.contains("primary-language: it\n"), "{profile}");
    assert!(
        profile.contains("life-areas: [Work, Health, Finance]\n"),
        "{profile}"
    );
    assert!(
        profile.contains("motivation: a quieter inbox\n"),
        "{profile}"
    );
    assert!(
        !profile.contains("role:"),
        "a blank answer skips: {profile}"
    );
    for area in ["Work", "Health", "Finance"] {
        let index = v.path().join(format!("02-Areas/{area}/_index.md"));
        assert!(index.is_file(), "{area} has its index note");
        assert!(v.path().join(format!("MOC/{area}.md")).is_file());
    }
    crew(v.path()).arg("undo").assert().success();
    assert!(!v.path().join("Meta/user-profile.md").exists());
    for area in ["Work", "Health", "Finance"] {
        assert!(
            !v.path().join(format!("02-Areas/{area}")).exists(),
            "{area}"
        );
    }
}

#[test]
fn the_interview_answers_are_written_natively_even_with_models_mapped() {
    // no model server exists: a model run would fail, the native skill does not need one
    let v = vault(&[(
        ".crew/config.yaml",
        "models:\n  low: gpt-4.1-nano\n  mid: gpt-4.1-mini\n  high: gpt-4.1\n",
    )]);
    let (code, _, err) = chat_env(
        v.path(),
        &[],
        &["set up the vault", "Ada", "en", "Work", "", "", "", "yes"],
        &[
            ("OPENAI_API_KEY", "k".into()),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1".into()),
        ],
    );
    assert_eq!(code, 0, "{err}");
    let profile = std::fs::read_to_string(v.path().join("Meta/user-profile.md")).expect("profile");
    assert!(profile.contains("name: Ada\n"), "{profile}");
    assert!(v.path().join("02-Areas/Work/_index.md").is_file());
}

#[test]
fn an_onboarding_cancelled_or_cut_off_writes_nothing() {
    let v = vault(&[]);
    let before = common::snapshot(v.path());
    let (code, _, err) = chat(v.path(), &[], &["set up the vault", "Ada", "/cancel"]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = chat(v.path(), &[], &["set up the vault", "Ada", "en", "Work"]);
    assert_eq!(code, 0, "end of input mid-interview is a clean end: {err}");
    let (code, _, _) = chat(
        v.path(),
        &[],
        &["set up the vault", "Ada", "en", "Work", "", "", "", "no"],
    );
    assert_eq!(code, 0);
    let after: Vec<String> = common::snapshot(v.path())
        .into_keys()
        .filter(|k| !k.starts_with(".crew/"))
        .collect();
    let before: Vec<String> = before.into_keys().collect();
    assert_eq!(after, before, "nothing half-written stays in the vault");
}

#[test]
fn a_session_resumes_where_it_stopped() {
    let v = tax_vault();
    let (_, turns, _) = chat(v.path(), &[], &["find my notes about taxes"]);
    let id = turns[0]["session"].as_str().expect("id").to_string();
    // the latest session by default: its result set is still there to narrow
    let (code, turns, err) = chat(v.path(), &["--resume"], &["only the ones from this year"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(turns[0]["session"], id.as_str());
    let out = output(&turns[0]);
    assert!(
        out.contains("Taxes plan") && !out.contains("Taxes old"),
        "{out}"
    );

    // an interview cut off by the end of input goes on in the resumed session
    let (_, turns, _) = chat(v.path(), &[], &["set up the vault", "Grace"]);
    let onboarding = turns[0]["session"].as_str().expect("id").to_string();
    let (code, _, err) = chat(
        v.path(),
        &["--resume", &onboarding],
        &["en", "Research", "", "", "", "yes"],
    );
    assert_eq!(code, 0, "{err}");
    let profile = std::fs::read_to_string(v.path().join("Meta/user-profile.md")).expect("profile");
    assert!(profile.contains("name: Grace\n"), "{profile}");
    assert!(v.path().join("02-Areas/Research/_index.md").is_file());
}

#[test]
fn resuming_what_does_not_exist_is_bad_input() {
    let v = vault(&[]);
    let (code, _, err) = chat(v.path(), &["--resume"], &["hi"]);
    assert_eq!(code, 2);
    assert!(err.contains("no chat session to resume"), "{err}");
    let (code, _, err) = chat(v.path(), &["--resume", "../../etc"], &["hi"]);
    assert_eq!(code, 2);
    assert!(err.contains("no chat session `../../etc`"), "{err}");
}

#[test]
fn end_of_input_ends_the_session_cleanly() {
    let v = vault(&[]);
    let out = crew(v.path())
        .arg("chat")
        .write_stdin("")
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    let sessions: Vec<_> = std::fs::read_dir(v.path().join(".crew/sessions"))
        .expect("sessions")
        .flatten()
        .collect();
    assert_eq!(sessions.len(), 1);
    let text = std::fs::read_to_string(sessions[0].path()).expect("read");
    assert!(text.contains("\"why\":\"end of input\""), "{text}");
    // a line that is no UTF-8 is a turn like any other, not the end
    let out = crew(v.path())
        .arg("chat")
        .write_stdin(b"find \xff taxes\n".to_vec())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn create_agent_interview_ends_in_agents_new() {
    let v = common::adopted_vault(&[]);
    let (code, turns, err) = chat(
        v.path(),
        &[],
        &[
            "create a new agent",
            "seeker",
            "Tax-Helper",
            "",
            "Answers questions about taxes.",
            "tax question, about my taxes",
            "which receipts do I still need for 2025?; can I deduct my home office, and how much?",
            "read, fly",
            "read",
            "",
            "yes",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let said: Vec<&str> = turns.iter().filter_map(|t| t["said"].as_str()).collect();
    assert!(said.iter().any(|s| s.contains("core agent")), "{said:?}");
    assert!(
        said.iter().any(|s| s.contains("This one is needed")),
        "{said:?}"
    );
    assert!(
        said.iter().any(|s| s.contains("`fly` is no capability")),
        "{said:?}"
    );
    let created = turns
        .iter()
        .find(|t| t.get("created").is_some())
        .expect("agents new output");
    assert!(
        created["created"]
            .as_str()
            .unwrap_or("")
            .ends_with("agents/tax-helper.md")
    );
    let file = std::fs::read_to_string(v.path().join(".crew/agents/tax-helper.md")).expect("file");
    assert!(file.contains("Answers questions about taxes."), "{file}");
    assert!(file.contains("\"tax question\""), "{file}");
    assert!(
        file.contains("  - \"can I deduct my home office, and how much?\""),
        "each example request is one item, commas and all: {file}"
    );
    assert!(file.contains("model: mid"), "{file}");
    let list = crew(v.path())
        .args(["agents", "list"])
        .output()
        .expect("list");
    assert!(String::from_utf8_lossy(&list.stdout).contains("tax-helper"));

    // the anchor's own layout (.claude/): its skill file has no question list, so the built-in
    // questions are asked, and the agent lands in .claude/agents/ with its registry row
    let anchor = vault(&[]);
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault");
    for e in walkdir::WalkDir::new(&src).into_iter().flatten() {
        let rel = e.path().strip_prefix(&src).expect("under src");
        let to = anchor.path().join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(e.path(), &to).expect("copy");
        }
    }
    let (code, _, err) = chat(
        anchor.path(),
        &[],
        &[
            "create a new agent",
            "tax-helper",
            "Taxes.",
            "tax question",
            "",
            "",
            "",
            "yes",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(anchor.path().join(".claude/agents/tax-helper.md").is_file());
    let registry =
        std::fs::read_to_string(anchor.path().join(".claude/references/agents-registry.md"))
            .expect("registry");
    assert!(registry.contains("| tax-helper |"), "{registry}");
}

/// The built-in crew cannot change: the create-agent interview says what to do and goes on.
#[test]
fn create_agent_interview_on_the_builtin_crew_says_what_to_do() {
    let plain = vault(&[]);
    let (code, turns, _) = chat(
        plain.path(),
        &[],
        &[
            "create a new agent",
            "tax-helper",
            "Taxes.",
            "",
            "",
            "",
            "",
            "yes",
        ],
    );
    assert_eq!(code, 0);
    let last = turns.last().and_then(|t| t["said"].as_str()).unwrap_or("");
    assert!(
        last.contains("was not created") && last.contains("crew init --adopt"),
        "{last}"
    );
}

const ASKS: &str = r#"{"choices":[{"message":{"role":"assistant","content":"I can save it.\n\n### Question for the user\n- **Ask**: Which room is the boiler in?"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":5}}"#;
const SAVED: &str = r#"{"choices":[{"message":{"role":"assistant","content":"Saved: the boiler is in the basement."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":5}}"#;

#[test]
fn a_model_agent_asks_and_gets_the_next_line_with_the_conversation() {
    let mut server = Server::new();
    let first = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("remember the boiler service".into()))
        .with_status(200)
        .with_body(ASKS)
        .expect(1)
        .create();
    // the answer comes back to the transcriber with the earlier turn and its question
    let second = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::AllOf(vec![
            Matcher::Regex("in the basement".into()),
            Matcher::Regex("remember the boiler service".into()),
            Matcher::Regex("Which room is the boiler in".into()),
        ]))
        .with_status(200)
        .with_body(SAVED)
        .expect(1)
        .create();
    let v = vault(&[
        ("00-Inbox/.keep", ""),
        (".crew/config.yaml", "models:\n  mid: gpt-4.1-mini\n"),
    ]);
    let (code, turns, err) = chat_env(
        v.path(),
        &[],
        &[
            "@transcriber remember the boiler service in May",
            "in the basement",
        ],
        &[
            ("OPENAI_API_KEY", "k".into()),
            ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
        ],
    );
    assert_eq!(code, 0, "{err}");
    first.assert();
    second.assert();
    assert_eq!(
        turns[0]["question"]["question"]["ask"],
        "Which room is the boiler in?"
    );
    assert_eq!(turns[1]["chain"][0]["agent"], "transcriber");
    assert!(output(&turns[1]).contains("Saved: the boiler is in the basement."));
}

#[test]
fn the_classifier_sees_the_earlier_turns() {
    let mut server = Server::new();
    let classify = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::AllOf(vec![
            Matcher::Regex("MESSAGE TO CLASSIFY".into()),
            Matcher::Regex("user: find my notes about taxes".into()),
        ]))
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"{\"route\": \"seeker\", \"reason\": \"follow-up\"}"}}]}"#)
        .expect(1)
        .create();
    let v = tax_vault();
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        "classifier: gpt-4.1-nano\n",
    )
    .expect("config");
    let (code, turns, err) = chat_env(
        v.path(),
        &[],
        &["find my notes about taxes", "zzz qqq"],
        &[
            ("OPENAI_API_KEY", "k".into()),
            ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
        ],
    );
    assert_eq!(code, 0, "{err}");
    classify.assert();
    assert_eq!(turns[1]["route"]["name"], "seeker");
}

#[cfg(unix)]
/// Waits (bounded) until `path` exists.
fn wait_for(path: &std::path::Path) {
    for _ in 0..1000 {
        if path.exists() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} never appeared", path.display());
}

#[cfg(unix)]
fn interrupt(child: &std::process::Child) {
    let pid = i32::try_from(child.id()).expect("pid");
    // SAFETY: kill(2) with a pid this test started and a standard signal
    let rc = unsafe { libc::kill(pid, libc::SIGINT) };
    assert_eq!(rc, 0);
}

#[cfg(unix)]
fn spawn_chat(v: &std::path::Path, env: &[(&str, String)]) -> std::process::Child {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("crew"));
    c.env("XDG_CACHE_HOME", common::test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL");
    for (k, val) in env {
        c.env(k, val);
    }
    c.arg("--vault")
        .arg(v)
        .arg("chat")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn crew chat")
}

#[cfg(unix)]
#[test]
fn ctrl_c_twice_at_the_prompt_leaves() {
    let v = vault(&[]);
    let mut child = spawn_chat(v.path(), &[]);
    let sessions = v.path().join(".crew/sessions");
    wait_for(&sessions);
    for _ in 0..200 {
        if std::fs::read_dir(&sessions).map(|d| d.count()).unwrap_or(0) > 0 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let lines = stderr_lines(&mut child);
    interrupt(&child);
    // two signals sent at once may arrive as one: the second follows crew's answer to the first
    wait_for_line(&lines, "Ctrl-C again");
    // stdin stays open: leaving must come from the second Ctrl-C, not from the end of input
    let _stdin = child.stdin.take().expect("stdin");
    interrupt(&child);
    let mut status = None;
    for _ in 0..2000 {
        status = child.try_wait().expect("try_wait");
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let Some(status) = status else {
        let _ = child.kill();
        panic!("a second Ctrl-C did not end the chat");
    };
    assert_eq!(status.code(), Some(130));
}

#[cfg(unix)]
/// The child's stderr, line by line, read on a thread.
fn stderr_lines(child: &mut std::process::Child) -> std::sync::mpsc::Receiver<String> {
    use std::io::BufRead as _;
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    rx
}

#[cfg(unix)]
/// Waits (bounded) for a line of the child's stderr holding `needle`.
fn wait_for_line(lines: &std::sync::mpsc::Receiver<String>, needle: &str) {
    loop {
        let line = lines
            .recv_timeout(std::time::Duration::from_secs(20))
            .unwrap_or_else(|_| panic!("crew never said \"{needle}\""));
        if line.contains(needle) {
            return;
        }
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_cancels_the_running_turn_and_undoes_what_it_wrote() {
    use std::io::Write as _;
    let flags = assert_fs::TempDir::new().expect("tmp");
    let arrived = flags.path().join("arrived");
    let release = flags.path().join("release");
    let (a, r) = (arrived.clone(), release.clone());
    let mut server = Server::new();
    // the model's first answer waits until the test has pressed Ctrl-C: the turn is running
    let _tool = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("save: hello".into()))
        .with_status(200)
        .with_body_from_request(move |_| {
            let _ = std::fs::write(&a, "");
            for _ in 0..2000 {
                if r.exists() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            br#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write_note","arguments":"{\"path\":\"00-Inbox/From model.md\",\"content\":\"hello\",\"mode\":\"create\"}"}}]},"finish_reason":"tool_calls"}]}"#.to_vec()
        })
        .expect(1)
        .create();
    let _done = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("call_1".into()))
        .with_status(200)
        .with_body(SAVED)
        .create();
    let v = vault(&[
        ("00-Inbox/.keep", ""),
        (".crew/config.yaml", "models:\n  mid: gpt-4.1-mini\n"),
    ]);
    let mut child = spawn_chat(
        v.path(),
        &[
            ("OPENAI_API_KEY", "k".into()),
            ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
        ],
    );
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"@transcriber save: hello\n")
        .expect("write");
    stdin.flush().expect("flush");
    wait_for(&arrived);
    let lines = stderr_lines(&mut child);
    interrupt(&child);
    // crew has taken the Ctrl-C before the model answers
    wait_for_line(&lines, "cancelling this turn");
    std::fs::write(&release, "").expect("release");
    drop(stdin);
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "one Ctrl-C does not leave: {stdout}"
    );
    assert!(
        stdout.contains("Turn cancelled") && stdout.contains("undone"),
        "{stdout}"
    );
    assert!(
        !v.path().join("00-Inbox/From model.md").exists(),
        "what the cancelled turn wrote is taken back"
    );
}

#[test]
fn a_question_in_a_one_shot_request_points_to_chat_and_stops_the_chain() {
    let mut server = Server::new();
    let _m = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(ASKS)
        .create();
    let v = vault(&[("00-Inbox/.keep", "")]);
    let out = crew(v.path())
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .args([
            "ask",
            "--agent",
            "scribe",
            "--model",
            "gpt-4.1-mini",
            "remember the boiler",
        ])
        .output()
        .expect("ask");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("The scribe asks: Which room is the boiler in?")
            && text.contains("crew chat"),
        "{text}"
    );
}

#[test]
fn the_onboarding_questions_are_the_ones_in_the_skill_file() {
    let v = common::adopted_vault(&[]);
    let skill = v.path().join(".crew/skills/onboarding/SKILL.md");
    let text = std::fs::read_to_string(&skill).expect("installed skill");
    let edited = text
        .replace(
            "- name: What should the crew call you?",
            "- name: How do you like to be addressed?",
        )
        .replace(
            "- role: What do you do, in a few words?",
            "- pets: Any pets the crew should know about?",
        );
    assert_ne!(edited, text, "the installed skill holds the question list");
    std::fs::write(&skill, &edited).expect("edit");
    let (code, turns, err) = chat(
        v.path(),
        &[],
        &[
            "set up the vault",
            "Ada",
            "",
            "Home",
            "a cat",
            "",
            "",
            "yes",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let first = turns[0]["said"].as_str().unwrap_or("");
    assert!(
        first.contains("How do you like to be addressed?"),
        "{first}"
    );
    let profile = std::fs::read_to_string(v.path().join("Meta/user-profile.md")).expect("profile");
    assert!(profile.contains("pets: a cat\n"), "{profile}");
    assert!(
        profile.contains("primary-language: en\n"),
        "a skipped language is English: {profile}"
    );

    // a line the interview cannot read is named with its file and line; nothing starts
    std::fs::write(&skill, edited.replace("- pets:", "pets =")).expect("break");
    let line = edited
        .lines()
        .position(|l| l.starts_with("- pets:"))
        .expect("pets line")
        + 1;
    let (code, turns, _) = chat(v.path(), &[], &["set up the vault", "Bob"]);
    assert_eq!(code, 0);
    let said = turns[0]["said"].as_str().unwrap_or("");
    assert!(
        said.contains(&format!("SKILL.md:{line}:")) && said.contains("cannot start"),
        "{said}"
    );
}

#[test]
fn a_native_agent_asks_and_the_next_line_is_its_answer() {
    let v = vault(&[("00-Inbox/.keep", "")]);
    let (code, turns, err) = chat(v.path(), &[], &["create a new area", "Health"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(turns[0]["chain"][0]["agent"], "architect");
    assert_eq!(
        turns[0]["question"]["question"]["ask"],
        "What should the new area be called?"
    );
    let made = turns[0]["chain"][0]["operations"].to_string();
    assert!(
        !made.contains("02-Areas"),
        "nothing is built before the answer: {made}"
    );
    // "Health" alone routes nowhere in particular: it is the architect's answer
    assert_eq!(turns[1]["chain"][0]["agent"], "architect");
    assert!(v.path().join("02-Areas/Health/_index.md").is_file());
    assert!(turns[1]["question"].is_null(), "the question is answered");
}
