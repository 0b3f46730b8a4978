//! Raw HTML in a note body, where no tag is read.
//!
//! A `#` inside HTML markup is a colour (`style="color: #1a1a1a"`, `<font color=#fff>`), an
//! anchor (`href="#part"`) or an id selector, never a tag; the same holds for everything inside
//! a `<style>` or `<script>` element. Text between ordinary elements (`<b>#tag</b>`) is prose
//! and keeps its tags. Tags are recognised with CommonMark's own grammar for an open or closing
//! tag ([`super::code`] uses it to decide code spans), so `a < b` or `<https://x>` is no HTML.

use std::ops::Range;

use super::code::html_tag_len;

/// Elements whose whole content is not Markdown: CSS and scripts.
const RAW_ELEMENTS: [&[u8]; 2] = [b"style", b"script"];

/// Byte ranges of raw HTML in a body whose code is already masked: each open or closing tag,
/// attributes included, and each `<style>`/`<script>` element from its open tag to the end of
/// its closing tag (to the end of the text when it is never closed, as CommonMark reads it).
/// Sorted, not overlapping.
pub fn html_ranges(masked: &str) -> Vec<Range<usize>> {
    let b = masked.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(open) = memchr::memchr(b'<', &b[from..]).map(|p| p + from) {
        let Some(len) = html_tag_len(&b[open..]) else {
            from = open + 1;
            continue;
        };
        let mut end = open + len;
        if let Some(name) = raw_element(&b[open + 1..]) {
            end = closing_tag_end(b, end, name).unwrap_or(b.len());
        }
        out.push(open..end);
        from = end;
    }
    out
}

/// The raw element an open tag (the bytes after `<`) starts, if any.
fn raw_element(tag: &[u8]) -> Option<&'static [u8]> {
    RAW_ELEMENTS.into_iter().find(|name| {
        tag.len() > name.len()
            && tag[..name.len()].eq_ignore_ascii_case(name)
            && !tag[name.len()].is_ascii_alphanumeric()
            && tag[name.len()] != b'-'
    })
}

/// The end of the first `</name …>` at or after `from`, compared without case.
fn closing_tag_end(b: &[u8], from: usize, name: &[u8]) -> Option<usize> {
    let mut at = from;
    while let Some(p) = memchr::memmem::find(&b[at..], b"</").map(|p| p + at) {
        let rest = &b[p + 2..];
        if rest.len() >= name.len()
            && rest[..name.len()].eq_ignore_ascii_case(name)
            && let Some(len) = html_tag_len(&b[p..])
        {
            return Some(p + len);
        }
        at = p + 2;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn html(text: &str) -> Vec<&str> {
        html_ranges(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn tags_with_their_attributes() {
        assert_eq!(
            html("a <span style=\"color: #1a1a1a\">b</span> <font color=#fff>c"),
            vec![
                "<span style=\"color: #1a1a1a\">",
                "</span>",
                "<font color=#fff>"
            ]
        );
        assert_eq!(
            html("<a  href='#part'>x</a>"),
            vec!["<a  href='#part'>", "</a>"]
        );
    }

    #[test]
    fn style_and_script_elements_whole() {
        let css = "<style>\n#main { color: #ffcc00; }\n</STYLE>\n#after";
        assert_eq!(
            html(css),
            vec!["<style>\n#main { color: #ffcc00; }\n</STYLE>"]
        );
        assert_eq!(
            html("<script type=x>let a = '#b'")[0],
            "<script type=x>let a = '#b'"
        );
        // `<styles>` is another element
        assert_eq!(html("<styles>#x"), vec!["<styles>"]);
    }

    #[test]
    fn comparisons_and_autolinks_are_no_html() {
        assert!(html("a < b and c<d, <https://x.y/#frag> <3 <-").is_empty());
    }
}
