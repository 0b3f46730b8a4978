//! The path jail: a vault-relative path, normalised, that cannot leave the vault or name a
//! file the user's systems cannot hold.

use std::path::{Component, Path};

use super::GateError;

const WINDOWS_RESERVED: &[&str] = &[
    "con", "prn", "aux", "nul", "com1", "com2", "com3", "com4", "com5", "com6", "com7", "com8",
    "com9", "lpt1", "lpt2", "lpt3", "lpt4", "lpt5", "lpt6", "lpt7", "lpt8", "lpt9",
];

/// Checks a vault-relative path and returns it normalised (`/`-separated, no `.` segments).
pub fn jail(path: &str) -> Result<String, GateError> {
    let refuse = |reason: &str| GateError::Jail {
        path: path.to_string(),
        reason: reason.to_string(),
    };
    if path.trim().is_empty() {
        return Err(refuse("empty path"));
    }
    if path.chars().any(|c| c.is_control()) {
        return Err(refuse("control characters in the path"));
    }
    if path.contains('\\') {
        return Err(refuse("backslashes are not allowed; use / between folders"));
    }
    let p = Path::new(path);
    if p.is_absolute() || path.starts_with('/') || path.get(1..2) == Some(":") {
        return Err(refuse(
            "absolute paths are outside the vault; give a vault-relative path",
        ));
    }
    let mut parts = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => {
                let s = s.to_string_lossy();
                let stem = s.split('.').next().unwrap_or("").to_ascii_lowercase();
                if WINDOWS_RESERVED.contains(&stem.as_str()) {
                    return Err(refuse("a name Windows reserves (CON, NUL, COM1, …)"));
                }
                if s.ends_with(' ') || (s.ends_with('.') && s != ".") {
                    return Err(refuse("a name ending in a space or a dot"));
                }
                parts.push(s.into_owned());
            }
            Component::CurDir => {}
            Component::ParentDir => return Err(refuse("`..` leaves the vault")),
            _ => return Err(refuse("not a vault-relative path")),
        }
    }
    if parts.is_empty() {
        return Err(refuse("names no file"));
    }
    Ok(parts.join("/"))
}
/// Characters that change the direction text is shown in: a name holding one can display as
/// a different name (`U+202E` turns `gnp.md` into what looks like `md.png`).
pub(crate) fn is_bidi_control(c: char) -> bool {
    matches!(
        c,
        '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}'
    )
}

/// Refuses a name crew would give a new file or folder when it holds bidi controls. Existing
/// notes with such names stay readable and movable; crew only never makes new ones.
pub(crate) fn check_new_name(path: &str) -> Result<(), GateError> {
    if path.chars().any(is_bidi_control) {
        return Err(GateError::Jail {
            path: path.to_string(),
            reason: "the name holds a bidirectional control character (it could display as another name)".into(),
        });
    }
    Ok(())
}
