//! `backspin`: the command-line front end. Without a subcommand it opens the windowed
//! player (`backspin ROM`, or the embedded demo); headless subcommands (`run`, `test`,
//! `bench`, `state`, `movie`) serve scripts and CI.

mod battery;
mod bench;
mod debug_command;
mod error;
mod headless;
mod movie_command;
mod player;
mod rom_file;
mod screen_png;
mod state_command;
mod test_command;
mod wav;

use clap::{Parser, Subcommand, ValueEnum};
use error::CliError;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "backspin",
    version,
    about = "Backspin, a Game Boy (DMG) emulator with rewind",
    // `backspin ROM` (no subcommand) stays possible: a positional beside the subcommands.
    args_conflicts_with_subcommands = true,
    after_help = player::bindings_help()
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// ROM to play in a window, .gb/.gbc or a .zip holding one (default: the embedded demo).
    rom: Option<PathBuf>,
    #[command(flatten)]
    player: player::PlayerArgs,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a ROM headless (no window, no audio) and optionally save a screenshot.
    Run(headless::RunArgs),
    /// Run the test-ROM manifest in parallel and check it against the known failures.
    Test(test_command::TestArgs),
    /// Measure emulation speed: prints one JSON object.
    Bench(bench::BenchArgs),
    /// Measure rewind: history size, capture, seek and step times, all verified; JSON.
    RewindBench(bench::RewindBenchArgs),
    /// Save-state files: `info` describes one, `verify` runs the round-trip self-check.
    State(state_command::StateArgs),
    /// Movies: `record` from an input script, `play`, `info`, and `verify` (replays, checks
    /// every checkpoint and names the first differing frame, M-cycle and field).
    Movie(movie_command::MovieArgs),
    /// Debug a ROM from VS Code (or any Debug Adapter Protocol client): breakpoints,
    /// watchpoints, stepping forward and backward. Speaks DAP on stdin/stdout, or on
    /// `--port N`.
    Debug(debug_command::DebugArgs),
}

/// `--model`: which Game Boy to emulate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum ModelArg {
    /// A CGB for cartridges flagged for it (header 0x143 is 0x80 or 0xC0), else a DMG.
    #[default]
    Auto,
    Dmg,
    Cgb,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The player reports what it opened (window, audio, bindings); the headless commands
    // keep their output to what they print themselves.
    let default_filter = if cli.command.is_none() {
        "info,wgpu_hal=off,wgpu_core=warn,naga=warn"
    } else {
        "warn"
    };
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or(default_filter))
        .init();
    let result = match cli.command {
        Some(Command::Run(args)) => headless::run(&args),
        Some(Command::Test(args)) => test_command::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::RewindBench(args)) => bench::run_rewind(&args),
        Some(Command::State(args)) => state_command::run(&args),
        Some(Command::Movie(args)) => movie_command::run(&args),
        Some(Command::Debug(args)) => debug_command::run(&args),
        None => match player::run(cli.rom, &cli.player) {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(error) => {
                eprintln!("error: {error}");
                Ok(ExitCode::FAILURE)
            }
        },
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Exit with `CliError` as `error: <what> (<path>)`.
pub type CliResult = Result<ExitCode, CliError>;
