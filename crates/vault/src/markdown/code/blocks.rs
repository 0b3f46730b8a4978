//! The starts of CommonMark's leaf blocks, read from the rest of a line after its containers:
//! headings, fences, thematic breaks, list markers and HTML blocks.

use super::inline::html_tag_len;

/// Whitespace within a line: space, tab, vertical tab, form feed.
pub(super) fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | 0x0b | 0x0c)
}

/// An ATX heading line (`#` to `######`, then a space, a tab or the end): where its content
/// starts, relative to the line.
pub(super) fn atx_heading(rest: &[u8]) -> Option<usize> {
    let hashes = rest.iter().take_while(|&&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    match rest.get(hashes) {
        None => Some(hashes),
        Some(b' ' | b'\t') => Some(hashes + 1),
        Some(_) => None,
    }
}

/// An opening code fence: (character, run length). A backtick fence whose info string holds a
/// backtick is not a fence.
pub(super) fn fence_open(rest: &[u8]) -> Option<(u8, usize)> {
    let ch = *rest.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let run = rest.iter().take_while(|&&b| b == ch).count();
    if run < 3 || (ch == b'`' && memchr::memchr(b'`', &rest[run..]).is_some()) {
        return None;
    }
    Some((ch, run))
}

/// A setext heading underline: `=` or `-` repeated, then only spaces or tabs.
pub(super) fn setext_underline(rest: &[u8]) -> bool {
    let Some(&ch) = rest.first() else {
        return false;
    };
    if ch != b'=' && ch != b'-' {
        return false;
    }
    let run = rest.iter().take_while(|&&b| b == ch).count();
    rest[run..].iter().all(|&b| b == b' ' || b == b'\t')
}

/// Three or more `*`, `-` or `_` (the same one), with only spaces or tabs between.
pub(super) fn thematic_break(rest: &[u8]) -> bool {
    let Some(&ch) = rest.first() else {
        return false;
    };
    if !matches!(ch, b'*' | b'-' | b'_') {
        return false;
    }
    let mut count = 0;
    for &b in rest {
        if b == ch {
            count += 1;
        } else if b != b' ' && b != b'\t' {
            return false;
        }
    }
    count >= 3
}

/// A list item marker at the start of `rest`: (marker width in bytes, whether nothing follows).
/// When the item would interrupt a paragraph, it must not be empty and an ordered one must
/// start at 1.
pub(super) fn list_marker(rest: &[u8], interrupts_para: bool) -> Option<(usize, bool)> {
    let first = *rest.first()?;
    let (marker, ordered_one) = match first {
        b'-' | b'+' | b'*' => (1, true),
        b'0'..=b'9' => {
            let digits = rest
                .iter()
                .take(10)
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits > 9 {
                return None;
            }
            if !matches!(rest.get(digits), Some(b'.' | b')')) {
                return None;
            }
            let value = rest[..digits]
                .iter()
                .fold(0u64, |v, &d| v * 10 + u64::from(d - b'0'));
            (digits + 1, value == 1)
        }
        _ => return None,
    };
    let after = &rest[marker..];
    let blank_after = after.iter().all(|&b| is_space(b));
    if !blank_after && !matches!(after[0], b' ' | b'\t') {
        return None;
    }
    if interrupts_para && (blank_after || !ordered_one) {
        return None;
    }
    Some((marker, blank_after))
}

pub(super) const BLOCK_TAGS: [&[u8]; 62] = [
    b"address",
    b"article",
    b"aside",
    b"base",
    b"basefont",
    b"blockquote",
    b"body",
    b"caption",
    b"center",
    b"col",
    b"colgroup",
    b"dd",
    b"details",
    b"dialog",
    b"dir",
    b"div",
    b"dl",
    b"dt",
    b"fieldset",
    b"figcaption",
    b"figure",
    b"footer",
    b"form",
    b"frame",
    b"frameset",
    b"h1",
    b"h2",
    b"h3",
    b"h4",
    b"h5",
    b"h6",
    b"head",
    b"header",
    b"hr",
    b"html",
    b"iframe",
    b"legend",
    b"li",
    b"link",
    b"main",
    b"menu",
    b"menuitem",
    b"nav",
    b"noframes",
    b"ol",
    b"optgroup",
    b"option",
    b"p",
    b"param",
    b"search",
    b"section",
    b"summary",
    b"table",
    b"tbody",
    b"td",
    b"tfoot",
    b"th",
    b"thead",
    b"title",
    b"tr",
    b"track",
    b"ul",
];

pub(super) const RAW_TAGS: [&[u8]; 4] = [b"pre", b"script", b"style", b"textarea"];

pub(super) fn starts_with_ci(hay: &[u8], needle: &[u8]) -> bool {
    hay.len() >= needle.len() && hay[..needle.len()].eq_ignore_ascii_case(needle)
}

/// The kind (1–7) of HTML block `rest` (starting with `<`) opens, per CommonMark. Kind 7 (any
/// complete tag alone on its line) cannot interrupt a paragraph.
pub(super) fn html_block_start(rest: &[u8], in_para: bool) -> Option<u8> {
    let t = &rest[1..];
    for tag in RAW_TAGS {
        if starts_with_ci(t, tag) && matches!(t.get(tag.len()), None | Some(b' ' | b'\t' | b'>')) {
            return Some(1);
        }
    }
    if t.starts_with(b"!--") {
        return Some(2);
    }
    if t.starts_with(b"?") {
        return Some(3);
    }
    if t.first() == Some(&b'!') && t.get(1).is_some_and(u8::is_ascii_alphabetic) {
        return Some(4);
    }
    if t.starts_with(b"![CDATA[") {
        return Some(5);
    }
    let name_at = usize::from(t.first() == Some(&b'/'));
    let name_len = t[name_at..]
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    let name = &t[name_at..name_at + name_len];
    if name_len > 0 && BLOCK_TAGS.iter().any(|b| b.eq_ignore_ascii_case(name)) {
        let after = &t[name_at + name_len..];
        if after.is_empty() || matches!(after[0], b' ' | b'\t' | b'>') || after.starts_with(b"/>") {
            return Some(6);
        }
    }
    if !in_para && complete_tag_line(rest) {
        return Some(7);
    }
    None
}

/// Whether a line of an HTML block of kind 1–5 holds the kind's end marker.
pub(super) fn html_block_ends(kind: u8, line: &[u8]) -> bool {
    let has = |needle: &[u8]| memchr::memmem::find(line, needle).is_some();
    match kind {
        1 => {
            // case-insensitive search for the four closing tags
            line.windows(2).enumerate().any(|(i, w)| {
                w == b"</"
                    && [
                        &b"pre>"[..],
                        &b"script>"[..],
                        &b"style>"[..],
                        &b"textarea>"[..],
                    ]
                    .iter()
                    .any(|t| starts_with_ci(&line[i + 2..], t))
            })
        }
        2 => has(b"-->"),
        3 => has(b"?>"),
        4 => has(b">"),
        5 => has(b"]]>"),
        _ => false,
    }
}

/// A complete open or closing tag, then only spaces or tabs (CommonMark's HTML block kind 7).
pub(super) fn complete_tag_line(rest: &[u8]) -> bool {
    html_tag_len(rest).is_some_and(|len| rest[len..].iter().all(|&c| is_space(c)))
}
