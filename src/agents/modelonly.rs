//! Agents and skills whose work is language (transcripts, contacts, the create-agent
//! interview): without a model they explain exactly what to configure.

use super::{Ctx, NativeOutput};
use crate::crew::ModelSpec;
use crate::gate::GateError;

/// What a model-only route needs, in one paragraph.
pub fn needs_model_message(ctx: &Ctx) -> String {
    let step = ctx.step;
    let def = ctx.crew.definition(step.kind, &step.name);
    let tier = match def.map(|d| &d.model) {
        Some(ModelSpec::Tier(t)) => t.clone(),
        _ => "mid".to_string(),
    };
    let why = match step.name.as_str() {
        "transcriber" | "transcribe" => {
            "turning a transcript into decisions and action items is language work"
        }
        "contact-sync" => "syncing contacts needs a model and a contacts connection",
        "create-agent" => {
            "designing an agent is an interview; `crew agents new NAME` does the mechanical part without a model"
        }
        _ => "this work needs a language model",
    };
    format!(
        "**{}** runs only with a language model: {why}.\n\nTo enable it, map its tier in `.crew/config.yaml`:\n\n```yaml\nmodels:\n  {tier}: claude-sonnet-4-5   # or gpt-4.1-mini, gemini-2.5-flash, ollama/llama3.2\n```\n\nand set the provider's key (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`, `GEMINI_API_KEY`) or `OLLAMA_HOST`. Or run it once with `crew ask --model ID …`. `crew doctor` shows what is configured.\n",
        step.name
    )
}

pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    Ok(NativeOutput {
        text: needs_model_message(ctx),
        postit: format!("{}: needs a model (not configured)", ctx.step.name),
        attention: true,
    })
}
