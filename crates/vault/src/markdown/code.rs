//! Where the code is in a note body: CommonMark's block structure, reduced to what decides code.
//!
//! Links and tags must not be read from code, and a move must not rewrite a link shown as code.
//! Code is found the way CommonMark finds it, containers included: a fence opens wherever a
//! block can start — at the top level, in a list item at any depth (also on the marker line,
//! `- ```sh`), in a blockquote or a callout — and closes with a fence of the same character at
//! least as long, or with its container. Code spans are read per paragraph (so they run over line
//! breaks but never out of their paragraph) and a backslash-escaped backtick opens nothing.
//!
//! This is a single pass over the lines with a stack of open containers, the algorithm of the
//! CommonMark reference parser cut down to the blocks that change where code is: block quotes,
//! list items, fenced and indented code, HTML blocks (a fence inside one is raw HTML, not code),
//! paragraphs, headings and thematic breaks. Inline, the constructs that can take precedence
//! over a code span are modelled where they start first: HTML comments, processing
//! instructions, declarations and CDATA (over lines), tags and autolinks (on one line). Links,
//! link reference definitions and GFM tables are not; `tests/markdown_oracle.rs` compares the
//! result with `pulldown-cmark` on every note of the corpora and on generated notes, and
//! `tests/oracle/mod.rs` lists where and why the two are allowed to differ.
//!
//! Deliberate difference: an indented (4-space) code block at the top level is *not* code (the
//! vault spec's rule; people indent prose), but it stays a block of its own, so the lines after
//! it are structured as CommonMark structures them. Its lines are read like a paragraph: code
//! spans inside are code.
//!
//! Every step looks at each byte a bounded number of times (container nesting is capped at
//! `MAX_DEPTH` for blank lines, code-span closers are found through a table of next runs):
//! the cost is linear in the note.

use std::ops::Range;

mod blocks;
mod inline;

use blocks::{
    atx_heading, fence_open, html_block_ends, html_block_start, is_space, list_marker,
    setext_underline, thematic_break,
};
pub(super) use inline::html_tag_len;
use inline::{RAW, autolink_len, raw_kind};

/// The code in `body`: fenced code blocks (from the opening fence to the end of the closing
/// fence line, or to the end of the block's container) and inline code spans (backticks
/// included), in text order, not overlapping. `body` is a note without its frontmatter.
pub fn code_ranges(body: &str) -> Vec<Range<usize>> {
    let mut s = Scanner::new(body.as_bytes());
    s.run();
    s.out.sort_by_key(|r| r.start);
    s.out
}

/// The HTML blocks of `text`, CommonMark's seven kinds, wherever a block can start: each from
/// its first line to the end of its last (a blank line ends kinds 6 and 7 and is not part of
/// them), in text order. Obsidian reads no tag inside one.
pub fn html_block_ranges(text: &str) -> Vec<Range<usize>> {
    let mut s = Scanner::new(text.as_bytes());
    s.run();
    s.html
}

/// Containers nested deeper than this are not opened (their markers are read as text): every
/// line, blank ones included, is matched against every open container, so an unbounded depth
/// (`- - - - … x` opens one list per two bytes) would make a note of blank lines quadratic.
const MAX_DEPTH: usize = 100;

#[cfg(test)]
thread_local! {
    /// Steps the scanner took on this thread (loop turns and bytes looked at); test builds
    /// only, so a test can tell linear from quadratic growth by counting instead of timing.
    static WORK: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Counts `n` steps of work (nothing outside tests).
#[inline(always)]
fn work(n: usize) {
    #[cfg(test)]
    WORK.with(|w| w.set(w.get() + n as u64));
    #[cfg(not(test))]
    let _ = n;
}

/// An open container block.
#[derive(Debug, Clone, Copy)]
enum Container {
    Quote,
    /// A list item: `width` is the column its content starts at, relative to the column the
    /// item's marker line started at after its parents (the marker's indent, marker and padding).
    Item {
        width: usize,
        has_child: bool,
    },
}

/// The open leaf block of the innermost container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Leaf {
    None,
    /// A paragraph; its lines are in `Scanner::para`.
    Para,
    /// An indented code block (read like a paragraph, see the module comment).
    Indented,
    /// A fenced code block: fence character, fence length, where the opening fence starts and
    /// where the last line that belongs to the block ends.
    Fence {
        ch: u8,
        len: usize,
        start: usize,
        end: usize,
    },
    /// An HTML block of one of CommonMark's seven kinds, where it starts and where the last
    /// line that belongs to it ends.
    Html {
        kind: u8,
        start: usize,
        end: usize,
    },
}

/// A position in the current line: byte offset and visual column (tabs stop every 4 columns).
/// A tab partly consumed by a container leaves `pos` on the tab and `col` inside it.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    pos: usize,
    col: usize,
    /// Columns of a tab before a quote's `>` that the quote's indent did not use: pulldown-cmark
    /// counts them as whitespace after the `>` (`\t>` in a quote: three columns before the
    /// marker, one after it, eaten by the marker's optional space).
    virt: usize,
}

/// What the block structure of the current line is so far.
struct Line {
    end: usize,
    /// How many open containers the line continued.
    matched: usize,
    all_matched: bool,
    /// A paragraph was open when the line began.
    para_open: bool,
    /// A new block opened on this line (the containers it did not continue are closed).
    opened: bool,
}

/// What starts where a line's content begins.
enum Start {
    /// A container, and the cursor inside it where the rest of the line is read.
    Container(Cursor),
    /// A leaf block that took the rest of the line.
    Leaf,
    Nothing,
}

struct Scanner<'a> {
    b: &'a [u8],
    containers: Vec<Container>,
    leaf: Leaf,
    /// Content ranges of the lines of the open paragraph (or indented block).
    para: Vec<Range<usize>>,
    out: Vec<Range<usize>>,
    /// The HTML blocks, closed ones only (see [`html_block_ranges`]).
    html: Vec<Range<usize>>,
    /// Reused by the code-span matcher.
    runs: Vec<Run>,
    comments: Vec<Range<usize>>,
}

/// A run of backticks inside a paragraph.
#[derive(Debug, Clone, Copy)]
struct Run {
    start: usize,
    len: usize,
    /// Preceded by a backslash that is not itself escaped: the first backtick is literal text.
    escaped: bool,
}

impl<'a> Scanner<'a> {
    fn new(b: &'a [u8]) -> Self {
        Scanner {
            b,
            containers: Vec::new(),
            leaf: Leaf::None,
            para: Vec::new(),
            out: Vec::new(),
            html: Vec::new(),
            runs: Vec::new(),
            comments: Vec::new(),
        }
    }

    fn run(&mut self) {
        let len = self.b.len();
        let mut pos = 0;
        while pos < len {
            let nl = memchr::memchr(b'\n', &self.b[pos..]).map_or(len, |i| pos + i);
            work(nl - pos + 1);
            // a CR before the line feed belongs to the line break
            let end = if nl > pos && self.b[nl - 1] == b'\r' {
                nl - 1
            } else {
                nl
            };
            self.line(pos, end);
            pos = if nl < len { nl + 1 } else { len };
        }
        self.close_leaf();
    }

    /// Columns of spaces and tabs from `c`, and the cursor at the first other byte.
    fn indent(&self, c: Cursor, end: usize) -> (usize, Cursor) {
        let mut p = c.pos;
        let mut col = c.col;
        while p < end {
            match self.b[p] {
                b' ' => col += 1,
                b'\t' => col = (col / 4 + 1) * 4,
                _ => break,
            }
            p += 1;
        }
        work(p - c.pos + 1);
        (
            c.virt + col - c.col,
            Cursor {
                pos: p,
                col,
                virt: 0,
            },
        )
    }

    /// Whether `pos..end` holds only whitespace (a vertical tab and a form feed count, as for
    /// pulldown-cmark: a line of them is blank).
    fn blank_from(&self, pos: usize, end: usize) -> bool {
        let rest = &self.b[pos.min(end)..end];
        let first_other = rest.iter().position(|&b| !is_space(b));
        work(first_other.map_or(rest.len(), |i| i + 1));
        first_other.is_none()
    }

    /// Moves `c` forward by `n` columns of whitespace, splitting a tab when needed.
    fn advance_cols(&self, c: &mut Cursor, mut n: usize, end: usize) {
        let from_virt = c.virt.min(n);
        c.virt -= from_virt;
        n -= from_virt;
        while n > 0 && c.pos < end {
            work(1);
            match self.b[c.pos] {
                b'\t' => {
                    let to_stop = 4 - c.col % 4;
                    if to_stop > n {
                        c.col += n;
                        return;
                    }
                    c.col += to_stop;
                    c.pos += 1;
                    n -= to_stop;
                }
                b' ' => {
                    c.col += 1;
                    c.pos += 1;
                    n -= 1;
                }
                _ => return,
            }
        }
    }

    fn line(&mut self, start: usize, end: usize) {
        // 1. which open containers does this line continue?
        let (matched, cur) = self.continue_containers(
            Cursor {
                pos: start,
                col: 0,
                virt: 0,
            },
            end,
        );
        let all_matched = matched == self.containers.len();
        // 2. a fence, HTML block or indented block in a fully continued container goes on
        if all_matched && self.continue_leaf(cur, end) {
            return;
        }
        // 3. new blocks
        let mut line = Line {
            end,
            matched,
            all_matched,
            para_open: self.leaf == Leaf::Para,
            opened: false,
        };
        let mut cur = cur;
        loop {
            work(1);
            let (ind, first) = self.indent(cur, end);
            let blank = self.blank_from(first.pos, end);
            if ind < 4 && !blank {
                match self.block_start(&mut line, ind, first) {
                    Start::Container(inside) => {
                        cur = inside;
                        continue;
                    }
                    Start::Leaf => return,
                    Start::Nothing => {}
                }
            }
            // 4. no block starts here: indented code, text, a lazy continuation or a blank line
            self.text(&mut line, cur, first, ind, blank);
            return;
        }
    }

    /// How many open containers the line continues, and the cursor after their markers.
    fn continue_containers(&mut self, mut cur: Cursor, end: usize) -> (usize, Cursor) {
        let mut matched = 0;
        while matched < self.containers.len() {
            work(1);
            let inside = match self.containers[matched] {
                Container::Quote => self.continue_quote(cur, end),
                Container::Item { width, has_child } => {
                    self.continue_item(cur, end, width, has_child)
                }
            };
            let Some(inside) = inside else { break };
            cur = inside;
            matched += 1;
        }
        (matched, cur)
    }

    fn continue_quote(&self, cur: Cursor, end: usize) -> Option<Cursor> {
        // up to 3 columns of indent before `>`, as pulldown-cmark counts them: a tab that
        // starts within those columns counts as reaching the marker, and the columns of it
        // past the third count after the marker
        let mut q = cur;
        let mut used = q.virt;
        while used < 3 && q.pos < end && matches!(self.b[q.pos], b' ' | b'\t') {
            let w = if self.b[q.pos] == b'\t' {
                4 - q.col % 4
            } else {
                1
            };
            used += w;
            q.col += w;
            q.pos += 1;
        }
        if q.pos >= end || self.b[q.pos] != b'>' {
            return None;
        }
        let mut inside = Cursor {
            pos: q.pos + 1,
            col: q.col + 1,
            virt: used.saturating_sub(3),
        };
        // one optional space (or one column of a tab) after `>`
        if inside.virt > 0 || inside.pos < end && matches!(self.b[inside.pos], b' ' | b'\t') {
            self.advance_cols(&mut inside, 1, end);
        }
        Some(inside)
    }

    fn continue_item(
        &self,
        mut cur: Cursor,
        end: usize,
        width: usize,
        has_child: bool,
    ) -> Option<Cursor> {
        let (ind, first) = self.indent(cur, end);
        if self.blank_from(first.pos, end) {
            // an item that began with a blank line and holds nothing yet ends at the next
            // blank line
            return has_child.then_some(first);
        }
        if ind < width {
            return None;
        }
        self.advance_cols(&mut cur, width, end);
        Some(cur)
    }

    /// Continues an open fence, HTML block or indented block with this line; whether the line
    /// was taken.
    fn continue_leaf(&mut self, mut cur: Cursor, end: usize) -> bool {
        match self.leaf {
            Leaf::Fence { ch, len, start, .. } => {
                let (ind, first) = self.indent(cur, end);
                if ind <= 3 && self.closes_fence(first.pos, end, ch, len) {
                    self.out.push(start..end);
                    self.leaf = Leaf::None;
                } else {
                    self.leaf = Leaf::Fence {
                        ch,
                        len,
                        start,
                        end,
                    };
                }
                true
            }
            Leaf::Html { kind, start, .. } => {
                let (_, first) = self.indent(cur, end);
                // kinds 6 and 7 end at a blank line (not theirs), the others at their end marker
                if kind >= 6 && self.blank_from(first.pos, end) {
                    self.close_leaf();
                } else if kind < 6 && html_block_ends(kind, &self.b[cur.pos..end]) {
                    self.html.push(start..end);
                    self.leaf = Leaf::None;
                } else {
                    self.leaf = Leaf::Html { kind, start, end };
                }
                true
            }
            Leaf::Indented => {
                let (ind, first) = self.indent(cur, end);
                if self.blank_from(first.pos, end) {
                    return true;
                }
                if ind >= 4 {
                    self.advance_cols(&mut cur, 4, end);
                    self.para.push(cur.pos..end);
                    return true;
                }
                self.close_leaf();
                false
            }
            Leaf::None | Leaf::Para => false,
        }
    }

    /// A block that starts at `first` (not indented, not blank): a container to read the rest
    /// of the line in, a leaf that takes the line, or nothing.
    fn block_start(&mut self, line: &mut Line, ind: usize, first: Cursor) -> Start {
        let (p, end) = (first.pos, line.end);
        let rest = &self.b[p..end];
        // the paragraph can be interrupted only where it is open, not lazily, and once a
        // container opened on this line, the paragraph before is closed
        let interrupts_para = line.all_matched && line.para_open && !line.opened;
        let para_now = self.leaf == Leaf::Para;
        let room = self.containers.len() < MAX_DEPTH;
        if room && rest[0] == b'>' {
            self.open(line);
            self.push_container(Container::Quote);
            let mut inside = Cursor {
                pos: p + 1,
                col: first.col + 1,
                virt: 0,
            };
            if inside.pos < end && matches!(self.b[inside.pos], b' ' | b'\t') {
                self.advance_cols(&mut inside, 1, end);
            }
            return Start::Container(inside);
        }
        if let Some(level_end) = atx_heading(rest) {
            self.start_leaf(line, Leaf::None);
            self.para.push(p + level_end..end);
            self.spans_of_para();
            return Start::Leaf;
        }
        if let Some((ch, len)) = fence_open(rest) {
            let fence = Leaf::Fence {
                ch,
                len,
                start: p,
                end,
            };
            self.start_leaf(line, fence);
            return Start::Leaf;
        }
        if rest[0] == b'<'
            && let Some(kind) = html_block_start(rest, para_now)
        {
            let closed_at_once = kind <= 5 && html_block_ends(kind, rest);
            let html = Leaf::Html {
                kind,
                start: p,
                end,
            };
            self.start_leaf(line, html);
            if closed_at_once {
                self.close_leaf();
            }
            return Start::Leaf;
        }
        if interrupts_para && setext_underline(rest) {
            // the paragraph becomes a heading: its lines stay inline content
            self.close_leaf();
            return Start::Leaf;
        }
        if thematic_break(rest) {
            self.start_leaf(line, Leaf::None);
            return Start::Leaf;
        }
        if room && let Some((marker, blank_after)) = list_marker(rest, interrupts_para) {
            return Start::Container(self.open_item(line, ind, first, marker, blank_after));
        }
        Start::Nothing
    }

    /// Opens a leaf block on this line (closing the leaf before it).
    fn start_leaf(&mut self, line: &mut Line, leaf: Leaf) {
        self.open(line);
        self.close_leaf();
        self.mark_child();
        self.leaf = leaf;
    }

    /// Opens a list item whose marker (`marker` bytes) starts at `first`; the cursor where its
    /// content starts.
    fn open_item(
        &mut self,
        line: &mut Line,
        ind: usize,
        first: Cursor,
        marker: usize,
        blank_after: bool,
    ) -> Cursor {
        let end = line.end;
        self.open(line);
        self.close_leaf();
        let after_marker = Cursor {
            pos: first.pos + marker,
            col: first.col + marker,
            virt: 0,
        };
        // columns of whitespace after the marker, tab stops counted from the line
        let (spaces_cols, _) = self.indent(after_marker, end);
        // the content column: indent + marker + padding (1 when the item starts blank or with
        // indented code)
        let pad = if blank_after || spaces_cols >= 5 {
            1
        } else {
            spaces_cols
        };
        self.push_container(Container::Item {
            width: ind + marker + pad,
            has_child: false,
        });
        let mut inside = after_marker;
        if !blank_after {
            self.advance_cols(&mut inside, pad, end);
        }
        inside
    }

    /// A line where no block starts at `first`: indented code, paragraph text (maybe a lazy
    /// continuation) or a blank line.
    fn text(&mut self, line: &mut Line, mut cur: Cursor, first: Cursor, ind: usize, blank: bool) {
        let (p, end) = (first.pos, line.end);
        let para_now = self.leaf == Leaf::Para;
        if ind >= 4 && !blank && !para_now {
            self.start_leaf(line, Leaf::Indented);
            self.advance_cols(&mut cur, 4, end);
            self.para.push(cur.pos..end);
            return;
        }
        if !line.opened && !line.all_matched && line.para_open && !blank {
            // lazy continuation: the unmatched containers stay open
            self.para.push(p..end);
            return;
        }
        self.open(line);
        if blank {
            if self.leaf == Leaf::Para {
                self.close_leaf();
            }
            return;
        }
        if self.leaf != Leaf::Para {
            self.close_leaf();
            self.mark_child();
            self.leaf = Leaf::Para;
        }
        self.para.push(p..end);
    }

    /// Before the first new block of a line (or its text): the containers the line did not
    /// continue are closed, with whatever leaf was open in them.
    fn open(&mut self, line: &mut Line) {
        if line.opened {
            return;
        }
        line.opened = true;
        if line.matched < self.containers.len() {
            self.close_leaf();
            self.containers.truncate(line.matched);
        }
    }

    fn push_container(&mut self, c: Container) {
        self.close_leaf();
        self.mark_child();
        self.containers.push(c);
    }

    /// The innermost container now has a child block (a list item that started blank ends at
    /// a blank line only while it has none).
    fn mark_child(&mut self) {
        if let Some(Container::Item { has_child, .. }) = self.containers.last_mut() {
            *has_child = true;
        }
    }

    fn close_leaf(&mut self) {
        match self.leaf {
            Leaf::Fence { start, end, .. } => self.out.push(start..end),
            Leaf::Para | Leaf::Indented => self.spans_of_para(),
            Leaf::Html { start, end, .. } => self.html.push(start..end),
            Leaf::None => {}
        }
        self.leaf = Leaf::None;
        self.para.clear();
    }

    fn closes_fence(&self, p: usize, end: usize, ch: u8, len: usize) -> bool {
        let line = &self.b[p..end];
        work(line.len() + 1);
        let run = line.iter().take_while(|&&b| b == ch).count();
        // only spaces may follow (the vault spec; pulldown-cmark reads a tab as content too)
        run >= len && line[run..].iter().all(|&b| b == b' ')
    }

    /// Code spans of the paragraph whose line contents are in `self.para`: a run of N backticks
    /// up to the next run of exactly N backticks (an escaped run opens with one backtick fewer
    /// and closes with all of them, as in CommonMark: backslashes are literal inside code).
    fn spans_of_para(&mut self) {
        let closes = self.collect_runs_and_html();
        self.para.clear();
        if self.runs.is_empty() {
            return;
        }
        self.close_raw_html(&closes);
        self.match_runs();
    }

    /// The backtick runs and inline HTML starts of the paragraph, and where each kind of raw
    /// HTML could close.
    fn collect_runs_and_html(&mut self) -> [Vec<usize>; RAW.len()] {
        self.runs.clear();
        self.comments.clear();
        let mut closes: [Vec<usize>; RAW.len()] = Default::default();
        for line in &self.para {
            let bytes = &self.b[line.clone()];
            work(bytes.len() + 1);
            let mut i = 0;
            while let Some(off) = memchr::memchr(b'`', &bytes[i..]) {
                let at = i + off;
                let len = bytes[at..].iter().take_while(|&&b| b == b'`').count();
                let slashes = bytes[..at]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                work(len + slashes + 1);
                self.runs.push(Run {
                    start: line.start + at,
                    len,
                    escaped: slashes % 2 == 1,
                });
                i = at + len;
            }
            // inline HTML that starts before a backtick run takes precedence over it, as in
            // CommonMark: comments (which may run over lines), tags and autolinks (on one line)
            for at in memchr::memchr_iter(b'<', bytes) {
                let slashes = bytes[..at]
                    .iter()
                    .rev()
                    .take_while(|&&b| b == b'\\')
                    .count();
                if slashes % 2 == 1 {
                    continue;
                }
                let from = &bytes[at..];
                // an autolink is tried first, as CommonMark parsers do (`<!--x@y>` is an email)
                if let Some(len) = autolink_len(from) {
                    self.comments.push(line.start + at..line.start + at + len);
                } else if let Some(kind) = raw_kind(from) {
                    // closed later: (start, kind) until the end is known
                    self.comments.push(line.start + at..usize::MAX - kind);
                } else if let Some(len) = html_tag_len(from) {
                    self.comments.push(line.start + at..line.start + at + len);
                }
            }
            // a comment may close on a later line of the paragraph
            if !self.comments.is_empty() {
                for (k, (_, close)) in RAW.iter().enumerate() {
                    closes[k]
                        .extend(memchr::memmem::find_iter(bytes, close).map(|at| line.start + at));
                }
            }
        }
        closes
    }

    /// Ends each raw HTML start at its first closer: an inline comment, processing
    /// instruction, declaration or CDATA section that starts before a backtick run takes
    /// precedence over it, as in CommonMark; unclosed, it is text and dropped.
    fn close_raw_html(&mut self, closes: &[Vec<usize>; RAW.len()]) {
        let mut next_close = [0usize; RAW.len()];
        for comment in &mut self.comments {
            let Some(kind) = usize::MAX
                .checked_sub(comment.end)
                .filter(|k| *k < RAW.len())
            else {
                continue;
            };
            let s = comment.start;
            let (open, close) = RAW[kind];
            let after = &self.b[s + open.len()..];
            comment.end = if kind == 0 && after.starts_with(b">") {
                s + 5
            } else if kind == 0 && after.starts_with(b"->") {
                s + 6
            } else {
                let from = if kind == 3 { s + 2 } else { s + open.len() };
                let list = &closes[kind];
                let c = &mut next_close[kind];
                while *c < list.len() && list[*c] < from {
                    *c += 1;
                }
                list.get(*c).map_or(usize::MAX, |&e| e + close.len())
            };
        }
        self.comments.retain(|r| r.end != usize::MAX);
    }

    /// Pairs backtick runs into code spans, skipping what inline HTML took first.
    fn match_runs(&mut self) {
        // for each run, the next run of each length, found right to left, so that every
        // opener finds its closer in constant time (a paragraph of many unmatched runs of
        // different lengths would otherwise be quadratic)
        let n = self.runs.len();
        let max_len = self.runs.iter().map(|r| r.len).max().unwrap_or(0);
        let mut next_of_len = vec![usize::MAX; max_len + 1];
        let mut closer = vec![usize::MAX; n];
        work(n + max_len);
        for i in (0..n).rev() {
            let r = self.runs[i];
            let want = r.len - usize::from(r.escaped);
            if want > 0 {
                closer[i] = next_of_len[want];
            }
            next_of_len[r.len] = i;
        }
        // left to right: everything before `pos` is taken (by a code span or a comment)
        let mut pos = 0;
        let (mut i, mut ci) = (0, 0);
        while i < n {
            work(1);
            if self.runs[i].start < pos {
                i += 1;
                continue;
            }
            while ci < self.comments.len() && self.comments[ci].start < pos {
                ci += 1;
            }
            if let Some(comment) = self.comments.get(ci)
                && comment.start < self.runs[i].start
            {
                pos = comment.end;
                ci += 1;
                continue;
            }
            let j = closer[i];
            let r = self.runs[i];
            if j != usize::MAX {
                let c = self.runs[j];
                self.out
                    .push(r.start + usize::from(r.escaped)..c.start + c.len);
                pos = c.start + c.len;
                i = j + 1;
            } else {
                pos = r.start + r.len;
                i += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
