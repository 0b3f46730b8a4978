//! Agents and skills whose work is language (transcripts, contacts, the create-agent
//! interview): without a model they explain exactly what to configure.

use super::{Ctx, NativeOutput};
use crate::crew::ModelSpec;
use crate::gate::GateError;

/// What a model-only route needs, in one paragraph.
pub(crate) fn needs_model_message(ctx: &Ctx) -> String {
    let step = ctx.step;
    let def = ctx.crew.definition(step.kind, &step.name);
    let tier = match def.map(|d| &d.model) {
        Some(ModelSpec::Tier(t)) => t.clone(),
        _ => "mid".to_string(),
    };
    let l = ctx.lang;
    let why = match step.name.as_str() {
        "transcriber" | "transcribe" => crate::tr!(l, "modelonly.why.transcript"),
        "contact-sync" => crate::tr!(l, "modelonly.why.contacts"),
        "create-agent" => crate::tr!(l, "modelonly.why.create_agent"),
        _ => crate::tr!(l, "modelonly.why.other"),
    };
    crate::tr!(
        l,
        "modelonly.needs_model",
        agent = step.name,
        why = why,
        tier = tier
    )
}

pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    Ok(NativeOutput {
        text: needs_model_message(ctx),
        postit: format!("{}: needs a model (not configured)", ctx.step.name),
        attention: true,
    })
}
