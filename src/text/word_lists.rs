//! Small word lists the agents read in a request, by name: `references/word-lists.yaml`,
//! embedded and read once, so a word is added by editing the data file.

use std::collections::BTreeMap;
use std::sync::OnceLock;

const SOURCE: &str = include_str!("../../references/word-lists.yaml");

fn lists() -> &'static BTreeMap<String, Vec<&'static str>> {
    static FILE: OnceLock<BTreeMap<String, Vec<String>>> = OnceLock::new();
    static LISTS: OnceLock<BTreeMap<String, Vec<&'static str>>> = OnceLock::new();
    LISTS.get_or_init(|| {
        // a file that does not parse is a build mistake the tests catch; at run time every
        // list reads as empty rather than a panic
        let file = FILE.get_or_init(|| yaml_serde::from_str(SOURCE).unwrap_or_default());
        file.iter()
            .map(|(k, v)| (k.clone(), v.iter().map(String::as_str).collect()))
            .collect()
    })
}

/// The list `name` of the data file; empty when the file has no such list.
pub fn word_list(name: &str) -> &'static [&'static str] {
    lists().get(name).map_or(&[], Vec::as_slice)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_list_the_code_names_is_in_the_file() {
        let file: BTreeMap<String, Vec<String>> =
            yaml_serde::from_str(SOURCE).expect("references/word-lists.yaml");
        let code = [
            include_str!("../agents/scribe/plan.rs"),
            include_str!("../agents/scribe/speech.rs"),
            include_str!("../agents/postman/draft.rs"),
            include_str!("../agents/postman/choose.rs"),
            include_str!("../agents/postman/events.rs"),
            include_str!("../agents/postman/prep.rs"),
            include_str!("../analysis/search.rs"),
            include_str!("../agents/architect/request.rs"),
            include_str!("../agents/connector/topic.rs"),
            include_str!("../agents/connector/people.rs"),
        ]
        .concat();
        let named: Vec<&str> = code
            .split("word_list(\"")
            .skip(1)
            .filter_map(|rest| rest.split('"').next())
            .collect();
        assert!(named.len() >= 7, "{named:?}");
        for n in named {
            assert!(file.get(n).is_some_and(|l| !l.is_empty()), "no list `{n}`");
        }
    }
}
