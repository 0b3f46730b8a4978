//! Routing reads text through the shared normaliser ([`crate::text`]); this path stays for the
//! modules that import it from here.

pub use crate::text::{is_unspaced_script, normalize, words};
