//! The seeker's knowledge gaps, the summary at the top of an answer, and the filters every
//! seeker mode honours — from the command line, on temporary vaults.

mod common;

use common::{crew, json_of, snapshot, vault, vault_of};

/// A small pasta topic: a note with missing links, open points and an empty section; a stub;
/// a note that names the missing note too without being about pasta.
fn pasta_vault() -> assert_fs::TempDir {
    vault(&[
        (
            "Pasta.md",
            "---\ntags: [food]\n---\n# Pasta\n\n\
             Fresh pasta is flour and eggs, kneaded until smooth, rested, then rolled thin.\n\
             Dried pasta keeps for years; fresh pasta keeps for two days in the fridge.\n\
             See [[Sauces]] and [[Semolina]], and [[Bronze dies]].\n\n\
             - [ ] try bronze-cut dies\n- [x] buy a rolling pin\n\
             TODO: compare 00 flour with semolina\n\
             Does fresh pasta freeze well?\n\n\
             ## Storage\n\n## Shapes\n\nPenne, fusilli and tagliatelle for now.\n",
        ),
        (
            "Carbonara.md",
            "---\ntags: [food, roman]\n---\n# Carbonara\n\nA pasta with eggs and [[Sauces]].\n",
        ),
        (
            "Semolina.md",
            "# Semolina\n\nDurum wheat flour, coarse and yellow, for pasta and bread.\n",
        ),
        (
            "Garden.md",
            "# Garden\n\nBasil and tomatoes for the [[Sauces]] of the summer.\n",
        ),
    ])
}

fn gaps_of(json: &serde_json::Value) -> &serde_json::Value {
    assert_eq!(json["route"]["name"], "seeker", "{json}");
    assert_eq!(json["chain"][0]["data"]["mode"], "gaps", "{json}");
    &json["chain"][0]["data"]["gaps"]
}

#[test]
fn what_am_i_missing_lists_missing_notes_open_points_thin_spots_and_lone_ties() {
    let v = pasta_vault();
    let before = snapshot(v.path());
    let json = json_of(crew(v.path()).args(["ask", "--json", "what am I missing about pasta?"]));
    let gaps = gaps_of(&json);
    assert_eq!(gaps["topic"], "pasta", "{json}");
    // the missing note the most notes ask for comes first, with the line of each link to it
    let missing = gaps["missing"].as_array().expect("missing");
    assert_eq!(missing[0]["target"], "Sauces", "{json}");
    assert_eq!(missing[0]["asked_by"], 3, "{json}");
    let from: Vec<(&str, u64)> = missing[0]["from"]
        .as_array()
        .expect("from")
        .iter()
        .map(|s| {
            (
                s["path"].as_str().unwrap_or(""),
                s["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(from.contains(&("Pasta.md", 8)), "{from:?}");
    assert!(from.contains(&("Carbonara.md", 6)), "{from:?}");
    assert!(
        missing
            .iter()
            .any(|m| m["target"] == "Bronze dies" && m["asked_by"] == 1),
        "{json}"
    );
    assert!(!missing.iter().any(|m| m["target"] == "Semolina"), "{json}");
    // open points: the unchecked task, the TODO, the question — not the done task
    let open: Vec<(u64, &str)> = gaps["open"]
        .as_array()
        .expect("open")
        .iter()
        .filter(|o| o["site"]["path"] == "Pasta.md")
        .map(|o| {
            (
                o["site"]["line"].as_u64().unwrap_or(0),
                o["kind"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        open,
        [(10, "task"), (12, "marker"), (13, "question")],
        "{json}"
    );
    // thin: the stub, and the empty section
    let thin = gaps["thin"].as_array().expect("thin");
    assert!(
        thin.iter()
            .any(|t| t["site"]["path"] == "Carbonara.md" && t["heading"] == ""),
        "{json}"
    );
    assert!(
        thin.iter().any(|t| t["site"]["path"] == "Pasta.md"
            && t["heading"] == "Storage"
            && t["site"]["line"] == 15),
        "{json}"
    );
    assert!(!thin.iter().any(|t| t["heading"] == "Shapes"), "{json}");
    // tied once: the tag only the stub carries
    let once: Vec<&str> = gaps["once"]
        .as_array()
        .expect("once")
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert!(once.contains(&"#roman"), "{once:?}");
    assert!(!once.contains(&"#food"), "{once:?}");
    let text = json["chain"][0]["output"].as_str().expect("output");
    assert!(
        text.contains("- [[Sauces]] — notes asking for it: 3; linked from [[Pasta]], line 8"),
        "{text}"
    );
    assert!(
        text.contains("- [[Pasta]], line 13 (question): Does fresh pasta freeze well?"),
        "{text}"
    );
    assert!(
        text.contains("- [[Pasta]], line 15: \"Storage\" has nothing under it"),
        "{text}"
    );
    let mut after = snapshot(v.path());
    // the seeker keeps its post-it; no note changes
    after.retain(|p, _| !p.starts_with("Meta/states/"));
    assert_eq!(before, after, "gaps are read-only");
}

#[test]
fn knowledge_gaps_are_asked_for_in_seven_languages() {
    let v = pasta_vault();
    for request in [
        "knowledge gaps on pasta",
        "cosa mi manca sulla pasta?",
        "qu'est-ce qui me manque sur pasta ?",
        "¿qué me falta sobre pasta?",
        "Wissenslücken zu Pasta",
        "o que me falta sobre pasta?",
    ] {
        let json = json_of(crew(v.path()).args(["ask", "--json", request]));
        let gaps = gaps_of(&json);
        assert_eq!(gaps["topic"], "pasta", "{request}: {json}");
        assert!(
            gaps["missing"]
                .as_array()
                .is_some_and(|m| m.iter().any(|m| m["target"] == "Sauces")),
            "{request}: {json}"
        );
    }
    let v = vault(&[(
        "パスタ.md",
        "# パスタ\n\n[[ソース]]を作る。\n\n- [ ] 生パスタを試す\n",
    )]);
    let json = json_of(crew(v.path()).args(["ask", "--json", "パスタについて足りないことは？"]));
    let gaps = gaps_of(&json);
    assert_eq!(gaps["topic"], "パスタ", "{json}");
    assert_eq!(gaps["missing"][0]["target"], "ソース", "{json}");
}

#[test]
fn an_answer_opens_with_a_summary_drawn_from_its_passages() {
    let v = vault(&[
        (
            "Sourdough.md",
            "# Sourdough\n\nA sourdough starter is flour and water fermented by wild yeast.\n\n\
             My oven is old and runs hot.\n",
        ),
        (
            "Starter care.md",
            "# Starter care\n\nFeed the sourdough starter flour and water every day; wild yeast \
             needs fresh food.\n",
        ),
        (
            "Bread log.md",
            "# Bread log\n\nThe sourdough loaf rose slowly because the starter was cold.\n",
        ),
    ]);
    let json = json_of(crew(v.path()).args(["ask", "--json", "what do I know about sourdough?"]));
    let answer = &json["chain"][0]["data"]["answer"];
    let digest = answer["digest"].as_array().expect("digest");
    assert!(!digest.is_empty(), "{json}");
    for p in digest {
        // every sentence is one of the notes', word for word
        let path = p["path"].as_str().expect("path");
        let text = std::fs::read_to_string(v.path().join(path)).expect("note");
        let sentence = p["text"].as_str().expect("text");
        assert!(text.contains(sentence), "{sentence:?} is not in {path}");
    }
    // the most central sentence shares the rare words of the others; the aside shares none
    assert!(
        digest[0]["text"]
            .as_str()
            .is_some_and(|t| t.contains("wild yeast")),
        "{json}"
    );
    assert!(
        !digest
            .iter()
            .any(|p| p["text"] == "My oven is old and runs hot.")
    );
    let text = json["chain"][0]["output"].as_str().expect("output");
    let top = text
        .find("**In short, from your notes**")
        .expect("labelled summary");
    let first_quote = text.find("\n> ").expect("passages");
    assert!(top < first_quote, "the summary comes first: {text}");
    assert!(
        text.contains(&format!(
            "- {} — [[{}]], line",
            digest[0]["text"].as_str().unwrap_or(""),
            digest[0]["title"].as_str().unwrap_or("")
        )),
        "{text}"
    );
}

/// With the tier's model, the answer opens with the model's synthesis of the passages (sent
/// fenced, titles given); a synthesis citing a note the passages do not come from is refused
/// and the extractive summary stands, saying why.
#[test]
fn with_a_model_the_answer_opens_with_its_cited_synthesis() {
    let files = [
        (
            "Sourdough.md",
            "# Sourdough\n\nA sourdough starter is flour and water fermented by wild yeast.\n",
        ),
        (
            "Starter care.md",
            "# Starter care\n\nFeed the sourdough starter flour and water every day.\n",
        ),
        (".crew/config.yaml", "models:\n  mid: gpt-4.1-mini\n"),
    ];
    let ask = |server: &mockito::Server| {
        let v = vault(&files);
        let mut cmd = crew(v.path());
        for k in common::PROVIDER_VARS {
            cmd.env_remove(k);
        }
        for (k, val) in common::openai_env(&server.url()) {
            cmd.env(k, val);
        }
        json_of(cmd.args(["ask", "--json", "what do I know about sourdough?"]))
    };
    let mut server = mockito::Server::new();
    let good = server
        .mock("POST", "/v1/chat/completions")
        .match_body(mockito::Matcher::AllOf(vec![
            mockito::Matcher::Regex("=== passage 1 ===".into()),
            mockito::Matcher::Regex("Title: Sourdough".into()),
        ]))
        .with_body(common::openai_reply(
            "A starter is flour and water that wild yeast ferments [[Sourdough]], fed daily [[Starter care]].",
            50,
            20,
        ))
        .expect(1)
        .create();
    let json = ask(&server);
    good.assert();
    let text = json["chain"][0]["output"].as_str().expect("output");
    let top = text
        .find("**A synthesis by gpt-4.1-mini**")
        .unwrap_or_else(|| panic!("no synthesis: {text}"));
    assert!(top < text.find("\n> ").expect("passages"), "{text}");
    assert!(text.contains("fed daily [[Starter care]]."), "{text}");

    let mut server = mockito::Server::new();
    server
        .mock("POST", "/v1/chat/completions")
        .with_body(common::openai_reply("Bread is best with [[Pizza]].", 50, 8))
        .create();
    let json = ask(&server);
    let text = json["chain"][0]["output"].as_str().expect("output");
    assert!(!text.contains("[[Pizza]]"), "{text}");
    assert!(text.contains("(No synthesis by the model:"), "{text}");
    assert!(text.contains("**In short, from your notes**"), "{text}");
}

/// Two pasta notes and two sauce notes, one pair filed, tagged, typed and dated as recipes,
/// the other as journal entries; all untouched for long and linked from this week's note, so
/// every mode (revisit included) has both pairs to choose from.
fn filtered_vault() -> assert_fs::TempDir {
    let today = chrono::Local::now().date_naive();
    let old = (today - chrono::Duration::days(200)).to_string();
    let recent = (today - chrono::Duration::days(2)).to_string();
    let note = |tag: &str, kind: &str, created: &str, text: &str| {
        format!(
            "---\ntags: [{tag}]\ntype: {kind}\ncreated: {created}\nupdated: {old}\n---\n{text}\n"
        )
    };
    let files = vec![
        (
            "Recipes/Pasta.md".to_string(),
            note(
                "recipes",
                "recipe",
                "2026-02-10",
                "Pasta with tomato sauce, made fresh.",
            ),
        ),
        (
            "Recipes/Sauce.md".to_string(),
            note(
                "recipes",
                "recipe",
                "2026-02-11",
                "Tomato sauce for pasta, slow cooked.",
            ),
        ),
        (
            "Journal/Pasta.md".to_string(),
            note(
                "diary",
                "entry",
                "2025-06-01",
                "Pasta night with friends; the pasta was late.",
            ),
        ),
        (
            "Journal/Sauce.md".to_string(),
            note(
                "diary",
                "entry",
                "2025-06-02",
                "The sauce for the pasta burnt on the stove.",
            ),
        ),
        (
            "Week.md".to_string(),
            format!(
                "---\nupdated: {recent}\n---\n[[Recipes/Pasta]] [[Recipes/Sauce]] \
                 [[Journal/Pasta]] [[Journal/Sauce]]\n"
            ),
        ),
    ];
    vault_of(&files)
}

/// Each seeker mode asked with `filter`: the notes it shows must all be in `keep` (a folder
/// prefix), and one at least.
fn every_mode_honours(filter: &str, keep: &str) {
    let v = filtered_vault();
    for (mode, request) in [
        ("answer", format!("what do I know about pasta {filter}")),
        ("search", format!("find pasta {filter}")),
        ("timeline", format!("timeline of pasta {filter}")),
        ("compare", format!("compare pasta and sauce {filter}")),
        ("revisit", format!("what should I revisit? {filter}")),
        ("gaps", format!("what am I missing about pasta? {filter}")),
    ] {
        let json = json_of(crew(v.path()).args(["ask", "--json", &request]));
        let data = &json["chain"][0]["data"];
        assert_eq!(data["mode"], mode, "{request}: {json}");
        let hits: Vec<&str> = data["hits"]
            .as_array()
            .expect("hits")
            .iter()
            .filter_map(|h| h.as_str())
            .filter(|h| *h != "Week.md")
            .collect();
        assert!(!hits.is_empty(), "{request}: nothing shown: {json}");
        assert!(
            hits.iter().all(|h| h.starts_with(keep)),
            "{request}: {hits:?} not all in {keep}"
        );
    }
}

#[test]
fn tag_filters_every_mode() {
    every_mode_honours("tag:recipes", "Recipes/");
    every_mode_honours("#diary", "Journal/");
}

#[test]
fn in_folder_filters_every_mode() {
    every_mode_honours("in:Recipes", "Recipes/");
    every_mode_honours("in:journal", "Journal/");
}

#[test]
fn path_filters_every_mode() {
    every_mode_honours("path:Journal", "Journal/");
}

#[test]
fn type_filters_every_mode() {
    every_mode_honours("type:recipe", "Recipes/");
}

#[test]
fn date_filters_every_mode() {
    every_mode_honours("after:2026-01-01 before:2026-03-01", "Recipes/");
    every_mode_honours("before:2025-12-31", "Journal/");
}
