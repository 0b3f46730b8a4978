//! The postman's post-it is shared by its modes and the skills it owns (weekly agenda, deadline
//! radar, meeting prep): a run of one of them keeps the mail mark and the listing's numbers, so
//! "save email 2" still means the second message of the last listing (issue #38).

mod common;

use assert_fs::TempDir;

fn ask(v: &TempDir, message: &str) -> String {
    let j = common::ask_json(v.path(), message);
    j["chain"][0]["output"].as_str().unwrap_or("").to_string()
}

fn message(subject: &str, id: &str) -> String {
    let date = chrono::Local::now().to_rfc2822();
    format!(
        "From: Ana Lima <ana@example.org>\r\nSubject: {subject}\r\nDate: {date}\r\nMessage-ID: <{id}@example.org>\r\n\r\nText of {subject}.\r\n"
    )
}

#[test]
fn a_skill_of_the_postman_keeps_the_mail_listing_and_mark() {
    let md = TempDir::new().expect("tmp");
    for s in ["cur", "new", "tmp"] {
        std::fs::create_dir_all(md.path().join(s)).expect("mkdir");
    }
    for (i, subject) in ["Garden plans", "Tax return", "Book club"]
        .iter()
        .enumerate()
    {
        let name = format!("100{i}.m.host");
        std::fs::write(
            md.path().join("new").join(name),
            message(subject, &format!("m{i}")),
        )
        .expect("deliver");
    }
    let v = common::vault(&[("00-Inbox/.keep", "")]);
    std::fs::create_dir_all(v.path().join(".crew")).expect("mkdir");
    std::fs::write(
        v.path().join(".crew/config.yaml"),
        format!("mail:\n  maildir: {}\n", md.path().display()),
    )
    .expect("config");

    let listing = ask(&v, "check my email");
    assert!(listing.contains("(first check)"), "{listing}");
    let second = listing
        .lines()
        .find(|l| l.trim_start().starts_with("2."))
        .unwrap_or_else(|| panic!("no second message:\n{listing}"));
    let subject = ["Garden plans", "Tax return", "Book club"]
        .into_iter()
        .find(|s| second.contains(s))
        .expect("a subject on line 2");

    // two skills the postman owns write the same post-it
    ask(&v, "weekly agenda");
    ask(&v, "deadline radar");
    let postit = std::fs::read_to_string(v.path().join("Meta/states/postman.md")).expect("post-it");
    assert!(
        postit.contains("mail-mark:") && postit.contains("listing: 1="),
        "{postit}"
    );

    let saved = ask(&v, "save email 2");
    assert!(saved.contains(&format!("Saved **{subject}**")), "{saved}");
    let again = ask(&v, "check my email");
    assert!(!again.contains("(first check)"), "{again}");
    assert!(again.contains("0 new since"), "{again}");
}
