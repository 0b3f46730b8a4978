//! `/deadline-radar` and `/weekly-agenda` over the vault: deadlines from frontmatter
//! (`deadline`, `due`, `due-date`) and open tasks carrying a date.

mod note;
mod week;

use chrono::{Duration, NaiveDate};

use super::{Ctx, NativeOutput};
use crate::analysis::dates;
use crate::gate::GateError;

pub use super::timeframe::Dated;

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
pub(crate) fn buckets(items: &[Dated], today: NaiveDate) -> [Vec<&Dated>; 4] {
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

pub(crate) fn deadline_radar(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let mut items = collect(ctx);
    let today = ctx.now.date();
    let (events, calendar_problems) = super::postman::events::calendar_deadlines(
        ctx,
        today - Duration::days(30),
        today + Duration::days(30),
    );
    items.extend(events);
    // mail not saved yet that names a deadline: saved mail carries a `deadline` key already
    let (mail, mail_problems) = super::postman::inbox::mail_deadlines(
        ctx,
        today - Duration::days(30),
        today + Duration::days(30),
    );
    items.extend(mail);
    // a VIP's mail first on its day
    let vip = |d: &Dated| d.source != super::postman::inbox::VIP_SOURCE;
    items.sort_by(|a, b| {
        (a.date, vip(a))
            .cmp(&(b.date, vip(b)))
            .then_with(|| a.cmp(b))
    });
    let b = buckets(&items, today);
    let l = ctx.lang;
    let titles = [
        crate::tr!(l, "radar.overdue"),
        crate::tr!(l, "radar.critical"),
        crate::tr!(l, "radar.upcoming"),
        crate::tr!(l, "radar.horizon"),
    ];
    let mut out = crate::tr!(l, "radar.heading", date = ctx.today());
    for (i, t) in titles.iter().enumerate() {
        out.push_str(&format!("### {t} ({})\n", b[i].len()));
        if b[i].is_empty() {
            out.push_str(&crate::tr!(l, "radar.none"));
            continue;
        }
        out.push_str(&crate::tr!(l, "radar.table"));
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
    for p in calendar_problems.iter().chain(&mail_problems) {
        out.push_str(&crate::tr!(l, "radar.skipped", problem = p));
    }
    if ctx.says(super::cue::Cue::WriteDown) {
        let path = format!(
            "{}/{} — Deadline Radar.md",
            ctx.config.folders.inbox,
            ctx.today()
        );
        let frontmatter = format!(
            "---\ntype: deadline-radar\ndate: {}\ntags: [deadlines, radar, weekly-review]\nstatus: inbox\n---\n",
            ctx.today()
        );
        // one radar note a day: asking again updates its generated section
        let new = note::write(ctx, &path, &frontmatter, &out)?;
        out.push_str(&if new {
            crate::tr!(l, "radar.saved", path = path)
        } else {
            crate::tr!(l, "radar.updated", path = path)
        });
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

pub(crate) fn weekly_agenda(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    week::weekly_agenda(ctx)
}
