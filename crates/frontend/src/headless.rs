//! `backspin run`: a ROM headless, for scripts, screenshots and serial output.

use crate::error::{CliError, read_user_file};
use crate::rom_file::load_rom;
use crate::{CliResult, ModelArg, battery};
use backspin_core::{
    BootRom, Core, Events, M_CYCLES_PER_FRAME, M_CYCLES_PER_SECOND, Model, Options, Rom,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The ROM file (.gb, .gbc, or a .zip holding one).
    pub rom: PathBuf,
    /// Which Game Boy to emulate.
    #[arg(long, value_enum, default_value_t)]
    pub model: ModelArg,
    /// Emulate this many frames [default: 600, ten seconds].
    #[arg(long, conflicts_with = "seconds")]
    pub frames: Option<u64>,
    /// Emulate this many seconds of Game Boy time.
    #[arg(long)]
    pub seconds: Option<f64>,
    /// Write the last frame as a 160x144 PNG (DMG: grays FF/AA/55/00; CGB: RGB).
    #[arg(long, value_name = "PNG")]
    pub screenshot: Option<PathBuf>,
    /// Print the bytes the ROM sent on the serial port.
    #[arg(long)]
    pub serial: bool,
    /// Start from this boot ROM (256 bytes DMG, 2304 bytes CGB) instead of the post-boot
    /// state. With `--model auto` its size picks the model.
    #[arg(long, value_name = "PATH")]
    pub boot_rom: Option<PathBuf>,
    /// Neither load nor write the battery save (`<rom>.sav`).
    #[arg(long)]
    pub no_save: bool,
    /// Write the audio of the run as a 48 kHz stereo 16-bit WAV file.
    #[arg(long, value_name = "WAV")]
    pub wav: Option<PathBuf>,
    /// Start from this save state (written for the same ROM) instead of power-on.
    #[arg(long, value_name = "FILE")]
    pub load_state: Option<PathBuf>,
    /// Save the state at the end of the run to this file.
    #[arg(long, value_name = "FILE")]
    pub save_state: Option<PathBuf>,
    /// Press buttons as this input script says (the format of `movie record --inputs`;
    /// cycle lines count M-cycles from power-on, boot ROM included).
    #[arg(long, value_name = "SCRIPT", conflicts_with = "load_state")]
    pub inputs: Option<PathBuf>,
}

pub fn load_boot_rom(path: &Path) -> Result<BootRom, CliError> {
    let bytes = read_user_file("boot ROM", path, 64 * 1024)?;
    BootRom::from_bytes(&bytes).map_err(|error| CliError::new(error.to_string(), path))
}

/// The model `--model` names for `rom` (`auto` looks at the cartridge header).
pub fn model_of(arg: ModelArg, rom: &Rom) -> Model {
    match arg {
        ModelArg::Auto => Model::auto_for(rom),
        ModelArg::Dmg => Model::Dmg,
        ModelArg::Cgb => Model::Cgb,
    }
}

/// How long a headless run lasts.
#[derive(Clone, Copy, Debug)]
pub enum Length {
    Frames(u64),
    MCycles(u64),
}

impl Length {
    pub fn from_args(frames: Option<u64>, seconds: Option<f64>) -> Result<Length, CliError> {
        match (frames, seconds) {
            (Some(frames), _) => Ok(Length::Frames(frames)),
            (None, Some(seconds)) if seconds.is_finite() && (0.0..=86_400.0).contains(&seconds) => {
                Ok(Length::MCycles(
                    (seconds * M_CYCLES_PER_SECOND as f64) as u64,
                ))
            }
            (None, Some(seconds)) => Err(CliError::without_path(format!(
                "--seconds must be between 0 and 86400, not {seconds}"
            ))),
            (None, None) => Ok(Length::Frames(600)),
        }
    }
}

/// Runs whole frames until `length` has passed, calling `each_frame` after every frame (to
/// drain audio, say), and returns every event seen. A run of N frames ends right after the
/// Nth completed frame, so a screenshot shows a whole frame; with the LCD off a frame is one
/// LCD period of M-cycles.
pub fn run_for_each_frame(
    core: &mut Core,
    length: Length,
    each_frame: impl FnMut(&mut Core),
) -> Events {
    run_frames_with(core, length, Core::run_frame, each_frame)
}

/// [`run_for_each_frame`] with `run_frame` emulating each frame (a script's player).
fn run_frames_with(
    core: &mut Core,
    length: Length,
    mut run_frame: impl FnMut(&mut Core) -> Events,
    mut each_frame: impl FnMut(&mut Core),
) -> Events {
    let start_cycles = core.m_cycles();
    let start_frames = core.state().hw.frames;
    let mut events = Events::empty();
    match length {
        Length::Frames(frames) => {
            // Bounded by time as well, in case the frame counter stalls.
            let cycle_limit = start_cycles
                .saturating_add(frames.saturating_mul(2).saturating_mul(M_CYCLES_PER_FRAME));
            while core.state().hw.frames - start_frames < frames && core.m_cycles() < cycle_limit {
                events |= run_frame(core);
                each_frame(core);
            }
        }
        Length::MCycles(m_cycles) => {
            let target = start_cycles.saturating_add(m_cycles);
            while core.m_cycles() < target {
                events |= run_frame(core);
                each_frame(core);
            }
        }
    }
    events
}

pub fn run(args: &RunArgs) -> CliResult {
    let length = Length::from_args(args.frames, args.seconds)?;
    let rom = load_rom(&args.rom)?;
    let boot_rom = args.boot_rom.as_deref().map(load_boot_rom).transpose()?;
    // `auto`: the boot ROM's model, else the loaded state's, else the cartridge header's.
    let saved_model = args
        .load_state
        .as_deref()
        .and_then(crate::state_command::saved_model);
    let model = match (&boot_rom, args.model, saved_model) {
        (Some(boot), ModelArg::Auto, _) => boot.model(),
        (None, ModelArg::Auto, Some(saved)) => saved,
        _ => model_of(args.model, &rom),
    };
    if let (Some(boot), Some(path)) = (&boot_rom, &args.boot_rom)
        && boot.model() != model
    {
        return Err(CliError::new(
            format!(
                "this is a {:?} boot ROM, but the model is {model:?}",
                boot.model()
            ),
            path,
        ));
    }
    let options = Options { model, boot_rom };
    let mut core = Core::new(rom, options);
    let save_path = battery::save_path(&args.rom);
    if !args.no_save {
        load_battery(&mut core, &save_path)?;
    }
    if let Some(path) = &args.load_state {
        crate::state_command::load_into(&mut core, path)?;
    }

    let mut player = match &args.inputs {
        None => None,
        Some(path) => {
            let text = read_user_file("input script", path, 1 << 20)?;
            let text = String::from_utf8(text)
                .map_err(|_| CliError::new("the input script is not UTF-8 text", path))?;
            let script = backspin_movie::Script::parse(&text)
                .map_err(|e| CliError::new(e.to_string(), path))?;
            Some(
                backspin_movie::ScriptPlayer::new(&script)
                    .map_err(|e| CliError::new(format!("the input script, {e}"), path))?,
            )
        }
    };
    let mut samples = Vec::new();
    let run_frame = |core: &mut Core| match &mut player {
        Some(player) => player.run_frame(core),
        None => core.run_frame(),
    };
    let events = run_frames_with(&mut core, length, run_frame, |core| {
        if args.wav.is_some() {
            core.output().audio.drain_i16(&mut samples);
        }
    });
    if let Some(path) = &args.wav {
        crate::wav::write_wav(path, &samples)
            .map_err(|e| CliError::io("cannot write WAV file", &e, path))?;
    }
    if events.contains(Events::CPU_LOCKED) {
        eprintln!(
            "warning: the CPU locked up (illegal opcode), PC {:04X}",
            core.state().cpu.pc
        );
    }

    if let Some(path) = &args.screenshot {
        let png = crate::screen_png::encode_screen(&core);
        std::fs::write(path, png).map_err(|e| CliError::io("cannot write screenshot", &e, path))?;
    }
    if args.serial {
        let serial = core.output().serial.clone();
        let mut stdout = std::io::stdout().lock();
        // A closed pipe (`| head`) is not an emulator error.
        let _ = stdout.write_all(&serial).and_then(|()| stdout.flush());
    }
    if let Some(path) = &args.save_state {
        crate::state_command::save_to(&core, path, core.state().hw.frames)?;
    }
    // In-game saves stay safe: a loaded state carries the cartridge RAM of its moment,
    // which may be older than the `.sav`. After a state load the `.sav` is written only
    // once the game itself has written battery RAM (or the clock) since the load.
    let game_saved = events.contains(Events::BATTERY_DIRTY);
    if !args.no_save && (args.load_state.is_none() || game_saved) {
        save_battery(&mut core, &save_path);
    } else if !args.no_save && core.has_battery() {
        eprintln!(
            "note: battery save not written: the game did not write its save RAM after the \
             state load ({})",
            save_path.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Loads `<rom>.sav` (the shared rules of [`battery::load_save`]) and catches the cartridge
/// clock up with the host time that passed since it was written.
fn load_battery(core: &mut Core, path: &Path) -> Result<(), CliError> {
    match battery::load_save(core, path, battery::unix_now())? {
        battery::ClockCatchUp::NoFooter => {}
        battery::ClockCatchUp::Advance(seconds) => core.rtc_advance_seconds(seconds),
        battery::ClockCatchUp::Refused(warning) => {
            eprintln!("warning: {warning} ({})", path.display());
        }
    }
    Ok(())
}

/// Writes the cartridge's battery RAM to `<rom>.sav` atomically; a failure is a warning.
fn save_battery(core: &mut Core, path: &Path) {
    if let Some(bytes) = core.battery_save(battery::unix_now())
        && let Err(error) = battery::write_atomic(path, &bytes)
    {
        eprintln!(
            "warning: battery save not written: {} ({})",
            crate::error::describe_io(&error),
            path.display()
        );
    }
}
