//! The crew config (`config.yaml` in the crew folder): default route, overrides, models, folders.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Diagnostic;

/// A regex override: a message matching `pattern` goes to `route` (an agent or skill name).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RouteOverride {
    pub pattern: String,
    pub route: String,
}

/// Folder roles of the vault; every role can be remapped (`crew init --adopt` detects them).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Folders {
    pub inbox: String,
    pub projects: String,
    pub areas: String,
    pub resources: String,
    pub archive: String,
    pub people: String,
    pub meetings: String,
    pub daily: String,
    pub moc: String,
    pub templates: String,
    pub meta: String,
}

impl Default for Folders {
    fn default() -> Self {
        Folders {
            inbox: "00-Inbox".into(),
            projects: "01-Projects".into(),
            areas: "02-Areas".into(),
            resources: "03-Resources".into(),
            archive: "04-Archive".into(),
            people: "05-People".into(),
            meetings: "06-Meetings".into(),
            daily: "07-Daily".into(),
            moc: "MOC".into(),
            templates: "Templates".into(),
            meta: "Meta".into(),
        }
    }
}

impl Folders {
    /// Role name → folder, in a fixed order.
    pub fn roles(&self) -> Vec<(&'static str, &str)> {
        vec![
            ("inbox", &self.inbox),
            ("projects", &self.projects),
            ("areas", &self.areas),
            ("resources", &self.resources),
            ("archive", &self.archive),
            ("people", &self.people),
            ("meetings", &self.meetings),
            ("daily", &self.daily),
            ("moc", &self.moc),
            ("templates", &self.templates),
            ("meta", &self.meta),
        ]
    }

    pub fn states(&self) -> String {
        format!("{}/states", self.meta)
    }

    /// Notes crew writes for itself: health and defrag reports, post-its, the agent log. The
    /// audit never counts them, so a report cannot change the figures of the next one.
    pub(crate) fn crew_owned(&self, path: &str) -> bool {
        path.strip_prefix(self.meta.as_str())
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| {
                rest.starts_with("health-reports/")
                    || rest.starts_with("states/")
                    || rest == "agent-log.md"
                    || rest.ends_with(" — Deadline Radar.md")
            })
    }

    /// Whether `path` lies in the templates folder.
    pub(crate) fn in_templates(&self, path: &str) -> bool {
        path.strip_prefix(self.templates.as_str())
            .is_some_and(|rest| rest.starts_with('/'))
    }
}

/// Whether a note's text holds template syntax (Templater's `<% … %>`, the core Templates
/// plugin's `{{date}}`, `{{title}}`, `{{time}}`): such a note is a template wherever it lives,
/// and crew never edits it.
pub(crate) fn holds_template_syntax(text: &str) -> bool {
    (text.contains("<%") && text.contains("%>"))
        || ["{{date", "{{title", "{{time"]
            .iter()
            .any(|m| text.contains(m))
}

/// Where one provider lives, when not at its public default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProviderConfig {
    /// Base URL (the `OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, `GEMINI_BASE_URL` or `OLLAMA_HOST`
    /// environment variable wins over it).
    pub base_url: Option<String>,
    /// The environment variable holding the key, when not the usual one.
    pub api_key_env: Option<String>,
    /// `bearer`: send the key as `Authorization: Bearer` (Gemini behind a Vertex-style gateway).
    pub auth: Option<String>,
}

/// The whole config file. Every key is optional.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CrewConfig {
    /// Where a message goes when nothing else decides (must name an agent or skill).
    pub default_route: String,
    pub route_overrides: Vec<RouteOverride>,
    /// Tier → model id (`low`, `mid`, `high`).
    pub models: BTreeMap<String, String>,
    /// Model id of the routing classifier; none: the offline scorer decides.
    pub classifier: Option<String>,
    /// Agents per request (1 to 3).
    pub max_depth: usize,
    pub folders: Folders,
    /// Minimum confidence (0–100) for the sorter to file a note on explicit evidence.
    pub triage_confidence: u32,
    /// Precision the learned filing must reach on the vault's own notes (leave-one-out)
    /// before it files a note with no explicit evidence.
    pub triage_precision: f64,
    /// Per-provider endpoints: `openai`, `anthropic`, `gemini`, `ollama`.
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Seconds one model call may take.
    pub model_timeout_secs: u64,
    /// Tool calls one model agent may make in one run.
    pub max_tool_calls: usize,
    /// The vault had its own layout before crew came (`crew init --adopt` writes `true`):
    /// crew adds no folders, indexes or MOCs to it unless the user asks for structure.
    pub adopted: bool,
    /// The postman's mail source (read only).
    pub mail: super::mailcal::MailConfig,
    /// The postman's calendar files.
    pub calendar: super::mailcal::CalendarConfig,
    /// How `12/05/2026` is read (`dmy`, `mdy`, `ymd`); unset: from the profile's language.
    pub date_order: Option<DateOrder>,
    /// The file could not be read as a config at all: its keys are not known, so nothing runs
    /// on defaults in its place (a vault's folder map silently dropped sends notes elsewhere).
    #[serde(skip)]
    pub unreadable: bool,
}

impl Default for CrewConfig {
    fn default() -> Self {
        CrewConfig {
            default_route: "seeker".into(),
            route_overrides: Vec::new(),
            models: BTreeMap::new(),
            classifier: None,
            max_depth: 3,
            folders: Folders::default(),
            triage_confidence: 60,
            triage_precision: 0.95,
            providers: BTreeMap::new(),
            model_timeout_secs: 120,
            max_tool_calls: 20,
            adopted: false,
            mail: Default::default(),
            calendar: Default::default(),
            date_order: None,
            unreadable: false,
        }
    }
}

/// Chain depth is at most 3 per request; the config may lower it, never raise it.
pub(crate) const MAX_DEPTH: usize = 3;

impl CrewConfig {
    pub fn parse(file: &str, text: &str, diags: &mut Vec<Diagnostic>) -> CrewConfig {
        if text.trim().is_empty() {
            return CrewConfig::default();
        }
        if let Some((line, key, first)) = duplicate_key(text) {
            diags.push(Diagnostic::error(
                file,
                line,
                &format!("`{key}` is given twice (first on line {first}); keep one of them"),
            ));
            return CrewConfig {
                unreadable: true,
                ..CrewConfig::default()
            };
        }
        match yaml_serde::from_str::<CrewConfig>(text) {
            Ok(mut c) => {
                if c.max_depth == 0 || c.max_depth > MAX_DEPTH {
                    diags.push(Diagnostic::error(
                        file,
                        line_of(text, "max_depth"),
                        &format!("max_depth must be 1 to {MAX_DEPTH}; using {MAX_DEPTH}"),
                    ));
                    c.max_depth = MAX_DEPTH;
                }
                if !(c.triage_precision > 0.0 && c.triage_precision <= 1.0) {
                    diags.push(Diagnostic::error(
                        file,
                        line_of(text, "triage_precision"),
                        "triage_precision must be above 0 and at most 1 (e.g. 0.95); using 0.95",
                    ));
                    c.triage_precision = 0.95;
                }
                for name in c.providers.keys() {
                    if !["openai", "anthropic", "gemini", "ollama"].contains(&name.as_str()) {
                        diags.push(Diagnostic::error(
                            file,
                            line_of(text, name),
                            &format!("unknown provider `{name}` in providers: use openai, anthropic, gemini or ollama"),
                        ));
                    }
                }
                for (tier, id) in &c.models {
                    if !["low", "mid", "high"].contains(&tier.as_str()) {
                        diags.push(Diagnostic::error(
                            file,
                            line_of(text, tier),
                            &format!("models: `{tier}` is not a tier; use low, mid or high"),
                        ));
                    }
                    if !super::definition::known_model_prefix(id) {
                        diags.push(Diagnostic::error(
                            file,
                            line_of(text, id),
                            &format!("models.{tier}: unknown model `{id}`; use an id starting with claude-, gpt-, gemini-, ollama/ or openai/"),
                        ));
                    }
                }
                if let Some(id) = &c.classifier
                    && !super::definition::known_model_prefix(id)
                {
                    diags.push(Diagnostic::error(
                        file,
                        line_of(text, "classifier"),
                        &format!("classifier: unknown model `{id}`"),
                    ));
                }
                super::mailcal::check(&mut c, file, text, diags);
                for o in &c.route_overrides {
                    if let Err(e) = regex::Regex::new(&o.pattern) {
                        diags.push(Diagnostic::error(
                            file,
                            line_of(text, &o.pattern),
                            &format!("route_overrides pattern does not compile: {e}"),
                        ));
                    }
                }
                c
            }
            Err(e) => {
                let line = e.location().map_or(1, |l| l.line());
                diags.push(Diagnostic::error(
                    file,
                    line,
                    &format!("invalid crew config: {e}"),
                ));
                CrewConfig {
                    unreadable: true,
                    ..CrewConfig::default()
                }
            }
        }
    }
}

/// The first key given twice in one mapping of a block-style YAML file: (its line, the key,
/// the line of its first use). serde reports a duplicate without a line, and YAML itself
/// forbids them, so crew names the line rather than guess which value was meant.
fn duplicate_key(text: &str) -> Option<(usize, String, usize)> {
    // one frame per open mapping: its indentation and the keys seen in it (key → line)
    let mut frames: Vec<(usize, BTreeMap<String, usize>)> = vec![(0, BTreeMap::new())];
    for (n, line) in text.lines().enumerate() {
        let mut body = line.trim_start();
        if body.is_empty() || body.starts_with('#') {
            continue;
        }
        let mut indent = line.len() - body.len();
        // a list item opens a mapping of its own, at the column after its dash
        let item = body == "-" || body.starts_with("- ");
        if item {
            body = body[1..].trim_start();
            indent = line.len() - body.len();
        }
        while frames.len() > 1
            && frames
                .last()
                .is_some_and(|(i, _)| indent < *i || item && indent == *i)
        {
            frames.pop();
        }
        let Some(key) = mapping_key(body) else {
            continue;
        };
        if item || frames.last().is_some_and(|(i, _)| indent > *i) {
            frames.push((indent, BTreeMap::new()));
        }
        let keys = &mut frames.last_mut()?.1;
        if let Some(first) = keys.get(key) {
            return Some((n + 1, key.to_string(), *first));
        }
        keys.insert(key.to_string(), n + 1);
    }
    None
}

/// The key of a `key: value` line of block YAML (plain or quoted), if it is one.
fn mapping_key(body: &str) -> Option<&str> {
    if let Some(q) = body.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let rest = &body[1..];
        let end = rest.find(q)?;
        return rest[end + 1..].starts_with(':').then(|| &rest[..end]);
    }
    let (key, after) = body.split_once(':')?;
    let plain = !key.is_empty() && !key.contains(['{', '[', '#', ' ', '\t']);
    (plain && (after.is_empty() || after.starts_with([' ', '\t']))).then_some(key)
}

pub(super) fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or(1, |i| i + 1)
}

/// How a numeric date with slashes or dashes is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DateOrder {
    /// 12/05/2026 is 12 May (most of Europe and Latin America).
    #[default]
    Dmy,
    /// 12/05/2026 is 5 December (the United States).
    Mdy,
    /// 2026/05/12 (Japan, China, Korea); a year written last is read month first.
    Ymd,
}

impl DateOrder {
    /// The usual order for a language code from the user profile (`primary-language`):
    /// `en` and `en-US` month first, other English variants and the European languages day
    /// first, Japanese, Chinese and Korean year first.
    pub(crate) fn for_language(code: &str) -> DateOrder {
        let code = code.trim().to_lowercase().replace('_', "-");
        let base = code.split('-').next().unwrap_or("");
        match (base, code.as_str()) {
            (_, "en" | "en-us" | "en-ph") => DateOrder::Mdy,
            ("ja" | "zh" | "ko", _) => DateOrder::Ymd,
            _ => DateOrder::Dmy,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_partial_files() {
        let mut d = Vec::new();
        let c = CrewConfig::parse(
            "c.yaml",
            "default_route: scribe\nfolders:\n  inbox: Inbox\n",
            &mut d,
        );
        assert!(d.is_empty());
        assert_eq!(c.default_route, "scribe");
        assert_eq!(c.folders.inbox, "Inbox");
        assert_eq!(c.folders.projects, "01-Projects");
    }

    #[test]
    fn unknown_keys_and_bad_depth_are_errors() {
        let mut d = Vec::new();
        CrewConfig::parse("c.yaml", "defualt_route: x\n", &mut d);
        assert_eq!(d.len(), 1);
        let mut d = Vec::new();
        let c = CrewConfig::parse("c.yaml", "max_depth: 7\n", &mut d);
        assert_eq!(c.max_depth, 3);
        assert_eq!(d[0].line, 1);
    }

    #[test]
    fn a_key_given_twice_is_named_with_its_line_and_nothing_runs_on_defaults() {
        let mut d = Vec::new();
        let text = "models:\n  mid: gpt-4.1-mini\nfolders:\n  inbox: In\nmodels:\n  low: gpt-4.1\n";
        let c = CrewConfig::parse("c.yaml", text, &mut d);
        assert!(c.unreadable);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].line, 5, "{}", d[0]);
        assert!(
            d[0].to_string()
                .contains("`models` is given twice (first on line 1)")
        );
    }

    #[test]
    fn the_same_key_in_different_mappings_is_no_duplicate() {
        let ok = [
            "mail:\n  maildir: a\ncalendar:\n  ics: [b]\n",
            "route_overrides:\n  - pattern: a\n    agent: x\n  - pattern: b\n    agent: y\n",
            "a:\n  x: 1\nb:\n  x: 2\n",
            "folders:\n  inbox: \"In: box\"\n  # inbox: old\n",
            "list:\n  -\n    k: 1\n  -\n    k: 2\n",
        ];
        for t in ok {
            assert_eq!(duplicate_key(t), None, "{t}");
        }
        assert_eq!(
            duplicate_key("mail:\n  maildir: a\n  maildir: b\n"),
            Some((3, "maildir".into(), 2))
        );
        assert_eq!(
            duplicate_key("route_overrides:\n  - pattern: a\n    pattern: b\n"),
            Some((3, "pattern".into(), 2))
        );
    }
}
