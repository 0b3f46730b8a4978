//! OpenAI Chat Completions (also any OpenAI-compatible server named `openai/…`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Tool, WireError, parse_arguments};
use crate::model::{ChatRequest, ChatResponse, Message, ToolCall};

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    messages: Vec<OutMessage<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u64>,
    /// Reasoning models (o1, o3, …) take this instead of `max_tokens`.
    #[serde(skip_serializing_if = "Option::is_none")]
    max_completion_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
}

#[derive(Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum OutMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: &'a str,
    },
    Assistant {
        content: &'a str,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<OutCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: &'a str,
    },
}

#[derive(Serialize)]
struct OutCall<'a> {
    id: &'a str,
    r#type: &'static str,
    function: OutFunction<'a>,
}

#[derive(Serialize)]
struct OutFunction<'a> {
    name: &'a str,
    /// OpenAI sends and expects the arguments as a JSON string.
    arguments: String,
}

pub(super) fn encode(req: &ChatRequest) -> serde_json::Result<Value> {
    let mut messages = vec![OutMessage::System {
        content: &req.system,
    }];
    for m in &req.messages {
        messages.push(match m {
            Message::User(t) => OutMessage::User { content: t },
            Message::Assistant { text, tool_calls } => OutMessage::Assistant {
                content: text,
                tool_calls: tool_calls
                    .iter()
                    .map(|c| OutCall {
                        id: &c.id,
                        r#type: "function",
                        function: OutFunction {
                            name: &c.name,
                            // a malformed call goes back as the model wrote it
                            arguments: match &c.arguments {
                                Ok(v) => v.to_string(),
                                Err(raw) => raw.clone(),
                            },
                        },
                    })
                    .collect(),
            },
            Message::ToolResult { id, content, .. } => OutMessage::Tool {
                tool_call_id: id,
                content,
            },
        });
    }
    let reasoning = crate::crew::definition::is_o_series(&req.model);
    let max = req.settings.max_output_tokens;
    serde_json::to_value(Request {
        model: &req.model,
        messages,
        tools: req.tools.iter().map(Tool::function).collect(),
        max_tokens: max.filter(|_| !reasoning),
        max_completion_tokens: max.filter(|_| reasoning),
        temperature: req.settings.temperature.filter(|_| !reasoning),
    })
}

#[derive(Deserialize)]
pub(super) struct Reply {
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Usage,
}

#[derive(Deserialize)]
struct Choice {
    message: ReplyMessage,
}

#[derive(Deserialize)]
struct ReplyMessage {
    /// `null` when the model only calls tools.
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ReplyCall>,
}

#[derive(Deserialize)]
struct ReplyCall {
    id: Option<String>,
    function: ReplyFunction,
}

#[derive(Deserialize)]
struct ReplyFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

#[derive(Deserialize, Default)]
struct Usage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

impl Reply {
    pub(super) fn into_response(self) -> Result<ChatResponse, WireError> {
        let choice = self
            .choices
            .into_iter()
            .next()
            .ok_or(WireError::Empty("choices"))?;
        Ok(ChatResponse {
            text: choice.message.content.unwrap_or_default(),
            tool_calls: choice
                .message
                .tool_calls
                .into_iter()
                .enumerate()
                .map(|(i, c)| ToolCall {
                    id: c.id.unwrap_or_else(|| format!("call_{i}")),
                    name: c.function.name,
                    arguments: parse_arguments(&c.function.arguments),
                })
                .collect(),
            tokens_in: self.usage.prompt_tokens,
            tokens_out: self.usage.completion_tokens,
        })
    }
}
