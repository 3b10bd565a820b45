//! What the machine may ask of the PPU about its coming steps without walking them.

use super::schedule::{MODE2_DOT, WINDOW_CHECK_DOT};
use super::*;

impl PpuState {
    /// Right after a CPU write to LYC, with the PPU caught up: the M-cycles from now whose
    /// ticks run no step that can request an interrupt or end a frame (the PPU's part of
    /// a quiet window, as `quiet_dots` would walk it), if LY=LYC is its only enabled
    /// source on a DMG and LYC names a visible line after the current one (`FastPaths::
    /// lyc_write_windows`). The comparator first sees a visible line's number at that
    /// line's mode-2 step (`line_mode2`; suspended from the line's start), so the first
    /// tick that may raise it is the one that runs line LYC's. Every other step requests
    /// what it did before the write: the line may fall at the write (a match with the
    /// old LYC gone), but no other source can raise it. None otherwise.
    pub(crate) fn lyc_write_quiet_m_cycles(&self, switches: QuietWalk) -> Option<u32> {
        let others = STAT_HBLANK_SOURCE | STAT_VBLANK_SOURCE | STAT_OAM_SOURCE;
        let position = u32::from(self.line_dot) + u32::from(self.fifo_lag);
        // Mode 3 and its end request nothing here, as `quiet_dots` walks through them:
        // lazy, with no OAM DMA, no write waiting for its dot, and well before the line's
        // window check.
        let in_mode3 = self.fifo_lag != 0 || self.step_is_mode3();
        if self.lcdc & LCDC_LCD_ENABLE == 0
            || self.is_cgb_hardware()
            || self.stat & others != 0
            || !switches.lazy_mode3
            || self.oam_dma_active != 0
            || self.wx_just_changed | self.deferred_valid != 0
            || (in_mode3 && position >= u32::from(WINDOW_CHECK_DOT))
            || self.ly >= self.lyc
            || self.lyc >= 144
            || !(in_mode3 || self.step_is_line_turn())
            || !self.walk_sees_lyc_only_at_its_line(switches)
        {
            return None;
        }
        // Dots to line LYC's mode-2 step; a step `d` dots on runs in the tick `d / 4 + 1`
        // on (`read_forecast`, `steps_due_within`), the ticks before it are quiet.
        let lines = u32::from(self.lyc - self.ly);
        let dots = (lines * u32::from(LINE_DOTS)).saturating_sub(position);
        Some((dots + u32::from(MODE2_DOT)) / 4)
    }

    /// Whether `quiet_dots` would end its walk at line LYC's mode-2 step too (it is
    /// checked against in debug builds, `advance_of`): it knows what the comparator holds
    /// (`FastPaths::lyc_windows`), which holds no match, and line 0's OAM step, where the
    /// walk always stops, is behind.
    fn walk_sees_lyc_only_at_its_line(&self, switches: QuietWalk) -> bool {
        let line0_oam_step_ahead = self.ly == 0
            && matches!(
                Step::from_raw(self.step),
                Step::LineStart | Step::LineOamInterrupt
            );
        switches.lyc_windows && self.lyc_match == 0 && !line0_oam_step_ahead
    }

    /// Whether the step due is one of a visible line's outside mode 3 that `quiet_dots`
    /// walks (not `HBlank`, kept only for old states).
    fn step_is_line_turn(&self) -> bool {
        matches!(
            Step::from_raw(self.step),
            Step::LineStart
                | Step::LineOamInterrupt
                | Step::LineMode2
                | Step::LineScanEnd
                | Step::LineMode3
                | Step::Mode0Interrupt
                | Step::LineWindowCheck
                | Step::LineEnd
        )
    }
}
