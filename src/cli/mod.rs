//! Flags and subcommands, and the mapping of errors to exit codes.

mod agent_new;
mod agents;
mod chat;
mod commands;
mod progress;
mod render;
mod unattended;

use std::io::Write as _;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use crew::crew::root::Access;
use crew::fault::{Fault, HasFault};

/// A failure after the request ran (exit code 1), as opposed to bad input (exit code 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Failed(pub String);

#[derive(Debug, Parser)]
#[command(
    name = "crew",
    version,
    about = "A crew of agents for your Obsidian vault, filesystem-first"
)]
pub struct Cli {
    #[command(flatten)]
    pub global: Global,
    /// More log output on stderr (-v info, -vv debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone)]
pub struct Global {
    /// The vault folder (default: $CREW_VAULT, else the current folder).
    #[arg(long, global = true, env = "CREW_VAULT")]
    pub vault: Option<PathBuf>,
    /// A crew folder to use instead of the vault's own (default: $CREW_DIR).
    #[arg(long, global = true, env = "CREW_DIR")]
    pub crew_dir: Option<PathBuf>,
    /// One JSON document on stdout, nothing else.
    #[arg(long, global = true)]
    pub json: bool,
    /// Answer in this language (en, it, fr, es, de, pt, ja) whatever the request is written
    /// in (default: $CREW_LANG, else the request's language, else the profile's).
    #[arg(long, global = true, env = "CREW_LANG", value_parser = parse_lang)]
    pub lang: Option<crew::lang::Lang>,
}

fn parse_lang(raw: &str) -> Result<crew::lang::Lang, String> {
    crew::lang::Lang::from_code(raw)
        .ok_or_else(|| format!("crew answers in en, it, fr, es, de, pt or ja, not `{raw}`"))
}

impl Global {
    pub fn vault_path(&self) -> PathBuf {
        self.vault.clone().unwrap_or_else(|| PathBuf::from("."))
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create a vault from the bundled template, or install the crew into an existing one.
    Init {
        /// Where (default: the vault folder).
        path: Option<PathBuf>,
        /// Install into an existing vault and map its folders; nothing is moved.
        #[arg(long)]
        adopt: bool,
        /// Add example notes to the inbox.
        #[arg(long)]
        samples: bool,
        /// Show what would be created, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// The one-command tour: a sample vault, a few requests through the real dispatcher.
    Demo {
        /// Where to make the sample vault (default: a new folder under the system temp dir).
        dir: Option<PathBuf>,
    },
    /// Route a message, run the agents, chain their suggestions.
    Ask {
        #[arg(required = true, num_args = 1..)]
        message: Vec<String>,
        /// Show what would change; change nothing.
        #[arg(long)]
        dry_run: bool,
        /// Run this agent or skill instead of routing.
        #[arg(long)]
        agent: Option<String>,
        /// Run the routed agent on this model.
        #[arg(long)]
        model: Option<String>,
        /// Agents per request (1 to 3).
        #[arg(long, value_parser = clap::value_parser!(u8).range(1..=3))]
        max_depth: Option<u8>,
        /// Allow the agents' safe fixes (e.g. repairing links, adding Related sections, merging
        /// the spellings of one tag).
        #[arg(long)]
        fix: bool,
        /// Apply the plan even when the route was guessed (without it, a guessed route that
        /// would change notes only shows its plan).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// A conversation with the crew: each line a request that remembers the earlier ones.
    /// Without a terminal, one turn per input line and the answers on stdout.
    Chat {
        /// Go on with an earlier session (default: the latest); `crew log` shows the session
        /// of each run.
        #[arg(long, value_name = "ID", num_args = 0..=1)]
        resume: Option<Option<String>>,
    },
    /// The routing decision only, no side effects.
    Route {
        #[arg(required = true, num_args = 1..)]
        message: Vec<String>,
    },
    /// The crew definition and custom agents.
    Agents {
        #[command(subcommand)]
        action: AgentsAction,
    },
    /// Skills.
    Skills {
        #[command(subcommand)]
        action: SkillsAction,
    },
    /// Post-its.
    State {
        #[command(subcommand)]
        action: StateAction,
    },
    /// Facts about the vault.
    Vault {
        #[command(subcommand)]
        action: VaultAction,
    },
    /// Ranked search: the note path and the matching line.
    Search {
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
    },
    /// The scheduled maintenance job: audit, health report, safe fixes with --fix.
    Maintain {
        /// Apply safe fixes (each kind capped at 1 % of the notes, at least 5).
        #[arg(long)]
        fix: bool,
        /// Only this kind of fix, without the cap: broken-links, frontmatter, filed-keys.
        #[arg(long, requires = "fix", value_name = "KIND")]
        only: Vec<String>,
        /// Print the full report, not only the summary.
        #[arg(long)]
        report: bool,
        /// List every change it would make; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// File the inbox; or measure how well filing works on this vault.
    Triage {
        /// Estimate precision and coverage of learned filing on the vault's own notes
        /// (leave-one-out), overall and per folder; change nothing.
        #[arg(long, conflicts_with = "evaluate")]
        calibrate: bool,
        /// Move N random filed notes into the inbox of a scratch copy, file them there, and
        /// report coverage, precision and notes lost. The vault itself is only read.
        #[arg(long, value_name = "N")]
        evaluate: Option<usize>,
        /// Which notes --evaluate picks.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// File the named inbox notes into FOLDER (made when missing): how a proposed new
        /// folder is applied.
        #[arg(long, value_name = "FOLDER", requires = "notes", conflicts_with_all = ["calibrate", "evaluate"])]
        into: Option<String>,
        /// The inbox notes --into files (paths, or file names).
        #[arg(value_name = "NOTE", requires = "into")]
        notes: Vec<String>,
        /// Show what filing would do; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Watch the inbox and triage notes as they settle.
    Watch {
        /// Poll the folder instead of using native events (network shares, WSL mounts).
        #[arg(long)]
        poll: bool,
        /// Triage what has settled, then exit.
        #[arg(long)]
        once: bool,
        /// Seconds a note must stay unchanged before it is filed.
        #[arg(long, default_value_t = 2.0)]
        settle: f64,
    },
    /// Install, show or remove the scheduled maintenance (crontab or systemd user timer).
    Schedule {
        #[command(subcommand)]
        action: ScheduleAction,
    },
    /// Past runs.
    Log {
        #[arg(long, default_value_t = 10)]
        last: usize,
    },
    /// Undo a run (default: the last one): the vault becomes byte-identical to before it, but
    /// for crew's own files (agent log, post-its, reports) a later run changed, kept as they are.
    Undo {
        /// The run id (`crew log` lists them).
        run: Option<String>,
        /// Undo one note only: it goes back to what it held before the run (default run: the
        /// newest that changed it). The restore is itself a run `crew undo` takes back.
        #[arg(long, value_name = "PATH")]
        note: Option<String>,
        /// With --note: restore although the note changed since (what it holds now is kept
        /// in the restore's journal).
        #[arg(long, requires = "note")]
        force: bool,
        /// Show what would be undone; change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Configuration, crew validity, model providers and keys, vault layout.
    Doctor,
    /// Serve the vault to an AI assistant over MCP (stdio): search, read, backlinks, stats,
    /// routing, and `ask` (a dry run unless the assistant passes apply).
    Mcp,
}

#[derive(Debug, Subcommand)]
pub enum AgentsAction {
    /// Every agent with its status and model.
    List,
    /// One agent's definition.
    Show { name: String },
    /// Check the crew definition; problems with file and line.
    Validate,
    /// Create a custom agent (file + registry row).
    New {
        name: String,
        #[arg(long)]
        description: Option<String>,
        /// Trigger phrases, comma-separated.
        #[arg(long)]
        triggers: Option<String>,
        /// A request a user might send it, in their own words (repeat for more); the router
        /// learns from these.
        #[arg(long = "example", value_name = "REQUEST")]
        examples: Vec<String>,
        /// Capabilities, comma-separated (default: read).
        #[arg(long)]
        capabilities: Option<String>,
        /// low, mid, high, native, or a model id.
        #[arg(long)]
        model: Option<String>,
        /// Show what would be written, write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Stop routing to a custom agent.
    Disable {
        name: String,
        /// Show what would change, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Route to a disabled custom agent again.
    Enable {
        name: String,
        /// Show what would change, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Retire a custom agent: its file is set aside, its registry row kept as disabled.
    Remove {
        name: String,
        /// Show what would change, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum ScheduleAction {
    /// Schedule `crew maintain --fix` nightly (and `crew watch` at login with --watch).
    Install {
        /// When, HH:MM local time.
        #[arg(long, default_value = "03:30")]
        at: String,
        /// Also keep `crew watch` running.
        #[arg(long)]
        watch: bool,
        /// Use a systemd user timer.
        #[arg(long, conflicts_with = "cron")]
        systemd: bool,
        /// Use the user's crontab.
        #[arg(long)]
        cron: bool,
        /// Show the entries that would be installed, install nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// What is scheduled for this vault.
    Show,
    /// Remove exactly this vault's entries.
    Remove {
        /// Show what would be removed, remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum SkillsAction {
    List,
    Show { name: String },
}

#[derive(Debug, Subcommand)]
pub enum StateAction {
    /// Show one post-it, or all.
    Show { agent: Option<String> },
    /// Empty an agent's post-it.
    Clear {
        agent: String,
        /// Show what would change, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
}

#[derive(Debug, Subcommand)]
pub enum VaultAction {
    /// Counts of the vault.
    Stats,
    /// The quick health check (exit 1 when attention is needed).
    Check,
}

pub fn init_tracing(verbose: u8) {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("CREW_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(level));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}

/// What a command does with the vault folder, for the check that it is one crew may touch.
fn vault_access(command: &Command) -> Option<Access> {
    let write_unless = |dry_run: bool| Some(if dry_run { Access::Read } else { Access::Write });
    match command {
        // init checks its own target; demo makes its own vault; route reads only the crew
        Command::Init { .. } | Command::Demo { .. } | Command::Route { .. } => None,
        Command::Ask { dry_run, .. } | Command::Maintain { dry_run, .. } => write_unless(*dry_run),
        Command::Undo { dry_run, .. } => write_unless(*dry_run),
        Command::Watch { .. } | Command::Chat { .. } => Some(Access::Write),
        Command::Triage {
            calibrate,
            evaluate,
            dry_run,
            ..
        } => write_unless(*dry_run || *calibrate || evaluate.is_some()),
        Command::Agents { action } => match action {
            AgentsAction::New { dry_run, .. }
            | AgentsAction::Disable { dry_run, .. }
            | AgentsAction::Enable { dry_run, .. }
            | AgentsAction::Remove { dry_run, .. } => write_unless(*dry_run),
            AgentsAction::List | AgentsAction::Show { .. } | AgentsAction::Validate => None,
        },
        Command::Skills { .. } | Command::Doctor => None,
        Command::State { action } => match action {
            StateAction::Show { .. } => Some(Access::Read),
            StateAction::Clear { dry_run, .. } => write_unless(*dry_run),
        },
        Command::Schedule { action } => match action {
            ScheduleAction::Install { dry_run, .. } => write_unless(*dry_run),
            ScheduleAction::Show | ScheduleAction::Remove { .. } => None,
        },
        // the server reads; its `ask` with apply checks for a vault itself, as `crew ask` does
        Command::Vault { .. } | Command::Search { .. } | Command::Log { .. } | Command::Mcp => {
            Some(Access::Read)
        }
    }
}

pub fn dispatch(cli: Cli) -> anyhow::Result<u8> {
    let g = cli.global;
    if let Some(access) = vault_access(&cli.command) {
        crew::crew::root::check(&g.vault_path(), access)?;
    }
    match cli.command {
        Command::Init {
            path,
            adopt,
            samples,
            dry_run,
        } => commands::init(&g, path, adopt, samples, dry_run),
        Command::Demo { dir } => commands::demo(&g, dir),
        Command::Ask {
            message,
            dry_run,
            agent,
            model,
            max_depth,
            fix,
            yes,
        } => commands::ask(
            &g,
            &message.join(" "),
            commands::AskFlags {
                dry_run,
                agent,
                model,
                max_depth: max_depth.map(usize::from),
                fix,
                yes,
                file_into: None,
            },
        ),
        Command::Route { message } => commands::route(&g, &message.join(" ")),
        Command::Chat { resume } => chat::chat(&g, resume.as_ref().map(Option::as_deref)),
        Command::Agents { action } => agents::agents(&g, action),
        Command::Skills { action } => agents::skills(&g, action),
        Command::State { action } => commands::state(&g, action),
        Command::Vault { action } => commands::vault(&g, &action),
        Command::Search { query, limit } => commands::search(&g, &query.join(" "), limit),
        Command::Maintain {
            fix,
            only,
            report,
            dry_run,
        } => unattended::maintain(&g, fix, &only, report, dry_run),
        Command::Log { last } => commands::log(&g, last),
        Command::Triage {
            calibrate,
            evaluate,
            seed,
            dry_run,
            into,
            notes,
        } => {
            let file_into = into.map(|folder| crew::agents::sorter::into::FileInto {
                folder: folder.trim_matches('/').to_string(),
                notes,
            });
            unattended::triage(&g, calibrate, evaluate, seed, dry_run, file_into)
        }
        Command::Watch { poll, once, settle } => unattended::watch(&g, poll, once, settle),
        Command::Schedule { action } => unattended::schedule(&g, action),
        Command::Undo {
            run,
            note,
            force,
            dry_run,
        } => match note {
            Some(note) => commands::undo_note(&g, run, &note, force, dry_run),
            None => commands::undo(&g, run, dry_run),
        },
        Command::Doctor => commands::doctor(&g),
        Command::Mcp => {
            crew::mcp::serve(&g.vault_path(), g.crew_dir.as_deref(), g.lang)?;
            Ok(0)
        }
    }
}

pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// Exit code 1 for failures after the request ran (a write that failed, a busy lock, an undo
/// that conflicts); 2 for everything that is bad usage or bad input.
pub fn exit_code_of(e: &anyhow::Error) -> u8 {
    let ran_and_failed = e.chain().filter_map(fault_of).any(|f| f == Fault::Run);
    if ran_and_failed {
        Exit::Failed as u8
    } else {
        Exit::BadInput as u8
    }
}

/// The exit codes of `crew`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// The request ran but something failed or needs attention.
    Failed = 1,
    /// Bad usage or bad input: nothing ran.
    BadInput = 2,
}

/// Whose problem one error of a chain is, when it is one of crew's typed errors.
fn fault_of(cause: &(dyn std::error::Error + 'static)) -> Option<Fault> {
    macro_rules! first_of {
        ($($t:ty),* $(,)?) => {
            $(if let Some(e) = cause.downcast_ref::<$t>() {
                return Some(e.fault());
            })*
        };
    }
    first_of!(
        Failed,
        crew::gate::GateError,
        crew::state::undo::UndoError,
        crew::state::lock::LockError,
        crew::run::RunError,
        crew::schedule::ScheduleError,
        crew::watch::WatchError,
        crew::vault::VaultError,
        crew::mcp::McpError,
    );
    None
}

impl HasFault for Failed {
    fn fault(&self) -> Fault {
        Fault::Run
    }
}

/// Writes to stdout; a closed pipe surfaces as an error that ends the program quietly.
pub fn out(text: &str) -> anyhow::Result<()> {
    let mut o = std::io::stdout().lock();
    o.write_all(text.as_bytes())?;
    if !text.ends_with('\n') && !text.is_empty() {
        o.write_all(b"\n")?;
    }
    o.flush()?;
    Ok(())
}

pub fn out_json(value: &impl serde::Serialize) -> anyhow::Result<()> {
    out(&serde_json::to_string_pretty(value)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_vault_that_cannot_be_read_is_a_failure_not_bad_usage() {
        let io = crew::vault::VaultError::Io {
            path: "/v/Notes".into(),
            source: std::io::Error::from(std::io::ErrorKind::PermissionDenied),
        };
        assert_eq!(exit_code_of(&anyhow::Error::new(io)), 1);
        let missing = crew::vault::VaultError::Missing("/nowhere".into());
        assert_eq!(exit_code_of(&anyhow::Error::new(missing)), 2);
    }

    #[test]
    fn each_error_says_whose_problem_it_is_through_any_context() {
        let protected = crew::gate::GateError::Protected {
            path: ".obsidian/app.json".into(),
            reason: "Obsidian's settings".into(),
        };
        assert_eq!(exit_code_of(&anyhow::Error::new(protected)), 2);
        let busy = crew::state::lock::LockError::Busy {
            holder: "crew maintain".into(),
            waited: std::time::Duration::from_secs(1),
        };
        let wrapped = anyhow::Error::new(crew::run::RunError::Lock(busy)).context("crew ask");
        assert_eq!(exit_code_of(&wrapped), 1);
        assert_eq!(
            exit_code_of(&anyhow::Error::new(crew::run::RunError::NoRoute)),
            2
        );
        assert_eq!(exit_code_of(&anyhow::anyhow!("a plain message")), 2);
        assert_eq!(exit_code_of(&anyhow::Error::new(Failed("x".into()))), 1);
    }
}
