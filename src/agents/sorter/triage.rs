//! Filing the inbox: decide each note, file it through the gate (status first, then the move),
//! list it in its MOC, then report what was filed, what stayed and why.

use std::collections::{BTreeMap, BTreeSet};

use rustc_hash::FxHashSet;

use super::homeless;
use super::into;
use super::keys::LazyKeys;
use super::model::{self, Choice, ModelPass, Unsure};
use super::report::{postit, render, suggestions};
use super::scope::Scope;
use crate::agents::common::{self, suggestion};
use crate::agents::filing::decide::{self, Decision, Scene};
use crate::agents::filing::trust::{Kind, Tally, Trust};
use crate::agents::filing::{self, Learned};
use crate::agents::moc::MocBatch;
use crate::agents::{Ctx, NativeOutput};
use crate::gate::{self, GateError};
use crate::tr;
use crate::vault::Vault;
use crate::vault::classify;

/// Passes over the inbox at most: each after the first decides again the notes that stayed
/// near one the pass before filed.
const PASSES: usize = 3;

/// One note filed.
pub(super) struct Filed {
    pub(super) title: String,
    pub(super) to: String,
    pub(super) evidence: String,
}

/// What a triage did, for the report and the post-it.
#[derive(Default)]
pub(super) struct Triage {
    pub(super) filed: Vec<Filed>,
    /// Notes that stayed, with why.
    pub(super) left: Vec<(String, String)>,
    /// Homes that do not exist yet, with the notes waiting for them.
    pub(super) missing: BTreeMap<String, Vec<String>>,
    pub(super) mocs: BTreeSet<String>,
    /// Maps of content crew could not update, with why.
    pub(super) mocs_not_written: Vec<String>,
    /// Notes filed under another name because theirs was taken.
    pub(super) clashes: Vec<String>,
    /// New folders proposed for notes no folder is like.
    pub(super) proposals: Vec<homeless::Proposal>,
    /// Notes filed together that link to each other.
    pub(super) interlinked: BTreeSet<String>,
    /// Inbox notes untouched for 30 days or more (listed, never moved).
    pub(super) archive: Vec<String>,
    /// The configured model's pass over the notes crew was unsure of.
    pub(super) model: Option<ModelPass>,
    /// Kinds of explicit evidence the vault's filed notes contradict (not used this run).
    pub(super) distrusted: Vec<(Kind, Tally)>,
    /// Notes in `left` that the model looked at: it had its say, so they do not go on to a
    /// second, tool-using model pass.
    pub(super) left_after_model: usize,
}

/// Inbox notes to file, oldest first (notes being written now and folder notes excluded).
pub(super) fn inbox_notes(ctx: &Ctx) -> Vec<usize> {
    let inbox = &ctx.config.folders.inbox;
    let vault = ctx.gate.vault();
    let mut idx: Vec<usize> = common::notes_in(&vault.notes, inbox)
        .filter(|(_, n)| !ctx.hold.iter().any(|h| h.eq_ignore_ascii_case(&n.path)))
        // the inbox's own folder note is its map, not an item to file
        .filter(|(_, n)| !crate::vault::folder_note::is_inside_folder_note(&n.path))
        .map(|(i, _)| i)
        .collect();
    idx.sort_by_key(|&i| {
        (
            common::last_touched(&vault.notes[i]),
            vault.notes[i].path.clone(),
        )
    });
    idx
}

/// Files the inbox; `label` names who did it in the agent log.
pub(super) fn triage(ctx: &mut Ctx, label: &str) -> Result<NativeOutput, GateError> {
    let inbox = ctx.config.folders.inbox.clone();
    if !ctx.gate.dir_exists(&inbox) {
        return Ok(no_inbox(ctx, &inbox));
    }
    let rename = ctx.says(crate::agents::cue::Cue::Rename);
    let homes = decide::homes(&ctx.config.folders, |d| ctx.gate.subdirs(d));
    let scope = Scope::of(ctx);
    let into = ctx.file_into;
    let mut queue: Vec<String> = inbox_notes(ctx)
        .into_iter()
        .map(|i| ctx.gate.vault().notes[i].path.clone())
        .filter(|p| scope.takes(p))
        .collect();
    let mut t = Triage::default();
    if let Some(into) = into {
        t.left = only_named(&mut queue, into);
    }
    if queue.is_empty() && scope.is_partial() {
        return Ok(nothing_in_scope(ctx, &scope));
    }
    // the vault's own filed notes are the examples: learned once per run, when the first
    // note without explicit evidence needs them
    let mut learned: Option<Option<Learned>> = None;
    // what the filed notes say of each kind of explicit evidence: measured before anything
    // moves, on the first note
    let mut trust: Option<Trust> = None;
    let mut batch = MocBatch::default();
    let judges = Judges {
        homes: &homes,
        rename,
        label,
        keys: LazyKeys::default(),
        into: into.map(|i| i.folder.as_str()),
    };
    let stayed = file_in_passes(
        ctx,
        &judges,
        queue,
        (&mut trust, &mut learned),
        &mut t,
        &mut batch,
    )?;
    let offer_homeless = into.is_none() && !scope.is_partial();
    let (unsure, maybe_homeless) = sort_out(ctx, stayed, offer_homeless, &mut t);
    t.distrusted = trust.map(|t| t.distrusted()).unwrap_or_default();
    let learned = learned.as_ref().and_then(Option::as_ref);
    if let Some(l) = learned {
        t.proposals = propose_homes(ctx, l, &maybe_homeless);
    }
    t.model = model::pass(ctx, unsure, learned, &homes);
    file_model_choices(ctx, &judges, &mut t, &mut batch)?;
    batch.flush(ctx)?;
    t.mocs = std::mem::take(&mut batch.updated);
    t.mocs_not_written = std::mem::take(&mut batch.not_written);
    t.interlinked = interlinked(ctx.gate.vault(), &t.filed);
    t.archive = common::notes_in(&ctx.gate.vault().notes, &inbox)
        .filter(|_| !scope.is_partial())
        .filter(|(_, n)| {
            common::last_touched(n).is_some_and(|d| common::days_between(d, ctx.now.date()) >= 30)
        })
        .map(|(_, n)| n.name().to_string())
        .collect();
    let today = ctx.today();
    let postit = postit(&t, &today, ctx.postit.as_deref());
    if let Some(pass) = &t.model {
        ctx.data = Some(serde_json::json!({ "model": pass.data() }));
    }
    ctx.handoffs.extend(suggestions(&t));
    let mut text = render(&t, &today, ctx.lang);
    if scope.is_partial() {
        text.push_str(&scope.note(ctx.lang));
    }
    Ok(NativeOutput {
        attention: t.left.len() > t.left_after_model || !t.mocs_not_written.is_empty(),
        text,
        postit,
    })
}

/// A request whose notes are none in the inbox — a hand-off after a request that created
/// none, or a request linking notes filed already: nothing of the inbox is filed.
fn nothing_in_scope(ctx: &Ctx, scope: &Scope) -> NativeOutput {
    let mut text = tr!(ctx.lang, "triage.heading", date = ctx.today());
    text.push_str(&scope.none_note(ctx.lang));
    NativeOutput {
        text,
        postit: ctx.postit.clone().unwrap_or_default(),
        attention: false,
    }
}

/// Sorts the notes that stayed: those crew could not move and those waiting for a home go to
/// the report; the rest are offered to the model (when there is one) and, with
/// `offer_homeless`, looked at for a new folder. Returns (offered to the model, maybe
/// homeless).
fn sort_out(
    ctx: &Ctx,
    stayed: Vec<Stayed>,
    offer_homeless: bool,
    t: &mut Triage,
) -> (Vec<Unsure>, Vec<String>) {
    let mut maybe_homeless: Vec<String> = Vec::new();
    let mut unsure: Vec<Unsure> = Vec::new();
    for (path, title, decided) in stayed {
        let mut decision = match decided {
            Ok(decision) => decision,
            Err(why) => {
                t.left.push((title, why));
                continue;
            }
        };
        if !decision.ignored.is_empty() {
            let kinds: Vec<&str> = decision.ignored.iter().map(|k| k.label()).collect();
            decision.evidence = format!(
                "{}; not used: {} (this vault files such notes elsewhere)",
                decision.evidence,
                kinds.join(", ")
            );
        }
        if decision.missing.is_none() && offer_homeless {
            maybe_homeless.push(path.clone());
        }
        if let Some(m) = &decision.missing {
            t.missing.entry(m.clone()).or_default().push(title.clone());
        } else if ctx.model.is_some() && readable(ctx, &path) {
            unsure.push(Unsure {
                path,
                title,
                reason: decision.evidence,
            });
            continue;
        }
        t.left.push((title, decision.evidence));
    }
    (unsure, maybe_homeless)
}

/// Keeps in `queue` the inbox notes `into` names; the names that are no inbox note stay, with
/// why.
fn only_named(queue: &mut Vec<String>, into: &into::FileInto) -> Vec<(String, String)> {
    queue.retain(|p| into.names(p));
    into.notes
        .iter()
        .filter(|n| !queue.iter().any(|p| into::same(p, n)))
        .map(|n| (n.clone(), "not a note of the inbox".into()))
        .collect()
}

/// New folders for the notes in `paths` that no folder is like and that share a topic.
fn propose_homes(ctx: &Ctx, learned: &Learned, paths: &[String]) -> Vec<homeless::Proposal> {
    let homeless: Vec<(String, String)> = paths
        .iter()
        .filter(|p| learned.is_homeless(p))
        .filter_map(|p| Some((p.clone(), ctx.gate.read_text(p)?)))
        .collect();
    homeless::propose(&homeless, learned, &|f| ctx.gate.dir_exists(f))
}

/// What a triage decides with, besides the vault.
struct Judges<'a> {
    homes: &'a [String],
    rename: bool,
    /// Who files, in the agent log.
    label: &'a str,
    /// The filing keys this vault uses.
    keys: LazyKeys,
    /// `crew triage --into FOLDER`: the folder every note of the queue goes to.
    into: Option<&'a str>,
}

/// A note that stayed: its path, its title, and the decision that kept it or why crew could
/// not move it.
type Stayed = (String, String, Result<Decision, String>);

/// Files the `queue` of inbox notes in passes: a note filed can be the evidence another needs
/// (its links to it now point into a home), so after a pass the notes that stayed near one
/// just filed are decided again. Returns the notes that stayed, oldest first.
fn file_in_passes(
    ctx: &mut Ctx,
    judges: &Judges,
    queue: Vec<String>,
    (trust, learned): (&mut Option<Trust>, &mut Option<Option<Learned>>),
    t: &mut Triage,
    batch: &mut MocBatch,
) -> Result<Vec<Stayed>, GateError> {
    let position: rustc_hash::FxHashMap<String, usize> = queue
        .iter()
        .enumerate()
        .map(|(k, path)| (path.clone(), k))
        .collect();
    let mut pending = queue;
    let mut stayed: Vec<Stayed> = Vec::new();
    for pass in 1..=PASSES {
        let filed_before = t.filed.len();
        for path in std::mem::take(&mut pending) {
            let Some(i) = ctx.gate.vault().note_index(&path) else {
                continue;
            };
            let decision = match judges.into {
                Some(folder) => Decision::asked(folder),
                None => decide_note(ctx, i, judges.homes, trust, learned),
            };
            let title = ctx.gate.vault().notes[i].name().to_string();
            let Some(dest) = decision.dest.clone() else {
                stayed.push((path, title, Ok(decision)));
                continue;
            };
            match file_note(ctx, i, &dest, judges, &decision)? {
                Filing::Stayed(why) => stayed.push((path, title, Err(why.to_string()))),
                Filing::Moved(filed, clash) => {
                    record(ctx, judges.label, &dest, (filed, clash), t, batch)?;
                }
            }
        }
        if pass == PASSES {
            break;
        }
        // only a note near one just filed can be decided otherwise: the model, the trust and
        // its own keys are as they were, and its text changed at most where a link to a
        // moved note was rewritten
        let vault = ctx.gate.vault();
        let moved: FxHashSet<usize> = t.filed[filed_before..]
            .iter()
            .filter_map(|f| vault.note_index(&f.to))
            .collect();
        let (again, keep): (Vec<_>, Vec<_>) =
            std::mem::take(&mut stayed)
                .into_iter()
                .partition(|(path, _, decided)| {
                    // a note crew could not move is not tried again
                    decided.is_ok()
                        && vault
                            .note_index(path)
                            .is_some_and(|i| near_any(vault, i, &moved))
                });
        stayed = keep;
        if again.is_empty() {
            break;
        }
        pending = again.into_iter().map(|(path, _, _)| path).collect();
    }
    // reported, and offered to the model, oldest first whatever pass they stayed in
    stayed.sort_by_key(|(path, _, _)| position.get(path).copied());
    Ok(stayed)
}

/// Whether the model may be shown a note: text crew can read (valid UTF-8, not binary, not
/// over the gate's size limit).
fn readable(ctx: &Ctx, path: &str) -> bool {
    let vault = ctx.gate.vault();
    vault
        .note_index(path)
        .is_some_and(|i| !vault.notes[i].invalid_utf8)
        && ctx.gate.read_text(path).is_some_and(|t| !t.contains('\0'))
}

/// A note filed: the agent log, its MOC, the report.
fn record(
    ctx: &mut Ctx,
    label: &str,
    dest: &str,
    (filed, clash): (Filed, Option<String>),
    t: &mut Triage,
    batch: &mut MocBatch,
) -> Result<(), GateError> {
    common::log_change(
        ctx,
        label,
        // evidence goes in a code span so the log never creates links of its own
        &format!(
            "filed \"{}\" → {} (`{}`)",
            filed.title, filed.to, filed.evidence
        ),
    )?;
    batch.add(ctx, dest, filed.to.clone())?;
    t.clashes.extend(clash);
    t.filed.push(filed);
    Ok(())
}

/// Files what the model chose, through the same path as native filing, after checking the
/// folder still exists and is a home; every other note it saw stays, with why.
fn file_model_choices(
    ctx: &mut Ctx,
    judges: &Judges,
    t: &mut Triage,
    batch: &mut MocBatch,
) -> Result<(), GateError> {
    let Some(mut pass) = t.model.take() else {
        return Ok(());
    };
    for c in std::mem::take(&mut pass.choices) {
        let index = ctx.gate.vault().note_index(&c.path);
        let choice = match (&c.choice, index) {
            (Choice::File(dest), _) if !model::is_home(dest, &ctx.config.folders) => Choice::Stay(
                format!("the model chose {dest}, which is not a home for notes"),
            ),
            (Choice::File(dest), _) if !ctx.gate.dir_exists(dest) => {
                Choice::Stay(format!("the model chose {dest}, which does not exist"))
            }
            (_, None) => Choice::Stay("it is no longer in the inbox".into()),
            (other, _) => other.clone(),
        };
        let outcome = match (&choice, index) {
            (Choice::File(dest), Some(i)) => {
                let decision = Decision {
                    dest: Some(dest.clone()),
                    confidence: 0,
                    evidence: format!("chosen by the model `{}`", pass.id),
                    missing: None,
                    ignored: Vec::new(),
                };
                match file_note(ctx, i, dest, judges, &decision)? {
                    Filing::Moved(filed, clash) => {
                        pass.filed.push((c.title.clone(), dest.clone()));
                        record(ctx, judges.label, dest, (filed, clash), t, batch)?;
                        None
                    }
                    Filing::Stayed(why) => Some(why.to_string()),
                }
            }
            (Choice::Stay(why), _) => Some(why.clone()),
            (Choice::File(_), None) => Some("it is no longer in the inbox".into()),
        };
        if let Some(why) = outcome {
            pass.stayed.push((c.title.clone(), why.clone()));
            t.left
                .push((c.title.clone(), format!("{}; {why}", c.reason)));
            t.left_after_model += 1;
        }
        pass.choices.push(c);
    }
    for u in &pass.not_offered {
        t.left.push((
            u.title.clone(),
            format!("{}; not offered to the model in this run", u.reason),
        ));
        t.left_after_model += 1;
    }
    t.model = Some(pass);
    Ok(())
}

fn no_inbox(ctx: &mut Ctx, inbox: &str) -> NativeOutput {
    ctx.hand_off(suggestion(
        "architect",
        "the vault has no inbox folder",
        &format!("create {inbox}/ or map the inbox role"),
    ));
    NativeOutput {
        text: tr!(ctx.lang, "triage.no_inbox", inbox = inbox),
        postit: "no inbox folder".into(),
        attention: true,
    }
}

/// Explicit evidence first; what the vault's filed notes teach when there is none.
fn decide_note(
    ctx: &Ctx,
    i: usize,
    homes: &[String],
    trust: &mut Option<Trust>,
    learned: &mut Option<Option<Learned>>,
) -> Decision {
    let vault = ctx.gate.vault();
    let dir_exists = |d: &str| ctx.gate.dir_exists(d);
    let mut scene = Scene {
        vault,
        folders: &ctx.config.folders,
        homes,
        today: ctx.now.date(),
        threshold: ctx.config.triage_confidence,
        dir_exists: &dir_exists,
        trust: None,
    };
    let trust = trust.get_or_insert_with(|| {
        let filed = filing::filed_notes(vault, &ctx.config.folders);
        Trust::measure(&scene, &filed, ctx.config.triage_precision)
    });
    scene.trust = Some(trust);
    let decision = decide::decide(&scene, i);
    if decision.dest.is_some() || decision.missing.is_some() {
        return decision;
    }
    let model = learned.get_or_insert_with(|| {
        Learned::learn(
            vault,
            &*ctx.gate,
            &ctx.config.folders,
            ctx.config.triage_precision,
        )
    });
    match (model.as_ref(), ctx.gate.read_text(&vault.notes[i].path)) {
        (Some(model), Some(text)) => decide::learned_decision(vault, i, &text, decision, model),
        _ => decision,
    }
}

/// What became of one note crew decided to file.
enum Filing {
    /// It moved: where to, and the name it was filed under when the wanted one was taken.
    Moved(Filed, Option<String>),
    /// It stayed in the inbox, unchanged.
    Stayed(NotFiled),
}

/// Why a note crew decided to file stayed where it was.
#[derive(Debug, thiserror::Error)]
pub(super) enum NotFiled {
    #[error("the file is not valid UTF-8; crew does not change it")]
    NotUtf8,
    #[error("crew could not file it: {0}")]
    Refused(GateError),
    /// The move failed after its status mark was written: the mark was taken back (or not).
    #[error("crew could not file it: {error}; its status mark: {rollback}")]
    MarkRolledBack {
        error: GateError,
        rollback: gate::Rollback,
    },
}

/// Files one note into `dest`: its status first, in the inbox, then the move. An error is one
/// the run cannot go on after; a note that could not be filed is [`Filing::Stayed`].
fn file_note(
    ctx: &mut Ctx,
    i: usize,
    dest: &str,
    judges: &Judges,
    decision: &Decision,
) -> Result<Filing, GateError> {
    let rename = judges.rename;
    let note = ctx.gate.vault().notes[i].clone();
    let title = note.name().to_string();
    let today = ctx.today();
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
    let wanted = format!("{dest}/{file_name}");
    if note.invalid_utf8 {
        return Ok(Filing::Stayed(NotFiled::NotUtf8));
    }
    if let Err(e) = ctx.gate.check(&wanted) {
        return Ok(Filing::Stayed(NotFiled::Refused(e)));
    }
    // status first, in the inbox: a run killed between the two steps leaves a note that a
    // re-run files again, never a filed note still marked `inbox`; only the keys the vault's
    // conventions ask for
    let mark = ctx.gate.mark();
    let keys = judges
        .keys
        .get(ctx)
        .for_note(&note, dest, &today, &ctx.config.folders);
    let marked = if keys.is_empty() {
        Ok(false)
    } else {
        ctx.gate.set_frontmatter(&note.path, &keys)
    };
    let outcome = match marked.and_then(|_| ctx.gate.move_file(&note.path, &wanted)) {
        Ok(o) => o,
        Err(e) => {
            // the move failed: the `status: filed` mark goes too, so the note says `inbox`
            // while it is in the inbox
            let rollback = ctx.gate.rollback_to(mark);
            return Ok(Filing::Stayed(if rollback.nothing_changed() {
                NotFiled::Refused(e)
            } else {
                NotFiled::MarkRolledBack { error: e, rollback }
            }));
        }
    };
    let clash =
        (outcome.to != wanted).then(|| format!("{wanted} existed; filed as {}", outcome.to));
    Ok(Filing::Moved(
        Filed {
            title,
            to: outcome.to,
            evidence: decision.evidence.clone(),
        },
        clash,
    ))
}

/// Whether note `i` links to one of `moved` (by wikilink or Markdown link), is linked from
/// one, or is cited beside one (a note that is not a hub links to both): what its link
/// evidence and link features are made of.
fn near_any(vault: &Vault, i: usize, moved: &FxHashSet<usize>) -> bool {
    let links_to_moved = |n: usize| {
        classify::links_from(vault, n)
            .iter()
            .any(|m| moved.contains(m))
    };
    if moved.is_empty() {
        return false;
    }
    links_to_moved(i)
        || vault.links_to(i).into_iter().any(|(src, _)| {
            moved.contains(&src) || (!classify::lists_the_vault(vault, src) && links_to_moved(src))
        })
}

/// Names of notes filed in this batch that link to each other.
fn interlinked(vault: &Vault, filed: &[Filed]) -> BTreeSet<String> {
    let mut is_filed = vec![false; vault.notes.len()];
    for i in filed.iter().filter_map(|f| vault.note_index(&f.to)) {
        is_filed[i] = true;
    }
    let mut out = BTreeSet::new();
    for (a, b) in vault.edges() {
        if a != b && is_filed[a] && is_filed[b] {
            out.insert(vault.notes[a].name().to_string());
            out.insert(vault.notes[b].name().to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::Note;

    fn vault(notes: &[(&str, String)]) -> Vault {
        let notes = notes.iter().map(|(p, t)| Note::parse_text(*p, t)).collect();
        Vault::from_notes("/v".into(), notes, Vec::new())
    }

    /// Which inbox notes count as near the filed `Projects/Call.md`.
    fn near(notes: &[(&str, String)]) -> Vec<String> {
        let v = vault(notes);
        let moved: FxHashSet<usize> = v.note_index("Projects/Call.md").into_iter().collect();
        (0..v.notes.len())
            .filter(|&i| v.notes[i].path.starts_with("Inbox/") && near_any(&v, i, &moved))
            .map(|i| v.notes[i].name().to_string())
            .collect()
    }

    #[test]
    fn near_a_filed_note_by_either_kind_of_link_backlink_or_co_citation_not_through_a_hub() {
        let hub: String = (0..1200).map(|k| format!("[[Filler {k}]] ")).collect();
        let found = near(&[
            ("Projects/Call.md", "[[Backlinked]]\n".into()),
            ("Inbox/Wikilinked.md", "see [[Call]]\n".into()),
            (
                "Inbox/Markdown linked.md",
                "see [the call](../Projects/Call.md)\n".into(),
            ),
            ("Inbox/Backlinked.md", "nothing\n".into()),
            ("Inbox/Cited beside.md", "nothing\n".into()),
            ("Reading list.md", "[[Cited beside]] and [[Call]]\n".into()),
            ("Inbox/Beside in a hub.md", "nothing\n".into()),
            ("Home.md", format!("[[Beside in a hub]] [[Call]] {hub}\n")),
            ("Inbox/Unrelated.md", "see [[Elsewhere]]\n".into()),
            ("Elsewhere.md", "alone\n".into()),
        ]);
        assert_eq!(
            found,
            [
                "Backlinked",
                "Cited beside",
                "Markdown linked",
                "Wikilinked"
            ]
        );
    }
}
