//! Reading one note: frontmatter, masking, links, tags, headings, block ids and tasks.
//!
//! The rules are the ones in `spec/vault-conventions.md`. They are written by hand rather than
//! with a CommonMark parser because the counting rules deliberately differ from CommonMark
//! (indented code is *not* code here, `%%` comments are masked, a `\|` in a table splits an
//! alias) and because every extracted item needs its byte span for the link rewriter.

use std::ops::Range;
use std::sync::LazyLock;

use std::borrow::Cow;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The frontmatter block of a note, as found in the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontmatterBlock {
    /// Byte range of the YAML between the fences (may be empty).
    pub yaml: Range<usize>,
    /// Byte range of the whole block, both fences and the final line break included.
    pub block: Range<usize>,
    /// 1-based line of the opening fence (always 1) and of the closing fence.
    pub closing_line: usize,
}

/// The result of splitting a text into frontmatter and body.
pub fn split_frontmatter(text: &str) -> Option<FrontmatterBlock> {
    let mut lines = LineIter::new(text);
    let first = lines.next()?;
    if !is_fence_line(&text[first.range()]) {
        return None;
    }
    let yaml_start = first.end_with_newline;
    for (index, line) in lines.enumerate() {
        if is_fence_line(&text[line.range()]) {
            return Some(FrontmatterBlock {
                yaml: yaml_start..line.start,
                block: 0..line.end_with_newline,
                closing_line: index + 2,
            });
        }
    }
    None
}

fn is_fence_line(line: &str) -> bool {
    line.trim_end_matches([' ', '\r', '\t']) == "---"
}

/// A line of text: `start..end` excludes the line break, `end_with_newline` includes it.
#[derive(Debug, Clone)]
pub struct LineSpan {
    pub start: usize,
    pub end: usize,
    pub end_with_newline: usize,
}

impl LineSpan {
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// Iterates over the lines of a text with their byte positions.
pub struct LineIter<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> LineIter<'a> {
    pub fn new(text: &'a str) -> Self {
        Self { text, pos: 0 }
    }
}

impl Iterator for LineIter<'_> {
    type Item = LineSpan;
    fn next(&mut self) -> Option<LineSpan> {
        if self.pos >= self.text.len() {
            return None;
        }
        let start = self.pos;
        let rest = &self.text.as_bytes()[start..];
        let (end, next) = match memchr_newline(rest) {
            Some(i) => (start + i, start + i + 1),
            None => (self.text.len(), self.text.len()),
        };
        self.pos = next;
        Some(LineSpan {
            start,
            end,
            end_with_newline: next,
        })
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

/// Returns a copy of `text` where everything links and tags must not be read from is replaced
/// by spaces (line breaks kept), so byte offsets in the masked text are offsets in the original.
///
/// Masked, in this order: the frontmatter block, fenced code blocks, inline code spans, closed
/// `%% … %%` comments and closed `<!-- … -->` comments.
pub fn mask(text: &str, frontmatter: Option<&FrontmatterBlock>) -> String {
    let start = frontmatter.map_or(0, |f| f.block.end.min(text.len()));
    let mut bytes = text.as_bytes()[..start].to_vec();
    blank(&mut bytes, 0..start);
    bytes.extend_from_slice(mask_body(&text[start..]).as_bytes());
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`mask`] for the text after the frontmatter. Borrows the text when it holds nothing to mask
/// (no backtick, no tilde, no `%%`, no `<!--`), which is most notes.
pub fn mask_body(body: &str) -> Cow<'_, str> {
    let b = body.as_bytes();
    let code = memchr::memchr2(b'`', b'~', b).is_some();
    let comments =
        memchr::memmem::find(b, b"%%").is_some() || memchr::memmem::find(b, b"<!--").is_some();
    if !code && !comments {
        return Cow::Borrowed(body);
    }
    let mut bytes = b.to_vec();
    if code {
        mask_fences(&mut bytes);
        mask_code_spans(&mut bytes);
    }
    if comments {
        mask_delimited(&mut bytes, b"%%", b"%%");
        mask_delimited(&mut bytes, b"<!--", b"-->");
    }
    // Only ASCII bytes were replaced by spaces and whole multi-byte characters were blanked
    // byte by byte, so the buffer is still valid UTF-8; fall back to a lossy copy regardless.
    Cow::Owned(
        String::from_utf8(bytes)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
    )
}

fn blank(bytes: &mut [u8], range: Range<usize>) {
    let end = range.end.min(bytes.len());
    for b in &mut bytes[range.start.min(end)..end] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
}

/// An opening fence: (character, run length) if the line opens a fenced code block.
fn fence_open(line: &[u8]) -> Option<(u8, usize)> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    if indent > 3 {
        return None;
    }
    let rest = &line[indent..];
    let ch = *rest.first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let run = rest.iter().take_while(|&&b| b == ch).count();
    if run < 3 {
        return None;
    }
    if ch == b'`' && rest[run..].contains(&b'`') {
        return None;
    }
    Some((ch, run))
}

fn fence_closes(line: &[u8], ch: u8, open_len: usize) -> bool {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    if indent > 3 {
        return false;
    }
    let rest = &line[indent..];
    let run = rest.iter().take_while(|&&b| b == ch).count();
    run >= open_len && rest[run..].iter().all(|b| b.is_ascii_whitespace())
}

fn mask_fences(bytes: &mut [u8]) {
    let text_len = bytes.len();
    let mut pos = 0;
    let mut open: Option<(u8, usize, usize)> = None; // (char, len, block start)
    while pos < text_len {
        let end = bytes[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text_len, |i| pos + i);
        let next = if end < text_len { end + 1 } else { end };
        let line = &bytes[pos..end];
        match open {
            None => {
                if let Some((ch, len)) = fence_open(line) {
                    open = Some((ch, len, pos));
                }
            }
            Some((ch, len, start)) => {
                if fence_closes(line, ch, len) {
                    blank(bytes, start..end);
                    open = None;
                }
            }
        }
        pos = next;
    }
    if let Some((_, _, start)) = open {
        blank(bytes, start..text_len);
    }
}

fn mask_code_spans(bytes: &mut [u8]) {
    let len = bytes.len();
    let mut i = 0;
    while i < len {
        if bytes[i] != b'`' {
            i += 1;
            continue;
        }
        let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
        let mut j = i + run;
        let mut closed = None;
        while j < len && bytes[j] != b'\n' {
            if bytes[j] == b'`' {
                let other = bytes[j..].iter().take_while(|&&b| b == b'`').count();
                if other == run {
                    closed = Some(j + other);
                    break;
                }
                j += other;
            } else {
                j += 1;
            }
        }
        match closed {
            Some(end) => {
                blank(bytes, i..end);
                i = end;
            }
            None => i += run,
        }
    }
}

fn mask_delimited(bytes: &mut [u8], open: &[u8], close: &[u8]) {
    let mut from = 0;
    while let Some(start) = find(bytes, open, from) {
        match find(bytes, close, start + open.len()) {
            Some(end) => {
                let stop = end + close.len();
                blank(bytes, start..stop);
                from = stop;
            }
            None => break,
        }
    }
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from >= haystack.len() || needle.is_empty() {
        return None;
    }
    memchr::memmem::find(&haystack[from..], needle).map(|p| p + from)
}

/// One `[[wikilink]]` or `![[embed]]` as written in a note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WikiLink {
    /// Byte span of the whole link in the note, `!` included for embeds.
    pub span: Range<usize>,
    pub embed: bool,
    /// The link target: text before `|` and `#`, trimmed. Empty for `[[#Heading]]`.
    pub target: String,
    /// The `#heading` or `#^block` part, without the leading `#`.
    pub subpath: Option<String>,
    /// The display text after `|`.
    pub alias: Option<String>,
    /// Whether the alias separator was written `\|` (inside a table).
    pub escaped_pipe: bool,
}

impl WikiLink {
    pub fn is_block_ref(&self) -> bool {
        self.subpath.as_deref().is_some_and(|s| s.starts_with('^'))
    }
}

/// Splits the inside of `[[…]]` into target, subpath and alias.
pub fn parse_link_inner(inner: &str) -> (String, Option<String>, Option<String>, bool) {
    let (before_pipe, alias, escaped) = match inner.find('|') {
        Some(p) => {
            let before = &inner[..p];
            let (before, escaped) = match before.strip_suffix('\\') {
                Some(b) => (b, true),
                None => (before, false),
            };
            (before, Some(inner[p + 1..].to_string()), escaped)
        }
        None => (inner, None, false),
    };
    let (target, subpath) = match before_pipe.find('#') {
        Some(h) => (
            &before_pipe[..h],
            Some(before_pipe[h + 1..].trim().to_string()),
        ),
        None => (before_pipe, None),
    };
    (target.trim().to_string(), subpath, alias, escaped)
}

/// Every wikilink and embed in a masked text: `[[`, then anything but `[`, `]` and line breaks,
/// then `]]`, leftmost first; a `!` just before makes it an embed.
pub fn wikilinks(masked: &str) -> Vec<WikiLink> {
    let bytes = masked.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = memchr::memmem::find(&bytes[from..], b"[[").map(|p| p + from) {
        let inner_start = p + 2;
        let stop = bytes[inner_start..]
            .iter()
            .position(|&b| matches!(b, b'[' | b']' | b'\n'))
            .map(|q| q + inner_start);
        match stop {
            Some(q) if bytes[q] == b']' && bytes.get(q + 1) == Some(&b']') => {
                let embed = p > from && bytes[p - 1] == b'!';
                let start = if embed { p - 1 } else { p };
                let (target, subpath, alias, escaped_pipe) =
                    parse_link_inner(&masked[inner_start..q]);
                out.push(WikiLink {
                    span: start..q + 2,
                    embed,
                    target,
                    subpath,
                    alias,
                    escaped_pipe,
                });
                from = q + 2;
            }
            _ => from = p + 1,
        }
    }
    out
}

/// A Markdown link `[text](destination)` or image `![alt](destination)` to a local file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MarkdownLink {
    pub span: Range<usize>,
    /// Byte span of the destination inside the note (still %-encoded).
    pub dest_span: Range<usize>,
    pub embed: bool,
    /// The destination, %-decoded, without `#fragment`.
    pub target: String,
    pub fragment: Option<String>,
}

static MDLINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(!?)\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+[^)\n]*)?\)").expect("static regex")
});

/// Markdown links to local files (URLs with a scheme and pure `#anchors` are left out).
pub fn markdown_links(masked: &str) -> Vec<MarkdownLink> {
    let mut out = Vec::new();
    if memchr::memmem::find(masked.as_bytes(), b"](").is_none() {
        return out;
    }
    for c in MDLINK.captures_iter(masked) {
        let (Some(whole), Some(dest)) = (c.get(0), c.get(2)) else {
            continue;
        };
        let raw = dest.as_str();
        let (raw, dest_span) = if raw.starts_with('<') && raw.ends_with('>') && raw.len() >= 2 {
            (&raw[1..raw.len() - 1], dest.start() + 1..dest.end() - 1)
        } else {
            (raw, dest.range())
        };
        if raw.is_empty() || raw.starts_with('#') || has_scheme(raw) {
            continue;
        }
        let (path, fragment) = match raw.find('#') {
            Some(h) => (&raw[..h], Some(raw[h + 1..].to_string())),
            None => (raw, None),
        };
        let target = percent_encoding::percent_decode_str(path)
            .decode_utf8_lossy()
            .into_owned();
        out.push(MarkdownLink {
            span: whole.range(),
            dest_span,
            embed: c.get(1).is_some_and(|m| !m.as_str().is_empty()),
            target,
            fragment,
        });
    }
    out
}

fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(p) if p > 1 => s[..p]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'),
        _ => false,
    }
}

fn is_tag_char(c: char) -> bool {
    !(c.is_whitespace() || (c.is_ascii_punctuation() && c != '-' && c != '_' && c != '/'))
}

/// Inline `#tags` in a masked text, without the `#`: a `#` at the start or after whitespace,
/// followed by tag characters that are not all digits.
pub fn inline_tags(masked: &str) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    for i in memchr::memchr_iter(b'#', masked.as_bytes()) {
        let boundary = masked[..i]
            .chars()
            .next_back()
            .is_none_or(char::is_whitespace);
        if !boundary {
            continue;
        }
        let start = i + 1;
        let rest = &masked[start..];
        let len = rest.find(|d: char| !is_tag_char(d)).unwrap_or(rest.len());
        let tag = &rest[..len];
        if !tag.is_empty() && !tag.bytes().all(|d| d.is_ascii_digit()) {
            out.push((i..start + len, tag.to_string()));
        }
    }
    out
}

/// A heading line: `# Title` up to `###### Title`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Heading {
    pub level: u8,
    pub text: String,
    pub line: usize,
}

/// A task list item: `- [ ] text` or `- [x] text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    pub done: bool,
    pub text: String,
    pub line: usize,
}

static BLOCK_ID: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?:^|\s)\^([A-Za-z0-9-]+)\s*$").expect("static regex"));
static TASK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:[-*+]|\d+[.)])\s+\[(.)\]\s+(.*)$").expect("static regex"));

/// Headings, block ids and tasks, read line by line from the masked text.
pub fn structure(masked: &str) -> (Vec<Heading>, Vec<String>, Vec<Task>) {
    let mut headings = Vec::new();
    let mut blocks = Vec::new();
    let mut tasks = Vec::new();
    for (n, line) in masked.lines().enumerate() {
        let line_no = n + 1;
        let trimmed = line.trim_end_matches('\r');
        let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
        if (1..=6).contains(&hashes) {
            let rest = &trimmed[hashes..];
            if rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t') {
                headings.push(Heading {
                    level: hashes as u8,
                    text: rest.trim().trim_end_matches('#').trim().to_string(),
                    line: line_no,
                });
            }
        }
        // cheap byte tests first: most lines are neither block ids nor tasks
        if trimmed.contains('^')
            && let Some(c) = BLOCK_ID.captures(trimmed)
            && let Some(m) = c.get(1)
        {
            blocks.push(m.as_str().to_string());
        }
        let lead = trimmed.trim_start().bytes().next();
        if lead.is_some_and(|b| matches!(b, b'-' | b'*' | b'+') || b.is_ascii_digit())
            && trimmed.contains('[')
            && let Some(c) = TASK.captures(trimmed)
        {
            let mark = c.get(1).map_or("", |m| m.as_str());
            tasks.push(Task {
                done: mark != " ",
                text: c.get(2).map_or("", |m| m.as_str()).trim().to_string(),
                line: line_no,
            });
        }
    }
    (headings, blocks, tasks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatter_needs_a_closing_fence() {
        assert!(split_frontmatter("---\ntitle: x\n").is_none());
        let fm = split_frontmatter("---\ntitle: x\n---\nbody").expect("block");
        assert_eq!(fm.yaml, 4..13);
        assert_eq!(fm.block, 0..17);
        assert_eq!(fm.closing_line, 3);
    }

    #[test]
    fn frontmatter_fences_may_carry_trailing_space_and_cr() {
        let text = "---  \r\na: 1\r\n--- \r\nbody";
        let fm = split_frontmatter(text).expect("block");
        assert_eq!(&text[fm.yaml.clone()], "a: 1\r\n");
    }

    #[test]
    fn empty_frontmatter_block() {
        let fm = split_frontmatter("---\n---\n").expect("block");
        assert!(fm.yaml.is_empty());
    }

    #[test]
    fn fenced_code_masks_links() {
        let text = "a [[One]]\n```\n[[Two]]\n```\n~~~~\n[[Three]]\n~~~\n~~~~\n[[Four]]";
        let masked = mask(text, None);
        let targets: Vec<_> = wikilinks(&masked).into_iter().map(|l| l.target).collect();
        assert_eq!(targets, vec!["One", "Four"]);
    }

    #[test]
    fn unclosed_fence_runs_to_end() {
        let masked = mask("[[A]]\n```rust\n[[B]]", None);
        assert_eq!(wikilinks(&masked).len(), 1);
    }

    #[test]
    fn backtick_fence_with_backtick_in_info_is_not_a_fence() {
        let masked = mask("``` a`b\n[[B]]\n```", None);
        // the first line is not a fence; the last line opens one that runs to the end
        assert_eq!(wikilinks(&masked).len(), 1);
    }

    #[test]
    fn four_space_indent_is_not_a_fence_and_not_masked() {
        let masked = mask("    ```\n    [[A]]\n", None);
        assert_eq!(wikilinks(&masked).len(), 1);
    }

    #[test]
    fn code_spans_need_equal_runs() {
        let masked = mask("`[[A]]` ``[[B]]` still`` ``[[C]]", None);
        let targets: Vec<_> = wikilinks(&masked).into_iter().map(|l| l.target).collect();
        assert_eq!(targets, vec!["C"]);
    }

    #[test]
    fn comments_are_masked_only_when_closed() {
        let masked = mask("%%[[A]]\n[[B]]%% [[C]] <!-- [[D]] --> %% [[E]]", None);
        let targets: Vec<_> = wikilinks(&masked).into_iter().map(|l| l.target).collect();
        assert_eq!(targets, vec!["C", "E"]);
    }

    #[test]
    fn link_parts() {
        let links = wikilinks("[[Note#Head|Shown]] ![[img.png|100]] [[#Self]] [[T\\|A]]");
        assert_eq!(links[0].target, "Note");
        assert_eq!(links[0].subpath.as_deref(), Some("Head"));
        assert_eq!(links[0].alias.as_deref(), Some("Shown"));
        assert!(links[1].embed);
        assert_eq!(links[2].target, "");
        assert_eq!(links[3].target, "T");
        assert!(links[3].escaped_pipe);
    }

    #[test]
    fn tags_follow_the_rules() {
        let tags: Vec<_> = inline_tags("#one x#no #1984 #2024-plan\n#nested/tag, #café #a.b")
            .into_iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(tags, vec!["one", "2024-plan", "nested/tag", "café", "a"]);
    }

    #[test]
    fn heading_is_not_a_tag() {
        assert!(inline_tags("# Title\n## Sub").is_empty());
    }

    #[test]
    fn markdown_links_decode_and_skip_urls() {
        let links = markdown_links("[a](My%20Note.md#Part) [b](https://x.y) [c](<Other Note.md>)");
        assert_eq!(links.len(), 2);
        assert_eq!(links[0].target, "My Note.md");
        assert_eq!(links[0].fragment.as_deref(), Some("Part"));
        assert_eq!(links[1].target, "Other Note.md");
    }

    #[test]
    fn structure_reads_headings_blocks_tasks() {
        let (h, b, t) = structure("# One\ntext ^abc-1\n- [ ] do it\n- [x] done\n#tag");
        assert_eq!(h.len(), 1);
        assert_eq!(b, vec!["abc-1"]);
        assert_eq!(t.len(), 2);
        assert!(t[1].done);
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// The wikilink grammar as a regex: the reference the hand-written scanner must match.
        fn by_regex(text: &str) -> Vec<(Range<usize>, bool, String)> {
            let re = Regex::new(r"(!?)\[\[([^\[\]\n]*)\]\]").expect("regex");
            re.captures_iter(text)
                .map(|c| {
                    let whole = c.get(0).map_or(0..0, |m| m.range());
                    let embed = c.get(1).is_some_and(|m| !m.as_str().is_empty());
                    (
                        whole,
                        embed,
                        c.get(2).map_or("", |m| m.as_str()).to_string(),
                    )
                })
                .collect()
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn wikilink_scanner_matches_the_regex(text in "[\\[\\]!a|#\n é]{0,40}") {
                let scanned: Vec<(Range<usize>, bool, String)> = wikilinks(&text)
                    .into_iter()
                    .map(|l| {
                        let inner = &text[l.span.start + 2 + usize::from(l.embed)..l.span.end - 2];
                        (l.span, l.embed, inner.to_string())
                    })
                    .collect();
                prop_assert_eq!(scanned, by_regex(&text));
            }
        }
    }
}
