//! The start of a visible DMG line's mode 3 in one jump when the catch-up run that starts
//! it draws nothing (`FastPaths::partial_mode3`): the runs that stop inside mode 3, at a
//! register write or read in mid-line, which `whole_mode3.rs` cannot take.
//!
//! With the window absent and no object due, mode 3 pops one pixel a dot from its first
//! dot: tile `k` (0 the dummy, then the background's) holds scanline columns from
//! `8k - 8 - SCX mod 8` and drains in dots `8k + 1 ..= 8k + 8`, the FIFO refilled from the
//! fetcher at its last. Not drawing, a drain's only lasting effects are its fetch (the
//! tile number and data bytes, now in the FIFO) and the positions, so the line jumps to
//! the tile before the last whole one the run reaches and drains only that one, as
//! `skip_to_mode3_end` does for a whole line; the run's plain paths do the rest. Debug
//! builds check each jump against its dots run one by one.

use super::whole_mode3::WindowOnLine;
use super::*;

/// The fewest tiles a jump reaches: below, the tiles it skips are none.
const MIN_JUMP_TILES: u32 = 3;

impl PpuState {
    /// From `Step::Mode3Start` just run inside a lazy run that draws nothing, on a DMG (the
    /// caller checks those), with the first dot due now and `dots` more to run: if the
    /// window does nothing on the line, moves to the first dot of the last whole
    /// background tile before the run's last dot and before the line's 160th pixel, no
    /// object due up to it; returns the dots that took (`line_dot` moved on by them, the
    /// dot due now), 0 with nothing changed. Out of line: the step loop keeps its
    /// registers.
    #[inline(never)]
    pub(super) fn jump_into_mode3(&mut self, dots: u32, bus: &mut Ctx) -> u32 {
        if self.oam_dma_active != 0 || !matches!(self.window_on_line(), Some(WindowOnLine::Absent))
        {
            return 0;
        }
        let fine = u32::from(self.scx & 7);
        // The run's last dot, and the line's 160th pixel (column 159), stay after the jump
        // and the drain of the tile before it.
        let mut tiles = ((dots - 1) / 8).min((167 + fine) / 8);
        if self.sprite_count != 0 {
            // An object is due where `X == scanline_x + 8`; at X 249 or more that may be a
            // column of the fine scroll's discards, left of the screen. The one next due,
            // lowest X, must stay right of every column the jump passes.
            if u32::from(self.sprites[1]) + fine >= 256 {
                return 0;
            }
            tiles = tiles.min((u32::from(self.next_sprite()[1]) + fine) / 8);
        }
        if tiles < MIN_JUMP_TILES {
            return 0;
        }
        #[cfg(debug_assertions)]
        let start = *self;
        // The tile before: on screen from its first column, its pixels all shown.
        let column = (8 * tiles - 16 - fine) as u8;
        self.scanline_x = column;
        self.screen_x = column;
        self.bg_fifo_len = 8;
        self.fetcher_step = 0;
        self.mode3_drain(8, bus);
        let taken = 8 * tiles;
        self.line_dot = self.line_dot.wrapping_add(taken as u16);
        #[cfg(debug_assertions)]
        debug_assert_eq!(*self, start.after_dots_one_by_one(taken, bus));
        taken
    }
}
