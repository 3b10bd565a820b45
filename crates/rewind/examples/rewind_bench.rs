//! `cargo run --release -p backspin-rewind --example rewind_bench -- ROM [--seconds N]
//! [--input-seed N] [--seeks N] [--steps N]`: the rewind benchmark, printing JSON (the same
//! as `backspin rewind-bench`).

use backspin_rewind::bench::{self, BenchConfig};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut rom_path = None;
    let mut config = BenchConfig::default();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} needs a number"))
        };
        match arg.as_str() {
            "--seconds" => config.seconds = value("--seconds"),
            "--input-seed" => config.input_seed = value("--input-seed"),
            "--seeks" => config.seeks = value("--seeks") as usize,
            "--steps" => config.steps = value("--steps") as usize,
            "--slowdown-seconds" => config.slowdown_seconds = value("--slowdown-seconds"),
            "--thinned-every" => config.thinned_every = value("--thinned-every") as u32,
            _ => rom_path = Some(arg),
        }
    }
    let Some(rom_path) = rom_path else {
        eprintln!("usage: rewind_bench ROM [--seconds N] [--input-seed N] [--seeks N] [--steps N]");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&rom_path).unwrap_or_else(|e| {
        eprintln!("cannot read {rom_path}: {e}");
        std::process::exit(1);
    });
    match bench::run(&bytes, &config) {
        Ok(report) => print!("{}", report.to_json()),
        Err(e) => {
            eprintln!("{rom_path}: {e}");
            std::process::exit(1);
        }
    }
}
