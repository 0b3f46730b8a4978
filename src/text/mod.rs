//! Text as crew reads it: one normaliser (NFKC, lowercase, accents folded, punctuation
//! collapsed), one tokeniser that also splits scripts written without spaces, and the
//! per-language word lists (`references/lang/<code>.yaml`), loaded once.
//!
//! The normaliser and tokeniser live in the vault crate (`crew_vault::text`), where filing
//! reads notes with them too; routing, language detection and search use them from here, so
//! a word is the same word to all of them.

mod lexicon;
mod word_lists;

pub use crew_vault::text::{each_token, is_unspaced_script, normalize, tokens, words};
pub use lexicon::{Lexicon, lexicon, lexicons, stopwords};
pub use word_lists::word_list;

/// The slug of a name (a mode's, a heading's): its normalized words joined by hyphens.
pub fn slug(name: &str) -> String {
    words(&normalize(name)).collect::<Vec<_>>().join("-")
}
