//! Math in a note body, where Obsidian reads no tag: display math `$$ … $$` (over lines too)
//! and inline math `$ … $` on one line.
//!
//! Inline math follows the rule Obsidian shares with Pandoc, so that prices are no math: the
//! opening `$` has a non-space character right after it, the closing `$` has one right before
//! it and no digit right after it (`$20 and $30` holds none). A `$` escaped with a backslash
//! opens and closes nothing. An unclosed `$$` or `$` is text.

use std::ops::Range;

/// Byte ranges of math in a body whose code and comments are already masked, delimiters
/// included; sorted, not overlapping.
pub(super) fn math_ranges(masked: &str) -> Vec<Range<usize>> {
    let b = masked.as_bytes();
    let dollars: Vec<usize> = memchr::memchr_iter(b'$', b)
        .filter(|&i| !escaped(b, i))
        .collect();
    if dollars.is_empty() {
        return Vec::new();
    }
    let display = display_ranges(b, &dollars);
    let mut out = display.clone();
    // inline math, line by line, outside display math
    let mut in_display = display.iter().peekable();
    let mut line_dollars: Vec<usize> = Vec::new();
    let mut line_end = 0;
    for &i in &dollars {
        while in_display.next_if(|r| r.end <= i).is_some() {}
        if in_display.peek().is_some_and(|r| r.start <= i) || is_double(b, i) {
            continue;
        }
        if i >= line_end {
            inline_ranges(b, &line_dollars, &mut out);
            line_dollars.clear();
            line_end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
        }
        line_dollars.push(i);
    }
    inline_ranges(b, &line_dollars, &mut out);
    out.sort_by_key(|r| r.start);
    out
}

/// Whether the byte at `i` follows an odd run of backslashes.
fn escaped(b: &[u8], i: usize) -> bool {
    b[..i].iter().rev().take_while(|&&c| c == b'\\').count() % 2 == 1
}

/// Whether the `$` at `i` is one of a `$$` pair (either byte).
fn is_double(b: &[u8], i: usize) -> bool {
    b.get(i + 1) == Some(&b'$') || (i > 0 && b[i - 1] == b'$' && !escaped(b, i - 1))
}

/// `$$ … $$`: each `$$` closes the one before it; a last one left alone is text. A run of
/// three or more `$` is read two at a time from its start.
fn display_ranges(b: &[u8], dollars: &[usize]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut open: Option<usize> = None;
    let mut k = 0;
    while k < dollars.len() {
        let i = dollars[k];
        if b.get(i + 1) != Some(&b'$') {
            k += 1;
            continue;
        }
        match open.take() {
            None => open = Some(i),
            Some(start) => out.push(start..i + 2),
        }
        // the second `$` of the pair is not escaped (a backslash does not precede it)
        k += 2;
    }
    out
}

/// Inline math among the single `$` of one line (`dollars`, in order): each opener is closed
/// by the next `$` that may close; one that finds none is text. Linear: the next closer of
/// every position is found once, right to left.
fn inline_ranges(b: &[u8], dollars: &[usize], out: &mut Vec<Range<usize>>) {
    let n = dollars.len();
    if n < 2 {
        return;
    }
    let mut next_closer = vec![usize::MAX; n];
    let mut following = usize::MAX;
    for k in (0..n).rev() {
        next_closer[k] = following;
        if closes(b, dollars[k]) {
            following = k;
        }
    }
    let mut k = 0;
    while k < n {
        let i = dollars[k];
        let c = next_closer[k];
        if opens(b, i) && c != usize::MAX {
            out.push(i..dollars[c] + 1);
            k = c + 1;
        } else {
            k += 1;
        }
    }
}

fn opens(b: &[u8], i: usize) -> bool {
    b.get(i + 1).is_some_and(|c| !c.is_ascii_whitespace())
}

fn closes(b: &[u8], i: usize) -> bool {
    i > 0 && !b[i - 1].is_ascii_whitespace() && !b.get(i + 1).is_some_and(u8::is_ascii_digit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn math(text: &str) -> Vec<&str> {
        math_ranges(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn inline_math_opens_on_a_non_space_and_closes_before_no_digit() {
        assert_eq!(math("m $a #ra b$ n"), vec!["$a #ra b$"]);
        assert_eq!(math("$#pb$ and $x$"), vec!["$#pb$", "$x$"]);
        assert!(math("costs $20 and $30, or $ 5 $").is_empty());
        assert_eq!(math("$a $b$"), vec!["$a $b$"]);
    }

    #[test]
    fn inline_math_stays_on_its_line() {
        assert!(math("$a\nb$").is_empty());
        assert_eq!(math("$a\n$b$"), vec!["$b$"]);
    }

    #[test]
    fn display_math_runs_over_lines() {
        assert_eq!(math("x $$ #rb $$ y"), vec!["$$ #rb $$"]);
        assert_eq!(math("$$\n#qd\n$$\n$t$"), vec!["$$\n#qd\n$$", "$t$"]);
        // unclosed: text, and no inline math made of its `$`
        assert!(math("$$ a #t").is_empty());
    }

    #[test]
    fn escaped_dollars_are_text() {
        assert!(math("\\$a #t$").is_empty());
        assert_eq!(math("\\\\$a$"), vec!["$a$"]);
        assert!(math("\\$$ #t $$").is_empty());
    }
}
