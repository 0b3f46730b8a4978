//! The words of dates in the seven languages — months, weekdays, relative days and periods —
//! are data: `references/dates.yaml`, embedded and read once. Each table here is that file's
//! list of the same name, as `(&'static str, meaning)` pairs for the date reader's patterns.

use std::sync::OnceLock;

use chrono::Weekday;
use serde::Deserialize;

const SOURCE: &str = include_str!("../../../references/dates.yaml");

#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum Period {
    WeekEnd,
    Weekend,
    MonthEnd,
    YearEnd,
    NextWeek,
    NextMonth,
}

/// A weekday as the data file writes it (`mon` … `sun`).
#[derive(Clone, Copy, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Day {
    Mon,
    Tue,
    Wed,
    Thu,
    Fri,
    Sat,
    Sun,
}

impl From<Day> for Weekday {
    fn from(d: Day) -> Weekday {
        match d {
            Day::Mon => Weekday::Mon,
            Day::Tue => Weekday::Tue,
            Day::Wed => Weekday::Wed,
            Day::Thu => Weekday::Thu,
            Day::Fri => Weekday::Fri,
            Day::Sat => Weekday::Sat,
            Day::Sun => Weekday::Sun,
        }
    }
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    months: Vec<(String, u32)>,
    month_abbreviations: Vec<(String, u32)>,
    leading_abbreviations: Vec<String>,
    weekdays: Vec<(String, Day)>,
    pt_short: Vec<String>,
    pt_short_before: Vec<String>,
    ja_weekdays: Vec<(String, Day)>,
    next_before: Vec<String>,
    this_before: Vec<String>,
    next_after: Vec<String>,
    day_words: Vec<(String, i64)>,
    ja_day_words: Vec<(String, i64)>,
    morning_before: Vec<String>,
    periods: Vec<(String, Period)>,
    ja_periods: Vec<(String, Period)>,
    in_before: Vec<String>,
    count_words: Vec<(String, i64)>,
    units: Vec<(String, Unit)>,
    ja_units: Vec<(String, Unit)>,
    deadline_before: Vec<String>,
    deadline_articles: Vec<String>,
    deadline_marks: Vec<String>,
    neutral_before: Vec<String>,
}

/// What a unit of "in 3 days" counts.
#[derive(Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Unit {
    Day,
    Week,
    Month,
}

/// The tables, borrowed from the file read once.
pub(super) struct Words {
    /// Full month names in the seven languages.
    pub months: Vec<(&'static str, u32)>,
    /// Abbreviations, after a day only.
    pub month_abbreviations: Vec<(&'static str, u32)>,
    /// English abbreviations may also come before the day ("Dec 5").
    pub leading_abbreviations: Vec<&'static str>,
    pub weekdays: Vec<(&'static str, Weekday)>,
    /// Portuguese short weekday names are also ordinals ("a sexta parte"): they count only
    /// after one of `pt_short_before`, or with "próxima"/"que vem".
    pub pt_short: Vec<&'static str>,
    pub pt_short_before: Vec<&'static str>,
    pub ja_weekdays: Vec<(&'static str, Weekday)>,
    /// Words that make a weekday the one of next week, before or after it.
    pub next_before: Vec<&'static str>,
    pub this_before: Vec<&'static str>,
    pub next_after: Vec<&'static str>,
    /// Relative day words and their offset from today.
    pub day_words: Vec<(&'static str, i64)>,
    pub ja_day_words: Vec<(&'static str, i64)>,
    /// Words before "morgen"/"mañana" that make them "morning", not "tomorrow".
    pub morning_before: Vec<&'static str>,
    pub periods: Vec<(&'static str, Period)>,
    pub ja_periods: Vec<(&'static str, Period)>,
    /// "in 3 days": the words before the count, the count words, the units.
    pub in_before: Vec<&'static str>,
    pub count_words: Vec<(&'static str, i64)>,
    pub units: Vec<(&'static str, Unit)>,
    pub ja_units: Vec<(&'static str, Unit)>,
    /// Words before a date that make it a limit, the articles after them, the task marks.
    pub deadline_before: Vec<&'static str>,
    pub deadline_articles: Vec<&'static str>,
    pub deadline_marks: Vec<&'static str>,
    /// Neutral words before a date, kept with it in the span.
    pub neutral_before: Vec<&'static str>,
}

fn file() -> &'static File {
    static FILE: OnceLock<File> = OnceLock::new();
    // a file that does not parse is a build mistake the tests catch; at run time it reads as
    // no date words rather than a panic
    FILE.get_or_init(|| yaml_serde::from_str(SOURCE).unwrap_or_default())
}

fn strs(v: &'static [String]) -> Vec<&'static str> {
    v.iter().map(String::as_str).collect()
}

fn pairs<T: Copy, U>(v: &'static [(String, T)], f: impl Fn(T) -> U) -> Vec<(&'static str, U)> {
    v.iter().map(|(w, x)| (w.as_str(), f(*x))).collect()
}

/// Every table, read once.
pub(super) fn words() -> &'static Words {
    static WORDS: OnceLock<Words> = OnceLock::new();
    WORDS.get_or_init(|| {
        let f = file();
        Words {
            months: pairs(&f.months, |m| m),
            month_abbreviations: pairs(&f.month_abbreviations, |m| m),
            leading_abbreviations: strs(&f.leading_abbreviations),
            weekdays: pairs(&f.weekdays, Weekday::from),
            pt_short: strs(&f.pt_short),
            pt_short_before: strs(&f.pt_short_before),
            ja_weekdays: pairs(&f.ja_weekdays, Weekday::from),
            next_before: strs(&f.next_before),
            this_before: strs(&f.this_before),
            next_after: strs(&f.next_after),
            day_words: pairs(&f.day_words, |d| d),
            ja_day_words: pairs(&f.ja_day_words, |d| d),
            morning_before: strs(&f.morning_before),
            periods: pairs(&f.periods, |p| p),
            ja_periods: pairs(&f.ja_periods, |p| p),
            in_before: strs(&f.in_before),
            count_words: pairs(&f.count_words, |n| n),
            units: pairs(&f.units, |u| u),
            ja_units: pairs(&f.ja_units, |u| u),
            deadline_before: strs(&f.deadline_before),
            deadline_articles: strs(&f.deadline_articles),
            deadline_marks: strs(&f.deadline_marks),
            neutral_before: strs(&f.neutral_before),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_data_file_parses_with_every_month_and_weekday() {
        let f: File = yaml_serde::from_str(SOURCE).expect("references/dates.yaml");
        for m in 1..=12 {
            assert!(f.months.iter().any(|(_, n)| *n == m), "month {m}");
        }
        assert_eq!(f.ja_weekdays.len() % 7, 0);
        assert!(
            words()
                .weekdays
                .iter()
                .any(|(w, d)| *w == "venerdì" && *d == Weekday::Fri)
        );
    }
}
