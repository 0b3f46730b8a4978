//! Gemini `generateContent`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{FunctionSpec, WireError, arguments_or_empty, parse_arguments, push_turn};
use crate::model::{ChatRequest, ChatResponse, Message, ToolCall};

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Request<'a> {
    system_instruction: Content<'a>,
    contents: Vec<Content<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tools<'a>>,
    #[serde(skip_serializing_if = "GenerationConfig::is_empty")]
    generation_config: GenerationConfig,
}

#[derive(Serialize)]
struct Content<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<&'static str>,
    parts: Vec<Part<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
enum Part<'a> {
    #[serde(rename = "text")]
    Text(&'a str),
    FunctionCall {
        name: &'a str,
        args: Value,
    },
    FunctionResponse {
        name: &'a str,
        response: Response<'a>,
    },
}

#[derive(Serialize)]
struct Response<'a> {
    content: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Tools<'a> {
    function_declarations: Vec<FunctionSpec<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GenerationConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    max_output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking_config: Option<ThinkingConfig>,
}

impl GenerationConfig {
    fn is_empty(&self) -> bool {
        self.max_output_tokens.is_none()
            && self.temperature.is_none()
            && self.thinking_config.is_none()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ThinkingConfig {
    thinking_budget: u64,
}

pub(super) fn encode(req: &ChatRequest) -> serde_json::Result<Value> {
    let mut turns: Vec<(&'static str, Vec<Part>)> = Vec::new();
    for m in &req.messages {
        let (role, parts) = match m {
            Message::User(t) => ("user", vec![Part::Text(t)]),
            Message::Assistant { text, tool_calls } => {
                let mut parts = Vec::new();
                if !text.is_empty() {
                    parts.push(Part::Text(text));
                }
                parts.extend(tool_calls.iter().map(|c| Part::FunctionCall {
                    name: &c.name,
                    args: arguments_or_empty(c),
                }));
                ("model", parts)
            }
            Message::ToolResult { name, content, .. } => (
                "user",
                vec![Part::FunctionResponse {
                    name,
                    response: Response { content },
                }],
            ),
        };
        push_turn(&mut turns, role, parts);
    }
    let declarations: Vec<FunctionSpec> = req.tools.iter().map(FunctionSpec::of).collect();
    serde_json::to_value(Request {
        system_instruction: Content {
            role: None,
            parts: vec![Part::Text(&req.system)],
        },
        contents: turns
            .into_iter()
            .map(|(role, parts)| Content {
                role: Some(role),
                parts,
            })
            .collect(),
        tools: if declarations.is_empty() {
            Vec::new()
        } else {
            vec![Tools {
                function_declarations: declarations,
            }]
        },
        generation_config: GenerationConfig {
            max_output_tokens: req.settings.max_output_tokens,
            temperature: req.settings.temperature,
            thinking_config: req
                .settings
                .thinking_budget
                .map(|b| ThinkingConfig { thinking_budget: b }),
        },
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Reply {
    candidates: Vec<Candidate>,
    #[serde(default)]
    usage_metadata: Usage,
}

#[derive(Deserialize)]
struct Candidate {
    /// Missing when the answer was blocked (`finishReason: SAFETY` and the like).
    content: Option<ReplyContent>,
    #[serde(default, rename = "finishReason")]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ReplyContent {
    #[serde(default)]
    parts: Vec<ReplyPart>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ReplyPart {
    text: Option<String>,
    /// A thought summary: reasoning, never shown or passed on.
    #[serde(default)]
    thought: bool,
    function_call: Option<ReplyCall>,
}

#[derive(Deserialize)]
struct ReplyCall {
    name: String,
    #[serde(default)]
    args: Value,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Usage {
    #[serde(default)]
    prompt_token_count: u64,
    #[serde(default)]
    candidates_token_count: u64,
}

impl Reply {
    pub(super) fn into_response(self) -> Result<ChatResponse, WireError> {
        let candidate = self
            .candidates
            .into_iter()
            .next()
            .ok_or(WireError::Empty("candidates"))?;
        let content = candidate.content.ok_or_else(|| {
            WireError::NoContent(
                candidate
                    .finish_reason
                    .as_deref()
                    .unwrap_or("not given")
                    .to_string(),
            )
        })?;
        let mut texts = Vec::new();
        let mut tool_calls = Vec::new();
        for (i, part) in content.parts.into_iter().enumerate() {
            if part.thought {
                continue;
            }
            if let Some(t) = part.text {
                texts.push(t);
            }
            if let Some(call) = part.function_call {
                tool_calls.push(ToolCall {
                    id: format!("call_{i}"),
                    name: call.name,
                    arguments: parse_arguments(&call.args),
                });
            }
        }
        Ok(ChatResponse {
            text: texts.join(""),
            tool_calls,
            tokens_in: self.usage_metadata.prompt_token_count,
            tokens_out: self.usage_metadata.candidates_token_count,
        })
    }
}
