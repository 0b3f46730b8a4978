//! Time spans said in words ("from this year", "last month", "in 2025"), turned into the
//! seeker's date filters, so a request or a chat refinement can narrow results by date.

use std::sync::LazyLock;

use chrono::{Datelike, Duration, NaiveDate};
use regex::Regex;

/// One dated item: a deadline, a task or an event, with the note it came from (in the
/// time room, so the planner and the postman share it without importing each other).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Dated {
    pub date: NaiveDate,
    pub note: String,
    pub what: String,
    pub source: String,
}

/// A span of days, both ends included, and the words that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub after: NaiveDate,
    pub before: NaiveDate,
    /// The request with the phrase taken out.
    pub rest: String,
}

static PHRASE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?ix)
        \b(?:from|of|in|during|since|dal|del|nel|de|du|en|aus|von|im|do|no)?\s*
        (?P<phrase>
            this\s+year|last\s+year|this\s+month|last\s+month|this\s+week|last\s+week|today|yesterday
          | quest'anno|l'anno\s+scorso|questo\s+mese|il\s+mese\s+scorso
          | cette\s+ann[ée]e|l'ann[ée]e\s+derni[èe]re|ce\s+mois
          | (?:le\s+)?mois\s+dernier
          | este\s+a[ñn]o|el\s+a[ñn]o\s+pasado|este\s+mes|el\s+mes\s+pasado
          | dieses\s+jahr|letztes\s+jahr|diesen\s+monat|letzten\s+monat
          | (?:o\s+)?ano\s+passado|este\s+m[êe]s|(?:o\s+)?m[êe]s\s+passado
          | (?:last|past)\s+(?P<days>\d{1,4})\s+days
          | (?P<year>(?:19|20)\d{2})
        )\b
        # Japanese writes no spaces: no word boundary, and the particle after it goes too
        | (?P<ja>今年|去年|昨年|今月|先月|今週|先週|今日|昨日)(?:の|に|は|、)?",
    )
    .expect("static regex")
});

/// A Japanese phrase as the English one it means.
fn japanese(phrase: &str) -> &str {
    match phrase {
        "今年" => "this year",
        "去年" | "昨年" => "last year",
        "今月" => "this month",
        "先月" => "last month",
        "今週" => "this week",
        "先週" => "last week",
        "今日" => "today",
        "昨日" => "yesterday",
        _ => phrase,
    }
}

fn year_span(y: i32) -> Option<(NaiveDate, NaiveDate)> {
    Some((
        NaiveDate::from_ymd_opt(y, 1, 1)?,
        NaiveDate::from_ymd_opt(y, 12, 31)?,
    ))
}

fn month_span(y: i32, m: u32) -> Option<(NaiveDate, NaiveDate)> {
    let first = NaiveDate::from_ymd_opt(y, m, 1)?;
    let next = if m == 12 {
        NaiveDate::from_ymd_opt(y + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(y, m + 1, 1)?
    };
    Some((first, next - Duration::days(1)))
}

/// The first time span named in `text`, relative to `today`. A bare year counts only after a
/// preposition ("in 2025", "from 2024"), so a title such as "Taxes 2024" stays a search term.
pub fn find(text: &str, today: NaiveDate) -> Option<Span> {
    for c in PHRASE.captures_iter(text) {
        let whole = c.get(0)?;
        let phrase = match c.name("ja") {
            Some(ja) => japanese(ja.as_str()).to_string(),
            None => c.name("phrase")?.as_str().to_lowercase(),
        };
        let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
        // Portuguese says "o mês passado" and, after "no"/"do", "mês passado"
        let phrase = phrase.strip_prefix("o ").unwrap_or(&phrase);
        let monday = today - Duration::days(today.weekday().num_days_from_monday() as i64);
        let span = if let Some(y) = c.name("year") {
            if whole.as_str().trim() == y.as_str() {
                continue;
            }
            y.as_str().parse().ok().and_then(year_span)
        } else if let Some(d) = c.name("days") {
            let n: i64 = d.as_str().parse().ok()?;
            Some((today - Duration::days(n), today))
        } else {
            match phrase {
                "this year" | "quest'anno" | "cette année" | "cette annee" | "este año"
                | "este ano" | "dieses jahr" => year_span(today.year()),
                "last year" | "l'anno scorso" | "l'année dernière" | "l'annee derniere"
                | "l'année derniere" | "l'annee dernière" | "el año pasado" | "el ano pasado"
                | "letztes jahr" | "ano passado" => year_span(today.year() - 1),
                "this month" | "questo mese" | "ce mois" | "este mes" | "diesen monat"
                | "este mês" => month_span(today.year(), today.month()),
                "last month" | "il mese scorso" | "le mois dernier" | "mois dernier"
                | "el mes pasado" | "letzten monat" | "mês passado" | "mes passado" => {
                    let prev = today.with_day(1)? - Duration::days(1);
                    month_span(prev.year(), prev.month())
                }
                "this week" => Some((monday, monday + Duration::days(6))),
                "last week" => Some((monday - Duration::days(7), monday - Duration::days(1))),
                "today" => Some((today, today)),
                "yesterday" => Some((today - Duration::days(1), today - Duration::days(1))),
                _ => None,
            }
        };
        let (after, before) = span?;
        let rest = format!("{} {}", &text[..whole.start()], &text[whole.end()..]);
        return Some(Span {
            after,
            before,
            rest: rest.split_whitespace().collect::<Vec<_>>().join(" "),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).expect("date")
    }

    #[test]
    fn this_year_and_last_year() {
        let s = find("only the ones from this year", day(2026, 12, 1)).expect("span");
        assert_eq!((s.after, s.before), (day(2026, 1, 1), day(2026, 12, 31)));
        assert_eq!(s.rest, "only the ones");
        let s = find("taxes last year", day(2026, 3, 1)).expect("span");
        assert_eq!((s.after, s.before), (day(2025, 1, 1), day(2025, 12, 31)));
    }

    #[test]
    fn months_weeks_and_days() {
        let s = find("notes from last month", day(2026, 1, 15)).expect("span");
        assert_eq!((s.after, s.before), (day(2025, 12, 1), day(2025, 12, 31)));
        let s = find("this week", day(2026, 12, 3)).expect("span");
        assert_eq!((s.after, s.before), (day(2026, 11, 30), day(2026, 12, 6)));
        let s = find("past 10 days", day(2026, 12, 3)).expect("span");
        assert_eq!(s.after, day(2026, 11, 23));
    }

    #[test]
    fn a_year_needs_a_preposition() {
        assert_eq!(find("Taxes 2024", day(2026, 1, 1)), None);
        let s = find("notes in 2024", day(2026, 1, 1)).expect("span");
        assert_eq!((s.after, s.before), (day(2024, 1, 1), day(2024, 12, 31)));
        assert_eq!(s.rest, "notes");
    }

    #[test]
    fn other_languages() {
        let s = find("solo quelli di quest'anno", day(2026, 5, 5)).expect("span");
        assert_eq!(s.after, day(2026, 1, 1));
        let s = find(
            "o que escrevi sobre impostos no mês passado",
            day(2026, 5, 5),
        )
        .expect("pt");
        assert_eq!((s.after, s.before), (day(2026, 4, 1), day(2026, 4, 30)));
        assert_eq!(s.rest, "o que escrevi sobre impostos");
        let s = find("seulement ceux du mois dernier", day(2026, 1, 5)).expect("fr");
        assert_eq!(s.after, day(2025, 12, 1));
        let s = find("今年の税金について何を書いた？", day(2026, 5, 5)).expect("ja");
        assert_eq!((s.after, s.before), (day(2026, 1, 1), day(2026, 12, 31)));
        assert_eq!(s.rest, "税金について何を書いた？");
    }
}
