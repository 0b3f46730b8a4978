//! Agent and skill definition files: YAML frontmatter plus a Markdown body of instructions.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;
use yaml_serde::{Mapping, Value};

use super::Diagnostic;
use crate::vault::markdown::split_frontmatter;
use crate::vault::note::scalar_to_string;

/// Capabilities an agent may declare (the anchor's closed vocabulary).
pub const CAPABILITIES: &[&str] = &[
    "read",
    "write",
    "edit",
    "bash",
    "webfetch",
    "websearch",
    "notebook",
    "task",
    "todo",
];

/// Frontmatter keys crew reads; any other key is reported as a warning.
const KNOWN_KEYS: &[&str] = &[
    "name",
    "description",
    "triggers",
    "vocabulary",
    "examples",
    "capabilities",
    "tools",
    "model",
    "generation",
    "output_schema",
    "mode",
    "exclude",
    "source-agent",
    "source_agent",
    "handoff",
    "executor",
    "mode_capabilities",
];

/// Which model runs an agent, read from its `model` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "value", rename_all = "lowercase")]
pub enum ModelSpec {
    /// crew's own Rust implementation.
    Native,
    /// `low`, `mid` or `high`: the crew config maps it to a model id, or native when unmapped.
    Tier(String),
    /// A provider-prefixed model id (`claude-…`, `gpt-…`, `gemini-…`, `ollama/…`).
    Id(String),
}

impl ModelSpec {
    pub fn parse(raw: &str) -> ModelSpec {
        let r = raw.trim();
        match r.to_ascii_lowercase().as_str() {
            "" | "native" => ModelSpec::Native,
            "low" | "mid" | "high" => ModelSpec::Tier(r.to_ascii_lowercase()),
            // the anchor's Claude Code build writes these aliases
            "haiku" => ModelSpec::Tier("low".into()),
            "sonnet" => ModelSpec::Tier("mid".into()),
            "opus" => ModelSpec::Tier("high".into()),
            _ => ModelSpec::Id(r.to_string()),
        }
    }

    pub fn label(&self) -> String {
        match self {
            ModelSpec::Native => "native".into(),
            ModelSpec::Tier(t) => t.clone(),
            ModelSpec::Id(id) => id.clone(),
        }
    }
}

/// What does an agent's or skill's work: crew's own code, a language model, or crew's code
/// first and a model for what it leaves (`executor:` in the definition).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Executor {
    /// Mechanical work: always crew's own code, whatever model its tier maps to.
    Native,
    /// Language work: the tier's model; without one (or when it fails) the native path, which
    /// says what to configure.
    Model,
    /// Crew's own code, then the tier's model for what the native pass left to the user.
    Hybrid,
}

impl Executor {
    pub fn parse(raw: &str) -> Option<Executor> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "native" => Some(Executor::Native),
            "model" => Some(Executor::Model),
            "hybrid" => Some(Executor::Hybrid),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Executor::Native => "native",
            Executor::Model => "model",
            Executor::Hybrid => "hybrid",
        }
    }

    /// Whether a tier's model may do this work at all.
    pub(crate) fn uses_models(self) -> bool {
        self != Executor::Native
    }
}

/// Whether a model id has a prefix crew knows how to reach.
pub fn known_model_prefix(id: &str) -> bool {
    provider_family(id).is_some()
}

/// The provider family a model id names by its prefix, and the model name to send to it:
/// `claude-…` → anthropic, `gpt-…`/`chatgpt-…`/`o<digit>…` → openai, `openai/<m>` → openai
/// (any compatible server), `gemini-…` → gemini, `ollama/<m>` → ollama. The one place these
/// rules live: validation and the model runtime both ask here.
pub(crate) fn provider_family(id: &str) -> Option<(&'static str, &str)> {
    let id = id.trim();
    let lower = id.to_ascii_lowercase();
    for (prefix, family) in [("ollama/", "ollama"), ("openai/", "openai")] {
        if lower.starts_with(prefix) {
            return Some((family, &id[prefix.len()..]));
        }
    }
    if lower.starts_with("claude-") {
        Some(("anthropic", id))
    } else if lower.starts_with("gemini-") {
        Some(("gemini", id))
    } else if lower.starts_with("gpt-") || lower.starts_with("chatgpt-") || is_o_series(&lower) {
        Some(("openai", id))
    } else {
        None
    }
}

/// OpenAI's reasoning models (`o1`, `o3-mini`, …), which take `max_completion_tokens` and no
/// temperature.
pub(crate) fn is_o_series(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some('o' | 'O')) && chars.next().is_some_and(|c| c.is_ascii_digit())
}

/// Generation settings passed to a model.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Generation {
    pub max_output_tokens: Option<u64>,
    pub temperature: Option<f64>,
    pub thinking_budget: Option<u64>,
}

/// An agent or a skill, as defined in its Markdown file.
#[derive(Debug, Clone, Serialize)]
pub struct Definition {
    pub name: String,
    pub description: String,
    /// Trigger phrases: the explicit `triggers` list plus phrases quoted in the description.
    pub triggers: Vec<String>,
    /// Extra words that hint at this agent, for the offline scorer.
    pub vocabulary: Vec<String>,
    /// Whole requests a user might write for this route, in any language: the learned router
    /// learns from them as from the other phrases (the scorer, which weighs single words,
    /// does not read them).
    pub examples: Vec<String>,
    pub capabilities: Vec<String>,
    /// Capabilities a mode adds to `capabilities` (`mode_capabilities: { edit: [edit] }`):
    /// the seeker changes a note only when the user asks for an edit.
    pub mode_capabilities: Vec<(String, Vec<String>)>,
    pub model: ModelSpec,
    /// Whether the file has a `model` key: one that has none takes the model of the built-in
    /// definition of the same role (an installed crew's skills name no model).
    #[serde(skip)]
    pub model_declared: bool,
    /// The declared executor; `None` when the file does not say (see `Crew::executor`).
    pub executor: Option<Executor>,
    pub generation: Generation,
    pub output_schema: Option<String>,
    pub mode: Option<String>,
    pub exclude: Vec<String>,
    /// For skills: the agent whose post-it the skill uses.
    pub source_agent: Option<String>,
    /// Whether the agent may hand off (emit suggestions); `false` for schema-holding leaves.
    pub handoff: bool,
    /// The instructions (the Markdown body).
    #[serde(skip)]
    pub body: String,
    /// Where the definition came from (a path, or `builtin:agents/x.md`).
    pub file: String,
}

impl Definition {
    /// The capabilities of a run in `mode`: the declared ones and those the mode adds.
    pub fn capabilities_in(&self, mode: Option<&str>) -> Vec<String> {
        let mut caps = self.capabilities.clone();
        let added = self
            .mode_capabilities
            .iter()
            .filter(|(m, _)| Some(m.as_str()) == mode)
            .flat_map(|(_, c)| c);
        for c in added {
            if !caps.contains(c) {
                caps.push(c.clone());
            }
        }
        caps
    }

    /// Whether a run in `mode` may change the vault (it has `write` or `edit`).
    pub fn may_write(&self, mode: Option<&str>) -> bool {
        self.capabilities_in(mode)
            .iter()
            .any(|c| c == "write" || c == "edit")
    }
}

static QUOTED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#""([^"\n]{2,80})"|“([^”\n]{2,80})”"#).expect("static regex"));

/// Trigger phrases quoted in a description, the way the anchor's files declare them.
pub(crate) fn quoted_phrases(description: &str) -> Vec<String> {
    QUOTED
        .captures_iter(description)
        .filter_map(|c| c.get(1).or_else(|| c.get(2)))
        .map(|m| m.as_str().trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

fn string_list(v: &Value) -> Vec<String> {
    match v {
        Value::Sequence(items) => items.iter().filter_map(scalar_to_string).collect(),
        Value::String(s) => s
            .split(',')
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect(),
        other => scalar_to_string(other).into_iter().collect(),
    }
}

/// Translates the anchor's Claude Code tool names back to capabilities.
fn capability_of_tool(tool: &str) -> Option<&'static str> {
    Some(match tool.trim().to_ascii_lowercase().as_str() {
        "read" | "glob" | "grep" | "ls" => "read",
        "write" => "write",
        "edit" | "multiedit" => "edit",
        "bash" => "bash",
        "webfetch" => "webfetch",
        "websearch" => "websearch",
        "notebookedit" => "notebook",
        "task" => "task",
        "todowrite" => "todo",
        _ => return None,
    })
}

fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| l.starts_with(&format!("{key}:")))
        .map_or(1, |i| i + 1)
}

/// Parses one definition file. Problems go to `diags`; `None` when the file cannot define
/// anything (no frontmatter, bad YAML, no name).
pub fn parse(file: &str, text: &str, diags: &mut Vec<Diagnostic>) -> Option<Definition> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (map, body_start) = frontmatter_map(file, text, diags)?;
    let get = |k: &str| map.get(k);
    for (k, _) in &map {
        let key = k.as_str().unwrap_or("");
        if !KNOWN_KEYS.contains(&key) {
            diags.push(Diagnostic::warning(
                file,
                line_of_key(text, key),
                &format!("unknown key `{key}` is ignored"),
            ));
        }
    }
    let Some(name) = get("name").and_then(scalar_to_string) else {
        diags.push(Diagnostic::error(file, 2, "missing `name:`"));
        return None;
    };
    let description = get("description")
        .and_then(scalar_to_string)
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut triggers: Vec<String> = get("triggers").map(string_list).unwrap_or_default();
    for q in quoted_phrases(&description) {
        if !triggers.iter().any(|t| t.eq_ignore_ascii_case(&q)) {
            triggers.push(q);
        }
    }
    let located = |key: &str| (file, line_of_key(text, key));
    Some(Definition {
        name: name.trim().to_string(),
        description,
        triggers,
        vocabulary: get("vocabulary").map(string_list).unwrap_or_default(),
        examples: get("examples").map(string_list).unwrap_or_default(),
        capabilities: capabilities_of(&map, located("capabilities"), diags),
        mode_capabilities: mode_capabilities_of(&map, located("mode_capabilities"), diags),
        model: model_of(&map, located("model"), diags),
        model_declared: get("model").is_some(),
        executor: executor_of(&map, located("executor"), diags),
        generation: generation_of(&map),
        output_schema: get("output_schema").map(|v| match scalar_to_string(v) {
            Some(s) => s,
            None => yaml_serde::to_string(v).unwrap_or_default(),
        }),
        mode: get("mode").and_then(scalar_to_string),
        exclude: get("exclude").map(string_list).unwrap_or_default(),
        source_agent: get("source-agent")
            .or_else(|| get("source_agent"))
            .and_then(scalar_to_string),
        handoff: get("handoff").and_then(|v| v.as_bool()).unwrap_or(true),
        body: text[body_start..]
            .trim_start_matches(['\r', '\n'])
            .to_string(),
        file: file.to_string(),
    })
}

/// The frontmatter of a definition file as a YAML mapping, and where the body starts; `None`
/// (with the problem in `diags`) when there is none or it does not parse.
fn frontmatter_map(
    file: &str,
    text: &str,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Mapping, usize)> {
    let Some(block) = split_frontmatter(text) else {
        let msg = if text.starts_with("---") {
            "the frontmatter has no closing `---` line; add one after the last key"
        } else {
            "no YAML frontmatter; the file must start with `---`, the keys, then `---`"
        };
        diags.push(Diagnostic::error(file, 1, msg));
        return None;
    };
    let yaml = &text[block.yaml.clone()];
    if let Some(n) = yaml.lines().position(|l| l.starts_with('\t')) {
        diags.push(Diagnostic::error(
            file,
            n + 2,
            "a tab indents this line; YAML needs spaces",
        ));
        return None;
    }
    match yaml_serde::from_str::<Value>(yaml) {
        Ok(Value::Mapping(m)) => Some((m, block.block.end)),
        Ok(_) => {
            diags.push(Diagnostic::error(
                file,
                2,
                "the frontmatter must be a mapping of keys",
            ));
            None
        }
        Err(e) => {
            let line = e.location().map_or(2, |l| l.line() + 1);
            diags.push(Diagnostic::error(
                file,
                line,
                &format!("invalid YAML in the frontmatter: {e}"),
            ));
            None
        }
    }
}

/// The declared capabilities, or those implied by a host's `tools:` list; unknown ones are
/// errors at the key's line.
fn capabilities_of(
    map: &Mapping,
    (file, line): (&str, usize),
    diags: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let mut capabilities: Vec<String> =
        map.get("capabilities").map(string_list).unwrap_or_default();
    if capabilities.is_empty()
        && let Some(tools) = map.get("tools")
    {
        for t in string_list(tools) {
            if let Some(c) = capability_of_tool(&t)
                && !capabilities.iter().any(|x| x == c)
            {
                capabilities.push(c.to_string());
            }
        }
    }
    for c in &capabilities {
        if !CAPABILITIES.contains(&c.as_str()) {
            diags.push(Diagnostic::error(
                file,
                line,
                &format!(
                    "unknown capability `{c}`; use some of: {}",
                    CAPABILITIES.join(", ")
                ),
            ));
        }
    }
    capabilities
}

/// The `mode_capabilities` mapping: a mode's slug to the capabilities it adds. A value that is
/// no mapping, or an unknown capability, is an error at the key's line.
fn mode_capabilities_of(
    map: &Mapping,
    (file, line): (&str, usize),
    diags: &mut Vec<Diagnostic>,
) -> Vec<(String, Vec<String>)> {
    let Some(value) = map.get("mode_capabilities") else {
        return Vec::new();
    };
    let Value::Mapping(modes) = value else {
        diags.push(Diagnostic::error(
            file,
            line,
            "`mode_capabilities` maps a mode to a list of capabilities, e.g. `{ edit: [edit] }`",
        ));
        return Vec::new();
    };
    let mut out = Vec::new();
    for (mode, caps) in modes {
        let Some(mode) = scalar_to_string(mode) else {
            continue;
        };
        let caps = string_list(caps);
        for c in &caps {
            if !CAPABILITIES.contains(&c.as_str()) {
                diags.push(Diagnostic::error(
                    file,
                    line,
                    &format!(
                        "unknown capability `{c}` for mode `{mode}`; use some of: {}",
                        CAPABILITIES.join(", ")
                    ),
                ));
            }
        }
        out.push((crate::text::slug(&mode), caps));
    }
    out
}

fn model_of(map: &Mapping, (file, line): (&str, usize), diags: &mut Vec<Diagnostic>) -> ModelSpec {
    let model = ModelSpec::parse(
        &map.get("model")
            .and_then(scalar_to_string)
            .unwrap_or_default(),
    );
    if let ModelSpec::Id(id) = &model
        && !known_model_prefix(id)
    {
        diags.push(Diagnostic::error(
            file,
            line,
            &format!(
                "unknown model `{id}`: use low|mid|high, native, or an id starting with claude-, gpt-, gemini- or ollama/"
            ),
        ));
    }
    model
}

fn executor_of(
    map: &Mapping,
    (file, line): (&str, usize),
    diags: &mut Vec<Diagnostic>,
) -> Option<Executor> {
    let raw = map.get("executor").and_then(scalar_to_string)?;
    let parsed = Executor::parse(&raw);
    if parsed.is_none() {
        diags.push(Diagnostic::error(
            file,
            line,
            &format!("executor `{raw}` is not one of: native, model, hybrid"),
        ));
    }
    parsed
}

fn generation_of(map: &Mapping) -> Generation {
    match map.get("generation") {
        Some(Value::Mapping(g)) => {
            let num = |k: &str| g.get(k).and_then(|v| v.as_u64());
            Generation {
                max_output_tokens: num("max_output_tokens"),
                temperature: g.get("temperature").and_then(|v| v.as_f64()),
                thinking_budget: num("thinking_budget"),
            }
        }
        _ => Generation::default(),
    }
}

/// Whether a name follows the naming rule: lowercase letters, digits and single hyphens.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 40
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that parses with no diagnostic.
    fn clean(text: &str) -> Definition {
        let mut d = Vec::new();
        let def = parse("seeker.md", text, &mut d).expect("parsed");
        assert!(d.is_empty(), "{d:?}");
        def
    }

    #[test]
    fn reads_an_anchor_style_file() {
        let def = clean(
            "---\nname: seeker\ndescription: >\n  Finds notes. EN: \"search the vault\", \"find\"; IT: \"cerca nel vault\".\ntools: Read, Glob, Grep\nmodel: sonnet\n---\nBody here\n",
        );
        assert_eq!(
            def.triggers,
            vec!["search the vault", "find", "cerca nel vault"]
        );
        assert_eq!(def.capabilities, vec!["read"]);
        assert_eq!(def.model, ModelSpec::Tier("mid".into()));
        assert_eq!(def.body, "Body here\n");
    }

    #[test]
    fn example_requests_are_read_and_are_no_triggers() {
        // a known key: no warning
        let def = clean(
            "---\nname: seeker\nexamples:\n  - \"where did I put the tax forms?\"\n  - \"cosa so di Rust?\"\n---\n",
        );
        assert_eq!(
            def.examples,
            ["where did I put the tax forms?", "cosa so di Rust?"]
        );
        assert!(def.triggers.is_empty() && def.vocabulary.is_empty());
    }

    /// A mode may add capabilities; an unknown one is an error at the key's line.
    #[test]
    fn a_mode_adds_capabilities_and_only_in_that_mode() {
        let text =
            "---\nname: seeker\ncapabilities: [read]\nmode_capabilities:\n  Edit: [edit]\n---\n";
        let mut d = Vec::new();
        let def = parse("seeker.md", text, &mut d).expect("parsed");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(def.capabilities_in(None), ["read"]);
        assert_eq!(def.capabilities_in(Some("search")), ["read"]);
        assert_eq!(def.capabilities_in(Some("edit")), ["read", "edit"]);
        let text =
            "---\nname: seeker\ncapabilities: [read]\nmode_capabilities:\n  edit: [rewrite]\n---\n";
        let mut d = Vec::new();
        parse("seeker.md", text, &mut d);
        assert!(
            d.iter()
                .any(|x| x.line == 4 && x.message.contains("unknown capability `rewrite`")),
            "{d:?}"
        );
        let mut d = Vec::new();
        parse(
            "s.md",
            "---\nname: s\nmode_capabilities: [edit]\n---\n",
            &mut d,
        );
        assert!(d.iter().any(|x| x.line == 3), "{d:?}");
    }

    #[test]
    fn reports_problems_with_lines() {
        let mut d = Vec::new();
        let text =
            "---\nname: x\ncolour: red\ncapabilities: [read, fly]\nmodel: mistral-large\n---\n";
        parse("x.md", text, &mut d).expect("parsed");
        let msgs: Vec<_> = d.iter().map(|x| (x.line, x.message.clone())).collect();
        assert!(msgs.iter().any(|(l, m)| *l == 3 && m.contains("colour")));
        assert!(msgs.iter().any(|(l, m)| *l == 4 && m.contains("fly")));
        assert!(
            msgs.iter()
                .any(|(l, m)| *l == 5 && m.contains("mistral-large"))
        );
    }

    #[test]
    fn bad_yaml_and_missing_fence_are_errors() {
        let mut d = Vec::new();
        assert!(parse("a.md", "---\nname: [x\n---\n", &mut d).is_none());
        assert!(parse("b.md", "---\nname: x\n", &mut d).is_none());
        assert!(parse("c.md", "---\n\tname: x\n---\n", &mut d).is_none());
        assert_eq!(d.len(), 3);
        assert_eq!(d[2].line, 2);
    }

    #[test]
    fn executor_key() {
        let mut d = Vec::new();
        let def = parse("a.md", "---\nname: a\nexecutor: Hybrid\n---\n", &mut d).expect("a");
        assert_eq!(def.executor, Some(Executor::Hybrid));
        assert!(d.is_empty(), "{d:?}");
        let def = parse(
            "b.md",
            "---\nname: b\nmodel: mid\nexecutor: robot\n---\n",
            &mut d,
        )
        .expect("b");
        assert_eq!(def.executor, None);
        assert!(
            d.iter().any(|x| x.line == 4 && x.message.contains("robot")),
            "{d:?}"
        );
    }

    #[test]
    fn naming_rule() {
        assert!(valid_name("tax-helper"));
        assert!(!valid_name("Tax"));
        assert!(!valid_name("a--b"));
        assert!(!valid_name("-a"));
        assert!(!valid_name(""));
    }

    #[test]
    fn model_prefixes() {
        assert!(known_model_prefix("claude-sonnet-4-5"));
        assert!(known_model_prefix("o3-mini"));
        assert!(known_model_prefix("ollama/llama3.2"));
        assert!(!known_model_prefix("mistral-large"));
    }
}
