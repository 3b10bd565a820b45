//! What scripts need beyond a player's inputs: running to an address, and restoring a
//! saved machine exactly. Stopping mid-frame is fine for the timeline: the next
//! `run_frame` completes the frame it is in, and history is captured at frame ends.

use super::Timeline;
use backspin_core::state::CpuMode;
use backspin_core::{Events, M_CYCLES_PER_FRAME, State};

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
        let mut events = Events::empty();
        let mut frames_run = 0;
        while frames_run < max_frames {
            self.drop_inputs_not_made();
            let start = self.core.state().hw.frames;
            let limit = self.core.m_cycles() + 4 * M_CYCLES_PER_FRAME;
            while self.core.state().hw.frames == start && self.core.m_cycles() < limit {
                if self.core.state().cpu.pc == pc
                    && self.core.state().cpu.mode() == CpuMode::Running
                {
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
