//! The deadline a mail names, in any of the seven languages: a written-out date ahead of the
//! day it was sent ("15 December", "15 dicembre", "15. Dezember", "12月15日"), or a day after a
//! deadline word ("by Friday", "entro venerdì", "avant mercredi", "bis Freitag", "hasta el
//! viernes", "até sexta", "金曜日まで"), read by crew's one date reader (`analysis::dates`).
//! Pure.

use chrono::NaiveDate;

use crate::analysis::dates::{DateOrder, find_dates};

/// A deadline found in a message, with the words that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deadline {
    pub date: NaiveDate,
    pub words: String,
}

/// The earliest date at or after `sent`, within a year, that `text` gives as a deadline: a
/// written-out date, or one said relative to the day ("Friday", "tomorrow") after a deadline
/// word — a bare "Friday" in a mail is when something happens, not when it is due. Numeric
/// dates are read day first: a sender's order is not known, and most of crew's languages
/// write it so.
pub(crate) fn find_deadline(text: &str, sent: NaiveDate) -> Option<Deadline> {
    find_dates(text, sent, DateOrder::Dmy)
        .into_iter()
        .filter(|f| f.deadline || !f.relative)
        // "you may 4 times": in mail the English verb is far more common than a lower-case month
        .filter(|f| f.deadline || !text[f.span.clone()].trim_start().starts_with("may "))
        .filter(|f| f.date >= sent && (f.date - sent).num_days() <= 366)
        .min_by_key(|f| (f.date, f.span.start))
        .map(|f| Deadline {
            date: f.date,
            words: text[f.span].trim().to_string(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("date")
    }

    #[test]
    fn deadlines_in_words_and_dates() {
        // 2026-12-01 is a Tuesday
        let sent = d("2026-12-01");
        let f = |t: &str| find_deadline(t, sent).map(|x| x.date);
        assert_eq!(f("please send it by Friday"), Some(d("2026-12-04")));
        assert_eq!(f("Due tomorrow!"), Some(d("2026-12-02")));
        assert_eq!(f("the report is due 2026-12-10"), Some(d("2026-12-10")));
        assert_eq!(f("we met on 2026-11-03"), None);
        assert_eq!(f("deadline: 15 December"), Some(d("2026-12-15")));
        assert_eq!(f("Submit by Jan 5th"), Some(d("2027-01-05")));
        assert_eq!(f("you may 4 times"), None);
        assert_eq!(f("by Tuesday"), Some(d("2026-12-08")));
        assert_eq!(f("nothing here"), None);
        assert_eq!(f("by end of week"), Some(d("2026-12-04")));
        assert_eq!(f("by the end of the week"), Some(d("2026-12-04")));
    }

    #[test]
    fn deadlines_in_seven_languages() {
        let sent = d("2026-12-01"); // a Tuesday
        let f = |t: &str| find_deadline(t, sent).map(|x| (x.date, x.words));
        let friday = d("2026-12-04");
        let wednesday = d("2026-12-02");
        assert_eq!(
            f("mandami il file entro venerdì"),
            Some((friday, "entro venerdì".into()))
        );
        assert_eq!(
            f("Merci de répondre avant mercredi."),
            Some((wednesday, "avant mercredi".into()))
        );
        assert_eq!(
            f("Bitte bis Freitag zurückschicken"),
            Some((friday, "bis Freitag".into()))
        );
        assert_eq!(
            f("Necesito el informe hasta el viernes"),
            Some((friday, "hasta el viernes".into()))
        );
        assert_eq!(
            f("Preciso disso até sexta"),
            Some((friday, "até sexta".into()))
        );
        assert_eq!(
            f("金曜日までに送ってください"),
            Some((friday, "金曜日までに".into()))
        );
        assert_eq!(f("bis morgen, danke").map(|x| x.0), Some(wednesday));
        assert_eq!(f("le rapport d'ici demain").map(|x| x.0), Some(wednesday));
        assert_eq!(
            f("scadenza 15 dicembre").map(|x| x.0),
            Some(d("2026-12-15"))
        );
        assert_eq!(
            f("el 15 de diciembre de 2026").map(|x| x.0),
            Some(d("2026-12-15"))
        );
        assert_eq!(f("Frist: 15. Dezember").map(|x| x.0), Some(d("2026-12-15")));
        assert_eq!(
            f("締め切りは12月15日です").map(|x| x.0),
            Some(d("2026-12-15"))
        );
        // a day with no deadline word is no deadline
        assert_eq!(f("ci vediamo venerdì"), None);
        assert_eq!(f("金曜日に会いましょう"), None);
    }
}
