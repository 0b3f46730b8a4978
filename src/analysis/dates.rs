//! Dates as people write them, in the crew's seven languages (EN IT FR ES DE PT JA): ISO and
//! numeric dates read in the user's order, written-out dates ("5 May", "le 12 mai",
//! "12 de mayo", "12. Mai", "5月12日") and relative ones ("tomorrow", "by Friday",
//! "next Tuesday", "in 3 days", "end of the month", "domani", "明日"), resolved against a
//! given `today`. Pure: no clock, no I/O, so every answer can be tested.
//!
//! Choices where usage differs (documented for the user in docs/agents.md, the scribe):
//! - a weekday alone ("Friday", "by Friday", "this Friday") is the next such day after today;
//!   "next Friday" (and "venerdì prossimo", "vendredi prochain", "nächsten Freitag",
//!   "来週の金曜日", …) is the Friday of next week (weeks start on Monday);
//! - a date without a year ("5 May", "12.05.") is the next time that day comes, today included;
//! - `12/05/2026` and `12-05-2026` follow [`DateOrder`]; `12.05.2026` is always day first; a
//!   part above 12 settles the order whatever the setting;
//! - "end of the week" is Friday, "weekend" Saturday, "next week" its Monday, "next month" its
//!   first day.

use std::ops::Range;
use std::sync::LazyLock;

use chrono::{Datelike, Duration, NaiveDate, Weekday};
use regex::Regex;

/// How a numeric date is read: a setting of the crew's config, so it lives there.
pub use crate::crew::config::DateOrder;

/// One date found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Found {
    /// The day it names.
    pub date: NaiveDate,
    /// Byte range of the words that say it, a leading preposition included ("by Friday",
    /// "le 12 mai", "金曜日までに").
    pub span: Range<usize>,
    /// Said as a limit: "by", "entro", "avant", "antes de", "bis", "até", "までに", `📅`, `due::`.
    pub deadline: bool,
    /// Said relative to today ("tomorrow", "next Tuesday"); the planner ignores these in notes.
    pub relative: bool,
    /// The text gave the year.
    pub year_given: bool,
}

struct Candidate {
    start: usize,
    end: usize,
    date: NaiveDate,
    relative: bool,
    year_given: bool,
    deadline: bool,
}

impl Candidate {
    /// A date written out in the text (not relative, not marked as a deadline).
    fn written(m: &regex::Match, date: NaiveDate, year_given: bool) -> Candidate {
        Candidate {
            start: m.start(),
            end: m.end(),
            date,
            relative: false,
            year_given,
            deadline: false,
        }
    }
}

mod words;

use words::{Period, Unit, words as w};

/// An alternation of words, longest first so a longer phrase wins over its start.
fn alternation<'a>(words: impl Iterator<Item = &'a str>) -> String {
    let mut w: Vec<&str> = words.collect();
    w.sort_by_key(|s| std::cmp::Reverse(s.chars().count()));
    w.dedup();
    w.iter()
        .map(|s| regex::escape(s).replace(' ', r"\s+"))
        .collect::<Vec<_>>()
        .join("|")
}

fn compile(pattern: &str) -> Regex {
    Regex::new(pattern).expect("static date regex")
}

static NUMERIC: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(\d{1,4})([./-])(\d{1,2})([./-])(\d{1,4})"));
static DAY_DOT_MONTH: LazyLock<Regex> = LazyLock::new(|| compile(r"(\d{1,2})\.(\d{1,2})\."));
static JA_DATE: LazyLock<Regex> =
    LazyLock::new(|| compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*日"));
static DAY_MONTH: LazyLock<Regex> = LazyLock::new(|| {
    let months = alternation(
        w().months
            .iter()
            .chain(&w().month_abbreviations)
            .map(|m| m.0),
    );
    compile(&format!(
        r"(?i)\b(\d{{1,2}})(?:st|nd|rd|th|er|º|°|ª|\.)?\s*(?:de\s+|of\s+)?({months})\b\.?(?:,?\s*(?:de\s+|del\s+)?(\d{{4}})\b)?"
    ))
});
static MONTH_DAY: LazyLock<Regex> = LazyLock::new(|| {
    let months = alternation(
        w().months[..12]
            .iter()
            .map(|m| m.0)
            .chain(w().leading_abbreviations.iter().copied()),
    );
    compile(&format!(
        r"(?i)\b({months})\b\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?"
    ))
});
static WEEKDAY: LazyLock<Regex> = LazyLock::new(|| {
    let days = alternation(w().weekdays.iter().map(|w| w.0));
    let before = alternation(w().next_before.iter().chain(&w().this_before).copied());
    let after = alternation(w().next_after.iter().copied());
    compile(&format!(
        r"(?i)\b(?:(?:el|il|le|o|a|la)\s+)?(?:({before})\s+)?({days})\b(?:\s+({after})\b)?"
    ))
});
static JA_WEEKDAY: LazyLock<Regex> = LazyLock::new(|| {
    let days = alternation(w().ja_weekdays.iter().map(|w| w.0));
    compile(&format!(r"(来週|今週)?の?\s*({days})"))
});
static DAY_WORD: LazyLock<Regex> = LazyLock::new(|| {
    let words = alternation(w().day_words.iter().map(|w| w.0));
    let ja = alternation(w().ja_day_words.iter().map(|w| w.0));
    compile(&format!(r"(?i)\b({words})\b|({ja})"))
});
static PERIOD: LazyLock<Regex> = LazyLock::new(|| {
    let words = alternation(w().periods.iter().map(|w| w.0));
    let ja = alternation(w().ja_periods.iter().map(|w| w.0));
    compile(&format!(r"(?i)\b({words})\b|({ja})"))
});
static IN_UNITS: LazyLock<Regex> = LazyLock::new(|| {
    let before = alternation(w().in_before.iter().copied());
    let counts = alternation(w().count_words.iter().map(|c| c.0));
    let units = alternation(w().units.iter().map(|u| u.0));
    let ja = alternation(w().ja_units.iter().map(|u| u.0));
    compile(&format!(
        r"(?i)\b(?:{before})\s+(\d{{1,3}}|{counts})\s+({units})\b|(\d{{1,3}})\s*({ja})後"
    ))
});
/// Words before a date that make it a limit.
static DEADLINE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    let before = alternation(w().deadline_before.iter().copied());
    let articles = alternation(w().deadline_articles.iter().copied());
    let marks = alternation(w().deadline_marks.iter().copied());
    compile(&format!(
        r"(?i)(?:\b(?:{before})\s*:?\s+(?:(?:{articles})\s+)?|(?:{marks})\s*)$"
    ))
});
/// Neutral words before a date, kept with it in the span.
static NEUTRAL_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    let words = alternation(w().neutral_before.iter().copied());
    compile(&format!(r"(?i)\b(?:{words})\s+$"))
});

fn ja_digits(s: &str) -> Option<u32> {
    let ascii: String = s
        .chars()
        .map(|c| match c {
            '０'..='９' => char::from_u32(c as u32 - '０' as u32 + '0' as u32).unwrap_or(c),
            c => c,
        })
        .collect();
    ascii.parse().ok()
}

fn year_of(raw: &str) -> Option<i32> {
    let y: i32 = ja_digits(raw)? as i32;
    match raw.chars().count() {
        2 => Some(2000 + y),
        4 => Some(y),
        _ => None,
    }
}

/// The next time month/day comes, today included (up to 8 years on, for 29 February).
fn next_occurrence(today: NaiveDate, month: u32, day: u32) -> Option<NaiveDate> {
    (0..=8)
        .filter_map(|k| NaiveDate::from_ymd_opt(today.year() + k, month, day))
        .find(|d| *d >= today)
}

fn dated(today: NaiveDate, year: Option<i32>, month: u32, day: u32) -> Option<(NaiveDate, bool)> {
    match year {
        Some(y) => NaiveDate::from_ymd_opt(y, month, day).map(|d| (d, true)),
        None => next_occurrence(today, month, day).map(|d| (d, false)),
    }
}

fn month_number(word: &str) -> Option<u32> {
    let lower = word.to_lowercase();
    w().months
        .iter()
        .chain(&w().month_abbreviations)
        .find(|(name, _)| *name == lower)
        .map(|m| m.1)
}

fn digit_before(text: &str, at: usize) -> bool {
    text[..at]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_ascii_digit() || c == '.' || c == '/' || c == '-')
}

fn digit_after(text: &str, at: usize) -> bool {
    let mut rest = text[at..].chars();
    match rest.next() {
        Some(c) if c.is_ascii_digit() => true,
        // "12.05.2026.1" or "1/2/3/4": part of something longer
        Some('.' | '/' | '-') => rest.next().is_some_and(|c| c.is_ascii_digit()),
        _ => false,
    }
}

fn numeric(text: &str, today: NaiveDate, order: DateOrder, out: &mut Vec<Candidate>) {
    for c in NUMERIC.captures_iter(text) {
        let (Some(m), Some(a), Some(s1), Some(b), Some(s2), Some(y)) =
            (c.get(0), c.get(1), c.get(2), c.get(3), c.get(4), c.get(5))
        else {
            continue;
        };
        if s1.as_str() != s2.as_str() || digit_before(text, m.start()) || digit_after(text, m.end())
        {
            continue;
        }
        let (a_s, b_s, y_s) = (a.as_str(), b.as_str(), y.as_str());
        let date = if a_s.len() == 4 {
            // year first: always year, month, day
            year_of(a_s).and_then(|yy| dated(today, Some(yy), b_s.parse().ok()?, y_s.parse().ok()?))
        } else if a_s.len() <= 2 && (y_s.len() == 4 || y_s.len() == 2) {
            let (p, q) = (a_s.parse::<u32>().ok(), b_s.parse::<u32>().ok());
            let (Some(p), Some(q)) = (p, q) else { continue };
            let year = year_of(y_s);
            let day_first = match order {
                _ if s1.as_str() == "." => true,
                DateOrder::Dmy => true,
                DateOrder::Mdy | DateOrder::Ymd => false,
            };
            // (month, day) pairs: the order's reading first, the other as the fallback
            let (first, second) = if day_first {
                ((q, p), (p, q))
            } else {
                ((p, q), (q, p))
            };
            // (month, day) as the order says, else the only reading that is a real date
            dated(today, year, first.0, first.1).or_else(|| {
                (p > 12 || q > 12)
                    .then(|| dated(today, year, second.0, second.1))
                    .flatten()
            })
        } else {
            None
        };
        if let Some((date, year_given)) = date {
            out.push(Candidate::written(&m, date, year_given));
        }
    }
    for c in DAY_DOT_MONTH.captures_iter(text) {
        let (Some(m), Some(d), Some(mo)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        if digit_before(text, m.start())
            || text[m.end()..].starts_with(|ch: char| ch.is_alphanumeric())
        {
            continue;
        }
        if let (Ok(d), Ok(mo)) = (d.as_str().parse(), mo.as_str().parse())
            && let Some((date, _)) = dated(today, None, mo, d)
        {
            out.push(Candidate {
                start: m.start(),
                end: m.end(),
                date,
                relative: false,
                year_given: false,
                deadline: false,
            });
        }
    }
}

fn written(text: &str, today: NaiveDate, out: &mut Vec<Candidate>) {
    for c in DAY_MONTH.captures_iter(text) {
        let (Some(m), Some(d), Some(mo)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        if digit_before(text, m.start()) {
            continue;
        }
        let year = c.get(3).and_then(|y| year_of(y.as_str()));
        if let (Ok(d), Some(mo)) = (d.as_str().parse(), month_number(mo.as_str()))
            && let Some((date, year_given)) = dated(today, year, mo, d)
        {
            out.push(Candidate::written(&m, date, year_given));
        }
    }
    for c in MONTH_DAY.captures_iter(text) {
        let (Some(m), Some(mo), Some(d)) = (c.get(0), c.get(1), c.get(2)) else {
            continue;
        };
        if text[m.end()..].starts_with(':') {
            continue;
        }
        let year = c.get(3).and_then(|y| year_of(y.as_str()));
        if let (Ok(d), Some(mo)) = (d.as_str().parse(), month_number(mo.as_str()))
            && let Some((date, year_given)) = dated(today, year, mo, d)
        {
            out.push(Candidate::written(&m, date, year_given));
        }
    }
    for c in JA_DATE.captures_iter(text) {
        let (Some(m), Some(mo), Some(d)) = (c.get(0), c.get(2), c.get(3)) else {
            continue;
        };
        let year = c.get(1).and_then(|y| year_of(y.as_str()));
        if let (Some(d), Some(mo)) = (ja_digits(d.as_str()), ja_digits(mo.as_str()))
            && let Some((date, year_given)) = dated(today, year, mo, d)
        {
            out.push(Candidate::written(&m, date, year_given));
        }
    }
}

fn monday_of(d: NaiveDate) -> NaiveDate {
    d - Duration::days(d.weekday().num_days_from_monday() as i64)
}

/// The weekday after today, or the one of next week.
fn weekday_date(today: NaiveDate, wd: Weekday, next_week: bool) -> NaiveDate {
    if next_week {
        monday_of(today) + Duration::days(7 + wd.num_days_from_monday() as i64)
    } else {
        let ahead =
            (wd.num_days_from_monday() as i64 - today.weekday().num_days_from_monday() as i64 + 7)
                % 7;
        today + Duration::days(if ahead == 0 { 7 } else { ahead })
    }
}

fn word_before(text: &str, at: usize) -> String {
    text[..at]
        .split_whitespace()
        .next_back()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase()
}

fn relative_push(out: &mut Vec<Candidate>, start: usize, end: usize, date: Option<NaiveDate>) {
    if let Some(date) = date {
        out.push(Candidate {
            start,
            end,
            date,
            relative: true,
            year_given: false,
            deadline: false,
        });
    }
}

fn weekdays(text: &str, today: NaiveDate, out: &mut Vec<Candidate>) {
    for c in WEEKDAY.captures_iter(text) {
        let (Some(m), Some(day)) = (c.get(0), c.get(2)) else {
            continue;
        };
        let name = day.as_str().to_lowercase();
        let Some(wd) = w().weekdays.iter().find(|w| w.0 == name).map(|w| w.1) else {
            continue;
        };
        let before = c.get(1).map(|b| b.as_str().to_lowercase());
        let after = c.get(3).map(|a| a.as_str().to_lowercase());
        if w().pt_short.contains(&name.as_str())
            && before.is_none()
            && after.is_none()
            && !w()
                .pt_short_before
                .contains(&word_before(text, m.start()).as_str())
        {
            continue;
        }
        let next_week = before
            .as_deref()
            .is_some_and(|b| w().next_before.contains(&b))
            || after.as_deref().is_some_and(|a| {
                w().next_after
                    .iter()
                    .any(|n| a.split_whitespace().eq(n.split_whitespace()))
            });
        relative_push(
            out,
            m.start(),
            m.end(),
            Some(weekday_date(today, wd, next_week)),
        );
    }
    for c in JA_WEEKDAY.captures_iter(text) {
        let (Some(m), Some(day)) = (c.get(0), c.get(2)) else {
            continue;
        };
        let Some(wd) = w()
            .ja_weekdays
            .iter()
            .find(|w| w.0 == day.as_str())
            .map(|w| w.1)
        else {
            continue;
        };
        let next_week = c.get(1).is_some_and(|p| p.as_str() == "来週");
        relative_push(
            out,
            m.start(),
            m.end(),
            Some(weekday_date(today, wd, next_week)),
        );
    }
}

fn period_date(today: NaiveDate, p: Period) -> Option<NaiveDate> {
    let first_next_month = if today.month() == 12 {
        NaiveDate::from_ymd_opt(today.year() + 1, 1, 1)
    } else {
        NaiveDate::from_ymd_opt(today.year(), today.month() + 1, 1)
    };
    match p {
        Period::WeekEnd | Period::Weekend => {
            let offset = if matches!(p, Period::WeekEnd) { 4 } else { 5 };
            let day = monday_of(today) + Duration::days(offset);
            // said on a Saturday, "end of the week" is the coming Friday
            Some(if day < today {
                day + Duration::days(7)
            } else {
                day
            })
        }
        Period::MonthEnd => first_next_month.map(|f| f - Duration::days(1)),
        Period::YearEnd => NaiveDate::from_ymd_opt(today.year(), 12, 31),
        Period::NextWeek => Some(monday_of(today) + Duration::days(7)),
        Period::NextMonth => first_next_month,
    }
}

fn count_word(raw: &str) -> Option<i64> {
    let lower = raw.to_lowercase();
    w().count_words
        .iter()
        .find(|(word, _)| *word == lower)
        .map(|c| c.1)
        .or_else(|| ja_digits(&lower).map(i64::from))
}

fn after_units(today: NaiveDate, n: i64, unit: &str) -> Option<NaiveDate> {
    let lower = unit.to_lowercase();
    let unit = w()
        .units
        .iter()
        .chain(&w().ja_units)
        .find(|(word, _)| *word == lower)
        .map_or(Unit::Day, |u| u.1);
    match unit {
        Unit::Week => today.checked_add_signed(Duration::days(7 * n)),
        Unit::Month => today.checked_add_months(chrono::Months::new(u32::try_from(n).ok()?)),
        Unit::Day => today.checked_add_signed(Duration::days(n)),
    }
}

fn relative(text: &str, today: NaiveDate, out: &mut Vec<Candidate>) {
    for c in DAY_WORD.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        let word = m.as_str().to_lowercase();
        let word = word.split_whitespace().collect::<Vec<_>>().join(" ");
        let offset = w()
            .day_words
            .iter()
            .chain(&w().ja_day_words)
            .find(|w| w.0 == word)
            .map(|w| w.1);
        if matches!(word.as_str(), "morgen" | "mañana" | "manana")
            && w()
                .morning_before
                .contains(&word_before(text, m.start()).as_str())
        {
            continue;
        }
        relative_push(
            out,
            m.start(),
            m.end(),
            offset.and_then(|o| today.checked_add_signed(Duration::days(o))),
        );
    }
    for c in PERIOD.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        let word = m
            .as_str()
            .to_lowercase()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let p = w()
            .periods
            .iter()
            .chain(&w().ja_periods)
            .find(|w| w.0 == word)
            .map(|w| w.1);
        relative_push(
            out,
            m.start(),
            m.end(),
            p.and_then(|p| period_date(today, p)),
        );
    }
    for c in IN_UNITS.captures_iter(text) {
        let Some(m) = c.get(0) else { continue };
        let (n, unit) = match (c.get(1), c.get(2), c.get(3), c.get(4)) {
            (Some(n), Some(u), _, _) | (_, _, Some(n), Some(u)) => (n.as_str(), u.as_str()),
            _ => continue,
        };
        let date = count_word(n).and_then(|n| after_units(today, n, unit));
        relative_push(out, m.start(), m.end(), date);
    }
}

/// Every date in `text`, in text order, none overlapping, resolved against `today`.
pub(crate) fn find_dates(text: &str, today: NaiveDate, order: DateOrder) -> Vec<Found> {
    let mut all = Vec::new();
    numeric(text, today, order, &mut all);
    written(text, today, &mut all);
    weekdays(text, today, &mut all);
    relative(text, today, &mut all);
    // the earliest start wins, then the longest: "12 maggio 2026" over "12.05"-like parts
    all.sort_by_key(|c| (c.start, std::cmp::Reverse(c.end)));
    let mut kept: Vec<Candidate> = Vec::new();
    for c in all {
        if kept.last().is_none_or(|k| c.start >= k.end) {
            kept.push(c);
        }
    }
    kept.into_iter()
        .map(|mut c| {
            let head = &text[..c.start];
            if let Some(p) = DEADLINE_BEFORE.find(head) {
                c.deadline = true;
                c.start = p.start();
            } else if let Some(p) = NEUTRAL_BEFORE.find(head) {
                c.start = p.start();
            }
            for tail in ["までに", "まで"] {
                if text[c.end..].starts_with(tail) {
                    c.deadline = true;
                    c.end += tail.len();
                    break;
                }
            }
            Found {
                date: c.date,
                span: c.start..c.end,
                deadline: c.deadline,
                relative: c.relative,
                year_given: c.year_given,
            }
        })
        .collect()
}

/// The date a frontmatter value or a task gives as written: the first date with its year,
/// said absolutely (`2026-05-12`, `12/05/2026`, `12 maggio 2026`); a limit wins over others.
pub(crate) fn absolute_date(text: &str, order: DateOrder) -> Option<NaiveDate> {
    // the anchor day only matters for dates without a year, which are left out here
    let anchor = NaiveDate::from_ymd_opt(2000, 1, 1)?;
    let found: Vec<Found> = find_dates(text, anchor, order)
        .into_iter()
        .filter(|f| f.year_given && !f.relative)
        .collect();
    found
        .iter()
        .find(|f| f.deadline)
        .or(found.first())
        .map(|f| f.date)
}

#[cfg(test)]
#[path = "dates_tests.rs"]
mod tests;
