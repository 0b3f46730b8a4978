//! Anthropic Messages.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{WireError, arguments_or_empty, parse_arguments, push_turn};
use crate::model::{ChatRequest, ChatResponse, Message, ToolCall};

/// Anthropic requires `max_tokens`; this is used when the agent names no limit.
const DEFAULT_MAX_TOKENS: u64 = 4096;

#[derive(Serialize)]
struct Request<'a> {
    model: &'a str,
    system: &'a str,
    max_tokens: u64,
    messages: Vec<Turn<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<Tool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<Thinking>,
    /// Not allowed together with extended thinking.
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f64>,
}

#[derive(Serialize)]
struct Turn<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: &'a str,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: &'a str,
    },
}

#[derive(Serialize)]
struct Tool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: &'a Value,
}

#[derive(Serialize)]
struct Thinking {
    r#type: &'static str,
    budget_tokens: u64,
}

pub(super) fn encode(req: &ChatRequest) -> serde_json::Result<Value> {
    let mut turns: Vec<(&'static str, Vec<Block>)> = Vec::new();
    for m in &req.messages {
        let (role, blocks) = match m {
            Message::User(t) => ("user", vec![Block::Text { text: t }]),
            Message::Assistant { text, tool_calls } => {
                let mut blocks = Vec::new();
                if !text.is_empty() {
                    blocks.push(Block::Text { text });
                }
                blocks.extend(tool_calls.iter().map(|c| Block::ToolUse {
                    id: &c.id,
                    name: &c.name,
                    input: arguments_or_empty(c),
                }));
                ("assistant", blocks)
            }
            Message::ToolResult { id, content, .. } => (
                "user",
                vec![Block::ToolResult {
                    tool_use_id: id,
                    content,
                }],
            ),
        };
        push_turn(&mut turns, role, blocks);
    }
    let thinking = req.settings.thinking_budget.map(|b| Thinking {
        r#type: "enabled",
        budget_tokens: b,
    });
    serde_json::to_value(Request {
        model: &req.model,
        system: &req.system,
        max_tokens: req.settings.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS),
        messages: turns
            .into_iter()
            .map(|(role, content)| Turn { role, content })
            .collect(),
        tools: req
            .tools
            .iter()
            .map(|t| Tool {
                name: &t.name,
                description: &t.description,
                input_schema: &t.parameters,
            })
            .collect(),
        temperature: req.settings.temperature.filter(|_| thinking.is_none()),
        thinking,
    })
}

#[derive(Deserialize)]
pub(super) struct Reply {
    content: Vec<ReplyBlock>,
    #[serde(default)]
    usage: Usage,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ReplyBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Value,
    },
    /// Thinking blocks and whatever else a newer API adds: reasoning, never shown or passed on.
    #[serde(other)]
    Other,
}

#[derive(Deserialize, Default)]
struct Usage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    output_tokens: u64,
}

impl Reply {
    pub(super) fn into_response(self) -> Result<ChatResponse, WireError> {
        let mut texts = Vec::new();
        let mut tool_calls = Vec::new();
        for block in self.content {
            match block {
                ReplyBlock::Text { text } => texts.push(text),
                ReplyBlock::ToolUse { id, name, input } => tool_calls.push(ToolCall {
                    id,
                    name,
                    arguments: parse_arguments(&input),
                }),
                ReplyBlock::Other => {}
            }
        }
        Ok(ChatResponse {
            text: texts.join("\n"),
            tool_calls,
            tokens_in: self.usage.input_tokens,
            tokens_out: self.usage.output_tokens,
        })
    }
}
