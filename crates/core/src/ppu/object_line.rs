//! A visible DMG line's mode 3 with objects fetched (`FastPaths::whole_mode3_objects`): when
//! the catch-up run that reaches `Step::Mode3Start` runs on to the line's end, the line
//! goes in one call to the first dot of its last whole background tile, and `run` does
//! the rest (that tile, the part tile after it, and the objects due there) as it would.
//!
//! Up to there an object changes only time and its own bytes. The background's tiles
//! begin every eight columns from the dummy tile's first (scanline column `-8 - SCX mod 8`),
//! and each is pushed the dot the FIFO empties, the fetcher back at step 0; so the fetcher
//! has taken `k` steps (at most 6, where it waits to push) when the tile's `k`-th pixel
//! is due. An object due there (at column X - 8) waits for the fetcher's high data byte,
//! `5 - k` dots if `k < 5`, is fetched in six, and the first at X 0 also waits
//! `min(SCX mod 8, 5)` dots (`sprite_wait_fetcher`); a later object in the same tile finds
//! the fetcher at step 6 and takes six dots. The fetcher reads the same tile meanwhile:
//! its map column, taken while the fetch holds it, is the one the plain dot takes a few
//! columns on (`map_entry`). So the line reaches its last tile `160 + the fetches' dots`
//! after mode 3's first dot, the fetcher and the FIFO as without objects. What lasts of
//! the objects is fetched here in their order: each object's slot (tile and attributes),
//! the last one's row bytes, and the object FIFO, shifted by a pixel for each pixel out.
//!
//! Not drawing, the background jumps to the last tile: its fetch overwrites the fetcher's
//! bytes, and its pixels push out the FIFO's, before the line ends. Drawing, the
//! background drains (`mode3_drain`, `drain_tiles`, part drains) up to each object's
//! column and on to the last tile, the object FIFO's pixels drawn over it as they go out:
//! the fetcher then takes the plain dots' steps, which read the same bytes as the fetch's.
//!
//! Objects at X 249 or more, which a fine scroll can make due left of the screen, and a
//! window that starts or glitches on the line take the dots. Inside such a run the end
//! of mode 3 is seen by nothing (`quiet_dots`), so the fetches' dots show only in
//! `line_dot` on the way: debug builds check each line at the last tile against its dots
//! run one by one, and again at the run's end.

use super::whole_mode3::WindowOnLine;
use super::*;

/// Columns from the dummy tile's first to the line's last whole tile: its first pixel is
/// screen column `152 - SCX mod 8`.
const TO_LAST_TILE: u8 = 160;

/// Dots of mode 3 up to the last whole tile at most: its columns and ten objects' fetches
/// (each at most `5 + 6` dots) and the one at X 0's wait (at most 5).
const MOST_DOTS_TO_LAST_TILE: u32 = TO_LAST_TILE as u32 + 10 * 11 + 5;

impl PpuState {
    /// From `Step::Mode3Start` just run (its state set, the first dot due now) with `dots`
    /// more to run, not drawing, objects due on the line (LCDC bit 1 set): if the window
    /// does nothing and the dots reach past the line's last whole tile, fetches the objects
    /// due before it, moves to its first dot (due now, `line_dot` moved on) and returns the
    /// dots that took; else 0, with nothing changed. Out of line: `whole_mode3`'s code,
    /// inlined in the same caller, keeps its registers.
    #[inline(never)]
    pub(super) fn objects_to_last_tile(&mut self, dots: u32, bus: &mut Ctx) -> u32 {
        debug_assert!(!self.is_cgb_hardware());
        // The object with the highest X, fetched last, is in slot 0.
        if dots <= MOST_DOTS_TO_LAST_TILE
            || self.sprite_count > 10
            || self.sprites[1] >= 249
            || self.lcdc & LCDC_OBJ_ENABLE == 0
            || !matches!(self.window_on_line(), Some(WindowOnLine::Absent))
        {
            return 0;
        }
        #[cfg(debug_assertions)]
        let start = *self;
        let drawing = bus.frame.is_some();
        let fine = self.scx & 7;
        // Columns counted from the dummy tile's first: an object at X is due at `X + fine`.
        let mut dots_taken = u32::from(TO_LAST_TILE);
        let mut at = 0u8;
        let mut fetched_tile = u8::MAX;
        while self.sprite_count != 0 {
            let x = self.next_sprite()[1];
            let due = x + fine;
            if due >= TO_LAST_TILE {
                break;
            }
            let (tile, step) = (due / 8, due % 8);
            if tile != fetched_tile {
                fetched_tile = tile;
                dots_taken += u32::from(5u8.saturating_sub(step));
            }
            if x == 0 {
                dots_taken += u32::from(self.sprite_x0_penalty);
                self.sprite_x0_penalty = 0;
            }
            dots_taken += 6;
            self.pixels_out(due - at, drawing, bus);
            at = due;
            self.read_sprite_attributes(bus.oam);
            let address = self.sprite_row_address();
            self.sprite_tile_address = address;
            self.sprite_tile_low = bus.vram[usize::from(address & 0x1FFF)];
            self.sprite_tile_high = bus.vram[usize::from((address + 1) & 0x1FFF)];
            self.push_sprite(bus);
        }
        self.pixels_out(TO_LAST_TILE - at, drawing, bus);
        if !drawing {
            let last_tile = TO_LAST_TILE - 8 - fine;
            self.scanline_x = last_tile;
            self.screen_x = last_tile;
            self.bg_fifo_len = 8;
            self.fetcher_step = 0;
        }
        self.line_dot = self.line_dot.wrapping_add(dots_taken as u16);
        #[cfg(debug_assertions)]
        self.check_against_dots(start, dots, dots_taken, bus);
        dots_taken
    }

    /// The next `pixels` pixels out, from one on which the fetcher has taken the steps of
    /// plain dots: drawing, the background's drains (the object FIFO's pixels drawn over
    /// them); not drawing, only the object FIFO's pops (the positions move at the end).
    #[inline(always)]
    fn pixels_out(&mut self, pixels: u8, drawing: bool, bus: &mut Ctx) {
        if drawing {
            self.drain_pixels(pixels, bus);
        } else {
            self.pop_object_pixels(pixels);
        }
    }

    /// Drawing: `pixels` plain dots' pixels out from here as the drains do them: the rest
    /// of the FIFO's tile, the tiles left of the screen one by one, the others as a span,
    /// then part of the next. Each dot is plain: no object is due before the last.
    fn drain_pixels(&mut self, mut pixels: u8, bus: &mut Ctx) {
        let in_fifo = self.bg_fifo_len;
        if pixels < in_fifo {
            if pixels != 0 {
                self.mode3_part_drain(pixels, bus);
            }
            return;
        }
        self.mode3_drain(in_fifo, bus);
        pixels -= in_fifo;
        while pixels >= 8 && self.scanline_x >= 160 {
            self.mode3_drain(8, bus);
            pixels -= 8;
        }
        if pixels >= 8 {
            self.drain_tiles::<false>(pixels / 8, bus);
        }
        if !pixels.is_multiple_of(8) {
            self.mode3_part_drain(pixels % 8, bus);
        }
    }

    /// The object FIFO after `pixels` more pixels have left it.
    #[inline(always)]
    fn pop_object_pixels(&mut self, pixels: u8) {
        let shift = |plane: u8| (u16::from(plane) << pixels.min(8)) as u8;
        self.obj_fifo_low = shift(self.obj_fifo_low);
        self.obj_fifo_high = shift(self.obj_fifo_high);
        self.obj_fifo_palette = shift(self.obj_fifo_palette);
        self.obj_fifo_priority = shift(self.obj_fifo_priority);
    }

    /// Debug builds: the `taken` dots from `start` (`Mode3Start`'s state) run one by one
    /// reach this state (not drawing, but for the background's bytes, left stale here and
    /// overwritten before they are read), and the line's `dots` end as those from here do.
    #[cfg(debug_assertions)]
    fn check_against_dots(&self, start: Self, dots: u32, taken: u32, bus: &Ctx) {
        let at_last_tile = start.after_dots_one_by_one(taken, bus);
        let mut mine = *self;
        if bus.frame.is_none() {
            mine.bg_fifo_low = at_last_tile.bg_fifo_low;
            mine.bg_fifo_high = at_last_tile.bg_fifo_high;
            mine.fetch_tile_number = at_last_tile.fetch_tile_number;
            mine.fetch_tile_low = at_last_tile.fetch_tile_low;
            mine.fetch_tile_high = at_last_tile.fetch_tile_high;
        }
        debug_assert_eq!(mine, at_last_tile);
        let expected = start.after_dots_one_by_one(dots, bus);
        debug_assert_eq!(self.after_run_drawing_nothing(dots - taken, bus), expected);
    }
}
