//! What the router learns from: every phrase the crew definition says about each route — its
//! name, trigger phrases, vocabulary, example requests, the phrases of its mode sections, the
//! clauses of its description and its registry row — read from the definition files, never
//! from code.

use crate::crew::definition::quoted_phrases;
use crate::crew::{Crew, Definition, Kind};
use crate::text::{normalize, words};

/// Where a phrase came from in the definition.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum Source {
    Name,
    Trigger,
    Vocabulary,
    Mode,
    Description,
    Registry,
    Example,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Name => "name",
            Source::Trigger => "trigger",
            Source::Vocabulary => "vocabulary",
            Source::Mode => "mode",
            Source::Description => "description",
            Source::Registry => "registry",
            Source::Example => "example",
        }
    }
}

/// One phrase of the definition and the route it belongs to (an index into the units).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Phrase {
    pub unit: usize,
    pub text: String,
    pub source: Source,
}

/// A route the model can choose.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Unit {
    pub kind: Kind,
    pub name: String,
    /// The agent whose job it is: the agent itself, or a skill's source agent (a skill is
    /// one of its agent's workflows, so taking one for the other loses little).
    pub family: String,
}

/// The active routes of a crew (skills first, as the router ranks them) and their phrases.
pub fn collect(crew: &Crew) -> (Vec<Unit>, Vec<Phrase>) {
    let mut units = Vec::new();
    let mut phrases = Vec::new();
    let skills = crew
        .skills
        .iter()
        .filter(|s| crew.skill_active(&s.name))
        .map(|d| (Kind::Skill, d));
    let agents = crew
        .agents
        .iter()
        .filter(|a| crew.agent_active(&a.name))
        .map(|d| (Kind::Agent, d));
    for (kind, d) in skills.chain(agents) {
        let unit = units.len();
        units.push(Unit {
            kind,
            name: d.name.clone(),
            family: d.source_agent.clone().unwrap_or_else(|| d.name.clone()),
        });
        let mut put = |text: &str, source: Source| {
            if !normalize(text).is_empty() {
                phrases.push(Phrase {
                    unit,
                    text: text.trim().to_string(),
                    source,
                });
            }
        };
        put(&d.name.replace(['-', '_'], " "), Source::Name);
        for t in &d.triggers {
            put(t, Source::Trigger);
        }
        for v in &d.vocabulary {
            put(v, Source::Vocabulary);
        }
        for e in &d.examples {
            put(e, Source::Example);
        }
        for m in mode_phrases(&d.body) {
            put(&m, Source::Mode);
        }
        for c in clauses(&d.description) {
            put(c, Source::Description);
        }
        for cell in registry_cells(crew, kind, d) {
            for c in clauses(cell) {
                put(c, Source::Registry);
            }
            for q in quoted_phrases(cell) {
                put(&q, Source::Registry);
            }
        }
    }
    (units, phrases)
}

/// The registry cells that say what a route is for: an agent's `Input`, a skill's `Purpose`.
fn registry_cells<'a>(crew: &'a Crew, kind: Kind, d: &Definition) -> Vec<&'a str> {
    match kind {
        Kind::Agent => crew
            .registry
            .agents
            .iter()
            .filter(|r| r.name == d.name)
            .map(|r| r.input.as_str())
            .collect(),
        Kind::Skill => crew
            .registry
            .skills
            .iter()
            .filter(|r| r.name == d.name)
            .map(|r| r.purpose.as_str())
            .collect(),
    }
}

/// A text cut at its punctuation into clauses of at least two words (one-word clauses are
/// vocabulary, already listed, or noise).
fn clauses(text: &str) -> impl Iterator<Item = &str> {
    text.split([',', ';', '.', ':', '(', ')', '—'])
        .map(str::trim)
        .filter(|c| words(&normalize(c)).count() >= 2)
}

/// The phrases of a definition body's mode sections (see [`crate::dispatch::mode`]): on each
/// line, every quoted phrase and every **bold** mode name.
pub fn mode_phrases(body: &str) -> Vec<String> {
    crate::dispatch::mode::mode_lines(body)
        .into_iter()
        .flat_map(|l| l.phrases.into_iter().chain(l.names))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mode_sections_give_their_names_and_quoted_phrases() {
        let body = "# Seeker\n\n## Modes\n1. **Timeline** (\"timeline\", \"cronologia\")\n\
                    2. **Missing knowledge** (\"knowledge gaps\")\n\n## Rules\n\"not a mode\"\n\
                    ### Modalità\n- **Costellazione**\n";
        assert_eq!(
            mode_phrases(body),
            [
                "timeline",
                "cronologia",
                "Timeline",
                "knowledge gaps",
                "Missing knowledge",
                "Costellazione"
            ]
        );
    }

    #[test]
    fn a_body_without_modes_has_no_mode_phrases() {
        assert!(mode_phrases("# Scribe\n\n## How you work\n- **Capture** \"this\"\n").is_empty());
    }

    #[test]
    fn every_active_route_is_a_unit_with_its_phrases() {
        let crew = Crew::builtin();
        let (units, phrases) = collect(&crew);
        assert_eq!(units.len(), crew.agents.len() + crew.skills.len());
        assert_eq!(units[0].kind, Kind::Skill, "skills first");
        for (i, u) in units.iter().enumerate() {
            let own: Vec<_> = phrases.iter().filter(|p| p.unit == i).collect();
            assert!(
                own.iter().any(|p| p.source == Source::Trigger),
                "{}",
                u.name
            );
            assert!(
                own.iter().any(|p| p.source == Source::Registry),
                "{}",
                u.name
            );
            // ten whole requests per route, in the seven languages
            assert!(
                own.iter().filter(|p| p.source == Source::Example).count() >= 7,
                "{}",
                u.name
            );
        }
    }
}
