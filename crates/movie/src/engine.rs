//! The replay engine shared by recording, playback and verification, so that all three
//! cut frames and apply inputs identically.
//!
//! A frame ends where `backspin_core::FrameBounds` says, as `Timeline` counts them. Inputs are applied
//! at the first instruction boundary at or after their cycle; recording logs that boundary,
//! so a replay stops exactly there. An input due at the cycle a frame ends is applied at the
//! start of the next frame: the frame's hash is taken before it.

use crate::format::{Event, Input};
use backspin_core::{Buttons, Core, Events, FrameBounds, State};

/// A single-bit fault to inject during replay (testing the desync detector).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// Timeline M-cycle: the bit flips at the first instruction boundary at or after it.
    pub cycle: u64,
    /// Byte offset in the in-memory `State`.
    pub offset: usize,
    /// Bit 0..=7.
    pub bit: u8,
}

/// Where the inputs come from.
pub(crate) trait InputSource {
    /// The input due now (at timeline `cycle`, during frame `frame`, counted from 0), if any;
    /// it is consumed.
    fn due(&mut self, cycle: u64, frame: u64) -> Option<Input>;
    /// The earliest timeline cycle at which an input may fall due inside the current frame
    /// (`u64::MAX`: none before the frame ends).
    fn next_cycle(&self) -> u64;
}

/// A movie's recorded inputs, in order.
#[derive(Clone)]
pub(crate) struct Recorded<'a> {
    pub events: &'a [Event],
    pub next: usize,
}

impl InputSource for Recorded<'_> {
    fn due(&mut self, cycle: u64, _frame: u64) -> Option<Input> {
        let event = self.events.get(self.next).filter(|e| e.cycle <= cycle)?;
        self.next += 1;
        Some(event.input)
    }
    fn next_cycle(&self) -> u64 {
        self.events.get(self.next).map_or(u64::MAX, |e| e.cycle)
    }
}

/// A core playing inputs along a timeline.
#[derive(Clone)]
pub(crate) struct Engine<S> {
    pub core: Core,
    pub source: S,
    /// Timeline cycle of the core's M-cycle 0 (moves at each reset).
    base: u64,
    /// Frames completed.
    pub frame: u64,
    pub fault: Option<Fault>,
    /// The timeline cycle the fault was injected at.
    pub fault_applied_at: Option<u64>,
    /// Applied inputs with their cycles, when recording.
    pub log: Option<Vec<Event>>,
}

/// Applies a button, clock or write input to `core` now and returns the events of a write.
/// A reset is the caller's (`Engine::apply` moves the timeline's base across it).
pub(crate) fn apply_to_core(core: &mut Core, input: Input) -> Events {
    match input {
        Input::Buttons(mask) => core.set_buttons(Buttons(mask)),
        Input::RtcAdvance(seconds) => core.rtc_advance_seconds(seconds),
        // A banked write with no target does nothing, as in `Timeline::poke_banked`
        // (which logs only writes that landed).
        Input::Write {
            bank: None,
            addr,
            value,
        } => return core.poke(addr, value),
        Input::Write {
            bank: Some(bank),
            addr,
            value,
        } => {
            let _ = core.poke_banked(bank, addr, value);
        }
        Input::Reset => {}
    }
    Events::empty()
}

impl<S: InputSource> Engine<S> {
    pub fn new(core: Core, source: S) -> Engine<S> {
        Engine {
            core,
            source,
            base: 0,
            frame: 0,
            fault: None,
            fault_applied_at: None,
            log: None,
        }
    }

    /// The timeline M-cycle now.
    pub fn cycle(&self) -> u64 {
        self.base.wrapping_add(self.core.m_cycles())
    }

    pub fn state(&self) -> &State {
        self.core.state()
    }

    /// Applies `input` now; true for a reset.
    fn apply(&mut self, input: Input) -> bool {
        let cycle = self.cycle();
        match input {
            Input::Reset => {
                let held = self.core.buttons();
                self.core.reset();
                self.base = cycle.wrapping_sub(self.core.m_cycles());
                // The buttons stay held across the power cycle (as `Timeline::reset`).
                self.core.set_buttons(held);
            }
            other => {
                apply_to_core(&mut self.core, other);
            }
        }
        if let Some(log) = &mut self.log {
            log.push(Event { cycle, input });
        }
        input == Input::Reset
    }

    fn fault_cycle(&self) -> u64 {
        match self.fault {
            Some(fault) if self.fault_applied_at.is_none() => fault.cycle,
            _ => u64::MAX,
        }
    }

    /// Inputs and the fault due now; true if a reset was among them.
    fn apply_due(&mut self) -> bool {
        let mut reset = false;
        while let Some(input) = self.source.due(self.cycle(), self.frame) {
            reset |= self.apply(input);
        }
        if self.cycle() >= self.fault_cycle()
            && let Some(fault) = self.fault
        {
            let mut state = *self.core.state();
            if let Some(byte) = bytemuck::bytes_of_mut(&mut state).get_mut(fault.offset) {
                *byte ^= 1 << (fault.bit & 7);
            }
            self.core.load_state(&state);
            self.fault_applied_at = Some(self.cycle());
        }
        reset
    }

    /// Emulates one whole frame.
    pub fn run_frame(&mut self) {
        let mut frame = self.begin_frame();
        while !self.frame_step(&mut frame, false) {}
        self.frame += 1;
        // Nobody hears or reads a replay: drop its audio and serial output each frame, so
        // the engine copies kept at checkpoints stay small.
        let output = self.core.output();
        output.serial.clear();
        output.audio.clear();
    }

    pub fn begin_frame(&self) -> FrameBounds {
        FrameBounds::begin(&self.core)
    }

    /// Applies what is due now, then advances within the current frame: to the next input
    /// (or fault), or with `one_instruction` by one CPU step. Returns true when the frame has
    /// ended (`run_frame` then counts it).
    pub fn frame_step(&mut self, progress: &mut FrameBounds, one_instruction: bool) -> bool {
        self.settle(progress);
        self.advance(progress, one_instruction)
    }

    /// Applies the inputs (and the fault) due at the current cycle. A reset restarts the
    /// frame's bounds: the core's frame counter and clock start over, and the frame runs on
    /// to the new machine's first frame, as `Timeline::reset` followed by `run_frame` does
    /// (so a movie recorded from a timeline replays frame for frame).
    pub fn settle(&mut self, progress: &mut FrameBounds) {
        if self.apply_due() {
            *progress = self.begin_frame();
        }
    }

    /// `frame_step` without applying what is due first (the bisection settles both runs,
    /// compares them, then advances).
    pub fn advance(&mut self, progress: &FrameBounds, one_instruction: bool) -> bool {
        if progress.ended(&self.core) {
            return true;
        }
        if one_instruction {
            self.core.step();
            return progress.ended(&self.core);
        }
        let next = self.source.next_cycle().min(self.fault_cycle());
        let target = next
            .saturating_sub(self.base)
            .max(self.core.m_cycles().saturating_add(1));
        progress.run_toward(&mut self.core, target)
    }
}

impl Engine<Recorded<'_>> {
    /// Continues from a keyframe: `state` at the end of frame `frame`, timeline cycle
    /// `cycle`. The inputs logged at `cycle` itself are still to come (a frame's state is
    /// taken before the inputs due at its last cycle).
    pub fn jump_to(&mut self, state: &State, frame: u64, cycle: u64) {
        self.core.load_state(state);
        self.base = cycle.wrapping_sub(self.core.m_cycles());
        self.frame = frame;
        self.source.next = self.source.events.partition_point(|e| e.cycle < cycle);
    }
}
