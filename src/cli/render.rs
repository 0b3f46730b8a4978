//! Human rendering of the nightly fixes; a request's report is rendered by the library.

use crew::lang::Lang;
use crew::tr;

pub use crew::render::report_text;

/// The nightly fixes, one line per note and change (like `git status`), then the kinds held
/// back with the command that applies them.
/// The notes a fix could not be written to, one line each (`! path  (kind: why)`).
pub fn not_written_lines(not_written: &[serde_json::Value], lang: Lang) -> String {
    if not_written.is_empty() {
        return String::new();
    }
    let field = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .unwrap_or_default()
            .to_string()
    };
    let mut s = tr!(lang, "fixes.not_written", count = not_written.len())
        .trim_start_matches('#')
        .trim_start()
        .to_string();
    for n in not_written {
        s.push_str(&format!(
            "  ! {}  ({}: {})\n",
            field(n, "path"),
            field(n, "kind"),
            field(n, "why")
        ));
    }
    s
}

pub fn fix_lines(
    fixes: &[serde_json::Value],
    held: &[serde_json::Value],
    dry_run: bool,
    lang: Lang,
) -> String {
    let field = |v: &serde_json::Value, k: &str| {
        v.get(k)
            .map(|x| x.as_str().map_or_else(|| x.to_string(), str::to_string))
            .unwrap_or_default()
    };
    let mut s = String::new();
    if !fixes.is_empty() {
        s.push_str(&if dry_run {
            tr!(lang, "render.fixes.would")
        } else {
            tr!(lang, "render.fixes.done")
        });
    }
    for f in fixes {
        s.push_str(&format!(
            "  M {}  ({}: {})\n",
            field(f, "path"),
            field(f, "kind"),
            field(f, "what")
        ));
    }
    for h in held {
        s.push_str(&tr!(
            lang,
            "render.fixes.held",
            kind = field(h, "kind"),
            notes = field(h, "notes"),
            limit = field(h, "limit"),
            command = field(h, "command")
        ));
    }
    s
}
