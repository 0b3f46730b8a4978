//! The postman without a model: mail (a Maildir or IMAP, read only) and `.ics` calendars into
//! the vault. "check my email" lists what is new since the last check, grouped; "save email 2"
//! keeps one as a note; "import events" writes one meeting note per event; meeting-prep
//! gathers what the vault knows about an upcoming meeting's people.

pub mod calendar;
pub mod events;
pub mod imap;
pub mod mail;
pub mod maildir;
pub mod people;
pub mod prep;
pub mod source;
pub mod state;

use std::sync::LazyLock;

use regex::Regex;

use super::common;
use super::{Ctx, NativeOutput};
use crate::gate::GateError;
use mail::Mail;
use people::Directory;
use source::Source;
use state::PostIt;

/// The postman agent and the email-triage skill: the mode follows the request's words.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let calendar_words = [
        "event",
        "events",
        "calendar",
        "evento",
        "eventi",
        "eventos",
        "calendario",
        "calendrier",
        "événements",
        "evenements",
        "kalender",
        "ereignisse",
        "termin",
        "calendário",
    ];
    let save_words = [
        "save",
        "keep",
        "salva",
        "salvar",
        "guardar",
        "sauvegarder",
        "speichern",
    ];
    if ctx.asks(&[
        "prepare",
        "prep",
        "brief",
        "prepara",
        "preparar",
        "vorbereiten",
    ]) && ctx.asks(&[
        "meeting",
        "call",
        "riunione",
        "reunion",
        "reunión",
        "besprechung",
    ]) {
        return prep::meeting_prep(ctx);
    }
    if ctx.asks(&[
        "draft",
        "drafts",
        "bozza",
        "brouillon",
        "borrador",
        "antwortentwurf",
        "rascunho",
    ]) {
        // writing a reply is language work; crew never sends mail in any case
        return Ok(NativeOutput {
            text: format!(
                "{}\nWithout a model the postman lists, saves and imports; drafts are shown to you and never sent.\n",
                super::modelonly::needs_model_message(ctx)
            ),
            postit: ctx.postit.clone().unwrap_or_default(),
            attention: true,
        });
    }
    if ctx.asks(&calendar_words) {
        return events::calendar(ctx);
    }
    if ctx.asks(&save_words) {
        return save_email(ctx);
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

/// Text from a message, made safe for one Markdown line (no line breaks, no links or HTML
/// that would act in the vault).
pub(crate) fn md_inline(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace("[[", "[ [")
        .replace('<', "‹")
        .replace('>', "›")
        .replace('*', "\\*")
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
    let mut listed: Vec<Listed> = fetched
        .mails
        .iter()
        .map(|m| {
            let person = dir
                .find(m.from_email.as_deref(), m.from_name.as_deref())
                .map(|p| p.note.clone());
            Listed {
                vip: dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref()),
                person,
                deadline: m.deadline(),
                mail: m,
            }
        })
        .collect();
    listed.sort_by_key(group_of);
    let since = postit
        .get("mail")
        .and_then(|l| l.strip_prefix("last check "))
        .and_then(|l| l.split(',').next())
        .map(str::to_string);
    let l = ctx.lang;
    let group_titles = [
        crate::tr!(l, "mail.group.vip"),
        crate::tr!(l, "mail.group.people"),
        crate::tr!(l, "mail.group.deadline"),
        crate::tr!(l, "mail.group.other"),
        crate::tr!(l, "mail.group.bulk"),
    ];
    let mut out = match &since {
        Some(s) => crate::tr!(l, "mail.heading.since", count = listed.len(), since = s),
        None => crate::tr!(l, "mail.heading.first", count = listed.len()),
    };
    let mut keys = Vec::new();
    let mut data = Vec::new();
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
            keys.push(format!("{n}={}", m.mail.key));
            data.push(serde_json::json!({
                "number": n, "group": title, "key": m.mail.key, "subject": m.mail.subject,
                "from": m.mail.sender(), "person": m.person,
                "date": m.mail.date.map(|d| d.format("%Y-%m-%dT%H:%M:%S").to_string()),
                "deadline": m.deadline.as_ref().map(|d| d.date.to_string()),
                "attachments": m.mail.attachments,
            }));
            out.push_str(&line_of(n, m));
            out.push('\n');
        }
    }
    if listed.is_empty() {
        out.push_str(&crate::tr!(l, "mail.nothing_new"));
    }
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
    let unknown: Vec<&Listed> = listed
        .iter()
        .filter(|l| l.person.is_none() && !l.mail.bulk && (l.vip || l.deadline.is_some()))
        .collect();
    if let Some(u) = unknown.first() {
        out.push_str(&common::suggestion(
            "contact-sync",
            "a sender who matters has no People note",
            &md_inline(&u.mail.sender()),
        ));
    }
    let today = ctx.now.date();
    let urgent = listed.iter().any(|l| {
        l.vip
            || l.deadline
                .as_ref()
                .is_some_and(|d| (d.date - today).num_days() <= 2)
    });
    ctx.data = Some(serde_json::json!({
        "messages": data, "more": fetched.more, "skipped": fetched.problems,
    }));
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
    Ok(NativeOutput {
        text: out,
        postit: postit.render(),
        attention: urgent || !fetched.problems.is_empty(),
    })
}

/// "email 3", "message #3", "number 3", "#3": the number of the last listing.
static INDEX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:\b(?:e-?mails?|mails?|messages?|number|no\.?|n\.|nr\.?|numero|nummer)\s*#?|#)\s*(\d{1,3})\b")
        .expect("static regex")
});
static BARE_NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b(\d{1,3})\b").expect("static regex"));

/// Words of a request that say what to do rather than which message.
const COMMAND_WORDS: &[&str] = &[
    "save",
    "keep",
    "this",
    "that",
    "the",
    "an",
    "a",
    "email",
    "emails",
    "mail",
    "mails",
    "message",
    "messages",
    "about",
    "from",
    "please",
    "to",
    "my",
    "it",
    "as",
    "note",
    "one",
    "number",
    "no",
    "salva",
    "la",
    "le",
    "il",
    "email",
    "di",
    "important",
    "importanti",
    "with",
    "on",
    "in",
    "of",
    "and",
];

/// The words of the request that may name a message (its subject or sender).
fn naming_words(message: &str) -> Vec<String> {
    crate::dispatch::normalize::normalize(message)
        .split_whitespace()
        .filter(|w| {
            (w.chars().count() > 2 || w.chars().all(|c| c.is_ascii_digit()))
                && !COMMAND_WORDS.contains(w)
        })
        .map(str::to_string)
        .collect()
}

/// The listing number a request names; a bare number counts only when no other word could
/// name the message ("save 3", but not "save the invoice 123").
fn listing_index(message: &str, words: &[String]) -> Option<usize> {
    INDEX
        .captures(message)
        .or_else(|| {
            words
                .iter()
                .all(|w| w.chars().all(|c| c.is_ascii_digit()))
                .then(|| BARE_NUMBER.captures(message))
                .flatten()
        })
        .and_then(|c| c[1].parse().ok())
}

/// "save email 2", "save the email about the invoice", "save important emails".
pub fn save_email(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let source = match source_or_setup(ctx) {
        Ok(s) => s,
        Err(out) => return Ok(out),
    };
    let mut postit = PostIt::parse(ctx.postit.as_deref());
    let listing = postit.listing();
    let message = ctx.step.message.clone();
    let important = ctx.asks(&["important", "importanti", "vip", "importants", "wichtige"]);
    let words = naming_words(&message);
    let number = listing_index(&message, &words);
    let words: Vec<String> = match number {
        Some(n) => words.into_iter().filter(|w| *w != n.to_string()).collect(),
        None => words,
    };
    let fail = |text: String, postit: &PostIt| NativeOutput {
        text,
        postit: postit.render(),
        attention: true,
    };
    let listed_keys: Vec<String> = listing.iter().map(|(_, k)| k.clone()).collect();
    let (candidates, mut problems) = match (number, important, words.is_empty()) {
        (Some(n), _, _) => match listing.iter().find(|(i, _)| *i == n) {
            Some((_, k)) => source.fetch(std::slice::from_ref(k)),
            None => {
                return Ok(fail(
                    format!(
                        "There is no email number {n} in the last listing ({} shown). Say \"check my email\" to list what is new.\n",
                        listing.len()
                    ),
                    &postit,
                ));
            }
        },
        (None, true, _) | (None, false, true) => source.fetch(&listed_keys),
        (None, false, false) => source.recent(200),
    }
    .unwrap_or_else(|e| (Vec::new(), vec![e]));
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let chosen: Vec<&Mail> = if number.is_some() {
        candidates.iter().collect()
    } else if important {
        candidates
            .iter()
            .filter(|m| {
                !m.bulk
                    && (dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref())
                        || dir
                            .find(m.from_email.as_deref(), m.from_name.as_deref())
                            .is_some()
                        || m.deadline().is_some())
            })
            .collect()
    } else if words.is_empty() {
        if candidates.len() == 1 {
            candidates.iter().collect()
        } else {
            return Ok(fail(
                format!(
                    "Which email? The last listing has {} message(s): say \"save email N\" with its number, or name words of its subject.\n",
                    candidates.len()
                ),
                &postit,
            ));
        }
    } else {
        // the best match of the request's words in subject and sender; a tie is asked about
        let score = |m: &Mail| {
            let hay =
                crate::dispatch::normalize::normalize(&format!("{} {}", m.subject, m.sender()));
            let hay: Vec<&str> = hay.split_whitespace().collect();
            words.iter().filter(|w| hay.contains(&w.as_str())).count()
        };
        let best = candidates.iter().map(score).max().unwrap_or(0);
        let top: Vec<&Mail> = candidates
            .iter()
            .filter(|m| best > 0 && score(m) == best)
            .collect();
        if top.len() != 1 {
            let mut t = if top.is_empty() {
                format!(
                    "No email matches \"{}\". Say \"check my email\" and then \"save email N\".\n",
                    words.join(" ")
                )
            } else {
                "Several emails match; say \"save email N\" after \"check my email\", or add words:\n".to_string()
            };
            for m in top.iter().take(10) {
                t.push_str(&format!(
                    "- **{}** — {}\n",
                    md_inline(&m.subject),
                    md_inline(&m.sender())
                ));
            }
            return Ok(fail(t, &postit));
        }
        top
    };
    let mut out = String::new();
    let mut saved = Vec::new();
    for m in &chosen {
        match save_one(ctx, &dir, m, source.label())? {
            Saved::New(p) => {
                out.push_str(&format!("Saved **{}** as `{p}`.\n", md_inline(&m.subject)));
                saved.push(p);
            }
            Saved::Already(p) => out.push_str(&format!(
                "**{}** is already saved as `{p}`.\n",
                md_inline(&m.subject)
            )),
        }
    }
    if chosen.is_empty() {
        out.push_str("No email to save.\n");
    }
    problems.iter().for_each(|p| tracing::warn!("postman: {p}"));
    if !problems.is_empty() {
        out.push_str("\n### Skipped\n");
        for p in problems.drain(..) {
            out.push_str(&format!("- {p}\n"));
        }
    }
    if !saved.is_empty() {
        postit.set(
            "saved",
            format!("{} on {}: {}", saved.len(), ctx.today(), saved.join("; ")),
        );
        out.push_str(&common::suggestion(
            "sorter",
            "saved emails wait in the inbox",
            &saved.join(", "),
        ));
    }
    Ok(NativeOutput {
        text: out,
        postit: postit.render(),
        attention: false,
    })
}

enum Saved {
    New(String),
    Already(String),
}

/// Message text made inert in a note: Templater runs `<% … %>` in new files when set to, so
/// a sender could otherwise put code in the vault.
pub(crate) fn defuse(text: &str) -> String {
    text.replace("<%", "<\\%")
}

pub(crate) fn q(s: &str) -> String {
    serde_json::to_string(&defuse(s)).unwrap_or_else(|_| "\"\"".into())
}

/// Writes one message as a note in the inbox, unless a note already holds its Message-ID.
fn save_one(ctx: &mut Ctx, dir: &Directory, m: &Mail, source: &str) -> Result<Saved, GateError> {
    if let Some(id) = &m.message_id
        && let Some(n) = ctx
            .gate
            .vault()
            .notes
            .iter()
            .find(|n| n.property_str("message-id").as_deref() == Some(id.as_str()))
    {
        return Ok(Saved::Already(n.path.clone()));
    }
    let date = m
        .date
        .map_or_else(|| ctx.today(), |d| d.format("%Y-%m-%d").to_string());
    let person = dir
        .find(m.from_email.as_deref(), m.from_name.as_deref())
        .map(|p| p.note.clone());
    let vip = dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref());
    let deadline = m.deadline();
    let mut fm = format!(
        "---\ntype: {}\ndate: {}\ntags: [email]\nstatus: inbox\nfrom: {}\nsubject: {}\n",
        if deadline.is_some() {
            "email-deadline"
        } else {
            "email-info"
        },
        q(&date),
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
    let mut body = format!("# {}\n\n", defuse(&m.subject.replace(['\n', '\r'], " ")));
    let from = match &person {
        Some(p) => format!(
            "[[{p}]] ({})",
            m.from_email.as_deref().unwrap_or("no address")
        ),
        None => m.sender(),
    };
    body.push_str(&format!("- **From**: {from}\n"));
    if !m.to.is_empty() {
        body.push_str(&format!("- **To**: {}\n", m.to.join(", ")));
    }
    if let Some(d) = m.date {
        body.push_str(&format!("- **Sent**: {}\n", d.format("%Y-%m-%d %H:%M")));
    }
    if let Some(d) = &deadline {
        body.push_str(&format!("- **Deadline**: {} — \"{}\"\n", d.date, d.words));
    }
    if !m.attachments.is_empty() {
        body.push_str(&format!(
            "- **Attachments** (not saved): {}\n",
            m.attachments.join(", ")
        ));
    }
    body.push_str("\n## Message\n\n");
    body.push_str(&defuse(m.text.trim()));
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
    let path = format!("{}/{name}.md", ctx.config.folders.inbox);
    let p = ctx.gate.create(&path, format!("{fm}{body}").as_bytes())?;
    common::log_change(
        ctx,
        "postman",
        &format!("saved email \"{}\" as {p}", m.subject),
    )?;
    Ok(Saved::New(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn index(m: &str) -> Option<usize> {
        listing_index(m, &naming_words(m))
    }

    #[test]
    fn which_number_is_a_listing_index() {
        assert_eq!(index("save email 3"), Some(3));
        assert_eq!(index("save this email #12"), Some(12));
        assert_eq!(index("save 4"), Some(4));
        assert_eq!(index("save the email about invoice 123"), None);
        assert_eq!(
            naming_words("save the email about invoice 123"),
            vec!["invoice", "123"]
        );
    }
}
