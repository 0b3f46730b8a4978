use super::*;

fn now() -> NaiveDateTime {
    // a Thursday
    NaiveDateTime::parse_from_str("2026-12-03 09:00", "%Y-%m-%d %H:%M").unwrap()
}

fn read(text: &str) -> Result<Asked, Missing> {
    read_request(text, now(), DateOrder::Dmy)
}

fn t(s: &str) -> NaiveTime {
    NaiveTime::parse_from_str(s, "%H:%M").unwrap()
}

fn d(s: &str) -> NaiveDate {
    NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap()
}

#[test]
fn the_request_gives_title_day_and_time_in_seven_languages() {
    let cases = [
        (
            ": lunch with Marco next Tuesday at noon",
            "Lunch with Marco",
        ),
        (
            ": pranzo con Marco martedì prossimo a mezzogiorno",
            "Pranzo con Marco",
        ),
        (
            " : déjeuner avec Marco mardi prochain à midi",
            "Déjeuner avec Marco",
        ),
        (
            ": comida con Marco el próximo martes al mediodía",
            "Comida con Marco",
        ),
        (
            ": Mittagessen mit Marco nächsten Dienstag um 12 Uhr",
            "Mittagessen mit Marco",
        ),
        (
            ": almoço com Marco na próxima terça ao meio-dia",
            "Almoço com Marco",
        ),
        (": 来週の火曜日 正午 マルコとランチ", "マルコとランチ"),
    ];
    for (text, title) in cases {
        let a = read(text).unwrap_or_else(|m| panic!("{text}: {m:?}"));
        assert_eq!(a.summary, title, "{text}");
        assert_eq!(a.date, d("2026-12-08"), "{text}");
        assert_eq!(a.times, Some((t("12:00"), t("13:00"))), "{text}");
    }
}

#[test]
fn a_range_an_all_day_event_and_a_time_without_a_day() {
    let a = read("workshop on 12 December from 2 to 5pm").unwrap();
    assert_eq!(a.summary, "Workshop");
    assert_eq!(a.date, d("2026-12-12"));
    assert_eq!(a.times, Some((t("14:00"), t("17:00"))));
    let a = read("team offsite 2026-12-18").unwrap();
    assert_eq!(
        (a.summary.as_str(), a.date, a.times),
        ("Team offsite", d("2026-12-18"), None)
    );
    // a time still ahead today is today's; one gone by is tomorrow's
    assert_eq!(read("call Ana at 15:00").unwrap().date, d("2026-12-03"));
    assert_eq!(read("call Ana at 8:00").unwrap().date, d("2026-12-04"));
}

#[test]
fn what_is_missing_is_named() {
    assert_eq!(read("Lunch with Marco"), Err(Missing::When));
    assert_eq!(read(": next Tuesday at noon"), Err(Missing::What));
}

#[test]
fn the_phrase_is_found_whatever_its_accents_and_case() {
    let p = |s: &str| vec![s.to_string()];
    let m = "Créer un événement : déjeuner mardi";
    let r = phrase_span(m, &p("creer un evenement")).unwrap();
    assert_eq!(&m[r], "Créer un événement");
    let m = "lunch friday — create an event";
    let r = phrase_span(m, &p("create an event")).unwrap();
    assert_eq!(&m[r], "create an event");
    let m = "来週の火曜日に予定を作成して";
    let r = phrase_span(m, &p("予定を作成")).unwrap();
    assert_eq!(&m[r], "予定を作成");
    assert_eq!(
        phrase_span("recreate an eventual plan", &p("create an event")),
        None
    );
}

#[test]
fn a_title_from_the_user_stays_one_calendar_text() {
    let a = read("party\nEND:VEVENT\nBEGIN:VEVENT\nSUMMARY:x next Tuesday").unwrap();
    let ics = new_event(&a, "crew-1", chrono_tz::UTC, Utc::now()).to_ics();
    assert_eq!(ics.matches("\r\nBEGIN:VEVENT\r\n").count(), 1);
    assert_eq!(ics.matches("\r\nSUMMARY:").count(), 1);
}
