use super::*;
use crate::agents::scribe::names::{self, Name};

fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("date")
}

/// Tuesday 1 December 2026.
fn today() -> NaiveDate {
    day(2026, 12, 1)
}

fn items(text: &str) -> Vec<Item> {
    split(text, today(), DateOrder::Dmy, false)
}

#[test]
fn the_issue_capture_splits_into_a_task_and_an_idea() {
    let got = items(
        "meeting with Marco about the Q3 budget, he needs the revised figures by Friday, urgent. Idea: a shared dashboard for monthly spend.",
    );
    assert_eq!(got.len(), 2, "{got:#?}");
    assert_eq!(got[0].kind, ItemKind::Task);
    assert_eq!(got[0].date, Some(day(2026, 12, 4)));
    assert_eq!(got[0].priority, Some(Priority::High));
    assert_eq!(
        got[0].head,
        "meeting with Marco about the Q3 budget, he needs the revised figures"
    );
    assert_eq!(got[1].kind, ItemKind::Idea);
    assert_eq!(got[1].head, "a shared dashboard for monthly spend.");
}

#[test]
fn plain_notes_stay_whole() {
    let got = items("The sky was grey. We walked to the lake.\nThe water was cold.");
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].kind, ItemKind::Note);
    assert_eq!(got[0].body.len(), 2);
}

#[test]
fn leads_are_cut_from_tasks() {
    let got = items("remind me to call Anna tomorrow");
    assert_eq!(got[0].kind, ItemKind::Task);
    assert_eq!(got[0].head, "call Anna");
    assert_eq!(got[0].date, Some(day(2026, 12, 2)));
    let got = items("ricordami di pagare l'affitto entro venerdì, urgente");
    assert_eq!(got[0].head, "pagare l'affitto");
    assert_eq!(got[0].priority, Some(Priority::High));
}

#[test]
fn lists_under_a_label_take_its_kind() {
    let got = items("Todo:\n- buy milk\n- renew passport by 12/05/2027\n\nIdeas:\n- solar roof");
    let kinds: Vec<ItemKind> = got.iter().map(|i| i.kind).collect();
    assert_eq!(kinds, vec![ItemKind::Task, ItemKind::Task, ItemKind::Idea]);
    assert_eq!(got[1].date, Some(day(2027, 5, 12)));
    assert_eq!(got[1].head, "renew passport");
}

#[test]
fn events_have_their_day() {
    let got = items("dinner with Sara on 5 May");
    assert_eq!(got[0].kind, ItemKind::Event);
    assert_eq!(got[0].date, Some(day(2027, 5, 5)));
}

#[test]
fn sentences_keep_dates_and_abbreviations() {
    assert_eq!(
        sentences("Termin am 12. Mai. Dann Ruhe."),
        vec!["Termin am 12. Mai.", "Dann Ruhe."]
    );
    assert_eq!(sentences("ask Dr. Rossi"), vec!["ask Dr. Rossi"]);
    assert_eq!(
        sentences("明日電話する。アイデア：新しいロゴ"),
        vec!["明日電話する。", "アイデア：新しいロゴ"]
    );
}

/// One capture of the measurement set: the text, and what should come out.
struct Case {
    text: &'static str,
    tasks: usize,
    /// Due dates of the tasks, in order.
    dates: &'static [(i32, u32, u32)],
    /// Notes linked.
    links: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        text: "meeting with Marco about the Q3 budget, he needs the figures by Friday. Idea: a dashboard for spend.",
        tasks: 1,
        dates: &[(2026, 12, 4)],
        links: &["Marco Rossi"],
    },
    Case {
        text: "remind me to call Anna Lima tomorrow",
        tasks: 1,
        dates: &[(2026, 12, 2)],
        links: &["Anna Lima"],
    },
    Case {
        text: "send the invoice to Kitchen Renovation contractor next Tuesday, ASAP",
        tasks: 1,
        dates: &[(2026, 12, 8)],
        links: &["Kitchen Renovation"],
    },
    Case {
        text: "the sky over the lake was grey and still",
        tasks: 0,
        dates: &[],
        links: &[],
    },
    Case {
        text: "pay the rent by the end of the month",
        tasks: 1,
        dates: &[(2026, 12, 31)],
        links: &[],
    },
    Case {
        text: "ricordami di chiamare Marco domani",
        tasks: 1,
        dates: &[(2026, 12, 2)],
        links: &["Marco Rossi"],
    },
    Case {
        text: "devo consegnare il report entro il 12 maggio. Idea: un nuovo formato",
        tasks: 1,
        dates: &[(2027, 5, 12)],
        links: &[],
    },
    Case {
        text: "pagare la bolletta entro venerdì, urgente",
        tasks: 1,
        dates: &[(2026, 12, 4)],
        links: &[],
    },
    Case {
        text: "rappelle-moi d'appeler Anna demain",
        tasks: 1,
        dates: &[(2026, 12, 2)],
        links: &["Anna Lima"],
    },
    Case {
        text: "je dois finir le rapport avant le 12 mai",
        tasks: 1,
        dates: &[(2027, 5, 12)],
        links: &[],
    },
    Case {
        text: "réunion avec Marco vendredi prochain",
        tasks: 0,
        dates: &[],
        links: &["Marco Rossi"],
    },
    Case {
        text: "tengo que llamar a Anna mañana",
        tasks: 1,
        dates: &[(2026, 12, 2)],
        links: &["Anna Lima"],
    },
    Case {
        text: "enviar el presupuesto antes del 12 de mayo, urgente",
        tasks: 1,
        dates: &[(2027, 5, 12)],
        links: &[],
    },
    Case {
        text: "ich muss bis Freitag die Steuer erledigen",
        tasks: 1,
        dates: &[(2026, 12, 4)],
        links: &[],
    },
    Case {
        text: "Marco anrufen am 12.05.2027",
        tasks: 1,
        dates: &[(2027, 5, 12)],
        links: &["Marco Rossi"],
    },
    Case {
        text: "preciso ligar para a Anna amanhã",
        tasks: 1,
        dates: &[(2026, 12, 2)],
        links: &["Anna Lima"],
    },
    Case {
        text: "pagar a conta até sexta",
        tasks: 1,
        dates: &[(2026, 12, 4)],
        links: &[],
    },
    Case {
        text: "明日までに報告書を提出する",
        tasks: 1,
        dates: &[(2026, 12, 2)],
        links: &[],
    },
    Case {
        text: "5月12日までに田中さんに資料を送る",
        tasks: 1,
        dates: &[(2027, 5, 12)],
        links: &[],
    },
    Case {
        text: "todo: renew passport by 12/05/2027\nbuy milk in 3 days",
        tasks: 2,
        dates: &[(2027, 5, 12), (2026, 12, 4)],
        links: &[],
    },
];

fn names() -> Vec<Name> {
    let mut n = names::person_names("Marco Rossi", &[]);
    n.extend(names::person_names("Anna Lima", &[]));
    n.push(Name {
        surface: "Kitchen Renovation".into(),
        target: "Kitchen Renovation".into(),
        how: names::How::Full,
    });
    n
}

/// The measurement the issue asks for: over 20 captures in the seven languages, how many
/// task counts, due dates and links come out right. Printed with `--nocapture`; the floor
/// keeps it from sliding back.
#[test]
fn measured_on_twenty_captures() {
    let names = names();
    let (mut tasks_ok, mut dates_ok, mut dates_all, mut links_ok, mut links_all) = (0, 0, 0, 0, 0);
    let mut misses = Vec::new();
    for c in CASES {
        let got = items(c.text);
        let tasks: Vec<&Item> = got.iter().filter(|i| i.kind == ItemKind::Task).collect();
        if tasks.len() == c.tasks {
            tasks_ok += 1;
        } else {
            misses.push(format!("tasks {}: {got:?}", c.text));
        }
        for (i, (y, m, d)) in c.dates.iter().enumerate() {
            dates_all += 1;
            if tasks.get(i).and_then(|t| t.date) == Some(day(*y, *m, *d)) {
                dates_ok += 1;
            } else {
                misses.push(format!(
                    "date {}: {:?}",
                    c.text,
                    tasks.get(i).map(|t| t.date)
                ));
            }
        }
        let (_, linked, _) = names::link(c.text, &names);
        let linked: Vec<&str> = linked.iter().map(|m| m.notes[0].as_str()).collect();
        for want in c.links {
            links_all += 1;
            if linked.contains(want) {
                links_ok += 1;
            } else {
                misses.push(format!("link {}: {linked:?}", c.text));
            }
        }
        if linked.len() > c.links.len() {
            misses.push(format!("extra link {}: {linked:?}", c.text));
        }
    }
    println!(
        "captures {}: task counts right {tasks_ok}, dates right {dates_ok}/{dates_all}, links right {links_ok}/{links_all}\n{}",
        CASES.len(),
        misses.join("\n")
    );
    assert_eq!(CASES.len(), 20);
    assert!(
        tasks_ok >= 18 && dates_ok >= dates_all - 2 && links_ok == links_all,
        "{}",
        misses.join("\n")
    );
}
