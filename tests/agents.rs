//! The native agents and skills on fixture vaults: files they create, what their reports say,
//! and the suggestions they emit.

mod common;

use common::{crew, json_of, vault};

fn ask(v: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut all = vec!["ask", "--json"];
    all.extend_from_slice(args);
    json_of(crew(v).args(&all))
}

fn output(j: &serde_json::Value, step: usize) -> String {
    j["chain"][step]["output"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

fn today() -> chrono::NaiveDate {
    chrono::Local::now().date_naive()
}

#[test]
fn architect_scaffolds_a_complete_area_and_a_project() {
    let v = vault(&[("MOC/Index.md", "# Master Index\n")]);
    let j = ask(v.path(), &["create a new area called Health"]);
    assert_eq!(j["route"]["name"], "architect");
    for p in [
        "02-Areas/Health/_index.md",
        "MOC/Health.md",
        "Meta/vault-structure.md",
        "Meta/tag-taxonomy.md",
    ] {
        assert!(v.path().join(p).exists(), "{p} missing");
    }
    let index = std::fs::read_to_string(v.path().join("MOC/Index.md")).expect("index");
    assert!(index.contains("[[MOC/Health|Health]]"));
    assert!(
        std::fs::read_to_string(v.path().join("Meta/tag-taxonomy.md"))
            .expect("taxonomy")
            .contains("#area/health")
    );
    // a second time creates nothing and says so
    let j = ask(v.path(), &["create a new area called Health"]);
    assert!(output(&j, 0).contains("already complete"));
    ask(v.path(), &["new project Kitchen Renovation"]);
    let idx = std::fs::read_to_string(v.path().join("01-Projects/Kitchen Renovation/_index.md"))
        .expect("project");
    assert!(idx.contains("type: project") && idx.contains("project/kitchen-renovation"));
}

#[test]
fn librarian_quick_check_and_consistency_report() {
    let v = vault(&[
        (
            "a.md",
            "---\ntype: note\ndate: 12/03/2026\ntags: [Bad_Tag]\nstatus: inbox\n---\n[[b]] [[Missing]] [[ÉCOLE]]",
        ),
        (
            "école.md",
            "---\ntype: note\ndate: 2026-01-01\ntags: [x]\nstatus: filed\n---\n",
        ),
        ("x/b.md", "no frontmatter"),
        ("y/b.md", "---\ntype: note\n---\n"),
        // a vault crew laid out: its notes are held to crew's required keys
        (".crew/config.yaml", "max_depth: 3\n"),
    ]);
    let j = ask(v.path(), &["check consistency"]);
    assert_eq!(j["route"]["name"], "librarian");
    let out = output(&j, 0);
    assert!(
        out.contains("**needs attention**") || out.contains("**critical**"),
        "{out}"
    );
    assert!(out.contains("[[Missing]] in a.md"));
    assert!(out.contains("b: x/b.md, y/b.md"), "duplicate names: {out}");
    assert!(out.contains("a.md: 12/03/2026"), "bad date: {out}");
    assert!(out.contains("#Bad_Tag"), "bad tag: {out}");
    assert!(out.contains("status: inbox outside the inbox"), "{out}");
    assert!(
        out.contains("y/b.md: date, tags, status"),
        "missing keys: {out}"
    );
}

#[test]
fn vault_audit_writes_a_report_with_a_trend() {
    let v = vault(&[("a.md", "[[b]]"), ("b.md", "[[a]]"), ("c.md", "[[gone]]")]);
    let j = ask(v.path(), &["vault audit"]);
    assert_eq!(j["route"]["name"], "vault-audit");
    let report = v
        .path()
        .join(format!("Meta/health-reports/{} — Vault Health.md", today()));
    let text = std::fs::read_to_string(&report).expect("report");
    assert!(
        text.contains("type: report")
            && text.contains("health-score:")
            && text.contains("(first report)"),
        "{text}"
    );
    // broken targets are named, not linked: the report adds no broken link of its own
    assert!(text.contains("`[[gone]]` in `c.md`"), "{text}");
    // a second run the same day: the same figures, compared with the first
    let first = output(&j, 0);
    let j = ask(v.path(), &["vault audit"]);
    let second = output(&j, 0);
    assert!(
        second.contains("(+0 since the earlier report today)"),
        "{second}"
    );
    let figures = |t: &str| {
        t.lines()
            .filter(|l| l.starts_with("- "))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(figures(&first), figures(&second));
    // a previous report makes a trend
    std::fs::remove_file(&report).expect("remove today's report");
    let prev = v
        .path()
        .join("Meta/health-reports/2020-01-01 — Vault Health.md");
    std::fs::write(&prev, "---\ntype: report\nhealth-score: 10\n---\n").expect("prev");
    let j = ask(v.path(), &["vault audit"]);
    assert!(
        output(&j, 0).contains("since [[2020-01-01 — Vault Health]]"),
        "{}",
        output(&j, 0)
    );
}

#[test]
fn tag_garden_finds_near_duplicates_and_formats() {
    let v = vault(&[
        ("Meta/tag-taxonomy.md", "# Tags\n#project #unused-tag\n"),
        ("a.md", "#project #projects #ProjectManagement"),
        ("b.md", "#project #marketing"),
        ("c.md", "#project #marketting"),
        ("d.md", "#MOC #OB_Template"),
    ]);
    let out = output(&ask(v.path(), &["tag garden"]), 0);
    // case and separators change; letters of one word are never split apart
    assert!(out.contains("#MOC → #moc"), "acronym: {out}");
    assert!(
        out.contains("#OB_Template → #ob-template"),
        "underscore: {out}"
    );
    assert!(
        !out.contains("m-o-c") && !out.contains("o-b-"),
        "split letters: {out}"
    );
    assert!(out.contains("#unused-tag"), "unused: {out}");
    assert!(out.contains("#projects → #project"), "plural merge: {out}");
    assert!(
        out.contains("#marketting") && out.contains("#marketing"),
        "typo merge: {out}"
    );
    assert!(
        out.contains("#ProjectManagement → #project-management"),
        "format: {out}"
    );
}

#[test]
fn connector_scores_the_graph_and_applies_links_only_when_asked() {
    let v = vault(&[
        ("MOC/Topics.md", "---\ntype: moc\n---\n[[Alpha]] [[Beta]]"),
        ("Alpha.md", "#ml [[Beta]]"),
        ("Beta.md", "#ml [[Alpha]]"),
        ("Gamma.md", "#ml about Alpha and more"),
    ]);
    let j = ask(v.path(), &["graph health"]);
    assert_eq!(j["route"]["name"], "connector");
    let out = output(&j, 0);
    assert!(
        out.contains("health score **") && out.contains("| orphan rate | 25 % |"),
        "{out}"
    );
    assert!(out.contains("[[Gamma]] ← [[Alpha]]"), "{out}");
    assert!(
        !std::fs::read_to_string(v.path().join("Gamma.md"))
            .expect("g")
            .contains("## Related")
    );
    ask(v.path(), &["connect the notes and apply"]);
    // the orphan gets an incoming link, from its best neighbour
    assert!(
        std::fs::read_to_string(v.path().join("Alpha.md"))
            .expect("a")
            .contains("## Related\n- [[Gamma]]")
    );
    let after = output(&ask(v.path(), &["graph health"]), 0);
    assert!(
        !after.contains("[[Gamma]] ←"),
        "Gamma is no orphan now: {after}"
    );
}

#[test]
fn seeker_filters_backlinks_and_timeline() {
    let v = vault(&[
        (
            "Taxes 2025.md",
            "---\ntype: reference\ndate: 2025-04-01\ntags: [finance]\n---\nthe tax return",
        ),
        (
            "Taxes 2026.md",
            "---\ntype: note\ndate: 2026-04-01\ntags: [finance]\n---\nnext tax return [[Taxes 2025]]",
        ),
        ("04-Archive/Old taxes.md", "tax stuff"),
    ]);
    let out = output(&ask(v.path(), &["where did I put the note on taxes?"]), 0);
    let first = out.lines().find(|l| l.starts_with("1.")).unwrap_or("");
    assert!(
        first.contains("Taxes 20"),
        "title matches rank first: {out}"
    );
    assert!(
        out.find("Old taxes")
            .is_none_or(|i| i > out.find("Taxes 2026").unwrap_or(0)),
        "archive ranks lower: {out}"
    );
    let hits = json_of(crew(v.path()).args(["search", "--json", "tax", "type:reference"]));
    assert_eq!(hits.as_array().map(Vec::len), Some(1));
    let out = output(
        &ask(v.path(), &["search the vault for what links to Taxes 2025"]),
        0,
    );
    assert!(out.contains("[[Taxes 2026]]"), "{out}");
    let out = output(&ask(v.path(), &["timeline of taxes"]), 0);
    assert!(
        out.find("2025-04-01").unwrap_or(usize::MAX) < out.find("2026-04-01").unwrap_or(0),
        "{out}"
    );
}

#[test]
fn deadline_radar_and_weekly_agenda_bucket_dates() {
    let t = today();
    let d = |days: i64| (t + chrono::Duration::days(days)).to_string();
    let v = vault(&[
        ("late.md", &format!("---\ndeadline: {}\n---\n", d(-3))),
        ("soon.md", &format!("---\ndue: {}\n---\n", d(1))),
        ("week.md", &format!("- [ ] send the report 📅 {}\n", d(5))),
        (
            "done.md",
            &format!("---\ndeadline: {}\nstatus: completed\n---\n", d(-1)),
        ),
        ("far.md", &format!("---\ndue-date: {}\n---\n", d(20))),
    ]);
    let out = output(&ask(v.path(), &["deadline radar"]), 0);
    let section = |title: &str| {
        let start = out
            .find(title)
            .unwrap_or_else(|| panic!("{title} missing: {out}"));
        let rest = &out[start..];
        rest[..rest[3..].find("### ").map_or(rest.len(), |i| i + 3)].to_string()
    };
    assert!(
        section("### Overdue").contains("[[late]]") && !section("### Overdue").contains("[[done]]")
    );
    assert!(section("### Critical").contains("[[soon]]"));
    assert!(
        section("### Upcoming").contains("send the report")
            || section("### On the horizon").contains("send the report")
    );
    assert!(section("### On the horizon").contains("[[far]]"));
    let out = output(&ask(v.path(), &["weekly agenda"]), 0);
    assert!(out.contains("## Week of"), "{out}");
}

#[test]
fn sorter_modes_priority_and_pulse() {
    let t = today();
    let v = vault(&[
        ("00-Inbox/Urgent.md", &format!("---\ndeadline: {t}\n---\n")),
        ("00-Inbox/Later.md", "---\ntype: quote\n---\n"),
        ("01-Projects/Alpha/a.md", &format!("---\ndate: {t}\n---\n")),
        ("01-Projects/Quiet/q.md", "---\ndate: 2020-01-01\n---\n"),
    ]);
    let out = output(&ask(v.path(), &["priority triage"]), 0);
    assert!(
        out.find("Urgent").unwrap_or(usize::MAX) < out.find("Later").unwrap_or(0),
        "{out}"
    );
    assert!(
        v.path().join("00-Inbox/Urgent.md").exists(),
        "priority triage moves nothing"
    );
    let out = output(&ask(v.path(), &["project pulse"]), 0);
    assert!(
        out.contains("| Alpha | 1 | 1 |") && out.contains("active"),
        "{out}"
    );
    assert!(out.contains("| Quiet |") && out.contains("quiet"), "{out}");
}

#[test]
fn defrag_repairs_structure_and_writes_its_report() {
    let v = vault(&[
        ("02-Areas/Travel/Lisbon.md", "trip"),
        ("MOC/Index.md", "# Index\n"),
    ]);
    // a vault without a crew config keeps its own layout: defrag builds only when asked
    let j = ask(v.path(), &["--fix", "defragment the vault"]);
    assert_eq!(j["route"]["name"], "defrag");
    assert!(v.path().join("02-Areas/Travel/_index.md").exists());
    assert!(
        std::fs::read_to_string(v.path().join("MOC/Travel.md"))
            .expect("moc")
            .contains("[[Lisbon]]")
    );
    assert!(
        v.path()
            .join(format!(
                "Meta/health-reports/{} — Defrag Report.md",
                today()
            ))
            .exists()
    );
}

#[test]
fn onboarding_builds_the_skeleton_and_named_areas() {
    let v = vault(&[]);
    let j = ask(
        v.path(),
        &["set up the vault with areas Work, Health and Finance"],
    );
    assert_eq!(j["route"]["name"], "onboarding");
    for p in [
        "00-Inbox",
        "07-Daily",
        "Meta/states",
        "Meta/user-profile.md",
        "02-Areas/Work/_index.md",
        "02-Areas/Finance/_index.md",
        "MOC/Health.md",
    ] {
        assert!(v.path().join(p).exists(), "{p} missing");
    }
}

#[test]
fn skills_keep_their_source_agents_postit() {
    let v = vault(&[("00-Inbox/x.md", "")]);
    ask(v.path(), &["tag garden"]);
    assert!(
        v.path().join("Meta/states/librarian.md").exists(),
        "tag-garden writes the librarian's post-it"
    );
    assert!(!v.path().join("Meta/states/tag-garden.md").exists());
}

#[test]
fn smart_batch_clusters_files_and_cross_links_on_request() {
    let files = [
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
        ("05-People/Ana.md", "person"),
        (
            "00-Inbox/Kickoff.md",
            "---\nproject: \"[[Alpha]]\"\n---\nwith [[Ana]]",
        ),
        (
            "00-Inbox/Budget.md",
            "---\nproject: \"[[Alpha]]\"\n---\nnumbers",
        ),
        (
            "00-Inbox/Call.md",
            "---\ntype: note\n---\ntalked to [[Ana]]",
        ),
        ("00-Inbox/Alone.md", "---\ntype: note\n---\nnothing shared"),
    ];
    let v = vault(&files);
    let out = output(&ask(v.path(), &["--dry-run", "smart batch"]), 0);
    assert!(out.contains("## Smart batch — 1 cluster"), "{out}");
    assert!(
        out.contains("3 notes: mention [[Ana]]; project: Alpha"),
        "{out}"
    );
    assert!(
        !out.contains("- Alone\n"),
        "a note sharing nothing is in no cluster: {out}"
    );
    assert!(
        out.contains("Budget → 01-Projects/Alpha"),
        "the batch is filed too: {out}"
    );
    let v = vault(&files);
    ask(v.path(), &["smart batch and apply"]);
    let budget =
        std::fs::read_to_string(v.path().join("01-Projects/Alpha/Budget.md")).expect("filed");
    assert!(
        budget.contains("## Related\n- [[Call]]\n- [[Kickoff]]"),
        "{budget}"
    );
}

/// "find connections for Excalidraw" where no note has that name: the note whose alias it is,
/// else the one whose name holds it, is the one discovered for — never the whole-vault audit.
#[test]
fn connector_finds_the_note_a_topic_means_by_alias_or_name() {
    let v = vault(&[
        (
            "Plugins/obsidian-excalidraw-plugin.md",
            "---\naliases: [Drawing board]\n---\nSketches with levain-free diagrams.",
        ),
        (
            "Plugins/excalidraw-plugin-settings-and-keys-extra.md",
            "Longer name holding the word too.",
        ),
        ("Notes/Sketching.md", "Diagrams and sketches, no link yet."),
        ("Notes/Other.md", "Nothing to do with it."),
    ]);
    let out = output(&ask(v.path(), &["find connections for Excalidraw"]), 0);
    assert!(
        out.starts_with("## Connections for [[obsidian-excalidraw-plugin]]"),
        "the shortest name holding the topic: {out}"
    );
    assert!(out.contains("its name holds “excalidraw”"), "{out}");
    let out = output(&ask(v.path(), &["find connections for drawing board"]), 0);
    assert!(
        out.starts_with("## Connections for [[obsidian-excalidraw-plugin]]"),
        "{out}"
    );
    assert!(out.contains("its alias “Drawing board”"), "{out}");
    let out = output(&ask(v.path(), &["find connections for Zeppelins"]), 0);
    assert!(
        !out.contains("## Connections for"),
        "a topic nothing names is no note's: {out}"
    );
}

/// "surprise me": an unlinked pair that shares rare words across far-apart folders is shown;
/// a near pair (same folder) is not a surprise, and nothing is written.
#[test]
fn serendipity_pairs_far_apart_notes_and_changes_nothing() {
    let notes = [
        (
            "Cooking/Bread/Levain.md",
            "Levain fermentation: wild yeast, lactobacilli, acidity, enzymes, hydration and autolyse.",
        ),
        (
            "Science/Biology/Microbes.md",
            "Lactobacilli and wild yeast drive fermentation and acidity; enzymes act in autolyse.",
        ),
        (
            "Cooking/Bread/Crumb.md",
            "Crumb structure depends on hydration and levain strength.",
        ),
        ("Travel/Lisbon.md", "Trams, tiles and custard tarts."),
    ];
    let fillers: Vec<(String, String)> = (0..12)
        .map(|k| {
            (
                format!("Misc/Note {k}.md"),
                format!("Errand number {k}: post office, library card, bicycle tyre."),
            )
        })
        .collect();
    let mut files: Vec<(&str, &str)> = notes.to_vec();
    files.extend(fillers.iter().map(|(p, t)| (p.as_str(), t.as_str())));
    let v = vault(&files);
    let before = common::snapshot(v.path());
    let j = ask(v.path(), &["surprise me"]);
    assert_eq!(j["route"]["name"], "connector", "{j}");
    let out = output(&j, 0);
    assert!(out.starts_with("## Serendipity"), "{out}");
    let pair = out
        .lines()
        .find(|l| l.contains(" ↔ "))
        .unwrap_or_else(|| panic!("a far pair is shown: {out}"));
    assert!(
        pair.contains("[[Levain]]") && pair.contains("[[Microbes]]"),
        "{pair}"
    );
    assert!(
        !out.contains("[[Crumb]] (Cooking/Bread/) ↔ [[Levain]]")
            && !out.contains("[[Levain]] (Cooking/Bread/) ↔ [[Crumb]]"),
        "notes of one folder are no surprise: {out}"
    );
    let mut after = common::snapshot(v.path());
    after.retain(|path, _| !path.starts_with("Meta/states/"));
    assert!(before == after, "no note is written, only the post-it");
}

#[test]
fn connector_modes_answer_what_was_asked() {
    let v = vault(&[
        (
            "Sourdough.md",
            "Levain, hydration and autolyse notes. [[Bread]]",
        ),
        ("Bread.md", "Baking bread at home. [[Oven]]"),
        ("Oven.md", "The oven runs hot."),
        (
            "Starter care.md",
            "Feeding the levain: hydration 100 %, autolyse before mixing.",
        ),
        ("Garden.md", "Tomatoes and basil. [[Compost]]"),
        ("Compost.md", "Compost heap."),
        ("Kitchen.md", "Links both worlds: [[Bread]] [[Garden]]"),
        ("05-People/Marco Rossi.md", "---\ntype: person\n---\nMarco"),
        ("05-People/Anna Bianchi.md", "---\ntype: person\n---\nAnna"),
        ("Lunch.md", "with [[Marco Rossi]] and [[Anna Bianchi]]"),
        ("Call.md", "called [[Marco Rossi]]"),
    ]);
    let j = ask(v.path(), &["find connections for Sourdough"]);
    assert_eq!(j["route"]["name"], "connector", "{j}");
    let out = output(&j, 0);
    assert!(out.starts_with("## Connections for [[Sourdough]]"), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("[[Starter care]]"))
        .unwrap_or_else(|| panic!("the note sharing rare words is found: {out}"));
    assert!(line.contains("rare words in common"), "{line}");
    assert!(line.contains("levain"), "the shared word is named: {line}");

    let out = output(&ask(v.path(), &["show me the bridge notes"]), 0);
    assert!(out.contains("[[Kitchen]] joins 2 parts"), "{out}");

    let out = output(&ask(v.path(), &["people network"]), 0);
    assert!(out.contains("[[Marco Rossi]] — in 2 notes"), "{out}");
    assert!(
        out.contains("[[Anna Bianchi]] and [[Marco Rossi]] — 1 notes")
            || out.contains("[[Marco Rossi]] and [[Anna Bianchi]] — 1 notes"),
        "{out}"
    );

    let out = output(&ask(v.path(), &["constellation around Bread"]), 0);
    assert!(out.contains("## Constellation around [[Bread]]"), "{out}");
    assert!(out.contains("[[Oven]] — it links there"), "{out}");
    assert!(out.contains("[[Sourdough]] — links to it"), "{out}");
}
