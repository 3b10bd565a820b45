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
        // LCDC cannot change within the span, so steps 2 and 4 latch the same bit.
        if start_step <= 4 {
            let tile_sel = u8::from(self.lcdc & LCDC_TILE_DATA != 0);
            if start_step <= 2 {
                self.fetch_tile_sel = tile_sel;
            }
            if start_step <= 3 {
                self.fetch_tile_low = self.read_cgb_tile_data(bus, 0);
            }
            self.fetch_tile_sel = tile_sel;
        }
        if start_step <= 5 {
            self.fetch_tile_high = self.read_cgb_tile_data(bus, 1);
            if self.in_window != 0 {
                self.fetcher_window_x = self.fetcher_window_x.wrapping_add(1);
            }
        }
    }

    /// Writes the pixels `discarded..length` of the FIFO (bit 7 - i is pixel i) through
    /// palette RAM, as `output_colour` does one at a time: the background for the whole
    /// tile at once, then the object pixels over it.
    fn draw_colour_span(&self, discarded: u8, length: u8, bus: &mut Ctx) {
        let cgb_mode = self.colour_mode == MODE_CGB;
        let cgb = bus.cgb;
        let attributes = self.bg_fifo_attributes;
        // Background: what the frame gets (colour number, or DMG shade in compatibility
        // mode) and its RGB555, per colour 0..=3. In compatibility mode a clear LCDC bit 0
        // blanks the background to colour 0 (also for object priority); in CGB mode it
        // only gives objects priority.
        let (bg_numbers, bg_palette, bg_shown) = if cgb_mode {
            ([0, 1, 2, 3], attributes & ATTRIBUTE_PALETTE, true)
        } else {
            let shades = [0, 1, 2, 3].map(|colour| (self.bgp >> (colour * 2)) & 3);
            (shades, 0, self.lcdc & LCDC_BG_ENABLE != 0)
        };
        let bg_rgb =
            bg_numbers.map(|number| cgb.map_or(0, |cgb| cgb.bg_colour(bg_palette, number)));
        // The background colour of pixel i in byte i.
        let bg_colours = if bg_shown {
            SPREAD[usize::from(self.bg_fifo_low)] | (SPREAD[usize::from(self.bg_fifo_high)] << 1)
        } else {
            0
        }
        .to_le_bytes();
        let mut numbers = bg_colours.map(|colour| bg_numbers[usize::from(colour & 3)]);
        let mut colours = bg_colours.map(|colour| bg_rgb[usize::from(colour & 3)]);
        if self.lcdc & LCDC_OBJ_ENABLE != 0 && self.obj_fifo_low | self.obj_fifo_high != 0 {
            self.draw_objects_over(
                discarded,
                length,
                &bg_colours,
                &mut numbers,
                &mut colours,
                cgb,
            );
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

    /// The object FIFO's opaque pixels among `discarded..length` that win over the
    /// background (`bg_colours`, pixel i in byte i) replace it in `numbers` / `colours`:
    /// `object_over_background`'s priority rules, as `output_colour` applies them.
    fn draw_objects_over(
        &self,
        discarded: u8,
        length: u8,
        bg_colours: &[u8; 8],
        numbers: &mut [u8; 8],
        colours: &mut [u16; 8],
        cgb: Option<&CgbState>,
    ) {
        let cgb_mode = self.colour_mode == MODE_CGB;
        for i in discarded..length {
            let bit = 7 - i;
            let plane = |byte: u8| (byte >> bit) & 1;
            let obj_colour = (plane(self.obj_fifo_high) << 1) | plane(self.obj_fifo_low);
            let mut palette = plane(self.obj_fifo_palette);
            if cgb_mode {
                palette |= (plane(self.obj_fifo_palette_bit1) << 1)
                    | (plane(self.obj_fifo_palette_bit2) << 2);
            }
            let behind_bg = plane(self.obj_fifo_priority) != 0;
            let bg_colour = bg_colours[usize::from(i)];
            let Some((number, rgb)) =
                self.object_over_background(cgb, bg_colour, obj_colour, behind_bg, palette)
            else {
                continue;
            };
            numbers[usize::from(i)] = number;
            colours[usize::from(i)] = rgb;
        }
    }

    /// Pops `length` pixels off every object FIFO plane (in CGB mode also the palette bits
    /// 1..=2 and the OAM indices, which refill with 0xFF as `shift_cgb_object_fifo` does).
    fn shift_object_fifo(&mut self, length: u8) {
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
}
