//! Tests of the walk as `Vault::open` does it, kept apart to keep `lib.rs` short.

use super::*;

/// Writes `text` to `rel` under `root`, making its folders.
fn put(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
    std::fs::write(p, text).expect("write");
}

#[test]
fn the_walk_skips_hidden_entries_and_finds_stale_temps_everywhere() {
    let dir = tempfile::tempdir().expect("tmp");
    for rel in [
        "Root.md",
        "a/One.md",
        "a/b/Two.md",
        "a/b/pic.png",
        ".obsidian/app.md",
        "a/.hidden/Secret.md",
        ".dotfile.md",
        ".crew-tmp-1.part",
        "a/b/.crew-tmp-2.part",
    ] {
        put(dir.path(), rel, "x");
    }
    let v = Vault::open(dir.path()).expect("open");
    assert_eq!(
        v.files.paths,
        ["Root.md", "a/One.md", "a/b/Two.md", "a/b/pic.png"]
    );
    let mut temps: Vec<String> = v
        .stale_temps
        .iter()
        .map(|p| rel_to_string(p.strip_prefix(dir.path()).expect("inside")))
        .collect();
    temps.sort();
    assert_eq!(temps, [".crew-tmp-1.part", "a/b/.crew-tmp-2.part"]);
}

/// Notes are read through a handle on their folder kept from one note to the next: notes of
/// the same name in folders visited in turn (a folder's notes interleaved with a sub-folder's
/// in path order) are each read from their own folder. One thread reads them all, so the
/// handle is carried across every folder change.
#[test]
fn each_note_is_read_from_its_own_folder() {
    let dir = tempfile::tempdir().expect("tmp");
    let rels = [
        "Same.md",
        "a/Same.md",
        "a/b/Same.md",
        "a/c.md",
        "a/b/c/Same.md",
        "b/Same.md",
    ];
    for rel in rels {
        put(
            dir.path(),
            rel,
            &format!("#{}", rel.replace(['/', '.'], "-")),
        );
    }
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    let v = one_thread.install(|| Vault::open(dir.path()).expect("open"));
    for rel in rels {
        let note = v.note(rel).expect("read");
        assert_eq!(note.tags, [rel.replace(['/', '.'], "-")], "{rel}");
    }
}

/// A note that became a symbolic link or a FIFO after the walk is refused, not followed and
/// not waited on, through a folder handle as by a full path.
#[cfg(unix)]
#[test]
fn a_note_turned_link_or_fifo_is_refused_through_the_folder_handle() {
    let dir = tempfile::tempdir().expect("tmp");
    let outside = tempfile::tempdir().expect("tmp");
    put(outside.path(), "secret.md", "#secret");
    put(dir.path(), "a/one.md", "#one");
    put(dir.path(), "a/two.md", "#two");
    put(dir.path(), "a/three.md", "#three");
    let mut folder = FolderHandle::default();
    let (bytes, _) = folder.read(dir.path(), "a/one.md").expect("read");
    assert_eq!(bytes, b"#one");
    std::fs::remove_file(dir.path().join("a/two.md")).expect("rm");
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        dir.path().join("a/two.md"),
    )
    .expect("symlink");
    assert!(
        folder.read(dir.path(), "a/two.md").is_err(),
        "a link followed"
    );
    std::fs::remove_file(dir.path().join("a/three.md")).expect("rm");
    let fifo = std::ffi::CString::new(
        dir.path()
            .join("a/three.md")
            .into_os_string()
            .into_encoded_bytes(),
    )
    .expect("path");
    // SAFETY: mkfifo reads a NUL-terminated path that lives across the call
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0, "mkfifo");
    assert!(
        folder.read(dir.path(), "a/three.md").is_err(),
        "a FIFO read"
    );
}
