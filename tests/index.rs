//! The persistent index gives exactly what a full rescan gives: after edits, renames, deletions,
//! new notes, a same-size change in the same instant, and a corrupt index file.

use std::time::Duration;

use crew::vault::Vault;
use crew::vault::stats::VaultStats;

/// Everything crew knows about each note, comparable.
fn fingerprint(v: &Vault) -> Vec<(String, Vec<u8>, Option<String>)> {
    v.notes
        .iter()
        .map(|n| {
            let props = n
                .properties()
                .map(|m| yaml_serde::to_string(m).unwrap_or_default());
            (
                n.path.clone(),
                postcard::to_allocvec(n).expect("encode"),
                props,
            )
        })
        .map(|(p, mut bytes, props)| {
            // the modification time is not part of what was read
            bytes.truncate(bytes.len().saturating_sub(10));
            (p, bytes, props)
        })
        .collect()
}

fn assert_same(dir: &std::path::Path, when: &str) {
    let indexed = crew::state::open_vault(dir).expect("indexed");
    let fresh = Vault::open(dir).expect("fresh");
    assert_eq!(
        VaultStats::of(&indexed),
        VaultStats::of(&fresh),
        "{when}: stats differ"
    );
    assert_eq!(
        fingerprint(&indexed),
        fingerprint(&fresh),
        "{when}: notes differ"
    );
    assert_eq!(
        indexed.files.paths, fresh.files.paths,
        "{when}: files differ"
    );
    assert_eq!(
        indexed.resolved, fresh.resolved,
        "{when}: links resolve differently"
    );
}

#[test]
fn the_index_equals_a_full_rescan() {
    let dir = tempfile::tempdir().expect("tmp");
    crew_synth::generate(dir.path(), 400, 9, 10).expect("generate");
    std::fs::write(
        dir.path().join("Linker.md"),
        "[[Later]] ![[pic.png]] [[Renamed note]]",
    )
    .expect("linker");
    std::fs::create_dir_all(dir.path().join(".crew")).expect("state dir");
    assert_same(dir.path(), "first build");
    assert!(dir.path().join(".crew/index.bin").exists());
    std::thread::sleep(Duration::from_millis(2100));
    assert_same(dir.path(), "trusted index");
    // new files change what an unchanged, trusted note's links resolve to
    std::fs::write(dir.path().join("03-Resources/Later.md"), "later").expect("later");
    assert_same(dir.path(), "a new note makes a trusted note's link resolve");
    std::fs::write(dir.path().join("pic.png"), [0x89, b'P']).expect("attachment");
    assert_same(dir.path(), "a new attachment makes an embed resolve");
    std::thread::sleep(Duration::from_millis(2100));
    assert_same(dir.path(), "trusted index with stored resolutions");

    let mut notes: Vec<std::path::PathBuf> = walkdir::WalkDir::new(dir.path().join("02-Areas"))
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.into_path())
        .collect();
    notes.sort();
    // an edit, a rename, a deletion, a new note
    std::fs::write(&notes[0], "---\ntags: [edited]\n---\nnew [[text]]").expect("edit");
    std::fs::rename(&notes[1], dir.path().join("02-Areas/Renamed note.md")).expect("rename");
    std::fs::remove_file(&notes[2]).expect("delete");
    std::fs::write(
        dir.path().join("00-Inbox/Brand new.md"),
        "#fresh [[Renamed note]]",
    )
    .expect("create");
    assert_same(dir.path(), "after edit, rename, deletion and creation");

    // same size, same mtime, different bytes: a change a coarse clock cannot see
    let target = &notes[3];
    let meta = std::fs::metadata(target).expect("meta");
    let old_mtime = meta.modified().expect("mtime");
    let text = std::fs::read_to_string(target).expect("read");
    let flipped: String = text
        .chars()
        .map(|c| if c == 'a' { 'o' } else { c })
        .collect();
    assert_eq!(flipped.len(), text.len());
    let _ = crew::state::open_vault(dir.path()); // the index now holds the old content, written just now
    std::fs::write(target, &flipped).expect("rewrite");
    std::fs::File::options()
        .write(true)
        .open(target)
        .expect("open")
        .set_modified(old_mtime)
        .expect("set mtime");
    assert_same(dir.path(), "after a same-size change in the same instant");
}

#[test]
fn a_corrupt_or_foreign_index_is_rebuilt_not_trusted() {
    let dir = tempfile::tempdir().expect("tmp");
    crew_synth::generate(dir.path(), 50, 3, 10).expect("generate");
    std::fs::create_dir_all(dir.path().join(".crew")).expect("state dir");
    for garbage in [&b"not an index"[..], &[0xff; 64][..], &[][..]] {
        std::fs::write(dir.path().join(".crew/index.bin"), garbage).expect("corrupt");
        assert_same(dir.path(), "corrupt index");
    }
    // a torn index (cut short, or with bytes after its last chunk) is rebuilt as well
    let index = dir.path().join(".crew/index.bin");
    let _ = crew::state::open_vault(dir.path());
    let whole = std::fs::read(&index).expect("index");
    for torn in [
        &whole[..whole.len() / 2],
        &[&whole[..], b"junk"].concat()[..],
    ] {
        std::fs::write(&index, torn).expect("tear");
        assert_same(dir.path(), "torn index");
    }
}

/// Any damaged byte in a trusted index — in the head, the checksums or a note — makes crew
/// read the notes again; a flipped bit never becomes a plausible, wrong note.
#[test]
fn a_damaged_index_is_never_trusted() {
    use proptest::test_runner::{Config, TestRunner};
    let dir = tempfile::tempdir().expect("tmp");
    crew_synth::generate(dir.path(), 60, 11, 10).expect("generate");
    std::fs::create_dir_all(dir.path().join(".crew")).expect("state dir");
    let index = dir.path().join(".crew/index.bin");
    let _ = crew::state::open_vault(dir.path());
    std::thread::sleep(Duration::from_millis(2100));
    assert_same(dir.path(), "trusted index");
    let good = std::fs::read(&index).expect("index");
    let mut runner = TestRunner::new(Config::with_cases(150));
    runner
        .run(&(0..good.len(), 1..=255u8), |(at, flip)| {
            let mut bad = good.clone();
            bad[at] ^= flip;
            std::fs::write(&index, &bad).expect("damage");
            assert_same(
                dir.path(),
                &format!("byte {at} of {} xor {flip:#x}", good.len()),
            );
            Ok(())
        })
        .expect("a damaged index was trusted");
}
