//! [`Recorder`]: what a movie must produce, gathered frame by frame while something plays
//! (the headless `record` below, or the player's timeline). The inputs are not its business:
//! the player's timeline logs them, the headless engine logs them, and [`Recorder::finish`]
//! takes them at the end.
//!
//! Frames are numbered from the recording's start (frame 0 is the start state). Playing a
//! frame that was played before (after a rewind) replaces it and everything after it, so a
//! recorder that follows a timeline through rewinds and forks keeps the hashes of exactly
//! the frames on the path played last.

use crate::format::{CHECKPOINT_FRAMES, Checkpoint, Event, Keyframe, Movie};
use crate::regions::{RegionHashes, StateHasher, combine};
use crate::{EMULATOR_VERSION, RecordOptions};
use backspin_core::state_file::{self, Metadata, RomIdentity, checksum::sha1};
use backspin_core::{Rom, State};

/// Keyframes carry no metadata: host time would make two recordings of one run differ.
const NO_METADATA: Metadata = Metadata {
    created_unix_seconds: 0,
    frame: 0,
    emulator_version: String::new(),
    thumbnail_png: Vec::new(),
};

/// Hashes (and the header) of a recording in progress.
pub struct Recorder {
    hasher: StateHasher,
    rom_sha1: [u8; 20],
    rom_title: String,
    options: RecordOptions,
    /// `frame_hashes[n]`: the frame hash after frame `n + 1` is complete.
    frame_hashes: Vec<u32>,
    checkpoints: Vec<Checkpoint>,
    keyframes: Vec<Keyframe>,
    rom_identity: RomIdentity,
    /// Region hashes of the newest frame recorded (the movie's final checkpoint if it ends
    /// there).
    newest: Checkpoint,
}

impl Recorder {
    /// Starts a recording at `start` (the state the movie's start produces), at timeline
    /// M-cycle `start_cycle` of the movie (0 for a power-on; the state's own M-cycle count
    /// for a state start).
    pub fn new(rom: &Rom, options: RecordOptions, start: &State, start_cycle: u64) -> Recorder {
        let hasher = StateHasher::new(state_file::FORMAT_MINOR);
        let first = Checkpoint {
            frame: 0,
            cycle: start_cycle,
            regions: hasher.regions(start),
        };
        Recorder {
            hasher,
            rom_sha1: rom.sha1(),
            rom_title: rom.header().title.clone(),
            options,
            frame_hashes: Vec::new(),
            checkpoints: vec![first],
            keyframes: Vec::new(),
            rom_identity: RomIdentity::of(rom),
            newest: first,
        }
    }

    /// Frame `frame` (counted from the start, so at least 1) ended at movie M-cycle `cycle`
    /// with `state`. Frames at or after `frame` recorded before are dropped first.
    pub fn frame_done(&mut self, frame: u64, cycle: u64, state: &State) {
        if frame == 0 {
            return;
        }
        self.truncate(frame - 1);
        let regions: RegionHashes = self.hasher.regions(state);
        self.frame_hashes.push(combine(&regions));
        self.newest = Checkpoint {
            frame,
            cycle,
            regions,
        };
        if frame.is_multiple_of(CHECKPOINT_FRAMES) {
            self.checkpoints.push(self.newest);
            let every = u64::from(self.options.keyframe_checkpoints) * CHECKPOINT_FRAMES;
            if every > 0 && frame.is_multiple_of(every) {
                self.keyframes.push(Keyframe {
                    frame,
                    cycle,
                    state_file: state_file::encode(state, &self.rom_identity, &NO_METADATA),
                });
            }
        }
    }

    /// Keeps frames up to `frames` (frames recorded later are forgotten).
    pub fn truncate(&mut self, frames: u64) {
        self.frame_hashes
            .truncate(usize::try_from(frames).unwrap_or(usize::MAX));
        self.checkpoints.retain(|c| c.frame <= frames);
        self.keyframes.retain(|k| k.frame <= frames);
    }

    /// Frames recorded.
    pub fn frames(&self) -> u64 {
        self.frame_hashes.len() as u64
    }

    /// The movie of the frames recorded, with `events` (movie M-cycles, in the order they
    /// were applied) and `rerecords`.
    pub fn finish(&self, events: Vec<Event>, rerecords: u64) -> Movie {
        let frames = self.frames();
        let mut checkpoints = self.checkpoints.clone();
        if self.newest.frame == frames && checkpoints.last().is_some_and(|c| c.frame < frames) {
            checkpoints.push(self.newest);
        }
        let final_cycle = checkpoints.last().map_or(0, |c| c.cycle);
        Movie {
            emulator_version: EMULATOR_VERSION.to_string(),
            rom_sha1: self.rom_sha1,
            rom_title: self.rom_title.clone(),
            model: self.options.model as u8,
            boot_rom_sha1: self.options.boot_rom.as_deref().map(sha1),
            state_minor: self.hasher.minor(),
            guid: self.options.guid,
            rerecords,
            author: self.options.author.clone(),
            description: self.options.description.clone(),
            start: self.options.start.clone(),
            rtc_start_seconds: self.options.rtc_start_seconds,
            frames,
            final_cycle,
            events,
            frame_hashes: self.frame_hashes.clone(),
            checkpoints,
            keyframes: self.keyframes.clone(),
        }
    }
}
