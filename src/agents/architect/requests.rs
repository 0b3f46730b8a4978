//! The architect's modes beyond areas and projects (`agents/architect.md`, `## Modes`): a MOC
//! for a topic, a sub-folder inside an existing home, and the rule that new folders in a
//! vault that keeps its own layout are proposed with the command that makes them.

use std::collections::{BTreeMap, BTreeSet};

use super::request;
use super::{folders, leaves, slug};
use crate::agents::common::{self, fold};
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;
use crate::text::normalize;

/// The architect's modes, from the slug the dispatcher chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ArchitectMode {
    /// Areas and projects, or the structure review.
    Structure,
    CreateMoc,
    AddTemplate,
    SubFolder,
    TagTaxonomy,
    CreateTagTaxonomy,
}

impl ArchitectMode {
    pub(crate) fn from_slug(slug: Option<&str>) -> ArchitectMode {
        match slug {
            Some("create-moc") => ArchitectMode::CreateMoc,
            Some("add-template") => ArchitectMode::AddTemplate,
            Some("sub-folder") => ArchitectMode::SubFolder,
            Some("tag-taxonomy") => ArchitectMode::TagTaxonomy,
            Some("create-tag-taxonomy") => ArchitectMode::CreateTagTaxonomy,
            _ => ArchitectMode::Structure,
        }
    }
}

/// Whether the user confirmed the change (`--yes`, or `--fix`).
pub(crate) fn confirmed(ctx: &Ctx) -> bool {
    ctx.confirmed || ctx.apply
}

/// The command that runs this request again, confirmed.
pub(crate) fn apply_command(ctx: &Ctx) -> String {
    crate::shell::crew(&["ask", "--agent", "architect", "--yes", &ctx.step.message])
}

/// The folders of `wanted` that would go inside a folder of the user's own tree: the vault
/// was adopted, the folder is new, and its parent is an existing folder other than the vault
/// root. crew makes its own missing roots when asked; inside the user's folders it proposes.
pub(crate) fn to_propose(ctx: &Ctx, wanted: &[String]) -> Vec<String> {
    if !ctx.config.adopted || confirmed(ctx) {
        return Vec::new();
    }
    wanted
        .iter()
        .filter(|f| !ctx.gate.dir_exists(f))
        .filter(|f| {
            let parent = f.rsplit_once('/').map_or("", |(p, _)| p);
            // a parent made earlier in the same request is new too
            !parent.is_empty()
                && (ctx.gate.dir_exists(parent) || wanted.iter().any(|w| w == parent))
        })
        .cloned()
        .collect()
}

/// The answer that proposes new folders instead of making them.
pub(crate) fn proposal(ctx: &Ctx, folders: &[String]) -> NativeOutput {
    let l = ctx.lang;
    let mut text = crate::tr!(l, "architect.proposal", date = ctx.today());
    for f in folders {
        text.push_str(&format!("- `{f}/`\n"));
    }
    text.push_str(&crate::tr!(
        l,
        "architect.proposal.apply",
        command = apply_command(ctx)
    ));
    NativeOutput {
        text,
        postit: format!("proposed {} on {}", folders.join(", "), ctx.today()),
        attention: false,
    }
}

/// The existing home `name` means, `(kind, folder)`: an area, then a project, of that name
/// in any case or spacing; else any folder of the vault of that name (the user's own tree).
pub(crate) fn find_home(ctx: &Ctx, name: &str) -> Option<(String, String)> {
    let f = &ctx.config.folders;
    for (root, kind) in [(&f.areas, "area"), (&f.projects, "project")] {
        if let Some(leaf) = folders::existing_twin(name, &leaves(ctx, root)) {
            return Some((kind.to_string(), format!("{root}/{leaf}")));
        }
    }
    let mut all = Vec::new();
    common::folders_under(ctx, "", 4, &mut all);
    all.sort_by_key(|d| d.matches('/').count());
    let leaves: Vec<String> = all
        .iter()
        .map(|d| d.rsplit('/').next().unwrap_or(d).to_string())
        .collect();
    let leaf = folders::existing_twin(name, &leaves)?;
    let at = leaves.iter().position(|l| l == leaf)?;
    Some(("folder".to_string(), all[at].clone()))
}

/// A folder inside `parent` with its `_index.md`, linked from the parent's `_index.md` when
/// it has one. Never overwrites.
pub(crate) fn scaffold_sub_folder(
    ctx: &mut Ctx,
    kind: &str,
    parent: &str,
    child: &str,
    made: &mut Vec<String>,
) -> Result<String, GateError> {
    let folder = format!("{parent}/{child}");
    if !ctx.gate.dir_exists(&folder) {
        ctx.gate.mkdir(&folder)?;
        made.push(format!("{folder}/"));
    }
    let parent_leaf = parent.rsplit('/').next().unwrap_or(parent);
    let tag = format!("{kind}/{}/{}", slug(parent_leaf), slug(child));
    super::ensure_file(
        ctx,
        &format!("{folder}/_index.md"),
        &format!(
            "---\ntype: {kind}\ndate: {}\ntags: [{kind}, {tag}]\nstatus: active\n---\n# {child}\n\nPart of [[{parent}/_index|{parent_leaf}]].\n\n## Notes\n",
            ctx.today()
        ),
        made,
    )?;
    let parent_index = format!("{parent}/_index.md");
    let line = format!("- [[{folder}/_index|{child}]]");
    if let Some(text) = ctx.gate.read_text(&parent_index)
        && !text.contains(&format!("[[{folder}/_index"))
    {
        let updated = crate::agents::moc::insert_under_heading(
            &text,
            &["## sub-areas", "## sub-folders", "## subfolders"],
            "## Sub-folders",
            &line,
        );
        ctx.gate.write(&parent_index, updated.as_bytes())?;
        let note = format!("{parent_index} (updated)");
        if !made.contains(&note) {
            made.push(note);
        }
    }
    Ok(folder)
}

/// "a sub-folder Receipts in Finance": the folder inside the existing home, proposed in a
/// vault that keeps its own layout; a home that does not exist is named, with the command
/// that creates it.
pub(crate) fn sub_folder(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let l = ctx.lang;
    let first = ctx.step.message.lines().next().unwrap_or("").to_string();
    let Some((child, parent)) = request::sub_folder(&first) else {
        return Ok(NativeOutput {
            text: crate::tr!(l, "architect.sub.which", date = ctx.today()),
            postit: "asked which sub-folder to make".into(),
            attention: false,
        });
    };
    let child = common::safe_title(&child, 60);
    let Some((kind, home)) = find_home(ctx, &parent) else {
        let command = crate::shell::crew(&[
            "ask",
            "--agent",
            "architect",
            &format!(
                "create an area for {} with {child}",
                common::capitalized(&parent)
            ),
        ]);
        return Ok(NativeOutput {
            text: crate::tr!(
                l,
                "architect.sub.missing",
                date = ctx.today(),
                parent = parent,
                child = child,
                command = command
            ),
            postit: format!("no home {parent} for sub-folder {child}"),
            attention: false,
        });
    };
    let existing = leaves(ctx, &home);
    let child = folders::existing_twin(&child, &existing)
        .unwrap_or(&child)
        .to_string();
    let folder = format!("{home}/{child}");
    let propose = to_propose(ctx, std::slice::from_ref(&folder));
    if !propose.is_empty() {
        return Ok(proposal(ctx, &propose));
    }
    let mut made = Vec::new();
    scaffold_sub_folder(ctx, &kind, &home, &child, &mut made)?;
    let mut text = crate::tr!(l, "architect.heading", date = ctx.today());
    super::report_home(ctx, &mut text, &kind, &folder, &made, "made sub-folder")?;
    Ok(NativeOutput {
        text,
        postit: format!("last op {}: {folder}", ctx.today()),
        attention: false,
    })
}

/// The note of `folder` that `title` names once case, spacing and a plural `s` are ignored
/// ("book" names `Books.md`), or the file at its exact path.
pub(crate) fn existing_note(ctx: &Ctx, folder: &str, title: &str) -> Option<String> {
    let prefix = format!("{folder}/");
    let want = fold(title);
    let plural = format!("{want}s");
    let path = format!("{folder}/{title}.md");
    ctx.gate
        .vault()
        .notes
        .iter()
        .filter(|n| n.path.starts_with(&prefix))
        .find(|n| {
            let name = fold(n.name());
            name == want || name == plural
        })
        .map(|n| n.path.clone())
        .or_else(|| ctx.gate.exists(&path).then_some(path))
}

/// The words a topic is known by: each word of it, and its singular when it ends in `s`.
fn topic_forms(topic: &str) -> Vec<String> {
    let n = normalize(topic);
    let mut out = vec![fold(&n)];
    if let Some(stem) = n.strip_suffix('s').filter(|s| s.chars().count() > 2) {
        out.push(fold(stem));
    }
    out
}

/// Whether a folded word is one of the topic's forms, plural included.
fn is_topic(word: &str, forms: &[String]) -> bool {
    let w = fold(word);
    !w.is_empty()
        && forms
            .iter()
            .any(|f| w == *f || w.strip_suffix('s').is_some_and(|s| s == f))
}

/// The notes about a topic, with why: its tag (or a segment of a nested one), a folder of
/// that name, a title that holds it, a link to or from the topic's own note; then the notes
/// that mention it in their text (by search).
fn notes_about(ctx: &Ctx, topic: &str, skip: &str) -> (Vec<usize>, Vec<usize>) {
    let f = &ctx.config.folders;
    let vault = ctx.gate.vault();
    let forms = topic_forms(topic);
    let topic_words = normalize(topic);
    let left_out = |p: &str| {
        p == skip
            || p.starts_with(&format!("{}/", f.templates))
            || p.starts_with(&format!("{}/", f.meta))
    };
    let own: BTreeSet<usize> = vault
        .notes
        .iter()
        .enumerate()
        .filter(|(_, n)| is_topic(n.name(), &forms))
        .map(|(i, _)| i)
        .collect();
    let mut about = BTreeSet::new();
    for (i, n) in vault.notes.iter().enumerate() {
        if left_out(&n.path) {
            continue;
        }
        let tagged = n
            .tags
            .iter()
            .any(|t| t.split('/').any(|seg| is_topic(seg, &forms)));
        let foldered = n
            .path
            .rsplit_once('/')
            .is_some_and(|(dir, _)| dir.split('/').any(|seg| is_topic(seg, &forms)));
        let title = normalize(n.name());
        let titled = title.split_whitespace().any(|w| is_topic(w, &forms))
            || (topic_words.contains(' ') && title.contains(&topic_words));
        let linked = vault.resolved[i]
            .iter()
            .filter_map(|r| r.file().and_then(|id| vault.note_of_file(id)))
            .any(|t| own.contains(&t));
        if tagged || foldered || titled || linked || own.contains(&i) {
            about.insert(i);
        }
    }
    for &o in &own {
        for t in vault.resolved[o]
            .iter()
            .filter_map(|r| r.file().and_then(|id| vault.note_of_file(id)))
        {
            if !left_out(&vault.notes[t].path) {
                about.insert(t);
            }
        }
    }
    let mut q = crate::analysis::search::parse_query(topic);
    crate::analysis::search::strip_intent(&mut q);
    let today = ctx.now.date();
    let mut mentioned = Vec::new();
    if !q.terms.is_empty() {
        for hit in crate::analysis::search::search(vault, &*ctx.gate, f, &q, 30, today) {
            if let Some(i) = vault.notes.iter().position(|n| n.path == hit.path)
                && !about.contains(&i)
                && !left_out(&hit.path)
                && !mentioned.contains(&i)
            {
                mentioned.push(i);
            }
        }
    }
    (about.into_iter().collect(), mentioned)
}

/// `[[name]]`, or `[[path|name]]` when another note has the same name.
fn link_line(vault: &crate::vault::Vault, i: usize, names: &BTreeMap<String, usize>) -> String {
    let n = &vault.notes[i];
    let name = n.name();
    if names.get(&name.to_lowercase()).copied().unwrap_or(0) > 1 {
        let target = n.path.strip_suffix(".md").unwrap_or(&n.path);
        format!("- [[{target}|{name}]]\n")
    } else {
        format!("- [[{name}]]\n")
    }
}

/// "create a MOC for Recipes": a map of content in the MOC folder listing the notes about the
/// topic. An existing MOC of that name is left as it is.
pub(crate) fn create_moc(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let l = ctx.lang;
    let first = ctx.step.message.lines().next().unwrap_or("").to_string();
    let Some(topic) = request::moc_topic(&first) else {
        return Ok(NativeOutput {
            text: crate::tr!(l, "architect.moc.which", date = ctx.today()),
            postit: "asked which topic to map".into(),
            attention: false,
        });
    };
    let title = common::safe_title(&common::capitalized(&topic), 60);
    let dir = ctx.config.folders.moc.clone();
    let path = format!("{dir}/{title}.md");
    if let Some(existing) = existing_note(ctx, &dir, &title) {
        return Ok(NativeOutput {
            text: crate::tr!(
                l,
                "architect.moc.exists",
                date = ctx.today(),
                path = existing
            ),
            postit: format!("MOC {existing} exists; left as it is"),
            attention: false,
        });
    }
    let (about, mentioned) = notes_about(ctx, &topic, &path);
    let vault = ctx.gate.vault();
    let mut names: BTreeMap<String, usize> = BTreeMap::new();
    for n in &vault.notes {
        *names.entry(n.name().to_lowercase()).or_default() += 1;
    }
    let by_name = |list: &[usize]| {
        let mut v = list.to_vec();
        v.sort_by_key(|&i| vault.notes[i].name().to_lowercase());
        v.iter()
            .map(|&i| link_line(vault, i, &names))
            .collect::<String>()
    };
    let mut text = format!(
        "---\ntype: moc\ndate: {}\ntags: [moc, {}]\n---\n# {title} — Map of Content\n\n## Notes\n{}",
        ctx.today(),
        slug(&title),
        by_name(&about)
    );
    if !mentioned.is_empty() {
        text.push_str(&format!("\n## Mentioned in\n{}", by_name(&mentioned)));
    }
    let index = super::master_index(ctx);
    let has_index = ctx.gate.exists(&index);
    if has_index {
        text.push_str(&format!(
            "\n## Related MOCs\n- [[{dir}/Index|Master Index]]\n"
        ));
    }
    let count = about.len() + mentioned.len();
    let made = ctx.gate.create(&path, text.as_bytes())?;
    if has_index {
        let target = made.strip_suffix(".md").unwrap_or(&made).to_string();
        let heading = super::index_heading(ctx);
        let mut also = Vec::new();
        super::add_line_if_missing(
            ctx,
            &index,
            &heading,
            &format!("[[{target}|"),
            &format!("- [[{target}|{title}]]"),
            &mut also,
        )?;
    }
    common::log_change(
        ctx,
        "architect",
        &format!("created MOC {made} ({count} notes)"),
    )?;
    if count == 0 {
        ctx.hand_off(common::suggestion(
            "connector",
            "the new MOC lists no notes yet",
            &made,
        ));
    }
    Ok(NativeOutput {
        text: crate::tr!(
            l,
            "architect.moc.created",
            date = ctx.today(),
            path = made,
            topic = title,
            count = count
        ),
        postit: format!("created MOC {made} on {}", ctx.today()),
        attention: false,
    })
}
