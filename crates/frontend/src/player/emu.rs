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
use crate::battery::BatteryKeeper;
use backspin_core::{Events, State};
use backspin_rewind::{Captured, Span, Timeline};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
pub use debug_attach::DebugPort;
use pacer::Pacer;
use session::new_session;
use std::time::{Duration, Instant};

mod debug_attach;
mod pacer;
mod session;
mod slot_commands;
#[cfg(test)]
mod tests;

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
    /// The menu opened (`true`) or closed: the game holds still while it is open, whatever
    /// the pause key said, and goes on as it was when it closes.
    MenuOpen(bool),
    /// The window went to the background (`true`) or came back, with pause on focus loss
    /// set: held like the menu.
    Unfocused(bool),
    /// Fast-forward's speed as a multiple of normal (0: as fast as the machine goes).
    FastForwardSpeed(u8),
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
    /// Where a debugger attaches (`--debug-port`).
    pub debug_port: Option<DebugPort>,
    /// Speedrun mode: rewind, slots, speed changes, pause and the record toggle do nothing;
    /// pacing follows the emulated clock exactly; the final time is printed on stdout.
    pub speedrun: bool,
    /// Fast-forward's speed as a multiple of normal (0: unlimited).
    pub fast_forward: u8,
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
            let mut settings = settings;
            let mut emu = Emu::new(game, &settings, frames, audio, Box::new(notify));
            emu.debug_port = settings.debug_port.take();
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
    /// The menu is open: no frame runs (see `Command::MenuOpen`).
    menu_open: bool,
    /// The window is in the background and pause on focus loss is set.
    unfocused: bool,
    /// Fast-forward's speed (0: unlimited).
    fast_forward_speed: u8,
    rewind_held: bool,
    forward_held: bool,
    fast_forward_held: bool,
    pending_reset: bool,
    pending_advance: u32,
    pending_back: u32,
    /// Said once per session: the history budget cannot hold a single frame.
    warned_budget: bool,
    debug_port: Option<DebugPort>,
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
            menu_open: false,
            unfocused: false,
            fast_forward_speed: settings.fast_forward,
            rewind_held: false,
            forward_held: false,
            fast_forward_held: false,
            pending_reset: false,
            pending_advance: 0,
            pending_back: 0,
            warned_budget: false,
            debug_port: None,
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
        } else if self.holding_still() {
            Mode::Paused
        } else if self.fast_forward_held {
            Mode::FastForward
        } else {
            Mode::Playing
        }
    }

    /// Paused by the key, or held by the open menu or the window's focus loss.
    fn holding_still(&self) -> bool {
        self.paused || self.held()
    }

    /// Held by the menu or the focus loss: the sound fades out until both are gone.
    fn held(&self) -> bool {
        self.menu_open || self.unfocused
    }

    /// Whether the next loop iteration emulates or shows a frame.
    fn busy(&self) -> bool {
        !self.holding_still()
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
            Command::MenuOpen(open) => {
                let was_held = self.held();
                self.menu_open = open;
                self.held_changed(was_held);
            }
            Command::Unfocused(unfocused) => {
                let was_held = self.held();
                self.unfocused = unfocused;
                self.held_changed(was_held);
            }
            Command::FastForwardSpeed(speed) => self.fast_forward_speed = speed,
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
            Command::Audio(sink) => {
                self.audio = *sink;
                if self.held() {
                    self.audio.hold(true);
                }
            }
            Command::SaveSlot(slot) => self.save_slot(slot),
            Command::LoadSlot(slot) => self.load_slot(slot),
            Command::UndoLoad => self.undo_load(),
            Command::UndoSave => self.undo_save(),
            Command::ToggleRecording => self.toggle_recording(),
            Command::Quit => return false,
        }
        true
    }

    /// The sound fades out or back in only when the hold really changes (the window
    /// gaining focus says so every time, held or not).
    fn held_changed(&mut self, was_held: bool) {
        if self.held() != was_held {
            self.audio.hold(self.held());
        }
        self.send_frame(true);
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

    /// While paused no frames flow: resend the current one so the overlay and title show
    /// the new mode (e.g. "paused" again after a rewind key is released).
    fn refresh_when_paused(&mut self) {
        if self.holding_still() {
            self.send_frame(true);
        }
    }

    fn run(&mut self, commands: &Receiver<Command>) {
        // Something to show (and the mode for the title) before the first frame is emulated,
        // which matters when starting paused.
        self.send_frame(true);
        let mut deadline = Instant::now();
        loop {
            if let Some(client) = self.debug_port.as_ref().and_then(DebugPort::client) {
                if !debug_attach::serve(self, client, commands) {
                    return;
                }
                deadline = Instant::now();
            }
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
            if mode == Mode::FastForward && self.fast_forward_speed == 0 {
                deadline = Instant::now();
                continue;
            }
            if let Some(pacer) = &mut self.pacer {
                pacer.wait_for(self.timeline.cycle());
                continue;
            }
            // Pace by the emulated clock; after a long stall start afresh rather than race.
            deadline += match mode {
                Mode::FastForward => FRAME_DURATION / u32::from(self.fast_forward_speed),
                _ => FRAME_DURATION,
            };
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
            | Command::MenuOpen(_)
            | Command::Unfocused(_)
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

/// A seek's events without its battery writes. A seek re-runs frames that were played
/// before, and their writes were saved then (`save_before_seek`); counting them again
/// would write the rewound RAM over a newer save (rewinding to just before an in-game save
/// re-runs the frames before it, some of which may have written RAM). So the file changes
/// only when the game writes RAM in a frame played now.
fn without_battery_writes(events: Events) -> Events {
    Events(events.0 & !Events::BATTERY_DIRTY.0)
}
