//! What the LCD shows while STOP mode holds the CPU (Pan Docs, "Using the STOP Instruction").
//!
//! A stopped DMG's PPU stands still, and its LCD is no longer driven: the machine blanks the
//! frame (shade 0) as STOP begins with the LCD on. UNVERIFIED: Pan Docs only warns of a
//! horizontal black line without saying where; SameBoy shows the stopped LCD blank.
//!
//! A stopped CGB's PPU runs on, but STOP cuts it off from whatever the CPU could reach as
//! STOP began (SameBoy `enter_stop_mode`): from palette RAM unless in mode 3, so every pixel
//! it outputs until the wake-up is black and the screen turns black, except after a STOP
//! begun in mode 3, when the picture goes on (Pan Docs). Cut off from VRAM alone (the few
//! dots after mode 3 where palette RAM is still closed to the CPU and VRAM no longer), its
//! VRAM reads are $FF: every background pixel is colour 3 of palette 7 (UNVERIFIED,
//! SameBoy). The machine keeps the cut-off in `CgbState::key1` and calls here once per
//! stopped M-cycle, outside the PPU's drawing paths: a line whose mode 3 ended during the
//! stop is overwritten whole, and at the wake-up the pixels of the line in progress that
//! mode 3 has output so far.

use super::{Ctx, Host, LCDC_BG_ENABLE, PpuState, VideoMemory};
use crate::cgb::MODE_COMPATIBILITY;

/// RGB555 black: what a pixel drawn without palette RAM shows (SameBoy outputs black there).
const BLACK_RGB555: u16 = 0;
/// The shade of a blank DMG LCD.
const BLANK_SHADE: u8 = 0;

/// What a stopped CGB's PPU is cut off from (`black_out_stopped_pixels`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum CutOff {
    /// Palette RAM (and perhaps VRAM): black pixels.
    Palettes,
    /// VRAM alone: background pixels of tile data $FF with attributes $FF.
    Vram,
}

impl Host<'_> {
    /// A stopped DMG's LCD: the whole frame blank.
    pub fn blank_frame(&mut self) {
        if let Some(frame) = self.frame.as_deref_mut() {
            frame.fill(BLANK_SHADE);
        }
    }

    /// Pixels `0..end` of line `ly` in the CGB's picture set to `rgb`.
    fn fill_line(&mut self, ly: u8, end: u8, rgb: u16) {
        let line = usize::from(ly);
        if line >= crate::SCREEN_HEIGHT {
            return;
        }
        if let Some(frame_rgb) = self.frame_rgb.as_deref_mut() {
            let start = line * crate::SCREEN_WIDTH;
            let end = start + usize::from(end).min(crate::SCREEN_WIDTH);
            frame_rgb[start..end].fill(rgb);
        }
    }
}

impl PpuState {
    /// A CGB PPU cut off by STOP, after one stopped M-cycle that began in mode 3 if
    /// `was_mode3`: a line whose mode 3 has just ended shows what the cut-off PPU drew. At
    /// the `waking` M-cycle so do the pixels mode 3 has output so far on its line (the owed
    /// dots run first); later ones are drawn as usual.
    pub fn black_out_stopped_pixels(
        &mut self,
        cut_off: CutOff,
        was_mode3: bool,
        waking: bool,
        memory: VideoMemory,
        interrupt_flag: &mut u8,
        host: &mut Host,
    ) {
        let rgb = match cut_off {
            CutOff::Palettes => BLACK_RGB555,
            CutOff::Vram => self.colour_of_vram_ff(memory),
        };
        let in_mode3 = self.in_mode3();
        if was_mode3 && !in_mode3 {
            host.fill_line(self.ly, crate::SCREEN_WIDTH as u8, rgb);
        } else if waking && in_mode3 {
            let double_speed = memory.cgb.is_some_and(|cgb| cgb.double_speed());
            let mut ctx = Ctx::drawing(memory, interrupt_flag, host, double_speed);
            self.pay(self.fifo_lag, &mut ctx);
            let drawn = if self.in_mode3() {
                self.screen_x
            } else {
                crate::SCREEN_WIDTH as u8
            };
            host.fill_line(self.ly, drawn, rgb);
        }
    }

    /// The colour of a background pixel whose tile map, attribute and tile data reads all
    /// gave $FF: colour 3 of palette 7 in CGB mode; in compatibility mode colour 3 (0 with
    /// LCDC bit 0 clear) through BGP and palette 0.
    fn colour_of_vram_ff(&self, memory: VideoMemory) -> u16 {
        let Some(cgb) = memory.cgb else {
            return BLACK_RGB555;
        };
        if self.colour_mode == MODE_COMPATIBILITY {
            let colour = if self.lcdc & LCDC_BG_ENABLE != 0 {
                3
            } else {
                0
            };
            cgb.bg_colour(0, (self.bgp >> (colour * 2)) & 3)
        } else {
            cgb.bg_colour(7, 3)
        }
    }
}
