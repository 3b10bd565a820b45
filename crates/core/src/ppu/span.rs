//! Multi-tile mode-3 spans: after a drain (`lazy.rs`) the background FIFO holds one whole
//! tile and the fetcher is at step 0, so the next drains, as long as nothing mid-tile can
//! happen, are whole tiles of 8 dots each. `whole_tiles` counts them once, from the same
//! conditions `mode3_drain_length` checks per tile, and `drain_tiles` does them in a row.
//!
//! Not drawing (`Ctx::frame` and `frame_rgb` None), a span's only lasting effects are those
//! of its last tile (its number, attributes and data bytes in the fetcher and the FIFO, the
//! positions, the emptied object FIFO) and, on a CGB, the last byte read from VRAM
//! 0x8000-0x8FFF (`tile_sel.rs`): the span jumps to its last tile and drains only that one,
//! after reading, if needed, the one earlier tile that set the latch last.
//!
//! Only the positions move from one tile of a span to the next (registers, VRAM, the object
//! list and the glitch latches cannot change within a run), so each condition is a bound on
//! the number of tiles. Debug builds check each span against that many single drains;
//! `crates/harness/tests/render_oracle.rs` compares fast and plain, drawing and not.

use super::lazy::{SPREAD, Shades};
use super::window::WINDOW_GLITCH_ARMED;
use super::*;

/// Tiles of a span are at most the screen's 20, which any bound here exceeds.
const NO_BOUND: u16 = 255;

/// How many tiles k = 0, 1, .. starting at columns `start + 8k` come before the first one
/// whose window of columns `start + 8k + near ..= start + 8k + far` holds `value` (`near`
/// None: unbounded to the left). Windows at least 8 wide leave no gap, so it is the first
/// tile whose `far` end reaches `value`, unless `value` is left of the first window.
fn tiles_before(value: u16, start: u16, near: Option<u16>, far: u16) -> u16 {
    if near.is_some_and(|near| value < start + near) {
        return NO_BOUND;
    }
    if value <= start + far {
        return 0;
    }
    (value - start - far - 1) / 8 + 1
}

impl PpuState {
    /// The number of whole tiles (8 dots each, with `dots` to run and one dot left over, as
    /// `run_plain_dots` leaves it) that `mode3_drain_length` would let drain one after the
    /// other from here: the FIFO holds a whole tile, the fetcher is at step 0 and the pixels
    /// are on screen. Mirrors its conditions for `length` 8 (`last` 7), as bounds.
    #[inline(always)]
    pub(super) fn whole_tiles(&self, dots: u32) -> u8 {
        let start = u16::from(self.scanline_x);
        let screen = u16::from(self.screen_x);
        if self.bg_fifo_len != 8
            || self.fetcher_step != 0
            || (self.insert_background_pixel | self.tile_sel_glitch) != 0
            || start >= 160
            || dots < 9
        {
            return 0;
        }
        // Dots, and the screen's end for both positions: a tile's last pixel at most the
        // line's 160th.
        let mut tiles = ((dots - 1) / 8).min(u32::from(NO_BOUND)) as u16;
        tiles = tiles.min(tiles_before(160, start, None, 7));
        tiles = tiles.min(tiles_before(160, screen, None, 7));
        if self.sprite_count != 0 {
            // The next object must stay right of `scanline_x + last + 8`.
            let x = self.sprites[usize::from(self.sprite_count.min(10) - 1) * 4 + 1];
            tiles = tiles.min(tiles_before(u16::from(x), start, None, 15));
        }
        let wx = u16::from(self.wx);
        if self.in_window == 0 {
            if self.window_y_reached != 0 {
                if self.lcdc & LCDC_WINDOW_ENABLE != 0 {
                    if wx == 0 {
                        return 0;
                    }
                    if wx < 167 {
                        tiles = tiles.min(tiles_before(wx, start, Some(6), 14));
                    }
                } else if self.disabled_window_glitch == WINDOW_GLITCH_ARMED {
                    if wx == 0 {
                        return 0;
                    }
                    tiles = tiles.min(tiles_before(wx, start, Some(7), 15));
                }
            }
        } else if self.lcdc & LCDC_WINDOW_ENABLE == 0 {
            return 0;
        } else {
            tiles = tiles.min(tiles_before(wx, screen, Some(7), 14));
        }
        tiles as u8
    }

    /// `tiles` whole-tile drains (`whole_tiles` allows them): the same effects as that many
    /// `mode3_drain` / `mode3_colour_drain` calls of 8 dots.
    pub(super) fn drain_tiles<const COLOUR: bool>(&mut self, tiles: u8, bus: &mut Ctx) {
        #[cfg(debug_assertions)]
        let expected = {
            let mut copy = *self;
            let mut ignored = 0;
            let mut probe = Ctx::look_ahead(bus.memory(), &mut ignored);
            for _ in 0..tiles {
                debug_assert_eq!(copy.mode3_drain_length::<COLOUR>(), 8);
                copy.drain::<COLOUR>(8, &mut probe);
            }
            copy
        };
        if !COLOUR && let Some(frame) = bus.frame.as_deref_mut() {
            self.draw_dmg_tiles(tiles, frame, bus.vram);
        } else if COLOUR && (bus.frame.is_some() || bus.frame_rgb.is_some()) {
            self.draw_colour_tiles(tiles, bus);
        } else if bus.frame.is_some() || bus.frame_rgb.is_some() {
            for _ in 0..tiles {
                self.drain::<COLOUR>(8, bus);
            }
        } else {
            self.skip_tiles::<COLOUR>(tiles, bus);
        }
        #[cfg(debug_assertions)]
        debug_assert_eq!(*self, expected);
    }

    #[inline(always)]
    fn drain<const COLOUR: bool>(&mut self, length: u8, bus: &mut Ctx) {
        if COLOUR {
            self.mode3_colour_drain(length, bus);
        } else {
            self.mode3_drain(length, bus);
        }
    }

    /// A span not drawn: its positions move to the last tile, which drains as usual. On a
    /// CGB, an earlier tile read from 0x8000-0x8FFF last if the last tile does not: that one
    /// is fetched first, for the latch (the last tile's fetch overwrites the rest).
    fn skip_tiles<const COLOUR: bool>(&mut self, tiles: u8, bus: &mut Ctx) {
        let (start, screen, window_x) = (self.scanline_x, self.screen_x, self.fetcher_window_x);
        let last = tiles - 1;
        let place = |ppu: &mut Self, tile: u8| {
            ppu.scanline_x = start.wrapping_add(8 * tile);
            ppu.screen_x = screen + 8 * tile;
            if ppu.in_window != 0 {
                ppu.fetcher_window_x = window_x.wrapping_add(tile);
            }
        };
        if COLOUR && self.lcdc & LCDC_TILE_DATA == 0 {
            // Bit 4 clear: only tiles 128..=255 (at 0x8800-0x8FFF) set the latch.
            let mut tile = tiles;
            while tile > 0 {
                tile -= 1;
                place(self, tile);
                // The tile number as the fetcher's step 0 chooses it, one dot on.
                let (entry, y) = self.map_entry_at(self.scanline_x.wrapping_add(1), false);
                if bus.vram[super::fetcher::map_address(entry, y)] >= 0x80 {
                    if tile != last {
                        self.finish_cgb_fetch(self.scanline_x, bus);
                    }
                    break;
                }
            }
        }
        place(self, last);
        self.drain::<COLOUR>(8, bus);
    }

    /// A DMG span drawn into `frame`: each tile's background shades out and the next tile's
    /// three bytes in, with the fetcher and FIFO state set once at the end; the first tile
    /// with the object pixels still in the FIFO drawn over it, as `mode3_drain` does (the
    /// FIFO is empty after it: its eight pops shift every plane out).
    fn draw_dmg_tiles(&mut self, tiles: u8, frame: &mut [u8], vram: &[u8; 0x2000]) {
        // The DMG reads each tile number at the tile's second dot (`mode3_drain`); the map
        // column then moves one entry per tile (wrapping in the row of 32), or for the
        // window one per fetch.
        let (entry, y) = self.map_entry_at(self.scanline_x.wrapping_add(2), false);
        let map_row = super::fetcher::map_address(entry & 0x80, y);
        // Everything that cannot change within the span in locals (stores into the frame
        // would otherwise make each tile load them again). A tile's row address as
        // `tile_row_address` forms it: with LCDC bit 4 clear, tile t sits at
        // 0x800 + (t ^ 0x80) * 16, set at t * 16.
        let flip = if self.lcdc & LCDC_TILE_DATA == 0 {
            0x80
        } else {
            0
        };
        let row_base = self.tile_row_address(flip);
        let shades = Shades::looked_up(self.bgp, self.lcdc & LCDC_BG_ENABLE != 0);
        let (mut low, mut high) = (self.bg_fifo_low, self.bg_fifo_high);
        let at = usize::from(self.ly) * SCREEN_WIDTH + usize::from(self.screen_x);
        // `whole_tiles` keeps the span on screen; were it not, a spare row takes the pixels.
        let len = 8 * usize::from(tiles);
        let mut spare: [u8; SCREEN_WIDTH];
        let row = match frame.get_mut(at..at + len) {
            Some(row) => row,
            None => {
                spare = [0; SCREEN_WIDTH];
                &mut spare[..len]
            }
        };
        // The FIFO's tile first, with the object pixels still in the FIFO over it; its
        // eight pops leave the object FIFO empty for the others.
        let (bg0, bg1) = if self.lcdc & LCDC_BG_ENABLE != 0 {
            (SPREAD[usize::from(low)], SPREAD[usize::from(high)])
        } else {
            (0, 0)
        };
        let mut shaded = self.objects_over(shades.row(low, high), bg0, bg1);
        self.obj_fifo_low = 0;
        self.obj_fifo_high = 0;
        self.obj_fifo_palette = 0;
        self.obj_fifo_priority = 0;
        self.window_fetch_starting = 0;
        // The span's tile numbers in one slice: the map row itself, or where the column
        // wraps in the row of 32, the row twice in a row (no mask per tile). Tile k (from
        // 1) shows the number read during tile k - 1; the last number read is fetched,
        // not shown.
        let first = usize::from(entry & 0x1F);
        let span = first..first + usize::from(tiles);
        let mut doubled: [u8; 64];
        let numbers = if span.end <= 32 {
            &vram[map_row + span.start..map_row + span.end]
        } else {
            let map = &vram[map_row..map_row + 32];
            doubled = [0; 64];
            doubled[..32].copy_from_slice(map);
            doubled[32..].copy_from_slice(map);
            &doubled[span]
        };
        let (&last, numbers) = numbers.split_last().expect("a span has tiles");
        let (out, rest) = row
            .as_chunks_mut::<8>()
            .0
            .split_first_mut()
            .expect("a span has tiles");
        *out = shaded.to_le_bytes();
        // Within a span the tile number alone decides a tile's row (VRAM, the row and BGP
        // cannot change), so a tile like the previous one (blank space, a run of one tile)
        // is that row again: only a new number is fetched and shaded. The FIFO's tile
        // number counts as unknown: the first read is always fetched.
        let row_bytes = |tile: u8| {
            let address = row_base + usize::from(tile ^ flip) * 16;
            (vram[address & 0x1FFF], vram[(address + 1) & 0x1FFF])
        };
        let mut fetched = numbers.first().copied().unwrap_or(last);
        (low, high) = row_bytes(fetched);
        shaded = shades.row(low, high);
        for (out, &number) in rest.iter_mut().zip(numbers) {
            if number != fetched {
                fetched = number;
                (low, high) = row_bytes(number);
                shaded = shades.row(low, high);
            }
            *out = shaded.to_le_bytes();
        }
        if last != fetched {
            (low, high) = row_bytes(last);
        }
        self.move_on_tiles(tiles);
        self.fetch_tile_number = last;
        (self.fetch_tile_low, self.fetch_tile_high) = (low, high);
        (self.bg_fifo_low, self.bg_fifo_high) = (low, high);
    }

    /// The positions after a span's `tiles` whole tiles went out at once: the scanline and
    /// screen columns, and in the window the fetcher's column.
    #[inline(always)]
    pub(super) fn move_on_tiles(&mut self, tiles: u8) {
        self.scanline_x = self.scanline_x.wrapping_add(8 * tiles);
        self.screen_x += 8 * tiles;
        if self.in_window != 0 {
            self.fetcher_window_x = self.fetcher_window_x.wrapping_add(tiles);
        }
    }
}
