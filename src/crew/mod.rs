//! The crew definition: agents, skills, the registry and the config, found and validated.

pub mod config;
pub mod definition;
pub mod dispatcher;
pub mod host;
pub mod mailcal;
pub mod registry;
pub mod root;
mod validate;

use std::path::{Path, PathBuf};

use include_dir::{Dir, include_dir};
use serde::Serialize;

pub use config::{CrewConfig, Folders};
pub use definition::{Definition, Executor, ModelSpec};
pub use registry::{Registry, Status};

/// The eight core agents, in routing priority order (highest first).
pub(crate) const CORE_AGENTS: &[&str] = &[
    "postman",
    "transcriber",
    "scribe",
    "seeker",
    "architect",
    "sorter",
    "connector",
    "librarian",
];

/// The built-in crew, parsed once: installed crews borrow what their files leave out.
static BUILTIN: std::sync::LazyLock<Crew> = std::sync::LazyLock::new(Crew::builtin);

static BUILTIN_AGENTS: Dir = include_dir!("$CARGO_MANIFEST_DIR/agents");
static BUILTIN_SKILLS: Dir = include_dir!("$CARGO_MANIFEST_DIR/skills");
static BUILTIN_REFERENCES: Dir = include_dir!("$CARGO_MANIFEST_DIR/references");

/// A problem in a crew file, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diagnostic {
    pub file: String,
    pub line: usize,
    pub severity: Severity,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

impl Diagnostic {
    pub fn error(file: &str, line: usize, message: &str) -> Self {
        Diagnostic {
            file: file.to_string(),
            line,
            severity: Severity::Error,
            message: message.to_string(),
        }
    }

    pub fn warning(file: &str, line: usize, message: &str) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(file, line, message)
        }
    }
}

impl std::fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, "{}:{}: {sev}: {}", self.file, self.line, self.message)
    }
}

/// Where a crew was found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "path", rename_all = "lowercase")]
pub enum CrewSource {
    /// A folder on disk (`--crew-dir`, `$CREW_DIR`, `.crew/`, or an anchor layout).
    Dir(PathBuf),
    /// The crew compiled into the binary.
    Builtin,
}

/// A route target: a skill or an agent.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize, PartialOrd, Ord,
)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    Skill,
    Agent,
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Skill => "skill",
            Kind::Agent => "agent",
        }
    }
}

/// A loaded crew.
#[derive(Debug, Clone)]
pub struct Crew {
    pub agents: Vec<Definition>,
    pub skills: Vec<Definition>,
    pub registry: Registry,
    pub config: CrewConfig,
    pub source: CrewSource,
    /// Where the config came from, if a file.
    pub config_file: Option<String>,
    /// The host's dispatcher file whose trigger lines were merged in, if one was found.
    pub dispatcher_file: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The files of a crew, from disk or from the binary.
struct CrewFiles {
    agents: Vec<(String, String)>,
    skills: Vec<(String, String)>,
    registry: Option<(String, String)>,
    dispatcher: Option<(String, String)>,
}

fn read_dir_files(dir: &Path, label: &str) -> CrewFiles {
    let read = |p: &Path| {
        std::fs::read(p)
            .ok()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
    };
    let mut agents = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir.join("agents")) {
        let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|e| e == "md")
                && p.is_file()
                && let Some(text) = read(&p)
            {
                agents.push((p.to_string_lossy().into_owned(), text));
            }
        }
    }
    let mut skills = Vec::new();
    let mut skill_dirs = vec![dir.join("skills")];
    if label == ".codex"
        && let Some(vault) = dir.parent()
    {
        skill_dirs.push(vault.join(".agents").join("skills"));
    }
    for sd in skill_dirs {
        if let Ok(rd) = std::fs::read_dir(&sd) {
            let mut paths: Vec<PathBuf> = rd.flatten().map(|e| e.path().join("SKILL.md")).collect();
            paths.sort();
            for p in paths {
                if let Some(text) = read(&p) {
                    skills.push((p.to_string_lossy().into_owned(), text));
                }
            }
        }
    }
    let reg_path = dir.join("references").join("agents-registry.md");
    let registry = read(&reg_path).map(|t| (reg_path.to_string_lossy().into_owned(), t));
    let dispatcher = dispatcher::candidates(dir)
        .into_iter()
        .filter(|p| p.is_file())
        .find_map(|p| read(&p).map(|t| (p.to_string_lossy().into_owned(), t)));
    CrewFiles {
        agents,
        skills,
        registry,
        dispatcher,
    }
}

fn builtin_files() -> CrewFiles {
    let text = |f: &include_dir::File| f.contents_utf8().unwrap_or("").to_string();
    let mut agents: Vec<(String, String)> = BUILTIN_AGENTS
        .files()
        .filter(|f| f.path().extension().is_some_and(|e| e == "md"))
        .map(|f| (format!("builtin:agents/{}", f.path().display()), text(f)))
        .collect();
    agents.sort();
    let mut skills: Vec<(String, String)> = BUILTIN_SKILLS
        .dirs()
        .filter_map(|d| d.get_file(d.path().join("SKILL.md")))
        .map(|f| (format!("builtin:skills/{}", f.path().display()), text(f)))
        .collect();
    skills.sort();
    let registry = BUILTIN_REFERENCES
        .get_file("agents-registry.md")
        .map(|f| ("builtin:references/agents-registry.md".to_string(), text(f)));
    CrewFiles {
        agents,
        skills,
        registry,
        dispatcher: None,
    }
}

/// The built-in crew's files, for `crew init` to install: (relative path, contents).
pub(crate) fn builtin_tree() -> Vec<(String, &'static [u8])> {
    let mut out = Vec::new();
    fn walk(dir: &'static Dir<'static>, prefix: &str, out: &mut Vec<(String, &'static [u8])>) {
        for f in dir.files() {
            out.push((format!("{prefix}/{}", f.path().display()), f.contents()));
        }
        for d in dir.dirs() {
            walk(d, prefix, out);
        }
    }
    walk(&BUILTIN_AGENTS, "agents", &mut out);
    walk(&BUILTIN_SKILLS, "skills", &mut out);
    walk(&BUILTIN_REFERENCES, "references", &mut out);
    out.sort();
    out
}

/// A folder holds a crew when it has agent files or a registry.
fn looks_like_crew(dir: &Path) -> bool {
    dir.join("references").join("agents-registry.md").is_file()
        || std::fs::read_dir(dir.join("agents"))
            .map(|rd| {
                rd.flatten()
                    .any(|e| e.path().extension().is_some_and(|x| x == "md"))
            })
            .unwrap_or(false)
}

/// Errors finding a crew.
#[derive(Debug, thiserror::Error)]
pub enum CrewError {
    #[error("crew folder {0} does not exist or holds no agents/ or references/agents-registry.md")]
    NotACrew(PathBuf),
}

/// Finds the crew for a vault: `explicit` (from `--crew-dir` or `$CREW_DIR`), `<vault>/.crew/`,
/// the anchor's installed layouts, then the built-in crew.
pub(crate) fn discover(vault: &Path, explicit: Option<&Path>) -> Result<CrewSource, CrewError> {
    if let Some(dir) = explicit {
        if looks_like_crew(dir) {
            return Ok(CrewSource::Dir(dir.to_path_buf()));
        }
        return Err(CrewError::NotACrew(dir.to_path_buf()));
    }
    for name in [
        ".crew",
        ".claude",
        ".gemini",
        ".opencode",
        ".codex",
        ".platform",
    ] {
        let dir = vault.join(name);
        if looks_like_crew(&dir) {
            return Ok(CrewSource::Dir(dir));
        }
    }
    Ok(CrewSource::Builtin)
}

impl Crew {
    /// The crew to run when this one's definition has errors: the built-in agents and skills
    /// with this crew's config (its folder roles above all), so filing and maintenance never
    /// stop because an agent file or the registry was damaged.
    pub fn fallback(&self) -> Crew {
        let mut crew = Crew::builtin();
        crew.config = self.config.clone();
        crew.config_file = self.config_file.clone();
        if crew.lookup(&crew.config.default_route).is_none() {
            crew.config.default_route = CrewConfig::default().default_route;
        }
        let overrides = std::mem::take(&mut crew.config.route_overrides);
        crew.config.route_overrides = overrides
            .into_iter()
            .filter(|o| crew.lookup(&o.route).is_some())
            .collect();
        crew
    }

    /// The built-in crew with its default config.
    pub fn builtin() -> Crew {
        Crew::from_files(&builtin_files(), CrewSource::Builtin, None)
    }

    /// Loads the crew found for `vault` (see [`discover`]). The config is read from the crew
    /// folder's `config.yaml`, else from `<vault>/.crew/config.yaml`, else defaults.
    pub fn load(vault: &Path, explicit: Option<&Path>) -> Result<Crew, CrewError> {
        let source = discover(vault, explicit)?;
        let files = match &source {
            CrewSource::Dir(d) => {
                read_dir_files(d, &d.file_name().unwrap_or_default().to_string_lossy())
            }
            CrewSource::Builtin => builtin_files(),
        };
        let mut config_paths = Vec::new();
        if let CrewSource::Dir(d) = &source {
            config_paths.push(d.join("config.yaml"));
        }
        config_paths.push(vault.join(".crew").join("config.yaml"));
        let config = config_paths
            .into_iter()
            .find(|p| p.is_file())
            .and_then(|p| {
                std::fs::read_to_string(&p)
                    .ok()
                    .map(|t| (p.to_string_lossy().into_owned(), t))
            });
        Ok(Crew::from_files(&files, source, config.as_ref()))
    }

    fn from_files(
        files: &CrewFiles,
        source: CrewSource,
        config: Option<&(String, String)>,
    ) -> Crew {
        let mut diags = Vec::new();
        let mut agents: Vec<Definition> = files
            .agents
            .iter()
            .filter_map(|(f, t)| definition::parse(f, t, &mut diags))
            .collect();
        let mut skills: Vec<Definition> = files
            .skills
            .iter()
            .filter_map(|(f, t)| definition::parse(f, t, &mut diags))
            .collect();
        let registry = match &files.registry {
            Some((f, t)) => registry::parse(f, t, &mut diags),
            None => Registry::default(),
        };
        let dispatcher_file = files.dispatcher.as_ref().map(|(f, t)| {
            let triggers = dispatcher::parse(f, t);
            merge_dispatcher(&triggers, &mut agents, &mut skills, &mut diags);
            f.clone()
        });
        if source != CrewSource::Builtin {
            borrow_vocabulary(&mut agents, &mut skills);
        }
        let (config_file, config) = match &config {
            Some((f, t)) => (Some(f.clone()), CrewConfig::parse(f, t, &mut diags)),
            None => (None, CrewConfig::default()),
        };
        let mut crew = Crew {
            agents,
            skills,
            registry,
            config,
            source,
            config_file,
            dispatcher_file,
            diagnostics: diags,
        };
        crew.validate();
        crew
    }

    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    /// Whether crew laid out this vault (`crew init`): only then may agents add structure —
    /// folders, indexes, MOCs — that the user did not ask for. A vault crew adopted, or one with
    /// no crew config at all, keeps the layout its owner made.
    pub(crate) fn owns_layout(&self) -> bool {
        self.config_file.is_some() && !self.config.adopted
    }

    /// Whether an agent or skill may change the vault (it holds `write` or `edit`). Unknown
    /// names count as writers: the careful reading.
    pub fn writes(&self, kind: Kind, name: &str) -> bool {
        self.writes_in(kind, name, None)
    }

    /// Whether the agent or skill may change the vault in `mode` (a mode may add capabilities:
    /// the seeker's edit mode adds `edit`).
    pub fn writes_in(&self, kind: Kind, name: &str, mode: Option<&str>) -> bool {
        let def = self.definition(kind, name);
        def.is_none_or(|d| d.may_write(mode))
    }

    pub fn agent(&self, name: &str) -> Option<&Definition> {
        self.agents.iter().find(|a| a.name == name)
    }

    pub fn skill(&self, name: &str) -> Option<&Definition> {
        self.skills.iter().find(|s| s.name == name)
    }

    /// The definition of a route: an agent's or a skill's.
    pub fn definition(&self, kind: Kind, name: &str) -> Option<&Definition> {
        match kind {
            Kind::Agent => self.agent(name),
            Kind::Skill => self.skill(name),
        }
    }

    pub fn is_core(name: &str) -> bool {
        CORE_AGENTS.contains(&name)
    }

    /// Whether an agent may be dispatched: it has a file, and its registry row (when the crew
    /// has a registry) is active. Core agents without a registry are active.
    pub fn agent_active(&self, name: &str) -> bool {
        if self.agent(name).is_none() {
            return false;
        }
        if self.registry.agents.is_empty() {
            return true;
        }
        self.registry
            .agents
            .iter()
            .find(|r| r.name == name)
            .is_some_and(|r| r.status == Status::Active)
    }

    pub(crate) fn skill_active(&self, name: &str) -> bool {
        if self.skill(name).is_none() {
            return false;
        }
        self.registry
            .skills
            .iter()
            .find(|r| r.name == name)
            .is_none_or(|r| r.status == Status::Active)
    }

    /// Who does a route's work: what its definition declares, else the built-in crew's
    /// declaration for the same role (filled in at load), else — a custom agent or skill that
    /// says nothing — a model when it names one, native when it says `model: native`.
    pub fn executor(&self, kind: Kind, name: &str) -> Executor {
        let def = self.definition(kind, name);
        match def {
            Some(d) => d.executor.unwrap_or(match d.model {
                ModelSpec::Native => Executor::Native,
                _ => Executor::Model,
            }),
            None => Executor::Model,
        }
    }

    /// What a custom agent takes, from its registry row's `Input` column: the anchor's
    /// dispatcher matches messages against it when no skill or core agent fits.
    pub(crate) fn custom_input(&self, name: &str) -> Option<&str> {
        self.registry
            .agents
            .iter()
            .find(|r| r.name == name && r.custom && !Crew::is_core(name))
            .map(|r| r.input.as_str())
            .filter(|i| !i.trim().is_empty())
    }

    /// Routing rank of an agent: core agents by priority, custom agents after all of them.
    pub fn priority(name: &str) -> usize {
        CORE_AGENTS
            .iter()
            .position(|c| *c == name)
            .unwrap_or(CORE_AGENTS.len())
    }

    /// The post-it owner of a route: the agent itself, or a skill's source agent.
    pub fn postit_owner(&self, kind: Kind, name: &str) -> String {
        match kind {
            Kind::Agent => name.to_string(),
            Kind::Skill => self
                .skill(name)
                .and_then(|s| s.source_agent.clone())
                .or_else(|| {
                    self.registry
                        .skills
                        .iter()
                        .find(|r| r.name == name)
                        .map(|r| r.source_agent.clone())
                })
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| name.to_string()),
        }
    }

    /// Resolves a user- or model-given name to an active route (agents first, then skills).
    pub fn lookup(&self, raw: &str) -> Option<(Kind, String)> {
        let want = normalize_name(raw);
        if want.is_empty() {
            return None;
        }
        for a in &self.agents {
            if normalize_name(&a.name) == want && self.agent_active(&a.name) {
                return Some((Kind::Agent, a.name.clone()));
            }
        }
        for s in &self.skills {
            if normalize_name(&s.name) == want && self.skill_active(&s.name) {
                return Some((Kind::Skill, s.name.clone()));
            }
        }
        None
    }

    /// Where the crew's own files live on disk, if anywhere.
    pub fn dir(&self) -> Option<&Path> {
        match &self.source {
            CrewSource::Dir(d) => Some(d),
            CrewSource::Builtin => None,
        }
    }
}

/// Gives an agent or skill that declares no vocabulary (or example requests) the built-in
/// ones of the same name: an installed anchor crew's files carry trigger phrases only, and
/// without domain words the offline scorer cannot place a request phrased in the user's own
/// words.
fn borrow_vocabulary(agents: &mut [Definition], skills: &mut [Definition]) {
    let builtin = &*BUILTIN;
    let pairs = agents
        .iter_mut()
        .map(|d| (builtin.agent(&d.name), d))
        .chain(skills.iter_mut().map(|d| (builtin.skill(&d.name), d)));
    for (known, def) in pairs {
        let Some(b) = known else { continue };
        if def.vocabulary.is_empty() {
            def.vocabulary = b.vocabulary.clone();
        }
        // the same role is asked for in the same words: its example requests teach the
        // learned router as they do the built-in crew's
        if def.examples.is_empty() {
            def.examples = b.examples.clone();
        }
        // the same role does the same kind of work: an anchor's `model: sonnet` names the
        // model for its language work, not a reason to send filing to a model
        if def.executor.is_none() {
            def.executor = b.executor;
        }
        // an installed crew's skills name no model: a skill doing language work runs on the
        // tier crew's own declares for it, so a mapped tier reaches it
        if !def.model_declared {
            def.model = b.model.clone();
        }
    }
}

/// Adds the dispatcher's trigger phrases to the agents and skills they name (once each). A name
/// the crew does not define is reported as a warning: the host would ignore it too.
fn merge_dispatcher(
    triggers: &dispatcher::DispatcherTriggers,
    agents: &mut [Definition],
    skills: &mut [Definition],
    diags: &mut Vec<Diagnostic>,
) {
    for (name, phrases, line) in &triggers.entries {
        let Some(def) = agents
            .iter_mut()
            .chain(skills.iter_mut())
            .find(|d| &d.name == name)
        else {
            diags.push(Diagnostic::warning(
                &triggers.file,
                *line,
                &format!("the dispatcher gives trigger phrases to `{name}`, which is no agent or skill of this crew; they are ignored"),
            ));
            continue;
        };
        for p in phrases {
            if !def.triggers.iter().any(|t| t.eq_ignore_ascii_case(p)) {
                def.triggers.push(p.clone());
            }
        }
    }
}

/// Normalises an agent name as the resolver compares it: lowercase, alphanumerics only.
pub(crate) fn normalize_name(raw: &str) -> String {
    raw.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}
