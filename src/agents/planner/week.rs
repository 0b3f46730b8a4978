//! `/weekly-agenda`: the current week (Monday to Sunday) from the vault's dated items, its
//! meetings and the calendar events the postman reads, written as the week note
//! `YYYY-Www.md` in the daily-notes folder (the periodic notes' home). Each run rewrites the
//! note's generated section and keeps the user's own text.

use chrono::{Datelike, Duration, NaiveDate};

use super::{Dated, collect, note};
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;

/// One day of the week: what is on it, rendered as lines.
struct Day {
    date: NaiveDate,
    lines: Vec<String>,
}

/// A dated item with how urgent it is: 0 high, 1 medium, 2 unmarked, 3 low.
fn priority(ctx: &Ctx, d: &Dated) -> u8 {
    let t = d.what.as_str();
    if t.contains('⏫') || t.contains('🔺') {
        return 0;
    }
    if t.contains('🔼') {
        return 1;
    }
    if t.contains('🔽') || t.contains('⏬') {
        return 3;
    }
    let prop = ctx
        .gate
        .vault()
        .notes
        .iter()
        .find(|n| n.name() == d.note)
        .and_then(|n| n.property_str("priority"))
        .map(|p| p.to_lowercase());
    match prop.as_deref() {
        Some("high" | "urgent" | "alta" | "haute" | "hoch") => 0,
        Some("medium" | "media" | "moyenne" | "mittel") => 1,
        Some("low" | "bassa" | "basse" | "baja" | "niedrig") => 3,
        _ => 2,
    }
}

fn priority_label(p: u8) -> &'static str {
    match p {
        0 => "high",
        1 => "medium",
        3 => "low",
        _ => "—",
    }
}

fn item_line(d: &Dated) -> String {
    if d.note.is_empty() {
        format!("{} — {}", d.date, d.what)
    } else {
        format!("{} — {} ([[{}]])", d.date, d.what, d.note)
    }
}

/// The ISO week name: `2026-W09`.
pub(crate) fn week_name(day: NaiveDate) -> String {
    let w = day.iso_week();
    format!("{}-W{:02}", w.year(), w.week())
}

/// The folder of the week note: the daily-notes folder, unless the vault keeps its own layout
/// and has none (crew adds no folder there unasked): then the inbox.
fn week_folder(ctx: &Ctx) -> String {
    let f = &ctx.config.folders;
    if ctx.gate.dir_exists(&f.daily) || ctx.crew.owns_layout() {
        f.daily.clone()
    } else {
        f.inbox.clone()
    }
}

/// The days, each with its calendar events, meetings and items due.
fn days(ctx: &Ctx, items: &[Dated], monday: NaiveDate) -> (Vec<Day>, Vec<String>) {
    let sunday = monday + Duration::days(6);
    let meetings: Vec<(NaiveDate, String)> = ctx
        .gate
        .vault()
        .notes
        .iter()
        .filter(|n| {
            n.property_str("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("meeting"))
        })
        .filter_map(|n| {
            n.property_str("date")
                .and_then(|d| common::parse_date(&d))
                .map(|d| (d, n.name().to_string()))
        })
        .filter(|(d, _)| *d >= monday && *d <= sunday)
        .collect();
    let (events, problems) = crate::agents::postman::events::week_events(ctx, monday, sunday);
    let mut out = Vec::new();
    for i in 0..7 {
        let date = monday + Duration::days(i);
        let mut lines = Vec::new();
        for e in events.iter().filter(|e| e.date() == date) {
            lines.push(format!(
                "{} {} (calendar)",
                e.time_range(),
                crate::agents::postman::md_inline(&e.summary)
            ));
        }
        for m in meetings.iter().filter(|m| m.0 == date) {
            lines.push(format!("meeting: [[{}]]", m.1));
        }
        for d in items.iter().filter(|d| d.date == date) {
            if d.note.is_empty() {
                lines.push(format!("due: {}", d.what));
            } else {
                lines.push(format!("due: {} ([[{}]])", d.what, d.note));
            }
        }
        out.push(Day { date, lines });
    }
    (out, problems)
}

/// The generated part of the week note, and the figures for the post-it.
fn render(ctx: &Ctx, items: &[Dated], monday: NaiveDate) -> (String, usize, usize) {
    let sunday = monday + Duration::days(6);
    let (days, problems) = days(ctx, items, monday);
    let overdue: Vec<&Dated> = items.iter().filter(|d| d.date < monday).collect();
    let mut this_week: Vec<(u8, &Dated)> = items
        .iter()
        .filter(|d| d.date >= monday && d.date <= sunday)
        .map(|d| (priority(ctx, d), d))
        .collect();
    let free: Vec<&Day> = days.iter().filter(|d| d.lines.is_empty()).collect();
    let lang = ctx.lang;
    let none = crate::tr!(lang, "agenda.none");
    // the `##` sections are the week note's template sections: they keep their names
    let mut out = crate::tr!(lang, "agenda.heading", monday = monday, sunday = sunday);
    out.push_str("## Week at a Glance\n");
    out.push_str(&crate::tr!(
        lang,
        "agenda.glance",
        events = days.iter().map(|d| d.lines.len()).sum::<usize>() - this_week.len(),
        due = this_week.len(),
        overdue = overdue.len(),
        free = free.len()
    ));
    out.push_str("## Priorities\n");
    out.push_str(&crate::tr!(lang, "agenda.overdue", count = overdue.len()));
    push_items(&mut out, &none, overdue.iter().map(|d| item_line(d)));
    out.push_str(&crate::tr!(lang, "agenda.due", count = this_week.len()));
    push_items(&mut out, &none, this_week.iter().map(|(_, d)| item_line(d)));
    this_week.sort_by_key(|(p, d)| (*p, d.date));
    out.push_str(&crate::tr!(lang, "agenda.by_priority"));
    push_items(
        &mut out,
        &none,
        this_week
            .iter()
            .map(|(p, d)| format!("{} — {}", priority_label(*p), item_line(d))),
    );
    out.push_str("## Free Blocks\n");
    push_items(
        &mut out,
        &none,
        free.iter()
            .map(|d| crate::tr!(lang, "agenda.free", day = d.date.format("%A %Y-%m-%d"))),
    );
    for d in &days {
        out.push_str(&format!("### {}\n", d.date.format("%A %Y-%m-%d")));
        if d.lines.is_empty() {
            out.push_str(&crate::tr!(lang, "agenda.no_commitments"));
        }
        for l in &d.lines {
            out.push_str(&format!("- {l}\n"));
        }
        out.push('\n');
    }
    if let Some(busiest) = days.iter().max_by_key(|d| d.lines.len())
        && busiest.lines.len() >= 4
    {
        out.push_str(&crate::tr!(
            lang,
            "agenda.heaviest",
            day = busiest.date.format("%A"),
            count = busiest.lines.len()
        ));
    }
    for p in &problems {
        out.push_str(&crate::tr!(lang, "radar.skipped", problem = p));
    }
    (out, this_week.len(), overdue.len())
}

fn push_items(out: &mut String, none: &str, lines: impl Iterator<Item = String>) {
    let mut any = false;
    for l in lines {
        out.push_str(&format!("- {l}\n"));
        any = true;
    }
    if !any {
        out.push_str(&format!("- {none}\n"));
    }
    out.push('\n');
}

/// `/weekly-agenda`: renders the week and writes the week note.
pub(crate) fn weekly_agenda(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let items = collect(ctx);
    let today = ctx.now.date();
    let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
    let sunday = monday + Duration::days(6);
    let (generated, due, overdue) = render(ctx, &items, monday);
    let path = format!("{}/{}.md", week_folder(ctx), week_name(monday));
    let frontmatter = format!(
        "---\ntype: weekly-agenda\ndate: {}\nweek: \"{monday} to {sunday}\"\ntags: [weekly-agenda]\n---\n",
        ctx.today()
    );
    let new = note::write(ctx, &path, &frontmatter, &generated)?;
    let mut out = generated;
    out.push_str(&if new {
        crate::tr!(ctx.lang, "agenda.wrote", path = path)
    } else {
        crate::tr!(ctx.lang, "agenda.updated", path = path)
    });
    Ok(NativeOutput {
        postit: format!("agenda for week of {monday}: {due} items, note {path}"),
        text: out,
        attention: overdue > 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn week_names_follow_iso_weeks() {
        let d = |y, m, day| NaiveDate::from_ymd_opt(y, m, day).expect("date");
        assert_eq!(week_name(d(2026, 3, 2)), "2026-W10");
        assert_eq!(week_name(d(2027, 1, 1)), "2026-W53");
        assert_eq!(week_name(d(2024, 12, 30)), "2025-W01");
    }
}
