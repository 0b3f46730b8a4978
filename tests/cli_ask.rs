//! `crew ask`, `crew route`, `crew demo`: requests through the real dispatcher on temp vaults.

mod common;

use common::{crew, crew_bare, json_of, snapshot, vault};
use predicates::prelude::*;

fn read(dir: &std::path::Path, p: &str) -> String {
    std::fs::read_to_string(dir.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn route_json_shape() {
    let v = vault(&[]);
    let r = json_of(crew(v.path()).args(["route", "--json", "please", "file", "my", "notes"]));
    assert_eq!(
        r,
        serde_json::json!({"kind": "skill", "name": "inbox-triage", "reason": "trigger \"file my notes\"", "matched": "file my notes", "fell_back": false})
    );
    let r = json_of(crew(v.path()).args(["route", "--json", "zzz qqq"]));
    assert_eq!(r["fell_back"], true);
    assert_eq!(r["name"], "seeker");
}

#[test]
fn triage_files_notes_rewrites_links_and_chains() {
    let dir = common::sample_vault();
    let v = dir.path();
    let out = json_of(crew(v).args(["ask", "--json", "file these notes"]));
    assert_eq!(out["route"]["name"], "inbox-triage");
    let chain: Vec<&str> = out["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .map(|s| s["agent"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(chain, vec!["inbox-triage", "architect", "connector"]);
    assert!(out["run_id"].as_str().is_some_and(|s| !s.is_empty()));
    let step = &out["chain"][0];
    assert_eq!(step["executor"], "native");
    assert!(step["model"].is_null());
    let ops = step["operations"].as_array().expect("ops");
    assert!(
        ops.iter().any(|o| o["op"] == "move"
            && o["path"] == "00-Inbox/Tile options.md"
            && o["to"] == "01-Projects/Kitchen Renovation/Tile options.md"),
        "{ops:?}"
    );
    let sugg: Vec<&str> = step["suggestions"]
        .as_array()
        .expect("s")
        .iter()
        .map(|s| s["agent"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(sugg, vec!["architect", "connector"]);

    // moved, with status and location; the project note keeps its links
    let tile = read(v, "01-Projects/Kitchen Renovation/Tile options.md");
    assert!(
        tile.contains("status: filed")
            && tile.contains("filed-date: ")
            && tile.contains("location: 01-Projects/Kitchen Renovation"),
        "{tile}"
    );
    assert!(
        tile.contains("project: \"[[Kitchen Renovation]]\""),
        "other keys keep their bytes"
    );
    assert!(!v.join("00-Inbox/Tile options.md").exists());
    // the meeting went to its year/month
    let year_month = chrono::Local::now().format("%Y/%m").to_string();
    assert!(
        v.join(format!("06-Meetings/{year_month}/Call with Anna.md"))
            .exists()
    );
    // a home that did not exist: the notes stayed, the architect created it
    assert!(v.join("00-Inbox/Budget 2027.md").exists());
    assert!(v.join("02-Areas/Finance/_index.md").exists());
    assert!(read(v, "MOC/Index.md").contains("[[MOC/Finance|Finance]]"));
    // MOC updated
    assert!(read(v, "MOC/Health.md").contains("[[Knee pain]]"));
    // post-its and log
    let postit = read(v, "Meta/states/sorter.md");
    assert!(
        postit.starts_with("---\nagent: sorter\nlast-run: \""),
        "{postit}"
    );
    assert!(read(v, "Meta/agent-log.md").contains("inbox-triage — filed \"Tile options\""));
    assert!(
        std::fs::read_dir(v.join(".crew/runs"))
            .expect("runs")
            .count()
            >= 1
    );

    // second run: the notes that now have a home are filed; a third run changes nothing
    crew(v).args(["ask", "file my notes"]).assert().success();
    assert!(v.join("02-Areas/Finance/Budget 2027.md").exists());
    assert!(read(v, "02-Areas/Finance/Budget 2027.md").contains("[[Savings plan]]"));
    let before = snapshot(v);
    crew(v)
        .args(["ask", "--max-depth", "1", "file my notes"])
        .assert()
        .success();
    let after = snapshot(v);
    let changed: Vec<&String> = after
        .keys()
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    assert!(
        changed.is_empty(),
        "an already triaged vault changed: {changed:?}"
    );
}

#[test]
fn dry_run_changes_nothing_and_shows_the_plan() {
    let dir = common::sample_vault();
    let before = snapshot(dir.path());
    crew(dir.path())
        .args(["ask", "--dry-run", "file these notes"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Dry run: nothing was written"))
        .stdout(predicate::str::contains(
            "move 00-Inbox/Tile options.md → 01-Projects/Kitchen Renovation/Tile options.md",
        ));
    assert_eq!(before, snapshot(dir.path()));
}

#[test]
fn moves_keep_links_and_never_overwrite() {
    let v = vault(&[
        (
            "00-Inbox/Plan.md",
            "---\nproject: \"[[Alpha]]\"\n---\nsee [[Other#Part|the other]]\n",
        ),
        (
            "01-Projects/Alpha/Plan.md",
            "an older note with the same name",
        ),
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
        (
            "Other.md",
            "---\nup: \"[[00-Inbox/Plan]]\"\n---\nlinks: [[00-Inbox/Plan|plan]] ![[00-Inbox/Plan#^blk]] [md](00-Inbox/Plan.md) [[Plan]] [[01-Projects/Alpha/Plan]]\n",
        ),
    ]);
    crew(v.path())
        .args(["ask", "file my notes"])
        .assert()
        .success();
    assert_eq!(
        read(v.path(), "01-Projects/Alpha/Plan.md"),
        "an older note with the same name",
        "never overwritten"
    );
    assert!(
        v.path().join("01-Projects/Alpha/Plan 2.md").exists(),
        "a free name was chosen"
    );
    let other = read(v.path(), "Other.md");
    // the shortest unambiguous form, keeping alias, block and embed
    assert!(other.contains("up: \"[[Plan 2]]\""), "{other}");
    assert!(other.contains("[[Plan 2|plan]]"), "{other}");
    assert!(other.contains("![[Plan 2#^blk]]"), "{other}");
    assert!(
        other.contains("[md](01-Projects/Alpha/Plan%202.md)"),
        "{other}"
    );
    // the bare [[Plan]] pointed at the inbox note (fewest segments), so it follows it
    assert!(
        other.contains("[md](01-Projects/Alpha/Plan%202.md) [[Plan 2]]"),
        "{other}"
    );
    assert!(
        other.contains("[[01-Projects/Alpha/Plan]]"),
        "a link to the other Plan keeps its bytes: {other}"
    );
    let stats = json_of(crew(v.path()).args(["vault", "stats", "--json"]));
    assert_eq!(stats["wikilinks_unresolved"], 0);
}

#[test]
fn capture_search_and_state() {
    let v = vault(&[("05-People/Anna Rossi.md", "x"), ("00-Inbox/.keep", "")]);
    crew(v.path())
        .args([
            "ask",
            "quick note: remind me to call Anna Rossi about the tiles",
        ])
        .assert()
        .success();
    let inbox: Vec<_> = std::fs::read_dir(v.path().join("00-Inbox"))
        .expect("inbox")
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .collect();
    assert_eq!(inbox.len(), 1);
    let text = std::fs::read_to_string(inbox[0].path()).expect("note");
    assert!(
        text.contains("type: task")
            && text.contains("status: inbox")
            && text.contains("[[Anna Rossi]]"),
        "{text}"
    );
    assert!(
        inbox[0]
            .file_name()
            .to_string_lossy()
            .contains(" — Task — ")
    );
    crew(v.path())
        .args(["search", "tiles"])
        .assert()
        .success()
        .stdout(predicate::str::contains("00-Inbox/"));
    crew(v.path())
        .args(["search", "nothingmatches"])
        .assert()
        .code(1);
    crew(v.path())
        .args(["state", "show", "scribe"])
        .assert()
        .success()
        .stdout(predicate::str::contains("captured 1 note"));
    crew(v.path())
        .args(["state", "clear", "scribe"])
        .assert()
        .success();
    crew(v.path())
        .args(["state", "show", "scribe"])
        .assert()
        .success()
        .stdout(predicate::str::contains("captured").not());
}

#[test]
fn explicit_agent_and_unknown_agent() {
    let v = vault(&[("a.md", "[[b]]"), ("b.md", "")]);
    let out = json_of(crew(v.path()).args(["ask", "--json", "--agent", "connector", "anything"]));
    assert_eq!(out["route"]["name"], "connector");
    crew(v.path())
        .args(["ask", "--agent", "ghost", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("ghost"));
}

#[test]
fn model_only_agents_explain_what_to_configure() {
    let v = vault(&[("a.md", "")]);
    crew(v.path())
        .args(["ask", "transcribe this call"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("models:").and(predicate::str::contains("ANTHROPIC_API_KEY")),
        );
}

#[test]
fn maintain_writes_a_report_and_signals_attention() {
    let dir = common::sample_vault();
    crew(dir.path())
        .args(["maintain"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("crew maintain:"));
    let reports = std::fs::read_dir(dir.path().join("Meta/health-reports"))
        .expect("reports")
        .count();
    assert_eq!(reports, 1);
    // --fix repairs the link that differs only by an accent, keeping the text it shows
    let running = "02-Areas/Health/Running log.md";
    assert!(read(dir.path(), running).contains("[[Cafe stretches]]"));
    crew(dir.path())
        .args(["maintain", "--fix"])
        .assert()
        .code(1);
    assert!(read(dir.path(), running).contains("[[Café stretches|Cafe stretches]]"));
    crew(dir.path())
        .args(["log"])
        .assert()
        .success()
        .stdout(predicate::str::contains("vault-audit"));
}

#[test]
fn healthy_vault_is_quiet() {
    let v = vault(&[
        (
            "MOC/Index.md",
            "---\ntype: moc\ndate: 2026-01-01\ntags: [moc]\nstatus: filed\n---\n[[A]]",
        ),
        (
            "A.md",
            "---\ntype: note\ndate: 2026-01-01\ntags: [x]\nstatus: filed\n---\n[[Index]]",
        ),
    ]);
    crew(v.path())
        .args(["maintain"])
        .assert()
        .success()
        .stdout(predicate::str::is_empty());
    crew(v.path())
        .args(["vault", "check"])
        .assert()
        .success()
        .stdout(predicate::str::starts_with("healthy"));
}

#[test]
fn demo_runs_end_to_end() {
    let dir = assert_fs::TempDir::new().expect("tmp");
    let target = dir.path().join("demo");
    crew_bare()
        .arg("demo")
        .arg(&target)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "chain: [inbox-triage, architect, connector]",
        ))
        .stdout(predicate::str::contains("crew search knee"));
    crew_bare().arg("demo").arg(&target).assert().code(2);
}

#[test]
fn a_large_triage_lists_every_filed_note_once_in_its_moc() {
    // more notes than one MOC batch, into an area whose MOC exists, and one whose MOC is new
    let mut files: Vec<(String, String)> = vec![
        (
            "02-Areas/Garden/_index.md".into(),
            "---\ntype: area\n---\n".into(),
        ),
        (
            "02-Areas/Bees/_index.md".into(),
            "---\ntype: area\n---\n".into(),
        ),
        (
            "MOC/Garden.md".into(),
            "---\ntype: moc\n---\n# Garden\n\n## Notes\n- [[Compost 0]]\n\n## Related MOCs\n"
                .into(),
        ),
    ];
    // crew laid this vault out (a crew config that is not an adoption): new MOCs are its way
    files.push((".crew/config.yaml".into(), "max_depth: 3\n".into()));
    for i in 0..150 {
        let area = if i % 3 == 0 { "Bees" } else { "Garden" };
        let name = if area == "Bees" {
            format!("Hive {i}")
        } else {
            format!("Compost {i}")
        };
        files.push((
            format!("00-Inbox/{name}.md"),
            format!("---\narea: {area}\ndate: 2026-11-01\n---\nNotes on {name}.\n"),
        ));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    let dir = vault(&refs);
    let v = dir.path();
    crew(v)
        .args(["ask", "--agent", "inbox-triage", "file my notes"])
        .assert()
        .success();
    let garden = read(v, "MOC/Garden.md");
    let bees = read(v, "MOC/Bees.md");
    for i in 0..150 {
        let (moc, name) = if i % 3 == 0 {
            (&bees, format!("Hive {i}"))
        } else {
            (&garden, format!("Compost {i}"))
        };
        assert!(
            v.join(format!(
                "02-Areas/{}/{name}.md",
                if i % 3 == 0 { "Bees" } else { "Garden" }
            ))
            .exists(),
            "{name} filed"
        );
        assert_eq!(
            moc.matches(&format!("[[{name}]]")).count(),
            1,
            "{name} once in its MOC"
        );
    }
    // the new lines went under `## Notes`, before the next section
    let notes_at = garden.find("## Notes").expect("notes section");
    let related_at = garden.find("## Related MOCs").expect("related section");
    assert!(garden[notes_at..related_at].contains("[[Compost 149]]"));
}

/// Progress goes to a terminal only: piped stderr (cron, scripts) gets the plain lines and no
/// spinner frames or terminal control codes.
#[test]
fn no_spinner_when_stderr_is_not_a_terminal() {
    let v = common::sample_vault();
    let out = crew(v.path())
        .args(["ask", "vault audit"])
        .output()
        .expect("run");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("→ skill vault-audit"), "{err}");
    assert!(!err.contains('\u{1b}'), "control codes on a pipe: {err:?}");
    assert!(!err.contains("working ("), "a spinner on a pipe: {err:?}");
}
