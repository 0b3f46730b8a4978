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

/// The key of a `key: value` line whose key is one word (`mail-mark: …`), the lines one mode
/// of an agent keeps for the next run; free lines ("graph audit 2026-12-03: …") have none.
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.trim_start_matches("- ").split_once(':')?;
    let key = key.trim();
    let word = !key.is_empty()
        && key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    word.then_some(key)
}

/// The post-it a run leaves: its own body, after the keyed lines of the previous post-it that
/// it does not set. Several writers share one post-it — an agent's modes, the skills it owns, a
/// model that answered with no post-it section — and one of them must not wipe what another
/// keeps (the postman's mail mark and listing numbers outlived a weekly agenda only this way).
/// The kept lines go first, so the 30-line cut takes the new run's tail, not them.
pub fn merge(previous: Option<&str>, new: &str) -> String {
    let new = new.trim_matches(['\r', '\n']);
    let set: Vec<&str> = new.lines().filter_map(key_of).collect();
    let kept: Vec<&str> = previous
        .unwrap_or("")
        .lines()
        .filter(|l| key_of(l).is_some_and(|k| !set.contains(&k)))
        .collect();
    if kept.is_empty() {
        return new.to_string();
    }
    let mut out = kept.join("\n");
    if !new.is_empty() {
        out.push('\n');
        out.push_str(new);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_keeps_the_keyed_lines_it_does_not_set() {
        let previous = "mail-mark: 12 a\nlisting: 1=x 2=y\nagenda for week of 2026-11-30: 3 items";
        // a skill of the same owner writes a free line: the keys stay, the old free line goes
        let merged = merge(Some(previous), "agenda for week of 2026-12-07: 1 items");
        assert_eq!(
            merged,
            "mail-mark: 12 a\nlisting: 1=x 2=y\nagenda for week of 2026-12-07: 1 items"
        );
        // a writer that sets a key replaces it
        assert_eq!(
            merge(Some(previous), "listing: 1=z\nmail-mark: 13 b"),
            "listing: 1=z\nmail-mark: 13 b"
        );
        // nothing before: the body as given
        assert_eq!(merge(None, "captured 2 note(s)"), "captured 2 note(s)");
        // a line whose "key" is a phrase or a date is free text, never carried
        assert_eq!(merge(Some("last run 2026-12-01: x\nNote: y"), "z"), "z");
    }

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
