//! Filing with a model, through `crew ask`: the notes the native classifier was not sure of
//! are offered to the configured model, against a local server speaking the OpenAI
//! chat-completions format (never the internet). Only a folder from the list crew offered is
//! ever used; a failing model leaves crew's own result; `crew undo` restores; without a model
//! nothing changes.

mod common;

use std::path::Path;

use common::{crew, snapshot};
use mockito::{Matcher, Server};

const MODEL: &str = "models:\n  mid: gpt-4.1-mini\n";

const LIST: &str = "00-Inbox/Shopping list.md";
const LIST_TEXT: &str = "batteries, a new umbrella, stamps\n";
const TRIP: &str = "00-Inbox/Weekend trip.md";
const TRIP_TEXT: &str = "train at nine, museum, bring the camera\n";

/// A vault kept by topic (a template per folder), a recipe crew files on its own, two notes
/// nothing in the vault is like, and a note linking to one of them by its path.
fn vault(config: &str) -> assert_fs::TempDir {
    let mut files: Vec<(String, String)> = Vec::new();
    for (folder, stock, words) in common::TOPICS {
        for i in 0..12 {
            let (a, b) = (words[i % words.len()], words[(i + 2) % words.len()]);
            files.push((
                format!("{folder}/Note {i} {a}.md"),
                format!("{stock}\nToday about {a} and {b} ({i}).\n"),
            ));
        }
    }
    files.push((
        "00-Inbox/Sunday stew.md".into(),
        "## Ingredients\n## Method\nServes four.\nGarlic and butter, simmer slowly, then into the oven.\n".into(),
    ));
    files.push((LIST.into(), LIST_TEXT.into()));
    files.push((TRIP.into(), TRIP_TEXT.into()));
    files.push((
        "Errands.md".into(),
        "Before Saturday: [[00-Inbox/Shopping list|the list]].\n".into(),
    ));
    files.push((
        ".crew/config.yaml".into(),
        format!("adopted: true\n{config}"),
    ));
    common::vault_of(&files)
}

/// `crew ask --json "file my notes"` with exactly `env` for the providers → (exit code, JSON).
fn file_notes(v: &Path, env: &[(&str, String)]) -> (i32, serde_json::Value) {
    let mut cmd = crew(v);
    for k in common::PROVIDER_VARS {
        cmd.env_remove(k);
    }
    for (k, val) in env {
        cmd.env(k, val);
    }
    let out = cmd
        .args(["ask", "--json", "file my notes"])
        .output()
        .expect("run");
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), j)
}

fn output(j: &serde_json::Value) -> String {
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

fn openai_reply(text: &str) -> String {
    common::openai_reply(text, 300, 9)
}

/// The number the prompt gave the note with this title.
fn number_in(prompt: &str, title: &str) -> String {
    let at = prompt
        .find(&format!("Title: {title}\n"))
        .unwrap_or_else(|| panic!("{title} not offered:\n{prompt}"));
    let head = &prompt[..at];
    let start = head.rfind("=== note ").expect("a block") + "=== note ".len();
    head[start..].split(' ').next().expect("number").to_string()
}

/// A server answering the sorter's question with `answer(prompt)`, and refusing (with a
/// count of zero expected) any tool-using agent request: the step must not fall through to
/// a second, generic model pass.
fn sorter_server(
    answer: impl Fn(&str) -> String + Send + Sync + 'static,
) -> (mockito::ServerGuard, mockito::Mock, mockito::Mock) {
    let mut server = Server::new();
    let generic = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("\"tools\"".into()))
        .with_status(500)
        .expect(0)
        .create();
    let sorter = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::AllOf(vec![
            Matcher::Regex("=== note 1 ===".into()),
            Matcher::Regex("Folders:".into()),
            Matcher::Regex("Kitchen/Recipes".into()),
        ]))
        .with_status(200)
        .with_body_from_request(move |req| {
            let body: serde_json::Value =
                serde_json::from_slice(req.body().expect("body")).expect("json");
            let prompt = body["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .filter_map(|m| m["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            openai_reply(&answer(&prompt)).into_bytes()
        })
        .expect(1)
        .create();
    (server, generic, sorter)
}

#[test]
fn a_note_crew_was_unsure_of_goes_where_the_model_says_and_undo_restores_it() {
    let v = vault(MODEL);
    let before = snapshot(v.path());
    let (server, generic, sorter) = sorter_server(|prompt| {
        assert!(prompt.contains(LIST_TEXT.trim()), "{prompt}");
        assert!(prompt.contains("=== end of note"), "{prompt}");
        format!(
            "{}: Garden/Plants\n{}: stay\n",
            number_in(prompt, "Shopping list"),
            number_in(prompt, "Weekend trip")
        )
    });
    let (code, j) = file_notes(v.path(), &common::openai_env(&server.url()));
    sorter.assert();
    // the model had its say on every note left: no second, tool-using model pass
    generic.assert();
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert_eq!(j["chain"][0]["agent"], "inbox-triage");
    assert_eq!(j["chain"][0]["executor"], "native", "{j}");
    // crew's own filing stands beside the model's
    assert!(
        v.path().join("Kitchen/Recipes/Sunday stew.md").exists(),
        "{out}"
    );
    assert!(out.contains("like the notes there"), "{out}");
    let moved = v.path().join("Garden/Plants/Shopping list.md");
    let text = std::fs::read_to_string(&moved).expect("filed by the model");
    assert!(text.ends_with(LIST_TEXT), "{text}");
    assert!(!v.path().join(LIST).exists());
    let errands = std::fs::read_to_string(v.path().join("Errands.md")).expect("errands");
    assert!(
        !errands.contains("00-Inbox/Shopping list") && errands.contains("Shopping list|the list]]"),
        "the link was not rewritten: {errands}"
    );
    assert!(
        out.contains("Shopping list → Garden/Plants (chosen by the model `gpt-4.1-mini`)"),
        "{out}"
    );
    assert!(
        out.contains("Weekend trip — ") && out.contains("the model kept it in the inbox too"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(v.path().join(TRIP)).expect("stays"),
        TRIP_TEXT
    );
    let data = &j["chain"][0]["data"]["model"];
    assert_eq!(data["model"], "gpt-4.1-mini", "{data}");
    assert_eq!(data["offered"], 2, "{data}");
    assert_eq!(data["filed"][0]["folder"], "Garden/Plants", "{data}");
    assert_eq!(data["tokens_in"], 300, "{data}");
    let log = std::fs::read_to_string(v.path().join("Meta/agent-log.md")).expect("log");
    assert!(
        log.contains("filed \"Shopping list\" → Garden/Plants/Shopping list.md")
            && log.contains("chosen by the model"),
        "{log}"
    );

    crew(v.path()).arg("undo").assert().success();
    let after = snapshot(v.path());
    for path in [LIST, "Errands.md", TRIP, "00-Inbox/Sunday stew.md"] {
        assert_eq!(after.get(path), before.get(path), "{path} not restored");
    }
    assert!(!moved.exists());
}

#[test]
fn an_answer_outside_the_offered_folders_leaves_the_note_in_place() {
    let v = vault(MODEL);
    let (server, generic, sorter) = sorter_server(|prompt| {
        format!(
            "{}: Garden/Herbs\n{}: ../Kitchen/Recipes\n",
            number_in(prompt, "Shopping list"),
            number_in(prompt, "Weekend trip")
        )
    });
    let (code, j) = file_notes(v.path(), &common::openai_env(&server.url()));
    sorter.assert();
    generic.assert();
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert_eq!(
        std::fs::read_to_string(v.path().join(LIST)).expect("stays"),
        LIST_TEXT
    );
    assert_eq!(
        std::fs::read_to_string(v.path().join(TRIP)).expect("stays"),
        TRIP_TEXT
    );
    assert!(!v.path().join("Garden/Herbs").exists());
    assert!(
        out.contains("the model answered `Garden/Herbs`, which is not one of the folders offered")
            && out.contains("the model answered `../Kitchen/Recipes`"),
        "{out}"
    );
    assert!(out.contains("Offered 2: 0 filed"), "{out}");
    assert!(
        v.path().join("Kitchen/Recipes/Sunday stew.md").exists(),
        "{out}"
    );
}

#[test]
fn a_failing_model_leaves_crews_own_result() {
    let v = vault(MODEL);
    let mut server = Server::new();
    let failing = server
        .mock("POST", "/v1/chat/completions")
        .with_status(500)
        .with_body("overloaded")
        .expect(3)
        .create();
    let (code, j) = file_notes(v.path(), &common::openai_env(&server.url()));
    failing.assert();
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert!(
        v.path().join("Kitchen/Recipes/Sunday stew.md").exists(),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(v.path().join(LIST)).expect("stays"),
        LIST_TEXT
    );
    assert!(v.path().join(TRIP).exists());
    assert!(
        out.contains("**The model could not sort them (")
            && out.contains("HTTP 500 after 3 attempt(s)")
            && out.contains("crew's own result above stands"),
        "{out}"
    );
    assert_eq!(j["chain"][0]["executor"], "native", "{j}");
    assert!(j["chain"][0]["data"]["model"]["error"].is_string(), "{j}");
    let errands = std::fs::read_to_string(v.path().join("Errands.md")).expect("errands");
    assert!(
        errands.contains("[[00-Inbox/Shopping list|the list]]"),
        "{errands}"
    );
}

#[test]
fn without_a_model_filing_is_what_it_was() {
    let v = vault("");
    let (code, j) = file_notes(v.path(), &[]);
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert!(
        v.path().join("Kitchen/Recipes/Sunday stew.md").exists(),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(v.path().join(LIST)).expect("stays"),
        LIST_TEXT
    );
    assert!(v.path().join(TRIP).exists());
    assert!(!out.contains("model"), "{out}");
    assert!(j["chain"][0]["data"].is_null(), "{j}");
    assert!(out.contains("Shopping list — "), "{out}");
}
