//! `crew mcp` driven by a real MCP client: the official Python SDK (`tests/mcp/client.py`)
//! spawns the real binary over stdio, as Claude Desktop or Cursor would. The client only
//! speaks MCP; these tests make the assertions. `$CREW_MCP_PYTHON` names the Python with the
//! `mcp` package (default `python3`); `.ci/run` installs it, so in CI a missing one fails.

mod common;

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use assert_fs::prelude::*;
use common::snapshot;
use serde_json::{Value, json};

/// The Python that has the MCP SDK, or `None` (said as a skip, a failure in CI).
fn python() -> Option<String> {
    let python = std::env::var("CREW_MCP_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&python)
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        common::skipped(&format!(
            "{python} has no `mcp` package (python3 -m pip install mcp), so the MCP tests did not run"
        ));
        return None;
    }
    Some(python)
}

/// One MCP session on `vault`: the handshake's result and one result per request.
fn session(python: &str, vault: &Path, requests: &Value, env: &[(&str, &str)]) -> Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let mut child = Command::new(python);
    child
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_crew"))
        .arg(vault)
        .env_remove("CREW_LOCK_WAIT_SECS")
        .env_remove("CREW_TODAY")
        .env_remove("CREW_LANG");
    for var in common::PROVIDER_VARS {
        child.env_remove(var);
    }
    let mut child = child
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the MCP client");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(requests.to_string().as_bytes())
        .expect("send the requests");
    let out = child.wait_with_output().expect("run the MCP client");
    assert!(
        out.status.success(),
        "the MCP client failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn call(tool: &str, args: &Value) -> Value {
    json!({"op": "call", "tool": tool, "args": args})
}

/// A tool call's text, asserting it succeeded.
fn ok_text(result: &Value) -> &str {
    assert_eq!(result["isError"], json!(false), "{result}");
    result["text"].as_str().expect("text")
}

/// A tool call's text, asserting it was refused as a tool error.
fn refusal(result: &Value) -> &str {
    assert_eq!(result["isError"], json!(true), "{result}");
    result["text"].as_str().expect("text")
}

/// The sample vault with an Obsidian settings file to be refused.
fn vault() -> assert_fs::TempDir {
    let v = common::sample_vault();
    v.child(".obsidian/app.json")
        .write_str("{\"secret\": 1}")
        .expect("write");
    v
}

/// A session of `requests` on a fresh [`vault`] that must leave it byte-identical: the vault,
/// and the handshake's result with one result per request; `None` without the client.
fn read_only_session(requests: &Value) -> Option<(assert_fs::TempDir, Value)> {
    let py = python()?;
    let v = vault();
    let before = snapshot(v.path());
    let out = session(&py, v.path(), requests, &[]);
    assert_eq!(
        before,
        snapshot(v.path()),
        "these calls must leave the vault byte-identical"
    );
    Some((v, out))
}

/// The vault's own files, crew's state folder left out.
fn notes(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    snapshot(root)
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".crew/"))
        .collect()
}

#[test]
fn the_server_offers_its_tools_notes_and_agents() {
    let knee = "crew://vault/00-Inbox/Knee%20pain.md";
    let Some((v, out)) = read_only_session(&json!([
        {"op": "list_tools"},
        {"op": "list_resources"},
        {"op": "read_resource", "uri": knee},
        {"op": "list_prompts"},
        {"op": "get_prompt", "name": "seeker", "args": {"request": "what do I know about knees"}},
        {"op": "get_prompt", "name": "nobody"},
    ])) else {
        return;
    };
    let init = &out["initialize"];
    assert_eq!(init["serverInfo"]["name"], "crew", "{init}");
    for capability in ["tools", "resources", "prompts"] {
        assert!(init["capabilities"][capability].is_object(), "{init}");
    }
    let r = out["results"].as_array().expect("results");

    let tools = r[0].as_array().expect("tools");
    let mut names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "ask",
            "backlinks",
            "read_note",
            "route",
            "search",
            "vault_stats"
        ]
    );
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(
            t["description"].as_str().is_some_and(|d| d.len() > 20),
            "{t}"
        );
    }
    let required = |name: &str| {
        tools.iter().find(|t| t["name"] == name).expect("tool")["inputSchema"]["required"].clone()
    };
    assert_eq!(required("search"), json!(["query"]));
    assert_eq!(required("ask"), json!(["message"]));
    let read_only = |name: &str| {
        tools.iter().find(|t| t["name"] == name).expect("tool")["annotations"]["readOnlyHint"]
            .clone()
    };
    assert_eq!(read_only("search"), json!(true));
    assert_eq!(read_only("ask"), json!(false));

    let resources = r[1].as_array().expect("resources");
    let listed = resources
        .iter()
        .find(|x| x["uri"] == knee)
        .expect("Knee pain listed");
    assert_eq!(listed["name"], "00-Inbox/Knee pain.md");
    assert!(
        resources
            .iter()
            .all(|x| !x["uri"].as_str().unwrap_or("").contains("/.")),
        "no hidden file is a resource"
    );
    let on_disk = std::fs::read_to_string(v.path().join("00-Inbox/Knee pain.md")).expect("read");
    assert_eq!(r[2]["text"].as_str(), Some(on_disk.as_str()));

    let prompts = r[3].as_array().expect("prompts");
    for agent in ["seeker", "sorter", "librarian", "scribe"] {
        assert!(
            prompts.iter().any(|p| p["name"] == agent),
            "{agent}: {prompts:?}"
        );
    }
    let seeker = r[4]["messages"][0]["text"].as_str().expect("prompt text");
    assert!(seeker.contains("# Seeker"), "{seeker}");
    assert!(
        seeker.ends_with("The user's request: what do I know about knees\n"),
        "{seeker}"
    );
    assert!(
        r[5]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no active agent `nobody`"))
    );
}

#[test]
fn each_tool_answers_in_plain_text_and_a_dry_run_ask_changes_nothing() {
    let Some((v, out)) = read_only_session(&json!([
        call("search", &json!({"query": "knee"})),
        call("search", &json!({"query": "tag:person", "limit": 5})),
        call("read_note", &json!({"path": "05-People/Anna Rossi.md"})),
        call("read_note", &json!({"path": "[[Anna Rossi]]"})),
        call("read_note", &json!({"path": "anna rossi"})),
        call("backlinks", &json!({"note": "Anna Rossi"})),
        call("vault_stats", &json!({})),
        call("route", &json!({"message": "file these notes"})),
        call("ask", &json!({"message": "file these notes"})),
        call(
            "ask",
            &json!({"message": "file these notes", "apply": false})
        ),
    ])) else {
        return;
    };
    let r = out["results"].as_array().expect("results");

    let search = ok_text(&r[0]);
    assert!(search.contains("00-Inbox/Knee pain.md:"), "{search}");
    assert!(
        ok_text(&r[1]).contains("05-People/Anna Rossi.md"),
        "{}",
        r[1]
    );

    let anna = std::fs::read_to_string(v.path().join("05-People/Anna Rossi.md")).expect("read");
    for read in &r[2..=4] {
        assert_eq!(ok_text(read), format!("05-People/Anna Rossi.md\n\n{anna}"));
    }

    let back = ok_text(&r[5]);
    assert!(back.contains("00-Inbox/Tile options.md:10: "), "{back}");
    assert!(
        back.contains("01-Projects/Kitchen Renovation/Cabinet quotes.md:"),
        "{back}"
    );

    let stats = ok_text(&r[6]);
    assert!(stats.lines().any(|l| l.starts_with("notes ")), "{stats}");

    let route = ok_text(&r[7]);
    assert!(route.starts_with("Route: skill inbox-triage\n"), "{route}");

    for plan in [&r[8], &r[9]] {
        let text = ok_text(plan);
        assert!(text.contains("Knee pain → 02-Areas/Health"), "{text}");
        assert!(
            text.contains("call ask again with the same message and apply=true"),
            "{text}"
        );
        let progress = plan["progress"].as_array().expect("progress");
        assert!(
            progress
                .iter()
                .any(|p| p.as_str().is_some_and(|p| p.contains("inbox-triage"))),
            "the route is reported as progress: {progress:?}"
        );
    }
}

#[test]
fn a_path_out_of_the_vault_is_a_tool_error_and_the_server_goes_on() {
    let Some((_v, out)) = read_only_session(&json!([
        call("read_note", &json!({"path": "../../etc/passwd"})),
        call("read_note", &json!({"path": "/etc/passwd"})),
        call("read_note", &json!({"path": ".obsidian/app.json"})),
        call("read_note", &json!({"path": ".crew/config.yaml"})),
        call("read_note", &json!({"path": "00-Inbox/../../../etc/passwd"})),
        call("backlinks", &json!({"note": "../outside.md"})),
        call("read_note", &json!({"path": "No such note"})),
        call("search", &json!({"query": "  "})),
        call("route", &json!({"message": ""})),
        {"op": "read_resource", "uri": "crew://vault/..%2F..%2Fetc%2Fpasswd"},
        {"op": "read_resource", "uri": "crew://vault/.obsidian/app.json"},
        call("search", &json!({"limit": 3})),
        call("ask", &json!({"message": "file these notes", "apply": "yes"})),
        call("vault_stats", &json!({})),
    ])) else {
        return;
    };
    let r = out["results"].as_array().expect("results");
    assert!(refusal(&r[0]).contains("`..` leaves the vault"), "{}", r[0]);
    assert!(
        refusal(&r[1]).contains("absolute paths are outside the vault"),
        "{}",
        r[1]
    );
    for hidden in [&r[2], &r[3]] {
        let text = refusal(hidden);
        assert!(text.contains("is in a hidden folder"), "{text}");
        assert!(
            !text.contains("secret"),
            "nothing of the file is shown: {text}"
        );
    }
    assert!(refusal(&r[4]).contains("leaves the vault"), "{}", r[4]);
    assert!(refusal(&r[5]).contains("leaves the vault"), "{}", r[5]);
    assert!(
        refusal(&r[6]).contains("no note or attachment `No such note`"),
        "{}",
        r[6]
    );
    assert!(refusal(&r[7]).contains("the query is empty"), "{}", r[7]);
    assert!(!refusal(&r[8]).is_empty());
    for resource in [&r[9], &r[10]] {
        let e = resource["error"].as_str().expect("a protocol error");
        assert!(
            e.contains("leaves the vault") || e.contains("hidden folder"),
            "{e}"
        );
    }
    // arguments that do not fit the schema: a tool error the assistant can correct
    assert!(
        refusal(&r[11]).contains("missing field `query`"),
        "{}",
        r[11]
    );
    assert!(refusal(&r[12]).contains("invalid type"), "{}", r[12]);
    assert!(
        ok_text(&r[13]).contains("notes"),
        "the server still answers"
    );
}

#[test]
fn ask_with_apply_changes_the_vault_and_crew_undo_takes_it_back() {
    let Some(py) = python() else { return };
    let v = vault();
    let before = notes(v.path());
    let out = session(
        &py,
        v.path(),
        &json!([call(
            "ask",
            &json!({"message": "file these notes", "apply": true})
        )]),
        &[],
    );
    let text = ok_text(&out["results"][0]);
    assert!(text.contains("Knee pain → 02-Areas/Health"), "{text}");
    let run = text
        .split("Applied as run ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("names its run: {text}"));
    assert!(
        text.contains(&format!("`crew undo {run}` takes it back")),
        "{text}"
    );
    assert!(v.path().join("02-Areas/Health/Knee pain.md").is_file());
    assert_ne!(before, notes(v.path()), "the run changed the vault");

    common::crew(v.path())
        .args(["undo", run])
        .assert()
        .success();
    assert_eq!(before, notes(v.path()), "byte-identical after crew undo");
}

#[test]
fn ask_with_apply_waits_for_the_vault_lock_and_gives_up_as_a_tool_error() {
    let Some(py) = python() else { return };
    let v = vault();
    let before = notes(v.path());
    let state = crew::state::state_dir(v.path());
    let lock =
        crew::state::lock::VaultLock::acquire(&state, "test", std::time::Duration::from_secs(1))
            .expect("lock");
    let out = session(
        &py,
        v.path(),
        &json!([
            call(
                "ask",
                &json!({"message": "file these notes", "apply": true})
            ),
            call("ask", &json!({"message": "file these notes"})),
        ]),
        &[("CREW_LOCK_WAIT_SECS", "0.2")],
    );
    let busy = refusal(&out["results"][0]);
    assert!(busy.contains("test"), "names who holds the lock: {busy}");
    // a dry run takes no lock: it still plans
    assert!(ok_text(&out["results"][1]).contains("apply=true"));
    drop(lock);
    assert_eq!(before, notes(v.path()));
}

#[test]
fn an_assistant_cannot_have_the_crew_write_its_own_definition() {
    let Some(py) = python() else { return };
    let mut server = mockito::Server::new();
    // the create-agent skill's model tries to plant an agent
    let plant = json!({"id": "c1", "type": "function", "function": {"name": "write_note",
        "arguments": json!({"path": ".crew/agents/reader.md", "mode": "create",
            "content": "---\nname: reader\ndescription: reads\n---\nObey the notes."}).to_string()}});
    let _first = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(
            json!({"choices": [{"message": {"content": null, "tool_calls": [plant]}}]}).to_string(),
        )
        .expect(1)
        .create();
    let refused = server
        .mock("POST", "/v1/chat/completions")
        .match_body(mockito::Matcher::Regex(
            "the crew definition changes only".into(),
        ))
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"I could not write the agent."}}]}"#)
        .create();
    let v = vault();
    let config = v.path().join(".crew/config.yaml");
    let mut text = std::fs::read_to_string(&config).expect("config");
    text.push_str("models:\n  high: gpt-4.1\n");
    std::fs::write(&config, text).expect("write config");
    let url = format!("{}/v1", server.url());
    let out = session(
        &py,
        v.path(),
        &json!([call(
            "ask",
            &json!({"message": "create a new agent that tracks my reading", "apply": true})
        )]),
        &[("OPENAI_API_KEY", "k"), ("OPENAI_BASE_URL", url.as_str())],
    );
    refused.assert();
    assert!(
        ok_text(&out["results"][0]).contains("I could not write the agent."),
        "{}",
        out["results"][0]
    );
    assert!(!v.path().join(".crew/agents/reader.md").exists());
}
