//! Notes the planner writes again and again (the week note, the radar): crew owns one marked
//! section and rewrites only that; whatever the user wrote around it stays.

use crate::agents::Ctx;
use crate::gate::GateError;

const START: &str = "<!-- crew:generated — rewritten on each run; write your own text outside -->";
const END: &str = "<!-- crew:end -->";

/// `generated` wrapped in the markers.
fn block(generated: &str) -> String {
    format!("{START}\n{}\n{END}\n", generated.trim_end())
}

/// The note's new text: a new note is `frontmatter` and the block; an existing one gets its
/// block replaced, or, when the user removed the markers, the block appended at the end.
pub fn merge(existing: Option<&str>, frontmatter: &str, generated: &str) -> String {
    let Some(old) = existing else {
        return format!("{frontmatter}{}", block(generated));
    };
    if let Some(s) = old.find(START)
        && let Some(e) = old[s..].find(END)
    {
        let mut end = s + e + END.len();
        if old[end..].starts_with('\n') {
            end += 1;
        }
        return format!("{}{}{}", &old[..s], block(generated), &old[end..]);
    }
    let mut out = old.to_string();
    if !out.ends_with('\n') {
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&block(generated));
    out
}

/// Writes the note at `path` through the gate, keeping the user's text; returns whether it
/// was new.
pub fn write(
    ctx: &mut Ctx,
    path: &str,
    frontmatter: &str,
    generated: &str,
) -> Result<bool, GateError> {
    let old = ctx.gate.read_text(path);
    let text = merge(old.as_deref(), frontmatter, generated);
    if old.as_deref() != Some(text.as_str()) {
        ctx.gate.write(path, text.as_bytes())?;
    }
    Ok(old.is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_run_replaces_only_the_generated_block() {
        let first = merge(None, "---\ntype: x\n---\n", "## A\n- one\n");
        assert!(first.starts_with("---\ntype: x\n---\n<!-- crew:generated"));
        let edited = format!("{first}\n## My notes\nkeep this\n");
        let edited = edited.replace("---\n<!--", "---\nMy intro.\n<!--");
        let second = merge(Some(&edited), "---\ntype: x\n---\n", "## A\n- two\n");
        assert!(second.contains("My intro.\n<!-- crew:generated"));
        assert!(second.contains("- two\n<!-- crew:end -->\n"));
        assert!(!second.contains("- one"));
        assert!(second.ends_with("## My notes\nkeep this\n"));
        assert_eq!(merge(Some(&second), "", "## A\n- two\n"), second);
    }

    #[test]
    fn without_markers_the_block_is_appended() {
        let out = merge(Some("my own week plan"), "", "## A");
        assert!(out.starts_with("my own week plan\n\n<!-- crew:generated"));
    }
}
