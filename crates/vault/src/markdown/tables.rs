//! GFM tables, found line by line: a `|` opens a cell there (`|#t|` holds a tag) and a
//! wikilink's display text must be written after `\|`.

use std::ops::Range;

/// The lines of GFM tables: a header row holding `|`, a delimiter row (`|---|:-:|`) with as
/// many cells, and the rows after it up to a blank line. Block-quote markers before a row are
/// skipped (tables in callouts). Line ranges without the line break, in order.
pub(super) fn table_rows(masked: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut prev: Option<Range<usize>> = None;
    let mut in_table = false;
    let mut pos = 0;
    while pos < masked.len() {
        let end =
            memchr::memchr(b'\n', &masked.as_bytes()[pos..]).map_or(masked.len(), |n| pos + n);
        let line = pos..end;
        pos = end + 1;
        let content = row_content(&masked[line.clone()]);
        if content.trim().is_empty() {
            in_table = false;
        } else if in_table {
            out.push(line.clone());
        } else if let Some(header) = &prev
            && is_delimiter_row(content)
            && cells(row_content(&masked[header.clone()])) == Some(cells(content).unwrap_or(0))
        {
            out.push(header.clone());
            out.push(line.clone());
            in_table = true;
        }
        prev = Some(line);
    }
    out
}

/// A line without its block-quote markers and leading spaces.
fn row_content(line: &str) -> &str {
    line.trim_start_matches(['>', ' ', '\t'])
}

/// Only `|`, `-`, `:` and spaces, with a `|` and a `-`.
fn is_delimiter_row(row: &str) -> bool {
    let row = row.trim_end_matches('\r');
    row.contains('|')
        && row.contains('-')
        && row
            .bytes()
            .all(|c| matches!(c, b'|' | b'-' | b':' | b' ' | b'\t'))
}

/// The cells of a row holding a `|`: the pieces between unescaped `|`, a leading and a
/// trailing one aside. `None` for a line without `|`.
fn cells(row: &str) -> Option<usize> {
    let row = row.trim_end_matches(['\r', ' ', '\t']);
    let bytes = row.as_bytes();
    let pipes: Vec<usize> = memchr::memchr_iter(b'|', bytes)
        .filter(|&p| p == 0 || bytes[p - 1] != b'\\')
        .collect();
    if pipes.is_empty() {
        return None;
    }
    let leading = usize::from(pipes.first() == Some(&0));
    let trailing = usize::from(pipes.last() == Some(&(bytes.len() - 1)) && bytes.len() > 1);
    Some(pipes.len() + 1 - leading - trailing)
}

/// Whether the byte at `at` of `text` is on a line of a GFM table.
pub(crate) fn in_table_row(text: &str, at: usize) -> bool {
    memchr::memchr(b'|', text.as_bytes()).is_some()
        && table_rows(text)
            .iter()
            .any(|r| r.start <= at && at <= r.end)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<&str> {
        table_rows(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn a_table_is_a_header_a_delimiter_row_and_rows_up_to_a_blank_line() {
        assert_eq!(
            rows("x\n|a|b|\n|:-|--:|\n|1|2|\n3|4\n\n|5|6|"),
            vec!["|a|b|", "|:-|--:|", "|1|2|", "3|4"]
        );
        assert_eq!(
            rows("> a | b\n> --|--\n> c | d"),
            vec!["> a | b", "> --|--", "> c | d"]
        );
    }

    #[test]
    fn cells_must_agree_and_a_rule_is_no_delimiter_row() {
        assert!(rows("|a|b|\n|-|\n").is_empty());
        assert!(rows("a\n---\n").is_empty());
        assert!(rows("|a\\|b|\n|-|-|\n").is_empty());
    }

    #[test]
    fn a_position_in_a_row() {
        let text = "see [[a]]\n\n|x|[[b]]|\n|-|-|\n";
        assert!(!in_table_row(text, 4));
        assert!(in_table_row(text, 14));
    }
}
