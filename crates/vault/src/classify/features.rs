//! A note's features: the words, structure and name of its text, each a hashed id with the
//! family it belongs to.

use rustc_hash::FxHashMap;

use std::borrow::Cow;

use super::*;

/// The version of what a note's content features are and of how a calibration is computed:
/// stored features and calibrations of another version are not reused, so a crew that reads
/// notes or calibrates differently does not inherit an older one's results.
pub const VERSION: u32 = 8;

/// Neighbours that vote.
pub(super) const K: usize = 10;
/// A feature in more than this share of the documents says nothing about where a note goes.
pub(super) const MAX_DF_SHARE: f64 = 0.6;
/// Short lines (a template's stock lines) are features up to this many characters.
pub(super) const LINE_FEATURE_CHARS: usize = 80;

/// Weights of the feature families, relative to a body word.
pub(super) const W_TITLE: f32 = 2.0;
pub(super) const W_KEY: f32 = 1.5;
pub(super) const W_VALUE: f32 = 2.0;
pub(super) const W_TAG: f32 = 2.5;
pub(super) const W_HEADING: f32 = 1.0;
pub(super) const W_LINE: f32 = 1.0;
pub(super) const W_LINK_FOLDER: f32 = 3.0;
/// Spread over the other notes each note linking to this one links to.
pub(super) const W_COCITED: f32 = 16.0;
/// Spread over the other notes listed in the same paragraph, list or section as this one, in
/// each note linking to it.
pub(super) const W_LISTED: f32 = 16.0;
/// A note with more links than this cites nothing beside anything.
pub(super) const MAX_LINKS_TO_COCITE: usize = 1000;
pub(super) const W_SHAPE: f32 = 1.0;
/// The year and the month of a date in the note's name.
pub(super) const W_DATE: f32 = 2.0;

/// Calls `f` with the words of `text` as filing weighs them: crew's tokens
/// ([`crate::text::each_token`]: normalized, unspaced scripts cut where the script changes) of
/// 3 to 30 characters — 2 in a script written without spaces, where two characters are often a
/// whole word —, not all digits.
pub fn each_word(text: &str, mut f: impl FnMut(&str)) {
    crate::text::each_token(text, |t| {
        let min = if t
            .chars()
            .next()
            .is_some_and(crate::text::is_unspaced_script)
        {
            2
        } else {
            3
        };
        let n = t.chars().count();
        if (min..=30).contains(&n) && !t.bytes().all(|b| b.is_ascii_digit()) {
            f(t);
        }
    });
}

/// `text` without web addresses and link destinations: their pieces (`20plugins`, a hash's
/// `573e7a`) are no words of the note, and a folder whose notes link to one site would
/// otherwise claim every note citing it.
pub(super) fn without_addresses(text: &str) -> Cow<'_, str> {
    let starts = |at: usize| {
        let rest = &text[at..];
        rest.starts_with("http://")
            || rest.starts_with("https://")
            || rest.starts_with("www.")
            || rest.starts_with("](")
    };
    if !text.contains("://") && !text.contains("www.") && !text.contains("](") {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut kept_from = 0;
    let mut at = 0;
    while at < text.len() {
        if text.is_char_boundary(at) && starts(at) {
            out.push_str(&text[kept_from..at]);
            let skip = if text[at..].starts_with("](") { 2 } else { 0 };
            let end = text[at + skip..]
                .find(|c: char| c.is_whitespace() || matches!(c, ')' | '>' | ']' | '"' | '<'))
                .map_or(text.len(), |n| at + skip + n);
            out.push(' ');
            at = end.max(at + 1);
            kept_from = at;
        } else {
            at += 1;
        }
    }
    out.push_str(&text[kept_from.min(text.len())..]);
    Cow::Owned(out)
}

/// A feature: its family (`w` word, `k` key, `v` value, `g` tag, `h` heading, `l` line, `f`
/// linked folder, `c` co-cited folder, `b` folder listed with, `s` name shape) and its text,
/// lower-cased, hashed without allocating.
pub type Feature = u64;

pub(super) fn feature(family: char, parts: &[&str]) -> Feature {
    use std::hash::Hasher as _;
    let mut h = rustc_hash::FxHasher::default();
    h.write_u32(family as u32);
    for p in parts {
        for c in p.chars().flat_map(char::to_lowercase) {
            h.write_u32(c as u32);
        }
        h.write_u8(0xff);
    }
    // FxHash's low bits are weak: spread them for the hash tables the features go into; the
    // top byte says the family, so the classifier can tell a note's structure from its words
    let spread = h
        .finish()
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .rotate_left(29);
    (spread >> 8) | (u64::from(family as u8) << 56)
}

/// The family a feature was made in (see [`Feature`]).
pub(super) fn family_of(f: Feature) -> u8 {
    (f >> 56) as u8
}

/// Hallmarks of a folder a note must share to be filed there by likeness, unless one is
/// strong: a feature at least this share of whose notes are in the folder.
pub(super) const HALLMARKS: usize = 2;
pub(super) const STRONG_HALLMARK: f32 = 0.8;

/// Families that make a note's form: frontmatter keys, headings, short stock lines.
pub(super) const STRUCTURE: [u8; 3] = [b'k', b'h', b'l'];
/// A folder's signature: structure found in at least this share of its notes, when it has
/// [`SIGNATURE_MIN_NOTES`] or more (a template, a boilerplate line, a key all of them carry).
pub(super) const SIGNATURE_SHARE: f32 = 0.8;
pub(super) const SIGNATURE_MIN_NOTES: u32 = 3;

/// Collects a note's features; with `names`, also how each reads (for explaining one note).
pub(super) struct Collector<'a> {
    pub(super) weights: FxHashMap<Feature, f32>,
    pub(super) names: Option<&'a mut FxHashMap<Feature, String>>,
}

impl Collector<'_> {
    pub(super) fn add(&mut self, family: char, parts: &[&str], w: f32) {
        let f = feature(family, parts);
        *self.weights.entry(f).or_default() += w;
        if let Some(names) = self.names.as_deref_mut() {
            names
                .entry(f)
                .or_insert_with(|| format!("{family}:{}", parts.concat().to_lowercase()));
        }
    }
}

/// Keys whose values are dates, ids or free text: their values say nothing about a folder.
pub(super) fn volatile_key(key: &str) -> bool {
    matches!(
        key.to_ascii_lowercase().as_str(),
        "date"
            | "created"
            | "updated"
            | "modified"
            | "id"
            | "uid"
            | "title"
            | "aliases"
            | "alias"
            | "tags"
            | "tag"
            | "filed-date"
            | "location"
            | "status"
            | "cssclass"
            | "cssclasses"
    )
}

/// Every shape [`name_shapes`] gives.
pub(super) const NAME_SHAPES: [&str; 5] = ["dated", "numbered", "snake", "oneword", "long"];

/// The shape of a note's name: dated, numbered, snake_case, and so on.
pub(super) fn name_shapes(name: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    let b = name.as_bytes();
    if b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
    {
        out.push("dated");
    } else if b.first().is_some_and(u8::is_ascii_digit) {
        out.push("numbered");
    }
    if name.contains('_') && !name.contains(' ') {
        out.push("snake");
    }
    if !name.contains(' ') && name.chars().any(char::is_uppercase) && name.len() > 3 {
        out.push("oneword");
    }
    if name.split_whitespace().count() >= 5 {
        out.push("long");
    }
    out
}

/// The year and month of the first date in a note's name: `2024-01-15`, `2024_01`,
/// `2024.01.15`, or the start of a run of at least 8 digits with a valid month and day
/// (`20240115`, a zettel id `202401151230`), from 1900 to 2099.
pub(super) fn name_date(name: &str) -> Option<(&str, &str)> {
    let b = name.as_bytes();
    let digits_at = |at: usize, n: usize| {
        b.get(at..at + n)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
    };
    let month_ok = |m: &[u8]| matches!((m[0], m[1]), (b'0', b'1'..=b'9') | (b'1', b'0'..=b'2'));
    (0..b.len()).find_map(|at| {
        let starts_run = at == 0 || !b[at - 1].is_ascii_digit();
        let century = b.get(at..at + 2).is_some_and(|c| c == b"19" || c == b"20");
        if !starts_run || !century || !digits_at(at, 4) {
            return None;
        }
        let run = b[at..].iter().take_while(|c| c.is_ascii_digit()).count();
        let month_at = match run {
            4 if matches!(b.get(at + 4), Some(b'-' | b'_' | b'.')) && digits_at(at + 5, 2) => {
                let after = b.get(at + 7);
                after
                    .is_none_or(|c| !c.is_ascii_digit())
                    .then_some(at + 5)?
            }
            // a compact run needs a day too: `19201080` is a number, not October 1920
            8.. if matches!(
                (b[at + 6], b[at + 7]),
                (b'0', b'1'..=b'9') | (b'1' | b'2', _) | (b'3', b'0' | b'1')
            ) =>
            {
                at + 4
            }
            _ => return None,
        };
        month_ok(&b[month_at..month_at + 2])
            .then(|| (&name[at..at + 4], &name[month_at..month_at + 2]))
    })
}

/// Where a path-like value's parents end: at each `/` with something before and after it
/// (`docs/sync/setup` → `docs`, `docs/sync`), except after a `:` or another `/` (a URL's
/// `https://host`, a drive's `c:/`) and before another `/`.
pub(super) fn parent_cuts(value: &str) -> impl Iterator<Item = usize> + '_ {
    let b = value.as_bytes();
    value
        .match_indices('/')
        .map(|(at, _)| at)
        .filter(move |&at| {
            at > 0 && !matches!(b[at - 1], b':' | b'/') && b.get(at + 1).is_some_and(|&n| n != b'/')
        })
}

/// The folder part of a vault-relative path (`""` at the root).
pub fn folder_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The raw features of note `idx` of `vault`: (feature, count × family weight), sorted by
/// feature. `body` is the note's text, read by the caller (through a
/// [`NoteSource`](crate::NoteSource), for instance). With `names`, each feature's readable
/// text is recorded too, for [`Classifier::guess`] to explain its ranking.
///
/// The same as [`with_links`] over [`content_features`]: what the note's own text and name
/// give, which a cache can keep while the note is unchanged, and the folders of its linked
/// notes, which change with other notes.
pub fn features(
    vault: &Vault,
    idx: usize,
    body: &str,
    mut names: Option<&mut FxHashMap<Feature, String>>,
) -> Vec<(Feature, f32)> {
    let content = content_features(&vault.notes[idx], body, names.as_deref_mut());
    with_links(vault, idx, content, names)
}

/// The features a note's name, body and frontmatter give (every family but linked folders),
/// sorted by feature; `body` is its text after the frontmatter.
pub fn content_features(
    note: &Note,
    body: &str,
    names: Option<&mut FxHashMap<Feature, String>>,
) -> Vec<(Feature, f32)> {
    let mut c = Collector {
        weights: FxHashMap::default(),
        names,
    };
    each_word(note.name(), |t| c.add('w', &[t], W_TITLE));
    each_word(&without_addresses(body), |t| c.add('w', &[t], 1.0));
    if let Some(map) = note.properties() {
        for (k, v) in map {
            let Some(k) = k.as_str() else { continue };
            c.add('k', &[k], W_KEY);
            if volatile_key(k) {
                continue;
            }
            if let Some(value) = crate::note::scalar_to_string(v) {
                let value = value.trim();
                if !value.is_empty() && value.chars().count() <= 40 {
                    c.add('v', &[k, "=", value], W_VALUE);
                    // a path-like value is also each of its parents: `docs/sync/setup` is
                    // also `docs/sync` and `docs`, as a nested tag is its parents
                    for at in parent_cuts(value) {
                        c.add('v', &[k, "=", &value[..at]], W_VALUE);
                    }
                }
            }
        }
    }
    for tag in &note.tags {
        // the tag and each parent: `#area/health` is also `#area`
        for (at, _) in tag.match_indices('/') {
            c.add('g', &[&tag[..at]], W_TAG);
        }
        c.add('g', &[tag], W_TAG);
    }
    for h in &note.headings {
        let t = h.text.trim();
        if !t.is_empty() && t.chars().count() <= 60 {
            c.add('h', &[t], W_HEADING);
        }
    }
    for line in body.lines() {
        let t = line.trim();
        let n = t.chars().count();
        if (4..=LINE_FEATURE_CHARS).contains(&n) && t.chars().any(char::is_alphabetic) {
            c.add('l', &[t], W_LINE);
        }
    }
    for shape in name_shapes(note.name()) {
        c.add('s', &[shape], W_SHAPE);
    }
    // a daily note's year and month: where notes are kept by date (`Journal/2024/01`), they
    // are what places it; where they are not, they spread over the folders and weigh little
    if let Some((year, month)) = name_date(note.name()) {
        c.add('d', &[year], W_DATE);
        c.add('d', &[year, "-", month], W_DATE);
    }
    sorted(c.weights)
}
