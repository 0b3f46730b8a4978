//! `/deadline-radar` and `/weekly-agenda` over the vault: deadlines from frontmatter
//! (`deadline`, `due`, `due-date`) and open tasks carrying a date.

use chrono::{Datelike, Duration, NaiveDate};

use super::common;
use super::{Ctx, NativeOutput};
use crate::analysis::dates;
use crate::gate::GateError;

/// One dated item.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dated {
    pub date: NaiveDate,
    pub note: String,
    pub what: String,
    pub source: String,
}

/// Every deadline and dated open task in the vault (Templates left out).
pub fn collect(ctx: &Ctx) -> Vec<Dated> {
    // dates as the user writes them: `12/05/2026`, `12 maggio 2026`, `📅 2026-05-12`
    let order = super::user_dates::date_order(ctx);
    let vault = ctx.gate.vault();
    let templates = format!("{}/", ctx.config.folders.templates);
    let mut out = Vec::new();
    for n in &vault.notes {
        if n.path.starts_with(&templates) {
            continue;
        }
        let done = n.property_str("status").is_some_and(|s| {
            matches!(s.to_lowercase().as_str(), "completed" | "done" | "archived")
        });
        for k in ["deadline", "due", "due-date"] {
            if let Some(d) = n
                .property_str(k)
                .and_then(|v| dates::absolute_date(&v, order))
                && !done
            {
                out.push(Dated {
                    date: d,
                    note: n.name().to_string(),
                    what: n.name().to_string(),
                    source: k.to_string(),
                });
            }
        }
        for t in n.tasks.iter().filter(|t| !t.done) {
            if let Some(d) = dates::absolute_date(&t.text, order) {
                out.push(Dated {
                    date: d,
                    note: n.name().to_string(),
                    what: t.text.clone(),
                    source: "task".into(),
                });
            }
        }
    }
    out.sort();
    out
}

/// Buckets: overdue, within 48 hours, within 7 days, within 30 days.
pub fn buckets(items: &[Dated], today: NaiveDate) -> [Vec<&Dated>; 4] {
    let mut b: [Vec<&Dated>; 4] = Default::default();
    for it in items {
        let days = (it.date - today).num_days();
        let i = match days {
            d if d < 0 => 0,
            0..=2 => 1,
            3..=7 => 2,
            8..=30 => 3,
            _ => continue,
        };
        b[i].push(it);
    }
    b
}

pub fn deadline_radar(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let mut items = collect(ctx);
    let today = ctx.now.date();
    let (events, calendar_problems) = super::postman::events::calendar_deadlines(
        ctx,
        today - Duration::days(30),
        today + Duration::days(30),
    );
    items.extend(events);
    items.sort();
    let b = buckets(&items, today);
    let titles = [
        "Overdue",
        "Critical (within 48 hours)",
        "Upcoming (within 7 days)",
        "On the horizon (within 30 days)",
    ];
    let mut out = format!("## Deadline radar — {}\n\n", ctx.today());
    for (i, t) in titles.iter().enumerate() {
        out.push_str(&format!("### {t} ({})\n", b[i].len()));
        if b[i].is_empty() {
            out.push_str("- none\n\n");
            continue;
        }
        out.push_str("| Deadline | Source | Details |\n|---|---|---|\n");
        for d in &b[i] {
            let source = if d.note.is_empty() {
                d.source.clone()
            } else {
                format!("[[{}]] ({})", d.note, d.source)
            };
            out.push_str(&format!(
                "| {} | {source} | {} |\n",
                d.date,
                d.what.replace('|', "\\|")
            ));
        }
        out.push('\n');
    }
    // saved emails carry a `deadline` key, so they are already among the notes
    for p in &calendar_problems {
        out.push_str(&format!("- skipped: {p}\n"));
    }
    if ctx.asks(&["save", "note", "salva", "sauvegarde", "guarda", "speichern"]) {
        let path = format!(
            "{}/{} — Deadline Radar.md",
            ctx.config.folders.inbox,
            ctx.today()
        );
        let body = format!(
            "---\ntype: deadline-radar\ndate: {}\ntags: [deadlines, radar, weekly-review]\nstatus: inbox\n---\n{out}",
            ctx.today()
        );
        let p = ctx.gate.create(&path, body.as_bytes())?;
        out.push_str(&format!("\nSaved as `{p}`.\n"));
    }
    Ok(NativeOutput {
        attention: !b[0].is_empty() || !b[1].is_empty(),
        postit: format!(
            "radar {}: {} overdue, {} critical, {} upcoming",
            ctx.today(),
            b[0].len(),
            b[1].len(),
            b[2].len()
        ),
        text: out,
    })
}

pub fn weekly_agenda(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let items = collect(ctx);
    let today = ctx.now.date();
    let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
    let sunday = monday + Duration::days(6);
    let vault = ctx.gate.vault();
    let meetings: Vec<(NaiveDate, String)> = vault
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
    let (events, calendar_problems) = super::postman::events::week_events(ctx, monday, sunday);
    let mut out = format!("## Week of {monday} to {sunday}\n\n");
    let overdue = items.iter().filter(|d| d.date < monday).count();
    let mut busiest = (0, monday);
    for i in 0..7 {
        let day = monday + Duration::days(i);
        let due: Vec<&Dated> = items.iter().filter(|d| d.date == day).collect();
        let meets: Vec<&(NaiveDate, String)> = meetings.iter().filter(|m| m.0 == day).collect();
        let day_events: Vec<_> = events.iter().filter(|e| e.date() == day).collect();
        out.push_str(&format!("### {}\n", day.format("%A %Y-%m-%d")));
        if due.is_empty() && meets.is_empty() && day_events.is_empty() {
            out.push_str("- no commitments\n");
        }
        for e in &day_events {
            out.push_str(&format!(
                "- {} {} (calendar)\n",
                e.time_range(),
                super::postman::md_inline(&e.summary)
            ));
        }
        for m in &meets {
            out.push_str(&format!("- meeting: [[{}]]\n", m.1));
        }
        for d in &due {
            out.push_str(&format!("- due: {} ([[{}]])\n", d.what, d.note));
        }
        let load = due.len() + meets.len() + day_events.len();
        if load > busiest.0 {
            busiest = (load, day);
        }
        out.push('\n');
    }
    if overdue > 0 {
        out.push_str(&format!(
            "{overdue} item(s) are overdue from before this week: say \"deadline radar\".\n"
        ));
    }
    for p in &calendar_problems {
        out.push_str(&format!("- skipped: {p}\n"));
    }
    if busiest.0 >= 4 {
        out.push_str(&format!(
            "Heaviest day: {} with {} items.\n",
            busiest.1.format("%A"),
            busiest.0
        ));
    }
    Ok(NativeOutput {
        postit: format!(
            "agenda for week of {monday}: {} items",
            items
                .iter()
                .filter(|d| d.date >= monday && d.date <= sunday)
                .count()
        ),
        text: out,
        attention: overdue > 0,
    })
}
