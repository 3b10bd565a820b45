//! The emulation thread: owns the core and the rewind history, takes commands from the UI,
//! sends finished frames back, feeds the audio ring, and paces itself by the emulated clock.
//!
//! Invariant: between commands the core's state is the history's current state, so
//! playing, rewinding and redoing can switch on any frame.

use super::audio::AudioSink;
use super::history::{CrateHistory, FrameInput, History, PatchRing, Span};
use backspin_core::{Buttons, Core, Events, Options, Rom, SCREEN_HEIGHT, SCREEN_WIDTH, State};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender, TrySendError};
use std::time::{Duration, Instant};

/// One emulated frame: 70,224 dots at 4,194,304 Hz (59.7275 frames per second).
pub const FRAME_DURATION: Duration = Duration::from_nanos(
    1_000_000_000 * backspin_core::M_CYCLES_PER_FRAME / backspin_core::M_CYCLES_PER_SECOND,
);

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
    LoadRom(Box<Rom>),
    /// A new audio device opened (the previous one went away).
    Audio(Box<AudioSink>),
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
}

pub struct Frame {
    pub shades: Box<[u8; SCREEN_WIDTH * SCREEN_HEIGHT]>,
    pub info: FrameInfo,
}

pub struct EmuSettings {
    pub rewind_budget_bytes: usize,
    /// Keep history in the player's own simple ring instead of `backspin-rewind`.
    pub simple_rewind: bool,
    pub start_paused: bool,
}

/// Starts the thread. `notify` wakes the UI after a frame was sent.
pub fn spawn(
    rom: Rom,
    settings: EmuSettings,
    commands: Receiver<Command>,
    frames: Sender<Frame>,
    audio: AudioSink,
    notify: impl Fn() + Send + 'static,
) -> std::thread::JoinHandle<()> {
    std::thread::Builder::new()
        .name("emulation".into())
        .spawn(move || {
            let mut emu = Emu::new(rom, &settings, frames, audio, Box::new(notify));
            emu.run(&commands);
        })
        .expect("the OS can start a thread")
}

struct Emu {
    core: Core,
    power_on: Box<State>,
    history: Box<dyn History + Send>,
    frames: Sender<Frame>,
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
    /// The input of the frame last shown.
    shown_buttons: u8,
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
        rom: Rom,
        settings: &EmuSettings,
        frames: Sender<Frame>,
        audio: AudioSink,
        notify: Box<dyn Fn() + Send>,
    ) -> Emu {
        let core = Core::new(rom, Options::default());
        let power_on = Box::new(*core.state());
        let history: Box<dyn History + Send> = if settings.simple_rewind {
            Box::new(PatchRing::new(
                settings.rewind_budget_bytes,
                core.state(),
                0,
            ))
        } else {
            Box::new(CrateHistory::new(
                settings.rewind_budget_bytes,
                core.state(),
                0,
            ))
        };
        Emu {
            core,
            power_on,
            history,
            frames,
            notify,
            audio,
            samples: Vec::with_capacity(4096),
            buttons: 0,
            paused: settings.start_paused,
            rewind_held: false,
            forward_held: false,
            fast_forward_held: false,
            pending_reset: false,
            pending_advance: 0,
            pending_back: 0,
            shown_buttons: 0,
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
            Command::LoadRom(rom) => {
                self.core = Core::new(*rom, Options::default());
                *self.power_on = *self.core.state();
                self.history.reset(self.core.state(), 0);
                self.pending_reset = false;
            }
            Command::Audio(sink) => self.audio = *sink,
            Command::Quit => return false,
        }
        true
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
                    Err(RecvTimeoutError::Timeout) => continue,
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

    /// Emulates the next frame with the player's input (keeping the future when it matches).
    fn play_frame(&mut self, audible: bool) -> bool {
        let input = FrameInput {
            buttons: self.buttons,
            reset: std::mem::take(&mut self.pending_reset),
        };
        self.emulate(input);
        if !self.history.follow_future(input) {
            self.history.push(self.core.state(), input);
        }
        self.check_in_step();
        self.feed_audio(audible, false);
        true
    }

    fn emulate(&mut self, input: FrameInput) {
        if input.reset {
            self.core.load_state(&self.power_on);
        }
        if self.core.buttons().0 != input.buttons {
            self.core.set_buttons(Buttons(input.buttons));
        }
        // `run_frame` also returns at `LD B,B` (a debugger breakpoint some games contain):
        // carry on to the end of the frame, so one history entry is always one frame.
        for _ in 0..1024 {
            let events = self.core.run_frame();
            if !events.contains(Events::BREAKPOINT) || events.contains(Events::FRAME_READY) {
                break;
            }
        }
        self.shown_buttons = input.buttons;
    }

    /// One frame back; re-emulates the frame before to get its picture and sound.
    fn step_back(&mut self) -> bool {
        if !self.history.step_back() {
            return false;
        }
        match self.history.previous() {
            Some((previous, input)) => {
                self.core.load_state(previous);
                self.emulate(input);
                self.check_in_step();
                self.feed_audio(true, true);
            }
            None => {
                // The oldest frame kept: its state is known but not the picture before it.
                self.core.load_state(self.history.current());
                self.shown_buttons = self.core.buttons().0;
            }
        }
        true
    }

    /// One frame forward through the kept future, with the logged input.
    fn step_forward(&mut self) -> bool {
        let Some(input) = self.history.next_input() else {
            return false;
        };
        self.emulate(input);
        self.history.step_forward();
        self.check_in_step();
        self.feed_audio(true, false);
        true
    }

    /// Debug builds check the invariant that makes rewind exact.
    fn check_in_step(&self) {
        debug_assert!(
            bytemuck::bytes_of(self.core.state()) == bytemuck::bytes_of(self.history.current()),
            "core and history disagree at frame {}",
            self.history.span().position
        );
    }

    fn feed_audio(&mut self, audible: bool, reversed: bool) {
        self.samples.clear();
        self.core.output().audio.drain_i16(&mut self.samples);
        if audible {
            self.audio.push(&self.samples, reversed);
        }
    }

    fn send_frame(&mut self, always: bool) {
        // Fast-forward runs far above the display rate: send at most about 60 frames/s.
        if !always && self.last_sent.elapsed() < Duration::from_millis(15) {
            return;
        }
        self.last_sent = Instant::now();
        let frame = Frame {
            shades: self.picture(),
            info: FrameInfo {
                mode: self.mode(),
                span: self.history.span(),
                buttons: self.shown_buttons,
                speed: self.stats.speed,
            },
        };
        match self.frames.try_send(frame) {
            Ok(()) => (self.notify)(),
            // The UI is behind: drop this frame rather than block emulation.
            Err(TrySendError::Full(_)) => log::trace!("UI busy: a frame was dropped"),
            Err(TrySendError::Disconnected(_)) => {}
        }
    }

    /// The picture of the frame just emulated. With the LCD off the PPU draws nothing and the
    /// core's buffer keeps whatever was drawn last (which differs between playing and
    /// rewinding); a DMG shows a blank, lightest-shade screen then, and so do we.
    fn picture(&self) -> Box<[u8; SCREEN_WIDTH * SCREEN_HEIGHT]> {
        if self.core.state().hw.ppu.lcdc & 0x80 == 0 {
            Box::new([0; SCREEN_WIDTH * SCREEN_HEIGHT])
        } else {
            Box::new(*self.core.frame())
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
                self.history.memory_bytes() / 1024,
                self.history.span().newest - self.history.span().oldest,
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn demo_emu(simple_rewind: bool) -> (Emu, Receiver<Frame>) {
        let (frames_tx, frames_rx) = crossbeam_channel::bounded(2);
        let rom = Rom::from_bytes(super::super::DEMO_ROM.to_vec()).expect("the demo is a ROM");
        let settings = EmuSettings {
            rewind_budget_bytes: 16 << 20,
            simple_rewind,
            start_paused: false,
        };
        let emu = Emu::new(
            rom,
            &settings,
            frames_tx,
            AudioSink::silent(),
            Box::new(|| {}),
        );
        (emu, frames_rx)
    }

    fn picture(emu: &Emu) -> Vec<u8> {
        emu.picture().to_vec()
    }

    /// Rewinding shows exactly the pictures that were shown while playing, across a reset,
    /// and redo replays them; different input drops the future.
    #[test]
    fn rewind_and_redo_show_the_pictures_played_simple() {
        rewind_and_redo_show_the_pictures_played(true);
    }

    #[test]
    fn rewind_and_redo_show_the_pictures_played_crate() {
        rewind_and_redo_show_the_pictures_played(false);
    }

    fn rewind_and_redo_show_the_pictures_played(simple_rewind: bool) {
        let (mut emu, _frames) = demo_emu(simple_rewind);
        let mut shown: HashMap<u64, Vec<u8>> = HashMap::new();
        for frame in 1..=240u64 {
            emu.buttons = match frame {
                60..=119 => Buttons::RIGHT,
                150..=155 => Buttons::A,
                _ => 0,
            };
            if frame == 200 {
                emu.pending_reset = true;
            }
            emu.play_frame(false);
            assert_eq!(emu.history.span().position, frame);
            shown.insert(frame, picture(&emu));
        }
        assert_ne!(shown[&100], shown[&50], "walking changes the picture");
        for _ in 0..150 {
            assert!(emu.step_back());
            let position = emu.history.span().position;
            assert!(
                picture(&emu) == shown[&position],
                "rewound picture differs at frame {position}"
            );
        }
        assert_eq!(emu.history.span().position, 90);
        for _ in 0..20 {
            assert!(emu.step_forward());
            let position = emu.history.span().position;
            assert!(
                picture(&emu) == shown[&position],
                "redo picture differs at {position}"
            );
        }
        // Playing on with the logged input (RIGHT up to frame 119) keeps the future.
        emu.buttons = Buttons::RIGHT;
        emu.play_frame(false);
        assert_eq!(emu.history.span().newest, 240);
        // Different input forks: the future is gone.
        emu.buttons = Buttons::B;
        emu.play_frame(false);
        assert_eq!(emu.history.span().newest, 112);
        assert_eq!(emu.history.span().position, 112);
    }
}
