//! Only what the vault's conventions ask, when the sorter files a note: a folder note or MOC
//! gets the note only where it already lists its folder's notes by hand, never inside or below
//! a part the vault marks as generated or not to edit, never twice; `status`, `filed-date` and
//! `location` only where the vault's filed notes use them, never on daily notes, drawings or
//! canvases.

mod common;

use std::path::Path;

use common::{crew, json_of};

/// An Alpha project note.
const MEMBER: &str = "---\nproject: \"[[Alpha]]\"\n---\nAbout Alpha.\n";
/// The inbox note the sorter files into `Projects/Alpha`.
const SINK: &str = "---\nproject: \"[[Alpha]]\"\n---\nA new sink for Alpha.\n";

/// A vault with its own layout (adopted, its projects in `Projects/`): the Alpha project holds
/// Brick, Tiles and Window (with `member` as their text) and its folder note `Alpha.md`
/// (`map`); `Sink` waits in the inbox; `extra` files besides.
fn adopted(map: &str, member: &str, extra: &[(&str, &str)]) -> assert_fs::TempDir {
    let mut files: Vec<(&str, &str)> = vec![
        (
            ".crew/config.yaml",
            "adopted: true\nfolders:\n  projects: Projects\n",
        ),
        ("Projects/Alpha/Alpha.md", map),
        ("Projects/Alpha/Brick.md", member),
        ("Projects/Alpha/Tiles.md", member),
        ("Projects/Alpha/Window.md", member),
        ("00-Inbox/Sink.md", SINK),
    ];
    files.extend_from_slice(extra);
    common::vault(&files)
}

fn file_these_notes(v: &Path) -> String {
    let j = json_of(crew(v).args(["ask", "--json", "file these notes"]));
    j["chain"][0]["output"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn read(v: &Path, p: &str) -> String {
    std::fs::read_to_string(v.join(p)).unwrap_or_else(|e| panic!("{p}: {e}"))
}

#[test]
fn a_folder_note_listing_its_notes_by_hand_gets_the_filed_note_in_its_list() {
    let map = "# Alpha\n\nThe project's notes:\n* [[Brick]]\n* [[Tiles]]\n* [[Window]]\n\n%% Hub MOCs: Don't edit below %%\n- [[Elsewhere]]\n";
    let v = adopted(map, MEMBER, &[]);
    let report = file_these_notes(v.path());
    assert!(v.path().join("Projects/Alpha/Sink.md").exists(), "{report}");
    // in the hand list, with its bullet, at its alphabetical place; nothing below the marker
    assert_eq!(
        read(v.path(), "Projects/Alpha/Alpha.md"),
        "# Alpha\n\nThe project's notes:\n* [[Brick]]\n* [[Sink]]\n* [[Tiles]]\n* [[Window]]\n\n%% Hub MOCs: Don't edit below %%\n- [[Elsewhere]]\n"
    );
    assert!(report.contains("Projects/Alpha/Alpha.md"), "{report}");
    // the vault's filed notes carry no filing keys: the filed note gets none
    assert_eq!(read(v.path(), "Projects/Alpha/Sink.md"), SINK);
}

#[test]
fn maps_that_do_not_list_by_hand_or_mark_their_list_generated_are_left_byte_identical() {
    let cases: [(&str, String); 8] = [
        (
            "the list is below a don't-edit marker (curly apostrophe)",
            "# Alpha\n%% Hub MOCs: Don\u{2019}t edit below %%\n- [[Brick]]\n- [[Tiles]]\n".into(),
        ),
        (
            "the list is below a do-not-edit marker in capitals",
            "# Alpha\n<!-- DO NOT EDIT below: made by a script -->\n- [[Brick]]\n- [[Tiles]]\n"
                .into(),
        ),
        (
            "the list is between BEGIN and END markers",
            "# Alpha\n<!-- BEGIN notes -->\n- [[Brick]]\n- [[Tiles]]\n<!-- END notes -->\n".into(),
        ),
        (
            "the list is between the Waypoint plugin's markers",
            "# Alpha\n%% Begin Waypoint %%\n- [[Brick]]\n- [[Tiles]]\n%% End Waypoint %%\n".into(),
        ),
        (
            "a Dataview query lists the notes",
            "# Alpha\n```dataview\nLIST FROM \"Projects/Alpha\"\n```\n".into(),
        ),
        (
            "the notes are mentioned in a sentence, not listed",
            "# Alpha\nStart with [[Brick]], then [[Tiles]] and [[Window]].\n".into(),
        ),
        (
            "the note is a Templater template",
            "# Alpha <% tp.file.title %>\n- [[Brick]]\n- [[Tiles]]\n".into(),
        ),
        (
            "the note already links the filed note, in a comment",
            "# Alpha\n- [[Brick]]\n- [[Tiles]]\n%% later: [[Sink]] %%\n".into(),
        ),
    ];
    for (why, map) in cases {
        // a MOC folder exists: still no MOC is created in a vault crew did not lay out
        let v = adopted(&map, MEMBER, &[("MOC/Home.md", "# Home\n")]);
        let report = file_these_notes(v.path());
        assert!(
            v.path().join("Projects/Alpha/Sink.md").exists(),
            "{why}: {report}"
        );
        assert_eq!(read(v.path(), "Projects/Alpha/Alpha.md"), map, "{why}");
        assert!(!v.path().join("MOC/Alpha.md").exists(), "{why}");
    }
}

#[test]
fn a_moc_with_a_query_gives_way_to_the_folder_note_that_lists_by_hand() {
    let moc = "---\ntype: moc\n---\n# Alpha\n```dataviewjs\ndv.list([])\n```\n";
    let v = adopted(
        "- [[Brick]]\n- [[Window]]\n",
        MEMBER,
        &[("MOC/Alpha.md", moc)],
    );
    file_these_notes(v.path());
    assert_eq!(read(v.path(), "MOC/Alpha.md"), moc);
    assert_eq!(
        read(v.path(), "Projects/Alpha/Alpha.md"),
        "- [[Brick]]\n- [[Sink]]\n- [[Window]]\n"
    );
}

#[test]
fn filing_keys_follow_the_vaults_filed_notes() {
    let stamped = "---\nproject: \"[[Alpha]]\"\nstatus: filed\nfiled-date: 2026-01-01\nlocation: Projects/Alpha\n---\nAbout Alpha.\n";
    let v = adopted("# Alpha\n", stamped, &[]);
    let report = file_these_notes(v.path());
    let sink = read(v.path(), "Projects/Alpha/Sink.md");
    assert!(
        sink.contains("status: filed")
            && sink.contains("filed-date: ")
            && sink.contains("location: Projects/Alpha"),
        "{report}\n{sink}"
    );
}

#[test]
fn daily_notes_drawings_and_canvases_never_get_filing_keys() {
    // crew laid this vault out: its notes get the filing keys, these three never do
    let daily = "---\nproject: \"[[Alpha]]\"\n---\nWhat happened today.\n";
    let drawing = "---\nproject: \"[[Alpha]]\"\nexcalidraw-plugin: parsed\n---\n# Drawing\n";
    let canvas = "{\"nodes\":[],\"edges\":[]}\n";
    let v = common::vault(&[
        (".crew/config.yaml", "max_depth: 3\n"),
        ("01-Projects/Alpha/_index.md", "---\ntype: project\n---\n"),
        ("00-Inbox/2026-03-14.md", daily),
        ("00-Inbox/Sketch.excalidraw.md", drawing),
        ("00-Inbox/Board.canvas", canvas),
        ("00-Inbox/Sink.md", SINK),
    ]);
    let report = file_these_notes(v.path());
    assert_eq!(
        read(v.path(), "01-Projects/Alpha/2026-03-14.md"),
        daily,
        "{report}"
    );
    assert_eq!(
        read(v.path(), "01-Projects/Alpha/Sketch.excalidraw.md"),
        drawing,
        "{report}"
    );
    assert_eq!(read(v.path(), "00-Inbox/Board.canvas"), canvas);
    let sink = read(v.path(), "01-Projects/Alpha/Sink.md");
    assert!(
        sink.contains("status: filed") && sink.contains("location: 01-Projects/Alpha"),
        "{sink}"
    );
}
