//! `/defrag`'s report: what it changed and what it proposes, rendered from data. Paths and
//! tags sit in code spans, so the report adds no live link or tag to the vault.

use chrono::{Duration, NaiveDate};
use serde::Serialize;

use super::defrag_plan::{DefragPlan, TagFinding};

/// One change defrag made, through the gate.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub(crate) struct Change {
    pub path: String,
    /// `created`, `updated` or `moved to <path>`.
    pub what: String,
}

/// A defrag run: the audit, what it changed and whether it was allowed to.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct DefragRun {
    #[serde(serialize_with = "as_text")]
    pub date: NaiveDate,
    pub plan: DefragPlan,
    pub changes: Vec<Change>,
    /// Whether this run could add structure and apply upkeep; when not, everything is a
    /// proposal.
    pub changes_allowed: bool,
}

fn as_text<S: serde::Serializer>(d: &NaiveDate, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(d)
}

/// How many items a proposal list shows before it says how many more there are.
const SHOWN: usize = 25;

impl DefragRun {
    fn count(&self, pred: impl Fn(&Change) -> bool) -> usize {
        self.changes.iter().filter(|c| pred(c)).count()
    }

    fn moved(&self) -> usize {
        self.count(|c| c.what.starts_with("moved"))
    }

    fn created(&self) -> usize {
        self.count(|c| c.what == "created")
    }

    fn mocs_updated(&self) -> usize {
        self.count(|c| c.what.starts_with("listed"))
    }

    /// `(label, figure)` of the summary, in the report's order.
    pub fn summary(&self) -> Vec<(&'static str, usize)> {
        let p = &self.plan;
        vec![
            ("files moved", self.moved()),
            ("structures created", self.created()),
            ("tags fixed", 0),
            ("MOCs updated", self.mocs_updated()),
            ("inbox items triaged", self.moved()),
            ("projects archived", 0),
            ("inbox notes older than 48 h", p.stale_inbox.len()),
            ("misplaced notes", p.misplaced.len()),
            (
                "tag spellings to merge",
                p.tag_variants.iter().filter(|t| t.forms.len() > 1).count(),
            ),
            (
                "tags to reformat",
                p.tag_variants.iter().filter(|t| t.forms.len() == 1).count(),
            ),
            ("archiving candidates", p.archive_candidates.len()),
        ]
    }

    /// The report note, frontmatter included.
    pub fn note(&self) -> String {
        let mut out = format!(
            "---\ntype: report\ndate: {d}\ntags: [report, defrag, maintenance]\n---\n# Defrag Report — {d}\n\n## Summary\n",
            d = self.date
        );
        for (label, n) in self.summary() {
            out.push_str(&format!("- {label}: {n}\n"));
        }
        out.push_str("\n## Structural Changes\n");
        out.push_str(&self.changes_list());
        out.push_str("\n## Recommendations\n");
        out.push_str(&self.proposals());
        out.push_str(&format!(
            "\n## Next Defrag\n- {}\n",
            self.date + Duration::days(7)
        ));
        out
    }

    /// Each change on its own line, or a line saying there were none (and why).
    pub(crate) fn changes_list(&self) -> String {
        if self.changes.is_empty() {
            return if self.changes_allowed {
                "- none needed\n".into()
            } else {
                "- none: this vault keeps its own layout, so defrag only proposes. To apply the proposals it can make safely: `crew ask --fix \"defragment the vault\"`\n".into()
            };
        }
        self.changes
            .iter()
            .map(|c| format!("- `{}`: {}\n", c.path, c.what))
            .collect()
    }

    /// The proposals of every phase: what the audit found still to do after the changes.
    fn proposals(&self) -> String {
        let p = &self.plan;
        let mut out = String::new();
        section(
            &mut out,
            "Inbox notes waiting over 48 hours (say \"file my notes\")",
            &p.stale_inbox,
            |s| format!("`{s}`"),
        );
        section(
            &mut out,
            "Areas missing their index or map",
            &p.area_gaps,
            |g| {
                let mut what = Vec::new();
                if g.no_index {
                    what.push("`_index.md`");
                }
                if g.no_moc {
                    what.push("a MOC");
                }
                format!("`{}/` has no {}", g.folder, what.join(" and no "))
            },
        );
        section(
            &mut out,
            "Maps the master index does not list",
            &p.index_missing,
            |s| format!("`{s}`"),
        );
        section(
            &mut out,
            "Notes to add to their map",
            &p.moc_additions,
            |a| {
                format!(
                    "`{}`: {} note(s), e.g. `{}`",
                    a.moc,
                    a.targets.len(),
                    a.targets.first().map_or("", String::as_str)
                )
            },
        );
        section(
            &mut out,
            "Misplaced notes (move them, or say \"file my notes\")",
            &p.misplaced,
            |m| format!("`{}` belongs in `{}/`", m.path, m.home),
        );
        section(
            &mut out,
            "Dead links in maps (notes deleted or renamed)",
            &p.moc_dead_links,
            |(m, t)| format!("`{m}` → `{t}`"),
        );
        section(&mut out, "Maps nothing links to", &p.orphan_mocs, |s| {
            format!("`{s}`")
        });
        self.tag_and_archive_proposals(&mut out);
        if out.is_empty() {
            out.push_str("- Nothing pressing.\n");
        }
        out
    }

    /// Phases 2 and 4, and the archiving candidates: listed, never applied here.
    fn tag_and_archive_proposals(&self, out: &mut String) {
        let p = &self.plan;
        let (merges, formats): (Vec<&TagFinding>, Vec<&TagFinding>) =
            p.tag_variants.iter().partition(|t| t.forms.len() > 1);
        let tag_line = |t: &&TagFinding| {
            let forms: Vec<String> = t
                .forms
                .iter()
                .map(|(f, n)| format!("`#{f}` ({n})"))
                .collect();
            format!("{} → `#{}`", forms.join(", "), t.canonical)
        };
        section(
            out,
            "Tag spellings to merge (`crew ask \"tag garden\"`)",
            &merges,
            tag_line,
        );
        section(
            out,
            "Tags to write in lowercase-hyphen form",
            &formats,
            tag_line,
        );
        section(
            out,
            "Tags missing from the taxonomy",
            &p.tags_outside_taxonomy,
            |t| format!("`#{t}`"),
        );
        section(
            out,
            "Archiving candidates (never moved unasked)",
            &p.archive_candidates,
            |(path, why)| format!("`{path}` — {why}"),
        );
        section(
            out,
            "New homes to scaffold (3+ notes name them)",
            &p.new_homes,
            |(kind, name, n)| {
                let command = crate::shell::crew(&[
                    "ask",
                    "--agent",
                    "architect",
                    &format!("create {kind} {name}"),
                ]);
                format!("{kind} {name} ({n} notes): `{command}`")
            },
        );
    }

    /// The answer printed to the user: the summary, the changes and where the report is.
    pub fn reply(&self, report_path: &str, l: crate::lang::Lang) -> String {
        let mut out = crate::tr!(l, "defrag.heading", date = self.date);
        for (label, n) in self.summary() {
            out.push_str(&format!("- {}: {n}\n", summary_label(label, l)));
        }
        out.push_str(&crate::tr!(l, "defrag.changes"));
        out.push_str(&self.changes_list());
        out.push_str(&crate::tr!(l, "defrag.report", path = report_path));
        out
    }
}

/// A summary label in the reply's language (the report note keeps the English one).
fn summary_label(label: &str, l: crate::lang::Lang) -> String {
    use crate::tr;
    match label {
        "files moved" => tr!(l, "defrag.files_moved"),
        "structures created" => tr!(l, "defrag.structures_created"),
        "tags fixed" => tr!(l, "defrag.tags_fixed"),
        "MOCs updated" => tr!(l, "defrag.mocs_updated"),
        "inbox items triaged" => tr!(l, "defrag.inbox_triaged"),
        "projects archived" => tr!(l, "defrag.projects_archived"),
        "inbox notes older than 48 h" => tr!(l, "defrag.stale_inbox"),
        "misplaced notes" => tr!(l, "defrag.misplaced"),
        "tag spellings to merge" => tr!(l, "defrag.tag_merges"),
        "tags to reformat" => tr!(l, "defrag.tag_formats"),
        "archiving candidates" => tr!(l, "defrag.archive_candidates"),
        other => other.to_string(),
    }
}

/// A `### title` list of at most [`SHOWN`] items, then how many more; nothing when empty.
fn section<T>(out: &mut String, title: &str, items: &[T], line: impl Fn(&T) -> String) {
    if items.is_empty() {
        return;
    }
    out.push_str(&format!("\n### {title} ({})\n", items.len()));
    for it in items.iter().take(SHOWN) {
        out.push_str(&format!("- {}\n", line(it)));
    }
    if items.len() > SHOWN {
        out.push_str(&format!("- … and {} more\n", items.len() - SHOWN));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::architect::defrag_plan::Misplaced;

    fn run(changes: Vec<Change>, allowed: bool) -> DefragRun {
        DefragRun {
            date: NaiveDate::from_ymd_opt(2026, 3, 2).expect("date"),
            plan: DefragPlan {
                misplaced: vec![Misplaced {
                    path: "00-Inbox/a.md".into(),
                    home: "01-Projects/Alpha".into(),
                    safe: false,
                }],
                tag_variants: vec![TagFinding {
                    canonical: "moc".into(),
                    forms: vec![("MOC".into(), 3), ("moc".into(), 1)],
                }],
                ..DefragPlan::default()
            },
            changes,
            changes_allowed: allowed,
        }
    }

    #[test]
    fn the_report_lists_each_change_cleanly() {
        let r = run(
            vec![
                Change {
                    path: "MOC/Index.md".into(),
                    what: "listed `MOC/Family.md`".into(),
                },
                Change {
                    path: "02-Areas/Family/_index.md".into(),
                    what: "created".into(),
                },
            ],
            true,
        );
        let note = r.note();
        assert!(
            note.contains("- `MOC/Index.md`: listed `MOC/Family.md`\n"),
            "{note}"
        );
        assert!(note.contains("- `02-Areas/Family/_index.md`: created\n"));
        assert!(note.contains("- structures created: 1\n- tags fixed: 0\n- MOCs updated: 1\n"));
        assert!(note.contains("`00-Inbox/a.md` belongs in `01-Projects/Alpha/`"));
        assert!(note.contains("`#MOC` (3), `#moc` (1) → `#moc`"));
        assert!(note.contains("## Next Defrag\n- 2026-03-09\n"));
        assert!(!note.contains("[["), "no live links: {note}");
    }

    #[test]
    fn a_run_that_may_not_change_says_how_to_apply() {
        let r = run(Vec::new(), false);
        assert!(
            r.reply("Meta/r.md", crate::lang::Lang::En)
                .contains("crew ask --fix")
        );
    }
}
