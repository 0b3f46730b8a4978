//! The seeker's modes from the command line, asserting what they list: backlinks with their
//! lines, cited passages, the comparison's columns, the timeline's order, notes to revisit, and
//! no writer chained after a read-only request.

mod common;

use common::{crew, json_of, vault};

/// Zotero and the four notes linking to it, each in another form, plus one that only names it.
fn zotero_vault() -> assert_fs::TempDir {
    vault(&[
        (
            "Zotero.md",
            "---\ncreated: 2026-01-05\n---\n# Zotero\n\nZotero is a reference manager for papers.\n",
        ),
        (
            "Reading.md",
            "# Reading\n\nI keep every paper in [[Zotero]] and cite from there.\nSee [[Missing note]].\n",
        ),
        (
            "Sources.md",
            "---\nsource: \"[[Zotero]]\"\n---\n# Sources\n\nA list.\n",
        ),
        ("Dashboard.md", "# Dashboard\n\nToday:\n\n![[Zotero]]\n"),
        (
            "Tools.md",
            "# Tools\n\nsee [the manager](Zotero.md) for papers\n",
        ),
        (
            "Plain.md",
            "# Plain\n\nZotero is mentioned here without a link.\n",
        ),
    ])
}

fn output(args: &[&str], dir: &std::path::Path) -> String {
    let out = crew(dir).args(args).output().expect("run crew");
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn what_links_to_lists_every_backlink_with_its_line() {
    let v = zotero_vault();
    let text = output(&["ask", "what links to Zotero?"], v.path());
    assert!(text.contains("## 4 notes link to [[Zotero]]"), "{text}");
    for expected in [
        "- [[Reading]] — `Reading.md`\n  - line 3 (link): I use",
        "- [[Sources]] — `Sources.md`\n  - line 2 (frontmatter): source: \"[[Zotero]]\"",
        "- [[Dashboard]] — `Dashboard.md`\n  - line 5 (embed): ![[Zotero]]",
        "- [[Tools]] — `Tools.md`\n  - line 3 (Markdown link): see [the manager](Zotero.md)",
    ] {
        let head = expected.split(": I use").next().unwrap_or(expected);
        assert!(text.contains(head), "missing {head:?} in\n{text}");
    }
    assert!(!text.contains("[[Plain]]"), "{text}");
    // the connector's audit did not answer
    assert!(!text.contains("Connections for"), "{text}");
}

#[test]
fn backlinks_in_other_languages_route_to_the_seeker() {
    let v = zotero_vault();
    for request in [
        "cosa rimanda a Zotero?",
        "quelles notes pointent vers Zotero ?",
        "¿qué notas enlazan a Zotero?",
        "Welche Notizen verlinken auf Zotero?",
        "quais notas apontam para Zotero?",
        "Zoteroへのバックリンク",
    ] {
        let json = json_of(crew(v.path()).args(["ask", "--json", request]));
        assert_eq!(json["route"]["name"], "seeker", "{request}: {json}");
        let found = &json["chain"][0]["data"]["backlinks"]["notes"];
        assert_eq!(found.as_array().map(Vec::len), Some(4), "{request}: {json}");
    }
}

#[test]
fn what_do_i_know_cites_passages_and_chains_no_writer() {
    let v = zotero_vault();
    let json = json_of(crew(v.path()).args(["ask", "--json", "what do I know about Zotero?"]));
    let chain: Vec<&str> = json["chain"]
        .as_array()
        .expect("chain")
        .iter()
        .filter_map(|s| s["agent"].as_str())
        .collect();
    assert_eq!(chain, ["seeker"], "{json}");
    let deferred = json["deferred"].as_array().expect("deferred");
    let librarian = deferred
        .iter()
        .find(|d| d["agent"] == "librarian")
        .unwrap_or_else(|| panic!("the broken link's librarian is deferred: {json}"));
    assert!(
        librarian["command"]
            .as_str()
            .is_some_and(|c| c.starts_with("crew ask --agent librarian")),
        "{json}"
    );
    let text = json["chain"][0]["output"].as_str().expect("output");
    assert!(
        text.contains(
            "> Zotero is a reference manager for papers.\n\n— [[Zotero]], line 6, under \"Zotero\""
        ),
        "{text}"
    );
    assert!(text.contains("— [[Reading]], line 3"), "{text}");
    assert!(text.contains("the central one"), "{text}");
    assert!(
        !text.contains("`Zotero.md`:"),
        "no path:line snippets: {text}"
    );
}

#[test]
fn a_passage_said_twice_is_shown_once() {
    let v = vault(&[
        (
            "Garden.md",
            "# Garden\n\nTomatoes need six hours of sun every day.\n",
        ),
        (
            "Copy.md",
            "# Copy\n\n> Tomatoes need six hours of sun every day\n",
        ),
    ]);
    let text = output(&["ask", "what do I know about tomatoes"], v.path());
    assert_eq!(text.matches("six hours of sun").count(), 1, "{text}");
}

#[test]
fn compare_puts_two_notes_side_by_side() {
    let v = vault(&[
        (
            "Alpha.md",
            "---\ntags: [project, solar]\ncreated: 2026-02-01\n---\n# Alpha\n\nAlpha builds the solar roof with [[Marco]].\n\n## Budget\n\nTen thousand.\n\n[[Roof]]\n",
        ),
        (
            "Beta.md",
            "---\ntags: [project]\n---\n# Beta\n\nBeta plans the garden with [[Marco]].\n\n## Plants\n\nTomatoes.\n",
        ),
        ("Marco.md", "# Marco\n"),
        ("Roof.md", "# Roof\n"),
    ]);
    let text = output(&["ask", "compare Alpha and Beta"], v.path());
    assert!(text.contains("| | [[Alpha]] | [[Beta]] |"), "{text}");
    assert!(text.contains("| Date | 2026-02-01 | — |"), "{text}");
    assert!(text.contains("| Says | Alpha builds the solar roof with [[Marco]]. | Beta plans the garden with [[Marco]]. |"), "{text}");
    assert!(
        text.contains("### Shared\n- Links: [[Marco]]\n- Tags: #project"),
        "{text}"
    );
    assert!(
        text.contains("### Only in [[Alpha]]\n- Links: [[Roof]]\n- Tags: #solar"),
        "{text}"
    );
    assert!(text.contains("- Sections: Plants"), "{text}");
}

#[test]
fn timeline_orders_by_created_date_and_file_name() {
    let v = vault(&[
        (
            "Late.md",
            "---\ncreated: 2026-03-10\n---\nsolar panels ordered\n",
        ),
        (
            "Early.md",
            "---\ndate: 2025-11-02\n---\nsolar quote received\n",
        ),
        (
            "2026-01-15 — Meeting — Solar.md",
            "solar installer meeting\n",
        ),
        ("Undated.md", "solar ideas\n"),
    ]);
    let text = output(&["ask", "timeline of solar"], v.path());
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("missing {s:?} in\n{text}"))
    };
    assert!(at("### 2025-11") < at("[[Early]]"));
    assert!(at("[[Early]]") < at("### 2026-01"));
    assert!(at("### 2026-01") < at("[[2026-01-15 — Meeting — Solar]] (from the file name)"));
    assert!(at("(from the file name)") < at("### 2026-03"));
    assert!(at("### 2026-03") < at("- 2026-03-10 — [[Late]]"));
    assert!(at("[[Late]]") < at("### Undated\n- [[Undated]]"));
}

#[test]
fn revisit_lists_stale_notes_recent_work_links_to() {
    let today = chrono::Local::now().date_naive();
    let day = |ago: i64| (today - chrono::Duration::days(ago)).to_string();
    let files = vec![
        (
            "Old idea.md".to_string(),
            format!("---\nupdated: {}\n---\nthe idea\n", day(200)),
        ),
        (
            "Forgotten.md".to_string(),
            format!("---\nupdated: {}\n---\nno one links here\n", day(200)),
        ),
        (
            "Old but only old links.md".to_string(),
            format!("---\nupdated: {}\n---\nx\n", day(300)),
        ),
        (
            "Ancient.md".to_string(),
            format!(
                "---\nupdated: {}\n---\n[[Old but only old links]]\n",
                day(400)
            ),
        ),
        (
            "This week.md".to_string(),
            format!("---\nupdated: {}\n---\nbuilds on [[Old idea]]\n", day(3)),
        ),
    ];
    let v = common::vault_of(&files);
    let text = output(&["ask", "what should I revisit?"], v.path());
    assert!(text.contains("## 1 note worth revisiting"), "{text}");
    assert!(
        text.contains(&format!(
            "- [[Old idea]] — untouched since {} (200 days); linked from [[This week]]",
            day(200)
        )),
        "{text}"
    );
    assert!(
        !text.contains("[[Forgotten]]") && !text.contains("[[Old but only old links]]"),
        "{text}"
    );
}

#[test]
fn chat_refinement_still_narrows_a_search() {
    // the seeker's search keeps handing the chat its result set
    let v = zotero_vault();
    let json = json_of(crew(v.path()).args(["ask", "--json", "find papers"]));
    let hits = json["chain"][0]["data"]["hits"].as_array().expect("hits");
    assert!(hits.iter().any(|h| h == "Zotero.md"), "{json}");
}

#[test]
fn on_the_obsidian_help_corpus() {
    let Some(shared) = common::shared() else {
        common::skipped("../shared is absent, so the seeker's corpus check did not run");
        return;
    };
    let dir = shared.join("corpora/vaults/obsidian-help-en");
    // the shared corpus is read-only: a dry run reads it and writes nothing
    let ask = |request: &str| json_of(crew(&dir).args(["ask", "--dry-run", "--json", request]));
    let json = ask("what links to Canvas");
    let notes = json["chain"][0]["data"]["backlinks"]["notes"]
        .as_array()
        .expect("backlinks");
    let paths: Vec<&str> = notes.iter().filter_map(|n| n["path"].as_str()).collect();
    assert_eq!(
        paths,
        [
            "Editing and formatting/Embed web pages.md",
            "Linking notes and files/Embed files.md",
            "Plugins/Core plugins.md",
            "Plugins/Web viewer.md"
        ],
        "{json}"
    );
    let json = ask("what do I know about templates");
    assert_eq!(json["chain"].as_array().map(Vec::len), Some(1), "{json}");
    let passages = json["chain"][0]["data"]["answer"]["passages"]
        .as_array()
        .expect("passages");
    assert!(passages.len() >= 5, "{json}");
    assert!(
        passages
            .iter()
            .any(|p| p["path"] == "Plugins/Templates.md" && p["line"].as_u64() > Some(0)),
        "{json}"
    );
}

/// A Japanese query finds a Japanese note: the note's text and the query are cut where the
/// script changes (`京都旅行の計画` → `京都旅行`, `の`, `計画`), so a word written without spaces is
/// still a word of the note (it was one run of the whole sentence, matching nothing).
#[test]
fn a_japanese_query_finds_a_japanese_note() {
    let v = vault(&[
        ("旅行.md", "# 旅行\n\n来年の京都旅行の計画を立てた。\n"),
        ("料理.md", "# 料理\n\n今日はカレーを作った。\n"),
    ]);
    let hits = json_of(crew(v.path()).args(["search", "--json", "京都旅行"]));
    let paths: Vec<&str> = hits
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| h["path"].as_str())
        .collect();
    assert_eq!(paths, vec!["旅行.md"], "{hits}");
}
