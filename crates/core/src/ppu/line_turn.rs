//! A DMG's line turn in one go (`FastPaths::line_turns`): from a visible line's mode-0
//! interrupt (`Step::Mode0Interrupt`) to the next visible line's mode 3 (`Step::LineMode3`)
//! when one run reaches all of it, as the turn's steps would leave it.
//!
//! With the HBlank and OAM STAT sources off, only the LY=LYC source can raise the STAT
//! line in the turn, and its comparator sees two values: the line's own at the mode-0
//! interrupt, and the next line's from its mode 2 on (suspended at the OAM interrupt
//! between, which holds the last output). So the turn's four STAT updates are two: the
//! mode-0 interrupt's, and one with the next line's comparison and mode 3 (whose mode
//! raises nothing), which sees the edge mode 2 would. The locks end as mode 3 sets them
//! all; the WY checks and the OAM scan run as the steps run them.

use super::schedule::{MODE3_DOT, Step, WINDOW_CHECK_DOT};
use super::*;

impl PpuState {
    /// From `Step::Mode0Interrupt` due now, `dots` dots before the run ends: if the turn
    /// may go in one go and the run reaches the next line's `Step::LineMode3`, runs the
    /// steps up to it and that one, and returns the dots of the waits run through; else
    /// None, with nothing changed.
    #[inline(always)]
    pub(super) fn closed_line_turn(&mut self, dots: u32, bus: &mut Ctx) -> Option<u32> {
        // The waits up to `LineMode3`: the rest of mode 0 to the WY check, then the next
        // line's dots up to mode 3.
        let waits = u32::from(WINDOW_CHECK_DOT.saturating_sub(self.line_dot))
            + u32::from(LINE_DOTS - WINDOW_CHECK_DOT + MODE3_DOT);
        if !bus.line_turns
            || dots <= waits
            || self.ly >= 143
            || self.stat & (STAT_HBLANK_SOURCE | STAT_OAM_SOURCE) != 0
            || self.is_cgb_hardware()
            || bus.double_speed
        {
            return None;
        }
        // `Mode0Interrupt`: the comparator still sees this line (or nothing).
        self.stat_mode_for_interrupt = 0;
        self.update_stat(bus.interrupt_flag);
        // `LineWindowCheck`, then `LineEnd` with `LineStart`.
        self.check_window_y();
        self.ly += 1;
        self.screen_x = 0;
        // `LineMode2`'s comparison, held through mode 3; `LineMode3`'s mode, which raises
        // nothing (the OAM interrupt's update between only suspends the comparator).
        self.ly_for_compare = self.ly;
        self.stat_mode_for_interrupt = 3;
        self.update_stat(bus.interrupt_flag);
        self.set_mode(3);
        self.scan_oam(bus.oam);
        self.check_window_y();
        self.block_all();
        self.line_dot = MODE3_DOT;
        self.goto(Step::Mode3Start, 5);
        Some(waits)
    }
}
