//! CalDAV over HTTP(S) (`ureq`): a `REPORT calendar-query` reads the events of a time range, a
//! `PUT` with `If-None-Match: *` adds one new event. Crew never sends DELETE, and never replaces
//! an object: a server that already holds one under the name gets a refusal (412) back, and
//! crew reports it rather than retry over it.

use std::time::Duration;

use base64::Engine as _;
use chrono::NaiveDateTime;

use super::caldav_xml::{self, Object};
use crate::crew::mailcal::{CaldavConfig, shown_url};

/// The longest reply crew reads (a calendar's events over two months are far smaller).
const MAX_REPLY: u64 = 32 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum CaldavError {
    #[error(
        "calendar {url}: the environment variable {var} (calendar.caldav password_env) is not set"
    )]
    Password { url: String, var: String },
    #[error("calendar {url}: cannot reach the server ({reason}); check the URL and the network")]
    Unreachable { url: String, reason: String },
    #[error(
        "calendar {url}: the server refused the login{who} (HTTP {status}); check username and the password in password_env (many services want an app password)"
    )]
    Login {
        url: String,
        who: String,
        status: u16,
    },
    #[error(
        "calendar {url}: no calendar there (HTTP {status}); use the calendar's own URL as the server shows it"
    )]
    NotFound { url: String, status: u16 },
    #[error(
        "calendar {url}: the server sends it on to {to} (HTTP {status}); put that URL in the config"
    )]
    Moved {
        url: String,
        to: String,
        status: u16,
    },
    #[error("calendar {url}: an object named {name} is already there; nothing was replaced")]
    Exists { url: String, name: String },
    #[error("calendar {url}: the server answered HTTP {status} to {what}{detail}")]
    Refused {
        url: String,
        what: &'static str,
        status: u16,
        detail: String,
    },
    #[error("calendar {url}: the reply cannot be read ({reason})")]
    BadReply { url: String, reason: String },
}

/// One configured calendar collection, ready to talk to.
pub struct Calendar {
    url: String,
    shown: String,
    username: Option<String>,
    password: Option<String>,
    agent: ureq::Agent,
}

/// A server's answer: its status, text and where it redirects to.
struct Reply {
    status: u16,
    text: String,
    location: Option<String>,
}

/// The calendar objects of a time range, and what could not be read of it.
#[derive(Debug, Default)]
pub struct Fetched {
    /// (the object's URL, its iCalendar text)
    pub objects: Vec<(String, String)>,
    pub problems: Vec<String>,
}

/// Removes a secret from a server's or library's message, should one ever echo it.
fn scrub(text: &str, secret: Option<&str>) -> String {
    match secret {
        Some(s) if s.len() >= 3 => text.replace(s, "[password]"),
        _ => text.to_string(),
    }
}

impl Calendar {
    /// The calendar of one config entry; its password is read from the environment now.
    pub fn open(cfg: &CaldavConfig) -> Result<Calendar, CaldavError> {
        let shown = cfg.shown_url();
        let password = match &cfg.password_env {
            Some(var) => match std::env::var(var) {
                Ok(p) if !p.is_empty() => Some(p),
                _ => {
                    return Err(CaldavError::Password {
                        url: shown,
                        var: var.clone(),
                    });
                }
            },
            None => None,
        };
        let mut url = cfg.url.trim().to_string();
        // a collection's URL ends in `/`; objects are named under it
        if !url.ends_with('/') {
            url.push('/');
        }
        let agent: ureq::Agent = ureq::Agent::config_builder()
            .timeout_global(Some(Duration::from_secs(60)))
            .http_status_as_error(false)
            .allow_non_standard_methods(true)
            // a redirect would carry the credentials elsewhere: the URL is asked for instead
            .max_redirects(0)
            .build()
            .into();
        Ok(Calendar {
            url,
            shown,
            username: cfg.username.clone(),
            password,
            agent,
        })
    }

    pub fn shown_url(&self) -> &str {
        &self.shown
    }

    fn request(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, &str)],
        body: &str,
    ) -> Result<Reply, CaldavError> {
        let mut b = ureq::http::Request::builder().method(method).uri(url);
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        if let (Some(user), Some(pw)) = (&self.username, &self.password) {
            b = b.header(
                "authorization",
                format!(
                    "Basic {}",
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{pw}"))
                ),
            );
        }
        let req = b
            .body(body.as_bytes().to_vec())
            .map_err(|e| CaldavError::Unreachable {
                url: self.shown.clone(),
                reason: scrub(&e.to_string(), self.password.as_deref()),
            })?;
        let mut resp = self.agent.run(req).map_err(|e| CaldavError::Unreachable {
            url: self.shown.clone(),
            reason: scrub(&e.to_string(), self.password.as_deref()),
        })?;
        let status = resp.status().as_u16();
        let location = resp
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .map(shown_url);
        let text = resp
            .body_mut()
            .with_config()
            .limit(MAX_REPLY)
            .read_to_string()
            .map_err(|e| CaldavError::BadReply {
                url: self.shown.clone(),
                reason: e.to_string(),
            })?;
        Ok(Reply {
            status,
            text,
            location,
        })
    }

    /// The error a status outside 2xx stands for.
    fn status_error(&self, reply: &Reply, what: &'static str) -> CaldavError {
        let (status, body) = (reply.status, reply.text.as_str());
        match status {
            300..=399 => CaldavError::Moved {
                url: self.shown.clone(),
                to: reply
                    .location
                    .clone()
                    .unwrap_or_else(|| "a URL it does not give".into()),
                status,
            },
            401 | 403 => CaldavError::Login {
                url: self.shown.clone(),
                who: self
                    .username
                    .as_ref()
                    .map(|u| format!(" of {u}"))
                    .unwrap_or_else(|| " (no username is configured)".into()),
                status,
            },
            404 | 405 => CaldavError::NotFound {
                url: self.shown.clone(),
                status,
            },
            _ => {
                // the server's words are outside text, shown on one inert Markdown line
                let first: String = super::md_inline(&scrub(body, self.password.as_deref()))
                    .chars()
                    .take(120)
                    .collect();
                CaldavError::Refused {
                    url: self.shown.clone(),
                    what,
                    status,
                    detail: if first.is_empty() {
                        String::new()
                    } else {
                        format!(": {first}")
                    },
                }
            }
        }
    }

    /// The URL of an object the server named by its path (or by a whole URL).
    fn object_url(&self, href: &str) -> String {
        if href.contains("://") {
            return shown_url(href);
        }
        let Some((scheme, rest)) = self.url.split_once("://") else {
            return href.to_string();
        };
        let host = &rest[..rest.find('/').unwrap_or(rest.len())];
        if href.starts_with('/') {
            format!("{scheme}://{host}{href}")
        } else {
            format!("{}{href}", self.url)
        }
    }

    /// The events overlapping `[start, end)` (UTC), as calendar objects.
    pub fn query(&self, start: NaiveDateTime, end: NaiveDateTime) -> Result<Fetched, CaldavError> {
        let body = caldav_xml::calendar_query(start, end);
        let reply = self.request(
            "REPORT",
            &self.url,
            &[
                ("depth", "1"),
                ("content-type", "application/xml; charset=utf-8"),
            ],
            &body,
        )?;
        if reply.status != 207 {
            return Err(self.status_error(&reply, "the calendar query"));
        }
        let reply =
            caldav_xml::parse_multistatus(&reply.text).map_err(|reason| CaldavError::BadReply {
                url: self.shown.clone(),
                reason,
            })?;
        Ok(Fetched {
            objects: reply
                .objects
                .into_iter()
                .map(|Object { href, data }| (self.object_url(&href), data))
                .collect(),
            problems: reply
                .problems
                .into_iter()
                .map(|p| format!("calendar {}: {p}", self.shown))
                .collect(),
        })
    }

    /// Adds a new object `<uid>.ics` holding `ics`; refused, never replaced, if one is there.
    /// Returns the object's URL.
    pub fn create(&self, uid: &str, ics: &str) -> Result<String, CaldavError> {
        let name = format!("{uid}.ics");
        let url = format!("{}{name}", self.url);
        let reply = self.request(
            "PUT",
            &url,
            &[
                ("content-type", "text/calendar; charset=utf-8"),
                ("if-none-match", "*"),
            ],
            ics,
        )?;
        match reply.status {
            200..=299 => Ok(shown_url(&url)),
            412 => Err(CaldavError::Exists {
                url: self.shown.clone(),
                name,
            }),
            _ => Err(self.status_error(&reply, "the new event")),
        }
    }
}

/// The UTC instants bounding the days `from` to `to` (inclusive) in `zone`, for a query.
pub(crate) fn utc_window(
    zone: chrono_tz::Tz,
    from: chrono::NaiveDate,
    to: chrono::NaiveDate,
) -> (NaiveDateTime, NaiveDateTime) {
    use chrono::TimeZone as _;
    let at = |d: chrono::NaiveDate| {
        let t = d.and_time(chrono::NaiveTime::MIN);
        zone.from_local_datetime(&t)
            .earliest()
            .map_or(t, |z| z.naive_utc())
    };
    (at(from), at(to + chrono::Duration::days(1)))
}

/// The calendar objects of every configured calendar between two days (user's zone): each
/// object as (its URL, its text), and one line for each calendar or object that could not be
/// read. A calendar that fails leaves the others read.
pub(crate) fn fetch_all(
    calendars: &[CaldavConfig],
    zone: chrono_tz::Tz,
    from: chrono::NaiveDate,
    to: chrono::NaiveDate,
) -> (Vec<(String, Vec<u8>)>, Vec<String>) {
    let (start, end) = utc_window(zone, from, to);
    let mut objects = Vec::new();
    let mut problems = Vec::new();
    for cfg in calendars {
        match Calendar::open(cfg).and_then(|c| c.query(start, end)) {
            Ok(f) => {
                objects.extend(f.objects.into_iter().map(|(u, t)| (u, t.into_bytes())));
                problems.extend(f.problems);
            }
            Err(e) => problems.push(format!("{e}; skipped")),
        }
    }
    (objects, problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_named_on_the_calendars_server() {
        let cal = Calendar::open(&CaldavConfig {
            url: "https://cal.example.org/dav/me/work".into(),
            username: None,
            password_env: None,
        })
        .unwrap();
        assert_eq!(
            cal.object_url("/dav/me/work/a.ics"),
            "https://cal.example.org/dav/me/work/a.ics"
        );
        assert_eq!(
            cal.object_url("b.ics"),
            "https://cal.example.org/dav/me/work/b.ics"
        );
        assert_eq!(
            cal.object_url("https://u:p@other.example/c.ics"),
            "https://other.example/c.ics"
        );
    }

    #[test]
    fn a_missing_password_names_its_variable_and_no_secret() {
        let e = Calendar::open(&CaldavConfig {
            url: "https://cal.example.org/me/".into(),
            username: Some("me".into()),
            password_env: Some("CREW_TEST_SURELY_UNSET_CALDAV_PW".into()),
        })
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("CREW_TEST_SURELY_UNSET_CALDAV_PW"), "{e}");
        assert!(e.contains("https://cal.example.org/me/"), "{e}");
        assert_eq!(
            scrub("bad hunter2 here", Some("hunter2")),
            "bad [password] here"
        );
    }
}
