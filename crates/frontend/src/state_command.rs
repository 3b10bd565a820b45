//! `backspin state info|verify|import-bess`, and the save-state files `backspin run` loads
//! and writes.
//!
//! The format itself is `backspin_core::state_file`; this module adds files, the PNG
//! thumbnail (the core stays free of a PNG encoder) and one-line errors.

use crate::error::{CliError, read_user_file};
use crate::headless::model_of;
use crate::rom_file::load_rom;
use crate::{CliResult, ModelArg};
use backspin_core::bess;
use backspin_core::state_file::{self, Metadata, StateError};
use backspin_core::{Core, Model, Options};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// No save state comes near this; a bigger file is not one.
const MAX_STATE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(clap::Args, Debug)]
pub struct StateArgs {
    #[command(subcommand)]
    pub command: StateCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum StateCommand {
    /// Describe a save-state file: format version, ROM, model, frame, creation time, size.
    Info {
        /// The save-state file.
        file: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Convert another emulator's save state (SameBoy, BGB, ...) into a Backspin one
    /// through its BESS footer: best effort, with warnings.
    ImportBess {
        /// The ROM the state belongs to.
        rom: PathBuf,
        /// The other emulator's state file.
        input: PathBuf,
        /// Where to write the Backspin save state.
        output: PathBuf,
    },
    /// The round-trip self-check: load the state into a fresh machine, save it again
    /// (must be byte-identical) and run 60 frames (must equal a run without the detour).
    Verify {
        /// The ROM the state belongs to.
        rom: PathBuf,
        /// The save-state file.
        file: PathBuf,
        #[arg(long, value_enum, default_value_t)]
        model: ModelArg,
    },
}

pub fn run(args: &StateArgs) -> CliResult {
    match &args.command {
        StateCommand::Info { file, json } => info(file, *json),
        StateCommand::Verify { rom, file, model } => verify(rom, file, *model),
        StateCommand::ImportBess { rom, input, output } => import_bess(rom, input, output),
    }
}

fn import_bess(rom_path: &Path, input: &Path, output: &Path) -> CliResult {
    let bytes = read_state_file(input)?;
    // The machine the state was saved on (DMG or CGB); the import names a bad file.
    let model = bess::saved_model(&bytes).unwrap_or_default();
    let mut core = Core::new(
        load_rom(rom_path)?,
        Options {
            model,
            boot_rom: None,
        },
    );
    let import = bess::import(&mut core, &bytes)
        .map_err(|error| CliError::new(format!("BESS import: {error}"), input))?;
    for warning in &import.warnings {
        eprintln!("warning: {warning}");
    }
    save_to(&core, output, core.state().hw.frames)?;
    println!(
        "imported {}'s state (best effort: PPU position, APU timers and DMA progress are \
         not in BESS) into {}",
        import.emulator.as_deref().unwrap_or("an unknown emulator"),
        output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Reads a save-state file (size-checked); the format is checked by the caller.
pub(crate) fn read_state_file(path: &Path) -> Result<Vec<u8>, CliError> {
    read_user_file("save state", path, MAX_STATE_BYTES)
}

/// The model a save state was saved on: a Backspin state's, or another emulator's from its
/// BESS footer (`None` for unreadable files: loading them reports why).
pub(crate) fn saved_model(path: &Path) -> Option<Model> {
    let bytes = read_state_file(path).ok()?;
    match state_file::info(&bytes) {
        Ok(info) => Some(Model::from_raw(info.model)),
        // Another emulator's state: the model its BESS CORE block names. A damaged Backspin
        // state is not one (loading it reports why).
        Err(StateError::NotASaveState) => bess::saved_model(&bytes),
        Err(_) => None,
    }
}

/// Loads `path` into `core`: a Backspin state, or else another emulator's state through its
/// BESS footer (best effort, with warnings on stderr). A damaged Backspin state is refused,
/// never retried through the BESS footer it also carries. On error the core is unchanged
/// and the message names the file.
pub fn load_into(core: &mut Core, path: &Path) -> Result<(), CliError> {
    let bytes = read_state_file(path)?;
    match state_file::load(core, &bytes) {
        Ok(_) => Ok(()),
        Err(StateError::NotASaveState) if bess::has_footer(&bytes) => {
            let import = bess::import(core, &bytes)
                .map_err(|error| CliError::new(format!("BESS import: {error}"), path))?;
            eprintln!(
                "warning: imported another emulator's state ({}) through its BESS footer: \
                 best effort, PPU position, APU timers and DMA progress are not in BESS",
                import.emulator.as_deref().unwrap_or("writer unknown")
            );
            for warning in import.warnings {
                eprintln!("warning: {warning}");
            }
            Ok(())
        }
        Err(error) => Err(CliError::new(error.to_string(), path)),
    }
}

/// Saves `core` to `path` atomically, with the screen as thumbnail. `frame` is the frames
/// the host has shown since power-on.
pub fn save_to(core: &Core, path: &Path, frame: u64) -> Result<(), CliError> {
    let metadata = Metadata {
        created_unix_seconds: unix_now(),
        frame,
        emulator_version: state_file::EMULATOR_VERSION.to_string(),
        thumbnail_png: crate::screen_png::encode_shades(core.frame()),
    };
    let bytes = state_file::save(core, &metadata);
    crate::battery::write_atomic(path, &bytes)
        .map_err(|error| CliError::io("cannot write save state", &error, path))
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

fn info(path: &Path, json: bool) -> CliResult {
    let bytes = read_state_file(path)?;
    let info = state_file::info(&bytes).map_err(|error| CliError::new(error.to_string(), path))?;
    let metadata = info.metadata.clone().unwrap_or_default();
    let created =
        (metadata.created_unix_seconds != 0).then(|| utc_timestamp(metadata.created_unix_seconds));
    if json {
        let object = serde_json::json!({
            "file": path.display().to_string(),
            "version": format!("{}.{}", info.major, info.minor),
            "major": info.major,
            "minor": info.minor,
            "model": model_name(info.model),
            "rom": {
                "title": info.rom.title,
                "header_checksum": info.rom.header_checksum,
                "global_checksum": info.rom.global_checksum,
                "sha1": info.rom.sha1_hex(),
            },
            "file_bytes": bytes.len(),
            "state_bytes": info.state_bytes,
            "metadata": info.metadata.is_some(),
            "frame": metadata.frame,
            "created_unix_seconds": metadata.created_unix_seconds,
            "created": created,
            "emulator_version": metadata.emulator_version,
            "thumbnail_bytes": metadata.thumbnail_png.len(),
        });
        println!("{object}");
    } else {
        println!("format   {}.{}", info.major, info.minor);
        println!(
            "ROM      {:?} (SHA-1 {}, header checksum ${:02X}, global checksum ${:04X})",
            info.rom.title,
            info.rom.sha1_hex(),
            info.rom.header_checksum,
            info.rom.global_checksum
        );
        println!("model    {}", model_name(info.model));
        if info.metadata.is_some() {
            println!("frame    {}", metadata.frame);
            println!("created  {}", created.as_deref().unwrap_or("unknown"));
            println!("by       {}", metadata.emulator_version);
            println!("thumbnail {} bytes of PNG", metadata.thumbnail_png.len());
        } else {
            println!("metadata missing or damaged (the state itself is intact)");
        }
        println!(
            "size     {} bytes ({} of state)",
            bytes.len(),
            info.state_bytes
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn verify(rom_path: &Path, path: &Path, model: ModelArg) -> CliResult {
    let rom = load_rom(rom_path)?;
    let bytes = read_state_file(path)?;
    // `auto` runs the model the state was saved on (a wrong one is `load`'s clear error).
    let model = match (model, state_file::info(&bytes)) {
        (ModelArg::Auto, Ok(info)) => Model::from_raw(info.model),
        _ => model_of(model, &rom),
    };
    let mut core = Core::new(
        rom,
        Options {
            model,
            boot_rom: None,
        },
    );
    let info = state_file::load(&mut core, &bytes)
        .map_err(|error| CliError::new(error.to_string(), path))?;
    state_file::self_check(&core)
        .map_err(|error| CliError::new(format!("self-check failed: {error}"), path))?;
    println!(
        "ok: format {}.{} state of {:?} saves back byte-identical and replays {} frames identically",
        info.major,
        info.minor,
        info.rom.title,
        state_file::SELF_CHECK_FRAMES
    );
    Ok(ExitCode::SUCCESS)
}

fn model_name(raw: u8) -> String {
    match raw {
        0 => "DMG".to_string(),
        1 => "CGB".to_string(),
        other => format!("unknown ({other})"),
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ` for seconds since 1970 (proleptic Gregorian, UTC).
fn utc_timestamp(unix_seconds: u64) -> String {
    let days = unix_seconds / 86_400;
    let seconds_of_day = unix_seconds % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm), in unsigned arithmetic from 0000-03-01.
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z % 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        seconds_of_day / 3600,
        seconds_of_day / 60 % 60,
        seconds_of_day % 60
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn utc_timestamps() {
        assert_eq!(super::utc_timestamp(0), "1970-01-01T00:00:00Z");
        assert_eq!(super::utc_timestamp(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(super::utc_timestamp(1_764_072_000), "2025-11-25T12:00:00Z");
    }
}
