//! Natural phrasing: requests written from what each agent and skill is for, in seven
//! languages, with none of the trigger phrases (tests/fixtures/paraphrases-7lang.tsv). The
//! offline router must send at least 90 % of each language to the right place.

use std::collections::BTreeMap;
use std::path::Path;

use crew::crew::Crew;
use crew::dispatch::Router;

const LANGUAGES: &[&str] = &["EN", "IT", "FR", "ES", "DE", "PT", "JA"];
const MIN_PERCENT: usize = 90;

struct Case {
    lang: String,
    kind: String,
    name: String,
    message: String,
}

fn cases() -> Vec<Case> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/paraphrases-7lang.tsv");
    let text = std::fs::read_to_string(&path).expect("paraphrase fixture");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 4, "bad fixture line: {l:?}");
            Case {
                lang: f[0].to_string(),
                kind: f[1].to_string(),
                name: f[2].to_string(),
                message: f[3].to_string(),
            }
        })
        .collect()
}

/// Right answers per language, and the misses.
fn score(crew: &Crew) -> (BTreeMap<String, (usize, usize)>, Vec<String>) {
    let router = Router::new(crew);
    let mut per: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for c in cases() {
        let r = router.route(crew, &c.message, &[], None);
        let e = per.entry(c.lang.clone()).or_default();
        e.1 += 1;
        if (r.kind.as_str(), r.name.as_str()) == (c.kind.as_str(), c.name.as_str()) {
            e.0 += 1;
        } else {
            misses.push(format!(
                "{} {:?} → {} {} ({}), want {} {}",
                c.lang, c.message, r.kind, r.name, r.reason, c.kind, c.name
            ));
        }
    }
    (per, misses)
}

fn report(label: &str, per: &BTreeMap<String, (usize, usize)>, misses: &[String]) -> String {
    let mut out = format!("{label}:");
    let (mut right, mut total) = (0, 0);
    for (lang, (r, t)) in per {
        out.push_str(&format!(" {lang} {r}/{t} ({} %)", r * 100 / t));
        right += r;
        total += t;
    }
    out.push_str(&format!(
        " — all {right}/{total} ({:.1} %)",
        right as f64 * 100.0 / total as f64
    ));
    for m in misses {
        out.push_str("\n  ");
        out.push_str(m);
    }
    out
}

#[test]
fn the_fixture_covers_seven_languages_and_every_route() {
    let crew = Crew::builtin();
    let cases = cases();
    for lang in LANGUAGES {
        let n = cases.iter().filter(|c| c.lang == *lang).count();
        assert!(
            n >= 30,
            "{lang} has {n} paraphrases; at least 30 are needed"
        );
    }
    for c in &cases {
        assert!(
            crew.lookup(&c.name).is_some(),
            "{:?} expects `{}`, which the crew does not have",
            c.message,
            c.name
        );
    }
    // every skill and every agent but the transcriber (whose requests the transcribe skill
    // takes) is asked for in every language
    for lang in LANGUAGES {
        for route in crew.skills.iter().chain(&crew.agents) {
            if route.name == "transcriber" {
                continue;
            }
            assert!(
                cases
                    .iter()
                    .any(|c| c.lang == *lang && c.name == route.name),
                "{lang} has no paraphrase for {}",
                route.name
            );
        }
    }
}

#[test]
fn paraphrases_route_right_in_every_language() {
    let crew = Crew::builtin();
    let (per, misses) = score(&crew);
    let text = report("built-in crew", &per, &misses);
    // an anchor-installed crew's files carry triggers only; it borrows the built-in
    // vocabulary and example requests for the roles it shares, and must do as well
    let anchor = Crew::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/anchor-vault"),
        None,
    )
    .expect("anchor crew");
    let seeker = anchor.agent("seeker").expect("the anchor's seeker");
    assert!(
        !seeker.examples.is_empty()
            && seeker.examples == Crew::builtin().agent("seeker").unwrap().examples,
        "an installed role borrows the built-in example requests"
    );
    let (anchor_per, _) = score(&anchor);
    // print even when passing: the figures are the point
    {
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "{text}\n{}",
            report("anchor-installed crew", &anchor_per, &[])
        );
    }
    for (label, per) in [("built-in", &per), ("anchor-installed", &anchor_per)] {
        for lang in LANGUAGES {
            let (r, t) = per.get(*lang).copied().unwrap_or((0, 1));
            assert!(
                r * 100 >= MIN_PERCENT * t,
                "{label} crew: {lang} fell to {r}/{t}, below {MIN_PERCENT} %\n{text}"
            );
        }
    }
}
