//! Re-simulation: running frames from a restored state with the logged inputs applied at
//! their exact cycles, so the state is byte-identical to the live run.

use super::{RewindError, Rewinder};
use backspin_core::{Buttons, Core, Events, FrameBounds};

/// M-cycles before an input that re-simulation covers one step at a time: more than any
/// instruction or interrupt dispatch takes, so the fast run before them cannot pass it.
const STEP_MARGIN: u64 = 8;

impl Rewinder {
    /// Runs `frames` frames from the core's current state (stored frame `from`), applying
    /// each logged input when the timeline clock reaches its cycle (at an instruction
    /// boundary, as in the live run), and stops at the instruction boundary where the last
    /// frame completes, before any input stamped with that cycle. Frames are counted by the
    /// core's frame counter advancing, so a reset (which restarts it) counts no frame.
    ///
    /// Only the last frame is drawn (if the core draws at all): the others run with the
    /// PPU's pixel output off, which changes no byte of the state, and the last one, run
    /// whole, is the picture of the straight run.
    pub(super) fn resimulate(
        &self,
        core: &mut Core,
        from: u64,
        frames: u64,
    ) -> Result<Events, RewindError> {
        let drawing = core.drawing();
        let result = self.resimulate_drawing_last(core, from, frames, drawing);
        core.set_drawing(drawing);
        result
    }

    pub(super) fn resimulate_drawing_last(
        &self,
        core: &mut Core,
        from: u64,
        frames: u64,
        drawing: bool,
    ) -> Result<Events, RewindError> {
        let mut base = self.cycle_base(from);
        let start_cycle = base.wrapping_add(core.m_cycles());
        // Every frame ends within its bounds, which only a reset or load restarts: this
        // bounds a broken log.
        let cycle_limit = start_cycle + (frames + 1) * 2 * FrameBounds::MAX_M_CYCLES;
        let mut inputs = self.logs.buttons.events_from(start_cycle).peekable();
        let first_rtc = self.logs.rtc.partition_point(|&(c, _)| c < start_cycle);
        let mut rtc = self.logs.rtc[first_rtc..].iter().peekable();
        let first_reset = self.logs.resets.partition_point(|r| r.cycle < start_cycle);
        let mut resets = self.logs.resets[first_reset..].iter().peekable();
        let first_write = self
            .logs
            .writes
            .partition_point(|w| w.write.cycle < start_cycle);
        let mut writes = self.logs.writes[first_write..].iter().peekable();
        let mut events = Events::empty();
        let mut done = 0;
        let mut bounds = FrameBounds::begin(core);
        while done < frames {
            core.set_drawing(drawing && done + 1 == frames);
            let now = base.wrapping_add(core.m_cycles());
            // A reset or load first (the live run makes it, then applies the frame's input);
            // the frame then runs on to the new machine's first frame end.
            while let Some(reset) = resets.next_if(|r| r.cycle <= now) {
                reset.apply(core);
                base = reset.base;
                let held = self.logs.buttons.buttons_at(reset.cycle).unwrap_or(0);
                core.set_buttons(Buttons(held));
                bounds = FrameBounds::begin(core);
            }
            let now = base.wrapping_add(core.m_cycles());
            while let Some(&(_, seconds)) = rtc.next_if(|&&(c, _)| c <= now) {
                advance_rtc(core, seconds);
            }
            while let Some(event) = inputs.next_if(|e| e.m_cycle <= now) {
                core.set_buttons(Buttons(event.buttons));
            }
            while let Some(logged) = writes.next_if(|w| w.write.cycle <= now) {
                logged.write.apply(core);
            }
            let next = inputs
                .peek()
                .map_or(u64::MAX, |e| e.m_cycle)
                .min(rtc.peek().map_or(u64::MAX, |&&(c, _)| c))
                .min(resets.peek().map_or(u64::MAX, |r| r.cycle))
                .min(writes.peek().map_or(u64::MAX, |w| w.write.cycle));
            while !bounds.ended(core) && base.wrapping_add(core.m_cycles()) < next {
                // Most of the way with the core's fast run, which stops at an instruction
                // boundary that single steps reach too (the same `State`), short of the
                // next input by less than one instruction; the last few M-cycles, and
                // past a breakpoint or a locked CPU (where the run stops early), one step
                // at a time, so the input lands on the cycle the live run applied it at.
                let target = match next {
                    u64::MAX => u64::MAX,
                    next => next.wrapping_sub(base).saturating_sub(STEP_MARGIN),
                };
                let before = core.m_cycles();
                if before < target {
                    let run = core.run_frame_until(target.min(bounds.limit()));
                    // Only what a step would report: the stop at the target is ours.
                    events |= Events(run.0 & !Events::TARGET_REACHED.0);
                }
                if core.m_cycles() == before || (core.m_cycles() >= target && !bounds.ended(core)) {
                    events |= core.step();
                }
                if base.wrapping_add(core.m_cycles()) > cycle_limit {
                    return Err(RewindError::Stalled);
                }
            }
            if bounds.ended(core) {
                done += 1;
                bounds = FrameBounds::begin(core);
            }
        }
        Ok(events)
    }
}

/// Adds host time to the cartridge clock through the ROM's mapper (a no-op without one).
fn advance_rtc(core: &mut Core, seconds: u64) {
    core.rtc_advance_seconds(seconds);
}
