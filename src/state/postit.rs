//! Post-its: `Meta/states/<agent>.md`, each agent's short memory between runs.

use crate::gate::{Gate, GateError};
use crate::vault::markdown::split_frontmatter;

/// Body lines a post-it keeps.
pub(crate) const MAX_LINES: usize = 30;
pub(crate) const CUT_MARKER: &str = "[… cut to 30 lines by crew]";

pub fn path(states_dir: &str, agent: &str) -> String {
    format!("{states_dir}/{agent}.md")
}

/// The body of a post-it text (after `## Post-it`), or the whole body when the heading is absent.
pub fn body_of(text: &str) -> String {
    let after = split_frontmatter(text).map_or(text, |b| &text[b.block.end..]);
    match after.find("## Post-it") {
        Some(i) => after[i + "## Post-it".len()..]
            .trim_matches(['\r', '\n'])
            .to_string(),
        None => after.trim().to_string(),
    }
}

/// Reads an agent's post-it body; `None` when it has none yet.
pub fn read(gate: &Gate, states_dir: &str, agent: &str) -> Option<String> {
    gate.read_text(&path(states_dir, agent))
        .map(|t| body_of(&t))
}

/// Renders a post-it: frontmatter, heading, at most 30 body lines (longer bodies are cut with a
/// marker line, never dropped silently).
pub fn render(agent: &str, last_run: &str, body: &str) -> String {
    let lines: Vec<&str> = body.trim_matches(['\r', '\n']).lines().collect();
    let mut kept: Vec<&str> = lines.iter().copied().take(MAX_LINES).collect();
    if lines.len() > MAX_LINES {
        kept.truncate(MAX_LINES - 1);
        kept.push(CUT_MARKER);
    }
    format!(
        "---\nagent: {agent}\nlast-run: \"{last_run}\"\n---\n## Post-it\n{}\n",
        kept.join("\n")
    )
}

/// Overwrites an agent's post-it through the gate, as that agent.
pub fn write(
    gate: &mut Gate,
    states_dir: &str,
    agent: &str,
    last_run: &str,
    body: &str,
) -> Result<(), GateError> {
    let previous = gate.policy.actor.replace(agent.to_string());
    let result = gate.write(
        &path(states_dir, agent),
        render(agent, last_run, body).as_bytes(),
    );
    gate.policy.actor = previous;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_and_reads_back() {
        let text = render(
            "sorter",
            "2026-11-30T10:00:00",
            "left 2 notes\nwaiting on architect",
        );
        assert!(text.starts_with(
            "---\nagent: sorter\nlast-run: \"2026-11-30T10:00:00\"\n---\n## Post-it\n"
        ));
        assert_eq!(body_of(&text), "left 2 notes\nwaiting on architect");
    }

    #[test]
    fn long_bodies_are_cut_with_a_marker() {
        let body: String = (0..50).map(|i| format!("line {i}\n")).collect();
        let text = render("x", "t", &body);
        let b = body_of(&text);
        assert_eq!(b.lines().count(), MAX_LINES);
        assert_eq!(b.lines().last(), Some(CUT_MARKER));
    }
}
