//! Inline constructs that take precedence over a code span when they start first: raw HTML
//! that may run over lines (comments, CDATA, processing instructions, declarations), tags and
//! autolinks.

use super::blocks::is_space;

/// Inline raw HTML that may run over lines, by its opening and closing markers: comments,
/// CDATA sections, processing instructions and declarations (`<!` and a letter).
pub(super) const RAW: [(&[u8], &[u8]); 4] = [
    (b"<!--", b"-->"),
    (b"<![CDATA[", b"]]>"),
    (b"<?", b"?>"),
    (b"<!", b">"),
];

pub(super) fn raw_kind(from: &[u8]) -> Option<usize> {
    if from.starts_with(b"<!--") {
        Some(0)
    } else if from.starts_with(b"<![CDATA[") {
        Some(1)
    } else if from.starts_with(b"<?") {
        Some(2)
    } else if from.starts_with(b"<!") && from.get(2).is_some_and(u8::is_ascii_alphabetic) {
        Some(3)
    } else {
        None
    }
}

/// The length of an HTML open or closing tag at the start of `b` (which starts with `<`), on
/// one line: `<name attr="v" attr='v' attr=v attr>`, `<name/>`, `</name>`.
pub(in crate::markdown) fn html_tag_len(b: &[u8]) -> Option<usize> {
    let mut i = 1;
    let closing = b.get(i) == Some(&b'/');
    if closing {
        i += 1;
    }
    if !b.get(i).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    while b
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'-')
    {
        i += 1;
    }
    let ws = |i: &mut usize| {
        let s = *i;
        while b.get(*i).is_some_and(|&c| is_space(c)) {
            *i += 1;
        }
        *i > s
    };
    if !closing {
        loop {
            let had_ws = ws(&mut i);
            match b.get(i) {
                Some(b'/' | b'>') | None => break,
                Some(c) if had_ws && (c.is_ascii_alphabetic() || *c == b'_' || *c == b':') => {
                    i += 1;
                    while b.get(i).is_some_and(|c| {
                        c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b':' | b'-')
                    }) {
                        i += 1;
                    }
                    // an optional value
                    let save = i;
                    ws(&mut i);
                    if b.get(i) == Some(&b'=') {
                        i += 1;
                        ws(&mut i);
                        match b.get(i) {
                            Some(&q @ (b'"' | b'\'')) => {
                                let close = memchr::memchr(q, &b[i + 1..])?;
                                i += close + 2;
                            }
                            Some(_) => {
                                let s = i;
                                while b.get(i).is_some_and(|c| {
                                    !matches!(
                                        c,
                                        b'"' | b'\''
                                            | b'='
                                            | b'<'
                                            | b'>'
                                            | b'`'
                                            | b' '
                                            | b'\t'
                                            | 0x0b
                                            | 0x0c
                                    )
                                }) {
                                    i += 1;
                                }
                                if i == s {
                                    return None;
                                }
                            }
                            None => return None,
                        }
                    } else {
                        i = save;
                    }
                }
                Some(_) => return None,
            }
        }
        if b.get(i) == Some(&b'/') {
            i += 1;
        }
    } else {
        ws(&mut i);
    }
    (b.get(i) == Some(&b'>')).then_some(i + 1)
}

/// The length of an email autolink at the start of `b`: `<local@domain>`, CommonMark's
/// characters for the local part (a backtick among them) and labels of up to 63 letters,
/// digits and inner hyphens.
pub(super) fn email_autolink_len(b: &[u8]) -> Option<usize> {
    let local = b[1..]
        .iter()
        .take_while(|&&c| c.is_ascii_alphanumeric() || b".!#$%&'*+/=?^_`{|}~-".contains(&c))
        .count();
    let mut i = 1 + local;
    if local == 0 || b.get(i) != Some(&b'@') {
        return None;
    }
    i += 1;
    loop {
        let label = b[i..]
            .iter()
            .take_while(|&&c| c.is_ascii_alphanumeric() || c == b'-')
            .count();
        if label == 0 || label > 63 || b[i] == b'-' || b[i + label - 1] == b'-' {
            return None;
        }
        i += label;
        if b.get(i) != Some(&b'.') {
            break;
        }
        i += 1;
    }
    (b.get(i) == Some(&b'>')).then_some(i + 1)
}

/// The length of a URI autolink at the start of `b`: `<scheme:…>`, the scheme 2–32 characters,
/// no space, `<` or control character inside; or of an email autolink.
pub(super) fn autolink_len(b: &[u8]) -> Option<usize> {
    if let Some(len) = email_autolink_len(b) {
        return Some(len);
    }
    if !b.get(1).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let scheme = b[1..]
        .iter()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'.' | b'-'))
        .count();
    if !(2..=32).contains(&scheme) || b.get(1 + scheme) != Some(&b':') {
        return None;
    }
    let rest = &b[2 + scheme..];
    let end = rest
        .iter()
        .position(|&c| c <= b' ' || c == b'<' || c == b'>')?;
    (rest[end] == b'>').then_some(2 + scheme + end + 1)
}
