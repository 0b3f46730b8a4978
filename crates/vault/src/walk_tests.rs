//! Tests of the walk as `Vault::open` does it, kept apart to keep `lib.rs` short.

use super::*;

#[test]
fn the_walk_skips_hidden_entries_and_finds_stale_temps_everywhere() {
    let dir = tempfile::tempdir().expect("tmp");
    let put = |rel: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, "x").expect("write");
    };
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
        put(rel);
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
