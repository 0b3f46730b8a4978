//! Modes: which of its modes the routed agent runs, chosen once, where the request is routed.
//!
//! An agent's modes are data: the `## Modes` section of its definition, one mode a line, a
//! **bold** name and the quoted phrases that ask for it. The mode is read from the user's
//! message with one rule for every agent (see [`choose`]), and travels with the step as the
//! mode's slug; each agent maps the slug to its own typed mode.

use std::sync::OnceLock;

use super::route::word_bounded;
use crate::crew::definition::quoted_phrases;
use crate::crew::{Crew, Kind};
use crate::text::{is_unspaced_script, lexicons, normalize, words};

/// One line of a mode section: its **bold** names (the first names the mode) and its quoted
/// phrases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeLine {
    pub names: Vec<String>,
    pub phrases: Vec<String>,
}

/// A mode of an agent: its slug (`priority-triage`), its name as written, and the phrases
/// that ask for it (the name among them).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModeDef {
    pub slug: String,
    pub name: String,
    pub phrases: Vec<String>,
}

/// The mode a message asks for, and the phrase that said so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chosen {
    pub slug: String,
    pub phrase: String,
}

pub use crate::text::slug;

/// The lines of a definition body's mode sections: a section whose heading holds a word of
/// `mode_headings` (any language), down to the next heading as high.
pub fn mode_lines(body: &str) -> Vec<ModeLine> {
    let heads: Vec<&str> = lexicons()
        .iter()
        .flat_map(|l| l.mode_headings.iter().map(String::as_str))
        .collect();
    let mut out = Vec::new();
    let mut inside: Option<usize> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        let level = trimmed.chars().take_while(|&c| c == '#').count();
        if level > 0 && trimmed[level..].starts_with(' ') {
            if inside.is_some_and(|l| level <= l) {
                inside = None;
            }
            let heading = normalize(&trimmed[level..]);
            if inside.is_none() && words(&heading).any(|w| heads.contains(&w)) {
                inside = Some(level);
            }
            continue;
        }
        if inside.is_none() {
            continue;
        }
        let phrases = quoted_phrases(line);
        let names = bold(line);
        if !names.is_empty() || !phrases.is_empty() {
            out.push(ModeLine { names, phrases });
        }
    }
    out
}

/// The **bold** texts of a line short enough to be names.
fn bold(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(start) = rest.find("**") {
        let after = &rest[start + 2..];
        let Some(end) = after.find("**") else { break };
        let name = after[..end].trim();
        if !name.is_empty() && name.chars().count() <= 60 {
            out.push(name.to_string());
        }
        rest = &after[end + 2..];
    }
    out
}

/// The modes of a definition body: each line with a bold name is a mode; quoted phrases on a
/// line without one belong to the mode above.
pub fn modes(body: &str) -> Vec<ModeDef> {
    let mut out: Vec<ModeDef> = Vec::new();
    for line in mode_lines(body) {
        match line.names.into_iter().next() {
            Some(name) if !slug(&name).is_empty() => {
                let mut phrases = line.phrases;
                phrases.push(name.clone());
                out.push(ModeDef {
                    slug: slug(&name),
                    name,
                    phrases,
                });
            }
            _ => {
                if let Some(last) = out.last_mut() {
                    last.phrases.extend(line.phrases);
                }
            }
        }
    }
    out
}

/// Modes of the same slug become one, with the phrases of both; new slugs are added.
pub fn merge(mut base: Vec<ModeDef>, more: Vec<ModeDef>) -> Vec<ModeDef> {
    for m in more {
        match base.iter_mut().find(|b| b.slug == m.slug) {
            Some(b) => {
                for p in m.phrases {
                    if !b.phrases.contains(&p) {
                        b.phrases.push(p);
                    }
                }
            }
            None => base.push(m),
        }
    }
    base
}

/// The built-in definition's modes of each core agent, read once.
fn builtin_modes(name: &str) -> Vec<ModeDef> {
    static ALL: OnceLock<Vec<(String, Vec<ModeDef>)>> = OnceLock::new();
    ALL.get_or_init(|| {
        Crew::builtin()
            .agents
            .iter()
            .map(|a| (a.name.clone(), modes(&a.body)))
            .collect()
    })
    .iter()
    .find(|(n, _)| n == name)
    .map(|(_, m)| m.clone())
    .unwrap_or_default()
}

/// The modes of a route. A core agent keeps its built-in modes under the vault's own file (an
/// installed crew's file may list fewer phrases, or none); a skill without modes of its own
/// runs its agent's (a skill is one of its agent's workflows).
pub fn modes_of(crew: &Crew, kind: Kind, name: &str) -> Vec<ModeDef> {
    let Some(def) = crew.definition(kind, name) else {
        return Vec::new();
    };
    let own = modes(&def.body);
    match kind {
        Kind::Agent if Crew::is_core(name) => merge(builtin_modes(name), own),
        Kind::Skill if own.is_empty() => def
            .source_agent
            .as_deref()
            .filter(|a| *a != name)
            .map(|a| modes_of(crew, Kind::Agent, a))
            .unwrap_or_default(),
        _ => own,
    }
}

/// The mode the user's message asks of a route; `None` for the route's default mode.
pub fn of_route(crew: &Crew, kind: Kind, name: &str, message: &str) -> Option<Chosen> {
    choose(&modes_of(crew, kind, name), message)
}

/// The mode a message asks for: the longest phrase found as whole words in the normalized
/// message (the first mode listed on a tie). A phrase of one word is a mode only where it
/// leads the request — first, after an `@name` and polite words — or is followed by `:`
/// ("quote: …"); inside a sentence a single word is a topic ("get a quote for the tiles").
pub fn choose(modes: &[ModeDef], message: &str) -> Option<Chosen> {
    let request = without_mention(message.trim());
    let text = normalize(request);
    let lead = lead_end(&text);
    let mut best: Option<(usize, Chosen)> = None;
    for m in modes {
        for p in &m.phrases {
            let n = normalize(p);
            if n.is_empty() || !found(&text, &n, lead, request) {
                continue;
            }
            let len = n.chars().count();
            if best.as_ref().is_none_or(|(b, _)| len > *b) {
                best = Some((
                    len,
                    Chosen {
                        slug: m.slug.clone(),
                        phrase: p.clone(),
                    },
                ));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// The message without a leading `@agent` or `/skill`, which names the route, not a mode.
pub(crate) fn without_mention(message: &str) -> &str {
    match message.strip_prefix(['@', '/']) {
        Some(rest) => rest.trim_start_matches(|c: char| !c.is_whitespace()),
        None => message,
    }
}

/// Where the request proper starts in normalized text: after the polite words it opens with.
pub(super) fn lead_end(text: &str) -> usize {
    let polite: Vec<String> = lexicons()
        .iter()
        .flat_map(|l| l.polite_words.iter().map(|w| normalize(w)))
        .filter(|w| !w.is_empty())
        .collect();
    let mut at = 0;
    'strip: loop {
        let rest = &text[at..];
        for p in &polite {
            if rest == p.as_str() {
                return text.len();
            }
            if rest.starts_with(p.as_str()) && rest[p.len()..].starts_with(' ') {
                at += p.len() + 1;
                continue 'strip;
            }
        }
        return at;
    }
}

/// Whether a normalized phrase is in normalized text as whole words (inside a run of an
/// unspaced script, anywhere).
pub fn has_phrase(text: &str, phrase: &str) -> bool {
    !phrase.is_empty()
        && text
            .match_indices(phrase)
            .any(|(i, _)| word_bounded(text, i, i + phrase.len()))
}

/// Whether a normalized phrase is in the text as whole words, and — for one word of a spaced
/// script — in a place where it asks for a mode.
fn found(text: &str, phrase: &str, lead: usize, raw: &str) -> bool {
    let one_word =
        !phrase.contains(' ') && !phrase.chars().any(is_unspaced_script) && !phrase.is_empty();
    let mut from = 0;
    while let Some(i) = text[from..].find(phrase) {
        let start = from + i;
        let end = start + phrase.len();
        from = start + phrase.len().max(1);
        if !word_bounded(text, start, end) {
            continue;
        }
        if !one_word || start == lead {
            return true;
        }
    }
    one_word && followed_by_colon(raw, phrase)
}

/// Whether a word of the raw message, normalized, is `phrase` and a `:` follows it.
fn followed_by_colon(raw: &str, phrase: &str) -> bool {
    raw.split(':')
        .rev()
        .skip(1)
        .any(|before| normalize(before).rsplit(' ').next() == Some(phrase))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SORTER: &str = "# Sorter\n\n## Modes\n\
        - **Smart batch** — \"smart batch\", \"batch sort\".\n\
        - **Priority triage** — \"priority triage\", \"urgent first\", \"what needs attention\".\n\
        - **Project pulse** — \"project pulse\", \"which projects are active\".\n\n\
        ## Hand-offs\n\"not a mode\"\n";

    fn pick(body: &str, message: &str) -> Option<String> {
        choose(&modes(body), message).map(|c| c.slug)
    }

    #[test]
    fn slugs_are_hyphenated_normalized_names() {
        assert_eq!(slug("Priority triage"), "priority-triage");
        assert_eq!(slug("Voice-to-note"), "voice-to-note");
        assert_eq!(slug("  Quick health check "), "quick-health-check");
    }

    #[test]
    fn a_mode_section_gives_names_slugs_and_phrases() {
        let m = modes(SORTER);
        let slugs: Vec<&str> = m.iter().map(|m| m.slug.as_str()).collect();
        assert_eq!(slugs, ["smart-batch", "priority-triage", "project-pulse"]);
        assert_eq!(
            m[1].phrases,
            [
                "priority triage",
                "urgent first",
                "what needs attention",
                "Priority triage"
            ]
        );
        assert!(modes("# Scribe\n\n## How you work\n- **Capture** \"this\"\n").is_empty());
    }

    #[test]
    fn phrases_match_whole_words_and_the_longest_wins() {
        assert_eq!(
            pick(SORTER, "priority triage").as_deref(),
            Some("priority-triage")
        );
        assert_eq!(
            pick(SORTER, "Please do a Priority-Triage of my inbox").as_deref(),
            Some("priority-triage")
        );
        // "smart batches" is no "smart batch"
        assert_eq!(pick(SORTER, "smart batches of notes"), None);
        let body = "## Modes\n- **Graph audit** — \"audit\"\n\
                    - **People network** — \"people network audit\"\n";
        assert_eq!(
            pick(body, "audit: people network audit").as_deref(),
            Some("people-network")
        );
    }

    #[test]
    fn a_single_word_phrase_must_lead_or_be_followed_by_a_colon() {
        let body = "## Modes\n- **Quote capture** — \"quote\", \"citazione\"\n\
                    - **Brainstorm** — \"brainstorm\"\n";
        assert_eq!(
            pick(body, "quote: stay hungry").as_deref(),
            Some("quote-capture")
        );
        assert_eq!(
            pick(body, "Quote stay hungry").as_deref(),
            Some("quote-capture")
        );
        assert_eq!(
            pick(body, "please, brainstorm names for the cat").as_deref(),
            Some("brainstorm")
        );
        assert_eq!(
            pick(body, "@scribe citazione: siamo quello che facciamo").as_deref(),
            Some("quote-capture")
        );
        assert_eq!(
            pick(body, "save this quote: less is more").as_deref(),
            Some("quote-capture")
        );
        assert_eq!(pick(body, "get a quote for the tiles"), None);
        assert_eq!(pick(body, "tile quote from the shop"), None);
        assert_eq!(pick(body, "the quote"), None);
    }

    #[test]
    fn bare_words_of_a_longer_phrase_switch_nothing() {
        assert_eq!(pick(SORTER, "what is the priority of the roof"), None);
        assert_eq!(pick(SORTER, "take the pulse of the project"), None);
        assert_eq!(pick(SORTER, "batch"), None);
    }

    #[test]
    fn a_vault_file_without_modes_keeps_the_built_in_ones() {
        let mut crew = Crew::builtin();
        let sorter = crew
            .agents
            .iter_mut()
            .find(|a| a.name == "sorter")
            .expect("sorter");
        sorter.body = "# Sorter\n\nYou file the inbox.\n".into();
        let c = of_route(&crew, Kind::Agent, "sorter", "priority triage").expect("a mode");
        assert_eq!(c.slug, "priority-triage");
        // the vault's own phrases join the built-in ones
        let sorter = crew
            .agents
            .iter_mut()
            .find(|a| a.name == "sorter")
            .expect("sorter");
        sorter.body = "## Modes\n- **Priority triage** — \"urgenze prima di tutto\"\n".into();
        let c = of_route(&crew, Kind::Agent, "sorter", "urgenze prima di tutto").expect("mode");
        assert_eq!(c.slug, "priority-triage");
        assert!(of_route(&crew, Kind::Agent, "sorter", "urgent first").is_some());
    }

    #[test]
    fn a_custom_agent_has_its_own_modes() {
        let mut crew = Crew::builtin();
        let mut custom = crew.agent("seeker").cloned().expect("seeker");
        custom.name = "gardener".into();
        custom.body = "## Modes\n- **Prune** — \"prune the garden\"\n".into();
        crew.agents.push(custom);
        let c = of_route(
            &crew,
            Kind::Agent,
            "gardener",
            "please prune the garden today",
        );
        assert_eq!(c.map(|c| c.slug).as_deref(), Some("prune"));
        assert_eq!(of_route(&crew, Kind::Agent, "gardener", "search"), None);
    }

    #[test]
    fn unknown_routes_and_routes_without_modes_have_none() {
        let crew = Crew::builtin();
        assert_eq!(
            of_route(&crew, Kind::Agent, "nobody", "priority triage"),
            None
        );
        assert_eq!(
            of_route(&crew, Kind::Agent, "architect", "priority triage"),
            None
        );
    }
}
