//! The learned router's model kept between processes (issue #36): the first `crew route` that
//! needs the model trains it and writes it beside the vault's index; the next reads it; a
//! damaged file or a changed definition is trained again, never an error.

mod common;

use std::path::Path;

use common::{adopted_vault, crew};

/// A message a trigger alone does not settle: the learned model weighs it.
const LEARNED: &str = "find hidden connections between my book notes";

/// `crew route --json` with the learned model's debug lines: (route name, stderr).
fn route(vault: &Path, cache: Option<&Path>, message: &str) -> (String, String) {
    let mut cmd = crew(vault);
    if let Some(c) = cache {
        cmd.env("XDG_CACHE_HOME", c);
    }
    let out = cmd
        .env("CREW_LOG", "crew=debug")
        .args(["route", "--json", message])
        .output()
        .expect("run crew");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    (
        r["name"].as_str().unwrap_or_default().to_string(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const LOADED: &str = "learned model: loaded from cache";
const TRAINED: &str = "learned model: trained, written to";

#[test]
fn a_second_process_reads_the_model_the_first_trained() {
    let v = adopted_vault(&[]);
    let file = v.path().join(".crew/learned-model.bin");
    let (first, log) = route(v.path(), None, LEARNED);
    assert_eq!(first, "connector");
    assert!(log.contains(TRAINED) && !log.contains(LOADED), "{log}");
    assert!(
        file.is_file(),
        "the model is kept in the adopted vault's .crew/"
    );
    let (second, log) = route(v.path(), None, LEARNED);
    assert_eq!(second, first);
    assert!(log.contains(LOADED) && !log.contains(TRAINED), "{log}");
    // a message a trigger settles never needs the model, so never reads it
    let (_, log) = route(v.path(), None, "transcribe this");
    assert!(!log.contains("learned model"), "{log}");
    // crew's own file, not a change of the user's: nothing in the journal
    let journal = v.path().join(".crew/journal");
    let entries = std::fs::read_dir(&journal).map_or(0, |d| d.count());
    assert_eq!(entries, 0, "the model file went through the gate");
}

#[test]
fn a_damaged_or_foreign_file_is_trained_again_and_routes_the_same() {
    let v = adopted_vault(&[]);
    let file = v.path().join(".crew/learned-model.bin");
    let (want, _) = route(v.path(), None, LEARNED);
    let good = std::fs::read(&file).expect("model file");
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x10;
    for bad in [
        flipped,
        good[..good.len() / 2].to_vec(),
        b"not a model at all".to_vec(),
        Vec::new(),
    ] {
        std::fs::write(&file, &bad).expect("damage");
        let (got, log) = route(v.path(), None, LEARNED);
        assert_eq!(got, want);
        assert!(log.contains(TRAINED) && !log.contains(LOADED), "{log}");
        // and the file was written afresh: the next process reads it
        let (_, log) = route(v.path(), None, LEARNED);
        assert!(log.contains(LOADED), "{log}");
    }
}

#[test]
fn a_changed_definition_trains_a_new_model() {
    let v = adopted_vault(&[]);
    let (_, log) = route(v.path(), None, LEARNED);
    assert!(log.contains(TRAINED), "{log}");
    let agent = v.path().join(".crew/agents/connector.md");
    let text = std::fs::read_to_string(&agent).expect("connector's file");
    // a new trigger phrase: the definition the model learns from changed
    let edited = text.replacen(
        "triggers:\n",
        "triggers:\n  - \"weave my reading notes\"\n",
        1,
    );
    assert_ne!(edited, text);
    std::fs::write(&agent, edited).expect("edit");
    let (name, log) = route(v.path(), None, LEARNED);
    assert_eq!(name, "connector");
    assert!(log.contains(TRAINED) && !log.contains(LOADED), "{log}");
    let (_, log) = route(v.path(), None, LEARNED);
    assert!(log.contains(LOADED), "{log}");
}

#[test]
fn a_vault_crew_only_reads_gains_no_file_and_keeps_the_model_in_the_cache() {
    let v = common::vault(&[("note.md", "a note")]);
    let cache = tempfile::tempdir().expect("cache");
    let (first, log) = route(v.path(), Some(cache.path()), LEARNED);
    assert!(log.contains(TRAINED), "{log}");
    assert!(!v.path().join(".crew").exists());
    let kept: Vec<_> = walk(cache.path())
        .into_iter()
        .filter(|p| p.ends_with("learned-model.bin"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let (second, log) = route(v.path(), Some(cache.path()), LEARNED);
    assert_eq!(first, second);
    assert!(log.contains(LOADED), "{log}");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
