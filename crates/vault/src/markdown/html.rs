//! Raw HTML in a note body, where no tag is read.
//!
//! A `#` inside HTML markup is a colour (`style="color: #1a1a1a"`, `<font color=#fff>`), an
//! anchor (`href="#part"`) or an id selector, never a tag; the same holds for everything inside
//! a `<style>` or `<script>` element. Obsidian reads no tag inside an HTML element either
//! (`<td>#ff0000</td>`, `<span>#x</span>`): the text between an open tag and its closing tag,
//! in one paragraph, is left out too ([`element_ranges`]). Tags are recognised with
//! CommonMark's own grammar for an open or closing tag ([`super::code`] uses it to decide code
//! spans), so `a < b` or `<https://x>` is no HTML.

use std::ops::Range;

use rustc_hash::FxHashMap as HashMap;

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

/// The HTML elements of a body whose code is already masked: from an open tag to the closing
/// tag of the same name (compared without case, nested ones counted) in the same paragraph —
/// no blank line between them. An open tag never closed there, a self-closing or void one
/// (`<br>`, `<img …>`), and a closing tag without its open tag are left to [`html_ranges`].
/// `tags` are [`html_ranges`] of the same text. Sorted by start; they may nest.
pub(super) fn element_ranges(masked: &str, tags: &[Range<usize>]) -> Vec<Range<usize>> {
    let b = masked.as_bytes();
    let mut out = Vec::new();
    // the open tags not closed yet, innermost last: (name, where the tag starts)
    let mut open: Vec<(&[u8], usize)> = Vec::new();
    // how many of `open` have each (lower-cased) name: a closing tag without an open tag
    // of its name is answered without walking the stack, which keeps the pass linear
    let mut open_names: HashMap<Vec<u8>, usize> = HashMap::default();
    let mut last_end = 0;
    for r in tags {
        if has_blank_line(&b[last_end.min(r.start)..r.start]) {
            open.clear();
            open_names.clear();
        }
        last_end = r.end;
        let tag = &b[r.clone()];
        let closing = tag.get(1) == Some(&b'/');
        let name_at = if closing { 2 } else { 1 };
        let name_len = tag[name_at..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
            .count();
        let name = &tag[name_at..name_at + name_len];
        if name.is_empty() || raw_element(&tag[1..]).is_some() {
            continue;
        }
        let key = name.to_ascii_lowercase();
        if !closing {
            if !tag.ends_with(b"/>") {
                open.push((name, r.start));
                *open_names.entry(key).or_default() += 1;
            }
            continue;
        }
        if open_names.get(&key).copied().unwrap_or(0) == 0 {
            continue;
        }
        // pop up to the matching open tag: the elements left open inside it end with it
        while let Some((n, start)) = open.pop() {
            let k = n.to_ascii_lowercase();
            if let Some(c) = open_names.get_mut(&k) {
                *c = c.saturating_sub(1);
            }
            if k == key {
                out.push(start..r.end);
                break;
            }
        }
    }
    out.sort_by_key(|r| r.start);
    out
}

/// Whether `b` holds a blank line: a line break, then only spaces, tabs or a CR, then another.
fn has_blank_line(b: &[u8]) -> bool {
    let mut breaks = memchr::memchr_iter(b'\n', b);
    let Some(mut last) = breaks.next() else {
        return false;
    };
    for next in breaks {
        if b[last + 1..next]
            .iter()
            .all(|c| matches!(c, b' ' | b'\t' | b'\r'))
        {
            return true;
        }
        last = next;
    }
    false
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

    fn elements(text: &str) -> Vec<&str> {
        element_ranges(text, &html_ranges(text))
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn elements_from_open_to_closing_tag_in_one_paragraph() {
        assert_eq!(
            elements("a <td>#ff0000</td> <TD>x</td> <br> <img src=x/> b"),
            vec!["<td>#ff0000</td>", "<TD>x</td>"]
        );
        assert_eq!(
            elements("<b>x <i>y</i> z</b>"),
            vec!["<b>x <i>y</i> z</b>", "<i>y</i>"]
        );
        // an element left open inside another ends with it
        assert_eq!(elements("<p><b>x</p> #t"), vec!["<p><b>x</p>"]);
        assert_eq!(elements("<span>a\nb</span>"), vec!["<span>a\nb</span>"]);
        // no element over a blank line, and none from a stray closing tag
        assert!(elements("<span>a\n \nb</span>").is_empty());
        assert!(elements("</b> x <i>").is_empty());
    }

    #[test]
    fn comparisons_and_autolinks_are_no_html() {
        assert!(html("a < b and c<d, <https://x.y/#frag> <3 <-").is_empty());
    }
}
