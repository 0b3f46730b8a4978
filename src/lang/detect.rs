//! Which of the crew's seven languages a request is written in. Pure: the script first
//! (kana and kanji are Japanese here, the only language of the seven written with them), then
//! the little words and request verbs of each language, helped by letters only some of them
//! use (ñ, ã, ß): `function_words`, `request_words` and `letters` in
//! `references/lang/*.yaml`. A message with no evidence, or as much for two languages, has
//! none: the caller falls back to the user's profile.

use super::Lang;
use crate::text::{is_unspaced_script, lexicons, normalize, words};

/// Whether `word` (lower-case) is a function word of one of the crew's languages ("the",
/// "und", "della"): a word that says nothing of a note's topic.
pub fn function_word(word: &str) -> bool {
    static ALL: std::sync::LazyLock<std::collections::HashSet<&'static str>> =
        std::sync::LazyLock::new(|| lexicons().iter().flat_map(|l| l.evidence()).collect());
    ALL.contains(word)
}

/// The language of `message`, when its words say so clearly.
pub fn detect(message: &str) -> Option<Lang> {
    let unspaced = message.chars().filter(|&c| is_unspaced_script(c)).count();
    if unspaced > 0 && message.chars().any(is_japanese) {
        return Some(Lang::Ja);
    }
    let mut score = [0usize; Lang::ALL.len()];
    let normalized = normalize(message);
    // the lexicons come in `Lang::ALL` order, so a lexicon's position is its language's index
    for (i, lex) in lexicons().iter().enumerate() {
        for w in words(&normalized) {
            if lex.evidence().any(|e| e == w) {
                score[i] += 1;
            }
        }
        for c in message.chars().flat_map(char::to_lowercase) {
            if lex.letters.contains(&c) {
                score[i] += 1;
            }
        }
    }
    let best = *score.iter().max()?;
    let mut winners = Lang::ALL.iter().filter(|l| score[l.index()] == best);
    match (winners.next(), winners.next()) {
        (Some(&lang), None) if best > 0 => Some(lang),
        _ => None,
    }
}

/// Kana, or the ideographs Japanese writes with kanji.
fn is_japanese(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0xFF66..=0xFF9F)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_by_its_words() {
        assert_eq!(detect("controlla il vault"), Some(Lang::It));
        assert_eq!(detect("vérifie le vault"), Some(Lang::Fr));
        assert_eq!(detect("revisa el vault"), Some(Lang::Es));
        assert_eq!(detect("überprüfe den Vault"), Some(Lang::De));
        assert_eq!(detect("verifica o vault"), Some(Lang::Pt));
        assert_eq!(detect("check the vault"), Some(Lang::En));
        assert_eq!(detect("ボールトをチェックして"), Some(Lang::Ja));
        assert_eq!(detect("受信箱を整理して"), Some(Lang::Ja));
    }

    #[test]
    fn letters_break_a_tie() {
        // "organiza" is Spanish and Portuguese; the tilde says which
        assert_eq!(
            detect("organiza a caixa de entrada, não agora"),
            Some(Lang::Pt)
        );
        assert_eq!(detect("¿organiza la bandeja?"), Some(Lang::Es));
    }

    proptest::proptest! {
        /// Any text gets an answer, never a panic; kana always means Japanese.
        #[test]
        fn any_text_is_read_and_kana_is_japanese(text in "\\PC{0,80}", kana in "[ぁ-ゖァ-ヺ]{1,4}") {
            let _ = detect(&text);
            proptest::prop_assert_eq!(detect(&format!("{text}{kana}")), Some(Lang::Ja));
        }
    }

    #[test]
    fn lexicons_come_in_the_order_of_the_languages() {
        let codes: Vec<&str> = lexicons().iter().map(|l| l.code).collect();
        let langs: Vec<&str> = Lang::ALL.iter().map(|l| l.code()).collect();
        assert_eq!(codes, langs);
    }

    #[test]
    fn no_evidence_is_no_language() {
        assert_eq!(detect("vault audit"), None);
        assert_eq!(detect("   "), None);
        assert_eq!(detect("42"), None);
        assert_eq!(detect("maintenance"), None);
    }
}
