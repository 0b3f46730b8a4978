//! "disable / enable / remove the agent X" by asking, as `crew agents` does it: planned first,
//! made with `--yes`, core agents protected, nothing deleted (issue #38).

mod common;

use common::crew;

fn ask(v: &std::path::Path, args: &[&str]) -> (serde_json::Value, i32) {
    let out = crew(v)
        .args(["ask", "--json"])
        .args(args)
        .output()
        .expect("run");
    let code = out.status.code().unwrap_or(-1);
    let j = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not json ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (j, code)
}

fn output(j: &serde_json::Value) -> String {
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

fn registry(v: &std::path::Path) -> String {
    std::fs::read_to_string(v.join(".crew/references/agents-registry.md")).expect("registry")
}

fn row<'a>(reg: &'a str, name: &str) -> &'a str {
    reg.lines()
        .find(|l| l.starts_with(&format!("| {name} |")))
        .unwrap_or_else(|| panic!("no row for {name}:\n{reg}"))
}

#[test]
fn a_custom_agent_is_disabled_enabled_and_removed_by_asking() {
    let v = common::adopted_vault(&[]);
    crew(v.path())
        .args([
            "agents",
            "new",
            "workout-tracker",
            "--description",
            "Keeps my training log",
            "--triggers",
            "my workouts",
        ])
        .assert()
        .success();
    let before = common::snapshot(v.path());
    // the request is understood in the languages crew answers in
    for (message, mode) in [
        ("disattiva l'agente workout-tracker", "disable"),
        ("désactive l'agent workout-tracker", "disable"),
        ("lösche den Agenten workout-tracker", "remove"),
        ("reactiva el agente workout-tracker", "enable"),
    ] {
        let out = crew(v.path())
            .args(["route", "--json", message])
            .output()
            .expect("route");
        let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(r["name"], "manage-agent", "{message}: {r}");
        assert_eq!(r["mode"], mode, "{message}: {r}");
    }

    // planned, not made: nothing changes, and the answer says how to apply it
    let (j, _) = ask(v.path(), &["disable the agent workout-tracker"]);
    assert_eq!(j["route"]["name"], "manage-agent", "{j}");
    let out = output(&j);
    assert!(
        out.contains("workout-tracker") && out.contains("crew ask --yes"),
        "{out}"
    );
    let reg = registry(v.path());
    assert!(row(&reg, "workout-tracker").contains("| active |"), "{reg}");
    let after_plan = common::snapshot(v.path());
    for (path, bytes) in &before {
        if !path.contains("Meta/") && !path.starts_with(".crew/state") {
            assert_eq!(
                after_plan.get(path),
                Some(bytes),
                "{path} changed by a plan"
            );
        }
    }

    // confirmed: the row is disabled, and routing no longer picks the agent
    let (j, _) = ask(v.path(), &["--yes", "disable the agent workout tracker"]);
    assert!(output(&j).contains("disabled"), "{j}");
    assert!(row(&registry(v.path()), "workout-tracker").contains("| disabled |"));

    let (j, _) = ask(v.path(), &["--yes", "enable the agent workout-tracker"]);
    assert!(output(&j).contains("enabled"), "{j}");
    assert!(row(&registry(v.path()), "workout-tracker").contains("| active |"));

    let (j, _) = ask(v.path(), &["--yes", "remove the agent workout-tracker"]);
    assert!(output(&j).contains("removed/workout-tracker.md"), "{j}");
    assert!(!v.path().join(".crew/agents/workout-tracker.md").exists());
    assert!(v.path().join(".crew/removed/workout-tracker.md").exists());
    assert!(row(&registry(v.path()), "workout-tracker").contains("| disabled |"));

    // the change went through the gate: undo takes the removal back
    crew(v.path()).arg("undo").assert().success();
    assert!(v.path().join(".crew/agents/workout-tracker.md").exists());
}

#[test]
fn core_agents_are_protected_and_an_unnamed_agent_is_asked_for() {
    let v = common::adopted_vault(&[]);
    let reg_before = registry(v.path());
    let (j, _) = ask(v.path(), &["--yes", "remove the agent librarian"]);
    let out = output(&j);
    assert!(out.contains("core agent"), "{out}");
    assert_eq!(registry(v.path()), reg_before);
    assert!(v.path().join(".crew/agents/librarian.md").exists());

    let (j, _) = ask(v.path(), &["--yes", "disable the agent nobody-here"]);
    let out = output(&j);
    assert!(out.contains("Which agent?"), "{out}");
    assert_eq!(registry(v.path()), reg_before);
}

#[test]
fn the_built_in_crew_says_how_to_adopt_first() {
    let v = common::vault(&[("a.md", "# a\n")]);
    let before = common::snapshot(v.path());
    let (j, _) = ask(v.path(), &["--yes", "disable the agent postman"]);
    assert!(output(&j).contains("core agent"), "{j}");
    let (j, _) = ask(v.path(), &["--yes", "list agents"]);
    assert!(output(&j).contains("postman"), "{j}");
    let after = common::snapshot(v.path());
    for (path, bytes) in &before {
        assert_eq!(after.get(path), Some(bytes), "{path} changed");
    }
}
