//! Text from strangers (a mail, a calendar event, a model's reply to them, a name made from
//! them) made inert before crew writes it into a note. Obsidian plugins run code found in a note's text when the note
//! is opened — Templater's `<% … %>`, Dataview's ```` ```dataviewjs ```` blocks and
//! `` `$= …` `` inline queries, JS Engine's blocks — and raw HTML may embed other pages; so
//! outside text is rewritten until none of these forms is left, while the words stay readable.
//!
//! Both functions are pure and idempotent (`inert(inert(x)) == inert(x)`): values crew writes
//! into frontmatter are compared with what it would write again, and must stay equal.

/// Code-block languages left as they are: an info string whose first word is this one is
/// shown as plain text by Obsidian and read by no plugin.
const INERT_LANGUAGE: &str = "text";

/// HTML elements that load or run something in a note's reading view; their `<` is escaped.
const ACTIVE_TAGS: &[&str] = &[
    "script", "iframe", "frame", "frameset", "object", "embed", "applet", "style", "link", "meta",
    "base", "form",
];

/// Outside text made inert for a note: Templater tags, executable code blocks, Dataview
/// inline queries and active HTML lose the form that makes them run, and nothing else changes.
pub(crate) fn inert(text: &str) -> String {
    // a lone `\r` ends a line in CommonMark too
    let fenced: String = text
        .split_inclusive(['\n', '\r'])
        .map(fence_as_text)
        .collect();
    let inline = inline_queries(&fenced);
    let html = active_html(&inline);
    // Templater runs `<% … %>` anywhere in a new file's text, frontmatter included
    html.replace("<%", "<\\%")
}

/// Outside text for one line: the one rule, shared with the prompts' blocks.
pub(crate) use crate::model::fence::one_line;

/// A fence line (```` ``` ```` or `~~~`, also inside a quote or a list item, where plugins
/// run blocks too) whose info string names a language gets `text` as its first word: Obsidian
/// picks a block's processor by that first word, so ```` ```dataviewjs ```` becomes
/// ```` ```text dataviewjs ````, shown as code and run by nothing. Every language is
/// rewritten, not only the known executable ones, because any plugin may register one.
fn fence_as_text(line: &str) -> std::borrow::Cow<'_, str> {
    let body = line.trim_end_matches(['\n', '\r']);
    let ending = &line[body.len()..];
    // quote markers, list markers and indentation before the fence
    let lead = body
        .find(|c: char| {
            !matches!(
                c,
                ' ' | '\t' | '>' | '-' | '*' | '+' | '.' | ')' | '0'..='9'
            )
        })
        .unwrap_or(body.len());
    let rest = &body[lead..];
    let Some(mark) = rest.chars().next().filter(|c| *c == '`' || *c == '~') else {
        return line.into();
    };
    let run = rest.len() - rest.trim_start_matches(mark).len();
    if run < 3 {
        return line.into();
    }
    let info = rest[run..].trim_start();
    let first = info.split_whitespace().next().unwrap_or("");
    if first.is_empty() || first == INERT_LANGUAGE {
        return line.into();
    }
    format!("{}{} {info}{ending}", &body[..lead + run], INERT_LANGUAGE).into()
}

/// Dataview runs inline code that starts with `$=` (JavaScript) or `=` (a query) once the
/// code's leading spaces are dropped; a backslash before the `=` form keeps it as plain code.
fn inline_queries(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        out.push(c);
        if c != '`' {
            continue;
        }
        // the whole run of backticks, then the spaces a code span may start with
        while let Some((_, next)) = chars.peek().copied() {
            if next == '`' || next.is_whitespace() {
                out.push(next);
                chars.next();
            } else {
                break;
            }
        }
        if let Some((i, _)) = chars.peek().copied()
            && (text[i..].starts_with("$=") || text[i..].starts_with('='))
        {
            out.push('\\');
        }
    }
    out
}

/// `<script`, `<iframe` and the other [`ACTIVE_TAGS`] (opening or closing, any case) with
/// their `<` written as `&lt;`: shown as the text it is, never parsed as an element.
fn active_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let name = after.strip_prefix('/').unwrap_or(after);
        let active = ACTIVE_TAGS.iter().any(|tag| {
            name.get(..tag.len())
                .is_some_and(|n| n.eq_ignore_ascii_case(tag))
                && !name[tag.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
        });
        out.push_str(if active { "&lt;" } else { "<" });
        rest = after;
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The live forms a note must never get from outside text, lowercased.
    fn live_forms(text: &str) -> Vec<&'static str> {
        let lower = text.to_lowercase();
        let mut found = Vec::new();
        for line in lower.split(['\n', '\r']) {
            let t = line.trim_start_matches(|c: char| {
                matches!(
                    c,
                    ' ' | '\t' | '>' | '-' | '*' | '+' | '.' | ')' | '0'..='9'
                )
            });
            for fence in ["```", "~~~"] {
                if let Some(info) = t.strip_prefix(fence) {
                    let first = info
                        .trim_start_matches(['`', '~'])
                        .split_whitespace()
                        .next()
                        .unwrap_or("");
                    if ["dataviewjs", "dataview", "js-engine"].contains(&first) {
                        found.push("an executable fence");
                    }
                }
            }
        }
        // a code span's leading spaces and line breaks do not count
        let squeezed: String = lower.chars().filter(|c| !c.is_whitespace()).collect();
        for (form, name) in [("`$=", "inline $="), ("`=", "inline =")] {
            if squeezed.contains(form) {
                found.push(name);
            }
        }
        // an element's name ends at a character no name holds (`<scripts` is another one)
        let opens = |form: &str| {
            lower.match_indices(form).any(|(at, _)| {
                !lower[at + form.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_ascii_alphanumeric() || c == '-')
            })
        };
        for (form, name) in [
            ("<script", "<script"),
            ("</script", "</script"),
            ("<iframe", "<iframe"),
        ] {
            if opens(form) {
                found.push(name);
            }
        }
        if lower.contains("<%") {
            found.push("<%");
        }
        found
    }

    #[test]
    fn templater_tags_are_escaped() {
        assert_eq!(
            inert("a <% tp.file.title %> b"),
            "a <\\% tp.file.title %> b"
        );
        assert_eq!(inert("<%* await x %>"), "<\\%* await x %>");
    }

    #[test]
    fn executable_fences_become_text_blocks() {
        assert_eq!(
            inert("x\n```dataviewjs\ndv.el('b', 1)\n```\n"),
            "x\n```text dataviewjs\ndv.el('b', 1)\n```\n"
        );
        assert_eq!(
            inert("~~~  dataview\nLIST\n~~~"),
            "~~~text dataview\nLIST\n~~~"
        );
        assert_eq!(inert("````js-engine\r\n"), "````text js-engine\r\n");
        assert_eq!(inert("x\r```dataviewjs\r"), "x\r```text dataviewjs\r");
        // inside a quote, a callout or a list item plugins run blocks too
        assert_eq!(inert("> ```dataviewjs\n"), "> ```text dataviewjs\n");
        assert_eq!(inert("  1. ```dataviewjs\n"), "  1. ```text dataviewjs\n");
        assert_eq!(inert("- ~~~dataview\n"), "- ~~~text dataview\n");
        // any language, since any plugin may claim one; bare fences and text blocks stay
        assert_eq!(inert("```python\n"), "```text python\n");
        assert_eq!(inert("```\ncode\n```"), "```\ncode\n```");
        assert_eq!(inert("```text\n"), "```text\n");
        // two backticks are no fence
        assert_eq!(inert("``dataviewjs``"), "``dataviewjs``");
    }

    #[test]
    fn dataview_inline_queries_are_escaped() {
        assert_eq!(
            inert("see `$= dv.current().file.name` here"),
            "see `\\$= dv.current().file.name` here"
        );
        assert_eq!(inert("` $=1+1 `"), "` \\$=1+1 `");
        assert_eq!(inert("``$=x``"), "``\\$=x``");
        assert_eq!(inert("`= this.file.name`"), "`\\= this.file.name`");
        // ordinary code and dollar amounts stay
        assert_eq!(inert("`ls -la` costs $= 5"), "`ls -la` costs $= 5");
    }

    #[test]
    fn active_html_is_escaped() {
        assert_eq!(
            inert("<script>alert(1)</script>"),
            "&lt;script>alert(1)&lt;/script>"
        );
        assert_eq!(
            inert("<IFRAME src=x></iframe>"),
            "&lt;IFRAME src=x>&lt;/iframe>"
        );
        assert_eq!(inert("<Script\n>"), "&lt;Script\n>");
        // other tags and comparisons stay
        assert_eq!(
            inert("<b>x</b> 1 < 2 <scripted>"),
            "<b>x</b> 1 < 2 <scripted>"
        );
        assert_eq!(inert("a <"), "a <");
    }

    #[test]
    fn one_line_folds_every_kind_of_break() {
        assert_eq!(
            one_line("Mallory\n---\r\nstatus: pwned\u{2028}x\u{85}y\t z"),
            "Mallory --- status: pwned x y z"
        );
        assert_eq!(one_line("  "), "");
    }

    proptest! {
        #[test]
        fn inert_text_holds_no_live_form_and_is_stable(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("```dataviewjs".to_string()),
                    Just("~~~dataview".to_string()),
                    Just("> ```js-engine".to_string()),
                    Just("`".to_string()),
                    Just("$=".to_string()),
                    Just("=".to_string()),
                    Just("<".to_string()),
                    Just("%".to_string()),
                    Just("/".to_string()),
                    Just("script".to_string()),
                    Just("IFRAME".to_string()),
                    Just("\n".to_string()),
                    Just("\r\n".to_string()),
                    Just("\r".to_string()),
                    Just(" ".to_string()),
                    Just("\\".to_string()),
                    "[a-z0-9 ]{0,6}",
                ],
                0..24,
            )
        ) {
            let text = parts.concat();
            let once = inert(&text);
            prop_assert!(live_forms(&once).is_empty(), "{:?} in {:?} from {:?}", live_forms(&once), once, text);
            prop_assert_eq!(inert(&once), once.clone());
            let line = one_line(&text);
            prop_assert!(!line.contains(['\n', '\r']));
            prop_assert_eq!(one_line(&line), line.clone());
            let both = inert(&line);
            prop_assert_eq!(inert(&one_line(&both)), both);
        }

        #[test]
        fn any_text_keeps_its_words(text in "\\PC{0,80}") {
            let once = inert(&text);
            prop_assert_eq!(inert(&once), once.clone());
            // only escapes are added: the letters and digits stay, in order
            let words = |s: &str| s.chars().filter(|c| c.is_alphanumeric()).collect::<String>();
            prop_assert_eq!(words(&once).replace("lt", "").replace("text", ""),
                words(&text).replace("lt", "").replace("text", ""));
        }
    }
}
