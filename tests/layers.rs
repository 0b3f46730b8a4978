//! The rooms of `src/` import only downward, in the order `docs/architecture.md` writes under
//! "Layers", and no two rooms import each other, directly or around a ring. The agents' own
//! rooms (`src/agents/<room>`) are checked for rings among themselves too. Test code is left
//! out: a test may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The layer order from the docs: one line per layer, lowest first, each a list of rooms in
/// backquotes after `- `.
fn layers() -> Vec<Vec<String>> {
    let docs =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/architecture.md"))
            .expect("docs/architecture.md");
    let section = docs
        .split("\n## Layers\n")
        .nth(1)
        .expect("a `## Layers` section in docs/architecture.md");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter_map(|l| l.strip_prefix("- "))
        .filter(|l| l.starts_with('`'))
        .map(|l| {
            l.split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect()
        })
        .collect()
}

/// Rust files under `dir`, with their text up to the first `#[cfg(test)]` at a line start.
fn sources(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.ends_with("_tests.rs") || name == "tests.rs" {
            continue;
        }
        let text = std::fs::read_to_string(p).expect("read");
        let text = match text.find("\n#[cfg(test)]") {
            Some(i) => text[..i].to_string(),
            None => text,
        };
        let rel = p
            .strip_prefix(dir)
            .expect("under")
            .to_string_lossy()
            .replace('\\', "/");
        out.push((rel, text));
    }
    out
}

/// The room a file of `src/` belongs to: its first folder, or its name for a file at the top.
fn room(rel: &str) -> String {
    let first = rel.split('/').next().unwrap_or(rel);
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::room` a text names, outside comments.
fn named_rooms(text: &str, prefix: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find(prefix) {
            rest = &rest[i + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

/// Room → rooms it imports, for the files of `dir` whose room is known, by `prefix`.
fn graph(
    files: &[(String, String)],
    prefix: &str,
    rooms: &BTreeSet<String>,
) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in files {
        let from = room(rel);
        for to in named_rooms(text, prefix) {
            if to != from && rooms.contains(&to) {
                g.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    g
}

/// The rings of a graph: its strongly connected parts of two rooms or more.
fn rings(g: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: BTreeSet<&String> = g.keys().chain(g.values().flatten()).collect();
    let reach = |from: &String| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from.clone()];
        while let Some(n) = todo.pop() {
            for m in g.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    todo.push(m.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&String, BTreeSet<String>> =
        nodes.iter().map(|n| (*n, reach(n))).collect();
    let mut out: BTreeSet<Vec<String>> = BTreeSet::new();
    for n in &nodes {
        let ring: Vec<String> = nodes
            .iter()
            .filter(|m| reached[*n].contains(**m) && reached[*m].contains(*n))
            .map(|m| m.to_string())
            .collect();
        if ring.len() > 1 {
            out.insert(ring);
        }
    }
    out.into_iter().collect()
}

#[test]
fn rooms_import_only_downward_in_the_documented_order() {
    let layers = layers();
    assert!(
        layers.len() > 5,
        "the layers section lists the rooms: {layers:?}"
    );
    let level: BTreeMap<String, usize> = layers
        .iter()
        .enumerate()
        .flat_map(|(i, rooms)| rooms.iter().map(move |r| (r.clone(), i)))
        .collect();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = sources(&src);
    let on_disk: BTreeSet<String> = files.iter().map(|(rel, _)| room(rel)).collect();
    let missing: Vec<&String> = on_disk
        .iter()
        .filter(|r| !level.contains_key(*r) && *r != "lib" && *r != "main")
        .collect();
    assert!(
        missing.is_empty(),
        "rooms with no layer in docs/architecture.md: {missing:?}"
    );
    let mut rooms: BTreeSet<String> = on_disk.clone();
    rooms.insert("vault".into());
    let g = graph(&files, "crate::", &rooms);
    let mut up = Vec::new();
    for (from, tos) in &g {
        for to in tos {
            if let (Some(a), Some(b)) = (level.get(from), level.get(to))
                && b > a
            {
                up.push(format!("{from} → {to}"));
            }
        }
    }
    assert!(up.is_empty(), "imports that run up the layers: {up:?}");
    let found = rings(&g);
    assert!(found.is_empty(), "rooms importing each other: {found:?}");
}

#[test]
fn the_agents_rooms_form_no_ring() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/agents");
    let files = sources(&dir);
    let rooms: BTreeSet<String> = files.iter().map(|(rel, _)| room(rel)).collect();
    let mut g = graph(&files, "crate::agents::", &rooms);
    // `super::x` from a file at the top of `agents/` names the room `x` too
    for (rel, text) in &files {
        if !rel.contains('/') {
            for to in named_rooms(text, "super::") {
                if to != room(rel) && rooms.contains(&to) {
                    g.entry(room(rel)).or_default().insert(to);
                }
            }
        }
    }
    let found = rings(&g);
    assert!(
        found.is_empty(),
        "agent rooms importing each other: {found:?}"
    );
}

#[test]
fn a_ring_and_an_upward_import_are_seen() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
        ("d".to_string(), BTreeSet::from(["a".to_string()])),
    ]
    .into_iter()
    .collect();
    assert_eq!(
        rings(&g),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    let text = "use crate::gate::Gate; // crate::run is a comment\nlet x = crate::state::open();";
    assert_eq!(
        named_rooms(text, "crate::"),
        BTreeSet::from(["gate".to_string(), "state".into()])
    );
}
