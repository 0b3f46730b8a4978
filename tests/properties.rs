//! Property tests: the parsers never panic on any input, and a move keeps every link pointing at
//! the file it pointed at before.

use std::collections::BTreeMap;

use crew::crew::Crew;
use crew::dispatch::{route, suggest};
use crew::gate::{Gate, Policy};
use crew::state::journal::Journal;
use crew::vault::note::Note;
use crew::vault::{Resolution, Vault};
use proptest::prelude::*;

fn markdownish() -> impl Strategy<Value = String> {
    let pieces = prop::collection::vec(
        prop_oneof![
            Just("[[".to_string()),
            Just("]]".to_string()),
            Just("![[".to_string()),
            Just("|".to_string()),
            Just("\\|".to_string()),
            Just("#".to_string()),
            Just("#tag ".to_string()),
            Just("```".to_string()),
            Just("~~~".to_string()),
            Just("`".to_string()),
            Just("%%".to_string()),
            Just("<!--".to_string()),
            Just("-->".to_string()),
            Just("---\n".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            Just("\u{feff}".to_string()),
            Just("é☕𝄞".to_string()),
            Just("](x.md)".to_string()),
            Just("[a](b%20c.md)".to_string()),
            "[a-z ]{0,6}",
            any::<String>(),
        ],
        0..40,
    );
    pieces.prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, .. ProptestConfig::default() })]

    #[test]
    fn note_parsing_never_panics_and_spans_are_true(text in markdownish()) {
        let note = Note::parse_text("n.md", &text);
        for l in note.wikilinks.iter().chain(&note.frontmatter_links) {
            let s = &text[l.span.clone()];
            prop_assert!(s.starts_with("[[") || s.starts_with("![["), "{s:?}");
            prop_assert!(s.ends_with("]]"));
        }
        for l in &note.markdown_links {
            prop_assert!(text.is_char_boundary(l.dest_span.start) && text.is_char_boundary(l.dest_span.end));
        }
    }

    #[test]
    fn raw_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..300)) {
        let _ = Note::parse("n.md", &bytes);
    }

    #[test]
    fn suggestion_parser_never_panics(text in markdownish(), extra in "(### Suggested (next|new) agent\n(- \\*\\*(Agent|Reason|Context|Need)\\*\\*: [^\n]{0,20}\n){0,4}){0,5}") {
        let s = suggest::parse(&format!("{text}\n{extra}"));
        prop_assert!(s.next.len() <= 64 && s.new.len() <= 64);
        for n in &s.next {
            prop_assert!(!n.agent.is_empty());
        }
    }

    #[test]
    fn registry_parser_never_panics(text in "(\\|[^\n|]{0,8}){0,8}\\|?\n(\\|[-: ]{0,5}){0,8}\n((\\|[^\n]{0,10}){0,9}\n){0,10}") {
        let mut d = Vec::new();
        let _ = crew::crew::registry::parse("r.md", &text, &mut d);
    }

    #[test]
    fn definition_parser_never_panics(text in markdownish()) {
        let mut d = Vec::new();
        let _ = crew::crew::definition::parse("a.md", &format!("---\n{text}\n---\n{text}"), &mut d);
    }

    #[test]
    fn classifier_answers_always_reach_a_declared_route(answer in any::<String>(), wrap in 0..3u8) {
        let crew = Crew::builtin();
        let default = crew.lookup(&crew.config.default_route);
        let text = match wrap {
            0 => answer.clone(),
            1 => format!("{{\"route\": {}}}", serde_json::to_string(&answer).unwrap_or_default()),
            _ => format!("```json\n{{\"route\": \"{answer}\"}}\n```"),
        };
        let r = route::resolve_classifier_answer(&crew, Ok(text), default.as_ref());
        prop_assert!(crew.lookup(&r.name).is_some(), "{r:?}");
    }

    #[test]
    fn routing_never_panics_and_always_answers(msg in any::<String>()) {
        let crew = Crew::builtin();
        let r = crew::run::route(&crew, &msg, &[]);
        prop_assert!(crew.lookup(&r.name).is_some());
    }

    #[test]
    fn frontmatter_edits_touch_only_their_key(
        keys in prop::collection::btree_map("[a-z]{1,6}", "[a-z0-9 ]{0,8}", 0..5),
        body in "[a-z \n#\\[\\]]{0,40}",
        value in "[a-zA-Z0-9 :#\\[\\]\"-]{1,12}",
    ) {
        let mut text = String::from("---\n");
        for (k, v) in &keys {
            text.push_str(&format!("{k}: {v}\n"));
        }
        text.push_str("---\n");
        text.push_str(&body);
        let out = crew::vault::edit::set_frontmatter_keys(&text, &[("status", Some(crew::vault::edit::yaml_scalar(&value)))]);
        let note = Note::parse_text("n.md", &out);
        let status = note.property_str("status");
        prop_assert_eq!(status.as_deref(), Some(value.as_str()), "{}", out);
        for (k, v) in &keys {
            if k != "status" {
                let line = format!("{k}: {v}\n");
                prop_assert!(out.contains(&line), "lost {:?}", line);
            }
        }
        prop_assert!(out.ends_with(&body));
    }
}

/// A small random vault: notes named from a tiny alphabet in a few folders (so names clash),
/// each linking to others in every written form.
/// Notes (path, links as (target index, written form)), the note to move, where to.
type VaultCase = (Vec<(String, Vec<(usize, u8)>)>, usize, String);

fn vault_strategy() -> impl Strategy<Value = VaultCase> {
    let folders = ["", "a", "a/b", "c"];
    let names = ["x", "y", "z", "X"];
    let note = (0..folders.len(), 0..names.len()).prop_map(move |(f, n)| {
        if folders[f].is_empty() {
            format!("{}.md", names[n])
        } else {
            format!("{}/{}.md", folders[f], names[n])
        }
    });
    (
        prop::collection::btree_set(note, 2..7),
        prop::collection::vec((0..10usize, 0..6u8), 0..12),
        0..10usize,
        0..folders.len(),
    )
        .prop_map(move |(paths, links, mover, dest)| {
            let paths: Vec<String> = paths.into_iter().collect();
            let n = paths.len();
            let mut notes: Vec<(String, Vec<(usize, u8)>)> =
                paths.iter().map(|p| (p.clone(), Vec::new())).collect();
            for (i, (t, form)) in links.iter().enumerate() {
                notes[i % n].1.push((t % n, *form));
            }
            let dest = folders[dest].to_string();
            (notes, mover % n, dest)
        })
}

fn link_text(from: &str, target: &str, form: u8) -> String {
    let stem = target.trim_end_matches(".md");
    let name = stem.rsplit('/').next().unwrap_or(stem);
    let from_dir = from.rsplit_once('/').map_or("", |(d, _)| d);
    match form {
        0 => format!("[[{name}]]"),
        1 => format!("[[{stem}|alias]]"),
        2 => format!("![[{name}#^blk]]"),
        3 => format!("[md]({})", target.replace(' ', "%20")),
        4 if target.starts_with(&format!("{from_dir}/")) && !from_dir.is_empty() => {
            format!("[[./{}]]", &stem[from_dir.len() + 1..])
        }
        _ => format!("[[{stem}#Heading]]"),
    }
}

fn targets(vault: &Vault) -> BTreeMap<(String, usize), Option<String>> {
    let mut out = BTreeMap::new();
    for (i, n) in vault.notes.iter().enumerate() {
        for (li, r) in vault.resolved[i].iter().enumerate() {
            let t = match r {
                Resolution::File { id, .. } => Some(vault.files.paths[*id].clone()),
                _ => None,
            };
            out.insert((n.path.clone(), li), t);
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn a_move_keeps_every_link_on_its_file((notes, mover, dest) in vault_strategy()) {
        let dir = tempfile::tempdir().expect("tmp");
        for (path, links) in &notes {
            let body: Vec<String> = links.iter().map(|(t, f)| link_text(path, &notes[*t].0, *f)).collect();
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(&full, format!("---\nup: \"[[{}]]\"\n---\n{}\n", notes[(mover + 1) % notes.len()].0.trim_end_matches(".md"), body.join(" "))).expect("write");
        }
        let before_vault = Vault::open(dir.path()).expect("open");
        let before = targets(&before_vault);
        let from = notes[mover].0.clone();
        let file = from.rsplit('/').next().unwrap_or(&from).to_string();
        let to = if dest.is_empty() { file } else { format!("{dest}/{file}") };
        let mut gate = Gate::new(before_vault, Policy::default(), Journal::in_memory(), false);
        let outcome = gate.move_file(&from, &to).expect("move");
        let after_vault = Vault::open(dir.path()).expect("reopen");
        // every note still exists exactly once, with the moved one at its new place
        prop_assert_eq!(after_vault.notes.len(), notes.len());
        prop_assert!(dir.path().join(&outcome.to).exists());
        let after = targets(&after_vault);
        // the gate's incremental view of the vault equals a fresh read of the disk
        let mirror = targets(gate.vault());
        prop_assert_eq!(&mirror, &after, "the in-memory vault drifted from the disk");
        // backlinks from the leaf index equal a scan of every resolved link
        let v = gate.vault();
        for n in 0..v.notes.len() {
            let file = v.file_id_of_note(n);
            let scan: Vec<(usize, usize)> = v.resolved.iter().enumerate()
                .flat_map(|(src, links)| links.iter().enumerate()
                    .filter(move |(_, r)| r.file() == Some(file))
                    .map(move |(li, _)| (src, li)))
                .collect();
            prop_assert_eq!(v.links_to(n), scan, "links to {}", &v.notes[n].path);
        }
        let map = |p: &String| if *p == outcome.from { outcome.to.clone() } else { p.clone() };
        for ((src, li), t) in &before {
            let new_src = map(src);
            let now = after.get(&(new_src.clone(), *li)).cloned().flatten();
            prop_assert_eq!(now, t.as_ref().map(map), "link {} of {} (now {})", li, src, new_src);
        }
    }
}

mod oracle;

/// A block of a note body for the move test: its text, and how many real links it holds. Every
/// link names the note to move by its path (`a/t`), so a move must rewrite each real one — and
/// must leave each one shown as code exactly as it was.
fn move_block() -> impl Strategy<Value = (String, usize)> {
    let link = prop::sample::select(vec![
        "[[a/t]]",
        "[[a/t|shown]]",
        "![[a/t]]",
        "[[a/t#Part]]",
        "[md](a/t.md)",
    ]);
    let shape = 0..18u8;
    (shape, link).prop_map(|(shape, l)| match shape {
        0 => (format!("text {l} more"), 1),
        1 => (format!("- item {l}\n- next {l}"), 2),
        2 => (format!("- a\n    - nested {l}\n        - deeper {l}"), 2),
        3 => (format!("> quoted {l}\n> on {l}"), 2),
        4 => (format!("> [!note] Title {l}\n> body {l}"), 2),
        5 => (format!("```\n{l}\n```"), 0),
        6 => (format!("- item\n  ```sh\n  {l}\n  ```\n- after {l}"), 1),
        7 => (format!("- ```sh\n  {l}\n  ```\n\n{l}"), 1),
        8 => (
            format!("- a\n    - b\n\n      ```\n      {l}\n      ```\n\n{l}"),
            1,
        ),
        9 => (format!("> ```\n> {l}\n> ```\n> {l}"), 1),
        10 => (format!("> [!note]\n> ~~~md\n> {l}\n> ~~~\n\n{l}"), 1),
        11 => (format!("a `code\n{l}` b {l}"), 1),
        12 => (format!("\\`{l}` real"), 1),
        13 => (format!("1. one\n   ```\n   {l}\n   ```\n2. two {l}"), 1),
        14 => (
            format!("> - quoted item\n>   ```\n>   {l}\n>   ```\n> - {l}"),
            1,
        ),
        15 => (format!("``{l}`` and `{l}`"), 0),
        16 => (format!("%% {l} %% and <!-- {l} --> then {l}"), 1),
        _ => (format!("| a | b |\n|---|---|\n| {l} | `{l}` |"), 1),
    })
}

/// The texts of the code in a body, as pulldown-cmark finds it.
fn code_texts(text: &str) -> Vec<String> {
    oracle::oracle(text)
        .code
        .into_iter()
        .map(|r| text[r].to_string())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn a_move_rewrites_every_real_link_and_no_code(blocks in prop::collection::vec(move_block(), 1..7)) {
        let body = blocks.iter().map(|b| b.0.as_str()).collect::<Vec<_>>().join("\n\n") + "\n";
        let real: usize = blocks.iter().map(|b| b.1).sum();
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::create_dir_all(dir.path().join("a")).expect("mkdir");
        std::fs::write(dir.path().join("a/t.md"), "# T\n\n## Part\n").expect("write");
        std::fs::write(dir.path().join("x.md"), &body).expect("write");
        let before = Vault::open(dir.path()).expect("open");
        prop_assert_eq!(link_targets(&before).len(), real, "links found before the move in {:?}", body);
        let mut gate = Gate::new(before, Policy::default(), Journal::in_memory(), false);
        let outcome = gate.move_file("a/t.md", "b/t.md").expect("move");
        prop_assert_eq!(&outcome.to, "b/t.md");
        let after_text = std::fs::read_to_string(dir.path().join("x.md")).expect("read");
        // no byte inside code changed: the same code, in the same order, with the same text
        prop_assert_eq!(code_texts(&after_text), code_texts(&body), "{}", after_text);
        // every real link was rewritten: each still finds the moved note
        let after = Vault::open(dir.path()).expect("reopen");
        let targets = link_targets(&after);
        prop_assert_eq!(targets.len(), real, "{}", after_text);
        for t in targets {
            prop_assert_eq!(t.as_deref(), Some("b/t.md"), "{}", after_text);
        }
    }
}

/// Where each link of `x.md` (wikilinks, embeds and Markdown links) leads.
fn link_targets(vault: &Vault) -> Vec<Option<String>> {
    let Some(x) = vault.notes.iter().position(|n| n.path == "x.md") else {
        return Vec::new();
    };
    let file = |r: Resolution| match r {
        Resolution::File { id, .. } => Some(vault.files.paths[id].clone()),
        _ => None,
    };
    let mut out: Vec<Option<String>> = vault.resolved[x].iter().map(|r| file(*r)).collect();
    for l in &vault.notes[x].markdown_links {
        out.push(file(vault.files.resolve("x.md", &l.target)));
    }
    out
}
