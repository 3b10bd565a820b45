//! `backspin movie record|play|info|verify`: movies headless. The format, the replay and the
//! desync detector are `backspin_movie`; this module adds files, screenshots, the GUID and
//! one-line errors. The input-script syntax is documented in `backspin_movie::script`.

use crate::error::{CliError, read_user_file};
use crate::headless::{load_boot_rom, model_of};
use crate::rom_file::{MAX_ROM_BYTES, load_rom};
use crate::{CliResult, ModelArg};
use backspin_movie::format::hex;
use backspin_movie::{
    Desync, Fault, Input, Movie, Outcome, Player, RecordOptions, Script, Start, VerifyOptions,
    emulated_time,
};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// No movie comes near this (ten hours are about 8 MiB); a bigger file is not one.
const MAX_MOVIE_BYTES: u64 = 256 * 1024 * 1024;

#[derive(clap::Args, Debug)]
pub struct MovieArgs {
    #[command(subcommand)]
    pub command: MovieCommand,
}

#[derive(clap::Subcommand, Debug)]
pub enum MovieCommand {
    /// Record a movie from an input script (one line per change: `FRAME buttons`,
    /// `@M-CYCLE buttons`, `FRAME reset`, `FRAME rtc SECONDS`, `end FRAMES`; buttons are
    /// a b select start right left up down, or none) or from seeded random play.
    Record {
        /// The ROM file (.gb, .gbc, or a .zip holding one).
        rom: PathBuf,
        /// Where to write the movie.
        out: PathBuf,
        /// The input script.
        #[arg(long, value_name = "SCRIPT", required_unless_present = "random_seed")]
        inputs: Option<PathBuf>,
        /// Instead of a script: human-like random play from this seed (needs --frames).
        #[arg(long, requires = "frames", conflicts_with = "inputs")]
        random_seed: Option<u64>,
        /// Movie length in frames (overrides the script's `end`).
        #[arg(long)]
        frames: Option<u64>,
        #[arg(long, value_enum, default_value_t)]
        model: ModelArg,
        /// Start from this boot ROM instead of the post-boot state.
        #[arg(long, value_name = "PATH")]
        boot_rom: Option<PathBuf>,
        /// Power on with this battery save (.sav) in the cartridge.
        #[arg(long, value_name = "SAV", conflicts_with = "load_state")]
        sav: Option<PathBuf>,
        /// Start from this save state instead of power-on.
        #[arg(long, value_name = "FILE")]
        load_state: Option<PathBuf>,
        /// Seconds to add to the cartridge clock (MBC3) before the first frame.
        #[arg(long, default_value_t = 0)]
        rtc_start: u64,
        #[arg(long, default_value = "")]
        author: String,
        #[arg(long, default_value = "")]
        description: String,
        /// Store the whole state every N checkpoints (N x 60 frames; 0: none). Verification
        /// of a fault or `--from-frame` starts at the keyframe before it, and a desync is
        /// named field by field at the first keyframe from there.
        #[arg(long, value_name = "N", default_value_t = backspin_movie::DEFAULT_KEYFRAME_CHECKPOINTS)]
        keyframes: u32,
    },
    /// Play a movie headless, optionally writing screenshots.
    Play {
        rom: PathBuf,
        movie: PathBuf,
        /// Write a PNG every N frames into DIR (frame-NNNNNN.png).
        #[arg(long, num_args = 2, value_names = ["N", "DIR"])]
        screenshot_every: Option<Vec<String>>,
        /// Stop after this many frames.
        #[arg(long)]
        until_frame: Option<u64>,
        #[arg(long, value_name = "PATH")]
        boot_rom: Option<PathBuf>,
    },
    /// Describe a movie: version, ROM, model, start, length, inputs, checkpoints.
    Info {
        movie: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Replay and check every checkpoint; on a desync report the first differing frame,
    /// M-cycle and fields, and exit with status 1.
    Verify {
        rom: PathBuf,
        movie: PathBuf,
        #[arg(long)]
        json: bool,
        #[arg(long, value_name = "PATH")]
        boot_rom: Option<PathBuf>,
        /// Testing the detector: flip bit BIT of State byte OFFSET at timeline M-cycle CYCLE
        /// (CYCLE:OFFSET:BIT).
        #[arg(long, hide = true, value_name = "CYCLE:OFFSET:BIT")]
        inject_fault: Option<String>,
        /// Verify only from the movie's last keyframe at or before FRAME to the end.
        #[arg(long, value_name = "FRAME")]
        from_frame: Option<u64>,
    },
}

pub fn run(args: &MovieArgs) -> CliResult {
    match &args.command {
        MovieCommand::Record {
            rom,
            out,
            inputs,
            random_seed,
            frames,
            model,
            boot_rom,
            sav,
            load_state,
            rtc_start,
            author,
            description,
            keyframes,
        } => {
            let mut script = match (inputs, random_seed) {
                (Some(path), _) => {
                    let text = read_user_file("input script", path, 64 * 1024 * 1024)?;
                    let text = String::from_utf8(text)
                        .map_err(|_| CliError::new("the input script is not UTF-8 text", path))?;
                    Script::parse(&text).map_err(|e| CliError::new(e.to_string(), path))?
                }
                (None, Some(seed)) => Script::random(*seed, frames.unwrap_or(600)),
                (None, None) => {
                    return Err(CliError::without_path(
                        "give --inputs SCRIPT or --random-seed",
                    ));
                }
            };
            if let Some(frames) = frames {
                script.frames = *frames;
            }
            let loaded = load_rom(rom)?;
            let start = match (sav, load_state) {
                (Some(path), _) => {
                    Start::PowerOnWithSave(read_user_file("battery save", path, MAX_ROM_BYTES)?)
                }
                (None, Some(path)) => {
                    Start::SaveState(read_user_file("save state", path, 64 * 1024 * 1024)?)
                }
                (None, None) => Start::PowerOn,
            };
            let boot = boot_rom.as_deref().map(read_boot_rom).transpose()?;
            let model = match (&boot, model) {
                (Some(bytes), ModelArg::Auto)
                    if bytes.len() == backspin_core::CGB_BOOT_ROM_BYTES =>
                {
                    backspin_core::Model::Cgb
                }
                (Some(_), ModelArg::Auto) => backspin_core::Model::Dmg,
                _ => model_of(*model, &loaded),
            };
            let options = RecordOptions {
                model,
                boot_rom: boot,
                start,
                rtc_start_seconds: *rtc_start,
                guid: new_guid(),
                author: author.clone(),
                description: description.clone(),
                keyframe_checkpoints: *keyframes,
            };
            let movie = backspin_movie::record(loaded, &script, options)
                .map_err(|e| CliError::new(e.to_string(), rom))?;
            let bytes = backspin_movie::encode(&movie);
            std::fs::write(out, &bytes)
                .map_err(|e| CliError::io("cannot write the movie", &e, out))?;
            println!(
                "recorded {} frames ({} emulated), {} inputs, {} checkpoints, {} bytes: {}",
                movie.frames,
                emulated_time(backspin_movie::run_m_cycles(&movie)),
                movie.events.len(),
                movie.checkpoints.len(),
                bytes.len(),
                out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        MovieCommand::Play {
            rom,
            movie,
            screenshot_every,
            until_frame,
            boot_rom,
        } => play(
            rom,
            movie,
            screenshot_every.as_deref(),
            *until_frame,
            boot_rom.as_deref(),
        ),
        MovieCommand::Info { movie, json } => info(movie, *json),
        MovieCommand::Verify {
            rom,
            movie,
            json,
            boot_rom,
            inject_fault,
            from_frame,
        } => verify(
            rom,
            movie,
            *json,
            *from_frame,
            boot_rom.as_deref(),
            inject_fault.as_deref(),
        ),
    }
}

fn read_boot_rom(path: &Path) -> Result<Vec<u8>, CliError> {
    load_boot_rom(path)?; // the size check and its message
    read_user_file("boot ROM", path, 64 * 1024)
}

/// A random GUID for a new recording: metadata only (never hashed, never replayed), so host
/// randomness is fine here.
pub(crate) fn new_guid() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut guid = [0u8; 16];
    for half in guid.chunks_exact_mut(8) {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        hasher.write_u128(now);
        half.copy_from_slice(&hasher.finish().to_le_bytes());
    }
    guid
}

fn read_movie(path: &Path) -> Result<Movie, CliError> {
    let bytes = read_user_file("movie", path, MAX_MOVIE_BYTES)?;
    backspin_movie::decode(&bytes).map_err(|e| CliError::new(e.to_string(), path))
}

fn play(
    rom: &Path,
    movie_path: &Path,
    screenshot_every: Option<&[String]>,
    until_frame: Option<u64>,
    boot_rom: Option<&Path>,
) -> CliResult {
    let movie = read_movie(movie_path)?;
    let boot = boot_rom.map(read_boot_rom).transpose()?;
    let mut player = Player::new(&movie, load_rom(rom)?, boot.as_deref())
        .map_err(|e| CliError::new(e.to_string(), movie_path))?;
    let shots = match screenshot_every {
        Some([every, dir]) => {
            let every: u64 = every.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                CliError::without_path(format!(
                    "--screenshot-every takes a frame count above 0, not {every:?}"
                ))
            })?;
            let dir = PathBuf::from(dir);
            std::fs::create_dir_all(&dir)
                .map_err(|e| CliError::io("cannot create the screenshot folder", &e, &dir))?;
            Some((every, dir))
        }
        _ => None,
    };
    let last = until_frame.unwrap_or(movie.frames).min(movie.frames);
    while player.frame() < last {
        player.run_frame();
        if let Some((every, dir)) = &shots
            && player.frame() % every == 0
        {
            let path = dir.join(format!("frame-{:06}.png", player.frame()));
            let png = crate::screen_png::encode_screen(player.core());
            std::fs::write(&path, png)
                .map_err(|e| CliError::io("cannot write a screenshot", &e, &path))?;
        }
    }
    println!(
        "played {} of {} frames, emulated time {}",
        player.frame(),
        movie.frames,
        emulated_time(player.cycle())
    );
    Ok(ExitCode::SUCCESS)
}

fn model_name(model: u8) -> &'static str {
    if model == 1 { "CGB" } else { "DMG" }
}

fn start_name(start: &Start) -> String {
    match start {
        Start::PowerOn => "power-on, clean cartridge RAM".into(),
        Start::PowerOnWithSave(bytes) => {
            format!("power-on with a {}-byte battery save", bytes.len())
        }
        Start::SaveState(bytes) => format!("a {}-byte save state", bytes.len()),
    }
}

fn info(path: &Path, json: bool) -> CliResult {
    let bytes = read_user_file("movie", path, MAX_MOVIE_BYTES)?;
    let (major, minor) =
        backspin_movie::format::version(&bytes).map_err(|e| CliError::new(e.to_string(), path))?;
    let movie = backspin_movie::decode(&bytes).map_err(|e| CliError::new(e.to_string(), path))?;
    let count = |f: fn(&Input) -> bool| movie.events.iter().filter(|e| f(&e.input)).count();
    let report = serde_json::json!({
        "format": format!("{major}.{minor}"),
        "emulator": movie.emulator_version,
        "rom_title": movie.rom_title,
        "rom_sha1": hex(&movie.rom_sha1),
        "model": model_name(movie.model),
        "boot_rom_sha1": movie.boot_rom_sha1.map(|s| hex(&s)),
        "state_format": format!("1.{}", movie.state_minor),
        "start": start_name(&movie.start),
        "rtc_start_seconds": movie.rtc_start_seconds,
        "guid": hex(&movie.guid),
        "rerecords": movie.rerecords,
        "author": movie.author,
        "description": movie.description,
        "frames": movie.frames,
        "final_m_cycle": movie.final_cycle,
        "emulated_time": emulated_time(backspin_movie::run_m_cycles(&movie)),
        "inputs": movie.events.len(),
        "button_changes": count(|i| matches!(i, Input::Buttons(_))),
        "resets": count(|i| matches!(i, Input::Reset)),
        "rtc_advances": count(|i| matches!(i, Input::RtcAdvance(_))),
        "memory_writes": count(|i| matches!(i, Input::Write { .. })),
        "checkpoints": movie.checkpoints.len(),
        "keyframes": movie.keyframes.len(),
        "bytes": bytes.len(),
    });
    if json {
        println!("{report}");
    } else {
        println!(
            "movie format {major}.{minor}, written by {}",
            movie.emulator_version
        );
        println!(
            "ROM:         {:?} (SHA-1 {})",
            movie.rom_title,
            hex(&movie.rom_sha1)
        );
        println!(
            "model:       {}, boot ROM {}",
            model_name(movie.model),
            movie.boot_rom_sha1.map_or("none".into(), |s| hex(&s))
        );
        println!(
            "start:       {}, RTC +{} s",
            start_name(&movie.start),
            movie.rtc_start_seconds
        );
        println!(
            "length:      {} frames, {} emulated",
            movie.frames,
            emulated_time(backspin_movie::run_m_cycles(&movie))
        );
        println!(
            "inputs:      {} ({} button changes, {} resets, {} clock advances)",
            movie.events.len(),
            report["button_changes"],
            report["resets"],
            report["rtc_advances"]
        );
        println!(
            "checkpoints: {} (state format 1.{}), {} keyframes",
            movie.checkpoints.len(),
            movie.state_minor,
            movie.keyframes.len()
        );
        println!("author:      {}", movie.author);
        println!("description: {}", movie.description);
        println!("GUID {}, {} rerecords", hex(&movie.guid), movie.rerecords);
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_fault(text: &str) -> Result<Fault, CliError> {
    let parts: Vec<&str> = text.split(':').collect();
    let bad = || {
        CliError::without_path(format!(
            "--inject-fault wants CYCLE:OFFSET:BIT, not {text:?}"
        ))
    };
    let [cycle, offset, bit] = parts[..] else {
        return Err(bad());
    };
    let fault = Fault {
        cycle: cycle.parse().map_err(|_| bad())?,
        offset: offset.parse().map_err(|_| bad())?,
        bit: bit.parse().ok().filter(|&b: &u8| b < 8).ok_or_else(bad)?,
    };
    if fault.offset >= size_of::<backspin_core::State>() {
        return Err(CliError::without_path(format!(
            "--inject-fault offset {} is past the State's {} bytes",
            fault.offset,
            size_of::<backspin_core::State>()
        )));
    }
    Ok(fault)
}

fn verify(
    rom: &Path,
    movie_path: &Path,
    json: bool,
    from_frame: Option<u64>,
    boot_rom: Option<&Path>,
    fault: Option<&str>,
) -> CliResult {
    let movie = read_movie(movie_path)?;
    let options = VerifyOptions {
        boot_rom: boot_rom.map(read_boot_rom).transpose()?,
        fault: fault.map(parse_fault).transpose()?,
        from_frame,
    };
    let outcome = backspin_movie::verify(&movie, load_rom(rom)?, &options)
        .map_err(|e| CliError::new(e.to_string(), movie_path))?;
    match outcome {
        Outcome::Clean {
            frames,
            checkpoints,
            final_cycle,
            fault_applied_at,
            from_frame,
        } => {
            // The run's time counts from the movie's start (a state start has its own clock).
            let start = movie.checkpoints.first().map_or(0, |c| c.cycle);
            let run_time = emulated_time(final_cycle.saturating_sub(start));
            if json {
                let report = serde_json::json!({
                    "result": "clean",
                    "frames": frames,
                    "checkpoints": checkpoints,
                    "final_m_cycle": final_cycle,
                    "emulated_time": run_time,
                    "fault_applied_at": fault_applied_at,
                    "from_frame": from_frame,
                });
                println!("{report}");
            } else {
                println!(
                    "movie verified: {frames} frames, {checkpoints} checkpoints match; final time {run_time} (M-cycle {final_cycle})"
                );
                if from_frame > 0 {
                    println!("(verified from the keyframe at frame {from_frame})");
                }
                if let Some(cycle) = fault_applied_at {
                    println!(
                        "the fault injected at M-cycle {cycle} left no trace in the state (identical to the recording at frame {frames})"
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Outcome::Desync(desync) => {
            if json {
                println!("{}", desync_json(&desync));
            } else {
                print_desync(&desync);
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

/// One line per differing field element: `name: expected -> replayed`.
fn print_differences(d: &Desync) {
    for diff in &d.differences {
        println!(
            "  {}: {} -> {}",
            diff.field,
            value(diff.size, diff.expected),
            value(diff.size, diff.actual)
        );
    }
}

fn value(size: usize, value: u64) -> String {
    format!("0x{value:0width$X}", width = size * 2)
}

fn input_text(input: &Input) -> String {
    match input {
        Input::Buttons(mask) => format!("buttons {}", value(1, u64::from(*mask))),
        Input::Reset => "reset".into(),
        Input::RtcAdvance(seconds) => format!("clock +{seconds} s"),
        Input::Write {
            bank: None,
            addr,
            value,
        } => format!("write {addr:04X} = {value:02X}"),
        Input::Write {
            bank: Some(bank),
            addr,
            value,
        } => format!("write {bank}:{addr:04X} = {value:02X}"),
    }
}

fn print_desync(d: &Desync) {
    println!(
        "DESYNC at frame {} (M-cycles {}..{}); first failed checkpoint: frame {}, regions {}",
        d.frame,
        d.frame_start_cycle,
        d.frame_end_cycle,
        d.checkpoint_frame,
        d.regions.join(", ")
    );
    match d.cycle {
        Some(cycle) => {
            println!(
                "first differing M-cycle: {cycle}; {} field element(s) differ (expected -> replayed):",
                d.total_differences
            );
            print_differences(d);
        }
        None => match d.fields_at_frame {
            Some(frame) => {
                println!(
                    "no reference run to name the M-cycle; against the movie's keyframe at frame {frame}, {} field element(s) differ (recorded -> replayed):",
                    d.total_differences
                );
                print_differences(d);
            }
            None => println!(
                "the movie holds no keyframe from there: no known-good state to name the M-cycle and fields"
            ),
        },
    }
    for event in &d.inputs {
        println!(
            "input in this frame: M-cycle {}: {}",
            event.cycle,
            input_text(&event.input)
        );
    }
    if let Some(cycle) = d.fault_applied_at {
        println!("(fault injected at M-cycle {cycle})");
    }
}

fn desync_json(d: &Desync) -> serde_json::Value {
    serde_json::json!({
        "result": "desync",
        "frame": d.frame,
        "frame_start_m_cycle": d.frame_start_cycle,
        "frame_end_m_cycle": d.frame_end_cycle,
        "m_cycle": d.cycle,
        "checkpoint_frame": d.checkpoint_frame,
        "regions": d.regions,
        "total_differences": d.total_differences,
        "differences": d.differences.iter().map(|diff| serde_json::json!({
            "field": diff.field,
            "region": diff.region,
            "expected": diff.expected,
            "actual": diff.actual,
        })).collect::<Vec<_>>(),
        "inputs": d.inputs.iter().map(|e| serde_json::json!({
            "m_cycle": e.cycle,
            "input": input_text(&e.input),
        })).collect::<Vec<_>>(),
        "fault_applied_at": d.fault_applied_at,
        "fields_at_frame": d.fields_at_frame,
    })
}
