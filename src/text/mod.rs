//! Text as crew reads it: one normaliser (NFKC, lowercase, accents folded, punctuation
//! collapsed), one tokeniser that also splits scripts written without spaces, and the
//! per-language word lists (`references/lang/<code>.yaml`), loaded once.
//!
//! Routing, language detection and search read text through here, so a word is the same
//! word to all of them.

mod lexicon;
mod normalize;
mod word_lists;

pub use lexicon::{Lexicon, lexicon, lexicons, stopwords};
pub use normalize::{is_unspaced_script, normalize, words};
pub use word_lists::word_list;

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
