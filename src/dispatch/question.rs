//! How an agent asks the user something: a `### Question for the user` block at the end of its
//! answer. In `crew chat` the chain stops there and the next line the user types goes to that
//! agent as its answer; in `crew ask` the question is shown with the hint to continue in a chat.
//!
//! ```text
//! ### Question for the user
//! - **Ask**: Which of the two projects do you mean?
//! - **Choices**: Kitchen, Garden
//! ```
//!
//! `Choices` is optional. A block without an `Ask` line is no question (the heading alone may
//! be a title in a note the agent quotes).

use serde::{Deserialize, Serialize};

/// The heading that opens a question block.
pub(crate) const HEADING: &str = "### Question for the user";

/// A question an agent put to the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    pub ask: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

impl Question {
    /// The block an agent ends its answer with.
    pub fn render(&self) -> String {
        let mut s = format!("{HEADING}\n- **Ask**: {}\n", self.ask.replace('\n', " "));
        if !self.choices.is_empty() {
            let one = |c: &String| c.split_whitespace().collect::<Vec<_>>().join(" ");
            let choices: Vec<String> = self.choices.iter().map(one).collect();
            s.push_str(&format!("- **Choices**: {}\n", choices.join(", ")));
        }
        s
    }
}

/// How an answer reaches the agent that asked: the user's line, then the question.
const ANSWER_MARK: &str = "(Your question was: ";

/// The message an agent receives as the answer to its question.
pub(crate) fn answer_message(answer: &str, ask: &str) -> String {
    format!("{answer}\n\n{ANSWER_MARK}{})", ask.replace('\n', " "))
}

/// A message that answers a question: (the user's answer, the question asked).
pub(crate) fn split_answer(message: &str) -> Option<(String, String)> {
    let at = message.rfind(ANSWER_MARK)?;
    let ask = message[at + ANSWER_MARK.len()..]
        .trim_end()
        .strip_suffix(')')?;
    Some((message[..at].trim().to_string(), ask.to_string()))
}

fn field<'a>(line: &'a str, name: &str) -> Option<&'a str> {
    let l = line.trim().strip_prefix(['-', '*'])?.trim_start();
    let rest = l
        .strip_prefix(&format!("**{name}**:"))
        .or_else(|| l.strip_prefix(&format!("**{name}:**")))
        .or_else(|| l.strip_prefix(&format!("{name}:")))?;
    Some(rest.trim())
}

/// The last question block of an answer, if it has one.
pub fn parse(text: &str) -> Option<Question> {
    let start = text
        .rmatch_indices(HEADING)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || text[..i].ends_with('\n'))?;
    let body = &text[start + HEADING.len()..];
    let mut ask = None;
    let mut choices = Vec::new();
    for line in body.lines().skip(1) {
        if line.starts_with('#') {
            break;
        }
        if let Some(a) = field(line, "Ask") {
            ask = Some(a.to_string());
        } else if let Some(c) = field(line, "Choices") {
            choices = c
                .split(',')
                .map(|x| x.trim().to_string())
                .filter(|x| !x.is_empty())
                .collect();
        }
    }
    let ask = ask.filter(|a| !a.is_empty())?;
    Some(Question { ask, choices })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rendered_question_parses_back() {
        let q = Question {
            ask: "Which project?".into(),
            choices: vec!["Kitchen".into(), "Garden".into()],
        };
        let text = format!("Two projects match.\n\n{}", q.render());
        assert_eq!(parse(&text), Some(q));
    }

    #[test]
    fn an_answer_message_splits_back() {
        let m = answer_message("Health", "What should the new area be called?");
        assert_eq!(
            split_answer(&m),
            Some((
                "Health".into(),
                "What should the new area be called?".into()
            ))
        );
        assert_eq!(split_answer("create a new area"), None);
    }

    #[test]
    fn a_heading_without_an_ask_line_is_no_question() {
        assert_eq!(parse("### Question for the user\nsome prose\n"), None);
        assert_eq!(parse("no block at all"), None);
    }

    #[test]
    fn the_heading_must_start_a_line() {
        assert_eq!(
            parse("see `### Question for the user`\n- **Ask**: x\n"),
            None
        );
    }

    #[test]
    fn the_block_ends_at_the_next_heading() {
        let q =
            parse("### Question for the user\n- **Ask**: Name?\n### Post-it\n- Choices: a, b\n")
                .expect("question");
        assert!(q.choices.is_empty());
    }
}
