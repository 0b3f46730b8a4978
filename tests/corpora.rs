//! `crew vault stats --json` on the other dev corpora reproduces their expected figures
//! (`tests/vault_stats.rs` checks obsidian-help-en).

mod common;

use common::{crew, json_of, shared};

fn check(name: &str) {
    let Some(shared) = shared() else {
        common::skipped(&format!(
            "../shared is absent, so the {name} corpus check did not run"
        ));
        return;
    };
    let Ok(text) = std::fs::read_to_string(shared.join(format!("corpora/{name}.expected.json")))
    else {
        common::skipped(&format!("no expected figures for {name}"));
        return;
    };
    let expected: serde_json::Value = serde_json::from_str(&text).expect("json");
    let got = json_of(
        crew(&shared.join(format!("corpora/vaults/{name}"))).args(["vault", "stats", "--json"]),
    );
    for (k, want) in expected.as_object().expect("object") {
        assert_eq!(&got[k], want, "{name}: {k}");
    }
}

/// The mini corpus's figures, counted by hand from the spec's rules: checked on every machine.
#[test]
fn mini_corpus_matches_hand_counted_figures() {
    let fixture = common::mini_corpus();
    let text = std::fs::read_to_string(fixture.join("../expected.json")).expect("expected.json");
    let expected: serde_json::Value = serde_json::from_str(&text).expect("json");
    let got = json_of(crew(&fixture).args(["vault", "stats", "--json"]));
    for (k, want) in expected.as_object().expect("object") {
        assert_eq!(&got[k], want, "corpus-mini: {k}");
    }
}

#[test]
fn anishparab_corpus_matches_expected_figures() {
    check("anishparab-obsidian-notes");
}

#[test]
fn trshpuppy_corpus_matches_expected_figures() {
    check("trshpuppy-obsidian-notes");
}
