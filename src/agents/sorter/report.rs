//! The triage's report to the user, its hand-offs to other agents and its post-it.

use super::triage::Triage;
use crate::agents::common::suggestion;
use crate::dispatch::suggest::NextAgent;
use crate::lang::Lang;
use crate::tr;

fn section<T>(out: &mut String, title: &str, items: &[T], line: impl Fn(&T) -> String) {
    if items.is_empty() {
        return;
    }
    out.push_str(title);
    out.push('\n');
    for item in items {
        out.push_str("- ");
        out.push_str(&line(item));
        out.push('\n');
    }
    out.push('\n');
}

pub(super) fn render(t: &Triage, today: &str, l: Lang) -> String {
    let mut out = tr!(l, "triage.heading", date = today);
    if t.filed.is_empty() && t.left.is_empty() {
        out.push_str(&tr!(l, "triage.empty"));
    }
    section(
        &mut out,
        &tr!(l, "triage.filed", count = t.filed.len()),
        &t.filed,
        |f| {
            let folder = f.to.rsplit_once('/').map_or("", |(d, _)| d);
            format!("{} → {folder} ({})", f.title, f.evidence)
        },
    );
    let mocs: Vec<&String> = t.mocs.iter().collect();
    section(&mut out, &tr!(l, "triage.mocs"), &mocs, |m| m.to_string());
    section(
        &mut out,
        &tr!(l, "triage.mocs_not_written"),
        &t.mocs_not_written,
        String::clone,
    );
    section(
        &mut out,
        &tr!(l, "triage.left", count = t.left.len()),
        &t.left,
        |(title, why)| format!("{title} — {why}"),
    );
    section(
        &mut out,
        &tr!(l, "triage.distrusted"),
        &t.distrusted,
        |(kind, tally)| {
            tr!(
                l,
                "triage.distrusted.item",
                kind = format!("`{}`", kind.label()),
                agreed = tally.agreed,
                decided = tally.decided
            )
        },
    );
    section(
        &mut out,
        &tr!(l, "triage.archive"),
        &t.archive,
        String::clone,
    );
    section(
        &mut out,
        &tr!(l, "triage.clashes"),
        &t.clashes,
        String::clone,
    );
    section(&mut out, &tr!(l, "triage.homeless"), &t.proposals, |p| {
        let names: Vec<&str> = p
            .notes
            .iter()
            .map(|n| n.rsplit('/').next().unwrap_or(n).trim_end_matches(".md"))
            .collect();
        tr!(
            l,
            "triage.homeless.item",
            folder = &p.folder,
            count = p.notes.len(),
            words = p.words.join(", "),
            notes = names.join(", "),
            command = p.command()
        )
    });
    if let Some(pass) = &t.model {
        out.push_str(&pass.render());
    }
    out.push_str(&tr!(
        l,
        "triage.stats",
        filed = t.filed.len(),
        mocs = t.mocs.len(),
        left = t.left.len()
    ));
    out
}

/// Work the triage saw for other agents.
pub(super) fn suggestions(t: &Triage) -> Vec<NextAgent> {
    let mut out = Vec::new();
    for (path, notes) in &t.missing {
        let one = notes.len() == 1;
        out.push(suggestion(
            "architect",
            &format!(
                "{} inbox note{} need{} a home that does not exist: {path}",
                notes.len(),
                if one { "" } else { "s" },
                if one { "s" } else { "" }
            ),
            &format!(
                "create {path}/ (with _index.md and a MOC); waiting: {}",
                notes.join("; ")
            ),
        ));
    }
    if t.interlinked.len() >= 2 {
        let names: Vec<&str> = t.interlinked.iter().map(String::as_str).collect();
        out.push(suggestion(
            "connector",
            &format!(
                "{} notes filed together link to each other; their neighbourhood may need more links",
                names.len()
            ),
            &names.join("; "),
        ));
    }
    if !t.clashes.is_empty() {
        out.push(suggestion(
            "librarian",
            "notes with the same name now live side by side; check for duplicates",
            &t.clashes.join("; "),
        ));
    }
    out
}

/// The post-it after a triage. When nothing happened, the memory of the last real triage
/// (`previous`) stays as it was.
pub(super) fn postit(t: &Triage, today: &str, previous: Option<&str>) -> String {
    if t.filed.is_empty()
        && t.missing.is_empty()
        && let Some(previous) = previous
    {
        return previous.to_string();
    }
    let mut postit = format!(
        "last triage {today}: {} filed, {} left\n",
        t.filed.len(),
        t.left.len()
    );
    for (title, why) in t.left.iter().take(20) {
        postit.push_str(&format!("- left: {title} — {why}\n"));
    }
    for m in t.missing.keys() {
        postit.push_str(&format!("- waiting for architect: {m}\n"));
    }
    postit
}
