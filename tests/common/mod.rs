//! Helpers shared by the integration tests: temporary vaults and the `crew` binary.
#![allow(dead_code)]

pub mod kill;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use assert_fs::TempDir;
use assert_fs::prelude::*;

/// A temporary vault holding `files` (path, contents).
pub fn vault(files: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new().expect("temp dir");
    // a vault is a folder Obsidian has opened: crew writes only into those
    dir.child(".obsidian")
        .create_dir_all()
        .expect("mkdir .obsidian");
    for (path, text) in files {
        dir.child(path).write_str(text).expect("write fixture");
    }
    dir
}

/// [`vault`] for files built at run time.
pub fn vault_of(files: &[(String, String)]) -> TempDir {
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    vault(&refs)
}

/// The cache folder every test run of `crew` gets (an index of a vault crew has not adopted
/// goes there): under the build's own scratch folder, never the user's `~/.cache`.
pub fn test_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("crew-cache")
}

/// `crew --vault DIR …`, with no environment leaking in.
pub fn crew(vault: &Path) -> Command {
    let mut cmd = Command::cargo_bin("crew").expect("binary");
    cmd.env("XDG_CACHE_HOME", test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .env_remove("CREW_LOG")
        .env_remove("CREW_TODAY")
        .env_remove("CREW_LANG");
    cmd.arg("--vault").arg(vault);
    cmd
}

/// `crew --vault DIR ARGS…` as a plain process, output discarded: for tests that spawn and
/// kill it.
pub fn crew_process(dir: &Path, args: &[&str]) -> std::process::Command {
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("crew"));
    c.env("XDG_CACHE_HOME", test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .arg("--vault")
        .arg(dir)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    c
}

/// `crew` with no vault flag.
pub fn crew_bare() -> Command {
    let mut cmd = Command::cargo_bin("crew").expect("binary");
    cmd.env("XDG_CACHE_HOME", test_cache())
        .env_remove("CREW_VAULT")
        .env_remove("CREW_DIR")
        .env_remove("CREW_LOG");
    cmd
}

/// The shared reference folder beside the project, when present.
pub fn shared() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    p.is_dir().then_some(p)
}

/// `tests/fixtures/corpus-mini/vault`: a small vault written for the tests, holding one of
/// each thing the real corpora are checked for, with hand-counted figures beside it.
pub fn mini_corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus-mini/vault")
}

/// The vaults a corpus check runs on: the mini corpus always, so the check means something on
/// a machine without `../shared`, then the real vaults of `../shared/corpora/vaults` where
/// present (their absence is said as a skip of `check`, which fails in CI).
pub fn corpus_vaults(check: &str) -> Vec<PathBuf> {
    let mut out = vec![mini_corpus()];
    match shared().and_then(|s| std::fs::read_dir(s.join("corpora/vaults")).ok()) {
        Some(entries) => {
            let mut real: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            real.sort();
            out.extend(real);
        }
        None => skipped(&format!(
            "../shared is absent: {check} ran on the mini corpus only"
        )),
    }
    out
}

/// Parses a command's stdout as JSON.
/// `crew ask --json MESSAGE` as JSON; the run must end with 0 or 1 (done, or needs attention).
pub fn ask_json(vault: &Path, message: &str) -> serde_json::Value {
    let out = crew(vault)
        .args(["ask", "--json", message])
        .output()
        .expect("run");
    let code = out.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "crew failed ({code}): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json")
}

pub fn json_of(cmd: &mut Command) -> serde_json::Value {
    let out = cmd.output().expect("run crew");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "crew failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&out.stdout)))
}

/// Every file of a folder (relative path → bytes), hidden `.crew` state left out.
pub fn snapshot(root: &Path) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    for e in walkdir::WalkDir::new(root).into_iter().flatten() {
        if e.file_type().is_file() {
            let rel = e
                .path()
                .strip_prefix(root)
                .expect("under root")
                .to_string_lossy()
                .replace('\\', "/");
            if rel.starts_with(".crew/runs")
                || rel.starts_with(".crew/journal")
                || rel == ".crew/lock"
                // the index and what is kept beside it (classifier store, counts)
                || rel.starts_with(".crew/index.bin")
            {
                continue;
            }
            out.insert(rel, std::fs::read(e.path()).expect("read"));
        }
    }
    out
}

/// Says a test skipped part of its work, visibly: libtest captures `eprintln!` of passing
/// tests, but not writes to the stderr handle itself. In CI (`CI=true`) a skip is a failure:
/// `.ci/run` provides the corpora and the servers, so a missing one is a broken run, not a pass.
pub fn skipped(why: &str) {
    use std::io::Write as _;
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!ci, "skipped in CI, where nothing may be skipped: {why}");
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}

/// No file under `root` holds `needle` (a password handed to crew through the environment).
pub fn nowhere(root: &Path, needle: &str) {
    for e in walkdir::WalkDir::new(root).into_iter().flatten() {
        if e.file_type().is_file() {
            let bytes = std::fs::read(e.path()).expect("read");
            assert!(
                !String::from_utf8_lossy(&bytes).contains(needle),
                "{} holds the password",
                e.path().display()
            );
        }
    }
}

/// A vault made by `crew init --samples` (a messy inbox, broken links, duplicates).
pub fn sample_vault() -> TempDir {
    let dir = TempDir::new().expect("tmp");
    crew_bare()
        .arg("init")
        .arg("--samples")
        .arg(dir.path())
        .assert()
        .success();
    dir
}

/// A vault with one note, adopted by `crew init --adopt` (so it has its own `.crew/`), then
/// `files` written over it.
pub fn adopted_vault(files: &[(&str, &str)]) -> TempDir {
    let v = vault(&[("note.md", "x")]);
    crew_bare()
        .arg("init")
        .arg("--adopt")
        .arg(v.path())
        .assert()
        .success();
    for (p, t) in files {
        v.child(p).write_str(t).expect("write");
    }
    v
}

/// Every environment variable that points crew at a model provider: cleared by the tests that
/// set their own, so a developer's real key never reaches a test.
pub const PROVIDER_VARS: [&str; 8] = [
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GEMINI_BASE_URL",
    "OLLAMA_HOST",
];

/// The environment that sends OpenAI requests to a local server at `url`.
pub fn openai_env(url: &str) -> Vec<(&'static str, String)> {
    vec![
        ("OPENAI_API_KEY", "sk-test".into()),
        ("OPENAI_BASE_URL", format!("{url}/v1")),
    ]
}

/// A chat-completions reply in OpenAI's wire format, with the usage figures given.
pub fn openai_reply(text: &str, prompt_tokens: u64, completion_tokens: u64) -> String {
    serde_json::json!({
        "id": "c1", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}
    })
    .to_string()
}

/// Three folders kept by topic, as the filing tests build them: (folder, the template lines
/// every note there starts with, the words its notes are about).
pub const TOPICS: [(&str, &str, [&str; 6]); 3] = [
    (
        "Kitchen/Recipes",
        "## Ingredients\n## Method\nServes four.",
        ["flour", "butter", "oven", "simmer", "garlic", "basil"],
    ),
    (
        "Garden/Plants",
        "## Planting\n## Watering\nSunlight: full.",
        ["soil", "seedling", "prune", "compost", "bloom", "mulch"],
    ),
    (
        "Code/Rust",
        "## Example\n## Pitfalls\nEdition: 2024.",
        [
            "borrow", "trait", "cargo", "lifetime", "closure", "iterator",
        ],
    ),
];

/// Copies a folder (a shared corpus) into `to`, every file writable: the shared corpora are
/// read-only, which crew respects, so a copy must be a vault crew could change.
pub fn copy_dir(from: &Path, to: &Path) {
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let rel = e.path().strip_prefix(from).expect("under");
        let target = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &target).expect("copy");
            // the shared corpora are read-only, which crew respects: the copy must be a
            // vault crew could change, or the test proves nothing
            use std::os::unix::fs::PermissionsExt as _;
            let mut p = std::fs::metadata(&target).expect("meta").permissions();
            let mode = p.mode();
            p.set_mode(mode | 0o200);
            std::fs::set_permissions(&target, p).expect("chmod");
        }
    }
}
