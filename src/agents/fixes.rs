//! The nightly fix: what `crew maintain --fix` may change without asking.
//!
//! A safe fix repairs a fault the audit found, and nothing else:
//! - `broken-links`: a broken link whose target names exactly one note in another spelling of
//!   the same words (case, accents, Unicode form) or by one of its `aliases` is pointed at that
//!   note, and keeps the text it showed (`[[zurich]]` → `[[Zürich|zurich]]`): see
//!   [`crate::analysis::link_fix`]. A dropped space or hyphen, or other words, is only
//!   proposed in the report;
//! - `frontmatter`: a frontmatter block that does not parse only because a value holds `: ` (or
//!   starts with `@`, `` ` `` or `%`) gets that value quoted — kept only when the repaired
//!   block parses and every repaired key reads back as the exact text it had;
//! - `filed-keys`: a note crew filed (it carries crew's `filed-date`) that lost `status` or
//!   `location` gets them back.
//!
//! Never: adding keys the user never used, editing a template (the templates folder, or any
//! note holding Templater or core-template syntax), or touching crew's own notes. A kind that
//! would touch more notes than [`limit`] allows is held back and reported with its count and
//! the command that applies it (`crew maintain --fix --only KIND`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::{Ctx, common};
use crate::analysis::health::Audit;
use crate::crew::Folders;
use crate::gate::{Gate, GateError};
use crate::vault::edit::{self, Replacement};
use crate::vault::markdown::WikiLink;
use crate::vault::{Frontmatter, Resolution};

/// The fewest notes a fix kind may always touch; above it the cap is 1 % of the notes.
pub(crate) const MIN_LIMIT: usize = 5;

/// How many notes one fix kind may touch unasked in a vault of `notes` notes.
pub fn limit(notes: usize) -> usize {
    (notes / 100).max(MIN_LIMIT)
}

/// The kinds of safe fixes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixKind {
    BrokenLinks,
    Frontmatter,
    FiledKeys,
}

impl FixKind {
    pub const ALL: [FixKind; 3] = [
        FixKind::BrokenLinks,
        FixKind::Frontmatter,
        FixKind::FiledKeys,
    ];

    pub fn name(self) -> &'static str {
        match self {
            FixKind::BrokenLinks => "broken-links",
            FixKind::Frontmatter => "frontmatter",
            FixKind::FiledKeys => "filed-keys",
        }
    }

    pub fn parse(raw: &str) -> Option<FixKind> {
        FixKind::ALL.into_iter().find(|k| k.name() == raw.trim())
    }
}

/// One planned or applied change: the note and what changes in it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fix {
    pub kind: FixKind,
    pub path: String,
    pub what: String,
}

/// A fix kind held back because it would touch too many notes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Held {
    pub kind: FixKind,
    pub notes: usize,
    pub limit: usize,
    pub command: String,
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "held back: {} would touch {} notes (more than {} allowed unasked); to apply: `{}`",
            self.kind.name(),
            self.notes,
            self.limit,
            self.command
        )
    }
}

/// A fix crew could not write to its note (read-only, changed meanwhile, gone): the note is
/// named and the rest of the night's work goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotWritten {
    pub kind: FixKind,
    pub path: String,
    pub why: String,
}

/// What applying a plan did.
#[derive(Debug, Clone, Default)]
pub struct Applied {
    /// The fixes that changed a note.
    pub done: Vec<Fix>,
    pub not_written: Vec<NotWritten>,
}

#[derive(Debug, Clone)]
enum Change {
    /// Broken link target → the name it should read.
    Links(Vec<(String, String)>),
    /// The whole repaired text of the note.
    Text(String),
    /// Keys and values to set.
    Keys(Vec<(&'static str, String)>),
}

/// What the nightly fix would do.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    changes: Vec<(Fix, Change)>,
    pub held: Vec<Held>,
}

impl Plan {
    pub fn fixes(&self) -> impl Iterator<Item = &Fix> {
        self.changes.iter().map(|(f, _)| f)
    }

    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// Plans the safe fixes for the faults `audit` found. `only` (from `--only`) limits the kinds
/// and lifts their cap: the user named them.
pub fn plan(gate: &Gate, audit: &Audit, folders: &Folders, only: &[FixKind]) -> Plan {
    let wanted = |k: FixKind| only.is_empty() || only.contains(&k);
    let touchable = |path: &str| !audit.templates.contains(path) && !folders.crew_owned(path);
    let mut by_kind: BTreeMap<FixKind, Vec<(Fix, Change)>> = BTreeMap::new();

    if wanted(FixKind::BrokenLinks) {
        let mut by_source: BTreeMap<&str, Vec<(String, String)>> = BTreeMap::new();
        for b in audit.broken.iter().filter(|b| touchable(&b.source)) {
            if let Some(fix) = &b.fix {
                let list = by_source.entry(&b.source).or_default();
                if !list.iter().any(|(t, _)| *t == b.target) {
                    list.push((b.target.clone(), fix.to.clone()));
                }
            }
        }
        for (source, links) in by_source {
            let what = links
                .iter()
                .map(|(t, to)| format!("[[{t}]] → [[{to}|{t}]]"))
                .collect::<Vec<_>>()
                .join(", ");
            by_kind.entry(FixKind::BrokenLinks).or_default().push((
                Fix {
                    kind: FixKind::BrokenLinks,
                    path: source.to_string(),
                    what,
                },
                Change::Links(links),
            ));
        }
    }

    if wanted(FixKind::Frontmatter) {
        for (path, _) in audit
            .frontmatter_errors
            .iter()
            .filter(|(p, _)| touchable(p))
        {
            let Some(text) = gate.read_text(path) else {
                continue;
            };
            if let Some((repaired, keys)) = repair_frontmatter(&text) {
                by_kind.entry(FixKind::Frontmatter).or_default().push((
                    Fix {
                        kind: FixKind::Frontmatter,
                        path: path.clone(),
                        what: format!("quote the value of {}", keys.join(", ")),
                    },
                    Change::Text(repaired),
                ));
            }
        }
    }

    if wanted(FixKind::FiledKeys) {
        for n in &gate.vault().notes {
            if !touchable(&n.path)
                || !matches!(n.frontmatter, Frontmatter::Parsed)
                || !n.has_property("filed-date")
            {
                continue;
            }
            let mut keys = Vec::new();
            if !n.has_property("status") {
                keys.push(("status", "filed".to_string()));
            }
            if !n.has_property("location") && !n.folder().is_empty() {
                keys.push(("location", edit::yaml_scalar(n.folder())));
            }
            if keys.is_empty() {
                continue;
            }
            let what = keys
                .iter()
                .map(|(k, v)| format!("{k}: {v}"))
                .collect::<Vec<_>>()
                .join(", ");
            by_kind.entry(FixKind::FiledKeys).or_default().push((
                Fix {
                    kind: FixKind::FiledKeys,
                    path: n.path.clone(),
                    what: format!("set {what} (filed by crew, key lost)"),
                },
                Change::Keys(keys),
            ));
        }
    }

    let cap = limit(audit.notes);
    let mut out = Plan::default();
    for (kind, changes) in by_kind {
        let notes: BTreeSet<&str> = changes.iter().map(|(f, _)| f.path.as_str()).collect();
        if only.is_empty() && notes.len() > cap {
            out.held.push(Held {
                kind,
                notes: notes.len(),
                limit: cap,
                command: format!("crew maintain --fix --only {}", kind.name()),
            });
        } else {
            out.changes.extend(changes);
        }
    }
    out
}

/// Applies a plan through the gate. A note that cannot be written is named in the result and
/// skipped; the other fixes are applied.
pub fn apply(ctx: &mut Ctx, plan: &Plan) -> Result<Applied, GateError> {
    let mut out = Applied::default();
    for (fix, change) in &plan.changes {
        let changed = match apply_one(ctx, fix, change) {
            Ok(changed) => changed,
            Err(e) if common::note_error(&e) == Some(fix.path.as_str()) => {
                out.not_written.push(NotWritten {
                    kind: fix.kind,
                    path: fix.path.clone(),
                    why: e.to_string(),
                });
                continue;
            }
            Err(e) => return Err(e),
        };
        if changed {
            common::log_change(ctx, "librarian", &format!("{}: {}", fix.path, fix.what))?;
            out.done.push(fix.clone());
        }
    }
    Ok(out)
}

/// One fix through the gate: whether it changed the note.
fn apply_one(ctx: &mut Ctx, fix: &Fix, change: &Change) -> Result<bool, GateError> {
    Ok({
        match change {
            Change::Links(links) => {
                let Some(i) = ctx.gate.vault().note_index(&fix.path) else {
                    return Ok(false);
                };
                let note = &ctx.gate.vault().notes[i];
                let broken: Vec<(WikiLink, String)> = note
                    .wikilinks
                    .iter()
                    .zip(&ctx.gate.vault().resolved[i])
                    .filter(|(_, r)| matches!(r, Resolution::Unresolved))
                    .filter_map(|(link, _)| {
                        links
                            .iter()
                            .find(|(t, _)| *t == link.target)
                            .map(|(_, to)| (link.clone(), to.clone()))
                    })
                    .collect();
                !broken.is_empty()
                    && ctx.gate.edit(&fix.path, &fix.what, |t| {
                        // the gate hands over the text the vault was read from: spans hold
                        let reps = broken
                            .iter()
                            .map(|(link, to)| Replacement {
                                range: link.span.clone(),
                                with: edit::retarget_wikilink(t, link, to),
                            })
                            .collect();
                        edit::apply_replacements(t, reps)
                    })?
            }
            Change::Text(repaired) => ctx.gate.edit(&fix.path, &fix.what, |t| {
                // only over the text the plan was made from
                match repair_frontmatter(t) {
                    Some((again, _)) if again == *repaired => again,
                    _ => t.to_string(),
                }
            })?,
            Change::Keys(keys) => {
                let changes: Vec<(&str, Option<String>)> =
                    keys.iter().map(|(k, v)| (*k, Some(v.clone()))).collect();
                ctx.gate.set_frontmatter(&fix.path, &changes)?
            }
        }
    })
}

/// Whether a plain YAML value needs quotes to mean itself: it holds `: `, ends with `:`, or
/// starts with a character YAML reserves.
fn needs_quotes(value: &str) -> bool {
    value.contains(": ") || value.ends_with(':') || value.starts_with(['@', '`', '%'])
}

/// Quotes the values that keep a frontmatter block from parsing. Returns the repaired text and
/// the keys quoted, or `None` when the block is not broken that way (or the repair would read
/// back as anything but the same text).
pub(crate) fn repair_frontmatter(text: &str) -> Option<(String, Vec<String>)> {
    let block = crate::vault::markdown::split_frontmatter(text)?;
    let yaml = &text[block.yaml.clone()];
    let mut repaired = String::with_capacity(yaml.len() + 16);
    let mut quoted: Vec<(String, String)> = Vec::new();
    for line in yaml.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let ending = &line[body.len()..];
        let top_level = !body.starts_with([' ', '\t', '-', '#']);
        let split = body.split_once(": ").filter(|_| top_level);
        match split {
            Some((key, value))
                if !key.is_empty()
                    && key
                        .chars()
                        .all(|c| c.is_alphanumeric() || " _-".contains(c))
                    && !value.trim().is_empty()
                    && !value
                        .trim_start()
                        .starts_with(['"', '\'', '[', '{', '|', '>', '&', '*', '!'])
                    && !value.contains(" #")
                    && needs_quotes(value.trim()) =>
            {
                let value = value.trim();
                repaired.push_str(key);
                repaired.push_str(": ");
                repaired.push_str(&serde_json::to_string(value).ok()?);
                repaired.push_str(ending);
                quoted.push((key.to_string(), value.to_string()));
            }
            _ => repaired.push_str(line),
        }
    }
    if quoted.is_empty() {
        return None;
    }
    let parsed: yaml_serde::Value = yaml_serde::from_str(&repaired).ok()?;
    let map = parsed.as_mapping()?;
    for (key, value) in &quoted {
        let back = map.get(key.as_str())?.as_str()?;
        if back != value {
            return None;
        }
    }
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..block.yaml.start]);
    out.push_str(&repaired);
    out.push_str(&text[block.yaml.end..]);
    Some((out, quoted.into_iter().map(|(k, _)| k).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_a_value_holding_a_colon() {
        let text = "---\ntitle: Rust: the book\ntags: [a]\n---\nbody [[x]]\n";
        let (fixed, keys) = repair_frontmatter(text).expect("repairable");
        assert_eq!(
            fixed,
            "---\ntitle: \"Rust: the book\"\ntags: [a]\n---\nbody [[x]]\n"
        );
        assert_eq!(keys, vec!["title"]);
    }

    #[test]
    fn keeps_crlf_and_leaves_sound_blocks_alone() {
        let text = "---\r\nsource: @me\r\n---\r\nx";
        let (fixed, _) = repair_frontmatter(text).expect("repairable");
        assert_eq!(fixed, "---\r\nsource: \"@me\"\r\n---\r\nx");
        assert!(repair_frontmatter("---\ntitle: fine\n---\n").is_none());
        assert!(repair_frontmatter("no frontmatter").is_none());
    }

    #[test]
    fn does_not_guess_at_other_damage() {
        // a comment would become part of the value: not meaning-preserving
        assert!(repair_frontmatter("---\ntitle: a: b # note\n---\n").is_none());
        // broken for another reason: the repair does not make it parse
        assert!(repair_frontmatter("---\ntitle: a: b\nlist: [unclosed\n---\n").is_none());
    }

    #[test]
    fn the_cap_is_one_percent_with_a_floor() {
        assert_eq!(limit(50), MIN_LIMIT);
        assert_eq!(limit(6_571), 65);
    }

    #[test]
    fn kinds_round_trip_their_names() {
        for k in FixKind::ALL {
            assert_eq!(FixKind::parse(k.name()), Some(k));
        }
        assert_eq!(FixKind::parse("status"), None);
    }
}
