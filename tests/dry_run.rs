//! A dry run plans exactly what a real run does: every agent reads note text through the gate
//! (the disk plus the run's pending changes), so an agent chained after a move sees the moved
//! note in a dry run as it would for real.

mod common;

use common::{crew, json_of, sample_vault};

/// What each step of a request said and planned: (agent, output, operations).
fn steps(j: &serde_json::Value) -> Vec<(String, String, Vec<String>)> {
    j["chain"]
        .as_array()
        .map(|steps| {
            steps
                .iter()
                .map(|s| {
                    let ops = s["operations"]
                        .as_array()
                        .map(|ops| {
                            ops.iter()
                                .map(|o| format!("{} {} {}", o["op"], o["path"], o["to"]))
                                .collect()
                        })
                        .unwrap_or_default();
                    (
                        s["agent"].as_str().unwrap_or_default().to_string(),
                        s["output"].as_str().unwrap_or_default().to_string(),
                        ops,
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn every_agent_of_a_chain_plans_in_a_dry_run_what_it_does_for_real() {
    for message in ["file these notes", "check the vault", "find knee pain"] {
        let dry = sample_vault();
        let real = sample_vault();
        let planned = json_of(crew(dry.path()).args(["ask", "--json", "--dry-run", message]));
        let done = json_of(crew(real.path()).args(["ask", "--json", message]));
        let (planned, done) = (steps(&planned), steps(&done));
        assert!(!planned.is_empty(), "{message}: nothing ran");
        assert_eq!(
            planned.iter().map(|s| &s.0).collect::<Vec<_>>(),
            done.iter().map(|s| &s.0).collect::<Vec<_>>(),
            "{message}: the same agents run"
        );
        for (p, d) in planned.iter().zip(&done) {
            assert_eq!(p.1, d.1, "{message}: {} says the same", p.0);
            assert_eq!(p.2, d.2, "{message}: {} plans the same changes", p.0);
        }
    }
}

#[test]
fn the_nightly_fix_dry_run_lists_what_the_real_run_applies() {
    // after the link fix, a.md and c.md hold the same text: the audit that follows the fixes
    // must read a.md as fixed (from the gate) in the dry run too
    let files = [
        ("Zürich.md", "# Zürich\n"),
        (
            "a.md",
            "A long shared paragraph about the kitchen tiles and the grout colour. See [[zurich]].\n",
        ),
        (
            "c.md",
            "A long shared paragraph about the kitchen tiles and the grout colour. See [[Zürich|zurich]].\n",
        ),
        ("b.md", "---\ntitle: Rust: the book\n---\nbody [[a]]\n"),
    ];
    let dry = common::vault(&files);
    let real = common::vault(&files);
    let planned = json_of(crew(dry.path()).args(["maintain", "--fix", "--dry-run", "--json"]));
    let done = json_of(crew(real.path()).args(["maintain", "--fix", "--json"]));
    assert_eq!(planned["fixes"], done["fixes"]);
    assert_eq!(planned["fixes"].as_array().map(Vec::len), Some(2));
    // the figures are data, the same in both
    assert_eq!(planned["health_score"], done["health_score"]);
    assert!(done["health_score"].as_u64().is_some(), "{done}");
    assert_eq!(done["counts"]["notes"], 4, "{done}");
    assert!(
        done["report_note"]
            .as_str()
            .is_some_and(|p| p.ends_with("Vault Health.md")),
        "{done}"
    );
    // the same report, but for saying what would be done
    let said = |j: &serde_json::Value| {
        j["report"]
            .as_str()
            .unwrap_or_default()
            .replace("Safe fixes planned", "Safe fixes applied")
    };
    assert_eq!(said(&planned), said(&done));
    assert!(
        said(&done).contains("identical content: 1"),
        "{}",
        said(&done)
    );
}
