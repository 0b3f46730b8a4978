//! Ranked search over the vault: what the seeker and the model tools' search return.

use serde::Serialize;

use crate::analysis::notes as common;
use crate::crew::Folders;
use crate::text::{normalize, tokens};
use crate::vault::Vault;

/// One search result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    pub path: String,
    pub title: String,
    pub score: f64,
    /// 1-based line of the best matching line (0 when only the title or frontmatter matched).
    pub line: usize,
    pub text: String,
}

/// A parsed query: free terms plus filters.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Query {
    pub terms: Vec<String>,
    pub tag: Option<String>,
    pub kind: Option<String>,
    pub path: Option<String>,
    /// `in:Folder`: notes inside that folder (at any depth), named by its path or last part.
    pub folder: Option<String>,
    pub after: Option<chrono::NaiveDate>,
    pub before: Option<chrono::NaiveDate>,
}

impl Query {
    /// This query with the filters of `other` it does not set itself.
    pub fn narrowed_by(mut self, other: &Query) -> Query {
        self.tag = self.tag.or_else(|| other.tag.clone());
        self.kind = self.kind.or_else(|| other.kind.clone());
        self.path = self.path.or_else(|| other.path.clone());
        self.folder = self.folder.or_else(|| other.folder.clone());
        self.after = self.after.or(other.after);
        self.before = self.before.or(other.before);
        self
    }

    /// Whether the query sets any filter (terms aside).
    pub fn has_filters(&self) -> bool {
        self.tag.is_some()
            || self.kind.is_some()
            || self.path.is_some()
            || self.folder.is_some()
            || self.after.is_some()
            || self.before.is_some()
    }

    /// Whether a note passes the query's filters (its terms are not looked at).
    pub fn admits(&self, note: &crate::vault::Note) -> bool {
        let p = note.path.to_lowercase();
        if self
            .path
            .as_ref()
            .is_some_and(|f| !p.contains(&f.to_lowercase()))
        {
            return false;
        }
        if let Some(folder) = &self.folder {
            let f = folder.trim_matches('/').to_lowercase();
            let parent = p.rsplit_once('/').map_or("", |(d, _)| d);
            // "Recipes" is the folder `Recipes/` or any `…/Recipes/`; "Food/Recipes" its path
            let inside = format!("/{parent}/").contains(&format!("/{f}/"));
            if f.is_empty() || !inside {
                return false;
            }
        }
        if let Some(tag) = &self.tag
            && !note
                .tags_normalized()
                .iter()
                .any(|t| t == tag || t.starts_with(&format!("{tag}/")))
        {
            return false;
        }
        if let Some(kind) = &self.kind
            && note
                .property_str("type")
                .is_none_or(|t| !t.eq_ignore_ascii_case(kind))
        {
            return false;
        }
        if self.after.is_some() || self.before.is_some() {
            // a note is from the date it gives itself, before the file's
            let own = crate::analysis::note_date::own_date(note);
            if self.after.is_some_and(|a| own.is_none_or(|d| d < a))
                || self.before.is_some_and(|b| own.is_none_or(|d| d > b))
            {
                return false;
            }
        }
        true
    }
}

/// Splits a request into tokens at whitespace, keeping a quoted run whole: `path:"05 - Concepts"`
/// is one token. Double quotes (straight or curly) quote anywhere; a single quote only right
/// after a filter's colon, since elsewhere it is an apostrophe ("qu'est-ce").
fn pieces(raw: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut closing: Option<char> = None;
    for c in raw.chars() {
        match closing {
            Some(close) if c == close => closing = None,
            Some(_) => cur.push(c),
            None if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            None if c == '"' => closing = Some('"'),
            None if c == '“' => closing = Some('”'),
            None if c == '\'' && cur.ends_with(':') => closing = Some('\''),
            None => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The filters of a request (`tag:`, `type:`, `path:`, `in:`, `after:`, `before:`, `#tag`), with
/// quotes honoured, and the free text left once they are taken out.
pub fn split_filters(raw: &str) -> (Query, String) {
    let mut q = Query::default();
    let mut free: Vec<String> = Vec::new();
    for token in pieces(raw) {
        let (key, value) = token.split_once(':').unwrap_or(("", ""));
        let value = value.trim();
        match key.to_lowercase().as_str() {
            "tag" if !value.is_empty() => {
                q.tag = Some(value.trim_start_matches('#').to_lowercase())
            }
            "type" if !value.is_empty() => q.kind = Some(value.to_lowercase()),
            "path" if !value.is_empty() => q.path = Some(value.to_string()),
            "in" if !value.is_empty() => q.folder = Some(value.to_string()),
            "after" if !value.is_empty() => q.after = common::parse_date(value),
            "before" if !value.is_empty() => q.before = common::parse_date(value),
            _ => match token.strip_prefix('#') {
                Some(tag) if !tag.is_empty() && !tag.starts_with('#') => {
                    q.tag = Some(tag.to_lowercase())
                }
                _ => free.push(token),
            },
        }
    }
    (q, free.join(" "))
}

/// A request as a query: its filters, and the words of its free text as terms.
pub fn parse_query(raw: &str) -> Query {
    let (mut q, free) = split_filters(raw);
    q.terms = tokens(&normalize(&free)).map(str::to_string).collect();
    q
}

/// Drops the words that only say "search for" from a natural-language request.
pub fn strip_intent(q: &mut Query) {
    let kept: Vec<String> = q
        .terms
        .iter()
        .filter(|t| !crate::text::word_list("search_intent_words").contains(&t.as_str()))
        .cloned()
        .collect();
    if !kept.is_empty() {
        q.terms = kept;
    }
}

/// How well a term matches a word: exact 1.0, same stem/plural 0.8, one typo 0.6.
fn word_match(term: &str, word: &str) -> f64 {
    if term == word {
        1.0
    } else if term.len() >= 4
        && word.len() >= 4
        && (word.starts_with(term) || term.starts_with(word))
        && term.len().abs_diff(word.len()) <= 2
    {
        0.8
    } else if term.chars().count() >= 5
        && crate::analysis::text::edit_distance_at_most_one(term, word)
    {
        0.6
    } else {
        0.0
    }
}

pub(crate) fn best_in(term: &str, ws: &[&str]) -> f64 {
    ws.iter().map(|w| word_match(term, w)).fold(0.0, f64::max)
}

/// Ranks notes for a query. Titles weigh most, then frontmatter, then body; recent notes rank a
/// little higher, archived ones lower; Templates and Meta only when `path:` asks for them.
pub fn search(
    vault: &Vault,
    source: &dyn crate::vault::NoteSource,
    folders: &Folders,
    q: &Query,
    limit: usize,
    today: chrono::NaiveDate,
) -> Vec<Hit> {
    use rayon::prelude::*;
    let templates = format!("{}/", folders.templates);
    let meta = format!("{}/", folders.meta);
    let archive = format!("{}/", folders.archive);
    let mut hits: Vec<Hit> = vault
        .notes
        .par_iter()
        .filter_map(|note| {
            let p = &note.path;
            if q.path.is_none() && (p.starts_with(&templates) || p.starts_with(&meta)) {
                return None;
            }
            if !q.admits(note) {
                return None;
            }
            let touched = common::last_touched(note);
            let (mut score, line, text) = if q.terms.is_empty() {
                (1.0, 0, String::new())
            } else {
                score_note(source, note, &q.terms)?
            };
            if touched.is_some_and(|d| (today - d).num_days() <= 30) {
                score += 1.0;
            }
            if p.starts_with(&archive) {
                score *= 0.5;
            }
            Some(Hit {
                path: p.clone(),
                title: note.name().to_string(),
                score,
                line,
                text,
            })
        })
        .collect();
    hits.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.path.cmp(&b.path))
    });
    hits.truncate(limit);
    hits
}

/// Scores one note against the terms: (score, best line number, best line), or `None` when no
/// term matches. The note's text is normalized once; lines are looked at only for a match.
fn score_note(
    source: &dyn crate::vault::NoteSource,
    note: &crate::vault::Note,
    terms: &[String],
) -> Option<(f64, usize, String)> {
    let title_norm = normalize(note.name());
    let title_words: Vec<&str> = tokens(&title_norm).collect();
    let mut fm_text = note.tags.join(" ");
    fm_text.push(' ');
    fm_text.push_str(&note.aliases.join(" "));
    for text in note.property_texts() {
        fm_text.push(' ');
        fm_text.push_str(&text);
    }
    let fm_norm = normalize(&fm_text);
    let fm_words: Vec<&str> = tokens(&fm_norm).collect();
    let (text, body_start) = common::reread(source, note)?;
    let body = &text[body_start..];
    let body_norm = normalize(body);
    let mut body_words: Vec<&str> = tokens(&body_norm).collect();
    body_words.sort_unstable();
    body_words.dedup();
    let mut score = 0.0;
    let mut matched = 0;
    let mut body_terms = Vec::new();
    for term in terms {
        let t = best_in(term, &title_words) * 10.0;
        let f = best_in(term, &fm_words) * 4.0;
        let b = best_in(term, &body_words);
        if b > 0.0 {
            body_terms.push(term.as_str());
        }
        let s = t.max(f) + b * 3.0;
        if s > 0.0 {
            matched += 1;
        }
        score += s;
    }
    if matched == 0 {
        return None;
    }
    // every term present beats some terms present
    score *= matched as f64 / terms.len() as f64;
    let mut best = (0.0, 0, String::new());
    if !body_terms.is_empty() {
        let offset = text[..body_start].lines().count();
        for (n, l) in body.lines().enumerate() {
            let ln = normalize(l);
            let lw: Vec<&str> = tokens(&ln).collect();
            let m: f64 = body_terms.iter().map(|t| best_in(t, &lw)).sum();
            if m > best.0 {
                best = (m, n + 1 + offset, l.trim().chars().take(160).collect());
            }
        }
    }
    Some((score, best.1, best.2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_filters_and_terms() {
        let q = parse_query("Taxes tag:#finance type:reference path:02-Areas after:2026-01-01 #x");
        assert_eq!(q.terms, vec!["taxes"]);
        assert_eq!(q.tag.as_deref(), Some("x"));
        assert_eq!(q.kind.as_deref(), Some("reference"));
        assert_eq!(q.path.as_deref(), Some("02-Areas"));
        assert!(q.after.is_some());
    }

    #[test]
    fn in_names_a_folder_at_any_depth() {
        let q = parse_query("pasta in:Recipes");
        assert_eq!(q.folder.as_deref(), Some("Recipes"));
        let note = |p: &str| crate::vault::Note::parse_text(p, "x\n");
        assert!(q.admits(&note("Recipes/Carbonara.md")));
        assert!(q.admits(&note("Food/Recipes/Old/Ragu.md")));
        assert!(!q.admits(&note("Recipes.md")));
        assert!(!q.admits(&note("Old Recipes/Ragu.md")));
        let q = parse_query("in:Food/Recipes");
        assert!(q.admits(&note("Food/Recipes/Ragu.md")));
        assert!(!q.admits(&note("Recipes/Ragu.md")));
    }

    #[test]
    fn quoted_filters_keep_their_spaces() {
        let q =
            parse_query(r#"path:"05 - Concepts" tag:"deep work" “graph view” after:'2026-01-01'"#);
        assert_eq!(q.path.as_deref(), Some("05 - Concepts"));
        assert_eq!(q.tag.as_deref(), Some("deep work"));
        assert_eq!(q.terms, vec!["graph", "view"]);
        assert_eq!(q.after, chrono::NaiveDate::from_ymd_opt(2026, 1, 1));
        // an apostrophe is no quote
        let (_, free) = split_filters("qu'est-ce que j'ai écrit sur l'IA");
        assert_eq!(free, "qu'est-ce que j'ai écrit sur l'IA");
        // an unclosed quote runs to the end
        assert_eq!(
            parse_query(r#"path:"05 - Con"#).path.as_deref(),
            Some("05 - Con")
        );
    }

    #[test]
    fn intent_words_are_dropped() {
        let mut q = parse_query("where did I save the note on taxes?");
        strip_intent(&mut q);
        assert_eq!(q.terms, vec!["taxes"]);
    }

    #[test]
    fn typo_and_plural_tolerance() {
        assert_eq!(word_match("taxes", "taxes"), 1.0);
        assert!(word_match("recipe", "recipes") > 0.0);
        assert!(word_match("kitchen", "kitchn") > 0.0);
        assert_eq!(word_match("tax", "max"), 0.0);
    }
}
