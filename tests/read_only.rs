//! A note crew may not write (read-only) is skipped and named; the rest of the work is done,
//! the nightly report is still written, and nothing reads "failed".

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use common::crew;

fn read_only(path: &Path) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o444)).expect("chmod");
}

/// Two topic folders of five notes each, and two inbox notes that belong to them.
fn garden_vault(extra: &[(&str, &str)]) -> assert_fs::TempDir {
    let mut files: Vec<(String, String)> = Vec::new();
    for i in 1..=5 {
        files.push((
            format!("02-Areas/Cooking/Recipe {i}.md"),
            format!("# Recipe {i}\n\nflour butter oven simmer garlic basil, batch {i}\n"),
        ));
        files.push((
            format!("02-Areas/Garden/Plant {i}.md"),
            // (each its own line: a line all of a folder's notes share is their template,
            // and a note without it would not be like them)
            format!("# Plant {i}\n\nsoil seedling prune compost bloom mulch, bed {i}\n"),
        ));
    }
    files.push((
        "00-Inbox/Roses.md".into(),
        "# Roses\n\nsoil seedling prune compost bloom roses\n".into(),
    ));
    for (p, t) in extra {
        files.push((p.to_string(), t.to_string()));
    }
    common::vault_of(&files)
}

#[test]
fn the_nightly_fix_skips_a_read_only_note_and_still_writes_its_report() {
    let v = garden_vault(&[
        ("02-Areas/Garden/Locked.md", "# Locked\n\n[[Plánt 1]]\n"),
        ("02-Areas/Cooking/Open.md", "# Open\n\n[[Recípe 2]]\n"),
    ]);
    let locked = v.path().join("02-Areas/Garden/Locked.md");
    read_only(&locked);
    let out = crew(v.path())
        .args(["maintain", "--fix"])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains("failed"), "{stdout}");
    assert!(stdout.contains("! 02-Areas/Garden/Locked.md"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(&locked).expect("read"),
        "# Locked\n\n[[Plánt 1]]\n"
    );
    assert_eq!(
        std::fs::read_to_string(v.path().join("02-Areas/Cooking/Open.md")).expect("read"),
        "# Open\n\n[[Recipe 2|Recípe 2]]\n",
        "repaired, showing the text it showed"
    );
    let reports: Vec<_> = std::fs::read_dir(v.path().join("Meta/health-reports"))
        .expect("the report was written")
        .flatten()
        .collect();
    assert_eq!(reports.len(), 1);
    let report = std::fs::read_to_string(reports[0].path()).expect("report");
    assert!(
        report.contains("Not written") && report.contains("Locked.md"),
        "{report}"
    );
}

#[test]
fn filing_goes_on_when_a_folder_note_is_read_only() {
    let v = garden_vault(&[(
        "02-Areas/Garden/Garden.md",
        "# Garden\n\n- [[Plant 1]]\n- [[Plant 2]]\n",
    )]);
    let folder_note = v.path().join("02-Areas/Garden/Garden.md");
    read_only(&folder_note);
    let j = common::json_of(crew(v.path()).args(["ask", "--json", "file my notes"]));
    let step = &j["chain"][0];
    assert!(step["error"].is_null(), "{j}");
    let out = step["output"].as_str().unwrap_or("");
    assert!(v.path().join("02-Areas/Garden/Roses.md").exists(), "{out}");
    assert!(
        out.contains("Garden.md") && out.contains("read-only"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(&folder_note).expect("read"),
        "# Garden\n\n- [[Plant 1]]\n- [[Plant 2]]\n"
    );
}

/// In a vault whose filed notes carry no filing keys, filing edits nothing of a note and only
/// moves it: a read-only inbox note still stays where it is (a move needs only the folder's
/// permission, so the gate itself refuses it).
#[test]
fn a_read_only_inbox_note_is_not_moved_even_when_nothing_of_it_is_edited() {
    let v = garden_vault(&[
        (".crew/config.yaml", "adopted: true\n"),
        (
            "00-Inbox/Tulips.md",
            "# Tulips\n\nsoil seedling prune compost bloom tulips\n",
        ),
    ]);
    read_only(&v.path().join("00-Inbox/Tulips.md"));
    let out = crew(v.path())
        .args(["ask", "file my notes"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(v.path().join("00-Inbox/Tulips.md").is_file(), "{text}");
    assert!(
        !v.path().join("02-Areas/Garden/Tulips.md").exists(),
        "{text}"
    );
    assert!(text.contains("read-only"), "{text}");
    // the writable one beside it is filed
    assert!(
        v.path().join("02-Areas/Garden/Roses.md").is_file(),
        "{text}"
    );
}
