//! Pure text edits on a note: frontmatter keys and link targets. Each function takes a note's
//! text and returns the new text (or the pieces of it); nothing here touches the disk — the
//! writer applies the result, atomically if it cares to.

use std::ops::Range;

use super::markdown::{self, split_frontmatter};

/// Renders a string as a YAML scalar: plain when that reads back as the same string, otherwise
/// double-quoted (a JSON string is a valid YAML double-quoted scalar).
pub fn yaml_scalar(s: &str) -> String {
    let plain_safe = !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || " _./()-".contains(c))
        && !s.starts_with([' ', '-', '.'])
        && !s.ends_with(' ')
        && !matches!(
            s.to_ascii_lowercase().as_str(),
            "true" | "false" | "yes" | "no" | "null" | "on" | "off" | "~"
        )
        && s.parse::<f64>().is_err();
    if plain_safe {
        s.to_string()
    } else {
        serde_json::to_string(s).unwrap_or_else(|_| format!("\"{}\"", s.replace('"', "'")))
    }
}

/// The line ending a text uses (CRLF when its first line break is one).
fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Finds the byte range of a top-level key's entry (its line and its indented continuation
/// lines) inside the YAML range of `text`.
fn key_entry(text: &str, yaml: Range<usize>, key: &str) -> Option<Range<usize>> {
    let mut pos = yaml.start;
    let mut found: Option<usize> = None;
    while pos < yaml.end {
        let line_end = text[pos..yaml.end]
            .find('\n')
            .map_or(yaml.end, |i| pos + i + 1);
        let line = &text[pos..line_end];
        let is_top = !line.starts_with([' ', '\t', '-', '#']) && !line.trim().is_empty();
        if let Some(start) = found {
            let continuation = !is_top;
            if !continuation {
                return Some(start..pos);
            }
        } else if is_top {
            let k = line.split(':').next().unwrap_or("").trim();
            let k = k.trim_matches(|c| c == '"' || c == '\'');
            if line.contains(':') && k == key {
                found = Some(pos);
            }
        }
        pos = line_end;
    }
    found.map(|start| start..yaml.end)
}

/// Sets (`Some`) or removes (`None`) top-level frontmatter keys, leaving every other byte of the
/// note as it was. Values are YAML text (use [`yaml_scalar`] for strings). A note without
/// frontmatter gets a new block at the top.
pub fn set_frontmatter_keys(text: &str, changes: &[(&str, Option<String>)]) -> String {
    let mut out = text.to_string();
    for (key, value) in changes {
        out = set_one_key(&out, key, value.as_deref());
    }
    out
}

fn set_one_key(text: &str, key: &str, value: Option<&str>) -> String {
    let nl = line_ending(text);
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let body = &text[bom..];
    let entry_line = value.map(|v| format!("{key}: {v}{nl}"));
    match split_frontmatter(body) {
        Some(fm) => {
            let yaml = fm.yaml.start + bom..fm.yaml.end + bom;
            match key_entry(text, yaml.clone(), key) {
                Some(range) => {
                    let mut out = String::with_capacity(text.len() + 32);
                    out.push_str(&text[..range.start]);
                    if let Some(line) = &entry_line {
                        out.push_str(line);
                    }
                    out.push_str(&text[range.end..]);
                    out
                }
                None => match entry_line {
                    None => text.to_string(),
                    Some(line) => {
                        let mut out = String::with_capacity(text.len() + line.len());
                        out.push_str(&text[..yaml.end]);
                        // a YAML block whose last line has no break (cannot happen with a
                        // closing fence after it, but keep the invariant explicit)
                        if yaml.end > yaml.start && !text[..yaml.end].ends_with('\n') {
                            out.push_str(nl);
                        }
                        out.push_str(&line);
                        out.push_str(&text[yaml.end..]);
                        out
                    }
                },
            }
        }
        None => match entry_line {
            None => text.to_string(),
            Some(line) => format!("{}---{nl}{line}---{nl}{}", &text[..bom], body),
        },
    }
}

/// One replacement of a byte range of a note's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replacement {
    /// Byte range in the original text, on character boundaries.
    pub range: Range<usize>,
    /// The text put in its place.
    pub with: String,
}

/// Applies non-overlapping replacements (in any order). A range that does not fit the text
/// (past its end, overlapping another, or cutting a character in two) is skipped rather than
/// applied: the caller is expected to apply offsets only to the text they were found in, and
/// this is the last line of defence when it got that wrong.
pub fn apply_replacements(text: &str, mut reps: Vec<Replacement>) -> String {
    reps.sort_by_key(|r| r.range.start);
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    for r in reps {
        if r.range.start < pos
            || r.range.end > text.len()
            || r.range.start > r.range.end
            || !text.is_char_boundary(r.range.start)
            || !text.is_char_boundary(r.range.end)
        {
            continue;
        }
        out.push_str(&text[pos..r.range.start]);
        out.push_str(&r.with);
        pos = r.range.end;
    }
    out.push_str(&text[pos..]);
    out
}

/// Renders a wikilink with a new target, keeping the embed mark, `#subpath` and `|alias`.
pub fn render_wikilink(link: &markdown::WikiLink, new_target: &str) -> String {
    let mut s = String::new();
    if link.embed {
        s.push('!');
    }
    s.push_str("[[");
    s.push_str(new_target);
    if let Some(sub) = &link.subpath {
        s.push('#');
        s.push_str(sub);
    }
    if let Some(alias) = &link.alias {
        if link.escaped_pipe {
            s.push('\\');
        }
        s.push('|');
        s.push_str(alias);
    }
    s.push_str("]]");
    s
}

/// Renders `link` pointed at `new_target` so that its reader sees what it showed before: a
/// link that showed its own target (no display text) gets its old target as display text —
/// `[[zurich]]` becomes `[[Zürich|zurich]]`, `[[a#Part]]` shows `a > Part` as Obsidian did.
/// An embed shows the note, not its text, and a display text stays as written: both are
/// [`render_wikilink`]. Inside a table row the display text follows `\|`, so the row keeps its
/// cells. `text` is the note `link` was read from.
pub fn retarget_wikilink(text: &str, link: &markdown::WikiLink, new_target: &str) -> String {
    if link.embed || link.alias.is_some() || link.target == new_target {
        return render_wikilink(link, new_target);
    }
    let shown = match &link.subpath {
        Some(sub) => format!("{} > {sub}", link.target),
        None => link.target.clone(),
    };
    let with_text = markdown::WikiLink {
        alias: Some(shown),
        escaped_pipe: markdown::in_table_row(text, link.span.start),
        ..link.clone()
    };
    render_wikilink(&with_text, new_target)
}

/// %-encodes a path for a Markdown link destination (spaces and the few characters that would
/// end or confuse the destination).
pub(crate) fn encode_md_path(path: &str) -> String {
    const SET: &percent_encoding::AsciiSet = &percent_encoding::CONTROLS
        .add(b' ')
        .add(b'(')
        .add(b')')
        .add(b'<')
        .add(b'>')
        .add(b'#')
        .add(b'%')
        .add(b'[')
        .add(b']');
    percent_encoding::utf8_percent_encode(path, SET).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_key_and_keeps_every_other_byte() {
        let text = "---\ntitle:   Keep  me\nstatus: inbox\ntags:\n  - a\n  - b\nz: 1\n---\nbody\n";
        let out = set_frontmatter_keys(text, &[("status", Some("filed".into()))]);
        assert_eq!(
            out,
            "---\ntitle:   Keep  me\nstatus: filed\ntags:\n  - a\n  - b\nz: 1\n---\nbody\n"
        );
        let out = set_frontmatter_keys(text, &[("tags", Some("[x]".into()))]);
        assert_eq!(
            out,
            "---\ntitle:   Keep  me\nstatus: inbox\ntags: [x]\nz: 1\n---\nbody\n"
        );
    }

    #[test]
    fn adds_missing_keys_before_the_closing_fence() {
        let out = set_frontmatter_keys(
            "---\na: 1\n---\nb",
            &[("filed-date", Some("2026-01-02".into()))],
        );
        assert_eq!(out, "---\na: 1\nfiled-date: 2026-01-02\n---\nb");
    }

    #[test]
    fn creates_a_block_and_keeps_crlf_and_bom() {
        let out = set_frontmatter_keys("\u{feff}hello\r\n", &[("status", Some("inbox".into()))]);
        assert_eq!(out, "\u{feff}---\r\nstatus: inbox\r\n---\r\nhello\r\n");
        let out = set_frontmatter_keys("---\r\na: 1\r\n---\r\n", &[("b", Some("2".into()))]);
        assert_eq!(out, "---\r\na: 1\r\nb: 2\r\n---\r\n");
    }

    #[test]
    fn removes_a_key() {
        let out = set_frontmatter_keys("---\na: 1\nb: 2\n---\n", &[("a", None)]);
        assert_eq!(out, "---\nb: 2\n---\n");
    }

    #[test]
    fn scalars_are_quoted_when_needed() {
        assert_eq!(yaml_scalar("filed"), "filed");
        assert_eq!(yaml_scalar("2026-01-02"), "2026-01-02");
        assert_eq!(yaml_scalar("a: b"), "\"a: b\"");
        assert_eq!(yaml_scalar("yes"), "\"yes\"");
        assert_eq!(yaml_scalar("12"), "\"12\"");
        assert_eq!(yaml_scalar("[[Home]]"), "\"[[Home]]\"");
    }

    #[test]
    fn a_retargeted_link_keeps_the_text_it_showed() {
        let retarget = |text: &str, to: &str| {
            let l = &markdown::wikilinks(text)[0];
            retarget_wikilink(text, l, to)
        };
        assert_eq!(retarget("[[zurich]]", "Zürich"), "[[Zürich|zurich]]");
        assert_eq!(
            retarget("[[micha]]", "Micha Brugger"),
            "[[Micha Brugger|micha]]"
        );
        assert_eq!(retarget("[[a#Part]]", "Ä"), "[[Ä#Part|a > Part]]");
        assert_eq!(
            retarget("[[zurich|the city]]", "Zürich"),
            "[[Zürich|the city]]"
        );
        assert_eq!(retarget("![[cafe]]", "Café"), "![[Café]]");
        assert_eq!(
            retarget("|[[zurich]]|x|\n|-|-|\n", "Zürich"),
            "[[Zürich\\|zurich]]"
        );
    }

    #[test]
    fn wikilinks_render_with_their_parts() {
        let l = &markdown::wikilinks("![[Old#^blk\\|Shown]]")[0];
        assert_eq!(render_wikilink(l, "New"), "![[New#^blk\\|Shown]]");
    }
}
