//! A trained and calibrated model as bytes, and back: what [`super::store`] keeps on disk so
//! the next process does not train again. Pure.
//!
//! The file: a magic, the [`FORMAT`] version (little-endian), then the postcard encoding of
//! [`Stored`], then an FNV-1a checksum of everything before it. A file of another format or
//! crew version, another definition, a wrong checksum, or arrays that disagree is no model:
//! the caller trains again, and nothing is an error.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::examples::{Phrase, Unit};
use super::{Model, Table};

const MAGIC: &[u8; 8] = b"crew-lrn";

/// Bumped whenever what training stores or how it weighs changes: the same definition then
/// needs a new model, and an old file must not be read as one.
pub const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Stored {
    /// The crew build that trained it: the features are hashes computed by code, and another
    /// build may compute them differently.
    crew_version: String,
    /// The definition's fingerprint (see [`Model::of`]).
    definition: u64,
    units: Vec<Unit>,
    phrases: Vec<Phrase>,
    table: Table,
    centroid_norm2: Vec<f32>,
    calibration: (f32, f32),
}

fn checksum(bytes: &[u8]) -> u64 {
    use crate::vault::hash::{FNV_OFFSET, fnv1a};
    fnv1a(FNV_OFFSET, bytes)
}

/// The bytes of a model trained for the definition `definition` (calibrated first, so the
/// next process need not leave every phrase out again).
pub fn to_bytes(model: &Model, definition: u64) -> Option<Vec<u8>> {
    let stored = Stored {
        crew_version: env!("CARGO_PKG_VERSION").to_string(),
        definition,
        units: model.units.clone(),
        phrases: model.phrases.clone(),
        table: model.table.clone(),
        centroid_norm2: model.centroid_norm2.clone(),
        calibration: model.calibration(),
    };
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&FORMAT.to_le_bytes());
    let mut out = postcard::to_extend(&stored, out).ok()?;
    let sum = checksum(&out);
    out.extend_from_slice(&sum.to_le_bytes());
    Some(out)
}

/// The model in `bytes` when they hold one of this format and crew version, trained for the
/// definition `definition`, intact; else `None`.
pub fn from_bytes(bytes: &[u8], definition: u64) -> Option<Model> {
    let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if checksum(body).to_le_bytes() != sum {
        return None;
    }
    let rest = body.strip_prefix(MAGIC.as_slice())?;
    let (format, rest) = rest.split_at_checked(4)?;
    if format != FORMAT.to_le_bytes() {
        return None;
    }
    let s: Stored = postcard::from_bytes(rest).ok()?;
    let fits = s.crew_version == env!("CARGO_PKG_VERSION")
        && s.definition == definition
        && s.table.consistent(s.phrases.len())
        && s.centroid_norm2.len() == s.units.len()
        && s.phrases.iter().all(|p| p.unit < s.units.len())
        // a margin no answer reaches is infinite, never NaN
        && !s.calibration.0.is_nan()
        && !s.calibration.1.is_nan();
    fits.then(|| Model {
        units: s.units,
        phrases: s.phrases,
        table: s.table,
        centroid_norm2: s.centroid_norm2,
        margin: OnceLock::from(s.calibration),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crew::Crew;
    use crate::dispatch::learned::examples;

    fn trained() -> (Model, u64) {
        let crew = Crew::builtin();
        let (units, phrases) = examples::collect(&crew);
        let key = super::super::fingerprint(&units, &phrases);
        (Model::train(units, phrases), key)
    }

    /// Each map has its own order; a model must not carry it, or a request at the margin
    /// routes one way in one process and another way in the next.
    #[test]
    fn a_model_trained_twice_is_the_same_to_the_bit() {
        let (first, key) = trained();
        let (second, _) = trained();
        assert_eq!(first.centroid_norm2, second.centroid_norm2);
        assert_eq!(to_bytes(&first, key), to_bytes(&second, key));
    }

    #[test]
    fn a_model_read_back_answers_as_the_trained_one() {
        let (model, key) = trained();
        let bytes = to_bytes(&model, key).expect("encode");
        let back = from_bytes(&bytes, key).expect("decode");
        assert_eq!(back.calibration(), model.calibration());
        assert_eq!(back.table, model.table);
        for m in [
            "find hidden connections between my book notes",
            "zeig mir meinen Wochenplan",
            "tell me a joke about the weather",
        ] {
            assert_eq!(back.rank(m, None), model.rank(m, None), "{m}");
        }
    }

    #[test]
    fn another_definition_a_damaged_or_an_old_file_is_no_model() {
        let (model, key) = trained();
        let bytes = to_bytes(&model, key).expect("encode");
        assert!(from_bytes(&bytes, key ^ 1).is_none());
        let mut flipped = bytes.clone();
        let mid = flipped.len() / 2;
        flipped[mid] ^= 0x40;
        assert!(from_bytes(&flipped, key).is_none());
        assert!(from_bytes(&bytes[..bytes.len() / 3], key).is_none());
        assert!(from_bytes(&[], key).is_none());
        let mut old = bytes.clone();
        old[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&(FORMAT - 1).to_le_bytes());
        let n = old.len() - 8;
        let sum = checksum(&old[..n]);
        old[n..].copy_from_slice(&sum.to_le_bytes());
        assert!(from_bytes(&old, key).is_none());
    }
}
