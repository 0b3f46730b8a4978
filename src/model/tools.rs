//! The vault tools a model may call: few, paginated, each allowed only by a capability, every
//! change through the write gate. Errors go back to the model as text so it can recover.

use serde_json::{Value, json};

use super::{ToolCall, ToolSpec};
use crate::crew::Folders;
use crate::gate::{Gate, GateError, MODEL_READ_CAP};

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

fn arg<'a>(args: &'a Value, key: &str) -> Result<&'a str, String> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("missing string argument `{key}`"))
}

fn note_path(p: &str) -> Result<String, String> {
    let p = p.trim().trim_start_matches("./");
    if p.to_lowercase().ends_with(".md") {
        Ok(p.to_string())
    } else {
        Err(format!("`{p}` is not a note path; note paths end in .md"))
    }
}

/// A note's text for a model: through the gate's read jail (no symlink, only a regular file,
/// never a FIFO or device) and at most [`MODEL_READ_CAP`] bytes.
fn model_read(gate: &Gate, path: &str) -> Result<String, String> {
    match gate.read_checked(path, MODEL_READ_CAP) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
        Err(GateError::NotFound { .. }) => Err(format!(
            "no note at `{path}`; list_notes or search_notes finds paths"
        )),
        Err(e) => Err(e.to_string()),
    }
}

/// Runs one tool call and returns its result text (an error is a result too).
pub fn execute(
    gate: &mut Gate,
    folders: &Folders,
    capabilities: &[String],
    today: chrono::NaiveDate,
    call: &ToolCall,
) -> String {
    if !specs(capabilities).iter().any(|s| s.name == call.name) {
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
    match run(gate, folders, today, &call.name, &args) {
        Ok(s) => s,
        Err(e) => format!("error: {e}"),
    }
}

fn run(
    gate: &mut Gate,
    folders: &Folders,
    today: chrono::NaiveDate,
    name: &str,
    args: &Value,
) -> Result<String, String> {
    match name {
        "list_notes" => list_notes(gate, args),
        "read_note" => read_note(gate, args),
        "search_notes" => search_notes(gate, folders, today, args),
        "write_note" => write_note(gate, args),
        "edit_note" => edit_note(gate, args),
        "move_note" => move_note(gate, args),
        other => Err(format!("unknown tool `{other}`")),
    }
}

fn list_notes(gate: &Gate, args: &Value) -> Result<String, String> {
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
        .filter(|p| p.starts_with(&prefix))
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

fn read_note(gate: &mut Gate, args: &Value) -> Result<String, String> {
    let path = note_path(arg(args, "path")?)?;
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
) -> Result<String, String> {
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
        .map(|h| format!("{}:{}: {}", h.path, h.line, h.text))
        .collect::<Vec<_>>()
        .join("\n"))
}

fn write_note(gate: &mut Gate, args: &Value) -> Result<String, String> {
    let path = note_path(arg(args, "path")?)?;
    let content = arg(args, "content")?;
    match args.get("mode").and_then(Value::as_str).unwrap_or("create") {
        "create" => gate
            .create(&path, content.as_bytes())
            .map(|p| format!("created {p}"))
            .map_err(|e| e.to_string()),
        "overwrite" => gate
            .write(&path, content.as_bytes())
            .map(|_| format!("wrote {path}"))
            .map_err(|e| e.to_string()),
        "append" => gate
            .append(&path, content)
            .map(|_| format!("appended to {path}"))
            .map_err(|e| e.to_string()),
        other => Err(format!("mode `{other}` is not create, overwrite or append")),
    }
}

fn edit_note(gate: &mut Gate, args: &Value) -> Result<String, String> {
    let path = note_path(arg(args, "path")?)?;
    let find = arg(args, "find")?;
    let replace = arg(args, "replace")?;
    if find.is_empty() {
        return Err("`find` is empty".into());
    }
    let text = model_read(gate, &path)?;
    match text.matches(find).count() {
        0 => Err(format!(
            "the passage was not found in {path}; read_note shows its exact text"
        )),
        1 => {
            gate.edit(&path, "model edit", |t| t.replacen(find, replace, 1))
                .map_err(|e| e.to_string())?;
            Ok(format!("edited {path}"))
        }
        n => Err(format!(
            "the passage occurs {n} times in {path}; include more context so it occurs once"
        )),
    }
}

fn move_note(gate: &mut Gate, args: &Value) -> Result<String, String> {
    let from = note_path(arg(args, "from")?)?;
    let to = note_path(arg(args, "to")?)?;
    let out = gate.move_file(&from, &to).map_err(|e| e.to_string())?;
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
        let today = chrono::NaiveDate::from_ymd_opt(2026, 1, 1).expect("date");
        let read_only = vec!["read".to_string()];
        let all = vec!["read".to_string(), "write".into(), "edit".into()];
        let mut run = |caps: &[String], name: &str, args: Value| {
            execute(&mut gate, &f, caps, today, &call(name, args))
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
        assert!(execute(&mut gate, &f, &all, today, &bad).contains("not a JSON object"));
    }
}
