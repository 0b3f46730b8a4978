//! The shape of a request, apart from its vocabulary: a question asks for something the vault
//! already holds, so it is never a capture, whatever words it shares with one ("what did I
//! write about X?" is a search, not a note to write). The words that make a question are
//! data: `question_words`, `question_openers` and `locating_words` in `references/lang/*.yaml`.

use crate::text::{normalize, words};

/// Whether a message asks rather than tells: it ends with a question mark (Latin or full
/// width), or its first word opens a question.
pub(crate) fn is_question(message: &str) -> bool {
    let trimmed = message.trim();
    if trimmed.ends_with('?') || trimmed.ends_with('？') || trimmed.starts_with('¿') {
        return true;
    }
    let normalized = normalize(trimmed);
    let first = words(&normalized).next().unwrap_or("");
    // "what …" and "was …" without a question mark are still questions; "do this" is not
    let lexicons = crate::text::lexicons();
    lexicons
        .iter()
        .any(|l| l.question_words.iter().any(|w| w == first))
        || (message.contains('?')
            && lexicons
                .iter()
                .any(|l| l.question_openers.iter().any(|w| w == first)))
}

/// Whether a normalized word is one of any language's question words or openers ("qual",
/// "where", "wo"): the grammar of a question, not a word of any route's domain.
pub(crate) fn is_question_word(word: &str) -> bool {
    crate::text::lexicons().iter().any(|l| {
        l.question_words.iter().any(|w| w == word) || l.question_openers.iter().any(|w| w == word)
    })
}

/// Whether a message is a request put politely as a question ("can you build me an agent?",
/// "puoi riordinare i tag?", "mes tags sont un désastre, tu peux faire le tri ?"): it opens with
/// polite words (`polite_words`), or holds words that ask for work (`request_modals`), and it
/// does not open as a question ("what …", "did …"). It asks for something to be done, so a
/// capture or a creation is not held against it as it is against a real question.
pub(crate) fn asks_politely(message: &str) -> bool {
    let normalized = normalize(message.trim());
    let lead = super::mode::lead_end(&normalized);
    let next = words(&normalized[lead..]).next().unwrap_or("");
    if next.is_empty() || is_question_word(next) {
        return false;
    }
    lead > 0
        || crate::text::lexicons()
            .iter()
            .flat_map(|l| &l.request_modals)
            .any(|m| super::mode::has_phrase(&normalized, &normalize(m)))
}

/// Whether a question asks where something is: the search agent's question above all.
pub(crate) fn asks_where(message: &str) -> bool {
    let normalized = normalize(message);
    let locating = crate::text::lexicons()
        .iter()
        .flat_map(|l| &l.locating_words);
    // "どこ" asks where by itself; a spaced script's "where" only in a question
    locating
        .into_iter()
        .any(|w| has_word(&normalized, w) && (unspaced(w) || is_question(message)))
}

fn unspaced(word: &str) -> bool {
    word.chars().any(crate::text::is_unspaced_script)
}

/// Whether a normalized text holds a word of a list: found inside the text for a script written
/// without spaces, as a whole word otherwise.
pub(crate) fn has_word(normalized: &str, word: &str) -> bool {
    if unspaced(word) {
        normalized.contains(word)
    } else {
        words(normalized).any(|x| x == word)
    }
}

/// The notes a request names by their links, and what it says of a place for them (see
/// [`NoteAndPlace::is_one_note_and_place`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NoteAndPlace {
    /// The links' targets as written: a note's name or a path ("Q3 budget", "Work/Q3 budget").
    pub targets: Vec<String>,
    /// The message around the links, as written (each link a space).
    pub outside: String,
    /// Tokens outside the link written like folder paths ("Work/Finance"), each with its byte
    /// range in `outside`.
    pub paths: Vec<(String, std::ops::Range<usize>)>,
    /// `outside`, normalized: where a folder's name is looked for.
    pub rest: String,
    /// Whether the message names a place by a folder word or a path written like one.
    pub names_place: bool,
    /// Whether the message asks for the move in so many words ([`asks_to_move`]).
    pub asks_to_move: bool,
}

impl NoteAndPlace {
    /// Whether the message names one note by its link and a place for it: a folder word of
    /// the message's language ("nella cartella Cucina") or a path outside the link ("dans
    /// Maison/Travaux"). Such a request files that note; it is not about the whole inbox or the
    /// vault's layout.
    pub(crate) fn is_one_note_and_place(&self) -> bool {
        self.targets.len() == 1 && self.names_place
    }
}

/// The notes a message names by their links, and what it says around them; none when it
/// links no note.
pub(crate) fn linked_notes(message: &str) -> Option<NoteAndPlace> {
    let links = crate::vault::markdown::wikilinks(message);
    if links.is_empty() {
        return None;
    }
    // the notes a request moves are the first link and those listed with it ("[[A]], [[B]]
    // and [[C]]"); a link further on is said of them ("… it is related to [[D]]")
    let listed = 1 + links
        .windows(2)
        .take_while(|pair| joins(&message[pair[0].span.end..pair[1].span.start]))
        .count();
    // a link's own text is a note's name, not where it goes
    let mut outside = String::with_capacity(message.len());
    let mut at = 0;
    for link in &links {
        outside.push_str(&message[at..link.span.start]);
        outside.push(' ');
        at = link.span.end;
    }
    outside.push_str(&message[at..]);
    let paths: Vec<(String, std::ops::Range<usize>)> = path_spans(&outside)
        .map(|span| (outside[span.clone()].to_string(), span))
        .collect();
    let rest = normalize(&outside);
    let names_place = !paths.is_empty() || names_folder_word(&outside, &rest);
    Some(NoteAndPlace {
        targets: links[..listed].iter().map(|l| l.target.clone()).collect(),
        asks_to_move: asks_to_move(&message[..links[0].span.start], &outside),
        outside,
        paths,
        rest,
        names_place,
    })
}

/// The message with each token written like a folder path ("Maison/Travaux", "Work/Email")
/// blanked: a place is a name, as a link's is, and its words ask for no route ("travaux" is
/// the postman's word, "Email" too). Unchanged when it names no such path or is nothing else.
pub(crate) fn without_folder_paths(message: &str) -> std::borrow::Cow<'_, str> {
    let spans: Vec<std::ops::Range<usize>> = path_spans(message).collect();
    if spans.is_empty() {
        return message.into();
    }
    let mut kept = String::with_capacity(message.len());
    let mut from = 0;
    for span in &spans {
        kept.push_str(&message[from..span.start]);
        kept.push(' ');
        from = span.end;
    }
    kept.push_str(&message[from..]);
    if kept.chars().any(char::is_alphanumeric) {
        kept.into()
    } else {
        message.into()
    }
}

/// The byte ranges of the tokens of `text` written like folder paths ([`folder_path`]).
fn path_spans(text: &str) -> impl Iterator<Item = std::ops::Range<usize>> {
    token_spans(text).filter_map(|(token, at)| {
        folder_path(token).map(|p| {
            let start = at + token.find(p).unwrap_or(0);
            start..start + p.len()
        })
    })
}

/// The whitespace-separated tokens of a text with their byte offsets.
fn token_spans(text: &str) -> impl Iterator<Item = (&str, usize)> {
    text.split_whitespace()
        .map(move |t| (t, t.as_ptr() as usize - text.as_ptr() as usize))
}

/// Whether a message that links notes (`named`, its [`linked_notes`]) opens one of its clauses
/// with a move verb, polite words aside: "[[X]] is sitting in the wrong place, put it where
/// it belongs", "[[X]] n'a rien à faire dans Archives, mets-le dans Travail". Looser than
/// [`asks_to_move`], which decides and acts: this only tells a guess that the request is
/// about where its notes go.
pub(crate) fn mentions_a_move(named: &NoteAndPlace) -> bool {
    opens_a_clause(&named.outside, |l| &l.move_words)
}

/// Whether a message opens one of its clauses with a verb that makes links, polite and joining
/// words aside: "hook them up to whatever's relevant", "Enlaza [[X]] con las notas …", "… e
/// liga elas". Only tells a guess that links are to be made, not looked up.
/// `named` is [`linked_notes`] of the message.
pub(crate) fn asks_for_links(message: &str, named: Option<&NoteAndPlace>) -> bool {
    let outside = named.map_or(message, |n| n.outside.as_str());
    opens_a_clause(outside, |l| &l.link_words)
}

/// Whether a clause of `text` opens with a word of a list of any language, polite words
/// aside: a clause starts after punctuation and after a joining word ("… and link them", "… e
/// liga elas").
fn opens_a_clause(text: &str, list: fn(&crate::text::Lexicon) -> &Vec<String>) -> bool {
    let lexicons = crate::text::lexicons();
    let joining = |w: &str| lexicons.iter().any(|l| l.and_words.iter().any(|a| a == w));
    let mut opening: Vec<String> = Vec::new();
    for clause in text.split([
        '\n', ',', '.', ';', ':', '!', '?', '—', '–', '(', ')', '？', '！', '。', '、',
    ]) {
        let normalized = normalize(clause);
        let lead = &normalized[super::mode::lead_end(&normalized)..];
        let said: Vec<&str> = words(lead).collect();
        opening.extend(said.first().map(|w| w.to_string()));
        opening.extend(
            said.windows(2)
                .filter(|pair| joining(pair[0]))
                .map(|pair| pair[1].to_string()),
        );
    }
    lexicons
        .iter()
        .flat_map(list)
        .any(|v| opening.iter().any(|w| w == v))
}

/// Whether a text holds a folder word of its own language ("pasta" in Portuguese, not in
/// Italian), or of any language when its language is unclear.
fn names_folder_word(text: &str, normalized: &str) -> bool {
    folder_words(text).any(|w| has_word(normalized, w))
}

/// The folder words a text may use: its detected language's, or every language's when that
/// is unclear — a folder word of one language is an everyday word of another ("pasta",
/// "repertoire").
pub(crate) fn folder_words(text: &str) -> impl Iterator<Item = &'static String> {
    lexicons_of(text).flat_map(|l| &l.folder_words)
}

/// The lexicons a text may be read with: its detected language's, or every language's when
/// that is unclear.
fn lexicons_of(text: &str) -> impl Iterator<Item = &'static crate::text::Lexicon> {
    let detected = crate::lang::detect(text).map(|l| l.code());
    crate::text::lexicons()
        .iter()
        .filter(move |l| detected.is_none_or(|code| code == l.code))
}

/// Whether a request asks for a move in so many words, `before` being its text before the
/// first link and `outside` its text with the links taken out:
/// - it opens with a move verb of its language right before the link, after polite words,
///   with nothing between but little words ("please move [[X]]", "sposta la nota [[X]]"); a
///   verb followed by a pause or other words is an idiom ("Put simply, [[X]] …", "Drop me a
///   line when [[X]] …");
/// - or it opens with the link and ends with a verb its language puts last, polite words
///   aside ("Bitte [[X]] nach A verschieben", "[[X]]をAに移動してください");
/// - it is no question unless a polite one ("can you move [[X]] …?"), and none of its words
///   turns it around, puts it off or reports it ("don't", "except", "if", "later", "she
///   wrote", "non", "nicht", "ない").
///
/// Anything else — "I moved [[X]] to A", "copy [[X]] to A", "[[X]] to A" — is not an asked
/// move: crew says what it would do instead of doing it.
pub(crate) fn asks_to_move(before: &str, outside: &str) -> bool {
    let outside = super::mode::without_mention(outside.trim());
    let before = super::mode::without_mention(before.trim());
    if outside.contains(['?', '？']) && !asks_politely(outside) {
        return false;
    }
    if outside.trim_start().starts_with('>') {
        return false;
    }
    let langs: Vec<&crate::text::Lexicon> = lexicons_of(outside).collect();
    // a path's first part is no verb ("Archive/2025 holds …")
    let unpathed: Vec<&str> = outside
        .split_whitespace()
        .map(|t| if t.contains('/') { "_" } else { t })
        .collect();
    let normalized = normalize(&unpathed.join(" "));
    let holds = |w: &String| {
        if unspaced(w) {
            normalized.contains(w.as_str())
        } else {
            super::mode::has_phrase(&normalized, w)
        }
    };
    if langs.iter().flat_map(|l| &l.negation_words).any(holds) {
        return false;
    }
    let lead = normalize(before);
    let lead = &lead[super::mode::lead_end(&lead)..];
    // the verb right before the link: no pause after it, only little words between
    let pause = before.contains([',', ':', ';', '.', '!', '—', '(']);
    let little = |w: &str| {
        langs
            .iter()
            .any(|l| l.function_words.iter().chain(&l.note_words).any(|f| f == w))
    };
    // any language's verb: right before the link it is that verb, and a short request's
    // language is easily misread ("sposta [[X]] in A" looks German)
    let opens = !pause
        && crate::text::lexicons()
            .iter()
            .flat_map(|l| &l.move_words)
            .any(|verb| {
                lead.strip_prefix(verb.as_str()).is_some_and(|rest| {
                    rest.is_empty() || rest.starts_with(' ') && words(rest).all(little)
                })
            });
    // the link first and the verb last
    let tail = {
        let mut t = normalize(outside);
        'polite: loop {
            for p in langs.iter().flat_map(|l| &l.polite_words) {
                if let Some(cut) = t.strip_suffix(p.as_str())
                    && cut.len() < t.len()
                    && (unspaced(p) || cut.is_empty() || cut.ends_with(' '))
                {
                    t = cut.trim_end().to_string();
                    continue 'polite;
                }
            }
            break t;
        }
    };
    let ends = lead.is_empty()
        && langs.iter().flat_map(|l| &l.move_words_last).any(|verb| {
            tail.strip_suffix(verb.as_str())
                .is_some_and(|cut| cut.is_empty() || unspaced(verb) || cut.ends_with(' '))
        });
    opens || ends
}

/// Whether the text between two links joins them in a list: nothing but punctuation and at
/// most one word that joins ("and", "und", "と").
fn joins(between: &str) -> bool {
    let normalized = normalize(between);
    let mut ands = crate::text::lexicons().iter().flat_map(|l| &l.and_words);
    let said: Vec<&str> = words(&normalized).collect();
    match said.as_slice() {
        [] => true,
        [one] => ands.any(|a| a == one),
        _ => false,
    }
}

/// A token written like a folder path ("Work/Finance", "Archive/2025", "仕事/財務"), trimmed of
/// the punctuation around it: two or more parts of at least two characters, one of them
/// capitalised or a number, no dot and no scheme — "and/or", "w/o", "km/h" and
/// "example.com/docs" are not places.
fn folder_path(token: &str) -> Option<&str> {
    // a path written inside an unspaced script ends where that script starts again
    let token = token.trim_matches(crate::text::is_unspaced_script);
    let token = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '/' && c != '.');
    // a step up or into a hidden folder is a path too, one crew refuses (`..`, `.obsidian`)
    if token.contains('/') && token.split('/').any(|p| p.starts_with('.')) {
        return Some(token);
    }
    let token = token.trim_matches(|c: char| !c.is_alphanumeric() && c != '/');
    if token.starts_with('#') || token.contains("://") || token.contains('.') {
        return None;
    }
    let parts: Vec<&str> = token.split('/').filter(|p| !p.is_empty()).collect();
    let place = parts.len() >= 2
        && parts.iter().all(|p| p.chars().count() >= 2)
        && parts.iter().any(|p| {
            p.chars()
                .next()
                .is_some_and(|c| c.is_numeric() || (c.is_alphabetic() && !c.is_lowercase()))
        });
    place.then_some(token)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files_one_note(message: &str) -> bool {
        linked_notes(message).is_some_and(|n| n.is_one_note_and_place())
    }

    #[test]
    fn where_questions() {
        assert!(asks_where("où est la note sur les impôts ?"));
        assert!(asks_where("where did I leave the tax note"));
        assert!(asks_where("税金のノートはどこ？"));
        assert!(!asks_where("tea or coffee ou café"));
    }

    #[test]
    fn a_clause_that_opens_with_a_move_or_link_verb() {
        type Reading = fn(&str) -> bool;
        let mentions_a_move = |m: &str| linked_notes(m).is_some_and(|n| mentions_a_move(&n));
        let asks_for_links = |m: &str| asks_for_links(m, linked_notes(m).as_ref());
        let cases: [(Reading, &[&str], &[&str]); 2] = [
            (
                mentions_a_move,
                &[
                    "[[X]] is sitting in the wrong place, put it where it belongs",
                    "[[X]] n'a rien à faire dans Archives, mets-le dans Travail/Design.",
                    "please move [[X]] to the right folder",
                    "summarise [[X]] and move it to Archive",
                ],
                &[
                    "where did I put [[X]]?",
                    "I put [[X]] in Work yesterday",
                    "put the kettle on",
                    "summarise [[X]]",
                ],
            ),
            (
                asks_for_links,
                &[
                    "which notes have nothing pointing at them? hook them up",
                    "Enlaza [[Estoicismo]] con las notas sobre Séneca",
                    "encontra notas sobre pão e liga elas",
                ],
                &[
                    "which notes link to [[X]]?",
                    "find notes about linking",
                    "I linked [[X]] yesterday",
                    "summarise [[Link ideas]]",
                ],
            ),
        ];
        for (reads, said, not_said) in cases {
            for message in said {
                assert!(reads(message), "{message}");
            }
            for message in not_said {
                assert!(!reads(message), "{message}");
            }
        }
    }

    #[test]
    fn a_folder_path_is_blanked_and_other_slashes_kept() {
        let cases = [
            ("[[X]] dans Maison/Travaux, merci", "[[X]] dans  , merci"),
            ("and/or w/o km/h", "and/or w/o km/h"),
            // nothing but a path: kept whole
            ("Work/Email", "Work/Email"),
        ];
        for (message, kept) in cases {
            assert_eq!(without_folder_paths(message), kept, "{message}");
        }
    }

    #[test]
    fn questions_by_mark_or_opener() {
        assert!(is_question("what did I write about bread?"));
        assert!(is_question("where is the tax note"));
        assert!(is_question("¿qué escribí sobre el pan"));
        assert!(is_question("今日は重要なメールある？"));
        assert!(is_question("wo habe ich das abgelegt"));
        assert!(!is_question("write down that the plumber comes"));
        assert!(!is_question("do the weekly review"));
        assert!(!is_question("note this: milk"));
    }

    #[test]
    fn polite_requests_are_not_asked() {
        assert!(asks_politely(
            "can you build me an agent that tracks my workouts?"
        ));
        assert!(asks_politely("puoi riordinare i miei tag?"));
        assert!(!asks_politely(""));
        assert!(!asks_politely("hey, what did I write about bread?"));
        assert!(!asks_politely("what did I write about bread?"));
        assert!(asks_politely(
            "mes tags sont en vrac, tu peux faire le tri ?"
        ));
        assert!(asks_politely(
            "vorrei un agente mio, mi aiuti a costruirlo?"
        ));
        assert!(!asks_politely("where did I put the note, can you tell?"));
    }

    #[test]
    fn a_move_is_asked_by_its_verb_at_the_head_or_end_and_not_turned_around() {
        let asked = |m: &str| linked_notes(m).is_some_and(|n| n.asks_to_move);
        assert!(asked("move [[Q3]] to Work/Finance"));
        assert!(asked("Please move [[Q3]] to Work/Finance"));
        assert!(asked("can you put [[Q3]] in the Finance folder?"));
        assert!(asked("Sposta [[Ricetta]] nella cartella Cucina"));
        assert!(asked("Bitte [[Q3]] in den Ordner Archiv verschieben"));
        assert!(asked("[[会議メモ]]を仕事フォルダに移動して"));
        assert!(asked("coloca a nota [[Orçamento]] na pasta Casa"));
        // a verb that sends is said of people too: "manda [[X]] pro João"
        assert!(!asked("manda a nota [[Orçamento]] pra pasta Casa"));
        assert!(!asked("don't move [[Q3]] to Work/Finance"));
        assert!(!asked("Do not move [[Q3]] to Work/Finance yet"));
        assert!(!asked("I moved [[Q3]] to Work/Finance"));
        assert!(!asked("copy [[Q3]] to Work/Finance"));
        assert!(!asked("rename [[Q3]] to Work/Finance"));
        assert!(!asked("[[Move plan]] is in Work/Finance"));
        assert!(!asked("non spostare [[Ricetta]] nella cartella Cucina"));
        assert!(!asked("[[Q3]] nicht in den Ordner Archiv verschieben"));
        assert!(!asked("[[会議メモ]]を仕事フォルダに移動しないで"));
        assert!(!asked("[[会議メモ]]を仕事フォルダに移動しなくていい"));
        assert!(!asked("[[会議メモ]]を仕事フォルダに移動しました"));
        assert!(!asked(
            "Tell me if [[Q3]] belongs in Work/Finance or if that is a bad move"
        ));
        assert!(!asked("Transfer/2025 already holds [[Q3]]"));
        assert!(!asked(
            "Ich überlege, [[Q3]] in den Ordner Casa zu verschieben"
        ));
        assert!(!asked(
            "move [[Q3]] to Work/Finance or keep it? I am not sure yet"
        ));
        assert!(!asked("file my notes, except [[Q3]]"));
        assert!(asked("Can you move [[Q3]] to Work/Finance?"));
        assert!(asked("I want you to move [[Q3]] to Work/Finance"));
        assert!(asked("ok so move [[Q3]] to Work/Finance"));
        assert!(asked("@sorter move [[Q3]] to Work/Finance"));
        assert!(asked("move the note [[Q3]] to Work/Finance"));
        assert!(asked("sposta [[Q3]] in 02-Areas/Home"));
        assert!(asked("[[会議メモ]]を仕事フォルダに移動してください"));
        for idiom in [
            "Put simply, [[Q3]] was in Work/Finance once",
            "Drop me a line when [[Q3]] reaches Work/Finance",
            "Transfer learning notes like [[Q3]] are in Work/Finance",
            "Metti caso che [[Q3]] sia nella cartella Casa",
            "Move [[Q3]] to Work/Finance only if the refund arrived",
            "Move [[Q3]] to Work/Finance, she wrote",
            "> move [[Q3]] to Work/Finance",
            "Tom meint, wir sollten [[Q3]] nach Work/Finance verschieben",
            "Bitte [[Q3]] auf keinen Fall nach Work/Finance verschieben",
            "[[会議メモ]]を仕事フォルダに移動してしまって困っている",
            "[[会議メモ]]を仕事フォルダに移動してと言われた",
        ] {
            assert!(!asked(idiom), "{idiom}");
        }
    }

    #[test]
    fn the_notes_moved_are_the_first_link_and_those_listed_with_it() {
        let targets = |m: &str| linked_notes(m).map(|n| n.targets).unwrap_or_default();
        assert_eq!(
            targets("move [[A]], [[B]] and [[C]] to X/Y"),
            ["A", "B", "C"]
        );
        assert_eq!(targets("[[A]]と[[B]]をXフォルダに移動して"), ["A", "B"]);
        assert_eq!(targets("move [[A]] to X/Y, it is related to [[B]]"), ["A"]);
        assert_eq!(targets("move [[A]] to X/Y but not [[B]]"), ["A"]);
    }

    #[test]
    fn a_note_and_a_place_is_filing() {
        assert!(files_one_note(
            "Sposta [[Ricetta lasagne]] nella cartella Cucina"
        ));
        assert!(files_one_note("move [[Q3 budget]] to Work/Finance please"));
        assert!(files_one_note("[[会議メモ]]を仕事フォルダに入れて"));
        // two notes, no place, a tag or a link's own path are not a note being filed
        assert!(!files_one_note(
            "link [[Spinoza]] and [[Deleuze]] in the folder"
        ));
        assert!(!files_one_note("what did I write in [[Sourdough]]?"));
        assert!(!files_one_note("tag [[Sourdough]] with #food/bread"));
        assert!(!files_one_note("summarise [[Projects/Alpha]] for me"));
        assert!(!files_one_note("see https://example.com/a/b for [[Alpha]]"));
        assert!(!files_one_note(
            "summarise [[Alpha]] w/o the appendix, and/or shorten it"
        ));
        assert!(!files_one_note("read example.com/docs for [[Alpha]]"));
        assert!(!files_one_note("add [[Chopin Ballade]] to my repertoire"));
        assert!(!files_one_note(
            "aggiungi la pasta a [[Lista spesa]], grazie"
        ));
        assert!(files_one_note("]] stray, then move [[X]] to Work/Finance"));
    }
}
