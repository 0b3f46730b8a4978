//! The tag garden on temporary vaults: one tag written several ways is merged into its
//! most-used spelling with `--fix`, in the frontmatter and inline and nowhere else; `crew undo`
//! restores every byte; `--dry-run` plans the same and writes nothing; colours in CSS and HTML
//! are no tags. On copies of the dev corpora, every note the fix changes differs in tag bytes
//! only.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{crew, json_of, snapshot};
use crew::vault::tag_edit::tag_spots;

/// The vault's own files, crew's state folder and crew's notes left out.
fn notes(root: &Path) -> BTreeMap<String, Vec<u8>> {
    snapshot(root)
        .into_iter()
        .filter(|(k, _)| !k.starts_with(".crew/") && !k.starts_with("Meta/"))
        .collect()
}

fn adopt(root: &Path) {
    common::crew_bare()
        .arg("init")
        .arg("--adopt")
        .arg(root)
        .assert()
        .success();
}

/// The tag garden's figures from `crew --json ask … "tag garden"`.
fn garden(root: &Path, flags: &[&str]) -> serde_json::Value {
    let mut cmd = crew(root);
    cmd.arg("--json").arg("ask").args(flags).arg("tag garden");
    let out = json_of(&mut cmd);
    let step = &out["chain"][0];
    assert_eq!(
        step["agent"], "tag-garden",
        "routed to the tag garden: {out}"
    );
    step["data"].clone()
}

fn renamed_paths(data: &serde_json::Value) -> Vec<String> {
    data["renamed"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|r| r["path"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The bytes between the written tags: what a merge must leave as it was.
fn between_tags(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut last = 0;
    for s in tag_spots(text) {
        out.push(text[last..s.range.start].to_string());
        last = s.range.end;
    }
    out.push(text[last..].to_string());
    out
}

const PROJECT: &str = "---\ntitle: Kitchen\ntags:\n  - MOC\n  - Project_Plan # keep\n---\n\
    # Kitchen #MOC\n\nWe plan #project_plan and #Area/Home_Care.\n\
    `#moc` in code, [[Moc#MOC]] and [see #MOC](x.md) are links.\n\
    <span style=\"color: #ffcc00\">gold</span>\n";
const HUB: &str = "---\ntags: [moc, project-plan]\n---\nsee #moc #area/home-care\n";
const OTHER: &str = "---\ntags: moc, Draft\n---\n#moc and #Project-Plan #project-plan\n\
    <style>\n#main { color: #1a1a1a; }\n</style>\n";
const TEMPLATE: &str = "---\ntags: [MOC]\n---\n# {{title}} #MOC\n";

fn tag_vault() -> assert_fs::TempDir {
    let dir = common::vault(&[
        ("Projects/Kitchen.md", PROJECT),
        ("Hub.md", HUB),
        ("Other.md", OTHER),
        ("Templates/Project.md", TEMPLATE),
    ]);
    adopt(dir.path());
    dir
}

#[test]
fn fix_merges_in_frontmatter_and_body_only_and_undo_restores_bytes() {
    let dir = tag_vault();
    let v = dir.path();
    let before = notes(v);
    let data = garden(v, &["--fix"]);
    let mut renamed = renamed_paths(&data);
    renamed.sort();
    assert_eq!(renamed, vec!["Other.md", "Projects/Kitchen.md"]);
    let kitchen = std::fs::read_to_string(v.join("Projects/Kitchen.md")).expect("read");
    assert_eq!(
        kitchen,
        "---\ntitle: Kitchen\ntags:\n  - moc\n  - project-plan # keep\n---\n\
        # Kitchen #moc\n\nWe plan #project-plan and #area/home-care.\n\
        `#moc` in code, [[Moc#MOC]] and [see #moc](x.md) are links.\n\
        <span style=\"color: #ffcc00\">gold</span>\n",
        "frontmatter list, comment, inline tags, nesting and a link's text (Obsidian reads a \
        tag there); code, wikilinks and CSS untouched"
    );
    let other = std::fs::read_to_string(v.join("Other.md")).expect("read");
    assert_eq!(
        other,
        "---\ntags: moc, Draft\n---\n#moc and #project-plan #project-plan\n\
        <style>\n#main { color: #1a1a1a; }\n</style>\n"
    );
    assert_eq!(
        std::fs::read_to_string(v.join("Hub.md")).expect("read"),
        HUB,
        "already in the kept spellings"
    );
    assert_eq!(
        std::fs::read_to_string(v.join("Templates/Project.md")).expect("read"),
        TEMPLATE,
        "templates are never edited"
    );
    // a second run finds nothing left to merge
    let again = garden(v, &["--fix"]);
    assert_eq!(again["merges"], serde_json::json!([]), "{again}");
    crew(v).arg("undo").assert().success();
    crew(v).arg("undo").assert().success();
    assert_eq!(before, notes(v), "byte-identical after undo");
}

#[test]
fn the_kept_spelling_is_the_most_used_and_letters_never_change() {
    let dir = tag_vault();
    let data = garden(dir.path(), &[]);
    let merges: BTreeMap<String, Vec<String>> = data["merges"]
        .as_array()
        .expect("merges")
        .iter()
        .map(|m| {
            let from = m["from"]
                .as_array()
                .expect("from")
                .iter()
                .map(|v| v["tag"].as_str().expect("tag").to_string())
                .collect();
            (m["into"].as_str().expect("into").to_string(), from)
        })
        .collect();
    let want: BTreeMap<String, Vec<String>> = [
        ("area/home-care", vec!["Area/Home_Care"]),
        ("moc", vec!["MOC"]),
        (
            "project-plan",
            vec!["Project-Plan", "Project_Plan", "project_plan"],
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(merges, want);
    assert!(data["renamed"].is_null(), "nothing applied without --fix");
}

#[test]
fn colours_in_css_and_html_are_not_tags() {
    let dir = common::vault(&[(
        "Styled.md",
        "<style>\n.box { color: #1a1a1a; }\n#main { background: #fff; }\n</style>\n\
            <span style=\"color:#ff0000\">red</span> <font color=#00ff00>x</font> &#123;\n\
            <a href=\"#section\">jump</a> https://x.y/#frag [a](#heading)\n\
            # Heading\n#real and a colour in prose #ffcc00\n",
    )]);
    adopt(dir.path());
    let data = garden(dir.path(), &[]);
    assert_eq!(data["tags"], 2, "#real and #ffcc00 only: {data}");
    let mut cmd = crew(dir.path());
    cmd.args(["--json", "vault", "stats"]);
    let stats = json_of(&mut cmd);
    assert_eq!(stats["tags_distinct"], 2);
}

/// The symptom of issue #33 on a real vault: an HTML table of colour codes showed in the tag
/// garden as 18 tags "used once — typo?". Obsidian reads no tag inside HTML, math or after
/// punctuation; it does in a link's text and a table cell.
#[test]
fn an_html_table_of_colours_holds_no_tags() {
    let colours = [
        "ff0000", "00ff00", "0000ff", "ffff00", "00ffff", "ff00ff", "c0c0c0", "808080", "800000",
        "808000", "008000", "800080", "008080", "000080", "ffa500", "a52a2a", "deb887", "5f9ea0",
    ];
    let cells: String = colours
        .iter()
        .enumerate()
        .map(|(i, c)| match i % 3 {
            0 => format!("<tr><td>#{c}</td><td style=\"background: #{c}\"></td></tr>\n"),
            1 => format!("<tr><td> #{c} </td></tr>\n"),
            _ => format!("<tr>\n<td>\n#{c}\n</td>\n</tr>\n"),
        })
        .collect();
    let palette = format!(
        "---\ntags: [design]\n---\n# Palette #design\n\n<table>\n{cells}</table>\n\n\
        Prices $a #math$ (#paren) x—#dash \\#escaped, [talk #design](https://x.y)\n\n\
        |name|tag|\n|-|-|\n|red|#design|\n"
    );
    let dir = common::vault(&[("Palette.md", palette.as_str())]);
    adopt(dir.path());
    let mut cmd = crew(dir.path());
    cmd.arg("--json").arg("ask").arg("tag garden");
    let out = json_of(&mut cmd);
    let step = &out["chain"][0];
    assert_eq!(step["data"]["tags"], 1, "only #design: {out}");
    let text = out.to_string();
    for c in colours {
        assert!(!text.contains(c), "#{c} reported: {text}");
    }
    let note = crew::vault::Note::parse_text("Palette.md", &palette);
    assert_eq!(
        note.tags,
        vec!["design"; 4],
        "heading, link text, table cell, frontmatter"
    );
}

#[test]
fn dry_run_plans_the_same_changes_and_writes_nothing() {
    let dir = tag_vault();
    let v = dir.path();
    let before = snapshot(v);
    let planned = garden(v, &["--fix", "--dry-run"]);
    assert_eq!(before, snapshot(v), "a dry run writes nothing");
    assert!(planned["dry_run"].as_bool().expect("flag"));
    let applied = garden(v, &["--fix"]);
    assert_eq!(planned["renamed"], applied["renamed"]);
    assert_eq!(renamed_paths(&applied).len(), 2);
}

/// Copies a corpus vault into a writable temporary folder.
fn copy_corpus(from: &Path) -> assert_fs::TempDir {
    let dir = assert_fs::TempDir::new().expect("tmp");
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let rel = e.path().strip_prefix(from).expect("under");
        let to = dir.path().join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
        } else if e.file_type().is_file() {
            std::fs::write(&to, std::fs::read(e.path()).expect("read")).expect("write");
        }
    }
    std::fs::create_dir_all(dir.path().join(".obsidian")).expect("mkdir");
    dir
}

#[test]
fn on_the_corpora_the_fix_changes_tag_bytes_only() {
    for corpus in common::corpus_vaults("the corpus tag merge") {
        let name = corpus.display();
        let dir = copy_corpus(&corpus);
        let v = dir.path();
        adopt(v);
        let before = notes(v);
        let data = garden(v, &["--fix"]);
        let after = notes(v);
        let changed: Vec<&String> = before
            .keys()
            .filter(|k| after.get(*k) != before.get(*k))
            .collect();
        let mut renamed = renamed_paths(&data);
        renamed.sort();
        let mut changed_sorted: Vec<String> = changed.iter().map(|s| s.to_string()).collect();
        changed_sorted.sort();
        assert_eq!(
            changed_sorted, renamed,
            "{name}: the notes reported are the notes changed"
        );
        for path in changed {
            let old = String::from_utf8_lossy(&before[path]).into_owned();
            let new = String::from_utf8_lossy(&after[path]).into_owned();
            assert_eq!(between_tags(&old), between_tags(&new), "{name}/{path}");
        }
        assert!(
            garden(v, &[])["merges"]
                .as_array()
                .is_some_and(Vec::is_empty),
            "{name}"
        );
    }
}

/// Each inline HTML tag `pulldown-cmark` finds on one line (CommonMark's grammar) is one of the
/// ranges crew reads no tag from, on every corpus note and on crafted ones.
#[test]
fn html_tags_match_pulldown_cmark() {
    use crew::vault::markdown::{code_ranges, html_ranges, split_frontmatter};
    use pulldown_cmark::{Event, Parser};
    let mut texts: Vec<String> = vec![
        "a <span style=\"color: #fff\">b</span> <font color=#ffcc00>c</font> <br/> x < y\n".into(),
        "<a href='#part' title=\"t\">jump</a> and <https://x.y/#frag> and <b >#bold</b>\n".into(),
    ];
    for root in common::corpus_vaults("the HTML tag comparison on the corpora") {
        for e in walkdir::WalkDir::new(root).into_iter().flatten() {
            if e.path().extension().is_some_and(|x| x == "md")
                && let Ok(t) = std::fs::read_to_string(e.path())
            {
                texts.push(t);
            }
        }
    }
    let mut compared = 0;
    for text in &texts {
        let body = match split_frontmatter(text) {
            Some(fm) => &text[fm.block.end..],
            None => text.as_str(),
        };
        // code holds no HTML: blanked, as crew blanks it before reading tags
        let mut bytes = body.as_bytes().to_vec();
        for r in code_ranges(body) {
            for b in &mut bytes[r] {
                if *b != b'\n' {
                    *b = b' ';
                }
            }
        }
        let masked = String::from_utf8_lossy(&bytes).into_owned();
        let ours = html_ranges(&masked);
        for (event, range) in Parser::new(body).into_offset_iter() {
            let Event::InlineHtml(html) = event else {
                continue;
            };
            let is_tag =
                html.starts_with("</") || html[1..].starts_with(|c: char| c.is_ascii_alphabetic());
            if !is_tag || html.contains('\n') || masked[range.clone()].trim().is_empty() {
                continue;
            }
            compared += 1;
            assert!(
                ours.iter()
                    .any(|r| r.start <= range.start && range.end <= r.end),
                "{html:?} at {range:?} is not masked: {ours:?}"
            );
        }
    }
    println!("compared {compared} inline HTML tags with pulldown-cmark");
    assert!(compared >= 8, "compared {compared} tags");
}
