//! `cargo bench --bench vault`: crew next to baselines measured in the same run, as ratios.
//!
//! CREW_BENCH_NOTES: comma-separated vault sizes (default 10000). Needs `rg` (ripgrep) on PATH
//! for the read-everything baseline. Vaults are generated with `crew_synth` (crates/synth) (deterministic).
//! The real vaults of `../shared/corpora/vaults` are measured too when that folder exists
//! (each on a copy, so that the index can be written and a note changed);
//! CREW_BENCH_CORPORA=0 leaves them out; CREW_BENCH_ONLY_STATS=1 measures only the stats rows
//! (full and after one changed note) of the synthetic vaults, and no routing rows.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use crew::crew::Crew;
use crew::vault::Vault;
use crew::vault::stats::VaultStats;

fn median(mut f: impl FnMut() -> Duration, runs: usize) -> Duration {
    let mut v: Vec<Duration> = (0..runs).map(|_| f()).collect();
    v.sort();
    v[v.len() / 2]
}

/// Medians of `runs` alternating runs of `a` and `b`.
fn paired(
    runs: usize,
    mut a: impl FnMut() -> Duration,
    mut b: impl FnMut() -> Duration,
) -> (Duration, Duration) {
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        xs.push(a());
        ys.push(b());
    }
    xs.sort();
    ys.sort();
    (xs[runs / 2], ys[runs / 2])
}

fn time(f: impl FnOnce()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// Times `crew vault stats` done in process: open the vault, count. The vault is dropped after
/// the clock stops: the `crew` binary never frees a vault it read (it exits instead).
fn time_stats(open: impl FnOnce() -> Result<Vault, crew::vault::VaultError>) -> Duration {
    let t = Instant::now();
    let v = open().expect("open");
    std::hint::black_box(VaultStats::of(&v));
    let elapsed = t.elapsed();
    drop(v);
    elapsed
}

fn rg_links(dir: &Path) -> Duration {
    time(|| {
        let out = Command::new("rg")
            .args(["-c", r"\[\[[^\]]+\]\]", "-g", "*.md"])
            .arg(dir)
            .output()
            .expect("rg on PATH");
        assert!(out.status.success() || out.status.code() == Some(1));
    })
}

fn rg_word(dir: &Path, word: &str) -> Duration {
    time(|| {
        let _ = Command::new("rg")
            .args(["-i", "-l", word, "-g", "*.md"])
            .arg(dir)
            .output()
            .expect("rg");
    })
}

fn stat_walk(dir: &Path) -> Duration {
    time(|| {
        let mut n = 0u64;
        for e in walkdir::WalkDir::new(dir).into_iter().flatten() {
            if let Ok(m) = e.metadata() {
                n += m.len();
            }
        }
        std::hint::black_box(n);
    })
}

fn fmt(d: Duration) -> String {
    if d.as_secs_f64() >= 1.0 {
        format!("{:.2} s", d.as_secs_f64())
    } else if d.as_micros() >= 1000 {
        format!("{:.1} ms", d.as_secs_f64() * 1e3)
    } else {
        format!("{:.1} µs", d.as_secs_f64() * 1e6)
    }
}

fn row(what: &str, crew_t: Duration, base: &str, base_t: Duration) {
    println!(
        "| {what} | {} | {base} | {} | {:.2}× |",
        fmt(crew_t),
        fmt(base_t),
        crew_t.as_secs_f64() / base_t.as_secs_f64().max(1e-12)
    );
}

/// The `crew` binary next to this benchmark (built by `cargo bench`).
fn crew_exe() -> Option<std::path::PathBuf> {
    let exe = std::env::var("CARGO_BIN_EXE_crew")
        .ok()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/crew"));
    exe.exists().then_some(exe)
}

/// Peak resident memory of one `crew` run, in bytes, as the run reports it
/// (`CREW_PEAK_MEMORY`; Linux only).
fn peak_rss(exe: &Path, args: &[&std::ffi::OsStr]) -> Option<u64> {
    let out = Command::new(exe)
        .args(args)
        .env("CREW_PEAK_MEMORY", "1")
        .output()
        .ok()?;
    let err = String::from_utf8_lossy(&out.stderr);
    let line = err
        .lines()
        .find_map(|l| l.strip_prefix("crew: peak memory "))?;
    let kb: u64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kb * 1024)
}

/// Bytes the vault's files take on disk (allocated blocks), and their content bytes; hidden
/// folders (crew's own state among them) are not the vault's.
fn disk_usage(dir: &Path) -> (u64, u64) {
    let (mut blocks, mut bytes) = (0, 0);
    let visible =
        |e: &walkdir::DirEntry| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.');
    for e in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(visible)
        .flatten()
    {
        if let Ok(m) = e.metadata()
            && m.is_file()
        {
            bytes += m.len();
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt as _;
                blocks += m.blocks() * 512;
            }
        }
    }
    (blocks.max(bytes), bytes)
}

/// Peak memory of `crew vault stats` (fresh and from the index), `crew vault check` (the full
/// audit) and `crew search`, next to the vault's size on disk.
fn memory_table(dir: &Path) {
    let Some(exe) = crew_exe() else { return };
    let (disk, text) = disk_usage(dir);
    let state = dir.join(".crew");
    let aside = dir.with_extension("crew-state-aside");
    let v: &std::ffi::OsStr = dir.as_os_str();
    let arg = |s: &'static str| std::ffi::OsStr::new(s);
    println!(
        "\nPeak memory (resident), next to the vault's {:.1} MB on disk ({:.1} MB of text):\n",
        disk as f64 / 1e6,
        text as f64 / 1e6
    );
    println!("| command | peak | × size on disk | × text |\n|---|---|---|---|");
    let show = |what: &str, peak: Option<u64>| {
        if let Some(p) = peak {
            println!(
                "| {what} | {:.1} MB | {:.2}× | {:.2}× |",
                p as f64 / 1e6,
                p as f64 / disk as f64,
                p as f64 / text as f64
            );
        }
    };
    // a fresh read: the state folder (and its index) set aside for the run
    if std::fs::rename(&state, &aside).is_ok() {
        show(
            "`crew vault stats`, no index",
            peak_rss(&exe, &[arg("vault"), arg("stats"), arg("--vault"), v]),
        );
        let _ = std::fs::rename(&aside, &state);
    }
    show(
        "`crew vault stats`, from the index",
        peak_rss(&exe, &[arg("vault"), arg("stats"), arg("--vault"), v]),
    );
    show(
        "`crew vault check` (full audit)",
        peak_rss(&exe, &[arg("vault"), arg("check"), arg("--vault"), v]),
    );
    show(
        "`crew search garden budget`",
        peak_rss(
            &exe,
            &[arg("search"), arg("garden budget"), arg("--vault"), v],
        ),
    );
}

/// Stats after one note changes, with the persistent index, against a stat-only walk and
/// against ripgrep (the goal of issue #15), each measured in turns with crew.
fn incremental_rows(dir: &Path) {
    // incremental: one note changes, then stats again
    let index_dir = dir.join(".crew");
    let _ = std::fs::create_dir_all(&index_dir);
    // build the index, and let the racy window pass so its entries are trusted
    let _ = crew::state::open_vault(dir);
    std::thread::sleep(Duration::from_millis(2100));
    let _ = crew::state::open_vault(dir);
    let change_one = || {
        let victim = dir.join("01-Projects/Alpha");
        if let Some(e) = std::fs::read_dir(&victim)
            .ok()
            .and_then(|mut r| r.next())
            .and_then(Result::ok)
        {
            let mut t = std::fs::read_to_string(e.path()).unwrap_or_default();
            t.push_str("\nchanged [[Garden river 1]]\n");
            let _ = std::fs::write(e.path(), t);
        }
    };
    let (inc, walk) = paired(
        9,
        || {
            change_one();
            time_stats(|| crew::state::open_vault(dir))
        },
        || stat_walk(dir),
    );
    row(
        "stats after one note changed (index)",
        inc,
        "stat walk",
        walk,
    );
    // the goal of issue #15 is against ripgrep, measured in turns as well
    let (inc, rg_inc) = paired(
        9,
        || {
            change_one();
            time_stats(|| crew::state::open_vault(dir))
        },
        || rg_links(dir),
    );
    row(
        "stats after one note changed (index)",
        inc,
        "rg -c links",
        rg_inc,
    );
}

fn bench_size(n: usize) {
    let dir = tempfile::tempdir().expect("tmp");
    // about 1,000 notes in the inbox at every size
    let share = (100_000 / n.max(1)).clamp(1, 50) as u64;
    let g = crew_synth::generate(dir.path(), n, 42, share).expect("generate");
    println!(
        "\n### {n} notes ({:.1} MB of Markdown, {} in the inbox)\n",
        g.bytes as f64 / 1e6,
        g.inbox
    );
    println!("| operation | crew | baseline | baseline time | ratio |\n|---|---|---|---|---|");
    let _ = rg_links(dir.path()); // warm the page cache
    // crew and its baseline take turns, so a slow moment of the shared machine hits both
    let (full, rg) = paired(
        9,
        || time_stats(|| Vault::open(dir.path())),
        || rg_links(dir.path()),
    );
    row(
        "full stats (walk, read, parse, resolve, count)",
        full,
        "rg -c links",
        rg,
    );
    let crew_def = Crew::builtin();
    incremental_rows(dir.path());
    if std::env::var("CREW_BENCH_ONLY_STATS").as_deref() == Ok("1") {
        return;
    }
    let vault = crew::state::open_vault(dir.path()).expect("open");
    let today = chrono::NaiveDate::from_ymd_opt(2026, 11, 30).expect("date");
    let q = crew::analysis::search::parse_query("garden budget");
    let search = median(
        || {
            time(|| {
                std::hint::black_box(crew::analysis::search::search(
                    &vault,
                    &vault,
                    &crew_def.config.folders,
                    &q,
                    20,
                    today,
                ));
            })
        },
        3,
    );
    row(
        "search \"garden budget\" (ranked)",
        search,
        "rg -il garden",
        median(|| rg_word(dir.path(), "garden"), 3),
    );
    let audit = median(
        || {
            time(|| {
                let folders = &crew_def.config.folders;
                // the schema is learned on every audit of a vault crew did not lay out
                let schema = crew::analysis::schema::Schema::of(&crew_def, &vault, folders);
                std::hint::black_box(crew::analysis::health::audit(
                    &vault, &vault, folders, &schema, today,
                ));
            })
        },
        3,
    );
    row(
        "full audit (links, frontmatter, duplicates, stale)",
        audit,
        "rg -c links",
        rg,
    );
    // triage of the inbox on a copy, for real (moves, link rewrites, MOCs)
    let opts = crew::run::Options {
        agent: Some("inbox-triage".into()),
        command: "bench".into(),
        ..Default::default()
    };
    let triage = time(|| {
        crew::run::ask(
            dir.path(),
            &crew_def,
            "file my notes",
            &opts,
            &mut |_: &str| {},
        )
        .expect("triage");
    });
    row(
        &format!("inbox triage of {} notes", g.inbox),
        triage,
        "rg -c links",
        rg,
    );
    memory_table(dir.path());
}

/// Copies a folder tree (hidden files too: the walk must skip them as it would in place).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for e in walkdir::WalkDir::new(from).into_iter().flatten() {
        let Ok(rel) = e.path().strip_prefix(from) else {
            continue;
        };
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if e.file_type().is_file() {
            std::fs::copy(e.path(), &dest)?;
        }
    }
    Ok(())
}

/// Full stats and stats after one changed note on each corpus vault, next to ripgrep.
fn bench_corpora() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora/vaults");
    let Ok(entries) = std::fs::read_dir(&root) else {
        println!("\n(no corpora at {}: skipped)", root.display());
        return;
    };
    let mut dirs: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    dirs.sort();
    for src in dirs.into_iter().filter(|d| d.is_dir()) {
        let name = src
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = tmp.path().join(&name);
        copy_tree(&src, &dir).expect("copy corpus");
        let notes: Vec<std::path::PathBuf> = walkdir::WalkDir::new(&dir)
            .sort_by_file_name()
            .into_iter()
            .flatten()
            .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "md"))
            .map(|e| e.into_path())
            .collect();
        let bytes: u64 = notes
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum();
        println!(
            "\n### corpus {name} ({} notes, {:.1} MB of Markdown)\n",
            notes.len(),
            bytes as f64 / 1e6
        );
        println!("| operation | crew | baseline | baseline time | ratio |\n|---|---|---|---|---|");
        let _ = rg_links(&dir);
        let (full, rg) = paired(15, || time_stats(|| Vault::open(&dir)), || rg_links(&dir));
        row(
            "full stats (walk, read, parse, resolve, count)",
            full,
            "rg -c links",
            rg,
        );
        let _ = std::fs::create_dir_all(dir.join(".crew"));
        let _ = crew::state::open_vault(&dir);
        std::thread::sleep(Duration::from_millis(2100));
        let _ = crew::state::open_vault(&dir);
        let victim = notes.first().cloned();
        let (inc, rg2) = paired(
            15,
            || {
                if let Some(v) = &victim {
                    let mut t = std::fs::read_to_string(v).unwrap_or_default();
                    t.push_str("\nchanged [[Somewhere]]\n");
                    let _ = std::fs::write(v, t);
                }
                time_stats(|| crew::state::open_vault(&dir))
            },
            || rg_links(&dir),
        );
        row(
            "stats after one note changed (index)",
            inc,
            "rg -c links",
            rg2,
        );
    }
}

fn bench_route() {
    let crew_def = Crew::builtin();
    let router = crew::dispatch::Router::new(&crew_def);
    let messages = [
        "please file my notes",
        "where did I save the note on taxes?",
        "controlla il vault",
        "my tags are a mess, tidy them up",
        "Vaultを初期化",
        "zzz nothing matches here at all",
    ];
    let n = 20_000;
    let t = time(|| {
        for i in 0..n {
            std::hint::black_box(router.route(&crew_def, messages[i % messages.len()], &[], None));
        }
    });
    // baseline: a naive loop of lowercase `contains` over every trigger, no normalization
    let triggers: Vec<String> = crew_def
        .agents
        .iter()
        .chain(&crew_def.skills)
        .flat_map(|d| d.triggers.iter().map(|t| t.to_lowercase()))
        .collect();
    let b = time(|| {
        for i in 0..n {
            let m = messages[i % messages.len()].to_lowercase();
            std::hint::black_box(
                triggers
                    .iter()
                    .filter(|t| m.contains(t.as_str()))
                    .max_by_key(|t| t.len()),
            );
        }
    });
    println!(
        "\n### routing one message (in process, {} triggers)\n",
        triggers.len()
    );
    println!("| operation | crew | baseline | baseline time | ratio |\n|---|---|---|---|---|");
    row(
        "route (normalize, automaton, scorer on no match)",
        t / n as u32,
        "naive contains loop",
        b / n as u32,
    );
    if let Some(exe) = crew_exe() {
        let empty = tempfile::tempdir().expect("tmp");
        let proc_t = median(
            || {
                time(|| {
                    let _ = Command::new(&exe)
                        .arg("--vault")
                        .arg(empty.path())
                        .args(["route", "file my notes"])
                        .output();
                })
            },
            9,
        );
        let true_t = median(
            || {
                time(|| {
                    let _ = Command::new("true").output();
                })
            },
            9,
        );
        row(
            "`crew route` process, start to exit",
            proc_t,
            "`true` process",
            true_t,
        );
    }
}

/// Routing a message no trigger decides: the model learned from the crew definition (built
/// once per process, on the first such message) against routing by a trigger.
fn bench_route_learned() {
    let crew_def = Crew::builtin();
    let router = crew::dispatch::Router::new(&crew_def);
    let unseen = [
        "what does my week look like?",
        "jot down that the car insurance renews in March",
        "fai una pulizia profonda del vault",
        "保管庫の健康診断をして",
    ];
    let build = median(
        || {
            time(|| {
                let (units, phrases) = crew::dispatch::learned::examples::collect(&crew_def);
                let model = crew::dispatch::learned::Model::train(units, phrases);
                std::hint::black_box(model.margin());
            })
        },
        5,
    );
    let n = 5_000;
    let learned = time(|| {
        for i in 0..n {
            std::hint::black_box(router.route(&crew_def, unseen[i % unseen.len()], &[], None));
        }
    });
    let triggered = time(|| {
        for _ in 0..n {
            std::hint::black_box(router.route(&crew_def, "please file my notes", &[], None));
        }
    });
    println!("\n### routing by the learned model (in process)\n");
    println!("| operation | crew | baseline | baseline time | ratio |\n|---|---|---|---|---|");
    row(
        "route, learned model decides",
        learned / n as u32,
        "route, a trigger decides",
        triggered / n as u32,
    );
    row(
        "learned model: collect, train, calibrate",
        build,
        "route, a trigger decides",
        triggered / n as u32,
    );
    let (units, phrases) = crew::dispatch::learned::examples::collect(&crew_def);
    let key = crew::dispatch::learned::fingerprint(&units, &phrases);
    let model = crew::dispatch::learned::Model::train(units, phrases);
    let bytes = crew::dispatch::learned::persist::to_bytes(&model, key).expect("encode");
    let read = median(
        || {
            time(|| {
                let (units, phrases) = crew::dispatch::learned::examples::collect(&crew_def);
                let key = crew::dispatch::learned::fingerprint(&units, &phrases);
                std::hint::black_box(crew::dispatch::learned::persist::from_bytes(&bytes, key));
            })
        },
        9,
    );
    row(
        &format!(
            "learned model: collect, read back ({} KB)",
            bytes.len() / 1024
        ),
        read,
        "route, a trigger decides",
        triggered / n as u32,
    );
    // a trigger ("find") that is a small part of the message: the model is asked, and decides
    let weighed = "find hidden connections between my book notes";
    let model_decides = time(|| {
        for _ in 0..n {
            std::hint::black_box(router.route(&crew_def, weighed, &[], None));
        }
    });
    row(
        "route, the model overrules a trigger (model built)",
        model_decides / n as u32,
        "route, a trigger decides",
        triggered / n as u32,
    );
    if let Some(exe) = crew_exe() {
        bench_route_process(&exe, weighed);
    }
}

/// `crew route` as a whole process on a message the learned model decides: cold (no kept
/// model: it trains, calibrates and writes one) and warm (it reads the kept one), each paired
/// with the same process on a message a trigger decides and with `true`, in turns.
fn bench_route_process(exe: &Path, message: &str) {
    let vault = tempfile::tempdir().expect("tmp");
    let cache = tempfile::tempdir().expect("tmp");
    let crew_route = |message: &str| {
        time(|| {
            let out = Command::new(exe)
                .env("XDG_CACHE_HOME", cache.path())
                .env_remove("CREW_LOG")
                .arg("--vault")
                .arg(vault.path())
                .args(["route", message])
                .output()
                .expect("crew route");
            assert!(out.status.success());
        })
    };
    let forget = || {
        let _ = std::fs::remove_dir_all(cache.path().join("crew"));
    };
    let true_process = || {
        time(|| {
            let _ = Command::new("true").output();
        })
    };
    let runs = 9;
    let (cold, trigger) = paired(
        runs,
        || {
            forget();
            crew_route(message)
        },
        || crew_route("file my notes"),
    );
    crew_route(message);
    let (warm, true_t) = paired(runs, || crew_route(message), true_process);
    let (warm_again, trigger_again) =
        paired(runs, || crew_route(message), || crew_route("file my notes"));
    println!("\n### `crew route` process, start to exit ({runs} runs in turns, medians)\n");
    println!("| operation | crew | baseline | baseline time | ratio |\n|---|---|---|---|---|");
    row(
        "learned model decides, cold (trains, writes the model)",
        cold,
        "a trigger decides",
        trigger,
    );
    row(
        "learned model decides, warm (reads the model)",
        warm_again,
        "a trigger decides",
        trigger_again,
    );
    row(
        "learned model decides, warm (reads the model)",
        warm,
        "`true` process",
        true_t,
    );
}

/// A frontmatter of 100,000 keys (about 1.4 MB), as a hostile or generated note may carry:
/// read, asked for a property and edited, each in time linear in its size (this took 252 s
/// for `crew ask` while the search for duplicate keys was quadratic).
fn bench_huge_frontmatter() {
    let keys = 100_000;
    let mut text = String::from("---\n");
    for i in 0..keys {
        text.push_str(&format!("k{i:06}: v{i}\n"));
    }
    text.push_str("project: \"[[P]]\"\n---\nbody\n");
    let parse = median(
        || {
            time(|| {
                std::hint::black_box(crew::vault::Note::parse_text("Big.md", &text));
            })
        },
        5,
    );
    let note = crew::vault::Note::parse_text("Big.md", &text);
    let lookup = median(
        || {
            time(|| {
                std::hint::black_box(note.property_str("project"));
            })
        },
        5,
    );
    let edit = median(
        || {
            time(|| {
                std::hint::black_box(crew::vault::edit::set_frontmatter_keys(
                    &text,
                    &[("status", Some("filed".into()))],
                ));
            })
        },
        5,
    );
    // baseline: one pass over the bytes that finds every line
    let lines = median(
        || {
            time(|| {
                std::hint::black_box(memchr::memchr_iter(b'\n', text.as_bytes()).count());
            })
        },
        5,
    );
    println!(
        "\n### a {:.1} MB frontmatter ({keys} keys)\n",
        text.len() as f64 / 1e6
    );
    println!("| operation | crew | baseline | baseline time | ratio |\n|---|---|---|---|---|");
    row("parse the note", parse, "count its lines", lines);
    row("one property (`project`)", lookup, "count its lines", lines);
    row("set one key", edit, "count its lines", lines);
}

fn main() {
    // `cargo test --all-targets` also runs this binary, without `--bench`: stay out of the way
    if !std::env::args().any(|a| a == "--bench") {
        eprintln!("crew benchmarks run with `cargo bench --bench vault`");
        return;
    }
    // the same allocator setting as the `crew` binary
    crew::grow_heap_in_large_steps();
    let sizes: Vec<usize> = std::env::var("CREW_BENCH_NOTES")
        .unwrap_or_else(|_| "10000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    println!(
        "## crew benchmarks ({} cores)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    if std::env::var("CREW_BENCH_ONLY_STATS").as_deref() != Ok("1") {
        bench_route();
        bench_route_learned();
        // the routing tables alone, without the vault sizes and corpora
        if std::env::var("CREW_BENCH_ONLY_ROUTE").as_deref() == Ok("1") {
            return;
        }
        bench_huge_frontmatter();
    }
    for n in sizes {
        bench_size(n);
    }
    if std::env::var("CREW_BENCH_CORPORA").as_deref() != Ok("0") {
        bench_corpora();
    }
}
