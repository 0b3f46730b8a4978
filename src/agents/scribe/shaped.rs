//! The scribe's shaped modes: a brainstorm or reading notes become one note laid out by a
//! template — the vault's own when its templates folder has one for the shape, else crew's
//! sections from `references/scribe-shapes.yaml`, in the reply's language. The user's text
//! goes under the template's first empty section.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use chrono::NaiveDateTime;
use serde::Deserialize;

use crate::text::normalize;

const SOURCE: &str = include_str!("../../../references/scribe-shapes.yaml");

/// A shape of `references/scribe-shapes.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ShapeDef {
    #[serde(rename = "type")]
    pub kind: String,
    templates: Vec<String>,
    sections: BTreeMap<String, Vec<String>>,
}

fn shapes() -> &'static BTreeMap<String, ShapeDef> {
    static SHAPES: OnceLock<BTreeMap<String, ShapeDef>> = OnceLock::new();
    // a file that does not parse is a build mistake the tests catch; at run time no shape is
    // known and the scribe captures as it always did
    SHAPES.get_or_init(|| yaml_serde::from_str(SOURCE).unwrap_or_default())
}

/// The shape a mode slug asks for ("brainstorm", "reading-notes"), if it is one.
pub(crate) fn shape(slug: &str) -> Option<&'static ShapeDef> {
    shapes().get(slug)
}

impl ShapeDef {
    /// Whether a template's file stem names this shape.
    fn names_template(&self, stem: &str) -> bool {
        let stem = format!(" {} ", normalize(stem));
        self.templates
            .iter()
            .any(|t| stem.contains(&format!(" {} ", normalize(t))))
    }

    fn sections(&self, lang: &str) -> &[String] {
        self.sections
            .get(lang)
            .or_else(|| self.sections.get("en"))
            .map_or(&[], Vec::as_slice)
    }
}

/// The vault's template for `shape` among `(path, text)` of its templates folder: the first by
/// path whose name says the shape. A template written for the Templater plugin (`<% … %>`) is
/// passed over: crew cannot run its code, and a note holding it unrun would be broken.
pub(crate) fn vault_template<'t>(
    shape: &ShapeDef,
    templates: &'t [(String, String)],
) -> Option<&'t (String, String)> {
    templates.iter().find(|(path, text)| {
        let stem = path
            .rsplit('/')
            .next()
            .unwrap_or(path)
            .trim_end_matches(".md");
        shape.names_template(stem) && !text.contains("<%")
    })
}

/// The text of the note: `template` (the vault's) with its `{{title}}`, `{{date}}` and
/// `{{time}}` filled and the user's `body` under its first empty section, or crew's sections
/// with crew's frontmatter when the vault has no template for the shape.
pub(crate) fn compose(
    shape: &ShapeDef,
    template: Option<&str>,
    title: &str,
    body: &str,
    lang: &str,
    now: &NaiveDateTime,
    stamp: &str,
) -> String {
    let body = bulleted(body);
    match template {
        Some(t) => into_template(&fill(t, title, now), &body),
        None => {
            let kind = &shape.kind;
            let mut out = format!(
                "---\ntype: {kind}\ndate: {}\ntags: [{kind}]\nstatus: inbox\ncreated: {stamp}\n---\n# {title}\n",
                now.date()
            );
            for (i, section) in shape.sections(lang).iter().enumerate() {
                out.push_str(&format!("\n## {section}\n"));
                if i == 0 {
                    out.push_str(&format!("\n{body}\n"));
                }
            }
            out
        }
    }
}

/// One idea per line: lines become list items unless they already are, or are headings,
/// quotes or tasks.
fn bulleted(body: &str) -> String {
    body.lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with(['-', '*', '#', '>'])
                || t.chars().next().is_some_and(|c| c.is_ascii_digit()) && t.contains(". ")
            {
                l.to_string()
            } else {
                format!("- {t}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The core Templates plugin's variables: `{{title}}`, `{{date}}`, `{{time}}`, and `{{date:…}}`
/// / `{{time:…}}` with the moment.js tokens a template commonly uses.
fn fill(template: &str, title: &str, now: &NaiveDateTime) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[at..]);
            return out;
        };
        let var = after[..end].trim();
        let (name, format) = var.split_once(':').unwrap_or((var, ""));
        match name.trim().to_lowercase().as_str() {
            "title" => out.push_str(title),
            "date" if format.is_empty() => out.push_str(&now.format("%Y-%m-%d").to_string()),
            "time" if format.is_empty() => out.push_str(&now.format("%H:%M").to_string()),
            "date" | "time" => out.push_str(&moment(format, now)),
            _ => out.push_str(&rest[at..at + 2 + end + 2]),
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// A moment.js format with the common tokens (YYYY, YY, MM, M, DD, D, HH, H, mm, ss, dddd).
fn moment(format: &str, now: &NaiveDateTime) -> String {
    const TOKENS: [(&str, &str); 11] = [
        ("YYYY", "%Y"),
        ("YY", "%y"),
        ("MMMM", "%B"),
        ("MM", "%m"),
        ("M", "%-m"),
        ("dddd", "%A"),
        ("DD", "%d"),
        ("D", "%-d"),
        ("HH", "%H"),
        ("mm", "%M"),
        ("ss", "%S"),
    ];
    let mut chrono_format = String::new();
    let mut rest = format.trim();
    'outer: while !rest.is_empty() {
        for (token, spec) in TOKENS {
            if let Some(tail) = rest.strip_prefix(token) {
                chrono_format.push_str(spec);
                rest = tail;
                continue 'outer;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        if c == '%' {
            chrono_format.push_str("%%");
        } else {
            chrono_format.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    now.format(&chrono_format).to_string()
}

/// `template` with `body` under its first heading that has nothing under it (the next text is
/// a heading of its level or above, or the end); at its end when every section has text.
fn into_template(template: &str, body: &str) -> String {
    let lines: Vec<&str> = template.lines().collect();
    let level = |l: &str| {
        let t = l.trim_start();
        let n = t.chars().take_while(|&c| c == '#').count();
        (n > 0 && t[n..].starts_with(' ')).then_some(n)
    };
    for (i, line) in lines.iter().enumerate().skip(frontmatter_end(&lines)) {
        let Some(own) = level(line) else { continue };
        let next_text = lines[i + 1..]
            .iter()
            .find(|l| !l.trim().is_empty() && !is_placeholder(l));
        if next_text.is_none_or(|l| level(l).is_some_and(|n| n <= own)) {
            // the template's empty items under the heading give way to the text
            let rest = lines[i + 1..]
                .iter()
                .skip_while(|l| l.trim().is_empty() || is_placeholder(l));
            let mut out: Vec<String> = lines[..=i].iter().map(|l| l.to_string()).collect();
            out.push(String::new());
            out.push(body.to_string());
            out.push(String::new());
            out.extend(rest.map(|l| l.to_string()));
            return out.join("\n") + "\n";
        }
    }
    format!("{}\n\n{body}\n", template.trim_end())
}

/// An empty list item or task a template leaves to be filled ("- ", "- [ ] ").
fn is_placeholder(line: &str) -> bool {
    matches!(line.trim(), "-" | "*" | "- [ ]" | "1.")
}

/// The index of the first line after the frontmatter (0 when there is none).
fn frontmatter_end(lines: &[&str]) -> usize {
    if lines.first().is_some_and(|l| l.trim_end() == "---") {
        lines
            .iter()
            .skip(1)
            .position(|l| l.trim_end() == "---")
            .map_or(0, |p| p + 2)
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn now() -> NaiveDateTime {
        chrono::NaiveDate::from_ymd_opt(2026, 12, 3)
            .and_then(|d| d.and_hms_opt(9, 5, 0))
            .unwrap_or_default()
    }

    #[test]
    fn the_data_file_has_both_shapes_in_every_language() {
        for slug in ["brainstorm", "reading-notes"] {
            let s = shape(slug).unwrap_or_else(|| panic!("no shape {slug}"));
            for lang in ["en", "it", "fr", "es", "de", "pt", "ja"] {
                assert!(
                    !s.sections.get(lang).is_none_or(Vec::is_empty),
                    "{slug} {lang}"
                );
            }
        }
    }

    #[test]
    fn crews_sections_take_the_text_under_the_first() {
        let s = shape("brainstorm").expect("brainstorm");
        let text = compose(
            s,
            None,
            "Garden shed",
            "a green roof\nsolar lamp",
            "it",
            &now(),
            "x",
        );
        assert!(text.starts_with("---\ntype: brainstorm\n"), "{text}");
        assert!(
            text.contains("## Idee\n\n- a green roof\n- solar lamp\n\n## Le più promettenti"),
            "{text}"
        );
    }

    #[test]
    fn a_vault_template_is_filled_and_keeps_its_layout() {
        let t = "---\ntype: book\ncreated: {{date:YYYY-MM-DD HH:mm}}\n---\n# {{title}}\n\n## Summary\nwrite later\n\n## Highlights\n- \n\n## {{unknown}}\n";
        let s = shape("reading-notes").expect("reading");
        let text = compose(s, Some(t), "Dune", "spice\n- water", "en", &now(), "x");
        assert_eq!(
            text,
            "---\ntype: book\ncreated: 2026-12-03 09:05\n---\n# Dune\n\n## Summary\nwrite later\n\n## Highlights\n\n- spice\n- water\n\n## {{unknown}}\n"
        );
    }

    #[test]
    fn templates_are_found_by_name_and_templater_ones_passed_over() {
        let s = shape("reading-notes").expect("reading");
        let t = vec![
            ("Templates/Daily.md".to_string(), "# {{date}}".to_string()),
            (
                "Templates/Book notes.md".to_string(),
                "<% tp.file.title %>".to_string(),
            ),
            (
                "Templates/Reading.md".to_string(),
                "# {{title}}".to_string(),
            ),
        ];
        assert_eq!(
            vault_template(s, &t).map(|(p, _)| p.as_str()),
            Some("Templates/Reading.md")
        );
    }
}
