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
