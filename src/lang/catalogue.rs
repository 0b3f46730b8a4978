//! The message catalogues: `references/messages/<code>.yaml`, embedded, parsed once.

use std::collections::HashMap;
use std::fmt::Display;
use std::sync::OnceLock;

use super::Lang;

/// Each language's catalogue source, in [`Lang::ALL`] order.
const SOURCES: [&str; 7] = [
    include_str!("../../references/messages/en.yaml"),
    include_str!("../../references/messages/it.yaml"),
    include_str!("../../references/messages/fr.yaml"),
    include_str!("../../references/messages/es.yaml"),
    include_str!("../../references/messages/de.yaml"),
    include_str!("../../references/messages/pt.yaml"),
    include_str!("../../references/messages/ja.yaml"),
];

type Catalogue = HashMap<String, String>;

fn parse(source: &str) -> Result<Catalogue, String> {
    yaml_serde::from_str::<Catalogue>(source).map_err(|e| e.to_string())
}

fn catalogues() -> &'static [Catalogue] {
    static ALL: OnceLock<Vec<Catalogue>> = OnceLock::new();
    ALL.get_or_init(|| {
        SOURCES
            .iter()
            .zip(Lang::ALL)
            .map(|(src, lang)| {
                // a broken catalogue costs its language, never the reply: English stands in
                parse(src).unwrap_or_else(|e| {
                    tracing::warn!("the {lang} message catalogue does not parse: {e}");
                    Catalogue::new()
                })
            })
            .collect()
    })
}

/// The text for `key` in `lang`, English when that catalogue lacks it, else the key.
pub fn lookup(lang: Lang, key: &str) -> &'static str {
    let all = catalogues();
    all.get(lang.index())
        .and_then(|c| c.get(key))
        .or_else(|| all.first().and_then(|c| c.get(key)))
        .map_or_else(
            || {
                tracing::warn!("no message `{key}` in any catalogue");
                // leaked once per unknown key at most in practice; keeps the signature simple
                &*Box::leak(key.to_string().into_boxed_str())
            },
            String::as_str,
        )
}

/// The names of the `{placeholders}` in a text.
#[cfg(test)]
fn placeholders(text: &str) -> std::collections::BTreeSet<&str> {
    let mut names = std::collections::BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) if is_name(&after[..close]) => {
                names.insert(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    names
}

#[cfg(test)]
fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

/// `text` with each `{name}` that has a value replaced by it.
pub fn fill(text: &str, args: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            args.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (close, v.to_string()))
        });
        match value {
            Some((close, v)) => {
                out.push_str(&v);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed() -> Vec<Catalogue> {
        SOURCES
            .iter()
            .zip(Lang::ALL)
            .map(|(s, l)| parse(s).unwrap_or_else(|e| panic!("{l}.yaml: {e}")))
            .collect()
    }

    #[test]
    fn every_catalogue_has_englishs_keys_with_the_same_placeholders() {
        let all = parsed();
        let en = &all[0];
        assert!(en.len() > 100, "the English catalogue is the reference");
        let mut problems = Vec::new();
        for (lang, cat) in Lang::ALL.iter().zip(&all).skip(1) {
            for (key, text) in en {
                match cat.get(key) {
                    None => problems.push(format!("{lang}: no `{key}`")),
                    Some(t) if placeholders(t) != placeholders(text) => problems.push(format!(
                        "{lang}: `{key}` has {:?}, English {:?}",
                        placeholders(t),
                        placeholders(text)
                    )),
                    Some(t) if t.trim().is_empty() => {
                        problems.push(format!("{lang}: `{key}` is empty"))
                    }
                    Some(_) => {}
                }
            }
            for key in cat.keys().filter(|k| !en.contains_key(*k)) {
                problems.push(format!("{lang}: `{key}` is not in English"));
            }
        }
        assert!(problems.is_empty(), "{}", problems.join("\n"));
    }

    /// Every key the code asks for exists, so no reply shows a bare key.
    #[test]
    fn every_key_used_in_the_code_is_in_english() {
        let en = &parsed()[0];
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut missing = Vec::new();
        let mut used = 0;
        for entry in walkdir::WalkDir::new(&root).into_iter().flatten() {
            // the catalogue's own code names the macros without calling them
            if entry.path().extension().is_none_or(|e| e != "rs")
                || entry.path().starts_with(root.join("lang"))
            {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
            for (i, _) in text
                .match_indices("tr!(")
                .chain(text.match_indices("trn!("))
            {
                let mut end = text.len().min(i + 400);
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                let call = &text[i..end];
                let Some(start) = call.find('"') else {
                    continue;
                };
                let Some(len) = call[start + 1..].find('"') else {
                    continue;
                };
                let key = &call[start + 1..start + 1 + len];
                if !key.contains('.') || !key.chars().all(|c| is_name(&c.to_string()) || c == '.') {
                    continue;
                }
                used += 1;
                let wanted: Vec<String> = if call.starts_with("trn!(") {
                    vec![format!("{key}.one"), format!("{key}.other")]
                } else {
                    vec![key.to_string()]
                };
                for k in wanted.iter().filter(|k| !en.contains_key(k.as_str())) {
                    missing.push(format!("{}: {k}", entry.path().display()));
                }
            }
        }
        assert!(used > 50, "only {used} keys found in the code");
        assert!(missing.is_empty(), "{}", missing.join("\n"));
    }

    proptest::proptest! {
        /// Filling never panics, and a text without braces comes back as it was.
        #[test]
        fn fill_takes_any_text(text in "\\PC{0,60}", value in "\\PC{0,10}") {
            let filled = fill(&text, &[("count", &value)]);
            if !text.contains('{') {
                proptest::prop_assert_eq!(filled, text);
            }
        }
    }

    #[test]
    fn fill_replaces_named_values_and_keeps_the_rest() {
        let n = 3;
        assert_eq!(
            fill("{n} notes, {missing}, {not a name}", &[("n", &n)]),
            "3 notes, {missing}, {not a name}"
        );
        assert_eq!(placeholders("a {x} b {y_2} {Z}").len(), 2);
    }

    #[test]
    fn a_missing_translation_is_said_in_english() {
        assert_eq!(fill(lookup(Lang::It, "no.such.key"), &[]), "no.such.key");
        assert!(!lookup(Lang::It, "run.deferred.heading").is_empty());
    }
}
