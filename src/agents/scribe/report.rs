//! What the scribe did, as data (`--json`) and as the Markdown answer.

use serde::Serialize;

use super::capture::ItemKind;
use super::format::{FormatChoice, TaskFormat};
use super::names::Mention;
use super::plan::Planned;
use crate::agents::NativeOutput;

/// The notes of one capture, the links made and the names left alone.
#[derive(Debug, Clone, Serialize)]
pub struct Captured {
    pub notes: Vec<Planned>,
    pub linked: Vec<Mention>,
    /// Names several notes answer to: not linked.
    pub ambiguous: Vec<Mention>,
    pub task_format: FormatChoice,
}

impl Captured {
    pub fn new(task_format: FormatChoice) -> Captured {
        Captured {
            notes: Vec::new(),
            linked: Vec::new(),
            ambiguous: Vec::new(),
            task_format,
        }
    }

    pub fn add(&mut self, note: Planned, linked: Vec<Mention>, ambiguous: Vec<Mention>) {
        self.notes.push(note);
        for m in linked {
            if !self.linked.iter().any(|l| l.notes == m.notes) {
                self.linked.push(m);
            }
        }
        for m in ambiguous {
            if !self
                .ambiguous
                .iter()
                .any(|a| a.said.eq_ignore_ascii_case(&m.said))
            {
                self.ambiguous.push(m);
            }
        }
    }

    fn count(&self, kind: ItemKind) -> usize {
        self.notes.iter().filter(|n| n.item == kind).count()
    }
}

fn format_name(f: TaskFormat) -> &'static str {
    match f {
        TaskFormat::TasksEmoji => "Tasks plugin (📅)",
        TaskFormat::Dataview => "Dataview fields ([due:: …])",
        TaskFormat::AtDue => "@due(…)",
    }
}

fn links(list: &[String]) -> String {
    list.iter()
        .map(|n| format!("[[{n}]]"))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// How a dictation was cleaned, for the answer.
pub(crate) fn cleaned(how: &super::speech::Cleaned, l: crate::lang::Lang) -> String {
    use super::speech::Cleaned;
    match how {
        Cleaned::Model(id) => crate::tr!(l, "scribe.cleaned.model", model = id),
        Cleaned::Native {
            removed,
            model_error,
        } => {
            let mut out = crate::tr!(l, "scribe.cleaned.native", count = removed);
            if let Some(e) = model_error {
                out.push_str(&crate::tr!(l, "scribe.cleaned.model_failed", why = e));
            }
            out
        }
    }
}

/// The answer shown to the user and the post-it kept.
pub fn output(c: &Captured, today: &str, l: crate::lang::Lang) -> NativeOutput {
    let n = c.notes.len();
    let mut out = crate::trn!(l, "scribe.heading", n);
    if n > 1 {
        out.push_str(&crate::tr!(
            l,
            "scribe.items",
            count = n,
            tasks = c.count(ItemKind::Task),
            ideas = c.count(ItemKind::Idea),
            notes = c.count(ItemKind::Note),
            events = c.count(ItemKind::Event)
        ));
    }
    for p in &c.notes {
        out.push_str(&format!("- `{}` ({})\n", p.path, p.kind));
        if let Some(t) = &p.task {
            out.push_str(&format!("  `{t}`\n"));
        } else if let Some(d) = p.date.filter(|_| p.item == ItemKind::Event) {
            out.push_str(&crate::tr!(l, "scribe.on_date", date = d));
        }
    }
    if c.notes.iter().any(|p| p.task.is_some()) {
        let f = &c.task_format;
        let basis = if f.seen.iter().sum::<usize>() == 0 {
            crate::tr!(l, "scribe.format.unseen")
        } else {
            crate::tr!(
                l,
                "scribe.format.seen",
                emoji = f.seen[0],
                dataview = f.seen[1],
                due = f.seen[2]
            )
        };
        out.push_str(&crate::tr!(
            l,
            "scribe.format",
            format = format_name(f.format),
            basis = basis
        ));
    }
    if !c.linked.is_empty() {
        let names: Vec<String> = c.linked.iter().flat_map(|m| m.notes.clone()).collect();
        out.push_str(&crate::tr!(
            l,
            "scribe.linked",
            notes = names
                .iter()
                .map(|n| format!("[[{n}]]"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    for a in &c.ambiguous {
        out.push_str(&crate::tr!(
            l,
            "scribe.ambiguous",
            said = a.said,
            notes = links(&a.notes)
        ));
    }
    NativeOutput {
        postit: format!(
            "captured {n} note(s) on {today}:\n{}",
            c.notes
                .iter()
                .map(|p| format!("- {}", p.path))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        text: out,
        attention: false,
    }
}
