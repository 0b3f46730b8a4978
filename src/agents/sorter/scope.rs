//! Which inbox notes a triage may file. Asked for by the user (the request's first step: "file
//! these notes", `crew triage`), the whole inbox — unless the request links notes ("file
//! [[Q3 budget]]", "move [[A]] and [[B]] somewhere"): then only those, or nothing when it does
//! not ask for them in so many words ("don't file [[A]]", "is [[A]] filed?"). Handed work by
//! another agent — the postman saved an email, the scribe captured a note — only the inbox
//! notes this request created: a request to save or capture never files the rest of the
//! inbox, whatever it holds.

use rustc_hash::FxHashSet;

use crate::agents::Ctx;
use crate::state::journal::OpKind;
use crate::tr;
use crate::vault::resolve::Resolution;

pub(super) enum Scope {
    /// Every note in the inbox.
    Inbox,
    /// The notes this request created (vault paths, lowercase), where they are now.
    Created(FxHashSet<String>),
    /// The notes the request links (vault paths, lowercase), wherever they are.
    Named(FxHashSet<String>),
    /// Nothing: the request links notes and does not ask to file them ("don't move [[A]]",
    /// "is [[A]] filed?", "file my notes except [[A]]") — crew does not guess what it wants.
    Unasked,
}

impl Scope {
    pub fn of(ctx: &Ctx) -> Scope {
        if ctx.step.suggested_by.is_none() {
            return Scope::named(ctx).unwrap_or(Scope::Inbox);
        }
        // the gate's journal holds every change of this request, earlier agents' too: what
        // they created, followed through any move since
        let mut created: FxHashSet<String> = FxHashSet::default();
        for op in ctx.gate.operations() {
            let path = op.path.to_lowercase();
            match (&op.op, &op.to) {
                (OpKind::Create, _) => {
                    created.insert(path);
                }
                (OpKind::Move, Some(to)) if created.remove(&path) => {
                    created.insert(to.to_lowercase());
                }
                _ => {}
            }
        }
        Scope::Created(created)
    }

    /// The notes the request names (its first link and those listed with it, as a named move
    /// reads them), when one is a note: the notes to file when the request asks for them in
    /// so many words ("file [[A]]"), else nothing. A link to no note names nothing.
    fn named(ctx: &Ctx) -> Option<Scope> {
        let vault = ctx.gate.vault();
        let asked = crate::dispatch::intent::linked_notes(&ctx.step.message)?;
        let linked: FxHashSet<String> = asked
            .targets
            .iter()
            .filter_map(|target| match vault.files.resolve("", target) {
                Resolution::File { id, .. } => vault.note_of_file(id),
                _ => None,
            })
            .map(|i| vault.notes[i].path.to_lowercase())
            .collect();
        if linked.is_empty() {
            return None;
        }
        Some(if asked.asks_to_move {
            Scope::Named(linked)
        } else {
            Scope::Unasked
        })
    }

    /// Whether the inbox note at `path` may be filed.
    pub fn takes(&self, path: &str) -> bool {
        match self {
            Scope::Inbox => true,
            Scope::Created(paths) | Scope::Named(paths) => paths.contains(&path.to_lowercase()),
            Scope::Unasked => false,
        }
    }

    /// Whether only some of the inbox was looked at.
    pub fn is_partial(&self) -> bool {
        !matches!(self, Scope::Inbox)
    }

    /// The line that says which notes were looked at.
    pub fn note(&self, lang: crate::lang::Lang) -> String {
        match self {
            Scope::Named(_) => tr!(lang, "triage.named"),
            _ => tr!(lang, "triage.scoped"),
        }
    }

    /// The line that says none of them was in the inbox.
    pub fn none_note(&self, lang: crate::lang::Lang) -> String {
        match self {
            Scope::Named(_) => tr!(lang, "triage.named.none"),
            Scope::Unasked => tr!(lang, "triage.named.unasked"),
            _ => tr!(lang, "triage.scoped.none"),
        }
    }
}
