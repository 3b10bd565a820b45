//! Backspin movies: a recording of every input at its exact M-cycle, with hashes of `State`
//! that let anyone check a replay, and a desync detector that names the first differing
//! frame, M-cycle and `State` field.
//!
//! A crate of its own (not a module of `backspin-rewind`): a movie is a file format plus a
//! replay engine and a bisection, none of which the rewind history needs; the frontend's
//! `movie` commands and, later, the player's `--record` use it. It depends on the core only.
//!
//! # How a desync is found
//! - **Checkpoints** (every 60 frames) hold one XXH64 per `State` region ([`regions`]);
//!   verification replays and compares them, keeping a copy of the engine at the last
//!   checkpoint that matched. Hashing 60 times less often than frames keeps verification
//!   as fast as plain emulation.
//! - **Frame hashes** (32 bits after every frame) narrow a failed checkpoint to its first
//!   differing frame: re-simulate from the last good checkpoint, frame by frame.
//! - **Inside that frame**, the first differing instruction needs a known-good state to
//!   compare with, and the movie holds only hashes. With an injected fault the clean replay
//!   is that reference: both runs step instruction by instruction from the good state at
//!   the frame's start, and the first step where their `State` bytes differ gives the
//!   M-cycle and every differing field with both values. Without one (an edited movie, a
//!   changed emulator) the report gives the frame, its M-cycle range, the inputs applied in
//!   it and the regions that differ at the checkpoint.
//!
//! Frames and inputs are cut exactly as `backspin_rewind::Timeline` cuts them (a test
//! replays a timeline's session with resets frame for frame), so the player's recording can
//! write its timeline's logs (`Rewinder::input_log`, `rtc_log`, `reset_log`) with a frame
//! hash per frame and get a movie this crate verifies.

pub mod engine;
pub mod format;
pub mod hash;
mod input_script;
pub mod recording;
pub mod regions;
pub mod script;
mod split_mix;

pub use engine::Fault;
pub use format::{
    CHECKPOINT_FRAMES, Checkpoint, Event, Input, Keyframe, Movie, MovieError, Start, decode, encode,
};
pub use input_script::InputScript;
pub use recording::Recorder;
pub use regions::FieldDifference;
pub use script::{Script, ScriptPlayer};
pub use split_mix::SplitMix64;

use backspin_core::state_file::{self, checksum::sha1};
use backspin_core::{BootRom, Core, Model, Options, Rom, State};
use engine::{Engine, Recorded};
use regions::{REGION_COUNT, REGIONS, StateHasher};

/// The emulator version written into movies.
pub const EMULATOR_VERSION: &str = state_file::EMULATOR_VERSION;

/// How a recording starts and what it says about itself.
#[derive(Clone, Debug)]
pub struct RecordOptions {
    pub model: Model,
    pub boot_rom: Option<Vec<u8>>,
    pub start: Start,
    pub rtc_start_seconds: u64,
    pub guid: [u8; 16],
    pub author: String,
    pub description: String,
    /// A keyframe (the whole state) every this many checkpoints (0: none). Verification of
    /// an injected fault or from a chosen frame starts at the keyframe before it, and a
    /// desync is named field by field at the first keyframe at or after it.
    pub keyframe_checkpoints: u32,
}

/// Checkpoints between keyframes by default: one every 600 frames (about 10 s), about 2 KB
/// each for a small game (the state file, LZ4-compressed).
pub const DEFAULT_KEYFRAME_CHECKPOINTS: u32 = 10;

impl Default for RecordOptions {
    fn default() -> RecordOptions {
        RecordOptions {
            model: Model::Dmg,
            boot_rom: None,
            start: Start::PowerOn,
            rtc_start_seconds: 0,
            guid: [0; 16],
            author: String::new(),
            description: String::new(),
            keyframe_checkpoints: DEFAULT_KEYFRAME_CHECKPOINTS,
        }
    }
}

/// Powers on (or loads the start) as a movie says.
fn start_core(
    rom: Rom,
    model: Model,
    boot_rom: Option<&[u8]>,
    start: &Start,
    rtc_start_seconds: u64,
) -> Result<Core, MovieError> {
    let boot_rom = boot_rom
        .map(BootRom::from_bytes)
        .transpose()
        .map_err(|error| MovieError::BadStart {
            what: error.to_string(),
        })?;
    let mut core = Core::new(rom, Options { model, boot_rom });
    match start {
        Start::PowerOn => {}
        Start::PowerOnWithSave(bytes) => {
            core.load_battery(bytes)
                .map_err(|error| MovieError::BadStart {
                    what: format!("battery save: {error}"),
                })?;
        }
        Start::SaveState(bytes) => {
            state_file::load(&mut core, bytes).map_err(|error| MovieError::BadStart {
                what: format!("save state: {error}"),
            })?;
        }
    }
    if rtc_start_seconds > 0 {
        core.rtc_advance_seconds(rtc_start_seconds);
    }
    Ok(core)
}

/// Records `script` on `rom`.
pub fn record(rom: Rom, script: &Script, options: RecordOptions) -> Result<Movie, MovieError> {
    let core = start_core(
        rom,
        options.model,
        options.boot_rom.as_deref(),
        &options.start,
        options.rtc_start_seconds,
    )?;
    let source = script::ScriptSource {
        lines: script.lines.clone(),
        next: 0,
    };
    let mut engine = Engine::new(core, source);
    engine.log = Some(Vec::new());
    let mut recorder = Recorder::new(engine.core.rom(), options, engine.state(), engine.cycle());
    for done in 1..=script.frames {
        engine.run_frame();
        recorder.frame_done(done, engine.cycle(), engine.state());
    }
    Ok(recorder.finish(engine.log.take().unwrap_or_default(), 0))
}

/// Plays a movie's inputs frame by frame (`backspin movie play`, and verification).
pub struct Player<'a> {
    engine: Engine<Recorded<'a>>,
    movie: &'a Movie,
}

impl<'a> Player<'a> {
    /// Checks that `rom` (and `boot_rom`) are the movie's and powers on as it starts.
    pub fn new(
        movie: &'a Movie,
        rom: Rom,
        boot_rom: Option<&[u8]>,
    ) -> Result<Player<'a>, MovieError> {
        if rom.sha1() != movie.rom_sha1 {
            return Err(MovieError::WrongRom {
                movie_title: movie.rom_title.clone(),
                movie_sha1: format::hex(&movie.rom_sha1),
                rom_title: rom.header().title.clone(),
                rom_sha1: format::hex(&rom.sha1()),
            });
        }
        match (movie.boot_rom_sha1, boot_rom) {
            (None, Some(_)) => return Err(MovieError::NoBootRomWanted),
            (Some(wanted), None) => {
                return Err(MovieError::BootRom {
                    wanted: format::hex(&wanted),
                    given: "none was given".into(),
                });
            }
            (Some(wanted), Some(bytes)) if sha1(bytes) != wanted => {
                return Err(MovieError::BootRom {
                    wanted: format::hex(&wanted),
                    given: format!("the one given is {}", format::hex(&sha1(bytes))),
                });
            }
            _ => {}
        }
        let core = start_core(
            rom,
            Model::from_raw(movie.model),
            boot_rom,
            &movie.start,
            movie.rtc_start_seconds,
        )?;
        let source = Recorded {
            events: &movie.events,
            next: 0,
        };
        Ok(Player {
            engine: Engine::new(core, source),
            movie,
        })
    }

    /// Frames completed.
    pub fn frame(&self) -> u64 {
        self.engine.frame
    }

    /// The timeline M-cycle now.
    pub fn cycle(&self) -> u64 {
        self.engine.cycle()
    }

    pub fn core(&self) -> &Core {
        &self.engine.core
    }

    /// Whether every recorded frame has been played.
    pub fn finished(&self) -> bool {
        self.engine.frame >= self.movie.frames
    }

    pub fn run_frame(&mut self) {
        self.engine.run_frame();
    }
}

/// What `verify` found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every checkpoint matched.
    Clean {
        /// The frame verification ended at (the movie's last, or with an injected fault the
        /// keyframe where the replay was found identical to the recording).
        frames: u64,
        /// Checkpoints checked.
        checkpoints: usize,
        final_cycle: u64,
        /// With fault injection: where the fault went in (it had no lasting effect).
        fault_applied_at: Option<u64>,
        /// The frame verification started at (a keyframe's, or 0).
        from_frame: u64,
    },
    Desync(Box<Desync>),
}

/// The first divergence of a replay from the recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Desync {
    /// The first checkpoint that failed (frames completed).
    pub checkpoint_frame: u64,
    /// The regions whose hashes differ there.
    pub regions: Vec<&'static str>,
    /// The first frame (from 0) at whose end the state differs.
    pub frame: u64,
    /// Timeline M-cycles at that frame's start and end.
    pub frame_start_cycle: u64,
    pub frame_end_cycle: u64,
    /// The first M-cycle at which the state differs from the reference run, when there is
    /// one (fault injection); the fields below are those at that M-cycle.
    pub cycle: Option<u64>,
    /// Every differing field element (up to [`MAX_REPORTED_FIELDS`]).
    pub differences: Vec<FieldDifference>,
    pub total_differences: usize,
    /// The inputs applied during the frame.
    pub inputs: Vec<Event>,
    /// Without a reference run, the fields come from comparing the replay with the movie's
    /// first keyframe at or after the failed checkpoint: the frame of that keyframe (the
    /// failed checkpoint's own when it has one; later, the difference may have spread).
    pub fields_at_frame: Option<u64>,
    pub fault_applied_at: Option<u64>,
}

/// Field elements listed in a report (the total is always given).
pub const MAX_REPORTED_FIELDS: usize = 64;

/// Verification options.
#[derive(Clone, Debug, Default)]
pub struct VerifyOptions {
    pub boot_rom: Option<Vec<u8>>,
    /// Flip one bit during the replay (testing the detector). The replay starts at the
    /// last keyframe before the fault: until the fault goes in it is the clean replay, which
    /// a verification without a fault checks.
    pub fault: Option<Fault>,
    /// Verify from the last keyframe at or before this frame to the end (`None`: all).
    pub from_frame: Option<u64>,
}

/// Replays `movie` on `rom` and checks every checkpoint; on a mismatch, bisects to the first
/// differing frame (and, with a reference run, M-cycle and fields; without one, the fields
/// at the first keyframe from there).
pub fn verify(movie: &Movie, rom: Rom, options: &VerifyOptions) -> Result<Outcome, MovieError> {
    if movie.state_minor > state_file::FORMAT_MINOR {
        return Err(MovieError::HashesTooNew {
            minor: movie.state_minor,
            ours: state_file::FORMAT_MINOR,
        });
    }
    let mut player = Player::new(movie, rom, options.boot_rom.as_deref())?;
    // Checkpoints and frame hashes cover the state only: no picture is needed, and the
    // PPU's pixel output off changes no byte of the state.
    player.engine.core.set_drawing(false);
    player.engine.fault = options.fault;
    let hasher = StateHasher::new(movie.state_minor);
    let start = movie.keyframes.iter().rev().find(|key| {
        options.fault.is_some_and(|fault| key.cycle <= fault.cycle)
            || options.from_frame.is_some_and(|frame| key.frame <= frame)
    });
    if let Some(key) = start {
        let state = keyframe_state(&player.engine.core, key)?;
        player.engine.jump_to(&state, key.frame, key.cycle);
    }
    let from_frame = player.engine.frame;
    // A keyframe is a recorded state: the bisection may start there.
    let mut good: Option<Engine<Recorded>> = start.map(|_| player.engine.clone());
    let mut checked = 0;
    for checkpoint in movie.checkpoints.iter().filter(|c| c.frame >= from_frame) {
        while player.engine.frame < checkpoint.frame {
            player.engine.run_frame();
        }
        let regions = hasher.regions(player.engine.state());
        if regions != checkpoint.regions {
            if checkpoint.frame == from_frame && from_frame > 0 {
                return Err(MovieError::Corrupt {
                    what: format!(
                        "the keyframe at frame {from_frame} does not match its checkpoint"
                    ),
                });
            }
            let mut desync = bisect(
                movie,
                &hasher,
                good.unwrap_or_else(|| player.engine.clone()),
                checkpoint,
                &regions,
            );
            if desync.cycle.is_none() {
                name_fields_at_keyframe(movie, &mut desync, player.engine)?;
            }
            return Ok(Outcome::Desync(Box::new(desync)));
        }
        checked += 1;
        // After an injected fault, a replay identical to a stored keyframe is the recording
        // from there on (same state, same inputs): the fault left no trace, nothing can
        // differ later, and the rest of the replay would only repeat the clean one.
        if player.engine.fault_applied_at.is_some()
            && let Some(key) = movie.keyframes.iter().find(|k| k.frame == checkpoint.frame)
            && keyframe_state(&player.engine.core, key)?.as_bytes()
                == player.engine.state().as_bytes()
        {
            break;
        }
        good = Some(player.engine.clone());
    }
    Ok(Outcome::Clean {
        frames: player.engine.frame,
        checkpoints: checked,
        final_cycle: player.engine.cycle(),
        fault_applied_at: player.engine.fault_applied_at,
        from_frame,
    })
}

/// The state a keyframe holds, checked against the movie's ROM (`core` plays it).
fn keyframe_state(core: &Core, key: &format::Keyframe) -> Result<Box<State>, MovieError> {
    state_file::decode_for(core, &key.state_file)
        .map(|(_, state)| state)
        .map_err(|error| MovieError::Corrupt {
            what: format!("the keyframe at frame {}: {error}", key.frame),
        })
}

/// Without a reference run: replays `engine` (at the failed checkpoint) on to the first
/// keyframe at or after it and lists every field that differs from the recorded state.
fn name_fields_at_keyframe(
    movie: &Movie,
    desync: &mut Desync,
    mut engine: Engine<Recorded>,
) -> Result<(), MovieError> {
    let Some(key) = movie
        .keyframes
        .iter()
        .find(|k| k.frame >= desync.checkpoint_frame)
    else {
        return Ok(());
    };
    let recorded = keyframe_state(&engine.core, key)?;
    while engine.frame < key.frame {
        engine.run_frame();
    }
    let (found, total) = regions::differences(&recorded, engine.state(), MAX_REPORTED_FIELDS);
    desync.differences = found;
    desync.total_differences = total;
    desync.fields_at_frame = Some(key.frame);
    Ok(())
}

fn bisect(
    movie: &Movie,
    hasher: &StateHasher,
    good: Engine<Recorded>,
    checkpoint: &Checkpoint,
    regions: &[u64; REGION_COUNT],
) -> Desync {
    let differing: Vec<&'static str> = (0..REGION_COUNT)
        .filter(|&i| regions[i] != checkpoint.regions[i])
        .map(|i| REGIONS[i])
        .collect();
    // Frame by frame from the last good checkpoint, against the recorded frame hashes.
    let mut before = good.clone();
    let mut suspect = good;
    while suspect.frame < checkpoint.frame {
        before = suspect.clone();
        suspect.run_frame();
        let recorded = usize::try_from(suspect.frame - 1)
            .ok()
            .and_then(|i| movie.frame_hashes.get(i));
        if recorded != Some(&hasher.frame_hash(suspect.state())) {
            break;
        }
    }
    // A failure at the start checkpoint has no frame before it.
    let frame = before.frame;
    let frame_start_cycle = before.cycle();
    let frame_end_cycle = suspect.cycle();
    let inputs = movie
        .events
        .iter()
        .filter(|e| {
            e.cycle >= frame_start_cycle && e.cycle < frame_end_cycle.max(frame_start_cycle + 1)
        })
        .copied()
        .collect();
    let mut desync = Desync {
        checkpoint_frame: checkpoint.frame,
        regions: differing,
        frame,
        frame_start_cycle,
        frame_end_cycle,
        cycle: None,
        differences: Vec::new(),
        total_differences: 0,
        inputs,
        fault_applied_at: suspect.fault_applied_at,
        fields_at_frame: None,
    };
    if before.fault.is_some() && checkpoint.frame > 0 {
        // Instruction by instruction inside the frame, against the clean replay.
        let mut reference = before.clone();
        reference.fault = None;
        let mut suspect = before;
        let mut progress = suspect.begin_frame();
        let mut reference_progress = reference.begin_frame();
        loop {
            suspect.settle(&mut progress);
            reference.settle(&mut reference_progress);
            if suspect.state().as_bytes() != reference.state().as_bytes() {
                desync.cycle = Some(suspect.cycle());
                let (found, total) =
                    regions::differences(reference.state(), suspect.state(), MAX_REPORTED_FIELDS);
                desync.differences = found;
                desync.total_differences = total;
                break;
            }
            let suspect_over = suspect.advance(&progress, true);
            let reference_over = reference.advance(&reference_progress, true);
            if suspect_over || reference_over {
                break;
            }
        }
        desync.fault_applied_at = suspect.fault_applied_at;
    }
    desync
}

/// Both states' differing fields (for tools comparing two replays).
pub fn state_differences(expected: &State, actual: &State) -> (Vec<FieldDifference>, usize) {
    regions::differences(expected, actual, MAX_REPORTED_FIELDS)
}

/// Emulated M-cycles from the movie's start to its end: the run's time (a movie that starts
/// from a save state counts from that state's clock, not from its power-on).
pub fn run_m_cycles(movie: &Movie) -> u64 {
    let start = movie.checkpoints.first().map_or(0, |c| c.cycle);
    movie.final_cycle.saturating_sub(start)
}

/// Emulated time of `m_cycles` as `h:mm:ss.mmm` (exact: integer M-cycles to milliseconds,
/// rounded down).
pub fn emulated_time(m_cycles: u64) -> String {
    let millis = u128::from(m_cycles) * 1000 / u128::from(backspin_core::M_CYCLES_PER_SECOND);
    let (h, rest) = (millis / 3_600_000, millis % 3_600_000);
    format!(
        "{h}:{:02}:{:02}.{:03}",
        rest / 60_000,
        rest % 60_000 / 1000,
        rest % 1000
    )
}
