//! Reading one note's Markdown: frontmatter, masking, links, tags, headings, block ids and tasks.
//!
//! Links and tags are read from a *masked* copy of the text: the frontmatter, code, `%% … %%`
//! and `<!-- … -->` comments are blanked with spaces (line breaks kept), so every byte offset
//! found in the masked text is an offset in the note. Code is found as CommonMark finds it,
//! inside lists, block quotes and callouts too ([`code_ranges`]).
//!
//! The scanners are written by hand rather than on a CommonMark parser because Obsidian's
//! reading differs from CommonMark on purpose — a top-level indented block is *not* code (people
//! indent prose), `%%` comments hide links, a `\|` inside a table separates a link's alias — and
//! because every item needs its exact byte span for link rewrites.

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
    pub(crate) closing_line: usize,
}

/// Finds the frontmatter block at the top of `text`: a first line `---` and a later line
/// `---` (trailing spaces, tabs and a CR allowed on both). `None` when the text does not open
/// with such a fence or the block is never closed — Obsidian then reads the whole text as body.
/// The YAML inside is not parsed here. A leading BOM must be stripped by the caller.
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
pub(crate) struct LineSpan {
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) end_with_newline: usize,
}

impl LineSpan {
    pub(crate) fn range(&self) -> Range<usize> {
        self.start..self.end
    }
}

/// Iterates over the lines of a text with their byte positions.
pub(crate) struct LineIter<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> LineIter<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
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

mod code;
mod html;
mod math;
mod tables;
mod tag_scan;

pub use code::{code_ranges, html_block_ranges};
pub use html::html_ranges;
pub(crate) use tables::in_table_row;
pub use tag_scan::inline_tags;

use memchr::memmem::Finder;

/// Substring finders built once: `memmem::find` builds a searcher per call, which showed in
/// profiles of full passes (several calls per note, one per wikilink).
static FIND_COMMENT_PCT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"%%"));
static FIND_COMMENT_HTML: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"<!--"));
static FIND_WIKI_OPEN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"[["));
static FIND_MD_LINK: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"]("));

/// Returns a copy of `text` where everything links and tags must not be read from is replaced
/// by spaces (line breaks kept), so byte offsets in the masked text are offsets in the original.
///
/// Masked, in this order: the frontmatter block, code (fenced code blocks and inline code spans
/// as CommonMark finds them, inside lists, quotes and callouts too; see [`code_ranges`]), closed
/// `%% … %%` comments and closed `<!-- … -->` comments.
#[cfg(test)]
pub(crate) fn mask(text: &str, frontmatter: Option<&FrontmatterBlock>) -> String {
    let start = frontmatter.map_or(0, |f| f.block.end.min(text.len()));
    let mut bytes = text.as_bytes()[..start].to_vec();
    blank(&mut bytes, 0..start);
    bytes.extend_from_slice(mask_body(&text[start..]).as_bytes());
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// [`mask`] for the text after the frontmatter. Borrows the text when it holds nothing to mask
/// (no backtick, no tilde, no `%%`, no `<!--`), which is most notes.
pub(crate) fn mask_body(body: &str) -> Cow<'_, str> {
    let b = body.as_bytes();
    // without a backtick or a tilde there is neither a fence nor a code span
    let code = memchr::memchr2(b'`', b'~', b).is_some();
    let comments = FIND_COMMENT_PCT.find(b).is_some() || FIND_COMMENT_HTML.find(b).is_some();
    if !code && !comments {
        return Cow::Borrowed(body);
    }
    let mut bytes = b.to_vec();
    if code {
        for r in code_ranges(body) {
            blank(&mut bytes, r);
        }
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

/// Replaces every byte of `range` but line feeds by a space (a fenced block is whole lines:
/// filled line by line rather than tested byte by byte).
fn blank(bytes: &mut [u8], range: Range<usize>) {
    let end = range.end.min(bytes.len());
    let mut from = range.start.min(end);
    while from < end {
        let stop = memchr::memchr(b'\n', &bytes[from..end]).map_or(end, |i| from + i);
        bytes[from..stop].fill(b' ');
        from = stop + 1;
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

/// One `[[wikilink]]` or `![[embed]]` as written in a note: `[[` and `]]` around at least one
/// character, with no `[`, `]` or line break inside, outside code and comments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WikiLink {
    /// Byte span of the whole link in the note, `!` included for embeds.
    pub span: Range<usize>,
    /// Whether it is an embed (`![[…]]`): Obsidian shows the target's content in place.
    pub embed: bool,
    /// The link target: text before `|` and `#`, trimmed. Empty for `[[#Heading]]`.
    pub target: String,
    /// The `#heading` or `#^block` part, without the leading `#`.
    pub(crate) subpath: Option<String>,
    /// The display text after `|`.
    pub(crate) alias: Option<String>,
    /// Whether the alias separator was written `\|` (inside a table).
    pub(crate) escaped_pipe: bool,
    /// Which paragraph, list or section of the note the link is in, counted from 0 at the top
    /// of the body: links with the same number are written together (one list, one
    /// paragraph), with no blank line or heading between them.
    #[serde(default)]
    pub block: u32,
}

/// Splits the inside of `[[…]]` into target, subpath and alias.
pub(crate) fn parse_link_inner(inner: &str) -> (String, Option<String>, Option<String>, bool) {
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

/// Every wikilink and embed in a masked text: `[[`, then at least one character that is not `[`,
/// `]` or a line break, then `]]`, leftmost first; a `!` just before makes it an embed. Public
/// so that text which is not a note (a request to crew) reads links by the same grammar.
pub fn wikilinks(masked: &str) -> Vec<WikiLink> {
    let bytes = masked.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = FIND_WIKI_OPEN.find(&bytes[from..]).map(|p| p + from) {
        let inner_start = p + 2;
        let stop = bytes[inner_start..]
            .iter()
            .position(|&b| matches!(b, b'[' | b']' | b'\n'))
            .map(|q| q + inner_start);
        match stop {
            // `[[]]` is text (Obsidian shows it as written): a link needs one character inside
            Some(q) if q > inner_start && bytes[q] == b']' && bytes.get(q + 1) == Some(&b']') => {
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
                    block: 0,
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
    pub(crate) span: Range<usize>,
    /// Byte span of the destination inside the note (still %-encoded).
    pub dest_span: Range<usize>,
    /// Written `![…](…)`: an embed.
    pub embed: bool,
    /// The destination, %-decoded, without `#fragment`.
    pub target: String,
    pub(crate) fragment: Option<String>,
    /// As [`WikiLink::block`].
    #[serde(default)]
    pub block: u32,
}

/// Markdown links to local files (URLs with a scheme and pure `#anchors` are left out).
///
/// The grammar is the regex `(!?)\[[^\]\n]*\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+[^)\n]*)?\)`
/// (leftmost-first, as the `regex` crate reads it), scanned by hand: the regex ran in the
/// bounded backtracker on notes with long URLs and several links per line (a quarter of a
/// full pass on real vaults). A property test checks the scanner against the regex.
pub(crate) fn markdown_links(masked: &str) -> Vec<MarkdownLink> {
    let mut out = Vec::new();
    if FIND_MD_LINK.find(masked.as_bytes()).is_none() {
        return out;
    }
    for m in MdLinkScanner::new(masked) {
        let raw = &masked[m.dest.clone()];
        let (raw, dest_span) = if raw.starts_with('<') && raw.ends_with('>') && raw.len() >= 2 {
            (&raw[1..raw.len() - 1], m.dest.start + 1..m.dest.end - 1)
        } else {
            (raw, m.dest.clone())
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
            span: m.whole,
            dest_span,
            embed: m.embed,
            target,
            fragment,
            block: 0,
        });
    }
    out
}

/// One match of the Markdown-link grammar: the whole match and the destination as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MdLinkMatch {
    pub(crate) whole: Range<usize>,
    pub(crate) dest: Range<usize>,
    pub(crate) embed: bool,
}

/// "The first position at or after `x` where a predicate holds", remembered: queries come in
/// (nearly) increasing order, and a query inside the stretch scanned last time is answered
/// without scanning it again. This keeps the link scanner linear on lines holding hundreds of
/// `[…](` starts that share one long destination or one unclosed title.
#[derive(Default)]
struct NextMemo {
    from: usize,
    found: usize,
    valid: bool,
}

impl NextMemo {
    fn next(&mut self, s: &str, x: usize, stop: impl Fn(char) -> bool) -> usize {
        if self.valid && x >= self.from && x <= self.found {
            return self.found;
        }
        let limit = if self.valid && x < self.from {
            self.from
        } else {
            s.len()
        };
        let mut found = None;
        for (i, c) in s[x..limit].char_indices() {
            if stop(c) {
                found = Some(x + i);
                break;
            }
        }
        let found = match found {
            Some(f) => f,
            // nothing before the stretch scanned last time: its answer holds
            None if limit < s.len() => self.found,
            None => s.len(),
        };
        *self = NextMemo {
            from: x,
            found,
            valid: true,
        };
        found
    }
}

/// Iterates over the matches of the Markdown-link grammar, leftmost first, not overlapping.
pub(crate) struct MdLinkScanner<'a> {
    s: &'a str,
    /// Where the next match may start (the end of the previous one).
    from: usize,
    /// The next `[` to try.
    at: usize,
    bracket_end: NextMemo,
    space_end: NextMemo,
    dest_end: NextMemo,
    angle_end: NextMemo,
    title_end: NextMemo,
}

impl<'a> MdLinkScanner<'a> {
    pub(crate) fn new(s: &'a str) -> Self {
        MdLinkScanner {
            s,
            from: 0,
            at: 0,
            bracket_end: NextMemo::default(),
            space_end: NextMemo::default(),
            dest_end: NextMemo::default(),
            angle_end: NextMemo::default(),
            title_end: NextMemo::default(),
        }
    }

    /// `\s+[^)\n]*\)` or `\)` from `r`: the end of the match.
    fn tail(&mut self, r: usize) -> Option<usize> {
        let b = self.s.as_bytes();
        match b.get(r)? {
            b')' => Some(r + 1),
            _ => {
                let t = self.space_end.next(self.s, r, |c| !c.is_whitespace());
                if t == r {
                    return None;
                }
                let u = self.title_end.next(self.s, t, |c| c == ')' || c == '\n');
                (b.get(u) == Some(&b')')).then_some(u + 1)
            }
        }
    }

    /// A match whose `[` is at `open`: (end, destination).
    fn at_bracket(&mut self, open: usize) -> Option<(usize, Range<usize>)> {
        let b = self.s.as_bytes();
        let close = self
            .bracket_end
            .next(self.s, open + 1, |c| c == ']' || c == '\n');
        if b.get(close) != Some(&b']') || b.get(close + 1) != Some(&b'(') {
            return None;
        }
        let p = self
            .space_end
            .next(self.s, close + 2, |c| !c.is_whitespace());
        if b.get(p) == Some(&b'<') {
            let q = self
                .angle_end
                .next(self.s, p + 1, |c| c == '>' || c == '\n');
            if b.get(q) == Some(&b'>')
                && let Some(end) = self.tail(q + 1)
            {
                return Some((end, p..q + 1));
            }
        }
        let r = self
            .dest_end
            .next(self.s, p, |c| c == ')' || c.is_whitespace());
        if r == p {
            return None;
        }
        let end = self.tail(r)?;
        Some((end, p..r))
    }
}

impl Iterator for MdLinkScanner<'_> {
    type Item = MdLinkMatch;

    fn next(&mut self) -> Option<MdLinkMatch> {
        let b = self.s.as_bytes();
        while self.at < b.len() {
            let open = memchr::memchr(b'[', &b[self.at..])? + self.at;
            self.at = open + 1;
            if let Some((end, dest)) = self.at_bracket(open) {
                // a `!` just before (and after the previous match) makes it an image
                let embed = open > self.from && b[open - 1] == b'!';
                let start = if embed { open - 1 } else { open };
                self.from = end;
                self.at = end;
                return Some(MdLinkMatch {
                    whole: start..end,
                    dest,
                    embed,
                });
            }
        }
        None
    }
}

fn has_scheme(s: &str) -> bool {
    match s.find(':') {
        Some(p) if p > 1 => s[..p]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-' || c == '.'),
        _ => false,
    }
}

/// The task regex, kept for the rare line whose list number holds a non-ASCII digit (`\d` is
/// Unicode); every other line is read by [`task_line`].
static TASK: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*(?:[-*+]|\d+[.)])\s+\[(.)\]\s+(.*)$").expect("static regex"));

/// A block id at the end of a line: `(?:^|\s)\^([A-Za-z0-9-]+)\s*$`, by hand. Only the last `^`
/// of a line can match (the id and the trailing space hold no `^`).
pub(crate) fn block_id(line: &str) -> Option<&str> {
    let caret = line.rfind('^')?;
    if !line[..caret]
        .chars()
        .next_back()
        .is_none_or(char::is_whitespace)
    {
        return None;
    }
    let rest = &line[caret + 1..];
    let len = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-')
        .count();
    (len > 0 && rest[len..].chars().all(char::is_whitespace)).then(|| &rest[..len])
}

/// A task line: `^\s*(?:[-*+]|\d+[.)])\s+\[(.)\]\s+(.*)$`, by hand: (the mark, the text).
pub(crate) fn task_line(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim_start();
    let by_regex = || {
        let c = TASK.captures(line)?;
        Some((c.get(1)?.as_str(), c.get(2)?.as_str()))
    };
    let marker = match rest.as_bytes().first()? {
        b'-' | b'*' | b'+' => 1,
        // a non-ASCII character may be a Unicode digit, which `\d` accepts
        b if *b >= 0x80 => return by_regex(),
        b'0'..=b'9' => {
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            match rest.as_bytes().get(digits) {
                Some(b'.' | b')') => digits + 1,
                // a non-ASCII character may be a Unicode digit, which `\d` accepts
                Some(b) if *b >= 0x80 => return by_regex(),
                _ => return None,
            }
        }
        _ => return None,
    };
    let after = &rest[marker..];
    let body = after.trim_start();
    if body.len() == after.len() || !body.starts_with('[') {
        return None;
    }
    let mut chars = body[1..].char_indices();
    let (_, mark) = chars.next()?;
    let close = 1 + mark.len_utf8();
    if body.as_bytes().get(close) != Some(&b']') {
        return None;
    }
    let tail = &body[close + 1..];
    let text = tail.trim_start();
    if text.len() == tail.len() {
        return None;
    }
    Some((&body[1..close], text))
}

/// A heading line: `# Title` up to `###### Title`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Heading {
    pub(crate) level: u8,
    pub(crate) text: String,
    pub(crate) line: usize,
}

/// A task list item: `- [ ] text` or `- [x] text`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Task {
    /// Whether the box holds anything but a space (`[x]`, `[X]`, `[-]`, `[>]`, …).
    pub done: bool,
    /// The text after the box, as written.
    pub text: String,
    pub(crate) line: usize,
}

/// What [`structure`] reads from a note's lines.
pub(crate) struct Structure {
    pub(crate) headings: Vec<Heading>,
    pub(crate) block_ids: Vec<String>,
    pub(crate) tasks: Vec<Task>,
    /// Where each blank line and each heading line starts: the borders of the note's
    /// paragraphs, lists and sections, which [`WikiLink::block`] counts.
    pub(crate) breaks: Vec<usize>,
}

/// Headings, block ids, tasks and paragraph borders, read line by line from the masked text.
pub(crate) fn structure(masked: &str) -> Structure {
    let mut headings = Vec::new();
    let mut blocks = Vec::new();
    let mut tasks = Vec::new();
    let mut breaks = Vec::new();
    let bytes = masked.as_bytes();
    // masked code is long runs of spaces: the per-line tests below must not walk them char by
    // char; and a line is searched for a block id only when a `^` is known to be on it
    let mut carets = memchr::memchr_iter(b'^', bytes).peekable();
    let mut start = 0;
    let mut line_no = 0;
    let mut ends = memchr::memchr_iter(b'\n', bytes);
    while start < bytes.len() {
        let end = ends.next().unwrap_or(bytes.len());
        let line = &masked[start..end];
        let line_start = start;
        line_no += 1;
        while carets.next_if(|&c| c < start).is_some() {}
        let has_caret = carets.peek().is_some_and(|&c| c < end);
        start = end + 1;
        let trimmed = line.trim_end_matches('\r');
        let lead = match trimmed.bytes().find(|&b| b != b' ' && b != b'\t') {
            None => {
                breaks.push(line_start);
                continue;
            }
            // a non-ASCII byte may start Unicode whitespace
            Some(b) if b >= 0x80 => trimmed.trim_start().bytes().next(),
            Some(b) => Some(b),
        };
        if lead == Some(b'#') {
            let hashes = trimmed.bytes().take_while(|&b| b == b'#').count();
            let rest = &trimmed[hashes..];
            if (1..=6).contains(&hashes)
                && (rest.is_empty() || rest.starts_with(' ') || rest.starts_with('\t'))
            {
                breaks.push(line_start);
                headings.push(Heading {
                    level: hashes as u8,
                    text: rest.trim().trim_end_matches('#').trim().to_string(),
                    line: line_no,
                });
            }
        }
        if has_caret && let Some(id) = block_id(trimmed) {
            blocks.push(id.to_string());
        }
        if lead.is_some_and(|b| matches!(b, b'-' | b'*' | b'+') || b.is_ascii_digit())
            && memchr::memchr(b'[', trimmed.as_bytes()).is_some()
            && let Some((mark, text)) = task_line(trimmed)
        {
            tasks.push(Task {
                done: mark != " ",
                text: text.trim().to_string(),
                line: line_no,
            });
        }
    }
    Structure {
        headings,
        block_ids: blocks,
        tasks,
        breaks,
    }
}

#[cfg(test)]
mod tests;
