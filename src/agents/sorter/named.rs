//! "move [[Q3 budget draft]] to Work/Finance", "manda a nota [[Orçamento]] pra pasta Casa": a
//! request that names notes by their links and a place for them (the routing rule "a note and
//! a place", `crate::dispatch::intent::linked_notes`) moves them there, from wherever they
//! are, and files nothing else: the user asked about these notes, not the inbox. Only a
//! request that asks for the move in so many words moves anything
//! (`crate::dispatch::intent::asks_to_move`); "don't move", "I moved" or "copy" get the plan
//! in words and what to write.
//!
//! The place is a path written in the request (an existing folder, or a new one the user
//! names), else the one folder of the vault whose name the request holds. Where that is not
//! one folder — two of the same name, two names, none — nothing moves and the answer says what
//! to write. The move goes through the gate like any filing: links kept, journaled, undoable;
//! a guessed route only plans it.

use crate::agents::{Ctx, NativeOutput, common};
use crate::dispatch::intent::{self, NoteAndPlace};
use crate::dispatch::mode::has_phrase;
use crate::gate::GateError;
use crate::text::{is_unspaced_script, normalize, words};
use crate::tr;
use crate::vault::Note;
use crate::vault::resolve::Resolution;

/// How deep the vault's folders are looked at for a name.
const FOLDER_DEPTH: usize = 8;

/// What a new folder's name may not hold: what breaks a link to a note inside it (`# ^ [ ] |`)
/// or cannot be stored on every system Obsidian syncs to (`: * ? " < > \\`).
const NOT_IN_NAMES: &[char] = &['#', '^', '[', ']', '|', ':', '*', '?', '"', '<', '>', '\\'];

/// Where the request puts its note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Place {
    /// An existing folder of the vault.
    Folder(String),
    /// A folder the request writes as a path at its end, one level below a folder the vault
    /// has: made for the note.
    New(String),
    /// A path the request writes that is no folder of the vault, and not one crew would make
    /// (more words follow it, so where it ends is unclear, or its parent is missing too).
    Missing(String),
    /// The note is already in the one folder the request names.
    Already(String),
    /// Several folders fit what the request says.
    Several(Vec<String>),
    /// No folder of the vault is named, and no path is written.
    Unnamed,
}

/// The request's notes and what it says around them, when the step is the sorter asked
/// directly (not handed work by another agent, not `crew triage --into`), the message tells
/// rather than asks, and it names notes by their links.
pub(super) fn asked(ctx: &Ctx) -> Option<NoteAndPlace> {
    if ctx.step.suggested_by.is_some() || ctx.file_into.is_some() {
        return None;
    }
    let message = &ctx.step.message;
    if intent::is_question(message) && !intent::asks_politely(message) {
        return None;
    }
    intent::linked_notes(message)
}

/// Moves the notes the request names to the place it names, or says why not; `None` when the
/// request names no place at all (no folder word, no path, no folder of the vault) and one of
/// its notes waits in the inbox, which is a triage of those notes.
pub(super) fn run(ctx: &mut Ctx, asked: &NoteAndPlace) -> Option<Result<NativeOutput, GateError>> {
    let mut folders = Vec::new();
    common::folders_under(ctx, "", FOLDER_DEPTH, &mut folders);
    let notes: Vec<(&String, Result<Note, String>)> = asked
        .targets
        .iter()
        .map(|t| (t, find_note(ctx, t)))
        .collect();
    let inbox = format!("{}/", ctx.config.folders.inbox.to_lowercase());
    let in_inbox = notes.iter().any(|(_, n)| {
        n.as_ref()
            .is_ok_and(|n| n.path.to_lowercase().starts_with(&inbox))
    });
    let mut outputs = Vec::new();
    for (target, note) in notes {
        let current = note.as_ref().map(|n| n.folder()).unwrap_or_default();
        let place = choose(asked, &folders, current);
        if place == Place::Unnamed && !asked.names_place && in_inbox && says_nothing_else(asked) {
            return None;
        }
        match move_to(ctx, asked, target, note, place) {
            Ok(out) => outputs.push(out),
            Err(e) => return Some(Err(e)),
        }
    }
    Some(Ok(NativeOutput {
        text: outputs
            .iter()
            .map(|o| o.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        postit: outputs
            .iter()
            .map(|o| o.postit.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        attention: outputs.iter().any(|o| o.attention),
    }))
}

/// Whether the request is its notes and a verb, little words aside ("file [[A]] please"):
/// a triage of those notes. More words name a place crew could not read ("move [[A]] to
/// reading"), and filing the note somewhere else would not be what was asked.
fn says_nothing_else(asked: &NoteAndPlace) -> bool {
    let lexicons = crate::text::lexicons();
    words(&asked.rest).all(|w| {
        lexicons.iter().any(|l| {
            [
                &l.move_words,
                &l.polite_words,
                &l.function_words,
                &l.note_words,
                &l.and_words,
            ]
            .iter()
            .any(|list| list.iter().any(|x| x == w))
        })
    })
}

/// The move of the note a target names (or what to say when it names none), or the answer
/// that says why nothing moved.
fn move_to(
    ctx: &mut Ctx,
    asked: &NoteAndPlace,
    target: &str,
    note: Result<Note, String>,
    place: Place,
) -> Result<NativeOutput, GateError> {
    let l = ctx.lang;
    let note = match note {
        Ok(note) => note,
        Err(text) => return Ok(answer(text, target, true)),
    };
    let file_name = note
        .path
        .rsplit('/')
        .next()
        .unwrap_or(&note.path)
        .to_string();
    let text = match place {
        Place::Folder(dest) | Place::New(dest) if !asked.asks_to_move => tr!(
            l,
            "sorter.move.unasked",
            note = note.name(),
            folder = &dest,
            example = format!("move [[{}]] to {dest}", note.name())
        ),
        Place::Folder(dest) | Place::New(dest) => {
            let wanted = format!("{dest}/{file_name}");
            match ctx.gate.move_file(&note.path, &wanted) {
                Ok(outcome) => {
                    let links: usize = outcome.rewritten.iter().map(|(_, n)| n).sum();
                    ctx.log
                        .push(format!("moved {} → {}", outcome.from, outcome.to));
                    let mut text = tr!(
                        l,
                        "sorter.move.done",
                        note = note.name(),
                        from = &outcome.from,
                        to = &outcome.to
                    );
                    if outcome.to != wanted {
                        text.push_str(&tr!(l, "sorter.move.clash", wanted = &wanted));
                    }
                    if links > 0 {
                        text.push_str(&tr!(
                            l,
                            "sorter.move.links",
                            links = links,
                            notes = outcome.rewritten.len()
                        ));
                    }
                    return Ok(NativeOutput {
                        text,
                        postit: format!(
                            "moved {} → {} on {}",
                            outcome.from,
                            outcome.to,
                            ctx.today()
                        ),
                        attention: false,
                    });
                }
                Err(e) => tr!(
                    l,
                    "sorter.move.refused",
                    note = note.name(),
                    to = &wanted,
                    why = e.to_string()
                ),
            }
        }
        Place::Missing(path) => tr!(
            l,
            "sorter.move.missing",
            note = note.name(),
            folder = &path,
            example = format!("move [[{}]] to {path}", note.name())
        ),
        Place::Already(dest) => tr!(l, "sorter.move.already", note = note.name(), folder = &dest),
        Place::Several(found) => tr!(
            l,
            "sorter.move.several",
            note = note.name(),
            folders = found.join(", "),
            example = format!("move [[{}]] to {}/", note.name(), found[0])
        ),
        Place::Unnamed => tr!(
            l,
            "sorter.move.no_folder",
            note = note.name(),
            example = format!("move [[{}]] to Folder/Sub", note.name())
        ),
    };
    Ok(answer(text, target, true))
}

/// The note a link names, or what to say when it names none or several.
fn find_note(ctx: &Ctx, target: &str) -> Result<Note, String> {
    let l = ctx.lang;
    let vault = ctx.gate.vault();
    match vault.files.resolve("", target) {
        Resolution::File {
            id,
            ambiguous: false,
        } => vault
            .note_of_file(id)
            .map(|i| vault.notes[i].clone())
            .ok_or_else(|| tr!(l, "sorter.move.no_note", note = target)),
        Resolution::File {
            ambiguous: true, ..
        } => {
            let mut same: Vec<&str> = vault
                .notes
                .iter()
                .filter(|n| n.name().eq_ignore_ascii_case(target))
                .map(|n| n.path.as_str())
                .collect();
            same.sort_unstable();
            Err(tr!(
                l,
                "sorter.move.ambiguous_note",
                note = target,
                paths = same.join(", ")
            ))
        }
        _ => Err(tr!(l, "sorter.move.no_note", note = target)),
    }
}

/// An answer that moved nothing.
fn answer(text: String, note: &str, attention: bool) -> NativeOutput {
    NativeOutput {
        text,
        postit: format!("asked to move [[{note}]]; nothing moved"),
        attention,
    }
}

/// A place and where the request writes it (a byte offset: only the order counts).
type Written = (Place, usize);

/// Where the request puts a note now in folder `current`, among the vault's `folders`: a
/// path it writes (an existing folder in any case, or one the path ends, else a new one),
/// else the folders whose name it holds as words — the one written beside a folder word
/// ("the Recipes folder", "pasta Casa") when several are — less the note's own folder and
/// those above it, which a request names as where the note comes from.
pub(super) fn choose(asked: &NoteAndPlace, folders: &[String], current: &str) -> Place {
    let is_source = |f: &str| {
        let f = f.to_lowercase();
        let current = current.to_lowercase();
        current == f || current.starts_with(&format!("{f}/"))
    };
    let mut found = written_folders(&asked.outside, folders);
    for (path, span) in &asked.paths {
        if found
            .iter()
            .any(|(_, at)| at.start <= span.start && span.end <= at.end)
        {
            continue;
        }
        found.push((written_path(path, span.end, asked, folders), span.clone()));
    }
    // a folder's name beside a folder word is a place too, wherever a path is written; the
    // words of a written path are that path's, not names ("the Work/Finance folder")
    let mut blanked = asked.outside.clone();
    for (_, span) in &found {
        if blanked.is_char_boundary(span.start) && blanked.is_char_boundary(span.end) {
            blanked.replace_range(span.clone(), &" ".repeat(span.len()));
        }
    }
    let mut found: Vec<Written> = found.into_iter().map(|(p, at)| (p, at.start)).collect();
    let beside = named_beside_folder_word(&normalize(&blanked), folders);
    let lower = blanked.to_lowercase();
    for f in beside.into_iter().chain(named_at_end(&blanked, folders)) {
        let place = Place::Folder(f.clone());
        if !found.iter().any(|(p, _)| *p == place) {
            // where its name is written last, in any of its forms; only an order is needed
            let leaf = f.rsplit('/').next().unwrap_or(f).to_lowercase();
            let at = std::iter::once(leaf)
                .chain(name_forms(f))
                .filter_map(|n| lower.rfind(&n))
                .max();
            found.push((place, at.unwrap_or(0)));
        }
    }
    // the note's own folder, or one above it, named before another is where it comes from;
    // named after it, the request and the vault disagree on where the note is
    let (sources, targets): (Vec<Written>, Vec<Written>) = found
        .into_iter()
        .partition(|(p, _)| matches!(p, Place::Folder(f) if is_source(f)));
    let first_target = targets.iter().map(|(_, at)| *at).min();
    let backwards = first_target.is_some_and(|t| sources.iter().any(|(_, at)| *at > t));
    let mut targets: Vec<Place> = targets.into_iter().map(|(p, _)| p).collect();
    let sources: Vec<Place> = sources.into_iter().map(|(p, _)| p).collect();
    if backwards {
        targets.extend(sources.iter().cloned());
    }
    match (targets.as_slice(), sources.as_slice()) {
        ([one], _) => one.clone(),
        ([], [Place::Folder(f)]) if f.eq_ignore_ascii_case(current) => Place::Already(f.clone()),
        ([], [one]) => one.clone(),
        ([], []) => Place::Unnamed,
        (several, _) => Place::Several(
            several
                .iter()
                .chain(if several.is_empty() {
                    &sources[..]
                } else {
                    &[]
                })
                .flat_map(|p| match p {
                    Place::Folder(f) | Place::New(f) | Place::Missing(f) => vec![f.clone()],
                    Place::Several(fs) => fs.clone(),
                    _ => Vec::new(),
                })
                .collect(),
        ),
    }
}

/// The folders whose name the normalized text writes beside a folder word ("the Recipes
/// folder", "pasta Casa"); a name written inside a longer one that is named too counts for
/// the longer one ("Finance" in "Finance Reports"). A name alone is an everyday word too
/// ("to", "home", "work"): only one beside a folder word is a place.
fn named_beside_folder_word<'a>(text: &str, folders: &'a [String]) -> Vec<&'a String> {
    let named: Vec<&String> = folders
        .iter()
        .filter(|f| name_forms(f).iter().any(|n| holds(text, n)))
        .collect();
    named
        .iter()
        .copied()
        .filter(|f| {
            let leaf = leaf_of(f);
            !named.iter().any(|g| {
                let other = leaf_of(g);
                other.len() > leaf.len() && has_phrase(&other, &leaf)
            })
        })
        .filter(|f| beside_folder_word(text, f))
        .collect()
}

/// The folders whose name ends the text as the vault spells it, capitals and all ("move
/// [[Reader]] to Obsidian Publish"): written last and exactly, a folder's name is where the
/// note goes, where the same word in lower case inside a sentence is an everyday word.
fn named_at_end<'a>(text: &str, folders: &'a [String]) -> Vec<&'a String> {
    let mut text = text.trim_end_matches(|c: char| !c.is_alphanumeric());
    // polite words after the name leave it last ("to Finance please")
    let polite: Vec<&String> = crate::text::lexicons()
        .iter()
        .flat_map(|l| &l.polite_words)
        .collect();
    while let Some((head, last)) = text.rsplit_once(char::is_whitespace) {
        if !polite.iter().any(|p| last.eq_ignore_ascii_case(p)) {
            break;
        }
        text = head.trim_end_matches(|c: char| !c.is_alphanumeric());
    }
    let ending: Vec<(&String, &str)> = folders
        .iter()
        .map(|f| (f, f.rsplit('/').next().unwrap_or(f)))
        .filter(|(_, leaf)| {
            leaf.chars().any(char::is_uppercase)
                && text.strip_suffix(leaf).is_some_and(|before| {
                    before.is_empty() || before.ends_with(char::is_whitespace)
                })
        })
        .collect();
    // "Contributing to Obsidian" is written, not "Obsidian"
    let longest = ending.iter().map(|(_, leaf)| leaf.len()).max().unwrap_or(0);
    ending
        .into_iter()
        .filter(|(_, leaf)| leaf.len() == longest)
        .map(|(f, _)| f)
        .collect()
}

/// The vault's folders whose path the text writes out, spaces and all, whole or by its last
/// two parts or more ("Me/Coding/Core Computer Science", "Finance/2024"), each with where it
/// is written; a path written inside a longer one that is written too counts for the longer.
fn written_folders(outside: &str, folders: &[String]) -> Vec<(Place, std::ops::Range<usize>)> {
    let lower = outside.to_lowercase();
    // lowercasing keeps byte offsets only where it keeps lengths; elsewhere nothing is found
    if lower.len() != outside.len() {
        return Vec::new();
    }
    let bounded = |at: usize, end: usize| {
        let before = lower[..at].chars().next_back();
        let after = lower[end..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '/')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '/')
    };
    let mut hits: Vec<(std::ops::Range<usize>, &String)> = Vec::new();
    for f in folders {
        let parts: Vec<&str> = f.split('/').collect();
        for k in 0..parts.len().saturating_sub(1) {
            let written = parts[k..].join("/").to_lowercase();
            for (at, _) in lower.match_indices(&written) {
                if bounded(at, at + written.len()) {
                    hits.push((at..at + written.len(), f));
                }
            }
        }
    }
    let longest: Vec<&(std::ops::Range<usize>, &String)> = hits
        .iter()
        .filter(|(r, _)| {
            !hits
                .iter()
                .any(|(o, _)| o.start <= r.start && r.end <= o.end && o.len() > r.len())
        })
        .collect();
    // one place per span: two folders ending the same way are several
    let mut spans: Vec<std::ops::Range<usize>> = longest.iter().map(|(r, _)| r.clone()).collect();
    spans.sort_by_key(|r| (r.start, r.end));
    spans.dedup();
    spans
        .into_iter()
        .map(|span| {
            let mut at: Vec<String> = longest
                .iter()
                .filter(|(r, _)| *r == span)
                .map(|(_, f)| (*f).clone())
                .collect();
            at.sort();
            at.dedup();
            let place = match at.as_slice() {
                [one] => Place::Folder(one.clone()),
                _ => Place::Several(at),
            };
            (place, span)
        })
        .collect()
}

/// The place a path token names that is not written out as a folder of the vault: the one
/// folder it ends part by part with numbers optional ("Areas/Finance"), else a new folder
/// when it ends the request (nothing but punctuation after it) one level below an existing
/// folder, else a path crew does not make.
fn written_path(path: &str, end: usize, asked: &NoteAndPlace, folders: &[String]) -> Place {
    let path = path.trim_matches('/');
    let ending: Vec<&String> = folders
        .iter()
        .filter(|f| ends_with_parts(f, path))
        .collect();
    match ending.as_slice() {
        [one] => return Place::Folder((*one).clone()),
        [] => {}
        several => return Place::Several(several.iter().map(|f| (*f).clone()).collect()),
    }
    let at_end = asked.outside[end..].chars().all(|c| !c.is_alphanumeric());
    let (parent, leaf) = path.rsplit_once('/').unwrap_or(("", path));
    // the new folder goes below the parent as the vault spells it, and its name must be one
    // a link can reach and every system can store
    let parent = folders.iter().find(|f| f.eq_ignore_ascii_case(parent));
    let storable = !leaf.contains(NOT_IN_NAMES);
    match parent {
        Some(parent) if at_end && storable => Place::New(format!("{parent}/{leaf}")),
        _ => Place::Missing(path.to_string()),
    }
}

/// Whether a folder's path ends with the written one, part by part, each part named as a
/// request may name it ("Areas/Finance" ends "02-Areas/Finance").
fn ends_with_parts(folder: &str, written: &str) -> bool {
    let have: Vec<&str> = folder.split('/').collect();
    let want: Vec<&str> = written.split('/').filter(|p| !p.is_empty()).collect();
    want.len() <= have.len()
        && have[have.len() - want.len()..]
            .iter()
            .zip(&want)
            .all(|(h, w)| {
                let w = normalize(w);
                leaf_of(h) == w || name_forms(h).contains(&w)
            })
}

/// A folder's last name, normalized.
fn leaf_of(folder: &str) -> String {
    normalize(folder.rsplit('/').next().unwrap_or(folder))
}

/// The names a request may call a folder by: its last name, and that name without a leading
/// number ("02-Areas" → "areas", "1. Projects" → "projects").
fn name_forms(folder: &str) -> Vec<String> {
    let leaf = leaf_of(folder);
    let mut out = vec![leaf.clone()];
    let bare: Vec<&str> = words(&leaf)
        .skip_while(|w| w.chars().all(|c| c.is_ascii_digit()))
        .collect();
    let bare = bare.join(" ");
    if !bare.is_empty() && bare != leaf {
        out.push(bare);
    }
    out.retain(|n| !n.is_empty() && !n.chars().all(|c| c.is_ascii_digit()));
    out
}

/// Whether normalized text holds a normalized name: as whole words, or anywhere for a name in
/// a script written without spaces.
fn holds(text: &str, name: &str) -> bool {
    if name.chars().any(is_unspaced_script) {
        text.contains(name)
    } else {
        has_phrase(text, name)
    }
}

/// Whether the request writes the folder's name right beside one of its folder words ("the
/// Recipes folder", "pasta Casa", "仕事フォルダ").
fn beside_folder_word(text: &str, folder: &str) -> bool {
    name_forms(folder).iter().any(|name| {
        intent::folder_words(text).any(|w| {
            let w = normalize(w);
            [
                format!("{name} {w}"),
                format!("{w} {name}"),
                format!("{name}{w}"),
            ]
            .iter()
            .any(|p| holds(text, p))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(message: &str, folders: &[&str], current: &str) -> Place {
        let asked = intent::linked_notes(message).expect("a linked note");
        let folders: Vec<String> = folders.iter().map(|f| f.to_string()).collect();
        choose(&asked, &folders, current)
    }

    const TREE: &[&str] = &[
        "00-Inbox",
        "01-Projects",
        "02-Areas",
        "02-Areas/Finance",
        "02-Areas/Home",
        "03-Resources",
        "03-Resources/Recipes",
        "04-Archive",
        "04-Archive/2025",
        "Work",
        "Work/Finance",
    ];

    #[test]
    fn a_written_path_is_the_folder_it_names_or_ends_or_a_new_one() {
        assert_eq!(
            place("move [[Q3]] to 02-Areas/Finance", TREE, "00-Inbox"),
            Place::Folder("02-Areas/Finance".into())
        );
        assert_eq!(
            place("move [[Q3]] to Work/finance/", TREE, "00-Inbox"),
            Place::Folder("Work/Finance".into())
        );
        assert_eq!(
            place("move [[Q3]] to Areas/Finance", TREE, "00-Inbox"),
            Place::Folder("02-Areas/Finance".into())
        );
        assert_eq!(
            place("move [[Q3]] to Archive/2025", TREE, "00-Inbox"),
            Place::Folder("04-Archive/2025".into())
        );
        assert_eq!(
            place("move [[Q3]] to Work/Taxes", TREE, "00-Inbox"),
            Place::New("Work/Taxes".into())
        );
    }

    #[test]
    fn a_folder_named_by_its_name_and_the_one_beside_a_folder_word_when_several() {
        assert_eq!(
            place("put [[Pancakes]] in the Recipes folder", TREE, "00-Inbox"),
            Place::Folder("03-Resources/Recipes".into())
        );
        assert_eq!(
            place("manda a nota [[Obra]] pra pasta Home", TREE, "00-Inbox"),
            Place::Folder("02-Areas/Home".into())
        );
        assert_eq!(
            place(
                "move [[Old plan]] to the archive folder",
                TREE,
                "01-Projects"
            ),
            Place::Folder("04-Archive".into())
        );
        // "Finance" names two folders
        assert!(matches!(
            place("move [[Q3]] into the Finance folder", TREE, "00-Inbox"),
            Place::Several(f) if f.len() == 2
        ));
        // names not beside a folder word are everyday words, not places
        assert_eq!(
            place(
                "file [[Q3]] under Home or Recipes, whichever folder fits",
                TREE,
                "00-Inbox"
            ),
            Place::Unnamed
        );
        assert_eq!(
            place(
                "move [[Q3]] to Taxes so I can read it at home, no folder",
                TREE,
                "00-Inbox"
            ),
            Place::Unnamed
        );
        assert_eq!(
            place("move [[Q3]] to some folder", TREE, "00-Inbox"),
            Place::Unnamed
        );
    }

    #[test]
    fn the_notes_own_folder_is_where_it_comes_from() {
        assert_eq!(
            place(
                "move [[Q3]] from Projects to the Archive folder",
                TREE,
                "01-Projects"
            ),
            Place::Folder("04-Archive".into())
        );
        assert_eq!(
            place(
                "move [[Q3]] from 02-Areas/Finance to Work/Finance",
                TREE,
                "02-Areas/Finance"
            ),
            Place::Folder("Work/Finance".into())
        );
        assert_eq!(
            place(
                "put [[Pancakes]] in the Recipes folder",
                TREE,
                "03-Resources/Recipes"
            ),
            Place::Already("03-Resources/Recipes".into())
        );
    }

    #[test]
    fn a_path_with_spaces_is_read_whole_and_a_new_folder_only_at_the_end_below_one_that_exists() {
        let tree = [
            "Me",
            "Me/Coding",
            "Me/Coding/Core Computer Science",
            "Me/Coding/Core Computer Science/DBMS",
            "Me/Coding/Core Computer Science/DBMS/theory",
            "Me/Coding/Python/theory",
        ];
        assert_eq!(
            place(
                "move [[MRO]] to Me/Coding/Core Computer Science/DBMS/theory",
                &tree,
                "Me/Coding/Python/theory"
            ),
            Place::Folder("Me/Coding/Core Computer Science/DBMS/theory".into())
        );
        assert_eq!(
            place(
                "move [[MRO]] to Me/Coding/Core Computer Science please",
                &tree,
                "Me/Coding/Python/theory"
            ),
            Place::Folder("Me/Coding/Core Computer Science".into())
        );
        // the path goes on with words that name no folder: where it ends is unclear
        assert_eq!(
            place("move [[MRO]] to Me/Coding/Tax Returns", &tree, "Me"),
            Place::Missing("Me/Coding/Tax".into())
        );
        assert_eq!(
            place("move [[MRO]] to Me/Coding/Rust.", &tree, "Me"),
            Place::New("Me/Coding/Rust".into())
        );
        assert_eq!(
            place("move [[MRO]] to Me/Nowhere/Rust", &tree, "Me"),
            Place::Missing("Me/Nowhere/Rust".into())
        );
    }

    #[test]
    fn a_path_and_a_folder_beside_a_folder_word_are_two_places() {
        assert!(matches!(
            place(
                "move [[Q3]] to the Recipes folder, not Work/Finance",
                TREE,
                "00-Inbox"
            ),
            Place::Several(f) if f.len() == 2
        ));
        // the words of the written path are not names of other folders
        assert_eq!(
            place("move [[Q3]] to the Work/Finance folder", TREE, "00-Inbox"),
            Place::Folder("Work/Finance".into())
        );
        // the note's own folder beside a folder word is where it comes from
        assert_eq!(
            place(
                "move [[Q3]] from the Projects folder to Work/Finance",
                TREE,
                "01-Projects"
            ),
            Place::Folder("Work/Finance".into())
        );
    }

    #[test]
    fn a_source_named_after_the_destination_is_a_disagreement() {
        // the note is in 02-Areas/Finance, the request says it is in Work/Finance
        assert!(matches!(
            place(
                "move [[Q3]] from Work/Finance to 02-Areas/Finance",
                TREE,
                "02-Areas/Finance"
            ),
            Place::Several(f) if f.len() == 2
        ));
        assert!(matches!(
            place(
                "move [[Q3]] from the Projects folder to the Archive folder",
                TREE,
                "04-Archive/2025"
            ),
            Place::Several(_)
        ));
    }

    #[test]
    fn a_new_folder_takes_the_vaults_spelling_and_a_name_a_link_can_reach() {
        assert_eq!(
            place("move [[Q3]] to work/Taxes", TREE, "00-Inbox"),
            Place::New("Work/Taxes".into())
        );
        for bad in ["Work/Q#4", "Work/a|b", "Work/[draft]", "Work/x^y"] {
            assert!(
                matches!(
                    place(&format!("move [[Q3]] to {bad}"), TREE, "00-Inbox"),
                    Place::Missing(_)
                ),
                "{bad}"
            );
        }
    }

    #[test]
    fn a_folder_named_last_as_the_vault_spells_it() {
        assert_eq!(
            place("move [[Q3]] to 04-Archive", TREE, "00-Inbox"),
            Place::Folder("04-Archive".into())
        );
        assert_eq!(
            place("move [[Q3]] to Recipes.", TREE, "00-Inbox"),
            Place::Folder("03-Resources/Recipes".into())
        );
        assert_eq!(
            place("move [[Q3]] to Recipes, please", TREE, "00-Inbox"),
            Place::Folder("03-Resources/Recipes".into())
        );
        assert!(matches!(
            place("move [[Q3]] to Finance", TREE, "00-Inbox"),
            Place::Several(f) if f.len() == 2
        ));
        assert_eq!(
            place(
                "move [[Q3]] to Contributing to Obsidian",
                &["Obsidian", "Contributing to Obsidian"],
                "Obsidian"
            ),
            Place::Folder("Contributing to Obsidian".into())
        );
        // in lower case, or not last, the word is the sentence's
        assert_eq!(
            place("move [[Q3]] to work", TREE, "00-Inbox"),
            Place::Unnamed
        );
        assert_eq!(
            place("move [[Q3]] to Recipes I think, or not", TREE, "00-Inbox"),
            Place::Unnamed
        );
    }

    #[test]
    fn names_without_their_numbers() {
        assert_eq!(name_forms("02-Areas"), ["02 areas", "areas"]);
        assert_eq!(name_forms("Recipes"), ["recipes"]);
        assert_eq!(name_forms("2025"), Vec::<String>::new());
    }
}
