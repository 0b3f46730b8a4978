//! How the vault writes a task's due date and priority, learned from its own tasks, and a
//! task line in that form. Pure.

use chrono::NaiveDate;
use serde::Serialize;

use super::capture::Priority;

/// The task syntaxes crew writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum TaskFormat {
    /// The Tasks plugin: `📅 2026-05-12`, priority `⏫ 🔼 🔽`.
    TasksEmoji,
    /// Dataview inline fields: `[due:: 2026-05-12]`, `[priority:: high]`.
    Dataview,
    /// `@due(2026-05-12)`, priority as a `#high` tag.
    AtDue,
}

/// The format chosen and the tasks that showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct FormatChoice {
    pub format: TaskFormat,
    /// Existing tasks in each format: emoji, dataview, @due.
    pub seen: [usize; 3],
}

/// The format most of the vault's tasks use; the Tasks plugin's when none carries a date.
pub fn detect<'a>(task_texts: impl Iterator<Item = &'a str>) -> FormatChoice {
    let mut seen = [0usize; 3];
    for t in task_texts {
        if ['📅', '⏳', '🛫', '⏫', '🔼', '🔽', '🔺', '⏬']
            .iter()
            .any(|e| t.contains(*e))
        {
            seen[0] += 1;
        }
        if t.contains("[due::") || t.contains("(due::") || t.contains("[priority::") {
            seen[1] += 1;
        }
        if t.contains("@due(") {
            seen[2] += 1;
        }
    }
    let format = if seen[1] > seen[0] && seen[1] >= seen[2] {
        TaskFormat::Dataview
    } else if seen[2] > seen[0] && seen[2] > seen[1] {
        TaskFormat::AtDue
    } else {
        TaskFormat::TasksEmoji
    };
    FormatChoice { format, seen }
}

/// `- [ ] text …` with the due date and priority in `format`.
pub(crate) fn task_line(
    text: &str,
    due: Option<NaiveDate>,
    priority: Option<Priority>,
    format: TaskFormat,
) -> String {
    let mut line = format!("- [ ] {}", text.trim());
    match format {
        TaskFormat::TasksEmoji => {
            if let Some(p) = priority {
                line.push_str(match p {
                    Priority::High => " ⏫",
                    Priority::Medium => " 🔼",
                    Priority::Low => " 🔽",
                });
            }
            if let Some(d) = due {
                line.push_str(&format!(" 📅 {d}"));
            }
        }
        TaskFormat::Dataview => {
            if let Some(p) = priority {
                line.push_str(&format!(" [priority:: {}]", word(p)));
            }
            if let Some(d) = due {
                line.push_str(&format!(" [due:: {d}]"));
            }
        }
        TaskFormat::AtDue => {
            if let Some(p) = priority {
                line.push_str(&format!(" #{}", word(p)));
            }
            if let Some(d) = due {
                line.push_str(&format!(" @due({d})"));
            }
        }
    }
    line
}

/// The frontmatter/Dataview word for a priority.
pub fn word(p: Priority) -> &'static str {
    match p {
        Priority::High => "high",
        Priority::Medium => "medium",
        Priority::Low => "low",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vaults_own_format_wins() {
        let tasks = [
            "a [due:: 2026-01-01]",
            "b [due:: 2026-02-01]",
            "c 📅 2026-01-01",
        ];
        assert_eq!(detect(tasks.into_iter()).format, TaskFormat::Dataview);
        assert_eq!(detect(["plain"].into_iter()).format, TaskFormat::TasksEmoji);
        assert_eq!(
            detect(["x @due(2026-01-01)"].into_iter()).format,
            TaskFormat::AtDue
        );
    }

    #[test]
    fn lines() {
        let d = NaiveDate::from_ymd_opt(2026, 12, 4);
        assert_eq!(
            task_line("send it", d, Some(Priority::High), TaskFormat::TasksEmoji),
            "- [ ] send it ⏫ 📅 2026-12-04"
        );
        assert_eq!(
            task_line("send it", d, Some(Priority::Low), TaskFormat::Dataview),
            "- [ ] send it [priority:: low] [due:: 2026-12-04]"
        );
        assert_eq!(task_line("x", None, None, TaskFormat::AtDue), "- [ ] x");
    }
}
