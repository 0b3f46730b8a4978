//! The offline scorer: picks a route for a message no trigger matched, from the words of each
//! agent's and skill's triggers, description and vocabulary, weighted by how rare each word is
//! across the crew (IDF). Deterministic, no model, microseconds.

use std::collections::{HashMap, HashSet};

use crate::crew::{Crew, Kind};
use crate::text::{is_unspaced_script, normalize, words};

/// Weights of where a word was found: the agent's vocabulary (its domain words) and name,
/// its trigger phrases, its description.
const VOCABULARY: f64 = 1.0;
const TRIGGER: f64 = 0.7;
const DESCRIPTION: f64 = 0.3;
/// Factor for a word matched only up to an inflection.
const INFLECTED: f64 = 0.7;
/// A multi-word vocabulary entry found as a phrase in the message.
const PHRASE: f64 = 3.0;
/// Minimum score for the scorer to decide at all.
const THRESHOLD: f64 = 1.2;
/// A question leans to the agent that answers from the vault…
const QUESTION_BONUS: f64 = 0.8;
/// …and more when it asks where something is.
const WHERE_BONUS: f64 = 1.5;
/// …and away from the one that captures new text: its verbs in a question ("what did I
/// write") are about notes already written.
const CAPTURE_IN_QUESTION: f64 = 0.4;
/// The agent that answers questions from the vault, and the one that captures.
const ANSWERING_AGENT: &str = "seeker";
/// Routes that make something new from the user's words: a question never asks for them.
const CREATING_ROUTES: &[&str] = &["scribe", "create-agent"];
/// The agent that moves a note to its folder: a note named beside a place is filed…
pub(crate) const NOTE_MOVER: &str = "sorter";
/// The agent that makes links between notes: a request that asks for links is its.
const LINK_MAKER: &str = "connector";
/// …and the routes that work on the inbox or the vault as a whole are not asked for. The
/// weights are a question's (the capture damped, the answering agent's "where" bonus), not
/// tuned for this rule.
const WHOLE_VAULT_ROUTES: &[&str] = &[
    "inbox-triage",
    "defrag",
    "deep-clean",
    "vault-audit",
    "tag-garden",
    "architect",
];

/// Too short to say anything: one- and two-letter words of spaced scripts. In scripts written
/// without spaces a two-character word (メモ, 予約) is a whole word.
fn too_short(word: &str) -> bool {
    let n = word.chars().count();
    if word.chars().any(is_unspaced_script) {
        n < 2
    } else {
        n < 3
    }
}

/// What the message's form says, apart from its words.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Shape {
    pub question: bool,
    /// A question asking where something is.
    pub locating: bool,
    /// One note named by its link beside a place for it
    /// ([`super::intent::NoteAndPlace::is_one_note_and_place`]), or notes named and a clause
    /// that opens with a move verb ([`super::intent::mentions_a_move`]).
    pub filing_one_note: bool,
    /// A clause that asks for links to be made ([`super::intent::asks_for_links`]).
    pub making_links: bool,
}

impl Shape {
    pub fn of(message: &str) -> Shape {
        // the message's links read once, for every part of its shape that needs them
        let named = super::intent::linked_notes(message);
        Shape {
            question: super::intent::is_question(message) && !super::intent::asks_politely(message),
            locating: super::intent::asks_where(message),
            filing_one_note: named
                .as_ref()
                .is_some_and(|n| n.is_one_note_and_place() || super::intent::mentions_a_move(n)),
            making_links: super::intent::asks_for_links(message, named.as_ref()),
        }
    }
}

struct RouteBag {
    kind: Kind,
    name: String,
    words: HashMap<String, f64>,
    phrases: Vec<String>,
}

pub(crate) struct Scorer {
    routes: Vec<RouteBag>,
    /// Words that say nothing of a route (`references/lang/*.yaml`).
    stop: &'static HashSet<String>,
    /// Every known word written in a script without spaces, longest first: a message in such a
    /// script is split by finding these inside it.
    unspaced: Vec<String>,
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count()
}

/// Whether two words are the same word up to an inflection: equal, or sharing a prefix of at
/// least four letters that covers all but the last two letters of the shorter word
/// ("link"/"linked", "collega"/"collegare", "enlace"/"enlazar", "duplicates"/"duplicati").
pub(crate) fn same_word(a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let shorter = a.chars().count().min(b.chars().count());
    if shorter < 4 {
        return false;
    }
    let longer = a.chars().count().max(b.chars().count());
    let shared = common_prefix(a, b);
    shared >= 4.max(shorter.saturating_sub(2)) && longer - shared <= 4
}

impl Scorer {
    pub fn new(crew: &Crew) -> Scorer {
        let stop = crate::text::stopwords();
        let mut routes = Vec::new();
        let put = |text: &str, w: f64, words: &mut HashMap<String, f64>| {
            for word in crate::text::words(&normalize(text)) {
                if stop.contains(word) || too_short(word) {
                    continue;
                }
                let e = words.entry(word.to_string()).or_insert(0.0);
                if *e < w {
                    *e = w;
                }
            }
        };
        let mut add = |kind: Kind, d: &crate::crew::Definition| {
            let mut words: HashMap<String, f64> = HashMap::new();
            let mut phrases = Vec::new();
            put(&d.description, DESCRIPTION, &mut words);
            for t in &d.triggers {
                put(t, TRIGGER, &mut words);
            }
            for v in &d.vocabulary {
                let n = normalize(v);
                if n.contains(' ') {
                    // "entre sí" and "entre si" are one phrase once normalized
                    if !phrases.contains(&n) {
                        phrases.push(n);
                    }
                } else {
                    put(v, VOCABULARY, &mut words);
                }
            }
            put(&d.name.replace('-', " "), VOCABULARY, &mut words);
            routes.push(RouteBag {
                kind,
                name: d.name.clone(),
                words,
                phrases,
            });
        };
        for s in &crew.skills {
            if crew.skill_active(&s.name) {
                add(Kind::Skill, s);
            }
        }
        for a in &crew.agents {
            if crew.agent_active(&a.name) {
                add(Kind::Agent, a);
            }
        }
        // a custom agent's registry `Input` cell says what it takes: its domain words
        for bag in routes.iter_mut().filter(|b| b.kind == Kind::Agent) {
            if let Some(input) = crew.custom_input(&bag.name) {
                put(input, VOCABULARY, &mut bag.words);
            }
        }
        let mut unspaced: Vec<String> = routes
            .iter()
            .flat_map(|r| r.words.keys())
            .filter(|w| w.chars().any(is_unspaced_script))
            .cloned()
            .collect();
        unspaced.sort_by(|a, b| b.chars().count().cmp(&a.chars().count()).then(a.cmp(b)));
        unspaced.dedup();
        Scorer {
            routes,
            stop,
            unspaced,
        }
    }

    /// The weight of a message word in a route: its own weight when the route knows the exact
    /// word, somewhat less when it knows an inflection of it.
    fn weight_in(bag: &RouteBag, word: &str) -> f64 {
        if let Some(&w) = bag.words.get(word) {
            return w;
        }
        bag.words
            .iter()
            .filter(|(w, _)| same_word(word, w))
            .map(|(_, &weight)| weight * INFLECTED)
            .fold(0.0, f64::max)
    }

    /// Each route's weight of each message word ([`Scorer::weight_in`]). A question word is
    /// grammar, not a domain: it counts only as written, never as an inflection of a longer
    /// word ("qual" is no "qualcosa").
    fn weights(&self, msg_words: &[&str]) -> Vec<Vec<f64>> {
        let question_word: Vec<bool> = msg_words
            .iter()
            .map(|w| super::intent::is_question_word(w))
            .collect();
        self.routes
            .iter()
            .map(|r| {
                msg_words
                    .iter()
                    .zip(&question_word)
                    .map(|(w, &exact)| {
                        if exact {
                            r.words.get(*w).copied().unwrap_or(0.0)
                        } else {
                            Self::weight_in(r, w)
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// The best route for a normalized message: (kind, name, score, the words that counted).
    #[cfg(test)]
    pub fn best(&self, normalized: &str) -> Option<(Kind, String, f64, Vec<String>)> {
        self.best_shaped(normalized, Shape::default())
    }

    /// [`Scorer::best`] knowing the message's shape (see [`super::intent`]).
    pub(crate) fn best_shaped(
        &self,
        normalized: &str,
        shape: Shape,
    ) -> Option<(Kind, String, f64, Vec<String>)> {
        let question = shape.question;
        let mut msg_words: Vec<&str> = Vec::new();
        for w in words(normalized) {
            if w.chars().any(is_unspaced_script) {
                continue;
            }
            if self.stop.contains(w) || too_short(w) || msg_words.contains(&w) {
                continue;
            }
            msg_words.push(w);
        }
        // unspaced runs: every known word found inside, longest first, each stretch of text
        // used once (so 締め切り is not also counted as 切り)
        if normalized.chars().any(is_unspaced_script) {
            let mut rest = normalized.to_string();
            for w in &self.unspaced {
                if rest.contains(w.as_str()) {
                    rest = rest.replace(w.as_str(), " ");
                    msg_words.push(w);
                }
            }
        }
        let padded = format!(" {normalized} ");
        let n = self.routes.len().max(1) as f64;
        let weights = self.weights(&msg_words);
        // how many routes know each word: rare words decide, common ones barely count. A route
        // counts by how strongly it knows the word, so a word that is one route's vocabulary
        // and only passes through other routes' descriptions still decides.
        let idf: Vec<f64> = (0..msg_words.len())
            .map(|i| {
                let df: f64 = weights.iter().map(|ws| ws[i]).sum();
                if df <= 0.0 {
                    0.0
                } else {
                    (1.0 + n / df.max(1.0)).ln()
                }
            })
            .collect();
        // every phrase of every route written in the message; one written inside a longer one
        // ("eigenen agenten" in "einen eigenen agenten") is that longer phrase's, not its own
        let written: Vec<&str> = self
            .routes
            .iter()
            .flat_map(|r| &r.phrases)
            .map(String::as_str)
            .filter(|p| padded.contains(&format!(" {p} ")))
            .collect();
        let counts = |p: &str| {
            !written
                .iter()
                .any(|q| q.len() > p.len() && format!(" {q} ").contains(&format!(" {p} ")))
        };
        let mut best: Option<(Kind, String, f64, Vec<String>)> = None;
        for (r, ws) in self.routes.iter().zip(&weights) {
            let mut score = 0.0;
            let mut hit = Vec::new();
            for (i, w) in ws.iter().enumerate() {
                if *w > 0.0 {
                    score += w * idf[i];
                    hit.push(msg_words[i].to_string());
                }
            }
            for p in &r.phrases {
                if written.contains(&p.as_str()) && counts(p) {
                    score += PHRASE;
                    hit.push(format!("\"{p}\""));
                }
            }
            if question {
                if CREATING_ROUTES.contains(&r.name.as_str()) {
                    score *= CAPTURE_IN_QUESTION;
                } else if r.kind == Kind::Agent && r.name == ANSWERING_AGENT {
                    score += QUESTION_BONUS;
                    hit.push("(a question)".into());
                    if shape.locating {
                        score += WHERE_BONUS;
                    }
                }
            }
            if shape.filing_one_note {
                // the note is already named: unless the message asks, nothing is looked for
                let looks_for_it = !shape.question && r.name == ANSWERING_AGENT;
                if WHOLE_VAULT_ROUTES.contains(&r.name.as_str()) || looks_for_it {
                    score *= CAPTURE_IN_QUESTION;
                } else if r.kind == Kind::Agent && r.name == NOTE_MOVER {
                    score += WHERE_BONUS;
                    hit.push("(a note and a place)".into());
                }
            }
            if shape.making_links {
                // links to be made: nothing is looked for, the connector ties notes together
                if r.name == ANSWERING_AGENT {
                    score *= CAPTURE_IN_QUESTION;
                } else if r.kind == Kind::Agent && r.name == LINK_MAKER {
                    score += WHERE_BONUS;
                    hit.push("(links to make)".into());
                }
            }
            let better = match &best {
                None => score > 0.0,
                Some((bk, _, bs, _)) => {
                    score > *bs + 1e-9 || ((score - *bs).abs() < 1e-9 && r.kind < *bk)
                }
            };
            if better {
                best = Some((r.kind, r.name.clone(), score, hit));
            }
        }
        best.filter(|b| b.2 >= THRESHOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_are_the_same_word() {
        assert!(same_word("link", "linked"));
        assert!(same_word("collegare", "collega"));
        assert!(same_word("enlazar", "enlace"));
        assert!(same_word("duplicates", "duplicati"));
        assert!(!same_word("notes", "nota"));
        assert!(!same_word("tag", "tax"));
        assert!(!same_word("search", "season"));
        assert!(!same_word("impots", "important"));
    }

    #[test]
    fn a_question_word_is_no_inflection_of_a_domain_word() {
        let crew = Crew::builtin();
        let s = Scorer::new(&crew);
        // Portuguese "qual" shares four letters with the postman's "qualcosa" (from "c'è
        // qualcosa di urgente in mail?"): as a question word it is grammar and counts only
        // where a route knows it as written
        assert!(same_word("qual", "qualcosa") && !s.stop.contains("qual"));
        let postman = s
            .routes
            .iter()
            .find(|r| r.name == "postman")
            .expect("postman");
        assert!(Scorer::weight_in(postman, "qual") > 0.0);
        let best = s.best("qual era o nome daquele livro");
        assert!(
            best.as_ref()
                .is_none_or(|b| !b.3.contains(&"qual".to_string())),
            "{best:?}"
        );
    }

    #[test]
    fn japanese_is_split_by_the_crews_words() {
        let crew = Crew::builtin();
        let s = Scorer::new(&crew);
        // no spaces: the known words are found inside the run, longest first
        let (_, name, _, words) = s
            .best(&normalize("来週の締め切りを全部一覧にして"))
            .expect("a route");
        assert_eq!(name, "deadline-radar", "{words:?}");
        assert!(words.iter().any(|w| w == "締め切り"), "{words:?}");
        assert!(s.best(&normalize("こんにちは")).is_none());
    }

    #[test]
    fn a_question_is_not_a_capture() {
        let crew = Crew::builtin();
        let s = Scorer::new(&crew);
        let msg = "what did I write about the plumber";
        let plain = s.best(&normalize(msg)).map(|b| b.1);
        let asked = s
            .best_shaped(&normalize(msg), Shape::of(&format!("{msg}?")))
            .map(|b| b.1);
        assert_eq!(plain.as_deref(), Some("scribe"));
        assert_eq!(asked.as_deref(), Some("seeker"));
    }

    #[test]
    fn picks_by_vocabulary() {
        let crew = Crew::builtin();
        let s = Scorer::new(&crew);
        let (_, name, _, _) = s
            .best(&normalize("my tags are a mess, tidy them up"))
            .expect("a route");
        assert_eq!(name, "tag-garden");
        assert!(s.best(&normalize("hello there")).is_none());
    }

    #[test]
    fn a_phrase_inside_a_longer_one_is_the_longer_ones() {
        let crew = Crew::builtin();
        let s = Scorer::new(&crew);
        // manage-agent knows "eigenen agenten" (my own agents), create-agent "einen eigenen
        // agenten" (an agent of my own)
        let (_, name, _, hit) = s
            .best(&normalize(
                "ich hätte gern einen eigenen Agenten für meine Läufe",
            ))
            .expect("a route");
        assert_eq!(name, "create-agent", "{hit:?}");
        let (_, name, _, _) = s
            .best(&normalize("zeig mir meine eigenen Agenten"))
            .expect("a route");
        assert_eq!(name, "manage-agent");
    }
}
