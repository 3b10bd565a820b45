//! The background/window fetcher and the pixel FIFOs: one mode-3 dot at a time.

use super::*;

/// Maps one raw pixel (bits 0-1 background colour, 2-3 object colour, 4 OBP1, 5 behind
/// background) through the palettes.
fn shade(pixel: u8, bg_enable: bool, bgp: u8, obp0: u8, obp1: u8) -> u8 {
    let bg_colour = if bg_enable { pixel & 3 } else { 0 };
    let obj_colour = (pixel >> 2) & 3;
    let behind_bg = pixel & 0x20 != 0;
    if obj_colour != 0 && !(behind_bg && bg_colour != 0) {
        let palette = if pixel & 0x10 != 0 { obp1 } else { obp0 };
        (palette >> (obj_colour * 2)) & 3
    } else {
        (bgp >> (bg_colour * 2)) & 3
    }
}

/// VRAM offset of a `map_entry` on row source `y`.
#[inline(always)]
pub(super) fn map_address(entry: u8, y: u8) -> usize {
    let base: usize = if entry & 0x80 != 0 { 0x1C00 } else { 0x1800 };
    base + usize::from(y / 8) * 32 + usize::from(entry & 0x1F)
}

impl PpuState {
    pub(super) fn activate_window(&mut self) {
        self.in_window = 1;
        self.fetcher_window_x = 0;
        self.fetcher_step = 0;
        self.bg_fifo_len = 0;
        self.window_fetch_starting = 1;
    }

    /// One dot of mode 3, from the window check on.
    pub(super) fn mode3_dot(&mut self, bus: &mut Ctx) {
        if self.in_window == 0 && self.window_y_reached != 0 && self.lcdc & LCDC_WINDOW_ENABLE != 0
        {
            let mut activate = false;
            if self.wx == 0 {
                // WX=0 triggers at a column that depends on the fine scroll.
                const TRIGGER: [i8; 8] = [-7, -9, -10, -11, -12, -13, -14, -14];
                if self.scanline_x == TRIGGER[usize::from(self.scx & 7)] as u8 {
                    activate = true;
                }
            } else if self.wx < 166 + u8::from(self.is_cgb_hardware()) {
                // A CGB also starts the window at WX=166 (AGE stat-mode-window: mode 3
                // lengthens as for WX=165), and has no early trigger one column before.
                if self.wx == self.scanline_x.wrapping_add(7) {
                    activate = true;
                } else if self.wx == self.scanline_x.wrapping_add(6)
                    && self.wx_just_changed == 0
                    && !self.is_cgb_hardware()
                {
                    // One column late, and drawn there: a DMG-CPU B also moves the LCD one
                    // pixel left here (SameBoy), the DMG-blob that Mealybug's DMG
                    // expectations come from does not (the two photos of
                    // m3_lcdc_win_en_change_multiple_wx differ on exactly the lines 16
                    // and 44 where this trigger fires).
                    activate = true;
                }
            }
            if activate {
                self.window_line = self.window_line.wrapping_add(1);
                if self.wx == 0 && self.scx & 7 != 0 {
                    self.goto(Step::Mode3WindowActivate, 1);
                    return;
                }
                self.activate_window();
            } else if self.wx == 166
                && self.wx == self.scanline_x.wrapping_add(7)
                && !self.is_cgb_hardware()
            {
                self.window_line = self.window_line.wrapping_add(1);
            }
        }
        self.mode3_after_window(bus);
    }

    pub(super) fn mode3_after_window(&mut self, bus: &mut Ctx) {
        if self.window_inserts_pixel_now() {
            self.insert_background_pixel = 1;
        }
        // Drop objects whose column has passed (e.g. left of a window start).
        while self.sprite_count > 0
            && (self.scanline_x < 160 || self.scanline_x >= 0u8.wrapping_sub(8))
            && self.next_sprite()[1] < self.scanline_x.wrapping_add(8)
        {
            self.sprite_count -= 1;
        }
        self.mode3_sprite_check(bus);
    }

    /// UNVERIFIED glitch (SameBoy's notes): a dot of the window, past its first pixel, that
    /// starts with WX at the next screen column, a whole tile in the FIFO and the fetcher at
    /// its first step inserts an extra background pixel. The fast paths test this too: a
    /// dot where it is false needs no step dispatch for WX's sake.
    #[inline(always)]
    pub(super) fn window_inserts_pixel_now(&self) -> bool {
        self.in_window != 0
            && self.window_fetch_starting == 0
            && self.fetcher_step == 0
            && self.wx == self.screen_x.wrapping_add(7)
            && self.bg_fifo_len == 8
    }

    pub(super) fn mode3_sprite_check(&mut self, bus: &mut Ctx) {
        if self.sprite_count > 0
            // A CGB fetches objects even while LCDC bit 1 is clear (it only hides their
            // pixels), so they cost mode-3 time all the same (SameBoy's display notes).
            && (self.lcdc & LCDC_OBJ_ENABLE != 0 || self.is_cgb_hardware())
            && self.next_sprite()[1] == self.scanline_x.wrapping_add(8)
        {
            self.sprite_wait_fetcher(bus);
            return;
        }
        self.output_pixel(bus);
        self.tick_fetcher(bus);
        if self.screen_x >= 160 {
            self.exit_mode3(bus);
        } else {
            self.goto(Step::Mode3Dot, 1);
        }
    }

    /// Pops one pixel; the first `8 + SCX mod 8` are discarded (fine scroll).
    pub(super) fn output_pixel(&mut self, bus: &mut Ctx) {
        if self.colour_mode != 0 {
            self.output_colour_pixel(bus);
            return;
        }
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
        if self.scanline_x >= 160 {
            self.scanline_x = self.scanline_x.wrapping_add(1);
            return;
        }
        // Objects already in the FIFO vanish while LCDC bit 1 is clear (Mealybug
        // m3_lcdc_obj_en_change).
        let obj = if self.lcdc & LCDC_OBJ_ENABLE != 0 {
            obj
        } else {
            0
        };
        let pixel = bg_colour | (obj << 2);
        let x = self.screen_x;
        if let Some(frame) = bus.frame.as_deref_mut() {
            let colour = shade(
                pixel,
                self.lcdc & LCDC_BG_ENABLE != 0,
                self.bgp,
                self.obp0,
                self.obp1,
            );
            let index = usize::from(self.ly) * SCREEN_WIDTH + usize::from(x);
            if let Some(out) = frame.get_mut(index) {
                *out = colour;
            }
        }
        self.screen_x = x.saturating_add(1);
        self.scanline_x = self.scanline_x.wrapping_add(1);
        self.window_fetch_starting = 0;
    }

    /// One dot of the background/window fetcher: tile number at step 1, low byte at 3,
    /// high byte at 5, then it waits until the FIFO is empty to push eight pixels.
    pub(super) fn tick_fetcher(&mut self, bus: &Ctx) {
        self.tick_fetcher_in(bus, false);
    }

    /// `tick_fetcher` while an object fetch holds the background fetcher back
    /// (`during_object_fetch`: a CGB then forms the tile-map column differently).
    pub(super) fn tick_fetcher_in(&mut self, bus: &Ctx, during_object_fetch: bool) {
        self.tick_fetcher_checking::<true>(bus, during_object_fetch);
    }

    /// `tick_fetcher` for a plain dot (`mode3_dot_is_plain`), which never pushes where the
    /// disabled window inserts a pixel: the fast path skips that check.
    #[inline(always)]
    pub(super) fn tick_fetcher_plain(&mut self, bus: &Ctx) {
        self.tick_fetcher_checking::<false>(bus, false);
    }

    /// The fetcher dot; `WINDOW_GLITCH`: a DMG push checks for the disabled window's pixel
    /// (`insert_disabled_window_pixel`).
    #[inline(always)]
    fn tick_fetcher_checking<const WINDOW_GLITCH: bool>(
        &mut self,
        bus: &Ctx,
        during_object_fetch: bool,
    ) {
        if self.is_cgb_hardware() {
            self.tick_cgb_fetcher(bus, during_object_fetch);
            return;
        }
        match self.fetcher_step {
            1 => {
                // The DMG forms the address and reads in this one step.
                self.hand_back_disabled_window();
                let (entry, y) = self.map_entry(during_object_fetch);
                self.fetch_tile_number = bus.vram[map_address(entry, y)];
            }
            3 => self.fetch_tile_low = bus.vram[self.tile_data_address()],
            5 => {
                self.fetch_tile_high = bus.vram[self.tile_data_address() + 1];
                if self.in_window != 0 {
                    self.fetcher_window_x = self.fetcher_window_x.wrapping_add(1);
                }
                self.fetcher_step = 6;
                self.push_dmg_background::<WINDOW_GLITCH>();
                return;
            }
            6 | 7 => {
                self.push_dmg_background::<WINDOW_GLITCH>();
                return;
            }
            _ => {}
        }
        self.fetcher_step = self.fetcher_step.wrapping_add(1) & 7;
    }

    /// At the start of a tile fetch, a window whose LCDC bit 5 was cleared hands back to
    /// the background (SameBoy's display notes; Mealybug m3_lcdc_win_en_change_multiple).
    #[inline(always)]
    pub(super) fn hand_back_disabled_window(&mut self) {
        if self.in_window != 0 && self.lcdc & LCDC_WINDOW_ENABLE == 0 {
            self.in_window = 0;
        }
    }

    /// The tile-map entry of the tile fetched next (column in bits 0..=4, bit 7 set for the
    /// 9C00 map) and the row source (LY + SCY, or the window's line). Outside the window
    /// the column comes from the pixel position one dot behind, except while an object
    /// fetch holds the fetcher, and during the fine-scroll discards it is SCX's own
    /// (SameBoy's display notes; Mealybug m3_scx_high_5_bits).
    #[inline(always)]
    pub(super) fn map_entry(&self, during_object_fetch: bool) -> (u8, u8) {
        self.map_entry_at(self.scanline_x, during_object_fetch)
    }

    /// `map_entry` as the fetcher sees it at scanline X `scanline_x`: for the multi-dot
    /// paths, whose tile-number step falls some dots after the position they start from.
    #[inline(always)]
    pub(super) fn map_entry_at(&self, scanline_x: u8, during_object_fetch: bool) -> (u8, u8) {
        let (high_map, column, y) = if self.in_window != 0 {
            (
                self.lcdc & LCDC_WINDOW_MAP != 0,
                self.fetcher_window_x,
                self.window_line,
            )
        } else {
            let column = if scanline_x.wrapping_add(16) < 8 {
                self.scx >> 3
            } else {
                let behind = u8::from(!during_object_fetch);
                self.scx
                    .wrapping_add(scanline_x)
                    .wrapping_add(8)
                    .wrapping_sub(behind)
                    / 8
            };
            (
                self.lcdc & LCDC_BG_MAP != 0,
                column,
                self.ly.wrapping_add(self.scy),
            )
        };
        ((column & 0x1F) | if high_map { 0x80 } else { 0 }, y)
    }

    /// The DMG fetcher's push step. The disabled window's pixel, when it comes, goes in
    /// alone; the fetcher stays at this step and pushes the tile once it is out.
    #[inline(always)]
    fn push_dmg_background<const WINDOW_GLITCH: bool>(&mut self) {
        if WINDOW_GLITCH && self.bg_fifo_len == 0 && self.insert_disabled_window_pixel() {
            return;
        }
        self.try_push_background();
    }

    pub(super) fn try_push_background(&mut self) {
        if self.bg_fifo_len == 0 {
            self.bg_fifo_low = self.fetch_tile_low;
            self.bg_fifo_high = self.fetch_tile_high;
            self.bg_fifo_len = 8;
            self.fetcher_step = 0;
        }
    }

    pub(super) fn tile_data_address(&self) -> usize {
        self.tile_row_address(self.fetch_tile_number)
    }

    /// VRAM offset of the low data byte of `tile`'s row now due (the high byte follows).
    #[inline(always)]
    pub(super) fn tile_row_address(&self, tile: u8) -> usize {
        let tile = u16::from(tile);
        // LCDC bit 4 clear: tiles 0..127 at 0x9000, 128..255 at 0x8800.
        let tile = if self.lcdc & LCDC_TILE_DATA == 0 && tile < 128 {
            tile + 256
        } else {
            tile
        };
        let row = if self.in_window != 0 {
            self.window_line & 7
        } else {
            self.ly.wrapping_add(self.scy) & 7
        };
        usize::from((tile * 16 + u16::from(row) * 2) & 0x1FFE)
    }
}
