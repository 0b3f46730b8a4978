//! Tests of the gate itself: overlay reads, compare-and-swap, protected paths.

use super::*;

#[test]
fn jail_refuses_escapes() {
    for bad in [
        "",
        "/etc/passwd",
        "../x.md",
        "a/../../x.md",
        "C:/x.md",
        "a\\b.md",
        "a/CON.md",
        "x\u{0}.md",
        "dot./x.md",
    ] {
        assert!(jail(bad).is_err(), "{bad:?} should be refused");
    }
    assert_eq!(jail("./a//b.md").ok().as_deref(), Some("a/b.md"));
}

#[test]
fn policy_protects_the_right_places() {
    let p = Policy {
        actor: Some("sorter".into()),
        ..Policy::default()
    };
    for bad in [
        ".obsidian/app.json",
        ".git/config",
        "CLAUDE.md",
        ".crew/agents/sorter.md",
        ".claude/skills/x/SKILL.md",
        "Meta/states/librarian.md",
        "a/.hidden.md",
        ".crew/references/other.md",
    ] {
        assert!(p.check(bad).is_err(), "{bad} should be protected");
    }
    for ok in ["Meta/states/sorter.md", "00-Inbox/x.md"] {
        assert!(p.check(ok).is_ok(), "{ok} should be allowed");
    }
    // custom agents and the registry: only for the lifecycle commands and their skills
    let definition = [
        ".crew/agents/my-helper.md",
        ".claude/references/agents-registry.md",
    ];
    for closed in definition {
        assert!(p.check(closed).is_err(), "{closed} is closed to agents");
    }
    let lifecycle = Policy {
        changes_definition: true,
        ..p
    };
    for open in definition {
        assert!(
            lifecycle.check(open).is_ok(),
            "{open} is open to the lifecycle"
        );
    }
    assert!(lifecycle.check(".crew/agents/sorter.md").is_err());
}

#[test]
fn fingerprint_is_stable() {
    assert_eq!(fingerprint(b""), "cbf29ce484222325");
    assert_ne!(fingerprint(b"a"), fingerprint(b"b"));
}
