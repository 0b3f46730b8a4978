//! Cues: words inside a request that turn on an option of the mode an agent runs ("smart
//! batch and apply", "save the radar"). The mode itself is chosen once, by the dispatcher
//! (`Step::mode`); a cue only refines it. The words are data, per language, under `cues:` in
//! `references/lang/<code>.yaml`.

use crate::dispatch::mode::has_phrase;
use crate::text::{lexicons, normalize};

/// An option a request can turn on with its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    /// Make the changes a mode proposes (the connector's links, the smart batch's cross-links).
    Apply,
    /// Defrag builds what is missing instead of proposing it.
    Build,
    /// Triage renames notes to the naming convention.
    Rename,
    /// The scribe makes one note per line.
    Split,
    /// The deadline radar is written down as a note.
    WriteDown,
    /// The postman saves mail as notes.
    Keep,
    /// The postman drafts a reply.
    Draft,
    /// The postman reads the calendar rather than the mail.
    Calendar,
    /// Calendar events are imported as notes.
    Import,
    /// With [`Cue::Meeting`]: the postman prepares a meeting.
    Prepare,
    Meeting,
    /// Only the mail marked important or from VIPs.
    Important,
}

impl Cue {
    pub const ALL: [Cue; 12] = [
        Cue::Apply,
        Cue::Build,
        Cue::Rename,
        Cue::Split,
        Cue::WriteDown,
        Cue::Keep,
        Cue::Draft,
        Cue::Calendar,
        Cue::Import,
        Cue::Prepare,
        Cue::Meeting,
        Cue::Important,
    ];

    /// The cue's list name in the language files.
    pub fn key(self) -> &'static str {
        match self {
            Cue::Apply => "apply",
            Cue::Build => "build",
            Cue::Rename => "rename",
            Cue::Split => "split",
            Cue::WriteDown => "write_down",
            Cue::Keep => "keep",
            Cue::Draft => "draft",
            Cue::Calendar => "calendar",
            Cue::Import => "import",
            Cue::Prepare => "prepare",
            Cue::Meeting => "meeting",
            Cue::Important => "important",
        }
    }

    /// Whether a request's text holds one of the cue's words, in any language, as whole words.
    pub fn in_text(self, text: &str) -> bool {
        let text = normalize(text);
        lexicons()
            .iter()
            .filter_map(|l| l.cues.get(self.key()))
            .flatten()
            .any(|w| has_phrase(&text, &normalize(w)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cue_has_english_words_and_no_file_names_an_unknown_one() {
        let en = crate::text::lexicon("en").expect("en");
        for cue in Cue::ALL {
            assert!(
                en.cues.contains_key(cue.key()),
                "{} has no words",
                cue.key()
            );
        }
        for l in lexicons() {
            for key in l.cues.keys() {
                assert!(
                    Cue::ALL.iter().any(|c| c.key() == key),
                    "{}: unknown cue {key}",
                    l.code
                );
            }
        }
    }

    #[test]
    fn cues_are_whole_words_in_any_language() {
        assert!(Cue::Apply.in_text("smart batch and apply"));
        assert!(!Cue::Apply.in_text("the applied maths notes"));
        assert!(Cue::Rename.in_text("riordina e rinomina"));
        assert!(Cue::Draft.in_text("メール2に返信して"));
        assert!(!Cue::Draft.in_text("check my email"));
    }
}
