//! The offline scorer: picks a route for a message no trigger matched, from the words of each
//! agent's and skill's triggers, description and vocabulary, weighted by how rare each word is
//! across the crew (IDF). Deterministic, no model, microseconds.

use std::collections::{HashMap, HashSet};

use super::normalize::{normalize, words};
use crate::crew::{Crew, Kind};

/// Words that say nothing about the route, in the languages the crew speaks.
const STOPWORDS: &[&str] = &[
    // en
    "the", "a", "an", "my", "me", "i", "to", "of", "and", "or", "is", "are", "in", "on", "for",
    "it", "this", "that", "these", "those", "with", "what", "do", "does", "did", "have", "has",
    "can", "you", "your", "please", "up", "all", "some", "any", "be", "at", "by", "from", "about",
    "we", "our", "so", "its", "s", "as", "into", "them", "they", "there", "here", "was", "were",
    "will", "would", "should", "could", "just", "now", "again", "every", "each", // it
    "il", "lo", "la", "le", "gli", "i", "un", "una", "uno", "di", "da", "del", "della", "delle",
    "dei", "e", "che", "mi", "per", "con", "su", "non", "ho", "mio", "mia", "miei", "mie",
    "questo", "questa", "sono", "cosa", "c", // fr
    "les", "des", "du", "de", "et", "ce", "cette", "ces", "mon", "ma", "mes", "je", "tu", "est",
    "sont", "pour", "dans", "sur", "avec", "qui", "que", "quoi", "j", "l", "d", "qu", "pas",
    "tout", "tous", // es
    "el", "los", "las", "y", "en", "mis", "tu", "tus", "es", "para", "por", "con", "que", "una",
    "lo", "al", // de
    "der", "die", "das", "den", "dem", "des", "und", "ist", "ich", "mein", "meine", "meinen", "mir",
    "zu", "im", "ein", "eine", "einen", "mit", "fur", "auf", "bitte", "wo", "was", // pt
    "o", "os", "as", "um", "uma", "do", "da", "dos", "das", "meu", "minha", "meus", "minhas", "em",
    "no", "na", "para", "com", "que", "eu",
];

/// Weight of a word found in a route's triggers or vocabulary, versus only in its description.
const STRONG: f64 = 1.0;
const WEAK: f64 = 0.4;
/// Minimum score for the scorer to decide at all.
const THRESHOLD: f64 = 1.2;

pub struct Scorer {
    routes: Vec<(Kind, String, HashMap<String, f64>)>,
    idf: HashMap<String, f64>,
    stop: HashSet<&'static str>,
}

/// A light stem: the same word in singular/plural or with a short inflection shares it.
fn stem(word: &str) -> String {
    let n = word.chars().count();
    if n <= 4 {
        return word.to_string();
    }
    let keep = if n >= 7 { n - 2 } else { n - 1 };
    word.chars().take(keep.max(4)).collect()
}

impl Scorer {
    pub fn new(crew: &Crew) -> Scorer {
        let stop: HashSet<&'static str> = STOPWORDS.iter().copied().collect();
        let mut routes = Vec::new();
        let mut add = |kind: Kind, d: &crate::crew::Definition| {
            let mut bag: HashMap<String, f64> = HashMap::new();
            let mut put = |text: &str, w: f64| {
                for word in words(&normalize(text)) {
                    if stop.contains(word) || word.chars().count() < 3 {
                        continue;
                    }
                    let e = bag.entry(stem(word)).or_insert(0.0);
                    if *e < w {
                        *e = w;
                    }
                }
            };
            put(&d.description, WEAK);
            for t in d.triggers.iter().chain(&d.vocabulary) {
                put(t, STRONG);
            }
            put(&d.name, STRONG);
            routes.push((kind, d.name.clone(), bag));
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
        let mut df: HashMap<String, usize> = HashMap::new();
        for (_, _, bag) in &routes {
            for w in bag.keys() {
                *df.entry(w.clone()).or_default() += 1;
            }
        }
        let n = routes.len().max(1) as f64;
        let idf = df
            .into_iter()
            .map(|(w, d)| (w, (1.0 + n / d as f64).ln()))
            .collect();
        Scorer { routes, idf, stop }
    }

    /// The best route for a normalized message: (kind, name, score, the words that counted).
    pub fn best(&self, normalized: &str) -> Option<(Kind, String, f64, Vec<String>)> {
        let mut msg_words: Vec<(String, String)> = Vec::new();
        for w in words(normalized) {
            if self.stop.contains(w) || w.chars().count() < 3 {
                continue;
            }
            let s = stem(w);
            if !msg_words.iter().any(|(_, x)| *x == s) {
                msg_words.push((w.to_string(), s));
            }
        }
        let mut best: Option<(Kind, String, f64, Vec<String>)> = None;
        for (kind, name, bag) in &self.routes {
            let mut score = 0.0;
            let mut hit = Vec::new();
            for (word, s) in &msg_words {
                if let Some(weight) = bag.get(s) {
                    score += weight * self.idf.get(s).copied().unwrap_or(0.0);
                    hit.push(word.clone());
                }
            }
            let better = match &best {
                None => score > 0.0,
                Some((bk, _, bs, _)) => {
                    score > *bs + 1e-9 || ((score - *bs).abs() < 1e-9 && *kind < *bk)
                }
            };
            if better {
                best = Some((*kind, name.clone(), score, hit));
            }
        }
        best.filter(|b| b.2 >= THRESHOLD)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_group_inflections() {
        assert_eq!(stem("tags"), "tags");
        assert_eq!(stem("duplicates"), stem("duplicated"));
        assert_eq!(stem("notes"), stem("noted"));
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
}
