//! Which inbox notes a triage may file. Asked for by the user (the request's first step: "file
//! these notes", `crew triage`), the whole inbox. Handed work by another agent — the postman
//! saved an email, the scribe captured a note — only the inbox notes this request created: a
//! request to save or capture never files the rest of the inbox, whatever it holds.

use rustc_hash::FxHashSet;

use crate::agents::Ctx;
use crate::state::journal::OpKind;

pub(super) enum Scope {
    /// Every note in the inbox.
    Inbox,
    /// The notes this request created (vault paths, lowercase), where they are now.
    Created(FxHashSet<String>),
}

impl Scope {
    pub fn of(ctx: &Ctx) -> Scope {
        if ctx.step.suggested_by.is_none() {
            return Scope::Inbox;
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

    /// Whether the inbox note at `path` may be filed.
    pub fn takes(&self, path: &str) -> bool {
        match self {
            Scope::Inbox => true,
            Scope::Created(paths) => paths.contains(&path.to_lowercase()),
        }
    }

    /// Whether only some of the inbox was looked at.
    pub fn is_partial(&self) -> bool {
        matches!(self, Scope::Created(_))
    }
}
