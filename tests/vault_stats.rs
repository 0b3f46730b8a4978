//! `crew vault stats`: the real corpus, and one small vault per counting rule.

mod common;

use common::{crew, json_of, shared, vault};

fn stats(files: &[(&str, &str)]) -> serde_json::Value {
    let v = vault(files);
    json_of(crew(v.path()).args(["vault", "stats", "--json"]))
}

fn n(v: &serde_json::Value, key: &str) -> i64 {
    v[key]
        .as_i64()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
}

#[test]
fn obsidian_help_corpus_matches_expected_figures() {
    let Some(shared) = shared() else {
        common::skipped("../shared is absent, so the obsidian-help-en corpus check did not run");
        return;
    };
    let expected: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(shared.join("corpora/obsidian-help-en.expected.json"))
            .expect("expected figures"),
    )
    .expect("json");
    let got = json_of(
        crew(&shared.join("corpora/vaults/obsidian-help-en")).args(["vault", "stats", "--json"]),
    );
    for (k, want) in expected.as_object().expect("object") {
        let correction = SPEC_CORRECTIONS
            .iter()
            .find(|(key, _)| key == k)
            .map_or(0, |(_, d)| *d);
        let want = want.as_i64().expect("integer") + correction;
        assert_eq!(got[k].as_i64(), Some(want), "{k}");
    }
}

/// Where `obsidian-help-en.expected.json` predates the container-aware masking that the spec now
/// requires and `pulldown-cmark` confirms (`tests/markdown_oracle.rs` finds no difference on any
/// corpus note): in "Editing and formatting/Advanced formatting syntax.md" a ```` ```md ```` fence
/// inside the `> [!note] Vertical bars in tables` callout holds one link and one embed, and in
/// "Extending Obsidian/CSS snippets.md" a ```` ```css ```` fence inside a blockquote holds
/// `#ff0000`, the vault's only use of that "tag". Each figure is the expected one plus this
/// correction; every other figure must match exactly.
const SPEC_CORRECTIONS: &[(&str, i64)] = &[
    ("wikilinks", -1),
    ("embeds", -1),
    ("tags_distinct", -1),
    ("notes_with_tags", -1),
];

#[test]
fn walk_skips_hidden_and_counts_attachments() {
    let s = stats(&[
        ("a.md", ""),
        (".obsidian/x.md", ""),
        ("sub/.hidden/y.md", ""),
        ("img/p.png", "x"),
        ("doc.pdf", "x"),
        ("README.MD.txt", ""),
    ]);
    assert_eq!(n(&s, "notes"), 1);
    assert_eq!(n(&s, "attachments"), 3);
}

#[test]
fn frontmatter_rules() {
    let s = stats(&[
        ("ok.md", "---\na: 1\n---\n"),
        ("empty.md", "---\n---\nbody"),
        ("bad.md", "---\na: [1\n---\n"),
        ("scalar.md", "---\njust words\n---\n"),
        ("unclosed.md", "---\na: 1\nno end"),
        ("late.md", "\n---\na: 1\n---\n"),
        ("crlf.md", "---\r\na: 1\r\n---\r\n"),
        ("bom.md", "\u{feff}---\na: 1\n---\n"),
    ]);
    assert_eq!(n(&s, "notes_with_frontmatter"), 6);
    assert_eq!(n(&s, "frontmatter_errors"), 2);
}

#[test]
fn masked_regions_hide_links_and_tags() {
    let s = stats(&[
        (
            "a.md",
            "---\nup: \"[[b]]\"\ntags: [fm]\n---\n```\n[[b]] #no1\n```\n`[[b]]` %% [[b]] %% <!-- [[b]] #no2 -->\n~~~\n[[b]]\n~~~\n    [[b]] #yes\n",
        ),
        ("b.md", ""),
    ]);
    assert_eq!(n(&s, "wikilinks"), 1, "only the indented-code link counts");
    assert_eq!(n(&s, "tags_distinct"), 2, "fm and yes");
}

#[test]
fn unclosed_comment_and_fence_rules() {
    let s = stats(&[("a.md", "%% open\n[[b]]\n``` x`y\n[[b]]\n"), ("b.md", "")]);
    assert_eq!(n(&s, "wikilinks"), 2);
    let s = stats(&[("a.md", "```\n[[b]]\n"), ("b.md", "")]);
    assert_eq!(n(&s, "wikilinks"), 0, "an unclosed fence runs to the end");
}

#[test]
fn link_targets_aliases_headings_and_table_pipes() {
    let s = stats(&[
        (
            "a.md",
            "[[b|B]] [[b#H]] [[b#^blk]] | [[b\\|x]] | [[#Self]] [[ b ]] ![[pic.png|100]] ![[nope.png]] [[missing]]",
        ),
        ("b.md", ""),
        ("pic.png", "x"),
    ]);
    assert_eq!(n(&s, "wikilinks"), 7);
    assert_eq!(n(&s, "wikilinks_unresolved"), 1);
    assert_eq!(n(&s, "embeds"), 2);
    assert_eq!(n(&s, "embeds_unresolved"), 1);
    assert_eq!(
        n(&s, "graph_edges"),
        1,
        "a→b once; [[#Self]] and attachments make no edge"
    );
}

#[test]
fn resolution_by_path_relative_case_and_unicode() {
    let s = stats(&[
        (
            "x/a.md",
            "[[./c]] [[../top]] [[y/b]] [[/y/b.md]] [[Y/B]] [[Café ☕]] [[ÉCOLE]] [[deep/b]] [[ecole]]",
        ),
        ("x/c.md", ""),
        ("top.md", ""),
        ("y/b.md", ""),
        ("z/deep/b.md", ""),
        ("Café ☕.md", ""),
        ("école.md", ""),
    ]);
    assert_eq!(n(&s, "wikilinks"), 9);
    assert_eq!(
        n(&s, "wikilinks_unresolved"),
        1,
        "matching ignores case (ÉCOLE finds école) but not accents (ecole does not)"
    );
}

#[test]
fn self_links_orphans_and_incoming() {
    let s = stats(&[
        ("a.md", "[[a]] [[#top]]"),
        ("b.md", "[[c]]"),
        ("c.md", ""),
        ("d.md", ""),
    ]);
    assert_eq!(n(&s, "graph_edges"), 2, "a→a and b→c");
    assert_eq!(n(&s, "notes_without_incoming"), 2, "b and d");
    assert_eq!(n(&s, "orphans"), 1, "d");
}

#[test]
fn tags_and_aliases() {
    let s = stats(&[
        (
            "a.md",
            "---\ntags: one, Two #three\nALIASES: [x, y]\n---\n#inline #1984 #Two x#not\n",
        ),
        (
            "b.md",
            "---\nTag: [\"#four\"]\nalias: Just One, Still One\n---\n",
        ),
        ("c.md", "no tags"),
    ]);
    assert_eq!(
        n(&s, "tags_distinct"),
        4,
        "one, two, inline, four; `#three` is a YAML comment"
    );
    assert_eq!(n(&s, "notes_with_tags"), 2);
    assert_eq!(n(&s, "aliases"), 3);
}

#[test]
fn duplicate_names_across_folders() {
    let s = stats(&[
        ("a/Note.md", ""),
        ("b/note.md", ""),
        ("c/Other.md", ""),
        ("Other.md", ""),
        ("x/y.md", ""),
    ]);
    assert_eq!(n(&s, "duplicate_name_groups"), 2);
}

#[test]
fn missing_vault_is_a_clear_error() {
    let v = vault(&[]);
    let missing = v.path().join("nope");
    crew(&missing)
        .args(["vault", "stats"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("does not exist"));
}

/// Every file and folder under `root`, hidden ones included.
fn everything(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut all: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .map(|e| e.into_path())
        .collect();
    all.sort();
    all
}

/// A vault crew has not adopted gets its index in the user's cache folder, never a file of its
/// own, and a second read counts the same from there.
#[test]
fn a_vault_not_adopted_is_indexed_in_the_cache_folder_not_inside() {
    let v = vault(&[
        ("a.md", "[[b]] #one"),
        ("sub/b.md", "---\naliases: [bee]\n---\n[[a]] ![[pic.png]]"),
        ("pic.png", "png"),
    ]);
    let cache = tempfile::tempdir().expect("tmp");
    let before = everything(v.path());
    let run = || {
        json_of(
            crew(v.path())
                .env("XDG_CACHE_HOME", cache.path())
                .args(["vault", "stats", "--json"]),
        )
    };
    let first = run();
    assert_eq!(
        everything(v.path()),
        before,
        "nothing was written in the vault"
    );
    let indexes: Vec<_> = everything(cache.path())
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "index.bin"))
        .collect();
    assert_eq!(indexes.len(), 1, "one index in the cache: {indexes:?}");
    assert!(indexes[0].starts_with(cache.path().join("crew/vaults")));
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(run(), first, "the cached index gives the same counts");
    assert_eq!(run(), first, "and so do the counts kept beside it");
    assert_eq!(n(&first, "notes"), 2);
    assert_eq!(n(&first, "aliases"), 1);
    assert_eq!(everything(v.path()), before);
}
