//! Text normalization: NFKC, lowercase, accents folded, punctuation collapsed.

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
}
