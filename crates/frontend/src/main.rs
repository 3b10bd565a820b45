//! `backspin`: the command-line front end. Headless subcommands (`run`, `test`, `bench`) for
//! scripts and CI; without a subcommand it will open the windowed player.

mod battery;
mod bench;
mod error;
mod headless;
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
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    /// ROM to play in a window (the windowed player is not built yet).
    rom: Option<PathBuf>,
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
}

/// `--model`: only the DMG is emulated.
#[derive(Clone, Copy, Debug, Default, ValueEnum)]
pub enum ModelArg {
    #[default]
    Dmg,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Run(args)) => headless::run(&args),
        Some(Command::Test(args)) => test_command::run(&args),
        Some(Command::Bench(args)) => bench::run(&args),
        Some(Command::RewindBench(args)) => bench::run_rewind(&args),
        None => {
            player_placeholder(cli.rom);
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn player_placeholder(rom: Option<PathBuf>) {
    let example = rom
        .map(|path| path.display().to_string())
        .unwrap_or_else(|| "game.gb".into());
    println!("backspin: the windowed player is not built yet.");
    println!(
        "Run a ROM headless instead: backspin run {example} --seconds 10 --screenshot out.png"
    );
    println!("See `backspin --help` for the test runner and benchmark.");
}

/// Exit with `CliError` as `error: <what> (<path>)`.
pub type CliResult = Result<ExitCode, CliError>;
