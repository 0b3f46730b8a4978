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

/// Builds a settled, trusted index of a small vault: every entry old enough to be trusted.
fn settled_vault(notes: usize, seed: u64) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tmp");
    crew_synth::generate(dir.path(), notes, seed, 10).expect("generate");
    std::fs::create_dir_all(dir.path().join(".crew")).expect("state dir");
    let _ = crew::state::open_vault(dir.path());
    std::thread::sleep(Duration::from_millis(2100));
    assert_same(dir.path(), "trusted index");
    dir
}

fn notes_under(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut notes: Vec<std::path::PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md"))
        .map(|e| e.into_path())
        .collect();
    notes.sort();
    notes
}

/// Long after the index was written, a note rewritten in place with the same size and its old
/// modification time restored (its folder's time does not change either) is still read again:
/// the change time gives it away.
#[cfg(unix)]
#[test]
fn a_same_size_edit_with_its_old_mtime_restored_is_seen() {
    let dir = settled_vault(120, 21);
    let target = notes_under(&dir.path().join("02-Areas"))
        .into_iter()
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains('a')))
        .expect("a note with an a");
    let folder = target.parent().expect("folder").to_path_buf();
    let folder_mtime = std::fs::metadata(&folder).expect("meta").modified().ok();
    let old_mtime = std::fs::metadata(&target)
        .expect("meta")
        .modified()
        .expect("mtime");
    let text = std::fs::read_to_string(&target).expect("read");
    let flipped = text.replacen('a', "o", 1);
    assert_eq!(flipped.len(), text.len());
    // in place (no new inode, no folder change), as an editor saving over the file does
    std::fs::write(&target, &flipped).expect("rewrite");
    std::fs::File::options()
        .write(true)
        .open(&target)
        .expect("open")
        .set_modified(old_mtime)
        .expect("set mtime");
    assert_eq!(
        std::fs::metadata(&folder).expect("meta").modified().ok(),
        folder_mtime,
        "the folder's time must not tell"
    );
    assert_same(
        dir.path(),
        "after a same-size in-place edit with the mtime restored",
    );
}

/// A new folder with notes (nested too), a renamed folder, a removed folder, and a note turned
/// into a symbolic link or a folder: the index never answers for what is no longer there.
#[test]
fn new_renamed_and_removed_folders_are_seen() {
    let dir = settled_vault(150, 23);
    let root = dir.path();
    std::fs::create_dir_all(root.join("New folder/deeper/still")).expect("mkdir");
    std::fs::write(root.join("New folder/Fresh.md"), "[[Fresh deep]] #new").expect("write");
    std::fs::write(
        root.join("New folder/deeper/still/Fresh deep.md"),
        "[[Fresh]]",
    )
    .expect("write");
    assert_same(root, "after a new folder");
    std::fs::rename(root.join("02-Areas"), root.join("Areas renamed")).expect("rename folder");
    assert_same(root, "after a folder rename");
    std::thread::sleep(Duration::from_millis(2100));
    assert_same(root, "trusted again");
    std::fs::remove_dir_all(root.join("New folder/deeper")).expect("remove folder");
    assert_same(root, "after a folder removal");
    let notes = notes_under(&root.join("Areas renamed"));
    std::fs::remove_file(&notes[0]).expect("remove");
    std::fs::create_dir(&notes[0]).expect("a folder where a note was");
    #[cfg(unix)]
    {
        std::fs::remove_file(&notes[1]).expect("remove");
        std::os::unix::fs::symlink(&notes[2], &notes[1]).expect("symlink");
    }
    assert_same(root, "after notes became a folder and a symbolic link");
    let fresh = Vault::open(root).expect("open");
    for gone in &notes[..2] {
        let rel = gone.strip_prefix(root).expect("inside").to_string_lossy();
        assert!(fresh.note(&rel).is_none(), "{rel} is no note any more");
    }
}

/// `crew vault stats` keeps its counts beside the index and gives them back, without opening
/// the vault, only while nothing changed: kept counts that are not the vault's (planted here
/// under the current index's id) are what it answers with while the vault is untouched, and
/// any change — an edit, a same-size edit with the old mtime restored, a new attachment — makes
/// it count again, equal to a full rescan. A run on an unchanged vault rewrites nothing.
#[test]
fn kept_counts_answer_only_while_nothing_changed() {
    let dir = settled_vault(120, 31);
    let root = dir.path();
    let index = root.join(".crew/index.bin");
    let kept = root.join(".crew/index.bin.stats");
    let fresh = |why: &str| {
        assert_eq!(
            crew::state::vault_stats(root).expect("stats"),
            VaultStats::of(&Vault::open(root).expect("open")),
            "{why}"
        );
    };
    fresh("first count");
    assert!(kept.is_file(), "the counts are kept");
    let stamp = |p: &std::path::Path| std::fs::metadata(p).expect("meta").modified().ok();
    let (index_time, kept_time) = (stamp(&index), stamp(&kept));
    fresh("nothing changed");
    assert_eq!(stamp(&index), index_time, "the index was rewritten");
    assert_eq!(stamp(&kept), kept_time, "the kept counts were rewritten");

    // plant counts that cannot be the vault's under the same index id
    let text = std::fs::read_to_string(&kept).expect("kept");
    let mut planted: serde_json::Value = serde_json::from_str(&text).expect("json");
    planted["stats"]["notes"] = serde_json::json!(987_654);
    std::fs::write(&kept, planted.to_string()).expect("plant");
    assert_eq!(
        crew::state::vault_stats(root).expect("stats").notes,
        987_654,
        "an unchanged vault is answered from the kept counts"
    );

    let target = notes_under(&root.join("02-Areas"))
        .into_iter()
        .find(|p| std::fs::read_to_string(p).is_ok_and(|t| t.contains('a')))
        .expect("a note with an a");
    let old_mtime = std::fs::metadata(&target)
        .expect("meta")
        .modified()
        .expect("mtime");
    let text = std::fs::read_to_string(&target).expect("read");
    std::fs::write(&target, text.replacen('a', "o", 1)).expect("rewrite");
    std::fs::File::options()
        .write(true)
        .open(&target)
        .expect("open")
        .set_modified(old_mtime)
        .expect("set mtime");
    fresh("after a same-size edit with the mtime restored");
    std::fs::write(&target, "now [[something]] else #tagged").expect("edit");
    fresh("after an edit");
    std::fs::write(root.join("pic.png"), [0x89, b'P']).expect("attachment");
    fresh("after a new attachment");
    std::fs::remove_file(&target).expect("delete");
    fresh("after a deletion");
}

/// A few changed notes in an index that otherwise matches the vault are patched in (only the
/// chunks holding them encoded again, the others copied), so the next run finds the index
/// current; what it then holds equals a full rescan.
#[test]
fn a_few_changed_notes_are_patched_into_the_index() {
    // three chunks of entries
    let dir = settled_vault(4500, 37);
    let root = dir.path();
    let index = root.join(".crew/index.bin");
    let notes = notes_under(&root.join("02-Areas"));
    std::fs::write(&notes[0], "patched [[Elsewhere]] #patched").expect("edit");
    std::fs::write(&notes[notes.len() - 1], "and this one").expect("edit");
    // the edits settle before the index is rewritten, so it can vouch for them
    std::thread::sleep(Duration::from_millis(2100));
    let before = std::fs::read(&index).expect("index");
    let vault = crew::state::open_vault(root).expect("open");
    let id = vault
        .index_id()
        .expect("the patched index describes the vault");
    assert_ne!(std::fs::read(&index).expect("index"), before, "patched");
    assert!(
        Vault::open_unless_current(root, &index, id)
            .expect("open")
            .is_none(),
        "the patched index is current"
    );
    assert_same(root, "after the patch");
}
