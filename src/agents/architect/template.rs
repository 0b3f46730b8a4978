//! "add a template for book notes": a template note in the vault's templates folder, its
//! frontmatter and sections chosen by kind from `references/architect-templates.yaml`. An
//! existing template is never replaced.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

use super::request::template_kind;
use crate::agents::common;
use crate::agents::{Ctx, NativeOutput};
use crate::gate::GateError;
use crate::text::normalize;

const SOURCE: &str = include_str!("../../../references/architect-templates.yaml");

#[derive(Debug, Clone, Default, Deserialize)]
struct Shape {
    #[serde(default)]
    words: Vec<String>,
    #[serde(default)]
    properties: Vec<String>,
    #[serde(default)]
    sections: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct Shapes {
    #[serde(default)]
    kinds: BTreeMap<String, Shape>,
    #[serde(default)]
    default: Shape,
}

fn shapes() -> &'static Shapes {
    static S: OnceLock<Shapes> = OnceLock::new();
    // a file that does not parse is a build mistake the tests catch
    S.get_or_init(|| yaml_serde::from_str(SOURCE).unwrap_or_default())
}

/// The kind a request names and its shape: a kind of the data file whose words hold a word
/// of the request, else the request's own words with the default shape. Pure.
fn shape_for(asked: &str) -> (String, &'static Shape) {
    let s = shapes();
    let words: Vec<String> = normalize(asked)
        .split_whitespace()
        .map(str::to_string)
        .collect();
    for (kind, shape) in &s.kinds {
        if shape
            .words
            .iter()
            .any(|w| words.iter().any(|x| *x == normalize(w)))
        {
            return (kind.clone(), shape);
        }
    }
    (asked.to_string(), &s.default)
}

/// The template's text: Templater placeholders as crew's own templates use them.
fn template_text(kind: &str, shape: &Shape) -> String {
    let tag = common::safe_title(&normalize(kind), 40).replace(' ', "-");
    let mut out = format!(
        "---\ntype: {tag}\ndate: \"<% tp.date.now('YYYY-MM-DD') %>\"\ntags: [{tag}]\nstatus: inbox\n"
    );
    for p in &shape.properties {
        out.push_str(&format!("{p}: \n"));
    }
    out.push_str("---\n# <% tp.file.title %>\n");
    for s in &shape.sections {
        out.push_str(&format!("\n## {s}\n"));
    }
    out
}

/// Writes the template the request asks for, or says why not.
pub(crate) fn add_template(ctx: &mut Ctx) -> Result<NativeOutput, GateError> {
    let l = ctx.lang;
    let first = ctx.step.message.lines().next().unwrap_or("").to_string();
    let Some(asked) = template_kind(&first) else {
        return Ok(NativeOutput {
            text: crate::tr!(l, "architect.template.which", date = ctx.today()),
            postit: "asked which template to add".into(),
            attention: false,
        });
    };
    let (kind, shape) = shape_for(&asked);
    let title = common::safe_title(&common::capitalized(&kind), 60);
    let folder = ctx.config.folders.templates.clone();
    // "book" asks for the same template as an existing `Books.md` or `book.md`
    if let Some(existing) = super::requests::existing_note(ctx, &folder, &title) {
        return Ok(NativeOutput {
            text: crate::tr!(
                l,
                "architect.template.exists",
                date = ctx.today(),
                path = existing
            ),
            postit: format!("template {existing} exists; left as it is"),
            attention: false,
        });
    }
    let path = format!("{folder}/{title}.md");
    let made = ctx
        .gate
        .create(&path, template_text(&kind, shape).as_bytes())?;
    common::log_change(ctx, "architect", &format!("added template {made}"))?;
    let sections = shape.sections.join(", ");
    Ok(NativeOutput {
        text: crate::tr!(
            l,
            "architect.template.created",
            date = ctx.today(),
            path = made,
            sections = sections
        ),
        postit: format!("added template {made} on {}", ctx.today()),
        attention: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_data_file() {
        let (kind, shape) = shape_for("book");
        assert_eq!(kind, "book");
        assert!(shape.sections.iter().any(|s| s == "Quotes"));
        assert_eq!(shape_for("libri").0, "book");
        let (kind, shape) = shape_for("garden plants");
        assert_eq!(kind, "garden plants");
        assert!(!shape.sections.is_empty());
    }

    #[test]
    fn the_text_has_frontmatter_and_sections() {
        let (kind, shape) = shape_for("recipe");
        let t = template_text(&kind, shape);
        assert!(t.starts_with("---\ntype: recipe\n"), "{t}");
        assert!(t.contains("servings: \n"), "{t}");
        assert!(t.contains("\n## Ingredients\n"), "{t}");
    }
}
