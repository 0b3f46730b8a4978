//! The run log: one JSON Lines file per request in `.crew/runs/`.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Appends records to one run's log. Logging never fails a request: an unwritable log is
/// reported once on stderr.
pub(crate) struct RunLog {
    path: Option<PathBuf>,
    warned: bool,
}

impl RunLog {
    pub fn create(state_dir: &Path, run_id: &str) -> RunLog {
        let dir = state_dir.join("runs");
        let path = std::fs::create_dir_all(&dir)
            .ok()
            .map(|_| dir.join(format!("{run_id}.jsonl")));
        RunLog {
            path,
            warned: false,
        }
    }

    /// A log that writes nothing (dry runs).
    pub fn disabled() -> RunLog {
        RunLog {
            path: None,
            warned: true,
        }
    }

    pub(crate) fn record(&mut self, kind: &str, mut fields: Value) {
        let Some(path) = &self.path else { return };
        if let Value::Object(map) = &mut fields {
            map.insert("type".into(), Value::String(kind.to_string()));
            map.insert("at".into(), Value::String(chrono::Utc::now().to_rfc3339()));
        }
        let line = serde_json::to_string(&fields).unwrap_or_default();
        let ok = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| writeln!(f, "{line}"));
        if let Err(e) = ok
            && !self.warned
        {
            tracing::warn!("cannot write the run log {}: {e}", path.display());
            self.warned = true;
        }
    }
}

/// A summary of one past run, read back from its log.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunSummary {
    pub run_id: String,
    pub at: String,
    pub message: String,
    pub route: String,
    pub agents: Vec<String>,
    pub operations: usize,
    pub dry_run: bool,
    /// The `crew chat` session the run was a turn of.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

/// Past runs, newest first.
pub fn list(state_dir: &Path) -> Vec<RunSummary> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(state_dir.join("runs")) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path();
        if p.extension().is_none_or(|x| x != "jsonl") {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&p) else {
            continue;
        };
        let mut s = RunSummary {
            run_id: p
                .file_stem()
                .map(|x| x.to_string_lossy().into_owned())
                .unwrap_or_default(),
            at: String::new(),
            message: String::new(),
            route: String::new(),
            agents: Vec::new(),
            operations: 0,
            dry_run: false,
            session: None,
        };
        for line in text.lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            let get = |k: &str| v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string();
            match get("type").as_str() {
                "request" => {
                    s.at = get("at");
                    s.message = get("message");
                    s.dry_run = v.get("dry_run").and_then(|x| x.as_bool()).unwrap_or(false);
                    s.session = v
                        .get("session")
                        .and_then(|x| x.as_str())
                        .map(str::to_string);
                }
                "route" => s.route = format!("{} {}", get("kind"), get("name")),
                "step" => s.agents.push(get("agent")),
                "operation" => s.operations += 1,
                _ => {}
            }
        }
        out.push(s);
    }
    out.sort_by(|a, b| b.run_id.cmp(&a.run_id));
    out
}
