//! One parsed note: everything later questions about a note need, without reading it again.
//!
//! Parsing follows Obsidian: a leading BOM is ignored, the frontmatter is the closed `---`
//! block at the top and must be a YAML mapping, links and tags are read outside code and
//! comments (see [`markdown`]). Tags come from the text (`#tag` where Obsidian reads one, see
//! [`markdown::inline_tags`]) and from the `tags`/`tag` property; aliases from
//! `aliases`/`alias` (keys in any case). A parsed note is serialisable, which is how the persistent index stores it.

use std::ops::Range;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use yaml_serde::{Mapping, Value};

use super::markdown::{self, FrontmatterBlock, Heading, MarkdownLink, Task, WikiLink};
use super::yaml_lite;

/// The state of a note's frontmatter. The mapping itself is read lazily
/// ([`Note::properties`]): most passes over a vault only need what is derived from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Frontmatter {
    /// No closed `---` block at the top of the note.
    Absent,
    /// A block that parses to a mapping (an empty block gives an empty mapping).
    Parsed,
    /// A block that did not parse, or parsed to something other than a mapping.
    Invalid {
        /// 1-based line of the note where the problem is (the first YAML line, 2, when the
        /// problem has no position: not a mapping, or too large to parse).
        line: usize,
        /// What is wrong, in words.
        message: String,
    },
}

/// A Markdown note, parsed once.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Note {
    /// Vault-relative path with `/` separators.
    pub path: String,
    /// Whether the note has frontmatter and whether it parsed.
    pub frontmatter: Frontmatter,
    /// The YAML text of the frontmatter block, when there is one.
    pub(crate) frontmatter_yaml: Option<String>,
    /// The parsed mapping, filled on first use (a note read from the index parses it only if
    /// someone asks for a property).
    #[serde(skip)]
    properties_cache: OnceLock<Option<Box<Mapping>>>,
    /// Byte range of the frontmatter block in the text, when there is a closed block.
    pub frontmatter_block: Option<FrontmatterBlock>,
    /// The `[[links]]` and `![[embeds]]` of the body, in text order (frontmatter excluded).
    /// [`Vault::resolved`](crate::Vault::resolved) is parallel to it.
    pub wikilinks: Vec<WikiLink>,
    /// The `[text](path)` links and `![alt](path)` images of the body that point to local
    /// files, in text order.
    pub markdown_links: Vec<MarkdownLink>,
    /// `[[links]]` written inside the frontmatter (e.g. `up: "[[Home]]"`): not counted in the
    /// stats, but kept pointing at their note when it moves.
    pub frontmatter_links: Vec<WikiLink>,
    /// Inline tags, then frontmatter tags, as written (without `#`).
    pub tags: Vec<String>,
    /// The aliases from the `aliases`/`alias` property, as written. Aliases never resolve
    /// links (Obsidian only offers them when linking).
    pub aliases: Vec<String>,
    pub(crate) headings: Vec<Heading>,
    pub(crate) block_ids: Vec<String>,
    /// The task list items (`- [ ] …`), in text order.
    pub tasks: Vec<Task>,
    /// Whether the bytes on disk were not valid UTF-8 (the text was read lossily).
    pub invalid_utf8: bool,
    /// Byte length of the body (text after the frontmatter block).
    pub body_len: usize,
    /// Size of the note's bytes (as read, BOM included).
    pub size: u64,
    /// Modification time, seconds since the Unix epoch.
    pub modified: i64,
}

impl Note {
    /// Parses a note from its raw bytes; `path` is its vault-relative path. Bytes that are not
    /// UTF-8 are replaced (and [`Note::invalid_utf8`] set) rather than refused.
    pub fn parse(path: impl Into<String>, bytes: &[u8]) -> Note {
        let (text, invalid_utf8) = match std::str::from_utf8(bytes) {
            Ok(t) => (std::borrow::Cow::Borrowed(t), false),
            Err(_) => (String::from_utf8_lossy(bytes), true),
        };
        let mut note = Note::parse_text(path, &text);
        note.invalid_utf8 = invalid_utf8;
        note.size = bytes.len() as u64;
        note
    }

    /// Parses a note from its text (a leading BOM is ignored).
    pub fn parse_text(path: impl Into<String>, text: &str) -> Note {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let body_text = &text[bom..];
        let block = markdown::split_frontmatter(body_text);
        let (frontmatter, mapping, fm_tags, aliases) = match &block {
            None => (Frontmatter::Absent, None, Vec::new(), Vec::new()),
            Some(b) => {
                let yaml = &body_text[b.yaml.clone()];
                match yaml_lite::extract(yaml) {
                    // the mapping itself is parsed later, if anyone asks for a property
                    Some(x) => (Frontmatter::Parsed, None, x.tags, x.aliases),
                    None => {
                        let (fm, map) = parse_yaml_block(yaml);
                        let (tags, aliases) = tags_and_aliases(map.as_ref());
                        (fm, map, tags, aliases)
                    }
                }
            }
        };
        let frontmatter_yaml = block
            .as_ref()
            .map(|b| body_text[b.yaml.clone()].to_string());
        // only the body is scanned; spans and line numbers are shifted back to the whole text
        let body_start = block.as_ref().map_or(0, |b| b.block.end);
        let masked = markdown::mask_body(&body_text[body_start..]);
        let offset = bom + body_start;
        let line_offset = memchr::memchr_iter(b'\n', &body_text.as_bytes()[..body_start]).count();
        let shift_body = |r: Range<usize>| r.start + offset..r.end + offset;
        let shift = |r: Range<usize>| r.start + bom..r.end + bom;
        let markdown::Structure {
            mut headings,
            block_ids,
            mut tasks,
            breaks,
        } = markdown::structure(&masked);
        let block_at = |at: usize| breaks.partition_point(|&b| b < at) as u32;
        let mut wikilinks = markdown::wikilinks(&masked);
        for l in &mut wikilinks {
            l.block = block_at(l.span.start);
            l.span = shift_body(l.span.clone());
        }
        let mut markdown_links = markdown::markdown_links(&masked);
        for l in &mut markdown_links {
            l.block = block_at(l.span.start);
            l.span = shift_body(l.span.clone());
            l.dest_span = shift_body(l.dest_span.clone());
        }
        let mut tags: Vec<String> = markdown::inline_tags(&masked)
            .into_iter()
            .map(|t| t.1)
            .collect();
        tags.extend(fm_tags);
        for h in &mut headings {
            h.line += line_offset;
        }
        for t in &mut tasks {
            t.line += line_offset;
        }
        let mut frontmatter_links = block
            .as_ref()
            .map(|b| markdown::wikilinks(&body_text[b.yaml.clone()]))
            .unwrap_or_default();
        let yaml_start = block.as_ref().map_or(0, |b| b.yaml.start);
        for l in &mut frontmatter_links {
            l.span = l.span.start + yaml_start + bom..l.span.end + yaml_start + bom;
        }
        let frontmatter_block = block.map(|mut b| {
            b.yaml = shift(b.yaml);
            b.block = shift(b.block);
            b
        });
        let body_len = text.len() - frontmatter_block.as_ref().map_or(bom, |b| b.block.end);
        // a vault holds every note at once: lists are kept at their exact length
        wikilinks.shrink_to_fit();
        markdown_links.shrink_to_fit();
        tags.shrink_to_fit();
        headings.shrink_to_fit();
        tasks.shrink_to_fit();
        Note {
            path: path.into(),
            frontmatter,
            frontmatter_yaml,
            properties_cache: mapping
                .map_or_else(OnceLock::new, |m| OnceLock::from(Some(Box::new(m)))),
            frontmatter_block,
            wikilinks,
            markdown_links,
            frontmatter_links,
            tags,
            aliases,
            headings,
            block_ids,
            tasks,
            invalid_utf8: false,
            body_len,
            size: text.len() as u64,
            modified: 0,
        }
    }

    /// The note's name: its file name without `.md`, what a `[[link]]` by name matches.
    pub fn name(&self) -> &str {
        let file = self.path.rsplit('/').next().unwrap_or(&self.path);
        file.strip_suffix(".md").unwrap_or(file)
    }

    /// The folder holding the note ("" at the vault root).
    pub fn folder(&self) -> &str {
        self.path.rsplit_once('/').map_or("", |(dir, _)| dir)
    }

    /// The frontmatter mapping, when it parsed. Parsed on first call and kept: notes from the
    /// persistent index and most passes over a vault never need it.
    pub fn properties(&self) -> Option<&Mapping> {
        if self.frontmatter != Frontmatter::Parsed {
            return None;
        }
        self.properties_cache
            .get_or_init(|| {
                parse_yaml_block(self.frontmatter_yaml.as_deref().unwrap_or(""))
                    .1
                    .map(Box::new)
            })
            .as_deref()
    }

    /// A frontmatter value by key (exact key first, then case-insensitive).
    pub fn property(&self, key: &str) -> Option<&Value> {
        property_in(self.properties()?, key)
    }

    /// Asks the flat-frontmatter fast path, when the mapping has not been parsed already;
    /// `None` when the fast path cannot answer (the caller then uses the mapping).
    fn fast<T>(&self, ask: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        if self.properties_cache.get().is_some() || self.frontmatter != Frontmatter::Parsed {
            return None;
        }
        ask(self.frontmatter_yaml.as_deref().unwrap_or(""))
    }

    /// A frontmatter value as text (strings, numbers and booleans; `None` for lists, mappings
    /// and null). The key is matched exactly first, then in any case.
    pub fn property_str(&self, key: &str) -> Option<String> {
        match self.fast(|yaml| yaml_lite::lookup_str(yaml, key)) {
            Some(answer) => answer,
            None => self.property(key).and_then(scalar_to_string),
        }
    }

    /// Whether the frontmatter's text contains `needle` in any ASCII case: a cheap test that
    /// rules a note out before its properties are read (a note typed `moc` contains "moc").
    pub fn frontmatter_mentions(&self, needle: &str) -> bool {
        let Some(yaml) = self.frontmatter_yaml.as_deref() else {
            return false;
        };
        let needle = needle.as_bytes();
        !needle.is_empty()
            && yaml
                .as_bytes()
                .windows(needle.len())
                .any(|w| w.eq_ignore_ascii_case(needle))
    }

    /// Whether the frontmatter has a key (in any case), whatever its value.
    pub fn has_property(&self, key: &str) -> bool {
        self.fast(|yaml| yaml_lite::has_key(yaml, key))
            .unwrap_or_else(|| self.property(key).is_some())
    }

    /// The tags written in the frontmatter (`tags`/`tag`), as written.
    pub fn frontmatter_tag_list(&self) -> Vec<String> {
        match self.fast(yaml_lite::extract) {
            Some(x) => x.tags,
            None => self.properties().map(frontmatter_tags).unwrap_or_default(),
        }
    }

    /// Every frontmatter value that is text (strings, numbers, booleans), in order.
    pub fn property_texts(&self) -> Vec<String> {
        if let Some(texts) = self.fast(yaml_lite::texts) {
            return texts;
        }
        self.properties()
            .map(|m| m.values().filter_map(scalar_to_string).collect())
            .unwrap_or_default()
    }

    /// Lower-cased, de-duplicated tags.
    pub fn tags_normalized(&self) -> Vec<String> {
        let mut tags: Vec<String> = self.tags.iter().map(|t| t.to_lowercase()).collect();
        tags.sort();
        tags.dedup();
        tags
    }
}

/// A value by key: the exact key first, then the first key equal in any (ASCII) case.
pub(crate) fn property_in<'a>(map: &'a Mapping, key: &str) -> Option<&'a Value> {
    map.get(key).or_else(|| {
        map.iter()
            .find(|(k, _)| k.as_str().is_some_and(|k| k.eq_ignore_ascii_case(key)))
            .map(|(_, v)| v)
    })
}

/// Renders a YAML scalar as text (a tagged scalar by its value); `None` for null, sequences
/// and mappings.
pub fn scalar_to_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(t) => scalar_to_string(&t.value),
        _ => None,
    }
}

fn tags_and_aliases(map: Option<&Mapping>) -> (Vec<String>, Vec<String>) {
    map.map_or_else(Default::default, |m| {
        (frontmatter_tags(m), frontmatter_aliases(m))
    })
}

/// The full parse's verdict, tags and aliases for a frontmatter block (the reference the fast
/// path is checked against).
#[cfg(test)]
pub(crate) fn full_extract(yaml: &str) -> (Frontmatter, Vec<String>, Vec<String>) {
    let (fm, map) = parse_yaml_block(yaml);
    let (tags, aliases) = tags_and_aliases(map.as_ref());
    (fm, tags, aliases)
}

/// The most YAML handed to the full parser: the fast path reads any size in linear time, but
/// a block it declines goes to `yaml_serde`, whose time on huge hostile blocks is not bounded
/// well enough to run with the vault lock held.
pub(crate) const FULL_YAML_CAP: usize = 256 * 1024;

fn parse_yaml_block(yaml: &str) -> (Frontmatter, Option<Mapping>) {
    if yaml.trim().is_empty() {
        return (Frontmatter::Parsed, Some(Mapping::new()));
    }
    if yaml.len() > FULL_YAML_CAP {
        return (
            Frontmatter::Invalid {
                line: 2,
                message: format!(
                    "frontmatter of {} bytes in a shape crew reads only up to {FULL_YAML_CAP} bytes; crew leaves it alone",
                    yaml.len()
                ),
            },
            None,
        );
    }
    match yaml_serde::from_str::<Value>(yaml) {
        Ok(Value::Mapping(m)) => (Frontmatter::Parsed, Some(m)),
        Ok(Value::Null) => (Frontmatter::Parsed, Some(Mapping::new())),
        Ok(other) => (
            Frontmatter::Invalid {
                line: 2,
                message: format!(
                    "frontmatter is a {}, not a mapping of keys",
                    kind_of(&other)
                ),
            },
            None,
        ),
        Err(e) => (
            Frontmatter::Invalid {
                // +1 for the opening fence line
                line: e.location().map_or(2, |l| l.line() + 1),
                message: e.to_string(),
            },
            None,
        ),
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Sequence(_) => "list",
        Value::Mapping(_) => "mapping",
        Value::Tagged(_) => "tagged value",
    }
}

fn values_for<'a>(map: &'a Mapping, keys: &[&str]) -> Vec<&'a Value> {
    map.iter()
        .filter(|(k, _)| {
            k.as_str()
                .is_some_and(|k| keys.iter().any(|want| k.eq_ignore_ascii_case(want)))
        })
        .map(|(_, v)| v)
        .collect()
}

/// Tags from `tags`/`tag`: a list, or a string split on commas and spaces; `#` dropped.
pub(crate) fn frontmatter_tags(map: &Mapping) -> Vec<String> {
    let mut out = Vec::new();
    let mut push = |raw: &str| {
        let t = raw.trim();
        let t = t.strip_prefix('#').unwrap_or(t);
        if !t.is_empty() {
            out.push(t.to_string());
        }
    };
    for v in values_for(map, &["tags", "tag"]) {
        match v {
            Value::Sequence(items) => {
                for item in items {
                    if let Some(s) = scalar_to_string(item) {
                        push(&s);
                    }
                }
            }
            other => {
                if let Some(s) = scalar_to_string(other) {
                    for part in s.split([',', ' ']) {
                        push(part);
                    }
                }
            }
        }
    }
    out
}

/// Aliases from `aliases`/`alias`: each list item is one alias; a string is one alias.
pub(crate) fn frontmatter_aliases(map: &Mapping) -> Vec<String> {
    let mut out = Vec::new();
    for v in values_for(map, &["aliases", "alias"]) {
        match v {
            Value::Sequence(items) => out.extend(items.iter().filter_map(scalar_to_string)),
            other => out.extend(scalar_to_string(other)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_is_skipped_and_spans_stay_true() {
        let text = "\u{feff}---\na: 1\n---\nsee [[X]]";
        let note = Note::parse_text("n.md", text);
        assert!(matches!(note.frontmatter, Frontmatter::Parsed));
        let link = &note.wikilinks[0];
        assert_eq!(&text[link.span.clone()], "[[X]]");
    }

    #[test]
    fn links_know_the_paragraph_list_or_section_they_are_written_in() {
        let text = "---\nup: \"[[Home]]\"\n---\nsee [[A]] and\n- [[B]]\n- [b](B.md)\n\n[[C]]\n## More\n[[D]]\n```\n[[not a link]]\n\n```\n[[E]]\n";
        let note = Note::parse_text("n.md", text);
        let blocks: Vec<(&str, u32)> = note
            .wikilinks
            .iter()
            .map(|l| (l.target.as_str(), l.block))
            .collect();
        // a blank line, a heading and each line of a fenced block (blank once masked) is a
        // border: numbers grow, links with no border between them share one
        assert_eq!(blocks, [("A", 0), ("B", 0), ("C", 1), ("D", 2), ("E", 6)]);
        assert_eq!(note.markdown_links[0].block, 0);
    }

    #[test]
    fn invalid_yaml_is_kept_as_an_error_with_a_line() {
        let note = Note::parse_text("n.md", "---\na: 1\nb: [unclosed\n---\n#tag");
        match note.frontmatter {
            Frontmatter::Invalid { line, .. } => assert!(line >= 2),
            other => panic!("expected invalid, got {other:?}"),
        }
        assert_eq!(note.tags, vec!["tag"]);
    }

    #[test]
    fn scalar_frontmatter_is_an_error() {
        let note = Note::parse_text("n.md", "---\njust text\n---\n");
        assert!(matches!(note.frontmatter, Frontmatter::Invalid { .. }));
    }

    #[test]
    fn tags_and_aliases_from_frontmatter() {
        let note = Note::parse_text(
            "n.md",
            "---\nTags: \"a, b #c\"\nALIAS: One, Two\naliases: [x, y]\n---\n",
        );
        assert_eq!(note.tags, vec!["a", "b", "c"]);
        assert_eq!(note.aliases, vec!["One, Two", "x", "y"]);
    }

    #[test]
    fn frontmatter_links_are_not_counted() {
        let note = Note::parse_text("n.md", "---\nup: \"[[Home]]\"\n---\n[[Body]]");
        assert_eq!(note.wikilinks.len(), 1);
    }

    #[test]
    fn name_and_folder() {
        let note = Note::parse_text("a/b/My Note.md", "");
        assert_eq!(note.name(), "My Note");
        assert_eq!(note.folder(), "a/b");
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn piece() -> impl Strategy<Value = String> {
            prop::sample::select(vec![
                "[[A]]",
                "![[B|b]]",
                "#tag",
                " ",
                "\n",
                "# H\n",
                "- [ ] task\n",
                "x ^id\n",
                "```\n",
                "~~~\n",
                "`[[C]]`",
                "%%",
                "<!--",
                "-->",
                "[t](d.md)",
                "é",
                "---\n",
                "\r\n",
            ])
            .prop_map(String::from)
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            /// Scanning only the body and shifting back equals scanning the whole masked text.
            #[test]
            fn body_scan_equals_whole_text_scan(
                bom in any::<bool>(),
                fm in prop::option::of("[a-z: \\[\\]#\n]{0,20}"),
                body in prop::collection::vec(piece(), 0..30),
            ) {
                let mut text = String::new();
                if bom {
                    text.push('\u{feff}');
                }
                if let Some(fm) = &fm {
                    text.push_str(&format!("---\n{fm}\n---\n"));
                }
                text.push_str(&body.concat());
                let note = Note::parse_text("n.md", &text);
                let skip = if bom { 3 } else { 0 };
                let whole = &text[skip..];
                let block = markdown::split_frontmatter(whole);
                let masked = markdown::mask(whole, block.as_ref());
                let spans: Vec<Range<usize>> = markdown::wikilinks(&masked)
                    .into_iter()
                    .map(|l| l.span.start + skip..l.span.end + skip)
                    .collect();
                prop_assert_eq!(note.wikilinks.iter().map(|l| l.span.clone()).collect::<Vec<_>>(), spans);
                let md: Vec<Range<usize>> = markdown::markdown_links(&masked)
                    .into_iter()
                    .map(|l| l.dest_span.start + skip..l.dest_span.end + skip)
                    .collect();
                prop_assert_eq!(note.markdown_links.iter().map(|l| l.dest_span.clone()).collect::<Vec<_>>(), md);
                let st = markdown::structure(&masked);
                prop_assert_eq!(&note.headings, &st.headings);
                prop_assert_eq!(&note.block_ids, &st.block_ids);
                prop_assert_eq!(&note.tasks, &st.tasks);
                let inline: Vec<String> = markdown::inline_tags(&masked).into_iter().map(|t| t.1).collect();
                prop_assert_eq!(&note.tags[..inline.len()], &inline[..]);
            }
        }
    }
}
