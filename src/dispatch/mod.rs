//! Dispatch: the router, the classifier resolver, the suggestion parser and the chain engine.
//! Pure logic — no disk, no network — so every rule is testable offline.

pub mod chain;
pub mod intent;
pub mod learned;
pub mod mode;
pub mod question;
pub mod request;
pub mod route;
pub mod scorer;
pub mod suggest;

pub use route::{Classifier, Decider, Route, Router};
