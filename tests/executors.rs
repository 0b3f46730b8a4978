//! Native first: each agent and skill declares who does its work; a tier's model takes only
//! model and hybrid work; a failing model never stops the native path; `crew doctor` and
//! `crew skills list` say what runs offline.

mod common;

use std::net::TcpListener;
use std::path::Path;

use common::{crew, json_of, sample_vault};
use predicates::prelude::*;

/// A port nothing listens on.
fn closed_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port()
}

/// The sample vault with every tier mapped to a local server that is down.
fn vault_with_dead_models() -> (assert_fs::TempDir, u16) {
    let v = sample_vault();
    let cfg = v.path().join(".crew/config.yaml");
    let mut text = std::fs::read_to_string(&cfg).expect("config");
    text.push_str("models:\n  low: ollama/tiny\n  mid: ollama/tiny\n  high: ollama/tiny\n");
    std::fs::write(&cfg, text).expect("config");
    (v, closed_port())
}

fn ask(v: &Path, port: u16, msg: &str) -> serde_json::Value {
    let mut cmd = crew(v);
    cmd.env("OLLAMA_HOST", format!("127.0.0.1:{port}"))
        .args(["ask", "--json", msg]);
    json_of(&mut cmd)
}

#[test]
fn mechanical_work_stays_native_with_models_mapped_and_the_server_down() {
    let (v, port) = vault_with_dead_models();
    let r = ask(v.path(), port, "file these notes");
    let first = &r["chain"][0];
    assert_eq!(first["agent"], "inbox-triage");
    assert_eq!(first["executor"], "native", "{first}");
    assert!(first["error"].is_null(), "{first}");
    let moved = first["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .filter(|o| o["op"] == "move")
        .count();
    assert!(moved > 0, "nothing was filed: {first}");
    // inbox-triage is hybrid: the notes it left went to the model, which was down; the
    // answer says so and the native result stands
    let out = first["output"].as_str().expect("output");
    assert!(out.contains("could not take the rest"), "{out}");

    for msg in ["search the vault for tiles", "weekly agenda", "vault audit"] {
        let r = ask(v.path(), port, msg);
        let step = &r["chain"][0];
        assert_eq!(step["executor"], "native", "{msg}: {step}");
        assert!(step["model"].is_null(), "{msg}: {step}");
        assert!(step["error"].is_null(), "{msg}: {step}");
    }
}

#[test]
fn a_failing_model_falls_back_to_the_native_path_and_says_so() {
    let (v, port) = vault_with_dead_models();
    let r = ask(v.path(), port, "@contact-sync");
    let step = &r["chain"][0];
    assert_eq!(step["agent"], "contact-sync");
    assert_eq!(step["executor"], "native", "{step}");
    let out = step["output"].as_str().expect("output");
    assert!(
        out.contains("The model `ollama/tiny` failed") && out.contains("ran natively instead"),
        "{out}"
    );
}

#[test]
fn an_explicit_model_is_not_second_guessed() {
    let (v, port) = vault_with_dead_models();
    let mut cmd = crew(v.path());
    cmd.env("OLLAMA_HOST", format!("127.0.0.1:{port}")).args([
        "ask",
        "--json",
        "--model",
        "ollama/tiny",
        "--agent",
        "seeker",
        "tiles",
    ]);
    let out = cmd.output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(r["chain"][0]["executor"], "model");
    assert!(
        r["chain"][0]["error"]
            .as_str()
            .unwrap_or("")
            .contains("unreachable"),
        "{r}"
    );
}

#[test]
fn an_anchor_crew_keeps_filing_native_although_its_files_name_sonnet() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault");
    let v = assert_fs::TempDir::new().expect("tmp");
    for e in walkdir::WalkDir::new(&src).into_iter().flatten() {
        let rel = e.path().strip_prefix(&src).expect("under");
        let to = v.path().join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else {
            std::fs::copy(e.path(), &to).expect("copy");
        }
    }
    std::fs::create_dir_all(v.path().join(".obsidian")).expect("mkdir");
    std::fs::write(
        v.path().join(".claude/config.yaml"),
        "models:\n  mid: ollama/tiny\n  high: ollama/tiny\n",
    )
    .expect("config");
    let port = closed_port();
    let r = ask(v.path(), port, "search the vault for hello");
    assert_eq!(r["chain"][0]["agent"], "seeker");
    assert_eq!(r["chain"][0]["executor"], "native", "{r}");
    let list = json_of(crew(v.path()).args(["skills", "list", "--json"]));
    let of = |n: &str| {
        list.as_array()
            .expect("list")
            .iter()
            .find(|s| s["name"] == n)
            .map(|s| s["executor"].clone())
    };
    assert_eq!(of("vault-audit"), Some("native".into()));
    assert_eq!(of("email-triage"), Some("hybrid".into()));
    assert_eq!(of("contact-sync"), Some("model".into()));
    // the anchor's skills name no model: language work takes the tier crew's own skill
    // declares, so the mapped tier reaches it (it said "needs a model (none mapped)")
    let doctor = crew(v.path()).arg("doctor").output().expect("doctor");
    let text = String::from_utf8_lossy(&doctor.stdout);
    for skill in ["transcribe", "create-agent", "contact-sync"] {
        assert!(
            text.contains(&format!("{skill}: model ollama/tiny")),
            "{skill}: {text}"
        );
    }
    assert!(!text.contains("none mapped"), "{text}");
}

#[test]
fn skills_list_tells_what_needs_a_model() {
    let v = sample_vault();
    let list = json_of(crew(v.path()).args(["skills", "list", "--json"]));
    let list = list.as_array().expect("array");
    let get = |n: &str| list.iter().find(|s| s["name"] == n).expect(n).clone();
    for n in ["transcribe", "create-agent", "contact-sync"] {
        assert_eq!(get(n)["executor"], "model", "{n}");
        assert_eq!(get(n)["native"], false, "{n}");
    }
    for n in [
        "vault-audit",
        "weekly-agenda",
        "deadline-radar",
        "tag-garden",
    ] {
        assert_eq!(get(n)["executor"], "native", "{n}");
        assert_eq!(get(n)["native"], true, "{n}");
    }
    assert_eq!(get("inbox-triage")["executor"], "hybrid");
    // the postman's mail and calendar work runs without a model
    assert_eq!(get("email-triage")["executor"], "hybrid");
    assert_eq!(get("meeting-prep")["executor"], "native");
    crew(v.path())
        .args(["skills", "list"])
        .assert()
        .success()
        .stdout(predicate::str::is_match(r"(?m)^contact-sync\s+postman\s+model ").expect("regex"));
}

#[test]
fn doctor_says_what_runs_offline_and_flags_missing_folder_roles() {
    let v = sample_vault();
    crew(v.path()).arg("doctor").assert().success().stdout(
        predicate::str::contains("All good.")
            .and(predicate::str::contains("these need one: transcriber"))
            .and(predicate::str::contains("contact-sync: needs a model"))
            .and(predicate::str::contains("email-triage: native"))
            .and(predicate::str::contains("inbox-triage: native")),
    );
    // a vault its owner laid out (no crew config, or adopted) without folders for some roles:
    // information, not failure
    let bare = common::vault(&[("a.md", "")]);
    let out = crew(bare.path()).arg("doctor").output().expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("this vault has no folder for") && text.contains("inbox=00-Inbox"),
        "{text}"
    );
    let adopted = common::vault(&[("a.md", ""), (".crew/config.yaml", "adopted: true\n")]);
    let out = crew(adopted.path()).arg("doctor").output().expect("run");
    assert_eq!(out.status.code(), Some(0));
    // a vault crew laid out that lost its folders: not "All good", exit 1, and what to do
    let laid_out = common::vault(&[("a.md", ""), (".crew/config.yaml", "max_depth: 3\n")]);
    let out = crew(laid_out.path()).arg("doctor").output().expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(!text.contains("All good"), "{text}");
    assert!(
        text.contains("folder role(s) have no folder") && text.contains("inbox=00-Inbox"),
        "{text}"
    );
}

#[test]
fn doctor_json_carries_the_figures_not_formatted_lines() {
    let v = sample_vault();
    let out = crew(v.path())
        .args(["doctor", "--json"])
        .output()
        .expect("run");
    let d: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(d["vault_ok"], true, "{d}");
    assert_eq!(d["agents"], 8);
    assert!(
        d["need_model"]
            .as_array()
            .expect("need_model")
            .iter()
            .any(|n| n == "transcriber"),
        "{d}"
    );
    let inbox = d["folders"]
        .as_array()
        .expect("folders")
        .iter()
        .find(|f| f["role"] == "inbox")
        .cloned()
        .expect("inbox role");
    assert_eq!(inbox["exists"], true, "{inbox}");
    let sorter = d["routes"]
        .as_array()
        .expect("routes")
        .iter()
        .find(|r| r["name"] == "sorter")
        .cloned()
        .expect("sorter");
    assert_eq!(sorter["executor"], "hybrid");
    assert_eq!(sorter["kind"], "agent");
    assert_eq!(d["problems"], 0);
    assert!(d.get("lines").is_none());
}
