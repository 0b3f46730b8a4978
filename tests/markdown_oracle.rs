//! crew's code masking against `pulldown-cmark`: every note of every corpus vault, and
//! generated adversarial notes. The allowed differences are listed in `tests/oracle/mod.rs`.

mod common;
mod oracle;

use crew::vault::markdown::split_frontmatter;
use proptest::prelude::*;

fn body(text: &str) -> &str {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match split_frontmatter(text) {
        Some(fm) => &text[fm.block.end..],
        None => text,
    }
}

/// Every file of every corpus vault (the mini corpus, and the real ones where present).
fn corpus_notes(check: &str) -> impl Iterator<Item = walkdir::DirEntry> {
    common::corpus_vaults(check)
        .into_iter()
        .flat_map(|root| walkdir::WalkDir::new(root).into_iter().flatten())
}

#[test]
fn corpora_code_ranges_match_pulldown_cmark() {
    let mut compared = 0;
    let mut failures = Vec::new();
    for e in corpus_notes("the corpus differential test") {
        let p = e.path();
        if !e.file_type().is_file() || p.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let body = body(&text);
        compared += 1;
        let diffs = oracle::compare(body);
        if !diffs.is_empty() {
            failures.push(format!(
                "{}:\n{}",
                p.display(),
                oracle::describe(body, &diffs)
            ));
        }
    }
    println!(
        "compared {compared} notes with pulldown-cmark: {} differ",
        failures.len()
    );
    assert!(compared > 0);
    assert!(
        failures.is_empty(),
        "{} of {compared} notes differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Where crew reads no tag because it is an HTML block: the same blocks as `pulldown-cmark`'s
/// on every corpus note.
#[test]
fn corpora_html_blocks_match_pulldown_cmark() {
    let (mut compared, mut blocks) = (0, 0);
    let mut failures = Vec::new();
    for e in corpus_notes("the corpus HTML block test") {
        let p = e.path();
        if !e.file_type().is_file() || p.extension().is_none_or(|x| x != "md") {
            continue;
        }
        let Ok(bytes) = std::fs::read(p) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let body = body(&text);
        compared += 1;
        blocks += crew::vault::markdown::html_block_ranges(body).len();
        let diffs = oracle::compare_html_blocks(body);
        if !diffs.is_empty() {
            failures.push(format!(
                "{}:\n{}",
                p.display(),
                oracle::describe(body, &diffs)
            ));
        }
    }
    println!("compared the HTML blocks of {compared} notes ({blocks} blocks) with pulldown-cmark");
    assert!(compared > 0);
    assert!(
        failures.is_empty(),
        "{} of {compared} notes differ (\"code\" is \"HTML block\" here):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Lines built from the pieces that decide code: container prefixes, block starts, backtick
/// runs, escapes, links.
fn adversarial() -> impl Strategy<Value = String> {
    let prefix = prop::sample::select(vec![
        "",
        "",
        "",
        "> ",
        ">",
        "- ",
        "  ",
        "    ",
        "   ",
        "1. ",
        "2) ",
        "* ",
        "+ ",
        "> [!note] ",
        "> - ",
        "- > ",
        "  - ",
        "    - ",
        "\t",
        "-\t",
        " ",
        "10. ",
        "-    ",
        "-      ",
    ]);
    let piece = prop::sample::select(vec![
        "```",
        "```sh",
        "~~~",
        "````",
        "``` a`b",
        "`",
        "``",
        "\\`",
        "\\\\",
        "[[a]]",
        "text",
        " ",
        "<div>",
        "<!--",
        "-->",
        "# ",
        "---",
        "===",
        "***",
        "<span>",
        "[x](y)",
        "%%",
        "#tag",
        "|",
        "\t",
        "> ",
        "- ",
        "<a href=\"`\">",
        "](`",
        "[",
        "]",
        "(",
        ")",
        "1. ",
        "<pre>",
        "</pre>",
        "</div>",
        "<x-y a='`'>",
        "    ",
        "\\\\`",
    ]);
    let line = (
        prop::collection::vec(prefix, 0..3),
        prop::collection::vec(piece, 0..4),
    )
        .prop_map(|(p, q)| format!("{}{}", p.concat(), q.concat()));
    prop::collection::vec(line, 0..12).prop_map(|l| l.join("\n"))
}

proptest! {
    // inputs under an allowed difference are skipped (see tests/oracle/mod.rs): many hold a
    // comment and a quote line
    #![proptest_config(ProptestConfig {
        cases: 20000,
        max_global_rejects: 200_000,
        .. ProptestConfig::default()
    })]

    #[test]
    fn generated_notes_match_pulldown_cmark(text in adversarial()) {
        prop_assume!(!oracle::skipped_when_generated(&text));
        let diffs = oracle::compare(&text);
        prop_assert!(diffs.is_empty(), "{}", oracle::describe(&text, &diffs));
        let diffs = oracle::compare_html_blocks(&text);
        prop_assert!(diffs.is_empty(), "HTML blocks:\n{}", oracle::describe(&text, &diffs));
    }
}
