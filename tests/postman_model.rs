//! The postman with a model, through `crew ask`: summaries in "check my email" and reply
//! drafts, against local HTTP servers that speak each provider's wire format (never the
//! internet). Nothing is ever sent: the Maildir (and the IMAP mailbox, when `.ci/run` started
//! Dovecot) is byte-identical afterwards; a failing model falls back and writes nothing.

mod common;

use std::collections::BTreeMap;
use std::io::Read as _;
use std::net::TcpListener;
use std::path::{Path, PathBuf};

use assert_fs::TempDir;
use chrono::TimeZone;
use common::crew;
use mockito::{Matcher, Server};

/// `crew ask --json MESSAGE` with exactly `env` for the providers → (exit code, JSON).
fn ask(v: &Path, message: &str, env: &[(&str, String)]) -> (i32, serde_json::Value) {
    let mut cmd = crew(v);
    for k in common::PROVIDER_VARS {
        cmd.env_remove(k);
    }
    for (k, val) in env {
        cmd.env(k, val);
    }
    let out = cmd.args(["ask", "--json", message]).output().expect("run");
    let code = out.status.code().unwrap_or(-1);
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (code, j)
}

fn output(j: &serde_json::Value) -> String {
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

fn openai_reply(text: &str) -> String {
    common::openai_reply(text, 40, 12)
}

fn maildir() -> TempDir {
    let d = TempDir::new().expect("tmp");
    for s in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(d.path().join(s)).expect("mkdir");
    }
    d
}

/// An RFC 5322 date `days` from today at noon (local).
fn rfc_date(days: i64) -> String {
    let d = chrono::Local::now().date_naive() + chrono::Duration::days(days);
    chrono::Local
        .from_local_datetime(&d.and_hms_opt(12, 0, 0).expect("time"))
        .earliest()
        .expect("local")
        .to_rfc2822()
}

/// Ana (a People note), Bo (no note) and a newsletter; no VIP and no close deadline, so the
/// native pass leaves nothing for a second, tool-using model pass.
fn fill(md: &Path) {
    let ana = format!(
        "From: Ana Lima <ana@example.org>\r\nTo: me@example.org\r\nSubject: Quarterly numbers\r\nDate: {}\r\nMessage-ID: <q1@example.org>\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nThe numbers look good =E2=80=94 can you confirm the caf=C3=A9 budget?\r\n",
        rfc_date(-1)
    );
    let bo = format!(
        "From: Bo Chen <bo@elsewhere.example>\r\nSubject: Board dinner\r\nDate: {}\r\nMessage-ID: <b1@elsewhere.example>\r\n\r\nAre you coming on the 30th?\r\n",
        rfc_date(-2)
    );
    let news = format!(
        "From: Shop <news@shop.example>\r\nSubject: Weekly deals\r\nDate: {}\r\nList-Unsubscribe: <mailto:u@shop.example>\r\nPrecedence: bulk\r\n\r\nEverything must go.\r\n",
        rfc_date(-1)
    );
    for (name, text) in [
        ("1000.ana.host", ana),
        ("1001.bo.host", bo),
        ("1002.news.host", news),
    ] {
        std::fs::write(md.join("new").join(name), text).expect("deliver");
    }
}

fn mail_vault(md: &Path, extra_config: &str) -> TempDir {
    common::vault_of(&[
        (
            "05-People/Ana Lima.md".into(),
            "---\ntype: person\nemail: ana@example.org\n---\n# Ana Lima\n".into(),
        ),
        (
            "Meta/user-profile.md".into(),
            "---\nname: Mia Rossi\nemail: me@example.org\n---\n".into(),
        ),
        ("00-Inbox/.keep".into(), String::new()),
        (
            ".crew/config.yaml".into(),
            format!("mail:\n  maildir: {}\n{extra_config}", md.display()),
        ),
    ])
}

/// Every file under a folder, with its bytes.
fn files(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(root)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            (
                e.path().strip_prefix(root).expect("under").to_path_buf(),
                std::fs::read(e.path()).expect("read"),
            )
        })
        .collect()
}

fn drafts(v: &Path) -> Vec<(PathBuf, String)> {
    let dir = v.join("00-Inbox/Drafts");
    if !dir.exists() {
        return Vec::new();
    }
    files(&dir)
        .into_iter()
        .map(|(p, b)| (p, String::from_utf8(b).expect("utf-8")))
        .collect()
}

/// The number a listing gave the message with this subject.
fn number_of(listing: &str, subject: &str) -> String {
    let line = listing
        .lines()
        .find(|l| l.contains(subject))
        .unwrap_or_else(|| panic!("{subject} not listed:\n{listing}"));
    line.split('.').next().expect("number").trim().to_string()
}

/// The line after the one holding `needle`.
fn line_after(text: &str, needle: &str) -> String {
    let mut lines = text.lines();
    lines
        .by_ref()
        .find(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle} missing:\n{text}"));
    lines.next().unwrap_or("").to_string()
}

const MODEL: &str = "models:\n  mid: gpt-4.1-mini\n";

#[test]
fn check_my_email_puts_the_model_summary_under_each_message() {
    let md = maildir();
    fill(md.path());
    let before = files(md.path());
    let v = mail_vault(md.path(), MODEL);
    let mut server = Server::new();
    // the listing numbers people with a note first, the rest next, newsletters last
    let summaries = server
        .mock("POST", "/v1/chat/completions")
        .match_header("authorization", "Bearer sk-test")
        .match_body(Matcher::AllOf(vec![
            Matcher::Regex("=== message 1 ===".into()),
            Matcher::Regex("Subject: Quarterly numbers".into()),
            Matcher::Regex("café budget".into()),
            Matcher::Regex("Everything must go".into()),
        ]))
        .with_status(200)
        .with_body(openai_reply(
            "1: Ana asks you to confirm the café budget.\n2: Bo asks whether you come to dinner on the 30th.\n3: A shop advertises a sale.",
        ))
        .expect(1)
        .create();
    let (code, j) = ask(
        v.path(),
        "check my email",
        &common::openai_env(&server.url()),
    );
    summaries.assert();
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert_eq!(j["route"]["name"], "email-triage");
    assert_eq!(
        line_after(&out, "**Quarterly numbers**"),
        "   ↳ Ana asks you to confirm the café budget."
    );
    assert_eq!(
        line_after(&out, "**Board dinner**"),
        "   ↳ Bo asks whether you come to dinner on the 30th."
    );
    assert_eq!(
        line_after(&out, "**Weekly deals**"),
        "   ↳ A shop advertises a sale."
    );
    // the native grouping stands: known people before the rest, newsletters last
    let pos = |s: &str| out.find(s).unwrap_or_else(|| panic!("{s} missing:\n{out}"));
    assert!(pos("### From people you know") < pos("### Other"));
    assert!(pos("### Other") < pos("### Newsletters and automated mail"));
    assert!(
        out.contains("Summaries (↳) by the model `gpt-4.1-mini`"),
        "{out}"
    );
    let data = &j["chain"][0]["data"];
    assert_eq!(
        data["messages"][0]["summary"],
        "Ana asks you to confirm the café budget."
    );
    assert_eq!(data["model"]["tokens_in"], 40);
    // read only: the Maildir is byte for byte what it was
    assert_eq!(files(md.path()), before);
    // nothing new, nothing to summarize: the model is not asked again
    let (_, j) = ask(
        v.path(),
        "check my email",
        &common::openai_env(&server.url()),
    );
    assert!(output(&j).contains("Nothing new."), "{}", output(&j));
    summaries.assert();
}

#[test]
fn a_failing_model_leaves_the_listing_as_crew_found_it() {
    let md = maildir();
    fill(md.path());
    let v = mail_vault(md.path(), MODEL);
    let mut server = Server::new();
    let failing = server
        .mock("POST", "/v1/chat/completions")
        .with_status(500)
        .with_body("overloaded")
        .expect(3)
        .create();
    let (code, j) = ask(
        v.path(),
        "check my email",
        &common::openai_env(&server.url()),
    );
    failing.assert();
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("The model `gpt-4.1-mini` could not summarize")
            && out.contains("HTTP 500 after 3 attempt(s)")
            && out.contains("the listing above is crew's own"),
        "{out}"
    );
    assert!(out.contains("**Quarterly numbers**") && out.contains("**Weekly deals**"));
    assert!(!out.contains('↳'), "{out}");

    // an answer with no summary in it is a failure too, not a listing of blanks
    std::fs::remove_file(v.path().join("Meta/states/postman.md")).expect("forget the mark");
    let mut server = Server::new();
    let _chatty = server
        .mock("POST", "/v1/chat/completions")
        .with_status(200)
        .with_body(openai_reply("Sure! What would you like me to do?"))
        .create();
    let (_, j) = ask(
        v.path(),
        "check my email",
        &common::openai_env(&server.url()),
    );
    let out = output(&j);
    assert!(
        out.contains("held no summary") && !out.contains('↳'),
        "{out}"
    );
    assert!(out.contains("Mail — 3 message(s)"), "{out}");
}

#[test]
fn a_reply_draft_is_a_note_in_the_vault_and_nothing_is_sent() {
    let md = maildir();
    fill(md.path());
    let before = files(md.path());
    let v = mail_vault(md.path(), MODEL);
    let mut server = Server::new();
    let _summaries = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("=== message 1 ===".into()))
        .with_status(200)
        .with_body(openai_reply("1: Ana asks about the budget."))
        .create();
    let draft = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::AllOf(vec![
            Matcher::Regex("=== original ===".into()),
            Matcher::Regex("Subject: Quarterly numbers".into()),
            Matcher::Regex("Their name: Mia Rossi".into()),
        ]))
        .with_status(200)
        .with_body(openai_reply(
            "Hi Ana,\n\nThe café budget is fine by me; [confirm the amount].\n\nMia",
        ))
        .expect(1)
        .create();
    let env = common::openai_env(&server.url());
    let (_, j) = ask(v.path(), "check my email", &env);
    let n = number_of(&output(&j), "Quarterly numbers");
    let (code, j) = ask(v.path(), &format!("draft a reply to email {n}"), &env);
    draft.assert();
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert_eq!(j["route"]["name"], "postman");
    assert!(
        out.contains("Nothing was sent") && out.contains("[confirm the amount]"),
        "{out}"
    );
    let written = drafts(v.path());
    assert_eq!(written.len(), 1, "{written:?}");
    let (path, text) = &written[0];
    assert!(
        path.to_string_lossy()
            .contains("— Reply Draft — Quarterly numbers"),
        "{path:?}"
    );
    for want in [
        "type: email-draft\n",
        "status: draft\n",
        "to: \"ana@example.org\"\n",
        "subject: \"Re: Quarterly numbers\"\n",
        "in-reply-to: \"q1@example.org\"\n",
        "person: \"[[Ana Lima]]\"\n",
        "model: \"gpt-4.1-mini\"\n",
        "## Reply\n\nHi Ana,\n\nThe café budget is fine by me; [confirm the amount].\n\nMia\n",
        "> The numbers look good — can you confirm the café budget?\n",
    ] {
        assert!(text.contains(want), "{want:?} missing in:\n{text}");
    }
    assert_eq!(
        j["chain"][0]["data"]["in_reply_to"], "q1@example.org",
        "{}",
        j["chain"][0]["data"]
    );
    // a plan (`--dry-run`) names the message and asks the model nothing
    let mut cmd = crew(v.path());
    for k in common::PROVIDER_VARS {
        cmd.env_remove(k);
    }
    let out = cmd
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .args(["ask", "--dry-run", "draft a reply to Bo Chen"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Would ask the model `gpt-4.1-mini` for a reply to **Board dinner**"),
        "{text}"
    );
    draft.assert();
    assert_eq!(drafts(v.path()).len(), 1);
    // nothing sent, nothing moved, no flag set: the Maildir is byte-identical
    assert_eq!(files(md.path()), before);
    // through the gate: `crew undo` takes the draft back
    crew(v.path()).arg("undo").assert().success();
    assert!(drafts(v.path()).is_empty(), "{:?}", drafts(v.path()));
}

#[test]
fn drafts_are_asked_for_by_sender_and_in_other_languages_on_every_provider() {
    let md = maildir();
    fill(md.path());
    let before = files(md.path());
    let mut server = Server::new();
    let _anthropic = server
        .mock("POST", "/v1/messages")
        .match_header("x-api-key", "ak")
        .match_body(Matcher::Regex("Subject: Board dinner".into()))
        .with_status(200)
        .with_body(r#"{"content":[{"type":"text","text":"Yes, I will be there on the 30th.\n\nMia"}],"usage":{"input_tokens":30,"output_tokens":9},"stop_reason":"end_turn"}"#)
        .create();
    let _gemini = server
        .mock("POST", "/v1beta/models/gemini-2.5-flash:generateContent")
        .match_header("x-goog-api-key", "gk")
        .match_body(Matcher::Regex("=== original ===".into()))
        .with_status(200)
        .with_body(r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Grazie Ana, confermo.\n\nMia"}]}}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2}}"#)
        .create();
    let _ollama = server
        .mock("POST", "/api/chat")
        .match_body(Matcher::PartialJsonString(r#"{"model":"llama3.2","stream":false}"#.into()))
        .with_status(200)
        .with_body(r#"{"model":"llama3.2","message":{"role":"assistant","content":"Danke, Ana.\n\nMia"},"done":true,"prompt_eval_count":4,"eval_count":3}"#)
        .create();
    let host = server.url().trim_start_matches("http://").to_string();
    let cases: [(&str, &str, &str, &str); 4] = [
        // no listing needed: the sender's name finds the message
        (
            "claude-sonnet-4-5",
            "draft a reply to Bo Chen",
            "Board dinner",
            "Yes, I will be there",
        ),
        (
            "gemini-2.5-flash",
            "bozza di risposta alla mail 1",
            "Quarterly numbers",
            "Grazie Ana",
        ),
        (
            "ollama/llama3.2",
            "Antwortentwurf für E-Mail 1",
            "Quarterly numbers",
            "Danke, Ana.",
        ),
        (
            "ollama/llama3.2",
            "メール1への返信の下書き",
            "Quarterly numbers",
            "Danke, Ana.",
        ),
    ];
    for (model, request, subject, reply) in cases {
        let v = mail_vault(md.path(), &format!("models:\n  mid: {model}\n"));
        let env = vec![
            ("ANTHROPIC_API_KEY", "ak".to_string()),
            ("ANTHROPIC_BASE_URL", server.url()),
            ("GEMINI_API_KEY", "gk".to_string()),
            ("GEMINI_BASE_URL", server.url()),
            ("OLLAMA_HOST", host.clone()),
        ];
        // a listing first (no model answers summaries here: they fall back, the listing stands)
        ask(v.path(), "check my email", &env);
        let (code, j) = ask(v.path(), request, &env);
        let out = output(&j);
        assert_eq!(code, 0, "{request}: {out}");
        let written = drafts(v.path());
        assert_eq!(written.len(), 1, "{request}: {out}");
        assert!(
            written[0]
                .1
                .contains(&format!("subject: \"Re: {subject}\""))
                && written[0].1.contains(reply),
            "{request}: {}",
            written[0].1
        );
    }
    assert_eq!(files(md.path()), before);
}

#[test]
fn without_a_model_a_draft_is_explained_and_nothing_is_written() {
    let md = maildir();
    fill(md.path());
    let v = mail_vault(md.path(), "");
    let (_, j) = ask(v.path(), "check my email", &[]);
    let n = number_of(&output(&j), "Quarterly numbers");
    let (code, j) = ask(v.path(), &format!("draft a reply to email {n}"), &[]);
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("A reply draft needs a language model")
            && out.contains("models:\n  mid:")
            && out.contains("mail is never sent"),
        "{out}"
    );
    assert!(drafts(v.path()).is_empty());
    assert!(!output(&ask(v.path(), "check my email", &[]).1).contains('↳'));
}

#[test]
fn a_model_that_fails_or_answers_nothing_writes_no_draft() {
    let md = maildir();
    fill(md.path());
    let before = files(md.path());
    // a server that accepts and never answers
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let holder = std::thread::spawn(move || {
        for s in listener.incoming().take(1).flatten() {
            let mut s = s;
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            std::thread::sleep(std::time::Duration::from_secs(3));
        }
    });
    let v = mail_vault(
        md.path(),
        "models:\n  mid: ollama/slow\nmodel_timeout_secs: 1\n",
    );
    let env = vec![("OLLAMA_HOST", format!("127.0.0.1:{port}"))];
    let (code, j) = ask(v.path(), "draft a reply to Bo Chen", &env);
    let out = output(&j);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("The model `ollama/slow` could not write the draft")
            && out.contains("did not answer within 1 s")
            && out.contains("No draft was written and nothing was sent"),
        "{out}"
    );
    assert!(drafts(v.path()).is_empty());

    // an empty answer is no draft either
    let mut server = Server::new();
    let _empty = server
        .mock("POST", "/v1/messages")
        .with_status(200)
        .with_body(r#"{"content":[{"type":"text","text":"  "}],"usage":{"input_tokens":3,"output_tokens":0}}"#)
        .create();
    let v = mail_vault(md.path(), "models:\n  mid: claude-haiku-4-5\n");
    let env = vec![
        ("ANTHROPIC_API_KEY", "ak".to_string()),
        ("ANTHROPIC_BASE_URL", server.url()),
    ];
    let (_, j) = ask(v.path(), "draft a reply to Bo Chen", &env);
    let out = output(&j);
    assert!(out.contains("the model sent an empty reply"), "{out}");
    assert!(drafts(v.path()).is_empty());
    // a key that is missing is named before any request
    let (_, j) = ask(v.path(), "draft a reply to Bo Chen", &[]);
    assert!(output(&j).contains("ANTHROPIC_API_KEY"), "{}", output(&j));
    assert!(drafts(v.path()).is_empty());
    assert_eq!(files(md.path()), before);
    let _ = holder.join();
}

/// The Dovecot `.ci/run` starts: address, user, password, CA file, the user's Maildir.
fn dovecot() -> Option<[String; 5]> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let found = [
        var("CREW_IMAP_TEST"),
        var("CREW_IMAP_USER"),
        var("CREW_IMAP_PASSWORD"),
        var("CREW_IMAP_CA"),
        var("CREW_IMAP_MAILDIR"),
    ];
    if found.iter().all(Option::is_some) {
        Some(found.map(Option::unwrap_or_default))
    } else {
        common::skipped("CREW_IMAP_TEST and friends are not set (.ci/run starts Dovecot)");
        None
    }
}

/// The message files of a server-side Maildir (Dovecot's own index files left out).
fn messages(md: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files(md)
        .into_iter()
        .filter(|(p, _)| !p.to_string_lossy().contains("dovecot"))
        .collect()
}

#[test]
fn over_imap_summaries_and_drafts_leave_the_mailbox_untouched_and_the_password_out() {
    let Some([addr, user, password, ca, md]) = dovecot() else {
        return;
    };
    let md = PathBuf::from(md);
    let tag = format!(
        "{}{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .subsec_nanos()
    );
    let tmp = md.join("tmp").join(format!("m.{tag}"));
    std::fs::write(
        &tmp,
        format!(
            "From: Ana Lima <ana@example.org>\r\nSubject: Imap model {tag}\r\nDate: {}\r\nMessage-ID: <model-{tag}@example.org>\r\n\r\nCan we move the review?\r\n",
            rfc_date(0)
        ),
    )
    .expect("deliver");
    std::fs::rename(&tmp, md.join("new").join(format!("m.{tag}.crew"))).expect("deliver");
    let (host, port) = addr.rsplit_once(':').expect("host:port");
    let mut server = Server::new();
    let _summary = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::Regex("=== message".into()))
        .with_status(200)
        .with_body(openai_reply("1: Ana wants to move the review."))
        .create();
    let _draft = server
        .mock("POST", "/v1/chat/completions")
        .match_body(Matcher::AllOf(vec![
            Matcher::Regex(format!("Imap model {tag}")),
            Matcher::Regex("=== original ===".into()),
        ]))
        .with_status(200)
        .with_body(openai_reply("Sure, [propose a day].\n\nMia"))
        .create();
    let v = common::vault_of(&[
        ("00-Inbox/.keep".into(), String::new()),
        (
            ".crew/config.yaml".into(),
            format!(
                "mail:\n  imap:\n    host: {host}\n    port: {port}\n    user: {user}\n    password_env: CREW_TEST_IMAP_PASSWORD\n    ca_file: {ca}\n{MODEL}"
            ),
        ),
    ]);
    let mut env = common::openai_env(&server.url());
    env.push(("CREW_TEST_IMAP_PASSWORD", password.clone()));
    let (_, j) = ask(v.path(), "check my email", &env);
    let out = output(&j);
    assert!(out.contains(&format!("Imap model {tag}")), "{out}");
    // after the first read the server has filed the message; from here on nothing changes
    let after_check = messages(&md);
    let n = number_of(&out, &format!("Imap model {tag}"));
    let (_, j) = ask(v.path(), &format!("draft a reply to email {n}"), &env);
    let out = output(&j);
    assert!(out.contains("Nothing was sent"), "{out}");
    assert_eq!(drafts(v.path()).len(), 1);
    assert_eq!(messages(&md), after_check, "the IMAP mailbox changed");
    for (p, bytes) in files(v.path()) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(&password),
            "{} holds the password",
            p.display()
        );
    }
}
