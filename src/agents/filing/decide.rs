//! Where one inbox note goes: evidence from the note and the vault, weighed without touching
//! anything. Each kind of evidence is one function; [`rank`] turns candidates into a decision.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDate;

use super::trust::{Kind, Trust};
use crate::agents::common::{self, fold, link_value_name};
use crate::agents::filing::Learned;
use crate::crew::Folders;
use crate::vault::Vault;

/// One filing decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Decision {
    /// Where the note goes; `None`: it stays.
    pub dest: Option<String>,
    pub confidence: u32,
    pub evidence: String,
    /// A home the note names that does not exist yet (for the architect).
    pub missing: Option<String>,
    /// Kinds of evidence the note had that this vault contradicts, so they were not used.
    pub ignored: Vec<Kind>,
}

impl Decision {
    /// The user's own decision (`crew triage --into FOLDER`).
    pub(crate) fn asked(folder: &str) -> Decision {
        Decision {
            dest: Some(folder.to_string()),
            confidence: 100,
            evidence: format!("asked: into {folder}"),
            missing: None,
            ignored: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
struct Candidate {
    folder: String,
    confidence: u32,
    evidence: String,
    kind: Kind,
}

impl Candidate {
    fn new(kind: Kind, folder: &str, confidence: u32, evidence: String) -> Candidate {
        Candidate {
            folder: folder.to_string(),
            confidence,
            evidence,
            kind,
        }
    }
}

/// What a decision looks at: the vault, its folder roles and the homes that exist now.
pub(crate) struct Scene<'a> {
    pub vault: &'a Vault,
    pub folders: &'a Folders,
    /// Folders a note can be filed into (see [`homes`]).
    pub homes: &'a [String],
    pub today: NaiveDate,
    /// The confidence a decision needs (config `triage_confidence`).
    pub threshold: u32,
    /// Whether a folder exists now, as the run sees the vault (folders it made included).
    pub dir_exists: &'a (dyn Fn(&str) -> bool + Sync),
    /// The kinds of evidence this vault bears out; `None`: every kind counts.
    pub trust: Option<&'a Trust>,
}

/// Folders a note can be filed into: project folders, area folders (two levels) and
/// resource topics, as they exist now.
pub(crate) fn homes(folders: &Folders, subdirs: impl Fn(&str) -> Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for root in [&folders.projects, &folders.areas, &folders.resources] {
        for d in subdirs(root) {
            if root == &folders.areas {
                out.push(d.clone());
                out.extend(subdirs(&d));
            } else {
                out.push(d);
            }
        }
    }
    out
}

pub(crate) fn last_segment(folder: &str) -> &str {
    folder.rsplit('/').next().unwrap_or(folder)
}

/// The filing home of a note elsewhere in the vault: its folder when that is inside projects,
/// areas or resources.
fn home_of(f: &Folders, path: &str) -> Option<String> {
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

/// Every piece of explicit evidence for a note, and the homes it names that do not exist yet
/// (with the kind that named them).
fn evidence(scene: &Scene, note_idx: usize) -> (Vec<Candidate>, Vec<(Kind, String)>) {
    let mut cands = Vec::new();
    let mut missing = Vec::new();
    named_homes(scene, note_idx, &mut cands, &mut missing);
    typed_home(scene, note_idx, &mut cands, &mut missing);
    cands.extend(tagged_homes(scene, note_idx));
    cands.extend(linked_home(scene, note_idx));
    cands.extend(titled_homes(scene, note_idx));
    (cands, missing)
}

/// Decides where one inbox note goes from explicit evidence alone, leaving out the kinds of
/// evidence the vault does not bear out (`scene.trust`; they are named in `ignored`).
pub fn decide(scene: &Scene, note_idx: usize) -> Decision {
    let trusted = |kind: Kind| scene.trust.is_none_or(|t| t.trusted(kind));
    let (mut cands, missing) = evidence(scene, note_idx);
    let mut ignored: Vec<Kind> = cands
        .iter()
        .map(|c| c.kind)
        .chain(missing.iter().map(|(k, _)| *k))
        .filter(|k| !trusted(*k))
        .collect();
    ignored.sort();
    ignored.dedup();
    // a home named by evidence the vault contradicts is no sign that a home is missing
    let missing = missing
        .into_iter()
        .find(|(k, _)| trusted(*k))
        .map(|(_, home)| home);
    cands.retain(|c| trusted(c.kind));
    Decision {
        ignored,
        ..rank(&cands, missing, scene.threshold)
    }
}

/// Where each kind of evidence, alone, would send a note (kinds that would not file it left
/// out): what [`Trust`] measures on filed notes.
pub(crate) fn decide_each_kind(scene: &Scene, note_idx: usize) -> Vec<(Kind, String)> {
    let (cands, _) = evidence(scene, note_idx);
    let mut kinds: Vec<Kind> = cands.iter().map(|c| c.kind).collect();
    kinds.sort();
    kinds.dedup();
    kinds
        .into_iter()
        .filter_map(|kind| {
            let alone: Vec<Candidate> = cands.iter().filter(|c| c.kind == kind).cloned().collect();
            rank(&alone, None, scene.threshold)
                .dest
                .map(|dest| (kind, dest))
        })
        .collect()
}

/// `project:` and `area:` naming a home; a named home that does not exist is `missing`.
fn named_homes(
    scene: &Scene,
    note_idx: usize,
    cands: &mut Vec<Candidate>,
    missing: &mut Vec<(Kind, String)>,
) {
    let note = &scene.vault.notes[note_idx];
    let f = scene.folders;
    for (key, root, confidence) in [("project", &f.projects, 95), ("area", &f.areas, 90)] {
        let Some(value) = note.property_str(key) else {
            continue;
        };
        let name = link_value_name(&value);
        if name.is_empty() {
            continue;
        }
        match find_home(scene.homes, root, &name) {
            Some(h) => {
                let kind = if key == "project" {
                    Kind::Project
                } else {
                    Kind::Area
                };
                let evidence = if key == "project" {
                    format!("project: [[{name}]]")
                } else {
                    format!("area: {name}")
                };
                cands.push(Candidate::new(kind, h, confidence, evidence));
            }
            None => {
                let kind = if key == "project" {
                    Kind::Project
                } else {
                    Kind::Area
                };
                missing.push((kind, format!("{root}/{}", common::safe_title(&name, 60))));
            }
        }
    }
}

/// `type:` naming a kind of note with a folder of its own (meetings, people, daily notes…).
fn typed_home(
    scene: &Scene,
    note_idx: usize,
    cands: &mut Vec<Candidate>,
    missing: &mut Vec<(Kind, String)>,
) {
    let note = &scene.vault.notes[note_idx];
    let f = scene.folders;
    let exists = scene.dir_exists;
    let kind = note.property_str("type").unwrap_or_default().to_lowercase();
    match kind.as_str() {
        "meeting" => {
            let date = note
                .property_str("date")
                .and_then(|d| common::parse_date(&d))
                .unwrap_or(scene.today);
            if exists(&f.meetings) {
                let folder = format!("{}/{}", f.meetings, date.format("%Y/%m"));
                cands.push(Candidate::new(
                    Kind::Meeting,
                    &folder,
                    85,
                    "type: meeting".into(),
                ));
            } else {
                missing.push((Kind::Meeting, f.meetings.clone()));
            }
        }
        "person" | "person-note" => {
            if exists(&f.people) {
                cands.push(Candidate::new(
                    Kind::Person,
                    &f.people,
                    90,
                    format!("type: {kind}"),
                ));
            } else {
                missing.push((Kind::Person, f.people.clone()));
            }
        }
        "daily" if exists(&f.daily) => {
            cands.push(Candidate::new(
                Kind::Daily,
                &f.daily,
                90,
                "type: daily".into(),
            ));
        }
        "moc" => cands.push(Candidate::new(Kind::Moc, &f.moc, 90, "type: moc".into())),
        "reference" if exists(&f.resources) => {
            cands.push(Candidate::new(
                Kind::Reference,
                &f.resources,
                60,
                "type: reference".into(),
            ));
        }
        _ => {}
    }
}

/// Tags naming an existing project, area or resource topic (`#area/health` names Health).
fn tagged_homes(scene: &Scene, note_idx: usize) -> Vec<Candidate> {
    let note = &scene.vault.notes[note_idx];
    let resources = format!("{}/", scene.folders.resources);
    let mut out = Vec::new();
    for tag in note.tags_normalized() {
        let leaf = fold(tag.rsplit('/').next().unwrap_or(&tag));
        if leaf.len() < 3 {
            continue;
        }
        for h in scene.homes.iter().filter(|h| fold(last_segment(h)) == leaf) {
            let confidence = if h.starts_with(&resources) { 70 } else { 75 };
            out.push(Candidate::new(
                Kind::Tag,
                h,
                confidence,
                format!("tag #{tag}"),
            ));
        }
    }
    out
}

/// Where the notes it links to, and that link to it, live: one home holding most of them.
fn linked_home(scene: &Scene, note_idx: usize) -> Option<Candidate> {
    let vault = scene.vault;
    let mut related: BTreeSet<usize> = vault.resolved[note_idx]
        .iter()
        .filter_map(|r| r.file().and_then(|id| vault.note_of_file(id)))
        .collect();
    related.extend(vault.links_to(note_idx).into_iter().map(|(src, _)| src));
    let mut by_home: BTreeMap<String, usize> = BTreeMap::new();
    for n in related.into_iter().filter(|&n| n != note_idx) {
        if let Some(h) = home_of(scene.folders, &vault.notes[n].path) {
            *by_home.entry(h).or_default() += 1;
        }
    }
    let total: usize = by_home.values().sum();
    let (h, &count) = by_home
        .iter()
        .max_by_key(|(h, c)| (**c, std::cmp::Reverse((*h).clone())))?;
    (count * 2 > total || count >= 3).then(|| {
        let confidence = (55 + 10 * count as u32).min(85);
        let plural = if count == 1 { "" } else { "s" };
        Candidate::new(
            Kind::Link,
            h,
            confidence,
            format!("links to {count} note{plural} there"),
        )
    })
}

/// Title words naming a project or area.
fn titled_homes(scene: &Scene, note_idx: usize) -> Vec<Candidate> {
    use crate::text::normalize;
    let note = &scene.vault.notes[note_idx];
    let title = format!(" {} ", normalize(note.name()));
    let resources = format!("{}/", scene.folders.resources);
    scene
        .homes
        .iter()
        .filter(|h| !h.starts_with(&resources))
        .filter(|h| {
            let seg = normalize(last_segment(h));
            seg.chars().count() >= 4 && title.contains(&format!(" {seg} "))
        })
        .map(|h| {
            Candidate::new(
                Kind::Title,
                h,
                65,
                format!("title names {}", last_segment(h)),
            )
        })
        .collect()
}

/// Strongest evidence wins; agreeing evidence adds up; a tie between homes is not decided.
fn rank(cands: &[Candidate], missing: Option<String>, threshold: u32) -> Decision {
    let mut score: BTreeMap<String, (u32, Vec<String>)> = BTreeMap::new();
    for c in cands {
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
    match ranked.as_slice() {
        [] => Decision {
            dest: None,
            confidence: 0,
            evidence: match &missing {
                Some(m) => format!("its home {m} does not exist yet"),
                None => "no project, area, type, tag or link points to a home".into(),
            },
            missing,
            ignored: Vec::new(),
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
            ignored: Vec::new(),
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
            ignored: Vec::new(),
        },
        [first, ..] => Decision {
            dest: Some(first.0.clone()),
            confidence: first.1,
            evidence: first.2.join(", "),
            missing: None,
            ignored: Vec::new(),
        },
    }
}

/// When explicit evidence (`project:`, `area:`, `type:`, tags, links, title) found no home:
/// what the vault's filed notes teach (`learned`), filed only when its calibrated margin is
/// reached. `text` is the note's text as the run sees it.
pub(crate) fn learned_decision(
    vault: &Vault,
    note_idx: usize,
    text: &str,
    explicit: Decision,
    learned: &Learned,
) -> Decision {
    let guess = learned.guess(vault, note_idx, text);
    learned.note_homeless(&vault.notes[note_idx].path, &guess);
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
            ignored: Vec::new(),
        },
        _ => Decision {
            evidence: learned.unsure_reason(&guess),
            ..explicit
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(folder: &str, confidence: u32, evidence: &str) -> Candidate {
        Candidate::new(Kind::Tag, folder, confidence, evidence.into())
    }

    #[test]
    fn agreeing_evidence_adds_up_and_ties_are_not_decided() {
        let d = rank(
            &[cand("P/A", 75, "tag #a"), cand("P/A", 65, "title names A")],
            None,
            80,
        );
        assert_eq!(d.dest.as_deref(), Some("P/A"));
        assert_eq!(d.confidence, 80);
        assert_eq!(d.evidence, "tag #a, title names A");
        let tie = rank(&[cand("P/A", 90, "x"), cand("P/B", 90, "y")], None, 80);
        assert_eq!(tie.dest, None);
        assert!(
            tie.evidence.starts_with("two homes fit equally"),
            "{}",
            tie.evidence
        );
        let weak = rank(&[cand("P/A", 65, "title names A")], None, 80);
        assert_eq!(weak.dest, None);
        assert!(weak.evidence.contains("65 < 80"), "{}", weak.evidence);
        let none = rank(&[], Some("01-Projects/X".into()), 80);
        assert_eq!(none.missing.as_deref(), Some("01-Projects/X"));
    }
}
