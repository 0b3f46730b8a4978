//! Prints the counts of an Obsidian vault — notes, links, broken links, tags — and lists the
//! broken links.
//!
//! ```sh
//! cargo run -p crew-vault --example stats -- path/to/vault
//! ```

use std::fmt::Write as _;
use std::process::ExitCode;

use crew_vault::stats::VaultStats;
use crew_vault::{Resolution, Vault, VaultError};

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        eprintln!("usage: stats PATH   (PATH: the vault folder)");
        return ExitCode::from(2);
    };
    match Vault::open(&path) {
        Ok(vault) => {
            print!("{}", report(&vault));
            ExitCode::SUCCESS
        }
        Err(e @ (VaultError::Missing(_) | VaultError::NotADir(_))) => {
            eprintln!("stats: {e}; give the path of a vault folder");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("stats: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The report: the counts, then each broken link as `note → target`, in note and link order.
fn report(vault: &Vault) -> String {
    let s = VaultStats::of(vault);
    let mut out = String::new();
    let _ = writeln!(out, "vault   {}", vault.name());
    let _ = writeln!(out, "notes   {} ({} attachments)", s.notes, s.attachments);
    let _ = writeln!(
        out,
        "links   {} wikilinks ({} broken), {} embeds ({} broken)",
        s.wikilinks, s.wikilinks_unresolved, s.embeds, s.embeds_unresolved
    );
    let _ = writeln!(
        out,
        "tags    {} distinct, on {} notes",
        s.tags_distinct, s.notes_with_tags
    );
    for (note, resolved) in vault.notes.iter().zip(&vault.resolved) {
        for (link, resolution) in note.wikilinks.iter().zip(resolved) {
            if *resolution == Resolution::Unresolved {
                let mark = if link.embed { "!" } else { "" };
                let _ = writeln!(out, "broken  {} → {mark}[[{}]]", note.path, link.target);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_counts_links_and_lists_the_broken_ones() {
        let dir = tempfile::tempdir().expect("temporary folder");
        let put = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("folder");
            std::fs::write(path, text).expect("write");
        };
        put(
            "Home.md",
            "#start [[Ada]] [[Nobody]] `[[code]]` ![[gone.png]]\n",
        );
        put(
            "People/Ada.md",
            "---\ntags: [person, Start]\n---\n[[home]] ![[pic.png]]\n",
        );
        put("People/pic.png", "png");

        let vault = Vault::open(dir.path()).expect("open");
        let text = report(&vault);
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "notes   2 (1 attachments)",
                "links   3 wikilinks (1 broken), 2 embeds (1 broken)",
                "tags    2 distinct, on 2 notes",
                "broken  Home.md → [[Nobody]]",
                "broken  Home.md → ![[gone.png]]",
            ]
        );
    }
}
