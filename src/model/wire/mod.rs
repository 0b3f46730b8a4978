//! The four wire formats, one module each: typed requests (serialised with serde) and typed
//! replies (deserialised with serde), so a reply that lacks what crew needs is an error naming
//! the missing field, never an empty string.

mod anthropic;
mod gemini;
mod ollama;
mod openai;

use serde_json::{Value, json};

use super::{ChatRequest, ChatResponse, ToolCall, ToolSpec};
use crate::model::provider::Provider;

/// A tool as OpenAI, Ollama and Gemini declare it.
#[derive(serde::Serialize)]
struct FunctionSpec<'a> {
    name: &'a str,
    description: &'a str,
    parameters: &'a Value,
}

impl<'a> FunctionSpec<'a> {
    fn of(t: &'a ToolSpec) -> FunctionSpec<'a> {
        FunctionSpec {
            name: &t.name,
            description: &t.description,
            parameters: &t.parameters,
        }
    }
}

/// A tool in the OpenAI-style `tools` list (OpenAI and Ollama).
#[derive(serde::Serialize)]
struct Tool<'a> {
    r#type: &'static str,
    function: FunctionSpec<'a>,
}

impl<'a> Tool<'a> {
    fn function(t: &'a ToolSpec) -> Tool<'a> {
        Tool {
            r#type: "function",
            function: FunctionSpec::of(t),
        }
    }
}

/// Encodes a request in the provider's wire format: (URL path after the base, body).
pub fn encode(provider: Provider, req: &ChatRequest) -> (String, Value) {
    let (path, body) = match provider {
        Provider::OpenAi => ("/chat/completions".to_string(), openai::encode(req)),
        Provider::Ollama => ("/api/chat".to_string(), ollama::encode(req)),
        Provider::Anthropic => ("/v1/messages".to_string(), anthropic::encode(req)),
        Provider::Gemini => (
            format!("/v1beta/models/{}:generateContent", req.model),
            gemini::encode(req),
        ),
    };
    // serialising plain structs of strings and numbers cannot fail
    (path, body.unwrap_or(Value::Null))
}

/// Why a provider's reply body could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Not the JSON the provider's format has: the parser's words and the body's start.
    #[error("{reason}: {excerpt}")]
    NotTheFormat { reason: String, excerpt: String },
    /// The reply holds no answer: no choices, no candidates.
    #[error("the reply has no {0}")]
    Empty(&'static str),
    /// An answer with no content, and the provider's reason for it.
    #[error("the answer has no content (finishReason {0})")]
    NoContent(String),
}

/// Decodes a provider's reply body.
pub(crate) fn decode(provider: Provider, body: &str) -> Result<ChatResponse, WireError> {
    match provider {
        Provider::OpenAi => parse::<openai::Reply>(body)?.into_response(),
        Provider::Ollama => parse::<ollama::Reply>(body)?.into_response(),
        Provider::Anthropic => parse::<anthropic::Reply>(body)?.into_response(),
        Provider::Gemini => parse::<gemini::Reply>(body)?.into_response(),
    }
}

fn parse<T: serde::de::DeserializeOwned>(body: &str) -> Result<T, WireError> {
    serde_json::from_str(body).map_err(|e| WireError::NotTheFormat {
        reason: e.to_string(),
        excerpt: excerpt(body),
    })
}

/// The first 300 characters of a body, on one line, for error messages.
pub(crate) fn excerpt(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(300).collect()
}

/// A tool call's arguments as the model sent them: a JSON object (or a string holding one);
/// anything else is kept as raw text so the tool loop can tell the model it was malformed.
fn parse_arguments(v: &Value) -> Result<Value, String> {
    match v {
        Value::Object(_) => Ok(v.clone()),
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(obj @ Value::Object(_)) => Ok(obj),
            Ok(Value::Null) if s.trim() == "null" => Ok(json!({})),
            _ if s.trim().is_empty() => Ok(json!({})),
            _ => Err(s.clone()),
        },
        Value::Null => Ok(json!({})),
        other => Err(other.to_string()),
    }
}

/// The arguments of an earlier call, to send back in the conversation (malformed ones as `{}`).
fn arguments_or_empty(call: &ToolCall) -> Value {
    call.arguments.clone().unwrap_or_else(|_| json!({}))
}

/// Appends a turn, merging it into the previous one when both have the same role (Anthropic and
/// Gemini require roles to alternate).
fn push_turn<P>(turns: &mut Vec<(&'static str, Vec<P>)>, role: &'static str, parts: Vec<P>) {
    match turns.last_mut() {
        Some((last, existing)) if *last == role => existing.extend(parts),
        _ => turns.push((role, parts)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Message, Settings, ToolSpec};

    fn request() -> ChatRequest {
        ChatRequest {
            model: "m".into(),
            system: "sys".into(),
            messages: vec![
                Message::User("hi".into()),
                Message::Assistant {
                    text: String::new(),
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "read_note".into(),
                        arguments: Ok(json!({"path": "a.md"})),
                    }],
                },
                Message::ToolResult {
                    id: "c1".into(),
                    name: "read_note".into(),
                    content: "text".into(),
                },
            ],
            tools: vec![ToolSpec {
                name: "read_note".into(),
                description: "d".into(),
                parameters: json!({"type": "object"}),
            }],
            settings: Settings {
                max_output_tokens: Some(100),
                temperature: Some(0.2),
                thinking_budget: None,
            },
        }
    }

    #[test]
    fn wire_formats() {
        let (p, b) = encode(Provider::OpenAi, &request());
        assert_eq!(p, "/chat/completions");
        assert_eq!(b["messages"][0]["role"], "system");
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"a.md\"}"
        );
        assert_eq!(b["messages"][2]["tool_calls"][0]["type"], "function");
        assert_eq!(b["messages"][3]["tool_call_id"], "c1");
        assert_eq!(b["max_tokens"], 100);
        assert_eq!(b["temperature"], 0.2);
        assert_eq!(b["tools"][0]["function"]["name"], "read_note");
        let (p, b) = encode(Provider::Anthropic, &request());
        assert_eq!(p, "/v1/messages");
        assert_eq!(b["system"], "sys");
        assert_eq!(b["max_tokens"], 100);
        assert_eq!(b["messages"][1]["content"][0]["type"], "tool_use");
        assert_eq!(b["messages"][1]["content"][0]["input"]["path"], "a.md");
        assert_eq!(b["messages"][2]["content"][0]["tool_use_id"], "c1");
        assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
        let (p, b) = encode(Provider::Gemini, &request());
        assert_eq!(p, "/v1beta/models/m:generateContent");
        assert_eq!(b["systemInstruction"]["parts"][0]["text"], "sys");
        assert_eq!(
            b["contents"][1]["parts"][0]["functionCall"]["args"]["path"],
            "a.md"
        );
        assert_eq!(
            b["contents"][2]["parts"][0]["functionResponse"]["name"],
            "read_note"
        );
        assert_eq!(b["generationConfig"]["maxOutputTokens"], 100);
        assert_eq!(
            b["tools"][0]["functionDeclarations"][0]["name"],
            "read_note"
        );
        let (p, b) = encode(Provider::Ollama, &request());
        assert_eq!(p, "/api/chat");
        assert_eq!(b["stream"], false);
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"]["path"],
            "a.md"
        );
        assert_eq!(b["messages"][3]["tool_name"], "read_note");
        assert_eq!(b["options"]["num_predict"], 100);
    }

    #[test]
    fn reasoning_models_get_max_completion_tokens_and_no_temperature() {
        let mut r = request();
        r.model = "o3-mini".into();
        let (_, b) = encode(Provider::OpenAi, &r);
        assert_eq!(b["max_completion_tokens"], 100);
        assert!(b.get("max_tokens").is_none());
        assert!(b.get("temperature").is_none());
    }

    #[test]
    fn thinking_replaces_temperature_for_anthropic() {
        let mut r = request();
        r.settings.thinking_budget = Some(2048);
        let (_, b) = encode(Provider::Anthropic, &r);
        assert_eq!(b["thinking"]["budget_tokens"], 2048);
        assert!(b.get("temperature").is_none());
        let (_, b) = encode(Provider::Gemini, &r);
        assert_eq!(
            b["generationConfig"]["thinkingConfig"]["thinkingBudget"],
            2048
        );
    }

    #[test]
    fn consecutive_turns_of_one_role_are_merged_for_anthropic_and_gemini() {
        let mut r = request();
        r.messages.push(Message::User("and one more thing".into()));
        let (_, b) = encode(Provider::Anthropic, &r);
        let last = b["messages"]
            .as_array()
            .and_then(|m| m.last())
            .cloned()
            .unwrap_or_default();
        assert_eq!(b["messages"].as_array().map(Vec::len), Some(3));
        assert_eq!(last["content"][0]["type"], "tool_result");
        assert_eq!(last["content"][1]["text"], "and one more thing");
        let (_, b) = encode(Provider::Gemini, &r);
        assert_eq!(b["contents"].as_array().map(Vec::len), Some(3));
        assert_eq!(b["contents"][2]["parts"][1]["text"], "and one more thing");
    }

    #[test]
    fn decodes_tool_calls_and_malformed_arguments() {
        let body = json!({"choices": [{"message": {"content": null, "tool_calls": [{"id": "x", "type": "function", "function": {"name": "read_note", "arguments": "{not json"}}]}}], "usage": {"prompt_tokens": 3, "completion_tokens": 4}});
        let r = decode(Provider::OpenAi, &body.to_string()).expect("decoded");
        assert_eq!(r.tool_calls[0].arguments, Err("{not json".into()));
        assert_eq!((r.tokens_in, r.tokens_out), (3, 4));
        let body = json!({"content": [{"type": "thinking", "thinking": "secret"}, {"type": "text", "text": "hello"}], "usage": {"input_tokens": 1, "output_tokens": 2}});
        assert_eq!(
            decode(Provider::Anthropic, &body.to_string())
                .expect("decoded")
                .text,
            "hello"
        );
        let body = json!({"candidates": [{"content": {"parts": [{"text": "thinking", "thought": true}, {"text": "yes"}]}}]});
        assert_eq!(
            decode(Provider::Gemini, &body.to_string())
                .expect("decoded")
                .text,
            "yes"
        );
        let body = json!({"message": {"role": "assistant", "content": "hi", "tool_calls": [{"function": {"name": "search", "arguments": {"query": "x"}}}]}, "prompt_eval_count": 5, "eval_count": 6});
        let r = decode(Provider::Ollama, &body.to_string()).expect("decoded");
        assert_eq!(r.text, "hi");
        assert_eq!(r.tool_calls[0].name, "search");
        assert_eq!((r.tokens_in, r.tokens_out), (5, 6));
    }

    /// An API that changes shape is an error naming what is missing, not an empty answer.
    #[test]
    fn replies_missing_what_crew_needs_are_errors() {
        for (provider, body) in [
            (Provider::OpenAi, json!({})),
            (Provider::OpenAi, json!({"choices": []})),
            (
                Provider::OpenAi,
                json!({"choices": [{"message": {"tool_calls": [{"id": "x", "function": {"arguments": "{}"}}]}}]}),
            ),
            (Provider::Anthropic, json!({"content": "text"})),
            (Provider::Anthropic, json!({"content": [{"type": "text"}]})),
            (Provider::Gemini, json!({"candidates": []})),
            (
                Provider::Gemini,
                json!({"candidates": [{"finishReason": "SAFETY"}]}),
            ),
            (Provider::Ollama, json!({"done": true})),
        ] {
            let got = decode(provider, &body.to_string());
            assert!(got.is_err(), "{provider:?} {body} decoded as {got:?}");
        }
        let err = decode(Provider::OpenAi, "<html>bad gateway</html>").expect_err("not JSON");
        assert!(err.to_string().contains("bad gateway"), "{err}");
    }
}
