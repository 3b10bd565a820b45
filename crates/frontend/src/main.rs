//! `backspin`: with no subcommand, the windowed player (`backspin ROM`, or the embedded demo).

mod player;
// Wired into `backspin run --wav` by the lead; until then only its tests use it.
#[allow(dead_code)]
mod wav;

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(name = "backspin", version, about = "Backspin, a Game Boy (DMG) emulator with rewind",
    after_help = player::bindings_help())]
struct Cli {
    /// ROM to play in a window (default: the embedded demo).
    rom: Option<PathBuf>,
    #[command(flatten)]
    player: player::PlayerArgs,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(
        env_logger::Env::default().default_filter_or("info,wgpu_hal=off,wgpu_core=warn,naga=warn"),
    )
    .init();
    let cli = Cli::parse();
    match player::run(cli.rom, &cli.player) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}
