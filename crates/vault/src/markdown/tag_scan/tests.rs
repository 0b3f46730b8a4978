//! One test per rule of the vault spec's tag reading; the rows of Obsidian 1.13.7's read-back
//! are quoted where they exist.

use super::*;
use crate::markdown::mask_body;

/// The tag names of a note body, read as a note reads them (code and comments masked).
fn names(body: &str) -> Vec<String> {
    inline_tags(&mask_body(body))
        .into_iter()
        .map(|t| t.1)
        .collect()
}

fn none(body: &str) {
    assert_eq!(names(body), Vec::<String>::new(), "{body:?}");
}

#[test]
fn a_tag_begins_at_the_line_start_or_after_whitespace() {
    assert_eq!(names("#a x\n#b\tc\t#d"), vec!["a", "b", "d"]);
    // NBSP and the ideographic space are whitespace
    assert_eq!(names("x\u{a0}#qi y\u{3000}#qj"), vec!["qi", "qj"]);
    assert_eq!(names("> #q\n>#r\n> > #s"), vec!["q", "r", "s"]);
}

#[test]
fn punctuation_or_a_letter_before_the_hash_blocks_it() {
    none("(#pa) \"#pc\" .#pd x—#pe x#pf 'q#g' *#h* [#i] {#j}");
}

#[test]
fn an_escaped_hash_is_no_tag() {
    none("\\#x and \\#y");
    // an escaped backslash escapes nothing, but it is still punctuation before the `#`
    none("\\\\#z");
}

#[test]
fn a_tag_right_after_another_is_a_tag() {
    assert_eq!(names("#tl#tm"), vec!["tl", "tm"]);
    assert_eq!(names("#tn/#to"), vec!["tn/", "to"]);
    // an all-digit "tag" is none, so nothing follows it
    assert_eq!(names("#1984#x #y"), vec!["y"]);
}

#[test]
fn a_tag_after_an_underscore() {
    // `_#uc_` is emphasis around the tag; `snake_#wc` is a tag after an intraword `_`
    assert_eq!(names("x _#uc_ y, snake_case_#wc"), vec!["uc", "wc"]);
    assert_eq!(
        names("__#bold__ _#a_b_ #keep_"),
        vec!["bold", "a_b", "keep_"]
    );
}

#[test]
fn tag_characters() {
    assert_eq!(
        names("#one #2024-plan #nested/tag, #café #a.b #1984 #日本"),
        vec!["one", "2024-plan", "nested/tag", "café", "a", "日本"]
    );
    none("# Heading\n## Sub");
}

#[test]
fn no_tag_in_math() {
    none("m $a #ra b$ n\nx $$ #rb $$ y\n$$\n#qd\n$$\n$#pb$");
    // prices are no math
    assert_eq!(names("costs $20 #t and $30"), vec!["t"]);
}

#[test]
fn no_tag_in_html_blocks() {
    none("<div>\nhello #tp\n</div>");
    none("<p>x #tr</p>");
    none("<table>\n<tr><td>#ff0000</td><td>#00ff00</td></tr>\n</table>");
    none("> <div>\n> #in-quote\n");
    // a blank line ends the block: what follows is Markdown again
    assert_eq!(names("<div>\n#no\n\n#yes\n\n</div>"), vec!["yes"]);
}

#[test]
fn no_tag_in_inline_html_elements_or_markup() {
    none("a <span>#x</span> b <td>#ff0000</td> <b >#bold</b>");
    none("<span style=\"color: #1a1a1a\">x</span> <font color=#fff>y</font> <a href='#p'>z</a>");
    none("<style>\n#main { color: #fc0; }\n</style>");
    // a void or unclosed tag leaves the text after it alone
    assert_eq!(names("a <br> #t <img src=x> #u"), vec!["t", "u"]);
}

#[test]
fn no_tag_in_comments_or_code() {
    none("%% #a %% <!-- #b --> `#c`\n```\n#d\n```\n%%\n#e\n%%");
}

#[test]
fn markdown_link_text_holds_tags_but_not_its_destination() {
    assert_eq!(
        names("[Discord #tf](https://x.y) [a #tg][ref] [x #ph] [y](a.md \"t #no\") [z](<b #no>)"),
        vec!["tf", "tg", "ph"]
    );
    none("[[Note#Head]] [[A #b]] [[A|see #c]]");
}

#[test]
fn table_cells_hold_tags() {
    assert_eq!(names("|a|b|\n|-|-|\n|#uo|x|\n| #up |y|"), vec!["uo", "up"]);
    assert_eq!(names("> a | b\n> --|--\n> x |#cell"), vec!["cell"]);
    // outside a table, or after an escaped pipe, `|` is punctuation
    none("a|#no");
    assert_eq!(names("|a|b|\n|-|-|\n|x\\|#no|#yes|"), vec!["yes"]);
}

#[test]
fn spans_point_at_the_hash() {
    let text = "x #a, y";
    let tags = inline_tags(text);
    assert_eq!(tags, vec![(2..4, "a".to_string())]);
}

#[test]
fn pathological_lines_stay_linear() {
    // each shape repeated on one long line: a naive scan would walk back or forward over the
    // whole line from every `#`, `$` or open tag
    for unit in [
        ">#",
        "_#",
        "$a ",
        "<b>#t ",
        "</i>",
        "|#a",
        "#a#",
        "[x #t](y) ",
    ] {
        let line = unit.repeat(40_000);
        let t = std::time::Instant::now();
        let _ = inline_tags(&line);
        assert!(
            t.elapsed() < std::time::Duration::from_secs(2),
            "{unit:?}: {:?}",
            t.elapsed()
        );
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    fn piece() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "#t",
            "#",
            "_",
            "|",
            "\\",
            "$",
            "$$",
            "<td>",
            "</td>",
            "<div>",
            "</div>",
            "<br>",
            "<span a='#x'>",
            "</span>",
            "[",
            "](",
            ")",
            "[[",
            "]]",
            "`",
            "```",
            "%%",
            "<!--",
            "-->",
            "\n",
            "\n\n",
            " ",
            "\u{a0}",
            "\u{3000}",
            "—",
            "é",
            "日",
            "|-|-|",
            "> ",
            "1984",
            "/",
            "(",
            "\"",
            ".",
        ])
        .prop_map(str::to_string)
    }

    proptest! {
        /// On any mix of the pieces that decide tags: no panic, each span is `#` and the name.
        #[test]
        fn spans_hold_their_tags(pieces in prop::collection::vec(piece(), 0..40)) {
            let body = pieces.concat();
            let masked = mask_body(&body);
            for (span, name) in inline_tags(&masked) {
                prop_assert_eq!(&body[span.clone()], format!("#{name}"));
                prop_assert!(!name.is_empty() && !name.bytes().all(|b| b.is_ascii_digit()));
            }
        }

        #[test]
        fn any_text_reads_without_panic(body in "\\PC{0,200}") {
            let masked = mask_body(&body);
            let _ = inline_tags(&masked);
        }
    }
}
