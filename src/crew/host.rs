//! Definition files in a host's own format. A crew the anchor installed for Claude Code lives in
//! `.claude/` and is read by Claude Code too, which understands `name`, `description` (with the
//! trigger phrases quoted in it), `tools` and `model: haiku|sonnet|opus` — not crew's
//! `capabilities`, `triggers` or tiers. An agent added to such a crew is written the host's way,
//! and the host's agent directory (`references/agents.md`) gets its section.

use super::definition::ModelSpec;
use super::registry::{CUSTOM_END, CUSTOM_START};
use super::{Crew, CrewSource};

/// A host layout crew writes files for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// Claude Code (`.claude/`).
    ClaudeCode,
}

/// A directory file for a crew folder that has none: the marker pair the anchor's installer
/// preserves on update, under a heading.
pub const EMPTY_DIRECTORY: &str = "# Agents\n\n## Custom Agents\n\n<!-- MBIFC:CUSTOM_AGENTS_START -->\n<!-- MBIFC:CUSTOM_AGENTS_END -->\n";

impl Host {
    /// The host whose layout a crew lives in, if any.
    pub fn of(crew: &Crew) -> Option<Host> {
        match &crew.source {
            CrewSource::Dir(d) if d.file_name().is_some_and(|n| n == ".claude") => {
                Some(Host::ClaudeCode)
            }
            _ => None,
        }
    }

    /// Capabilities as the host's tool names, in the order the anchor's build writes them.
    pub fn tools(self, capabilities: &[String]) -> Vec<&'static str> {
        let mut out = Vec::new();
        for c in capabilities {
            let tools: &[&'static str] = match c.as_str() {
                "read" => &["Read", "Glob", "Grep"],
                "write" => &["Write"],
                "edit" => &["Edit"],
                "bash" => &["Bash"],
                "webfetch" => &["WebFetch"],
                "websearch" => &["WebSearch"],
                "notebook" => &["NotebookEdit"],
                "task" => &["Task"],
                "todo" => &["TodoWrite"],
                _ => &[],
            };
            for t in tools {
                if !out.contains(t) {
                    out.push(*t);
                }
            }
        }
        // every agent can look around the vault
        for t in ["Read", "Glob", "Grep"] {
            if !out.contains(&t) {
                out.insert(0, t);
            }
        }
        let order = [
            "Read",
            "Glob",
            "Grep",
            "Write",
            "Edit",
            "Bash",
            "WebFetch",
            "WebSearch",
            "NotebookEdit",
            "Task",
            "TodoWrite",
        ];
        out.sort_by_key(|t| order.iter().position(|o| o == t));
        out
    }

    /// The host's name for a model setting: tiers become its aliases, its own ids pass.
    pub fn model(self, raw: &str) -> Result<String, HostCannotRun> {
        match ModelSpec::parse(raw) {
            ModelSpec::Tier(t) => Ok(match t.as_str() {
                "low" => "haiku",
                "high" => "opus",
                _ => "sonnet",
            }
            .to_string()),
            ModelSpec::Id(id) if id.to_ascii_lowercase().starts_with("claude-") => Ok(id),
            other => Err(HostCannotRun(other.label())),
        }
    }

    /// The agent file: the host's frontmatter (name, description with the trigger phrases,
    /// tools, model) and a starting body in crew's words.
    pub fn agent_file(
        self,
        name: &str,
        description: &str,
        triggers: &[String],
        examples: &[String],
        capabilities: &[String],
        model: &str,
    ) -> Result<String, HostCannotRun> {
        let model = self.model(model)?;
        let mut desc = description.trim().to_string();
        if !triggers.is_empty() {
            if !desc.ends_with('.') {
                desc.push('.');
            }
            desc.push_str(&format!(
                " Use when the user says: {}.",
                quoted_list(triggers)
            ));
        }
        let folded = fold(&desc, 88);
        // a key Claude Code does not read and ignores; crew's router learns from it
        let examples = if examples.is_empty() {
            String::new()
        } else {
            format!("examples:{}", yaml_list(examples))
        };
        Ok(format!(
            "---\nname: {name}\ndescription: >\n{folded}tools: {}\nmodel: {model}\n{examples}---\n\n# {name}\n\nYou are {name}, a custom agent of this vault's crew. {}\n\n## Every run\n- Answer in the user's language; read `Meta/user-profile.md` and your post-it `Meta/states/{name}.md` first, and overwrite the post-it at the end.\n- Work only inside the vault; never edit other agents' files.\n- When another agent should act, end with a `### Suggested next agent` block (Agent, Reason, Context); when no agent fits a need, a `### Suggested new agent` block (Need, Reason, Suggested role).\n",
            self.tools(capabilities).join(", "),
            description.trim()
        ))
    }
}

/// A model the host that runs the crew cannot use.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "Claude Code runs this crew and cannot use the model `{0}`; give a tier (low, mid, high) or a claude-… id"
)]
pub struct HostCannotRun(pub String);

/// A YAML list to follow a key's colon: ` []` when empty, else one double-quoted item a line.
pub fn yaml_list(items: &[String]) -> String {
    if items.is_empty() {
        return " []\n".into();
    }
    let mut out = String::from("\n");
    for item in items {
        // JSON strings are YAML double-quoted scalars
        out.push_str(&format!(
            "  - {}\n",
            serde_json::to_string(item).unwrap_or_default()
        ));
    }
    out
}

/// Phrases quoted and comma-separated: `"a", "b"` (inner double quotes become single ones).
pub fn quoted_list(phrases: &[String]) -> String {
    phrases
        .iter()
        .map(|p| format!("\"{}\"", p.replace('"', "'")))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The words of a text, a quoted phrase counting as one word (so a fold never splits one).
fn atoms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in text.chars() {
        if c == '"' {
            quoted = !quoted;
        }
        if c.is_whitespace() && !quoted {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A folded YAML block's lines: two-space indent, broken at spaces near `width`, never inside
/// a quoted phrase.
fn fold(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in atoms(text) {
        let word = word.as_str();
        if !line.is_empty() && line.len() + 1 + word.len() > width {
            out.push_str(&format!("  {line}\n"));
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&format!("  {line}\n"));
    }
    out
}

/// An agent's section for the directory file.
pub fn directory_section(
    name: &str,
    description: &str,
    triggers: &[String],
    capabilities: &str,
) -> String {
    let mut s = format!(
        "### {name}\n\n- **Role**: {}\n",
        description.trim().replace('\n', " ")
    );
    if !triggers.is_empty() {
        s.push_str(&format!("- **Triggers**: {}\n", quoted_list(triggers)));
    }
    s.push_str(&format!("- **Capabilities**: {capabilities}\n"));
    s
}

/// Inserts a section before the custom end marker (adding the marker pair at the end of the
/// file when it has none).
pub fn insert_section(text: &str, section: &str) -> String {
    if let Some(pos) = text.find(CUSTOM_END) {
        let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
        let mut out = String::with_capacity(text.len() + section.len() + 2);
        out.push_str(&text[..line_start]);
        out.push_str(section);
        out.push('\n');
        out.push_str(&text[line_start..]);
        return out;
    }
    format!(
        "{}\n\n{CUSTOM_START}\n{section}\n{CUSTOM_END}\n",
        text.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crew::definition;

    #[test]
    fn tools_follow_the_anchor_build() {
        let caps = |c: &[&str]| c.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let h = Host::ClaudeCode;
        assert_eq!(h.tools(&caps(&["read"])), ["Read", "Glob", "Grep"]);
        assert_eq!(
            h.tools(&caps(&["edit", "read", "write", "bash"])),
            ["Read", "Glob", "Grep", "Write", "Edit", "Bash"]
        );
        assert_eq!(
            h.tools(&caps(&["write"])),
            ["Read", "Glob", "Grep", "Write"]
        );
    }

    #[test]
    fn models_become_aliases() {
        let h = Host::ClaudeCode;
        assert_eq!(h.model("mid").as_deref(), Ok("sonnet"));
        assert_eq!(h.model("high").as_deref(), Ok("opus"));
        assert_eq!(h.model("low").as_deref(), Ok("haiku"));
        assert_eq!(
            h.model("claude-sonnet-4-5").as_deref(),
            Ok("claude-sonnet-4-5")
        );
        assert!(h.model("gpt-4.1").is_err());
        assert!(h.model("native").is_err());
    }

    #[test]
    fn the_file_reads_back_the_same() {
        let triggers = vec![
            "prepare my taxes".to_string(),
            "tax \"receipts\"".to_string(),
        ];
        let examples = vec!["where are my 2025 receipts: \"dentist\", gym?".to_string()];
        let caps = vec!["read".to_string(), "write".to_string()];
        let text = Host::ClaudeCode
            .agent_file(
                "tax-helper",
                "Keeps the yearly tax paperwork in order",
                &triggers,
                &examples,
                &caps,
                "mid",
            )
            .expect("file");
        let mut d = Vec::new();
        let def = definition::parse("tax-helper.md", &text, &mut d).expect("parsed");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(def.triggers, ["prepare my taxes", "tax 'receipts'"]);
        assert_eq!(def.examples, examples);
        assert_eq!(def.capabilities, ["read", "write"]);
        assert_eq!(def.model, ModelSpec::Tier("mid".into()));
    }

    #[test]
    fn sections_go_between_the_markers() {
        let s = directory_section("x", "Does x.", &["do x".into()], "Read, Glob, Grep");
        let out = insert_section(EMPTY_DIRECTORY, &s);
        let start = out.find(CUSTOM_START).expect("start");
        let end = out.find(CUSTOM_END).expect("end");
        let at = out.find("### x").expect("section");
        assert!(start < at && at < end, "{out}");
        let again = insert_section("# Agents\n", &s);
        assert!(again.contains(CUSTOM_START) && again.contains("### x"));
    }
}
