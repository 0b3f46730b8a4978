//! Which provider a model id names, where it lives, its key, and whether a local server answers.

use std::time::Duration;

use super::ModelError;
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
    pub(crate) fn key_vars(self) -> &'static [&'static str] {
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
    pub(crate) key: Option<String>,
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

    pub(crate) fn has_key(&self) -> bool {
        self.key.is_some()
    }
}

/// A model served by a local server (Ollama, or an OpenAI-compatible one named `openai/…`):
/// it needs no key, and `doctor` may probe it.
pub(crate) fn is_local_server(model_id: &str) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
