//! Replies in the language of the request (EN IT FR ES DE PT JA), from the message catalogues:
//! the headings and fixed sentences change, the figures and the `--json` structure do not.

mod common;

use std::collections::BTreeSet;

use common::{crew, json_of, vault};
use serde_json::Value;

/// A small vault with something to report: a broken link, an orphan, an inbox note.
fn messy_vault() -> assert_fs::TempDir {
    vault(&[
        (
            "Projects/Alpha.md",
            "---\ntype: project\n---\n# Alpha\n\nSee [[Missing Note]] and [[Beta]].\n",
        ),
        ("Projects/Beta.md", "# Beta\n\nBack to [[Alpha]].\n"),
        ("Lonely.md", "# Lonely\n\nNobody links here.\n"),
        ("00-Inbox/idea.md", "# Idea\n\nA thought to file later.\n"),
    ])
}

fn ask(v: &std::path::Path, args: &[&str]) -> Value {
    let mut all = vec!["ask", "--json"];
    all.extend_from_slice(args);
    json_of(crew(v).env("CREW_TODAY", "2026-03-10").args(&all))
}

fn output(j: &Value) -> String {
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

/// The human reply (no `--json`).
fn reply(v: &std::path::Path, args: &[&str]) -> String {
    let out = crew(v)
        .env("CREW_TODAY", "2026-03-10")
        .arg("ask")
        .args(args)
        .output()
        .expect("run crew");
    assert!(
        out.status.code().is_some_and(|c| c <= 1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn controlla_il_vault_gets_an_italian_report_with_the_figures() {
    let v = messy_vault();
    let j = ask(v.path(), &["controlla il vault"]);
    assert_eq!(j["route"]["name"], "vault-audit", "{j}");
    let text = output(&j);
    let data = &j["chain"][0]["data"];
    let counts = &data["counts"];
    let score = data["health_score"].as_u64().expect("score");
    assert!(
        text.starts_with("## Controllo del vault — 2026-03-10: **"),
        "{text}"
    );
    assert!(
        text.contains(&format!("punteggio di salute {score} (primo rapporto)")),
        "{text}"
    );
    for (label, key) in [
        ("link rotti", "broken_links"),
        ("link ambigui", "ambiguous_links"),
        ("note orfane", "orphans"),
        ("nomi duplicati", "duplicate_names"),
    ] {
        let n = counts[key].as_u64().expect(key);
        assert!(text.contains(&format!("- {label}: {n}")), "{label}: {text}");
    }
    assert!(counts["broken_links"].as_u64() >= Some(1), "{counts}");
    assert!(
        text.contains(&format!("- inbox: {} (", counts["inbox"])),
        "{text}"
    );
    assert!(!text.contains("broken links"), "no English left: {text}");
    // the vault keeps its conventions: the report note is the crew's English one
    let note = v
        .path()
        .join("Meta/health-reports/2026-03-10 — Vault Health.md");
    let body = std::fs::read_to_string(note).expect("report note");
    assert!(body.contains("## Summary"), "{body}");
}

#[test]
fn each_language_is_answered_in_its_own() {
    let v = messy_vault();
    for (request, heading, absent) in [
        (
            "fais un audit complet du vault",
            "## Audit du vault — ",
            "Vault audit",
        ),
        (
            "haz una auditoría completa de mi vault",
            "## Auditoría del vault — ",
            "Vault audit",
        ),
        (
            "mach einen Gesundheitscheck für meinen Vault",
            "## Vault-Prüfung — ",
            "Vault audit",
        ),
        (
            "faz uma auditoria completa do meu vault",
            "## Auditoria do vault — ",
            "Vault audit",
        ),
        (
            "ボールトの健康診断をして",
            "## ボールト監査 — ",
            "Vault audit",
        ),
        (
            "check the vault",
            "## Vault audit — ",
            "Controllo del vault",
        ),
    ] {
        let j = ask(v.path(), &[request]);
        assert_eq!(j["route"]["name"], "vault-audit", "{request}: {j}");
        let text = output(&j);
        assert!(text.starts_with(heading), "{request}: {text}");
        assert!(!text.contains(absent), "{request}: {text}");
        let score = j["chain"][0]["data"]["health_score"]
            .as_u64()
            .expect("score");
        assert!(text.contains(&score.to_string()), "{request}: {text}");
    }
}

#[test]
fn japanese_requests_route_and_are_answered_in_japanese() {
    let v = messy_vault();
    let j = ask(v.path(), &["受信箱を整理して"]);
    assert_eq!(j["route"]["name"], "inbox-triage", "{j}");
    assert!(output(&j).starts_with("## 仕分け完了 — 2026-03-10"), "{j}");
    let j = ask(v.path(), &["ボールトをチェックして"]);
    assert_eq!(j["route"]["name"], "librarian", "{j}");
    assert_eq!(j["route"]["fell_back"], false, "not the default route: {j}");
    let text = output(&j);
    assert!(text.starts_with("## クイック健康チェック"), "{text}");
    assert!(text.contains("| 壊れたリンク | 1 |"), "{text}");
    let j = ask(v.path(), &["ノートをつなげて"]);
    assert_eq!(j["route"]["name"], "connector", "{j}");
    assert!(output(&j).starts_with("## グラフ監査"), "{j}");
}

#[test]
fn the_framing_around_the_answer_follows_the_request() {
    let v = messy_vault();
    // a guessed writer only plans: the preview lines are in the request's language
    let text = reply(v.path(), &["sistema le note nella inbox"]);
    assert!(
        text.contains("Non è stato scritto nulla: la strada verso inbox-triage è stata indovinata"),
        "{text}"
    );
    assert!(
        text.contains("Per applicare questo piano: crew ask --yes"),
        "{text}"
    );
    assert!(!text.contains("Nothing was written"), "{text}");
    // a dry run: the count, the deferred suggestion and why it waits
    let text = reply(v.path(), &["--dry-run", "controlla il vault"]);
    assert!(
        text.contains("Prova a vuoto: non è stato scritto nulla (")
            && text.contains(" modifiche previste)"),
        "{text}"
    );
    assert!(text.contains("━━ rimandati ━━"), "{text}");
    assert!(
        text.contains("vault-audit ha suggerito anche connector")
            && text.contains("questa richiesta non ha cambiato nessuna nota"),
        "{text}"
    );
    let text = reply(v.path(), &["--dry-run", "check the vault"]);
    assert!(
        text.contains("Dry run: nothing was written (") && text.contains(" planned changes)"),
        "{text}"
    );
    assert!(text.contains("━━ deferred ━━"), "{text}");
}

#[test]
fn quick_checks_in_four_languages() {
    let v = messy_vault();
    for (request, heading, row) in [
        (
            "vérifie le vault",
            "## Bilan rapide — 2026-03-10 : **",
            "| liens cassés | 1 |",
        ),
        (
            "revisa el vault",
            "## Revisión rápida — 2026-03-10: **",
            "| enlaces rotos | 1 |",
        ),
        (
            "verifica o vault",
            "## Verificação rápida — 2026-03-10: **",
            "| links partidos | 1 |",
        ),
        (
            "ボールトをチェックして",
            "## クイック健康チェック — 2026-03-10: **",
            "| 壊れたリンク | 1 |",
        ),
    ] {
        let j = ask(v.path(), &[request]);
        assert_eq!(j["route"]["name"], "librarian", "{request}: {j}");
        let text = output(&j);
        assert!(text.starts_with(heading), "{request}: {text}");
        assert!(text.contains(row), "{request}: {text}");
    }
}

#[test]
fn lang_flag_and_profile_choose_when_the_request_does_not_say() {
    let v = messy_vault();
    let text = output(&ask(v.path(), &["--lang", "de", "check the vault"]));
    assert!(text.starts_with("## Vault-Prüfung"), "{text}");
    let text = output(&json_of(crew(v.path()).env("CREW_LANG", "es").args([
        "ask",
        "--json",
        "check the vault",
    ])));
    assert!(text.starts_with("## Auditoría del vault"), "{text}");
    // "vault health" has no word of any language: the profile decides
    std::fs::create_dir_all(v.path().join("Meta")).expect("meta");
    std::fs::write(
        v.path().join("Meta/user-profile.md"),
        "---\nname: Ana\nprimary-language: pt\n---\n# Profile\n",
    )
    .expect("profile");
    let text = output(&ask(v.path(), &["vault health"]));
    assert!(text.starts_with("## Auditoria do vault"), "{text}");
    // a clear request still wins over the profile
    let text = output(&ask(v.path(), &["check the vault"]));
    assert!(text.starts_with("## Vault audit"), "{text}");
    crew(v.path())
        .args(["ask", "--lang", "klingon", "check the vault"])
        .assert()
        .code(2);
}

/// Every key of a JSON value, paths included, so a translated key would show.
fn shape(v: &Value, at: &str, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}.{k}");
                out.insert(p.clone());
                shape(x, &p, out);
            }
        }
        Value::Array(a) => {
            if let Some(x) = a.first() {
                shape(x, &format!("{at}[]"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn json_keeps_its_structure_and_english_keys() {
    let v = messy_vault();
    let en = ask(v.path(), &["--dry-run", "check the vault"]);
    let it = ask(v.path(), &["--dry-run", "controlla il vault"]);
    let (mut a, mut b) = (BTreeSet::new(), BTreeSet::new());
    shape(&en, "", &mut a);
    shape(&it, "", &mut b);
    assert_eq!(a, b);
    assert_eq!(en["chain"][0]["data"], it["chain"][0]["data"]);
    assert_eq!(
        it["chain"][0]["data"]["verdict"],
        en["chain"][0]["data"]["verdict"]
    );
}

#[test]
fn chat_after_an_italian_onboarding_answers_in_italian() {
    let v = vault(&[("Notes/a.md", "# A\n\n[[Missing]]\n")]);
    let mut input = [
        "please set up the vault",
        "Ada",
        "Italiano",
        "Lavoro, Salute",
        "",
        "",
        "",
        "yes",
        "vault health",
    ]
    .join("\n");
    input.push('\n');
    let out = crew(v.path())
        .env("CREW_TODAY", "2026-03-10")
        .args(["chat", "--json"])
        .write_stdin(input)
        .output()
        .expect("chat");
    assert_eq!(out.status.code(), Some(0));
    let turns: Vec<Value> = serde_json::Deserializer::from_slice(&out.stdout)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .expect("json turns");
    let ran: Vec<String> = turns
        .iter()
        .filter_map(|t| t["chain"][0]["output"].as_str().map(str::to_string))
        .collect();
    assert_eq!(ran.len(), 2, "{turns:?}");
    assert!(
        ran[0].starts_with("## Benvenuto — 2026-03-10"),
        "{}",
        ran[0]
    );
    assert!(ran[0].contains("Creati "), "{}", ran[0]);
    assert!(ran[1].starts_with("## Controllo del vault"), "{}", ran[1]);
    assert!(ran[1].contains("- link rotti: 1 "), "{}", ran[1]);
}

/// The detector on the 232 labelled paraphrases: the right language for nearly all, and a
/// wrong one (worse than none, which falls back to the profile) for very few.
#[test]
fn the_detector_on_the_seven_language_paraphrases() {
    use crew::lang::{Lang, detect};
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/paraphrases-7lang.tsv");
    let text = std::fs::read_to_string(path).expect("fixture");
    let (mut right, mut wrong, mut none, mut total) = (0, 0, 0, 0);
    let mut misses = Vec::new();
    for line in text.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('\t').collect();
        let want = Lang::from_code(f[0]).expect("language column");
        total += 1;
        match detect(f[3]) {
            Some(l) if l == want => right += 1,
            Some(l) => {
                wrong += 1;
                misses.push(format!("{} → {l}: {}", f[0], f[3]));
            }
            None => {
                none += 1;
                misses.push(format!("{} → none: {}", f[0], f[3]));
            }
        }
    }
    eprintln!(
        "{right}/{total} right, {wrong} wrong, {none} undecided\n{}",
        misses.join("\n")
    );
    assert!(
        right * 100 >= total * 95,
        "{right}/{total}\n{}",
        misses.join("\n")
    );
    assert!(
        wrong * 100 <= total * 2,
        "{wrong} wrong\n{}",
        misses.join("\n")
    );
}

#[test]
fn the_route_line_and_the_default_route_speak_the_request_language() {
    let v = messy_vault();
    let out = crew(v.path())
        .args(["ask", "buongiorno a tutti e grazie di tutto"])
        .output()
        .expect("run crew");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("strada predefinita: nessun agente o skill corrisponde alla richiesta"),
        "{err}"
    );
    let out = crew(v.path())
        .args(["ask", "tell me a joke about the weather"])
        .output()
        .expect("run crew");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("default route: nothing in the request matched"),
        "{err}"
    );
}

#[test]
fn what_needs_the_user_is_said_in_the_request_language() {
    let v = vault(&[("Notes/a.md", "# A\n")]);
    let text = output(&ask(
        v.path(),
        &["trascrivi la registrazione della riunione di ieri"],
    ));
    assert!(
        text.contains("funziona solo con un modello linguistico")
            && text.contains("`crew doctor` mostra cosa è configurato"),
        "{text}"
    );
    let text = output(&ask(
        v.path(),
        &["--agent", "sorter", "archivia le mie note per favore"],
    ));
    assert!(
        text.starts_with("In questo vault non c'è la cartella inbox `00-Inbox/`"),
        "{text}"
    );
    // the suggestion block stays the protocol's, whatever the language
    assert!(text.contains("### Suggested next agent"), "{text}");
}

#[test]
fn maintain_speaks_the_profile_language() {
    let v = messy_vault();
    std::fs::create_dir_all(v.path().join("Meta")).expect("meta");
    std::fs::write(
        v.path().join("Meta/user-profile.md"),
        "---\nname: Ada\nprimary-language: it\n---\n# Profilo\n",
    )
    .expect("profile");
    let out = crew(v.path())
        .env("CREW_TODAY", "2026-03-10")
        .args(["maintain", "--dry-run"])
        .output()
        .expect("maintain");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("crew maintain: Controllo del vault — 2026-03-10: **"),
        "{text}"
    );
    assert!(text.contains("  - link rotti: 1 "), "{text}");
    assert!(
        text.contains("Prova a vuoto: non è stato scritto nulla ("),
        "{text}"
    );
}

#[test]
fn chat_takes_the_lang_flag_for_every_turn() {
    let v = messy_vault();
    let out = crew(v.path())
        .env("CREW_TODAY", "2026-03-10")
        .args(["--lang", "fr", "chat", "--json"])
        .write_stdin("check the vault\n")
        .output()
        .expect("chat");
    assert_eq!(out.status.code(), Some(0));
    let turn: Value =
        serde_json::from_slice(out.stdout.split(|&b| b == b'\n').next().expect("one turn"))
            .expect("json");
    let text = turn["chain"][0]["output"].as_str().unwrap_or("");
    assert!(text.starts_with("## Audit du vault — 2026-03-10"), "{text}");
}
