//! The model runtime: providers chosen by the model id's prefix, the vault tools a model may
//! use, the tool loop, and the routing classifier.
//!
//! The four wire formats (OpenAI Chat Completions, Anthropic Messages, Gemini generateContent,
//! Ollama `/api/chat`) are typed serde structs, one module each (`wire`), over one small
//! synchronous transport with retries (`transport`): crew is a synchronous command-line
//! program, the formats are small, and owning them keeps every request and reply testable
//! against local servers without an async runtime. [`provider`] maps a model id to its
//! provider, endpoint and key.

pub(crate) mod fence;
pub mod provider;
pub mod runner;
pub mod tools;
mod transport;
mod wire;
pub mod writer;

use serde::Serialize;
use serde_json::Value;

pub use provider::Provider;
pub use transport::HttpBackend;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    /// JSON Schema of the arguments.
    pub parameters: Value,
}

/// A tool call requested by the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// The arguments, or `Err(raw text)` when the model sent something that is not a JSON object.
    pub arguments: Result<Value, String>,
}

/// One turn of the conversation sent to a model.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    User(String),
    Assistant {
        text: String,
        tool_calls: Vec<ToolCall>,
    },
    ToolResult {
        id: String,
        name: String,
        content: String,
    },
}

/// Generation settings for one call.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Settings {
    pub max_output_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub thinking_budget: Option<u64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ChatRequest {
    /// The model id as the provider knows it (prefixes like `ollama/` already removed).
    pub model: String,
    pub system: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub settings: Settings,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChatResponse {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

/// Why a model call failed. Messages name the provider and what to fix, never a key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    #[error("{provider} refused the API key (HTTP {status}); check {key_var}")]
    Auth {
        provider: String,
        status: u16,
        key_var: String,
    },
    #[error(
        "{provider} does not know the model `{model}` (HTTP 404); check the model id in .crew/config.yaml or --model"
    )]
    UnknownModel { provider: String, model: String },
    #[error(
        "{provider} is unreachable at {url}: {detail}; is the server running, and is the base URL right?"
    )]
    Unreachable {
        provider: String,
        url: String,
        detail: String,
    },
    #[error("{provider} did not answer within {secs} s")]
    Timeout { provider: String, secs: u64 },
    #[error("{provider} failed with HTTP {status} after {attempts} attempt(s): {detail}")]
    Status {
        provider: String,
        status: u16,
        attempts: u32,
        detail: String,
    },
    #[error("{provider} sent a reply crew cannot read: {detail}")]
    BadReply { provider: String, detail: String },
    #[error("no API key for {provider}: set {key_var}")]
    MissingKey { provider: String, key_var: String },
    #[error(
        "model id `{0}` has no known prefix: use claude-…, gpt-…, o1…, gemini-…, ollama/… or openai/…"
    )]
    UnknownPrefix(String),
}

/// Something that answers chat requests (an HTTP provider, or a scripted fake in tests).
pub trait ChatBackend {
    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError>;
    /// A label for logs: `provider/model`.
    fn label(&self) -> String;
}
