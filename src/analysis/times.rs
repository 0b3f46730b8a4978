//! Times of day as people write them in a request, in the crew's seven languages: clock times
//! ("12:30", "3pm", "15h30", "15 Uhr", "12時半", "午後3時"), times said by a word ("noon",
//! "mezzogiorno", "midi", "正午") and ranges ("12 to 2pm", "dalle 12 alle 14"). The words are
//! data (`references/calendar/times.yaml`); pure: no clock, no I/O.
//!
//! A bare number is a time only when a word says so ("at 3", "alle 15"), or it has minutes,
//! an "o'clock" word or am/pm: "lunch for 4" holds no time. An hour without am/pm is read on
//! the 24-hour clock ("at 3" is 03:00), as six of the seven languages write times.

use std::ops::Range;
use std::sync::LazyLock;

use chrono::NaiveTime;
use regex::Regex;
use serde::Deserialize;

const SOURCE: &str = include_str!("../../references/calendar/times.yaml");

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Named {
    time: String,
    words: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Words {
    named: Vec<Named>,
    before: Vec<String>,
    after: Vec<String>,
    half: Vec<String>,
    pm: Vec<String>,
    am: Vec<String>,
    until: Vec<String>,
}

/// A time of day found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    pub start: NaiveTime,
    /// The end, when the text gives a range.
    pub end: Option<NaiveTime>,
    /// Byte range of the words that say it, the leading "at" included.
    pub span: Range<usize>,
}

struct Patterns {
    words: Words,
    named: Regex,
    clock: Regex,
    until: Regex,
}

/// A phrase as a pattern: escaped, any spacing between its words, and whole-word edges where
/// it starts (when `lead`) or ends with a letter of a spaced script.
fn phrase(p: &str, lead: bool) -> String {
    let p = p.trim();
    let body = regex::escape(p).replace(' ', r"\s+");
    let spaced = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() && (c as u32) < 0x2E80);
    format!(
        "{}{body}{}",
        if lead && spaced(p.chars().next()) {
            r"\b"
        } else {
            ""
        },
        if spaced(p.chars().next_back()) {
            r"\b"
        } else {
            ""
        }
    )
}

/// An alternation of phrases, longest first so a longer phrase wins over its start. Without
/// `lead`, a phrase may follow a digit directly ("3pm", "15h").
fn alternation(words: &[String], lead: bool) -> String {
    let mut w: Vec<&String> = words.iter().filter(|w| !w.trim().is_empty()).collect();
    w.sort_by_key(|s| std::cmp::Reverse(s.chars().count()));
    w.iter()
        .map(|s| phrase(s, lead))
        .collect::<Vec<_>>()
        .join("|")
}

fn patterns() -> Option<&'static Patterns> {
    static P: LazyLock<Option<Patterns>> = LazyLock::new(|| {
        let words: Words = match yaml_serde::from_str(SOURCE) {
            Ok(w) => w,
            Err(e) => {
                tracing::warn!("references/calendar/times.yaml does not parse: {e}");
                return None;
            }
        };
        let named_words: Vec<String> = words.named.iter().flat_map(|n| n.words.clone()).collect();
        let before = alternation(&words.before, true);
        let ampm: Vec<String> = words.pm.iter().chain(&words.am).cloned().collect();
        let ampm_before = alternation(&ampm, true);
        let ampm_after = alternation(&ampm, false);
        let after = alternation(&words.after, false);
        let half = alternation(&words.half, false);
        let named = Regex::new(&format!(
            r"(?i)(?:(?:{before})\s*)?({})",
            alternation(&named_words, true)
        ))
        .ok()?;
        // [at] [am/pm] H[:MM | hMM] [o'clock] [half | MM分] [am/pm]; a digit glued to either
        // end is checked in code (the regex crate has no look-around)
        let clock = Regex::new(&format!(
            r"(?i)(?:({before})\s*)?(?:({ampm_before})\s*)?(\d{{1,2}})(?:([:.])(\d{{2}})|h(\d{{2}}))?(?:\s*({after}))?(?:\s*({half})|\s*(\d{{1,2}})\s*分)?(?:\s*({ampm_after}))?"
        ))
        .ok()?;
        let until = Regex::new(&format!(
            r"(?i)^\s*(?:{})\s*",
            alternation(&words.until, true)
        ))
        .ok()?;
        Some(Patterns {
            words,
            named,
            clock,
            until,
        })
    });
    P.as_ref()
}

fn is_word(list: &[String], w: &str) -> bool {
    let w = w.split_whitespace().collect::<Vec<_>>().join(" ");
    list.iter()
        .any(|x| x.eq_ignore_ascii_case(&w) || x.to_lowercase() == w.to_lowercase())
}

/// A clock time found: when, where, and whether the words say it is a time (a bare "12" is
/// one only as the start of a range whose end is said: "12–14 Uhr").
struct Clock {
    time: NaiveTime,
    span: Range<usize>,
    said: bool,
}

/// The clock time of one match of the clock pattern in `text`, when it is one.
fn clock_at(p: &Patterns, text: &str, c: &regex::Captures) -> Option<Clock> {
    let m = c.get(0)?;
    let digits = c.get(3)?;
    // part of a longer number ("2026", "v12", "room12"): no time
    let glued_before = text[..digits.start()]
        .chars()
        .next_back()
        .is_some_and(|ch| ch.is_ascii_digit() || (ch.is_alphanumeric() && (ch as u32) < 0x2E80));
    let glued_after = text[m.end()..]
        .chars()
        .next()
        .is_some_and(|ch| ch.is_ascii_digit());
    if glued_before || glued_after {
        return None;
    }
    let hour: u32 = digits.as_str().parse().ok()?;
    let half = c.get(8).is_some();
    let ampm = c.get(2).or(c.get(10)).map(|m| m.as_str());
    let colon = c.get(4).is_some_and(|s| s.as_str() == ":");
    let said = c.get(1).is_some()
        || c.get(7).is_some()
        || ampm.is_some()
        || half
        || colon
        || c.get(6).is_some()
        || c.get(9).is_some();
    let minute: u32 = if half {
        30
    } else {
        match c.get(5).or(c.get(6)).or(c.get(9)) {
            Some(x) => x.as_str().parse().ok()?,
            None => 0,
        }
    };
    let hour = match ampm {
        // "13pm", "0am": no time
        Some(_) if hour > 12 || hour == 0 => return None,
        Some(w) if is_word(&p.words.pm, w) && hour < 12 => hour + 12,
        Some(w) if is_word(&p.words.am, w) && hour == 12 => 0,
        _ => hour,
    };
    Some(Clock {
        time: NaiveTime::from_hms_opt(hour, minute, 0)?,
        span: m.start()..m.end(),
        said,
    })
}

fn is_pm(t: NaiveTime) -> bool {
    t >= NaiveTime::from_hms_opt(12, 0, 0).unwrap_or(NaiveTime::MIN)
}

/// The end of a range starting right after `from` in `text` ("… to 2pm", "… alle 14"), and
/// where it ends.
fn range_end(p: &Patterns, text: &str, from: usize) -> Option<Clock> {
    let rest = &text[from..];
    let u = p.until.find(rest)?;
    let c = p.clock.captures(&rest[u.end()..])?;
    if c.get(0)?.start() != 0 {
        return None;
    }
    let end = clock_at(p, &rest[u.end()..], &c)?;
    Some(Clock {
        span: from + u.end() + end.span.start..from + u.end() + end.span.end,
        ..end
    })
}

/// The first time of day in `text` outside the `skip` ranges (where dates were found), with
/// the end of its range when one follows.
pub(crate) fn find_time(text: &str, skip: &[Range<usize>]) -> Option<Found> {
    let p = patterns()?;
    let free = |r: &Range<usize>| !skip.iter().any(|s| r.start < s.end && s.start < r.end);
    let mut found: Vec<(Clock, Option<Clock>)> = Vec::new();
    for c in p.named.captures_iter(text) {
        let (Some(m), Some(w)) = (c.get(0), c.get(1)) else {
            continue;
        };
        let time = p
            .words
            .named
            .iter()
            .find(|n| is_word(&n.words, w.as_str()))
            .and_then(|n| NaiveTime::parse_from_str(&n.time, "%H:%M").ok());
        if let Some(time) = time {
            let start = Clock {
                time,
                span: m.start()..m.end(),
                said: true,
            };
            let end = range_end(p, text, m.end());
            found.push((start, end));
        }
    }
    for c in p.clock.captures_iter(text) {
        let Some(start) = clock_at(p, text, &c) else {
            continue;
        };
        let end = range_end(p, text, start.span.end).filter(|e| e.said || start.said);
        if start.said || end.is_some() {
            found.push((start, end));
        }
    }
    found.retain(|(s, _)| free(&s.span));
    found.sort_by_key(|(s, _)| (s.span.start, std::cmp::Reverse(s.span.end)));
    let (start, end) = found.into_iter().next()?;
    let mut time = start.time;
    let mut span = start.span;
    let mut end_time = None;
    if let Some(e) = end {
        let mut t = e.time;
        // "12 to 2": an end before its start is in the afternoon
        if t <= time && !is_pm(t) {
            t += chrono::Duration::hours(12);
        }
        // "from 1 to 3pm": a start before an afternoon end, twelve hours earlier, is too
        if is_pm(t) && !is_pm(time) && time + chrono::Duration::hours(12) < t {
            time += chrono::Duration::hours(12);
        }
        if t > time {
            end_time = Some(t);
            span.end = e.span.end;
        }
    }
    Some(Found {
        start: time,
        end: end_time,
        span,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> NaiveTime {
        NaiveTime::parse_from_str(s, "%H:%M").unwrap()
    }

    fn time(text: &str) -> Option<(String, Option<String>, String)> {
        find_time(text, &[]).map(|f| {
            (
                f.start.format("%H:%M").to_string(),
                f.end.map(|e| e.format("%H:%M").to_string()),
                text[f.span].to_string(),
            )
        })
    }

    #[test]
    fn the_words_parse() {
        assert!(patterns().is_some());
    }

    #[test]
    fn times_in_seven_languages() {
        let cases = [
            ("lunch with Marco next Tuesday at noon", "12:00", "at noon"),
            ("call at 3pm", "15:00", "at 3pm"),
            ("call at 3:30 pm", "15:30", "at 3:30 pm"),
            ("standup 9:15", "09:15", "9:15"),
            ("pranzo con Marco alle 13", "13:00", "alle 13"),
            ("pranzo a mezzogiorno", "12:00", "a mezzogiorno"),
            ("déjeuner à 12h30", "12:30", "à 12h30"),
            ("déjeuner à midi", "12:00", "à midi"),
            ("comida a las 2 de la tarde", "14:00", "a las 2 de la tarde"),
            ("almuerzo al mediodía", "12:00", "al mediodía"),
            ("Mittagessen um 12 Uhr", "12:00", "um 12 Uhr"),
            ("Treffen 15 Uhr", "15:00", "15 Uhr"),
            ("almoço às 13h", "13:00", "às 13h"),
            ("almoço ao meio-dia", "12:00", "ao meio-dia"),
            ("マルコとランチ 12時半", "12:30", "12時半"),
            ("会議 午後3時", "15:00", "午後3時"),
            ("会議 15時30分", "15:30", "15時30分"),
            ("dinner at 12am", "00:00", "at 12am"),
        ];
        for (text, want, span) in cases {
            let got = time(text).unwrap_or_else(|| panic!("no time in {text:?}"));
            assert_eq!((got.0.as_str(), got.2.as_str()), (want, span), "{text}");
        }
    }

    #[test]
    fn numbers_that_are_no_time() {
        for text in [
            "dinner for 4",
            "room 12",
            "review chapter 3 of 12",
            "budget 2026",
            "at 25:00",
            "at 13pm",
        ] {
            assert_eq!(time(text), None, "{text}");
        }
    }

    #[test]
    fn ranges_give_an_end() {
        assert_eq!(
            time("workshop from 1 to 3pm"),
            Some(("13:00".into(), Some("15:00".into()), "from 1 to 3pm".into()))
        );
        assert_eq!(
            time("riunione dalle 10 alle 11:30").map(|x| (x.0, x.1)),
            Some(("10:00".into(), Some("11:30".into())))
        );
        assert_eq!(
            time("Workshop 14–16 Uhr").map(|x| (x.0, x.1)),
            Some(("14:00".into(), Some("16:00".into())))
        );
        assert_eq!(
            time("lunch 12 to 2pm").map(|x| (x.0, x.1)),
            Some(("12:00".into(), Some("14:00".into()))),
            "a bare 12 starts a range whose end is said"
        );
        assert_eq!(time("pages 12 to 14"), None, "neither end is said");
        assert_eq!(
            find_time("at 12:00 until 1", &[]).and_then(|f| f.end),
            Some(t("13:00"))
        );
    }

    #[test]
    fn a_date_is_not_read_as_a_time() {
        let text = "meeting 12.05. at 10";
        let date = text.find("12.05.").unwrap();
        let skip = vec![std::ops::Range {
            start: date,
            end: date + 6,
        }];
        let f = find_time(text, &skip).unwrap();
        assert_eq!(f.start, t("10:00"));
    }
}
