//! The dispatcher file of an installed crew (`CLAUDE.md`, `GEMINI.md`, `AGENTS.md` at the vault
//! root, or `DISPATCHER.md` in the anchor's own repository): its routing tables and per-agent
//! `Triggers:` lines name phrases that live nowhere else ("take note", "calendar search"), so a
//! crew read without it routes those phrases wrong.

use std::path::{Path, PathBuf};

use super::definition::{quoted_phrases, valid_name};
use super::registry::clean_name;

/// Trigger phrases the dispatcher gives each named agent or skill, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DispatcherTriggers {
    pub file: String,
    pub entries: Vec<(String, Vec<String>, usize)>,
}

impl DispatcherTriggers {
    /// The phrases for one name (agents and skills share one namespace).
    #[cfg(test)]
    pub(crate) fn for_name(&self, name: &str) -> impl Iterator<Item = &String> {
        self.entries
            .iter()
            .filter(move |(n, _, _)| n == name)
            .flat_map(|(_, p, _)| p)
    }
}

/// Where the dispatcher of a crew folder lives, first existing file wins: the host's own file
/// at the vault root for the host's folder, then `DISPATCHER.md` beside or above the crew.
pub fn candidates(crew_dir: &Path) -> Vec<PathBuf> {
    let label = crew_dir
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let root = crew_dir.parent();
    let mut out = Vec::new();
    let host_file = match label.as_str() {
        ".claude" => Some("CLAUDE.md"),
        ".gemini" => Some("GEMINI.md"),
        ".codex" | ".opencode" | ".agents" | ".platform" => Some("AGENTS.md"),
        _ => None,
    };
    if let (Some(root), Some(f)) = (root, host_file) {
        out.push(root.join(f));
    }
    out.push(crew_dir.join("DISPATCHER.md"));
    if let Some(root) = root
        && label.starts_with('.')
    {
        out.push(root.join("DISPATCHER.md"));
    }
    out
}

/// The name a routing-table row is about: the first cell that cleans to a valid agent or skill
/// name (`**postman**`, `` `/onboarding` ``), skipping the `#` column.
fn row_name(cells: &[String]) -> Option<(usize, String)> {
    cells.iter().enumerate().find_map(|(i, c)| {
        let n = clean_name(c);
        (valid_name(&n) && !n.chars().all(|ch| ch.is_ascii_digit())).then_some((i, n))
    })
}

fn split_cells(line: &str) -> Vec<String> {
    let inner = line.trim();
    let inner = inner.strip_prefix('|').unwrap_or(inner);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    inner.split('|').map(|c| c.trim().to_string()).collect()
}

/// The agent a section heading introduces: `## 3. SCRIBE (agent)` → `scribe`. Headings that
/// name no single agent (`## Multi-agent routing`) end the current section.
fn heading_name(line: &str) -> Option<String> {
    let text = line.trim_start_matches('#').trim();
    let text = text.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == '+');
    let text = text.split('(').next().unwrap_or("").trim();
    let name = clean_name(text);
    valid_name(&name).then_some(name)
}

fn is_triggers_line(line: &str) -> bool {
    let bare: String = line
        .trim_start_matches(['>', '-', '*', ' '])
        .chars()
        .filter(|c| *c != '*' && *c != '_')
        .collect();
    bare.trim_start()
        .to_ascii_lowercase()
        .starts_with("triggers:")
}

/// Reads the trigger phrases out of a dispatcher file. Two shapes count: a routing-table row
/// (the row's name cell, phrases quoted in its other cells) and a `Triggers:` line under an
/// agent's own heading (with its continuation lines up to a blank line). Quoted phrases in
/// notes and prose are pointers to other routes and do not count.
pub fn parse(file: &str, text: &str) -> DispatcherTriggers {
    let mut entries: Vec<(String, Vec<String>, usize)> = Vec::new();
    let mut section: Option<String> = None;
    let mut in_triggers = false;
    let mut in_fence = false;
    let mut add = |name: &str, phrases: Vec<String>, line: usize| {
        if !phrases.is_empty() {
            entries.push((name.to_string(), phrases, line));
        }
    };
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if line.starts_with('#') {
            section = heading_name(line);
            in_triggers = false;
            continue;
        }
        if line.is_empty() {
            in_triggers = false;
            continue;
        }
        if line.starts_with('|') {
            in_triggers = false;
            let cells = split_cells(line);
            if let Some((at, name)) = row_name(&cells) {
                let rest: Vec<&str> = cells
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != at)
                    .map(|(_, c)| c.as_str())
                    .collect();
                add(&name, quoted_phrases(&rest.join(" ")), i + 1);
            }
            continue;
        }
        if is_triggers_line(line) {
            in_triggers = true;
        }
        if in_triggers && let Some(name) = &section {
            add(name, quoted_phrases(line), i + 1);
        }
    }
    DispatcherTriggers {
        file: file.to_string(),
        entries,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Routing\n\n| # | Skill | Description | Triggers |\n|---|---|---|---|\n| 1 | `/onboarding` | First setup. | EN: \"set up the vault\" · IT: \"configura il vault\" |\n\n| # | Agent/Skill | When to activate |\n|---|---|---|\n| 4 | **seeker** | Vault search, \"where did I put\" |\n| 9+ | **custom agents** | see the registry |\n\n## 3. SCRIBE (agent)\n\nCapture things.\n\nTriggers: \"take note\", \"I have a thought\",\n\"gratitude\"\n\nAlso when the user pastes \"random words\".\n\n## 6. SORTER (agent)\n\nTriggers: \"evening triage\"\n\n> **Note**: standard triage (\"empty inbox\") → `/inbox-triage` skill.\n\n## Multi-agent routing\n\nTriggers: \"nobody\"\n\n```\nTriggers: \"in a fence\"\n```\n";

    #[test]
    fn reads_tables_and_trigger_lines() {
        let d = parse("CLAUDE.md", SAMPLE);
        let of = |n: &str| d.for_name(n).cloned().collect::<Vec<_>>();
        assert_eq!(of("onboarding"), ["set up the vault", "configura il vault"]);
        assert_eq!(of("seeker"), ["where did I put"]);
        assert_eq!(of("scribe"), ["take note", "I have a thought", "gratitude"]);
        // a note pointing at a skill is not the sorter's trigger
        assert_eq!(of("sorter"), ["evening triage"]);
        assert!(d.for_name("custom agents").next().is_none());
        assert!(
            d.entries
                .iter()
                .all(|(_, p, _)| !p.iter().any(|x| x == "nobody" || x == "in a fence"))
        );
    }

    #[test]
    fn host_files_come_first() {
        let c = candidates(Path::new("/v/.claude"));
        assert_eq!(c[0], Path::new("/v/CLAUDE.md"));
        assert!(c.contains(&PathBuf::from("/v/DISPATCHER.md")));
        let c = candidates(Path::new("/v/.codex"));
        assert_eq!(c[0], Path::new("/v/AGENTS.md"));
        let c = candidates(Path::new("/repo"));
        assert_eq!(c, vec![PathBuf::from("/repo/DISPATCHER.md")]);
    }
}
