//! What scripts need beyond a player's inputs: running to an address, and restoring a
//! saved machine exactly. Stopping mid-frame is fine for the timeline: the next
//! `run_frame` completes the frame it is in, and history is captured at frame ends.

use super::Timeline;
use backspin_core::state::CpuMode;
use backspin_core::{Core, Events, FrameBounds, State, StepObserver};

/// Where a timeline stood ([`Timeline::checkpoint`]): its core and position. A debugger
/// keeps a few within the frame it steps back through, so landing on an instruction there
/// re-simulates only from the nearest one before it.
#[derive(Clone)]
pub struct Checkpoint {
    core: Core,
    frame: u64,
    base: u64,
    stepping: Option<(u64, u64, FrameBounds)>,
}

impl Checkpoint {
    /// The timeline cycle it was taken at.
    pub fn cycle(&self) -> u64 {
        self.base.wrapping_add(self.core.m_cycles())
    }
}

/// Why [`Timeline::run_until_pc`] returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunUntil {
    /// The CPU is about to execute the instruction at the address.
    Reached,
    /// `max_frames` whole frames ended first.
    FramesElapsed,
}

impl Timeline {
    /// Runs instruction by instruction until the CPU is about to execute `pc` (checked
    /// before every instruction, the current one included) or `max_frames` frame ends have
    /// passed. Frames that end on the way are recorded as by `run_frame`.
    pub fn run_until_pc(&mut self, pc: u16, max_frames: u64) -> (RunUntil, Events) {
        self.run_until_pc_in_bank(pc, None, max_frames)
    }

    /// As [`Timeline::run_until_pc`], but with `rom_bank` given a ROM address (below
    /// 0x8000) is reached only while that ROM bank is mapped there (see
    /// [`Core::rom_bank_at`]): a `.sym` label names a bank as well as an address, and code
    /// at the same address in another bank is not the label. The bank is ignored for
    /// addresses outside ROM.
    pub fn run_until_pc_in_bank(
        &mut self,
        pc: u16,
        rom_bank: Option<u16>,
        max_frames: u64,
    ) -> (RunUntil, Events) {
        let at_target = |core: &Core| {
            core.state().cpu.pc == pc
                && core.state().cpu.mode() == CpuMode::Running
                && rom_bank.is_none_or(|bank| core.rom_bank_at(pc).is_none_or(|at| at == bank))
        };
        let mut events = Events::empty();
        let mut frames_run = 0;
        while frames_run < max_frames {
            self.drop_inputs_not_made();
            let bounds = FrameBounds::begin(&self.core);
            while !bounds.ended(&self.core) {
                if at_target(&self.core) {
                    return (RunUntil::Reached, events);
                }
                events |= self.core.step();
            }
            self.frame += 1;
            self.record_frame();
            frames_run += 1;
        }
        (RunUntil::FramesElapsed, events)
    }

    /// One CPU step (an instruction, an interrupt dispatch or an idle M-cycle), recording
    /// the frame when it ends as `run_frame` does: what a debugger single-steps and
    /// re-simulates with. A frame begun by steps keeps its bounds across calls (a reset,
    /// state load or seek begins a new one).
    pub fn step_instruction(&mut self) -> Events {
        let bounds = self.stepping_bounds();
        let events = self.core.step();
        if bounds.ended(&self.core) {
            self.frame += 1;
            self.record_frame();
            self.stepping = None;
        }
        events
    }

    /// Runs to timeline cycle `cycle` (an instruction boundary a plain step-by-step run
    /// reaches: the result is the same `State`), fast within each frame and one step at a
    /// time for the last few M-cycles; frames ending on the way are recorded. Returns
    /// false if the cycle lies behind the present.
    pub fn run_to_cycle(&mut self, cycle: u64) -> bool {
        // Longer than any instruction or interrupt dispatch: the fast run stops short of it.
        const MARGIN: u64 = 8;
        if cycle < self.cycle() {
            return false;
        }
        while self.cycle() < cycle {
            let bounds = self.stepping_bounds();
            let target = (cycle - self.base).saturating_sub(MARGIN);
            if self.core.m_cycles() < target {
                bounds.run_toward(&mut self.core, target);
                if bounds.ended(&self.core) {
                    self.frame += 1;
                    self.record_frame();
                    self.stepping = None;
                }
                if self.core.m_cycles() < target && !bounds.ended(&self.core) {
                    // A breakpoint (`LD B,B`) or a locked CPU ended the run early.
                    self.step_instruction();
                }
                continue;
            }
            self.step_instruction();
        }
        true
    }

    /// Runs within the present frame, watched by `observer` ([`Core::run_observed`]), until
    /// it stops the run, the frame ends (it is then recorded as `run_frame` records it),
    /// `max_m_cycles` pass or the CPU executes a breakpoint or locks. The `State` reached is
    /// the one `step_instruction` calls reach.
    pub fn run_observed<O: StepObserver>(&mut self, max_m_cycles: u64, observer: &mut O) -> Events {
        let bounds = self.stepping_bounds();
        let limit = self
            .core
            .m_cycles()
            .saturating_add(max_m_cycles.max(1))
            .min(bounds.limit());
        let events = self.core.run_observed(limit, observer);
        if bounds.ended(&self.core) {
            self.frame += 1;
            self.record_frame();
            self.stepping = None;
        }
        events
    }

    /// A copy of where the timeline stands now, to come back to with
    /// [`Timeline::restore_checkpoint`] without a seek's re-simulation. Take it only where a
    /// seek could land or re-simulation from there passes (not after an input made since
    /// the last seek), and keep it only while the history is unchanged.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            core: self.core.clone(),
            frame: self.frame,
            base: self.base,
            stepping: self.stepping,
        }
    }

    /// Puts the timeline back where `checkpoint` was taken: the same `State`, picture and
    /// position as re-simulating there from a seek. The caller vouches that the history
    /// has not changed since (no input, reset, load or fork): a stale checkpoint puts the
    /// core off its history.
    pub fn restore_checkpoint(&mut self, checkpoint: &Checkpoint) {
        self.core.clone_from(&checkpoint.core);
        self.frame = checkpoint.frame;
        self.base = checkpoint.base;
        self.stepping = checkpoint.stepping;
        self.made = Default::default();
        self.rewinder.arrive_at(checkpoint.frame);
    }

    /// The bounds of the frame being stepped through, begun now if none is.
    fn stepping_bounds(&mut self) -> FrameBounds {
        match self.stepping {
            Some((frame, base, bounds)) if frame == self.frame && base == self.base => bounds,
            _ => {
                self.drop_inputs_not_made();
                let bounds = FrameBounds::begin(&self.core);
                self.stepping = Some((self.frame, self.base, bounds));
                bounds
            }
        }
    }

    /// Loads `state` as [`Timeline::load_state_boxed`] does, but with the buttons as saved
    /// (logged as an input just before the load) instead of those held now: the machine is
    /// then exactly the saved one, which a script reloading an episode start needs. A
    /// player's load keeps the held buttons, as the hands on the pad do.
    pub fn restore_state(&mut self, state: Box<State>) {
        let saved_buttons = state.hw.joypad.pressed;
        if saved_buttons != self.buttons() {
            self.set_buttons(saved_buttons);
        }
        self.load_state_boxed(state);
    }
}
