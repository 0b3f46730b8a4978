//! The agent registry (`references/agents-registry.md`): which agents are dispatchable.

use serde::Serialize;

use super::Diagnostic;

pub const CUSTOM_START: &str = "<!-- MBIFC:CUSTOM_AGENTS_START -->";
pub const CUSTOM_END: &str = "<!-- MBIFC:CUSTOM_AGENTS_END -->";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Active,
    Disabled,
}

/// One row of the agents table.
#[derive(Debug, Clone, Serialize)]
pub struct AgentRow {
    pub name: String,
    pub role: String,
    pub capabilities: String,
    pub input: String,
    pub output: String,
    pub status: Status,
    /// Between the custom-agent markers.
    pub custom: bool,
    pub line: usize,
}

/// One row of the skills table.
#[derive(Debug, Clone, Serialize)]
pub struct SkillRow {
    pub name: String,
    pub source_agent: String,
    pub triggers: String,
    pub purpose: String,
    pub status: Status,
    pub line: usize,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Registry {
    pub agents: Vec<AgentRow>,
    pub skills: Vec<SkillRow>,
    pub file: String,
    /// Whether the file has the custom-agent markers (so rows can be added between them).
    pub has_markers: bool,
}

/// Splits a table row into cells, honouring `\|` escapes.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim();
    let inner = inner.strip_prefix('|').unwrap_or(inner);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'|') {
            cur.push('|');
            chars.next();
        } else if c == '|' {
            out.push(cur.trim().to_string());
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    out.push(cur.trim().to_string());
    out
}

/// Strips Markdown decoration from a name cell: `**x**`, `` `x` ``, `[[x]]`, `[x](…)`.
pub(crate) fn clean_name(cell: &str) -> String {
    let mut s = cell.trim().trim_matches(['*', '`', '_']).trim().to_string();
    if let Some(inner) = s.strip_prefix("[[").and_then(|x| x.strip_suffix("]]")) {
        s = inner.split('|').next().unwrap_or(inner).to_string();
    }
    if s.starts_with('[')
        && let Some(end) = s.find(']')
    {
        s = s[1..end].to_string();
    }
    s.trim().trim_start_matches('/').to_lowercase()
}

fn is_separator(cells: &[String]) -> bool {
    cells
        .iter()
        .all(|c| !c.is_empty() && c.chars().all(|ch| ch == '-' || ch == ':' || ch == ' '))
}

#[derive(Clone, Copy, PartialEq)]
enum Table {
    None,
    Agents,
    Skills,
}

fn parse_status(
    cell: Option<&String>,
    file: &str,
    line: usize,
    diags: &mut Vec<Diagnostic>,
) -> Status {
    let raw = cell.map(|c| clean_name(c)).unwrap_or_default();
    match raw.as_str() {
        "active" | "enabled" | "" if !raw.is_empty() => Status::Active,
        "disabled" | "inactive" | "removed" => Status::Disabled,
        _ => {
            diags.push(Diagnostic::error(
                file,
                line,
                &format!(
                    "status `{raw}` is not `active` or `disabled`; the row is treated as disabled"
                ),
            ));
            Status::Disabled
        }
    }
}

/// Parses the registry text. Malformed rows are reported with their line and skipped.
pub fn parse(file: &str, text: &str, diags: &mut Vec<Diagnostic>) -> Registry {
    let mut reg = Registry {
        file: file.to_string(),
        has_markers: text.contains(CUSTOM_START) && text.contains(CUSTOM_END),
        ..Registry::default()
    };
    let mut table = Table::None;
    let mut columns: Vec<String> = Vec::new();
    let mut custom = false;
    for (i, raw) in text.lines().enumerate() {
        let at = (file, i + 1);
        let line = raw.trim();
        if line.contains(CUSTOM_START) {
            custom = true;
            continue;
        }
        if line.contains(CUSTOM_END) {
            custom = false;
            continue;
        }
        if !line.starts_with('|') {
            if !line.is_empty() && !line.starts_with("<!--") {
                table = Table::None;
            }
            continue;
        }
        let row = cells(line);
        if is_separator(&row) {
            continue;
        }
        if let Some(header) = header_of(&row, at, diags) {
            table = header;
            columns = row.iter().map(|c| clean_name(c)).collect();
            continue;
        }
        let cells = Cells {
            row: &row,
            columns: &columns,
        };
        match table {
            Table::None => {
                diags.push(Diagnostic::error(
                    file,
                    at.1,
                    "a table row outside a table: only rows under the `| Name | Role | … |` or `| Skill | … |` header count; move it there or remove it",
                ));
            }
            Table::Agents => reg.agents.extend(agent_row(&cells, at, custom, diags)),
            Table::Skills => reg.skills.extend(skill_row(&cells, at, diags)),
        }
    }
    reg
}

/// A row's cells with the column names of its table.
struct Cells<'a> {
    row: &'a [String],
    columns: &'a [String],
}

impl Cells<'_> {
    fn get(&self, name: &str) -> Option<&String> {
        self.columns
            .iter()
            .position(|c| c == name)
            .and_then(|i| self.row.get(i))
    }

    fn text(&self, name: &str) -> String {
        self.get(name).cloned().unwrap_or_default()
    }

    fn name(&self, column: &str) -> Option<String> {
        let name = self.get(column).map(|c| clean_name(c)).unwrap_or_default();
        (!name.is_empty() && name.len() <= 64).then_some(name)
    }
}

/// The table a header row opens (reporting the agents table's missing columns), or `None`
/// for a row that is no header.
fn header_of(
    row: &[String],
    (file, line): (&str, usize),
    diags: &mut Vec<Diagnostic>,
) -> Option<Table> {
    let first = clean_name(&row[0]);
    if first == "skill" {
        return Some(Table::Skills);
    }
    if first != "name" && first != "agent" {
        return None;
    }
    let columns: Vec<String> = row.iter().map(|c| clean_name(c)).collect();
    let want = ["name", "role", "capabilities", "input", "output", "status"];
    let missing: Vec<_> = want
        .iter()
        .filter(|w| !columns.iter().any(|c| c == *w))
        .copied()
        .collect();
    if !missing.is_empty() {
        diags.push(Diagnostic::error(
            file,
            line,
            &format!(
                "the agents table lacks the column(s) {}; the header must be `| Name | Role | Capabilities | Input | Output | Status |`",
                missing.join(", ")
            ),
        ));
    }
    Some(Table::Agents)
}

fn agent_row(
    cells: &Cells,
    (file, line): (&str, usize),
    custom: bool,
    diags: &mut Vec<Diagnostic>,
) -> Option<AgentRow> {
    if cells.row.len() != cells.columns.len() {
        diags.push(Diagnostic::error(
            file,
            line,
            &format!(
                "this row has {} cells but the table has {} columns; fix the `|` separators",
                cells.row.len(),
                cells.columns.len()
            ),
        ));
        return None;
    }
    let Some(name) = cells.name("name") else {
        diags.push(Diagnostic::error(
            file,
            line,
            "a row without a usable agent name",
        ));
        return None;
    };
    let status = parse_status(cells.get("status"), file, line, diags);
    Some(AgentRow {
        name,
        role: cells.text("role"),
        capabilities: cells.text("capabilities"),
        input: cells.text("input"),
        output: cells.text("output"),
        status,
        custom,
        line,
    })
}

fn skill_row(
    cells: &Cells,
    (file, line): (&str, usize),
    diags: &mut Vec<Diagnostic>,
) -> Option<SkillRow> {
    let Some(name) = cells.name("skill") else {
        diags.push(Diagnostic::error(
            file,
            line,
            "a row without a usable skill name",
        ));
        return None;
    };
    let status = if cells.get("status").is_some() {
        parse_status(cells.get("status"), file, line, diags)
    } else {
        Status::Active
    };
    Some(SkillRow {
        name,
        source_agent: cells
            .get("source agent")
            .map(|c| clean_name(c))
            .unwrap_or_default(),
        triggers: cells.text("triggers"),
        purpose: cells.text("purpose"),
        status,
        line,
    })
}

/// Renders one agents-table row.
pub fn render_agent_row(row: &AgentRow) -> String {
    let esc = |s: &str| s.replace('|', "\\|").replace('\n', " ");
    format!(
        "| {} | {} | {} | {} | {} | {} |",
        row.name,
        esc(&row.role),
        esc(&row.capabilities),
        esc(&row.input),
        esc(&row.output),
        match row.status {
            Status::Active => "active",
            Status::Disabled => "disabled",
        }
    )
}

/// Inserts a row before the end marker (adding the markers at the end of the agents table when
/// the file has none). Returns the new text.
pub fn insert_custom_row(text: &str, row_line: &str) -> String {
    if let Some(pos) = text.find(CUSTOM_END) {
        let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
        let mut out = String::with_capacity(text.len() + row_line.len() + 1);
        out.push_str(&text[..line_start]);
        out.push_str(row_line);
        out.push('\n');
        out.push_str(&text[line_start..]);
        return out;
    }
    let mut out = text.trim_end().to_string();
    out.push_str(&format!("\n\n{CUSTOM_START}\n{row_line}\n{CUSTOM_END}\n"));
    out
}

/// Replaces the status cell of the custom row for `name`. Returns `None` when no such row.
pub fn set_custom_status(text: &str, name: &str, status: Status) -> Option<String> {
    let mut diags = Vec::new();
    let reg = parse("", text, &mut diags);
    let row = reg.agents.iter().find(|r| r.name == name && r.custom)?;
    let mut updated = row.clone();
    updated.status = status;
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let idx = row.line - 1;
    let ending = if lines.get(idx)?.ends_with("\r\n") {
        "\r\n"
    } else if lines[idx].ends_with('\n') {
        "\n"
    } else {
        ""
    };
    let new_line = format!("{}{ending}", render_agent_row(&updated));
    lines[idx] = &new_line;
    Some(lines.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Registry\n\n| Name | Role | Capabilities | Input | Output | Status |\n|---|---|---|---|---|---|\n| **architect** | structure | read, write | x | y | active |\n| `seeker` | search | read | a \\| b | c | active |\n<!-- MBIFC:CUSTOM_AGENTS_START -->\n| tax-helper | taxes | read | tax questions | answers | disabled |\n<!-- MBIFC:CUSTOM_AGENTS_END -->\n\n## Skills\n\n| Skill | Source Agent | Triggers | Purpose | Status |\n|---|---|---|---|---|\n| /inbox-triage | sorter | \"file my notes\" | triage | active |\n";

    #[test]
    fn parses_both_tables_and_markers() {
        let mut d = Vec::new();
        let r = parse("reg.md", SAMPLE, &mut d);
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(r.agents.len(), 3);
        assert_eq!(r.agents[1].input, "a | b");
        assert!(r.agents[2].custom);
        assert_eq!(r.agents[2].status, Status::Disabled);
        assert_eq!(r.skills[0].name, "inbox-triage");
        assert_eq!(r.skills[0].source_agent, "sorter");
    }

    #[test]
    fn malformed_rows_are_reported_with_lines() {
        let text = "| Name | Role | Status |\n|---|---|---|\n| a | b |\n| c | d | maybe |\n";
        let mut d = Vec::new();
        let r = parse("reg.md", text, &mut d);
        assert!(
            d.iter()
                .any(|x| x.line == 1 && x.message.contains("capabilities"))
        );
        assert!(d.iter().any(|x| x.line == 3 && x.message.contains("cells")));
        assert!(d.iter().any(|x| x.line == 4 && x.message.contains("maybe")));
        assert_eq!(r.agents.len(), 1);
    }

    #[test]
    fn inserts_and_disables_custom_rows() {
        let row = "| helper | h | read | i | o | active |";
        let out = insert_custom_row(SAMPLE, row);
        let mut d = Vec::new();
        let r = parse("reg.md", &out, &mut d);
        assert!(r.agents.iter().any(|a| a.name == "helper" && a.custom));
        let out = set_custom_status(&out, "helper", Status::Disabled).expect("row");
        let r = parse("reg.md", &out, &mut d);
        let helper = r
            .agents
            .iter()
            .find(|a| a.name == "helper")
            .expect("helper");
        assert_eq!(helper.status, Status::Disabled);
        assert!(set_custom_status(&out, "architect", Status::Disabled).is_none());
    }
}
