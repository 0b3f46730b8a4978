//! Routing measured on phrasing nobody tuned to (issue #36): natural requests written before
//! the triggers were read (tests/fixtures/routing/heldout.yaml), the mode phrases MBIFC's own
//! agent prompts use (tests/fixtures/routing/mbifc-modes.yaml), and the model's
//! leave-one-phrase-out answers over the crew definition's own phrases.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use crew::crew::Crew;
use crew::dispatch::Router;
use crew::dispatch::learned::Model;
use serde::Deserialize;

#[derive(Deserialize)]
struct Set {
    requests: Vec<Request>,
}

#[derive(Deserialize)]
struct Request {
    lang: String,
    unit: String,
    #[serde(default)]
    also: Vec<String>,
    text: String,
    /// In the near-miss set: `other-sense` (a learned word used for something else) or
    /// `control` (the word in its learned sense).
    #[serde(default)]
    kind: String,
}

fn load(name: &str) -> Vec<Request> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/routing")
        .join(name);
    let text = std::fs::read_to_string(&path).expect("routing fixture");
    let set: Set = yaml_serde::from_str(&text).expect("routing fixture parses");
    set.requests
}

/// The share of a set routed to its unit (or an accepted alternative), per language and in
/// all, printed with the misses.
fn measure(crew: &Crew, set: &[Request], label: &str) -> f64 {
    let router = Router::new(crew);
    let mut per: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    // both sides of a route: how often it is right, and how often crew would act on a wrong
    // one (a decided route runs; a guessed one only plans)
    let (mut acted, mut acted_wrong) = (0, 0);
    let mut labelled = 0;
    for r in set {
        let route = router.route(crew, &r.text, &[], None);
        let e = per.entry(r.lang.as_str()).or_default();
        e.1 += 1;
        let as_labelled = route.name == r.unit || r.also.contains(&route.name);
        let right = as_labelled || any_transcript(&r.unit, &route.name);
        labelled += usize::from(as_labelled);
        if !route.guessed() {
            acted += 1;
            acted_wrong += usize::from(!right);
        }
        if right {
            e.0 += 1;
        } else {
            misses.push(format!(
                "  {} {:?} → {} ({}), want {}",
                r.lang, r.text, route.name, route.reason, r.unit
            ));
        }
    }
    let right: usize = per.values().map(|v| v.0).sum();
    let pct = right as f64 * 100.0 / set.len() as f64;
    let langs: Vec<String> = per
        .iter()
        .map(|(l, (r, t))| format!("{l} {r}/{t}"))
        .collect();
    eprintln!(
        "{label}: {right}/{} = {pct:.1} % ({}); decided {acted}, of them wrong {acted_wrong} \
         ({:.1} % of the set acted on wrongly); as labelled {labelled}\n{}",
        set.len(),
        langs.join(", "),
        acted_wrong as f64 * 100.0 / set.len() as f64,
        misses.join("\n")
    );
    pct
}

/// Whether a route to `routed` serves a request labelled `unit` though it is not that unit:
/// the transcribe skill serves every kind of transcript — meeting, lecture, podcast, interview,
/// voice journal, as its definition says (MBIFC routes nearly every transcript to it and keeps
/// the transcriber agent for edge cases) — so a request its writer gave the transcriber is
/// served by the skill too. The one-line roles the later writers saw gave the skill meetings
/// only (docs/routing.md, "The transcript skill").
fn any_transcript(unit: &str, routed: &str) -> bool {
    unit == "transcriber" && routed == "transcribe"
}

/// The share of the set in `file` routed right, which must not fall below `floor` (%).
fn holds(file: &str, label: &str, floor: f64) {
    let pct = measure(&Crew::builtin(), &load(file), label);
    assert!(pct >= floor, "{label} fell to {pct:.1} % (floor {floor} %)");
}

/// Both sides of a boundary: the requests of the set in `file` labelled `unit` and the others,
/// each measured under its label, each kept at or above its floor (%).
fn both_sides(file: &str, unit: &str, labels: [&str; 2], floors: [f64; 2]) {
    let (one, other): (Vec<Request>, Vec<Request>) =
        load(file).into_iter().partition(|r| r.unit == unit);
    let crew = Crew::builtin();
    let pcts = [
        measure(&crew, &one, labels[0]),
        measure(&crew, &other, labels[1]),
    ];
    assert!(
        pcts[0] >= floors[0] && pcts[1] >= floors[1],
        "{} / {} fell to {:.1} % / {:.1} % (floors {} % / {} %)",
        labels[0],
        labels[1],
        pcts[0],
        pcts[1],
        floors[0],
        floors[1]
    );
}

// The goal of the held-out sets is 90 %; each floor is where the set stood when it was last
// measured (docs/routing.md).

/// Natural requests written before the triggers were read.
#[test]
fn natural_requests_written_before_the_triggers() {
    holds("heldout.yaml", "held-out requests", 87.0);
}

/// A second set, written on 2026-12-04 by a writer who saw only the units' one-line roles:
/// 65.3 % when added, 73.5 % after the definition's vocabulary was written in every language,
/// 75.5 % after its Japanese was filled out, 79.6 % after the vocabulary a fourth set showed
/// missing, 77.6 % once the words of it that were too broad went, 82.7 % once the learned
/// model decided over the scorer by a phrase sharing two words with the message, 84.7 % with
/// the definition's example requests.
/// Its summary line was looked at after each change since, never its misses.
#[test]
fn natural_requests_of_a_writer_who_saw_only_the_roles() {
    holds("heldout-2.yaml", "second held-out set", 84.0);
}

/// A third set, written on 2026-12-05 by a helper that saw only the units' one-line roles
/// (never a trigger, vocabulary list or earlier set): 71.4 % when added, 72.4 % after the
/// definition's Japanese was filled out, 77.6 % after the vocabulary a fourth set showed
/// missing, 76.5 % once the words of it that were too broad went, 77.6 % with the learned
/// model over the scorer by a phrase sharing two words, 78.6 % with the definition's example
/// requests (all without reading this set's misses).
#[test]
fn natural_requests_of_a_third_writer() {
    holds("heldout-3.yaml", "third held-out set", 78.0);
}

/// A fifth set, written on 2026-12-05 by a helper that saw only the units' one-line roles,
/// after the learned model had been seen doing better than the scorer on the held-out sets'
/// summary lines: measured once, before anyone read it, under the rule of the day (73.5 %),
/// the model deciding over the scorer whenever it is sure (82.7 %), and over the scorer only
/// by a phrase sharing two words with the message (78.6 %, the rule kept: the other broke
/// requests the language tests hold); 84.7 % with the definition's example requests. Its
/// misses are not read.
#[test]
fn natural_requests_of_a_fifth_writer() {
    holds("heldout-5.yaml", "fifth held-out set", 88.0);
}

/// A sixth set, written on 2026-12-05 by a helper that saw only the units' one-line roles,
/// after the learned model was let decide over the scorer: measured once, before anyone read
/// it, under that rule (73.5 %), the rule before it (71.4 %), and the model choosing within a
/// family whenever sure (73.5 %, not kept); 79.6 % once the definition's agents and skills
/// carried example requests a helper wrote without seeing any set; 80.6 % with "a note and a
/// place", 81.6 % once a link's name was no request. Its misses are not read.
#[test]
fn natural_requests_of_a_sixth_writer() {
    holds("heldout-6.yaml", "sixth held-out set", 84.0);
}

/// A seventh set, written on 2026-12-05 by a helper that saw only the units' one-line roles,
/// after the definition's example requests: measured once before anyone read it (65.3 %), then
/// once with a second round of blind-written example requests (72.4 %, kept); 73.5 % with
/// "a note and a place".
#[test]
fn natural_requests_of_a_seventh_writer() {
    holds("heldout-7.yaml", "seventh held-out set", 76.0);
}

/// An eighth set, written on 2026-12-05 by a helper that saw only the units' one-line roles,
/// after the second round of example requests: 74.5 % when first measured. A third round of
/// blind-written example requests raised it to 75.5 % but lowered the near misses (54 to 53
/// of 84) and was not kept (docs/routing.md). Its misses are not read.
#[test]
fn natural_requests_of_an_eighth_writer() {
    holds("heldout-8.yaml", "eighth held-out set", 77.0);
}

/// A ninth set, written on 2026-12-06 by a helper that saw only the units' one-line roles,
/// never a trigger, vocabulary list, example request or earlier set: 68.4 % when first
/// measured, the same with "a note and a place", 69.4 % once a link's name was no request
/// (docs/routing.md). Its misses are not read.
#[test]
fn natural_requests_of_a_ninth_writer() {
    holds("heldout-9.yaml", "ninth held-out set", 75.0);
}

/// A tenth set, written on 2026-12-06 by a helper that saw only the units' one-line roles,
/// never a trigger, vocabulary list, example request or earlier set: 67.3 % as labelled when
/// first measured, 70.4 % with every transcript the transcribe skill's ([`any_transcript`]).
/// Its misses are not read.
#[test]
fn natural_requests_of_a_tenth_writer() {
    holds("heldout-10.yaml", "tenth held-out set", 70.0);
}

/// An eleventh set, written on 2026-12-07 by a helper that saw only the units' one-line
/// roles (rewritten that day) and nothing of the router: measured once before anything was
/// read (docs/routing.md). Its misses are not read.
#[test]
fn natural_requests_of_an_eleventh_writer() {
    holds("heldout-11.yaml", "eleventh held-out set", 80.0);
}

/// A twelfth set, written on 2026-12-07 by a helper that saw only the units' one-line roles
/// and nothing of the router, its content kept from the router's author until it was
/// measured (docs/routing.md). Its misses are not read.
#[test]
fn natural_requests_of_a_twelfth_writer() {
    holds("heldout-12.yaml", "twelfth held-out set", 80.0);
}

/// A development set, written on 2026-12-04 the same way as the second held-out set: read to
/// find what the router misses, so its figure is no evidence of generalisation (68.6 % when
/// added, 91.4 % after the vocabulary it showed missing and two general rules, 90.5 % with
/// the learned model over the scorer, 88.6 % with the definition's example requests).
#[test]
fn development_requests() {
    holds("dev-3.yaml", "development set", 89.0);
}

/// A second development set, written on 2026-12-05 by a helper that saw only the units'
/// one-line roles: measured once as a held-out set before it was read (65.3 %; 71.4 % with
/// each skill's agent counted right, as its writer had it), then read to find what the router
/// misses, so its figure since is no evidence of generalisation (79.6 % after two rounds of
/// vocabulary and the near-miss pruning, 82.7 % with the learned model over the scorer,
/// 88.8 % with the definition's example requests).
#[test]
fn development_requests_of_a_fourth_writer() {
    holds("dev-4.yaml", "second development set", 88.0);
}

/// A third development set, written on 2026-12-06 by a helper that saw only the units'
/// one-line roles and was asked for the hard distinctions (one note vs the whole inbox, a
/// check vs an audit vs a clean-up, a striking word that points the wrong way). Measured once
/// as a held-out set before it was read (73.5 %), then read to find general rules (76.5 %
/// with "a note and a place").
#[test]
fn development_requests_of_a_fifth_writer() {
    holds("dev-5.yaml", "third development set", 82.0);
}

/// A fourth development set, written on 2026-12-06 by a helper that saw only the units'
/// one-line roles and was asked for the hard distinctions between units that are easy to
/// confuse. Measured once as a held-out set before it was read: 76.5 % as labelled, 81.6 %
/// with every transcript the transcribe skill's.
#[test]
fn development_requests_of_a_sixth_writer() {
    holds("dev-6.yaml", "fourth development set", 81.0);
}

/// Both sides of the vocabulary learned on 2026-12-05: 84 requests where one of its words is
/// used in another sense (whose unit is another), and 28 controls in its own sense, written by
/// a helper from the list of words alone. Before that vocabulary: 58/84 and 14/28; with all
/// of it 46/84 and 24/28; without the words that were too broad 57/84 and 25/28; with the
/// learned model deciding over the scorer by a phrase sharing two words 53/84 and 26/28 (the
/// four lost are guesses, which only plan; none of the set is decided wrongly); with the
/// definition's example requests 54/84 and 26/28.
#[test]
fn words_learned_used_in_another_sense() {
    let set = load("near-miss.yaml");
    let (other, control): (Vec<Request>, Vec<Request>) =
        set.into_iter().partition(|r| r.kind == "other-sense");
    assert_eq!(
        (other.len(), control.len()),
        (84, 28),
        "the set's two halves"
    );
    let crew = Crew::builtin();
    let other = measure(&crew, &other, "near misses, the word in another sense");
    let control = measure(&crew, &control, "near misses, the word in its own sense");
    assert!(
        other >= 64.0 && control >= 92.0,
        "near misses fell to {other:.1} % / {control:.1} % (floors 64 % / 92 %)"
    );
}

#[test]
fn mode_phrases_of_mbifcs_agent_prompts() {
    holds("mbifc-modes.yaml", "MBIFC mode phrases", 85.0);
}

/// Misses issue #36 reports, each routed as the user meant. Guessed: the one a trigger caused
/// (the learned model reads the whole message and overrules the seeker's trigger "find"),
/// and the three quick checks the scorer gave the scribe on one word ("veloce", "rapide",
/// "schnelle"), which the model reads in the librarian's own mode phrase. Decided by the
/// user's words: the plumber's visit ("comes" is a filler word, no longer an inflection of
/// "comenzar"), the agent asked for politely (a request put as a question is no question),
/// the week plan ("zeig mir" names nothing, so its object routes) and the lunch to schedule
/// (the verb is the postman's word, "my schedule" the week's).
#[test]
fn the_misses_a_user_noticed() {
    let crew = Crew::builtin();
    let router = Router::new(&crew);
    for (message, want) in [
        ("find hidden connections between my book notes", "connector"),
        ("controllo veloce", "librarian"),
        ("vérification rapide", "librarian"),
        ("schnelle Prüfung", "librarian"),
        ("zeig mir meinen Wochenplan", "weekly-agenda"),
    ] {
        let r = router.route(&crew, message, &[], None);
        assert_eq!(r.name, want, "{message}: {}", r.reason);
        // a guess: an agent that writes only plans
        assert!(r.guessed(), "{message}: {}", r.reason);
    }
    // a one-word scorer route stands when the model's phrase does not use that word
    let r = router.route(&crew, "ノートをつなげて", &[], None);
    assert_eq!(r.name, "connector", "{}", r.reason);
    for (message, want) in [
        ("note that the plumber comes on Thursday at 9", "scribe"),
        (
            "can you build me an agent that tracks my workouts?",
            "create-agent",
        ),
        ("schedule lunch with Marco next Tuesday at noon", "postman"),
    ] {
        let r = router.route(&crew, message, &[], None);
        assert_eq!(r.name, want, "{message}: {}", r.reason);
    }
    // a verb that names nothing yields to its object; a question's words do not
    let r = router.route(&crew, "hey crew, wo habe ich please, thanks!", &[], None);
    assert_eq!(r.name, "seeker", "{}", r.reason);
    // "my schedule" explains no lone "schedule" it is not written beside
    let r = router.route(&crew, "what's my schedule this week", &[], None);
    assert_eq!(r.name, "weekly-agenda", "{}", r.reason);
}

/// Leave-one-phrase-out over the definition's own phrases, per unit and per language: the
/// figures docs/routing.md reports. The floor guards against a regression of the measured
/// figure (69.5 % when written).
#[test]
fn leave_one_phrase_out_per_unit_and_language() {
    let crew = Crew::builtin();
    let model = Model::of(&crew);
    let loo = model.leave_one_out();
    let mut unit: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut lang: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut source: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut right = 0;
    for &(p, answered, _, _) in &loo {
        let phrase = &model.phrases()[p];
        let ok = answered == phrase.unit;
        right += usize::from(ok);
        let code = crew::lang::detect(&phrase.text).map_or("?", |l| l.code());
        for (map, key) in [
            (&mut unit, model.units()[phrase.unit].name.clone()),
            (&mut lang, code.to_string()),
            (&mut source, phrase.source.as_str().to_string()),
        ] {
            let e = map.entry(key).or_default();
            e.0 += usize::from(ok);
            e.1 += 1;
        }
    }
    let show = |m: &BTreeMap<String, (usize, usize)>| {
        m.iter()
            .map(|(k, (r, t))| format!("{k} {r}/{t} ({} %)", r * 100 / t.max(&1)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let pct = right as f64 * 100.0 / loo.len() as f64;
    eprintln!(
        "leave-one-phrase-out: {right}/{} = {pct:.1} %, margin and least score {:.3?}\nper unit: {}\nper language: {}\nper source: {}",
        loo.len(),
        model.calibration(),
        show(&unit),
        show(&lang),
        show(&source)
    );
    assert!(pct >= 65.0, "leave-one-out fell to {pct:.1} %");
}

fn copy_tree(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.expect("walk");
        let target = to.join(entry.path().strip_prefix(from).expect("inside"));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).expect("mkdir");
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

/// A custom agent routes by its own file and registry row, with no code change: a request in
/// its words, none of them a trigger, reaches it.
#[test]
fn a_custom_agent_routes_by_its_own_file() {
    let anchor = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault");
    let dir = tempfile::tempdir().expect("tmp");
    copy_tree(&anchor, dir.path());
    let claude = dir.path().join(".claude");
    std::fs::write(
        claude.join("agents/gardener.md"),
        "---\nname: gardener\ndescription: >\n  Keeps the garden journal: watering schedules, \
         plant care, pests and harvests. Use when the user says: \"garden log\".\n\
         tools: Read, Write\nmodel: sonnet\n---\n# gardener\n\nInstructions.\n",
    )
    .expect("agent file");
    let registry = claude.join("references/agents-registry.md");
    let text = std::fs::read_to_string(&registry).expect("registry");
    let row =
        "| gardener | gardener | Read, Write | tomatoes, seedlings, compost | notes | active |\n";
    let text = text.replace(
        "<!-- MBIFC:CUSTOM_AGENTS_END -->",
        &format!("{row}<!-- MBIFC:CUSTOM_AGENTS_END -->"),
    );
    std::fs::write(&registry, text).expect("registry");
    let crew = Crew::load(dir.path(), None).expect("crew");
    let router = Router::new(&crew);
    for message in [
        "my tomatoes have pests again",
        "when should I water the seedlings?",
    ] {
        let r = router.route(&crew, message, &[], None);
        assert_eq!(r.name, "gardener", "{message:?}: {}", r.reason);
    }
}

/// Both sides of "a note and a place": 70 requests that each name one note by its link and a
/// folder, written from the one-line roles on 2026-12-06 after the rule — 28 that file the
/// note (the sorter's) and 42 that ask another unit for something else. Its writer was told
/// the rule, to test both sides of it. Before the rule 5/28 and 31/42, two acted on wrongly;
/// with it 25/28 and 31/42, none (docs/routing.md).
#[test]
fn a_note_and_a_place_on_both_sides() {
    both_sides(
        "note-and-place.yaml",
        "sorter",
        [
            "a note and a place, filed",
            "a note and a place, asked for something else",
        ],
        [89.0, 73.0],
    );
}

/// Both sides of the seeker and the connector: 56 questions that all speak of links, most
/// with a word of absence or obligation, written from the two roles on 2026-12-07 — 28 that
/// look something up (the seeker's: which notes link to one, a web link not found) and 28
/// about links that are missing or should exist (the connector's). It measured a rule that
/// sent a question holding a link word and an absence word to the connector: 19/28 and
/// 24/28, against 25/28 and 20/28 without it, so the rule was not kept (docs/routing.md).
#[test]
fn questions_about_links_on_both_sides() {
    both_sides(
        "link-questions.yaml",
        "seeker",
        [
            "questions about links, looked up",
            "questions about links, missing ones",
        ],
        [89.0, 71.0],
    );
}

/// Both sides of "a meeting ahead, to prepare for": 84 requests that each mention a meeting,
/// call or appointment at a time, written from the roles on 2026-12-07 — 42 that get ready
/// for it (meeting-prep) and 42 that ask something else of it (move it, note something, a
/// fact from the notes, the week, a transcript). With the brief's words ("last time", "what
/// to know before") in the skill's vocabulary: 19/42 and 29/42 (25 as labelled), against
/// 14/42 and 25/42 as labelled before; either way 4 of the others went to meeting-prep
/// (docs/routing.md).
#[test]
fn a_meeting_ahead_on_both_sides() {
    both_sides(
        "meeting-ahead.yaml",
        "meeting-prep",
        [
            "a meeting ahead, prepared for",
            "a meeting ahead, asked for something else",
        ],
        [45.0, 68.0],
    );
}
