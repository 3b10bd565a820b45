//! The windowed player: `backspin` (the embedded demo) or `backspin ROM`.
//!
//! Threads: the UI thread runs the winit event loop (window, keyboard, gamepads, presenting);
//! the emulation thread owns the core and the rewind history and paces itself by the
//! emulated clock; cpal's thread pulls audio from a ring. They talk through crossbeam
//! channels (commands in, frames out) and the audio ring; nothing on the UI thread waits for
//! emulation.

mod app;
mod audio;
mod browser;
pub mod config;
mod emu;
mod game;
mod input;
mod menu;
mod menu_gui;
mod overlay;
mod picture;
mod present;
mod recent;
mod recording;
mod scaling;
mod settings;
pub mod slots;

use crate::ModelArg;
use backspin_core::Rom;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The embedded demo, assembled from `assets/demo/demo.asm` by `build.rs`.
pub const DEMO_ROM: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/demo.gb"));

/// The largest rewind budget: the history ring addresses its records with 32-bit offsets.
pub const MAX_REWIND_MIB: u16 = 4096;

/// Options of the windowed player (flattened into the top-level command line).
#[derive(clap::Args, Debug, Default, Clone)]
pub struct PlayerArgs {
    /// Bindings file (default: config.toml in the platform config directory, created with
    /// the defaults on first run).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Run silent without opening an audio device (also: env BACKSPIN_NO_AUDIO).
    #[arg(long)]
    pub no_audio: bool,
    /// Present through the software presenter instead of the GPU.
    #[arg(long)]
    pub software: bool,
    /// Rewind history budget in MiB (0 turns rewind off; default: the config file's
    /// `[player]` setting, else 128). Memory is used as history grows, not reserved up front.
    #[arg(
        long,
        value_name = "MIB",
        value_parser = clap::value_parser!(u16).range(0..=MAX_REWIND_MIB as i64)
    )]
    pub rewind_mib: Option<u16>,
    /// Start paused.
    #[arg(long)]
    pub paused: bool,
    /// Start the game from power-on, ignoring where the last session ended (it is still
    /// saved again on exit).
    #[arg(long)]
    pub fresh: bool,
    /// Which Game Boy to emulate: `auto` picks a CGB for cartridges flagged for it and a
    /// DMG otherwise; `cgb` also plays DMG games on a CGB, coloured as a CGB colours them
    /// (default: the config file's `[player]` setting, else auto).
    #[arg(long, value_enum)]
    pub model: Option<ModelArg>,
    /// How the window shows CGB colours: `off` is the plain expansion, `lcd` approximates
    /// the CGB's screen (softer, less saturated). Display only: screenshots stay plain
    /// (default: the config file's `[player]` setting, else off).
    #[arg(long, value_enum)]
    pub colour_correction: Option<picture::ColourCorrection>,
    /// The look of DMG games' four shades: grey, green, dmg (the original olive screen) or
    /// pocket (default: the config file's `[player]` setting, else green).
    #[arg(long, value_name = "NAME", value_parser = settings::parse_palette)]
    pub palette: Option<backspin_core::screen::DmgPalette>,
    /// How the picture fills the window: `integer` by whole factors, `fit` as large as
    /// fits (default: the config file's setting, else integer).
    #[arg(long, value_enum)]
    pub scale: Option<scaling::ScaleMode>,
    /// The filter of a fitted picture: `nearest` (sharp) or `linear` (smooth) (default:
    /// the config file's setting, else nearest).
    #[arg(long, value_enum)]
    pub filter: Option<scaling::Filter>,
    /// Sound volume in percent (default: the config file's setting, else 100).
    #[arg(long, value_name = "PERCENT", value_parser = clap::value_parser!(u8).range(0..=100))]
    pub volume: Option<u8>,
    /// Start with the sound muted (the device stays open; the Settings page unmutes).
    #[arg(long)]
    pub mute: bool,
    /// How much sound is queued ahead of the device, in milliseconds: lower answers faster,
    /// higher survives a busy machine (default: the config file's setting, else 50).
    #[arg(
        long,
        value_name = "MS",
        value_parser = clap::value_parser!(u16).range(
            *settings::LATENCY_RANGE.start() as i64..=*settings::LATENCY_RANGE.end() as i64
        )
    )]
    pub audio_latency: Option<u16>,
    /// Fast-forward's speed as a multiple of normal, 0 for as fast as the machine goes
    /// (default: the config file's setting, else 0).
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u8).range(0..=settings::MAX_FAST_FORWARD as i64)
    )]
    pub fast_forward_speed: Option<u8>,
    /// Hold the game while the window is in the background.
    #[arg(long)]
    pub pause_on_focus_loss: bool,
    /// Record the session as a movie to FILE (written on exit; `backspin movie verify ROM
    /// FILE` checks it). The record hotkey (M) starts and stops one in the data directory.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Speedrun mode: starts from power-on, records the run as a movie (into the data
    /// directory's `movies/`, or FILE of --record; the path is printed), shows a timer of
    /// emulated time and the ROM's CRC-32, paces at exactly 59.7275 frames/s, locks rewind,
    /// save states, fast-forward, pause and frame stepping, and prints the final time on exit
    /// (`backspin movie verify` prints the same for the file).
    #[arg(long)]
    pub speedrun: bool,
    /// Test hook: save the game picture as PNG once this many frames have been emulated,
    /// then quit. Takes FRAMES and FILE.
    #[arg(
        long,
        num_args = 2,
        value_names = ["FRAMES", "FILE"],
        alias = "headless-screenshot-after"
    )]
    pub screenshot_after: Option<Vec<String>>,
    /// Let a debugger (Debug Adapter Protocol, e.g. VS Code with editors/vscode) attach on
    /// this localhost TCP port: pausing there stops the game and shows the picture at that
    /// instruction; continue plays on; disconnecting leaves the game running.
    #[arg(long, value_name = "PORT")]
    pub debug_port: Option<u16>,
    /// Test hook: quit after this many seconds.
    #[arg(long, value_name = "SECONDS")]
    pub quit_after: Option<f64>,
}

/// Opens the window on `rom` (or the embedded demo) and plays until it is closed.
pub fn run(rom_path: Option<PathBuf>, args: &PlayerArgs) -> Result<(), String> {
    let (rom, title) = match &rom_path {
        Some(path) => {
            let rom = crate::rom_file::load_rom(path).map_err(|error| error.to_string())?;
            let title = app::display_title(&rom, path);
            (rom, title)
        }
        None => {
            let rom = Rom::from_bytes(DEMO_ROM.to_vec())
                .map_err(|e| format!("the embedded demo is broken: {e}"))?;
            (rom, "Backspin demo".to_string())
        }
    };
    log::info!("playing {title}");
    // The config file's settings, with this run's options over them.
    let config_path = args.config.clone().or_else(config::default_path);
    let mut settings = settings::Settings::load(config_path.as_deref());
    settings.model = args.model.unwrap_or(settings.model);
    settings.colour_correction = args.colour_correction.unwrap_or(settings.colour_correction);
    settings.rewind_mib = args.rewind_mib.unwrap_or(settings.rewind_mib);
    settings.palette = args.palette.unwrap_or(settings.palette);
    settings.view.scale = args.scale.unwrap_or(settings.view.scale);
    settings.view.filter = args.filter.unwrap_or(settings.view.filter);
    settings.volume = args.volume.unwrap_or(settings.volume);
    settings.mute |= args.mute;
    settings.audio_latency_ms = args.audio_latency.unwrap_or(settings.audio_latency_ms);
    settings.fast_forward = args.fast_forward_speed.unwrap_or(settings.fast_forward);
    settings.pause_on_focus_loss |= args.pause_on_focus_loss;
    for warning in rom.warnings() {
        log::warn!("{warning}");
    }
    // The battery save is loaded (or refused, with `run`'s message) before a window opens.
    let model = crate::headless::model_of(settings.model, &rom);
    log::info!("emulating a {model:?}");
    let game = game::Game::open(rom, rom_path.as_deref(), model)?;
    if let Some(path) = &rom_path {
        recent::remember(
            path,
            &title,
            &format!("{model:?}"),
            game.slots.as_ref(),
            false,
        );
    }
    let automation = app::Automation {
        screenshot_after: match &args.screenshot_after {
            Some(values) => {
                let frames = values[0].parse::<u64>().map_err(|_| {
                    format!("--screenshot-after: {} is not a frame count", values[0])
                })?;
                Some((frames, PathBuf::from(&values[1])))
            }
            None => None,
        },
        quit_after: args
            .quit_after
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64),
    };
    let speedrun_crc = args
        .speedrun
        .then(|| backspin_core::state_file::checksum::crc32(game.core.rom().bytes()));
    let record = match (args.speedrun, &args.record) {
        (false, record) => record.clone(),
        (true, Some(path)) => Some(path.clone()),
        (true, None) => Some(recording::default_path(
            &slots::data_dir().unwrap_or_else(|| PathBuf::from(".")),
            &game.core.rom().title(),
        )),
    };
    if let (Some(crc), Some(path)) = (speedrun_crc, &record) {
        println!(
            "speedrun: ROM CRC-32 {crc:08X}, recording to {}",
            path.display()
        );
    }
    let bindings = config::load(config_path.as_deref());
    let debug_port = args
        .debug_port
        .map(|port| emu::DebugPort::open(port, rom_path.as_deref()))
        .transpose()?;

    let event_loop = winit::event_loop::EventLoop::<app::FrameReady>::with_user_event()
        .build()
        .map_err(|e| format!("cannot reach a window system: {e}"))?;
    let proxy = event_loop.create_proxy();
    quit_on_signal(proxy.clone());
    let (command_tx, command_rx) = crossbeam_channel::unbounded();
    let (notice_tx, notice_rx) = crossbeam_channel::unbounded();
    let slots = game.slots.clone();
    let (frame_tx, frame_rx) = emu::frame_channels();
    let no_audio =
        args.no_audio || !settings.sound || std::env::var_os("BACKSPIN_NO_AUDIO").is_some();
    let controls =
        audio::AudioControls::new(settings.volume, settings.mute, settings.audio_latency_ms);
    let (sink, audio_output) = audio::open(!no_audio, controls);
    let emulation = emu::spawn(
        game,
        emu::EmuSettings {
            // A speedrun keeps no history (rewind is locked) and starts from power-on.
            rewind_budget_bytes: if args.speedrun {
                0
            } else {
                usize::from(settings.rewind_mib) << 20
            },
            start_paused: args.paused,
            fresh: args.fresh || args.speedrun,
            notices: Some(notice_tx),
            record,
            debug_port,
            speedrun: args.speedrun,
            fast_forward: settings.fast_forward,
        },
        command_rx,
        frame_tx,
        sink,
        move || {
            let _ = proxy.send_event(app::FrameReady);
        },
    );
    let mut app = app::App::new(
        frame_rx,
        notice_rx,
        slots,
        command_tx.clone(),
        audio_output,
        bindings,
        title,
        app::ViewOptions {
            software: args.software
                || std::env::var("BACKSPIN_PRESENTER").is_ok_and(|v| v == "software"),
            settings,
            config_path,
            rom_path: rom_path.clone(),
            speedrun_crc,
        },
        automation,
    );
    let result = event_loop.run_app(&mut app);
    let _ = command_tx.send(emu::Command::Quit);
    drop(app.window.take());
    if emulation.join().is_err() {
        return Err("the emulation thread panicked".into());
    }
    result.map_err(|e| format!("event loop: {e}"))?;
    match app.exit_error {
        Some(error) => Err(error),
        // Only now: the game's battery save and resume point are on disk.
        None if app.restart_in_speedrun => restart(speedrun_command(app.rom_path.as_deref(), args)),
        None => Ok(()),
    }
}

/// The command line that starts the player again on `rom_path` (`None`: the demo) in
/// speedrun mode, with this run's options that still apply.
fn speedrun_command(
    rom_path: Option<&std::path::Path>,
    args: &PlayerArgs,
) -> std::process::Command {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("backspin"));
    let mut command = std::process::Command::new(exe);
    command.args(rom_path).arg("--speedrun");
    if let Some(config) = &args.config {
        command.arg("--config").arg(config);
    }
    if let Some(model) = args
        .model
        .and_then(|m| clap::ValueEnum::to_possible_value(&m))
    {
        command.args(["--model", model.get_name()]);
    }
    if let Some(correction) = args
        .colour_correction
        .and_then(|c| clap::ValueEnum::to_possible_value(&c))
    {
        command.args(["--colour-correction", correction.get_name()]);
    }
    if let Some(palette) = args.palette {
        command.args(["--palette", palette.name()]);
    }
    if let Some(scale) = args.scale {
        command.args(["--scale", &settings::name_of(scale)]);
    }
    if let Some(filter) = args.filter {
        command.args(["--filter", &settings::name_of(filter)]);
    }
    if let Some(volume) = args.volume {
        command.args(["--volume", &volume.to_string()]);
    }
    if let Some(latency) = args.audio_latency {
        command.args(["--audio-latency", &latency.to_string()]);
    }
    command.args(args.mute.then_some("--mute"));
    command.args(args.pause_on_focus_loss.then_some("--pause-on-focus-loss"));
    command.args(args.no_audio.then_some("--no-audio"));
    command.args(args.software.then_some("--software"));
    command
}

/// Replaces this process with `command` (a new process where there is no `exec`).
fn restart(mut command: std::process::Command) -> Result<(), String> {
    log::info!("restarting in speedrun mode: {command:?}");
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let error = command.exec();
        Err(format!("cannot restart in speedrun mode: {error}"))
    }
    #[cfg(not(unix))]
    {
        command
            .spawn()
            .map(drop)
            .map_err(|error| format!("cannot restart in speedrun mode: {error}"))
    }
}

/// Set by the first SIGINT (Ctrl+C) or SIGTERM: one process, one flag.
static QUIT_SIGNALLED: AtomicBool = AtomicBool::new(false);

fn quit_signalled() -> bool {
    QUIT_SIGNALLED.load(Ordering::SeqCst)
}

/// Ctrl+C (SIGINT) and SIGTERM close the window the normal way (the UI thread sees the
/// flag on its next wake-up), so the battery save is written first. A second signal quits
/// at once, for a disk that hangs.
fn quit_on_signal(proxy: winit::event_loop::EventLoopProxy<app::FrameReady>) {
    let installed = ctrlc::set_handler(move || {
        if QUIT_SIGNALLED.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        let _ = proxy.send_event(app::FrameReady);
    });
    if let Err(error) = installed {
        log::warn!("Ctrl+C and SIGTERM will quit without saving the game first: {error}");
    }
}

/// The default bindings for `--help`.
pub fn bindings_help() -> String {
    config::bindings_help()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_speedrun_restart_keeps_the_game_and_the_options_that_apply() {
        let args = PlayerArgs {
            config: Some(PathBuf::from("/c/config.toml")),
            software: true,
            model: Some(ModelArg::Cgb),
            rewind_mib: Some(64),
            palette: Some(backspin_core::screen::DmgPalette::Pocket),
            scale: Some(scaling::ScaleMode::Fit),
            volume: Some(30),
            ..PlayerArgs::default()
        };
        let command = speedrun_command(Some(std::path::Path::new("/roms/game.zip")), &args);
        let words: Vec<_> = command.get_args().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            words,
            [
                "/roms/game.zip",
                "--speedrun",
                "--config",
                "/c/config.toml",
                "--model",
                "cgb",
                "--palette",
                "pocket",
                "--scale",
                "fit",
                "--volume",
                "30",
                "--software"
            ]
        );
    }
}
