//! The notes a capture becomes: name, frontmatter and body for each item. Pure.

use chrono::NaiveDate;
use serde::Serialize;

use super::capture::{Item, ItemKind, Priority};
use super::format::{self, TaskFormat};
use super::names::{self, Mention, Name};
use crate::agents::common;
use crate::vault::edit::yaml_scalar;

/// One note to create.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(crate) struct Planned {
    /// Vault path wished for (the gate picks a free one when taken).
    pub path: String,
    /// The note type written in its frontmatter.
    pub kind: String,
    pub item: ItemKind,
    /// The task line, for a task.
    pub task: Option<String>,
    #[serde(serialize_with = "iso_date")]
    pub date: Option<NaiveDate>,
    pub priority: Option<Priority>,
    /// The vault template the note was laid out by, for a shaped mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    #[serde(skip)]
    pub text: String,
}

fn iso_date<S: serde::Serializer>(d: &Option<NaiveDate>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => s.serialize_str(&d.to_string()),
        None => s.serialize_none(),
    }
}

/// What the capture plan needs to know about the run.
pub(crate) struct Setting<'a> {
    pub today: NaiveDate,
    /// `created:` timestamp.
    pub stamp: String,
    pub inbox: &'a str,
    pub format: TaskFormat,
    pub names: &'a [Name],
    /// The request is a quote capture: its one item is a quote, whatever it reads like.
    pub quote: bool,
}

fn note_type(item: &Item, quote: bool) -> String {
    match item.kind {
        ItemKind::Task => "task".into(),
        ItemKind::Idea => "idea".into(),
        ItemKind::Event => {
            let t = item.head.to_lowercase();
            if crate::text::word_list("scribe_meeting_words")
                .iter()
                .any(|w| t.contains(w))
            {
                "meeting".into()
            } else {
                "event".into()
            }
        }
        ItemKind::Note if quote => "quote".into(),
        ItemKind::Note => super::guess_type(&item.text()).to_string(),
    }
}

/// The note for one item; the links it made and the names it left alone.
pub(crate) fn plan_item(item: &Item, s: &Setting) -> (Planned, Vec<Mention>, Vec<Mention>) {
    let kind = note_type(item, s.quote);
    let (head, mut linked, mut unsure) = names::link(&item.head, s.names);
    let (body, l2, u2) = names::link(&item.body.join("\n"), s.names);
    // a name linked in the head is not linked again below it
    for m in l2 {
        if !linked.iter().any(|l| l.notes == m.notes) {
            linked.push(m);
        }
    }
    unsure.extend(u2);
    let title = common::capitalized(&super::title_from(&item.head.replace(['[', ']'], "")));
    let day = match item.kind {
        ItemKind::Event => item.date.unwrap_or(s.today),
        _ => s.today,
    };
    let name = common::convention_name(&day.to_string(), &kind, &title);
    let mut fm = format!("---\ntype: {kind}\ndate: {day}\ntags: [{kind}]\nstatus: inbox\n");
    if let Some(p) = item.priority {
        fm.push_str(&format!("priority: {}\n", format::word(p)));
    }
    if let Some(url) = super::URL.find(&item.text()) {
        fm.push_str(&format!("source: {}\n", yaml_scalar(url.as_str())));
    }
    fm.push_str(&format!("created: {}\n---\n", s.stamp));
    let task = (item.kind == ItemKind::Task)
        .then(|| format::task_line(&head, item.date, item.priority, s.format));
    let content = match (&task, kind.as_str()) {
        (Some(line), _) => format!("{line}\n"),
        (None, "quote") if !head.trim_start().starts_with('>') => std::iter::once(head.as_str())
            .chain(body.lines())
            .map(|l| format!("> {l}\n"))
            .collect(),
        _ => format!("{head}\n"),
    };
    let rest = if body.trim().is_empty() || kind == "quote" {
        String::new()
    } else {
        format!("\n{body}\n")
    };
    let text = format!("{fm}# {title}\n\n{content}{rest}");
    let planned = Planned {
        path: format!("{}/{name}.md", s.inbox),
        kind,
        item: item.kind,
        task,
        date: item.date,
        priority: item.priority,
        template: None,
        text,
    };
    (planned, linked, unsure)
}
