//! Calendar modes: "what's on my calendar" lists the coming week; "import events" writes one
//! meeting note per event, found again by its UID (and occurrence) on the next import.

use std::collections::{BTreeMap, HashSet};

use chrono::{Duration, NaiveDate};

use super::calendar::{self, Event};
use super::people::{Directory, property_strings};
use super::place::{self, Kind, Place};
use super::{inert, md_inline, one_line, q};
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;
use crate::vault::Vault;

/// Import window: a week back (to catch what moved), two months ahead.
pub(crate) const IMPORT_DAYS_BACK: i64 = 7;
pub(crate) const IMPORT_DAYS_AHEAD: i64 = 60;

/// The configured calendars' events between two days; `None` when no calendar is configured.
pub(crate) fn events_between(
    ctx: &Ctx,
    from: NaiveDate,
    to: NaiveDate,
) -> Option<calendar::Loaded> {
    if !configured(ctx) {
        return None;
    }
    let zone = match calendar::user_zone(ctx.config.calendar.timezone.as_deref()) {
        Ok(z) => z,
        Err(e) => {
            return Some(calendar::Loaded {
                problems: vec![e],
                ..Default::default()
            });
        }
    };
    let paths = calendar::configured_paths(ctx.gate.root(), &ctx.config.calendar.ics);
    let (objects, problems) = super::caldav::fetch_all(&ctx.config.calendar.caldav, zone, from, to);
    let mut loaded = calendar::load_with(&paths, objects, zone, from, to);
    loaded.problems.splice(0..0, problems);
    for p in &loaded.problems {
        tracing::warn!("postman: {p}");
    }
    Some(loaded)
}

/// Whether any calendar is configured: `.ics` paths or CalDAV calendars.
pub(crate) fn configured(ctx: &Ctx) -> bool {
    !ctx.config.calendar.ics.is_empty() || !ctx.config.calendar.caldav.is_empty()
}

/// The run's clock in the calendar's zone (which may differ from the system's).
pub(crate) fn now_in_zone(ctx: &Ctx) -> chrono::NaiveDateTime {
    use chrono::TimeZone as _;
    match calendar::user_zone(ctx.config.calendar.timezone.as_deref()) {
        Ok(zone) => chrono::Local
            .from_local_datetime(&ctx.now)
            .earliest()
            .map_or(ctx.now, |t| t.with_timezone(&zone).naive_local()),
        Err(_) => ctx.now,
    }
}

/// `(UID, occurrence)` of every note made from a calendar event, with its path.
pub(crate) fn imported(vault: &Vault) -> BTreeMap<(String, Option<String>), String> {
    vault
        .notes
        .iter()
        .filter_map(|n| {
            let uid = n.property_str("calendar-event-id")?;
            Some(((uid, n.property_str("occurrence")), n.path.clone()))
        })
        .collect()
}

/// The keys of [`imported`], for skills that show events not yet in the vault.
pub(crate) fn imported_keys(vault: &Vault) -> HashSet<(String, Option<String>)> {
    imported(vault).into_keys().collect()
}

fn calendar_setup_text() -> String {
    "**No calendar is configured.** The postman reads iCalendar (`.ics`) files without a model: \
an export, a subscription saved by a sync tool (vdirsyncer keeps one file per event), or a \
folder of them — and CalDAV calendars (Nextcloud, Fastmail, iCloud, Radicale), which it can \
also add events to. Add them to `.crew/config.yaml`:\n\n```yaml\ncalendar:\n  ics: [~/calendars/work.ics, ~/calendars/personal/]\n  caldav:\n    - url: https://cloud.example.org/remote.php/dav/calendars/me/personal/\n      username: me\n      password_env: CALDAV_PASSWORD   # the variable holding the (app) password\n  timezone: Europe/Rome   # optional; the system's zone otherwise\n```\n".to_string()
}

/// "what's on my calendar" and "import events".
pub fn calendar(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    if !configured(ctx) {
        return Ok(NativeOutput {
            text: calendar_setup_text(),
            postit: ctx.postit.clone().unwrap_or_default(),
            attention: true,
        });
    }
    if ctx.says(crate::agents::cue::Cue::Import) {
        import(ctx)
    } else {
        upcoming(ctx)
    }
}

fn who(e: &Event, dir: &Directory) -> Vec<String> {
    e.attendees
        .iter()
        .map(|a| match dir.find(a.email.as_deref(), a.name.as_deref()) {
            Some(p) => format!("[[{}]]", p.note),
            // an attendee's name is outside text, written into the note's frontmatter and body
            None => inert(&one_line(&a.label())),
        })
        .collect()
}

fn problems_section(problems: &[String]) -> String {
    if problems.is_empty() {
        return String::new();
    }
    let mut s = format!("\n### Skipped ({})\n", problems.len());
    for p in problems {
        s.push_str(&format!("- {p}\n"));
    }
    s
}

/// The coming seven days, without writing anything.
fn upcoming(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let today = ctx.now.date();
    let to = today + Duration::days(7);
    let loaded = events_between(ctx, today, to).unwrap_or_default();
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let lang = ctx.lang;
    let mut out = crate::tr!(lang, "calendar.heading", from = today, to = to);
    let mut day = None;
    let live: Vec<&Event> = loaded.events.iter().filter(|e| !e.cancelled).collect();
    for e in &live {
        if day != Some(e.date()) {
            day = Some(e.date());
            out.push_str(&format!("\n### {}\n", e.date().format("%A %Y-%m-%d")));
        }
        let people = who(e, &dir);
        out.push_str(&format!(
            "- {} **{}**",
            e.time_range(),
            md_inline(&e.summary)
        ));
        if let Some(l) = &e.location {
            out.push_str(&format!(" · {}", md_inline(l)));
        }
        if !people.is_empty() {
            out.push_str(&crate::tr!(
                lang,
                "calendar.with",
                people = people.join(", ")
            ));
        }
        out.push('\n');
    }
    if live.is_empty() {
        out.push_str(&crate::tr!(lang, "calendar.none"));
    }
    out.push_str(&problems_section(&loaded.problems));
    if !live.is_empty() {
        out.push_str(&crate::tr!(lang, "calendar.import_hint"));
    }
    Ok(NativeOutput {
        text: out,
        postit: ctx.postit.clone().unwrap_or_default(),
        attention: !loaded.problems.is_empty(),
    })
}

/// The frontmatter values crew keeps in step with the calendar, as YAML text.
fn managed_fields(e: &Event, people: &[String]) -> Vec<(&'static str, Option<String>)> {
    let mut f = vec![
        ("date", Some(q(&e.date().to_string()))),
        (
            "time",
            (!e.all_day).then(|| q(&e.start.format("%H:%M").to_string())),
        ),
        (
            "end",
            e.end
                .filter(|_| !e.all_day)
                .map(|t| q(&t.format("%H:%M").to_string())),
        ),
        ("location", e.location.as_deref().map(q)),
        (
            "participants",
            (!people.is_empty()).then(|| {
                serde_json::to_string(
                    &people
                        .iter()
                        .map(|p| inert(&one_line(p)))
                        .collect::<Vec<_>>(),
                )
                .unwrap_or_else(|_| "[]".into())
            }),
        ),
    ];
    if e.cancelled {
        f.push(("event-status", Some("cancelled".into())));
    }
    f
}

/// The body lines crew keeps in step: when, where, who.
fn detail_lines(e: &Event, people: &[String]) -> Vec<(&'static str, String)> {
    let mut v = vec![(
        "- **When**:",
        format!("- **When**: {} {}", e.date(), e.time_range()),
    )];
    v.push((
        "- **Where**:",
        format!(
            "- **Where**: {}",
            e.location.as_deref().map_or("—".to_string(), md_inline)
        ),
    ));
    v.push((
        "- **Who**:",
        format!(
            "- **Who**: {}",
            if people.is_empty() {
                "—".to_string()
            } else {
                people.join(", ")
            }
        ),
    ));
    v
}

pub(crate) fn render_note(e: &Event, people: &[String]) -> String {
    let mut fm = String::from("---\ntype: meeting\n");
    for (k, v) in managed_fields(e, people) {
        if let Some(v) = v {
            fm.push_str(&format!("{k}: {v}\n"));
        }
    }
    fm.push_str("tags: [meeting]\nstatus: filed\n");
    fm.push_str(&format!("calendar-event-id: {}\n", q(&e.uid)));
    if let Some(o) = &e.occurrence {
        fm.push_str(&format!(
            "occurrence: {}\nrecurring: true\nseries-name: {}\n",
            q(o),
            q(&e.summary)
        ));
    }
    fm.push_str("---\n");
    let mut body = format!("# {}\n\n", md_inline(&e.summary));
    for (_, line) in detail_lines(e, people) {
        body.push_str(&line);
        body.push('\n');
    }
    if let Some(o) = &e.organizer {
        body.push_str(&format!("- **Organizer**: {}\n", md_inline(&o.label())));
    }
    body.push_str("\n## Agenda\n\n");
    if let Some(d) = &e.description {
        body.push_str(&inert(d.trim()));
        body.push('\n');
    }
    body.push_str("\n## Notes\n\n");
    format!("{fm}{body}")
}

/// Where this vault keeps meeting notes ([`place`]): `Meetings/YYYY/MM/` in a vault crew laid
/// out.
pub(crate) fn events_place(ctx: &Ctx) -> Place {
    let gate = &*ctx.gate;
    place::place(
        gate.vault(),
        ctx.crew,
        &ctx.config.folders,
        Kind::Meeting,
        |d| gate.dir_exists(d),
    )
}

/// The path a new event note gets: `<place>/YYYY-MM-DD — Meeting — Title.md`.
pub(crate) fn note_path(place: &Place, e: &Event) -> String {
    let name = common::convention_name(&e.date().to_string(), "meeting", &e.summary);
    place.path_for(e.date(), &name)
}

fn import(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let today = ctx.now.date();
    let from = today - Duration::days(IMPORT_DAYS_BACK);
    let to = today + Duration::days(IMPORT_DAYS_AHEAD);
    let loaded = events_between(ctx, from, to).unwrap_or_default();
    let dir = Directory::load(ctx.gate.vault(), &ctx.config.folders);
    let existing = imported(ctx.gate.vault());
    let place = events_place(ctx);
    let (mut created, mut updated, mut unchanged, mut cancelled) = (vec![], vec![], 0, 0);
    let mut problems = loaded.problems.clone();
    for e in &loaded.events {
        let people = who(e, &dir);
        let key = (e.uid.clone(), e.occurrence.clone());
        // one event the gate refuses (a name it will not make, a folder that is a file) is
        // skipped by name: the events before it are written already, the rest still are
        let done = match existing.get(&key) {
            None if e.cancelled => {
                cancelled += 1;
                Ok(())
            }
            None => ctx
                .gate
                .create(&note_path(&place, e), render_note(e, &people).as_bytes())
                .and_then(|p| {
                    common::log_change(ctx, "postman", &format!("imported event as {p}"))?;
                    created.push(p);
                    Ok(())
                }),
            Some(path) => update_note(ctx, &place, path, e, &people).map(|changed| {
                if changed {
                    updated.push(path.clone());
                } else {
                    unchanged += 1;
                }
            }),
        };
        if let Err(err) = done {
            problems.push(format!(
                "{}: event \"{}\" on {}: {err}; skipped",
                e.file,
                md_inline(&e.summary),
                e.date()
            ));
        }
    }
    let lang = ctx.lang;
    let mut out = crate::tr!(
        lang,
        "calendar.imported",
        from = from,
        to = to,
        new = created.len(),
        updated = updated.len(),
        unchanged = unchanged,
        cancelled = if cancelled > 0 {
            crate::tr!(lang, "calendar.cancelled", count = cancelled)
        } else {
            String::new()
        }
    );
    let (new_title, updated_title) = (
        crate::tr!(lang, "calendar.new"),
        crate::tr!(lang, "calendar.updated"),
    );
    for (title, list) in [(new_title, &created), (updated_title, &updated)] {
        if !list.is_empty() {
            out.push_str(&format!("\n### {title}\n"));
            for p in list {
                out.push_str(&format!("- `{p}`\n"));
            }
        }
    }
    out.push_str(&problems_section(&problems));
    if loaded.files == 0 && problems.is_empty() && ctx.config.calendar.caldav.is_empty() {
        out.push_str(&crate::tr!(lang, "calendar.no_files"));
    }
    let mut postit = super::state::PostIt::parse(ctx.postit.as_deref());
    postit.set(
        "events",
        format!(
            "last import {}: {} new, {} updated, {} unchanged",
            ctx.today(),
            created.len(),
            updated.len(),
            unchanged
        ),
    );
    Ok(NativeOutput {
        text: out,
        postit: postit.render(),
        attention: !problems.is_empty(),
    })
}

/// Brings an event's note in step with the calendar: the managed frontmatter keys and the
/// When/Where/Who lines; the user's own text stays. A moved event's note is renamed (and
/// moved to its new month) while it still carries the name crew gave it.
fn update_note(
    ctx: &mut Ctx,
    place: &Place,
    path: &str,
    e: &Event,
    people: &[String],
) -> Result<bool, GateError> {
    let Some(note) = ctx.gate.vault().note(path) else {
        return Ok(false);
    };
    let old_date = note.property_str("date");
    let old_name = note.name().to_string();
    let fields = managed_fields(e, people);
    let changes: Vec<(&str, Option<String>)> = fields
        .iter()
        .filter(|(k, v)| {
            let now: Option<String> = if *k == "participants" {
                let list = property_strings(note, k);
                (!list.is_empty()).then(|| serde_json::to_string(&list).unwrap_or_default())
            } else {
                note.property_str(k).map(|s| q(&s))
            };
            now != *v
        })
        .map(|(k, v)| (*k, v.clone()))
        .collect();
    let lines = detail_lines(e, people);
    let changed = ctx.gate.edit(path, "calendar event changed", |text| {
        let t = crate::vault::edit::set_frontmatter_keys(text, &changes);
        let mut out = String::with_capacity(t.len());
        let mut done: HashSet<&str> = HashSet::new();
        for line in t.split_inclusive('\n') {
            let bare = line.trim_end_matches(['\n', '\r']);
            match lines
                .iter()
                .find(|(prefix, _)| bare.starts_with(prefix) && !done.contains(prefix))
            {
                Some((prefix, new)) => {
                    done.insert(prefix);
                    out.push_str(new);
                    out.push_str(&line[bare.len()..]);
                }
                None => out.push_str(line),
            }
        }
        out
    })?;
    let new_date = e.date().to_string();
    let moved_day = old_date.as_deref() != Some(new_date.as_str());
    if changed
        && moved_day
        && let Some(old) = &old_date
        && old_name == common::convention_name(old, "meeting", &e.summary)
        && place.holds(path)
    {
        let target = note_path(place, e);
        if !ctx.gate.exists(&target) {
            ctx.gate.move_file(path, &target)?;
            common::log_change(ctx, "postman", &format!("event moved: {path} → {target}"))?;
            return Ok(true);
        }
    }
    if changed {
        common::log_change(ctx, "postman", &format!("event changed: {path}"))?;
    }
    Ok(changed)
}

/// Calendar events whose titles name a deadline, as deadline-radar items (cancelled ones left
/// out), with the problems met reading the calendars.
pub(crate) fn calendar_deadlines(
    ctx: &Ctx,
    from: NaiveDate,
    to: NaiveDate,
) -> (Vec<crate::agents::timeframe::Dated>, Vec<String>) {
    let Some(loaded) = events_between(ctx, from, to) else {
        return (Vec::new(), Vec::new());
    };
    let items = loaded
        .events
        .iter()
        .filter(|e| !e.cancelled)
        .filter(|e| {
            let t = format!(" {} ", e.summary.to_lowercase());
            crate::text::word_list("event_deadline_words")
                .iter()
                .any(|w| t.contains(&format!(" {w}")))
        })
        .map(|e| crate::agents::timeframe::Dated {
            date: e.date(),
            note: String::new(),
            what: md_inline(&e.summary),
            source: "calendar".into(),
        })
        .collect();
    (items, loaded.problems)
}

/// The week's calendar events that have no note yet (the agenda lists meeting notes itself).
pub(crate) fn week_events(
    ctx: &Ctx,
    monday: NaiveDate,
    sunday: NaiveDate,
) -> (Vec<Event>, Vec<String>) {
    let Some(loaded) = events_between(ctx, monday, sunday) else {
        return (Vec::new(), Vec::new());
    };
    let have = imported_keys(ctx.gate.vault());
    let events = loaded
        .events
        .into_iter()
        .filter(|e| !e.cancelled && !have.contains(&(e.uid.clone(), e.occurrence.clone())))
        .collect();
    (events, loaded.problems)
}
