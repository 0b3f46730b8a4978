//! Writes a synthetic vault (the one the benchmarks use) for profiling by hand:
//! `cargo run --release --example synth -- DIR NOTES [SEED]`.

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(n)) = (args.first(), args.get(1)) else {
        return Err("usage: synth DIR NOTES [SEED]".into());
    };
    let n: usize = n.parse()?;
    let seed: u64 = args.get(2).map_or(Ok(42), |s| s.parse())?;
    // about 1,000 notes in the inbox, as in the benchmarks
    let share = (100_000 / n.max(1)).clamp(1, 50) as u64;
    let g = crew_synth::generate(std::path::Path::new(dir), n, seed, share)?;
    println!("{g:?}");
    Ok(())
}
