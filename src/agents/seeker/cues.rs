//! How a request to the seeker says which mode it wants, in the seven languages crew answers in.
//! The phrases are data: a table per mode, so a language is added by adding rows; questions
//! about a topic ("what do I know about X") are `references/questions/<code>.yaml`. Pure.

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
    /// A ranked search (the default).
    Search,
}

/// Phrases followed by the note whose backlinks are wanted ("what links to X").
const BACKLINKS_BEFORE: &[&str] = &[
    // EN
    "what links to ",
    "what links here to ",
    "which notes link to ",
    "what notes link to ",
    "notes that link to ",
    "notes linking to ",
    "who links to ",
    "backlinks of ",
    "backlinks to ",
    "backlinks for ",
    "incoming links to ",
    "links to ",
    // IT
    "cosa rimanda a ",
    "cosa punta a ",
    "quali note rimandano a ",
    "quali note puntano a ",
    "quali note linkano ",
    "backlink di ",
    "backlink a ",
    "link in entrata di ",
    // FR
    "qu'est-ce qui pointe vers ",
    "qu'est-ce qui renvoie à ",
    "quelles notes pointent vers ",
    "quelles notes renvoient à ",
    "liens entrants de ",
    "liens entrants vers ",
    "rétroliens de ",
    // ES
    "qué enlaza a ",
    "que enlaza a ",
    "qué notas enlazan a ",
    "que notas enlazan a ",
    "enlaces entrantes de ",
    "enlaces entrantes a ",
    "retroenlaces de ",
    // DE
    "was verlinkt auf ",
    "was verweist auf ",
    "welche notizen verlinken auf ",
    "welche notizen verweisen auf ",
    "rückverweise auf ",
    "rückverweise von ",
    "backlinks von ",
    // PT
    "o que aponta para ",
    "o que liga para ",
    "que notas apontam para ",
    "quais notas apontam para ",
    "quais notas ligam para ",
    "ligações de entrada de ",
    // shared by ES, FR, PT
    "backlinks de ",
];

/// Phrases that follow the note (Japanese puts the object first: "Xへのバックリンク").
const BACKLINKS_AFTER: &[&str] = &[
    "へのバックリンク",
    "のバックリンク",
    "にリンクしているノート",
    "にリンクしているもの",
    "にリンクしているのは",
    "を参照しているノート",
    "へのリンク元",
];

/// Phrases followed by "A and B".
const COMPARE_BEFORE: &[&str] = &[
    "compare ",
    "diff ",
    "confronta ",
    "compara ",
    "comparer ",
    "compare-moi ",
    "vergleiche ",
    "vergleich ",
];

/// Words joining the two things to compare.
const COMPARE_JOINS: &[&str] = &[
    " and ", " with ", " vs. ", " vs ", " versus ", " to ", " e ", " con ", " et ", " avec ",
    " y ", " und ", " mit ", " com ",
];

const COMPARE_AFTER: &[&str] = &["を比較", "の比較", "を比べ"];

const TIMELINE_CUES: &[&str] = &[
    "timeline of ",
    "timeline for ",
    "timeline ",
    "chronology of ",
    "chronology ",
    "history of ",
    "cronologia di ",
    "cronologia de ",
    "cronologia ",
    "chronologie de ",
    "chronologie ",
    "cronología de ",
    "cronología ",
    "zeitachse von ",
    "zeitachse ",
    "zeitleiste von ",
    "zeitleiste ",
    "linha do tempo de ",
    "linha do tempo ",
];

const TIMELINE_AFTER: &[&str] = &["の年表", "のタイムライン", "の時系列"];

const REVISIT_CUES: &[&str] = &[
    "what should i revisit",
    "what should i review again",
    "revisit",
    "cosa dovrei rivedere",
    "da rivedere",
    "que devrais-je revoir",
    "à revoir",
    "qué debería revisar",
    "qué debería repasar",
    "was sollte ich wieder ansehen",
    "was sollte ich nochmal lesen",
    "o que devo rever",
    "o que devo revisitar",
    "見直すべき",
    "読み返すべき",
];

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
    for join in COMPARE_JOINS.iter().copied().chain(["と"]) {
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
    // a question about a topic is about that topic, whatever cue its topic holds ("what did I
    // write about the history of Rome?" is no timeline)
    if let Some(q) = topic_question(request) {
        return match q.reply {
            Reply::Answer => Mode::Answer(q.topic),
            Reply::Search => Mode::Search,
        };
    }
    let lower = request.to_lowercase();
    if let Some(target) = object_of(&lower, BACKLINKS_BEFORE, BACKLINKS_AFTER) {
        return Mode::Backlinks(target);
    }
    if let Some((a, b)) =
        object_of(&lower, COMPARE_BEFORE, COMPARE_AFTER).and_then(|t| two_sides(&t))
    {
        return Mode::Compare(a, b);
    }
    if let Some(topic) = object_of(&lower, TIMELINE_CUES, TIMELINE_AFTER) {
        return Mode::Timeline(topic);
    }
    if TIMELINE_CUES
        .iter()
        .any(|c| lower.trim_end() == c.trim_end())
    {
        return Mode::Timeline(String::new());
    }
    if let Some(cue) = REVISIT_CUES.iter().find(|c| lower.contains(*c)) {
        let rest = lower.split_once(cue).map_or("", |(_, r)| r);
        return Mode::Revisit(clean(rest));
    }
    Mode::Search
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn a_cue_inside_a_word_is_no_cue() {
        assert_eq!(choose("outlinks to nowhere"), Mode::Search);
    }
}
