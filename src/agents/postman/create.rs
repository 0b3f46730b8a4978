//! "create an event: lunch with Marco next Tuesday at noon": the postman adds an event to the
//! first CalDAV calendar of the config and writes its meeting note where the vault keeps events
//! — the note import would make, so the next import finds it by its UID.
//!
//! A calendar is outside the vault, where `crew undo` cannot reach, so the request plans by
//! default and writes only when the user confirms it (`--yes`); a dry run never writes. The
//! event gets a fresh UID and is sent with `If-None-Match: *`: crew never replaces or deletes
//! an event, and an event already there with the same title and start is not added twice.

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime, TimeZone as _, Utc};

use super::caldav::{self, Calendar};
use super::calendar::{self, Event};
use super::events;
use super::ical_out::{self, NewEvent, When};
use super::md_inline;
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::analysis::dates::{self, DateOrder};
use crate::analysis::times;
use crate::gate::GateError;
use crate::text::normalize;

/// How long an event lasts when the request gives no end.
const DEFAULT_LENGTH_MINUTES: i64 = 60;

/// The name of the mode in the postman's `## Modes` section whose quoted phrases ask for it.
const MODE: &str = "**Create event**";

/// The phrases of the "Create event" mode: the crew's postman definition's, else the built-in
/// one's (a vault's own postman may list other modes).
fn phrases(ctx: &Ctx) -> Vec<String> {
    let of = |body: &str| -> Vec<String> {
        body.lines()
            .find(|l| l.contains(MODE))
            .map(crate::crew::definition::quoted_phrases)
            .unwrap_or_default()
    };
    let own = ctx
        .crew
        .agents
        .iter()
        .find(|d| d.name == "postman")
        .map(|d| of(&d.body))
        .unwrap_or_default();
    if !own.is_empty() {
        return own;
    }
    crate::crew::Crew::builtin()
        .agents
        .iter()
        .find(|d| d.name == "postman")
        .map(|d| of(&d.body))
        .unwrap_or_default()
}

/// Whether normalised `text` holds normalised `phrase`: as whole words, or anywhere when the
/// phrase is in a script written without spaces.
fn holds(text: &str, phrase: &str) -> bool {
    if phrase.chars().any(crate::text::is_unspaced_script) {
        return text.contains(phrase);
    }
    format!(" {text} ").contains(&format!(" {phrase} "))
}

/// Where the first of `phrases` stands in `message` (bytes), found on the normalised text so
/// accents and case do not matter.
fn phrase_span(message: &str, phrases: &[String]) -> Option<std::ops::Range<usize>> {
    let wanted: Vec<String> = phrases
        .iter()
        .map(|p| normalize(p))
        .filter(|p| !p.is_empty())
        .collect();
    // most requests to the postman ask for something else: one pass over the whole text
    let whole = normalize(message);
    if !wanted.iter().any(|p| holds(&whole, p)) {
        return None;
    }
    let found = |part: &str| {
        let n = normalize(part);
        wanted.iter().any(|p| holds(&n, p))
    };
    let bounds: Vec<usize> = message
        .char_indices()
        .map(|(i, _)| i)
        .chain([message.len()])
        .collect();
    // the shortest prefix holding a phrase ends where the phrase does
    let end = *bounds.iter().find(|&&i| found(&message[..i]))?;
    let start = *bounds
        .iter()
        .rev()
        .filter(|&&i| i < end)
        .find(|&&i| found(&message[i..end]))?;
    Some(start..end)
}

/// Whether the request asks to create an event.
pub(crate) fn asks_to_create(ctx: &Ctx) -> bool {
    phrase_span(&ctx.step.message, &phrases(ctx)).is_some()
}

/// What the request asks for, read from its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Asked {
    pub summary: String,
    pub date: NaiveDate,
    /// Start and end; none for an all-day event.
    pub times: Option<(NaiveTime, NaiveTime)>,
}

/// What the request lacks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Missing {
    When,
    What,
}

/// Punctuation and spaces a removed date or time leaves at the edges of the title.
fn trim_edges(s: &str) -> String {
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    collapsed
        .trim_matches(|c: char| {
            c.is_whitespace() || matches!(c, ':' | ';' | ',' | '.' | '-' | '–' | '—' | '、' | '。')
        })
        .to_string()
}

/// Reads the event from what follows (or precedes) the request's phrase: its day, its time
/// (or none: all day), and the rest as its title. `now` is the run's clock in the calendar's
/// zone: a time without a day is today's when still ahead, else tomorrow's.
pub(crate) fn read_request(
    text: &str,
    now: NaiveDateTime,
    order: DateOrder,
) -> Result<Asked, Missing> {
    let found = dates::find_dates(text, now.date(), order);
    let date = found.first();
    let skip: Vec<_> = found.iter().map(|f| f.span.clone()).collect();
    let time = times::find_time(text, &skip);
    let mut cuts: Vec<std::ops::Range<usize>> = Vec::new();
    cuts.extend(date.map(|d| d.span.clone()));
    cuts.extend(time.as_ref().map(|t| t.span.clone()));
    cuts.sort_by_key(|r| r.start);
    let mut summary = String::new();
    let mut at = 0;
    for c in &cuts {
        summary.push_str(&text[at..c.start.max(at)]);
        summary.push(' ');
        at = c.end.max(at);
    }
    summary.push_str(&text[at..]);
    let summary = trim_edges(&summary);
    // a title, as the note's name will show it: "Lunch with Marco"
    let summary = crate::agents::common::capitalized(&summary);
    let day = match (date, &time) {
        (Some(d), _) => d.date,
        (None, Some(t)) if t.start > now.time() => now.date(),
        (None, Some(_)) => now.date() + Duration::days(1),
        (None, None) => return Err(Missing::When),
    };
    if summary.is_empty() {
        return Err(Missing::What);
    }
    let times = time.map(|t| {
        let end = t.end.unwrap_or_else(|| {
            // an hour later, but not past midnight (the event stays on its day)
            let e = t.start + Duration::minutes(DEFAULT_LENGTH_MINUTES);
            if e < t.start {
                NaiveTime::from_hms_opt(23, 59, 0).unwrap_or(t.start)
            } else {
                e
            }
        });
        (t.start, end)
    });
    Ok(Asked {
        summary,
        date: day,
        times,
    })
}

/// The event as the postman's notes and plans show it.
fn as_event(asked: &Asked, uid: &str, calendar: &str) -> Event {
    let (start, end, all_day) = match asked.times {
        Some((s, e)) => (asked.date.and_time(s), Some(asked.date.and_time(e)), false),
        None => (asked.date.and_time(NaiveTime::MIN), None, true),
    };
    Event {
        uid: uid.to_string(),
        occurrence: None,
        summary: asked.summary.clone(),
        start,
        end,
        all_day,
        location: None,
        description: None,
        attendees: Vec::new(),
        organizer: None,
        cancelled: false,
        file: calendar.to_string(),
    }
}

/// The iCalendar event for `asked`, its local times taken in `zone` (a time a clock change
/// skips is read an hour later, as clocks show it that day).
fn new_event(
    asked: &Asked,
    uid: &str,
    zone: chrono_tz::Tz,
    stamp: chrono::DateTime<Utc>,
) -> NewEvent {
    let utc = |t: NaiveDateTime| {
        zone.from_local_datetime(&t)
            .earliest()
            .or_else(|| {
                zone.from_local_datetime(&(t + Duration::hours(1)))
                    .earliest()
            })
            .map_or_else(|| Utc.from_utc_datetime(&t), |z| z.with_timezone(&Utc))
    };
    let when = match asked.times {
        Some((s, e)) => When::Timed {
            start: utc(asked.date.and_time(s)),
            end: utc(asked.date.and_time(e)),
        },
        None => When::AllDay(asked.date),
    };
    NewEvent {
        uid: uid.to_string(),
        summary: asked.summary.clone(),
        when,
        stamp,
    }
}

fn reply(ctx: &Ctx, text: String, attention: bool) -> NativeOutput {
    NativeOutput {
        text,
        postit: ctx.postit.clone().unwrap_or_default(),
        attention,
    }
}

/// The lines naming the event, its calendar and its note.
fn details(ctx: &Ctx, e: &Event, calendar: &str, note: &str) -> String {
    crate::tr!(
        ctx.lang,
        "calendar.create.details",
        summary = md_inline(&e.summary),
        when = format!("{} {}", e.date().format("%A %Y-%m-%d"), e.time_range()),
        calendar = calendar,
        note = note
    )
}

/// "create an event …": the plan, or with `--yes` the event and its note.
pub fn create_event(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let lang = ctx.lang;
    let Some(cfg) = ctx.config.calendar.caldav.first().cloned() else {
        return Ok(reply(
            ctx,
            crate::tr!(lang, "calendar.create.no_caldav"),
            true,
        ));
    };
    let message = ctx.step.message.clone();
    let span = phrase_span(&message, &phrases(ctx)).unwrap_or(0..0);
    let text = format!("{} {}", &message[..span.start], &message[span.end..]);
    let zone = match calendar::user_zone(ctx.config.calendar.timezone.as_deref()) {
        Ok(z) => z,
        Err(e) => return Ok(reply(ctx, format!("{e}\n"), true)),
    };
    let now = events::now_in_zone(ctx);
    let asked = match read_request(&text, now, crate::agents::user_dates::date_order(ctx)) {
        Ok(a) => a,
        Err(Missing::When) => {
            return Ok(reply(
                ctx,
                crate::tr!(lang, "calendar.create.no_when"),
                true,
            ));
        }
        Err(Missing::What) => {
            return Ok(reply(
                ctx,
                crate::tr!(lang, "calendar.create.no_what"),
                true,
            ));
        }
    };
    let shown = cfg.shown_url();
    let place = events::events_place(ctx);
    if !ctx.confirmed || ctx.gate.is_dry_run() {
        let e = as_event(&asked, "", &shown);
        let note = events::note_path(&place, &e);
        let text = crate::tr!(
            lang,
            "calendar.create.plan",
            details = details(ctx, &e, &shown, &note),
            command = crate::shell::crew(&["ask", "--yes", &message])
        );
        return Ok(reply(ctx, text, false));
    }
    let done = match add(&cfg, &asked, zone) {
        Ok(done) => done,
        Err(e) => {
            let text = crate::tr!(lang, "calendar.create.failed", error = e.to_string());
            return Ok(reply(ctx, text, true));
        }
    };
    let (event, new) = match done {
        Added::New(e) => {
            common::log_change(
                ctx,
                "postman",
                &format!("created event {} in {}", e.uid, e.file),
            )?;
            (e, true)
        }
        Added::There(e) => (e, false),
    };
    let note = match events::imported(ctx.gate.vault()).get(&(event.uid.clone(), None)) {
        Some(path) => path.clone(),
        None => {
            let path = ctx.gate.create(
                &events::note_path(&place, &event),
                events::render_note(&event, &[]).as_bytes(),
            )?;
            common::log_change(ctx, "postman", &format!("event note {path}"))?;
            path
        }
    };
    let details = details(ctx, &event, &shown, &note);
    let text = if new {
        crate::tr!(
            lang,
            "calendar.create.done",
            details = details,
            uid = event.uid
        )
    } else {
        crate::tr!(
            lang,
            "calendar.create.exists",
            details = details,
            uid = event.uid
        )
    };
    Ok(reply(ctx, text, false))
}

enum Added {
    New(Event),
    /// The calendar held an event with this title at this start already.
    There(Event),
}

/// Sends the event to the calendar, unless one with its title and start is there already.
fn add(
    cfg: &crate::crew::mailcal::CaldavConfig,
    asked: &Asked,
    zone: chrono_tz::Tz,
) -> Result<Added, caldav::CaldavError> {
    let cal = Calendar::open(cfg)?;
    let (from, to) = caldav::utc_window(zone, asked.date, asked.date);
    let objects = cal
        .query(from, to)?
        .objects
        .into_iter()
        .map(|(u, t)| (u, t.into_bytes()))
        .collect();
    let loaded = calendar::load_with(&[], objects, zone, asked.date, asked.date);
    let wanted = as_event(asked, "", cal.shown_url());
    if let Some(e) = loaded.events.iter().find(|e| {
        !e.cancelled
            && e.start == wanted.start
            && e.all_day == wanted.all_day
            && e.summary.to_lowercase() == wanted.summary.to_lowercase()
    }) {
        return Ok(Added::There(e.clone()));
    }
    let now = Utc::now();
    let uid = ical_out::fresh_uid(now);
    let url = cal.create(&uid, &new_event(asked, &uid, zone, now).to_ics())?;
    Ok(Added::New(as_event(asked, &uid, &url)))
}

#[cfg(test)]
#[path = "create_tests.rs"]
mod tests;
