//! The shape of a request, apart from its vocabulary: a question asks for something the vault
//! already holds, so it is never a capture, whatever words it shares with one ("what did I
//! write about X?" is a search, not a note to write).

use super::normalize::{normalize, words};

/// Words that open a question in the languages the crew speaks (normalized: lowercase, no
/// accents). Auxiliary openers ("do", "is", "habe") count only as a question's first word.
const OPENERS: &[&str] = &[
    // en
    "what", "where", "when", "which", "who", "whom", "whose", "why", "how", "do", "does", "did",
    "is", "are", "was", "were", "have", "has", "can", "could", "any", "am", // it
    "cosa", "che", "dove", "quando", "quale", "quali", "quanto", "quanti", "quante", "chi", "come",
    "perche", "ci", "c", "ho", "hai", // fr
    "qu", "quoi", "ou", "quel", "quels", "quelle", "quelles", "combien", "est", "ai", "y",
    "comment", "pourquoi", // es
    "que", "donde", "cuando", "cual", "cuales", "cuanto", "cuantos", "quien", "como", "hay",
    "tengo", "por", // de
    "was", "wo", "wann", "welche", "welcher", "welches", "wer", "wie", "warum", "gibt", "habe",
    "hast", "ist", "sind", "verpasse", // pt
    "o", "onde", "qual", "quais", "quem", "tenho", "ha", "estou",
];

/// Whether a message asks rather than tells: it ends with a question mark (Latin or full
/// width), or its first word opens a question.
pub(crate) fn is_question(message: &str) -> bool {
    let trimmed = message.trim();
    if trimmed.ends_with('?') || trimmed.ends_with('？') || trimmed.starts_with('¿') {
        return true;
    }
    let normalized = normalize(trimmed);
    let first = words(&normalized).next().unwrap_or("");
    // "what …" and "was …" without a question mark are still questions; "do this" is not
    matches!(
        first,
        "what"
            | "where"
            | "when"
            | "which"
            | "who"
            | "how"
            | "cosa"
            | "dove"
            | "quando"
            | "quali"
            | "quale"
            | "ou"
            | "quand"
            | "quel"
            | "quels"
            | "combien"
            | "donde"
            | "cuando"
            | "cual"
            | "cuanto"
            | "wo"
            | "wann"
            | "welche"
            | "wie"
            | "onde"
            | "qual"
    ) || (message.contains('?') && OPENERS.contains(&first))
}

/// Words that ask where something is (normalized). French `ou` counts only in a question,
/// where it is "où" with the accent folded rather than "or".
const LOCATING: &[&str] = &["where", "dove", "donde", "wo", "onde", "ou"];

/// Whether a question asks where something is: the search agent's question above all.
pub(crate) fn asks_where(message: &str) -> bool {
    if message.contains("どこ") {
        return true;
    }
    is_question(message) && words(&normalize(message)).any(|w| LOCATING.contains(&w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn where_questions() {
        assert!(asks_where("où est la note sur les impôts ?"));
        assert!(asks_where("where did I leave the tax note"));
        assert!(asks_where("税金のノートはどこ？"));
        assert!(!asks_where("tea or coffee ou café"));
    }

    #[test]
    fn questions_by_mark_or_opener() {
        assert!(is_question("what did I write about bread?"));
        assert!(is_question("where is the tax note"));
        assert!(is_question("¿qué escribí sobre el pan"));
        assert!(is_question("今日は重要なメールある？"));
        assert!(is_question("wo habe ich das abgelegt"));
        assert!(!is_question("write down that the plumber comes"));
        assert!(!is_question("do the weekly review"));
        assert!(!is_question("note this: milk"));
    }
}
