//! The per-language word lists: `references/lang/<code>.yaml`, embedded, parsed once. Words
//! are data so a language gains a word by editing its file, not the code that reads it.

use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

use serde::Deserialize;

/// Each language's source, by its code, in the order of `crate::lang::Lang::ALL`.
const SOURCES: [(&str, &str); 7] = [
    ("en", include_str!("../../references/lang/en.yaml")),
    ("it", include_str!("../../references/lang/it.yaml")),
    ("fr", include_str!("../../references/lang/fr.yaml")),
    ("es", include_str!("../../references/lang/es.yaml")),
    ("de", include_str!("../../references/lang/de.yaml")),
    ("pt", include_str!("../../references/lang/pt.yaml")),
    ("ja", include_str!("../../references/lang/ja.yaml")),
];

/// The words of one language, normalized (lowercase, accents folded).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lexicon {
    #[serde(skip)]
    pub code: &'static str,
    /// Little words that say nothing of a route or a topic ("the", "della").
    pub function_words: Vec<String>,
    /// Request verbs and other words requests are written with ("trova", "zeig").
    pub request_words: Vec<String>,
    /// Words the router skips that are no evidence of the language.
    pub filler_words: Vec<String>,
    /// Letters only some languages use (ñ, ß), as written (not folded).
    pub letters: Vec<char>,
    /// Words that open a question when the message also has a question mark.
    pub question_openers: Vec<String>,
    /// Words that make a question as a message's first word.
    pub question_words: Vec<String>,
    /// Words of a question that asks where something is.
    pub locating_words: Vec<String>,
    /// Words that name a folder ("cartella", "Ordner"): a note named beside one is being filed.
    #[serde(default)]
    pub folder_words: Vec<String>,
    /// Verbs that ask for a note to be moved ("move", "sposta", "verschieben", "移動").
    #[serde(default)]
    pub move_words: Vec<String>,
    /// Move verbs a request ends with where the infinitive goes last ("verschieben").
    #[serde(default)]
    pub move_words_last: Vec<String>,
    /// Words that turn a request around or leave notes out ("don t", "except", "nicht"):
    /// nothing named is moved.
    #[serde(default)]
    pub negation_words: Vec<String>,
    /// Words that name a note, which may stand between a move verb and its link ("note").
    #[serde(default)]
    pub note_words: Vec<String>,
    /// Words that join notes in a list ("and", "und", "と").
    #[serde(default)]
    pub and_words: Vec<String>,
    /// Verbs that ask for links to be made ("link", "collega", "verlinke").
    #[serde(default)]
    pub link_words: Vec<String>,
    /// Words a definition's heading holds when the section lists the agent's modes.
    pub mode_headings: Vec<String>,
    /// Words a request may open with before it says what it wants ("please", "per favore"):
    /// a one-word mode phrase after them still leads the request.
    #[serde(default)]
    pub polite_words: Vec<String>,
    /// Words that ask for work inside a question ("can you", "mi aiuti", "tu peux"): such a
    /// question is a request.
    #[serde(default)]
    pub request_modals: Vec<String>,
    /// Words that turn on an option of the mode an agent runs, by the option's name
    /// (`apply: ["apply", "link them"]`).
    #[serde(default)]
    pub cues: BTreeMap<String, Vec<String>>,
    /// What the scribe reads in a capture, by list name (`task_leads`, `priority_high`, …),
    /// as written: these are matched ignoring case, not normalized.
    #[serde(default)]
    pub capture: BTreeMap<String, Vec<String>>,
}

impl Lexicon {
    /// The words that are evidence of this language.
    pub fn evidence(&self) -> impl Iterator<Item = &str> {
        self.function_words
            .iter()
            .chain(&self.request_words)
            .map(String::as_str)
    }
}

/// Every language's lexicon, in `Lang::ALL` order. A file that does not parse is a build
/// mistake the tests catch; at run time it reads as an empty lexicon rather than a panic.
pub fn lexicons() -> &'static [Lexicon] {
    static ALL: OnceLock<Vec<Lexicon>> = OnceLock::new();
    ALL.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(code, source)| {
                let mut lex: Lexicon = yaml_serde::from_str(source).unwrap_or_default();
                lex.code = code;
                lex
            })
            .collect()
    })
}

/// One language's lexicon by its code (`"it"`), if crew speaks it.
pub fn lexicon(code: &str) -> Option<&'static Lexicon> {
    lexicons().iter().find(|l| l.code == code)
}

/// Words that say nothing of a route in any language: every function word and filler word.
pub fn stopwords() -> &'static HashSet<String> {
    static STOP: OnceLock<HashSet<String>> = OnceLock::new();
    STOP.get_or_init(|| {
        lexicons()
            .iter()
            .flat_map(|l| l.function_words.iter().chain(&l.filler_words))
            .cloned()
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_parses_and_is_normalized() {
        for (code, source) in SOURCES {
            let lex: Lexicon = yaml_serde::from_str(source)
                .unwrap_or_else(|e| panic!("references/lang/{code}.yaml: {e}"));
            let lists = [
                &lex.function_words,
                &lex.request_words,
                &lex.filler_words,
                &lex.question_openers,
                &lex.question_words,
                &lex.locating_words,
                &lex.folder_words,
                &lex.move_words,
                &lex.move_words_last,
                &lex.negation_words,
                &lex.and_words,
                &lex.link_words,
                &lex.note_words,
                &lex.mode_headings,
            ];
            for w in lists.into_iter().flatten() {
                assert_eq!(
                    &super::super::normalize(w),
                    w,
                    "{code}: {w:?} is not normalized"
                );
            }
        }
        assert_eq!(lexicons().len(), 7);
    }

    #[test]
    fn stopwords_join_every_language() {
        let stop = stopwords();
        assert!(stop.contains("the") && stop.contains("della") && stop.contains("und"));
        assert!(!stop.contains("trova"), "a request verb routes");
    }
}
