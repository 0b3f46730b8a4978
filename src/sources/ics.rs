//! Calendar files named in the crew config: every `.ics` file of the configured paths.

use std::path::{Path, PathBuf};

/// Every `.ics` file of the configured paths (folders are searched), sorted.
pub(crate) fn files(paths: &[PathBuf], problems: &mut Vec<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            for e in walkdir::WalkDir::new(p)
                .follow_links(false)
                .into_iter()
                .flatten()
            {
                if e.file_type().is_file()
                    && e.path()
                        .extension()
                        .is_some_and(|x| x.eq_ignore_ascii_case("ics"))
                {
                    out.push(e.into_path());
                }
            }
        } else if p.is_file() {
            out.push(p.clone());
        } else {
            problems.push(format!(
                "{}: no such file or folder (calendar.ics in the crew config)",
                p.display()
            ));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The bytes of one calendar file.
pub(crate) fn read(path: &Path) -> std::io::Result<Vec<u8>> {
    std::fs::read(path)
}
