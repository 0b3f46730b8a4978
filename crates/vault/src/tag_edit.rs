//! Renaming tags inside a note's text, changing no other byte.
//!
//! A tag is written in two places: inline in the body (`#tag`, read exactly as a note reads it,
//! [`markdown::inline_tags`]: never in code, comments, math, raw HTML, a wikilink or a link
//! destination, never after punctuation) and in the frontmatter's `tags`/`tag` key (any case),
//! as a block list, a flow list, or a string of words split on commas and spaces. Every other
//! `#` — a colour in an HTML table, a heading in `[[Note#Part]]` — is left alone.
//!
//! A rename is kept only when the edited note reads back as the same tags, in the same order,
//! each one either unchanged or renamed as asked; anything the scanner here could misread in
//! YAML is thus refused rather than written.

use std::ops::Range;

use crate::markdown::{self, split_frontmatter};
use crate::note::Note;

/// Where one tag is written in a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagSpot {
    /// Byte range of the tag's name in the note, without `#` or quotes.
    pub range: Range<usize>,
    /// Whether it is written in the frontmatter (else inline in the body).
    pub in_frontmatter: bool,
}

/// Every tag written in `text`: the items of the frontmatter's `tags`/`tag` key, then the
/// inline tags of the body, in text order within each.
pub fn tag_spots(text: &str) -> Vec<TagSpot> {
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body_text = &text[bom..];
    let block = split_frontmatter(body_text);
    let mut out = Vec::new();
    if let Some(b) = &block {
        let yaml = b.yaml.start + bom..b.yaml.end + bom;
        for r in frontmatter_tag_ranges(text, yaml) {
            out.push(TagSpot {
                range: r,
                in_frontmatter: true,
            });
        }
    }
    let body_start = bom + block.as_ref().map_or(0, |b| b.block.end);
    let masked = markdown::mask_body(&text[body_start..]);
    for (span, _) in markdown::inline_tags(&masked) {
        // the span starts at `#`
        out.push(TagSpot {
            range: body_start + span.start + 1..body_start + span.end,
            in_frontmatter: false,
        });
    }
    out
}

/// The outcome of [`rename_tags`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Renamed {
    /// The note's new text.
    pub text: String,
    /// How many written tags were renamed.
    pub count: usize,
}

/// Why a rename was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenameRefused {
    /// The edited note would not read back as the same tags renamed (YAML the scanner cannot
    /// edit safely, for one).
    #[error("the edited note would not read back as the same tags renamed")]
    ReadsBackDifferently,
}

/// Renames the tags of a note: each written tag for which `rename` gives a new name is replaced
/// by it, every other byte is kept. `Ok(None)` when nothing is to be renamed.
pub fn rename_tags(
    text: &str,
    rename: impl Fn(&str) -> Option<String>,
) -> Result<Option<Renamed>, RenameRefused> {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    let mut count = 0;
    for spot in tag_spots(text) {
        let Some(new) = rename(&text[spot.range.clone()]) else {
            continue;
        };
        if new == text[spot.range.clone()] {
            continue;
        }
        out.push_str(&text[last..spot.range.start]);
        out.push_str(&new);
        last = spot.range.end;
        count += 1;
    }
    if count == 0 {
        return Ok(None);
    }
    out.push_str(&text[last..]);
    let before = Note::parse_text("note.md", text);
    let after = Note::parse_text("note.md", &out);
    let reads_back = before.frontmatter == after.frontmatter
        && before.tags.len() == after.tags.len()
        && before
            .tags
            .iter()
            .zip(&after.tags)
            .all(|(b, a)| a == b || rename(b).is_some_and(|r| r == *a));
    if !reads_back {
        return Err(RenameRefused::ReadsBackDifferently);
    }
    Ok(Some(Renamed { text: out, count }))
}

/// Byte ranges of the tag names in the `tags`/`tag` entries of the YAML at `yaml` in `text`.
fn frontmatter_tag_ranges(text: &str, yaml: Range<usize>) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut lines = line_ranges(text, yaml).peekable();
    while let Some(line) = lines.next() {
        let Some(value) = tags_key_value(text, line.clone()) else {
            continue;
        };
        let value = trim_range(text, cut_comment(text, value));
        if value.is_empty() {
            // a block list: the indented (or flush) `- item` lines that follow
            while let Some(next) = lines.peek().cloned() {
                let l = &text[next.clone()];
                let content = l.trim_start_matches([' ', '\t']);
                if l.trim().is_empty() || content.starts_with('#') {
                    lines.next();
                    continue;
                }
                let Some(item) = content.strip_prefix('-') else {
                    break;
                };
                if !(item.is_empty() || item.starts_with([' ', '\t', '\r'])) {
                    break;
                }
                let at = next.end - item.len();
                let item = trim_range(text, cut_comment(text, at..next.end));
                scalar_words(text, item, false, &mut out);
                lines.next();
            }
        } else if text[value.clone()].starts_with('[') {
            flow_items(text, value.start + 1..value.end, &mut out);
        } else {
            scalar_words(text, value, true, &mut out);
        }
    }
    out
}

/// The lines of `text` within `within`, without their line breaks (`\r` included).
fn line_ranges(text: &str, within: Range<usize>) -> impl Iterator<Item = Range<usize>> + '_ {
    let end = within.end;
    let mut pos = within.start;
    std::iter::from_fn(move || {
        if pos >= end {
            return None;
        }
        let stop = text[pos..end].find('\n').map_or(end, |i| pos + i);
        let line = pos..stop;
        pos = stop + 1;
        let l = &text[line.clone()];
        Some(line.start..line.start + l.trim_end_matches('\r').len())
    })
}

/// The value part of a top-level `tags:`/`tag:` line (key in any case, maybe quoted).
fn tags_key_value(text: &str, line: Range<usize>) -> Option<Range<usize>> {
    let l = &text[line.clone()];
    if l.starts_with([' ', '\t', '-', '#']) {
        return None;
    }
    let colon = l.find(':')?;
    let key = l[..colon].trim().trim_matches(['"', '\'']);
    let after = &l[colon + 1..];
    let is_tags = key.eq_ignore_ascii_case("tags") || key.eq_ignore_ascii_case("tag");
    (is_tags && (after.is_empty() || after.starts_with([' ', '\t'])))
        .then(|| line.start + colon + 1..line.end)
}

/// `r` up to a YAML comment (` #` outside quotes).
fn cut_comment(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let mut quote: Option<char> = None;
    let mut prev_space = true;
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && prev_space => return r.start..r.start + i,
            None => {}
        }
        prev_space = c == ' ' || c == '\t';
    }
    r
}

fn trim_range(text: &str, r: Range<usize>) -> Range<usize> {
    let s = &text[r.clone()];
    let start = r.start + (s.len() - s.trim_start().len());
    start..start + text[start..r.end].trim_end().len()
}

/// The tag names of one scalar: inside its quotes, and split on commas and spaces when it is
/// the whole value of the key (a list item is one tag).
fn scalar_words(text: &str, r: Range<usize>, split: bool, out: &mut Vec<Range<usize>>) {
    let s = &text[r.clone()];
    let inner = match s.chars().next() {
        Some(q @ ('"' | '\'')) if s.len() >= 2 && s.ends_with(q) => r.start + 1..r.end - 1,
        Some('"' | '\'' | '{' | '[' | '|' | '>' | '&' | '*' | '!') => return,
        Some(_) => r,
        None => return,
    };
    let inner_text = &text[inner.clone()];
    if inner_text.contains(['\\', '"', '\'']) {
        return;
    }
    let mut push = |w: Range<usize>| {
        let w = trim_range(text, w);
        let w = if text[w.clone()].starts_with('#') {
            w.start + 1..w.end
        } else {
            w
        };
        if !w.is_empty() {
            out.push(w);
        }
    };
    if !split {
        push(inner);
        return;
    }
    let mut start = inner.start;
    for (i, c) in inner_text.char_indices() {
        if c == ',' || c == ' ' {
            push(start..inner.start + i);
            start = inner.start + i + 1;
        }
    }
    push(start..inner.end);
}

/// The items of a flow list `[a, "b", c]` that starts just before `r` and closes on its line.
fn flow_items(text: &str, r: Range<usize>, out: &mut Vec<Range<usize>>) {
    let s = &text[r.clone()];
    let Some(close) = s.rfind(']') else {
        return;
    };
    let mut start = r.start;
    let end = r.start + close;
    for (i, c) in text[start..end].char_indices() {
        if c == ',' {
            let item = trim_range(text, start..r.start + i);
            scalar_words(text, item, false, out);
            start = r.start + i + 1;
        }
    }
    let item = trim_range(text, start..end);
    scalar_words(text, item, false, out);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn spots(text: &str) -> Vec<&str> {
        tag_spots(text)
            .into_iter()
            .map(|s| &text[s.range])
            .collect()
    }

    fn lower(t: &str) -> Option<String> {
        Some(t.to_lowercase())
    }

    #[test]
    fn finds_tags_in_every_frontmatter_form() {
        let text = "---\ntitle: x\nTags:\n  - One\n  - \"#Two\" # c\nTAG: [Four, 'Five']\nother: [Six]\n---\nbody #Seven\n";
        assert_eq!(spots(text), vec!["One", "Two", "Four", "Five", "Seven"]);
        assert_eq!(spots("---\ntags:\n- Flush\nx: 1\n---\n"), vec!["Flush"]);
        let text = "---\ntags: Alpha, Beta #gamma\n---\n";
        assert_eq!(spots(text), vec!["Alpha", "Beta"]);
    }

    #[test]
    fn skips_code_comments_html_math_and_wikilinks() {
        let text = "#Keep `#Code` %% #Hidden %% <!-- #Gone -->\n```\n#Fenced\n```\n\
            [[Note#Part]] [[A #Link]] [see #Here](x.md#Dest) <b style=\"color: #FFF\"> #Also</b>\n\
            $x #Math$ (#Paren) \\#Escaped\n<table><tr><td>#ff0000</td></tr></table>\n";
        assert_eq!(spots(text), vec!["Keep", "Here"]);
    }

    #[test]
    fn a_rename_never_touches_a_hash_that_is_no_tag() {
        let text = "<table>\n<tr><td>#FF0000</td></tr>\n</table>\n\n\
            #FF0000 $#FF0000$ (#FF0000) <span>#FF0000</span> x#FF0000 |#FF0000|\n\
            |a|b|\n|-|-|\n|#FF0000|_#FF0000_|\n";
        let done = rename_tags(text, lower).expect("safe").expect("changed");
        assert_eq!(
            done.text,
            "<table>\n<tr><td>#FF0000</td></tr>\n</table>\n\n\
            #ff0000 $#FF0000$ (#FF0000) <span>#FF0000</span> x#FF0000 |#FF0000|\n\
            |a|b|\n|-|-|\n|#ff0000|_#ff0000_|\n"
        );
        assert_eq!(done.count, 3);
    }

    #[test]
    fn renames_only_tag_bytes() {
        let text = "---\r\ntags: [MOC, Other]\r\n---\r\nSee #MOC and #Moc/Sub, `#MOC`.\r\n";
        let done = rename_tags(text, |t| match t {
            "MOC" => Some("moc".into()),
            "Moc/Sub" => Some("moc/Sub".into()),
            _ => None,
        })
        .expect("safe")
        .expect("changed");
        assert_eq!(
            done.text,
            "---\r\ntags: [moc, Other]\r\n---\r\nSee #moc and #moc/Sub, `#MOC`.\r\n"
        );
        assert_eq!(done.count, 3);
        assert_eq!(
            rename_tags(&done.text, lower).map(|r| r.is_some()),
            Ok(true)
        );
        assert_eq!(rename_tags("no tags here", lower), Ok(None));
    }

    #[test]
    fn refuses_what_would_read_back_differently() {
        // the item goes on over two lines: renaming its first word is no rename of the tag
        let text = "---\ntags:\n  - Tag\n    More\n---\n";
        let only_tag = |t: &str| (t == "Tag").then(|| "tag".to_string());
        assert_eq!(
            rename_tags(text, only_tag),
            Err(RenameRefused::ReadsBackDifferently)
        );
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("#Tag ".to_string()),
            Just("#tag_x/Sub ".to_string()),
            Just("`#Tag` ".to_string()),
            Just("\n```\n#Tag\n```\n".to_string()),
            Just("[[N#Tag]] ".to_string()),
            Just("[a #Tag](b.md) ".to_string()),
            Just("<i style=\"color:#ABC\"> ".to_string()),
            Just("%% #Tag %% ".to_string()),
            Just("x#Tag ".to_string()),
            Just("#1984 ".to_string()),
            Just("<td>#Tag</td>".to_string()),
            Just("\n<div>\n#Tag\n".to_string()),
            Just("$#Tag$ $$ #Tag $$".to_string()),
            Just("(#Tag) \\#Tag ".to_string()),
            Just("#Tag#Tag_x/#Tag ".to_string()),
            Just("_#Tag_ ".to_string()),
            Just("\n|a|b|\n|-|-|\n|#Tag|x|\n".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            "[a-zA-Z #_/-]{0,8}",
        ]
    }

    fn frontmatter() -> impl Strategy<Value = String> {
        prop_oneof![
            Just(String::new()),
            Just("---\ntags: [Tag, other]\n---\n".to_string()),
            Just("---\ntags:\n  - Tag\n  - \"#tag_x/Sub\"\n---\n".to_string()),
            Just("---\ntag: Tag, TAG other\n---\n".to_string()),
            Just("---\ntitle: Tag\n---\n".to_string()),
        ]
    }

    proptest! {
        /// Outside the written tags nothing changes, and a second pass changes nothing.
        #[test]
        fn touches_only_tag_bytes_and_is_idempotent(
            fm in frontmatter(),
            body in proptest::collection::vec(piece(), 0..12),
        ) {
            let text = format!("{fm}{}", body.concat());
            let rename = |t: &str| {
                let want = t.to_lowercase().replace('_', "-");
                (want != t).then_some(want)
            };
            let Ok(Some(done)) = rename_tags(&text, rename) else {
                return Ok(());
            };
            let before = tag_spots(&text);
            let after = tag_spots(&done.text);
            prop_assert_eq!(before.len(), after.len());
            let gaps = |t: &str, s: &[TagSpot]| {
                let mut last = 0;
                let mut out = Vec::new();
                for spot in s {
                    out.push(t[last..spot.range.start].to_string());
                    last = spot.range.end;
                }
                out.push(t[last..].to_string());
                out
            };
            prop_assert_eq!(gaps(&text, &before), gaps(&done.text, &after));
            for (b, a) in before.iter().zip(&after) {
                let old = &text[b.range.clone()];
                let new = &done.text[a.range.clone()];
                prop_assert!(new == old || rename(old).as_deref() == Some(new));
            }
            prop_assert_eq!(rename_tags(&done.text, rename), Ok(None));
        }
    }
}
