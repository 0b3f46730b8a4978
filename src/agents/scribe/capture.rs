//! A capture cut into items — task, idea, note, event — with each task's due date and
//! priority taken from its words. Pure: the caller gives `today` and the user's date order.
//!
//! A sentence starts a new item when it is a task, an idea or an event (by an explicit label
//! such as "todo:"/"idée :", a checkbox, or cue words in the seven languages); plain sentences
//! stay with the item before them, so a task keeps its context and a plain note stays whole.

use std::sync::LazyLock;

use chrono::NaiveDate;
use regex::Regex;
use serde::Serialize;

use crate::analysis::dates::{self, DateOrder, Found};
use crate::text::normalize;

/// What an item of a capture is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum ItemKind {
    Task,
    Idea,
    Note,
    Event,
}

/// A task's priority, as the Tasks plugin ranks them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Priority {
    High,
    Medium,
    Low,
}

/// One item of a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    pub kind: ItemKind,
    /// The first sentence: a task's text without its label, date phrase and priority word.
    pub head: String,
    /// Sentences and lines that came with it, as written.
    pub body: Vec<String>,
    /// A task's due date, an event's day.
    pub date: Option<NaiveDate>,
    pub priority: Option<Priority>,
}

impl Item {
    /// Head and body as one text.
    pub fn text(&self) -> String {
        std::iter::once(self.head.as_str())
            .chain(self.body.iter().map(String::as_str))
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One of the capture lists of every language (`references/lang/<code>.yaml`, `capture:`).
fn capture_words(list: &str) -> Vec<&'static str> {
    crate::text::lexicons()
        .iter()
        .flat_map(|l| l.capture.get(list).into_iter().flatten())
        .map(String::as_str)
        .collect()
}

fn words_regex(words: &[&str]) -> Regex {
    let mut w: Vec<&str> = words.to_vec();
    w.sort_by_key(|s| std::cmp::Reverse(s.chars().count()));
    let alt = w
        .iter()
        .map(|s| regex::escape(s).replace(' ', r"\s+"))
        .collect::<Vec<_>>()
        .join("|");
    Regex::new(&format!(
        r"(?i)(?:^|[^\p{{L}}\p{{N}}])({alt})(?:$|[^\p{{L}}\p{{N}}])"
    ))
    .expect("static regex")
}

/// Labels at the start of a sentence that say what it is.
static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?P<task>to-?dos|to-?do|tasks|task|da\s+fare|compito|tâche|tache|à\s+faire|a\s+faire|tarea|pendiente|aufgabe|tarefa|タスク|やること)\s*[:：]\s*|^\s*(?P<idea>ideas|idea|ideen|idee|idées|idée|ideias|ideia|アイデア)\s*[:：]\s*|^\s*(?P<note>notes|note|notas|nota|note|notizen|notiz|メモ)\s*[:：]\s*|^\s*(?P<event>events|event|eventos|evento|événement|evenement|termin|予定)\s*[:：]\s*",
    )
    .expect("static regex")
});

static TASK_LEAD: LazyLock<Regex> = LazyLock::new(|| {
    let mut w = capture_words("task_leads");
    w.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let alt = w
        .iter()
        .map(|s| regex::escape(s).replace(' ', r"\s+"))
        .collect::<Vec<_>>()
        .join("|");
    Regex::new(&format!(
        r"(?i)^(?:{alt})(?:\s+(?:that|che|que|de|di|daran))?[\s:,]*"
    ))
    .expect("static regex")
});
static TASK_CUE: LazyLock<Regex> = LazyLock::new(|| words_regex(&capture_words("task_cues")));
static TASK_VERB: LazyLock<Regex> = LazyLock::new(|| {
    let mut w = capture_words("task_verbs");
    w.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let alt = w
        .iter()
        .map(|s| regex::escape(s).replace(' ', r"\s+"))
        .collect::<Vec<_>>()
        .join("|");
    Regex::new(&format!(r"(?i)^(?:{alt})(?:$|[^\p{{L}}\p{{N}}])")).expect("static regex")
});
static IDEA_CUE: LazyLock<Regex> = LazyLock::new(|| words_regex(&capture_words("idea_cues")));
static EVENT_CUE: LazyLock<Regex> = LazyLock::new(|| words_regex(&capture_words("event_cues")));
static PRIORITY: LazyLock<Regex> = LazyLock::new(|| {
    let all: Vec<&str> = ["priority_high", "priority_medium", "priority_low"]
        .into_iter()
        .flat_map(capture_words)
        .collect();
    words_regex(&all)
});
static BULLET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\s*(?:[-*+•]|\d{1,2}[.)])\s+(?P<box>\[[ xX]\]\s+)?").expect("static regex")
});
static CHECKBOX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\[[ ]\]\s+").expect("static regex"));

/// Words ending in a period that do not end a sentence.
const ABBREVIATIONS: &[&str] = &[
    "mr", "mrs", "ms", "dr", "st", "prof", "sig", "e.g", "i.e", "etc", "vs", "ca", "sr", "jr",
];

/// Sentences of one line: cut after `.`, `!`, `?`, `;`, `。`, `！`, `？` — not after a digit
/// ("12. Mai", "v1.2") nor after a common abbreviation.
pub fn sentences(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        let next = chars.get(i + 1).map(|x| x.1);
        let ends = match c {
            '。' | '！' | '？' => true,
            '!' | '?' | ';' => next.is_none_or(char::is_whitespace),
            '.' => {
                let prev = i.checked_sub(1).and_then(|p| chars.get(p)).map(|x| x.1);
                let word = line[start..at]
                    .split_whitespace()
                    .next_back()
                    .unwrap_or("")
                    .to_lowercase();
                next.is_none_or(char::is_whitespace)
                    && !prev.is_some_and(|p| p.is_ascii_digit())
                    && !ABBREVIATIONS.contains(&word.as_str())
            }
            _ => false,
        };
        if ends {
            let end = at + c.len_utf8();
            let s = line[start..end].trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            start = end;
        }
    }
    let rest = line[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

fn priority_of(word: &str) -> Option<Priority> {
    let w = normalize(word);
    let is = |list: &str| capture_words(list).iter().any(|x| normalize(x) == w);
    if is("priority_low") {
        Some(Priority::Low)
    } else if is("priority_high") {
        Some(Priority::High)
    } else if is("priority_medium") {
        Some(Priority::Medium)
    } else {
        None
    }
}

/// Removes `range` from `s` and the punctuation it leaves dangling.
fn cut(s: &str, range: std::ops::Range<usize>) -> String {
    let joined = format!(
        "{} {}",
        s[..range.start].trim_end(),
        s[range.end..].trim_start()
    );
    let mut t = joined.split_whitespace().collect::<Vec<_>>().join(" ");
    for bad in [" ,", " .", " ;", " !", " :", "( )", "()"] {
        t = t.replace(bad, bad.trim_start());
    }
    for (twice, once) in [(",.", "."), (",,", ","), (";.", "."), (":.", ".")] {
        t = t.replace(twice, once);
    }
    t.trim_matches(|c: char| {
        c == ',' || c == ';' || c == '-' || c == '–' || c == ':' || c.is_whitespace()
    })
    .to_string()
}

/// The sentence's priority word, and the sentence without it when it stood at an edge or in
/// brackets ("urgent: call the bank", "call the bank, ASAP"); a word inside the sentence stays.
fn take_priority(s: &str) -> (Option<Priority>, String) {
    let Some(c) = PRIORITY.captures(s) else {
        return (None, s.to_string());
    };
    let Some(m) = c.get(1) else {
        return (None, s.to_string());
    };
    let p = priority_of(m.as_str());
    let before = s[..m.start()].trim_end_matches(['(', '!', ' ']);
    let after = s[m.end()..].trim_start_matches([')', '!', ' ']);
    let at_edge = before.trim().is_empty()
        || after
            .trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace())
            .is_empty()
        || s[..m.start()].ends_with('(');
    if at_edge {
        (
            p,
            cut(s, m.start()..m.end())
                .trim_matches(['(', ')', ' '])
                .to_string(),
        )
    } else {
        (p, s.to_string())
    }
}

/// The date that matters in a sentence: a limit first, else the first one.
fn main_date(found: &[Found]) -> Option<&Found> {
    found.iter().find(|f| f.deadline).or(found.first())
}

/// What one sentence is, and the sentence without its label.
fn classify(
    sentence: &str,
    default: Option<ItemKind>,
    found: &[Found],
) -> (ItemKind, String, bool) {
    if let Some(c) = LABEL.captures(sentence)
        && let Some(whole) = c.get(0)
    {
        let rest = sentence[whole.end()..].to_string();
        let kind = if c.name("task").is_some() {
            ItemKind::Task
        } else if c.name("idea").is_some() {
            ItemKind::Idea
        } else if c.name("event").is_some() {
            ItemKind::Event
        } else {
            ItemKind::Note
        };
        return (kind, rest, true);
    }
    if let Some(m) = CHECKBOX.find(sentence) {
        return (ItemKind::Task, sentence[m.end()..].to_string(), true);
    }
    let s = sentence.to_string();
    let dated = main_date(found);
    let kind = if TASK_LEAD.is_match(sentence)
        || TASK_CUE.is_match(sentence)
        || TASK_VERB.is_match(sentence.trim_start())
        || dated.is_some_and(|f| f.deadline)
        || PRIORITY
            .captures(sentence)
            .and_then(|c| c.get(1))
            .and_then(|m| priority_of(m.as_str()))
            .is_some_and(|p| p == Priority::High)
    {
        ItemKind::Task
    } else if EVENT_CUE.is_match(sentence) && dated.is_some() {
        ItemKind::Event
    } else if IDEA_CUE.is_match(sentence) {
        ItemKind::Idea
    } else {
        return (default.unwrap_or(ItemKind::Note), s, default.is_some());
    };
    (kind, s, true)
}

/// A task's head: its leading "remind me to" cut, then its date phrase and priority word.
fn task_head(
    text: &str,
    today: NaiveDate,
    order: DateOrder,
) -> (String, Option<NaiveDate>, Option<Priority>) {
    let text = TASK_LEAD.replace(text.trim(), "").to_string();
    let (priority, text) = take_priority(&text);
    let found = dates::find_dates(&text, today, order);
    let (text, date) = match main_date(&found) {
        Some(f) => (cut(&text, f.span.clone()), Some(f.date)),
        None => (text, None),
    };
    // a task line needs no closing period
    (
        text.trim_end_matches(['.', ',', ';', ' ']).to_string(),
        date,
        priority,
    )
}

/// A label line ("Todo:", "Idee:") gives its kind to the bullets under it.
fn list_label(line: &str) -> Option<ItemKind> {
    let c = LABEL.captures(line)?;
    if !line[c.get(0)?.end()..].trim().is_empty() {
        return None;
    }
    Some(if c.name("task").is_some() {
        ItemKind::Task
    } else if c.name("idea").is_some() {
        ItemKind::Idea
    } else if c.name("event").is_some() {
        ItemKind::Event
    } else {
        ItemKind::Note
    })
}

fn new_item(kind: ItemKind, text: &str, today: NaiveDate, order: DateOrder) -> Item {
    match kind {
        ItemKind::Task => {
            let (head, date, priority) = task_head(text, today, order);
            Item {
                kind,
                head,
                body: Vec::new(),
                date,
                priority,
            }
        }
        ItemKind::Event => {
            let found = dates::find_dates(text, today, order);
            Item {
                kind,
                head: text.trim().to_string(),
                body: Vec::new(),
                date: main_date(&found).map(|f| f.date),
                priority: None,
            }
        }
        _ => Item {
            kind,
            head: text.trim().to_string(),
            body: Vec::new(),
            date: None,
            priority: None,
        },
    }
}

/// Cuts a capture into items. `one_per_line`: the user asked for a note per line.
pub fn split(text: &str, today: NaiveDate, order: DateOrder, one_per_line: bool) -> Vec<Item> {
    let mut items: Vec<Item> = Vec::new();
    let mut list_kind: Option<ItemKind> = None;
    for raw in text.lines() {
        if raw.trim().is_empty() {
            list_kind = None;
            continue;
        }
        if let Some(k) = list_label(raw) {
            list_kind = Some(k);
            continue;
        }
        let (line, boxed, bulleted) = match BULLET.captures(raw) {
            Some(c) => (
                raw[c.get(0).map_or(0, |m| m.end())..].to_string(),
                c.name("box")
                    .is_some_and(|b| b.as_str().contains(' ') && !b.as_str().contains(['x', 'X'])),
                true,
            ),
            None => (raw.to_string(), false, false),
        };
        let default = if bulleted { list_kind } else { None };
        for (i, sentence) in sentences(&line).into_iter().enumerate() {
            let found = dates::find_dates(&sentence, today, order);
            let (kind, rest, starts) = if boxed && i == 0 {
                (ItemKind::Task, sentence.clone(), true)
            } else {
                classify(&sentence, default, &found)
            };
            let starts = starts || (one_per_line && i == 0) || items.is_empty();
            match items.last_mut() {
                Some(last) if !starts && kind == ItemKind::Note => last.body.push(sentence),
                _ => items.push(new_item(kind, &rest, today, order)),
            }
        }
    }
    items.retain(|i| !i.text().trim().is_empty());
    items
}

#[cfg(test)]
#[path = "capture_tests.rs"]
mod tests;
