//! The sorter and `/inbox-triage`: file every inbox note where it belongs, with evidence.

use std::collections::{BTreeMap, BTreeSet};

use super::common::{self, fold, link_value_name, suggestion};
use super::filing::{self, Learned};
use super::{Ctx, NativeOutput};
use crate::gate::GateError;
use crate::vault::Note;
use crate::vault::edit::yaml_scalar;

/// One filing decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// Where the note goes; `None`: it stays.
    pub dest: Option<String>,
    pub confidence: u32,
    pub evidence: String,
    /// A home the note names that does not exist yet (for the architect).
    pub missing: Option<String>,
}

#[derive(Debug, Clone)]
struct Candidate {
    folder: String,
    confidence: u32,
    evidence: String,
}

/// Folders a note can be filed into: project folders, area folders (two levels) and
/// resource topics, as they exist now.
fn homes(ctx: &Ctx) -> Vec<String> {
    let f = &ctx.config.folders;
    let mut out = Vec::new();
    for root in [&f.projects, &f.areas, &f.resources] {
        for d in ctx.gate.subdirs(root) {
            out.push(d.clone());
            if root == &f.areas {
                out.extend(ctx.gate.subdirs(&d));
            }
        }
    }
    out
}

fn last_segment(folder: &str) -> &str {
    folder.rsplit('/').next().unwrap_or(folder)
}

/// The filing home of a note elsewhere in the vault: its folder when that is inside projects,
/// areas or resources.
fn home_of(ctx: &Ctx, path: &str) -> Option<String> {
    let f = &ctx.config.folders;
    let folder = path.rsplit_once('/').map(|(d, _)| d)?;
    [&f.projects, &f.areas, &f.resources]
        .iter()
        .any(|r| folder.starts_with(&format!("{r}/")))
        .then(|| folder.to_string())
}

fn find_home<'a>(homes: &'a [String], under: &str, name: &str) -> Option<&'a String> {
    let want = fold(name);
    homes
        .iter()
        .filter(|h| h.starts_with(&format!("{under}/")))
        .find(|h| fold(last_segment(h)) == want)
}

/// When explicit evidence (`project:`, `area:`, `type:`, tags, links, title) found no home:
/// what the vault's filed notes teach (`learned`), filed only when its calibrated margin is
/// reached.
pub fn learned_decision(
    ctx: &Ctx,
    note_idx: usize,
    explicit: Decision,
    learned: Option<&Learned>,
) -> Decision {
    let Some(learned) = learned else {
        return explicit;
    };
    let path = &ctx.gate.vault().notes[note_idx].path;
    let Some(text) = ctx.gate.read_text(path) else {
        return explicit;
    };
    let guess = learned.guess(ctx.gate.vault(), note_idx, &text);
    match guess.best() {
        Some(best) if learned.sure(&guess) => Decision {
            dest: Some(best.folder.clone()),
            confidence: (best.score * 100.0).round() as u32,
            evidence: format!(
                "like the notes there ({:.2}, margin {:.2}): {}",
                best.score,
                guess.margin,
                best.evidence.join(", ")
            ),
            missing: None,
        },
        _ => Decision {
            evidence: filing::unsure_reason(&guess),
            ..explicit
        },
    }
}

/// Decides where one inbox note goes from explicit evidence alone.
pub fn decide(ctx: &Ctx, note_idx: usize, homes: &[String]) -> Decision {
    let vault = ctx.gate.vault();
    let note = &vault.notes[note_idx];
    let f = &ctx.config.folders;
    let mut cands: Vec<Candidate> = Vec::new();
    let mut missing: Option<String> = None;

    if let Some(p) = note.property_str("project") {
        let name = link_value_name(&p);
        if !name.is_empty() {
            match find_home(homes, &f.projects, &name) {
                Some(h) => cands.push(Candidate {
                    folder: h.clone(),
                    confidence: 95,
                    evidence: format!("project: [[{name}]]"),
                }),
                None => missing = Some(format!("{}/{}", f.projects, common::safe_title(&name, 60))),
            }
        }
    }
    if let Some(a) = note.property_str("area") {
        let name = link_value_name(&a);
        if !name.is_empty() {
            match find_home(homes, &f.areas, &name) {
                Some(h) => cands.push(Candidate {
                    folder: h.clone(),
                    confidence: 90,
                    evidence: format!("area: {name}"),
                }),
                None => {
                    missing.get_or_insert_with(|| {
                        format!("{}/{}", f.areas, common::safe_title(&name, 60))
                    });
                }
            }
        }
    }
    let kind = note.property_str("type").unwrap_or_default().to_lowercase();
    let typed = |folder: &str, conf: u32, ev: String| Candidate {
        folder: folder.to_string(),
        confidence: conf,
        evidence: ev,
    };
    match kind.as_str() {
        "meeting" => {
            let date = note
                .property_str("date")
                .and_then(|d| common::parse_date(&d))
                .unwrap_or_else(|| ctx.now.date());
            if ctx.gate.dir_exists(&f.meetings) {
                cands.push(typed(
                    &format!("{}/{}", f.meetings, date.format("%Y/%m")),
                    85,
                    "type: meeting".into(),
                ));
            } else {
                missing.get_or_insert_with(|| f.meetings.clone());
            }
        }
        "person" | "person-note" => {
            if ctx.gate.dir_exists(&f.people) {
                cands.push(typed(&f.people, 90, format!("type: {kind}")));
            } else {
                missing.get_or_insert_with(|| f.people.clone());
            }
        }
        "daily" if ctx.gate.dir_exists(&f.daily) => {
            cands.push(typed(&f.daily, 90, "type: daily".into()));
        }
        "moc" => cands.push(typed(&f.moc, 90, "type: moc".into())),
        "reference" if ctx.gate.dir_exists(&f.resources) => {
            cands.push(typed(&f.resources, 60, "type: reference".into()));
        }
        _ => {}
    }
    // tags naming an existing project, area or resource topic (`#area/health` names Health)
    for tag in note.tags_normalized() {
        let leaf = tag.rsplit('/').next().unwrap_or(&tag);
        for h in homes {
            if fold(last_segment(h)) == fold(leaf) && fold(leaf).len() >= 3 {
                let conf = if h.starts_with(&format!("{}/", f.resources)) {
                    70
                } else {
                    75
                };
                cands.push(Candidate {
                    folder: h.clone(),
                    confidence: conf,
                    evidence: format!("tag #{tag}"),
                });
            }
        }
    }
    // where the notes it links to, and that link to it, live
    let mut by_home: BTreeMap<String, usize> = BTreeMap::new();
    let mut related: BTreeSet<usize> = BTreeSet::new();
    for r in &vault.resolved[note_idx] {
        if let Some(n) = r.file().and_then(|id| vault.note_of_file(id)) {
            related.insert(n);
        }
    }
    for (src, _) in vault.links_to(note_idx) {
        related.insert(src);
    }
    for n in related {
        if n == note_idx {
            continue;
        }
        if let Some(h) = home_of(ctx, &vault.notes[n].path) {
            *by_home.entry(h).or_default() += 1;
        }
    }
    let total: usize = by_home.values().sum();
    if let Some((h, &count)) = by_home
        .iter()
        .max_by_key(|(h, c)| (**c, std::cmp::Reverse((*h).clone())))
        && (count * 2 > total || count >= 3)
    {
        let conf = (55 + 10 * count as u32).min(85);
        cands.push(Candidate {
            folder: h.clone(),
            confidence: conf,
            evidence: format!(
                "links to {count} note{} there",
                if count == 1 { "" } else { "s" }
            ),
        });
    }
    // title words naming a project or area
    let title = format!(" {} ", crate::dispatch::normalize::normalize(note.name()));
    for h in homes {
        if h.starts_with(&format!("{}/", f.resources)) {
            continue;
        }
        let seg = crate::dispatch::normalize::normalize(last_segment(h));
        if seg.chars().count() >= 4 && title.contains(&format!(" {seg} ")) {
            cands.push(Candidate {
                folder: h.clone(),
                confidence: 65,
                evidence: format!("title names {}", last_segment(h)),
            });
        }
    }

    // strongest evidence wins; agreeing evidence adds up; a tie between homes is not decided
    let mut score: BTreeMap<String, (u32, Vec<String>)> = BTreeMap::new();
    for c in &cands {
        let e = score.entry(c.folder.clone()).or_insert((0, Vec::new()));
        e.0 = if e.0 == 0 {
            c.confidence
        } else {
            (e.0.max(c.confidence) + 5).min(99)
        };
        if !e.1.contains(&c.evidence) {
            e.1.push(c.evidence.clone());
        }
    }
    let mut ranked: Vec<(String, u32, Vec<String>)> =
        score.into_iter().map(|(k, (c, e))| (k, c, e)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let threshold = ctx.config.triage_confidence;
    match ranked.as_slice() {
        [] => Decision {
            dest: None,
            confidence: 0,
            evidence: match &missing {
                Some(m) => format!("its home {m} does not exist yet"),
                None => "no project, area, type, tag or link points to a home".into(),
            },
            missing,
        },
        [first, second, ..] if first.1 == second.1 && first.1 >= threshold => Decision {
            dest: None,
            confidence: first.1,
            evidence: format!(
                "two homes fit equally: {} ({}) and {} ({}); add `project:` or `area:`",
                first.0,
                first.2.join(", "),
                second.0,
                second.2.join(", ")
            ),
            missing: None,
        },
        [first, ..] if first.1 < threshold => Decision {
            dest: None,
            confidence: first.1,
            evidence: format!(
                "only weak evidence for {} ({}; confidence {} < {threshold})",
                first.0,
                first.2.join(", "),
                first.1
            ),
            missing,
        },
        [first, ..] => Decision {
            dest: Some(first.0.clone()),
            confidence: first.1,
            evidence: first.2.join(", "),
            missing: None,
        },
    }
}

struct Filed {
    title: String,
    from: String,
    to: String,
    evidence: String,
}

/// The map a filing home feeds, `(path, exists)`. crew's own layout keeps `MOC/<name>.md`
/// beside each area's `_index.md`. A vault with its own layout is served in its own terms:
/// the folder's folder note, then an existing MOC of that name (`MOC/<name>.md`, or a note
/// typed or tagged `moc`); a new `MOC/<name>.md` only where the vault has a MOC folder.
fn moc_for(ctx: &Ctx, folder: &str) -> Option<(String, bool)> {
    let moc_dir = &ctx.config.folders.moc;
    let in_moc_dir = format!("{moc_dir}/{}.md", last_segment(folder));
    if ctx.gate.exists(&in_moc_dir) {
        return Some((in_moc_dir, true));
    }
    if ctx.crew.owns_layout() {
        return Some((in_moc_dir, false));
    }
    let vault = ctx.gate.vault();
    let notes = vault.notes.iter().map(|n| n.path.as_str());
    if let Some(p) = crate::vault::folder_note::find(folder, notes) {
        return Some((p.to_string(), true));
    }
    let want = fold(last_segment(folder));
    let tagged = vault.notes.iter().find(|n| {
        let name = fold(n.name());
        (name == want || name == format!("{want}moc"))
            && (n
                .property_str("type")
                .is_some_and(|t| t.eq_ignore_ascii_case("moc"))
                || n.tags_normalized().iter().any(|t| t == "moc"))
    });
    if let Some(n) = tagged {
        return Some((n.path.clone(), true));
    }
    ctx.gate.dir_exists(moc_dir).then_some((in_moc_dir, false))
}

/// Adds the notes just filed in `folder` (their paths) to its MOC, in one edit; creates the
/// MOC when the folder has 3 notes or more.
fn update_moc(
    ctx: &mut Ctx,
    folder: &str,
    note_paths: &[String],
) -> Result<Option<String>, GateError> {
    let Some((moc, exists)) = moc_for(ctx, folder) else {
        return Ok(None);
    };
    if exists {
        let text = ctx.gate.read_text(&moc).unwrap_or_default();
        let mut lines: Vec<String> = Vec::new();
        for path in note_paths {
            let name = path
                .rsplit('/')
                .next()
                .unwrap_or(path)
                .trim_end_matches(".md");
            let listed = text.contains(&format!("[[{name}]]"))
                || text.contains(&format!("[[{name}|"))
                || lines.iter().any(|l| l == &format!("- [[{name}]]"));
            if !listed {
                lines.push(format!("- [[{name}]]"));
            }
        }
        if lines.is_empty() {
            return Ok(None);
        }
        ctx.gate.edit(&moc, "MOC: add filed notes", |t| {
            lines
                .iter()
                .fold(t.to_string(), |text, line| insert_under_notes(&text, line))
        })?;
        return Ok(Some(moc));
    }
    let members: Vec<String> = common::notes_in(&ctx.gate.vault().notes, folder)
        .filter(|(_, n)| n.name() != "_index")
        .map(|(_, n)| n.name().to_string())
        .collect();
    if members.len() < 3 {
        return Ok(None);
    }
    let topic = last_segment(folder);
    let list: String = members.iter().map(|m| format!("- [[{m}]]\n")).collect();
    // link the master index only when there is one: crew never creates a dangling link
    let index = format!("{}/Index", ctx.config.folders.moc);
    let related = if ctx.gate.exists(&format!("{index}.md")) {
        format!("\n## Related MOCs\n- [[{index}|Master Index]]\n")
    } else {
        String::new()
    };
    let body = format!(
        "---\ntype: moc\ntags: [moc, topic]\nupdated: {}\n---\n# {topic} — Map of Content\n\n## Overview\nNotes filed in `{folder}/`.\n\n## Notes\n{list}{related}",
        ctx.today(),
    );
    let path = ctx.gate.create(&moc, body.as_bytes())?;
    Ok(Some(path))
}

/// Notes filed before their MOCs are brought up to date: a run stopped in between leaves at
/// most this many filed notes not yet listed in their MOC.
const MOC_BATCH: usize = 64;

fn flush_mocs(
    ctx: &mut Ctx,
    pending: &mut Vec<(String, Vec<String>)>,
    mocs: &mut BTreeSet<String>,
) -> Result<(), GateError> {
    for (folder, paths) in pending.drain(..) {
        if let Some(m) = update_moc(ctx, &folder, &paths)? {
            mocs.insert(m);
        }
    }
    Ok(())
}

/// Inserts a list line at the end of the `## Notes` section (or at the end of the text).
pub fn insert_under_notes(text: &str, line: &str) -> String {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut at = None;
    let mut in_notes = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim();
        if t.starts_with("## ") {
            if in_notes {
                at = Some(i);
                break;
            }
            in_notes = t.eq_ignore_ascii_case("## notes") || t.eq_ignore_ascii_case("## key notes");
        }
    }
    if in_notes && at.is_none() {
        at = Some(lines.len());
    }
    let mut out = String::new();
    match at {
        Some(mut i) => {
            // before blank lines that end the section
            while i > 0 && lines[i - 1].trim().is_empty() {
                i -= 1;
            }
            for l in &lines[..i] {
                out.push_str(l);
            }
            if !out.ends_with('\n') && !out.is_empty() {
                out.push('\n');
            }
            out.push_str(line);
            out.push('\n');
            for l in &lines[i..] {
                out.push_str(l);
            }
        }
        None => {
            out.push_str(text);
            if !out.ends_with('\n') && !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("\n## Notes\n{line}\n"));
        }
    }
    out
}

/// `/inbox-triage`: file the inbox.
pub fn inbox_triage(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    triage(ctx, "inbox-triage")
}

/// The sorter agent: triage, or one of its modes (project pulse, priority triage).
pub fn run(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    if ctx.asks(&[
        "project pulse",
        "pulse",
        "project activity",
        "which projects are active",
        "polso dei progetti",
    ]) {
        return Ok(project_pulse(ctx));
    }
    if ctx.asks(&[
        "priority triage",
        "urgent first",
        "what needs attention",
        "priority",
    ]) {
        return Ok(priority_triage(ctx));
    }
    if ctx.asks(&["smart batch", "batch sort", "batch"]) {
        return smart_batch(ctx);
    }
    triage(ctx, "sorter")
}

/// Groups inbox notes that belong together: linked to each other, naming the same project or
/// area, linking to the same person, or dated the same day. Returns clusters of 2+ notes as
/// (paths, reasons), largest first.
pub fn clusters(ctx: &Ctx) -> Vec<(Vec<String>, Vec<String>)> {
    fn find(p: &mut [usize], x: usize) -> usize {
        let mut r = x;
        while p[r] != r {
            r = p[r];
        }
        p[x] = r;
        r
    }
    fn join(p: &mut [usize], r: &mut [BTreeSet<String>], a: usize, b: usize, why: &str) {
        r[a].insert(why.to_string());
        r[b].insert(why.to_string());
        let (ra, rb) = (find(p, a), find(p, b));
        if ra != rb {
            p[ra] = rb;
        }
    }
    let vault = ctx.gate.vault();
    let idx = inbox_notes(ctx);
    let mut parent: Vec<usize> = (0..idx.len()).collect();
    let mut reasons: Vec<BTreeSet<String>> = vec![BTreeSet::new(); idx.len()];
    let people = format!("{}/", ctx.config.folders.people);
    let mut keys: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (k, &i) in idx.iter().enumerate() {
        let n = &vault.notes[i];
        for key in ["project", "area"] {
            if let Some(v) = n.property_str(key) {
                keys.entry(format!("{key}: {}", link_value_name(&v)))
                    .or_default()
                    .push(k);
            }
        }
        if let Some(d) = n.property_str("date").and_then(|d| common::parse_date(&d)) {
            keys.entry(format!("same day {d}")).or_default().push(k);
        }
        for r in &vault.resolved[i] {
            if let Some(t) = r.file().and_then(|f| vault.note_of_file(f)) {
                if vault.notes[t].path.starts_with(&people) {
                    keys.entry(format!("mention [[{}]]", vault.notes[t].name()))
                        .or_default()
                        .push(k);
                }
                if let Some(other) = idx.iter().position(|&x| x == t)
                    && other != k
                {
                    join(&mut parent, &mut reasons, k, other, "linked to each other");
                }
            }
        }
    }
    for (why, members) in &keys {
        for w in members.windows(2) {
            join(&mut parent, &mut reasons, w[0], w[1], why);
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for k in 0..idx.len() {
        let root = find(&mut parent, k);
        groups.entry(root).or_default().push(k);
    }
    let mut out: Vec<(Vec<String>, Vec<String>)> = groups
        .into_values()
        .filter(|g| g.len() >= 2)
        .map(|g| {
            let why: BTreeSet<String> =
                g.iter().flat_map(|&k| reasons[k].iter().cloned()).collect();
            (
                g.iter()
                    .map(|&k| vault.notes[idx[k]].path.clone())
                    .collect(),
                why.into_iter().collect(),
            )
        })
        .collect();
    out.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
    out
}

fn stem_of(path: &str) -> String {
    path.rsplit('/')
        .next()
        .unwrap_or(path)
        .trim_end_matches(".md")
        .to_string()
}

/// Smart batch: show the clusters, cross-link them when asked to apply, then file the inbox.
fn smart_batch(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let groups = clusters(ctx);
    let apply = ctx.apply || ctx.asks(&["apply", "cross link", "link them"]);
    let mut head = format!(
        "## Smart batch — {} cluster{}\n\n",
        groups.len(),
        if groups.len() == 1 { "" } else { "s" }
    );
    for (n, (paths, why)) in groups.iter().enumerate() {
        head.push_str(&format!(
            "### Cluster {} ({} notes: {})\n",
            n + 1,
            paths.len(),
            why.join("; ")
        ));
        for p in paths {
            head.push_str(&format!("- {}\n", stem_of(p)));
        }
        head.push('\n');
        if !apply {
            continue;
        }
        for p in paths {
            let text = ctx.gate.read_text(p).unwrap_or_default();
            let missing: Vec<String> = paths
                .iter()
                .filter(|o| *o != p)
                .map(|o| stem_of(o))
                .filter(|o| !text.contains(&format!("[[{o}")))
                .collect();
            if missing.is_empty() {
                continue;
            }
            let section: String = missing.iter().map(|o| format!("- [[{o}]]\n")).collect();
            ctx.gate
                .edit(p, "smart batch: cross-link the cluster", |t| {
                    let mut s = t.to_string();
                    if !s.ends_with('\n') {
                        s.push('\n');
                    }
                    s.push_str(&format!("\n## Related\n{section}"));
                    s
                })?;
            common::log_change(ctx, "sorter", &format!("cross-linked {p} with its batch"))?;
        }
    }
    if !groups.is_empty() && !apply {
        head.push_str(
            "Say \"smart batch and apply\" to cross-link each cluster before filing.\n\n",
        );
    }
    let mut filed = triage(ctx, "sorter")?;
    filed.text = format!("{head}{}", filed.text);
    Ok(filed)
}

fn inbox_notes(ctx: &Ctx) -> Vec<usize> {
    let inbox = ctx.config.folders.inbox.clone();
    let vault = ctx.gate.vault();
    let mut idx: Vec<usize> = common::notes_in(&vault.notes, &inbox)
        .filter(|(_, n)| !ctx.hold.iter().any(|h| h.eq_ignore_ascii_case(&n.path)))
        // the inbox's own folder note is its map, not an item to file
        .filter(|(_, n)| !crate::vault::folder_note::is_inside_folder_note(&n.path))
        .map(|(i, _)| i)
        .collect();
    // oldest first
    idx.sort_by_key(|&i| {
        (
            common::last_touched(&vault.notes[i]),
            vault.notes[i].path.clone(),
        )
    });
    idx
}

fn triage(ctx: &mut Ctx, label: &str) -> Result<NativeOutput, GateError> {
    let inbox = ctx.config.folders.inbox.clone();
    if !ctx.gate.dir_exists(&inbox) {
        return Ok(NativeOutput {
            text: format!(
                "There is no inbox folder `{inbox}/` in this vault. Create it, or map the inbox role to your folder in `.crew/config.yaml` (`crew init --adopt` detects it).\n{}",
                suggestion(
                    "architect",
                    "the vault has no inbox folder",
                    &format!("create {inbox}/ or map the inbox role")
                )
            ),
            postit: "no inbox folder".into(),
            attention: true,
        });
    }
    let rename = ctx.asks(&[
        "rename",
        "naming convention",
        "rinomina",
        "renommer",
        "renombrar",
        "umbenennen",
        "renomear",
    ]);
    let homes = homes(ctx);
    let queue: Vec<String> = inbox_notes(ctx)
        .into_iter()
        .map(|i| ctx.gate.vault().notes[i].path.clone())
        .collect();
    // the vault's own filed notes are the examples: learned once per run, when the first
    // note without explicit evidence needs them
    let mut learned: Option<Option<Learned>> = None;
    let mut filed: Vec<Filed> = Vec::new();
    let mut left: Vec<(String, String)> = Vec::new();
    let mut missing: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut mocs: BTreeSet<String> = BTreeSet::new();
    let mut renamed_to_free: Vec<String> = Vec::new();
    let mut pending_mocs: Vec<(String, Vec<String>)> = Vec::new();
    let mut pending_count = 0;
    let today = ctx.today();

    for path in queue {
        let Some(i) = ctx.gate.vault().note_index(&path) else {
            continue;
        };
        let mut decision = decide(ctx, i, &homes);
        if decision.dest.is_none() && decision.missing.is_none() {
            let model = learned.get_or_insert_with(|| {
                Learned::learn(
                    ctx.gate.vault(),
                    &*ctx.gate,
                    &ctx.config.folders,
                    ctx.config.triage_precision,
                )
            });
            decision = learned_decision(ctx, i, decision, model.as_ref());
        }
        let note = ctx.gate.vault().notes[i].clone();
        let title = note.name().to_string();
        let Some(dest_folder) = decision.dest.clone() else {
            if let Some(m) = &decision.missing {
                missing.entry(m.clone()).or_default().push(title.clone());
            }
            left.push((title, decision.evidence));
            continue;
        };
        let file_name = if rename && !common::follows_convention(&title) {
            let date = note
                .property_str("date")
                .and_then(|d| common::parse_date(&d))
                .map_or(today.clone(), |d| d.to_string());
            let kind = note.property_str("type").unwrap_or_else(|| "note".into());
            format!("{}.md", common::convention_name(&date, &kind, &title))
        } else {
            format!("{title}.md")
        };
        let wanted = format!("{dest_folder}/{file_name}");
        if note.invalid_utf8 {
            left.push((
                title,
                "the file is not valid UTF-8; crew does not change it".into(),
            ));
            continue;
        }
        if let Err(e) = ctx.gate.check(&wanted) {
            left.push((title, format!("crew could not file it: {e}")));
            continue;
        }
        // status first, in the inbox: a run killed between the two steps leaves a note that
        // a re-run files again, never a filed note still marked `inbox`
        let mark = ctx.gate.mark();
        let marked = ctx.gate.set_frontmatter(
            &note.path,
            &[
                ("status", Some("filed".into())),
                ("filed-date", Some(today.clone())),
                ("location", Some(yaml_scalar(&dest_folder))),
            ],
        );
        let outcome = match marked.and_then(|_| ctx.gate.move_file(&note.path, &wanted)) {
            Ok(o) => o,
            Err(e) => {
                // the move failed: the `status: filed` mark goes too, so the note says `inbox`
                // while it is in the inbox
                let undone = ctx.gate.rollback_to(mark);
                let why = if undone == "nothing was changed" {
                    format!("crew could not file it: {e}")
                } else {
                    format!("crew could not file it: {e}; its status mark: {undone}")
                };
                left.push((title, why));
                continue;
            }
        };
        if outcome.to != wanted {
            renamed_to_free.push(format!("{wanted} existed; filed as {}", outcome.to));
        }
        // evidence goes in a code span so the log never creates links of its own
        common::log_change(
            ctx,
            label,
            &format!(
                "filed \"{title}\" → {} (`{}`)",
                outcome.to, decision.evidence
            ),
        )?;
        // MOC lines are added in batches: a MOC is re-read and re-written once per batch, not
        // once per note (a folder of thousands of notes made that quadratic)
        match pending_mocs.iter_mut().find(|(f, _)| *f == dest_folder) {
            Some((_, paths)) => paths.push(outcome.to.clone()),
            None => pending_mocs.push((dest_folder.clone(), vec![outcome.to.clone()])),
        }
        pending_count += 1;
        if pending_count >= MOC_BATCH {
            flush_mocs(ctx, &mut pending_mocs, &mut mocs)?;
            pending_count = 0;
        }
        filed.push(Filed {
            title,
            from: note.path.clone(),
            to: outcome.to,
            evidence: decision.evidence,
        });
    }

    flush_mocs(ctx, &mut pending_mocs, &mut mocs)?;

    // interlinked notes in this batch
    let vault = ctx.gate.vault();
    let mut is_filed = vec![false; vault.notes.len()];
    for i in filed.iter().filter_map(|f| vault.note_index(&f.to)) {
        is_filed[i] = true;
    }
    let mut interlinked = BTreeSet::new();
    for (a, b) in vault.edges() {
        if a != b && is_filed[a] && is_filed[b] {
            interlinked.insert(vault.notes[a].name().to_string());
            interlinked.insert(vault.notes[b].name().to_string());
        }
    }
    let archive: Vec<String> = common::notes_in(&vault.notes, &inbox)
        .filter(|(_, n)| {
            common::last_touched(n).is_some_and(|d| common::days_between(d, ctx.now.date()) >= 30)
        })
        .map(|(_, n)| n.name().to_string())
        .collect();

    let mut out = format!("## Triage complete — {today}\n\n");
    if filed.is_empty() && left.is_empty() {
        out.push_str("The inbox is empty. Nothing to file.\n");
    }
    if !filed.is_empty() {
        out.push_str(&format!("### Filed ({})\n", filed.len()));
        for f in &filed {
            let folder = f.to.rsplit_once('/').map_or("", |(d, _)| d);
            out.push_str(&format!("- {} → {folder} ({})\n", f.title, f.evidence));
        }
        out.push('\n');
    }
    if !mocs.is_empty() {
        out.push_str("### MOCs updated\n");
        for m in &mocs {
            out.push_str(&format!("- {m}\n"));
        }
        out.push('\n');
    }
    if !left.is_empty() {
        out.push_str(&format!("### Left in the inbox ({})\n", left.len()));
        for (t, why) in &left {
            out.push_str(&format!("- {t} — {why}\n"));
        }
        out.push('\n');
    }
    if !archive.is_empty() {
        out.push_str("### Archive candidates (untouched 30+ days, not moved)\n");
        for a in &archive {
            out.push_str(&format!("- {a}\n"));
        }
        out.push('\n');
    }
    if !renamed_to_free.is_empty() {
        out.push_str("### Name clashes\n");
        for r in &renamed_to_free {
            out.push_str(&format!("- {r}\n"));
        }
        out.push('\n');
    }
    let moved_from: Vec<&str> = filed.iter().map(|f| f.from.as_str()).collect();
    tracing::debug!(?moved_from, "triage moved");
    out.push_str(&format!(
        "Stats: {} filed, {} MOCs updated, {} left.\n",
        filed.len(),
        mocs.len(),
        left.len()
    ));
    for (path, notes) in &missing {
        out.push_str(&suggestion(
            "architect",
            &format!(
                "{} inbox note{} need{} a home that does not exist: {path}",
                notes.len(),
                if notes.len() == 1 { "" } else { "s" },
                if notes.len() == 1 { "s" } else { "" }
            ),
            &format!(
                "create {path}/ (with _index.md and a MOC); waiting: {}",
                notes.join("; ")
            ),
        ));
    }
    if interlinked.len() >= 2 {
        let names: Vec<String> = interlinked.into_iter().collect();
        out.push_str(&suggestion(
            "connector",
            &format!("{} notes filed together link to each other; their neighbourhood may need more links", names.len()),
            &names.join("; "),
        ));
    }
    if !renamed_to_free.is_empty() {
        out.push_str(&suggestion(
            "librarian",
            "notes with the same name now live side by side; check for duplicates",
            &renamed_to_free.join("; "),
        ));
    }
    let mut postit = format!(
        "last triage {today}: {} filed, {} left\n",
        filed.len(),
        left.len()
    );
    for (t, why) in left.iter().take(20) {
        postit.push_str(&format!("- left: {t} — {why}\n"));
    }
    for m in missing.keys() {
        postit.push_str(&format!("- waiting for architect: {m}\n"));
    }
    if filed.is_empty() && missing.is_empty() {
        // nothing happened: the memory of the last real triage stays as it was
        if let Some(previous) = &ctx.postit {
            postit = previous.clone();
        }
    }
    Ok(NativeOutput {
        attention: !left.is_empty(),
        text: out,
        postit,
    })
}

fn deadline_of(note: &Note) -> Option<chrono::NaiveDate> {
    ["deadline", "due", "due-date"]
        .iter()
        .find_map(|k| note.property_str(k).and_then(|v| common::parse_date(&v)))
}

fn priority_triage(ctx: &mut Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let today = ctx.now.date();
    let mut rows: Vec<(u8, String, String)> = Vec::new();
    for i in inbox_notes(ctx) {
        let n = &vault.notes[i];
        let prio = n
            .property_str("priority")
            .unwrap_or_default()
            .to_lowercase();
        let kind = n.property_str("type").unwrap_or_default().to_lowercase();
        let dl = deadline_of(n);
        let (rank, why) = match dl {
            Some(d) if (d - today).num_days() <= 1 => (0, format!("deadline {d}")),
            _ if prio == "high" || prio == "urgent" => (0, format!("priority: {prio}")),
            Some(d) if (d - today).num_days() <= 7 => (1, format!("deadline {d}")),
            _ if n.property_str("project").is_some() => (1, "active project".to_string()),
            _ if matches!(kind.as_str(), "quote" | "list") || prio == "low" => (
                3,
                if prio == "low" {
                    "priority: low".into()
                } else {
                    format!("type: {kind}")
                },
            ),
            _ => (
                2,
                if kind.is_empty() {
                    "no signal".into()
                } else {
                    format!("type: {kind}")
                },
            ),
        };
        rows.push((rank, n.name().to_string(), why));
    }
    rows.sort();
    let labels = ["Critical", "High", "Normal", "Low"];
    let mut out = format!("## Priority triage — {}\n\n", ctx.today());
    if rows.is_empty() {
        out.push_str("The inbox is empty.\n");
    }
    for (rank, label) in labels.iter().enumerate() {
        let items: Vec<_> = rows.iter().filter(|r| r.0 as usize == rank).collect();
        if items.is_empty() {
            continue;
        }
        out.push_str(&format!("### {label} ({})\n", items.len()));
        for (_, t, why) in items {
            out.push_str(&format!("- {t} — {why}\n"));
        }
        out.push('\n');
    }
    out.push_str("Nothing was moved. Say \"file my notes\" to file them.\n");
    NativeOutput {
        attention: rows.iter().any(|r| r.0 == 0),
        postit: format!(
            "priority triage {}: {} critical of {}",
            ctx.today(),
            rows.iter().filter(|r| r.0 == 0).count(),
            rows.len()
        ),
        text: out,
    }
}

fn project_pulse(ctx: &mut Ctx) -> NativeOutput {
    let vault = ctx.gate.vault();
    let today = ctx.now.date();
    let projects = ctx.gate.subdirs(&ctx.config.folders.projects);
    let mut out = format!(
        "## Project pulse — {}\n\n| Project | Notes | New in 7 days | Last activity | State |\n|---|---|---|---|---|\n",
        ctx.today()
    );
    let mut quiet = 0;
    for p in &projects {
        let notes: Vec<&Note> = common::notes_under(&vault.notes, p)
            .map(|(_, n)| n)
            .collect();
        let last = notes.iter().filter_map(|n| common::last_touched(n)).max();
        let recent = notes
            .iter()
            .filter(|n| common::last_touched(n).is_some_and(|d| (today - d).num_days() <= 7))
            .count();
        let state = match last {
            Some(d) if (today - d).num_days() > 7 => {
                quiet += 1;
                "quiet"
            }
            None => {
                quiet += 1;
                "empty"
            }
            _ => "active",
        };
        out.push_str(&format!(
            "| {} | {} | {recent} | {} | {state} |\n",
            last_segment(p),
            notes.len(),
            last.map_or("—".to_string(), |d| d.to_string())
        ));
    }
    if projects.is_empty() {
        out = format!(
            "## Project pulse — {}\n\nNo project folders under `{}/`.\n",
            ctx.today(),
            ctx.config.folders.projects
        );
    }
    NativeOutput {
        postit: format!(
            "project pulse {}: {} projects, {quiet} quiet",
            ctx.today(),
            projects.len()
        ),
        text: out,
        attention: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_into_the_notes_section() {
        let t = "# X\n\n## Notes\n- [[a]]\n\n## Related MOCs\n- [[Index]]\n";
        assert_eq!(
            insert_under_notes(t, "- [[b]]"),
            "# X\n\n## Notes\n- [[a]]\n- [[b]]\n\n## Related MOCs\n- [[Index]]\n"
        );
        assert_eq!(
            insert_under_notes("# X\n", "- [[b]]"),
            "# X\n\n## Notes\n- [[b]]\n"
        );
        assert_eq!(
            insert_under_notes("## Notes\n- [[a]]", "- [[b]]"),
            "## Notes\n- [[a]]\n- [[b]]\n"
        );
    }
}
