//! The router: a pure function from (message, crew, history) to a route value.

use std::sync::{Arc, OnceLock};

use aho_corasick::{AhoCorasick, MatchKind};
use regex::Regex;
use serde::{Deserialize, Serialize};

use super::learned::Model;
use super::scorer::{NOTE_MOVER, Scorer};
use crate::crew::{Crew, Kind};
use crate::text::{is_unspaced_script, normalize, words};

/// Where a message goes, and why. Printed, logged and returned by `crew route --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Route {
    pub kind: Kind,
    pub name: String,
    pub reason: String,
    /// The trigger phrase or rule that decided.
    pub matched: String,
    pub fell_back: bool,
    /// Which rule decided: the user's own words (`explicit`, `override`, `pasted`, `move`,
    /// `trigger`, `flag`) or a guess (`classifier`, `learned`, `scorer`, `default`).
    /// Not in the JSON: `crew route --json` keeps the shape the CLI contract fixes.
    #[serde(skip_serializing, default = "Decider::unknown")]
    pub by: Decider,
    /// The slug of the mode the message asks of the route (`priority-triage`); none for its
    /// default mode. Shown so a user sees why the agent did what it did.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub mode: Option<String>,
}

/// The rule that decided a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Decider {
    /// `@agent` or `/skill` at the start of the message.
    Explicit,
    /// A `route_overrides` pattern of the config.
    Override,
    /// Several lines of pasted text: the scribe.
    Pasted,
    /// A request that asks in so many words to move the notes it links: the sorter.
    Move,
    /// A trigger phrase of an agent or skill.
    Trigger,
    /// `--agent NAME` on the command line.
    Flag,
    /// A classifier model's answer.
    Classifier,
    /// The model learned from the crew definition, sure of its answer.
    Learned,
    /// The offline scorer.
    Scorer,
    /// Nothing decided: the declared default route.
    Default,
}

impl Decider {
    /// Routes logged before this field existed; treated as guesses, the careful reading.
    fn unknown() -> Decider {
        Decider::Default
    }
}

/// Why the default route took a request nothing else claimed (the reply says it in the
/// request's language).
pub(crate) const NO_MATCH: &str = "no trigger matched and no classifier is configured";

impl Route {
    pub(crate) fn new(
        kind: Kind,
        name: &str,
        by: Decider,
        reason: impl Into<String>,
        matched: impl Into<String>,
    ) -> Route {
        Route {
            kind,
            name: name.to_string(),
            reason: reason.into(),
            matched: matched.into(),
            fell_back: false,
            by,
            mode: None,
        }
    }

    /// The route was guessed (a classifier, the scorer or the default route), not chosen by
    /// the user's words: an agent that would change the vault only shows its plan.
    pub fn guessed(&self) -> bool {
        matches!(
            self.by,
            Decider::Classifier | Decider::Learned | Decider::Scorer | Decider::Default
        )
    }
}

/// Why a classifier gave no answer: the model runtime's own error, whatever its type (the
/// dispatcher sits below the runtime and only says it, then falls back).
pub type ClassifierError = Box<dyn std::error::Error + Send + Sync>;

/// A model that classifies messages no trigger matched (supplied by the model runtime).
pub trait Classifier {
    /// Returns the model's raw answer to the routing prompt built from `digest`.
    fn classify(&self, digest: &str) -> Result<String, ClassifierError>;
}

#[derive(Debug, Clone)]
struct Pattern {
    kind: Kind,
    name: String,
    trigger: String,
    normalized_len: usize,
    rank: usize,
}

/// The compiled router for one crew: one automaton over every active trigger.
pub struct Router {
    automaton: Option<AhoCorasick>,
    patterns: Vec<Pattern>,
    overrides: Vec<(Regex, Kind, String, String)>,
    scorer: Scorer,
    /// Built on first need: a message a trigger decides never pays for it.
    learned: OnceLock<Arc<Model>>,
    default: Option<(Kind, String)>,
}

/// Words (and word pairs) the learned model needs before it may overrule a rule that decided:
/// beyond a trigger, or shared by its nearest phrase with a message the scorer placed. One
/// word is a detail or a stray ("hey crew, …"; "sistema" in "sistema il vault"), more is a
/// request of its own.
const MORE_WORDS: usize = 2;

/// Lines of history the classifier sees, and characters per line.
pub(crate) const DIGEST_LINES: usize = 8;
pub(crate) const DIGEST_LINE_CHARS: usize = 400;
pub(crate) const DIGEST_MARKER: &str = "--- MESSAGE TO CLASSIFY ---";

/// A question about a topic asks the vault, whatever agent's word its topic holds ("what did
/// I write about graph view?" is no graph audit): the seeker's route, when the message is one.
fn topic_question(crew: &Crew, message: &str) -> Option<Route> {
    let (_, asked) = crate::analysis::search::split_filters(message);
    let q = crate::lang::questions::topic_question(&asked)?;
    let (kind, name) = crew.lookup("seeker")?;
    Some(Route::new(
        kind,
        &name,
        Decider::Trigger,
        format!("question about \"{}\"", q.topic),
        q.frame,
    ))
}

impl Router {
    pub fn new(crew: &Crew) -> Router {
        let mut patterns = Vec::new();
        let mut add = |kind: Kind, name: &str, triggers: &[String], rank: usize| {
            for t in triggers {
                let n = normalize(t);
                if n.is_empty() {
                    continue;
                }
                patterns.push(Pattern {
                    kind,
                    name: name.to_string(),
                    trigger: t.clone(),
                    normalized_len: n.chars().count(),
                    rank,
                });
            }
        };
        for s in &crew.skills {
            if crew.skill_active(&s.name) {
                add(Kind::Skill, &s.name, &s.triggers, 0);
            }
        }
        for a in &crew.agents {
            if crew.agent_active(&a.name) {
                add(Kind::Agent, &a.name, &a.triggers, Crew::priority(&a.name));
                // phrases quoted in a custom agent's registry `Input` cell are its triggers too
                if let Some(input) = crew.custom_input(&a.name) {
                    let quoted = crate::crew::definition::quoted_phrases(input);
                    add(Kind::Agent, &a.name, &quoted, Crew::priority(&a.name));
                }
            }
        }
        let normalized: Vec<String> = patterns.iter().map(|p| normalize(&p.trigger)).collect();
        let automaton = AhoCorasick::builder()
            .match_kind(MatchKind::Standard)
            .build(&normalized)
            .ok();
        let overrides = crew
            .config
            .route_overrides
            .iter()
            .filter_map(|o| {
                let re = Regex::new(&o.pattern).ok()?;
                let (kind, name) = crew.lookup(&o.route)?;
                Some((re, kind, name, o.pattern.clone()))
            })
            .collect();
        Router {
            automaton,
            patterns,
            overrides,
            scorer: Scorer::new(crew),
            learned: OnceLock::new(),
            default: crew.lookup(&crew.config.default_route),
        }
    }

    /// The best trigger match in a normalized message: longest phrase, then skill before agent,
    /// then agent priority, then name (for a stable answer).
    fn best_trigger(&self, normalized: &str) -> Option<&Pattern> {
        let ac = self.automaton.as_ref()?;
        let mut best: Option<&Pattern> = None;
        for m in ac.find_overlapping_iter(normalized) {
            let p = &self.patterns[m.pattern().as_usize()];
            if !word_bounded(normalized, m.start(), m.end()) {
                continue;
            }
            let better = match best {
                None => true,
                Some(b) => {
                    (p.normalized_len, b.kind, b.rank, &b.name)
                        > (b.normalized_len, p.kind, p.rank, &p.name)
                }
            };
            if better {
                best = Some(p);
            }
        }
        best
    }

    /// The route of a trigger found in the message, unless the trigger is a small part of a
    /// longer message whose other words the learned model knows and places elsewhere, surely.
    fn trigger_route(&self, crew: &Crew, trimmed: &str, normalized: &str, p: &Pattern) -> Route {
        // the model is asked only when the trigger is a small part of the message: a message
        // a trigger settles never builds or reads it
        let trigger = normalize(&p.trigger);
        // one known word beyond the trigger is a detail ("hey crew, …"), unless the trigger is
        // a phrase that names nothing ("zeig mir") and the scorer, reading what it is asked
        // for, agrees with the model: then that word is the request's object. A one-word verb
        // ("find") keeps its topic: "find pasta" is a search, whatever unit knows "pasta"
        if p.normalized_len * 2 < normalized.chars().count()
            && let model = self.learned(crew)
            && let beyond = model
                .known_words(normalized)
                .saturating_sub(model.known_words(&trigger))
            && (beyond >= MORE_WORDS
                || (beyond >= 1 && words(&trigger).count() > 1 && names_nothing(&trigger)))
            && overrulable(&trigger, normalized)
            && let Some(g) = model.guess(trimmed)
            && g.sure
            && !model.same_family(&g.name, &p.name)
            && (beyond >= MORE_WORDS
                || self
                    .scorer
                    .best_shaped(&without_phrase(normalized, &trigger), Default::default())
                    .is_some_and(|b| b.1 == g.name))
        {
            return Route::new(
                g.kind,
                &g.name,
                Decider::Learned,
                format!(
                    "learned {:.2} (margin {:.2}) near \"{}\", over the trigger \"{}\"",
                    g.score, g.margin, g.nearest, p.trigger
                ),
                g.nearest,
            );
        }
        Route::new(
            p.kind,
            &p.name,
            Decider::Trigger,
            format!("trigger \"{}\"", p.trigger),
            p.trigger.clone(),
        )
    }

    /// Routes a message, and reads from it the mode it asks of the route.
    /// `classifier` is consulted only when no rule or trigger decides.
    pub fn route(
        &self,
        crew: &Crew,
        message: &str,
        history: &[String],
        classifier: Option<&dyn Classifier>,
    ) -> Route {
        let mut r = self.unit(crew, message, history, classifier);
        r.mode = mode_asked(crew, r.kind, &r.name, message);
        r
    }

    /// The agent or skill a message goes to.
    fn unit(
        &self,
        crew: &Crew,
        message: &str,
        history: &[String],
        classifier: Option<&dyn Classifier>,
    ) -> Route {
        let trimmed = message.trim();
        // 1. explicit @agent or /skill
        if let Some(rest) = trimmed
            .strip_prefix('@')
            .or_else(|| trimmed.strip_prefix('/'))
        {
            let word: String = rest.chars().take_while(|c| !c.is_whitespace()).collect();
            if let Some((kind, name)) = crew.lookup(&word) {
                let mark = &trimmed[..1];
                return Route::new(
                    kind,
                    &name,
                    Decider::Explicit,
                    format!("explicit {mark}{word}"),
                    format!("{mark}{word}"),
                );
            }
        }
        // 2. regex overrides from the config
        for (re, kind, name, pattern) in &self.overrides {
            if re.is_match(trimmed) {
                return Route::new(
                    *kind,
                    name,
                    Decider::Override,
                    "route override",
                    format!("/{pattern}/"),
                );
            }
        }
        // 3. pasted, unstructured text: several lines and no request on the first one
        let lines: Vec<&str> = trimmed.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.len() >= 3
            && self.best_trigger(&normalize(lines[0])).is_none()
            && let Some((kind, name)) = crew.lookup("scribe")
        {
            return Route::new(
                kind,
                &name,
                Decider::Pasted,
                format!("pasted text ({} lines)", lines.len()),
                "pasted text",
            );
        }
        // 4. a request that asks in so many words to move the notes it links ("please move
        // [[X]] to …", "[[X]] nach A verschieben"): the sorter's named move, by the same
        // reading the sorter acts on, so a trigger word about the note or the place ("the
        // health stuff", "compte-rendu") does not send it elsewhere
        if super::intent::linked_notes(trimmed).is_some_and(|n| n.asks_to_move)
            && let Some((kind, name)) = crew.lookup(NOTE_MOVER)
        {
            return Route::new(
                kind,
                &name,
                Decider::Move,
                "asks to move the notes it links",
                "a move asked for",
            );
        }
        // from here on the words route: a search's filters name no agent
        let words = without_filters(trimmed);
        let trimmed = words.as_ref();
        if let Some(r) = topic_question(crew, trimmed) {
            return r;
        }
        // what the message quotes is material (a pasted chat, a stranger's words, a title): a
        // trigger inside it is not the user's request, and a decided route runs
        let unquoted = without_quoted(trimmed);
        // a note's name written as a link is material too: "[[Weekly review]]" asks for no
        // weekly agenda, "[[Q3 budget draft]]" for no mail draft (the classifier, too, reads
        // the message without them)
        let unnamed = without_link_names(&unquoted);
        // a folder's path is a name as well: "[[Devis]] dans Maison/Travaux" asks nothing of
        // the postman's "travaux" (the shape of the request still sees the place)
        let unplaced = super::intent::without_folder_paths(&unnamed);
        let trimmed = unplaced.as_ref();
        // 5. triggers; a trigger that is a small part of a longer message is weighed against
        // the learned model when the rest of the message gives the model words it knows
        let normalized = normalize(trimmed);
        if let Some(p) = self.best_trigger(&normalized) {
            return self.trigger_route(crew, trimmed, &normalized, p);
        }
        // 6. classifier
        if let Some(c) = classifier {
            let digest = history_digest(history, trimmed);
            let answer = c.classify(&digest);
            return resolve_classifier_answer(crew, answer, self.default.as_ref());
        }
        // 7. the offline scorer; then the model learned from the definition, when sure; then
        // the default route
        self.guess(crew, trimmed, &unnamed)
    }

    /// The route of a message nothing decided, its quotes already set aside: the scorer's,
    /// then the learned model's when sure, then the default. A #tag is a label, not a word of
    /// the request ("#health" on a capture asks for no health check).
    /// `shaped` is the message with its folder paths, read for the request's shape only.
    fn guess(&self, crew: &Crew, message: &str, shaped: &str) -> Route {
        let labels_dropped = without_hashtags(message);
        let trimmed = labels_dropped.as_ref();
        if let Some(head) = request_head(trimmed)
            && let Some((kind, name, score, words)) = self
                .scorer
                .best_shaped(&normalize(head), super::scorer::Shape::of(head))
        {
            return Route::new(
                kind,
                &name,
                Decider::Scorer,
                format!(
                    "scorer {score:.1} on {}, the request before the colon",
                    words.join(", ")
                ),
                words.join(" "),
            );
        }
        let normalized = normalize(trimmed);
        let shape = super::scorer::Shape::of(&without_hashtags(shaped));
        if let Some((kind, name, score, words)) = self.scorer.best_shaped(&normalized, shape) {
            // the learned model reads phrasing the scorer's word lists never saw: where it is
            // sure of another route by a phrase of the definition that shares at least two
            // words with the message, it decides (a fifth set, measured once before anyone
            // read it: 73.5 % → 78.6 %). A phrase that shares one word is as thin as the
            // scorer's one word ("sistema le note nella inbox" is not the librarian's "sistema
            // il vault") — unless the scorer rests on one word too, and the phrase uses that
            // very word and is written in the message itself: then it shows what the word
            // means here ("controllo veloce" is the librarian's quick check, not the scribe's
            // quick note; "my schedule" says nothing of "schedule lunch")
            if let Some(g) = self.learned(crew).guess(trimmed)
                && g.sure
                && g.name != name
            {
                let nearest = normalize(&g.nearest);
                let shared = shared_words(&nearest, &normalized);
                let explains = match words.as_slice() {
                    [word] => phrase_explains(&nearest, word, &normalized),
                    _ => false,
                };
                if shared >= MORE_WORDS || explains {
                    let over = if explains {
                        format!("over the scorer's one word \"{}\"", words[0])
                    } else {
                        format!(
                            "{shared} words shared, over the scorer's {}",
                            words.join(", ")
                        )
                    };
                    return Route::new(
                        g.kind,
                        &g.name,
                        Decider::Learned,
                        format!(
                            "learned {:.2} (margin {:.2}) near \"{}\", {over}",
                            g.score, g.margin, g.nearest
                        ),
                        g.nearest,
                    );
                }
            }
            return Route::new(
                kind,
                &name,
                Decider::Scorer,
                format!("scorer {score:.1} on {}", words.join(", ")),
                words.join(" "),
            );
        }
        if let Some(g) = self.learned(crew).guess(trimmed)
            && g.sure
        {
            return Route::new(
                g.kind,
                &g.name,
                Decider::Learned,
                format!(
                    "learned {:.2} (margin {:.2}) near \"{}\"",
                    g.score, g.margin, g.nearest
                ),
                g.nearest,
            );
        }
        self.fallback(NO_MATCH)
    }

    /// The model learned from the crew definition, built on first need.
    fn learned(&self, crew: &Crew) -> &Model {
        self.learned.get_or_init(|| Model::of(crew))
    }

    fn fallback(&self, why: &str) -> Route {
        match &self.default {
            Some((kind, name)) => Route {
                fell_back: true,
                ..Route::new(
                    *kind,
                    name,
                    Decider::Default,
                    format!("default route: {why}"),
                    "default_route",
                )
            },
            None => Route {
                kind: Kind::Agent,
                name: String::new(),
                reason: format!("no default route is declared: {why}"),
                matched: String::new(),
                fell_back: true,
                by: Decider::Default,
                mode: None,
            },
        }
    }
}

/// The mode a message asks of the unit it was routed to, read as the route read it: a search
/// filter's value names no mode, and a quote picks no mode as it picks no route. The route
/// and the chain's first step both ask this, so a preview and a run agree.
pub(crate) fn mode_asked(crew: &Crew, kind: Kind, name: &str, message: &str) -> Option<String> {
    let words = without_filters(message);
    let words = without_quoted(&words);
    let words = without_link_names(&words);
    super::mode::of_route(crew, kind, name, &words).map(|c| c.slug)
}

/// The message without its search filters (`tag:x`, `type:x`, `path:"…"`, `in:x`, `after:…`,
/// `before:…`, and `#tags` beside them): they narrow what the seeker looks at and name no agent
/// ("find pasta tag:recipes" asks for no tag taxonomy, "after:2026-01-01" for no meeting).
/// Unchanged when it has no such filter, or nothing but filters.
pub(crate) fn without_filters(message: &str) -> std::borrow::Cow<'_, str> {
    const KEYS: [&str; 6] = ["tag", "type", "path", "in", "after", "before"];
    let has_filter = message.split_whitespace().any(|t| {
        t.split_once(':').is_some_and(|(k, v)| {
            !v.trim_matches(['"', '\'', '“', '”']).is_empty()
                && KEYS.contains(&k.to_lowercase().as_str())
        })
    });
    if !has_filter {
        return message.into();
    }
    let (_, free) = crate::analysis::search::split_filters(message);
    if free.trim().is_empty() {
        message.into()
    } else {
        free.into()
    }
}

/// The words before a colon that opens a message, when they are a short head and what
/// follows is longer: "Apunta: llamar al fontanero…", "Note: …", "Merke dir: …". The head is
/// the request and the rest its material, as with a quote; a colon inside a time or an address
/// ("10:30", "https:") has no space after it and opens nothing.
fn request_head(message: &str) -> Option<&str> {
    // a full-width colon needs no space: Japanese puts none
    let (head, tail) = message
        .split_once(": ")
        .or_else(|| message.split_once('：'))?;
    let head = head.trim();
    if !head.chars().any(char::is_alphabetic) {
        return None;
    }
    // words, or for a script written without spaces, characters by the handful
    let size = |s: &str| {
        let words = s.split_whitespace().count();
        if s.is_ascii() {
            words
        } else {
            words.max(s.chars().count() / 4)
        }
    };
    let head_size = size(head);
    (head_size <= 3 && size(tail) > head_size).then_some(head)
}

/// Quotation marks, opening and closing.
const QUOTES: [(char, char); 7] = [
    ('"', '"'),
    ('\'', '\''),
    ('“', '”'),
    ('„', '“'),
    ('«', '»'),
    ('「', '」'),
    ('『', '』'),
];

/// The message without the text it quotes; unchanged when it quotes nothing or is nothing but
/// a quote. A typewriter quote opens where no letter is before the mark and closes where none
/// is after it, so an apostrophe ("l'agente", "don't") is no quotation mark.
fn without_quoted(message: &str) -> std::borrow::Cow<'_, str> {
    let chars: Vec<(usize, char)> = message.char_indices().collect();
    let letter_at = |i: usize| chars.get(i).is_some_and(|(_, c)| c.is_alphanumeric());
    let mut kept = String::new();
    let mut from = 0;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let close = QUOTES.iter().find(|(open, _)| *open == c).map(|q| q.1);
        // only the typewriter marks double as apostrophes and inch signs
        let loose = !c.is_ascii();
        let opens = close.is_some() && (loose || i == 0 || !letter_at(i - 1));
        let end = close.filter(|_| opens).and_then(|close| {
            (i + 1..chars.len()).find(|&j| chars[j].1 == close && (loose || !letter_at(j + 1)))
        });
        match end {
            Some(j) => {
                kept.push_str(&message[from..at]);
                kept.push(' ');
                from = chars.get(j + 1).map_or(message.len(), |(p, _)| *p);
                i = j + 1;
            }
            None => i += 1,
        }
    }
    if from == 0 {
        return message.into();
    }
    kept.push_str(&message[from..]);
    if kept.chars().any(char::is_alphanumeric) {
        kept.into()
    } else {
        message.into()
    }
}

/// `text` without the note word it ends with ("… die Notiz "): written right before a link,
/// that word is part of naming the note, as the link is.
fn without_note_word_at_end(text: &str) -> &str {
    let trimmed = text.trim_end();
    let head = trimmed.trim_end_matches(char::is_alphanumeric);
    let word = crate::text::normalize(&trimmed[head.len()..]);
    if crate::text::lexicons()
        .iter()
        .any(|l| l.note_words.contains(&word))
    {
        head
    } else {
        text
    }
}

/// The message with each link's name blanked (`[[Q3 budget draft]]` read as `[[ ]]`), and a
/// note word written right before it: the link stays a link, so a note is still seen to be
/// named, but its name's words are no request. Links are read by the vault's grammar;
/// unchanged when it is nothing but links.
fn without_link_names(message: &str) -> std::borrow::Cow<'_, str> {
    let links = crate::vault::markdown::wikilinks(message);
    if links.is_empty() {
        return message.into();
    }
    let mut kept = String::with_capacity(message.len());
    let mut from = 0;
    for link in &links {
        let before = &message[from..link.span.start];
        kept.push_str(without_note_word_at_end(before));
        kept.push_str(if link.embed { "![[ ]]" } else { "[[ ]]" });
        from = link.span.end;
    }
    kept.push_str(&message[from..]);
    if kept.chars().any(char::is_alphanumeric) {
        kept.into()
    } else {
        message.into()
    }
}

/// The message without its `#tags`; unchanged when it is nothing but tags.
fn without_hashtags(message: &str) -> std::borrow::Cow<'_, str> {
    let is_tag = |token: &str| {
        token
            .strip_prefix('#')
            .and_then(|rest| rest.chars().next())
            .is_some_and(char::is_alphanumeric)
    };
    if !message.split_whitespace().any(is_tag) {
        return message.into();
    }
    let kept: Vec<&str> = message.split_whitespace().filter(|t| !is_tag(t)).collect();
    if kept.is_empty() {
        message.into()
    } else {
        kept.join(" ").into()
    }
}

pub(super) fn word_bounded(text: &str, start: usize, end: usize) -> bool {
    let before = text[..start].chars().next_back();
    let after = text[end..].chars().next();
    let first = text[start..].chars().next();
    let last = text[..end].chars().next_back();
    let ok_before = match before {
        None | Some(' ') => true,
        Some(c) => is_unspaced_script(c) || first.is_some_and(is_unspaced_script),
    };
    let ok_after = match after {
        None | Some(' ') => true,
        Some(c) => is_unspaced_script(c) || last.is_some_and(is_unspaced_script),
    };
    ok_before && ok_after
}

/// The classifier's input: the last lines of the exchange (oldest first, each cut), a marker
/// line, then the message.
pub(crate) fn history_digest(history: &[String], message: &str) -> String {
    let start = history.len().saturating_sub(DIGEST_LINES);
    let mut out = String::new();
    for line in &history[start..] {
        let one_line = line.replace(['\n', '\r'], " ");
        out.extend(one_line.chars().take(DIGEST_LINE_CHARS));
        out.push('\n');
    }
    out.push_str(DIGEST_MARKER);
    out.push('\n');
    out.push_str(message);
    out
}

/// Turns a classifier's raw answer into a route. Every failure resolves to the default route
/// with `fell_back: true` and the reason.
pub fn resolve_classifier_answer(
    crew: &Crew,
    answer: Result<String, ClassifierError>,
    default: Option<&(Kind, String)>,
) -> Route {
    let fall = |why: String| match default {
        Some((kind, name)) => Route {
            fell_back: true,
            ..Route::new(
                *kind,
                name,
                Decider::Default,
                format!("default route: classifier {why}"),
                "default_route",
            )
        },
        None => Route {
            kind: Kind::Agent,
            name: String::new(),
            reason: format!("classifier {why}; no default route"),
            matched: String::new(),
            fell_back: true,
            by: Decider::Default,
            mode: None,
        },
    };
    let raw = match answer {
        Ok(r) => r,
        Err(e) => return fall(format!("failed: {e}")),
    };
    let body = strip_code_fence(raw.trim());
    if body.is_empty() {
        return fall("returned nothing".into());
    }
    let value: serde_json::Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => return fall(format!("did not return JSON ({e})")),
    };
    let Some(obj) = value.as_object() else {
        return fall("returned JSON that is not an object".into());
    };
    let Some(route) = obj.get("route").and_then(|v| v.as_str()) else {
        return fall("answer has no string `route`".into());
    };
    if route.trim().is_empty() {
        return fall("answer has a blank `route`".into());
    }
    match crew.lookup(route) {
        Some((kind, name)) => {
            let why = obj
                .get("reason")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string();
            Route::new(
                kind,
                &name,
                Decider::Classifier,
                format!("classifier: {why}"),
                route.to_string(),
            )
        }
        None => fall(format!(
            "named `{route}`, which is no active agent or skill"
        )),
    }
}

fn strip_code_fence(s: &str) -> &str {
    let Some(rest) = s.strip_prefix("```") else {
        return s;
    };
    let rest = rest.split_once('\n').map_or("", |(_, r)| r);
    rest.trim_end().strip_suffix("```").unwrap_or(rest).trim()
}

/// Normalized text without the first whole-word occurrence of a normalized phrase.
fn without_phrase(text: &str, phrase: &str) -> String {
    match text
        .match_indices(phrase)
        .find(|(i, _)| word_bounded(text, *i, i + phrase.len()))
    {
        Some((i, _)) => format!("{} {}", &text[..i], &text[i + phrase.len()..]),
        None => text.to_string(),
    }
}

/// How many content words (and pairs of them) of a normalized phrase the normalized message
/// also has, stopwords and kana particles left out, as the learned model counts words.
fn shared_words(phrase: &str, message: &str) -> usize {
    let in_message = super::learned::features::content_words(message);
    super::learned::features::content_words(phrase)
        .iter()
        .filter(|w| in_message.contains(w))
        .count()
}

/// Whether a phrase of the definition shows what one word of a message means there: the
/// phrase holds the word and is itself in the message, from a word's start and up to an
/// inflection of its last word ("appunti su" in "appunti sul viaggio"; "my schedule" is not
/// in "schedule lunch").
fn phrase_explains(phrase: &str, word: &str, message: &str) -> bool {
    super::mode::has_phrase(phrase, &normalize(word))
        && words(phrase).count() > 1
        && message
            .match_indices(phrase)
            .any(|(i, _)| i == 0 || message[..i].ends_with(' '))
}

/// Whether the learned model may overrule this trigger: a phrase of several words that opens
/// the message is the request's own verb phrase ("set up the vault with areas Work, Health…"),
/// and what follows it are its arguments, however they read; a one-word trigger ("find"), or
/// one inside the message, is weaker evidence. The same rule as a one-word mode phrase's.
fn overrulable(trigger: &str, message: &str) -> bool {
    let leads = message == trigger || message.starts_with(&format!("{trigger} "));
    !leads || words(trigger).count() < 2 || names_nothing(trigger)
}

/// Whether a trigger is only a verb and little words ("show me", "zeig mir"): it asks for
/// something and names nothing, so what it is asked for — the rest of the message — says
/// where the request goes, as for a one-word trigger. A question's words ("wo habe ich")
/// are no such verb: the question is the request.
fn names_nothing(trigger: &str) -> bool {
    let lexicons = crate::text::lexicons();
    let asks = |w: &str| {
        lexicons.iter().any(|l| {
            l.question_words.iter().any(|q| q == w) || l.locating_words.iter().any(|q| q == w)
        })
    };
    words(trigger).all(|w| !asks(w) && lexicons.iter().any(|l| l.evidence().any(|e| e == w)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn crew() -> Crew {
        Crew::builtin()
    }

    #[test]
    fn a_trigger_that_names_nothing() {
        assert!(names_nothing("show me"));
        assert!(names_nothing("zeig mir"));
        assert!(
            !names_nothing("wo habe ich"),
            "a question is its own request"
        );
        assert!(!names_nothing("set up the vault"));
        assert!(!names_nothing("weekly agenda"));
    }

    #[test]
    fn a_phrase_explains_a_word_written_beside_it() {
        assert!(phrase_explains(
            "controllo veloce",
            "veloce",
            "controllo veloce"
        ));
        assert!(phrase_explains(
            "appunti su",
            "appunti",
            "ho degli appunti sul viaggio"
        ));
        assert!(!phrase_explains(
            "my schedule",
            "schedule",
            "schedule lunch with marco"
        ));
        assert!(!phrase_explains("schedule", "schedule", "schedule lunch"));
        assert!(!phrase_explains(
            "rapide",
            "rapide",
            "une verification rapide"
        ));
    }

    #[test]
    fn shared_words_count_content_words_and_their_pairs() {
        assert_eq!(
            shared_words("sistema il vault", "sistema le note nella inbox"),
            1
        );
        assert_eq!(shared_words("full graph audit", "full graph audit"), 5);
        assert_eq!(
            shared_words("rename the agent", "the agent i made: rename it"),
            2
        );
        assert_eq!(shared_words("the of", "the of"), 0);
    }

    #[test]
    fn the_model_decides_over_the_scorer_by_a_phrase_sharing_two_words() {
        // the scorer reads "plants" and "agent" as creating one; the definition's "rename the
        // agent" shares two words with the request
        let r = route("the agent for plants I made: rename it to gardener");
        assert_eq!(r.name, "manage-agent", "{}", r.reason);
        assert_eq!(r.by, Decider::Learned);
        assert!(r.guessed(), "a guess only plans");
        // one shared word is no more than the scorer's: "sistema il vault" shares "sistema"
        let r = route("sistema le note nella inbox");
        assert_eq!(r.name, "inbox-triage", "{}", r.reason);
        assert_eq!(r.by, Decider::Scorer);
    }

    fn route(msg: &str) -> Route {
        let c = crew();
        Router::new(&c).route(&c, msg, &[], None)
    }

    #[test]
    fn a_links_name_is_no_request() {
        assert_eq!(
            without_link_names("put [[Q3 budget draft]] in Work/Finance"),
            "put [[ ]] in Work/Finance"
        );
        assert_eq!(
            without_link_names("link ![[a|b]] to [[c]] and [[broken"),
            "link ![[ ]] to [[ ]] and [[broken"
        );
        assert_eq!(without_link_names("[[Weekly review]]"), "[[Weekly review]]");
        assert_eq!(without_link_names("[[a\nb]] x"), "[[a\nb]] x");
        assert_eq!(
            without_link_names("[[a\nb]] draft [[Q3 budget draft]]"),
            "[[a\nb]] draft [[ ]]"
        );
        assert_eq!(
            without_link_names("summarise [[Alpha and email it to [[Bob]]"),
            "summarise [[Alpha and email it to [[ ]]"
        );
        // the name's "draft" was the postman's word
        assert_ne!(
            route("put [[Q3 budget draft]] in Work/Finance").name,
            "postman"
        );
        // a note word right before the link names the note with it: "Notiz" is no capture
        assert_eq!(
            without_link_names("Die Notiz [[Steuer 2023]] gehört nach Finanzen"),
            "Die [[ ]] gehört nach Finanzen"
        );
        assert_eq!(
            without_link_names("manda a nota [[X]] pra pasta Casa"),
            "manda a [[ ]] pra pasta Casa"
        );
        assert_eq!(
            without_link_names("notable [[X]] and notes"),
            "notable [[ ]] and notes"
        );
        assert_ne!(
            route("Die Notiz [[Steuer 2023]] liegt unter Privat. Kannst du sie verschieben?").name,
            "scribe"
        );
        // alone, the note word still asks for a note
        assert_eq!(route("Notiz: Milch kaufen").name, "scribe");
    }

    #[test]
    fn a_note_named_beside_a_place_is_filed() {
        // each went to the inbox or the vault's layout by one folder-ish word before
        for msg in [
            "[[Ricetta lasagne]] nella cartella Cucina",
            "[[Devis plombier]] dans Maison/Cuisine",
            // a path's words are a place's name: "travaux" is the postman's word
            "[[Devis plombier]] dans Maison/Travaux",
        ] {
            let r = route(msg);
            assert_eq!(r.name, "sorter", "{msg}");
            assert!(r.reason.contains("a note and a place"), "{}", r.reason);
            assert!(r.guessed(), "not asked in so many words: {msg}");
        }
        // "put" was the seeker's word (its "where did I put"): a named note is not looked for
        assert_eq!(route("put [[Callouts]] in the Teams folder").name, "sorter");
        // unless the message asks
        assert_eq!(
            route("where did I put [[Callouts]], in the Teams folder?").name,
            "seeker"
        );
        // no place, or the whole inbox: not one note filed
        assert_ne!(route("what did I write in [[Sourdough]]?").name, "sorter");
        assert_eq!(route("triage the inbox").name, "inbox-triage");
    }

    #[test]
    fn a_move_asked_in_so_many_words_is_the_sorters_whatever_else_it_names() {
        for msg in [
            "Sposta [[Ricetta lasagne]] nella cartella Cucina",
            "Range [[Devis plombier]] dans Maison/Travaux",
            // "health" is the vault check's word, "draft" the postman's
            "put [[Dentist invoice]] with the health stuff",
            "move [[Q3 budget draft]] to Work/Finance",
            "[[Steuer 2025]] bitte nach Finanzen/Steuern verschieben",
            "file [[Payroll]]",
        ] {
            let r = route(msg);
            assert_eq!(r.name, "sorter", "{msg}");
            assert_eq!(r.by, Decider::Move, "{msg}");
            assert!(!r.guessed(), "the user's own words decided: {msg}");
        }
        // not asked: a negation, a report, a question, a copy, a link further on
        for msg in [
            "don't move [[Q3 budget]] to Work/Finance",
            "I moved [[Q3 budget]] to Work/Finance yesterday",
            "did you move [[Q3 budget]] to Work/Finance?",
            "copy [[Q3 budget]] to Work/Finance",
            "summarise the notes that link to [[Q3 budget]]",
        ] {
            assert_ne!(route(msg).by, Decider::Move, "{msg}");
        }
    }

    #[test]
    fn search_filters_name_no_agent() {
        assert_eq!(
            without_filters("find pasta tag:recipes in:Food"),
            "find pasta"
        );
        assert_eq!(without_filters("find pasta #food"), "find pasta #food");
        assert_eq!(without_filters("meet at 10:30"), "meet at 10:30");
        assert_eq!(without_filters("tag:recipes"), "tag:recipes");
        assert_eq!(
            without_hashtags("my tags: #reuniao, #reunião need merging"),
            "my tags: need merging"
        );
        assert_eq!(without_hashtags("# heading and #1"), "# heading and");
        assert_eq!(without_hashtags("#work #home"), "#work #home");
        for (message, unquoted) in [
            (
                "turn this into a note: 'who brings popcorn?? / I do'",
                "turn this into a note:  ",
            ),
            (
                "l'agente che mi hai dato non va, don't \"fix\" it",
                "l'agente che mi hai dato non va, don't   it",
            ),
            ("「プロジェクトA」のノート", " のノート"),
            ("'only a quote'", "'only a quote'"),
            ("an 'open quote", "an 'open quote"),
        ] {
            assert_eq!(without_quoted(message), unquoted);
        }
        for msg in [
            "find pasta tag:recipes",
            "find pasta after:2026-01-01 before:2026-03-01",
            "find pasta path:Journal",
        ] {
            assert_eq!(route(msg).name, "seeker", "{msg}");
        }
    }

    #[test]
    fn a_hashtag_is_a_label_not_a_request() {
        // "health" is the audit's word; as a tag on a capture it asks for no audit
        assert_ne!(route("dentist friday 10am #health").name, "vault-audit");
        // without the #, the words ask the librarian for a check (its own phrase "health
        // check", or its full audit)
        let asked = route("dentist friday 10am health check").name;
        assert!(
            ["librarian", "vault-audit"].contains(&asked.as_str()),
            "{asked}"
        );
    }

    #[test]
    fn a_short_head_before_a_colon_is_the_request() {
        for (message, head) in [
            (
                "Apunta: llamar al fontanero antes del martes",
                Some("Apunta"),
            ),
            (
                "note this: the plumber comes on Thursday",
                Some("note this"),
            ),
            ("メモ：明日の午後に歯医者の予約", Some("メモ")),
            ("meeting at 10:30 with Marco and Anna", None),
            ("see https://example.org for the agenda", None),
            ("my tags are a mess and I need help: #a #b", None),
            ("Todo: call", None),
        ] {
            assert_eq!(request_head(message), head, "{message}");
        }
        let r =
            route("Apunta: llamar al fontanero antes del martes y revisar el contrato del local");
        assert_eq!(r.name, "scribe", "{}", r.reason);
        // the appointment is the note's material, not a calendar request
        assert_eq!(route("メモ：明日の午後に歯医者の予約").name, "scribe");
    }

    #[test]
    fn a_trigger_inside_a_quote_decides_nothing() {
        // a stranger's words, quoted, must not pick a route that runs
        for msg in [
            "save this: 'check my email and delete the old ones'",
            "ho ricevuto questo messaggio: «svuota l'inbox e archivia tutto»",
        ] {
            let r = route(msg);
            // a guess only plans; what must not happen is the quote deciding a route that runs
            assert!(
                r.guessed() || !matches!(r.name.as_str(), "email-triage" | "inbox-triage"),
                "{msg} → {} ({})",
                r.name,
                r.reason
            );
        }
        // the user's own words outside the quote still decide
        let r = route("svuota l'inbox, c'è una nota \"Spesa\" da archiviare");
        assert_eq!((r.name.as_str(), r.by), ("inbox-triage", Decider::Trigger));
    }

    #[test]
    fn quoted_material_does_not_steer_a_guess() {
        // a stranger's words pasted inside a request are data, never the request
        let msg = "put this in a note please: 'reply to every email and schedule the meeting'";
        assert_ne!(route(msg).name, "postman");
        assert_eq!(
            route("reply to every email and schedule the meeting").name,
            "postman"
        );
    }

    #[test]
    fn builtin_crew_is_valid() {
        let c = crew();
        let errors: Vec<_> = c.errors().collect();
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(c.agents.len(), 8);
        assert_eq!(c.skills.len(), 14);
    }

    #[test]
    fn skills_first_on_equal_length() {
        let r = route("please check my email now");
        assert_eq!(
            (r.kind.as_str(), r.name.as_str()),
            ("skill", "email-triage")
        );
    }

    #[test]
    fn longest_trigger_wins() {
        let r = route("meeting notes");
        assert_eq!(r.name, "transcriber");
        let r = route("file these notes");
        assert_eq!(r.name, "inbox-triage");
    }

    #[test]
    fn whole_words_only() {
        // "finde" must not fire inside "findependent"; "find" inside "finding" neither
        // (the learned model may still read "findings" as a search: that is no trigger)
        let r = route("findings about xyz");
        assert!(r.by != Decider::Trigger || r.matched != "find", "{r:?}");
    }

    #[test]
    fn explicit_overrides() {
        let r = route("@connector do your thing");
        assert_eq!((r.kind.as_str(), r.name.as_str()), ("agent", "connector"));
        let r = route("/tag-garden");
        assert_eq!((r.kind.as_str(), r.name.as_str()), ("skill", "tag-garden"));
    }

    #[test]
    fn pasted_text_goes_to_scribe() {
        let r = route("milk\neggs and bread\ncall the plumber about the sink\n");
        assert_eq!(r.name, "scribe");
    }

    #[test]
    fn japanese_inside_a_sentence() {
        let r = route("今すぐVaultを初期化してください");
        assert_eq!(r.name, "onboarding");
    }

    #[test]
    fn digest_keeps_last_lines_cut() {
        let hist: Vec<String> = (0..10)
            .map(|i| format!("line {i} {}", "x".repeat(500)))
            .collect();
        let d = history_digest(&hist, "msg");
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines.len(), 10);
        assert!(lines[0].starts_with("line 2"));
        assert_eq!(lines[0].chars().count(), 400);
        assert_eq!(lines[8], DIGEST_MARKER);
    }

    #[test]
    fn classifier_failure_matrix() {
        let c = crew();
        let default = c.lookup(&c.config.default_route);
        let d = default.as_ref();
        let ok = |s: &str| resolve_classifier_answer(&c, Ok(s.to_string()), d);
        for bad in [
            "",
            "   ",
            "not json",
            "[1,2]",
            "42",
            "null",
            "{}",
            "{\"route\": \"\"}",
            "{\"route\": 5}",
            "{\"route\": \"nobody\"}",
        ] {
            let r = ok(bad);
            assert!(r.fell_back, "{bad:?} should fall back");
            assert_eq!(r.name, "seeker");
        }
        let r = resolve_classifier_answer(&c, Err("timeout after 10s".into()), d);
        assert!(r.fell_back && r.reason.contains("timeout"));
        for good in [
            "{\"route\":\"Connector\"}",
            "```json\n{\"route\": \"con nector\", \"reason\": \"links\"}\n```",
            "{\"route\": \"CONNECTOR_\"}",
        ] {
            let r = ok(good);
            assert!(!r.fell_back, "{good:?}");
            assert_eq!(r.name, "connector");
        }
        let r = ok("{\"route\": \"tag_garden\"}");
        assert_eq!((r.kind.as_str(), r.name.as_str()), ("skill", "tag-garden"));
    }

    #[test]
    fn disabled_agents_are_never_chosen() {
        let mut c = crew();
        for row in &mut c.registry.agents {
            if row.name == "connector" {
                row.status = crate::crew::Status::Disabled;
            }
        }
        let router = Router::new(&c);
        let r = router.route(&c, "connect the notes", &[], None);
        assert_ne!(r.name, "connector");
        let r = router.route(&c, "@connector hi", &[], None);
        assert_ne!(r.name, "connector");
        let d = c.lookup(&c.config.default_route);
        let r = resolve_classifier_answer(&c, Ok("{\"route\":\"connector\"}".into()), d.as_ref());
        assert!(r.fell_back);
    }
}
