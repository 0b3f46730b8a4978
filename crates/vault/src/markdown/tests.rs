//! Masking, links, tags, tasks and structure on crafted notes.

use super::*;

#[test]
fn frontmatter_needs_a_closing_fence() {
    assert!(split_frontmatter("---\ntitle: x\n").is_none());
    let fm = split_frontmatter("---\ntitle: x\n---\nbody").expect("block");
    assert_eq!(fm.yaml, 4..13);
    assert_eq!(fm.block, 0..17);
    assert_eq!(fm.closing_line, 3);
}

#[test]
fn frontmatter_fences_may_carry_trailing_space_and_cr() {
    let text = "---  \r\na: 1\r\n--- \r\nbody";
    let fm = split_frontmatter(text).expect("block");
    assert_eq!(&text[fm.yaml.clone()], "a: 1\r\n");
}

#[test]
fn empty_frontmatter_block() {
    let fm = split_frontmatter("---\n---\n").expect("block");
    assert!(fm.yaml.is_empty());
}

#[test]
fn fenced_code_masks_links() {
    let text = "a [[One]]\n```\n[[Two]]\n```\n~~~~\n[[Three]]\n~~~\n~~~~\n[[Four]]";
    let masked = mask(text, None);
    let targets: Vec<_> = wikilinks(&masked).into_iter().map(|l| l.target).collect();
    assert_eq!(targets, vec!["One", "Four"]);
}

#[test]
fn unclosed_fence_runs_to_end() {
    let masked = mask("[[A]]\n```rust\n[[B]]", None);
    assert_eq!(wikilinks(&masked).len(), 1);
}

#[test]
fn backtick_fence_with_backtick_in_info_is_not_a_fence() {
    let masked = mask("``` a`b\n[[B]]\n```", None);
    // the first line is not a fence; the last line opens one that runs to the end
    assert_eq!(wikilinks(&masked).len(), 1);
}

#[test]
fn four_space_indent_is_not_a_fence_and_not_masked() {
    let masked = mask("    ```\n    [[A]]\n", None);
    assert_eq!(wikilinks(&masked).len(), 1);
}

#[test]
fn a_tab_before_a_quote_marker_indents_what_follows_it() {
    // the tab's fourth column counts after the `>` (pulldown-cmark): `\t>    ```` in a quote
    // holds four columns of indent, which cannot interrupt a paragraph, so the link is read
    let masked = mask("> [!note]\n\t>    ```\n> [[A]]\n", None);
    assert_eq!(wikilinks(&masked).len(), 1);
    // with three columns before the marker and none after, it opens a fence
    let masked = mask(">\n   >    ```\n> [[C]]\n", None);
    assert!(wikilinks(&masked).is_empty());
}

#[test]
fn code_spans_need_equal_runs() {
    let masked = mask("`[[A]]` ``[[B]]` still`` ``[[C]]", None);
    let targets: Vec<_> = wikilinks(&masked).into_iter().map(|l| l.target).collect();
    assert_eq!(targets, vec!["C"]);
}

#[test]
fn comments_are_masked_only_when_closed() {
    let masked = mask("%%[[A]]\n[[B]]%% [[C]] <!-- [[D]] --> %% [[E]]", None);
    let targets: Vec<_> = wikilinks(&masked).into_iter().map(|l| l.target).collect();
    assert_eq!(targets, vec!["C", "E"]);
}

#[test]
fn empty_wikilinks_are_text() {
    assert!(wikilinks("[[]] ![[]] [[]]]").is_empty());
    assert_eq!(wikilinks("[[]][[a]]").len(), 1);
}

#[test]
fn markdown_links_on_long_lines_stay_linear() {
    // hundreds of link starts sharing one destination run and one unclosed title
    let line = "[a](b".repeat(20_000) + " t".repeat(20_000).as_str();
    let t = std::time::Instant::now();
    assert!(markdown_links(&line).is_empty());
    assert!(
        t.elapsed() < std::time::Duration::from_secs(2),
        "{:?}",
        t.elapsed()
    );
}

#[test]
fn link_parts() {
    let links = wikilinks("[[Note#Head|Shown]] ![[img.png|100]] [[#Self]] [[T\\|A]]");
    assert_eq!(links[0].target, "Note");
    assert_eq!(links[0].subpath.as_deref(), Some("Head"));
    assert_eq!(links[0].alias.as_deref(), Some("Shown"));
    assert!(links[1].embed);
    assert_eq!(links[2].target, "");
    assert_eq!(links[3].target, "T");
    assert!(links[3].escaped_pipe);
}

#[test]
fn tags_follow_the_rules() {
    let tags: Vec<_> = inline_tags("#one x#no #1984 #2024-plan\n#nested/tag, #café #a.b")
        .into_iter()
        .map(|t| t.1)
        .collect();
    assert_eq!(tags, vec!["one", "2024-plan", "nested/tag", "café", "a"]);
}

#[test]
fn heading_is_not_a_tag() {
    assert!(inline_tags("# Title\n## Sub").is_empty());
}

#[test]
fn markdown_links_decode_and_skip_urls() {
    let links = markdown_links("[a](My%20Note.md#Part) [b](https://x.y) [c](<Other Note.md>)");
    assert_eq!(links.len(), 2);
    assert_eq!(links[0].target, "My Note.md");
    assert_eq!(links[0].fragment.as_deref(), Some("Part"));
    assert_eq!(links[1].target, "Other Note.md");
}

#[test]
fn structure_reads_headings_blocks_tasks() {
    let Structure {
        headings: h,
        block_ids: b,
        tasks: t,
        breaks,
    } = structure("# One\ntext ^abc-1\n- [ ] do it\n- [x] done\n#tag");
    assert_eq!(breaks, [0]);
    assert_eq!(h.len(), 1);
    assert_eq!(b, vec!["abc-1"]);
    assert_eq!(t.len(), 2);
    assert!(t[1].done);
}

mod props {
    use super::*;
    use proptest::prelude::*;

    /// The wikilink grammar as a regex: the reference the hand-written scanner must match.
    fn by_regex(text: &str) -> Vec<(Range<usize>, bool, String)> {
        let re = Regex::new(r"(!?)\[\[([^\[\]\n]+)\]\]").expect("regex");
        re.captures_iter(text)
            .map(|c| {
                let whole = c.get(0).map_or(0..0, |m| m.range());
                let embed = c.get(1).is_some_and(|m| !m.as_str().is_empty());
                (
                    whole,
                    embed,
                    c.get(2).map_or("", |m| m.as_str()).to_string(),
                )
            })
            .collect()
    }

    /// The Markdown-link grammar as the regex it was written as before the hand scanner.
    fn md_by_regex(text: &str) -> Vec<MdLinkMatch> {
        let re = Regex::new(r"(!?)\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+[^)\n]*)?\)")
            .expect("regex");
        re.captures_iter(text)
            .filter_map(|c| {
                Some(MdLinkMatch {
                    whole: c.get(0)?.range(),
                    dest: c.get(2)?.range(),
                    embed: c.get(1).is_some_and(|m| !m.as_str().is_empty()),
                })
            })
            .collect()
    }

    fn block_id_by_regex(line: &str) -> Option<String> {
        let re = Regex::new(r"(?:^|\s)\^([A-Za-z0-9-]+)\s*$").expect("regex");
        re.captures(line)
            .and_then(|c| c.get(1))
            .map(|m| m.as_str().to_string())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        #[test]
        fn markdown_link_scanner_matches_the_regex(
            text in "([\\[\\]()<>!a# \n\u{a0}\u{2003}é]|\\]\\(|https://x\\.y/z){0,40}"
        ) {
            prop_assert_eq!(MdLinkScanner::new(&text).collect::<Vec<_>>(), md_by_regex(&text));
        }

        #[test]
        fn block_ids_and_tasks_match_their_regexes(line in "[ \t\u{a0}]{0,2}([-*+]|[0-9]{1,2}[.)]|\u{661}\\.)?[ \u{a0}]{0,2}(\\[.\\])?[ ]{0,2}[a-z^ \t\u{a0}#-]{0,12}") {
            prop_assert_eq!(block_id(&line).map(str::to_string), block_id_by_regex(&line));
            let by_regex = TASK.captures(&line).map(|c| {
                (c.get(1).map_or("", |m| m.as_str()).to_string(), c.get(2).map_or("", |m| m.as_str()).to_string())
            });
            let by_hand = task_line(&line).map(|(m, t)| (m.to_string(), t.to_string()));
            prop_assert_eq!(by_hand, by_regex);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn wikilink_scanner_matches_the_regex(text in "[\\[\\]!a|#\n é]{0,40}") {
            let scanned: Vec<(Range<usize>, bool, String)> = wikilinks(&text)
                .into_iter()
                .map(|l| {
                    let inner = &text[l.span.start + 2 + usize::from(l.embed)..l.span.end - 2];
                    (l.span, l.embed, inner.to_string())
                })
                .collect();
            prop_assert_eq!(scanned, by_regex(&text));
        }
    }
}
