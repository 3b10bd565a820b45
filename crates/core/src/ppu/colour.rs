//! Colour on a CGB: tile attributes, the object FIFO's palette numbers and OAM-index
//! priority, and the mapping of each pixel through palette RAM. The DMG path (shades, and
//! the whole-tile drain in `lazy.rs`) stays apart and untouched; colour pixels go out one by
//! one through `output_pixel`, or a FIFO's worth at once through `colour_span.rs`.
//!
//! Pan Docs "VRAM Background Maps" (BG map attributes), "OAM" (CGB attribute bits), "Tile
//! priority" and "Object priority" (OPRI); cgb-acid2 checks every one of them.

use super::*;

/// BG map attribute bits (CGB mode, VRAM bank 1).
pub(super) const ATTRIBUTE_PALETTE: u8 = 0x07;
const ATTRIBUTE_BANK: u8 = 0x08;
const ATTRIBUTE_X_FLIP: u8 = 0x20;
const ATTRIBUTE_Y_FLIP: u8 = 0x40;
const ATTRIBUTE_PRIORITY: u8 = 0x80;

/// `REVERSED[x]` is `x` with its bit order reversed: a tile row flipped horizontally (a
/// table is a load where `reverse_bits` on a byte is a dozen instructions).
const REVERSED: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        table[x] = (x as u8).reverse_bits();
        x += 1;
    }
    table
};

/// A fetched tile row's bit planes as they enter the FIFO: reversed when `attributes` ask
/// for a horizontal flip.
#[inline(always)]
pub(super) fn x_flipped(attributes: u8, low: u8, high: u8) -> (u8, u8) {
    if attributes & ATTRIBUTE_X_FLIP != 0 {
        (REVERSED[usize::from(low)], REVERSED[usize::from(high)])
    } else {
        (low, high)
    }
}

/// The bank offset of the low data byte (the high byte is at `| 1`) of `tile`'s row for the
/// row source `y`, addressed with `tile_sel` (LCDC bit 4 as latched) and flipped by
/// `attributes`, and whether it lies in the 0x8000-0x8FFF half (`low_half_latch`).
#[inline(always)]
pub(super) fn cgb_tile_address(tile: u8, tile_sel: u8, y: u8, attributes: u8) -> (usize, bool) {
    // With `tile_sel` 0, tiles 0..=127 sit at 0x1000 and 128..=255 at 0x800: tile t at
    // 0x800 + (t ^ 0x80) * 16, one form for both halves.
    let (base, flip) = if tile_sel != 0 { (0, 0) } else { (0x800, 0x80) };
    // Row 7 - r is at 14 - 2r, which is 2r ^ 14.
    let mut row = usize::from(y & 7) * 2;
    if attributes & ATTRIBUTE_Y_FLIP != 0 {
        row ^= 14;
    }
    // At most 0x800 + 255 * 16 + 14: within the bank.
    let address = (base + usize::from(tile ^ flip) * 16 + row) & 0x1FFF;
    (address, address < 0x1000)
}

/// The VRAM bank (`bank0` or `bank1`) a tile with `attributes` is read from (bit 3).
#[inline(always)]
pub(super) fn tile_bank<'a>(
    attributes: u8,
    bank0: &'a [u8; 0x2000],
    bank1: &'a [u8; 0x2000],
) -> &'a [u8; 0x2000] {
    if attributes & ATTRIBUTE_BANK != 0 {
        bank1
    } else {
        bank0
    }
}

impl PpuState {
    /// `tick_fetcher` on a CGB (either colour mode). Each VRAM read takes two dots: the
    /// address is formed at one step and read at the next (SameBoy's display notes), which
    /// decides where a register write lands: the map entry and its row at step 0, the tile
    /// number (and in CGB mode its attributes, same address in bank 1) at 1, each data
    /// byte's address at 2 / 4 and the byte at 3 / 5.
    pub(super) fn tick_cgb_fetcher(&mut self, bus: &Ctx, during_object_fetch: bool) {
        match self.fetcher_step {
            0 => self.choose_map_entry(during_object_fetch),
            1 => self.read_map_entry(bus),
            2 | 4 => self.fetch_tile_sel = u8::from(self.lcdc & LCDC_TILE_DATA != 0),
            3 => self.fetch_tile_low = self.read_cgb_tile_data(bus, 0),
            5 => {
                self.fetch_tile_high = self.read_cgb_tile_data(bus, 1);
                if self.in_window != 0 {
                    self.fetcher_window_x = self.fetcher_window_x.wrapping_add(1);
                }
                self.fetcher_step = 6;
                self.try_push_cgb_background();
                return;
            }
            6 | 7 => {
                self.try_push_cgb_background();
                return;
            }
            _ => {}
        }
        self.fetcher_step = self.fetcher_step.wrapping_add(1) & 7;
    }

    /// Fetcher step 0 on a CGB: chooses (and latches) the map entry and row of the next
    /// tile; step 1 reads it.
    pub(super) fn choose_map_entry(&mut self, during_object_fetch: bool) {
        self.hand_back_disabled_window();
        let (entry, y) = self.map_entry(during_object_fetch);
        self.fetch_map_entry = entry;
        self.fetcher_y = y;
    }

    /// Fetcher step 1 on a CGB: reads the tile number at the entry chosen a dot earlier,
    /// and in CGB mode its attributes (the same address in VRAM bank 1).
    pub(super) fn read_map_entry(&mut self, bus: &Ctx) {
        let address = super::fetcher::map_address(self.fetch_map_entry, self.fetcher_y);
        self.fetch_tile_number = bus.vram[address];
        self.fetch_tile_attributes = if self.colour_mode == MODE_CGB {
            bus.vram_bank1[address]
        } else {
            0
        };
    }

    /// The fetcher latches as of a file that did not save them (format 1.2 and older): on
    /// a CGB chosen from the registers now, no glitch pending; a DMG never sets them (0).
    pub(crate) fn fill_fetch_latches(&mut self) {
        self.fetch_map_entry = 0;
        self.fetcher_y = 0;
        self.fetch_tile_sel = 0;
        self.tile_sel_glitch = 0;
        if self.is_cgb_hardware() {
            (self.fetch_map_entry, self.fetcher_y) = self.map_entry(false);
            self.fetch_tile_sel = u8::from(self.lcdc & LCDC_TILE_DATA != 0);
        }
    }

    /// Fetcher step 3 (`plane` 0) or 5 (1): a data byte of the tile, at the address formed
    /// a dot earlier (`fetch_tile_sel`), from the row chosen with the map entry (revision D
    /// and later), flipped and banked by the attributes.
    pub(super) fn read_cgb_tile_data(&mut self, bus: &Ctx, plane: usize) -> u8 {
        let tile = self.fetch_tile_number;
        if self.tile_sel_glitch != 0 && self.fetch_tile_sel != 0 && tile < 0x80 {
            // LCDC bit 4 went from 1 to 0 a dot ago: the read returns the tile number.
            // UNVERIFIED beyond Mealybug's documentation of the glitch (non-D revisions).
            return tile;
        }
        if self.tile_sel_set_on_read(tile) {
            return self.low_half_latch();
        }
        let (address, low_half) = self.cgb_tile_address();
        let byte = self.tile_data_bank(bus)[address | plane];
        if low_half {
            self.set_low_half_latch(byte);
        }
        byte
    }

    /// `cgb_tile_address` of the tile being fetched.
    #[inline(always)]
    pub(super) fn cgb_tile_address(&self) -> (usize, bool) {
        cgb_tile_address(
            self.fetch_tile_number,
            self.fetch_tile_sel,
            self.fetcher_y,
            self.fetch_tile_attributes,
        )
    }

    /// The VRAM bank of the tile being fetched (`tile_bank`).
    pub(super) fn tile_data_bank<'a>(&self, bus: &Ctx<'a>) -> &'a [u8; 0x2000] {
        tile_bank(self.fetch_tile_attributes, bus.vram, bus.vram_bank1)
    }

    fn try_push_cgb_background(&mut self) {
        if self.bg_fifo_len == 0 {
            self.try_push_background();
            self.push_cgb_attributes();
        }
    }

    /// A tile has just entered the background FIFO: apply its horizontal flip and keep its
    /// attributes for its pixels.
    pub(super) fn push_cgb_attributes(&mut self) {
        (self.bg_fifo_low, self.bg_fifo_high) = x_flipped(
            self.fetch_tile_attributes,
            self.bg_fifo_low,
            self.bg_fifo_high,
        );
        self.bg_fifo_attributes = self.fetch_tile_attributes;
    }

    /// CGB mode with OPRI clear: the FIFO slots (bit 7 = next pixel) where the object being
    /// pushed, opaque in `opaque`, beats the object already there by a lower OAM index.
    pub(super) fn take_by_oam_index(&self, bus: &Ctx, opaque: u8) -> u8 {
        if bus.cgb.is_some_and(|cgb| cgb.opri & 1 != 0) {
            return 0;
        }
        let n = usize::from(self.sprite_count.clamp(1, 10) - 1);
        let index = self.sprite_oam_index[n];
        let mut take = 0;
        for (slot, &holder) in self.obj_fifo_oam_index.iter().enumerate() {
            let bit = 0x80 >> slot;
            if opaque & bit != 0 && index < holder {
                take |= bit;
            }
        }
        take
    }

    /// Records palette bits 1..=2 and the OAM index of the object pushed into the slots it
    /// took.
    pub(super) fn push_cgb_object_palette(&mut self, attributes: u8, take: u8) {
        let spread = |set: bool| if set { 0xFF } else { 0 };
        let bit1 = spread(attributes & 2 != 0);
        let bit2 = spread(attributes & 4 != 0);
        self.obj_fifo_palette_bit1 = (self.obj_fifo_palette_bit1 & !take) | (bit1 & take);
        self.obj_fifo_palette_bit2 = (self.obj_fifo_palette_bit2 & !take) | (bit2 & take);
        let n = usize::from(self.sprite_count.clamp(1, 10) - 1);
        let index = self.sprite_oam_index[n];
        for (slot, holder) in self.obj_fifo_oam_index.iter_mut().enumerate() {
            if take & (0x80 >> slot) != 0 {
                *holder = index;
            }
        }
    }

    /// `output_pixel` on a CGB: pops one pixel (the first `8 + SCX mod 8` are discarded)
    /// and writes it through palette RAM.
    pub(super) fn output_colour_pixel(&mut self, bus: &mut Ctx) {
        let bg_colour;
        if self.insert_background_pixel != 0 {
            self.insert_background_pixel = 0;
            bg_colour = 0;
        } else if self.bg_fifo_len != 0 {
            bg_colour = ((self.bg_fifo_high >> 6) & 2) | (self.bg_fifo_low >> 7);
            self.bg_fifo_low <<= 1;
            self.bg_fifo_high <<= 1;
            self.bg_fifo_len -= 1;
        } else {
            return;
        }
        let obj = ((self.obj_fifo_high >> 6) & 2)
            | (self.obj_fifo_low >> 7)
            | ((self.obj_fifo_palette >> 7) << 2)
            | ((self.obj_fifo_priority >> 7) << 3);
        self.obj_fifo_low <<= 1;
        self.obj_fifo_high <<= 1;
        self.obj_fifo_palette <<= 1;
        self.obj_fifo_priority <<= 1;
        let obj_palette_high = if self.colour_mode == MODE_CGB {
            self.shift_cgb_object_fifo()
        } else {
            0
        };
        if self.scanline_x >= 160 {
            self.scanline_x = self.scanline_x.wrapping_add(1);
            return;
        }
        let obj = if self.lcdc & LCDC_OBJ_ENABLE != 0 {
            obj
        } else {
            0
        };
        let x = self.screen_x;
        self.output_colour(bus, x, bg_colour | (obj << 2), obj_palette_high);
        self.screen_x = x.saturating_add(1);
        self.scanline_x = self.scanline_x.wrapping_add(1);
        self.window_fetch_starting = 0;
    }

    /// Pops the CGB-only object FIFO planes with the pixel going out; returns that pixel's
    /// palette bits 1..=2 (in place: 0, 2, 4 or 6).
    fn shift_cgb_object_fifo(&mut self) -> u8 {
        let high =
            ((self.obj_fifo_palette_bit1 >> 7) << 1) | ((self.obj_fifo_palette_bit2 >> 7) << 2);
        self.obj_fifo_palette_bit1 <<= 1;
        self.obj_fifo_palette_bit2 <<= 1;
        self.obj_fifo_oam_index.copy_within(1.., 0);
        self.obj_fifo_oam_index[7] = 0xFF;
        high
    }

    /// Writes one pixel on a CGB. `pixel`: bits 0-1 background colour, 2-3 object colour,
    /// 4 palette bit 0 (OBP1 in compatibility mode), 5 object behind background;
    /// `obj_palette_high`: the object's palette bits 1..=2 (CGB mode).
    fn output_colour(&self, bus: &mut Ctx, x: u8, pixel: u8, obj_palette_high: u8) {
        if bus.frame.is_none() && bus.frame_rgb.is_none() {
            // Not drawing: the palette lookups below are for the picture only.
            return;
        }
        let bg_colour = pixel & 3;
        let obj_colour = (pixel >> 2) & 3;
        let behind_bg = pixel & 0x20 != 0;
        let (number, rgb) = if self.colour_mode == MODE_COMPATIBILITY {
            // The DMG pipeline picks a shade; palette RAM colours it: background palette
            // 0, object palette 0 (OBP0) or 1 (OBP1).
            let bg_colour = if self.lcdc & LCDC_BG_ENABLE != 0 {
                bg_colour
            } else {
                0
            };
            let obj_palette = (pixel >> 4) & 1;
            self.object_over_background(bus.cgb, bg_colour, obj_colour, behind_bg, obj_palette)
                .unwrap_or_else(|| {
                    let shade = (self.bgp >> (bg_colour * 2)) & 3;
                    (shade, bus.cgb.map_or(0, |cgb| cgb.bg_colour(0, shade)))
                })
        } else {
            let obj_palette = ((pixel >> 4) & 1) | obj_palette_high;
            self.object_over_background(bus.cgb, bg_colour, obj_colour, behind_bg, obj_palette)
                .unwrap_or_else(|| {
                    let palette = self.bg_fifo_attributes & ATTRIBUTE_PALETTE;
                    let rgb = bus.cgb.map_or(0, |cgb| cgb.bg_colour(palette, bg_colour));
                    (bg_colour, rgb)
                })
        };
        let index = usize::from(self.ly) * SCREEN_WIDTH + usize::from(x);
        if let Some(out) = bus
            .frame
            .as_deref_mut()
            .and_then(|frame| frame.get_mut(index))
        {
            *out = number;
        }
        if let Some(out) = bus
            .frame_rgb
            .as_deref_mut()
            .and_then(|frame| frame.get_mut(index))
        {
            *out = rgb;
        }
    }

    /// The object pixel's frame value and RGB555 when it shows over the background pixel
    /// `bg_colour` (in compatibility mode already blanked to 0 by a clear LCDC bit 0), else
    /// `None`: `object_wins` and `object_colour` for one pixel, as `output_colour` needs.
    /// `palette` is OBP0/OBP1 (0 or 1) in compatibility mode, 0..=7 in CGB mode.
    #[inline(always)]
    fn object_over_background(
        &self,
        cgb: Option<&CgbState>,
        bg_colour: u8,
        obj_colour: u8,
        behind_bg: bool,
        palette: u8,
    ) -> Option<(u8, u16)> {
        let opaque = u8::from(obj_colour != 0);
        let wins = self.object_wins(opaque, u8::from(behind_bg), u8::from(bg_colour != 0));
        (wins != 0).then(|| self.object_colour(cgb, obj_colour, palette))
    }

    /// Both colour modes' priority rules, one bit per pixel (any bit order, the same in
    /// every mask): of the `opaque` object pixels, those that show over the background,
    /// given the objects' OAM priority bits (`behind_bg`) and the background's non-zero
    /// colours (`bg_nonzero`; in compatibility mode already blanked by a clear LCDC bit 0).
    /// The one source of these rules for `output_colour` and the colour span.
    #[inline(always)]
    pub(super) fn object_wins(&self, opaque: u8, behind_bg: u8, bg_nonzero: u8) -> u8 {
        if self.colour_mode == MODE_COMPATIBILITY {
            // The DMG rule: an object behind the background shows only over colour 0.
            return opaque & !(behind_bg & bg_nonzero);
        }
        // CGB mode: LCDC bit 0 clear puts every object above the background; else the
        // background wins with a non-zero colour when its tile or the object asks.
        if self.lcdc & LCDC_BG_ENABLE == 0 {
            opaque
        } else if self.bg_fifo_attributes & ATTRIBUTE_PRIORITY != 0 {
            opaque & !bg_nonzero
        } else {
            opaque & !(behind_bg & bg_nonzero)
        }
    }

    /// The frame value and RGB555 of a shown object pixel of colour `obj_colour` (1..=3)
    /// in `palette`: in compatibility mode the DMG pipeline picks a shade through OBP0/OBP1
    /// and palette RAM colours it; in CGB mode the colour indexes palette RAM directly.
    #[inline(always)]
    pub(super) fn object_colour(
        &self,
        cgb: Option<&CgbState>,
        obj_colour: u8,
        palette: u8,
    ) -> (u8, u16) {
        let number = if self.colour_mode == MODE_COMPATIBILITY {
            let obp = if palette != 0 { self.obp1 } else { self.obp0 };
            (obp >> (obj_colour * 2)) & 3
        } else {
            obj_colour
        };
        (number, cgb.map_or(0, |cgb| cgb.obj_colour(palette, number)))
    }
}
