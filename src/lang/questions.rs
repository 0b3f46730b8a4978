//! Questions about a topic ("what did I write about X?", "qu'est-ce que j'ai écrit sur X ?",
//! "Xについて何を書いた？"): the frames around the topic and a question's own words, in the seven
//! languages. The phrases are `references/questions/<code>.yaml`, embedded, parsed once. Pure.
//!
//! A frame is matched on the normalized text (lowercase, accents folded, punctuation as
//! spaces), so a frame written as people type it matches however it is punctuated. Japanese
//! writes no spaces between words: its topic is cut out by the frame's own particles
//! ("について…"), never by splitting the sentence into words.

use std::collections::HashSet;
use std::sync::OnceLock;

use serde::Deserialize;

use crate::text::{is_unspaced_script, normalize, words};

/// Each language's question phrases, in [`super::Lang::ALL`] order.
const SOURCES: [(&str, &str); 7] = [
    ("en", include_str!("../../references/questions/en.yaml")),
    ("it", include_str!("../../references/questions/it.yaml")),
    ("fr", include_str!("../../references/questions/fr.yaml")),
    ("es", include_str!("../../references/questions/es.yaml")),
    ("de", include_str!("../../references/questions/de.yaml")),
    ("pt", include_str!("../../references/questions/pt.yaml")),
    ("ja", include_str!("../../references/questions/ja.yaml")),
];

/// Where a frame's topic stands.
const PLACEHOLDER: &str = "{topic}";

/// What the asker wants back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// What the notes say: cited passages ("what do I know about X").
    Answer,
    /// Which notes hold it: a ranked list ("what did I write about X").
    Search,
}

/// A question about a topic, as found in a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicQuestion {
    pub reply: Reply,
    /// The topic, normalized.
    pub topic: String,
    /// The frame as written in its data file.
    pub frame: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Source {
    #[serde(default)]
    answer: Vec<String>,
    #[serde(default)]
    search: Vec<String>,
    #[serde(default)]
    words: Vec<String>,
}

/// A frame cut at its placeholder, both sides normalized.
#[derive(Debug)]
struct Frame {
    before: String,
    after: String,
    reply: Reply,
    written: String,
}

#[derive(Debug, Default)]
struct Phrases {
    frames: Vec<Frame>,
    words: HashSet<String>,
}

fn frame(written: &str, reply: Reply) -> Option<Frame> {
    let (before, after) = written.split_once(PLACEHOLDER)?;
    let (before, after) = (normalize(before), normalize(after));
    (!before.is_empty() || !after.is_empty()).then(|| Frame {
        before,
        after,
        reply,
        written: written.to_string(),
    })
}

fn parse(source: &str) -> Result<Source, String> {
    yaml_serde::from_str::<Source>(source).map_err(|e| e.to_string())
}

fn phrases() -> &'static Phrases {
    static ALL: OnceLock<Phrases> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut all = Phrases::default();
        for (code, src) in SOURCES {
            // a broken file costs its language's questions, never the request
            let s = parse(src).unwrap_or_else(|e| {
                tracing::warn!("references/questions/{code}.yaml does not parse: {e}");
                Source::default()
            });
            let framed = |list: &[String], reply| {
                list.iter()
                    .filter_map(move |w| frame(w, reply))
                    .collect::<Vec<_>>()
            };
            all.frames.extend(framed(&s.answer, Reply::Answer));
            all.frames.extend(framed(&s.search, Reply::Search));
            all.words.extend(
                s.words
                    .iter()
                    .flat_map(|w| words(&normalize(w)).map(str::to_string).collect::<Vec<_>>()),
            );
        }
        all
    })
}

/// Whether `text[at]` may start or end a phrase: at the text's edge, at a space, or next to a
/// character of a script written without spaces.
fn boundary(text: &str, at: usize) -> bool {
    let before = text[..at].chars().next_back();
    let after = text[at..].chars().next();
    match (before, after) {
        (None, _) | (_, None) => true,
        (Some(b), Some(a)) => {
            b == ' ' || a == ' ' || is_unspaced_script(b) || is_unspaced_script(a)
        }
    }
}

/// Where `needle` stands in `text[from..]` as whole words: the first place, or the last.
fn find_bounded(text: &str, needle: &str, from: usize, last: bool) -> Option<usize> {
    let hay = &text[from..];
    let mut found = hay
        .match_indices(needle)
        .map(|(i, _)| from + i)
        .filter(|&i| boundary(text, i) && boundary(text, i + needle.len()));
    if last { found.last() } else { found.next() }
}

/// The topic `f` frames in the normalized `text`, if it frames one.
fn topic_in(text: &str, f: &Frame) -> Option<String> {
    let (start, end) = if f.before.is_empty() {
        // a frame after its topic (Japanese): the topic is all that comes before
        (0, find_bounded(text, &f.after, 0, false)?)
    } else {
        let at = find_bounded(text, &f.before, 0, false)?;
        let start = at + f.before.len();
        let end = if f.after.is_empty() {
            text.len()
        } else {
            // "was habe ich über X geschrieben": the closing words are the last ones
            find_bounded(text, &f.after, start, true)?
        };
        (start, end)
    };
    let topic = text.get(start..end)?.trim();
    (!topic.is_empty()).then(|| topic.to_string())
}

/// The question about a topic that `request` asks, if it asks one: the most specific frame
/// (the longest) that leaves a topic.
pub fn topic_question(request: &str) -> Option<TopicQuestion> {
    let text = normalize(request);
    let mut best: Option<(usize, TopicQuestion)> = None;
    for f in &phrases().frames {
        let len = f.before.len() + f.after.len();
        if best.as_ref().is_some_and(|(l, _)| *l >= len) {
            continue;
        }
        if let Some(topic) = topic_in(&text, f) {
            best = Some((
                len,
                TopicQuestion {
                    reply: f.reply,
                    topic,
                    frame: f.written.clone(),
                },
            ));
        }
    }
    best.map(|(_, q)| q)
}

/// Whether a normalized word is one a question is made of ("what", "did", "écrit", "sur") in
/// any of the seven languages.
pub fn is_question_word(word: &str) -> bool {
    phrases().words.contains(word)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(request: &str) -> Option<(Reply, String)> {
        topic_question(request).map(|q| (q.reply, q.topic))
    }

    #[test]
    fn every_language_file_parses_and_has_frames() {
        for (code, src) in SOURCES {
            let s = parse(src).unwrap_or_else(|e| panic!("{code}: {e}"));
            assert!(!s.answer.is_empty() && !s.search.is_empty(), "{code}");
            for f in s.answer.iter().chain(&s.search) {
                assert!(
                    frame(f, Reply::Search).is_some(),
                    "{code}: {f} has no {{topic}}"
                );
            }
        }
    }

    #[test]
    fn the_issue_phrasings() {
        use Reply::*;
        for (request, want) in [
            ("qu'est-ce que j'ai écrit sur Zotero ?", (Search, "zotero")),
            ("what do I know about graph view", (Answer, "graph view")),
            ("what did I write about graph view?", (Search, "graph view")),
            ("Zoteroについて何を書いた？", (Search, "zotero")),
            (
                "グラフビューについて知っていること",
                (Answer, "グラフビュー"),
            ),
            ("cosa ho scritto su Marco?", (Search, "marco")),
            ("¿Qué escribí sobre el pan?", (Search, "el pan")),
            (
                "Was habe ich über Steuern geschrieben?",
                (Search, "steuern"),
            ),
            ("o que escrevi sobre impostos?", (Search, "impostos")),
            ("Was weiß ich über Zotero?", (Answer, "zotero")),
        ] {
            assert_eq!(
                ask(request),
                Some((want.0, want.1.to_string())),
                "{request}"
            );
        }
    }

    #[test]
    fn the_longest_frame_wins_and_text_around_it_is_allowed() {
        // "what do i know about" and "tell me what i know about" both frame it
        assert_eq!(
            ask("please tell me what I know about bread"),
            Some((Reply::Answer, "bread".into()))
        );
        assert_eq!(
            ask("Zoteroについて何を書いたっけ？"),
            Some((Reply::Search, "zotero".into()))
        );
    }

    #[test]
    fn no_frame_no_topic() {
        assert_eq!(ask("find my notes about taxes"), None);
        assert_eq!(ask("what did I write about"), None);
        // a frame inside a word is no frame
        assert_eq!(ask("somewhat did i write about x"), None);
    }

    #[test]
    fn question_words_in_each_language() {
        for w in [
            "what",
            "ecrit",
            "sur",
            "scritto",
            "escribi",
            "geschrieben",
            "escrevi",
        ] {
            assert!(is_question_word(w), "{w}");
        }
        assert!(!is_question_word("zotero"));
    }

    proptest::proptest! {
        /// Any text is read without panicking, and a topic found is never blank.
        #[test]
        fn any_text_is_safe(s in "\\PC{0,80}") {
            if let Some(q) = topic_question(&s) {
                proptest::prop_assert!(!q.topic.trim().is_empty());
            }
        }
    }
}
