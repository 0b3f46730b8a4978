//! Inline `#tags`, as Obsidian's metadata cache reads them (the vault spec's rules, from a
//! read-back of Obsidian 1.13.7).
//!
//! A tag is `#`, then one or more characters that are neither whitespace nor ASCII punctuation
//! other than `-`, `_` and `/`, not all digits (`#1984` is none). The `#` must begin the line
//! (or a quote's content), follow whitespace (NBSP and U+3000 are whitespace), follow `_`, end
//! another tag (`#a#b`, `#a/#b`), or open a table cell (`|#t|`); any other character before it
//! blocks it — `(#t)`, `"#t"`, `.#t`, `x—#t`, `\#t`. A tag opened right after an emphasis `_`
//! ends before the `_` that closes it (`_#t_` is `t`).
//!
//! No tag is read inside code or comments (masked before), math ([`super::math`]), raw HTML —
//! tags, elements and HTML blocks ([`super::html`], [`super::code`]) — a wikilink, or the
//! destination of a Markdown link. The text of a Markdown link holds tags (`[talk #t](url)`),
//! as a table cell does.

use std::ops::Range;

use super::tables::table_rows;
use super::{FIND_MD_LINK, MdLinkScanner, code, html, math, wikilinks};

fn is_tag_char(c: char) -> bool {
    !(c.is_whitespace() || (c.is_ascii_punctuation() && c != '-' && c != '_' && c != '/'))
}

/// The inline tags of a note body whose frontmatter, code and comments are masked (see
/// `mask_body`): each tag's span from its `#`, and its name without the `#`.
pub fn inline_tags(masked: &str) -> Vec<(Range<usize>, String)> {
    let b = masked.as_bytes();
    let mut out = Vec::new();
    // Most notes hold a `#` only in headings (`# Title`) or URLs (`page#part`): nothing to
    // look at closer, HTML and math unread. The first tag of a run (`#a#b`) starts after one of
    // these characters, so a note where no `#` does holds no tag.
    let may_hold_tags = memchr::memchr_iter(b'#', b).any(|i| {
        masked[..i]
            .chars()
            .next_back()
            .is_none_or(|c| c.is_whitespace() || matches!(c, '_' | '|' | '>'))
            && masked[i + 1..].chars().next().is_some_and(is_tag_char)
    });
    if !may_hold_tags {
        return out;
    }
    let excluded = excluded_ranges(masked);
    let tables = if memchr::memchr(b'|', b).is_some() {
        table_rows(masked)
    } else {
        Vec::new()
    };
    let mut excluded = excluded.iter().peekable();
    let mut tables = tables.iter().peekable();
    let mut last_end = usize::MAX;
    for i in memchr::memchr_iter(b'#', b) {
        while excluded.next_if(|r| r.end <= i).is_some() {}
        if excluded.peek().is_some_and(|r| r.start <= i) {
            continue;
        }
        while tables.next_if(|r| r.end < i).is_some() {}
        let in_table = tables.peek().is_some_and(|r| r.start <= i);
        let Some(opener) = starts_tag(masked, i, i == last_end, in_table) else {
            continue;
        };
        let start = i + 1;
        let rest = &masked[start..];
        let mut len = rest.find(|d: char| !is_tag_char(d)).unwrap_or(rest.len());
        if opener > 0 {
            // the emphasis opened by the `_` run before `#` closes with the tag's last `_`
            let closing = rest[..len].bytes().rev().take_while(|&c| c == b'_').count();
            len -= closing.min(opener);
        }
        let tag = &rest[..len];
        if !tag.is_empty() && !tag.bytes().all(|d| d.is_ascii_digit()) {
            out.push((i..start + len, tag.to_string()));
            last_end = start + len;
        }
    }
    out
}

/// Whether the `#` at `i` may start a tag: `Some(n)` when it may, `n` being the length of the
/// run of `_` before it that can open emphasis (0 for none).
fn starts_tag(masked: &str, i: usize, after_tag: bool, in_table: bool) -> Option<usize> {
    let before = &masked[..i];
    let Some(prev) = before.chars().next_back() else {
        return Some(0);
    };
    if after_tag || prev.is_whitespace() {
        return Some(0);
    }
    match prev {
        '_' => {
            let run = before.bytes().rev().take_while(|&c| c == b'_').count();
            // an intraword `_` (`snake_#t`) opens no emphasis
            let opens = before[..i - run]
                .chars()
                .next_back()
                .is_none_or(|c| c.is_whitespace() || c.is_ascii_punctuation());
            Some(if opens { run } else { 0 })
        }
        '|' if in_table && !before[..i - 1].ends_with('\\') => Some(0),
        // `>#t`: the `#` begins a block quote's content
        '>' => {
            // only markers and spaces back to the line start (walked back over them alone,
            // so that a line of many `>#` stays linear)
            let markers = before
                .bytes()
                .rev()
                .take_while(|c| matches!(c, b'>' | b' ' | b'\t'))
                .count();
            matches!(
                before[..i - markers].bytes().next_back(),
                None | Some(b'\n')
            )
            .then_some(0)
        }
        _ => None,
    }
}

/// Where no tag is read, sorted by start (they may overlap): raw HTML, math, wikilinks and
/// Markdown link destinations.
fn excluded_ranges(masked: &str) -> Vec<Range<usize>> {
    let b = masked.as_bytes();
    let mut out = Vec::new();
    if memchr::memchr(b'<', b).is_some() {
        let tags = html::html_ranges(masked);
        out.extend(html::element_ranges(masked, &tags));
        out.extend(tags);
        out.extend(code::html_block_ranges(masked));
    }
    if memchr::memchr(b'$', b).is_some() {
        out.extend(math::math_ranges(masked));
    }
    if memchr::memchr(b'[', b).is_some() {
        // a `#` inside `[[…]]` is a heading or a word of the target
        out.extend(wikilinks(masked).into_iter().map(|l| l.span));
        if FIND_MD_LINK.find(b).is_some() {
            // the link text (up to its only `]`) holds tags; the destination does not
            out.extend(MdLinkScanner::new(masked).map(|m| {
                let close = memchr::memchr(b']', &b[m.whole.start..m.whole.end])
                    .map_or(m.whole.start, |c| m.whole.start + c);
                close..m.whole.end
            }));
        }
    }
    out.sort_by_key(|r| r.start);
    merge(out)
}

/// Sorted ranges merged where they overlap, so that a scan can walk them in order.
fn merge(sorted: Vec<Range<usize>>) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(sorted.len());
    for r in sorted {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests;
