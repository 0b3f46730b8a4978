//! Providers over HTTP: which provider a model id names, where it lives, and its wire format.

use std::time::Duration;

use serde_json::{Value, json};

use super::{ChatBackend, ChatRequest, ChatResponse, Message, ModelError, ToolCall};
use crate::crew::CrewConfig;
use crate::crew::config::ProviderConfig;

/// The provider families crew speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    OpenAi,
    Anthropic,
    Gemini,
    Ollama,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Provider::OpenAi => "openai",
            Provider::Anthropic => "anthropic",
            Provider::Gemini => "gemini",
            Provider::Ollama => "ollama",
        }
    }

    /// The provider for a model id, and the model name to send: `claude-…` → Anthropic,
    /// `gpt-…`/`o<digit>…`/`chatgpt-…` → OpenAI, `openai/<model>` → any OpenAI-compatible
    /// server, `gemini-…` → Gemini, `ollama/<model>` → Ollama.
    pub fn of(model_id: &str) -> Result<(Provider, String), ModelError> {
        let (family, model) = crate::crew::definition::provider_family(model_id)
            .ok_or_else(|| ModelError::UnknownPrefix(model_id.trim().to_string()))?;
        let provider = match family {
            "anthropic" => Provider::Anthropic,
            "gemini" => Provider::Gemini,
            "ollama" => Provider::Ollama,
            _ => Provider::OpenAi,
        };
        Ok((provider, model.to_string()))
    }

    /// Environment variables holding the key, in the order they are read.
    pub fn key_vars(self) -> &'static [&'static str] {
        match self {
            Provider::OpenAi => &["OPENAI_API_KEY"],
            Provider::Anthropic => &["ANTHROPIC_API_KEY"],
            Provider::Gemini => &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            Provider::Ollama => &[],
        }
    }

    fn base_var(self) -> &'static str {
        match self {
            Provider::OpenAi => "OPENAI_BASE_URL",
            Provider::Anthropic => "ANTHROPIC_BASE_URL",
            Provider::Gemini => "GEMINI_BASE_URL",
            Provider::Ollama => "OLLAMA_HOST",
        }
    }

    fn default_base(self) -> &'static str {
        match self {
            Provider::OpenAi => "https://api.openai.com/v1",
            Provider::Anthropic => "https://api.anthropic.com",
            Provider::Gemini => "https://generativelanguage.googleapis.com",
            Provider::Ollama => "http://localhost:11434",
        }
    }
}

/// Where and how to reach one provider.
#[derive(Debug, Clone)]
pub struct Endpoint {
    pub provider: Provider,
    pub base_url: String,
    /// The key, when the provider needs one (never logged or printed).
    key: Option<String>,
    pub key_var: String,
    /// Gemini behind a Vertex-style gateway wants `Authorization: Bearer` instead of
    /// `x-goog-api-key`.
    pub bearer: bool,
}

impl Endpoint {
    /// Resolves a provider's endpoint: environment first (the names users know), then the crew
    /// config's `providers:` section, then the public default.
    pub fn resolve(
        provider: Provider,
        config: &CrewConfig,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Endpoint {
        let pc: ProviderConfig = config
            .providers
            .get(provider.name())
            .cloned()
            .unwrap_or_default();
        let mut base = env(provider.base_var())
            .filter(|v| !v.trim().is_empty())
            .or(pc.base_url.clone())
            .unwrap_or_else(|| provider.default_base().to_string());
        if provider == Provider::Ollama && !base.contains("://") {
            base = format!("http://{base}");
        }
        let base = base.trim_end_matches('/').to_string();
        let vars: Vec<String> = match &pc.api_key_env {
            Some(v) => vec![v.clone()],
            None => provider.key_vars().iter().map(|s| s.to_string()).collect(),
        };
        let key = vars
            .iter()
            .find_map(|v| env(v).filter(|k| !k.trim().is_empty()));
        Endpoint {
            provider,
            base_url: base,
            key,
            key_var: vars.join(" or "),
            bearer: pc.auth.as_deref() == Some("bearer"),
        }
    }

    pub fn has_key(&self) -> bool {
        self.key.is_some()
    }
}

/// A model served by a local server (Ollama, or an OpenAI-compatible one named `openai/…`):
/// it needs no key, and `doctor` may probe it.
fn is_local_server(model_id: &str) -> bool {
    crate::crew::definition::provider_family(model_id).is_some_and(|(family, model)| {
        family == "ollama" || (family == "openai" && model.len() < model_id.trim().len())
    })
}

/// What `crew doctor` reports for one model id.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Check {
    pub model: String,
    pub provider: String,
    pub base_url: String,
    /// Whether the key is set (`None`: the provider needs none).
    pub key_set: Option<bool>,
    pub key_var: String,
    /// Whether a local server answered a TCP connection (`None`: a cloud provider, not probed).
    pub reachable: Option<bool>,
}

impl Check {
    pub fn ok(&self) -> bool {
        self.key_set != Some(false) && self.reachable != Some(false)
    }
}

/// Checks a model id's provider, key and — for local servers (Ollama, `openai/…`) — whether the
/// server accepts a connection within a second. Cloud providers are not contacted.
pub fn check(model_id: &str, config: &CrewConfig) -> Result<Check, ModelError> {
    let (provider, _) = Provider::of(model_id)?;
    let env = |k: &str| std::env::var(k).ok();
    let endpoint = Endpoint::resolve(provider, config, &env);
    let local = is_local_server(model_id);
    let reachable = local.then(|| {
        let hostport = endpoint
            .base_url
            .split("://")
            .nth(1)
            .unwrap_or(&endpoint.base_url)
            .split('/')
            .next()
            .unwrap_or("")
            .to_string();
        let with_port = if hostport.contains(':') {
            hostport
        } else if endpoint.base_url.starts_with("https") {
            format!("{hostport}:443")
        } else {
            format!("{hostport}:80")
        };
        use std::net::ToSocketAddrs;
        with_port
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .is_some_and(|addr| {
                std::net::TcpStream::connect_timeout(&addr, Duration::from_secs(1)).is_ok()
            })
    });
    Ok(Check {
        model: model_id.to_string(),
        provider: provider.name().to_string(),
        base_url: endpoint.base_url.clone(),
        key_set: (!local).then(|| endpoint.has_key()),
        key_var: endpoint.key_var.clone(),
        reachable,
    })
}

/// Appends a turn, merging it into the previous one when both have the same role (Anthropic and
/// Gemini require roles to alternate). `key` names the array holding the turn's parts.
fn push_turn(turns: &mut Vec<Value>, role: &str, key: &str, parts: Vec<Value>) {
    match turns.last_mut() {
        Some(last) if last["role"] == role => {
            if let Some(a) = last[key].as_array_mut() {
                a.extend(parts);
            }
        }
        _ => {
            let mut turn = serde_json::Map::new();
            turn.insert("role".into(), Value::String(role.to_string()));
            turn.insert(key.into(), Value::Array(parts));
            turns.push(Value::Object(turn));
        }
    }
}

/// Encodes a request in the provider's wire format: (URL path after the base, body).
pub fn encode(provider: Provider, req: &ChatRequest) -> (String, Value) {
    match provider {
        Provider::OpenAi | Provider::Ollama => {
            let ollama = provider == Provider::Ollama;
            let mut messages = vec![json!({"role": "system", "content": req.system})];
            for m in &req.messages {
                match m {
                    Message::User(t) => messages.push(json!({"role": "user", "content": t})),
                    Message::Assistant { text, tool_calls } => {
                        let calls: Vec<Value> = tool_calls
                            .iter()
                            .map(|c| {
                                let args = c.arguments.clone().unwrap_or_else(Value::String);
                                if ollama {
                                    json!({"function": {"name": c.name, "arguments": args}})
                                } else {
                                    json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": args.to_string()}})
                                }
                            })
                            .collect();
                        let mut msg = json!({"role": "assistant", "content": text});
                        if !calls.is_empty() {
                            msg["tool_calls"] = Value::Array(calls);
                        }
                        messages.push(msg);
                    }
                    Message::ToolResult { id, name, content } => {
                        if ollama {
                            messages.push(
                                json!({"role": "tool", "content": content, "tool_name": name}),
                            );
                        } else {
                            messages.push(
                                json!({"role": "tool", "tool_call_id": id, "content": content}),
                            );
                        }
                    }
                }
            }
            let tools: Vec<Value> = req
                .tools
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}))
                .collect();
            let mut body = json!({"model": req.model, "messages": messages});
            if !tools.is_empty() {
                body["tools"] = Value::Array(tools);
            }
            if ollama {
                body["stream"] = Value::Bool(false);
                let mut options = serde_json::Map::new();
                if let Some(n) = req.settings.max_output_tokens {
                    options.insert("num_predict".into(), json!(n));
                }
                if let Some(t) = req.settings.temperature {
                    options.insert("temperature".into(), json!(t));
                }
                if !options.is_empty() {
                    body["options"] = Value::Object(options);
                }
                ("/api/chat".into(), body)
            } else {
                let reasoning = crate::crew::definition::is_o_series(&req.model);
                if let Some(n) = req.settings.max_output_tokens {
                    body[if reasoning {
                        "max_completion_tokens"
                    } else {
                        "max_tokens"
                    }] = json!(n);
                }
                if let (Some(t), false) = (req.settings.temperature, reasoning) {
                    body["temperature"] = json!(t);
                }
                ("/chat/completions".into(), body)
            }
        }
        Provider::Anthropic => {
            let mut messages: Vec<Value> = Vec::new();
            for m in &req.messages {
                let (role, content) = match m {
                    Message::User(t) => ("user", json!([{"type": "text", "text": t}])),
                    Message::Assistant { text, tool_calls } => {
                        let mut blocks = Vec::new();
                        if !text.is_empty() {
                            blocks.push(json!({"type": "text", "text": text}));
                        }
                        for c in tool_calls {
                            let input = c.arguments.clone().unwrap_or_else(|_| json!({}));
                            blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
                        }
                        ("assistant", Value::Array(blocks))
                    }
                    Message::ToolResult { id, content, .. } => (
                        "user",
                        json!([{"type": "tool_result", "tool_use_id": id, "content": content}]),
                    ),
                };
                let blocks = match content {
                    Value::Array(blocks) => blocks,
                    other => vec![other],
                };
                push_turn(&mut messages, role, "content", blocks);
            }
            let mut body = json!({
                "model": req.model,
                "system": req.system,
                "max_tokens": req.settings.max_output_tokens.unwrap_or(4096),
                "messages": messages,
            });
            if !req.tools.is_empty() {
                body["tools"] = Value::Array(
                    req.tools.iter().map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.parameters})).collect(),
                );
            }
            if let Some(b) = req.settings.thinking_budget {
                body["thinking"] = json!({"type": "enabled", "budget_tokens": b});
            } else if let Some(t) = req.settings.temperature {
                body["temperature"] = json!(t);
            }
            ("/v1/messages".into(), body)
        }
        Provider::Gemini => {
            let mut contents: Vec<Value> = Vec::new();
            for m in &req.messages {
                let (role, parts) = match m {
                    Message::User(t) => ("user", vec![json!({"text": t})]),
                    Message::Assistant { text, tool_calls } => {
                        let mut parts = Vec::new();
                        if !text.is_empty() {
                            parts.push(json!({"text": text}));
                        }
                        for c in tool_calls {
                            let args = c.arguments.clone().unwrap_or_else(|_| json!({}));
                            parts.push(json!({"functionCall": {"name": c.name, "args": args}}));
                        }
                        ("model", parts)
                    }
                    Message::ToolResult { name, content, .. } => (
                        "user",
                        vec![
                            json!({"functionResponse": {"name": name, "response": {"content": content}}}),
                        ],
                    ),
                };
                push_turn(&mut contents, role, "parts", parts);
            }
            let mut body = json!({
                "systemInstruction": {"parts": [{"text": req.system}]},
                "contents": contents,
            });
            if !req.tools.is_empty() {
                body["tools"] = json!([{"functionDeclarations": req.tools.iter().map(|t| json!({"name": t.name, "description": t.description, "parameters": t.parameters})).collect::<Vec<_>>()}]);
            }
            let mut config = serde_json::Map::new();
            if let Some(n) = req.settings.max_output_tokens {
                config.insert("maxOutputTokens".into(), json!(n));
            }
            if let Some(t) = req.settings.temperature {
                config.insert("temperature".into(), json!(t));
            }
            if let Some(b) = req.settings.thinking_budget {
                config.insert("thinkingConfig".into(), json!({"thinkingBudget": b}));
            }
            if !config.is_empty() {
                body["generationConfig"] = Value::Object(config);
            }
            (
                format!("/v1beta/models/{}:generateContent", req.model),
                body,
            )
        }
    }
}

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

fn u(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

/// Decodes a provider's reply.
pub fn decode(provider: Provider, body: &Value) -> Result<ChatResponse, String> {
    let mut r = ChatResponse::default();
    match provider {
        Provider::OpenAi => {
            let msg = body
                .pointer("/choices/0/message")
                .ok_or("no choices[0].message")?;
            r.text = msg["content"].as_str().unwrap_or("").to_string();
            if let Some(calls) = msg["tool_calls"].as_array() {
                for (i, c) in calls.iter().enumerate() {
                    r.tool_calls.push(ToolCall {
                        id: c["id"]
                            .as_str()
                            .map_or_else(|| format!("call_{i}"), str::to_string),
                        name: c
                            .pointer("/function/name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        arguments: parse_arguments(
                            c.pointer("/function/arguments").unwrap_or(&Value::Null),
                        ),
                    });
                }
            }
            r.tokens_in = u(&body["usage"]["prompt_tokens"]);
            r.tokens_out = u(&body["usage"]["completion_tokens"]);
        }
        Provider::Ollama => {
            let msg = body.get("message").ok_or("no message")?;
            r.text = msg["content"].as_str().unwrap_or("").to_string();
            if let Some(calls) = msg["tool_calls"].as_array() {
                for (i, c) in calls.iter().enumerate() {
                    r.tool_calls.push(ToolCall {
                        id: format!("call_{i}"),
                        name: c
                            .pointer("/function/name")
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string(),
                        arguments: parse_arguments(
                            c.pointer("/function/arguments").unwrap_or(&Value::Null),
                        ),
                    });
                }
            }
            r.tokens_in = u(&body["prompt_eval_count"]);
            r.tokens_out = u(&body["eval_count"]);
        }
        Provider::Anthropic => {
            let blocks = body["content"].as_array().ok_or("no content blocks")?;
            let mut texts = Vec::new();
            for b in blocks {
                match b["type"].as_str() {
                    Some("text") => texts.push(b["text"].as_str().unwrap_or("").to_string()),
                    Some("tool_use") => r.tool_calls.push(ToolCall {
                        id: b["id"].as_str().unwrap_or("").to_string(),
                        name: b["name"].as_str().unwrap_or("").to_string(),
                        arguments: parse_arguments(&b["input"]),
                    }),
                    // thinking blocks are reasoning, never shown or passed on
                    _ => {}
                }
            }
            r.text = texts.join("\n");
            r.tokens_in = u(&body["usage"]["input_tokens"]);
            r.tokens_out = u(&body["usage"]["output_tokens"]);
        }
        Provider::Gemini => {
            let parts = body
                .pointer("/candidates/0/content/parts")
                .and_then(Value::as_array)
                .ok_or("no candidates[0].content.parts")?;
            let mut texts = Vec::new();
            for (i, p) in parts.iter().enumerate() {
                if p.get("thought").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                if let Some(t) = p["text"].as_str() {
                    texts.push(t.to_string());
                }
                if let Some(fc) = p.get("functionCall") {
                    r.tool_calls.push(ToolCall {
                        id: format!("call_{i}"),
                        name: fc["name"].as_str().unwrap_or("").to_string(),
                        arguments: parse_arguments(&fc["args"]),
                    });
                }
            }
            r.text = texts.join("");
            r.tokens_in = u(&body["usageMetadata"]["promptTokenCount"]);
            r.tokens_out = u(&body["usageMetadata"]["candidatesTokenCount"]);
        }
    }
    Ok(r)
}

/// A provider over HTTP, with timeouts and bounded retries on 429 and 5xx.
pub struct HttpBackend {
    pub endpoint: Endpoint,
    agent: ureq::Agent,
    timeout: Duration,
    /// Attempts for one call (1 + retries).
    attempts: u32,
    /// First back-off; doubles each retry.
    backoff: Duration,
}

impl HttpBackend {
    pub fn new(endpoint: Endpoint, timeout: Duration) -> HttpBackend {
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .build()
            .into();
        HttpBackend {
            endpoint,
            agent,
            timeout,
            attempts: 3,
            backoff: Duration::from_millis(400),
        }
    }

    /// The backend for a model id with the crew's config and the process environment.
    pub fn for_model(
        model_id: &str,
        config: &CrewConfig,
    ) -> Result<(HttpBackend, String), ModelError> {
        let (provider, model) = Provider::of(model_id)?;
        let env = |k: &str| std::env::var(k).ok();
        let endpoint = Endpoint::resolve(provider, config, &env);
        let local = is_local_server(model_id);
        if !endpoint.has_key() && !local {
            return Err(ModelError::MissingKey {
                provider: provider.name().into(),
                key_var: endpoint.key_var.clone(),
            });
        }
        Ok((
            HttpBackend::new(
                endpoint,
                Duration::from_secs(config.model_timeout_secs.max(1)),
            ),
            model,
        ))
    }

    pub fn with_backoff(mut self, backoff: Duration) -> Self {
        self.backoff = backoff;
        self
    }

    fn post(&self, url: &str, body: &Value) -> Result<(u16, String, Option<u64>), ureq::Error> {
        let mut req = self
            .agent
            .post(url)
            .header("content-type", "application/json");
        let key = self.endpoint.key.as_deref().unwrap_or("");
        match self.endpoint.provider {
            Provider::OpenAi if !key.is_empty() => {
                req = req.header("authorization", &format!("Bearer {key}"))
            }
            Provider::Anthropic => {
                req = req
                    .header("x-api-key", key)
                    .header("anthropic-version", "2023-06-01");
            }
            Provider::Gemini if self.endpoint.bearer => {
                req = req.header("authorization", &format!("Bearer {key}"))
            }
            Provider::Gemini => req = req.header("x-goog-api-key", key),
            _ => {}
        }
        let bytes = serde_json::to_vec(body).unwrap_or_default();
        let mut resp = req.send(&bytes[..])?;
        let status = resp.status().as_u16();
        let retry_after = resp
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let text = resp.body_mut().read_to_string().unwrap_or_default();
        Ok((status, text, retry_after))
    }
}

fn excerpt(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    one.chars().take(300).collect()
}

impl ChatBackend for HttpBackend {
    fn label(&self) -> String {
        format!(
            "{} at {}",
            self.endpoint.provider.name(),
            self.endpoint.base_url
        )
    }

    fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        let provider = self.endpoint.provider;
        let pname = provider.name().to_string();
        let (path, body) = encode(provider, request);
        let url = format!("{}{path}", self.endpoint.base_url);
        let mut wait = self.backoff;
        let mut last = None;
        for attempt in 1..=self.attempts {
            let (status, text, retry_after) = match self.post(&url, &body) {
                Ok(r) => r,
                Err(e) => {
                    let detail = e.to_string();
                    if matches!(e, ureq::Error::Timeout(_))
                        || detail.to_lowercase().contains("timed out")
                    {
                        return Err(ModelError::Timeout {
                            provider: pname,
                            secs: self.timeout.as_secs(),
                        });
                    }
                    return Err(ModelError::Unreachable {
                        provider: pname,
                        url: self.endpoint.base_url.clone(),
                        detail,
                    });
                }
            };
            match status {
                200..=299 => {
                    let v: Value =
                        serde_json::from_str(&text).map_err(|e| ModelError::BadReply {
                            provider: pname.clone(),
                            detail: format!("not JSON ({e}): {}", excerpt(&text)),
                        })?;
                    return decode(provider, &v).map_err(|d| ModelError::BadReply {
                        provider: pname,
                        detail: d,
                    });
                }
                401 | 403 => {
                    return Err(ModelError::Auth {
                        provider: pname,
                        status,
                        key_var: self.endpoint.key_var.clone(),
                    });
                }
                404 => {
                    return Err(ModelError::UnknownModel {
                        provider: pname,
                        model: request.model.clone(),
                    });
                }
                429 | 500..=599 => {
                    last = Some(ModelError::Status {
                        provider: pname.clone(),
                        status,
                        attempts: attempt,
                        detail: excerpt(&text),
                    });
                    if attempt < self.attempts {
                        let pause = retry_after
                            .map(|s| Duration::from_secs(s.min(5)))
                            .unwrap_or(wait);
                        tracing::info!("{pname}: HTTP {status}, retrying in {pause:?}");
                        std::thread::sleep(pause);
                        wait *= 2;
                    }
                }
                _ => {
                    return Err(ModelError::Status {
                        provider: pname,
                        status,
                        attempts: attempt,
                        detail: excerpt(&text),
                    });
                }
            }
        }
        Err(last.unwrap_or(ModelError::BadReply {
            provider: pname,
            detail: "no attempt was made".into(),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Settings, ToolSpec};

    #[test]
    fn prefixes_pick_providers() {
        assert_eq!(
            Provider::of("claude-sonnet-4-5").map(|p| p.0),
            Ok(Provider::Anthropic)
        );
        assert_eq!(
            Provider::of("gpt-4.1-mini").map(|p| p.0),
            Ok(Provider::OpenAi)
        );
        assert_eq!(Provider::of("o3-mini").map(|p| p.0), Ok(Provider::OpenAi));
        assert_eq!(
            Provider::of("gemini-2.5-flash").map(|p| p.0),
            Ok(Provider::Gemini)
        );
        assert_eq!(
            Provider::of("ollama/llama3.2"),
            Ok((Provider::Ollama, "llama3.2".into()))
        );
        assert_eq!(
            Provider::of("openai/qwen2.5"),
            Ok((Provider::OpenAi, "qwen2.5".into()))
        );
        assert!(Provider::of("mistral-large").is_err());
    }

    #[test]
    fn endpoints_come_from_env_then_config_then_default() {
        let mut cfg = CrewConfig::default();
        cfg.providers.insert(
            "ollama".into(),
            ProviderConfig {
                base_url: Some("http://box:1234/".into()),
                ..Default::default()
            },
        );
        let none = |_: &str| None;
        assert_eq!(
            Endpoint::resolve(Provider::Ollama, &cfg, &none).base_url,
            "http://box:1234"
        );
        let env = |k: &str| (k == "OLLAMA_HOST").then(|| "127.0.0.1:9".to_string());
        assert_eq!(
            Endpoint::resolve(Provider::Ollama, &cfg, &env).base_url,
            "http://127.0.0.1:9"
        );
        let e = Endpoint::resolve(Provider::Gemini, &cfg, &|k: &str| {
            (k == "GOOGLE_API_KEY").then(|| "k".to_string())
        });
        assert!(e.has_key());
        assert_eq!(e.base_url, "https://generativelanguage.googleapis.com");
    }

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
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"],
            "{\"path\":\"a.md\"}"
        );
        assert_eq!(b["messages"][3]["tool_call_id"], "c1");
        assert_eq!(b["max_tokens"], 100);
        let (p, b) = encode(Provider::Anthropic, &request());
        assert_eq!(p, "/v1/messages");
        assert_eq!(b["system"], "sys");
        assert_eq!(b["messages"][1]["content"][0]["type"], "tool_use");
        assert_eq!(b["messages"][2]["content"][0]["tool_use_id"], "c1");
        assert_eq!(b["tools"][0]["input_schema"]["type"], "object");
        let (p, b) = encode(Provider::Gemini, &request());
        assert_eq!(p, "/v1beta/models/m:generateContent");
        assert_eq!(
            b["contents"][1]["parts"][0]["functionCall"]["args"]["path"],
            "a.md"
        );
        assert_eq!(
            b["contents"][2]["parts"][0]["functionResponse"]["name"],
            "read_note"
        );
        let (p, b) = encode(Provider::Ollama, &request());
        assert_eq!(p, "/api/chat");
        assert_eq!(b["stream"], false);
        assert_eq!(
            b["messages"][2]["tool_calls"][0]["function"]["arguments"]["path"],
            "a.md"
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
        let r = decode(Provider::OpenAi, &body).expect("decoded");
        assert_eq!(r.tool_calls[0].arguments, Err("{not json".into()));
        assert_eq!((r.tokens_in, r.tokens_out), (3, 4));
        let body = json!({"content": [{"type": "thinking", "thinking": "secret"}, {"type": "text", "text": "hello"}], "usage": {"input_tokens": 1, "output_tokens": 2}});
        assert_eq!(
            decode(Provider::Anthropic, &body).expect("decoded").text,
            "hello"
        );
        let body = json!({"candidates": [{"content": {"parts": [{"text": "thinking", "thought": true}, {"text": "yes"}]}}]});
        assert_eq!(
            decode(Provider::Gemini, &body).expect("decoded").text,
            "yes"
        );
        assert!(decode(Provider::OpenAi, &json!({})).is_err());
    }
}
