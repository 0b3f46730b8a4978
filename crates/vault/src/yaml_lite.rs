//! A fast path for the frontmatter most notes have: flat `key: value` lines and simple lists.
//!
//! Reading a vault needs three things from each frontmatter block: whether it is a valid
//! mapping, its tags and its aliases; search and audits also ask for a few properties. A full
//! YAML parse into a generic value costs as much as the rest of a note's parse together, so the
//! common shapes are recognised here and anything else — anchors, block scalars, nested
//! mappings, escapes, multi-line scalars, odd keys, values that may be numbers or booleans — is
//! declined (`None`) and goes to `yaml_serde`. The contract: whenever a function here returns
//! `Some`, it equals what the full parse gives (tested differentially and fuzzed).

/// Tags and aliases of a frontmatter block that is certainly a valid mapping.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Extract {
    pub(crate) tags: Vec<String>,
    pub(crate) aliases: Vec<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Tags,
    Aliases,
    Other,
}

/// A scalar as YAML would resolve it, as far as the answers here care.
enum Scalar {
    Null,
    Str(String),
    /// A valid scalar whose type (number, boolean, …) was not worked out.
    Unknown,
}

/// Words a YAML resolver may read as something other than a string, in any case.
const NOT_PLAIN_WORDS: &[&str] = &[
    "null", "true", "false", "yes", "no", "on", "off", "y", "n", "inf", "nan", "infinity",
];

/// A value as written: one scalar, or a list of scalars.
enum Written {
    One(Scalar),
    List(Vec<Scalar>),
}

/// Recognises a frontmatter block (the text between the fences); `None` means "ask yaml_serde".
pub(crate) fn extract(yaml: &str) -> Option<Extract> {
    let mut out = Extract::default();
    for (key, value) in scan(yaml)? {
        let role = if key.eq_ignore_ascii_case("tags") || key.eq_ignore_ascii_case("tag") {
            Role::Tags
        } else if key.eq_ignore_ascii_case("aliases") || key.eq_ignore_ascii_case("alias") {
            Role::Aliases
        } else {
            Role::Other
        };
        match value {
            Written::One(v) => take_one(role, v, &mut out)?,
            Written::List(items) => take_list(role, items, &mut out)?,
        }
    }
    Some(out)
}

/// A property as text, as [`crate::Note::property_str`] gives it (exact key first, then
/// any case): `Some(None)` when the block certainly has no such text value, `None` when only
/// the full parse can tell.
pub(crate) fn lookup_str(yaml: &str, key: &str) -> Option<Option<String>> {
    let entries = scan(yaml)?;
    let found = entries.iter().position(|(k, _)| *k == key).or_else(|| {
        entries
            .iter()
            .position(|(k, _)| k.eq_ignore_ascii_case(key))
    });
    let Some(i) = found else {
        return Some(None);
    };
    match &entries[i].1 {
        Written::One(Scalar::Str(s)) => Some(Some(s.clone())),
        Written::One(Scalar::Null) | Written::List(_) => Some(None),
        Written::One(Scalar::Unknown) => None,
    }
}

/// Whether the block has a key (exactly, or in another case); `None` when only the full parse
/// can tell.
pub(crate) fn has_key(yaml: &str, key: &str) -> Option<bool> {
    Some(scan(yaml)?.iter().any(|(k, _)| k.eq_ignore_ascii_case(key)))
}

/// Every property's value as text, in order (what `scalar_to_string` gives for each value of
/// the mapping; lists and nulls give nothing). `None` when only the full parse can tell.
pub(crate) fn texts(yaml: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for (_, value) in scan(yaml)? {
        match value {
            Written::One(Scalar::Str(s)) => out.push(s),
            Written::One(Scalar::Unknown) => return None,
            Written::One(Scalar::Null) | Written::List(_) => {}
        }
    }
    Some(out)
}

/// The `key: value` entries of a block in the shapes recognised here; `None` for anything else.
fn scan(yaml: &str) -> Option<Vec<(&str, Written)>> {
    if !yaml.chars().all(allowed_char) {
        return None;
    }
    let mut out: Vec<(&str, Written)> = Vec::new();
    // a set, not a search of `out`: a block of 100,000 keys made that search quadratic
    let mut keys: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    let mut lines = yaml.split('\n').map(strip_cr).peekable();
    while let Some(line) = lines.next() {
        let line = line?;
        if is_blank_or_comment(line) {
            continue;
        }
        if line.starts_with(' ') {
            return None;
        }
        let (key, rest) = split_key(line)?;
        if !keys.insert(key) {
            return None;
        }
        let rest = rest.trim_start_matches(' ');
        if rest.is_empty() || rest.starts_with('#') {
            // a block list below, or null
            let mut indent = None;
            let mut items = Vec::new();
            while let Some(next) = lines.peek() {
                let next = (*next)?;
                if is_blank_or_comment(next) {
                    lines.next();
                    continue;
                }
                let spaces = next.len() - next.trim_start_matches(' ').len();
                let body = &next[spaces..];
                let is_item = body == "-" || body.starts_with("- ");
                if !is_item {
                    if spaces > 0 {
                        return None;
                    }
                    break;
                }
                if *indent.get_or_insert(spaces) != spaces {
                    return None;
                }
                let value = body[1..].trim_start_matches(' ');
                items.push(if value.is_empty() || value.starts_with('#') {
                    Scalar::Null
                } else {
                    scalar(value, false)?
                });
                lines.next();
            }
            let value = match indent {
                Some(_) => Written::List(items),
                None => Written::One(Scalar::Null),
            };
            out.push((key, value));
            continue;
        }
        if let Some(inner) = rest.strip_prefix('[') {
            out.push((key, Written::List(flow_list(inner)?)));
            continue;
        }
        out.push((key, Written::One(scalar(rest, false)?)));
    }
    Some(out)
}

fn strip_cr(line: &str) -> Option<&str> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    (!line.contains('\r')).then_some(line)
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim_start_matches(' ');
    t.is_empty() || t.starts_with('#')
}

/// YAML's printable characters, minus tabs and the Unicode line breaks libyaml treats specially.
fn allowed_char(c: char) -> bool {
    matches!(c, '\n' | '\r' | ' '..='~' | '\u{a0}'..='\u{2027}' | '\u{202a}'..='\u{d7ff}')
        || (('\u{e000}'..='\u{fffd}').contains(&c) && c != '\u{feff}')
        || c >= '\u{10000}'
}

/// `key: rest` with a plain, simple key: a letter or `_`, then letters, digits, `_`, `-`, `.`
/// and inner spaces.
fn split_key(line: &str) -> Option<(&str, &str)> {
    let colon = line.find(':')?;
    let key = &line[..colon];
    let rest = &line[colon + 1..];
    if !(rest.is_empty() || rest.starts_with(' ')) || key.len() > 200 || key.ends_with(' ') {
        return None;
    }
    let mut chars = key.chars();
    let first = chars.next()?;
    if !(first.is_alphabetic() || first == '_')
        || !chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ' '))
        || is_special_word(key)
    {
        return None;
    }
    Some((key, rest))
}

fn is_special_word(s: &str) -> bool {
    NOT_PLAIN_WORDS.iter().any(|w| s.eq_ignore_ascii_case(w))
}

/// One scalar written on one line (`text` is non-empty and starts with no space). In a flow
/// list (`in_flow`), `,` `[` `]` `{` `}` end or break plain scalars, so they are declined.
fn scalar(text: &str, in_flow: bool) -> Option<Scalar> {
    let (value, after) = match text.as_bytes()[0] {
        b'"' => {
            let close = text[1..].find(['"', '\\'])? + 1;
            if text.as_bytes()[close] != b'"' {
                return None;
            }
            (Scalar::Str(text[1..close].to_string()), &text[close + 1..])
        }
        b'\'' => {
            let mut value = String::new();
            let mut i = 1;
            loop {
                let quote = text[i..].find('\'')? + i;
                value.push_str(&text[i..quote]);
                if text[quote + 1..].starts_with('\'') {
                    value.push('\'');
                    i = quote + 2;
                } else {
                    break (Scalar::Str(value), &text[quote + 1..]);
                }
            }
        }
        b'-' | b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!'
        | b'|' | b'>' | b'%' | b'@' | b'`' => return None,
        _ => {
            let end = text.find(" #").unwrap_or(text.len());
            let plain = text[..end].trim_end_matches(' ');
            if plain.contains(": ")
                || plain.ends_with(':')
                || (in_flow && plain.contains([',', '[', ']', '{', '}', '#', '"', '\'', ':']))
            {
                return None;
            }
            return Some(resolve_plain(plain));
        }
    };
    let trimmed = after.trim_start_matches(' ');
    if in_flow {
        return trimmed.is_empty().then_some(value);
    }
    // a comment needs a space before its `#`
    (trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < after.len()))
        .then_some(value)
}

/// Null for YAML's null spellings; a string when the text starts with a letter and is no
/// special word, or is a plain date (`2024-03-01`, with an optional `10:30` or `10:30:00`
/// time), which no YAML number can look like; otherwise not worked out.
fn resolve_plain(plain: &str) -> Scalar {
    if matches!(plain, "~" | "null" | "Null" | "NULL") {
        Scalar::Null
    } else if (plain.chars().next().is_some_and(char::is_alphabetic) && !is_special_word(plain))
        || is_plain_date(plain)
    {
        Scalar::Str(plain.to_string())
    } else {
        Scalar::Unknown
    }
}

fn is_plain_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let date = b.len() >= 10
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10);
    let time = match b.len() {
        10 => true,
        16 => matches!(b[10], b'T' | b' ') && digits(11..13) && b[13] == b':' && digits(14..16),
        19 => {
            matches!(b[10], b'T' | b' ')
                && digits(11..13)
                && b[13] == b':'
                && digits(14..16)
                && b[16] == b':'
                && digits(17..19)
        }
        _ => false,
    };
    date && time
}

/// The inside of a one-line `[a, b]` list, after the `[`.
fn flow_list(inner: &str) -> Option<Vec<Scalar>> {
    let close = inner.find(']')?;
    let raw_after = &inner[close + 1..];
    let after = raw_after.trim_start_matches(' ');
    let comment = after.starts_with('#') && after.len() < raw_after.len();
    // a `#` inside a flow list may open a comment that swallows the rest of the line
    if !(after.is_empty() || comment) || inner[..close].contains(['[', '#']) {
        return None;
    }
    let body = inner[..close].trim_matches(' ');
    if body.is_empty() {
        return Some(Vec::new());
    }
    let parts: Vec<&str> = body.split(',').map(|p| p.trim_matches(' ')).collect();
    let mut items = Vec::with_capacity(parts.len());
    for (i, part) in parts.iter().enumerate() {
        if part.is_empty() {
            // a trailing comma is allowed, an empty item elsewhere is not
            if i + 1 == parts.len() && i > 0 {
                continue;
            }
            return None;
        }
        items.push(scalar(part, true)?);
    }
    Some(items)
}

fn take_list(role: Role, items: Vec<Scalar>, out: &mut Extract) -> Option<()> {
    for item in items {
        match (role, item) {
            (Role::Other, _) | (_, Scalar::Null) => {}
            (_, Scalar::Unknown) => return None,
            (Role::Tags, Scalar::Str(s)) => push_tag(&s, &mut out.tags),
            (Role::Aliases, Scalar::Str(s)) => out.aliases.push(s),
        }
    }
    Some(())
}

fn take_one(role: Role, value: Scalar, out: &mut Extract) -> Option<()> {
    match (role, value) {
        (Role::Other, _) | (_, Scalar::Null) => {}
        (_, Scalar::Unknown) => return None,
        (Role::Tags, Scalar::Str(s)) => {
            for part in s.split([',', ' ']) {
                push_tag(part, &mut out.tags);
            }
        }
        (Role::Aliases, Scalar::Str(s)) => out.aliases.push(s),
    }
    Some(())
}

/// The same clean-up as the full path: trimmed, one leading `#` dropped, empty skipped.
fn push_tag(raw: &str, tags: &mut Vec<String>) {
    let t = raw.trim();
    let t = t.strip_prefix('#').unwrap_or(t);
    if !t.is_empty() {
        tags.push(t.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::note::{Frontmatter, full_extract};

    /// Lookups answered by the fast path equal the full parse's `property_str`.
    fn lookups_agree(yaml: &str) {
        let text = format!("---\n{yaml}\n---\n");
        let note = crate::Note::parse_text("n.md", &text);
        for key in [
            "title", "Title", "type", "a", "date", "created", "tags", "x_y", "due date", "é",
        ] {
            if let Some(fast) = lookup_str(yaml, key) {
                let full = full_property_str(yaml, key);
                assert_eq!(fast, full, "{key} differs for:\n{yaml}");
                if note.frontmatter == Frontmatter::Parsed {
                    assert_eq!(
                        note.property_str(key),
                        full,
                        "{key} via the note for:\n{yaml}"
                    );
                }
            }
        }
    }

    /// The reference: a full parse, then `property_str`'s rules.
    fn full_property_str(yaml: &str, key: &str) -> Option<String> {
        let map: yaml_serde::Mapping = match yaml_serde::from_str::<yaml_serde::Value>(yaml) {
            Ok(yaml_serde::Value::Mapping(m)) => m,
            _ => return None,
        };
        crate::note::property_in(&map, key).and_then(crate::note::scalar_to_string)
    }

    /// The contract: when the fast path answers, it answers like the full parse.
    fn agrees(yaml: &str) -> bool {
        lookups_agree(yaml);
        for key in ["title", "TAGS", "type", "date", "é", "missing"] {
            if let Some(fast) = has_key(yaml, key) {
                let text = format!("---\n{yaml}\n---\n");
                let note = crate::Note::parse_text("n.md", &text);
                assert_eq!(fast, note.property(key).is_some(), "has {key} for:\n{yaml}");
            }
        }
        if let Some(fast) = texts(yaml) {
            let map = match yaml_serde::from_str::<yaml_serde::Value>(yaml) {
                Ok(yaml_serde::Value::Mapping(m)) => m,
                Ok(yaml_serde::Value::Null) => yaml_serde::Mapping::new(),
                other => panic!("texts answered for invalid YAML {other:?}:\n{yaml}"),
            };
            let full: Vec<String> = map
                .values()
                .filter_map(crate::note::scalar_to_string)
                .collect();
            assert_eq!(fast, full, "texts differ for:\n{yaml}");
        }
        let Some(fast) = extract(yaml) else {
            return false;
        };
        let (fm, tags, aliases) = full_extract(yaml);
        assert_eq!(
            fm,
            Frontmatter::Parsed,
            "fast path accepted invalid YAML:\n{yaml}"
        );
        assert_eq!(fast.tags, tags, "tags differ for:\n{yaml}");
        assert_eq!(fast.aliases, aliases, "aliases differ for:\n{yaml}");
        true
    }

    #[test]
    fn common_shapes_take_the_fast_path() {
        for yaml in [
            "title: My note\ntype: meeting\ncreated: 2024-03-01\n",
            "tags: [project/alpha, meeting]\naliases: [Alpha kickoff]\n",
            "tags:\n  - a\n  - '#b'\n  - \"c d\"\nstatus: active # for now\n",
            "tags:\n- xa\n- yb\nnext: ok\n",
            "tags: one, two #three\n",
            "Tags: \"a, b #c\"\nALIAS: One, Two\naliases: [x, yz]\n",
            "# only a comment\n",
            "title: It's [draft] {v2}, see http://x.org/a:b\r\nup: \"[[Home]]\"\r\n",
            "aliases:\n  - \n  - ~\n  - Real\n",
            "tags: []\nempty:\nlist: [a, b,]\n",
            "naïve clé: été\n",
        ] {
            assert!(agrees(yaml), "declined:\n{yaml}");
        }
    }

    #[test]
    fn anything_unusual_is_declined() {
        for yaml in [
            "a: 1\na: 2\n",
            "tags: 2024\n",
            "tags: [x, 1]\n",
            "tags: true\n",
            "aliases: yes\n",
            "a: &x 1\nb: *x\n",
            "a: |\n  block\n",
            "a:\n  b: nested\n",
            "a: plain\n  continued\n",
            "a: \"esc\\\"aped\"\n",
            "a: \"open\n",
            "a: b: c\n",
            "a: trailing:\n",
            "\"quoted key\": 1\n",
            "true: 1\n",
            "a: [x, [y]]\n",
            "a: {x: 1}\n",
            "a:\n  - x\n - y\n",
            "a: x\n---\nb: y\n",
            "a:\tb\n",
            "- just\n- a list\n",
            "a: 'x' y\n",
            "a: \"x\"y\n",
            "a: [x,,y]\n",
            "a: x\u{85}y\n",
            "a: x\u{1}\n",
            "? complex\n: key\n",
        ] {
            assert!(extract(yaml).is_none(), "accepted:\n{yaml}");
        }
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        fn key() -> impl Strategy<Value = String> {
            prop::sample::select(vec![
                "tags", "Tags", "tag", "aliases", "alias", "title", "type", "a", "due date", "x_y",
                "true", "Null", "1", "-k", "k.k", "é",
            ])
            .prop_map(String::from)
        }

        fn scalar_text() -> impl Strategy<Value = String> {
            prop::sample::select(vec![
                "",
                "x",
                "a b",
                "#t",
                "a, b",
                "a #c",
                "a#b",
                "~",
                "null",
                "NULL",
                "Yes",
                "no",
                "true",
                "False",
                "12",
                "-3",
                "0x1f",
                "1e3",
                ".inf",
                ".NaN",
                "inf",
                "nan",
                "\"q\"",
                "\"q\" # c",
                "'it''s'",
                "'a' b",
                "\"a\\\"b\"",
                "\"\"",
                "''",
                "[a, b]",
                "[]",
                "[a,]",
                "[a,,b]",
                "[\"a\", 'b']",
                "[#a]",
                "[a b, c]",
                "{a: 1}",
                "&x y",
                "*x",
                "!t y",
                "|",
                ">",
                "a: b",
                "a:",
                "- a",
                "-a",
                "?",
                ":",
                "@x",
                "`x`",
                "%x",
                "x ]",
                "x }",
                "x,",
                "2024-03-01",
                "2024-03-01T10:30",
                "2024-03-01 10:30:00",
                "2024-3-1",
                "12:30",
                "1_000",
                "0b1",
                "+1",
                "1e5",
                "2024-03-01x",
                "2024-03-01T25",
                "[a]#x",
                "[a] #x",
                "[a]x",
                "\"a\"#x",
                "é#",
                "tag/sub",
                "a\tb",
                "\u{a0}x",
                "x\u{feff}",
            ])
            .prop_map(String::from)
        }

        fn line() -> impl Strategy<Value = String> {
            prop_oneof![
                4 => (key(), scalar_text()).prop_map(|(k, v)| format!("{k}: {v}")),
                1 => key().prop_map(|k| format!("{k}:")),
                2 => (0..4usize, scalar_text())
                    .prop_map(|(n, v)| format!("{}- {v}", " ".repeat(n))),
                1 => (0..4usize).prop_map(|n| format!("{}# comment", " ".repeat(n))),
                1 => (0..3usize, scalar_text()).prop_map(|(n, v)| format!("{}{v}", " ".repeat(n))),
                1 => Just(String::new()),
                1 => Just("---".to_string()),
            ]
        }

        fn nice_value() -> impl Strategy<Value = String> {
            prop_oneof![
                6 => "[a-zA-Zé][a-z0-9/_ -]{0,12}".prop_map(|v| v.trim_end().to_string()),
                2 => "[a-z ,#/]{0,10}".prop_map(|v| format!("\"{v}\"")),
                2 => "[a-z ,#'/]{0,10}".prop_map(|v| format!("'{}'", v.replace('\'', "''"))),
                1 => "[a-z]{1,6}".prop_map(|v| format!("{v} # note")),
                2 => scalar_text(),
            ]
        }

        /// Mostly well-formed frontmatter, so the fast path answers often and is checked.
        fn entry() -> impl Strategy<Value = String> {
            let k = prop_oneof![3 => key(), 2 => "[a-z][a-z_]{0,6}"];
            prop_oneof![
                5 => (k.clone(), nice_value()).prop_map(|(k, v)| format!("{k}: {v}")),
                2 => (k.clone(), prop::collection::vec(nice_value(), 0..4))
                    .prop_map(|(k, vs)| format!("{k}: [{}]", vs.join(", "))),
                3 => (k, 0..3usize, prop::collection::vec(nice_value(), 0..4)).prop_map(
                    |(k, n, vs)| {
                        let items: Vec<String> =
                            vs.iter().map(|v| format!("{}- {v}", " ".repeat(n))).collect();
                        format!("{k}:\n{}", items.join("\n"))
                    }
                ),
                1 => line(),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn fast_path_agrees_on_likely_frontmatter(
                entries in prop::collection::vec(entry(), 1..7),
            ) {
                agrees(&entries.join("\n"));
            }

            #[test]
            fn fast_path_agrees_with_the_full_parse(
                lines in prop::collection::vec(line(), 0..8),
                crlf in any::<bool>(),
            ) {
                let yaml = lines.join(if crlf { "\r\n" } else { "\n" });
                agrees(&yaml);
            }
        }
    }
}
