//! Temporal connections ("notes from the same days as X", "what else was I writing around
//! X"): the notes dated within a few days of X — by their frontmatter, a date in their name,
//! else the file's modification day — that are not linked with X yet, those sharing the most
//! rare words with it first. Nothing is linked: the user picks.

use std::collections::BTreeSet;

use chrono::NaiveDate;

use super::discover::Discovery;
use super::topic;
use super::{Ctx, NativeOutput, display, spot_line};
use crate::analysis::note_date::{DateFrom, dated};
use crate::tr;
use crate::vault::Vault;

/// Days either side of the note's own day that count as "the same days".
const WINDOW_DAYS: i64 = 3;
/// Notes shown; the rest are counted.
const SHOWN: usize = 15;

/// One note from the same days: its day, how far from the note's, and the rare words shared.
struct Near {
    note: usize,
    day: NaiveDate,
    from: DateFrom,
    offset: i64,
    weight: f64,
    shared: Vec<String>,
}

/// The temporal mode: the request's note, and the unlinked notes from its days.
pub(super) fn run(ctx: &Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let l = ctx.lang;
    let request = format!("{} {}", ctx.step.message, ctx.step.task);
    let scope = topic::Scope {
        vault,
        source: &*ctx.gate,
        folders: &ctx.config.folders,
        today: ctx.now.date(),
    };
    let Some(named) = topic::named_note(&scope, &request) else {
        return NativeOutput {
            postit: format!("temporal {}: no note named", ctx.today()),
            text: tr!(l, "connector.temporal.which"),
            attention: false,
        };
    };
    let center = named.note;
    let name = display(vault, center);
    let Some((day, from)) = dated(&vault.notes[center]) else {
        return NativeOutput {
            postit: format!("temporal {name} {}: undated", ctx.today()),
            text: tr!(l, "connector.temporal.undated", note = name),
            attention: false,
        };
    };
    let discovery = Discovery::new(vault, &*ctx.gate, &ctx.config.folders);
    let found = same_days(vault, &discovery, center, day);
    let mut out = tr!(
        l,
        "connector.temporal.heading",
        note = name,
        from = day - chrono::Duration::days(WINDOW_DAYS),
        to = day + chrono::Duration::days(WINDOW_DAYS)
    );
    out.push_str(&super::taken_line(vault, &named, l));
    out.push_str(&tr!(
        l,
        "connector.temporal.date",
        note = name,
        date = day,
        source = source_text(from, l)
    ));
    if found.is_empty() {
        out.push_str(&tr!(l, "connector.temporal.none"));
    }
    for n in found.iter().take(SHOWN) {
        let why = if n.shared.is_empty() {
            tr!(l, "connector.temporal.nothing_shared")
        } else {
            tr!(l, "connector.temporal.shared", words = n.shared.join(", "))
        };
        let file_day = if n.from == DateFrom::Modified {
            tr!(l, "connector.temporal.file_day")
        } else {
            String::new()
        };
        out.push_str(&tr!(
            l,
            "connector.temporal.item",
            note = display(vault, n.note),
            date = format!("{}{file_day}", n.day),
            offset = format!("{:+}", n.offset),
            why = why
        ));
        out.push_str(&spot_line(&discovery, center, n.note, l));
    }
    if found.len() > SHOWN {
        out.push_str(&tr!(
            l,
            "connector.temporal.more",
            count = found.len() - SHOWN
        ));
    }
    let sharing = found.iter().filter(|n| n.weight > 0.0).count();
    out.push_str(&tr!(l, "connector.temporal.hint", note = name));
    NativeOutput {
        postit: format!(
            "temporal {name} {}: {} note(s) within {WINDOW_DAYS} days of {day}, {sharing} sharing words",
            ctx.today(),
            found.len()
        ),
        text: out,
        attention: false,
    }
}

/// The content notes dated within [`WINDOW_DAYS`] of `day`, neither linking to `center` nor
/// linked from it: most shared rarity first, then the nearest day, then the path.
fn same_days(vault: &Vault, discovery: &Discovery, center: usize, day: NaiveDate) -> Vec<Near> {
    let linked: BTreeSet<usize> = vault.resolved[center]
        .iter()
        .filter_map(|r| r.file().and_then(|id| vault.note_of_file(id)))
        .chain(vault.links_to(center).into_iter().map(|(s, _)| s))
        .collect();
    let mut out: Vec<Near> = (0..vault.notes.len())
        .filter(|&j| j != center && discovery.is_content(j) && !linked.contains(&j))
        .filter_map(|j| {
            let (d, from) = dated(&vault.notes[j])?;
            let offset = (d - day).num_days();
            if offset.abs() > WINDOW_DAYS {
                return None;
            }
            let shared = discovery.shared_rare(center, j);
            Some(Near {
                note: j,
                day: d,
                from,
                offset,
                weight: shared.iter().map(|(_, r)| r).sum(),
                shared: shared.into_iter().take(3).map(|(w, _)| w).collect(),
            })
        })
        .collect();
    out.sort_by(|a, b| {
        b.weight
            .total_cmp(&a.weight)
            .then(a.offset.abs().cmp(&b.offset.abs()))
            .then_with(|| vault.notes[a.note].path.cmp(&vault.notes[b.note].path))
    });
    out
}

fn source_text(from: DateFrom, l: crate::lang::Lang) -> String {
    match from {
        DateFrom::Frontmatter => tr!(l, "connector.temporal.from_frontmatter"),
        DateFrom::Name => tr!(l, "connector.temporal.from_name"),
        DateFrom::Modified => tr!(l, "connector.temporal.from_modified"),
    }
}
