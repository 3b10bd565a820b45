//! `backspin bench`: headless speed in frames per second, wall clock and process CPU time.

use crate::headless::{Length, model_of, run_for_each_frame};
use crate::rom_file::load_rom;
use crate::{CliResult, ModelArg};
use backspin_core::{Core, FastPaths, Options};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

mod rewind;

#[derive(clap::Args, Debug)]
pub struct BenchArgs {
    /// The ROM file (.gb, .gbc, or a .zip holding one).
    pub rom: PathBuf,
    /// Which Game Boy to emulate.
    #[arg(long, value_enum, default_value_t)]
    pub model: ModelArg,
    /// Frames to emulate.
    #[arg(long, default_value_t = 6000)]
    pub frames: u64,
    /// Tick every idle M-cycle of a halted CPU instead of jumping to the next event (same
    /// result, slower; shows what HALT skipping saves).
    #[arg(long)]
    pub no_halt_skip: bool,
    /// Draw only every Nth frame (1 = all), as a bot that looks at every Nth: the others
    /// run with the PPU's pixel output off (`Core::set_drawing`), emulation unchanged.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
    pub draw_every: u64,
    /// Run mode 3 dot by dot through the PPU's step dispatch instead of its lazy fast path
    /// (same result, slower; shows what the fast path saves).
    #[arg(long)]
    pub no_ppu_fast_path: bool,
    /// Whether the APU synthesizes samples (`FastPaths::audio_synthesis`; emulation unchanged
    /// either way). `auto`: on when every frame is drawn (a player's run; Gambatte, the
    /// reference there, makes sound), off with `--draw-every` above 1 (a bot's run, which
    /// nobody listens to; PyBoy's benchmark runs with `sound_emulated=False`).
    #[arg(long, value_enum, default_value_t)]
    pub audio: AudioArg,
}

/// `--audio`: whether the bench synthesizes sound.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AudioArg {
    /// On when every frame is drawn, off with `--draw-every` above 1.
    #[default]
    Auto,
    On,
    Off,
}

impl AudioArg {
    fn enabled(self, draw_every: u64) -> bool {
        match self {
            AudioArg::Auto => draw_every == 1,
            AudioArg::On => true,
            AudioArg::Off => false,
        }
    }
}

pub fn run(args: &BenchArgs) -> CliResult {
    let rom = load_rom(&args.rom)?;
    let model = model_of(args.model, &rom);
    let mut core = Core::new(
        rom,
        Options {
            model,
            ..Options::default()
        },
    );
    let skip = !args.no_halt_skip;
    let audio = args.audio.enabled(args.draw_every);
    core.set_fast_paths(FastPaths {
        defer_quiet_ticks: skip,
        halt_skipping: skip,
        poll_loop_skipping: skip,
        plain_steps: skip,
        lazy_mode3: !args.no_ppu_fast_path,
        audio_synthesis: audio,
        ..FastPaths::ALL
    });
    // Frame k (counting from 1) is drawn when k is a multiple of `draw_every`.
    let draws = |frames_done: u64| (frames_done + 1).is_multiple_of(args.draw_every);
    let start_frames = core.state().hw.frames;
    let mut drawn = 0u64;
    core.set_drawing(draws(0));
    let wall = Instant::now();
    let cpu = cpu_time::ProcessTime::now();
    let mut frames_done = 0;
    run_for_each_frame(&mut core, Length::Frames(args.frames), |core| {
        // `run_frame` may also return at a breakpoint, before the frame is complete.
        let now_done = core.state().hw.frames - start_frames;
        if now_done != frames_done {
            drawn += u64::from(core.drawing());
            frames_done = now_done;
            core.set_drawing(draws(frames_done));
        }
    });
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
        "model": format!("{model:?}"),
        "halt_skipping": !args.no_halt_skip,
        "ppu_fast_path": !args.no_ppu_fast_path,
        "draw_every": args.draw_every,
        "drawing": drawing_label(args.draw_every),
        "frames_drawn": drawn,
        "audio": audio,
    });
    println!("{report}");
    Ok(ExitCode::SUCCESS)
}

/// What the JSON's "drawing" says: the truth of how often the PPU produced pixels.
fn drawing_label(draw_every: u64) -> String {
    match draw_every {
        1 => "every frame".to_string(),
        n => format!("1 frame in {n}, pixel output off for the others"),
    }
}

fn round1(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

#[derive(clap::Args, Debug)]
pub struct RewindBenchArgs {
    /// The ROM file (.gb, .gbc, or a .zip holding one).
    pub rom: PathBuf,
    /// Which Game Boy to emulate.
    #[arg(long, value_enum, default_value_t)]
    pub model: ModelArg,
    /// Emulated seconds of play with a seeded, human-like joypad script.
    #[arg(long, default_value_t = 600)]
    pub seconds: u64,
    /// Seed of the joypad script.
    #[arg(long, default_value_t = 1)]
    pub input_seed: u64,
}

/// `backspin rewind-bench`: plays, stores history as the player does, seeks and steps,
/// verifies every restored state and frame against the straight run, and prints one JSON
/// object.
pub fn run_rewind(args: &RewindBenchArgs) -> CliResult {
    let rom = load_rom(&args.rom)?;
    let model = model_of(args.model, &rom);
    let config = rewind::BenchConfig {
        model,
        seconds: args.seconds,
        input_seed: args.input_seed,
        ..Default::default()
    };
    let report = rewind::run(rom.bytes(), &config)
        .map_err(|error| crate::error::CliError::new(format!("bad ROM: {error}"), &args.rom))?;
    println!("{}", report.to_json());
    Ok(ExitCode::SUCCESS)
}
