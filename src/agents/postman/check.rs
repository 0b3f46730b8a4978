//! "check my email": what arrived since the last check, grouped (VIPs, people with a note,
//! deadlines, the rest, newsletters last). With a model configured, each listed message also
//! gets a one-sentence summary; a model that fails leaves the listing as crew found it.

use std::collections::BTreeMap;

use super::language::{MAX_SUMMARIZED, Writer};
use super::mail::{self, Mail};
use super::people::Directory;
use super::source::{self, Fetched, Source};
use super::state::PostIt;
use super::{md_inline, source_or_setup};
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;

/// One listed message and what the vault knows of its sender.
struct Listed<'a> {
    mail: &'a Mail,
    person: Option<String>,
    vip: bool,
    deadline: Option<mail::Deadline>,
}

/// Group order: VIPs, people with a note, deadlines, the rest, then bulk mail.
const GROUPS: [&str; 5] = [
    "VIP",
    "From people you know",
    "With a deadline",
    "Other",
    "Newsletters and automated mail",
];

fn group_of(l: &Listed) -> usize {
    if l.vip {
        0
    } else if l.mail.bulk {
        4
    } else if l.person.is_some() {
        1
    } else if l.deadline.is_some() {
        2
    } else {
        3
    }
}

/// What the model added to a check, or why it added nothing.
#[derive(Debug, Default)]
struct ModelPart {
    id: String,
    summaries: BTreeMap<usize, String>,
    error: Option<String>,
    /// Listed messages beyond [`MAX_SUMMARIZED`], left without a summary.
    left_out: usize,
    tokens_in: u64,
    tokens_out: u64,
}

/// "check my email": what arrived since the last check, grouped.
pub fn check_mail(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let source = match source_or_setup(ctx) {
        Ok(s) => s,
        Err(out) => return Ok(out),
    };
    let mut postit = PostIt::parse(ctx.postit.as_deref());
    let fetched = match source.fetch_new(postit.get(source.mark_key())) {
        Ok(f) => f,
        Err(e) => {
            tracing::warn!("postman: {e}");
            return Ok(NativeOutput {
                text: format!("**Mail could not be read:** {e}\n"),
                postit: postit.render(),
                attention: true,
            });
        }
    };
    for p in &fetched.problems {
        tracing::warn!("postman: {p}");
    }
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let listed = list(&fetched.mails, &dir);
    let model = summarize(ctx, &listed);
    let since = postit
        .get("mail")
        .and_then(|l| l.strip_prefix("last check "))
        .and_then(|l| l.split(',').next())
        .map(str::to_string);
    let text = render(
        &listed,
        &fetched,
        since.as_deref(),
        model.as_ref(),
        ctx.lang,
    );
    ctx.data = Some(data(&listed, &fetched, model.as_ref()));
    if let Some(s) = unknown_sender(&listed) {
        ctx.hand_off(s);
    }
    remember(ctx, &mut postit, &source, &fetched, &listed);
    let today = ctx.now.date();
    let urgent = listed.iter().any(|l| {
        l.vip
            || l.deadline
                .as_ref()
                .is_some_and(|d| (d.date - today).num_days() <= 2)
    });
    Ok(NativeOutput {
        text,
        postit: postit.render(),
        attention: urgent || !fetched.problems.is_empty(),
    })
}

/// The messages with their senders matched, in group order; a message's number in the
/// listing is its place here plus one.
fn list<'a>(mails: &'a [Mail], dir: &Directory) -> Vec<Listed<'a>> {
    let mut listed: Vec<Listed> = mails
        .iter()
        .map(|m| Listed {
            vip: dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref()),
            person: dir
                .find(m.from_email.as_deref(), m.from_name.as_deref())
                .map(|p| p.note.clone()),
            deadline: m.deadline(),
            mail: m,
        })
        .collect();
    listed.sort_by_key(group_of);
    listed
}

/// Summaries from the configured model; `None` when no model is configured.
fn summarize(ctx: &Ctx, listed: &[Listed]) -> Option<ModelPart> {
    let writer = Writer::for_ctx(ctx)?;
    let mut part = ModelPart::default();
    let mut writer = match writer {
        Ok(w) => w,
        Err(e) => {
            part.id = super::language::configured_model(ctx).unwrap_or_default();
            part.error = Some(e.to_string());
            return Some(part);
        }
    };
    part.id = writer.id.clone();
    if listed.is_empty() {
        return Some(part);
    }
    let asked: Vec<(usize, &Mail)> = listed
        .iter()
        .enumerate()
        .take(MAX_SUMMARIZED)
        .map(|(i, l)| (i + 1, l.mail))
        .collect();
    part.left_out = listed.len().saturating_sub(MAX_SUMMARIZED);
    let got = writer.summarize(&asked);
    if let Some(e) = &got.error {
        tracing::warn!("postman: the model {} could not summarize: {e}", part.id);
    }
    part.summaries = got.by_number;
    part.error = got.error;
    part.tokens_in = writer.tokens_in;
    part.tokens_out = writer.tokens_out;
    Some(part)
}

fn line_of(n: usize, l: &Listed) -> String {
    let who = match (&l.person, &l.mail.from_email) {
        (Some(p), Some(e)) => format!("[[{p}]] <{e}>"),
        (Some(p), None) => format!("[[{p}]]"),
        _ => l.mail.sender(),
    };
    let mut s = format!("{n}. **{}** — {who}", md_inline(&l.mail.subject));
    if let Some(d) = l.mail.date {
        s.push_str(&format!(" · {}", d.format("%Y-%m-%d %H:%M")));
    }
    if let Some(d) = &l.deadline {
        s.push_str(&format!(
            " · deadline {} (\"{}\")",
            d.date,
            md_inline(&d.words)
        ));
    }
    if !l.mail.attachments.is_empty() {
        s.push_str(&format!(" · {} attachment(s)", l.mail.attachments.len()));
    }
    s
}

/// The listing as Markdown: the groups, each message with its summary when there is one.
fn render(
    listed: &[Listed],
    fetched: &Fetched,
    since: Option<&str>,
    model: Option<&ModelPart>,
    l: crate::lang::Lang,
) -> String {
    let group_titles = [
        crate::tr!(l, "mail.group.vip"),
        crate::tr!(l, "mail.group.people"),
        crate::tr!(l, "mail.group.deadline"),
        crate::tr!(l, "mail.group.other"),
        crate::tr!(l, "mail.group.bulk"),
    ];
    let mut out = match since {
        Some(s) => crate::tr!(l, "mail.heading.since", count = listed.len(), since = s),
        None => crate::tr!(l, "mail.heading.first", count = listed.len()),
    };
    let mut n = 0;
    for (g, title) in GROUPS.iter().enumerate() {
        let members: Vec<&Listed> = listed.iter().filter(|l| group_of(l) == g).collect();
        if members.is_empty() {
            continue;
        }
        let shown = group_titles.get(g).map_or(*title, String::as_str);
        out.push_str(&format!("\n### {shown} ({})\n", members.len()));
        for m in members {
            n += 1;
            out.push_str(&line_of(n, m));
            out.push('\n');
            if let Some(s) = model.and_then(|m| m.summaries.get(&n)) {
                out.push_str(&format!("   ↳ {s}\n"));
            }
        }
    }
    if listed.is_empty() {
        out.push_str(&crate::tr!(l, "mail.nothing_new"));
    }
    if let Some(m) = model {
        out.push_str(&model_lines(m, listed.len()));
    }
    render_tail(&mut out, listed, fetched, l);
    out
}

/// What the model did, in a sentence or two: who summarized, and what was left as found.
fn model_lines(m: &ModelPart, listed: usize) -> String {
    let mut out = String::new();
    if let Some(e) = &m.error {
        let shown = if m.summaries.is_empty() {
            "the listing above is crew's own".to_string()
        } else {
            format!(
                "{} of {listed} message(s) have a summary; the rest are listed as crew found them",
                m.summaries.len()
            )
        };
        out.push_str(&format!(
            "\n**The model `{}` could not summarize ({e}); {shown}.**\n",
            m.id
        ));
    } else if !m.summaries.is_empty() {
        out.push_str(&format!("\nSummaries (↳) by the model `{}`.\n", m.id));
    }
    if m.left_out > 0 {
        out.push_str(&format!(
            "Only the first {MAX_SUMMARIZED} messages are summarized; {} more are listed without one.\n",
            m.left_out
        ));
    }
    out
}

/// Older mail not listed, skipped files, what to say next, and a missing People note.
fn render_tail(out: &mut String, listed: &[Listed], fetched: &Fetched, l: crate::lang::Lang) {
    if fetched.more > 0 {
        out.push_str(&crate::tr!(
            l,
            "mail.more",
            count = fetched.more,
            shown = source::MAX_LISTED
        ));
    }
    if !fetched.problems.is_empty() {
        out.push_str(&crate::tr!(
            l,
            "mail.skipped",
            count = fetched.problems.len()
        ));
        for p in &fetched.problems {
            out.push_str(&format!("- {p}\n"));
        }
    }
    if !listed.is_empty() {
        out.push_str(&crate::tr!(l, "mail.save_hint"));
    }
}

/// A sender who matters (a VIP, or a deadline) with no People note: the contact sync's.
fn unknown_sender(listed: &[Listed]) -> Option<crate::dispatch::suggest::NextAgent> {
    let u = listed
        .iter()
        .find(|l| l.person.is_none() && !l.mail.bulk && (l.vip || l.deadline.is_some()))?;
    Some(common::suggestion(
        "contact-sync",
        "a sender who matters has no People note",
        &md_inline(&u.mail.sender()),
    ))
}

/// The figures for `--json`.
fn data(listed: &[Listed], fetched: &Fetched, model: Option<&ModelPart>) -> serde_json::Value {
    let messages: Vec<serde_json::Value> = listed
        .iter()
        .enumerate()
        .map(|(i, l)| {
            serde_json::json!({
                "number": i + 1, "group": GROUPS[group_of(l)], "key": l.mail.key,
                "subject": l.mail.subject, "from": l.mail.sender(), "person": l.person,
                "date": l.mail.date.map(|d| d.format("%Y-%m-%dT%H:%M:%S").to_string()),
                "deadline": l.deadline.as_ref().map(|d| d.date.to_string()),
                "attachments": l.mail.attachments,
                "summary": model.and_then(|m| m.summaries.get(&(i + 1))),
            })
        })
        .collect();
    let model = model.map(|m| {
        serde_json::json!({
            "id": m.id, "summaries": m.summaries.len(), "error": m.error,
            "left_out": m.left_out, "tokens_in": m.tokens_in, "tokens_out": m.tokens_out,
        })
    });
    serde_json::json!({
        "messages": messages, "more": fetched.more, "skipped": fetched.problems, "model": model,
    })
}

/// The mark for the next check, the numbers of this listing, and a line of figures.
fn remember(ctx: &Ctx, postit: &mut PostIt, source: &Source, fetched: &Fetched, listed: &[Listed]) {
    let keys: Vec<String> = listed
        .iter()
        .enumerate()
        .map(|(i, l)| format!("{}={}", i + 1, l.mail.key))
        .collect();
    postit.set(source.mark_key(), fetched.mark.clone());
    postit.set("listing", keys.join(" "));
    postit.set(
        "mail",
        format!(
            "last check {}, {} new, {} VIP, {} with a deadline",
            common::now_stamp(&ctx.now),
            listed.len(),
            listed.iter().filter(|l| l.vip).count(),
            listed.iter().filter(|l| l.deadline.is_some()).count()
        ),
    );
}
