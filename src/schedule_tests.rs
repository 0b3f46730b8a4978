use std::io::Write as _;
use std::process::Command;

use super::*;

fn plan() -> Plan {
    Plan {
        crew_bin: "/usr/bin/crew".into(),
        vault: "/home/a/My Vault".into(),
        hour: 3,
        minute: 30,
        watch: true,
    }
}

fn plan_for(crew_bin: &Path, vault: &Path) -> Plan {
    Plan {
        crew_bin: crew_bin.to_path_buf(),
        vault: vault.to_path_buf(),
        ..plan()
    }
}

/// Folder names that each break a naive unit file or crontab line: specifiers and cron's
/// `%`, quotes, backslashes (one before a `%`, one at the end), variables, spaces at either
/// end, a lone `;` (systemd's command separator), `#`, shell syntax, non-ASCII.
const NASTY: &[&str] = &[
    "My Vault",
    "100% done",
    "%h %i %% %",
    "it's \"quoted\"",
    "back\\slash\\",
    "\\%",
    "\\\\%x",
    "$HOME ${HOME} $$ $",
    "semi ; colon ;",
    " lead and trail ",
    "#hash",
    "a`b`$(touch x);|&<>",
    "ünïcødé 日本",
];

#[test]
fn cron_blocks_replace_only_themselves() {
    let block = cron_block(&plan()).expect("block");
    assert!(block.contains("30 3 * * * '/usr/bin/crew' --vault '/home/a/My Vault' maintain --fix"));
    assert!(block.contains("@reboot"));
    let crontab = format!("MAILTO=me\n0 1 * * * backup\n{block}15 2 * * * other\n");
    let stripped = strip_block(&crontab, Path::new("/home/a/My Vault"));
    assert_eq!(stripped, "MAILTO=me\n0 1 * * * backup\n15 2 * * * other\n");
    assert_eq!(
        find_block(&crontab, Path::new("/home/a/My Vault")).map(|b| b.lines().count()),
        Some(4)
    );
    assert_eq!(strip_block(&crontab, Path::new("/other")), crontab);
}

#[test]
fn times() {
    assert_eq!(parse_time("03:30").ok(), Some((3, 30)));
    assert!(parse_time("24:00").is_err());
    assert!(parse_time("3").is_err());
}

#[test]
fn units_name_the_vault() {
    let units = systemd_units(&plan()).expect("units");
    assert_eq!(units.len(), 3);
    assert!(units[1].1.contains("OnCalendar=*-*-* 03:30:00"));
    assert!(
        units[0]
            .1
            .contains("ExecStart=\"/usr/bin/crew\" --vault \"/home/a/My Vault\" maintain --fix")
    );
}

#[test]
fn a_path_with_a_line_break_is_refused_by_both_formats() {
    for bad in ["/v/a\nb", "/v/a\rb", "/v/tab\there"] {
        let p = plan_for(Path::new("/usr/bin/crew"), Path::new(bad));
        for backend in [Backend::Cron, Backend::Systemd] {
            let e = preview(backend, &p).expect_err("refused");
            assert!(
                matches!(e, ScheduleError::BadPath { .. }),
                "{backend:?} {bad:?}: {e}"
            );
            assert_eq!(
                crate::fault::HasFault::fault(&e),
                crate::fault::Fault::Input
            );
            assert!(e.to_string().contains(&format!("{bad:?}")), "{e}");
        }
        let p = plan_for(Path::new(bad), Path::new("/v"));
        assert!(cron_block(&p).is_err() && systemd_units(&p).is_err());
    }
    // systemd cannot start a program at a path with a quote or backslash: said, not mangled
    let p = plan_for(Path::new("/opt/it's/crew"), Path::new("/v"));
    let e = systemd_units(&p).expect_err("refused");
    assert!(e.to_string().contains("--cron"), "{e}");
    assert!(cron_block(&p).is_ok());
}

/// A value's `%` specifiers resolved as systemd does (systemd.unit, "Specifiers"): `%%` is a
/// `%`; crew writes no other specifier, so any other is a failure here.
fn unspecify(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            assert_eq!(chars.next(), Some('%'), "a specifier would expand in {s:?}");
        }
        out.push(c);
    }
    out
}

/// An argument's variables resolved as systemd does when the service starts: `$$` is a `$`;
/// any other `$` would expand a variable, a failure here.
fn unvariable(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '$' {
            assert_eq!(chars.next(), Some('$'), "a variable would expand in {s:?}");
        }
        out.push(c);
    }
    out
}

/// The argv systemd makes of an `ExecStart=` value (systemd.syntax "Quoting", systemd.service
/// "Command lines"): words split at whitespace; a double-quoted word with its C escapes
/// undone; then specifiers in every word, and variables in all but the program's path. Any
/// construct crew does not mean to write (a bare quote or backslash, an unknown escape, a
/// word glued to a quote) fails the test rather than being guessed at.
fn exec_start_argv(value: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut chars = value.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_ascii_whitespace()).is_some() {}
        let Some(first) = chars.next() else { break };
        let mut w = String::new();
        if first == '"' {
            loop {
                match chars.next().expect("unbalanced quoting") {
                    '"' => break,
                    '\\' => match chars.next().expect("escape at the end") {
                        c @ ('\\' | '"' | '\'') => w.push(c),
                        'n' => w.push('\n'),
                        't' => w.push('\t'),
                        c => panic!("unknown escape \\{c} in {value:?}"),
                    },
                    c => w.push(c),
                }
            }
            assert!(
                chars.peek().is_none_or(|c| c.is_ascii_whitespace()),
                "a word glued to a quote in {value:?}"
            );
        } else {
            let mut c = first;
            loop {
                assert!(!matches!(c, '"' | '\'' | '\\'), "bare {c} in {value:?}");
                w.push(c);
                match chars.next_if(|c| !c.is_ascii_whitespace()) {
                    Some(n) => c = n,
                    None => break,
                }
            }
            assert_ne!(w, ";", "a lone ; would end the command in {value:?}");
        }
        words.push(w);
    }
    words
        .into_iter()
        .enumerate()
        .map(|(i, w)| {
            let w = unspecify(&w);
            if i == 0 { w } else { unvariable(&w) }
        })
        .collect()
}

/// The value of a unit's setting.
fn setting<'a>(unit: &'a str, key: &str) -> &'a str {
    unit.lines()
        .find_map(|l| l.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in {unit}"))
}

#[test]
fn systemd_reads_back_the_exact_paths() {
    let bin = Path::new("/opt/crew 100% $HOME/bin/crew");
    for name in NASTY {
        let vault = Path::new("/v").join(name);
        let units = systemd_units(&plan_for(bin, &vault)).expect("units");
        let v = vault.to_str().expect("utf-8").to_string();
        let b = bin.to_str().expect("utf-8").to_string();
        for (unit, verb) in [(&units[0].1, "maintain"), (&units[2].1, "watch")] {
            let argv = exec_start_argv(setting(unit, "ExecStart"));
            let mut want = vec![b.clone(), "--vault".into(), v.clone(), verb.into()];
            if verb == "maintain" {
                want.push("--fix".into());
            }
            assert_eq!(argv, want, "{unit}");
            let shown = unspecify(setting(unit, "Description"));
            assert!(shown.ends_with(&format!("\"{v}\"")), "{shown}");
        }
    }
}

/// The unit files checked by systemd itself where it is installed: `systemd-analyze verify`
/// parses them and checks that the program in `ExecStart=` exists and can run, so a program
/// path with `%`, `$` and spaces is found only when its escaping reads back exactly.
#[test]
fn systemd_analyze_accepts_the_units() {
    let Ok(version) = Command::new("systemd-analyze").arg("--version").output() else {
        // the escaping is still checked by `systemd_reads_back_the_exact_paths`, which reads
        // the units back by the documented rules; this says that systemd did not check too
        let _ = writeln!(
            std::io::stderr(),
            "NOTE: systemd-analyze is not installed; the units were checked against systemd's documented rules only"
        );
        return;
    };
    assert!(version.status.success());
    let tmp = tempfile::tempdir().expect("tmp");
    let bin_dir = tmp.path().join("bin 100% $HOME");
    std::fs::create_dir_all(&bin_dir).expect("mkdir");
    let bin = bin_dir.join("crew");
    std::fs::write(&bin, "#!/bin/sh\n").expect("write");
    let mut perms = std::fs::metadata(&bin).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&bin, perms).expect("chmod");
    let units_dir = tmp.path().join("units");
    std::fs::create_dir_all(&units_dir).expect("mkdir");
    let mut files = Vec::new();
    for name in NASTY {
        for (file, text) in systemd_units(&plan_for(&bin, &Path::new("/v").join(name))).expect("u")
        {
            let p = units_dir.join(&file);
            std::fs::write(&p, text).expect("write unit");
            files.push(p);
        }
    }
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .args(&files)
        .output()
        .expect("run systemd-analyze");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "systemd-analyze verify failed:\n{err}"
    );
    assert!(
        !err.contains("crew-"),
        "systemd-analyze found fault with crew's units:\n{err}"
    );
}

/// What cron hands to `sh -c` from a crontab line (Vixie cron, cronie): the schedule fields
/// dropped; then `\%` is a `%`, and the first other `%` ends the command (what follows is
/// its standard input).
fn cron_command(line: &str) -> String {
    let fields = if line.starts_with('@') { 1 } else { 5 };
    let mut rest = line;
    for _ in 0..fields {
        rest = rest.trim_start();
        rest = &rest[rest.find(char::is_whitespace).expect("a field")..];
    }
    let mut out = String::new();
    let mut escaped = false;
    for c in rest.trim_start().chars() {
        if escaped {
            if c == '%' {
                out.pop();
            }
            out.push(c);
            escaped = false;
        } else if c == '%' {
            break;
        } else {
            escaped = c == '\\';
            out.push(c);
        }
    }
    out
}

/// Runs a command line as cron does, with `sh -c`.
fn sh(command: &str, env: &[(&str, &Path)]) {
    let mut c = Command::new("sh");
    c.arg("-c").arg(command);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().expect("sh");
    assert!(
        out.status.success(),
        "sh -c {command:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A program that appends its arguments, each ending in NUL, to `$ARGV_OUT` and says `ran`.
fn argv_recorder(path: &Path) {
    std::fs::write(
        path,
        "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\0' \"$a\"; done >> \"$ARGV_OUT\"\necho ran\n",
    )
    .expect("write");
    let mut perms = std::fs::metadata(path).expect("meta").permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(path, perms).expect("chmod");
}

fn recorded(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap_or_default();
    let _ = std::fs::remove_file(path);
    bytes
        .split(|b| *b == 0)
        .map(|w| String::from_utf8_lossy(w).into_owned())
        .collect::<Vec<_>>()
        .split_last()
        .map(|(_, words)| words.to_vec())
        .unwrap_or_default()
}

#[test]
fn cron_and_sh_hand_crew_the_exact_paths() {
    let tmp = tempfile::tempdir().expect("tmp");
    let bin_dir = tmp.path().join("bin 100% 'q' \\%");
    std::fs::create_dir_all(&bin_dir).expect("mkdir");
    let bin = bin_dir.join("crew");
    argv_recorder(&bin);
    let argv_out = tmp.path().join("argv");
    for name in NASTY {
        let vault = tmp.path().join(name.trim_start_matches('/'));
        std::fs::create_dir_all(vault.join(".crew")).expect("vault");
        let block = cron_block(&plan_for(&bin, &vault)).expect("block");
        let lines: Vec<&str> = block.lines().filter(|l| !l.starts_with('#')).collect();
        assert_eq!(lines.len(), 2, "{block}");
        let v = vault.to_str().expect("utf-8").to_string();
        sh(&cron_command(lines[0]), &[("ARGV_OUT", &argv_out)]);
        assert_eq!(
            recorded(&argv_out),
            ["--vault", &v, "maintain", "--fix"],
            "{}",
            lines[0]
        );
        sh(&cron_command(lines[1]), &[("ARGV_OUT", &argv_out)]);
        assert_eq!(
            recorded(&argv_out),
            ["--vault", &v, "watch", "--poll"],
            "{}",
            lines[1]
        );
        let log = std::fs::read_to_string(vault.join(".crew/watch.log")).expect("the log");
        assert_eq!(log, "ran\n", "the output went to the vault's log");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Any words without control characters come back whole through cron and `sh -c`.
    #[test]
    fn cron_words_read_back_whole(words in proptest::collection::vec("\\PC*", 1..12)) {
        let tmp = tempfile::tempdir().expect("tmp");
        let bin = tmp.path().join("rec");
        argv_recorder(&bin);
        let argv_out = tmp.path().join("argv");
        let quoted: Vec<String> = words.iter().map(|w| cron_word(w)).collect();
        let line = format!("0 3 * * * {} {} > /dev/null", cron_word(bin.to_str().expect("utf-8")), quoted.join(" "));
        sh(&cron_command(&line), &[("ARGV_OUT", &argv_out)]);
        proptest::prop_assert_eq!(recorded(&argv_out), words);
    }
}
