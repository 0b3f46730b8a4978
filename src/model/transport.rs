//! The one HTTP transport: a provider's auth headers, timeouts, bounded retries on 429 and 5xx,
//! and errors that name the provider and what to fix.

use std::time::Duration;

use serde_json::Value;

use super::provider::{Endpoint, Provider, is_local_server};
use super::wire::{self, excerpt};
use super::{ChatBackend, ChatRequest, ChatResponse, ModelError};
use crate::crew::CrewConfig;

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
    pub(crate) fn for_model(
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
        let (path, body) = wire::encode(provider, request);
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
                    return wire::decode(provider, &text).map_err(|d| ModelError::BadReply {
                        provider: pname,
                        detail: d.to_string(),
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
