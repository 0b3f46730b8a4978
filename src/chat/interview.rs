//! The native interviews of `crew chat` (onboarding, create-agent): one question per turn, in
//! the order of the skill file's `## Interview` section, so a user can reword, reorder or add
//! questions without touching code. A blank answer skips a question (unless it is required);
//! `/cancel` ends the interview; nothing is written before the user confirms the summary.
//!
//! A question line is `- key: question text`, optionally with flags: `- key (required): …`.
//! For onboarding a key is the profile's frontmatter key (`life-areas` becomes area folders);
//! for create-agent the keys are the fields of `crew agents new`.

use serde::{Deserialize, Serialize};

use crate::agents::onboard::{AREAS_KEY, LANGUAGE_KEY};
use crate::crew::Crew;
use crate::crew::definition::{CAPABILITIES, ModelSpec, known_model_prefix, valid_name};

/// The skills that run as native interviews in a chat.
pub(crate) const FLOWS: &[&str] = &["onboarding", "create-agent"];

/// The heading of the question list in a skill file.
pub(crate) const SECTION: &str = "## Interview";

/// The keys create-agent understands, each one a field of `crew agents new`.
pub(crate) const AGENT_KEYS: &[&str] = &[
    "name",
    "description",
    "triggers",
    "examples",
    "capabilities",
    "model",
];

/// Keys the onboarding writes itself.
const RESERVED_PROFILE_KEYS: &[&str] = &["onboarding-date", "profile-version"];

/// One question of an interview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ask {
    pub key: String,
    pub text: String,
    #[serde(default)]
    pub required: bool,
}

/// A skill file whose question list cannot be read.
#[derive(Debug, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct QuestionsError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// Reads the `## Interview` section of a skill file's text. `file` names it in errors.
pub(crate) fn parse_questions(
    flow: &str,
    text: &str,
    file: &str,
) -> Result<Option<Vec<Ask>>, QuestionsError> {
    let err = |line: usize, message: String| QuestionsError {
        file: file.to_string(),
        line,
        message,
    };
    let mut lines = text.lines().enumerate();
    if !lines.any(|(_, l)| l.trim_end() == SECTION) {
        return Ok(None);
    }
    let mut asks: Vec<Ask> = Vec::new();
    let mut in_comment = false;
    for (i, raw) in lines {
        let n = i + 1;
        let l = raw.trim();
        if in_comment {
            in_comment = !l.contains("-->");
            continue;
        }
        if l.starts_with("<!--") {
            in_comment = !l.contains("-->");
            continue;
        }
        if l.starts_with("## ") || l == "##" || l.starts_with("# ") {
            break;
        }
        if l.is_empty() {
            continue;
        }
        let Some(item) = l.strip_prefix("- ") else {
            return Err(err(
                n,
                "a question line reads `- key: question` (e.g. `- name: What should the crew call you?`)".into(),
            ));
        };
        let Some((head, question)) = item.split_once(':') else {
            return Err(err(
                n,
                format!("`{item}` has no `:` between key and question"),
            ));
        };
        let (key, flags) = match head.split_once('(') {
            Some((k, f)) => (k.trim(), f.trim_end_matches(')').trim()),
            None => (head.trim(), ""),
        };
        let mut required = false;
        for f in flags.split(',').map(str::trim).filter(|f| !f.is_empty()) {
            match f {
                "required" => required = true,
                "optional" => required = false,
                other => {
                    return Err(err(
                        n,
                        format!("unknown flag `{other}`; use (required) or (optional)"),
                    ));
                }
            }
        }
        let key_ok = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
        if !key_ok {
            return Err(err(
                n,
                format!("`{key}` is no key: use lowercase letters, digits and hyphens"),
            ));
        }
        if flow == "create-agent" && !AGENT_KEYS.contains(&key) {
            return Err(err(
                n,
                format!(
                    "create-agent knows the keys {}; `{key}` is none of them",
                    AGENT_KEYS.join(", ")
                ),
            ));
        }
        if flow == "onboarding" && RESERVED_PROFILE_KEYS.contains(&key) {
            return Err(err(
                n,
                format!("`{key}` is written by crew; ask something else"),
            ));
        }
        if asks.iter().any(|a| a.key == key) {
            return Err(err(n, format!("`{key}` is asked twice")));
        }
        let question = question.trim();
        if question.is_empty() {
            return Err(err(n, format!("`{key}` has no question text")));
        }
        asks.push(Ask {
            key: key.to_string(),
            text: question.to_string(),
            required,
        });
    }
    if flow == "create-agent" && !asks.iter().any(|a| a.key == "name") {
        return Err(err(1, "create-agent must ask for `name`".into()));
    }
    Ok(Some(asks))
}

/// The questions of a flow: from the crew's skill file, else from the built-in one (a crew
/// installed before interviews existed, or the anchor's own files, have no such section).
pub(crate) fn questions_for(crew: &Crew, flow: &str) -> Result<Vec<Ask>, QuestionsError> {
    if let Some(def) = crew.skill(flow) {
        // the file itself, so an error names its real line
        let text = std::fs::read_to_string(&def.file).unwrap_or_else(|_| def.body.clone());
        if let Some(q) = parse_questions(flow, &text, &def.file)? {
            return Ok(q);
        }
    }
    let builtin = Crew::builtin();
    let def = builtin.skill(flow).ok_or_else(|| QuestionsError {
        file: format!("builtin:skills/{flow}/SKILL.md"),
        line: 1,
        message: "no such skill".into(),
    })?;
    parse_questions(flow, &def.body, &def.file)?.ok_or_else(|| QuestionsError {
        file: def.file.clone(),
        line: 1,
        message: format!("no `{SECTION}` section"),
    })
}

/// An interview in progress; it is kept in the session, so a resumed chat goes on with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Interview {
    pub flow: String,
    pub asks: Vec<Ask>,
    pub answers: Vec<(String, String)>,
    /// The question being asked; `asks.len()` once the summary waits for a yes.
    pub at: usize,
}

/// What an answer led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Say this and wait for the next line.
    Ask(String),
    /// Confirmed: the answers are complete.
    Done,
    /// The user stopped; nothing is written.
    Cancelled,
}

const YES: &[&str] = &[
    "y", "yes", "ok", "sure", "sì", "si", "oui", "ja", "sí", "sim",
];
const NO: &[&str] = &["n", "no", "non", "nein", "não", "nao"];

/// Language names a user may type for the profile's language code.
const LANGUAGES: &[(&str, &[&str])] = &[
    (
        "en",
        &[
            "english", "inglese", "anglais", "englisch", "inglés", "inglês",
        ],
    ),
    ("it", &["italian", "italiano", "italien", "italienisch"]),
    (
        "fr",
        &[
            "french",
            "français",
            "francais",
            "francese",
            "französisch",
            "francés",
        ],
    ),
    (
        "es",
        &[
            "spanish", "español", "espanol", "spagnolo", "espagnol", "spanisch",
        ],
    ),
    (
        "de",
        &[
            "german", "deutsch", "tedesco", "allemand", "alemán", "alemão",
        ],
    ),
    (
        "pt",
        &[
            "portuguese",
            "português",
            "portugues",
            "portoghese",
            "portugais",
        ],
    ),
    (
        "ja",
        &["japanese", "日本語", "giapponese", "japonais", "japanisch"],
    ),
];

/// A language code for what the user typed, or why it is not one.
pub(crate) fn language_code(raw: &str) -> Result<String, String> {
    let l = raw.trim().to_lowercase();
    for (code, names) in LANGUAGES {
        if l == *code || names.contains(&l.as_str()) {
            return Ok(code.to_string());
        }
    }
    if (2..=3).contains(&l.len()) && l.chars().all(|c| c.is_ascii_lowercase()) {
        return Ok(l);
    }
    Err(format!(
        "\"{raw}\" is no language I know: type a code such as en, it, fr, es, de, pt or ja, or its name"
    ))
}

/// Example requests are sentences, so they may hold commas: a semicolon separates them.
pub fn split_examples(raw: &str) -> Vec<String> {
    split_on(raw, ';')
}

fn split_list(raw: &str) -> Vec<String> {
    split_on(raw, ',')
}

fn split_on(raw: &str, separator: char) -> Vec<String> {
    raw.split(separator)
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty())
        .collect()
}

/// Checks and tidies one answer; `Err` says why it cannot be used.
fn check(flow: &str, key: &str, raw: &str, crew: &Crew) -> Result<String, String> {
    let v = raw.trim();
    match (flow, key) {
        ("onboarding", LANGUAGE_KEY) => language_code(v),
        ("onboarding", AREAS_KEY) => {
            let areas = crate::agents::onboard::area_names(v);
            if areas.is_empty() {
                Err("name at least one area, separated by commas".into())
            } else {
                Ok(areas.join(", "))
            }
        }
        ("create-agent", "name") => {
            let n = v.to_lowercase();
            if !valid_name(&n) {
                Err(format!(
                    "`{v}` is no valid agent name: lowercase letters, digits and single hyphens (e.g. `tax-helper`)"
                ))
            } else if Crew::is_core(&n) {
                Err(format!(
                    "`{n}` is a core agent's name; pick another (e.g. `my-{n}`)"
                ))
            } else if crew.agent(&n).is_some()
                || crew.skill(&n).is_some()
                || crew.registry.agents.iter().any(|r| r.name == n)
            {
                Err(format!(
                    "`{n}` already exists in this crew; pick another name"
                ))
            } else {
                Ok(n)
            }
        }
        ("create-agent", "capabilities") => {
            let caps: Vec<String> = split_list(&v.to_lowercase());
            match caps.iter().find(|c| !CAPABILITIES.contains(&c.as_str())) {
                Some(bad) => Err(format!(
                    "`{bad}` is no capability; use some of: {}",
                    CAPABILITIES.join(", ")
                )),
                None => Ok(caps.join(", ")),
            }
        }
        ("create-agent", "model") => match ModelSpec::parse(v) {
            ModelSpec::Id(id) if !known_model_prefix(&id) => Err(format!(
                "`{id}` is no model I can reach: use low, mid, high, native, or an id starting with claude-, gpt-, gemini- or ollama/"
            )),
            _ => Ok(v.to_lowercase()),
        },
        ("create-agent", "triggers") => Ok(split_list(v).join(", ")),
        ("create-agent", "examples") => Ok(split_examples(v).join("; ")),
        _ => Ok(v.to_string()),
    }
}

impl Interview {
    /// Starts a flow with the crew's questions.
    pub fn start(crew: &Crew, flow: &str) -> Result<Interview, QuestionsError> {
        Ok(Interview {
            flow: flow.to_string(),
            asks: questions_for(crew, flow)?,
            answers: Vec::new(),
            at: 0,
        })
    }

    /// What to say now: the current question, or the summary to confirm.
    pub fn prompt(&self) -> String {
        match self.asks.get(self.at) {
            Some(a) => format!(
                "({}/{}) {}{}",
                self.at + 1,
                self.asks.len(),
                a.text,
                if a.required { "" } else { "  [blank: skip]" }
            ),
            None => self.summary(),
        }
    }

    fn summary(&self) -> String {
        let mut s = String::from("Here is what I have:\n");
        for a in &self.asks {
            let v = self
                .answers
                .iter()
                .find(|(k, _)| *k == a.key)
                .map_or("(skipped)", |(_, v)| v.as_str());
            s.push_str(&format!("- {}: {v}\n", a.key));
        }
        let what = if self.flow == "onboarding" {
            "Write the profile and create the areas"
        } else {
            "Create the agent"
        };
        s.push_str(&format!("{what}? (yes / no)"));
        s
    }

    /// The user's line for the current question.
    pub fn answer(&mut self, line: &str, crew: &Crew) -> Step {
        let l = line.trim();
        if l.eq_ignore_ascii_case("/cancel") {
            return Step::Cancelled;
        }
        let Some(ask) = self.asks.get(self.at).cloned() else {
            let word = l.to_lowercase();
            if YES.contains(&word.as_str()) {
                return Step::Done;
            }
            if NO.contains(&word.as_str()) {
                return Step::Cancelled;
            }
            return Step::Ask(format!("Please answer yes or no.\n{}", self.summary()));
        };
        if l.is_empty() {
            if ask.required {
                return Step::Ask(format!("This one is needed. {}", self.prompt()));
            }
            self.at += 1;
            return Step::Ask(self.prompt());
        }
        match check(&self.flow, &ask.key, l, crew) {
            Ok(v) => {
                self.answers.retain(|(k, _)| *k != ask.key);
                self.answers.push((ask.key.clone(), v));
                self.at += 1;
                Step::Ask(self.prompt())
            }
            Err(why) => Step::Ask(format!("{why}\n{}", self.prompt())),
        }
    }

    /// The answer to a key, if given.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.answers
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_builtin_skills_hold_their_questions_in_order() {
        let crew = Crew::builtin();
        let q = questions_for(&crew, "onboarding").expect("questions");
        let keys: Vec<&str> = q.iter().map(|a| a.key.as_str()).collect();
        assert_eq!(&keys[..3], &["name", LANGUAGE_KEY, AREAS_KEY]);
        let q = questions_for(&crew, "create-agent").expect("questions");
        let keys: Vec<&str> = q.iter().map(|a| a.key.as_str()).collect();
        assert_eq!(keys, AGENT_KEYS);
    }

    #[test]
    fn a_bad_line_is_named_with_its_line() {
        let text = "---\nname: x\n---\n## Interview\n- name: Who?\nnot a question\n";
        let e = parse_questions("onboarding", text, "SKILL.md").expect_err("bad line");
        assert_eq!(e.line, 6);
        let e = parse_questions("create-agent", "## Interview\n- colour: Which?\n", "f")
            .expect_err("unknown key");
        assert!(e.message.contains("colour"));
        assert_eq!(
            parse_questions("onboarding", "# no section\n", "f").ok(),
            Some(None)
        );
    }

    #[test]
    fn blank_skips_required_asks_again_and_summary_confirms() {
        let crew = Crew::builtin();
        let text = "## Interview\n<!-- a comment\nspanning lines -->\n- name (required): Who?\n- role: What do you do?\n";
        let asks = parse_questions("onboarding", text, "f")
            .expect("ok")
            .expect("some");
        let mut i = Interview {
            flow: "onboarding".into(),
            asks,
            answers: vec![],
            at: 0,
        };
        assert!(matches!(i.answer("", &crew), Step::Ask(s) if s.starts_with("This one is needed")));
        i.answer("Ada", &crew);
        match i.answer("  ", &crew) {
            Step::Ask(s) => assert!(s.contains("- role: (skipped)"), "{s}"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(i.answer("maybe", &crew), Step::Ask(_)));
        assert_eq!(i.answer("yes", &crew), Step::Done);
        assert_eq!(i.get("name"), Some("Ada"));
    }

    #[test]
    fn answers_are_checked() {
        let crew = Crew::builtin();
        assert_eq!(language_code("Italiano"), Ok("it".into()));
        assert!(language_code("Klingon please").is_err());
        assert!(check("create-agent", "name", "seeker", &crew).is_err());
        assert!(check("create-agent", "name", "Tax Helper", &crew).is_err());
        assert_eq!(
            check("create-agent", "name", "Tax-Helper", &crew),
            Ok("tax-helper".into())
        );
        assert!(check("create-agent", "capabilities", "read, fly", &crew).is_err());
        assert!(check("create-agent", "model", "mystery-7b", &crew).is_err());
        assert_eq!(
            check("create-agent", "model", "High", &crew),
            Ok("high".into())
        );
    }
}
