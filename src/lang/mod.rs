//! The language crew answers in: one of the seven it speaks (EN IT FR ES DE PT JA), chosen
//! per request — `--lang`/`CREW_LANG` when given, else the language the request is written
//! in, else the chat session's or the profile's (`primary-language` in `Meta/user-profile.md`),
//! else English — and the message catalogues its fixed sentences come from.
//!
//! The catalogues are `references/messages/<code>.yaml`, embedded in the binary: one flat map
//! of message keys to text with `{named}` placeholders. A key a catalogue lacks is said in
//! English; the tests hold every catalogue to English's keys and placeholders, so a
//! translation cannot silently drop a figure.

mod catalogue;
pub mod detect;
pub mod questions;

use std::fmt::Display;

pub use detect::detect;

/// One of the languages crew's replies and reports are written in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    En,
    It,
    Fr,
    Es,
    De,
    Pt,
    Ja,
}

impl Lang {
    /// Every language, English (the reference catalogue) first.
    pub const ALL: [Lang; 7] = [
        Lang::En,
        Lang::It,
        Lang::Fr,
        Lang::Es,
        Lang::De,
        Lang::Pt,
        Lang::Ja,
    ];

    /// The ISO 639-1 code, as in the profile's `primary-language`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::It => "it",
            Lang::Fr => "fr",
            Lang::Es => "es",
            Lang::De => "de",
            Lang::Pt => "pt",
            Lang::Ja => "ja",
        }
    }

    /// A language from a code (`it`, `pt-BR`, `IT`); `None` for one crew does not speak.
    pub fn from_code(raw: &str) -> Option<Lang> {
        let base = raw.trim().split(['-', '_']).next()?.to_ascii_lowercase();
        Lang::ALL.into_iter().find(|l| l.code() == base)
    }

    fn index(self) -> usize {
        self as usize
    }

    /// The text of a message key in this language, English when this catalogue lacks it,
    /// the key itself when no catalogue has it (a test keeps that from shipping).
    pub fn text(self, key: &str) -> &'static str {
        catalogue::lookup(self, key)
    }

    /// Whether `count` takes the singular form: French says "0 note" and "1 note", the others
    /// "1" only; Japanese has no plural, so its two forms are the same text.
    pub(crate) fn singular(self, count: usize) -> bool {
        match self {
            Lang::Fr => count <= 1,
            _ => count == 1,
        }
    }

    /// A message that depends on a number: `{key}.one` or `{key}.other`, with `{count}` and
    /// the other placeholders filled.
    pub fn fill_count(self, key: &str, count: usize, args: &[(&str, &dyn Display)]) -> String {
        let form = if self.singular(count) { "one" } else { "other" };
        let mut all: Vec<(&str, &dyn Display)> = vec![("count", &count)];
        all.extend_from_slice(args);
        catalogue::fill(self.text(&format!("{key}.{form}")), &all)
    }

    /// A message with its `{named}` placeholders filled. A placeholder without a value stays
    /// as written, so a missing figure shows rather than vanishing.
    pub fn fill(self, key: &str, args: &[(&str, &dyn Display)]) -> String {
        catalogue::fill(self.text(key), args)
    }
}

impl std::fmt::Display for Lang {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

/// The language a request is answered in: the forced one, else the request's own, else the
/// preferred one (chat session, profile), else English.
pub(crate) fn choose(forced: Option<Lang>, message: &str, preferred: &[Option<Lang>]) -> Lang {
    forced
        .or_else(|| detect(message))
        .or_else(|| preferred.iter().flatten().next().copied())
        .unwrap_or_default()
}

/// The user profile's key holding the language code replies should use.
pub(crate) const LANGUAGE_KEY: &str = "primary-language";

/// The profile's `primary-language` (`<meta>/user-profile.md` under the vault), when it is
/// one of the seven. Read before the vault is opened, so the route line is already in it; a
/// profile that cannot be read is no preference.
pub(crate) fn profile_language(vault: &std::path::Path, meta: &str) -> Option<Lang> {
    let path = format!("{meta}/user-profile.md");
    let bytes = std::fs::read(vault.join(&path)).ok()?;
    let note = crate::vault::Note::parse(path, &bytes);
    Lang::from_code(&note.property_str(LANGUAGE_KEY)?)
}

/// A message in `lang` with named values: `tr!(lang, "audit.heading", date = today)`.
#[macro_export]
macro_rules! tr {
    ($lang:expr, $key:literal $(, $name:ident = $value:expr)* $(,)?) => {
        $lang.fill($key, &[$((stringify!($name), &$value as &dyn ::std::fmt::Display)),*])
    };
}

/// A message whose wording depends on a number (`{count}`), e.g. "1 note" / "3 notes":
/// `trn!(lang, "seeker.found.heading", hits.len(), query = q)`.
#[macro_export]
macro_rules! trn {
    ($lang:expr, $key:literal, $count:expr $(, $name:ident = $value:expr)* $(,)?) => {
        $lang.fill_count(
            $key,
            $count,
            &[$((stringify!($name), &$value as &dyn ::std::fmt::Display)),*],
        )
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_regions_are_dropped() {
        for l in Lang::ALL {
            assert_eq!(Lang::from_code(l.code()), Some(l));
        }
        assert_eq!(Lang::from_code("pt-BR"), Some(Lang::Pt));
        assert_eq!(Lang::from_code("IT"), Some(Lang::It));
        assert_eq!(Lang::from_code("nl"), None);
    }

    #[test]
    fn the_request_wins_over_the_profile_and_a_flag_over_both() {
        assert_eq!(
            choose(None, "controlla il vault", &[Some(Lang::De)]),
            Lang::It
        );
        assert_eq!(
            choose(None, "vault audit", &[None, Some(Lang::De)]),
            Lang::De
        );
        assert_eq!(choose(None, "vault audit", &[]), Lang::En);
        assert_eq!(choose(Some(Lang::Ja), "check the vault", &[]), Lang::Ja);
    }
}
