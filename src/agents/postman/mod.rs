//! The postman without a model: mail (a Maildir or IMAP, read only) and `.ics` calendars into
//! the vault. "check my email" lists what is new since the last check, grouped; "save email 2"
//! keeps one as a note; "import events" writes one meeting note per event; meeting-prep
//! gathers what the vault knows about an upcoming meeting's people. With a model configured,
//! the listing gains a one-line summary per message and "draft a reply to email 3" writes a
//! draft note ([`language`], [`draft`]); nothing is ever sent.

pub mod caldav;
pub(crate) mod caldav_xml;
pub mod calendar;
pub mod check;
pub mod choose;
pub mod create;
pub mod deadline;
pub mod draft;
pub mod events;
pub(crate) mod ical_out;
pub mod imap;
pub(crate) mod inbox;
pub mod language;
pub mod mail;
pub mod people;
pub(crate) mod place;
pub mod prep;
pub mod source;
pub mod state;

use super::common;
use super::cue::Cue;
use super::{Ctx, NativeOutput};
pub(crate) use crate::agents::inert::{inert, one_line};
use crate::gate::GateError;
use mail::Mail;
use people::Directory;
use source::Source;
use state::PostIt;

/// The postman's modes (`agents/postman.md`, `## Modes`) that run their own code, from the
/// slug the dispatcher chose; the rest read the mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PostmanMode {
    Mail,
    Calendar,
    Vip,
    Draft,
}

impl PostmanMode {
    fn from_slug(slug: Option<&str>) -> PostmanMode {
        match slug {
            Some("calendar-import" | "create-event") => PostmanMode::Calendar,
            Some("vip-filter") => PostmanMode::Vip,
            Some("email-draft") => PostmanMode::Draft,
            _ => PostmanMode::Mail,
        }
    }
}

/// The postman agent and the email-triage skill: the mode the dispatcher chose, else the
/// work the request's cue words name (a meeting to prepare, a draft, the calendar, mail to
/// save), else the mail check.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    // "create an event: …" (its phrases are the postman definition's `Create event` mode)
    if ctx.mode() == Some("create-event") || create::asks_to_create(ctx) {
        return create::create_event(ctx);
    }
    let mode = PostmanMode::from_slug(ctx.mode());
    if ctx.says(Cue::Prepare) && ctx.says(Cue::Meeting) {
        return prep::meeting_prep(ctx);
    }
    if mode == PostmanMode::Draft || draft::asks_for_draft(ctx) {
        // nothing is ever sent: a draft is a note for the user to copy
        return draft::draft_reply(ctx);
    }
    if mode == PostmanMode::Calendar || ctx.says(Cue::Calendar) {
        return events::calendar(ctx);
    }
    if ctx.says(Cue::Keep) {
        return save_email(ctx, mode == PostmanMode::Vip);
    }
    check_mail(ctx)
}

/// What to configure, when no mail source is set.
fn mail_setup_text() -> String {
    "**No mail source is configured.** The postman reads mail without a model, read only, from a \
Maildir (what mbsync, offlineimap and notmuch keep) or an IMAP account. Add one to \
`.crew/config.yaml`:\n\n```yaml\nmail:\n  maildir: ~/Mail/INBOX        # the folder holding cur/ and new/\n  # or\n  imap:\n    host: imap.example.org\n    port: 993\n    user: me@example.org\n    password_cmd: pass show mail   # or password_env: MAIL_PASSWORD\n```\n\nVIPs are listed in `Meta/user-profile.md` as `vips: [boss@example.org, \"[[Ana Lima]]\"]`.\n".to_string()
}

fn source_or_setup(ctx: &Ctx) -> Result<Source, NativeOutput> {
    Source::configured(&ctx.config.mail, ctx.gate.root()).ok_or_else(|| NativeOutput {
        text: mail_setup_text(),
        postit: ctx.postit.clone().unwrap_or_default(),
        attention: true,
    })
}

/// Text from a message, made safe for one Markdown line: on one line, without links or HTML
/// that would act in the vault, and [`inert`].
pub(crate) fn md_inline(s: &str) -> String {
    inert(
        &one_line(s)
            .replace("[[", "[ [")
            .replace('<', "‹")
            .replace('>', "›")
            .replace('*', "\\*"),
    )
}

pub use check::check_mail;

/// "save email 2", "save the email about the invoice", "save important emails".
/// `vip`: the request is the VIP filter's.
pub(crate) fn save_email(ctx: &mut Ctx, vip: bool) -> Result<NativeOutput, GateError> {
    let source = match source_or_setup(ctx) {
        Ok(s) => s,
        Err(out) => return Ok(out),
    };
    let mut postit = PostIt::parse(ctx.postit.as_deref());
    let important = vip || ctx.says(Cue::Important);
    let request = choose::Request::of(&ctx.step.message, &[], important);
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let (chosen, problems) = match choose::choose(&source, &postit.listing(), &request, &dir) {
        Ok(found) => found,
        Err(not) => {
            return Ok(NativeOutput {
                text: not.to_string(),
                postit: postit.render(),
                attention: true,
            });
        }
    };
    let gate = &*ctx.gate;
    let place = place::place(
        gate.vault(),
        ctx.crew,
        &ctx.config.folders,
        place::Kind::Email,
        |d| gate.dir_exists(d),
    );
    let mut results = Vec::new();
    for m in &chosen {
        results.push((m, save_one(ctx, &dir, &place, m, source.label())?));
    }
    problems.iter().for_each(|p| tracing::warn!("postman: {p}"));
    let saved: Vec<String> = results
        .iter()
        .filter_map(|(_, s)| match s {
            Saved::New(p) => Some(p.clone()),
            Saved::Already(_) => None,
        })
        .collect();
    if !saved.is_empty() {
        postit.set(
            "saved",
            format!("{} on {}: {}", saved.len(), ctx.today(), saved.join("; ")),
        );
    }
    // emails saved where the vault keeps them are filed already; only the inbox's wait
    let waiting: Vec<&String> = saved
        .iter()
        .filter(|p| p.rsplit_once('/').map_or("", |(d, _)| d) == ctx.config.folders.inbox)
        .collect();
    if !waiting.is_empty() {
        ctx.hand_off(common::suggestion(
            "sorter",
            "saved emails wait in the inbox",
            &waiting
                .iter()
                .map(|p| p.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        ));
    }
    Ok(NativeOutput {
        text: saved_report(&results, &problems),
        postit: postit.render(),
        attention: false,
    })
}

/// What "save email" did, message by message, and what it skipped.
fn saved_report(results: &[(&Mail, Saved)], problems: &[String]) -> String {
    let mut out = String::new();
    for (m, s) in results {
        match s {
            Saved::New(p) => {
                out.push_str(&format!("Saved **{}** as `{p}`.\n", md_inline(&m.subject)));
            }
            Saved::Already(p) => out.push_str(&format!(
                "**{}** is already saved as `{p}`.\n",
                md_inline(&m.subject)
            )),
        }
    }
    if results.is_empty() {
        out.push_str("No email to save.\n");
    }
    if !problems.is_empty() {
        out.push_str("\n### Skipped\n");
        for p in problems {
            out.push_str(&format!("- {p}\n"));
        }
    }
    out
}

enum Saved {
    New(String),
    Already(String),
}

/// Outside text as a one-line, quoted frontmatter value (see [`inert`]); applying it to a
/// value it made gives that value again, so a note re-read compares equal.
/// A Message-ID as a saved note holds it (one line, made inert), for finding that note again.
pub(crate) fn inert_id(id: &str) -> String {
    inert(&one_line(id))
}

pub(crate) fn q(s: &str) -> String {
    serde_json::to_string(&inert(&one_line(s))).unwrap_or_else(|_| "\"\"".into())
}

/// Writes one message as a note where the vault keeps emails ([`place`]: the inbox in a vault
/// crew laid out), unless a note already holds its Message-ID.
fn save_one(
    ctx: &mut Ctx,
    dir: &Directory,
    place: &place::Place,
    m: &Mail,
    source: &str,
) -> Result<Saved, GateError> {
    // compared as it is written (see `q`), so an odd Message-ID is still found again
    if let Some(id) = m.message_id.as_deref().map(inert_id)
        && let Some(n) = ctx
            .gate
            .vault()
            .notes
            .iter()
            .find(|n| n.property_str("message-id").as_deref() == Some(id.as_str()))
    {
        return Ok(Saved::Already(n.path.clone()));
    }
    let day = m.date.map_or_else(|| ctx.now.date(), |d| d.date());
    let date = day.to_string();
    let person = dir
        .find(m.from_email.as_deref(), m.from_name.as_deref())
        .map(|p| p.note.clone());
    let vip = dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref());
    let deadline = m.deadline();
    let in_inbox = place.folder_for(day) == ctx.config.folders.inbox;
    let mut fm = format!(
        "---\ntype: {}\ndate: {}\ntags: [email]\nstatus: {}\nfrom: {}\nsubject: {}\n",
        if deadline.is_some() {
            "email-deadline"
        } else {
            "email-info"
        },
        q(&date),
        if in_inbox { "inbox" } else { "filed" },
        q(&m.sender()),
        q(&m.subject),
    );
    if let Some(p) = &person {
        fm.push_str(&format!("person: {}\n", q(&format!("[[{p}]]"))));
    }
    if let Some(d) = &deadline {
        fm.push_str(&format!("deadline: {}\n", q(&d.date.to_string())));
    }
    if vip {
        fm.push_str("priority: high\n");
    }
    if let Some(id) = &m.message_id {
        fm.push_str(&format!("message-id: {}\n", q(id)));
    }
    fm.push_str(&format!("source: {source}\n---\n"));
    // every header is folded to one line: a sender's line break must not start a line here
    let line = |s: &str| inert(&one_line(s));
    let mut body = format!("# {}\n\n", line(&m.subject));
    let from = match &person {
        Some(p) => format!(
            "[[{p}]] ({})",
            line(m.from_email.as_deref().unwrap_or("no address"))
        ),
        None => line(&m.sender()),
    };
    body.push_str(&format!("- **From**: {from}\n"));
    if !m.to.is_empty() {
        body.push_str(&format!("- **To**: {}\n", line(&m.to.join(", "))));
    }
    if let Some(d) = m.date {
        body.push_str(&format!("- **Sent**: {}\n", d.format("%Y-%m-%d %H:%M")));
    }
    if let Some(d) = &deadline {
        body.push_str(&format!(
            "- **Deadline**: {} — \"{}\"\n",
            d.date,
            line(&d.words)
        ));
    }
    if !m.attachments.is_empty() {
        body.push_str(&format!(
            "- **Attachments** (not saved): {}\n",
            line(&m.attachments.join(", "))
        ));
    }
    body.push_str("\n## Message\n\n");
    body.push_str(&inert(m.text.trim()));
    body.push_str(&format!(
        "\n\n---\nImported from {} on {}.\n",
        if source == "imap" {
            "IMAP"
        } else {
            "the Maildir"
        },
        ctx.today()
    ));
    let name = common::convention_name(&date, "email", &m.subject);
    let path = place.path_for(day, &name);
    let p = ctx.gate.create(&path, format!("{fm}{body}").as_bytes())?;
    common::log_change(
        ctx,
        "postman",
        // the agent log is a note too
        &format!("saved email \"{}\" as {p}", line(&m.subject)),
    )?;
    Ok(Saved::New(p))
}
