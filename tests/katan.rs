//! The providers against llm-katan, a third-party server that speaks the OpenAI, Anthropic and
//! Vertex/Gemini wire formats (echo backend, no weights). `.ci/run` installs and starts two
//! instances and sets CREW_KATAN_PLAIN (plain answers) and CREW_KATAN_TOOLS (answers every
//! request that offers tools with a tool call: a runaway model).

mod common;

fn servers() -> Option<(String, String)> {
    match (
        std::env::var("CREW_KATAN_PLAIN"),
        std::env::var("CREW_KATAN_TOOLS"),
    ) {
        (Ok(p), Ok(t)) if !p.is_empty() && !t.is_empty() => Some((p, t)),
        _ => {
            common::skipped(
                "CREW_KATAN_PLAIN / CREW_KATAN_TOOLS are not set (.ci/run starts llm-katan and sets them)",
            );
            None
        }
    }
}

fn run(base: &str, model: &str) -> serde_json::Value {
    let v = common::vault(&[
        ("00-Inbox/.keep", ""),
        (
            ".crew/config.yaml",
            "providers:\n  gemini:\n    auth: bearer\n",
        ),
    ]);
    let mut cmd = common::crew(v.path());
    cmd.env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{base}/v1"))
        .env("ANTHROPIC_API_KEY", "k")
        .env("ANTHROPIC_BASE_URL", base)
        .env("GEMINI_API_KEY", "k")
        .env("GEMINI_BASE_URL", base)
        .args([
            "ask",
            "--json",
            "--agent",
            "scribe",
            "--model",
            model,
            "hello from crew",
        ]);
    let out = cmd.output().expect("run crew");
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn every_provider_gets_an_answer_from_a_real_wire_format_server() {
    let Some((plain, _)) = servers() else { return };
    for model in ["gpt-4.1-mini", "claude-sonnet-4-5", "gemini-2.5-flash"] {
        let out = run(&plain, model);
        let step = &out["chain"][0];
        assert!(step["error"].is_null(), "{model}: {}", step["error"]);
        assert!(
            step["output"]
                .as_str()
                .unwrap_or("")
                .contains("hello from crew"),
            "{model}: {}",
            step["output"]
        );
        assert_eq!(step["model"], model);
    }
}

#[test]
fn a_server_that_always_calls_tools_is_stopped_cleanly() {
    let Some((_, tools)) = servers() else { return };
    for model in ["gpt-4.1-mini", "claude-sonnet-4-5", "gemini-2.5-flash"] {
        let out = run(&tools, model);
        let err = out["chain"][0]["error"].as_str().unwrap_or("").to_string();
        assert!(
            err.contains("stopped after 20 tool calls"),
            "{model}: {err}"
        );
    }
}
