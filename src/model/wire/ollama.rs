//! Ollama's `/api/chat` (not streamed).

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
    stream: bool,
    #[serde(skip_serializing_if = "Options::is_empty")]
    options: Options,
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
        content: &'a str,
        tool_name: &'a str,
    },
}

#[derive(Serialize)]
struct OutCall<'a> {
    function: OutFunction<'a>,
}

#[derive(Serialize)]
struct OutFunction<'a> {
    name: &'a str,
    /// Ollama takes the arguments as a JSON object.
    arguments: Value,
}

#[derive(Serialize)]
struct Options {
    #[serde(skip_serializing_if = "Option::is_none")]
    num_predict: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
}

impl Options {
    fn is_empty(&self) -> bool {
        self.num_predict.is_none() && self.temperature.is_none()
    }
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
                        function: OutFunction {
                            name: &c.name,
                            arguments: c.arguments.clone().unwrap_or_else(Value::String),
                        },
                    })
                    .collect(),
            },
            Message::ToolResult { name, content, .. } => OutMessage::Tool {
                content,
                tool_name: name,
            },
        });
    }
    serde_json::to_value(Request {
        model: &req.model,
        messages,
        tools: req.tools.iter().map(Tool::function).collect(),
        stream: false,
        options: Options {
            num_predict: req.settings.max_output_tokens,
            temperature: req.settings.temperature,
        },
    })
}

#[derive(Deserialize)]
pub(super) struct Reply {
    message: ReplyMessage,
    #[serde(default)]
    prompt_eval_count: u64,
    #[serde(default)]
    eval_count: u64,
}

#[derive(Deserialize)]
struct ReplyMessage {
    #[serde(default)]
    content: String,
    #[serde(default)]
    tool_calls: Vec<ReplyCall>,
}

#[derive(Deserialize)]
struct ReplyCall {
    function: ReplyFunction,
}

#[derive(Deserialize)]
struct ReplyFunction {
    name: String,
    #[serde(default)]
    arguments: Value,
}

impl Reply {
    pub(super) fn into_response(self) -> Result<ChatResponse, WireError> {
        Ok(ChatResponse {
            text: self.message.content,
            tool_calls: self
                .message
                .tool_calls
                .into_iter()
                .enumerate()
                .map(|(i, c)| ToolCall {
                    id: format!("call_{i}"),
                    name: c.function.name,
                    arguments: parse_arguments(&c.function.arguments),
                })
                .collect(),
            tokens_in: self.prompt_eval_count,
            tokens_out: self.eval_count,
        })
    }
}
