//! The window's WY condition and, on a DMG, the blank pixel a disabled window inserts
//! where WX matches.
//!
//! The WY condition holds once LY equals WY while LCDC bit 5 is set (Pan Docs, Window: "the
//! WY condition is checked ... with LCDC.5"; SameBoy and Gambatte check both). Once it
//! holds and the window is then disabled, a DMG's background fetcher still compares WX: a
//! push into the empty background FIFO at the column where the window would start puts
//! one colour-0 pixel in first and the tile one dot later, shifting the rest of the line
//! right by one (SameBoy issue 278, nitro2k01's measurements on pre-CGB hardware; Pan Docs,
//! Scrolling: "a nice window glitch pixel where the window would have been activated";
//! Mealybug m3_lcdc_win_en_change_multiple_wx, DMG lines 15 and 39). A CGB does not.
//!
//! Cost: the check runs only in the slow mode-3 paths. `disabled_window_glitch` is armed
//! only while it can fire, and while armed the fast paths (`mode3_dot_is_plain`,
//! `mode3_drain_length`) leave every dot whose push might match to the slow path.

use super::*;

/// `PpuState::disabled_window_glitch`: not armed (the WY condition does not hold, the
/// window is enabled, or the hardware is a CGB).
pub(super) const WINDOW_GLITCH_IDLE: u8 = 0;
/// Armed: a DMG whose WY condition holds, with LCDC bit 5 clear.
pub(super) const WINDOW_GLITCH_ARMED: u8 = 1;
/// Off until the next mode 3: bit 5 was cleared while the window fetched its first tile
/// (SameBoy's DMG LCDC write notes: no insertion for the rest of that line).
pub(super) const WINDOW_GLITCH_OFF_THIS_LINE: u8 = 2;

impl PpuState {
    /// A WY check (at mode 2's start, at mode 3's start, and when LCDC bit 5 is set): the
    /// WY condition holds from here to the frame's end once WY equals LY with the window
    /// enabled. It never arms the glitch, as the window is enabled.
    #[inline(always)]
    pub(super) fn check_window_y(&mut self) {
        if self.lcdc & LCDC_WINDOW_ENABLE != 0 && self.wy == self.ly {
            self.window_y_reached = 1;
        }
    }

    /// The WY condition is reset (a new frame, or the LCD switched on).
    pub(super) fn reset_window_y(&mut self) {
        self.window_y_reached = 0;
        self.disabled_window_glitch = WINDOW_GLITCH_IDLE;
    }

    /// An LCDC write changed bit 5 (`old` is the value before it).
    pub(super) fn window_enable_written(&mut self, old: u8) {
        if self.lcdc & LCDC_WINDOW_ENABLE != 0 {
            if old & LCDC_WINDOW_ENABLE == 0 {
                // Mid-line, as SameBoy's check after an LCDC write; the window may still
                // start on this line if WX has not passed.
                self.check_window_y();
            }
            if self.disabled_window_glitch == WINDOW_GLITCH_ARMED {
                self.disabled_window_glitch = WINDOW_GLITCH_IDLE;
            }
            return;
        }
        if old & LCDC_WINDOW_ENABLE == 0 {
            return;
        }
        if self.window_fetch_starting != 0 {
            self.disabled_window_glitch = WINDOW_GLITCH_OFF_THIS_LINE;
        } else if self.disabled_window_glitch == WINDOW_GLITCH_IDLE
            && self.window_y_reached != 0
            && !self.is_cgb_hardware()
        {
            self.disabled_window_glitch = WINDOW_GLITCH_ARMED;
        }
    }

    /// Mode 3 starts: the WY check, and a glitch switched off for the last line may fire
    /// again.
    #[inline(always)]
    pub(super) fn window_at_mode3_start(&mut self) {
        self.check_window_y();
        if self.disabled_window_glitch == WINDOW_GLITCH_OFF_THIS_LINE {
            self.disabled_window_glitch = if self.window_y_reached != 0
                && self.lcdc & LCDC_WINDOW_ENABLE == 0
                && !self.is_cgb_hardware()
            {
                WINDOW_GLITCH_ARMED
            } else {
                WINDOW_GLITCH_IDLE
            };
        }
    }

    /// Whether the fast paths must leave a dot starting at column `scanline_x` to the slow
    /// path, because its push (at `scanline_x` or, after a pixel out, one column on) may
    /// meet the disabled window's WX. Conservative; `in_window` is 0.
    #[inline(always)]
    pub(super) fn disabled_window_glitch_near(&self, scanline_x: u8, dots: u8) -> bool {
        self.disabled_window_glitch == WINDOW_GLITCH_ARMED
            && (self.wx == 0 || self.wx.wrapping_sub(scanline_x.wrapping_add(7)) <= dots)
    }

    /// The DMG fetcher's push into the empty background FIFO, in the slow paths: the
    /// disabled window inserts its blank pixel first if WX is the next pixel's window
    /// position (`scanline_x + 7`, positions past 167 counting as 0, as SameBoy has them).
    /// The fetcher stays at its push and pushes the tile once that pixel is out. Only
    /// outside the window: a window disabled while it draws hands back at its next fetch,
    /// and can meet WX again only left of the screen (WX < 7). UNVERIFIED there and for the
    /// positions past 167 (SameBoy does not separate these cases; no test covers them).
    #[inline(always)]
    pub(super) fn insert_disabled_window_pixel(&mut self) -> bool {
        if self.disabled_window_glitch != WINDOW_GLITCH_ARMED || self.in_window != 0 {
            return false;
        }
        let position = self.scanline_x.wrapping_add(7);
        let position = if position > 167 { 0 } else { position };
        if self.wx != position {
            return false;
        }
        self.bg_fifo_low = 0;
        self.bg_fifo_high = 0;
        self.bg_fifo_len = 1;
        true
    }
}
