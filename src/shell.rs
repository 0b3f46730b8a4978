//! Commands crew prints for the user to paste: every argument shell-quoted, so a name or a
//! reason that came from a model, a mail or a note (`$(…)`, backquotes, `;`) is text to the
//! shell, never code.

/// One argument as a POSIX shell reads it back unchanged. Line breaks and other control
/// characters become spaces first: a printed command stays on one line, and a terminal shows
/// it as it is.
pub fn quote(arg: &str) -> String {
    let one_line: String = arg
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    // `try_quote` refuses only NUL, which the line above has turned into a space
    shlex::try_quote(&one_line).map_or_else(|_| "''".to_string(), |q| q.into_owned())
}

/// One argument in single quotes, every byte kept (a `'` becomes `'\\''`): for command lines
/// crew writes into files other programs run (a crontab), where [`quote`]'s mix of quote
/// styles would leave backslashes that the file's own escaping could pair up. Unlike
/// [`quote`], control characters are kept: callers refuse the ones their format cannot hold.
pub fn single_quoted(arg: &str) -> String {
    format!("'{}'", arg.replace('\'', "'\\''"))
}

/// `crew ARGS…`, each argument quoted where it needs it.
pub fn crew(args: &[&str]) -> String {
    let mut s = String::from("crew");
    for a in args {
        s.push(' ');
        s.push_str(&quote(a));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_stay_plain_and_the_rest_is_quoted() {
        assert_eq!(
            crew(&["ask", "--agent", "sorter"]),
            "crew ask --agent sorter"
        );
        assert_eq!(quote("file my notes"), "'file my notes'");
        assert_eq!(quote("it's $(touch x)"), "\"it's \"'$(touch x)'");
        assert_eq!(quote("a\nb"), "'a b'");
        assert_eq!(quote(""), "''");
    }

    proptest::proptest! {
        /// What the shell's own word splitting reads back is the argument, line breaks aside.
        #[test]
        fn the_shell_reads_back_what_was_quoted(arg in "\\PC*") {
            let line = crew(&["ask", &arg]);
            let words = shlex::split(&line).unwrap_or_default();
            proptest::prop_assert_eq!(words, vec!["crew".to_string(), "ask".into(), arg]);
        }
    }
}
