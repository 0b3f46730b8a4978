//! The XML of CalDAV (RFC 4791 over WebDAV, RFC 4918): the `calendar-query` crew sends for a
//! time range, and the `multistatus` reply it reads. Pure: no I/O.
//!
//! Servers differ in prefixes (`D:`, `d:`, a default namespace), in whether calendar data
//! comes escaped or in CDATA, and in the status lines they add; elements are therefore matched
//! by namespace and local name, never by prefix.

use chrono::NaiveDateTime;

const DAV: &str = "DAV:";
const CALDAV: &str = "urn:ietf:params:xml:ns:caldav";

/// The `REPORT` body asking for every event overlapping `[start, end)` (UTC), with its data.
pub(crate) fn calendar_query(start: NaiveDateTime, end: NaiveDateTime) -> String {
    format!(
        concat!(
            r#"<?xml version="1.0" encoding="utf-8"?>"#,
            r#"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav">"#,
            r#"<d:prop><d:getetag/><c:calendar-data/></d:prop>"#,
            r#"<c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VEVENT">"#,
            r#"<c:time-range start="{}" end="{}"/>"#,
            r#"</c:comp-filter></c:comp-filter></c:filter></c:calendar-query>"#
        ),
        start.format("%Y%m%dT%H%M%SZ"),
        end.format("%Y%m%dT%H%M%SZ")
    )
}

/// One calendar object of a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Object {
    /// Its path on the server, as the server wrote it.
    pub href: String,
    /// Its iCalendar text.
    pub data: String,
}

/// What a `multistatus` reply held: the objects with calendar data, and one line for each
/// response that came without (a status other than 200).
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Reply {
    pub objects: Vec<Object>,
    pub problems: Vec<String>,
}

fn is(node: roxmltree::Node, ns: &str, name: &str) -> bool {
    node.is_element() && node.tag_name().name() == name && node.tag_name().namespace() == Some(ns)
}

fn child<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
    ns: &str,
    name: &str,
) -> Option<roxmltree::Node<'a, 'i>> {
    node.children().find(|c| is(*c, ns, name))
}

/// The text of an element: its text and CDATA pieces joined (the reader has unescaped them).
fn text_of(node: roxmltree::Node) -> String {
    node.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .collect()
}

/// The status code of a `HTTP/1.1 404 Not Found` line.
fn status_code(line: &str) -> Option<u16> {
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Reads a `multistatus` reply to a calendar query.
pub(crate) fn parse_multistatus(xml: &str) -> Result<Reply, String> {
    let doc = roxmltree::Document::parse(xml).map_err(|e| format!("not valid XML ({e})"))?;
    let root = doc.root_element();
    if !is(root, DAV, "multistatus") {
        return Err(format!(
            "not a WebDAV multistatus reply (its root is <{}>)",
            root.tag_name().name()
        ));
    }
    let mut reply = Reply::default();
    for response in root.children().filter(|c| is(*c, DAV, "response")) {
        let href = child(response, DAV, "href")
            .map(|h| text_of(h).trim().to_string())
            .unwrap_or_default();
        let mut data = None;
        let mut statuses = Vec::new();
        for propstat in response.children().filter(|c| is(*c, DAV, "propstat")) {
            let code = child(propstat, DAV, "status")
                .and_then(|s| status_code(&text_of(s)))
                .unwrap_or(200);
            let found = child(propstat, DAV, "prop")
                .and_then(|p| child(p, CALDAV, "calendar-data"))
                .map(text_of)
                .filter(|t| !t.trim().is_empty());
            match found {
                Some(t) if (200..300).contains(&code) => data = Some(t),
                _ => statuses.push(code),
            }
        }
        // a response may carry its status beside the href instead of in a propstat
        if let Some(code) = child(response, DAV, "status").and_then(|s| status_code(&text_of(s))) {
            statuses.push(code);
        }
        match data {
            Some(data) if !href.is_empty() => reply.objects.push(Object { href, data }),
            Some(_) => reply
                .problems
                .push("an object came without its href; skipped".into()),
            // the collection itself answers too, with no calendar data: not a problem
            None if statuses.iter().all(|c| (200..300).contains(c)) => {}
            None => reply.problems.push(format!(
                "{href}: the server gave no calendar data (status {}); skipped",
                statuses
                    .iter()
                    .map(u16::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        }
    }
    Ok(reply)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_query_names_the_range_in_utc() {
        let t = |s| NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M").unwrap();
        let q = calendar_query(t("2026-12-01 00:00"), t("2026-12-31 23:00"));
        assert!(q.contains(r#"<c:time-range start="20261201T000000Z" end="20261231T230000Z"/>"#));
        assert!(roxmltree::Document::parse(&q).is_ok());
    }

    #[test]
    fn replies_are_read_whatever_their_prefixes_and_escaping() {
        // Radicale: default namespace, data escaped
        let radicale = r#"<?xml version='1.0' encoding='utf-8'?>
<multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><response><href>/crew/t1/abc.ics</href><propstat><prop><getetag>"b5"</getetag><C:calendar-data>BEGIN:VCALENDAR
SUMMARY:Fish &amp; chips
END:VCALENDAR
</C:calendar-data></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>"#;
        let r = parse_multistatus(radicale).unwrap();
        assert_eq!(r.objects.len(), 1);
        assert_eq!(r.objects[0].href, "/crew/t1/abc.ics");
        assert!(r.objects[0].data.contains("SUMMARY:Fish & chips\n"));
        // Nextcloud style: d:/cal: prefixes, CDATA, a 404 propstat for a property it lacks
        let nextcloud = r#"<?xml version="1.0"?>
<d:multistatus xmlns:d="DAV:" xmlns:cal="urn:ietf:params:xml:ns:caldav">
 <d:response>
  <d:href>/remote.php/dav/calendars/me/personal/x.ics</d:href>
  <d:propstat><d:prop><cal:calendar-data><![CDATA[BEGIN:VCALENDAR
UID:x
END:VCALENDAR]]></cal:calendar-data></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
  <d:propstat><d:prop><d:getetag/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat>
 </d:response>
 <d:response><d:href>/remote.php/dav/calendars/me/personal/</d:href><d:propstat><d:prop/><d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>
 <d:response><d:href>/remote.php/dav/calendars/me/personal/gone.ics</d:href><d:status>HTTP/1.1 403 Forbidden</d:status></d:response>
</d:multistatus>"#;
        let r = parse_multistatus(nextcloud).unwrap();
        assert_eq!(r.objects.len(), 1);
        assert_eq!(r.objects[0].data, "BEGIN:VCALENDAR\nUID:x\nEND:VCALENDAR");
        assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
        assert!(r.problems[0].contains("gone.ics") && r.problems[0].contains("403"));
    }

    #[test]
    fn an_element_of_another_namespace_is_not_taken_for_davs() {
        let xml = r#"<m:multistatus xmlns:m="urn:other"/>"#;
        assert!(parse_multistatus(xml).unwrap_err().contains("multistatus"));
        let xml = r#"<multistatus xmlns="DAV:"><response xmlns="urn:other"><href>/a</href></response></multistatus>"#;
        assert_eq!(parse_multistatus(xml).unwrap(), Reply::default());
        assert!(parse_multistatus("<html>502 Bad Gateway").is_err());
        assert!(parse_multistatus("").is_err());
    }
}
