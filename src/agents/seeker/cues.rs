//! How a request to the seeker says which mode it wants, in the seven languages crew answers in.
//! The phrases are data (`references/seeker-cues.yaml`): a list per mode, so a language is added
//! by adding rows; questions about a topic ("what do I know about X") are
//! `references/questions/<code>.yaml`. Pure.

use crate::lang::questions::{Reply, topic_question};

/// What the seeker was asked to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Every note linking to the named note.
    Backlinks(String),
    /// What the vault says about a topic, as cited passages.
    Answer(String),
    /// Two notes side by side.
    Compare(String, String),
    /// Notes on a topic in date order; the text is the topic.
    Timeline(String),
    /// Stale notes that recent notes still link to; the text narrows them (may be empty).
    Revisit(String),
    /// What the notes on a topic leave open; the topic (empty: the whole vault).
    Gaps(String),
    /// A ranked search (the default).
    Search,
}

/// The seeker's cue phrases, `references/seeker-cues.yaml`, read once.
#[derive(Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CueFile {
    backlinks_before: Vec<String>,
    backlinks_after: Vec<String>,
    compare_before: Vec<String>,
    compare_joins: Vec<String>,
    compare_after: Vec<String>,
    timeline_cues: Vec<String>,
    timeline_after: Vec<String>,
    revisit_cues: Vec<String>,
    gaps_before: Vec<String>,
    gaps_after: Vec<String>,
    gaps_topic_leads: Vec<String>,
}

/// The lists as the matching reads them.
struct Cues {
    backlinks_before: Vec<&'static str>,
    backlinks_after: Vec<&'static str>,
    compare_before: Vec<&'static str>,
    compare_joins: Vec<&'static str>,
    compare_after: Vec<&'static str>,
    timeline_cues: Vec<&'static str>,
    timeline_after: Vec<&'static str>,
    revisit_cues: Vec<&'static str>,
    gaps_before: Vec<&'static str>,
    gaps_after: Vec<&'static str>,
    gaps_topic_leads: Vec<&'static str>,
}

fn cues() -> &'static Cues {
    static FILE: std::sync::OnceLock<CueFile> = std::sync::OnceLock::new();
    static CUES: std::sync::OnceLock<Cues> = std::sync::OnceLock::new();
    CUES.get_or_init(|| {
        // a file that does not parse is a build mistake the tests catch; at run time it reads
        // as no cues (every request a search) rather than a panic
        let f = FILE.get_or_init(|| {
            yaml_serde::from_str(include_str!("../../../references/seeker-cues.yaml"))
                .unwrap_or_default()
        });
        let v = |l: &'static [String]| l.iter().map(String::as_str).collect();
        Cues {
            backlinks_before: v(&f.backlinks_before),
            backlinks_after: v(&f.backlinks_after),
            compare_before: v(&f.compare_before),
            compare_joins: v(&f.compare_joins),
            compare_after: v(&f.compare_after),
            timeline_cues: v(&f.timeline_cues),
            timeline_after: v(&f.timeline_after),
            revisit_cues: v(&f.revisit_cues),
            gaps_before: v(&f.gaps_before),
            gaps_after: v(&f.gaps_after),
            gaps_topic_leads: v(&f.gaps_topic_leads),
        }
    })
}

/// Takes the name or topic after a cue: up to the end, without quotes, brackets or a final
/// question mark.
fn clean(raw: &str) -> String {
    raw.trim()
        .trim_end_matches(['?', '？', '.', '。', '!', '！'])
        .trim()
        .trim_matches(['"', '\'', '“', '”', '«', '»', '「', '」', '『', '』', '`'])
        .trim_start_matches("[[")
        .trim_end_matches("]]")
        .trim()
        .to_string()
}

/// The text after the first (longest) cue of `cues` found in `lower`, or before an "after" cue.
fn object_of(lower: &str, before: &[&str], after: &[&str]) -> Option<String> {
    let mut best: Option<(usize, String)> = None;
    for cue in before {
        if let Some(pos) = lower.find(cue) {
            let at_word = lower[..pos]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let rest = clean(&lower[pos + cue.len()..]);
            if at_word && !rest.is_empty() && best.as_ref().is_none_or(|(l, _)| cue.len() > *l) {
                best = Some((cue.len(), rest));
            }
        }
    }
    for cue in after {
        if let Some(pos) = lower.find(cue) {
            let rest = clean(&lower[..pos]);
            let rest = rest.rsplit(['、', ' ']).next().unwrap_or(&rest).to_string();
            if !rest.is_empty() && best.as_ref().is_none_or(|(l, _)| cue.len() > *l) {
                best = Some((cue.len(), rest));
            }
        }
    }
    best.map(|(_, s)| s)
}

/// Splits "A and B" into its two sides at the first joining word (or `と` in Japanese).
fn two_sides(text: &str) -> Option<(String, String)> {
    for join in cues().compare_joins.iter().copied().chain(["と"]) {
        if let Some((a, b)) = text.split_once(join) {
            let (a, b) = (clean(a), clean(b));
            if !a.is_empty() && !b.is_empty() {
                return Some((a, b));
            }
        }
    }
    None
}

/// The mode a request asks for. Backlinks and comparisons need their object; without one the
/// request is a search.
pub(crate) fn choose(request: &str) -> Mode {
    // "what am I missing about the history of Rome?" asks for gaps, whatever its topic says
    if let Some(topic) = gaps_topic(request) {
        return Mode::Gaps(topic);
    }
    // a question about a topic is about that topic, whatever cue its topic holds ("what did I
    // write about the history of Rome?" is no timeline)
    if let Some(q) = topic_question(request) {
        return match q.reply {
            Reply::Answer => Mode::Answer(q.topic),
            Reply::Search => Mode::Search,
        };
    }
    let lower = request.to_lowercase();
    if let Some(target) = object_of(&lower, &cues().backlinks_before, &cues().backlinks_after) {
        return Mode::Backlinks(target);
    }
    if let Some((a, b)) =
        object_of(&lower, &cues().compare_before, &cues().compare_after).and_then(|t| two_sides(&t))
    {
        return Mode::Compare(a, b);
    }
    if let Some(topic) = object_of(&lower, &cues().timeline_cues, &cues().timeline_after) {
        return Mode::Timeline(topic);
    }
    if cues()
        .timeline_cues
        .iter()
        .any(|c| lower.trim_end() == c.trim_end())
    {
        return Mode::Timeline(String::new());
    }
    if let Some(cue) = cues().revisit_cues.iter().find(|c| lower.contains(*c)) {
        let rest = lower.split_once(cue).map_or("", |(_, r)| r);
        return Mode::Revisit(clean(rest));
    }
    Mode::Search
}

/// The topic of a request for knowledge gaps, when a gaps phrase is in it as whole words: the
/// text after the phrase without the function words that lead it ("about", "su"), or before a
/// phrase that follows its topic; empty when the request names none.
pub(crate) fn gaps_topic(request: &str) -> Option<String> {
    let lower = request.to_lowercase().replace('’', "'");
    let bounded = |s: &str, at: usize, end: usize| {
        s[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
            && s[end..].chars().next().is_none_or(|c| !c.is_alphanumeric())
    };
    let mut best: Option<(usize, String)> = None;
    for cue in &cues().gaps_before {
        for (at, _) in lower.match_indices(cue) {
            let end = at + cue.len();
            if bounded(&lower, at, end) && best.as_ref().is_none_or(|(l, _)| cue.len() > *l) {
                best = Some((cue.len(), without_leading_function_words(&lower[end..])));
            }
        }
    }
    for cue in &cues().gaps_after {
        if let Some(at) = lower.find(cue)
            && best.as_ref().is_none_or(|(l, _)| cue.len() > *l)
        {
            let before = clean(&lower[..at]);
            let topic = before
                .rsplit(['、', ' '])
                .next()
                .unwrap_or(&before)
                .to_string();
            best = Some((cue.len(), topic));
        }
    }
    best.map(|(_, t)| t)
}

/// The text with its leading function words dropped ("about the pasta" → "pasta"; an elided
/// article goes too: "sur l'écologie" → "écologie"), cleaned as a topic.
fn without_leading_function_words(text: &str) -> String {
    let stop = crate::text::stopwords();
    let is_stop = |w: &str| {
        let w = crate::text::normalize(w);
        stop.contains(w.trim()) || cues().gaps_topic_leads.contains(&w.trim())
    };
    let cleaned = clean(text.trim_start_matches([':', ',', '-', '—', ' ']));
    let mut rest = cleaned.as_str();
    while let Some(first) = rest.split_whitespace().next() {
        if is_stop(first) {
            rest = rest[first.len()..].trim_start();
            continue;
        }
        if let Some((article, word)) = first.split_once('\'')
            && !word.is_empty()
            && is_stop(article)
        {
            rest = &rest[article.len() + 1..];
        }
        break;
    }
    clean(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cue_file_parses_with_every_list() {
        let f: CueFile = yaml_serde::from_str(include_str!("../../../references/seeker-cues.yaml"))
            .expect("references/seeker-cues.yaml");
        for list in [
            &f.backlinks_before,
            &f.compare_before,
            &f.timeline_cues,
            &f.revisit_cues,
        ] {
            assert!(list.len() > 7, "a list for each language");
        }
    }

    #[test]
    fn backlinks_in_seven_languages() {
        for (request, want) in [
            ("what links to Zotero?", "zotero"),
            ("Backlinks of [[Zotero]]", "zotero"),
            ("cosa rimanda a Zotero?", "zotero"),
            ("quelles notes pointent vers Zotero ?", "zotero"),
            ("¿qué notas enlazan a Zotero?", "zotero"),
            ("Welche Notizen verlinken auf Zotero?", "zotero"),
            ("quais notas apontam para Zotero?", "zotero"),
            ("Zoteroへのバックリンク", "zotero"),
            ("「Zotero」にリンクしているノートは？", "zotero"),
        ] {
            assert_eq!(choose(request), Mode::Backlinks(want.into()), "{request}");
        }
    }

    #[test]
    fn the_other_modes() {
        assert_eq!(
            choose("what do I know about templates?"),
            Mode::Answer("templates".into())
        );
        assert_eq!(
            choose("cosa sappiamo di Marco"),
            Mode::Answer("marco".into())
        );
        assert_eq!(
            choose("compare Alpha and Beta"),
            Mode::Compare("alpha".into(), "beta".into())
        );
        assert_eq!(
            choose("vergleiche Alpha mit Beta"),
            Mode::Compare("alpha".into(), "beta".into())
        );
        assert_eq!(
            choose("timeline of the garden project"),
            Mode::Timeline("the garden project".into())
        );
        assert_eq!(
            choose("what should I revisit?"),
            Mode::Revisit(String::new())
        );
        assert_eq!(choose("find my notes about taxes"), Mode::Search);
        // a question about a topic is about it, whatever cue the topic holds
        assert_eq!(
            choose("what did I write about the history of Rome?"),
            Mode::Search
        );
        assert_eq!(
            choose("what do I know about links to Zotero?"),
            Mode::Answer("links to zotero".into())
        );
        // "compare" with one side only is a search for that word
        assert_eq!(choose("compare prices"), Mode::Search);
    }

    #[test]
    fn japanese_answer_and_timeline() {
        assert_eq!(
            choose("Zoteroについて何を知っていますか？"),
            Mode::Answer("zotero".into())
        );
        assert_eq!(choose("solarの年表"), Mode::Timeline("solar".into()));
        assert_eq!(
            choose("AとBを比較して"),
            Mode::Compare("a".into(), "b".into())
        );
    }

    proptest::proptest! {
        /// Any text chooses a mode without panicking, and a named object is never blank.
        #[test]
        fn any_request_chooses_a_mode(s in "\\PC{0,80}") {
            match choose(&s) {
                Mode::Backlinks(t) | Mode::Answer(t) => proptest::prop_assert!(!t.trim().is_empty()),
                Mode::Compare(a, b) => {
                    proptest::prop_assert!(!a.is_empty() && !b.is_empty())
                }
                _ => {}
            }
        }
    }

    #[test]
    fn knowledge_gaps_in_seven_languages() {
        for (request, want) in [
            ("What am I missing about pasta?", "pasta"),
            ("knowledge gaps on pasta", "pasta"),
            ("cosa mi manca su pasta?", "pasta"),
            ("lacune sulla pasta", "pasta"),
            ("mes lacunes sur l'écologie", "écologie"),
            ("qu'est-ce qui me manque sur les pâtes ?", "pâtes"),
            ("¿qué me falta sobre la pasta?", "pasta"),
            ("Wissenslücken zu Pasta", "pasta"),
            ("o que me falta sobre massa?", "massa"),
            ("パスタについて足りないことは？", "パスタ"),
            ("what am I missing?", ""),
        ] {
            assert_eq!(choose(request), Mode::Gaps(want.into()), "{request}");
        }
        // a gaps word inside another word is none
        assert_eq!(gaps_topic("hyperlacunes"), None);
    }

    #[test]
    fn a_cue_inside_a_word_is_no_cue() {
        assert_eq!(choose("outlinks to nowhere"), Mode::Search);
    }
}
