//! `backspin bench`: headless speed in frames per second, wall clock and process CPU time.

use crate::CliResult;
use crate::headless::{Length, load_rom, run_for};
use backspin_core::{Core, Options};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The ROM file (.gb).
    pub rom: PathBuf,
    /// Frames to emulate.
    #[arg(long, default_value_t = 6000)]
    pub frames: u64,
}

pub fn run(args: &BenchArgs) -> CliResult {
    let rom = load_rom(&args.rom)?;
    let mut core = Core::new(rom, Options::default());
    let wall = Instant::now();
    let cpu = cpu_time::ProcessTime::now();
    run_for(&mut core, Length::Frames(args.frames));
    let cpu_seconds = cpu.elapsed().as_secs_f64();
    let wall_seconds = wall.elapsed().as_secs_f64();
    let per_second = |seconds: f64| {
        if seconds > 0.0 {
            args.frames as f64 / seconds
        } else {
            0.0
        }
    };
    let report = serde_json::json!({
        "rom": args.rom.display().to_string(),
        "frames": args.frames,
        "fps_wall": round1(per_second(wall_seconds)),
        "fps_cpu": round1(per_second(cpu_seconds)),
        "m_cycles": core.m_cycles(),
    });
    println!("{report}");
    Ok(ExitCode::SUCCESS)
}

fn round1(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}
