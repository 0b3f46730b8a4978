//! The scanner's cases, and a count of its work that tells linear from quadratic.

use super::*;

fn code(text: &str) -> Vec<&str> {
    code_ranges(text).into_iter().map(|r| &text[r]).collect()
}

#[test]
fn fences_in_containers() {
    assert_eq!(
        code("- ```sh\n  [[a]]\n  ```\n[[b]]"),
        vec!["```sh\n  [[a]]\n  ```"]
    );
    assert_eq!(code("> ```\n> [[c]]\n> ```\n"), vec!["```\n> [[c]]\n> ```"]);
    assert_eq!(
        code("> [!note]\n> ```\n> [[c]]\n> ```\n[[d]]"),
        vec!["```\n> [[c]]\n> ```"]
    );
    assert_eq!(
        code("- a\n    - b\n\n      ```\n      [[x]]\n      ```\n"),
        vec!["```\n      [[x]]\n      ```"]
    );
}

#[test]
fn a_fence_closes_with_its_container() {
    // the unindented closing line is outside the item: it opens a new fence of its own
    assert_eq!(
        code("- ```\n  [[a]]\n```\n[[b]]"),
        vec!["```\n  [[a]]", "```\n[[b]]"]
    );
    assert_eq!(code("> ```\n> x\n[[b]]"), vec!["```\n> x"]);
}

#[test]
fn spans_run_over_lines_but_not_out_of_paragraphs() {
    assert_eq!(code("a `b\nc` d"), vec!["`b\nc`"]);
    assert_eq!(code("a `b\n\nc` d"), Vec::<&str>::new());
    assert_eq!(code("> a `b\n> c` d"), vec!["`b\n> c`"]);
}

#[test]
fn escaped_backticks_open_nothing() {
    assert_eq!(code("\\`[[a]]` x"), Vec::<&str>::new());
    assert_eq!(code("\\``a`` x"), Vec::<&str>::new());
    assert_eq!(code("\\\\`a`"), vec!["`a`"]);
    assert_eq!(code("`a\\`"), vec!["`a\\`"]);
}

#[test]
fn indented_code_is_not_code_but_a_block() {
    assert_eq!(code("    ```\n    [[a]]\n"), Vec::<&str>::new());
    assert_eq!(code("    `x`"), vec!["`x`"]);
}

#[test]
fn html_blocks_hold_no_code() {
    assert_eq!(code("<div>\n```\n[[e]]\n```\n</div>\n"), Vec::<&str>::new());
    assert_eq!(code("<!--\n```\n-->\n[[x]]"), Vec::<&str>::new());
}

#[test]
fn autolinks_take_precedence_over_spans() {
    // found by the `code` fuzz target: a backtick inside an email autolink opens nothing
    assert_eq!(code("``` a`b\n``` <dba`@iv>\n`\n"), vec!["``` a`b\n```"]);
    assert_eq!(code("<https://a/`b> `c`"), vec!["`c`"]);
    // an autolink is tried before a comment: `<!--`@a>` is an email address
    assert_eq!(code("x <!--`@a> `b`"), vec!["`b`"]);
}

#[test]
fn form_feeds_are_whitespace() {
    // found by the `code` fuzz target: `<di\x0c>` is a tag, so an HTML block holds the fence
    assert_eq!(code("x\n\n<di\x0c>\n```\n[[a]]"), Vec::<&str>::new());
    // and a line of form feeds is blank: it ends the paragraph
    assert_eq!(code("`a\n\x0c\nb`"), Vec::<&str>::new());
}

/// The scanner's steps for `text` (loop turns and bytes looked at).
fn steps(text: &str) -> u64 {
    WORK.with(|w| w.set(0));
    let _ = code_ranges(text);
    WORK.with(std::cell::Cell::get)
}

#[test]
fn pathological_runs_are_linear() {
    type Family = (&'static str, fn(usize) -> String);
    let families: [Family; 5] = [
        ("backtick runs of many lengths", |n| {
            (1..n).map(|k| "`".repeat(k % 50 + 1) + " ").collect()
        }),
        ("runs of one length, none closed", |n| {
            "`` x ".repeat(n) + "`"
        }),
        ("deep quotes and lists opening fences", |n| {
            ("> - ".repeat(500) + "```\n").repeat(n / 25)
        }),
        // a deep list, then blank lines that every open item must look at
        ("a deep list, then blank lines", |n| {
            "- ".repeat(10 * n) + "x\n" + &"\n".repeat(10 * n)
        }),
        ("a fence of many lines", |n| {
            "```\n".to_string() + &"code ` line\n".repeat(n)
        }),
    ];
    for (what, make) in families {
        let (small, large) = (make(500), make(2000));
        let (a, b) = (steps(&small), steps(&large));
        // linear work grows 4× with 4× the input (quadratic: 16×)
        assert!(b <= 5 * a, "{what}: {a} steps, then {b} for 4× the input");
        // and stays within a constant per byte: every line meets at most MAX_DEPTH
        // containers
        assert!(
            b <= 4 * MAX_DEPTH as u64 * large.len() as u64,
            "{what}: {b} steps for {} bytes",
            large.len()
        );
    }
}
