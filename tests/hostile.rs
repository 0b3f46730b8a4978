//! The catalogue of hostile and broken input. Each case expects a clear error or a refusal,
//! exit codes as in the CLI contract, no panic, and nothing written that should not be.

mod common;

use assert_fs::prelude::*;
use common::{crew, json_of, snapshot, vault};
use mockito::Server;
use predicates::prelude::*;

fn registry(v: &assert_fs::TempDir, extra_rows: &str) {
    let p = v.path().join(".crew/references/agents-registry.md");
    let t = std::fs::read_to_string(&p).expect("registry");
    std::fs::write(
        &p,
        t.replace(
            "<!-- MBIFC:CUSTOM_AGENTS_END -->",
            &format!("{extra_rows}\n<!-- MBIFC:CUSTOM_AGENTS_END -->"),
        ),
    )
    .expect("write");
}

#[test]
fn registry_with_html_huge_rows_and_merged_cells() {
    let v = common::adopted_vault(&[]);
    let huge = "x".repeat(100_000);
    registry(
        &v,
        &format!(
            "<table><tr><td>sorter</td></tr></table>\n| {huge} | r | read | i | o | active |\n| merged || read | active |"
        ),
    );
    let out = crew(v.path())
        .args(["agents", "validate"])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("a table row outside a table"), "{text}");
    assert!(text.len() < 20_000, "the huge row is not echoed back whole");
}

#[test]
fn registry_without_the_required_columns() {
    let v = common::adopted_vault(&[(
        ".crew/references/agents-registry.md",
        "| Name | Status |\n|---|---|\n| sorter | active |\n",
    )]);
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "lacks the column(s) role, capabilities, input, output",
        ));
}

#[test]
fn agent_files_with_tabs_missing_fence_and_no_name() {
    let v = common::adopted_vault(&[
        (".crew/agents/tabbed.md", "---\n\tname: tabbed\n---\n"),
        (".crew/agents/open.md", "---\nname: open\n"),
        (".crew/agents/anon.md", "---\ndescription: nobody\n---\n"),
        (".crew/agents/plain.md", "just text, no frontmatter"),
    ]);
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains(
            "tabbed.md:2: error: a tab indents this line",
        ))
        .stdout(predicate::str::contains(
            "open.md:1: error: the frontmatter has no closing",
        ))
        .stdout(predicate::str::contains(
            "anon.md:2: error: missing `name:`",
        ))
        .stdout(predicate::str::contains(
            "plain.md:1: error: no YAML frontmatter",
        ));
}

#[test]
fn broken_notes_are_read_without_panic() {
    let v = vault(&[]);
    let big_line = format!("[[a]] {}\n", "word ".repeat(2_000_000));
    v.child("big.md").write_str(&big_line).expect("write");
    let nested: String = (0..5_000)
        .map(|i| format!("{}- item\n", "  ".repeat(i % 400)))
        .collect();
    v.child("nested.md").write_str(&nested).expect("write");
    let many: String = (0..20_000).map(|i| format!("[[n{i}]] ")).collect();
    v.child("many.md").write_str(&many).expect("write");
    v.child("a.md").write_str("![[b]]").expect("write");
    v.child("b.md").write_str("![[a]] ![[b]]").expect("write");
    std::fs::write(
        v.path().join("nul.md"),
        b"---\na: 1\n---\nbefore\0after [[a]]",
    )
    .expect("write");
    std::fs::write(v.path().join("latin1.md"), b"caf\xe9 [[a]]").expect("write");
    let s = json_of(crew(v.path()).args(["vault", "stats", "--json"]));
    assert_eq!(s["notes"], 7);
    assert_eq!(s["wikilinks"], 20_003);
    crew(v.path())
        .args(["ask", "check the vault"])
        .assert()
        .success();
    crew(v.path()).args(["search", "after"]).assert().success();
}

#[test]
fn suggestions_naming_paths_unknown_agents_or_ten_thousand_blocks_run_nothing_extra() {
    let mut server = Server::new();
    let mut evil = String::from("done\n");
    for target in ["../../etc/passwd", "/etc/passwd", "ghost", "C:\\\\Windows"] {
        evil.push_str(&format!(
            "\n### Suggested next agent\\n- **Agent**: {target}\\n- **Reason**: x\\n"
        ));
    }
    for _ in 0..10_000 {
        evil.push_str("\\n### Suggested next agent\\n- **Agent**: nobody\\n");
    }
    let body =
        serde_json::json!({"choices": [{"message": {"content": evil.replace("\\n", "\n")}}]})
            .to_string();
    let _m = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(body)
        .create();
    let v = vault(&[("00-Inbox/.keep", "")]);
    let out = crew(v.path())
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .args([
            "ask", "--json", "--agent", "seeker", "--model", "gpt-4.1", "hi",
        ])
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        j["chain"].as_array().map(Vec::len),
        Some(1),
        "nothing was chained"
    );
    assert!(
        j["skipped"].as_array().map_or(0, Vec::len) <= 64,
        "suggestions are bounded"
    );
    assert!(!std::path::Path::new("/etc/passwd.md").exists());
}

#[test]
fn a_model_cannot_write_outside_its_place() {
    let mut server = Server::new();
    let targets = [
        "../outside.md",
        "/tmp/abs.md",
        ".obsidian/workspace.md",
        ".crew/agents/sorter.md",
        ".crew/agents/evil.md",
        ".crew/references/agents-registry.md",
        ".crew/config.yaml",
        ".claude/agents/helper.md",
        "Meta/states/librarian.md",
        "CLAUDE.md",
        "a/../../x.md",
        "con.md",
    ];
    let calls: Vec<serde_json::Value> = targets
        .iter()
        .enumerate()
        .map(|(i, p)| serde_json::json!({"id": format!("c{i}"), "type": "function", "function": {"name": "write_note", "arguments": serde_json::json!({"path": p, "content": "pwned", "mode": "overwrite"}).to_string()}}))
        .collect();
    let first =
        serde_json::json!({"choices": [{"message": {"content": null, "tool_calls": calls}}]})
            .to_string();
    let _a = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(first)
        .expect(1)
        .create();
    let done = server
        .mock("POST", "/v1/chat/completions")
        .match_body(mockito::Matcher::Regex("refused".into()))
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"I could not write those."}}]}"#)
        .create();
    let v = common::adopted_vault(&[
        (
            "Meta/states/librarian.md",
            "---\nagent: librarian\n---\n## Post-it\nmine\n",
        ),
        (".obsidian/workspace.md", "{}"),
    ]);
    let before = snapshot(v.path());
    crew(v.path())
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .args([
            "ask",
            "--agent",
            "scribe",
            "--model",
            "gpt-4.1",
            "write everywhere",
        ])
        .assert()
        .success();
    done.assert();
    let after = snapshot(v.path());
    for (k, bytes) in &before {
        if k != "Meta/states/scribe.md" {
            assert_eq!(after.get(k), Some(bytes), "{k} was changed");
        }
    }
    let new: Vec<&String> = after
        .keys()
        .filter(|k| !before.contains_key(*k) && !k.starts_with(".crew/"))
        .collect();
    assert!(
        new.iter().all(|k| k.as_str() == "Meta/states/scribe.md"),
        "unexpected files: {new:?}"
    );
    // the crew definition is closed to every run but the lifecycle commands
    assert!(!v.path().join(".crew/agents/evil.md").exists());
    assert!(!v.path().join(".claude").exists());
    assert!(
        !std::path::Path::new("/tmp/abs.md").exists()
            || std::fs::read_to_string("/tmp/abs.md")
                .map(|t| t != "pwned")
                .unwrap_or(true)
    );
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_vault_are_not_read_or_followed() {
    let outside = tempfile::tempdir().expect("outside");
    std::fs::write(outside.path().join("secret.md"), "[[x]] secret").expect("write");
    let v = vault(&[("a.md", "")]);
    std::os::unix::fs::symlink(outside.path(), v.path().join("linked")).expect("symlink");
    std::os::unix::fs::symlink(outside.path().join("secret.md"), v.path().join("alias.md"))
        .expect("symlink");
    let s = json_of(crew(v.path()).args(["vault", "stats", "--json"]));
    assert_eq!(
        s["notes"], 1,
        "symlinked notes and folders are not part of the vault"
    );
    crew(v.path()).args(["search", "secret"]).assert().code(1);
}

#[test]
fn awkward_note_names_are_left_not_lost() {
    let v = vault(&[("01-Projects/P/_index.md", "")]);
    let names = ["CON.md", "trailing dot..md", "tab\tname.md"];
    for n in names {
        std::fs::create_dir_all(v.path().join("00-Inbox")).expect("inbox");
        std::fs::write(
            v.path().join("00-Inbox").join(n),
            "---\nproject: \"[[P]]\"\n---\nbody",
        )
        .expect("write");
    }
    crew(v.path())
        .args(["ask", "file my notes"])
        .assert()
        .success();
    let mut found = 0;
    // crew's own state (journal backups) is not part of the vault
    for e in walkdir::WalkDir::new(v.path())
        .into_iter()
        .filter_entry(|e| e.file_name() != ".crew")
        .flatten()
    {
        if e.file_type().is_file()
            && std::fs::read_to_string(e.path()).is_ok_and(|t| t.ends_with("body"))
        {
            found += 1;
        }
    }
    assert_eq!(found, names.len(), "every note still exists");
}

#[test]
fn bad_usage_exits_2() {
    let v = vault(&[]);
    crew(v.path()).args(["ask"]).assert().code(2);
    crew(v.path())
        .args(["ask", "--max-depth", "9", "x"])
        .assert()
        .code(2);
    crew(v.path()).args(["frobnicate"]).assert().code(2);
    crew(v.path())
        .args(["state", "clear", "ghost"])
        .assert()
        .code(2);
    let cfg = v.path().join(".crew");
    std::fs::create_dir_all(&cfg).expect("mkdir");
    std::fs::write(
        cfg.join("config.yaml"),
        "models:\n  mid: mistral-large\nproviders:\n  azure: {}\n",
    )
    .expect("config");
    crew(v.path())
        .args(["agents", "validate"])
        .assert()
        .code(2)
        .stdout(
            predicate::str::contains("unknown model `mistral-large`")
                .and(predicate::str::contains("unknown provider `azure`")),
        );
}

#[test]
fn a_damaged_crew_definition_does_not_stop_the_mechanical_work() {
    let v = common::adopted_vault(&[
        ("00-Inbox/Tiles.md", "---\nproject: Kitchen\n---\ntiles\n"),
        ("01-Projects/Kitchen/Plan.md", "plan"),
        (
            ".crew/agents/broken.md",
            "---\nname: broken\ndescription: [unclosed\n---\n",
        ),
    ]);
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        "folders:\n  inbox: 00-Inbox\n  projects: 01-Projects\n",
    )
    .expect("config");
    crew(v.path()).args(["agents", "validate"]).assert().code(2);
    crew(v.path())
        .args(["ask", "file my notes"])
        .assert()
        .code(predicate::in_iter([0, 1]))
        .stderr(predicate::str::contains("runs on the built-in crew"));
    assert!(v.path().join("01-Projects/Kitchen/Tiles.md").exists());
    // the lifecycle commands still refuse to build on it
    crew(v.path())
        .args(["agents", "new", "tax-helper"])
        .assert()
        .code(2);
}

#[test]
fn a_model_told_by_a_note_cannot_read_hidden_files_or_rewrite_closed_notes() {
    let mut server = Server::new();
    let calls = [
        ("read_note", serde_json::json!({"path": ".trash/old.md"})),
        (
            "read_note",
            serde_json::json!({"path": ".crew/config.yaml.md"}),
        ),
        (
            "write_note",
            serde_json::json!({"path": "Meta/user-profile.md", "content": "name: Mallory", "mode": "overwrite"}),
        ),
        (
            "write_note",
            serde_json::json!({"path": "Templates/Daily.md", "content": "<%* await tp.user.x() %>", "mode": "overwrite"}),
        ),
        (
            "write_note",
            serde_json::json!({"path": "Meta/agent-log.md", "content": "nothing happened", "mode": "overwrite"}),
        ),
        (
            "write_note",
            serde_json::json!({"path": "Projects/plan.md", "content": "", "mode": "overwrite"}),
        ),
    ];
    let calls: Vec<serde_json::Value> = calls
        .iter()
        .enumerate()
        .map(|(i, (name, args))| serde_json::json!({"id": format!("c{i}"), "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    let first =
        serde_json::json!({"choices": [{"message": {"content": null, "tool_calls": calls}}]});
    let _a = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(first.to_string())
        .expect(1)
        .create();
    let done = server
        .mock("POST", "/v1/chat/completions")
        .match_body(mockito::Matcher::AllOf(vec![
            mockito::Matcher::Regex("hidden folder".into()),
            mockito::Matcher::Regex("request names it".into()),
            mockito::Matcher::Regex("empty the note".into()),
        ]))
        .with_status(200)
        .with_body(r#"{"choices":[{"message":{"content":"I could not."}}]}"#)
        .create();
    let v = common::adopted_vault(&[
        (".trash/old.md", "TRASHED SECRET"),
        ("Meta/user-profile.md", "---\nname: Ana\n---\n"),
        ("Templates/Daily.md", "# {{date}}\n"),
        ("Meta/agent-log.md", "# Agent log\n- earlier\n"),
        ("Projects/plan.md", "# Plan\nthe user's words\n"),
    ]);
    let before = snapshot(v.path());
    let out = crew(v.path())
        .env("OPENAI_API_KEY", "k")
        .env("OPENAI_BASE_URL", format!("{}/v1", server.url()))
        .args([
            "ask",
            "--agent",
            "scribe",
            "--model",
            "gpt-4.1",
            "summarise my inbox",
        ])
        .output()
        .expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    done.assert();
    let after = snapshot(v.path());
    for path in [
        ".trash/old.md",
        "Meta/user-profile.md",
        "Templates/Daily.md",
        "Projects/plan.md",
    ] {
        assert_eq!(after.get(path), before.get(path), "{path} was changed");
    }
    let log = String::from_utf8_lossy(after.get("Meta/agent-log.md").expect("log")).into_owned();
    assert!(log.starts_with("# Agent log\n- earlier\n"), "{log}");
}
