//! The emulation thread: owns the play session's [`Timeline`] (the core and its one
//! history), takes commands from the UI, sends finished frames back, feeds the audio ring,
//! and paces itself by the emulated clock.
//!
//! Every input (buttons, reset) goes through the timeline, which logs it once and decides
//! redo and forks; this thread only chooses what to do with each displayed frame.

use super::audio::AudioSink;
use super::game::Game;
use super::picture::Picture;
use super::recording::{self, MovieRecording};
use super::slots::{self, Slots};
use crate::battery::{BatteryKeeper, ClockCatchUp};
use backspin_core::{Events, State};
use backspin_rewind::{Captured, Span, Timeline};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use std::time::{Duration, Instant};

/// One emulated frame: 70,224 dots at 4,194,304 Hz (59.7275 frames per second).
pub const FRAME_DURATION: Duration = Duration::from_nanos(
    1_000_000_000 * backspin_core::M_CYCLES_PER_FRAME / backspin_core::M_CYCLES_PER_SECOND,
);

/// Stereo samples of one emulated frame at the core's output rate, rounded up: how much of
/// a seek's audio is the frame shown (the rest is re-simulation before it).
const SAMPLES_PER_FRAME: usize = 2 * (backspin_core::SAMPLE_RATE as usize * 1_000 / 59_727 + 1);

/// What the UI asks of the emulation thread.
pub enum Command {
    /// The Game Boy buttons held from the next frame on (keyboard and gamepads merged).
    Buttons(u8),
    Rewind(bool),
    Forward(bool),
    FastForward(bool),
    TogglePause,
    FrameAdvance,
    FrameBack,
    /// Reset before the next frame; logged as an input, so it can be rewound past.
    Reset,
    /// Switch to another game (a dropped ROM, its battery save already loaded); the current
    /// game's save is written first.
    LoadGame(Box<Game>),
    /// A new audio device opened (the previous one went away).
    Audio(Box<AudioSink>),
    /// Save the game to slot 1..=10.
    SaveSlot(u8),
    /// Load slot 1..=10 (a timeline event).
    LoadSlot(u8),
    /// Back to the game as it was just before the last slot load.
    UndoLoad,
    /// Put back the slot file the last save replaced.
    UndoSave,
    /// Start recording a movie (into the data directory), or stop and write it.
    ToggleRecording,
    Quit,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    #[default]
    Playing,
    Paused,
    Rewinding,
    Forwarding,
    FastForward,
}

/// What the overlay and the title need to know about a frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameInfo {
    pub mode: Mode,
    pub span: Span,
    /// The buttons held during the frame shown.
    pub buttons: u8,
    /// Emulated frames per second divided by 59.7275, over the last second.
    pub speed: f32,
    /// A movie is being recorded.
    pub recording: bool,
    /// Speedrun mode: emulated M-cycles since the run's start (the on-screen timer).
    pub run_m_cycles: Option<u64>,
}

pub struct Frame {
    pub picture: Box<Picture>,
    pub info: FrameInfo,
}

/// The emulation thread's end of the frame channels: finished frames go out, and the UI
/// sends each picture box back once it has shown a newer one, so frames do not allocate.
pub struct FrameSender {
    pub frames: Sender<Frame>,
    pub recycled: Receiver<Box<Picture>>,
}

/// The UI thread's end: see [`FrameSender`].
pub struct FrameReceiver {
    pub frames: Receiver<Frame>,
    pub recycle: Sender<Box<Picture>>,
}

/// Frame channels holding at most two frames in flight (older ones are dropped, never
/// waited for) and room for every box to come back.
pub fn frame_channels() -> (FrameSender, FrameReceiver) {
    let (frames_tx, frames_rx) = crossbeam_channel::bounded(2);
    // Boxes in use: two in the channel, one shown, one being filled.
    let (recycle_tx, recycle_rx) = crossbeam_channel::bounded(4);
    (
        FrameSender {
            frames: frames_tx,
            recycled: recycle_rx,
        },
        FrameReceiver {
            frames: frames_rx,
            recycle: recycle_tx,
        },
    )
}

pub struct EmuSettings {
    /// Rewind history budget; 0 turns rewind off (inputs are still logged).
    pub rewind_budget_bytes: usize,
    pub start_paused: bool,
    /// Start from power-on even when the ROM has a resume point (`--fresh`).
    pub fresh: bool,
    /// One-line messages for the player (slot saved, load refused, ...), shown as toasts.
    pub notices: Option<Sender<String>>,
    /// Record the session as a movie to this file from the start (`--record`).
    pub record: Option<std::path::PathBuf>,
    /// Speedrun mode: rewind, slots, speed changes, pause and the record toggle do nothing;
    /// pacing follows the emulated clock exactly; the final time is printed on stdout.
    pub speedrun: bool,
}

/// Starts the thread. `notify` wakes the UI after a frame was sent.
pub fn spawn(
    game: Game,
    settings: EmuSettings,
    commands: Receiver<Command>,
    frames: FrameSender,
    audio: AudioSink,
    notify: impl Fn() + Send + 'static,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("emulation".into())
        .spawn(move || {
            let mut emu = Emu::new(game, &settings, frames, audio, Box::new(notify));
            emu.run(&commands);
            // Closed, quit by a signal, or the UI went away: the movie and the game's save
            // come first, then the resume point.
            emu.stop_recording();
            emu.flush_battery();
            emu.save_resume();
        })
        .expect("the OS can start a thread")
}

struct Emu {
    timeline: Timeline,
    /// Writes the battery save (`None`: the demo, or no battery).
    battery: Option<BatteryKeeper>,
    /// The game's save-state slots and resume point (`None`: no data directory).
    slots: Option<Slots>,
    /// One level of undo for a slot load: the timeline frame just before it, and the state
    /// then (used when that frame is no longer in the rewind history).
    undo_load: Option<(u64, Box<State>)>,
    /// One level of undo for a slot save: the slot and the file it replaced (`None`: none).
    undo_save: Option<(u8, Option<Vec<u8>>)>,
    /// The movie being recorded, if any.
    recording: Option<MovieRecording>,
    /// Speedrun mode's exact pacing (`None`: not a speedrun).
    pacer: Option<Pacer>,
    notices: Option<Sender<String>>,
    budget_bytes: usize,
    frames: FrameSender,
    /// A picture box the UI did not take (its channel was full), reused for the next frame.
    spare_picture: Option<Box<Picture>>,
    notify: Box<dyn Fn() + Send>,
    audio: AudioSink,
    samples: Vec<i16>,
    buttons: u8,
    paused: bool,
    rewind_held: bool,
    forward_held: bool,
    fast_forward_held: bool,
    pending_reset: bool,
    pending_advance: u32,
    pending_back: u32,
    /// Said once per session: the history budget cannot hold a single frame.
    warned_budget: bool,
    stats: Stats,
    last_sent: Instant,
}

/// Per-second frame-time figures, logged at debug level.
struct Stats {
    since: Instant,
    frames: u32,
    work_total: Duration,
    work_max: Duration,
    speed: f32,
}

impl Emu {
    fn new(
        game: Game,
        settings: &EmuSettings,
        frames: FrameSender,
        audio: AudioSink,
        notify: Box<dyn Fn() + Send>,
    ) -> Emu {
        if settings.rewind_budget_bytes == 0 {
            log::info!("rewind is off (--rewind-mib 0)");
        }
        let session = new_session(game, settings.rewind_budget_bytes, !settings.fresh);
        if let Some(notice) = &session.notice {
            log::info!("{notice}");
            if let Some(notices) = &settings.notices {
                let _ = notices.send(notice.clone());
            }
        }
        let mut timeline = session.timeline;
        let recording = settings
            .record
            .clone()
            .map(|path| MovieRecording::start(&mut timeline, path));
        Emu {
            timeline,
            battery: session.battery,
            slots: session.slots,
            undo_load: None,
            undo_save: None,
            recording,
            pacer: settings.speedrun.then(Pacer::new),
            notices: settings.notices.clone(),
            budget_bytes: settings.rewind_budget_bytes,
            frames,
            spare_picture: None,
            notify,
            audio,
            samples: Vec::with_capacity(4096),
            buttons: 0,
            paused: settings.start_paused && !settings.speedrun,
            rewind_held: false,
            forward_held: false,
            fast_forward_held: false,
            pending_reset: false,
            pending_advance: 0,
            pending_back: 0,
            warned_budget: false,
            stats: Stats {
                since: Instant::now(),
                frames: 0,
                work_total: Duration::ZERO,
                work_max: Duration::ZERO,
                speed: 1.0,
            },
            last_sent: Instant::now(),
        }
    }

    fn mode(&self) -> Mode {
        if self.rewind_held {
            Mode::Rewinding
        } else if self.forward_held {
            Mode::Forwarding
        } else if self.paused {
            Mode::Paused
        } else if self.fast_forward_held {
            Mode::FastForward
        } else {
            Mode::Playing
        }
    }

    /// Whether the next loop iteration emulates or shows a frame.
    fn busy(&self) -> bool {
        !self.paused
            || self.rewind_held
            || self.forward_held
            || self.pending_advance > 0
            || self.pending_back > 0
    }

    fn handle(&mut self, command: Command) -> bool {
        if self.pacer.is_some() && locked_in_speedrun(&command) {
            return true;
        }
        match command {
            Command::Buttons(buttons) => self.buttons = buttons,
            Command::Rewind(held) => {
                self.rewind_held = held;
                self.refresh_when_paused();
            }
            Command::Forward(held) => {
                self.forward_held = held;
                self.refresh_when_paused();
            }
            Command::FastForward(held) => self.fast_forward_held = held,
            Command::TogglePause => {
                self.paused = !self.paused;
                self.pending_advance = 0;
                self.pending_back = 0;
                self.send_frame(true);
            }
            Command::FrameAdvance if self.paused => self.pending_advance += 1,
            Command::FrameBack if self.paused => self.pending_back += 1,
            Command::FrameAdvance | Command::FrameBack => {}
            Command::Reset => self.pending_reset = true,
            Command::LoadGame(game) => {
                self.stop_recording();
                self.flush_battery();
                self.save_resume();
                let session = new_session(*game, self.budget_bytes, true);
                if let Some(notice) = session.notice {
                    self.notice(notice);
                }
                (self.timeline, self.battery, self.slots) =
                    (session.timeline, session.battery, session.slots);
                self.undo_load = None;
                self.undo_save = None;
                self.pending_reset = false;
            }
            Command::Audio(sink) => self.audio = *sink,
            Command::SaveSlot(slot) => self.save_slot(slot),
            Command::LoadSlot(slot) => self.load_slot(slot),
            Command::UndoLoad => self.undo_load(),
            Command::UndoSave => self.undo_save(),
            Command::ToggleRecording => self.toggle_recording(),
            Command::Quit => return false,
        }
        true
    }

    /// Tells the player something (a toast), and logs it.
    fn notice(&mut self, text: String) {
        log::info!("{text}");
        if let Some(notices) = &self.notices {
            let _ = notices.send(text);
        }
        // While paused no frame would follow to wake the UI.
        self.refresh_when_paused();
    }

    /// The record hotkey: starts a movie in the data directory, or writes the one going.
    fn toggle_recording(&mut self) {
        if self.recording.is_some() {
            self.stop_recording();
            return;
        }
        let Some(data_dir) = slots::data_dir() else {
            return self.notice("no data directory for movies".into());
        };
        let title = self.timeline.core().rom().title();
        let path = recording::default_path(&data_dir, &title);
        self.recording = Some(MovieRecording::start(&mut self.timeline, path));
        self.notice("Recording a movie".into());
        self.send_frame(true);
    }

    /// Writes the movie being recorded, if any, and stops recording.
    fn stop_recording(&mut self) {
        let Some(mut recording) = self.recording.take() else {
            return;
        };
        self.timeline.pin_logs_from(None);
        match recording.write(&self.timeline) {
            Ok(movie) if self.pacer.is_some() => {
                // The run's result, as `backspin movie verify` prints it for the file.
                println!(
                    "final time {}",
                    backspin_movie::emulated_time(backspin_movie::run_m_cycles(&movie))
                );
                println!("movie {}", recording.path().display());
            }
            Ok(movie) => self.notice(format!(
                "Movie saved: {} ({} frames, {} rerecords)",
                recording.path().display(),
                movie.frames,
                movie.rerecords
            )),
            Err(error) => self.notice(format!("Movie not saved: {error}")),
        }
        self.send_frame(true);
    }

    /// Whether a slot load may go ahead (not while a movie is recorded).
    fn loads_allowed(&mut self) -> bool {
        if self.recording.is_some() {
            self.notice("Loading a state is locked while recording a movie".into());
            return false;
        }
        true
    }

    fn save_slot(&mut self, slot: u8) {
        let Some(slots) = &self.slots else {
            return self.notice("no data directory for save states".into());
        };
        let frame = self.timeline.frame();
        match slots.save(slot, self.timeline.core(), frame) {
            Ok(previous) => {
                self.undo_save = Some((slot, previous));
                self.notice(format!("Slot {slot} saved"));
            }
            Err(error) => self.notice(format!("Slot {slot} not saved: {error}")),
        }
    }

    /// Loads `slot` as a timeline event. Unsaved battery RAM goes out first, and the load
    /// itself never marks it dirty: the `.sav` changes again only once the game writes
    /// cartridge RAM (see `battery/keeper.rs`), so an old state never clobbers a newer save.
    fn load_slot(&mut self, slot: u8) {
        if !self.loads_allowed() {
            return;
        }
        let Some(slots) = &self.slots else {
            return self.notice("no data directory for save states".into());
        };
        match slots.load(slot, self.timeline.core()) {
            Ok(loaded) => {
                self.save_before_seek();
                let before = Box::new(*self.timeline.core().state());
                self.undo_load = Some((self.timeline.frame(), before));
                self.timeline.load_state(&loaded.state);
                let age = slots::describe_age(loaded.saved_at, crate::battery::unix_now());
                self.notice(format!("Slot {slot} loaded - saved {age}"));
            }
            Err(error) => self.notice(format!("Slot {slot}: {error}")),
        }
    }

    /// Back to the moment before the last load. The load is a timeline event, so this is a
    /// seek to the frame before it: the loaded game stays as the kept future (redo reaches
    /// it again) until the player plays on, which forks it away. If that frame has left
    /// the history (or rewind is off), the state from before the load is loaded instead, as
    /// a new event.
    fn undo_load(&mut self) {
        if !self.loads_allowed() {
            return;
        }
        let Some((frame, before)) = self.undo_load.take() else {
            return self.notice("No load to undo".into());
        };
        self.save_before_seek();
        let span = self.timeline.span();
        let seekable =
            self.timeline.rewind_enabled() && (span.oldest..=span.newest).contains(&frame);
        if !(seekable && self.timeline.seek(frame).is_ok()) {
            self.timeline.load_state(&before);
        }
        self.notice("Load undone".into());
        self.send_frame(true);
    }

    fn undo_save(&mut self) {
        let (Some(slots), Some((slot, previous))) = (&self.slots, self.undo_save.take()) else {
            return self.notice("No save to undo".into());
        };
        match slots.restore(slot, previous.as_deref()) {
            Ok(()) if previous.is_some() => self.notice(format!("Slot {slot}: old save back")),
            Ok(()) => self.notice(format!("Slot {slot} emptied again")),
            Err(error) => self.notice(format!("Undo save failed: {error}")),
        }
    }

    /// Writes the resume point: the state now and the rewind history, for the next launch
    /// of this ROM. A failure is a warning (the battery save is already written).
    fn save_resume(&mut self) {
        let Some(slots) = &self.slots else {
            return;
        };
        if let Err(error) = slots::write_resume(slots, &self.timeline) {
            log::warn!("resume point not saved: {error}");
        }
    }

    /// While paused no frames flow: resend the current one so the overlay and title show
    /// the new mode (e.g. "paused" again after a rewind key is released).
    fn refresh_when_paused(&mut self) {
        if self.paused {
            self.send_frame(true);
        }
    }

    fn run(&mut self, commands: &Receiver<Command>) {
        // Something to show (and the mode for the title) before the first frame is emulated,
        // which matters when starting paused.
        self.send_frame(true);
        let mut deadline = Instant::now();
        loop {
            // Idle while paused: wait for a command rather than spin.
            if !self.busy() {
                match commands.recv_timeout(Duration::from_millis(250)) {
                    Ok(command) => {
                        if !self.handle(command) {
                            return;
                        }
                    }
                    Err(RecvTimeoutError::Timeout) => {
                        // Paused right after the game saved: the save still goes out.
                        self.poll_battery(Events::empty());
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => return,
                }
                deadline = Instant::now();
            }
            loop {
                match commands.try_recv() {
                    Ok(command) => {
                        if !self.handle(command) {
                            return;
                        }
                    }
                    Err(crossbeam_channel::TryRecvError::Empty) => break,
                    Err(crossbeam_channel::TryRecvError::Disconnected) => return,
                }
            }
            let work_start = Instant::now();
            let mode = self.mode();
            let shown = match mode {
                Mode::Rewinding => self.step_back(),
                Mode::Forwarding => self.step_forward(),
                Mode::Paused if self.pending_back > 0 => {
                    self.pending_back -= 1;
                    self.step_back()
                }
                Mode::Paused if self.pending_advance > 0 => {
                    self.pending_advance -= 1;
                    self.play_frame(true)
                }
                Mode::Paused => false,
                Mode::Playing => self.play_frame(true),
                Mode::FastForward => self.play_frame(false),
            };
            let work = work_start.elapsed();
            self.record_stats(mode, work);
            if shown {
                self.send_frame(mode != Mode::FastForward);
            }
            if mode == Mode::FastForward {
                deadline = Instant::now();
                continue;
            }
            if let Some(pacer) = &mut self.pacer {
                pacer.wait_for(self.timeline.cycle());
                continue;
            }
            // Pace by the emulated clock; after a long stall start afresh rather than race.
            deadline += FRAME_DURATION;
            let now = Instant::now();
            if deadline > now {
                std::thread::sleep(deadline - now);
            } else if now - deadline > 4 * FRAME_DURATION {
                deadline = now;
            }
        }
    }

    /// Emulates the next frame with the player's input. The timeline keeps the kept future
    /// while the input matches it and forks it where it differs.
    fn play_frame(&mut self, audible: bool) -> bool {
        if std::mem::take(&mut self.pending_reset) {
            self.timeline.reset();
        }
        if self.timeline.core().buttons().0 != self.buttons {
            self.timeline.set_buttons(self.buttons);
        }
        let events = self.timeline.run_frame();
        if let Some(recording) = &mut self.recording {
            recording.frame_shown(&self.timeline);
        }
        if self.timeline.last_capture() == Some(Captured::TooLarge) && !self.warned_budget {
            self.warned_budget = true;
            log::warn!("the rewind budget cannot hold one frame of history: raise --rewind-mib");
        }
        self.after_frame(events);
        self.feed_audio(audible, false, false);
        true
    }

    /// One frame back: the timeline re-simulates up to the frame before, so its picture and
    /// sound (played reversed) are exact.
    fn step_back(&mut self) -> bool {
        if self
            .recording
            .as_ref()
            .is_some_and(|r| self.timeline.frame() <= r.start_frame())
        {
            return false;
        }
        self.discard_audio();
        self.save_before_seek();
        match self.timeline.step_back() {
            Ok(report) => {
                self.after_frame(without_battery_writes(report.events));
                self.feed_audio(true, true, true);
                true
            }
            Err(_) => false,
        }
    }

    /// One frame forward through the kept future (redo), with the logged input.
    fn step_forward(&mut self) -> bool {
        self.discard_audio();
        self.save_before_seek();
        match self.timeline.step_forward() {
            Ok(report) => {
                if let Some(recording) = &mut self.recording {
                    recording.frame_shown(&self.timeline);
                }
                self.after_frame(without_battery_writes(report.events));
                self.feed_audio(true, false, true);
                true
            }
            Err(_) => false,
        }
    }

    /// Host-side bookkeeping after any frame: nothing in the player reads the serial port,
    /// so its bytes are dropped rather than kept for the whole session.
    fn after_frame(&mut self, events: Events) {
        self.timeline.output().serial.clear();
        self.poll_battery(events);
    }

    /// Notes the game's battery RAM writes and lets the keeper write when one is due.
    fn poll_battery(&mut self, events: Events) {
        if let Some(battery) = &mut self.battery {
            let now = Instant::now();
            if events.contains(Events::BATTERY_DIRTY) {
                battery.note_dirty(now);
            }
            battery.poll(self.timeline.core(), now);
        }
    }

    /// Before a rewind or redo: RAM the game wrote while playing and not yet saved goes out
    /// now, as it stands. Seeks themselves never mark the save dirty (see
    /// [`without_battery_writes`]), so rewinding alone never changes the file.
    fn save_before_seek(&mut self) {
        if let Some(battery) = &mut self.battery {
            battery.save_pending(self.timeline.core());
        }
    }

    /// Writes any unsaved battery RAM and waits until it is on disk.
    fn flush_battery(&mut self) {
        if let Some(battery) = &mut self.battery {
            battery.flush(self.timeline.core());
        }
    }

    fn discard_audio(&mut self) {
        self.samples.clear();
        self.timeline.output().audio.drain_i16(&mut self.samples);
        self.samples.clear();
    }

    /// Sends the audio of the frame just shown to the device (`last_frame_only` after a seek,
    /// whose re-simulation may have run several frames before the one shown).
    fn feed_audio(&mut self, audible: bool, reversed: bool, last_frame_only: bool) {
        self.samples.clear();
        self.timeline.output().audio.drain_i16(&mut self.samples);
        let start = if last_frame_only {
            self.samples.len().saturating_sub(SAMPLES_PER_FRAME) & !1
        } else {
            0
        };
        if audible {
            self.audio.push(&self.samples[start..], reversed);
        }
    }

    fn send_frame(&mut self, always: bool) {
        // Fast-forward runs far above the display rate: send at most about 60 frames/s.
        if !always && self.last_sent.elapsed() < Duration::from_millis(15) {
            return;
        }
        self.last_sent = Instant::now();
        // A box comes back from the UI, or was kept from a dropped frame; only the first
        // few frames of a session allocate one.
        let mut picture = self
            .frames
            .recycled
            .try_recv()
            .ok()
            .or_else(|| self.spare_picture.take())
            .unwrap_or_else(Picture::boxed);
        picture.capture(self.timeline.core());
        let frame = Frame {
            picture,
            info: FrameInfo {
                mode: self.mode(),
                span: self.timeline.span(),
                buttons: self.timeline.core().buttons().0,
                speed: self.stats.speed,
                recording: self.recording.is_some(),
                run_m_cycles: self
                    .pacer
                    .as_ref()
                    .zip(self.recording.as_ref())
                    .map(|(_, recording)| recording.elapsed_m_cycles(&self.timeline)),
            },
        };
        match self.frames.frames.try_send(frame) {
            Ok(()) => (self.notify)(),
            // The UI is behind: drop this frame rather than block emulation.
            Err(TrySendError::Full(frame)) => {
                log::trace!("UI busy: a frame was dropped");
                self.spare_picture = Some(frame.picture);
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    fn record_stats(&mut self, mode: Mode, work: Duration) {
        let stats = &mut self.stats;
        stats.frames += 1;
        stats.work_total += work;
        stats.work_max = stats.work_max.max(work);
        let elapsed = stats.since.elapsed();
        if elapsed >= Duration::from_secs(1) {
            let fps = f64::from(stats.frames) / elapsed.as_secs_f64();
            stats.speed = (fps * FRAME_DURATION.as_secs_f64()) as f32;
            log::debug!(
                "emulation: {fps:.1} frames/s ({mode:?}), work per frame mean {:.2} ms, max {:.2} ms, history {} KiB over {} frames",
                stats.work_total.as_secs_f64() * 1000.0 / f64::from(stats.frames),
                stats.work_max.as_secs_f64() * 1000.0,
                self.timeline.memory_bytes() / 1024,
                self.timeline.span().newest - self.timeline.span().oldest,
            );
            *stats = Stats {
                since: Instant::now(),
                frames: 0,
                work_total: Duration::ZERO,
                work_max: Duration::ZERO,
                speed: stats.speed,
            };
        }
    }
}

/// What speedrun mode ignores: everything that would change the speed of play, go back in
/// time or load a game state (the UI also refuses these keys, with a toast).
fn locked_in_speedrun(command: &Command) -> bool {
    matches!(
        command,
        Command::Rewind(_)
            | Command::Forward(_)
            | Command::FastForward(_)
            | Command::TogglePause
            | Command::FrameAdvance
            | Command::FrameBack
            | Command::LoadGame(_)
            | Command::SaveSlot(_)
            | Command::LoadSlot(_)
            | Command::UndoLoad
            | Command::UndoSave
            | Command::ToggleRecording
    )
}

/// Speedrun pacing: each frame is shown when the wall clock reaches its emulated time,
/// computed from the emulated M-cycles since an anchor in integer nanoseconds, so the rate
/// is exactly 1,048,576 M-cycles a second (59.7275 frames/s) with no rounding that adds up
/// (the per-frame `FRAME_DURATION` drops 0.3 ns a frame). After a stall of more than four
/// frames the anchor moves, rather than racing to catch up.
struct Pacer {
    anchor: Instant,
    anchor_cycle: Option<u64>,
}

impl Pacer {
    fn new() -> Pacer {
        Pacer {
            anchor: Instant::now(),
            anchor_cycle: None,
        }
    }

    /// Sleeps until the emulated time of timeline cycle `cycle` has passed on the wall clock.
    fn wait_for(&mut self, cycle: u64) {
        let now = Instant::now();
        let Some(anchor_cycle) = self.anchor_cycle.filter(|&c| c <= cycle) else {
            (self.anchor, self.anchor_cycle) = (now, Some(cycle));
            return;
        };
        let nanos = u128::from(cycle - anchor_cycle) * 1_000_000_000
            / u128::from(backspin_core::M_CYCLES_PER_SECOND);
        let due = self.anchor + Duration::from_nanos(u64::try_from(nanos).unwrap_or(u64::MAX));
        if due > now {
            std::thread::sleep(due - now);
        } else if now - due > 4 * FRAME_DURATION {
            (self.anchor, self.anchor_cycle) = (now, Some(cycle));
        }
    }
}

/// A seek's events without its battery writes. A seek re-runs frames that were played
/// before, and their writes were saved then (`save_before_seek`); counting them again
/// would write the rewound RAM over a newer save (rewinding to just before an in-game save
/// re-runs the frames before it, some of which may have written RAM). So the file changes
/// only when the game writes RAM in a frame played now.
fn without_battery_writes(events: Events) -> Events {
    Events(events.0 & !Events::BATTERY_DIRTY.0)
}

/// A new play session: its timeline, battery keeper and slots, and what to tell the player.
struct Session {
    timeline: Timeline,
    battery: Option<BatteryKeeper>,
    slots: Option<Slots>,
    notice: Option<String>,
}

/// A session on `game`: resumed where the last one ended (with its rewind history) when
/// `resume` and the ROM has a resume point, else a timeline from its power-on state
/// (battery save loaded) with the cartridge clock's catch-up recorded as the first input.
fn new_session(game: Game, budget_bytes: usize, resume: bool) -> Session {
    let resumed = match (&game.slots, resume) {
        (Some(slots), true) => slots::read_resume(slots, &game.core, budget_bytes),
        _ => None,
    };
    if let Some(resumed) = resumed {
        return Session {
            timeline: resumed.timeline,
            battery: game.battery,
            slots: game.slots,
            notice: Some(resumed.notice),
        };
    }
    let mut timeline = Timeline::new(game.core, budget_bytes);
    match game.clock {
        ClockCatchUp::NoFooter => {}
        ClockCatchUp::Advance(seconds) => {
            log::info!(
                "cartridge clock advanced by {} since the save was written",
                crate::battery::describe_seconds(seconds)
            );
            timeline.rtc_advance(seconds);
        }
        ClockCatchUp::Refused(warning) => match &game.battery {
            Some(battery) => log::warn!("{warning} ({})", battery.path().display()),
            None => log::warn!("{warning}"),
        },
    }
    Session {
        timeline,
        battery: game.battery,
        slots: game.slots,
        notice: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_core::Buttons;
    use std::collections::HashMap;

    fn demo_emu(budget_bytes: usize) -> (Emu, FrameReceiver) {
        let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec())
            .expect("the demo is a ROM");
        let mut game =
            Game::open(rom, None, backspin_core::Model::Dmg).expect("the demo has no save");
        game.slots = None; // never the user's data directory
        emu_for(game, budget_bytes)
    }

    /// An emulator on `game`, playing at once, silent, with `budget_bytes` of history.
    fn emu_for(game: Game, budget_bytes: usize) -> (Emu, FrameReceiver) {
        let (frames_tx, frames_rx) = frame_channels();
        let settings = EmuSettings {
            rewind_budget_bytes: budget_bytes,
            start_paused: false,
            fresh: true,
            notices: None,
            record: None,
            speedrun: false,
        };
        let emu = Emu::new(
            game,
            &settings,
            frames_tx,
            AudioSink::silent(),
            Box::new(|| {}),
        );
        (emu, frames_rx)
    }

    fn picture(emu: &Emu) -> Box<Picture> {
        let mut picture = Picture::boxed();
        picture.capture(emu.timeline.core());
        picture
    }

    /// Plays frame `frame` of the tests' scripted walk: RIGHT for frames 60-119, A for
    /// 150-155, a reset at frame 200.
    fn play_scripted_frame(emu: &mut Emu, frame: u64) {
        emu.buttons = match frame {
            60..=119 => Buttons::RIGHT,
            150..=155 => Buttons::A,
            _ => 0,
        };
        if frame == 200 {
            emu.pending_reset = true;
        }
        emu.play_frame(false);
    }

    /// Rewinding shows exactly the pictures that were shown while playing, across a reset,
    /// and redo replays them; different input drops the future.
    #[test]
    fn rewind_and_redo_show_the_pictures_played() {
        let (mut emu, _frames) = demo_emu(16 << 20);
        let mut shown: HashMap<u64, Box<Picture>> = HashMap::new();
        for frame in 1..=240u64 {
            play_scripted_frame(&mut emu, frame);
            assert_eq!(emu.timeline.span().position, frame);
            shown.insert(frame, picture(&emu));
        }
        assert_ne!(shown[&100], shown[&50], "walking changes the picture");
        for _ in 0..150 {
            assert!(emu.step_back());
            let position = emu.timeline.span().position;
            assert!(
                picture(&emu) == shown[&position],
                "rewound picture differs at frame {position}"
            );
        }
        assert_eq!(emu.timeline.span().position, 90);
        for _ in 0..20 {
            assert!(emu.step_forward());
            let position = emu.timeline.span().position;
            assert!(
                picture(&emu) == shown[&position],
                "redo picture differs at {position}"
            );
        }
        // Playing on with the logged input (RIGHT up to frame 119) keeps the future.
        emu.buttons = Buttons::RIGHT;
        emu.play_frame(false);
        assert_eq!(emu.timeline.span().newest, 240);
        assert!(picture(&emu) == shown[&111], "redo by playing differs");
        // Different input forks: the future is gone.
        emu.buttons = Buttons::B;
        emu.play_frame(false);
        assert_eq!(emu.timeline.span().newest, 112);
        assert_eq!(emu.timeline.span().position, 112);
    }

    /// Plays `emu` through a scripted session: walking, a reset, a rewind after which the
    /// input differs (a fork: a rerecord), and redo over a kept future.
    fn play_session_with_rewinds(emu: &mut Emu) {
        for frame in 1..=300u64 {
            play_scripted_frame(emu, frame);
        }
        for _ in 0..40 {
            emu.step_back();
        }
        for _ in 0..10 {
            emu.step_forward();
        }
        for _ in 0..90 {
            emu.buttons = Buttons::LEFT | Buttons::B;
            emu.play_frame(false);
        }
    }

    fn verify_demo(movie_path: &std::path::Path) -> backspin_movie::Movie {
        let bytes = std::fs::read(movie_path).expect("the movie was written");
        let movie = backspin_movie::decode(&bytes).expect("a movie");
        let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
        let outcome =
            backspin_movie::verify(&movie, rom, &backspin_movie::VerifyOptions::default())
                .expect("verifies");
        assert!(
            matches!(outcome, backspin_movie::Outcome::Clean { .. }),
            "{outcome:?}"
        );
        movie
    }

    /// `--record` from power-on through rewinds, forks and a reset: the movie verifies,
    /// holds the path played last, and counts the fork as a rerecord. Recording started
    /// mid-game (the hotkey) embeds the state and verifies too.
    #[test]
    fn recorded_sessions_verify_with_rerecords() {
        let dir = tempfile::tempdir().unwrap();
        let (mut emu, _frames) = demo_emu(16 << 20);
        let path = dir.path().join("run.bsm");
        emu.recording = Some(MovieRecording::start(&mut emu.timeline, path.clone()));
        play_session_with_rewinds(&mut emu);
        let end = emu.timeline.frame();
        emu.stop_recording();
        let movie = verify_demo(&path);
        assert_eq!(movie.start, backspin_movie::Start::PowerOn);
        assert_eq!(movie.frames, end);
        assert!(movie.rerecords >= 1, "the fork is a rerecord");
        assert!(
            movie
                .events
                .iter()
                .any(|e| e.input == backspin_movie::Input::Reset)
        );

        // Mid-game, with a budget too small to keep the logs without the pin.
        let (mut emu, _frames) = demo_emu(1 << 20);
        for _ in 0..100 {
            emu.buttons = Buttons::RIGHT;
            emu.play_frame(false);
        }
        let path = dir.path().join("mid.bsm");
        emu.recording = Some(MovieRecording::start(&mut emu.timeline, path.clone()));
        play_session_with_rewinds(&mut emu);
        for _ in 0..200 {
            emu.step_back(); // stops at the recording's first frame
        }
        let rewound_to = emu.timeline.frame();
        assert!(
            rewound_to >= 100,
            "rewound to {rewound_to}, before the recording"
        );
        emu.buttons = Buttons::DOWN;
        emu.play_frame(false);
        emu.stop_recording();
        let movie = verify_demo(&path);
        assert!(matches!(movie.start, backspin_movie::Start::SaveState(_)));
        assert_eq!(movie.frames, rewound_to + 1 - 100);
    }

    /// With a zero budget the player plays on, cannot rewind, and says so once.
    #[test]
    fn zero_budget_plays_without_rewind() {
        let (mut emu, _frames) = demo_emu(0);
        for _ in 0..30 {
            assert!(emu.play_frame(false));
        }
        assert!(!emu.step_back());
        assert_eq!(emu.timeline.span().position, 30);
        assert!(emu.timeline.memory_bytes() < 64 * 1024);
    }

    /// A budget too small for one frame: play goes on, rewind finds nothing, no panic.
    #[test]
    fn tiny_budget_is_not_a_panic() {
        let (mut emu, _frames) = demo_emu(1);
        for _ in 0..30 {
            assert!(emu.play_frame(false));
        }
        assert!(emu.warned_budget);
        assert_eq!(emu.timeline.span().position, 30);
    }

    /// Resident memory of this process in bytes (Linux), to see that a long session stays flat.
    fn resident_bytes() -> Option<usize> {
        let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
        let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
        Some(pages * 4096)
    }

    /// The player's emulation path for `minutes` of emulated play, rewinding 10 s at the end
    /// of every minute and playing on from there (a fork), with buttons changing as a player's
    /// would. Returns (history bytes, resident bytes) at the end of each minute.
    fn soak(minutes: u32, budget_bytes: usize) -> Vec<(usize, Option<usize>)> {
        let (mut emu, _frames) = demo_emu(budget_bytes);
        let frames_per_minute = 3_584; // 60 s at 59.7275 frames per second
        let mut figures = Vec::new();
        let mut rng = backspin_test_support::SplitMix64::new(1);
        for _ in 0..minutes {
            for frame in 0..frames_per_minute {
                if frame % 23 == 0 {
                    emu.buttons = rng.below(256) as u8;
                }
                emu.play_frame(false);
                emu.timeline.output().audio.drain_i16(&mut Vec::new());
            }
            for _ in 0..600 {
                assert!(emu.step_back(), "10 s of history is held");
            }
            figures.push((emu.timeline.memory_bytes(), resident_bytes()));
        }
        figures
    }

    #[test]
    fn a_short_soak_stays_within_the_budget() {
        let budget = 4 << 20;
        for (history, _) in soak(3, budget) {
            assert!(
                history <= budget,
                "{history} bytes of history over a {budget} budget"
            );
        }
    }

    /// Two hours of emulated play (run by hand in release, it takes a few minutes):
    /// `cargo test --release -p backspin soak_two_hours -- --ignored --nocapture`.
    #[test]
    #[ignore = "long: two emulated hours"]
    fn soak_two_hours() {
        let budget = 4 << 20;
        let figures = soak(120, budget);
        for (minute, (history, resident)) in figures.iter().enumerate() {
            println!(
                "minute {:3}: history {:6} KiB, resident {:7} KiB",
                minute + 1,
                history / 1024,
                resident.unwrap_or(0) / 1024
            );
            assert!(*history <= budget);
        }
        // Once the budget is full, resident memory stays flat (allocator noise aside).
        if let (Some(at_60), Some(at_end)) = (figures[59].1, figures[119].1) {
            assert!(
                at_end <= at_60 + (2 << 20),
                "resident memory grew from {at_60} to {at_end} bytes"
            );
        }
    }

    /// A battery cart (`cart_type`, 8 KiB RAM) whose code writes $5A to $A000 once at
    /// boot, then loops; and an 8 KiB save of $11 beside it.
    fn battery_game(dir: &std::path::Path, cart_type: u8) -> Game {
        let mut rom = vec![0u8; 0x8000];
        rom[0x147] = cart_type;
        rom[0x149] = 0x02;
        let code = [
            0x3E, 0x0A, 0xEA, 0x00, 0x00, // LD A,$0A; LD ($0000),A: RAMG on
            0x3E, 0x5A, 0xEA, 0x00, 0xA0, // LD A,$5A; LD ($A000),A
            0x18, 0xFE, // JR -2
        ];
        rom[0x100..0x100 + code.len()].copy_from_slice(&code);
        let rom_path = dir.join("game.gb");
        std::fs::write(dir.join("game.sav"), [0x11; 8192]).unwrap();
        let rom = backspin_core::Rom::from_bytes(rom).unwrap();
        let mut game =
            Game::open(rom, Some(&rom_path), backspin_core::Model::Dmg).expect("the save fits");
        game.slots = Some(Slots::new(dir.join("states")));
        game
    }

    /// The save follows the game's write, and rewinding to before that write leaves the
    /// file alone (the rewound timeline's RAM is not written until the game writes again).
    #[test]
    fn rewinding_before_a_save_does_not_overwrite_it() {
        let dir = tempfile::tempdir().unwrap();
        let save = dir.path().join("game.sav");
        // MBC1+RAM+BATTERY
        let (mut emu, _frames) = emu_for(battery_game(dir.path(), 0x03), 16 << 20);
        assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x11, "loaded");
        for _ in 0..10 {
            emu.play_frame(false);
        }
        emu.flush_battery();
        assert_eq!(
            std::fs::read(&save).unwrap()[0],
            0x5A,
            "the game's write is saved"
        );
        while emu.step_back() {}
        assert_eq!(emu.timeline.frame(), 0);
        assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x11, "rewound");
        emu.flush_battery();
        assert_eq!(
            std::fs::read(&save).unwrap()[0],
            0x5A,
            "rewinding wrote the save"
        );
    }

    /// After a slot load the `.sav` is written again only once the game writes cartridge
    /// RAM: loading a state with older RAM does not clobber the newer save.
    #[test]
    fn a_state_load_does_not_overwrite_a_newer_battery_save() {
        let dir = tempfile::tempdir().unwrap();
        let save = dir.path().join("game.sav");
        // MBC1+RAM+BATTERY
        let (mut emu, _frames) = emu_for(battery_game(dir.path(), 0x03), 16 << 20);
        // Slot 1 holds the loaded save ($11) from before the game's write.
        emu.save_slot(1);
        for _ in 0..10 {
            emu.play_frame(false);
        }
        assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x5A);
        emu.load_slot(1);
        assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x11, "loaded");
        for _ in 0..10 {
            emu.play_frame(false); // the game loops without writing RAM again
        }
        emu.flush_battery();
        assert_eq!(
            std::fs::read(&save).unwrap()[0],
            0x5A,
            "the load wrote its older RAM over the save"
        );
    }

    /// Save, play on, load, undo the load: back to the moment before the load, and
    /// rewinding across the load shows the game as it was before it. Undo save restores the
    /// slot's previous file.
    #[test]
    fn load_undo_load_and_undo_save() {
        let (mut emu, _frames) = demo_emu(16 << 20);
        let dir = tempfile::tempdir().unwrap();
        emu.slots = Some(Slots::new(dir.path().to_path_buf()));
        let mut shown: HashMap<u64, Vec<u8>> = HashMap::new();
        for frame in 1..=60u64 {
            emu.buttons = if frame > 30 { Buttons::RIGHT } else { 0 };
            emu.play_frame(false);
            shown.insert(frame, emu.timeline.core().state().as_bytes().to_vec());
        }
        emu.save_slot(2);
        let saved = std::fs::read(emu.slots.as_ref().unwrap().path(2)).unwrap();
        for _ in 0..60 {
            emu.play_frame(false);
        }
        let before_load = emu.timeline.core().state().as_bytes().to_vec();
        emu.load_slot(2);
        assert!(
            emu.timeline.core().state().as_bytes() == &shown[&60][..],
            "loaded"
        );
        emu.play_frame(false);
        emu.play_frame(false);
        emu.undo_load();
        assert_eq!(emu.timeline.frame(), 120);
        assert!(
            emu.timeline.core().state().as_bytes() == &before_load[..],
            "undo load is the moment before the load"
        );
        // Load again, play, then rewind across the load.
        emu.load_slot(2);
        for _ in 0..5 {
            emu.play_frame(false);
        }
        for _ in 0..5 {
            assert!(emu.step_back());
        }
        assert_eq!(emu.timeline.frame(), 120);
        assert!(
            emu.timeline.core().state().as_bytes() == &before_load[..],
            "rewinding across a load shows the game before it"
        );
        // Undo save: a second save, undone, leaves the first file.
        emu.save_slot(2);
        assert_ne!(
            std::fs::read(emu.slots.as_ref().unwrap().path(2)).unwrap(),
            saved
        );
        emu.undo_save();
        assert_eq!(
            std::fs::read(emu.slots.as_ref().unwrap().path(2)).unwrap(),
            saved
        );
        // A broken slot changes nothing.
        std::fs::write(emu.slots.as_ref().unwrap().path(3), b"junk").unwrap();
        let now = emu.timeline.core().state().as_bytes().to_vec();
        emu.load_slot(3);
        assert!(emu.timeline.core().state().as_bytes() == &now[..]);
    }

    /// Quit and relaunch: the same frame, the same state, and the history to rewind.
    #[test]
    fn resume_continues_at_the_same_frame_with_history() {
        let dir = tempfile::tempdir().unwrap();
        let (mut emu, _frames) = demo_emu(16 << 20);
        emu.slots = Some(Slots::new(dir.path().to_path_buf()));
        for frame in 1..=200u64 {
            emu.buttons = if frame % 50 < 20 { Buttons::RIGHT } else { 0 };
            emu.play_frame(false);
        }
        let state = emu.timeline.core().state().as_bytes().to_vec();
        emu.save_resume();
        let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
        let mut game = Game::open(rom, None, backspin_core::Model::Dmg).unwrap();
        game.slots = Some(Slots::new(dir.path().to_path_buf()));
        let session = new_session(game, 16 << 20, true);
        let mut timeline = session.timeline;
        assert!(session.notice.unwrap().contains("frame 200"));
        assert_eq!(timeline.frame(), 200);
        assert!(timeline.core().state().as_bytes() == &state[..]);
        assert_eq!(timeline.span().oldest, 0);
        timeline.seek(100).unwrap();
        // A damaged history: resumed from the state, without history.
        let history = dir.path().join("resume.history");
        let mut bytes = std::fs::read(&history).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        std::fs::write(&history, bytes).unwrap();
        let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
        let mut game = Game::open(rom, None, backspin_core::Model::Dmg).unwrap();
        game.slots = Some(Slots::new(dir.path().to_path_buf()));
        let session = new_session(game, 16 << 20, true);
        assert!(session.timeline.core().state().as_bytes() == &state[..]);
        assert_eq!(session.timeline.span().oldest, session.timeline.frame());
    }

    /// Figures for the report (run by hand):
    /// `cargo test -p backspin --bin backspin resume_figures -- --ignored --nocapture`.
    #[test]
    #[ignore = "measurement: ten emulated minutes"]
    fn resume_figures() {
        let dir = tempfile::tempdir().unwrap();
        let (mut emu, _frames) = demo_emu(128 << 20);
        emu.slots = Some(Slots::new(dir.path().to_path_buf()));
        let mut rng = backspin_test_support::SplitMix64::new(10);
        for frame in 0..35_837u32 {
            if frame % 23 == 0 {
                emu.buttons = rng.below(256) as u8;
            }
            emu.play_frame(false);
            emu.timeline.output().audio.drain_i16(&mut Vec::new());
        }
        let start = Instant::now();
        emu.save_resume();
        let resume = start.elapsed();
        let slots = emu.slots.clone().unwrap();
        let mut save = Vec::new();
        let mut load = Vec::new();
        for _ in 0..20 {
            let start = Instant::now();
            slots
                .save(1, emu.timeline.core(), emu.timeline.frame())
                .unwrap();
            save.push(start.elapsed());
            let start = Instant::now();
            let loaded = slots.load(1, emu.timeline.core()).ok().unwrap();
            emu.timeline.load_state(&loaded.state);
            load.push(start.elapsed());
        }
        save.sort();
        load.sort();
        let size = |name: &str| std::fs::metadata(dir.path().join(name)).unwrap().len();
        println!(
            "slot save median {:?} (max {:?}), slot load (read, check, timeline event) median \
             {:?} (max {:?}), slot file {} bytes",
            save[10],
            save[19],
            load[10],
            load[19],
            size("slot-1.state")
        );
        println!(
            "after 10 min: resume.state {} bytes, resume.history {} bytes, written in {resume:?}",
            size("resume.state"),
            size("resume.history")
        );
        let start = Instant::now();
        let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
        let mut game = Game::open(rom, None, backspin_core::Model::Dmg).unwrap();
        game.slots = Some(slots);
        let session = new_session(game, 128 << 20, true);
        println!(
            "resumed in {:?}: {}",
            start.elapsed(),
            session.notice.unwrap_or_default()
        );
    }

    /// The clock catch-up from a save reaches the game through the timeline (`rtc_advance`).
    #[test]
    fn the_clock_catch_up_is_recorded_on_the_timeline() {
        let dir = tempfile::tempdir().unwrap();
        let mut game = battery_game(dir.path(), 0x10); // MBC3+TIMER+RAM+BATTERY
        game.clock = ClockCatchUp::Advance(3_600 + 60);
        let session = new_session(game, 1 << 20, false);
        let core = session.timeline.core();
        let clock = core
            .rom()
            .rtc_registers(&core.state().hw.mbc, core.m_cycles());
        assert_eq!(
            clock,
            Some([0, 1, 1, 0, 0]),
            "S M H DL DH: one hour one minute on"
        );
    }
}
