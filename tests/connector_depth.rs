//! The connector in depth, on temporary vaults: a topic that is no note's name, serendipity,
//! notes from the same days, the people network without templates, and the sentence where
//! each suggested link would go.

mod common;

use common::{ask_json, vault_of};

/// A vault of `notes` and a dozen unrelated ones, so that a word two notes share is rare.
fn vault(notes: &[(&str, &str)]) -> assert_fs::TempDir {
    let mut files: Vec<(String, String)> = notes
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    files.extend((0..12).map(|k| {
        (
            format!("Misc/Errand {k}.md"),
            format!("Errand number {k}: post office, library card, bicycle tyre."),
        )
    }));
    vault_of(&files)
}

fn output(j: &serde_json::Value) -> String {
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

fn connector(v: &std::path::Path, message: &str) -> String {
    let j = ask_json(v, message);
    assert_eq!(j["route"]["name"], "connector", "{message}: {j}");
    output(&j)
}

/// The line of `out` holding all of `needles`.
fn line_with<'a>(out: &'a str, needles: &[&str]) -> &'a str {
    out.lines()
        .find(|l| needles.iter().all(|n| l.contains(n)))
        .unwrap_or_else(|| panic!("no line with {needles:?} in:\n{out}"))
}

/// The vault's notes are unchanged but for the agents' post-its (crew's own state aside).
fn unchanged(v: &std::path::Path, before: &std::collections::BTreeMap<String, Vec<u8>>) {
    let notes = |p: &String| p.ends_with(".md") && !p.starts_with("Meta/");
    let mut after = common::snapshot(v);
    after.retain(|p, _| notes(p));
    let mut before = before.clone();
    before.retain(|p, _| notes(p));
    let changed: Vec<&String> = after
        .keys()
        .chain(before.keys())
        .filter(|p| before.get(*p) != after.get(*p))
        .collect();
    assert!(
        changed.is_empty(),
        "the connector only suggests: {changed:?}"
    );
}

#[test]
fn a_topic_no_note_is_named_resolves_by_name_words_then_search_and_names_the_others() {
    let v = vault(&[
        (
            "Plugins/obsidian-excalidraw-plugin.md",
            "Sketch diagrams on a whiteboard canvas.",
        ),
        (
            "Plugins/excalidraw-scripts-and-extra-tools.md",
            "Scripts for the whiteboard.",
        ),
        ("Notes/Sketching.md", "Diagrams and whiteboard sketches."),
        (
            "History/Airships.md",
            "# Airships\n\nThe Zeppelins crossed the Atlantic before the war.\n",
        ),
        ("History/Trains.md", "Steam and rails, crossed by airships."),
    ]);
    let before = common::snapshot(v.path());
    let out = connector(v.path(), "find connections for Excalidraw");
    assert!(
        out.starts_with("## Connections for [[obsidian-excalidraw-plugin]]"),
        "the best of the names holding the topic: {out}"
    );
    assert!(
        out.contains("Also matched: [[excalidraw-scripts-and-extra-tools]]"),
        "the other match is named: {out}"
    );
    let out = connector(v.path(), "find connections for zeppelins");
    assert!(
        out.starts_with("## Connections for [[Airships]]"),
        "no name holds it, the text does: {out}"
    );
    assert!(
        out.contains("no name or alias holds “zeppelins”; its text does, line 3"),
        "{out}"
    );
    let out = connector(v.path(), "find connections for all my notes");
    assert!(
        out.starts_with("## Graph audit"),
        "the vault itself is no topic: {out}"
    );
    unchanged(v.path(), &before);
}

#[test]
fn serendipity_pairs_notes_of_far_folders_and_says_why() {
    let v = vault(&[
        (
            "Cooking/Bread/Levain.md",
            "Levain fermentation: wild yeast, lactobacilli, acidity, enzymes.\n\nHydration and autolyse matter.",
        ),
        (
            "Science/Biology/Microbes.md",
            "Lactobacilli and wild yeast drive fermentation and acidity; enzymes act in autolyse.",
        ),
        (
            "Cooking/Bread/Crumb.md",
            "Crumb structure depends on hydration and levain strength.",
        ),
    ]);
    let before = common::snapshot(v.path());
    let out = connector(v.path(), "surprise me");
    let pair = line_with(&out, &[" ↔ ", "[[Levain]]", "[[Microbes]]"]);
    assert!(pair.contains("rare words in common"), "{pair}");
    assert!(
        out.contains("their folders are 4 steps apart"),
        "how far apart: {out}"
    );
    assert!(out.contains("  ↳ line "), "where the link would go: {out}");
    assert!(!out.contains("[[Crumb]] (Cooking/Bread/) ↔"), "{out}");
    unchanged(v.path(), &before);
}

#[test]
fn notes_from_the_same_days_are_ranked_by_shared_words_and_unlinked() {
    let v = vault(&[
        (
            "Trip planning.md",
            "---\ndate: 2026-03-10\n---\nLisbon trams and azulejos, then the Alfama. [[Visa]]\n",
        ),
        (
            "Journal/2026-03-11 Packing.md",
            "Packing for the Alfama: tram pass and azulejos guide.",
        ),
        (
            "Budget.md",
            "---\ncreated: 2026-03-08\n---\nRent and groceries.",
        ),
        (
            "Old trip.md",
            "---\ndate: 2025-01-01\n---\nLisbon trams, long ago.",
        ),
        ("Visa.md", "---\ndate: 2026-03-10\n---\nForms for Lisbon."),
        ("Far.md", "---\ndate: 2026-03-20\n---\nTrams again."),
    ]);
    let before = common::snapshot(v.path());
    for ask in [
        "notes from the same days as Trip planning",
        "what else was I writing around Trip planning",
    ] {
        let out = connector(v.path(), ask);
        assert!(
            out.starts_with("## Around [[Trip planning]]: notes from 2026-03-07 to 2026-03-13"),
            "{ask}: {out}"
        );
        assert!(out.contains("by its frontmatter"), "{out}");
        let packing = out.find("[[2026-03-11 Packing]]").expect("packing");
        let budget = out.find("[[Budget]]").expect("budget, from the same days");
        assert!(packing < budget, "shared words rank first: {out}");
        line_with(&out, &["[[2026-03-11 Packing]]", "(+1 days)", "alfama"]);
        line_with(&out, &["[[Budget]]", "(-2 days)", "nothing in common"]);
        assert!(!out.contains("[[Old trip]]"), "another year: {out}");
        assert!(!out.contains("[[Far]]"), "ten days later: {out}");
        assert!(!out.contains("[[Visa]]"), "already linked: {out}");
        assert!(out.contains("  ↳ line 4 shares its words"), "{out}");
    }
    let out = connector(v.path(), "note degli stessi giorni di Trip planning");
    assert!(out.starts_with("## Intorno a [[Trip planning]]"), "{out}");
    unchanged(v.path(), &before);
}

#[test]
fn people_are_found_without_a_people_folder_and_counted_together() {
    let v = vault(&[
        (
            "Contacts/Marco Rossi.md",
            "---\ntype: person\n---\nMarco, engineer.",
        ),
        (
            "Contacts/Anna Bianchi.md",
            "---\ntags: [people/work]\n---\nAnna.",
        ),
        ("Contacts/Luca Verdi.md", "Luca, no marker of his own."),
        (
            "Meetings/Kickoff.md",
            "Kickoff with [[Marco Rossi]] and [[Anna Bianchi]].",
        ),
        (
            "Meetings/Review.md",
            "Review.\n[[Marco Rossi]] and [[Anna Bianchi]] agreed. Luca Verdi disagreed.",
        ),
        ("Meetings/Call.md", "Called [[Marco Rossi]]."),
    ]);
    let before = common::snapshot(v.path());
    let out = connector(v.path(), "people network");
    assert!(out.contains("People notes: 3."), "{out}");
    assert!(
        out.contains("1 by a property") && out.contains("1 by a tag"),
        "{out}"
    );
    assert!(
        out.contains("1 in a folder of mostly people"),
        "Luca shares the folder: {out}"
    );
    assert!(out.contains("[[Marco Rossi]] — in 3 notes"), "{out}");
    assert!(
        out.contains("[[Anna Bianchi]] and [[Marco Rossi]] — 2 notes"),
        "co-mentions: {out}"
    );
    assert!(out.contains("### Named without a link (1)"), "{out}");
    line_with(&out, &["[[Luca Verdi]] in [[Review]]"]);
    assert!(
        out.contains("  ↳ line 2 names it: “Luca Verdi disagreed.”"),
        "{out}"
    );
    assert!(!out.contains("Never mentioned"), "Luca is named: {out}");
    unchanged(v.path(), &before);
    let none = vault(&[("Notes/Trip.md", "A trip with friends.")]);
    let out = connector(none.path(), "people network");
    assert!(
        out.contains("No note is marked as a person") && !out.contains("### Most mentioned"),
        "no empty heading: {out}"
    );
}

#[test]
fn every_suggested_link_shows_the_sentence_where_it_would_go() {
    let v = vault(&[
        (
            "Sourdough.md",
            "---\ntags: [bread]\n---\n# Sourdough\nI feed the levain daily.\nMy Starter care routine keeps it alive. [[Bread]]\n",
        ),
        (
            "Starter care.md",
            "Feeding the levain: hydration 100 %, autolyse before mixing.",
        ),
        ("Bread.md", "Baking bread at home. [[Sourdough]]"),
        (
            "Rye.md",
            "---\ntags: [flour]\n---\nRye flour wants more hydration and autolyse time.",
        ),
        ("Tags.md", "How tags work."),
    ]);
    let before = common::snapshot(v.path());
    let out = connector(v.path(), "find connections for Sourdough");
    line_with(&out, &["[[Starter care]]", "mentioned by title"]);
    assert!(
        out.contains("  ↳ line 6 names it: “My Starter care routine keeps it alive.”"),
        "the sentence naming the target, with its line: {out}"
    );
    let out = connector(v.path(), "find connections for Rye");
    assert!(
        !out.contains("[[Tags]]"),
        "a frontmatter key is no mention of a note: {out}"
    );
    let out = connector(v.path(), "graph health");
    let spots = out.lines().filter(|l| l.starts_with("  ↳ ")).count();
    let plans = out.lines().filter(|l| l.contains("]] ← [[")).count();
    assert!(
        plans > 0 && spots == plans,
        "one place per orphan link: {out}"
    );
    unchanged(v.path(), &before);
}
