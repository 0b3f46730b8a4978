//! Revisit: notes untouched for a long time that recent notes still link to — old thinking the
//! user's current work leans on.

use chrono::NaiveDate;
use serde::Serialize;

use crate::agents::common;
use crate::vault::Vault;

/// A note is stale after this many days untouched …
pub(crate) const STALE_DAYS: i64 = 90;
/// … and a note touched within this many days is recent.
pub(crate) const RECENT_DAYS: i64 = 30;

/// A stale note and the recent notes linking to it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Stale {
    pub path: String,
    pub title: String,
    #[serde(serialize_with = "super::timeline::iso_date")]
    pub touched: NaiveDate,
    pub days: i64,
    pub linked_from: Vec<String>,
}

/// Stale notes with recent backlinks, most linked first, then oldest first. `among` limits
/// them to these note indices (a topic's search hits); `skip` holds folder prefixes left out
/// (templates, crew's Meta).
pub fn find(
    vault: &Vault,
    today: NaiveDate,
    among: Option<&[usize]>,
    skip: &[String],
) -> Vec<Stale> {
    let touched: Vec<Option<NaiveDate>> = vault.notes.iter().map(common::last_touched).collect();
    let back = vault.backlinks();
    let mut out = Vec::new();
    for (i, note) in vault.notes.iter().enumerate() {
        if among.is_some_and(|a| !a.contains(&i)) || skip.iter().any(|s| note.path.starts_with(s)) {
            continue;
        }
        let Some(t) = touched[i] else { continue };
        let days = (today - t).num_days();
        if days < STALE_DAYS {
            continue;
        }
        let mut recent: Vec<&usize> = back[i]
            .iter()
            .filter(|&&s| {
                s != i && touched[s].is_some_and(|d| (today - d).num_days() <= RECENT_DAYS)
            })
            .collect();
        recent.sort_by_key(|&&s| std::cmp::Reverse(touched[s]));
        if recent.is_empty() {
            continue;
        }
        out.push(Stale {
            path: note.path.clone(),
            title: note.name().to_string(),
            touched: t,
            days,
            linked_from: recent
                .iter()
                .map(|&&s| vault.notes[s].name().to_string())
                .collect(),
        });
    }
    out.sort_by(|a, b| {
        b.linked_from
            .len()
            .cmp(&a.linked_from.len())
            .then(b.days.cmp(&a.days))
            .then(a.path.cmp(&b.path))
    });
    out
}

/// The list as Markdown.
pub fn render(found: &[Stale], l: crate::lang::Lang) -> String {
    let mut out = crate::trn!(
        l,
        "seeker.revisit.heading",
        found.len(),
        stale = STALE_DAYS,
        recent = RECENT_DAYS
    );
    for s in found.iter().take(25) {
        let from: Vec<String> = s
            .linked_from
            .iter()
            .take(5)
            .map(|f| format!("[[{f}]]"))
            .collect();
        let more = s.linked_from.len().saturating_sub(5);
        out.push_str(&crate::tr!(
            l,
            "seeker.revisit.item",
            note = s.title,
            touched = s.touched,
            days = s.days,
            from = from.join(", "),
            more = if more > 0 {
                crate::tr!(l, "seeker.revisit.more", count = more)
            } else {
                String::new()
            }
        ));
    }
    if found.is_empty() {
        out.push_str(&crate::tr!(l, "seeker.revisit.none"));
    }
    out
}
