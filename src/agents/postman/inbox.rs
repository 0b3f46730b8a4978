//! What the mail holds for the radar and the meeting brief: messages not saved as notes yet
//! that name a deadline, and messages about a meeting (from its attendees, or with its title's
//! words in the subject). Read only, like every mail read: nothing is marked or moved.

use std::collections::HashSet;

use chrono::NaiveDate;

use super::mail::Mail;
use super::md_inline;
use super::people::Directory;
use super::source::Source;
use crate::agents::Ctx;
use crate::agents::timeframe::Dated;

/// How many of the newest messages the radar and the brief read: enough for a few weeks of
/// mail, few enough that an IMAP server answers in one round.
const RECENT: usize = 200;

/// The radar's source cell for mail from a VIP; such lines come first on their day.
pub(crate) const VIP_SOURCE: &str = "mail, VIP";
const MAIL_SOURCE: &str = "mail";

/// The newest messages of the configured source with its problems; nothing when no source is
/// configured (the radar and the brief work from notes alone then).
fn recent_mail(ctx: &Ctx) -> (Vec<Mail>, Vec<String>) {
    let Some(source) = Source::configured(&ctx.config.mail, ctx.gate.root()) else {
        return (Vec::new(), Vec::new());
    };
    match source.recent(RECENT) {
        Ok(found) => found,
        Err(e) => (Vec::new(), vec![format!("mail could not be read: {e}")]),
    }
}

/// Message-IDs already saved as notes: those deadlines are among the notes' own.
fn saved_ids(ctx: &Ctx) -> HashSet<String> {
    ctx.gate
        .vault()
        .notes
        .iter()
        .filter_map(|n| n.property_str("message-id"))
        .collect()
}

/// Deadlines named by unsaved, non-bulk messages, between `from` and `to`; a VIP's first.
pub(crate) fn mail_deadlines(
    ctx: &Ctx,
    from: NaiveDate,
    to: NaiveDate,
) -> (Vec<Dated>, Vec<String>) {
    let (mails, problems) = recent_mail(ctx);
    if mails.is_empty() {
        return (Vec::new(), problems);
    }
    let saved = saved_ids(ctx);
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let items = mails
        .iter()
        .filter(|m| !m.bulk)
        .filter(|m| {
            m.message_id
                .as_deref()
                .is_none_or(|id| !saved.contains(&super::inert_id(id)))
        })
        .filter_map(|m| {
            let d = m.deadline().filter(|d| d.date >= from && d.date <= to)?;
            let vip = dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref());
            Some(Dated {
                date: d.date,
                note: String::new(),
                what: format!(
                    "{} — {} (\"{}\")",
                    md_inline(&m.subject),
                    md_inline(&m.sender()),
                    md_inline(&d.words)
                ),
                source: if vip { VIP_SOURCE } else { MAIL_SOURCE }.into(),
            })
        })
        .collect();
    (items, problems)
}

/// Messages about a meeting: from one of `attendees` (addresses, lower-case) or with two of
/// the title's words (one for a one-word title) in the subject; a VIP's first, then newest.
pub(crate) fn mail_about(ctx: &Ctx, title: &str, attendees: &[String]) -> (Vec<Mail>, Vec<String>) {
    let (mails, problems) = recent_mail(ctx);
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let title_words: Vec<String> = crate::text::words(&crate::text::normalize(title))
        .filter(|w| w.chars().count() > 2 && !crate::text::stopwords().contains(*w))
        .map(str::to_string)
        .collect();
    let need = title_words.len().min(2);
    let mut about: Vec<(bool, Mail)> = mails
        .into_iter()
        .filter(|m| !m.bulk)
        .filter(|m| {
            let from = m
                .from_email
                .as_deref()
                .is_some_and(|e| attendees.contains(&e.to_lowercase()));
            let subject = crate::text::normalize(&m.subject);
            let shared = crate::text::words(&subject)
                .filter(|w| title_words.iter().any(|t| t == w))
                .count();
            from || (need > 0 && shared >= need)
        })
        .map(|m| {
            (
                dir.is_vip(m.from_email.as_deref(), m.from_name.as_deref()),
                m,
            )
        })
        .collect();
    about.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.date.cmp(&a.1.date)));
    (about.into_iter().map(|(_, m)| m).collect(), problems)
}
