//! The scribe: captures a message as a well-formed note in the inbox.

use std::sync::LazyLock;

use regex::Regex;

use super::common::{self, suggestion};
use super::{Ctx, NativeOutput};
use crate::dispatch::normalize::normalize;
use crate::gate::GateError;
use crate::vault::edit::yaml_scalar;

static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"https?://[^\s)>\]]+").expect("static regex"));

/// Guesses a note type from cues in the text.
pub fn guess_type(text: &str) -> &'static str {
    let n = format!(" {} ", normalize(text));
    let has = |cues: &[&str]| {
        cues.iter()
            .any(|c| n.contains(&format!(" {} ", normalize(c))))
    };
    let t = text.trim_start();
    if t.starts_with('"')
        || t.starts_with('“')
        || t.starts_with('«')
        || t.starts_with('>')
        || has(&["quote", "citazione", "citation", "cita", "zitat", "citação"])
    {
        "quote"
    } else if URL.is_match(text) {
        "reference"
    } else if has(&[
        "todo",
        "to do",
        "need to",
        "must",
        "have to",
        "remind me",
        "don't forget",
        "buy",
        "call",
        "deadline",
        "devo",
        "ricordami",
        "comprare",
        "je dois",
        "rappelle moi",
        "tengo que",
        "recuérdame",
        "ich muss",
        "erinnere mich",
        "preciso",
        "lembra me",
    ]) {
        "task"
    } else if has(&[
        "idea",
        "what if",
        "maybe we could",
        "idée",
        "idee",
        "ideia",
        "brainstorm",
    ]) {
        "idea"
    } else {
        "note"
    }
}

/// Removes a leading capture command ("save this:", "quick note -") from the text.
fn strip_command(text: &str, triggers: &[String]) -> String {
    let first_line_end = text.find('\n').unwrap_or(text.len());
    let head = &text[..first_line_end];
    let head_norm = normalize(head);
    let mut best = 0;
    for t in triggers {
        let tn = normalize(t);
        if !tn.is_empty() && (head_norm == tn || head_norm.starts_with(&format!("{tn} "))) {
            best = best.max(tn.split(' ').count());
        }
    }
    if best == 0 {
        return text.trim().to_string();
    }
    // drop as many words as the trigger has, then separators
    let mut rest = head;
    for _ in 0..best {
        rest = rest.trim_start();
        let cut = rest
            .find(|c: char| c.is_whitespace() || c == ':' || c == ',')
            .unwrap_or(rest.len());
        rest = &rest[cut..];
        rest = rest.trim_start_matches([':', ',']);
    }
    let rest = rest.trim_start_matches([' ', ':', '-', '—', ',', '.']);
    format!("{rest}{}", &text[first_line_end..])
        .trim()
        .to_string()
}

fn title_from(text: &str) -> String {
    let first = text
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("Untitled");
    let first = first
        .trim()
        .trim_start_matches(['-', '*', '>', '#', ' ', '"', '“'])
        .trim();
    let no_url = URL.replace_all(first, "");
    let words: Vec<&str> = no_url.split_whitespace().take(8).collect();
    common::safe_title(&words.join(" "), 50)
}

/// Links the first mention of each known person or project name.
fn link_known_names(body: &str, names: &[String]) -> (String, Vec<String>) {
    let mut out = body.to_string();
    let mut linked = Vec::new();
    for name in names {
        if name.chars().count() < 3 || out.contains(&format!("[[{name}")) {
            continue;
        }
        let re = match Regex::new(&format!(r"(?i)\b{}\b", regex::escape(name))) {
            Ok(r) => r,
            Err(_) => continue,
        };
        if let Some(m) = re.find(&out) {
            let before = &out[..m.start()];
            // not inside an existing link or code span
            if before.matches("[[").count() > before.matches("]]").count()
                || before.matches('`').count() % 2 == 1
            {
                continue;
            }
            out = format!("{}[[{name}]]{}", &out[..m.start()], &out[m.end()..]);
            linked.push(name.clone());
        }
    }
    (out, linked)
}

fn capture_one(
    ctx: &mut Ctx,
    text: &str,
    known: &[String],
) -> Result<(String, String, Vec<String>), GateError> {
    let kind = guess_type(text);
    let title = title_from(text);
    let today = ctx.today();
    let name = common::convention_name(&today, kind, &title);
    let (body, linked) = link_known_names(text, known);
    let mut fm = format!("---\ntype: {kind}\ndate: {today}\ntags: [{kind}]\nstatus: inbox\n");
    if let Some(url) = URL.find(text) {
        fm.push_str(&format!("source: {}\n", yaml_scalar(url.as_str())));
    }
    fm.push_str(&format!("created: {}\n---\n", common::now_stamp(&ctx.now)));
    let content = if kind == "quote" && !body.trim_start().starts_with('>') {
        body.lines().map(|l| format!("> {l}\n")).collect::<String>()
    } else {
        format!("{body}\n")
    };
    let text = format!("{fm}# {title}\n\n{content}");
    let path = ctx.gate.create(
        &format!("{}/{name}.md", ctx.config.folders.inbox),
        text.as_bytes(),
    )?;
    common::log_change(ctx, "scribe", &format!("captured {path}"))?;
    Ok((path, kind.to_string(), linked))
}

/// The scribe agent.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    if let Some(by) = &ctx.step.suggested_by {
        // the scribe captures the user's words; a hand-off carries another agent's words
        return Ok(NativeOutput {
            text: format!("The {by} asked the scribe to: {}
The native scribe only captures what you write, so nothing was created. Say what to capture, e.g. \"quick note: …\".\n", ctx.step.task.lines().next().unwrap_or("")),
            postit: ctx.postit.clone().unwrap_or_default(),
            attention: false,
        });
    }
    let triggers = ctx
        .crew
        .agent("scribe")
        .map(|a| a.triggers.clone())
        .unwrap_or_default();
    let source = ctx.step.message.clone();
    let text = strip_command(&source, &triggers);
    if text.is_empty() {
        return Ok(NativeOutput {
            text: "Nothing to capture: give the text after the request, e.g. `crew ask \"quick note: call the plumber\"`.\n".into(),
            postit: "nothing captured".into(),
            attention: true,
        });
    }
    let vault = ctx.gate.vault();
    let people = ctx.config.folders.people.clone();
    let projects = ctx.config.folders.projects.clone();
    let mut known: Vec<String> = common::notes_in(&vault.notes, &people)
        .map(|(_, n)| n.name().to_string())
        .collect();
    known.extend(
        ctx.gate
            .subdirs(&projects)
            .iter()
            .map(|p| p.rsplit('/').next().unwrap_or(p).to_string()),
    );
    known.sort_by_key(|n| std::cmp::Reverse(n.chars().count()));
    let split = ctx.asks(&[
        "one note per item",
        "split",
        "separate notes",
        "una nota per",
        "une note par",
        "una nota por",
        "eine notiz pro",
        "uma nota por",
    ]);
    let items: Vec<String> = if split {
        text.lines()
            .map(|l| {
                l.trim()
                    .trim_start_matches(['-', '*', '+'])
                    .trim()
                    .to_string()
            })
            .filter(|l| !l.is_empty() && !normalize(l).contains("one note per item"))
            .collect()
    } else {
        vec![text.clone()]
    };
    let mut created = Vec::new();
    let mut all_linked = Vec::new();
    for item in &items {
        let (path, kind, linked) = capture_one(ctx, item, &known)?;
        created.push((path, kind));
        all_linked.extend(linked);
    }
    let mut out = format!(
        "## Captured {} note{}\n\n",
        created.len(),
        if created.len() == 1 { "" } else { "s" }
    );
    for (p, k) in &created {
        out.push_str(&format!("- `{p}` ({k})\n"));
    }
    if !all_linked.is_empty() {
        all_linked.sort();
        all_linked.dedup();
        out.push_str(&format!(
            "\nLinked: {}\n",
            all_linked
                .iter()
                .map(|n| format!("[[{n}]]"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    let project_linked: Vec<&String> = all_linked
        .iter()
        .filter(|n| ctx.gate.dir_exists(&format!("{projects}/{n}")))
        .collect();
    if !project_linked.is_empty() {
        out.push_str(&suggestion(
            "sorter",
            "the new note names a project that exists; it can be filed now",
            &created
                .iter()
                .map(|c| c.0.clone())
                .collect::<Vec<_>>()
                .join("; "),
        ));
    }
    Ok(NativeOutput {
        postit: format!(
            "captured {} note(s) on {}:\n{}",
            created.len(),
            ctx.today(),
            created
                .iter()
                .map(|c| format!("- {}", c.0))
                .collect::<Vec<_>>()
                .join("\n")
        ),
        text: out,
        attention: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_from_cues() {
        assert_eq!(guess_type("remind me to call Anna"), "task");
        assert_eq!(guess_type("idea: a solar roof"), "idea");
        assert_eq!(guess_type("\"Stay hungry\" — Jobs"), "quote");
        assert_eq!(guess_type("read https://example.org/x later"), "reference");
        assert_eq!(guess_type("the sky was grey"), "note");
    }

    #[test]
    fn command_is_stripped() {
        let t = vec!["quick note".to_string(), "save this".to_string()];
        assert_eq!(
            strip_command("Quick note: call the plumber", &t),
            "call the plumber"
        );
        assert_eq!(
            strip_command("save this - buy milk\nand eggs", &t),
            "buy milk\nand eggs"
        );
        assert_eq!(strip_command("plain text", &t), "plain text");
    }

    #[test]
    fn links_known_names_once() {
        let (b, l) = link_known_names(
            "met Anna Rossi and anna rossi again",
            &["Anna Rossi".to_string()],
        );
        assert_eq!(b, "met [[Anna Rossi]] and anna rossi again");
        assert_eq!(l, vec!["Anna Rossi"]);
    }
}
