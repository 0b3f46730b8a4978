use super::*;
use proptest::prelude::*;

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("date")
}

/// Tuesday 1 December 2026.
fn today() -> NaiveDate {
    day(2026, 12, 1)
}

fn first(text: &str, order: DateOrder) -> Option<Found> {
    find_dates(text, today(), order).into_iter().next()
}

#[test]
fn table_of_phrases() {
    // (text, expected date, expected span text)
    let cases: &[(&str, NaiveDate, &str)] = &[
        ("pay rent 2026-05-12", day(2026, 5, 12), "2026-05-12"),
        ("the 12.05.2026 review", day(2026, 5, 12), "12.05.2026"),
        ("by 12/05/2026 please", day(2026, 5, 12), "by 12/05/2026"),
        ("on 25/12/2026", day(2026, 12, 25), "on 25/12/2026"),
        ("call on 5 May", day(2027, 5, 5), "on 5 May"),
        ("call May 5th", day(2027, 5, 5), "May 5th"),
        ("Dec 24, 2026 party", day(2026, 12, 24), "Dec 24, 2026"),
        ("rendez-vous le 12 mai", day(2027, 5, 12), "le 12 mai"),
        (
            "cita el 12 de mayo de 2027",
            day(2027, 5, 12),
            "el 12 de mayo de 2027",
        ),
        ("Termin am 12. Mai", day(2027, 5, 12), "am 12. Mai"),
        ("consegna il 12 maggio", day(2027, 5, 12), "il 12 maggio"),
        ("reunião no dia 3", today(), ""),
        ("entrega 12 de março", day(2027, 3, 12), "12 de março"),
        ("締め切りは5月12日", day(2027, 5, 12), "5月12日"),
        ("2027年1月5日に会議", day(2027, 1, 5), "2027年1月5日"),
        ("do it today", today(), "today"),
        ("do it tomorrow", day(2026, 12, 2), "tomorrow"),
        ("send it by Friday", day(2026, 12, 4), "by Friday"),
        ("next Tuesday we talk", day(2026, 12, 8), "next Tuesday"),
        ("next Friday we talk", day(2026, 12, 11), "next Friday"),
        ("in 3 days", day(2026, 12, 4), "in 3 days"),
        ("in two weeks", day(2026, 12, 15), "in two weeks"),
        (
            "by the end of the month",
            day(2026, 12, 31),
            "by the end of the month",
        ),
        ("chiamare domani", day(2026, 12, 2), "domani"),
        ("entro venerdì", day(2026, 12, 4), "entro venerdì"),
        ("venerdì prossimo", day(2026, 12, 11), "venerdì prossimo"),
        ("tra 10 giorni", day(2026, 12, 11), "tra 10 giorni"),
        ("entro fine mese", day(2026, 12, 31), "entro fine mese"),
        ("appeler demain", day(2026, 12, 2), "demain"),
        ("avant vendredi", day(2026, 12, 4), "avant vendredi"),
        ("vendredi prochain", day(2026, 12, 11), "vendredi prochain"),
        ("après-demain", day(2026, 12, 3), "après-demain"),
        ("dans 2 semaines", day(2026, 12, 15), "dans 2 semaines"),
        ("llamar mañana", day(2026, 12, 2), "mañana"),
        ("pasado mañana", day(2026, 12, 3), "pasado mañana"),
        ("antes del viernes", day(2026, 12, 4), "antes del viernes"),
        ("el próximo lunes", day(2026, 12, 7), "el próximo lunes"),
        ("bis morgen", day(2026, 12, 2), "bis morgen"),
        ("bis Freitag", day(2026, 12, 4), "bis Freitag"),
        ("nächsten Montag", day(2026, 12, 7), "nächsten Montag"),
        ("übermorgen", day(2026, 12, 3), "übermorgen"),
        ("in 3 Tagen", day(2026, 12, 4), "in 3 Tagen"),
        ("ligar amanhã", day(2026, 12, 2), "amanhã"),
        ("até sexta", day(2026, 12, 4), "até sexta"),
        ("na próxima segunda", day(2026, 12, 7), "na próxima segunda"),
        ("em 3 dias", day(2026, 12, 4), "em 3 dias"),
        ("明日までに", day(2026, 12, 2), "明日までに"),
        ("金曜日まで", day(2026, 12, 4), "金曜日まで"),
        ("来週の火曜日", day(2026, 12, 8), "来週の火曜日"),
        ("3日後", day(2026, 12, 4), "3日後"),
        ("月末", day(2026, 12, 31), "月末"),
    ];
    let mut wrong = Vec::new();
    for (text, want, span) in cases {
        let got = first(text, DateOrder::Dmy);
        if span.is_empty() {
            if let Some(f) = got {
                wrong.push(format!("{text}: found {} but none was expected", f.date));
            }
            continue;
        }
        match got {
            Some(f) if f.date == *want && &text[f.span.clone()] == *span => {}
            Some(f) => wrong.push(format!(
                "{text}: {} `{}` (want {want} `{span}`)",
                f.date,
                &text[f.span.clone()]
            )),
            None => wrong.push(format!("{text}: nothing (want {want})")),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn numeric_dates_follow_the_order_unless_a_part_settles_it() {
    assert_eq!(
        first("12/05/2026", DateOrder::Dmy).map(|f| f.date),
        Some(day(2026, 5, 12))
    );
    assert_eq!(
        first("12/05/2026", DateOrder::Mdy).map(|f| f.date),
        Some(day(2026, 12, 5))
    );
    assert_eq!(
        first("25/12/2026", DateOrder::Mdy).map(|f| f.date),
        Some(day(2026, 12, 25))
    );
    assert_eq!(
        first("12/25/2026", DateOrder::Dmy).map(|f| f.date),
        Some(day(2026, 12, 25))
    );
    // dots are day first everywhere
    assert_eq!(
        first("12.05.2026", DateOrder::Mdy).map(|f| f.date),
        Some(day(2026, 5, 12))
    );
    assert_eq!(
        first("2026/05/12", DateOrder::Mdy).map(|f| f.date),
        Some(day(2026, 5, 12))
    );
    assert_eq!(
        first("12/05/26", DateOrder::Dmy).map(|f| f.date),
        Some(day(2026, 5, 12))
    );
    assert_eq!(
        first("bis 24.12.", DateOrder::Dmy).map(|f| f.date),
        Some(day(2026, 12, 24))
    );
}

#[test]
fn not_dates() {
    for text in [
        "version 1.2.3",
        "1/2 cup of flour",
        "32/13/2026",
        "guten Morgen",
        "por la mañana",
        "a sexta parte",
        "I may go",
        "call 555-1234",
        "ISBN 978-3-16-148410-0",
        "room 12.5",
    ] {
        let f = find_dates(text, today(), DateOrder::Dmy);
        assert!(f.is_empty(), "{text}: {f:?}");
    }
}

#[test]
fn limits_are_marked() {
    let f = first("send it by Friday", DateOrder::Dmy).expect("date");
    assert!(f.deadline && f.relative && !f.year_given);
    let f = first("on 5 May", DateOrder::Dmy).expect("date");
    assert!(!f.deadline && !f.relative);
    let f = first("- [ ] pay 📅 2026-05-12", DateOrder::Dmy).expect("date");
    assert!(f.deadline);
}

#[test]
fn absolute_dates_for_frontmatter_and_tasks() {
    assert_eq!(
        absolute_date("2026-05-12T10:00:00", DateOrder::Dmy),
        Some(day(2026, 5, 12))
    );
    assert_eq!(
        absolute_date("12/05/2026", DateOrder::Dmy),
        Some(day(2026, 5, 12))
    );
    assert_eq!(
        absolute_date("12 maggio 2026", DateOrder::Dmy),
        Some(day(2026, 5, 12))
    );
    assert_eq!(absolute_date("tomorrow", DateOrder::Dmy), None);
    assert_eq!(absolute_date("5 May", DateOrder::Dmy), None);
    assert_eq!(
        absolute_date("started 2026-01-01, due 2026-03-01", DateOrder::Dmy),
        Some(day(2026, 3, 1))
    );
}

#[test]
fn languages_choose_their_order() {
    assert_eq!(DateOrder::for_language("en"), DateOrder::Mdy);
    assert_eq!(DateOrder::for_language("en-GB"), DateOrder::Dmy);
    assert_eq!(DateOrder::for_language("it"), DateOrder::Dmy);
    assert_eq!(DateOrder::for_language("ja"), DateOrder::Ymd);
}

fn any_day() -> impl Strategy<Value = NaiveDate> {
    (0i64..3650).prop_map(|n| day(2024, 1, 1) + Duration::days(n))
}

const EN_MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const IT_MONTHS: [&str; 12] = [
    "gennaio",
    "febbraio",
    "marzo",
    "aprile",
    "maggio",
    "giugno",
    "luglio",
    "agosto",
    "settembre",
    "ottobre",
    "novembre",
    "dicembre",
];

proptest! {
    #[test]
    fn written_and_numeric_forms_round_trip(d in any_day(), pick in 0usize..7) {
        let (y, m, dd) = (d.year(), d.month(), d.day());
        let text = match pick {
            0 => d.format("%Y-%m-%d").to_string(),
            1 => format!("{dd:02}/{m:02}/{y}"),
            2 => format!("{dd}.{m}.{y}"),
            3 => format!("{dd} {} {y}", EN_MONTHS[m as usize - 1]),
            4 => format!("{} {dd}, {y}", EN_MONTHS[m as usize - 1]),
            5 => format!("{dd} {} {y}", IT_MONTHS[m as usize - 1]),
            _ => format!("{y}年{m}月{dd}日"),
        };
        let line = format!("todo: check it {text} then rest");
        let found = find_dates(&line, today(), DateOrder::Dmy);
        prop_assert_eq!(found.len(), 1, "{}", line);
        prop_assert_eq!(found[0].date, d);
        prop_assert_eq!(&line[found[0].span.clone()], text.as_str());
        prop_assert!(found[0].year_given);
    }

    #[test]
    fn relative_days_and_weekdays(t in any_day(), n in 0i64..500, wd in 0usize..7) {
        let f = find_dates(&format!("in {n} days"), t, DateOrder::Dmy);
        prop_assert_eq!(f[0].date, t + Duration::days(n));
        let names = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
        let bare = find_dates(&format!("by {}", names[wd]), t, DateOrder::Dmy);
        let ahead = (bare[0].date - t).num_days();
        prop_assert!((1..=7).contains(&ahead));
        prop_assert_eq!(bare[0].date.weekday().num_days_from_monday() as usize, wd);
        let next = find_dates(&format!("next {}", names[wd]), t, DateOrder::Dmy);
        prop_assert_eq!(next[0].date.weekday().num_days_from_monday() as usize, wd);
        prop_assert_eq!(monday_of(next[0].date), monday_of(t) + Duration::days(7));
    }

    #[test]
    fn any_text_gives_ordered_spans_on_char_boundaries(text in "\\PC{0,80}", order in 0u8..3) {
        let order = [DateOrder::Dmy, DateOrder::Mdy, DateOrder::Ymd][order as usize];
        let found = find_dates(&text, today(), order);
        let mut end = 0;
        for f in &found {
            prop_assert!(f.span.start >= end && f.span.start < f.span.end && f.span.end <= text.len());
            prop_assert!(text.is_char_boundary(f.span.start) && text.is_char_boundary(f.span.end));
            end = f.span.end;
        }
    }
}
