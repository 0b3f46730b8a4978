//! The `crew` command line: parses flags, calls the library, renders the result.
//! Exit codes: 0 success, 1 the request ran but something failed or needs attention,
//! 2 bad usage or bad input.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    crew::grow_heap_in_large_steps();
    let args = cli::Cli::parse();
    cli::init_tracing(args.verbose);
    let outcome = cli::dispatch(args);
    report_peak_memory();
    match outcome {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            if cli::is_broken_pipe(&e) {
                return ExitCode::SUCCESS;
            }
            let code = cli::exit_code_of(&e);
            eprintln!("error: {e:#}");
            ExitCode::from(code)
        }
    }
}

/// With `CREW_PEAK_MEMORY` set, prints the run's peak resident memory to stderr (Linux: the
/// `VmHWM` line of /proc/self/status, which counts this program only — a parent's memory
/// before `exec` is not in it, unlike `getrusage`). The benchmarks use it.
fn report_peak_memory() {
    if std::env::var_os("CREW_PEAK_MEMORY").is_none() {
        return;
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    match status.lines().find_map(|l| l.strip_prefix("VmHWM:")) {
        Some(v) => eprintln!("crew: peak memory {}", v.trim()),
        None => eprintln!("crew: peak memory not available on this system"),
    }
}
