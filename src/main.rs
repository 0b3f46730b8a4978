//! The `crew` command line: parses flags, calls the library, renders the result.
//! Exit codes: 0 success, 1 the request ran but something failed or needs attention,
//! 2 bad usage or bad input.

mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    grow_heap_in_large_steps();
    let args = cli::Cli::parse();
    cli::init_tracing(args.verbose);
    match cli::dispatch(args) {
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

/// Reading a vault allocates many small strings on every core at once; glibc grows each
/// thread's heap a few pages at a time (an `mprotect` each), which cost 10–15 % of a full
/// pass over 100,000 notes (BENCHMARKS.md). Growing by 32 MB at a time removes that.
fn grow_heap_in_large_steps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator tunable; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 32 << 20);
    }
}
