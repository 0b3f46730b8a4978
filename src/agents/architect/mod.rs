//! The architect and its skills: area and project scaffolding, defrag, onboarding, and the
//! custom-agent list.

use std::sync::LazyLock;

use regex::Regex;

mod defrag;
mod defrag_plan;
mod defrag_report;
mod folders;
pub mod manage;
pub mod onboard;
mod request;
mod requests;
mod taxonomy;
mod template;

pub use defrag::defrag;

use super::common::{self, fold, suggestion};
use super::{Ctx, NativeOutput};
use crate::crew::Status;
use crate::gate::GateError;

fn slug(name: &str) -> String {
    let n = crate::text::normalize(name);
    n.replace(' ', "-")
}

/// Creates a file only when it does not exist; returns whether it was created.
fn ensure_file(
    ctx: &mut Ctx,
    path: &str,
    text: &str,
    made: &mut Vec<String>,
) -> Result<(), GateError> {
    if !ctx.gate.exists(path) {
        let p = ctx.gate.create(path, text.as_bytes())?;
        made.push(p);
    }
    Ok(())
}

fn add_line_if_missing(
    ctx: &mut Ctx,
    path: &str,
    heading: &str,
    needle: &str,
    line: &str,
    made: &mut Vec<String>,
) -> Result<(), GateError> {
    match ctx.gate.read_text(path) {
        Some(t) if t.contains(needle) => Ok(()),
        Some(_) => {
            ctx.gate.append(path, &format!("{line}\n"))?;
            made.push(format!("{path} (updated)"));
            Ok(())
        }
        None => {
            ctx.gate
                .write(path, format!("{heading}{line}\n").as_bytes())?;
            made.push(path.to_string());
            Ok(())
        }
    }
}

fn master_index(ctx: &Ctx) -> String {
    format!("{}/Index.md", ctx.config.folders.moc)
}

fn index_heading(ctx: &Ctx) -> String {
    format!(
        "---\ntype: moc\ndate: {}\ntags: [moc, index]\n---\n# Master Index\n\nEvery area's map of content.\n\n",
        ctx.today()
    )
}

/// Creates the folder of a new home and records it in `vault-structure.md` and, as
/// `#<kind>/<slug>`, in the tag taxonomy.
fn register_home(
    ctx: &mut Ctx,
    kind: &str,
    folder: &str,
    name: &str,
    made: &mut Vec<String>,
) -> Result<(), GateError> {
    let meta = ctx.config.folders.meta.clone();
    let s = slug(name);
    if !ctx.gate.dir_exists(folder) {
        ctx.gate.mkdir(folder)?;
        made.push(format!("{folder}/"));
    }
    add_line_if_missing(
        ctx,
        &format!("{meta}/vault-structure.md"),
        "# Vault structure\n\n",
        &format!("`{folder}/`"),
        &format!("- `{folder}/` — {kind}: {name}"),
        made,
    )?;
    add_line_if_missing(
        ctx,
        &format!("{meta}/tag-taxonomy.md"),
        "# Tag taxonomy\n\n",
        &format!("#{kind}/{s}"),
        &format!("- #{kind}/{s} — {name}"),
        made,
    )
}

/// The area scaffolding procedure: folder, `_index.md`, area MOC, link from the master index,
/// `vault-structure.md` and the tag taxonomy. Never a half-structure; never overwrites.
pub(crate) fn scaffold_area(ctx: &mut Ctx, name: &str) -> Result<Vec<String>, GateError> {
    let f = ctx.config.folders.clone();
    let s = slug(name);
    let today = ctx.today();
    let folder = format!("{}/{name}", f.areas);
    let mut made = Vec::new();
    register_home(ctx, "area", &folder, name, &mut made)?;
    ensure_file(
        ctx,
        &format!("{folder}/_index.md"),
        &format!(
            "---\ntype: area\ndate: {today}\ntags: [area, area/{s}]\nstatus: active\n---\n# {name}\n\n## Purpose\nWhat this area of life covers.\n\n## Active Projects\n\n## Sub-Areas\n\n## Key Resources\n\n## MOC\n→ [[{}/{name}|{name} MOC]]\n",
            f.moc
        ),
        &mut made,
    )?;
    ensure_file(
        ctx,
        &format!("{}/{name}.md", f.moc),
        &format!(
            "---\ntype: moc\ndate: {today}\ntags: [moc, area/{s}]\n---\n# {name} — Map of Content\n\n## Overview\nThe notes of `{folder}/`.\n\n## Structure\n- [[{folder}/_index|{name} index]]\n\n## Key Notes\n\n## Active Projects\n\n## Related MOCs\n- [[{}/Index|Master Index]]\n",
            f.moc
        ),
        &mut made,
    )?;
    let index = master_index(ctx);
    let heading = index_heading(ctx);
    add_line_if_missing(
        ctx,
        &index,
        &heading,
        &format!("[[{}/{name}|", f.moc),
        &format!("- [[{}/{name}|{name}]]", f.moc),
        &mut made,
    )?;
    Ok(made)
}

/// A project folder with its index, listed in `vault-structure.md` and the taxonomy.
pub(crate) fn scaffold_project(ctx: &mut Ctx, name: &str) -> Result<Vec<String>, GateError> {
    let f = ctx.config.folders.clone();
    let s = slug(name);
    let folder = format!("{}/{name}", f.projects);
    let mut made = Vec::new();
    register_home(ctx, "project", &folder, name, &mut made)?;
    ensure_file(
        ctx,
        &format!("{folder}/_index.md"),
        &format!(
            "---\ntype: project\ndate: {}\ntags: [project, project/{s}]\nstatus: active\n---\n# {name}\n\n## Goal\n\n## Notes\n\n## Next steps\n",
            ctx.today()
        ),
        &mut made,
    )?;
    Ok(made)
}

static UNNAMED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:please\s+)?(?:create|add|make|start|set up|new)\b.*\b(area|project)\s*[.!?]?\s*$")
        .expect("static regex")
});

static NAME_QUESTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^What should the new (area|project) be called\?$").expect("static regex")
});

/// A request for a new area or project that names none, or the user's answer to the question
/// that asked for the name.
enum NameRequest {
    Named(String, String),
    Unnamed(String),
    Neither,
}

fn unnamed_structure(ctx: &Ctx) -> NameRequest {
    if let Some((answer, ask)) = crate::dispatch::question::split_answer(&ctx.step.message)
        && let Some(c) = NAME_QUESTION.captures(&ask)
        && let Some(kind) = c.get(1)
    {
        let first = answer.lines().next().unwrap_or("").trim();
        let name = common::safe_title(first.trim_matches(['"', '\'', '.', '!', '?']), 60);
        if name != "Untitled" {
            return NameRequest::Named(kind.as_str().to_string(), name);
        }
    }
    if ctx.step.step == 1
        && let Some(c) = UNNAMED.captures(ctx.step.message.lines().next().unwrap_or(""))
        && let Some(kind) = c.get(1)
    {
        return NameRequest::Unnamed(kind.as_str().to_lowercase());
    }
    NameRequest::Neither
}

/// A new area or project without a name: the architect asks for one.
fn ask_for_name(ctx: &mut Ctx, kind: &str) -> NativeOutput {
    ctx.question = Some(crate::dispatch::question::Question {
        ask: format!("What should the new {kind} be called?"),
        choices: Vec::new(),
    });
    NativeOutput {
        text: format!(
            "## Structure — {}\n\nA new {kind} needs a name.\n",
            ctx.today(),
        ),
        postit: format!("asked for the name of a new {kind}"),
        attention: false,
    }
}

static NAME_AFTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(area|project|progetto|projet|proyecto|projekt|projeto|bereich|área|zone|folder|cartella)\b\s*(?:called|named|for|chiamat[oa]|appel[ée]e?|llamad[oa]|namens|chamad[oa])?\s*[:\-—]?\s*(.+)$").expect("static regex")
});

/// What the request asks to build: ("area" | "project", name, the sub-folders named after a
/// "with" word).
pub(crate) fn requested_structure(message: &str) -> Option<(String, String, Vec<String>)> {
    let first_line = message.lines().next().unwrap_or("");
    let c = NAME_AFTER.captures(first_line)?;
    let word = c.get(1)?.as_str().to_lowercase();
    let name = c
        .get(2)?
        .as_str()
        .trim()
        .trim_matches(['"', '\'', '“', '”', '.', '!', '?'])
        .trim();
    if name.is_empty() {
        return None;
    }
    let kind = if matches!(word.as_str(), "area" | "bereich" | "área" | "zone") {
        "area"
    } else {
        "project"
    };
    let (name, parts) = request::name_and_parts(name);
    let parts = parts
        .iter()
        .map(|p| common::safe_title(p, 60))
        .filter(|p| p != "Untitled")
        .collect();
    Some((kind.to_string(), common::safe_title(&name, 60), parts))
}

/// Homes named in a hand-off, e.g. "create 01-Projects/Kitchen/ (with _index.md …)". A name
/// is read whole when a folder of that name exists ("01-Projects/Projects (2026)").
fn requested_paths(ctx: &Ctx, text: &str) -> Vec<(String, String)> {
    let f = &ctx.config.folders;
    let mut out = Vec::new();
    for (root, kind) in [(&f.projects, "project"), (&f.areas, "area")] {
        let existing = leaves(ctx, root);
        let prefix = format!("{root}/");
        let mut rest = text;
        while let Some(at) = rest.find(&prefix) {
            let after = &rest[at + prefix.len()..];
            rest = after;
            let name = folders::name_at(after, &existing);
            if !name.is_empty()
                && !out
                    .iter()
                    .any(|(_, n): &(String, String)| fold(n) == fold(&name))
            {
                out.push((kind.to_string(), name));
            }
        }
    }
    out
}

/// The names of the folders directly under `root`.
fn leaves(ctx: &Ctx, root: &str) -> Vec<String> {
    ctx.gate
        .subdirs(root)
        .into_iter()
        .map(|d| d.rsplit('/').next().unwrap_or(&d).to_string())
        .collect()
}

/// The name to build under: an existing folder that differs only in case, spacing or
/// punctuation is the one asked for, so no twin is made beside it.
fn home_name(ctx: &Ctx, kind: &str, name: &str) -> String {
    let root = if kind == "area" {
        &ctx.config.folders.areas
    } else {
        &ctx.config.folders.projects
    };
    let existing = leaves(ctx, root);
    folders::existing_twin(name, &existing)
        .unwrap_or(name)
        .to_string()
}

/// Whether this run may add structure: the user asked for it (the request came to the
/// architect first), or crew laid out the vault itself. Another agent's hand-off never adds
/// folders, indexes or MOCs to a vault that keeps its own layout.
fn may_add_structure(ctx: &Ctx) -> bool {
    ctx.step.suggested_by.is_none() || ctx.crew.owns_layout()
}

/// What the architect would have built, when it may not: the homes and the command.
fn structure_declined(ctx: &Ctx, wanted: &[(String, String)]) -> NativeOutput {
    let l = ctx.lang;
    let mut out = crate::tr!(
        l,
        "architect.declined",
        date = ctx.today(),
        by = ctx
            .step
            .suggested_by
            .clone()
            .unwrap_or_else(|| crate::tr!(l, "architect.the_request"))
    );
    for (kind, name) in wanted {
        out.push_str(&crate::tr!(
            l,
            "architect.declined.item",
            kind = kind,
            name = name,
            command = crate::shell::crew(&[
                "ask",
                "--agent",
                "architect",
                &format!("create {kind} {name}")
            ])
        ));
    }
    NativeOutput {
        postit: format!("declined unasked structure {}", ctx.today()),
        text: out,
        attention: false,
    }
}

/// The folder of a home of `kind` named `name`.
fn home_folder(ctx: &Ctx, kind: &str, name: &str) -> String {
    if kind == "area" {
        format!("{}/{name}", ctx.config.folders.areas)
    } else {
        format!("{}/{name}", ctx.config.folders.projects)
    }
}

/// Every folder a request for homes (and their sub-folders) would make or reuse.
fn planned_folders(ctx: &Ctx, wanted: &[(String, String)], parts: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for (kind, name) in wanted {
        let folder = home_folder(ctx, kind, name);
        let existing = leaves(ctx, &folder);
        out.push(folder.clone());
        for p in parts {
            let p = folders::existing_twin(p, &existing).unwrap_or(p);
            out.push(format!("{folder}/{p}"));
        }
    }
    out
}

/// Adds a home's line to the reply — complete already, or what was made, which is logged;
/// returns whether anything was made.
fn report_home(
    ctx: &mut Ctx,
    out: &mut String,
    kind: &str,
    folder: &str,
    made: &[String],
    verb: &str,
) -> Result<bool, GateError> {
    let l = ctx.lang;
    if made.is_empty() {
        out.push_str(&crate::tr!(
            l,
            "architect.complete",
            kind = kind,
            folder = folder
        ));
        return Ok(false);
    }
    out.push_str(&crate::tr!(
        l,
        "architect.created",
        kind = kind,
        folder = folder,
        items = made.join(", ")
    ));
    common::log_change(
        ctx,
        "architect",
        &format!("{verb} {kind} {folder}/ ({} items)", made.len()),
    )?;
    Ok(true)
}

/// The modes beyond areas and projects; `None` for those.
fn by_mode(ctx: &mut Ctx) -> Result<Option<NativeOutput>, GateError> {
    use requests::ArchitectMode as M;
    let out = match M::from_slug(ctx.mode()) {
        M::CreateMoc => requests::create_moc(ctx)?,
        M::AddTemplate => template::add_template(ctx)?,
        M::SubFolder => requests::sub_folder(ctx)?,
        M::TagTaxonomy => taxonomy::tag_taxonomy(ctx, false)?,
        M::CreateTagTaxonomy => taxonomy::tag_taxonomy(ctx, true)?,
        M::Structure => return Ok(None),
    };
    Ok(Some(out))
}

/// The architect agent: the mode the request asks for, else areas and projects.
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    if let Some(out) = by_mode(ctx)? {
        return Ok(out);
    }
    let mut wanted = requested_paths(ctx, &format!("{}\n{}", ctx.step.task, ctx.step.message));
    let mut parts = Vec::new();
    if wanted.is_empty()
        && let Some((kind, name, named_parts)) = requested_structure(&ctx.step.message)
    {
        wanted.push((kind, name));
        parts = named_parts;
    }
    if wanted.is_empty() {
        match unnamed_structure(ctx) {
            NameRequest::Named(kind, name) => wanted.push((kind, name)),
            NameRequest::Unnamed(kind) => return Ok(ask_for_name(ctx, &kind)),
            NameRequest::Neither => return structure_report(ctx),
        }
    }
    if !may_add_structure(ctx) {
        return Ok(structure_declined(ctx, &wanted));
    }
    let wanted: Vec<(String, String)> = wanted
        .into_iter()
        .map(|(kind, name)| {
            let name = home_name(ctx, &kind, &name);
            (kind, name)
        })
        .collect();
    let propose = requests::to_propose(ctx, &planned_folders(ctx, &wanted, &parts));
    if !propose.is_empty() {
        return Ok(requests::proposal(ctx, &propose));
    }
    let l = ctx.lang;
    let mut out = crate::tr!(l, "architect.heading", date = ctx.today());
    let mut created_any = false;
    let mut homes = Vec::new();
    for (kind, name) in &wanted {
        let mut made = if kind == "area" {
            scaffold_area(ctx, name)?
        } else {
            scaffold_project(ctx, name)?
        };
        let folder = home_folder(ctx, kind, name);
        let existing = leaves(ctx, &folder);
        for p in &parts {
            let p = folders::existing_twin(p, &existing)
                .unwrap_or(p)
                .to_string();
            requests::scaffold_sub_folder(ctx, kind, &folder, &p, &mut made)?;
        }
        homes.push(folder.clone());
        created_any |= report_home(ctx, &mut out, kind, &folder, &made, "scaffolded")?;
    }
    let inbox = ctx.config.folders.inbox.clone();
    let waiting = common::notes_in(&ctx.gate.vault().notes, &inbox).count();
    if created_any
        && waiting > 0
        && ctx
            .step
            .suggested_by
            .as_deref()
            .is_some_and(|s| s == "sorter" || s == "inbox-triage" || s == "scribe")
    {
        ctx.hand_off(suggestion(
            "sorter",
            &format!(
                "the missing home{} now exist{}; notes are waiting in the inbox",
                if homes.len() == 1 { "" } else { "s" },
                if homes.len() == 1 { "s" } else { "" }
            ),
            &homes.join("; "),
        ));
    }
    Ok(NativeOutput {
        postit: format!("last op {}: {}", ctx.today(), homes.join(", ")),
        text: out,
        attention: false,
    })
}

/// Areas missing their `_index.md` or MOC, and the master index's gaps.
fn structure_report(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let f = ctx.config.folders.clone();
    let mut gaps = Vec::new();
    for area in ctx.gate.subdirs(&f.areas) {
        let leaf = area.rsplit('/').next().unwrap_or(&area).to_string();
        if !ctx.gate.exists(&format!("{area}/_index.md")) {
            gaps.push(format!("{area}/ has no _index.md"));
        }
        if !ctx.gate.exists(&format!("{}/{leaf}.md", f.moc)) {
            gaps.push(format!("{area}/ has no MOC ({}/{leaf}.md)", f.moc));
        }
    }
    let l = ctx.lang;
    let mut out = crate::tr!(l, "architect.review.heading", date = ctx.today());
    if gaps.is_empty() {
        out.push_str(&crate::tr!(l, "architect.review.complete"));
    } else {
        for g in &gaps {
            out.push_str(&format!("- {g}\n"));
        }
        out.push_str(&crate::tr!(l, "architect.review.fix"));
    }
    Ok(NativeOutput {
        postit: format!("structure review {}: {} gaps", ctx.today(), gaps.len()),
        attention: !gaps.is_empty(),
        text: out,
    })
}

static AREAS_LIST: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\bareas?\b\s*[:\-]?\s*(.+)$").expect("static regex"));

/// `/onboarding`, non-interactive: the folder skeleton, the Meta documents, the master index,
/// and the areas named in the request ("set up the vault with areas Work, Health and Finance").
pub fn onboarding(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let f = ctx.config.folders.clone();
    let mut made = Vec::new();
    for (_, folder) in f.roles() {
        if !ctx.gate.dir_exists(folder) {
            ctx.gate.mkdir(folder)?;
            made.push(format!("{folder}/"));
        }
    }
    let states = f.states();
    if !ctx.gate.dir_exists(&states) {
        ctx.gate.mkdir(&states)?;
    }
    let index = master_index(ctx);
    let heading = index_heading(ctx);
    ensure_file(ctx, &index, &heading, &mut made)?;
    // answers from the chat interview: the profile and the areas are the user's own
    let interviewed = ctx.chat.answers.clone();
    let mut areas = Vec::new();
    if let Some(answers) = &interviewed {
        areas = onboard::apply(ctx, answers, &mut made)?;
    }
    ensure_file(
        ctx,
        &format!("{}/user-profile.md", f.meta),
        &format!(
            "---\nname: \nprimary-language: en\nonboarding-date: {}\nprofile-version: 1\n---\n# User profile\n\nTell the crew about yourself here; agents read this note first.\n",
            ctx.today()
        ),
        &mut made,
    )?;
    ensure_file(
        ctx,
        &format!("{}/naming-conventions.md", f.meta),
        "# Naming conventions\n\n- Notes: `YYYY-MM-DD — Type — Title.md` (em dash with spaces, title in title case, at most 50 characters).\n- People: `Full Name.md`. Daily notes: `YYYY-MM-DD.md`.\n- Tags: lowercase, hyphenated, nested with `/`.\n",
        &mut made,
    )?;
    let first = ctx.step.message.lines().next().unwrap_or("").to_string();
    if interviewed.is_none()
        && let Some(c) = AREAS_LIST.captures(&first)
        && let Some(m) = c.get(1)
    {
        for part in m.as_str().split([',', ';']).flat_map(|p| p.split(" and ")) {
            let name = common::safe_title(part.trim().trim_matches(['"', '.']), 40);
            if name != "Untitled" {
                areas.push(name);
            }
        }
    }
    if interviewed.is_none() {
        for a in &areas {
            let a = home_name(ctx, "area", a);
            made.extend(scaffold_area(ctx, &a)?);
        }
    }
    if !made.is_empty() {
        common::log_change(ctx, "onboarding", &format!("created {} items", made.len()))?;
    }
    let l = ctx.lang;
    let mut out = crate::tr!(l, "onboarding.heading", date = ctx.today());
    if made.is_empty() {
        out.push_str(&crate::tr!(l, "onboarding.nothing"));
    } else {
        out.push_str(&crate::tr!(l, "onboarding.created", count = made.len()));
        for m in &made {
            out.push_str(&format!("- {m}\n"));
        }
    }
    if interviewed.is_none() {
        out.push_str(&crate::tr!(l, "onboarding.profile_hint", meta = f.meta));
    }
    Ok(NativeOutput {
        postit: format!("onboarding {}: areas {}", ctx.today(), areas.join(", ")),
        text: out,
        attention: false,
    })
}

/// `/manage-agent`: disables, enables or removes a custom agent by asking (planned unless
/// confirmed), else lists the crew.
pub(crate) fn manage_agent(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    if let Some(change) = manage::AgentChange::from_slug(ctx.mode()) {
        return manage::on_request(ctx, change);
    }
    let l = ctx.lang;
    let mut out = crate::tr!(l, "crew.heading");
    for a in &ctx.crew.agents {
        let custom = !crate::crew::Crew::is_core(&a.name);
        let status = ctx
            .crew
            .registry
            .agents
            .iter()
            .find(|r| r.name == a.name)
            .map_or(Status::Active, |r| r.status);
        out.push_str(&format!(
            "| {} | {} | {} | {} |\n",
            a.name,
            if custom {
                crate::tr!(l, "crew.custom")
            } else {
                crate::tr!(l, "crew.core")
            },
            if status == Status::Active {
                crate::tr!(l, "crew.active")
            } else {
                crate::tr!(l, "crew.disabled")
            },
            a.model.label()
        ));
    }
    for r in ctx
        .crew
        .registry
        .agents
        .iter()
        .filter(|r| r.custom && ctx.crew.agent(&r.name).is_none())
    {
        out.push_str(&format!(
            "| {} | custom | removed (row kept) | — |\n",
            r.name
        ));
    }
    out.push_str(&crate::tr!(l, "crew.hint"));
    Ok(NativeOutput {
        postit: "listed the crew".into(),
        text: out,
        attention: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_requested_name() {
        assert_eq!(
            requested_structure("create a new area called Health & Fitness"),
            Some(("area".into(), "Health & Fitness".into(), vec![]))
        );
        assert_eq!(
            requested_structure("new project: Kitchen Renovation!"),
            Some(("project".into(), "Kitchen Renovation".into(), vec![]))
        );
        assert_eq!(
            requested_structure("nuovo progetto Cucina"),
            Some(("project".into(), "Cucina".into(), vec![]))
        );
        assert_eq!(
            requested_structure("create an area for Finance with budget and investments"),
            Some((
                "area".into(),
                "Finance".into(),
                vec!["Budget".into(), "Investments".into()]
            ))
        );
        assert_eq!(requested_structure("restructure"), None);
    }
}
