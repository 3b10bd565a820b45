//! The colour counterpart of the DMG drain (`lazy.rs`): the background FIFO's remaining
//! pixels go out at once on a CGB (either colour mode), while the CGB fetcher finishes its
//! tile and pushes it at the last dot; and the CGB's spans of whole tiles
//! (`draw_colour_tiles`, for `span.rs`), which the same reasons make exact.
//!
//! `mode3_drain_length` decides when this is exact; it holds for both pipelines because
//! nothing that decides a pixel can change within a span:
//! - registers are written between runs (`apply_deferred`), never within one;
//! - VRAM, so tile numbers, attributes and data, is locked in mode 3;
//! - palette RAM is locked in mode 3 (`CgbState::write`), so the span's background
//!   colours are decoded once, from the one tile's attributes in the FIFO;
//! - no object is fetched or dropped within it, so the object FIFO only shifts.
//!
//! `crates/harness/tests/render_oracle.rs` compares it with dot-by-dot stepping every frame
//! (cgb-acid2 and cgb-acid-hell among the workloads: attributes, flips, priorities).

use super::colour::{ATTRIBUTE_PALETTE, cgb_tile_address, tile_bank, x_flipped};
use super::colour_rows::ColourQuad;
use super::lazy::{SPREAD, Shades};
use super::*;
use crate::cgb::palette_colours;

/// Background palette RAM, or none (a DMG's context): every colour 0.
#[inline(always)]
fn bg_palettes(cgb: Option<&CgbState>) -> &[u8; 64] {
    cgb.map_or(&[0; 64], |cgb| &cgb.bg_palettes)
}

/// How background rows are coloured while nothing that decides it can change (a drain, a
/// span): worked out once (`PpuState::background_colours`), applied to each tile row.
#[derive(Clone, Copy)]
pub(super) struct BackgroundColours<'a> {
    /// CGB mode; else compatibility mode.
    cgb_mode: bool,
    /// Palette RAM's background palettes.
    palettes: &'a [u8; 64],
    /// Compatibility mode: each colour number's shade through BGP (colour 0's for all of
    /// them while LCDC bit 0 blanks the background).
    shades: Shades,
    /// Compatibility mode: the shades coloured through background palette 0.
    compatibility: ColourQuad,
    /// Compatibility mode: `shades` as a quad (each colour number's shade).
    shade_quad: ColourQuad,
}

impl BackgroundColours<'_> {
    /// A background tile row (bit planes as fetched, bit 7 - i is pixel i) as the frames
    /// get it: pixel i's frame value in byte i, and the pixels' RGB555 colours. In CGB mode
    /// the value is the colour number, coloured through the palette of the tile's
    /// `attributes`; in compatibility mode it is the shade BGP gives, coloured through
    /// background palette 0. The one source of background colours for the spans.
    #[inline(always)]
    pub(super) fn row(&self, low: u8, high: u8, attributes: u8) -> (u64, [u16; 8]) {
        let numbers = if self.cgb_mode {
            self.numbers_in::<true>(low, high)
        } else {
            self.numbers_in::<false>(low, high)
        };
        (numbers, self.quad(attributes).pixels(low, high))
    }

    /// `row`'s frame values in CGB mode (`CGB_MODE`) or compatibility mode, which the
    /// caller knows: a loop over a span's tiles then keeps only what its mode needs.
    #[inline(always)]
    pub(super) fn numbers_in<const CGB_MODE: bool>(&self, low: u8, high: u8) -> u64 {
        debug_assert_eq!(self.cgb_mode, CGB_MODE);
        if CGB_MODE {
            SPREAD[usize::from(low)] | (SPREAD[usize::from(high)] << 1)
        } else {
            self.shades.row(low, high)
        }
    }

    /// `quad` where the caller knows the colour mode is CGB mode.
    #[inline(always)]
    fn quad_in_cgb_mode(&self, attributes: u8) -> ColourQuad {
        debug_assert!(self.cgb_mode);
        ColourQuad::from_palette(self.palettes, attributes & ATTRIBUTE_PALETTE)
    }

    /// `row`'s colours for each colour number, for a tile with `attributes`.
    #[inline(always)]
    pub(super) fn quad(&self, attributes: u8) -> ColourQuad {
        if self.cgb_mode {
            ColourQuad::from_palette(self.palettes, attributes & ATTRIBUTE_PALETTE)
        } else {
            self.compatibility
        }
    }
}

/// The background map row at `map_row` (its column 0) as a span reads it: each entry's
/// tile number in the low byte and, in CGB mode (`CGB_MODE`), its attributes (VRAM bank 1)
/// in the high byte; twice over, so that a span of at most 32 tiles starting in any column
/// reads its entries in order, the wrap to column 0 included, without a test per tile.
#[inline(always)]
fn map_row_entries<const CGB_MODE: bool>(
    bank0: &[u8; 0x2000],
    bank1: &[u8; 0x2000],
    map_row: usize,
) -> [u16; 64] {
    let row = map_row >> 5;
    let tiles = &bank0.as_chunks::<32>().0[row];
    let attributes = if CGB_MODE {
        &bank1.as_chunks::<32>().0[row]
    } else {
        &[0; 32]
    };
    let once = interleaved(tiles, attributes);
    let mut entries = [0; 64];
    entries[..32].copy_from_slice(&once);
    entries[32..].copy_from_slice(&once);
    entries
}

/// `tiles[i]` and `attributes[i]` as the little-endian halves of entry i.
#[inline(always)]
fn interleaved(tiles: &[u8; 32], attributes: &[u8; 32]) -> [u16; 32] {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    {
        // SAFETY: the cfg above makes SSE2, the only feature `interleaved_sse2` enables,
        // part of this build's target (it is in every x86_64 CPU).
        unsafe { interleaved_sse2(tiles, attributes) }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
    {
        interleaved_bytes(tiles, attributes)
    }
}

/// `interleaved` in four byte unpacks: a loop over the bytes is not vectorized, and cost
/// more than the tiles it saves.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
fn interleaved_sse2(tiles: &[u8; 32], attributes: &[u8; 32]) -> [u16; 32] {
    use core::arch::x86_64::{__m128i, _mm_unpackhi_epi8, _mm_unpacklo_epi8};
    let [t0, t1] = bytemuck::cast::<[u8; 32], [__m128i; 2]>(*tiles);
    let [a0, a1] = bytemuck::cast::<[u8; 32], [__m128i; 2]>(*attributes);
    // x86 is little-endian: byte 2i of the unpacked pair is its low byte.
    bytemuck::cast::<[__m128i; 4], [u16; 32]>([
        _mm_unpacklo_epi8(t0, a0),
        _mm_unpackhi_epi8(t0, a0),
        _mm_unpacklo_epi8(t1, a1),
        _mm_unpackhi_epi8(t1, a1),
    ])
}

/// `interleaved` byte by byte, where SSE2 is missing (and its oracle in the tests).
#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
fn interleaved_bytes(tiles: &[u8; 32], attributes: &[u8; 32]) -> [u16; 32] {
    core::array::from_fn(|i| u16::from_le_bytes([tiles[i], attributes[i]]))
}

impl PpuState {
    /// `length` plain dots on a CGB: the same effects, in the same order, as that many
    /// `Mode3Dot` steps (`output_colour_pixel`, then `tick_cgb_fetcher`, each dot).
    pub(super) fn mode3_colour_drain(&mut self, length: u8, bus: &mut Ctx) {
        let start_x = self.scanline_x;
        // Pixels left of column 0 are popped and dropped (fine scroll).
        let discarded = if start_x >= 160 {
            (256 - u16::from(start_x)).min(u16::from(length)) as u8
        } else {
            0
        };
        let shown = length - discarded;
        if shown != 0 && (bus.frame.is_some() || bus.frame_rgb.is_some()) {
            self.draw_colour_span(discarded, length, bus);
        }
        self.shift_object_fifo(length);
        self.screen_x += shown;
        if shown != 0 {
            self.window_fetch_starting = 0;
        }
        self.finish_cgb_fetch(start_x, bus);
        self.scanline_x = start_x.wrapping_add(length);
        // Every pixel is out: the fetcher's push at the last dot finds the FIFO empty.
        self.bg_fifo_len = 0;
        self.try_push_background();
        self.push_cgb_attributes();
    }

    /// The CGB fetcher's steps from `fetcher_step` up to its high data byte, as the span's
    /// dots run them: dot j (1-based) runs step `fetcher_step + j - 1`, after its pixel is
    /// out. The span ends when the FIFO is empty, the step-5 dot or later, so the push
    /// follows.
    pub(super) fn finish_cgb_fetch(&mut self, start_x: u8, bus: &Ctx) {
        let start_step = self.fetcher_step.min(6);
        // The drain's conditions rule out a window handed back at step 0 and the tile-data
        // glitch (`read_cgb_tile_data`).
        if start_step == 0 {
            // Step 0 runs at dot 1, one pixel on.
            self.scanline_x = start_x.wrapping_add(1);
            self.choose_map_entry(false);
        }
        if start_step <= 1 {
            self.read_map_entry(bus);
        }
        // Steps 2 and 4 latch LCDC bit 4, which cannot change within the span; both data
        // bytes come from one bank. The drain rules out the tile-data glitches.
        let tile_sel = u8::from(self.lcdc & LCDC_TILE_DATA != 0);
        let bank = self.tile_data_bank(bus);
        if start_step <= 2 {
            self.fetch_tile_sel = tile_sel;
        }
        let (mut address, mut low_half) = self.cgb_tile_address();
        if start_step <= 3 {
            self.fetch_tile_low = bank[address];
            if low_half {
                self.set_low_half_latch(self.fetch_tile_low);
            }
        }
        if start_step <= 4 && self.fetch_tile_sel != tile_sel {
            // A write between runs changed the bit after step 2 latched it.
            self.fetch_tile_sel = tile_sel;
            (address, low_half) = self.cgb_tile_address();
        }
        if start_step <= 5 {
            self.fetch_tile_high = bank[address | 1];
            if low_half {
                self.set_low_half_latch(self.fetch_tile_high);
            }
            if self.in_window != 0 {
                self.fetcher_window_x = self.fetcher_window_x.wrapping_add(1);
            }
        }
    }

    /// Writes the pixels `discarded..length` of the FIFO (bit 7 - i is pixel i) through
    /// palette RAM, as `output_colour` does one at a time: the background of the whole tile
    /// at once, as bit masks per colour (as the DMG drain does with its bit planes), then
    /// the few object pixels that win over it.
    pub(super) fn draw_colour_span(&self, discarded: u8, length: u8, bus: &mut Ctx) {
        let cgb = bus.cgb;
        let background = self.background_colours(bg_palettes(cgb));
        let (numbers, mut colours) =
            background.row(self.bg_fifo_low, self.bg_fifo_high, self.bg_fifo_attributes);
        let (low, high) = self.shown_background(self.bg_fifo_low, self.bg_fifo_high);
        let mut numbers = numbers.to_le_bytes();
        let opaque = self.obj_fifo_low | self.obj_fifo_high;
        if self.lcdc & LCDC_OBJ_ENABLE != 0 && opaque != 0 {
            let shown = 0xFF >> discarded;
            let winners = self.object_wins(opaque, self.obj_fifo_priority, low | high) & shown;
            self.draw_objects_over(winners, &mut numbers, &mut colours, cgb);
        }
        let skip = usize::from(discarded);
        let shown = usize::from(length - discarded);
        let start = usize::from(self.ly) * SCREEN_WIDTH + usize::from(self.screen_x);
        let row = start..start + shown;
        if let Some(out) = bus
            .frame
            .as_deref_mut()
            .and_then(|frame| frame.get_mut(row.clone()))
        {
            match <&mut [u8; 8]>::try_from(&mut *out) {
                Ok(whole_tile) => *whole_tile = numbers,
                Err(_) => out.copy_from_slice(&numbers[skip..skip + shown]),
            }
        }
        if let Some(out) = bus
            .frame_rgb
            .as_deref_mut()
            .and_then(|frame| frame.get_mut(row))
        {
            match <&mut [u16; 8]>::try_from(&mut *out) {
                Ok(whole_tile) => *whole_tile = colours,
                Err(_) => out.copy_from_slice(&colours[skip..skip + shown]),
            }
        }
    }

    /// A CGB span of `tiles` whole tiles drawn (`drain_tiles`). Every tile is on screen
    /// (`whole_tiles` keeps the span within columns 0..160) and only the first can show
    /// object pixels (the object FIFO is empty after it): that one goes as
    /// `mode3_colour_drain` does it when it may, and, as in `draw_dmg_tiles`, each other
    /// tile's background goes out and the next tile's map entry, attributes and data bytes
    /// come in, with the fetcher and FIFO state set once at the end (`finish_cgb_fetch` and
    /// the push, for fetcher step 0 and no glitch).
    pub(super) fn draw_colour_tiles(&mut self, tiles: u8, bus: &mut Ctx) {
        if self.colour_mode == MODE_CGB {
            self.draw_colour_tiles_in::<true>(tiles, bus);
        } else {
            self.draw_colour_tiles_in::<false>(tiles, bus);
        }
    }

    /// `draw_colour_tiles` in CGB mode (`CGB_MODE`) or compatibility mode: one loop each,
    /// which keeps only what its mode needs (one loop for both cost CGB mode's tiles more).
    #[inline(always)]
    fn draw_colour_tiles_in<const CGB_MODE: bool>(&mut self, tiles: u8, bus: &mut Ctx) {
        let objects_shown =
            self.lcdc & LCDC_OBJ_ENABLE != 0 && (self.obj_fifo_low | self.obj_fifo_high) != 0;
        let rest = if objects_shown {
            self.mode3_colour_drain(8, bus);
            tiles - 1
        } else {
            // The object pixels the first tile pops are all transparent or not shown.
            self.shift_object_fifo(8);
            tiles
        };
        if rest == 0 {
            return;
        }
        // Each tile's step 0 chooses its map entry one dot on; the column then moves one
        // entry per tile (wrapping in the row of 32), or for the window one per fetch. The
        // row source, LCDC bit 4 (latched at steps 2 and 4) and the colour mode cannot
        // change within the span.
        let (entry, y) = self.map_entry_at(self.scanline_x.wrapping_add(1), false);
        let map_row = super::fetcher::map_address(entry & 0x80, y);
        let tile_sel = u8::from(self.lcdc & LCDC_TILE_DATA != 0);
        let background = self.background_colours(bg_palettes(bus.cgb));
        let (vram, vram_bank1) = (bus.vram, bus.vram_bank1);
        let entries = map_row_entries::<CGB_MODE>(vram, vram_bank1, map_row);
        let first = usize::from(entry & 0x1F);
        let span = &entries[first..first + usize::from(rest)];
        let attributes = self.bg_fifo_attributes;
        // Neighbouring tiles mostly share a palette: the loop keeps the last one's colours.
        let mut palette = attributes & ATTRIBUTE_PALETTE;
        let mut quad = background.quad(attributes);
        let at = usize::from(self.ly) * SCREEN_WIDTH + usize::from(self.screen_x);
        let row = at..at + 8 * usize::from(rest);
        let frame = bus
            .frame
            .as_deref_mut()
            .and_then(|frame| frame.get_mut(row.clone()));
        let frame_rgb = bus
            .frame_rgb
            .as_deref_mut()
            .and_then(|frame| frame.get_mut(row));
        // The machine's contexts draw into both frames or neither; one alone draws into a
        // spare row for the other.
        let (mut spare, mut spare_rgb): ([u8; SCREEN_WIDTH], [u16; SCREEN_WIDTH]);
        let (numbers_out, rgb_out) = match (frame, frame_rgb) {
            (Some(frame), Some(frame_rgb)) => (frame, frame_rgb),
            (frame, frame_rgb) => {
                spare = [0; SCREEN_WIDTH];
                spare_rgb = [0; SCREEN_WIDTH];
                let len = 8 * usize::from(rest);
                (
                    frame.unwrap_or(&mut spare[..len]),
                    frame_rgb.unwrap_or(&mut spare_rgb[..len]),
                )
            }
        };
        // Within a span a map entry's tile and attributes decide its row (VRAM, the row
        // source and LCDC bit 4 cannot change), so an entry like the previous one (blank
        // space, a run of one tile) is that row again: only a new entry is fetched and
        // expanded, at once, which keeps only the expanded row live from tile to tile. The
        // FIFO's tile goes first, its entry unknown (`fetched_entry` none of 0..=0xFFFF).
        let mut fetched_entry = u32::MAX;
        let mut numbers = background.numbers_in::<CGB_MODE>(self.bg_fifo_low, self.bg_fifo_high);
        let mut colours = quad.pixels(self.bg_fifo_low, self.bg_fifo_high);
        let rows = numbers_out.as_chunks_mut::<8>().0.iter_mut();
        let rows = rows.zip(rgb_out.as_chunks_mut::<8>().0).zip(span);
        for ((out, out_rgb), &entry) in rows {
            *out = numbers.to_le_bytes();
            *out_rgb = colours;
            if u32::from(entry) == fetched_entry {
                continue;
            }
            fetched_entry = u32::from(entry);
            let [tile, attributes] = entry.to_le_bytes();
            // Compatibility mode's entries have none (the compiler cannot see they are 0).
            let attributes = if CGB_MODE { attributes } else { 0 };
            let (address, _) = cgb_tile_address(tile, tile_sel, y, attributes);
            let bank = tile_bank(attributes, vram, vram_bank1);
            let (low, high) = x_flipped(attributes, bank[address], bank[address | 1]);
            if CGB_MODE && attributes & ATTRIBUTE_PALETTE != palette {
                palette = attributes & ATTRIBUTE_PALETTE;
                quad = background.quad_in_cgb_mode(attributes);
            }
            if CGB_MODE {
                numbers = background.numbers_in::<true>(low, high);
                colours = quad.pixels(low, high);
            } else {
                (colours, numbers) = quad.pixels_and_bytes(background.shade_quad, low, high);
            }
        }
        // The last tile's fetch, as the fetcher leaves it, read again (once a span): the
        // loop keeps only its expanded row. Its entry is the last one fetched.
        let [tile, attributes] = (fetched_entry as u16).to_le_bytes();
        let (address, _) = cgb_tile_address(tile, tile_sel, y, attributes);
        let bank = tile_bank(attributes, vram, vram_bank1);
        let (fetched_low, fetched_high) = (bank[address], bank[address | 1]);
        let column = (first + usize::from(rest) - 1) as u8;
        self.fetch_tile_number = tile;
        (self.fetch_tile_low, self.fetch_tile_high) = (fetched_low, fetched_high);
        self.move_on_tiles(rest);
        self.window_fetch_starting = 0;
        self.fetch_map_entry = (entry & 0x80) | (column & 0x1F);
        self.fetcher_y = y;
        self.fetch_tile_attributes = attributes;
        self.fetch_tile_sel = tile_sel;
        (self.bg_fifo_low, self.bg_fifo_high) = x_flipped(attributes, fetched_low, fetched_high);
        self.bg_fifo_attributes = attributes;
        // The low-half latch holds the high data byte of the last tile read from
        // 0x8000-0x8FFF (`cgb_tile_address`): found once after the loop, which keeps it out
        // of the loop's registers. With LCDC bit 4 set every tile is read from there, else
        // tiles 0x80..=0xFF are; an entry like the one before it is its fetch again.
        let latched = if tile_sel != 0 {
            span.last()
        } else {
            span.iter().rev().find(|&&entry| entry & 0x80 != 0)
        };
        if let Some(&latched) = latched {
            let [tile, attributes] = latched.to_le_bytes();
            let attributes = if CGB_MODE { attributes } else { 0 };
            let (address, _) = cgb_tile_address(tile, tile_sel, y, attributes);
            self.set_low_half_latch(tile_bank(attributes, vram, vram_bank1)[address | 1]);
        }
    }

    /// A background tile row's bit planes as they decide object priority: in compatibility
    /// mode a clear LCDC bit 0 blanks the background to colour 0; in CGB mode it only gives
    /// objects priority.
    #[inline(always)]
    pub(super) fn shown_background(&self, low: u8, high: u8) -> (u8, u8) {
        if self.colour_mode == MODE_CGB || self.lcdc & LCDC_BG_ENABLE != 0 {
            (low, high)
        } else {
            (0, 0)
        }
    }

    /// How this PPU colours background rows (`BackgroundColours::row`) from
    /// `bg_palettes`, for as long as no register changes (a drain, a span).
    #[inline(always)]
    pub(super) fn background_colours<'a>(
        &self,
        bg_palettes: &'a [u8; 64],
    ) -> BackgroundColours<'a> {
        let cgb_mode = self.colour_mode == MODE_CGB;
        let enabled = self.lcdc & LCDC_BG_ENABLE != 0;
        let (compatibility, shade_quad) = if cgb_mode {
            // Not used: CGB mode's colours come from each tile's palette.
            (ColourQuad::new([0; 4]), ColourQuad::new([0; 4]))
        } else {
            // Compatibility mode blanks the background to colour 0 while LCDC bit 0 is clear.
            let shade = |colour: u8| {
                let colour = if enabled { colour } else { 0 };
                (self.bgp >> (2 * colour)) & 3
            };
            let shades = [0, 1, 2, 3].map(shade);
            let palette0 = palette_colours(bg_palettes, 0);
            (
                ColourQuad::new(shades.map(|shade| palette0[usize::from(shade)])),
                ColourQuad::new(shades.map(u16::from)),
            )
        };
        BackgroundColours {
            cgb_mode,
            palettes: bg_palettes,
            shades: Shades::new(self.bgp, enabled),
            compatibility,
            shade_quad,
        }
    }

    /// Writes the object pixels in `winners` (bit 7 - i is pixel i; the FIFO's opaque
    /// pixels that `object_wins` puts over the background) into `numbers` / `colours`.
    fn draw_objects_over(
        &self,
        mut winners: u8,
        numbers: &mut [u8; 8],
        colours: &mut [u16; 8],
        cgb: Option<&CgbState>,
    ) {
        while winners != 0 {
            let i = winners.leading_zeros();
            winners &= !(0x80 >> i);
            let bit = 7 - i;
            let plane = |byte: u8| (byte >> bit) & 1;
            let obj_colour = (plane(self.obj_fifo_high) << 1) | plane(self.obj_fifo_low);
            let mut palette = plane(self.obj_fifo_palette);
            if self.colour_mode == MODE_CGB {
                palette |= (plane(self.obj_fifo_palette_bit1) << 1)
                    | (plane(self.obj_fifo_palette_bit2) << 2);
            }
            let (number, rgb) = self.object_colour(cgb, obj_colour, palette);
            let i = i as usize;
            numbers[i] = number;
            colours[i] = rgb;
        }
    }

    /// Pops `length` pixels off every object FIFO plane (in CGB mode also the palette bits
    /// 1..=2 and the OAM indices, which refill with 0xFF as `shift_cgb_object_fifo` does).
    pub(super) fn shift_object_fifo(&mut self, length: u8) {
        if self.object_fifo_is_empty() {
            // Nothing to pop: every plane stays 0 and every OAM index 0xFF.
            return;
        }
        let shift = |plane: u8| (u16::from(plane) << length) as u8;
        self.obj_fifo_low = shift(self.obj_fifo_low);
        self.obj_fifo_high = shift(self.obj_fifo_high);
        self.obj_fifo_palette = shift(self.obj_fifo_palette);
        self.obj_fifo_priority = shift(self.obj_fifo_priority);
        if self.colour_mode == MODE_CGB {
            self.obj_fifo_palette_bit1 = shift(self.obj_fifo_palette_bit1);
            self.obj_fifo_palette_bit2 = shift(self.obj_fifo_palette_bit2);
            // Slot 0 is the next pixel: popping `length` pixels shifts the bytes down.
            let bits = 8 * u32::from(length);
            let indices = u64::from_le_bytes(self.obj_fifo_oam_index);
            let popped = indices.checked_shr(bits).unwrap_or(0)
                | u64::MAX.checked_shl(64 - bits).unwrap_or(0);
            self.obj_fifo_oam_index = popped.to_le_bytes();
        }
    }

    /// Whether popping pixels off the object FIFO would change nothing: every plane it
    /// shifts is 0 and, in CGB mode, every OAM index 0xFF (what a pop refills).
    #[inline(always)]
    fn object_fifo_is_empty(&self) -> bool {
        let planes =
            self.obj_fifo_low | self.obj_fifo_high | self.obj_fifo_palette | self.obj_fifo_priority;
        if self.colour_mode == MODE_CGB {
            planes | self.obj_fifo_palette_bit1 | self.obj_fifo_palette_bit2 == 0
                && u64::from_le_bytes(self.obj_fifo_oam_index) == u64::MAX
        } else {
            planes == 0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_interleavings_agree() {
        let tiles: [u8; 32] = core::array::from_fn(|i| (i * 37 + 5) as u8);
        let attributes: [u8; 32] = core::array::from_fn(|i| (i * 91 + 200) as u8);
        let entries = interleaved(&tiles, &attributes);
        assert_eq!(entries, interleaved_bytes(&tiles, &attributes));
        assert_eq!(entries[3], u16::from_le_bytes([tiles[3], attributes[3]]));
    }
}
