//! Where a frame ends, for everything that counts frames along a timeline (the rewind
//! history, its re-simulation, movies, benches, scripts): when the core completes one (its
//! frame counter changes) or, should none complete, after four LCD periods, so a machine
//! whose LCD clock stands still still yields frames. One rule, so that a frame counted live
//! is the frame counted on replay.

use crate::{Core, Events, M_CYCLES_PER_FRAME};

/// The bounds of the frame being emulated, taken when it begins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameBounds {
    start_frames: u64,
    limit: u64,
}

impl FrameBounds {
    /// M-cycles after which a frame ends even if the core completed none.
    pub const MAX_M_CYCLES: u64 = 4 * M_CYCLES_PER_FRAME;

    /// The frame that begins at `core`'s current M-cycle. A reset or state load restarts
    /// the core's frame counter and clock, so a frame in progress takes new bounds then.
    pub fn begin(core: &Core) -> FrameBounds {
        FrameBounds {
            start_frames: core.state().hw.frames,
            limit: core.m_cycles().saturating_add(Self::MAX_M_CYCLES),
        }
    }

    /// Whether the frame has ended.
    #[inline]
    pub fn ended(&self, core: &Core) -> bool {
        core.state().hw.frames != self.start_frames || core.m_cycles() >= self.limit
    }

    /// The core M-cycle at which the frame ends at the latest.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Runs `core` to the end of the frame, on through `LD B,B` breakpoints. A locked CPU
    /// still lets the LCD run: it is stepped on in short runs so frames keep coming.
    pub fn run_to_end(&self, core: &mut Core) -> Events {
        let mut events = Events::empty();
        while !self.ended(core) {
            let run = core.run_frame();
            events |= run;
            if run.contains(Events::CPU_LOCKED) && core.state().hw.frames == self.start_frames {
                events |= core.run_until(core.m_cycles() + 64);
            }
        }
        events
    }

    /// Runs `core` until the frame ends or its clock reaches M-cycle `target` (or passes it
    /// by less than one instruction), whichever comes first, or a breakpoint; never beyond
    /// the frame's limit. Returns whether the frame has ended.
    pub fn run_toward(&self, core: &mut Core, target: u64) -> bool {
        core.run_frame_until(target.min(self.limit));
        self.ended(core)
    }
}

/// Emulates one whole frame from `core`'s current M-cycle (see [`FrameBounds`]).
pub fn run_one_frame(core: &mut Core) -> Events {
    FrameBounds::begin(core).run_to_end(core)
}
