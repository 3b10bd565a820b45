//! Object fetches in lazy mode 3, all their dots at once: from the plain-looking `Mode3Dot`
//! at which the next object is due to the pixel that goes out after its push
//! (`mode3_sprite_check`, `sprite_wait_fetcher`, the `Sprite*` steps). Without this each
//! object takes the step dispatch for every one of its steps. On a CGB (either colour mode)
//! it is a trick of its own, `FastPaths::colour_object_runs`.
//!
//! The span runs the same functions in the same order as those steps; only the dispatch
//! and the waits between steps go. Registers, VRAM and OAM cannot change within a run
//! (writes are applied between runs), so the object's row address is the same at each of
//! the three steps that form it, and a CGB's reading each data byte a dot ahead of a DMG
//! (`object_read_lead`) reads the same bytes. Debug builds check each span against the
//! steps.
//!
//! With LCDC bit 1 clear a DMG fetches no object, and only drops each the dot after its
//! column: `mode3_hidden_object_dots` runs such dots through the fast paths as if there
//! were no objects and drops the passed ones after.

use super::*;

impl PpuState {
    /// Whether the next object's column is the one the dot due now reaches: the test most
    /// of the other dots that need the step dispatch fail first.
    #[inline(always)]
    pub(super) fn next_object_due(&self) -> bool {
        self.sprite_count != 0
            && self.sprites[usize::from(self.sprite_count.min(10) - 1) * 4 + 1]
                == self.scanline_x.wrapping_add(8)
    }

    /// If the `Mode3Dot` step waiting one dot would start fetching the next object (and
    /// the objects due at the same column after it) in the visible part of the line, with
    /// a pixel in the background FIFO and nothing else due (window, inserted pixel, on a
    /// CGB the tile-data glitch of a dot after an LCDC bit 4 write), the dots from here to
    /// the pixel after the last of them is pushed; else 0. `COLOUR`: a CGB's pipeline
    /// (`run_plain_dots`), which fetches objects while LCDC bit 1 is clear too.
    #[inline(always)]
    fn object_fetch_dots<const COLOUR: bool>(&self) -> u32 {
        let x = self.scanline_x;
        let may_fetch = if COLOUR {
            self.tile_sel_glitch == 0
        } else {
            self.lcdc & LCDC_OBJ_ENABLE != 0
        };
        if !self.next_object_due()
            || !may_fetch
            || COLOUR != self.is_cgb_hardware()
            || x >= 160
            || self.bg_fifo_len == 0
            || self.insert_background_pixel != 0
            || !self.mode3_window_is_plain()
        {
            return 0;
        }
        let due = x + 8;
        let count = usize::from(self.sprite_count.min(10));
        let objects = (1..=count)
            .take_while(|&n| self.sprites[(n - 1) * 4 + 1] == due)
            .count() as u32;
        if objects == 0 {
            return 0;
        }
        // The background fetcher steps on (one step a dot, no push: the FIFO is not empty)
        // until its high data byte is next; then each object takes six dots, the next one
        // starting at the dot of the push before it.
        let waits = 5u32.saturating_sub(u32::from(self.fetcher_step));
        waits + 1 + 6 * objects
    }

    /// `run_plain_dots`' object fetches: if the dot due now (a `Mode3Dot` waiting one dot)
    /// starts `object_fetch_dots`' span and `most` dots leave at least one over, runs it.
    /// Returns the dots run (`line_dot` moved on by them), 0 if none. Its last pixel may be
    /// the line's 160th, which ends mode 3. Out of line: `run`'s plain path keeps its
    /// registers.
    #[inline(never)]
    pub(super) fn mode3_object_run<const COLOUR: bool>(&mut self, most: u32, bus: &mut Ctx) -> u32 {
        let dots = self.object_fetch_dots::<COLOUR>();
        if dots == 0 || dots >= most {
            return 0;
        }
        #[cfg(debug_assertions)]
        let expected = self.after_steps(dots + 1, bus);
        self.line_dot = self.line_dot.wrapping_add(dots as u16);
        let objects = (dots - 1) / 6;
        // The dots waiting for the background fetcher's high data byte.
        for _ in 0..dots - 1 - 6 * objects {
            self.tick_fetcher_in(bus, true);
        }
        // The first object's first fetch dot reads the high byte (at step 5); every other
        // object dot's fetcher tick finds it waiting to push into a FIFO that is not empty.
        self.tick_fetcher_in(bus, true);
        for _ in 0..objects {
            self.read_sprite_attributes(bus.oam);
            let address = self.sprite_row_address();
            let vram = self.sprite_vram(bus);
            self.sprite_tile_address = address;
            self.sprite_tile_low = vram[usize::from(address & 0x1FFF)];
            self.sprite_tile_high = vram[usize::from((address + 1) & 0x1FFF)];
            self.push_sprite(bus);
        }
        self.output_pixel(bus);
        self.tick_fetcher(bus);
        if self.screen_x >= 160 {
            // The line's last pixel is out (as `mode3_sprite_check` does it).
            self.wait_dots = 0;
            self.exit_mode3(bus);
        }
        #[cfg(debug_assertions)]
        self.check_one_dot_short_of(&expected);
        dots
    }

    /// `run_plain_dots`' dots that only objects keep from being plain, on a DMG with LCDC
    /// bit 1 clear: no object is fetched, and each is only dropped at the dot after its
    /// column (`mode3_after_window`). So the dots run as if there were no objects, all
    /// the fast paths with them, and the objects passed are dropped after, as at the last
    /// dot. With at least a tile's fetch's worth of dots in the background FIFO and the
    /// fetcher, the FIFO is never empty at a dot's start (only a window's start, not
    /// plain, empties it): each dot pops a pixel, and the last began one column back.
    /// Returns the dots run (`line_dot` moved on by them), 0 if none, leaving one of
    /// `most` at least; the last may have ended mode 3.
    #[inline(never)]
    pub(super) fn mode3_hidden_object_dots(&mut self, most: u32, bus: &mut Ctx) -> u32 {
        let objects = self.sprite_count;
        if objects == 0
            || self.lcdc & LCDC_OBJ_ENABLE != 0
            || self.is_cgb_hardware()
            || self.bg_fifo_len + self.fetcher_step.min(6) < 6
            || self.insert_background_pixel != 0
            || !self.mode3_window_is_plain()
        {
            return 0;
        }
        #[cfg(debug_assertions)]
        let start = *self;
        self.sprite_count = 0;
        let run = most - self.run_plain_dots::<false>(most, bus);
        self.sprite_count = objects;
        if run != 0 {
            self.drop_objects_passed(self.scanline_x.wrapping_sub(1));
        }
        #[cfg(debug_assertions)]
        if run != 0 {
            self.check_one_dot_short_of(&start.after_steps(run + 1, bus));
        }
        run
    }

    /// Drops the objects whose column a dot at scanline X `x` has passed, as
    /// `mode3_after_window` does at each dot. Its loop is written twice on purpose: calling
    /// this from there, even inlined, made `mode3_dot` slower.
    pub(super) fn drop_objects_passed(&mut self, x: u8) {
        while self.sprite_count > 0
            && (x < 160 || x >= 0u8.wrapping_sub(8))
            && self.next_sprite()[1] < x.wrapping_add(8)
        {
            self.sprite_count -= 1;
        }
    }

    /// Debug builds: this state, a trick's end, is `expected`, the reference run one dot
    /// further (into the next step's wait), but for that dot.
    #[cfg(debug_assertions)]
    pub(super) fn check_one_dot_short_of(&self, expected: &Self) {
        let mut mine = *self;
        mine.wait_dots -= 1;
        mine.line_dot = mine.line_dot.wrapping_add(1);
        debug_assert_eq!(mine, *expected);
    }

    /// The state `dots` dots of the step dispatch leave, from a step waiting (as `run`
    /// without its fast paths), run on a copy that draws nothing.
    #[cfg(debug_assertions)]
    fn after_steps(&self, mut dots: u32, bus: &Ctx) -> Self {
        let mut copy = *self;
        let mut ignored = 0;
        let mut probe = Ctx::look_ahead(bus.memory(), &mut ignored);
        probe.double_speed = bus.double_speed;
        probe.lazy = bus.lazy;
        loop {
            let wait = u32::from(copy.wait_dots);
            if wait >= dots {
                copy.wait_dots -= dots as u16;
                copy.line_dot = copy.line_dot.wrapping_add(dots as u16);
                return copy;
            }
            dots -= wait;
            copy.line_dot = copy.line_dot.wrapping_add(wait as u16);
            copy.wait_dots = 0;
            copy.step(&mut probe);
        }
    }
}
