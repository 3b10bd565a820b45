//! The colour counterpart of the DMG drain (`lazy.rs`): the background FIFO's remaining
//! pixels go out at once on a CGB (either colour mode), while the CGB fetcher finishes its
//! tile and pushes it at the last dot.
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

use super::colour::ATTRIBUTE_PALETTE;
use super::lazy::SPREAD;
use super::*;

/// Per byte lane (bit planes spread by `SPREAD`, `ones` having 1 in every lane),
/// `values[c]` for the lane's colour c = 2 * high + low, given the bit planes `low`, `high`
/// and `both` (their AND) spread to lanes of 0 or 1: `value0 + low * (value1 - value0) +
/// high * (value2 - value0) + both * (value3 - value2 - value1 + value0)`. A term may be
/// negative and borrow from the next lane, but the terms add up to every lane's value in
/// place, and that fits: the wrapping sum is exact.
#[inline(always)]
fn select(ones: u64, low: u64, high: u64, both: u64, values: [u64; 4]) -> u64 {
    let [v0, v1, v2, v3] = values;
    let mixed = v3.wrapping_sub(v2).wrapping_sub(v1).wrapping_add(v0);
    ones.wrapping_mul(v0)
        .wrapping_add(low.wrapping_mul(v1.wrapping_sub(v0)))
        .wrapping_add(high.wrapping_mul(v2.wrapping_sub(v0)))
        .wrapping_add(both.wrapping_mul(mixed))
}

/// Palette `palette`'s (0..=7) four RGB555 colours, colour c in 16-bit lane c, read at once
/// from palette RAM (`bg_palettes` or `obj_palettes`: little-endian colours, bit 15 unused).
fn palette_lanes(ram: &[u8; 64], palette: u8) -> u64 {
    let (palettes, _) = ram.as_chunks::<8>();
    palettes.get(usize::from(palette & 7)).map_or(0, |&bytes| {
        u64::from_le_bytes(bytes) & 0x7FFF_7FFF_7FFF_7FFF
    })
}

/// Eight RGB555 pixels: pixel i is colour `numbers` byte i (0..=3) of the four in `lanes`
/// (colour c in 16-bit lane c, as `palette_lanes` reads them).
#[inline(always)]
pub(super) fn rgb_pixels(numbers: u64, lanes: u64) -> [u16; 8] {
    // Byte i becomes 16 * number (at most 48, so no byte carries into the next): the shift
    // that brings the number's lane down. A wrapping shift uses only the count's low 6
    // bits, so the bytes above byte i do not disturb it.
    let counts = numbers << 4;
    core::array::from_fn(|i| lanes.wrapping_shr((counts >> (8 * i)) as u32) as u16)
}

/// Background palette RAM, or none (a DMG's context): every colour 0.
#[inline(always)]
pub(super) fn bg_palettes(cgb: Option<&CgbState>) -> &[u8; 64] {
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
    shades: [u64; 4],
    /// Compatibility mode: background palette 0, which colours the shades.
    compatibility_lanes: u64,
}

impl BackgroundColours<'_> {
    /// A background tile row (bit planes as fetched, bit 7 - i is pixel i) as the frames
    /// get it: pixel i's frame value in byte i, and the four RGB555 colours the values
    /// 0..=3 stand for (`rgb_pixels` puts them together). In CGB mode the value is the
    /// colour number, coloured through the palette of the tile's `attributes`; in
    /// compatibility mode it is the shade BGP gives, coloured through background palette
    /// 0. The one source of background colours for the spans.
    #[inline(always)]
    pub(super) fn row(&self, low: u8, high: u8, attributes: u8) -> (u64, u64) {
        if self.cgb_mode {
            self.row_in::<true>(low, high, attributes)
        } else {
            self.row_in::<false>(low, high, attributes)
        }
    }

    /// `row` in CGB mode (`CGB_MODE`) or compatibility mode, which the caller knows: a loop
    /// over a span's tiles then keeps only what its mode needs.
    #[inline(always)]
    pub(super) fn row_in<const CGB_MODE: bool>(
        &self,
        low: u8,
        high: u8,
        attributes: u8,
    ) -> (u64, u64) {
        debug_assert_eq!(self.cgb_mode, CGB_MODE);
        let spread = |plane: u8| SPREAD[usize::from(plane)];
        if CGB_MODE {
            let numbers = spread(low) | (spread(high) << 1);
            let palette = attributes & ATTRIBUTE_PALETTE;
            (numbers, palette_lanes(self.palettes, palette))
        } else {
            let both = spread(low & high);
            let numbers = select(SPREAD[255], spread(low), spread(high), both, self.shades);
            (numbers, self.compatibility_lanes)
        }
    }
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
        let (numbers, lanes) =
            background.row(self.bg_fifo_low, self.bg_fifo_high, self.bg_fifo_attributes);
        let mut colours = rgb_pixels(numbers, lanes);
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
        let shades = if self.lcdc & LCDC_BG_ENABLE != 0 {
            [0, 2, 4, 6].map(|shift| u64::from((self.bgp >> shift) & 3))
        } else {
            // Compatibility mode blanks the background to colour 0.
            [u64::from(self.bgp & 3); 4]
        };
        BackgroundColours {
            cgb_mode: self.colour_mode == MODE_CGB,
            palettes: bg_palettes,
            shades,
            compatibility_lanes: palette_lanes(bg_palettes, 0),
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
