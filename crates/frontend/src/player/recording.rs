//! Recording the play session as a movie (`--record FILE`, the record hotkey, speedrun
//! mode). The timeline *is* the movie: its logs hold every input at its exact M-cycle, so
//! this module only pins those logs (history eviction would trim them), hashes each frame
//! played ([`Recorder`]), and at the end turns the logs into movie events.
//!
//! - **Start.** At the recording's first frame: a clean power-on when the machine is exactly
//!   in its power-on state (a fresh session without a battery save); otherwise the state now,
//!   embedded as a save state (a resumed session, a `.sav` loaded, a clock catch-up applied,
//!   or a recording started mid-game).
//! - **Cycles and frames.** Movie M-cycle = timeline cycle - the timeline cycle of the
//!   core's M-cycle 0 when recording began, so the embedded state's own clock continues;
//!   movie frame = timeline frame - the frame recording began at.
//! - **Rerecords** are the timeline's forks since recording began: every rewind after which
//!   the player changed the future.
//! - Rewinding to before the recording's start is refused while recording (the player
//!   stops at its first frame), and loading a save state is locked: a movie replays inputs
//!   and its start, not states loaded in between.

use crate::battery::{unix_now, write_atomic};
use crate::error::describe_io;
use backspin_core::state_file::{self, Metadata};
use backspin_core::{Core, Options};
use backspin_movie::{Event, Input, Movie, RecordOptions, Recorder, Start};
use backspin_rewind::Timeline;
use std::path::{Path, PathBuf};

/// A recording in progress.
pub struct MovieRecording {
    path: PathBuf,
    recorder: Recorder,
    /// The timeline frame the movie's frame 0 is.
    start_frame: u64,
    /// The timeline cycle of the movie's start.
    start_cycle: u64,
    /// Timeline cycle minus movie cycle.
    cycle_offset: u64,
    /// Clock advances logged at the start cycle before recording began: already in the
    /// embedded state, so not movie events.
    rtc_events_before: usize,
    forks_before: u64,
}

impl MovieRecording {
    /// Starts recording `timeline` from where it is now, to be written to `path`.
    pub fn start(timeline: &mut Timeline, path: PathBuf) -> MovieRecording {
        let core = timeline.core();
        let fresh = Core::new(
            core.rom().clone(),
            Options {
                model: core.model(),
                boot_rom: None,
            },
        );
        let power_on = fresh.state().as_bytes() == core.state().as_bytes();
        let start = if power_on {
            Start::PowerOn
        } else {
            let metadata = Metadata {
                created_unix_seconds: unix_now(),
                frame: timeline.frame(),
                emulator_version: state_file::EMULATOR_VERSION.to_string(),
                thumbnail_png: Vec::new(),
            };
            Start::SaveState(state_file::save(core, &metadata))
        };
        let options = RecordOptions {
            model: core.model(),
            boot_rom: None,
            start,
            rtc_start_seconds: 0,
            guid: crate::movie_command::new_guid(),
            author: String::new(),
            description: String::new(),
            keyframe_checkpoints: backspin_movie::DEFAULT_KEYFRAME_CHECKPOINTS,
        };
        let start_cycle = timeline.cycle();
        let cycle_offset = start_cycle.wrapping_sub(core.m_cycles());
        let recorder = Recorder::new(core.rom(), options, core.state(), core.m_cycles());
        let rtc_events_before = timeline
            .rewinder()
            .rtc_log()
            .iter()
            .filter(|&&(cycle, _)| cycle == start_cycle)
            .count();
        let start_frame = timeline.frame();
        timeline.pin_logs_from(Some(start_frame));
        MovieRecording {
            path,
            recorder,
            start_frame,
            start_cycle,
            cycle_offset,
            rtc_events_before,
            forks_before: timeline.stats().forks,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The timeline frame the recording started at (rewinding stops there).
    pub fn start_frame(&self) -> u64 {
        self.start_frame
    }

    /// Emulated M-cycles from the movie's start to where `timeline` is.
    pub fn elapsed_m_cycles(&self, timeline: &Timeline) -> u64 {
        timeline.cycle().saturating_sub(self.start_cycle)
    }

    /// After every frame the timeline reached by playing or redo: hashes it.
    pub fn frame_shown(&mut self, timeline: &Timeline) {
        if let Some(frame) = timeline.frame().checked_sub(self.start_frame) {
            let cycle = timeline.cycle().wrapping_sub(self.cycle_offset);
            self.recorder
                .frame_done(frame, cycle, timeline.core().state());
        }
    }

    /// The movie of the session from the recording's start to the frame the timeline is at.
    pub fn movie(&mut self, timeline: &Timeline) -> Movie {
        let present = timeline.frame().saturating_sub(self.start_frame);
        self.recorder.truncate(present);
        self.frame_shown(timeline);
        let end = timeline.cycle();
        let in_movie = |cycle: u64| cycle >= self.start_cycle && cycle < end;
        let rewinder = timeline.rewinder();
        // Inputs at one cycle apply as the timeline applies them: reset, clock, buttons.
        let mut events: Vec<(u64, u8, Input)> = Vec::new();
        events.extend(
            rewinder
                .reset_log()
                .filter(|&(cycle, _)| in_movie(cycle))
                .map(|(cycle, _)| (cycle, 0, Input::Reset)),
        );
        events.extend(
            rewinder
                .rtc_log()
                .iter()
                .filter(|&&(cycle, _)| in_movie(cycle))
                .skip(self.rtc_events_before)
                .map(|&(cycle, seconds)| (cycle, 1, Input::RtcAdvance(seconds))),
        );
        events.extend(
            rewinder
                .input_log()
                .events_from(self.start_cycle)
                .filter(|event| in_movie(event.m_cycle))
                .map(|event| (event.m_cycle, 2, Input::Buttons(event.buttons))),
        );
        events.sort_by_key(|&(cycle, kind, _)| (cycle, kind));
        let events = events
            .into_iter()
            .map(|(cycle, _, input)| Event {
                cycle: cycle.wrapping_sub(self.cycle_offset),
                input,
            })
            .collect();
        let rerecords = timeline.stats().forks.saturating_sub(self.forks_before);
        self.recorder.finish(events, rerecords)
    }

    /// Writes the movie (atomically: a crash leaves the old file or the new one).
    pub fn write(&mut self, timeline: &Timeline) -> Result<Movie, String> {
        let movie = self.movie(timeline);
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|error| format!("{}: {}", dir.display(), describe_io(&error)))?;
        }
        write_atomic(&self.path, &backspin_movie::encode(&movie))
            .map_err(|error| format!("{}: {}", self.path.display(), describe_io(&error)))?;
        Ok(movie)
    }
}

/// Where a recording started by the hotkey (or speedrun mode) goes: the data directory's
/// `movies/` folder, named after the game and the host time.
pub fn default_path(data_dir: &Path, title: &str) -> PathBuf {
    let name: String = title
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    data_dir
        .join("movies")
        .join(format!("{name}-{}.bsm", unix_now()))
}
