//! [`Timeline`]: the one history of a play session. It owns the core and the [`Rewinder`],
//! numbers frames and cycles monotonically (a reset restarts the core's clock, not the
//! timeline's), records every outside influence once (buttons, resets, host time for the
//! cartridge clock), and implements rewind, redo and forks on top of that log. The window,
//! the benches, and later save states, movies and the Python package all drive this type.

mod scripting;

pub use scripting::{Checkpoint, RunUntil};

use crate::rewinder::{
    Captured, Config, EVENT_KINDS, EventKind, HistoryError, MemoryWrite, ResetMark, RewindError,
    Rewinder, SeekReport, Stats,
};
use backspin_core::{BankError, Buttons, Core, Events, FrameBounds, Output, State};

/// Where the timeline stands, for an overlay's progress bar and a window title.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// The oldest frame that can be returned to.
    pub oldest: u64,
    /// The frame whose end the core is at.
    pub position: u64,
    /// The newest frame held (beyond `position` after a rewind: the kept future).
    pub newest: u64,
}

/// One play session: a core and its history.
///
/// Frame `n` is the state after the `n`th whole frame emulated along this timeline (frame 0
/// is the starting state); frames keep counting across resets. A timeline cycle is the
/// core's M-cycle count plus the timeline cycle of the latest reset, so it never goes back.
///
/// Playing after a rewind follows the kept future while the input matches the log (redo)
/// and forks it at the first input that differs.
pub struct Timeline {
    core: Core,
    rewinder: Rewinder,
    /// False with a zero budget: inputs are still logged, nothing is stored.
    history: bool,
    frame: u64,
    /// Timeline cycle of the core's M-cycle 0.
    base: u64,
    /// What the last capture did (`TooLarge` tells the frontend its budget is too small).
    last_capture: Option<Captured>,
    /// The kinds of input made since the last frame (indexed by `EventKind`): a kept
    /// future that holds an input the player did not make is forked before the next frame.
    made: [bool; EVENT_KINDS],
    /// The frame a single-instruction step is in (`Timeline::step_instruction`): the frame
    /// number and reset base it began at, and its bounds.
    stepping: Option<(u64, u64, FrameBounds)>,
}

impl Timeline {
    /// Starts a timeline at `core`'s current state with `budget_bytes` of rewind history
    /// (0: rewind off). The budget is reserved, not touched: memory is used as history grows.
    pub fn new(core: Core, budget_bytes: usize) -> Timeline {
        Timeline::with_config(core, Config::new(budget_bytes))
    }

    /// A timeline with explicit history settings (`Config::new(0)`: rewind off).
    pub fn with_config(core: Core, config: Config) -> Timeline {
        let history = config.budget_bytes > 0;
        let mut rewinder = Rewinder::with_config(config);
        if history {
            rewinder.capture(core.state(), 0);
        } else {
            rewinder.set_present(0);
        }
        Timeline {
            core,
            rewinder,
            history,
            frame: 0,
            base: 0,
            last_capture: None,
            made: [false; EVENT_KINDS],
            stepping: None,
        }
    }

    /// The history as a file (see `HistoryError` for what is checked on reading), to resume
    /// this session later with [`Timeline::resume`]. Empty history: `None`.
    pub fn save_history(&self) -> Option<Vec<u8>> {
        if !self.history || self.rewinder.newest_frame().is_none() {
            return None;
        }
        Some(self.rewinder.write_history(&self.core.rom().sha1()))
    }

    /// Resumes a session from `core` (the state it ended at, from its save state) and the
    /// file [`Timeline::save_history`] wrote then: the timeline continues at the same frame
    /// with the history held. The history must lead to `core`'s state exactly (it is
    /// re-simulated to the present frame and compared), so a file that does not belong to
    /// the state is refused. On error the caller starts a timeline without history.
    pub fn resume(core: Core, config: Config, history: &[u8]) -> Result<Timeline, HistoryError> {
        if config.budget_bytes == 0 {
            return Err(HistoryError::Corrupt("rewind is off"));
        }
        let rewinder = Rewinder::read_history(config, &core.rom().sha1(), history)?;
        let frame = rewinder
            .present_frame()
            .ok_or(HistoryError::Corrupt("no present frame"))?;
        let expected: Box<State> = Box::new(*core.state());
        let mut timeline = Timeline {
            core,
            rewinder,
            history: true,
            frame,
            base: 0,
            last_capture: None,
            made: [false; EVENT_KINDS],
            stepping: None,
        };
        // Re-simulating to the present also draws its picture.
        timeline.seek(frame).map_err(|_| HistoryError::Mismatch)?;
        if timeline.core.state().as_bytes() != expected.as_bytes() {
            return Err(HistoryError::Mismatch);
        }
        Ok(timeline)
    }

    /// The core, at the timeline's present.
    pub fn core(&self) -> &Core {
        &self.core
    }

    /// Whether the core produces pixels from now on (`Core::set_drawing`; the state is the
    /// same either way). Seeks draw only the frame they land on.
    pub fn set_drawing(&mut self, enabled: bool) {
        self.core.set_drawing(enabled);
    }

    /// Host-side outputs (audio to drain, serial bytes): never read back by emulation.
    pub fn output(&mut self) -> &mut Output {
        self.core.output()
    }

    /// Reads memory without side effects (see `Core::peek`).
    pub fn peek(&mut self, addr: u16) -> u8 {
        self.core.peek(addr)
    }

    /// Reads a range without side effects (see `Core::peek_into`).
    pub fn peek_into(&mut self, start: u16, out: &mut [u8]) {
        self.core.peek_into(start, out);
    }

    /// Hands `visit` the stored states from the one at or before `frame` back to the
    /// oldest, newest first, each with its frame, until it returns false: no core is
    /// touched and nothing is re-simulated (one delta is undone per stored frame), so a
    /// debugger finds in which frame watched bytes last changed. The present stays.
    pub fn stored_states_back(
        &mut self,
        frame: u64,
        mut visit: impl FnMut(u64, &State) -> bool,
    ) -> Result<(), RewindError> {
        let present = self.rewinder.present_frame();
        let mut at = frame;
        let result = loop {
            let snapshot = match self.rewinder.seek(at) {
                Ok(snapshot) => snapshot,
                Err(e) => break Err(e),
            };
            let stored = snapshot.frame;
            if !visit(stored, snapshot.state) {
                break Ok(());
            }
            match self.rewinder.oldest_frame() {
                Some(oldest) if stored > oldest => at = stored - 1,
                _ => break Ok(()),
            }
        };
        self.rewinder.restore_present(present);
        result
    }

    /// The frame the core is at.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// The timeline cycle the core is at.
    pub fn cycle(&self) -> u64 {
        // Wrapping: after a state load `base` is modulo 2^64 (see `load_state`).
        self.base.wrapping_add(self.core.m_cycles())
    }

    /// Whether history is kept (a non-zero budget).
    pub fn rewind_enabled(&self) -> bool {
        self.history
    }

    /// Which frames are held and where the core is among them.
    pub fn span(&self) -> Span {
        if !self.history {
            return Span {
                oldest: self.frame,
                position: self.frame,
                newest: self.frame,
            };
        }
        Span {
            oldest: self.rewinder.oldest_frame().unwrap_or(self.frame),
            position: self.frame,
            newest: self
                .rewinder
                .newest_reachable()
                .unwrap_or(self.frame)
                .max(self.frame),
        }
    }

    /// The buttons held now, as logged.
    pub fn buttons(&self) -> u8 {
        self.rewinder
            .input_log()
            .buttons_at(self.cycle())
            .unwrap_or(0)
    }

    /// Holds `buttons` (a `Buttons` mask) from now on. Matching the kept future keeps it;
    /// differing forks it.
    pub fn set_buttons(&mut self, buttons: u8) {
        self.rewinder.record_input(self.cycle(), buttons);
        self.core.set_buttons(Buttons(buttons));
        self.made[EventKind::Buttons as usize] = true;
    }

    /// Power-cycles the machine (see `Core::reset`; cartridge RAM and clock are kept) as an
    /// input on the timeline, so rewinding past it brings the old game back.
    pub fn reset(&mut self) {
        let cycle = self.cycle();
        self.core.reset();
        let mark = ResetMark {
            cycle,
            frame: self.frame + 1,
            base: cycle.wrapping_sub(self.core.m_cycles()),
            loaded: None,
        };
        self.base = mark.base;
        self.rewinder.record_reset(mark);
        // The buttons are still held across the power cycle: those logged once the reset is
        // (re-simulation presses these after it), not a kept future's change at this cycle
        // that the reset forked away.
        let held = self.buttons();
        self.core.set_buttons(Buttons(held));
        self.repeat_writes_made_now();
        self.made[EventKind::Reset as usize] = true;
    }

    /// Replaces the machine's state with `state` (a save state, already validated for this
    /// ROM and model by the caller) as an event on the timeline: frames and timeline cycles
    /// keep counting up, rewinding past the load brings back the game as it was before it,
    /// and redo (seeking forward) applies it again. The buttons held stay held. Writes
    /// (`poke`) made at the same instant before the load are gone with the rest of the old
    /// machine: they leave the log too.
    ///
    /// The log keeps a copy of `state` (boxed) for as long as history may re-simulate
    /// across the load; the copy counts against the history budget.
    pub fn load_state(&mut self, state: &State) {
        let mut copy: Box<State> = bytemuck::zeroed_box();
        *copy = *state;
        self.load_state_boxed(copy);
    }

    /// [`Timeline::load_state`] taking the state by box, which the log keeps as it is (no
    /// copy, no allocation): for callers that decoded it into a box anyway.
    pub fn load_state_boxed(&mut self, state: Box<State>) {
        let cycle = self.cycle();
        self.core.load_state(&state);
        let mark = ResetMark {
            cycle,
            frame: self.frame + 1,
            base: cycle.wrapping_sub(self.core.m_cycles()),
            loaded: Some(state),
        };
        self.base = mark.base;
        self.rewinder.record_reset(mark);
        if !self.history {
            self.rewinder.forget_loaded_states();
        }
        // Held as across a reset (see `reset`).
        let held = self.buttons();
        self.core.set_buttons(Buttons(held));
        // The load replaced what writes made at this cycle before it changed.
        self.rewinder.drop_writes_made_at(cycle);
        self.made[EventKind::Reset as usize] = true;
    }

    /// Writes `value` to `addr` through the memory map (see `Core::poke`: MBC and I/O
    /// registers act as for a CPU write, no cycle passes, no lock-out blocks it) as an
    /// input on the timeline: rewinding re-simulates it at this exact cycle, and a rewind
    /// that does not repeat it forks like a different button press. Returns the events
    /// the write caused.
    pub fn poke(&mut self, addr: u16, value: u8) -> Events {
        self.log_write(None, addr, value);
        self.core.poke(addr, value)
    }

    /// Stores `value` at `addr` in `bank` (see `Core::poke_banked`) as an input on the
    /// timeline, as [`Timeline::poke`] does. On error nothing is logged or changed.
    pub fn poke_banked(&mut self, bank: u16, addr: u16, value: u8) -> Result<(), BankError> {
        self.core.poke_banked(bank, addr, value)?;
        self.log_write(Some(bank), addr, value);
        Ok(())
    }

    fn log_write(&mut self, bank: Option<u16>, addr: u16, value: u8) {
        let write = MemoryWrite {
            cycle: self.cycle(),
            bank,
            addr,
            value,
        };
        self.rewinder.record_write(write);
        self.made[EventKind::Write as usize] = true;
    }

    /// After a reset at the current cycle: the writes made at this cycle before it are made
    /// again. Re-simulation applies a cycle's writes after its resets, so the live machine
    /// must end the same way (a script writing and then resetting in the same instant sees
    /// its writes survive the reset). A load instead drops them (see `load_state`).
    fn repeat_writes_made_now(&mut self) {
        let cycle = self.cycle();
        let made = self.rewinder.writes_made_at(cycle);
        if made == 0 {
            return;
        }
        let writes: Vec<MemoryWrite> = self.rewinder.writes_at(cycle).take(made).collect();
        for write in writes {
            write.apply(&mut self.core);
        }
    }

    /// Adds `seconds` of host time to the cartridge clock (MBC3; nothing otherwise) as an
    /// input on the timeline: how real time between sessions reaches the game.
    pub fn rtc_advance(&mut self, seconds: u64) {
        self.rewinder.record_rtc_advance(self.cycle(), seconds);
        self.core.rtc_advance_seconds(seconds);
        self.made[EventKind::Rtc as usize] = true;
    }

    /// Emulates one whole frame and records it (or follows the kept future when the state
    /// matches it). Runs on through `LD B,B` breakpoints, and a locked CPU still advances
    /// the LCD, so this always ends one frame later.
    pub fn run_frame(&mut self) -> Events {
        let events = self.emulate_frame();
        self.record_frame();
        events
    }

    /// The emulation half of [`Timeline::run_frame`]: the frame is emulated, not yet
    /// recorded. Call [`Timeline::record_frame`] next, before any input (a bench times
    /// the halves apart).
    pub fn emulate_frame(&mut self) -> Events {
        self.drop_inputs_not_made();
        let events = FrameBounds::begin(&self.core).run_to_end(&mut self.core);
        self.frame += 1;
        events
    }

    /// Following a kept future, the log may hold an input at this cycle that the player did
    /// not make this time (a reset or a button change): then the future is not this run's,
    /// so fork it here and log the buttons actually held. A logged clock advance is host
    /// time the session received (the catch-up at start), not a player's choice: it is
    /// replayed, so rewinding to the first frame and playing on keeps it. Without a future
    /// the same holds for inputs a seek left at this cycle (made at the newest frame before
    /// the seek back to it): not made again, they are not this run's.
    fn drop_inputs_not_made(&mut self) {
        let made = std::mem::take(&mut self.made);
        let cycle = self.cycle();
        if !self.rewinder.has_future() && !self.rewinder.logs_unmade_at(cycle, &made) {
            self.rewinder.drop_writes_not_made(cycle);
            return;
        }
        let logged = self.rewinder.logged_at(cycle);
        let not_made = |kind: EventKind| logged[kind as usize] && !made[kind as usize];
        if not_made(EventKind::Reset) {
            self.fork_at(cycle, EventKind::Reset);
            return;
        }
        if not_made(EventKind::Rtc) {
            let seconds = self
                .rewinder
                .rtc_log()
                .iter()
                .filter(|&&(c, _)| c == cycle)
                .fold(0u64, |sum, &(_, s)| sum.saturating_add(s));
            self.core.rtc_advance_seconds(seconds);
        }
        if not_made(EventKind::Buttons) {
            self.fork_at(cycle, EventKind::Buttons);
        }
        self.rewinder.drop_writes_not_made(cycle);
    }

    /// Drops the logged `kind` (and later kinds) at `cycle` and everything after it, then
    /// logs the buttons actually held.
    fn fork_at(&mut self, cycle: u64, kind: EventKind) {
        self.rewinder.fork_logs_at(cycle, kind);
        self.rewinder.record_input(cycle, self.core.buttons().0);
    }

    /// The recording half of [`Timeline::run_frame`], after [`Timeline::emulate_frame`].
    pub fn record_frame(&mut self) {
        if self.history {
            let cycle = self.cycle();
            // Everything else that changes the core (a seek, load, reset, checkpoint or
            // write) goes through it too, and notes what it wrote or marks every page.
            let written = self.core.take_written_pages();
            self.last_capture =
                Some(
                    self.rewinder
                        .capture_at(self.core.state(), self.frame, cycle, written),
                );
        } else {
            self.rewinder.set_present(self.frame);
            // Nothing re-simulates without history: the writes of past frames are done with.
            self.rewinder.forget_writes_before(self.frame);
        }
    }

    /// What the last frame's capture did: `Some(Captured::TooLarge)` means the history
    /// budget cannot hold even one frame and history started over.
    pub fn last_capture(&self) -> Option<Captured> {
        self.last_capture
    }

    /// Puts the core exactly at the end of `frame` (state and picture), anywhere from the
    /// oldest frame held to the newest. The core is untouched on error.
    pub fn seek(&mut self, frame: u64) -> Result<SeekReport, RewindError> {
        if !self.history {
            return Err(RewindError::Off);
        }
        let report = self.rewinder.seek_core(&mut self.core, frame)?;
        self.made = [false; EVENT_KINDS];
        self.stepping = None;
        self.frame = frame;
        self.base = self.rewinder.cycle_base(frame);
        // At the newest frame reachable, inputs logged after it were made in a frame begun
        // by steps and left unfinished: no frame holds them, and play on must not replay them.
        if !self.rewinder.has_future() {
            self.rewinder.forget_inputs_after(self.cycle());
        }
        Ok(report)
    }

    /// One frame back.
    pub fn step_back(&mut self) -> Result<SeekReport, RewindError> {
        if self.frame <= self.span().oldest {
            return Err(RewindError::OutOfRange {
                frame: self.frame.saturating_sub(1),
                oldest: self.span().oldest,
                newest: self.span().newest,
            });
        }
        self.seek(self.frame - 1)
    }

    /// One frame forward through the kept future (redo).
    pub fn step_forward(&mut self) -> Result<SeekReport, RewindError> {
        let span = self.span();
        if self.frame >= span.newest {
            return Err(RewindError::OutOfRange {
                frame: self.frame + 1,
                oldest: span.oldest,
                newest: span.newest,
            });
        }
        self.seek(self.frame + 1)
    }

    /// History figures (sizes, frames held, inputs logged).
    pub fn stats(&self) -> Stats {
        self.rewinder.stats()
    }

    /// Keeps the logs from `frame` on while a movie is recorded from there (see
    /// `Rewinder::pin_logs_from`); `None` lets them be trimmed with history again.
    pub fn pin_logs_from(&mut self, frame: Option<u64>) {
        self.rewinder.pin_logs_from(frame);
    }

    /// The history and its logs, read-only.
    pub fn rewinder(&self) -> &Rewinder {
        &self.rewinder
    }

    /// Bytes of history held (records and index entries, plus the input log).
    pub fn memory_bytes(&self) -> usize {
        let stats = self.rewinder.stats();
        stats.used_bytes + stats.input_log_bytes
    }
}
