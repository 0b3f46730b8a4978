//! The scribe: captures a message as well-formed notes in the inbox. The capture is cut into
//! items (`capture`), each becomes a note with its task line, links and frontmatter (`plan`),
//! written through the gate (`apply`) and reported (`report`).

mod apply;
mod capture;
mod format;
mod names;
mod plan;
mod report;
mod shaped;
mod speech;

use std::sync::LazyLock;

use regex::Regex;

use super::common;
use super::{Ctx, NativeOutput};
use crate::gate::GateError;
use crate::text::normalize;

pub(crate) static URL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"https?://[^\s)>\]]+").expect("static regex"));

/// The scribe's modes (`agents/scribe.md`, `## Modes`), from the slug the dispatcher chose.
/// Natively, voice notes, threads, reading notes and brainstorms are captured as any text is;
/// a quote is kept whole, as one quote note.
#[derive(Debug, Clone, Copy)]
enum ScribeMode {
    Capture,
    Quote,
    /// A dictation: cleaned, then captured.
    Voice,
    /// A brainstorm or reading notes: one note laid out by its template.
    Shaped(&'static shaped::ShapeDef),
}

impl ScribeMode {
    fn from_slug(slug: Option<&str>) -> ScribeMode {
        match slug {
            Some("quote-capture") => ScribeMode::Quote,
            Some("voice-to-note") => ScribeMode::Voice,
            Some(other) => shaped::shape(other).map_or(ScribeMode::Capture, ScribeMode::Shaped),
            None => ScribeMode::Capture,
        }
    }
}

/// Guesses a note type from cues in the text. A quote is told by its form (opening quote
/// marks, a blockquote); the word "quote" inside a text is a topic ("the tile quote"), and
/// asking for a quote capture is the mode's business.
pub(crate) fn guess_type(text: &str) -> &'static str {
    let n = format!(" {} ", normalize(text));
    let has = |cues: &[&str]| {
        cues.iter()
            .any(|c| n.contains(&format!(" {} ", normalize(c))))
    };
    let t = text.trim_start();
    if t.starts_with('"') || t.starts_with('“') || t.starts_with('«') || t.starts_with('>') {
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

pub(crate) fn title_from(text: &str) -> String {
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

/// Every name that points at a person or project note.
fn known_names(ctx: &Ctx) -> Vec<names::Name> {
    let vault = ctx.gate.vault();
    let people = &ctx.config.folders.people;
    let projects = &ctx.config.folders.projects;
    let mut out: Vec<names::Name> = common::notes_under(&vault.notes, people)
        .flat_map(|(_, n)| names::person_names(n.name(), &n.aliases))
        .collect();
    let mut project_names: Vec<(String, Vec<String>)> = ctx
        .gate
        .subdirs(projects)
        .iter()
        .map(|p| (p.rsplit('/').next().unwrap_or(p).to_string(), Vec::new()))
        .collect();
    for (_, n) in common::notes_in(&vault.notes, projects) {
        project_names.push((n.name().to_string(), n.aliases.clone()));
    }
    for (name, aliases) in project_names {
        out.push(names::Name {
            surface: name.clone(),
            target: name.clone(),
            how: names::How::Full,
        });
        out.extend(aliases.into_iter().map(|a| names::Name {
            surface: a,
            target: name.clone(),
            how: names::How::Full,
        }));
    }
    out
}

/// The items of a capture: a quote stays whole; otherwise cut by kind (or per line on request).
fn items_of(ctx: &Ctx, text: &str, mode: ScribeMode) -> Vec<capture::Item> {
    if matches!(mode, ScribeMode::Quote) || guess_type(text) == "quote" {
        return vec![capture::Item {
            kind: capture::ItemKind::Note,
            head: text.to_string(),
            body: Vec::new(),
            date: None,
            priority: None,
        }];
    }
    let per_line = ctx.says(super::cue::Cue::Split);
    let text: String = if per_line {
        text.lines()
            .filter(|l| !normalize(l).contains("one note per item"))
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        text.to_string()
    };
    let order = super::user_dates::date_order(ctx);
    capture::split(&text, ctx.now.date(), order, per_line)
}

/// A brainstorm or reading notes as one note: titled by the text's first line, the text (all
/// of it when the first line does not fit in the title) under the first section of the vault's
/// template for the shape, else of crew's.
fn shaped_note(
    ctx: &Ctx,
    shape: &shaped::ShapeDef,
    text: &str,
    s: &plan::Setting,
) -> (plan::Planned, Vec<names::Mention>, Vec<names::Mention>) {
    let first = text.lines().next().unwrap_or("");
    let title = common::capitalized(&title_from(first));
    let body = if normalize(first) == normalize(&title) {
        text.lines().skip(1).collect::<Vec<_>>().join("\n")
    } else {
        text.to_string()
    };
    let (body, linked, unsure) = names::link(&body, s.names);
    let templates: Vec<(String, String)> = ctx
        .gate
        .vault()
        .notes
        .iter()
        .filter(|n| ctx.config.folders.in_templates(&n.path))
        .filter_map(|n| Some((n.path.clone(), ctx.gate.read_text(&n.path)?)))
        .collect();
    let template = shaped::vault_template(shape, &templates);
    let note = shaped::compose(
        shape,
        template.map(|(_, t)| t.as_str()),
        &title,
        &body,
        ctx.lang.code(),
        &ctx.now,
        &s.stamp,
    );
    let name = common::convention_name(&s.today.to_string(), &shape.kind, &title);
    let planned = plan::Planned {
        path: format!("{}/{name}.md", s.inbox),
        kind: shape.kind.clone(),
        item: capture::ItemKind::Note,
        task: None,
        date: None,
        priority: None,
        template: template.map(|(p, _)| p.clone()),
        text: note,
    };
    (planned, linked, unsure)
}

/// The scribe agent.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    if let Some(by) = &ctx.step.suggested_by {
        // the scribe captures the user's words; a hand-off carries another agent's words
        return Ok(NativeOutput {
            text: format!(
                "The {by} asked the scribe to: {}\nThe native scribe only captures what you write, so nothing was created. Say what to capture, e.g. \"quick note: …\".\n",
                ctx.step.task.lines().next().unwrap_or("")
            ),
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
    let mode = ScribeMode::from_slug(ctx.mode());
    let (text, cleaned) = if matches!(mode, ScribeMode::Voice) {
        let writer = crate::model::writer::Writer::for_ctx(ctx);
        let (text, how) = speech::clean(&text, writer);
        (text, Some(how))
    } else {
        (text, None)
    };
    let names = known_names(ctx);
    let choice = format::detect(
        ctx.gate
            .vault()
            .notes
            .iter()
            .filter(|n| !ctx.config.folders.in_templates(&n.path))
            .flat_map(|n| n.tasks.iter().map(|t| t.text.as_str())),
    );
    let setting = plan::Setting {
        today: ctx.now.date(),
        stamp: common::now_stamp(&ctx.now),
        inbox: &ctx.config.folders.inbox,
        format: choice.format,
        names: &names,
        quote: matches!(mode, ScribeMode::Quote),
    };
    let mut captured = report::Captured::new(choice);
    if let ScribeMode::Shaped(shape) = mode {
        let (planned, linked, unsure) = shaped_note(ctx, shape, &text, &setting);
        captured.add(planned, linked, unsure);
    } else {
        for item in &items_of(ctx, &text, mode) {
            let (planned, linked, unsure) = plan::plan_item(item, &setting);
            captured.add(planned, linked, unsure);
        }
    }
    apply::create(ctx, &mut captured)?;
    let projects = ctx.config.folders.projects.clone();
    let files_to_project = captured
        .linked
        .iter()
        .flat_map(|m| m.notes.iter())
        .any(|n| ctx.gate.dir_exists(&format!("{projects}/{n}")));
    ctx.data = serde_json::to_value(&captured).ok();
    if files_to_project {
        let paths: Vec<&str> = captured.notes.iter().map(|p| p.path.as_str()).collect();
        ctx.hand_off(crate::agents::common::suggestion(
            "sorter",
            "the new note names a project that exists; it can be filed now",
            &paths.join("; "),
        ));
    }
    let mut out = report::output(&captured, &ctx.today(), ctx.lang);
    if let Some(how) = cleaned {
        out.text.push_str(&report::cleaned(&how, ctx.lang));
    }
    Ok(out)
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
}
