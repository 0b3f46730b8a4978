//! Writing the planned notes, through the gate.

use super::report::Captured;
use crate::agents::{Ctx, common};
use crate::gate::GateError;

/// Creates each planned note (the gate picks a free name when one is taken) and records the
/// path it got.
pub fn create(ctx: &mut Ctx, captured: &mut Captured) -> Result<(), GateError> {
    for note in &mut captured.notes {
        let path = ctx.gate.create(&note.path, note.text.as_bytes())?;
        common::log_change(ctx, "scribe", &format!("captured {path}"))?;
        note.path = path;
    }
    Ok(())
}
