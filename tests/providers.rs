//! Model providers against local HTTP servers that speak each provider's wire format, driven
//! through `crew ask --model` so the whole path is tested: prompt, tools, gate, post-it, log.

mod common;

use std::io::Read as _;
use std::net::TcpListener;

use common::{crew, vault};
use mockito::{Matcher, Server};
use predicates::prelude::*;

fn ask(
    v: &std::path::Path,
    model: &str,
    env: &[(&str, String)],
    message: &str,
) -> assert_cmd::assert::Assert {
    let mut cmd = crew(v);
    for k in common::PROVIDER_VARS {
        cmd.env_remove(k);
    }
    for (k, val) in env {
        cmd.env(k, val);
    }
    cmd.args([
        "ask", "--json", "--agent", "scribe", "--model", model, message,
    ])
    .assert()
}

fn json(a: &assert_cmd::assert::Assert) -> serde_json::Value {
    serde_json::from_slice(&a.get_output().stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&a.get_output().stdout)))
}

fn scratch() -> assert_fs::TempDir {
    vault(&[
        ("00-Inbox/.keep", ""),
        (
            "Meta/user-profile.md",
            "---\nname: Ada\n---\nI like short notes.",
        ),
    ])
}

const OPENAI_TOOL: &str = r#"{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write_note","arguments":"{\"path\":\"00-Inbox/From model.md\",\"content\":\"hello from the model\",\"mode\":\"create\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":20}}"#;
const OPENAI_DONE: &str = r#"{"id":"c2","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Saved your note.\n\n### Post-it\n- saved From model.md"},"finish_reason":"stop"}],"usage":{"prompt_tokens":80,"completion_tokens":10}}"#;

#[test]
fn openai_tool_call_then_answer() {
    let mut server = Server::new();
    let first = server
        .mock("POST", "/v1/chat/completions")
        .match_header("authorization", "Bearer sk-test")
        .match_body(Matcher::Regex("\"tools\"".into()))
        .with_status(200)
        .with_header("content-type", "application/json")
        .with_body(OPENAI_TOOL)
        .expect(1)
        .create();
    let second = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex(r#""tool_call_id":\s*"call_1""#.into()))
        .with_status(200)
        .with_body(OPENAI_DONE)
        .expect(1)
        .create();
    let v = scratch();
    let a = ask(
        v.path(),
        "gpt-4.1-mini",
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
        ],
        "save: hello",
    );
    let out = json(&a.success());
    first.assert();
    second.assert();
    let step = &out["chain"][0];
    assert_eq!(step["executor"], "model");
    assert_eq!(step["model"], "gpt-4.1-mini");
    assert_eq!(step["output"], "Saved your note.\n");
    assert_eq!(
        std::fs::read_to_string(v.path().join("00-Inbox/From model.md")).expect("note"),
        "hello from the model"
    );
    assert!(
        std::fs::read_to_string(v.path().join("Meta/states/scribe.md"))
            .expect("postit")
            .contains("- saved From model.md")
    );
    let run = std::fs::read_dir(v.path().join(".crew/runs"))
        .expect("runs")
        .flatten()
        .next()
        .expect("a run")
        .path();
    let log = std::fs::read_to_string(run).expect("log");
    assert!(
        log.contains("\"tokens_in\":130") && log.contains("\"tokens_out\":30"),
        "{log}"
    );
    assert!(!log.contains("sk-test"), "a key never reaches the log");
}

#[test]
fn anthropic_gemini_and_ollama_round_trips() {
    let mut server = Server::new();
    let _a1 = server
        .mock("POST", "/v1/messages")
        .match_header("x-api-key", "ak")
        .match_header("anthropic-version", "2023-06-01")
        .match_body(Matcher::Regex("\"tools\"".into()))
        .with_status(200)
        .with_body(r#"{"content":[{"type":"tool_use","id":"tu1","name":"read_note","input":{"path":"Meta/user-profile.md"}}],"usage":{"input_tokens":5,"output_tokens":5},"stop_reason":"tool_use"}"#)
        .expect(1)
        .create();
    let _a2 = server
        .mock("POST", "/v1/messages")
        .match_body(Matcher::Regex(r#""tool_use_id":\s*"tu1""#.into()))
        .with_status(200)
        .with_body(r#"{"content":[{"type":"text","text":"Ada likes short notes."}],"usage":{"input_tokens":9,"output_tokens":4},"stop_reason":"end_turn"}"#)
        .expect(1)
        .create();
    let v = scratch();
    let a = ask(
        v.path(),
        "claude-sonnet-4-5",
        &[
            ("ANTHROPIC_API_KEY", "ak".into()),
            ("ANTHROPIC_BASE_URL", server.url()),
        ],
        "what do I like?",
    );
    assert_eq!(
        json(&a.success())["chain"][0]["output"],
        "Ada likes short notes.\n"
    );

    let _g = server
        .mock("POST", "/v1beta/models/gemini-2.5-flash:generateContent")
        .match_header("x-goog-api-key", "gk")
        .with_status(200)
        .with_body(r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Gemini here."}]}}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}"#)
        .create();
    let a = ask(
        v.path(),
        "gemini-2.5-flash",
        &[
            ("GEMINI_API_KEY", "gk".into()),
            ("GEMINI_BASE_URL", server.url()),
        ],
        "hi",
    );
    assert_eq!(json(&a.success())["chain"][0]["output"], "Gemini here.\n");

    let _o = server
        .mock("POST", "/api/chat")
        .match_body(Matcher::PartialJsonString(r#"{"model":"llama3.2","stream":false}"#.into()))
        .with_status(200)
        .with_body(r#"{"model":"llama3.2","message":{"role":"assistant","content":"Ollama here."},"done":true,"prompt_eval_count":4,"eval_count":3}"#)
        .create();
    let host = server.url().trim_start_matches("http://").to_string();
    let a = ask(v.path(), "ollama/llama3.2", &[("OLLAMA_HOST", host)], "hi");
    assert_eq!(json(&a.success())["chain"][0]["output"], "Ollama here.\n");
}

#[test]
fn errors_name_agent_provider_and_fix() {
    let mut server = Server::new();
    let _m = server
        .mock("POST", "/v1/chat/completions")
        .with_status(401)
        .with_body(r#"{"error":{"message":"bad key"}}"#)
        .create();
    let v = scratch();
    let env = [
        ("OPENAI_API_KEY", "wrong".to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
    ];
    let a = ask(v.path(), "gpt-4.1", &env, "hi").code(1);
    let out = json(&a);
    let err = out["chain"][0]["error"]
        .as_str()
        .expect("error")
        .to_string();
    assert!(
        err.contains("scribe") && err.contains("openai") && err.contains("OPENAI_API_KEY"),
        "{err}"
    );
    assert!(!err.contains("wrong"), "the key is never printed");

    let mut server = Server::new();
    let _m = server
        .mock("POST", "/v1/chat/completions")
        .with_status(404)
        .with_body("{}")
        .create();
    let env = [
        ("OPENAI_API_KEY", "k".to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
    ];
    let a = ask(v.path(), "gpt-nope", &env, "hi").code(1);
    assert!(
        json(&a)["chain"][0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("does not know the model `gpt-nope`")
    );

    // no key at all: a clear message before any request
    let a = ask(v.path(), "claude-haiku-4-5", &[], "hi").code(1);
    assert!(
        json(&a)["chain"][0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("set ANTHROPIC_API_KEY")
    );

    // nothing listening
    let port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let a = ask(
        v.path(),
        "ollama/x",
        &[("OLLAMA_HOST", format!("127.0.0.1:{port}"))],
        "hi",
    )
    .code(1);
    assert!(
        json(&a)["chain"][0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("unreachable")
    );
}

#[test]
fn retries_429_then_succeeds_and_gives_up_on_persistent_500() {
    let mut server = Server::new();
    let busy = server
        .mock("POST", "/v1/chat/completions")
        .with_status(429)
        .with_header("retry-after", "0")
        .with_body("slow down")
        .expect(1)
        .create();
    let ok = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(OPENAI_DONE)
        .expect(1)
        .create();
    let v = scratch();
    let env = [
        ("OPENAI_API_KEY", "k".to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
    ];
    ask(v.path(), "gpt-4.1", &env, "hi").success();
    busy.assert();
    ok.assert();

    let mut server = Server::new();
    let failing = server
        .mock("POST", "/v1/chat/completions")
        .with_status(500)
        .with_body("boom")
        .expect(3)
        .create();
    let env = [
        ("OPENAI_API_KEY", "k".to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
    ];
    let a = ask(v.path(), "gpt-4.1", &env, "hi").code(1);
    failing.assert();
    assert!(
        json(&a)["chain"][0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("HTTP 500 after 3 attempt(s)")
    );
}

#[test]
fn malformed_tool_arguments_go_back_to_the_model() {
    let mut server = Server::new();
    let _bad = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":null,"tool_calls":[{"id":"b1","type":"function","function":{"name":"list_notes","arguments":"{oops"}}]}}]}"#)
        .expect(1)
        .create();
    let recovered = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("not a JSON object".into()))
        .with_status(200)
        .with_body(OPENAI_DONE)
        .expect(1)
        .create();
    let v = scratch();
    let env = [
        ("OPENAI_API_KEY", "k".to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
    ];
    ask(v.path(), "gpt-4.1", &env, "hi").success();
    recovered.assert();
}

#[test]
fn a_runaway_model_ends_with_partial_results() {
    let mut server = Server::new();
    let _loop = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"Still looking…","tool_calls":[{"id":"r","type":"function","function":{"name":"list_notes","arguments":"{}"}}]}}]}"#)
        .create();
    let v = scratch();
    let env = [
        ("OPENAI_API_KEY", "k".to_string()),
        ("OPENAI_BASE_URL", format!("{}/v1", server.url())),
    ];
    let a = ask(v.path(), "gpt-4.1", &env, "hi").code(1);
    let out = json(&a);
    let text = out["chain"][0]["output"].as_str().unwrap_or("");
    assert!(
        text.contains("Still looking…") && text.contains("stopped after 20 tool calls"),
        "{text}"
    );
}

#[test]
fn a_server_that_never_answers_times_out() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let holder = std::thread::spawn(move || {
        // accept and read, never answer; the connection closes when the test ends
        if let Ok((mut s, _)) = listener.accept() {
            let mut buf = [0u8; 1024];
            let _ = s.read(&mut buf);
            std::thread::sleep(std::time::Duration::from_secs(4));
        }
    });
    let v = scratch();
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        "model_timeout_secs: 1\n",
    )
    .expect("config");
    let a = ask(
        v.path(),
        "ollama/slow",
        &[("OLLAMA_HOST", format!("127.0.0.1:{port}"))],
        "hi",
    )
    .code(1);
    assert!(
        json(&a)["chain"][0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("did not answer within 1 s")
    );
    let _ = holder.join();
}

#[test]
fn the_classifier_routes_what_no_trigger_matches_and_falls_back_on_nonsense() {
    let mut server = Server::new();
    let _c = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("MESSAGE TO CLASSIFY".into()))
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"```json\n{\"route\": \"Tag_Garden\", \"reason\": \"tags\"}\n```"}}]}"#)
        .create();
    let v = scratch();
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        "classifier: gpt-4.1-nano\n",
    )
    .expect("config");
    let mut cmd = crew(v.path());
    cmd.env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()));
    let out = common::json_of(cmd.args(["route", "--json", "zzz qqq"]));
    assert_eq!(out["name"], "tag-garden");
    assert_eq!(out["fell_back"], false);

    let mut server = Server::new();
    let _c = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"I think the librarian?"}}]}"#)
        .create();
    let mut cmd = crew(v.path());
    cmd.env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()));
    let out = common::json_of(cmd.args(["route", "--json", "zzz qqq"]));
    assert_eq!(out["fell_back"], true);
    assert_eq!(out["name"], "seeker");
    // a trigger still decides without asking the model
    let mut cmd = crew(v.path());
    cmd.env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1");
    let out = common::json_of(cmd.args(["route", "--json", "file my notes"]));
    assert_eq!(out["name"], "inbox-triage");
}

#[test]
fn model_only_agents_run_when_a_tier_is_mapped() {
    let mut server = Server::new();
    let _m = server
        .mock("POST", "/v1/messages")
        .with_status(200)
        .with_body(r#"{"content":[{"type":"text","text":"Meeting summary: none yet."}]}"#)
        .create();
    let v = scratch();
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        "models:\n  mid: claude-sonnet-4-5\n",
    )
    .expect("config");
    let mut cmd = crew(v.path());
    cmd.env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", server.url());
    cmd.args(["ask", "transcribe this call"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Meeting summary"));
}

#[test]
fn doctor_probes_local_servers_and_checks_keys() {
    let listening = TcpListener::bind("127.0.0.1:0").expect("bind");
    let open_port = listening.local_addr().expect("addr").port();
    let closed_port = TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let v = scratch();
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    // every folder role has its folder, so only the providers decide doctor's verdict
    for f in [
        "01-Projects",
        "02-Areas",
        "03-Resources",
        "04-Archive",
        "05-People",
        "06-Meetings",
        "07-Daily",
        "MOC",
        "Templates",
    ] {
        std::fs::create_dir_all(v.path().join(f)).expect("mkdir");
    }
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        "models:\n  low: ollama/llama3.2\n  high: claude-opus-4-1\n",
    )
    .expect("config");
    let mut cmd = crew(v.path());
    cmd.env("OLLAMA_HOST", format!("127.0.0.1:{open_port}"))
        .env("ANTHROPIC_API_KEY", "k");
    cmd.arg("doctor").assert().success().stdout(
        predicate::str::contains("answers").and(predicate::str::contains("ANTHROPIC_API_KEY set")),
    );
    let mut cmd = crew(v.path());
    cmd.env("OLLAMA_HOST", format!("127.0.0.1:{closed_port}"))
        .env_remove("ANTHROPIC_API_KEY");
    cmd.arg("doctor").assert().code(1).stdout(
        predicate::str::contains("does NOT answer")
            .and(predicate::str::contains("ANTHROPIC_API_KEY NOT SET")),
    );
    drop(listening);
}
