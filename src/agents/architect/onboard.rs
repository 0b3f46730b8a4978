//! What the onboarding interview's answers become: `Meta/user-profile.md` and one area per
//! named area of life. The questions themselves live in the onboarding skill file
//! (see `crate::chat::interview`); this is only the writing, through the gate.

use crate::agents::Ctx;
use crate::agents::common;
use crate::gate::GateError;
use crate::vault::edit::yaml_scalar;

/// The answer key whose comma list becomes the area folders.
pub(crate) const AREAS_KEY: &str = "life-areas";
/// The answer key holding the language code replies should use (the language room reads it).
pub(crate) use crate::lang::LANGUAGE_KEY;

/// Splits a comma list ("Work, Health and Finance") into clean, distinct area names.
pub(crate) fn area_names(raw: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for part in raw.split([',', ';']).flat_map(|p| p.split(" and ")) {
        let name = common::safe_title(part.trim().trim_matches(['"', '.']), 40);
        // folder names in Title Case, like the vault's other areas
        let name = common::capitalized(&name);
        if name != "Untitled" && !out.iter().any(|o| o.eq_ignore_ascii_case(&name)) {
            out.push(name);
        }
    }
    out
}

fn yaml_list(items: &[String]) -> String {
    format!(
        "[{}]",
        items
            .iter()
            .map(|i| yaml_scalar(i))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The `profile-version` a rewritten profile gets: one more than the current file's.
fn next_version(current: Option<&str>) -> u64 {
    current
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.trim().strip_prefix("profile-version:"))
                .and_then(|v| v.trim().trim_matches('"').parse::<u64>().ok())
        })
        .map_or(1, |v| v + 1)
}

/// The profile note for these answers (key, answer), in the interview's order.
pub(crate) fn profile_text(
    answers: &[(String, String)],
    today: &str,
    current: Option<&str>,
) -> String {
    let mut fm = String::from("---\n");
    let mut body = String::from(
        "# User profile\n\nThe crew reads this note before it works. Edit it freely; `crew chat` and \"set up the vault\" ask again.\n\n## Answers\n",
    );
    let get = |k: &str| {
        answers
            .iter()
            .find(|(key, _)| key == k)
            .map(|(_, v)| v.as_str())
    };
    if get("name").is_none() {
        fm.push_str("name: \n");
    }
    if get(LANGUAGE_KEY).is_none() {
        fm.push_str(&format!("{LANGUAGE_KEY}: en\n"));
    }
    for (key, value) in answers {
        if key == AREAS_KEY {
            let areas = area_names(value);
            fm.push_str(&format!("{key}: {}\n", yaml_list(&areas)));
            body.push_str(&format!("- {key}: {}\n", areas.join(", ")));
        } else {
            fm.push_str(&format!("{key}: {}\n", yaml_scalar(value)));
            body.push_str(&format!("- {key}: {value}\n"));
        }
    }
    fm.push_str(&format!(
        "onboarding-date: {today}\nprofile-version: {}\n---\n",
        next_version(current)
    ));
    fm + &body
}

/// Writes the profile and scaffolds every area; returns what was made.
pub fn apply(
    ctx: &mut Ctx,
    answers: &[(String, String)],
    made: &mut Vec<String>,
) -> Result<Vec<String>, GateError> {
    let path = format!("{}/user-profile.md", ctx.config.folders.meta);
    let current = ctx.gate.read_text(&path);
    let text = profile_text(answers, &ctx.today(), current.as_deref());
    if current.as_deref() != Some(text.as_str()) {
        ctx.gate.write(&path, text.as_bytes())?;
        made.push(path);
    }
    let areas = answers
        .iter()
        .find(|(k, _)| k == AREAS_KEY)
        .map(|(_, v)| area_names(v))
        .unwrap_or_default();
    for a in &areas {
        made.extend(super::scaffold_area(ctx, a)?);
    }
    Ok(areas)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_are_split_cleaned_and_distinct() {
        assert_eq!(
            area_names("Work, health and Finance; work, "),
            vec!["Work", "Health", "Finance"]
        );
    }

    #[test]
    fn the_profile_holds_every_answer_and_counts_versions() {
        let answers = vec![
            ("name".to_string(), "Ada: Lovelace".to_string()),
            (LANGUAGE_KEY.to_string(), "it".to_string()),
            (AREAS_KEY.to_string(), "Work, Health".to_string()),
        ];
        let t = profile_text(
            &answers,
            "2026-12-01",
            Some("---\nprofile-version: 2\n---\n"),
        );
        assert!(t.contains("name: \"Ada: Lovelace\"\n"), "{t}");
        assert!(t.contains("primary-language: it\n"));
        assert!(t.contains("life-areas: [Work, Health]\n"));
        assert!(t.contains("profile-version: 3\n"));
        let blank = profile_text(&[], "2026-12-01", None);
        assert!(blank.contains("primary-language: en\n") && blank.contains("profile-version: 1"));
    }
}
