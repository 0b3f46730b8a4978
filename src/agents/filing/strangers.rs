//! Notes with no home in any vault of knowledge — grocery lists, recipes, journal lines,
//! meeting scraps, errands — drawn from `data/strangers.yaml`: what a calibration files by
//! mistake among these is the rate at which filing takes in what it should leave alone.

use std::sync::LazyLock;

use serde::Deserialize;

use crate::vault::Note;
use crate::vault::classify::{self, Feature};

/// How many strangers a calibration guesses.
pub(crate) const STRANGERS: usize = 128;
/// The share of strangers filing may take in.
pub(crate) const STRANGER_TARGET: f64 = 0.03;

#[derive(Deserialize)]
struct Kinds {
    kinds: Vec<Kind>,
}

#[derive(Deserialize)]
struct Kind {
    #[allow(dead_code)] // named in the file for its readers
    kind: String,
    titles: Vec<String>,
    lines: Vec<String>,
}

static KINDS: LazyLock<Vec<Kind>> = LazyLock::new(|| {
    let parsed: Result<Kinds, _> =
        yaml_serde::from_str(include_str!("../../../data/strangers.yaml"));
    // built into the binary and checked by a test: an error here is crew's own bug
    parsed.map(|k| k.kinds).unwrap_or_default()
});

/// `n` stranger notes as (title, text), the same for the same `seed`.
pub(crate) fn notes(n: usize, seed: u64) -> Vec<(String, String)> {
    let kinds = &*KINDS;
    if kinds.is_empty() {
        return Vec::new();
    }
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = |below: usize| {
        // xorshift: a fixed, dependency-free sequence
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below.max(1) as u64) as usize
    };
    (0..n)
        .map(|i| {
            let kind = &kinds[i % kinds.len()];
            let title = kind.titles[next(kind.titles.len())].clone();
            let mut lines: Vec<&str> = kind.lines.iter().map(String::as_str).collect();
            let take = (4 + next(6)).min(lines.len());
            let mut body = format!("# {title}\n\n");
            for _ in 0..take {
                body.push_str(lines.swap_remove(next(lines.len())));
                body.push('\n');
            }
            (title, body)
        })
        .collect()
}

/// The content features of the calibration's strangers (computed once).
pub(crate) fn features() -> &'static [Vec<(Feature, f32)>] {
    static FEATURES: LazyLock<Vec<Vec<(Feature, f32)>>> = LazyLock::new(|| {
        notes(STRANGERS, 1)
            .into_iter()
            .map(|(title, text)| {
                let note = Note::parse_text(format!("{title}.md"), &text);
                classify::content_features(&note, &text, None)
            })
            .collect()
    });
    &FEATURES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_file_parses_and_every_kind_can_fill_a_note() {
        let kinds = &*KINDS;
        assert!(kinds.len() >= 6);
        for k in kinds {
            assert!(!k.titles.is_empty() && k.lines.len() >= 9, "{}", k.kind);
        }
    }

    #[test]
    fn strangers_are_many_kinds_and_the_same_for_a_seed() {
        let a = notes(16, 3);
        assert_eq!(a, notes(16, 3));
        assert_ne!(a, notes(16, 4));
        let titles: std::collections::HashSet<&str> = a.iter().map(|(t, _)| t.as_str()).collect();
        assert!(titles.len() >= 8, "{titles:?}");
        assert!(a.iter().all(|(_, text)| text.lines().count() >= 6));
        assert_eq!(features().len(), STRANGERS);
    }
}
