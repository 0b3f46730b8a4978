//! meeting-prep without a model: the coming meeting, its people's notes, the last meetings
//! with them and the open tasks that mention them, as a `type: meeting-prep` note.

use chrono::{Duration, NaiveDate};

use super::calendar::{Attendee, Event};
use super::events::events_between;
use super::people::{Directory, Person, property_strings};
use super::{md_inline, q};
use crate::agents::common::{self, fold};
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;
use crate::vault::Note;

/// How far ahead a meeting is looked for.
pub(crate) const PREP_DAYS_AHEAD: i64 = 14;

/// A meeting to prepare: from the calendar, or a future `type: meeting` note.
struct Upcoming {
    title: String,
    date: NaiveDate,
    when: String,
    location: Option<String>,
    attendees: Vec<Attendee>,
    /// The meeting's own note, when it has one (not counted as a past meeting).
    note: Option<String>,
}

/// Messages a brief lists at most.
const MAIL_IN_BRIEF: usize = 5;

fn is_meeting(n: &Note, meetings: &str) -> bool {
    n.property_str("type")
        .is_some_and(|t| t.eq_ignore_ascii_case("meeting"))
        || n.path.starts_with(&format!("{meetings}/"))
}

fn words_of(s: &str) -> Vec<String> {
    crate::text::normalize(s)
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

pub(crate) fn meeting_prep(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let now = super::events::now_in_zone(ctx);
    let today = now.date();
    let horizon = today + Duration::days(PREP_DAYS_AHEAD);
    let loaded = events_between(ctx, today, horizon);
    let mut candidates: Vec<Upcoming> = Vec::new();
    if let Some(l) = &loaded {
        let imported = super::events::imported(ctx.gate.vault());
        for e in l.events.iter().filter(|e| !e.cancelled && e.start >= now) {
            candidates.push(from_event(
                e,
                imported.get(&(e.uid.clone(), e.occurrence.clone())),
            ));
        }
    }
    candidates.extend(meeting_notes(ctx, today, horizon, &candidates));
    candidates.sort_by(|a, b| a.when.cmp(&b.when));
    let asked: Vec<String> = words_of(&ctx.step.message)
        .into_iter()
        .filter(|w| {
            w.chars().count() > 2
                && !crate::text::word_list("meeting_request_words").contains(&w.as_str())
        })
        .collect();
    let Some(m) = choose(&candidates, &asked) else {
        return Ok(NativeOutput {
            text: not_found(&asked, loaded.is_none()),
            postit: ctx.postit.clone().unwrap_or_default(),
            attention: false,
        });
    };
    let brief = brief(ctx, m);
    let (path, existed) = write_prep(ctx, m, &brief)?;
    let mut text = brief;
    text.push_str(&format!(
        "\n{} `{path}`.\n",
        if existed { "Refreshed" } else { "Saved as" }
    ));
    if let Some(l) = &loaded {
        for p in &l.problems {
            text.push_str(&format!("- skipped: {p}\n"));
        }
    }
    let mut post = super::state::PostIt::parse(ctx.postit.as_deref());
    // the post-it is a note of `key: value` lines: a title's line break would add a key
    post.set("prep", format!("{}: {}", m.date, md_inline(&m.title)));
    Ok(NativeOutput {
        text,
        postit: post.render(),
        attention: false,
    })
}

/// Future `type: meeting` notes within the horizon that no calendar event already stands for.
fn meeting_notes(
    ctx: &Ctx,
    today: NaiveDate,
    horizon: NaiveDate,
    from_calendar: &[Upcoming],
) -> Vec<Upcoming> {
    let folders = &ctx.config.folders;
    let mut out = Vec::new();
    for n in ctx
        .gate
        .vault()
        .notes
        .iter()
        .filter(|n| is_meeting(n, &folders.meetings))
    {
        let Some(date) = n.property_str("date").and_then(|d| common::parse_date(&d)) else {
            continue;
        };
        if date < today
            || date > horizon
            || from_calendar
                .iter()
                .any(|c| c.note.as_deref() == Some(&n.path))
        {
            continue;
        }
        let attendees = property_strings(n, "participants")
            .iter()
            .map(|p| Attendee {
                name: Some(common::link_value_name(p)),
                email: None,
            })
            .collect();
        out.push(Upcoming {
            title: n.name().to_string(),
            date,
            when: format!("{date} {}", n.property_str("time").unwrap_or_default())
                .trim()
                .to_string(),
            location: n.property_str("location"),
            attendees,
            note: Some(n.path.clone()),
        });
    }
    out
}

/// The meeting whose title holds most of the asked words; the next one when none does.
fn choose<'a>(candidates: &'a [Upcoming], asked: &[String]) -> Option<&'a Upcoming> {
    let score = |c: &Upcoming| {
        let t = words_of(&c.title);
        asked.iter().filter(|w| t.contains(w)).count()
    };
    let best = candidates.iter().map(score).max().unwrap_or(0);
    if asked.is_empty() || best == 0 {
        candidates.first()
    } else {
        candidates.iter().find(|c| score(c) == best)
    }
}

fn not_found(asked: &[String], no_calendar: bool) -> String {
    let mut text = format!(
        "No meeting found in the next {PREP_DAYS_AHEAD} days{}.",
        if asked.is_empty() {
            String::new()
        } else {
            format!(" matching \"{}\"", asked.join(" "))
        }
    );
    if no_calendar {
        text.push_str(" No calendar is configured (`calendar: { ics: [PATH] }` in `.crew/config.yaml`); meetings are also found as future `type: meeting` notes.");
    }
    text.push('\n');
    text
}

/// The prep brief: the meeting, its participants, the last meetings with them, their tasks.
fn brief(ctx: &Ctx, m: &Upcoming) -> String {
    let vault = ctx.gate.vault();
    let folders = &ctx.config.folders;
    let dir = Directory::load(vault, folders);
    let mut brief = format!("# Meeting prep — {}\n\n## Meeting\n\n", md_inline(&m.title));
    brief.push_str(&format!("- **When**: {}\n", m.when));
    if let Some(l) = &m.location {
        brief.push_str(&format!("- **Where**: {}\n", md_inline(l)));
    }
    if let Some(n) = &m.note {
        brief.push_str(&format!("- **Note**: [[{}]]\n", note_name(n)));
    }
    brief.push_str("\n## Participants\n\n");
    let known = participants(ctx, &dir, m, &mut brief);
    brief.push_str("\n## Last meetings with them\n\n");
    let mut any = false;
    for p in &known {
        let mut past: Vec<(NaiveDate, &str)> = vault
            .notes
            .iter()
            .filter(|n| is_meeting(n, &folders.meetings) && m.note.as_deref() != Some(&n.path))
            .filter(|n| mentions(n, p))
            .filter_map(|n| {
                n.property_str("date")
                    .and_then(|d| common::parse_date(&d))
                    .filter(|d| *d < m.date)
                    .map(|d| (d, n.name()))
            })
            .collect();
        past.sort_by(|a, b| b.cmp(a));
        for (d, name) in past.iter().take(3) {
            brief.push_str(&format!("- {d} [[{name}]] (with [[{}]])\n", p.note));
            any = true;
        }
    }
    if !any {
        brief.push_str("- none in the vault\n");
    }
    brief.push_str("\n## Open tasks that mention them\n\n");
    open_tasks(ctx, &known, &mut brief);
    mail_section(ctx, m, &known, &mut brief);
    brief
}

/// Recent mail about the meeting — from its attendees or naming it in the subject — a VIP's
/// first; left out when no mail source is configured.
fn mail_section(ctx: &Ctx, m: &Upcoming, known: &[&Person], brief: &mut String) {
    if super::source::Source::configured(&ctx.config.mail, ctx.gate.root()).is_none() {
        return;
    }
    let mut addresses: Vec<String> = m
        .attendees
        .iter()
        .filter_map(|a| a.email.as_deref().map(str::to_lowercase))
        .collect();
    addresses.extend(known.iter().flat_map(|p| p.emails.iter().cloned()));
    let (mails, problems) = super::inbox::mail_about(ctx, &m.title, &addresses);
    brief.push_str("\n## Mail about it\n\n");
    if mails.is_empty() {
        brief.push_str("- none in the recent mail\n");
    }
    for mail in mails.iter().take(MAIL_IN_BRIEF) {
        let date = mail.date.map(|d| d.date().to_string()).unwrap_or_default();
        let deadline = mail
            .deadline()
            .map(|d| format!(" — deadline {} (\"{}\")", d.date, md_inline(&d.words)))
            .unwrap_or_default();
        brief.push_str(&format!(
            "- {date} **{}** from {}{deadline}\n",
            md_inline(&mail.subject),
            md_inline(&mail.sender())
        ));
    }
    for p in problems {
        brief.push_str(&format!("- skipped: {}\n", md_inline(&p)));
    }
}

/// One line per attendee (the user left out); returns those with a People note.
fn participants<'d>(
    ctx: &Ctx,
    dir: &'d Directory,
    m: &Upcoming,
    brief: &mut String,
) -> Vec<&'d Person> {
    let vault = ctx.gate.vault();
    let own: Vec<String> = vault
        .note(&format!("{}/user-profile.md", ctx.config.folders.meta))
        .map(|p| {
            property_strings(p, "email")
                .iter()
                .map(|e| e.to_lowercase())
                .collect()
        })
        .unwrap_or_default();
    let mut known: Vec<&Person> = Vec::new();
    for a in m
        .attendees
        .iter()
        .filter(|a| a.email.as_ref().is_none_or(|e| !own.contains(e)))
    {
        match dir.find(a.email.as_deref(), a.name.as_deref()) {
            Some(p) => {
                let mut line = format!("- [[{}]]", p.note);
                if let Some(n) = vault.note(&p.path) {
                    for k in ["role", "organization", "company"] {
                        if let Some(v) = n.property_str(k) {
                            line.push_str(&format!(" · {}", md_inline(&v)));
                        }
                    }
                    if let Some(d) = common::last_touched(n) {
                        line.push_str(&format!(" · note updated {d}"));
                    }
                }
                brief.push_str(&line);
                brief.push('\n');
                known.push(p);
            }
            None => brief.push_str(&format!("- {} (no People note)\n", md_inline(&a.label()))),
        }
    }
    if m.attendees.is_empty() {
        brief.push_str("- none listed\n");
    }
    known
}

fn open_tasks(ctx: &Ctx, known: &[&Person], brief: &mut String) {
    let folders = &ctx.config.folders;
    let mut tasks = 0;
    for n in ctx
        .gate
        .vault()
        .notes
        .iter()
        .filter(|n| !folders.in_templates(&n.path))
    {
        for t in n.tasks.iter().filter(|t| !t.done) {
            if let Some(p) = known.iter().find(|p| task_mentions(&t.text, p)) {
                brief.push_str(&format!(
                    "- [ ] {} — in [[{}]] ({})\n",
                    t.text.trim(),
                    n.name(),
                    p.note
                ));
                tasks += 1;
            }
        }
    }
    if tasks == 0 {
        brief.push_str("- none\n");
    }
}

/// Writes the prep note through the gate; returns its path and whether it was there before.
fn write_prep(ctx: &mut Ctx, m: &Upcoming, brief: &str) -> Result<(String, bool), GateError> {
    let name = format!(
        "{} — Meeting Prep — {}",
        m.date,
        common::safe_title(&m.title, 50)
    );
    let path = format!("{}/{name}.md", ctx.config.folders.inbox);
    let note = format!(
        "---\ntype: meeting-prep\ndate: {}\nmeeting-date: {}\nmeeting-title: {}\ntags: [meeting-prep]\nstatus: inbox\n---\n{brief}",
        q(&ctx.today()),
        q(&m.date.to_string()),
        q(&m.title)
    );
    let existed = ctx.gate.exists(&path);
    ctx.gate.write(&path, note.as_bytes())?;
    common::log_change(ctx, "postman", &format!("meeting prep written: {path}"))?;
    Ok((path, existed))
}

fn note_name(path: &str) -> String {
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".md").unwrap_or(file).to_string()
}

fn from_event(e: &Event, note: Option<&String>) -> Upcoming {
    Upcoming {
        title: e.summary.clone(),
        date: e.date(),
        when: format!("{} {}", e.date(), e.time_range()),
        location: e.location.clone(),
        attendees: e.attendees.clone(),
        note: note.cloned(),
    }
}

/// A meeting note is with a person when it links to their note (body or frontmatter) or names
/// one of their addresses among its participants.
fn mentions(n: &Note, p: &Person) -> bool {
    let target = fold(&p.note);
    n.wikilinks
        .iter()
        .chain(n.frontmatter_links.iter())
        .any(|l| fold(&common::link_value_name(&l.target)) == target)
        || property_strings(n, "participants").iter().any(|v| {
            fold(&common::link_value_name(v)) == target
                || p.emails.contains(&v.trim().to_lowercase())
        })
}

/// A task mentions a person by a link to their note or by their full name.
fn task_mentions(text: &str, p: &Person) -> bool {
    let lower = text.to_lowercase();
    let name = p.note.to_lowercase();
    lower.contains(&format!("[[{name}")) || lower.contains(&name)
}
