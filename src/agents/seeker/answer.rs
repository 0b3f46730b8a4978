//! "What do I know about X": an extractive answer — the best paragraphs of the notes that
//! match, de-duplicated, each cited as `[[note]]` with its line and heading.

use serde::Serialize;

use super::digest;
use super::passages::{self, Paragraph};
use crate::agents::common;
use crate::analysis::search::Hit;
use crate::vault::{NoteSource, Vault};

/// Passages in an answer, and at most this many from one note (so one long note does not
/// crowd out the others).
const MAX_PASSAGES: usize = 8;
const PER_NOTE: usize = 3;
/// Sentences in the summary drawn from the passages.
const DIGEST_POINTS: usize = 3;

/// A cited passage.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Passage {
    pub path: String,
    pub title: String,
    pub heading: String,
    pub line: usize,
    pub text: String,
    pub score: f64,
}

/// The answer: the notes that matched, the central ones, the passages.
#[derive(Debug, Clone, Serialize)]
pub struct Answer {
    pub topic: String,
    pub notes: usize,
    pub central: Vec<String>,
    /// The summary: sentences of the passages, quoted as written (see [`digest`]).
    pub digest: Vec<digest::Point>,
    /// With a model: its synthesis of the passages, or why there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synthesis: Option<Synthesis>,
    pub passages: Vec<Passage>,
}

/// What the model made of the passages.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Synthesis {
    By { model: String, text: String },
    Failed(String),
}

/// Builds the answer from the search hits (best first): every paragraph of every hit is
/// scored; the note's own rank adds a little, so a passage in the note about the topic beats
/// an equal one in a passing mention.
pub fn build(
    vault: &Vault,
    source: &dyn NoteSource,
    topic: &str,
    terms: &[String],
    hits: &[Hit],
) -> Answer {
    let top = hits.first().map_or(1.0, |h| h.score.max(1.0));
    let mut all: Vec<Passage> = Vec::new();
    for hit in hits {
        let Some(note) = vault.note(&hit.path) else {
            continue;
        };
        let Some((text, body_start)) = common::reread(source, note) else {
            continue;
        };
        let first_line = text[..body_start].matches('\n').count() + 1;
        let weight = 1.0 + hit.score / top;
        for Paragraph {
            heading,
            line,
            text,
        } in passages::paragraphs(&text[body_start..], first_line)
        {
            let s = passages::score(&text, terms);
            if s > 0.0 {
                all.push(Passage {
                    path: hit.path.clone(),
                    title: super::link_name(vault, &hit.path),
                    heading,
                    line,
                    text,
                    score: s * weight,
                });
            }
        }
    }
    all.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.path.cmp(&b.path))
            .then(a.line.cmp(&b.line))
    });
    let chosen = pick(all);
    Answer {
        topic: topic.to_string(),
        notes: hits.len(),
        central: central(vault, hits),
        digest: digest::points(&chosen, DIGEST_POINTS),
        synthesis: None,
        passages: chosen,
    }
}

/// The best passages, skipping repeats and keeping [`PER_NOTE`] per note.
fn pick(ranked: Vec<Passage>) -> Vec<Passage> {
    let mut chosen: Vec<Passage> = Vec::new();
    for p in ranked {
        if chosen.len() == MAX_PASSAGES {
            break;
        }
        if chosen.iter().filter(|c| c.path == p.path).count() >= PER_NOTE
            || chosen
                .iter()
                .any(|c| passages::same_passage(&c.text, &p.text))
        {
            continue;
        }
        chosen.push(p);
    }
    chosen
}

/// The central notes: among the matching notes, those the others link to most, the search
/// rank breaking ties; at most three.
fn central(vault: &Vault, hits: &[Hit]) -> Vec<String> {
    let idx: Vec<Option<usize>> = hits.iter().map(|h| vault.note_index(&h.path)).collect();
    let back = vault.backlinks();
    let mut ranked: Vec<(usize, usize, &Hit)> = hits
        .iter()
        .zip(&idx)
        .enumerate()
        .map(|(rank, (h, i))| {
            let cited = i.map_or(0, |i| {
                back[i]
                    .iter()
                    .filter(|src| idx.contains(&Some(**src)))
                    .count()
            });
            (cited, rank, h)
        })
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked
        .into_iter()
        .take(3)
        .map(|(_, _, h)| super::link_name(vault, &h.path))
        .collect()
}

/// The answer as Markdown.
pub fn render(a: &Answer, l: crate::lang::Lang) -> String {
    let mut out = crate::tr!(l, "seeker.answer.heading", topic = a.topic);
    if a.passages.is_empty() {
        out.push_str(&crate::tr!(l, "seeker.answer.nothing"));
        return out;
    }
    if let Some(Synthesis::By { model, text }) = &a.synthesis {
        out.push_str(&crate::tr!(l, "seeker.answer.synthesis", model = model));
        out.push_str(text.trim());
        out.push_str("\n\n");
    } else if !a.digest.is_empty() {
        if let Some(Synthesis::Failed(why)) = &a.synthesis {
            out.push_str(&crate::tr!(l, "seeker.answer.synthesis_failed", why = why));
        }
        out.push_str(&crate::tr!(l, "seeker.answer.digest"));
        for p in &a.digest {
            out.push_str(&crate::tr!(
                l,
                "seeker.answer.digest_point",
                text = passages::excerpt(&p.text, 300),
                note = p.title,
                line = p.line
            ));
        }
        out.push('\n');
    }
    let links: Vec<String> = a.central.iter().map(|c| format!("[[{c}]]")).collect();
    out.push_str(&crate::trn!(
        l,
        "seeker.answer.summary",
        links.len(),
        notes = a.notes,
        central = links.join(", ")
    ));
    for p in &a.passages {
        let under = if p.heading.is_empty() {
            String::new()
        } else {
            crate::tr!(l, "seeker.answer.under", heading = p.heading)
        };
        out.push_str(&crate::tr!(
            l,
            "seeker.answer.passage",
            text = passages::excerpt(&p.text, 400),
            note = p.title,
            line = p.line,
            under = under
        ));
    }
    out
}
