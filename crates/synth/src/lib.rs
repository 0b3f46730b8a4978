//! A deterministic synthetic vault for benchmarks and tests: a realistic mix of folders,
//! frontmatter, Zipf-distributed links, broken links, duplicate names, and code blocks and
//! comments holding decoy links. The same seed always writes the same bytes.
//!
//! The shapes of real vaults are in it too (measured on the dev corpora, whose notes hold
//! 1.4–2.2 fences, 2–15 code spans, 5–18 list lines, up to 3.5 table lines and 1.5 callouts,
//! and up to 6 Markdown links with URLs of 40–56 bytes, a tenth over 100): Markdown links,
//! several per line, to long URLs; badge lines (an image link inside a link, URLs with query
//! strings); HTML blocks; callouts holding fenced code; tables; lists with fences in items
//! and on the marker line, nested with tabs; inline code spans.

use std::path::Path;

/// A small, fast, seedable generator (xorshift64*): benchmarks need repeatability, not quality.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 { 0 } else { self.next_u64() % n }
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// An index in 0..n, Zipf-like: low indices are linked far more often.
    pub fn zipf(&mut self, n: usize) -> usize {
        // inverse-CDF of a 1/x density over [1, n]
        let u = (self.below(1_000_000) as f64 + 0.5) / 1_000_000.0;
        let x = (n as f64).powf(u);
        (x as usize).saturating_sub(1).min(n.saturating_sub(1))
    }
}

const WORDS: &[&str] = &[
    "garden", "budget", "river", "meeting", "idea", "kitchen", "python", "health", "travel",
    "book", "music", "project", "design", "review", "plan", "quarter", "client", "family",
    "running", "recipe", "invoice", "sprint", "lecture", "history", "podcast", "research", "draft",
    "summary", "goal", "habit",
];
const FOLDERS: &[&str] = &[
    "00-Inbox",
    "01-Projects/Alpha",
    "01-Projects/Beta",
    "01-Projects/Gamma",
    "02-Areas/Health",
    "02-Areas/Finance",
    "02-Areas/Learning",
    "03-Resources/Recipes",
    "03-Resources/Tech",
    "04-Archive/2024",
    "04-Archive/2025",
    "05-People",
    "06-Meetings/2026/01",
    "07-Daily",
];
const TYPES: &[&str] = &[
    "note",
    "idea",
    "meeting",
    "reference",
    "task",
    "person",
    "project",
];

fn title(rng: &mut Rng, i: usize) -> String {
    let a = WORDS[rng.below(WORDS.len() as u64) as usize];
    let b = WORDS[rng.below(WORDS.len() as u64) as usize];
    format!("{} {b} {i}", capitalize(a))
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or_else(String::new, |f| {
        f.to_uppercase().collect::<String>() + c.as_str()
    })
}

fn words(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A URL of a real vault's length: 40–130 bytes, a query string on some.
fn url(rng: &mut Rng) -> String {
    let host = [
        "github.com",
        "docs.rs",
        "en.wikipedia.org",
        "developer.mozilla.org",
    ][rng.below(4) as usize];
    let mut u = format!("https://{host}");
    for _ in 0..2 + rng.below(5) {
        u.push('/');
        u.push_str(WORDS[rng.below(WORDS.len() as u64) as usize]);
        if rng.chance(30) {
            u.push_str(&format!("-{}", rng.below(100_000)));
        }
    }
    if rng.chance(30) {
        u.push_str(&format!(
            "?query={}&page={}#section-{}",
            WORDS[rng.below(30) as usize],
            rng.below(50),
            rng.below(9)
        ));
    }
    u
}

/// The blocks real notes hold besides prose: badges, HTML, callouts, tables, lists with
/// fences. Fences and code spans hold decoy links that must not count.
fn real_shapes(rng: &mut Rng, text: &mut String, names: &[String], notes: usize) {
    let link = |rng: &mut Rng| names[rng.zipf(notes)].clone();
    if rng.chance(4) {
        // a badge line: images inside links, long URLs with query strings
        for _ in 0..3 + rng.below(4) {
            let w = WORDS[rng.below(30) as usize];
            text.push_str(&format!(
                "[![{w}](https://img.shields.io/badge/{w}-{}-brightgreen?style=flat-square&logo={w}&logoColor=white)]({}) ",
                rng.below(1000),
                url(rng)
            ));
        }
        text.push_str("\n\n");
    }
    if rng.chance(6) {
        if rng.chance(50) {
            text.push_str(&format!(
                "<div align=\"center\">\n  <img src=\"{}.png\" width=\"{}\" alt=\"{}\">\n</div>\n\n",
                url(rng),
                100 + rng.below(500),
                words(rng, 2)
            ));
        } else {
            text.push_str(&format!(
                "<details>\n<summary>{}</summary>\n\n{} [[{}]]\n\n</details>\n\n",
                words(rng, 2),
                words(rng, 8),
                link(rng)
            ));
        }
    }
    if rng.chance(20) {
        let kind = ["note", "tip", "warning", "info"][rng.below(4) as usize];
        text.push_str(&format!(
            "> [!{kind}] {}\n> {} [[{}]] and `{}`\n",
            capitalize(WORDS[rng.below(30) as usize]),
            words(rng, 10),
            link(rng),
            words(rng, 1)
        ));
        if rng.chance(50) {
            text.push_str("> ```sh\n> echo \"[[Callout decoy]]\"\n> ```\n");
        }
        text.push('\n');
    }
    if rng.chance(15) {
        text.push_str("| Name | Link | Code |\n|---|---|---|\n");
        for _ in 0..3 + rng.below(4) {
            text.push_str(&format!(
                "| {} | [[{}\\|{}]] | `{}` |\n",
                words(rng, 2),
                link(rng),
                words(rng, 1),
                words(rng, 1)
            ));
        }
        text.push('\n');
    }
    if rng.chance(25) {
        text.push_str(&format!(
            "- {} [[{}]]\n  ```sh\n  run --decoy \"[[List decoy]]\"\n  ```\n",
            words(rng, 4),
            link(rng)
        ));
        if rng.chance(40) {
            text.push_str("- ```python\n  print(\"[[Marker line decoy]]\")\n  ```\n");
        }
        text.push_str(&format!(
            "\t- {} [[{}]] `{}`\n\t\t- {}\n\n",
            words(rng, 3),
            link(rng),
            words(rng, 1),
            words(rng, 5)
        ));
    }
}

/// A note's frontmatter: type, date, tags, status, sometimes a project and aliases.
fn frontmatter(rng: &mut Rng, text: &mut String, in_inbox: bool) {
    let kind = if in_inbox {
        "note"
    } else {
        TYPES[rng.below(TYPES.len() as u64) as usize]
    };
    text.push_str(&format!(
        "---\ntype: {kind}\ndate: 2026-{:02}-{:02}\ntags: [{}, {}]\nstatus: {}\n",
        1 + rng.below(12),
        1 + rng.below(28),
        WORDS[rng.below(30) as usize],
        WORDS[rng.below(30) as usize],
        if in_inbox { "inbox" } else { "filed" }
    ));
    if in_inbox && rng.chance(60) {
        let p = ["Alpha", "Beta", "Gamma"][rng.below(3) as usize];
        text.push_str(&format!("project: \"[[{p}]]\"\n"));
    }
    if rng.chance(15) {
        text.push_str(&format!("aliases: [{}]\n", words(rng, 1)));
    }
    text.push_str("---\n");
}

/// A paragraph of words with wikilinks (Zipf-distributed targets, some missing, embedded or
/// aliased), tags, code spans and Markdown links; the first one sometimes gets decoys in code
/// and comments after it.
fn paragraph(rng: &mut Rng, text: &mut String, names: &[String], places: &[&str], first: bool) {
    let notes = names.len();
    let count = 20 + rng.below(40) as usize;
    text.push_str(&words(rng, count));
    for _ in 0..rng.below(4) {
        let target = rng.zipf(notes);
        if rng.chance(5) {
            text.push_str(&format!(" [[Missing {}]]", rng.below(1000)));
        } else if rng.chance(10) {
            text.push_str(&format!(" ![[{}]]", names[target]));
        } else if rng.chance(20) {
            text.push_str(&format!(" [[{}|{}]]", names[target], words(rng, 2)));
        } else {
            text.push_str(&format!(" [[{}]]", names[target]));
        }
    }
    if rng.chance(15) {
        text.push_str(&format!(" #{}", WORDS[rng.below(30) as usize]));
    }
    if rng.chance(40) {
        text.push_str(&format!(" Run `{}` first", words(rng, 2)));
    }
    if rng.chance(35) {
        // Markdown links, often several on a line, mostly to long URLs
        for _ in 0..1 + rng.below(3) {
            text.push_str(&format!(" see [{}]({})", words(rng, 2), url(rng)));
        }
        if rng.chance(20) {
            let t = rng.zipf(notes);
            text.push_str(&format!(
                " and [{}]({}/{}.md)",
                words(rng, 1),
                places[t],
                names[t].replace(' ', "%20")
            ));
        }
    }
    text.push_str(".\n\n");
    if first && rng.chance(10) {
        text.push_str("```rust\nlet decoy = \"[[Not A Link]]\";\n```\n\n");
    }
    if first && rng.chance(5) {
        text.push_str("%% [[Hidden decoy]] %%\n<!-- [[Another decoy]] -->\n\n");
    }
}

/// What was written.
#[derive(Debug, Clone, Default)]
pub struct Generated {
    pub notes: usize,
    pub inbox: usize,
    pub bytes: u64,
}

/// Writes a vault of `notes` notes into `dir` (which should be empty). `inbox_share` is the
/// percentage of notes placed in the inbox.
pub fn generate(
    dir: &Path,
    notes: usize,
    seed: u64,
    inbox_share: u64,
) -> std::io::Result<Generated> {
    let mut rng = Rng::new(seed);
    let mut names: Vec<String> = Vec::with_capacity(notes);
    let mut places = Vec::with_capacity(notes);
    for i in 0..notes {
        let folder = if rng.chance(inbox_share) {
            FOLDERS[0]
        } else {
            FOLDERS[1 + rng.below(FOLDERS.len() as u64 - 1) as usize]
        };
        // about 1 % of names repeat an earlier one in another folder
        let name = if i > 10 && rng.chance(1) {
            names[rng.below(i as u64) as usize % names.len()].clone()
        } else {
            title(&mut rng, i)
        };
        names.push(name);
        places.push(folder);
    }
    for f in FOLDERS {
        std::fs::create_dir_all(dir.join(f))?;
    }
    let mut out = Generated {
        notes,
        ..Generated::default()
    };
    let mut used = std::collections::HashSet::new();
    for i in 0..notes {
        let mut text = String::with_capacity(1500);
        let in_inbox = places[i] == "00-Inbox";
        if !rng.chance(8) {
            frontmatter(&mut rng, &mut text, in_inbox);
        }
        text.push_str(&format!("# {}\n\n", names[i]));
        for p in 0..(1 + rng.below(4)) {
            paragraph(&mut rng, &mut text, &names, &places, p == 0);
        }
        real_shapes(&mut rng, &mut text, &names, notes);
        if rng.chance(20) {
            text.push_str(&format!(
                "- [ ] {} 📅 2026-12-{:02}\n",
                words(&mut rng, 4),
                1 + rng.below(28)
            ));
        }
        let mut path = format!("{}/{}.md", places[i], names[i]);
        if !used.insert(path.to_lowercase()) {
            path = format!("{}/{} {i}.md", places[i], names[i]);
            used.insert(path.to_lowercase());
        }
        if places[i] == "00-Inbox" {
            out.inbox += 1;
        }
        out.bytes += text.len() as u64;
        std::fs::write(dir.join(&path), text)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_vault() {
        let a = tempfile::tempdir().expect("tmp");
        let b = tempfile::tempdir().expect("tmp");
        generate(a.path(), 200, 7, 10).expect("gen");
        generate(b.path(), 200, 7, 10).expect("gen");
        let read = |d: &Path| {
            let v = crew_vault::Vault::open(d).expect("open");
            crew_vault::stats::VaultStats::of(&v)
        };
        let (sa, sb) = (read(a.path()), read(b.path()));
        assert_eq!(sa, sb);
        assert_eq!(sa.notes, 200);
        assert!(
            sa.wikilinks > 100 && sa.wikilinks_unresolved > 0 && sa.duplicate_name_groups > 0,
            "{sa:?}"
        );
    }

    #[test]
    fn real_shapes_are_written_and_decoys_in_code_are_not_links() {
        let dir = tempfile::tempdir().expect("tmp");
        generate(dir.path(), 400, 3, 10).expect("gen");
        let v = crew_vault::Vault::open(dir.path()).expect("open");
        let mut shapes = [0usize; 4];
        for n in &v.notes {
            let text = std::fs::read_to_string(dir.path().join(&n.path)).expect("read");
            for (i, mark) in ["> [!", "|---|", "- ```python", "[!["].iter().enumerate() {
                shapes[i] += usize::from(text.contains(mark));
            }
            for l in &n.wikilinks {
                assert!(!l.target.contains("decoy"), "{}: {:?}", n.path, l.target);
            }
        }
        assert!(shapes.iter().all(|&s| s > 0), "{shapes:?}");
        let md: usize = v.notes.iter().map(|n| n.markdown_links.len()).sum();
        assert!(md > 0, "local Markdown links are read");
    }
}
