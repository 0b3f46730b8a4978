//! The vault tools a model may call: few, paginated, each allowed only by a capability, every
//! change through the write gate. Errors go back to the model as text so it can recover.

use serde_json::{Value, json};

use super::{ToolCall, ToolSpec};
use crate::crew::Folders;
use crate::crew::config::holds_template_syntax;
use crate::gate::{Gate, GateError, MODEL_READ_CAP, jail};

/// What a tool call is given besides its arguments.
pub struct ToolContext<'a> {
    pub folders: &'a Folders,
    pub capabilities: &'a [String],
    pub today: chrono::NaiveDate,
    /// The user's own words for this run (the request, and in a chat their earlier turns).
    /// Only these open crew's files, templates and the profile to a model: text a tool read —
    /// a note, a mail — is data and can never name its way in.
    pub request: &'a str,
    /// The only notes a write may touch, when the run's mode granted the writing (the seeker's
    /// Edit mode: the notes crew's own pass found for the request); `None`: any the gate allows.
    /// A note's text naming another note can never widen it.
    pub scope: Option<&'a [String]>,
}

/// Notes per page of `list_notes`.
pub(crate) const LIST_PAGE: usize = 100;
/// Characters per page of `read_note`.
pub(crate) const READ_PAGE: usize = 8_000;

fn spec(name: &str, description: &str, parameters: Value) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: description.into(),
        parameters,
    }
}

/// The tools an agent with `capabilities` may use.
pub(crate) fn specs(capabilities: &[String]) -> Vec<ToolSpec> {
    let has = |c: &str| capabilities.iter().any(|x| x == c);
    let mut out = Vec::new();
    if has("read") {
        out.push(spec(
            "list_notes",
            "List the notes of the vault (or of one folder), 100 per page.",
            json!({"type": "object", "properties": {"folder": {"type": "string", "description": "vault-relative folder; empty for all"}, "page": {"type": "integer", "minimum": 1}}}),
        ));
        out.push(spec(
            "read_note",
            "Read a note. Long notes come in pages of 8000 characters; pass offset to continue.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "offset": {"type": "integer", "minimum": 0}}, "required": ["path"]}),
        ));
        out.push(spec(
            "search_notes",
            "Ranked search over titles, frontmatter and text; returns paths and matching lines. Filters: tag:x type:x path:x.",
            json!({"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1, "maximum": 50}}, "required": ["query"]}),
        ));
    }
    if has("write") {
        out.push(spec(
            "write_note",
            "Write a note: mode create (never replaces; a free name is chosen), overwrite, or append.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "string", "enum": ["create", "overwrite", "append"]}}, "required": ["path", "content"]}),
        ));
        out.push(spec(
            "move_note",
            "Move or rename a note; every link to it is kept working. Never replaces a note.",
            json!({"type": "object", "properties": {"from": {"type": "string"}, "to": {"type": "string"}}, "required": ["from", "to"]}),
        ));
    }
    if has("edit") {
        out.push(spec(
            "edit_note",
            "Replace one exact passage of a note with new text. The passage must occur exactly once.",
            json!({"type": "object", "properties": {"path": {"type": "string"}, "find": {"type": "string"}, "replace": {"type": "string"}}, "required": ["path", "find", "replace"]}),
        ));
    }
    out
}

/// Why a tool call did nothing: told to the model as the call's result, so it can try again
/// another way.
#[derive(Debug, thiserror::Error)]
pub(crate) enum ToolError {
    #[error("missing string argument `{0}`")]
    MissingArgument(String),
    #[error("`{0}` is not a note path; note paths end in .md")]
    NotANotePath(String),
    #[error("`{path}` is in a hidden folder; {instead}")]
    Hidden { path: String, instead: String },
    #[error("refused `{path}`: {why}; a model changes it only when the user's request names it")]
    Closed { path: String, why: &'static str },
    #[error(
        "refused `{0}`: the text holds Templater code (`<% … %>`), which Obsidian may run; a model writes it only when the user's request asks for templates"
    )]
    Templater(String),
    #[error(
        "refused `{0}`: that would empty the note; a model replaces a note's text but never blanks it (edit_note changes a passage)"
    )]
    Emptying(String),
    #[error("no note at `{0}`; list_notes or search_notes finds paths")]
    NoNote(String),
    #[error("mode `{0}` is not create, overwrite or append")]
    UnknownMode(String),
    #[error("`find` is empty")]
    EmptyFind,
    #[error("the passage was not found in {0}; read_note shows its exact text")]
    PassageNotFound(String),
    #[error("the passage occurs {times} times in {path}; include more context so it occurs once")]
    PassageRepeated { path: String, times: usize },
    #[error(
        "refused `{path}`: this request may change only the notes it named ({allowed}); say so to the user instead"
    )]
    OutOfScope { path: String, allowed: String },
    #[error("unknown tool `{0}`")]
    UnknownTool(String),
    #[error(transparent)]
    Gate(#[from] GateError),
}

fn arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, ToolError> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ToolError::MissingArgument(key.to_string()))
}

fn note_path(p: &str) -> Result<String, ToolError> {
    let p = p.trim().trim_start_matches("./");
    if p.to_lowercase().ends_with(".md") {
        Ok(p.to_string())
    } else {
        Err(ToolError::NotANotePath(p.to_string()))
    }
}

/// Whether a vault-relative path lies in a hidden file or folder (`.trash`, `.obsidian`,
/// `.crew`, `.git`, …): those hold Obsidian's, git's and crew's machinery and deleted notes,
/// never the user's notes, so a model neither reads nor lists them.
pub(crate) fn is_hidden(path: &str) -> bool {
    path.split('/').any(|part| part.starts_with('.'))
}

/// A path a model may read: jailed, and outside hidden folders.
fn readable_path(p: &str) -> Result<String, ToolError> {
    readable_file(
        &note_path(p)?,
        "a model reads only the vault's notes (list_notes shows them)",
    )
}

/// Any file an outside reader may read (a note or an attachment): jailed — vault-relative, no
/// `..` — and outside hidden folders. `instead` ends the refusal of a hidden path. The MCP
/// server reads through this jail too, so both outside readers stop at the same walls.
pub(crate) fn readable_file(p: &str, instead: &str) -> Result<String, ToolError> {
    let path = jail(p)?;
    if is_hidden(&path) {
        return Err(ToolError::Hidden {
            path,
            instead: instead.to_string(),
        });
    }
    Ok(path)
}

/// Lower case, with `-` and `_` read as spaces, so "user profile" names `user-profile.md`.
fn loose(text: &str) -> String {
    text.to_lowercase().replace(['-', '_'], " ")
}

/// Whether `needle` occurs in `hay` as whole words (not inside a longer word).
fn has_words(hay: &str, needle: &str) -> bool {
    if needle.is_empty() {
        return false;
    }
    let edge = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    hay.match_indices(needle).any(|(at, _)| {
        edge(hay[..at].chars().next_back()) && edge(hay[at + needle.len()..].chars().next())
    })
}

/// Whether the user's request names a note: its path, its file name or its title (the name
/// without `.md`), as whole words.
fn request_names(request: &str, path: &str) -> bool {
    let request = loose(request);
    let path = loose(path);
    let file = path.rsplit('/').next().unwrap_or(&path);
    let title = file.strip_suffix(".md").unwrap_or(file);
    has_words(&request, &path) || has_words(&request, file) || has_words(&request, title.trim())
}

/// Why a note is closed to a model's write, edit and move tools unless the user's request
/// names it: crew's own files (post-its, the agent log, reports), templates and the user's
/// profile are what a model was seen to rewrite when text in a note told it to.
fn closed_because(gate: &Gate, folders: &Folders, path: &str) -> Option<&'static str> {
    let lower = path.to_lowercase();
    if folders.crew_owned(path) {
        return Some("it is one of crew's own files (post-its, the agent log, reports)");
    }
    if lower == format!("{}/user-profile.md", folders.meta).to_lowercase() {
        return Some("it is the user's profile");
    }
    if folders.in_templates(path) {
        return Some("it is in the templates folder");
    }
    // a template elsewhere is known by its syntax; a file too big or unreadable is no template
    if gate
        .read_text(path)
        .is_some_and(|t| holds_template_syntax(&t))
    {
        return Some("it is a template (it holds template syntax)");
    }
    None
}

/// Refuses a change to a closed note the request does not name.
fn guard(gate: &Gate, ctx: &ToolContext, path: &str) -> Result<(), ToolError> {
    if let Some(scope) = ctx.scope
        && !scope.iter().any(|p| p.eq_ignore_ascii_case(path))
    {
        return Err(ToolError::OutOfScope {
            path: path.to_string(),
            allowed: if scope.is_empty() {
                "none".to_string()
            } else {
                scope.join(", ")
            },
        });
    }
    match closed_because(gate, ctx.folders, path) {
        Some(why) if !request_names(ctx.request, path) => Err(ToolError::Closed {
            path: path.to_string(),
            why,
        }),
        _ => Ok(()),
    }
}

/// Refuses new text holding Templater code (`<% … %>`) unless the user asked for templates:
/// Templater runs such code when a note is created or used as a template, so a model (told by
/// a note or a mail) could otherwise plant a script.
fn guard_content(ctx: &ToolContext, path: &str, text: &str) -> Result<(), ToolError> {
    let templater = text.contains("<%") && text.contains("%>");
    let asked = has_words(&loose(ctx.request), "template")
        || has_words(&loose(ctx.request), "templater")
        || has_words(&loose(ctx.request), "templates")
        || request_names(ctx.request, path);
    if templater && !asked {
        return Err(ToolError::Templater(path.to_string()));
    }
    Ok(())
}

/// Whether a note's text says nothing: fewer than three letters or digits outside its
/// frontmatter. Replacing a note with that is how a model emptied one.
fn near_blank(text: &str) -> bool {
    let body = text
        .strip_prefix("---\n")
        .and_then(|rest| rest.find("\n---").map(|end| &rest[end + 4..]))
        .unwrap_or(text);
    body.chars().filter(|c| c.is_alphanumeric()).count() < 3
}

/// Refuses turning a note that says something into one that says nothing.
fn refuse_emptying(old: &str, new: &str, path: &str) -> Result<(), ToolError> {
    if near_blank(new) && !near_blank(old) {
        return Err(ToolError::Emptying(path.to_string()));
    }
    Ok(())
}

/// A note's text for a model: through the gate's read jail (no symlink, only a regular file,
/// never a FIFO or device) and at most [`MODEL_READ_CAP`] bytes.
fn model_read(gate: &Gate, path: &str) -> Result<String, ToolError> {
    match gate.read_checked(path, MODEL_READ_CAP) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(GateError::NotFound { .. }) => Err(ToolError::NoNote(path.to_string())),
        Err(e) => Err(e.into()),
    }
}

/// Runs one tool call and returns its result text (an error is a result too).
pub fn execute(gate: &mut Gate, ctx: &ToolContext, call: &ToolCall) -> String {
    if !specs(ctx.capabilities).iter().any(|s| s.name == call.name) {
        return format!("error: tool `{}` is not available to this agent", call.name);
    }
    let args = match &call.arguments {
        Ok(a) => a.clone(),
        Err(raw) => {
            let shown: String = raw.chars().take(200).collect();
            return format!(
                "error: the arguments are not a JSON object ({shown}); call {} again with a JSON object",
                call.name
            );
        }
    };
    match run(gate, ctx, &call.name, &args) {
        Ok(s) => s,
        Err(e) => format!("error: {e}"),
    }
}

fn run(gate: &mut Gate, ctx: &ToolContext, name: &str, args: &Value) -> Result<String, ToolError> {
    match name {
        "list_notes" => list_notes(gate, args),
        "read_note" => read_note(gate, args),
        "search_notes" => search_notes(gate, ctx.folders, ctx.today, args),
        "write_note" => write_note(gate, ctx, args),
        "edit_note" => edit_note(gate, ctx, args),
        "move_note" => move_note(gate, ctx, args),
        other => Err(ToolError::UnknownTool(other.to_string())),
    }
}

fn list_notes(gate: &Gate, args: &Value) -> Result<String, ToolError> {
    let folder = args
        .get("folder")
        .and_then(Value::as_str)
        .unwrap_or("")
        .trim_matches('/')
        .to_string();
    let page = args.get("page").and_then(Value::as_u64).unwrap_or(1).max(1) as usize;
    let prefix = if folder.is_empty() {
        String::new()
    } else {
        format!("{folder}/")
    };
    let all: Vec<&str> = gate
        .vault()
        .notes
        .iter()
        .map(|n| n.path.as_str())
        .filter(|p| p.starts_with(&prefix) && !is_hidden(p))
        .collect();
    let pages = all.len().div_ceil(LIST_PAGE).max(1);
    let shown: Vec<&str> = all
        .iter()
        .skip((page - 1) * LIST_PAGE)
        .take(LIST_PAGE)
        .copied()
        .collect();
    Ok(format!(
        "{} notes, page {page} of {pages}:\n{}",
        all.len(),
        shown.join("\n")
    ))
}

fn read_note(gate: &mut Gate, args: &Value) -> Result<String, ToolError> {
    let path = readable_path(arg(args, "path")?)?;
    let text = model_read(gate, &path)?;
    let offset = args.get("offset").and_then(Value::as_u64).unwrap_or(0) as usize;
    let chars: Vec<char> = text.chars().collect();
    if offset >= chars.len() && offset > 0 {
        return Ok(format!(
            "(offset {offset} is past the end: the note has {} characters)",
            chars.len()
        ));
    }
    let end = (offset + READ_PAGE).min(chars.len());
    let mut out: String = chars[offset..end].iter().collect();
    if end < chars.len() {
        out.push_str(&format!(
            "\n[… {} more characters: call read_note with offset {end}]",
            chars.len() - end
        ));
    }
    Ok(out)
}

fn search_notes(
    gate: &Gate,
    folders: &Folders,
    today: chrono::NaiveDate,
    args: &Value,
) -> Result<String, ToolError> {
    let query = arg(args, "query")?;
    let limit = args
        .get("limit")
        .and_then(Value::as_u64)
        .unwrap_or(10)
        .clamp(1, 50) as usize;
    let q = crate::analysis::search::parse_query(query);
    let hits = crate::analysis::search::search(gate.vault(), gate, folders, &q, limit, today);
    if hits.is_empty() {
        return Ok(format!("no note matches `{query}`"));
    }
    Ok(hits
        .iter()
        .filter(|h| !is_hidden(&h.path))
        .map(|h| format!("{}:{}: {}", h.path, h.line, h.text))
        .collect::<Vec<_>>()
        .join("\n"))
}

fn write_note(gate: &mut Gate, ctx: &ToolContext, args: &Value) -> Result<String, ToolError> {
    let path = note_path(arg(args, "path")?)?;
    let content = arg(args, "content")?;
    guard_content(ctx, &path, content)?;
    match args.get("mode").and_then(Value::as_str).unwrap_or("create") {
        // a new note replaces nothing, so only a free name's folder is checked
        "create" => {
            guard(gate, ctx, &path)?;
            gate.create(&path, content.as_bytes())
                .map(|p| format!("created {p}"))
                .map_err(ToolError::from)
        }
        "overwrite" => {
            guard(gate, ctx, &path)?;
            let old = gate.read_text(&path);
            if let Some(old) = &old {
                refuse_emptying(old, content, &path)?;
            }
            gate.write(&path, content.as_bytes())?;
            // the gate journaled the earlier text before replacing it
            Ok(match old {
                Some(_) => format!(
                    "wrote {path} (its earlier text is kept: `crew undo RUN --note {path}` restores it)"
                ),
                None => format!("wrote {path}"),
            })
        }
        "append" => {
            guard(gate, ctx, &path)?;
            gate.append(&path, content)
                .map(|_| format!("appended to {path}"))
                .map_err(ToolError::from)
        }
        other => Err(ToolError::UnknownMode(other.to_string())),
    }
}

fn edit_note(gate: &mut Gate, ctx: &ToolContext, args: &Value) -> Result<String, ToolError> {
    let path = note_path(arg(args, "path")?)?;
    let find = arg(args, "find")?;
    let replace = arg(args, "replace")?;
    if find.is_empty() {
        return Err(ToolError::EmptyFind);
    }
    guard(gate, ctx, &path)?;
    guard_content(ctx, &path, replace)?;
    let text = model_read(gate, &path)?;
    match text.matches(find).count() {
        0 => Err(ToolError::PassageNotFound(path)),
        1 => {
            refuse_emptying(&text, &text.replacen(find, replace, 1), &path)?;
            gate.edit(&path, "model edit", |t| t.replacen(find, replace, 1))?;
            Ok(format!("edited {path}"))
        }
        times => Err(ToolError::PassageRepeated { path, times }),
    }
}

fn move_note(gate: &mut Gate, ctx: &ToolContext, args: &Value) -> Result<String, ToolError> {
    let from = note_path(arg(args, "from")?)?;
    let to = note_path(arg(args, "to")?)?;
    // both ends: moving a note into the templates folder makes it a template
    guard(gate, ctx, &from)?;
    guard(gate, ctx, &to)?;
    let out = gate.move_file(&from, &to)?;
    let links: usize = out.rewritten.iter().map(|(_, n)| n).sum();
    Ok(format!(
        "moved {} → {} ({links} link(s) rewritten in {} note(s))",
        out.from,
        out.to,
        out.rewritten.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gate::Policy;
    use crate::state::journal::Journal;
    use crate::vault::Vault;

    fn call(name: &str, args: Value) -> ToolCall {
        ToolCall {
            id: "1".into(),
            name: name.into(),
            arguments: Ok(args),
        }
    }

    fn today() -> chrono::NaiveDate {
        chrono::NaiveDate::from_ymd_opt(2026, 1, 1).expect("date")
    }

    fn all_caps() -> Vec<String> {
        ["read", "write", "edit"].map(String::from).to_vec()
    }

    /// A vault of `files` and a gate over it, journaling into `.crew/journal/t`.
    fn vault_gate(files: &[(&str, &str)]) -> (tempfile::TempDir, Gate) {
        let dir = tempfile::tempdir().expect("tmp");
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
            std::fs::write(full, text).expect("write");
        }
        let journal = Journal::at(dir.path().join(".crew/journal/t"));
        let gate = Gate::new(
            Vault::open(dir.path()).expect("open"),
            Policy::default(),
            journal,
            false,
        );
        (dir, gate)
    }

    /// Runs one tool with every capability, for a user who asked `request`.
    fn tool(gate: &mut Gate, request: &str, name: &str, args: Value) -> String {
        let f = Folders::default();
        let caps = all_caps();
        let ctx = ToolContext {
            folders: &f,
            capabilities: &caps,
            today: today(),
            request,
            scope: None,
        };
        execute(gate, &ctx, &call(name, args))
    }

    #[test]
    fn capabilities_limit_tools_and_writes_go_through_the_gate() {
        let dir = tempfile::tempdir().expect("tmp");
        std::fs::write(dir.path().join("a.md"), "hello world").expect("write");
        let mut gate = Gate::new(
            Vault::open(dir.path()).expect("open"),
            Policy::default(),
            Journal::in_memory(),
            false,
        );
        let f = Folders::default();
        let read_only = vec!["read".to_string()];
        let all = all_caps();
        let mut run = |caps: &[String], name: &str, args: Value| {
            let ctx = ToolContext {
                folders: &f,
                capabilities: caps,
                today: today(),
                request: "write something",
                scope: None,
            };
            execute(&mut gate, &ctx, &call(name, args))
        };
        assert!(
            run(
                &read_only,
                "write_note",
                json!({"path": "b.md", "content": "x"})
            )
            .contains("not available")
        );
        assert!(run(&read_only, "read_note", json!({"path": "a.md"})).contains("hello world"));
        assert!(
            run(
                &all,
                "write_note",
                json!({"path": "../x.md", "content": "x"})
            )
            .starts_with("error:")
        );
        assert!(
            run(
                &all,
                "write_note",
                json!({"path": ".obsidian/x.md", "content": "x"})
            )
            .starts_with("error:")
        );
        assert_eq!(
            run(&all, "write_note", json!({"path": "a.md", "content": "x"})),
            "created a 2.md"
        );
        assert_eq!(
            run(
                &all,
                "edit_note",
                json!({"path": "a.md", "find": "world", "replace": "crew"})
            ),
            "edited a.md"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.md")).expect("read"),
            "hello crew"
        );
        let bad = ToolCall {
            id: "2".into(),
            name: "read_note".into(),
            arguments: Err("{oops".into()),
        };
        let ctx = ToolContext {
            folders: &f,
            capabilities: &all,
            today: today(),
            request: "",
            scope: None,
        };
        assert!(execute(&mut gate, &ctx, &bad).contains("not a JSON object"));
    }

    #[test]
    fn reads_stay_in_notes_outside_hidden_folders() {
        let (_dir, mut gate) = vault_gate(&[
            ("a.md", "visible text"),
            (".trash/old.md", "deleted secret"),
            (".obsidian/snippet.md", "settings secret"),
            (".crew/journal/x/1.orig", "journal secret"),
            (".crew/notes.md", "crew secret"),
            ("Notes/.hidden/h.md", "hidden secret"),
        ]);
        for path in [
            ".trash/old.md",
            ".obsidian/snippet.md",
            ".crew/notes.md",
            "./.crew/notes.md",
            "Notes/.hidden/h.md",
            ".crew/journal/x/1.orig",
        ] {
            let out = tool(&mut gate, "read", "read_note", json!({"path": path}));
            assert!(out.starts_with("error:"), "{path}: {out}");
            assert!(!out.contains("secret"), "{path}: {out}");
        }
        assert!(
            tool(
                &mut gate,
                "read",
                "read_note",
                json!({"path": ".crew/notes.md"})
            )
            .contains("hidden folder")
        );
        let listed = tool(&mut gate, "read", "list_notes", json!({}));
        assert!(listed.contains("a.md"), "{listed}");
        for hidden in [".trash", ".obsidian", ".crew", ".hidden"] {
            assert!(!listed.contains(hidden), "{hidden} listed: {listed}");
        }
        let found = tool(
            &mut gate,
            "read",
            "search_notes",
            json!({"query": "secret"}),
        );
        assert!(
            !found.contains("secret text") && !found.contains(".trash"),
            "{found}"
        );
        assert!(tool(&mut gate, "read", "read_note", json!({"path": "a.md"})).contains("visible"));
    }

    #[test]
    fn an_overwrite_keeps_the_earlier_text_and_never_empties_a_note() {
        let (dir, mut gate) = vault_gate(&[("Projects/plan.md", "# Plan\nthe user's words\n")]);
        for blank in ["", "  \n", "---\ntags: [x]\n---\n", "# \n- \n"] {
            let out = tool(
                &mut gate,
                "rewrite my plan",
                "write_note",
                json!({"path": "Projects/plan.md", "content": blank, "mode": "overwrite"}),
            );
            assert!(out.contains("empty the note"), "{blank:?}: {out}");
        }
        let out = tool(
            &mut gate,
            "tidy",
            "edit_note",
            json!({"path": "Projects/plan.md", "find": "# Plan\nthe user's words\n", "replace": ""}),
        );
        assert!(out.contains("empty the note"), "{out}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("Projects/plan.md")).expect("read"),
            "# Plan\nthe user's words\n"
        );
        let out = tool(
            &mut gate,
            "rewrite my plan",
            "write_note",
            json!({"path": "Projects/plan.md", "content": "# Plan\nshorter", "mode": "overwrite"}),
        );
        assert!(out.starts_with("wrote Projects/plan.md"), "{out}");
        // the earlier text is in the journal, byte for byte, beside the entry that names it
        let op = gate.operations().last().expect("journaled").clone();
        let backup = op.backup.expect("a before-image");
        assert_eq!(
            std::fs::read(dir.path().join(".crew/journal/t").join(backup)).expect("backup"),
            b"# Plan\nthe user's words\n"
        );
    }

    #[test]
    fn crew_files_templates_and_the_profile_open_only_when_the_request_names_them() {
        let files = [
            ("Meta/user-profile.md", "---\nname: Ana\n---\nlikes tea\n"),
            ("Meta/agent-log.md", "# Agent log\n- a line\n"),
            ("Meta/states/scribe.md", "## Post-it\nmine\n"),
            ("Meta/health-reports/2026-01-01.md", "# Health\nok\n"),
            ("Templates/Meeting.md", "# {{title}}\nattendees\n"),
            ("Notes/daily tpl.md", "# <% tp.date.now() %>\nbody\n"),
            ("Notes/plain.md", "plain text here\n"),
        ];
        let (dir, mut gate) = vault_gate(&files);
        let closed = [
            "Meta/user-profile.md",
            "Meta/agent-log.md",
            "Meta/states/scribe.md",
            "Meta/health-reports/2026-01-01.md",
            "Templates/Meeting.md",
            "Notes/daily tpl.md",
        ];
        let stranger = "summarise the mail from bob";
        for path in closed {
            for (name, args) in [
                (
                    "write_note",
                    json!({"path": path, "content": "rewritten by a model", "mode": "overwrite"}),
                ),
                (
                    "write_note",
                    json!({"path": path, "content": "more", "mode": "append"}),
                ),
                (
                    "edit_note",
                    json!({"path": path, "find": "\n", "replace": "\nX"}),
                ),
                ("move_note", json!({"from": path, "to": "Notes/moved.md"})),
            ] {
                let out = tool(&mut gate, stranger, name, args.clone());
                assert!(out.contains("request names it"), "{name} {args}: {out}");
            }
        }
        // into the templates folder is closed as well
        let out = tool(
            &mut gate,
            stranger,
            "move_note",
            json!({"from": "Notes/plain.md", "to": "Templates/plain.md"}),
        );
        assert!(out.contains("templates folder"), "{out}");
        let out = tool(
            &mut gate,
            stranger,
            "write_note",
            json!({"path": "Templates/New.md", "content": "x", "mode": "create"}),
        );
        assert!(out.contains("templates folder"), "{out}");
        for (path, text) in files {
            assert_eq!(
                std::fs::read_to_string(dir.path().join(path)).expect("read"),
                text,
                "{path} was changed"
            );
        }
        // named by the user, in their words
        let out = tool(
            &mut gate,
            "add that I like coffee to my user profile",
            "write_note",
            json!({"path": "Meta/user-profile.md", "content": "likes coffee", "mode": "append"}),
        );
        assert_eq!(out, "appended to Meta/user-profile.md");
        let out = tool(
            &mut gate,
            "fix the Meeting template",
            "edit_note",
            json!({"path": "Templates/Meeting.md", "find": "attendees", "replace": "who came"}),
        );
        assert_eq!(out, "edited Templates/Meeting.md");
        // a word inside a longer one names nothing
        assert!(!request_names("my meetings", "Templates/Meeting.md"));
        assert!(request_names("see Meta/agent-log.md", "Meta/agent-log.md"));
    }

    #[test]
    fn templater_code_is_written_only_when_the_user_asks_for_templates() {
        let (dir, mut gate) = vault_gate(&[("Notes/plain.md", "plain text here\n")]);
        let code = "<%* await tp.user.run() %>\n";
        for (name, args) in [
            (
                "write_note",
                json!({"path": "Notes/new.md", "content": code, "mode": "create"}),
            ),
            (
                "write_note",
                json!({"path": "Notes/plain.md", "content": code, "mode": "append"}),
            ),
            (
                "edit_note",
                json!({"path": "Notes/plain.md", "find": "plain", "replace": code}),
            ),
        ] {
            let out = tool(&mut gate, "file my inbox", name, args.clone());
            assert!(out.contains("Templater code"), "{name} {args}: {out}");
        }
        assert!(!dir.path().join("Notes/new.md").exists());
        let out = tool(
            &mut gate,
            "make me a Templater template for meetings",
            "write_note",
            json!({"path": "Notes/new.md", "content": code, "mode": "create"}),
        );
        assert_eq!(out, "created Notes/new.md");
    }
}
