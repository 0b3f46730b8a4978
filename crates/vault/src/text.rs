//! Text as crew reads it: one normaliser (NFKC, lowercase, accents folded, punctuation
//! collapsed) and one tokeniser that also splits scripts written without spaces.
//!
//! Filing, search, routing and language detection all read words through here, so a word is
//! the same word to each of them: "Café" and "cafe" are one word, and `京都旅行について` is
//! two (`京都旅行`, `について`), not one.

use unicode_normalization::UnicodeNormalization;

fn is_latin_combining(c: char) -> bool {
    matches!(c as u32,
        0x0300..=0x036F | 0x1AB0..=0x1AFF | 0x1DC0..=0x1DFF | 0x20D0..=0x20FF | 0xFE20..=0xFE2F)
}

/// Whether a character belongs to a script written without spaces between words, where whole-
/// word matching cannot ask for a space around a phrase.
pub fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // hiragana, katakana
        | 0x3400..=0x4DBF    // CJK extension A
        | 0x4E00..=0x9FFF    // CJK unified ideographs
        | 0xF900..=0xFAFF    // CJK compatibility ideographs
        | 0xFF66..=0xFF9F    // half-width katakana
        | 0x0E00..=0x0E7F    // Thai
        | 0xAC00..=0xD7AF) // Hangul syllables
}

/// Normalizes a message or a trigger phrase: words of letters and digits separated by one space.
///
/// Long texts (note bodies, for search) are normalized piece by piece between ASCII
/// whitespace, so the ASCII words of a note with a few accented ones stay on the fast path.
/// Nothing composes across an ASCII space, so the result is the same.
pub fn normalize(text: &str) -> String {
    if text.is_ascii() || text.len() < 64 {
        return normalize_piece(text);
    }
    let mut out = String::with_capacity(text.len());
    for piece in text.split(|c: char| c.is_ascii_whitespace()) {
        let n = normalize_piece(piece);
        if !n.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(&n);
        }
    }
    out
}

fn normalize_piece(text: &str) -> String {
    if text.is_ascii() {
        // nothing to compose, fold or decompose: lowercase and collapse
        return collapse(text.bytes().map(|b| char::from(b.to_ascii_lowercase())));
    }
    let lowered: String = text.nfkc().flat_map(char::to_lowercase).collect();
    let folded: String = lowered
        .nfd()
        .filter(|&c| !is_latin_combining(c))
        .nfc()
        .flat_map(|c| {
            let s: &str = match c {
                'ß' => "ss",
                'æ' => "ae",
                'œ' => "oe",
                'ø' => "o",
                'ł' => "l",
                'đ' => "d",
                'ı' => "i",
                'þ' => "th",
                _ => "",
            };
            if s.is_empty() {
                vec![c]
            } else {
                s.chars().collect()
            }
        })
        .collect();
    collapse(folded.chars())
}

/// Letters and digits, each run of anything else as one space, none at either end.
fn collapse(chars: impl Iterator<Item = char>) -> String {
    let mut out = String::with_capacity(chars.size_hint().0);
    let mut pending_space = false;
    for c in chars {
        if c.is_alphanumeric() {
            if pending_space && !out.is_empty() {
                out.push(' ');
            }
            pending_space = false;
            out.push(c);
        } else {
            pending_space = true;
        }
    }
    out
}

/// Splits normalized text into words.
pub fn words(normalized: &str) -> impl Iterator<Item = &str> {
    normalized.split(' ').filter(|w| !w.is_empty())
}

/// The script class of a character of an unspaced script: a change of class is a word
/// boundary (漢字 → かな → カタカナ), the cheap segmentation that needs no dictionary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Han,
    Hiragana,
    Katakana,
    Other,
}

fn class(c: char) -> Class {
    match c as u32 {
        0x3040..=0x309F => Class::Hiragana,
        // the prolonged sound mark ー belongs to the katakana word it lengthens
        0x30A0..=0x30FF | 0xFF66..=0xFF9F => Class::Katakana,
        0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF => Class::Han,
        _ => Class::Other,
    }
}

/// The tokens of normalized text: its space-separated words, with every run of an unspaced
/// script cut where the script changes (`京都旅行について` → `京都旅行`, `について`), so a
/// Japanese query or title is several tokens rather than one.
pub fn tokens(normalized: &str) -> impl Iterator<Item = &str> {
    words(normalized).flat_map(split_unspaced)
}

fn split_unspaced(word: &str) -> impl Iterator<Item = &str> {
    let mut rest = word;
    std::iter::from_fn(move || {
        let mut chars = rest.char_indices();
        let (_, first) = chars.next()?;
        let unspaced = is_unspaced_script(first);
        let first_class = class(first);
        let end = chars
            .find(|&(_, c)| {
                if unspaced {
                    !is_unspaced_script(c) || class(c) != first_class
                } else {
                    is_unspaced_script(c)
                }
            })
            .map_or(rest.len(), |(i, _)| i);
        let (token, tail) = rest.split_at(end);
        rest = tail;
        Some(token)
    })
}

/// Calls `f` with each token of `text` as [`tokens`] of [`normalize`] gives them, in order,
/// without normalizing the whole text: an ASCII word (most of a note's words) is passed as it
/// is, or lower-cased, with no allocation per word; only pieces holding other characters go
/// through the normaliser. Filing reads every note of a vault this way.
pub fn each_token(text: &str, mut f: impl FnMut(&str)) {
    // ASCII punctuation and spaces end a word in every script and compose with nothing, so
    // cutting there first gives the same tokens as normalizing the whole text
    for piece in text.split(|c: char| c.is_ascii() && !c.is_ascii_alphanumeric()) {
        if piece.is_empty() {
            continue;
        }
        if piece.is_ascii() {
            if piece.bytes().any(|b| b.is_ascii_uppercase()) {
                f(&piece.to_ascii_lowercase());
            } else {
                f(piece);
            }
        } else {
            let normal = normalize_piece(piece);
            for t in tokens(&normal) {
                f(t);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folds_case_accents_and_punctuation() {
        assert_eq!(
            normalize("  Créer   un NOUVEL agent!! "),
            "creer un nouvel agent"
        );
        assert_eq!(normalize("c'è qualcosa?"), "c e qualcosa");
        assert_eq!(normalize("Wochenübersicht"), "wochenubersicht");
        assert_eq!(normalize("Straße"), "strasse");
        assert_eq!(normalize("ＦＵＬＬ width"), "full width");
    }

    #[test]
    fn keeps_japanese_voicing_marks() {
        assert_eq!(normalize("Vaultをセットアップ"), "vaultをセットアップ");
    }

    mod pieces {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn piecewise_equals_whole_text(text in "([a-zA-Z0-9 \n\t.,éÉßœıİ\u{301}\u{308}\u{a0}\u{3000}ｶﾞ①ﬁ가각]){0,120}") {
                prop_assert_eq!(normalize(&text), normalize_piece(&text));
            }
        }
    }

    #[test]
    fn spaced_words_are_tokens() {
        let n = normalize("Find my notes, please!");
        assert_eq!(
            tokens(&n).collect::<Vec<_>>(),
            ["find", "my", "notes", "please"]
        );
    }

    #[test]
    fn japanese_is_cut_where_the_script_changes() {
        let n = normalize("京都旅行について書いたノートを探して");
        assert_eq!(
            tokens(&n).collect::<Vec<_>>(),
            [
                "京都旅行",
                "について",
                "書",
                "いた",
                "ノート",
                "を",
                "探",
                "して"
            ]
        );
        let n = normalize("Vaultをセットアップ");
        assert_eq!(
            tokens(&n).collect::<Vec<_>>(),
            ["vault", "を", "セットアップ"]
        );
    }

    #[test]
    fn empty_text_has_no_tokens() {
        assert_eq!(tokens("").count(), 0);
    }

    #[test]
    fn each_token_is_tokens_of_normalize() {
        let text = "Café au LAIT, 京都旅行について; ＦＵＬＬ width — x2 ①";
        let mut got = Vec::new();
        each_token(text, |t| got.push(t.to_string()));
        assert_eq!(got, tokens(&normalize(text)).collect::<Vec<_>>());
    }

    mod each_token_equivalence {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn same_tokens_as_the_whole_text_normalized(text in "([a-zA-Z0-9 \n\t.,;:'\\-()\\[\\]éÉßœıİ\u{301}\u{308}\u{3099}\u{a0}\u{3000}ｶﾞ①ﬁ가각京都をノートー]){0,120}") {
                let mut got = Vec::new();
                each_token(&text, |t| got.push(t.to_string()));
                prop_assert_eq!(got, tokens(&normalize(&text)).map(str::to_string).collect::<Vec<_>>());
            }
        }
    }
}
