//! One-shot questions to a model: a system text, one user message, a plain-text answer. No
//! tools, no conversation; what it cost is counted. Native agents that ask a model for one
//! small, checked piece of their work (the postman's summaries, the sorter's choice of folder)
//! go through this; the prompts and the reading of answers stay with each agent.

use super::{ChatBackend, ChatRequest, HttpBackend, Message, ModelError, Settings};
use crate::crew::CrewConfig;

/// Why a one-shot question got no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum WriterError {
    /// The model cannot be reached from here (no key, unknown prefix).
    #[error("`{id}`: {source}")]
    Unavailable {
        id: String,
        #[source]
        source: ModelError,
    },
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error("the model asked for tools instead of answering")]
    ToolsInstead,
    #[error("the model sent an empty reply")]
    Empty,
    /// The answer lacks the form asked for; the words name it ("no summary").
    #[error("the model's reply held {0}")]
    Unusable(&'static str),
}

/// A model an agent may ask in this run, and what it has cost so far.
pub struct Writer {
    backend: Box<dyn ChatBackend>,
    model: String,
    /// The model id as configured (`gpt-4.1-mini`, `ollama/llama3.2`, …).
    pub id: String,
    pub tokens_in: u64,
    pub tokens_out: u64,
}

impl Writer {
    /// The model `id` over HTTP; `Err` (naming the model and what to fix) when it cannot be
    /// reached from here (no key, unknown prefix).
    pub fn configured(id: &str, config: &CrewConfig) -> Result<Writer, WriterError> {
        HttpBackend::for_model(id, config)
            .map(|(backend, model)| Writer::new(Box::new(backend), model, id.to_string()))
            .map_err(|source| WriterError::Unavailable {
                id: id.to_string(),
                source,
            })
    }

    pub fn new(backend: Box<dyn ChatBackend>, model: String, id: String) -> Writer {
        Writer {
            backend,
            model,
            id,
            tokens_in: 0,
            tokens_out: 0,
        }
    }

    /// The model's text answer to `user` under `system`; a reply that asks for tools instead
    /// of answering is an error.
    pub fn ask(
        &mut self,
        system: &str,
        user: String,
        max_tokens: u64,
        temperature: f64,
    ) -> Result<String, WriterError> {
        let request = ChatRequest {
            model: self.model.clone(),
            system: system.to_string(),
            messages: vec![Message::User(user)],
            tools: Vec::new(),
            settings: Settings {
                max_output_tokens: Some(max_tokens),
                temperature: Some(temperature),
                thinking_budget: None,
            },
        };
        let reply = self.backend.chat(&request)?;
        self.tokens_in += reply.tokens_in;
        self.tokens_out += reply.tokens_out;
        if !reply.tool_calls.is_empty() && reply.text.trim().is_empty() {
            return Err(WriterError::ToolsInstead);
        }
        Ok(reply.text)
    }
}

/// A scripted backend for tests of what asks a [`Writer`]: replies in order, requests kept.
#[cfg(test)]
pub(crate) mod scripted {
    use super::Writer;
    use crate::model::{ChatBackend, ChatRequest, ChatResponse, ModelError};
    use std::cell::RefCell;
    use std::rc::Rc;

    struct Scripted {
        replies: RefCell<Vec<Result<ChatResponse, ModelError>>>,
        seen: Rc<RefCell<Vec<ChatRequest>>>,
    }

    impl ChatBackend for Scripted {
        fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
            self.seen.borrow_mut().push(request.clone());
            self.replies.borrow_mut().remove(0)
        }
        fn label(&self) -> String {
            "scripted".into()
        }
    }

    /// A writer answering with `replies`, and the requests it was sent.
    pub(crate) fn writer(
        replies: Vec<Result<ChatResponse, ModelError>>,
    ) -> (Writer, Rc<RefCell<Vec<ChatRequest>>>) {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let backend = Scripted {
            replies: RefCell::new(replies),
            seen: Rc::clone(&seen),
        };
        (
            Writer::new(Box::new(backend), "m".into(), "openai/m".into()),
            seen,
        )
    }
}
