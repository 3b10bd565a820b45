//! Lazy mode 3: owed dots (`fifo_lag`), catching up in long runs, and the drain that
//! outputs a FIFO's worth of plain pixels at once (whole tiles in a row: `span.rs`).

use super::window::WINDOW_GLITCH_ARMED;
use super::*;

/// `SPREAD[x]` has byte k (little-endian) = bit 7-k of x: a tile row's pixels, left first.
pub(super) const SPREAD: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut x = 0;
    while x < 256 {
        let mut k = 0;
        while k < 8 {
            table[x] |= (((x >> (7 - k)) & 1) as u64) << (8 * k);
            k += 1;
        }
        x += 1;
    }
    table
};

/// A row of pixels one per byte (`SPREAD` colour planes `p0`, `p1`) through `palette`.
#[inline(always)]
pub(super) fn shaded(palette: u8, p0: u64, p1: u64) -> u64 {
    Shades::looked_up(palette, true).planes(p0, p1)
}

/// A DMG palette as a tile row's shades in one sum: a pixel's shade is bilinear in its two
/// colour bits (`s0 + d1 * p0 + d2 * p1 + d3 * p0 * p1`), and the sum over all eight bytes
/// is exact in wrapping arithmetic since each byte's total is 0..=3. Built once, it shades
/// each further row with three multiplications (a span's tiles: `draw_dmg_tiles`).
#[derive(Clone, Copy)]
pub(super) struct Shades {
    base: u64,
    low: u64,
    high: u64,
    both: u64,
}

/// `Shades::new(palette, true)` for every palette: a DMG's drawn span or drain looks its
/// palette up rather than taking it apart (three palettes when objects are drawn over it).
static SHADES: [Shades; 256] = {
    let mut table = [Shades {
        base: 0,
        low: 0,
        high: 0,
        both: 0,
    }; 256];
    let mut palette = 0;
    while palette < 256 {
        table[palette] = Shades::of(palette as u8);
        palette += 1;
    }
    table
};

impl Shades {
    /// `palette`'s shades; with the background disabled (`enabled` false) colour 0's
    /// everywhere.
    #[inline(always)]
    pub(super) fn new(palette: u8, enabled: bool) -> Shades {
        Shades::of(palette).enabled(enabled)
    }

    /// `new`, from `SHADES`: on a DMG's paths. A CGB's keep `new` (in compatibility mode
    /// it is one call a span), whose code the table only moved about there.
    #[inline(always)]
    pub(super) fn looked_up(palette: u8, enabled: bool) -> Shades {
        SHADES[usize::from(palette)].enabled(enabled)
    }

    /// These shades, or with the background disabled colour 0's everywhere.
    #[inline(always)]
    fn enabled(self, enabled: bool) -> Shades {
        if enabled {
            self
        } else {
            Shades {
                low: 0,
                high: 0,
                both: 0,
                ..self
            }
        }
    }

    /// `palette`'s shades with the background enabled, worked out (`SHADES` holds them).
    #[inline(always)]
    const fn of(palette: u8) -> Shades {
        let s0 = (palette & 3) as i64;
        let s1 = ((palette >> 2) & 3) as i64;
        let s2 = ((palette >> 4) & 3) as i64;
        let s3 = ((palette >> 6) & 3) as i64;
        Shades {
            base: s0 as u64 * 0x0101_0101_0101_0101,
            low: (s1 - s0) as u64,
            high: (s2 - s0) as u64,
            both: (s3 - s2 - s1 + s0) as u64,
        }
    }

    /// The shades of a row of pixels one per byte, colour planes `p0` and `p1`.
    #[inline(always)]
    pub(super) fn planes(self, p0: u64, p1: u64) -> u64 {
        self.base
            .wrapping_add(self.low.wrapping_mul(p0))
            .wrapping_add(self.high.wrapping_mul(p1))
            .wrapping_add(self.both.wrapping_mul(p0 & p1))
    }

    /// The shades of a tile row with colour planes `low` and `high`, left pixel first.
    #[inline(always)]
    pub(super) fn row(self, low: u8, high: u8) -> u64 {
        self.planes(SPREAD[usize::from(low)], SPREAD[usize::from(high)])
    }
}

impl PpuState {
    /// Advances `n` dots of real time: eagerly outside mode 3, lazily inside it.
    pub(super) fn advance_dots(&mut self, n: u32, bus: &mut Ctx) {
        if self.fifo_lag == 0 {
            let rest = self.run(n, true, bus);
            if rest == 0 {
                return;
            }
            self.fifo_lag = rest as u16;
        } else {
            self.fifo_lag = self.fifo_lag.saturating_add(n as u16);
        }
        self.settle(bus);
    }

    /// Runs owed mode-3 dots until mode 3 cannot have ended unnoticed: each dot outputs at
    /// most one pixel, so while `screen_x + lag < 160` the 160th pixel is still ahead.
    /// Two dots stay owed when possible, for writes that land two dots early. Not lazy
    /// (`FastPaths::lazy_mode3` off), at most those two stay owed.
    #[inline(always)]
    pub(super) fn settle(&mut self, bus: &mut Ctx) {
        // The common case, the 160th pixel surely ahead, here without a call.
        if self.oam_dma_active == 0
            && bus.lazy
            && u32::from(self.screen_x) + u32::from(self.fifo_lag) < 160
        {
            return;
        }
        self.settle_owed(bus);
    }

    /// `settle` past its common case.
    #[inline(never)]
    fn settle_owed(&mut self, bus: &mut Ctx) {
        if self.oam_dma_active != 0 {
            // Object fetches read the byte OAM DMA drives now: no lag.
            self.pay(self.fifo_lag, bus);
            return;
        }
        if bus.lazy && u32::from(self.screen_x) + u32::from(self.fifo_lag) < 160 {
            return;
        }
        if self.fifo_lag > 2 {
            self.pay(self.fifo_lag - 2, bus);
            if self.fifo_lag == 0 || u32::from(self.screen_x) + u32::from(self.fifo_lag) < 160 {
                return;
            }
        }
        // The last owed dots might end mode 3: find out on a copy, which draws nothing.
        let mut copy = *self;
        let mut ignored = 0;
        let mut probe = Ctx::look_ahead(bus.memory(), &mut ignored);
        probe.double_speed = bus.double_speed;
        probe.lazy = bus.lazy;
        copy.pay(copy.fifo_lag, &mut probe);
        if copy.step_is_mode3() {
            return;
        }
        self.pay(self.fifo_lag, bus);
    }

    /// Runs `n` of the owed dots; if mode 3 ends meanwhile, the rest too (outside mode 3
    /// nothing may lag), up to the next mode 3, which owes what is left from its start (a
    /// quiet window may reach it, `quiet_dots`).
    #[inline(always)]
    pub(super) fn pay(&mut self, n: u16, bus: &mut Ctx) {
        let n = n.min(self.fifo_lag);
        self.fifo_lag -= n;
        // Mode 3 cannot start again before its line ends: the dots beyond are run after.
        let this_line = n.min(LINE_DOTS.saturating_sub(self.line_dot));
        self.run_or_wait(u32::from(this_line), false, bus);
        let rest = n - this_line;
        if !self.step_is_mode3() {
            let rest = rest + self.fifo_lag;
            self.fifo_lag = 0;
            if rest != 0 {
                self.fifo_lag = self.run_or_wait(u32::from(rest), true, bus) as u16;
            }
        } else if rest != 0 {
            // Not reached: mode 3 ends long before its line does.
            self.run(u32::from(rest), false, bus);
        }
    }

    /// Runs the steps for `dots` dots. With `stop_at_mode3`, returns early when a mode-3
    /// step is next, giving back the dots not run.
    #[inline(always)]
    pub(super) fn run(&mut self, dots: u32, stop_at_mode3: bool, bus: &mut Ctx) -> u32 {
        // One copy each: the callers pass a constant, and the flag then needs no register
        // across the loop.
        if stop_at_mode3 {
            self.run_steps::<true>(dots, bus)
        } else {
            self.run_steps::<false>(dots, bus)
        }
    }

    /// `run`, with its shortest case here, without the call: outside mode 3, a run that
    /// ends in the next step's wait only counts the dots (as `run_steps` would). The
    /// callers that take it often: a catch-up's steps after mode 3, and `pay`, which a
    /// register write deferred to mode 3's end or a window ending just after it calls with
    /// no step due.
    #[inline(always)]
    pub(super) fn run_or_wait(&mut self, dots: u32, stop_at_mode3: bool, bus: &mut Ctx) -> u32 {
        if u32::from(self.wait_dots) >= dots && !self.step_is_mode3() {
            self.wait_dots -= dots as u16;
            self.line_dot = self.line_dot.wrapping_add(dots as u16);
            return 0;
        }
        self.run(dots, stop_at_mode3, bus)
    }

    /// `run` for one value of `stop_at_mode3`.
    fn run_steps<const STOP_AT_MODE3: bool>(&mut self, mut dots: u32, bus: &mut Ctx) -> u32 {
        loop {
            if self.step_is_mode3() {
                if STOP_AT_MODE3 {
                    return dots;
                }
                if bus.lazy && self.wait_dots <= 1 && self.step == Step::Mode3Dot as u8 {
                    // Fast path: plain mode-3 dots (no window trigger, no object, no
                    // glitch) run here without the step dispatch; the result is identical.
                    // The colour mode is chosen here, once per run, not per span.
                    dots = self.run_plain_or_due(dots, bus);
                }
            }
            let wait = u32::from(self.wait_dots);
            if wait >= dots {
                self.wait_dots -= dots as u16;
                self.line_dot = self.line_dot.wrapping_add(dots as u16);
                return 0;
            }
            dots -= wait;
            self.line_dot = self.line_dot.wrapping_add(wait as u16);
            self.wait_dots = 0;
            dots -= self.step_within(dots, bus);
        }
    }

    /// `run_plain_dots` from a `Mode3Dot` step that waits one dot or is due now (`wait_dots`
    /// 0, where the previous run stopped or where `Mode3Start` left it). A due step is the
    /// plain loop's first dot without the dot: it counts as one more dot begun one dot
    /// earlier, which gives the same effects and the same `line_dot` once it has run; if it
    /// is not plain, nothing runs.
    #[inline(always)]
    fn run_plain_or_due(&mut self, dots: u32, bus: &mut Ctx) -> u32 {
        let due = self.wait_dots == 0;
        if due {
            if dots == 0 {
                return 0;
            }
            self.wait_dots = 1;
            self.line_dot = self.line_dot.wrapping_sub(1);
        }
        let dots = u32::from(due) + dots;
        let left = if self.colour_mode == 0 {
            self.run_plain_dots::<false>(dots, bus)
        } else {
            self.run_plain_colour_dots(dots, bus)
        };
        if due && left == dots {
            // Not even the due step was plain: it takes the dispatch.
            self.wait_dots = 0;
            self.line_dot = self.line_dot.wrapping_add(1);
            return left - 1;
        }
        left
    }

    /// `run_plain_dots` on a CGB, out of line: the colour drain then stays out of `run`,
    /// whose code (and the DMG's instruction count) no longer moves with it.
    #[inline(never)]
    fn run_plain_colour_dots(&mut self, dots: u32, bus: &mut Ctx) -> u32 {
        self.run_plain_dots::<true>(dots, bus)
    }

    /// `run`'s fast path: plain `Mode3Dot` dots, whole spans at once where the FIFO drains
    /// (`COLOUR`: a CGB's pipeline, in either colour mode), until a dot needs the step
    /// dispatch, mode 3 ends or one dot is left. Returns the dots not run.
    #[inline(always)]
    pub(super) fn run_plain_dots<const COLOUR: bool>(
        &mut self,
        mut dots: u32,
        bus: &mut Ctx,
    ) -> u32 {
        while dots > 1 {
            // A drain's conditions include the first dot's being plain.
            let length = self.mode3_drain_length::<COLOUR>();
            if length != 0 && dots > u32::from(length) {
                dots -= u32::from(length);
                self.line_dot = self.line_dot.wrapping_add(u16::from(length));
                if COLOUR {
                    self.mode3_colour_drain(length, bus);
                } else {
                    self.mode3_drain(length, bus);
                }
                if self.screen_x >= 160 {
                    // The line's last pixel is out (as in the plain dot below).
                    self.wait_dots = 0;
                    self.exit_mode3(bus);
                    break;
                }
                // The FIFO now holds a whole tile: as many more as can follow at once.
                let tiles = self.whole_tiles(dots);
                if tiles != 0 {
                    let span = 8 * u32::from(tiles);
                    dots -= span;
                    self.line_dot = self.line_dot.wrapping_add(span as u16);
                    self.drain_tiles::<COLOUR>(tiles, bus);
                    if self.screen_x >= 160 {
                        self.wait_dots = 0;
                        self.exit_mode3(bus);
                        break;
                    }
                }
                continue;
            }
            if !COLOUR && length != 0 {
                // The run ends within the FIFO's pixels: all but the last dot at once.
                let part = (dots - 1) as u8;
                dots = 1;
                self.line_dot = self.line_dot.wrapping_add(u16::from(part));
                self.mode3_part_drain(part, bus);
                break;
            }
            if !self.mode3_dot_is_plain() {
                // The next object's fetch, all its dots at once, or on a DMG the dots that
                // pass objects not fetched (`object_span.rs`).
                let run = if COLOUR {
                    if bus.colour_object_runs {
                        self.mode3_object_run::<true>(dots, bus)
                    } else {
                        0
                    }
                } else if self.lcdc & LCDC_OBJ_ENABLE != 0 {
                    self.mode3_object_run::<false>(dots, bus)
                } else {
                    self.mode3_hidden_object_dots(dots, bus)
                };
                if run != 0 {
                    dots -= run;
                    if self.screen_x >= 160 {
                        break;
                    }
                    continue;
                }
                break;
            }
            if !COLOUR {
                // Dots at once that cannot take a whole drain: the window's first tile, or
                // pixels up to the line's end, an object or the window.
                let run = self.mode3_short_run(dots - 1, bus);
                if run != 0 {
                    dots -= u32::from(run);
                    if self.screen_x >= 160 {
                        self.wait_dots = 0;
                        self.exit_mode3(bus);
                        break;
                    }
                    continue;
                }
            }
            dots -= 1;
            self.line_dot = self.line_dot.wrapping_add(1);
            self.output_pixel(bus);
            self.tick_fetcher_plain(bus);
            if self.screen_x >= 160 {
                self.wait_dots = 0;
                self.exit_mode3(bus);
                break;
            }
        }
        dots
    }

    /// One bit test, with no bound check: every `Step` discriminant is below 64 (a state
    /// file's step is one of them, `is_saved_step`), so the masked shift is exact. Any other
    /// step (only a state edited in memory holds one; any bit pattern is a valid state) reads
    /// as its value modulo 64, which the steps it then runs handle like any other.
    #[inline(always)]
    pub(super) fn step_is_mode3(&self) -> bool {
        (MODE3_STEPS >> (self.step & 63)) & 1 != 0
    }

    /// Whether the `Mode3Dot` step due now would only output a pixel and step the fetcher
    /// (see `mode3_dot`): conservative, any doubt takes the full step.
    #[inline(always)]
    pub(super) fn mode3_dot_is_plain(&self) -> bool {
        if self.insert_background_pixel != 0 || !self.mode3_window_is_plain() {
            return false;
        }
        if self.sprite_count != 0 {
            let n = usize::from(self.sprite_count.min(10) - 1) * 4 + 1;
            let x = self.sprites[n];
            let due = self.scanline_x.wrapping_add(8);
            // Objects are dropped once passed only from column -8 on (`mode3_after_window`);
            // before that only one exactly due is fetched.
            let visible = self.scanline_x < 160 || self.scanline_x >= 248;
            if x == due || (visible && x < due) {
                return false;
            }
        }
        true
    }

    /// `mode3_dot_is_plain`'s window half: the `Mode3Dot` due now neither starts the
    /// window nor meets one of its glitches.
    #[inline(always)]
    pub(super) fn mode3_window_is_plain(&self) -> bool {
        if self.in_window == 0 {
            if self.window_y_reached != 0 {
                if self.lcdc & LCDC_WINDOW_ENABLE != 0 {
                    if self.wx == 0
                        || self.wx == self.scanline_x.wrapping_add(7)
                        || (self.wx < 166 && self.wx == self.scanline_x.wrapping_add(6))
                    {
                        return false;
                    }
                } else if self.disabled_window_glitch_near(self.scanline_x, 1) {
                    return false;
                }
            }
        } else if self.window_inserts_pixel_now() {
            return false;
        }
        true
    }

    /// If the FIFO's remaining pixels can go out as plain dots, with the fetcher reaching
    /// its push exactly when the FIFO empties, the number of those dots (`mode3_drain` then
    /// does them at once; its last pixel may be the line's 160th); else 0. Registers cannot
    /// change within a `run` (writes are applied between runs), nor VRAM (locked in
    /// mode 3).
    #[inline(always)]
    pub(super) fn mode3_drain_length<const COLOUR: bool>(&self) -> u8 {
        let length = self.bg_fifo_len;
        let step = self.fetcher_step.min(6);
        if length == 0
            || length > 8
            || length + step < 6
            // An inserted pixel, or a CGB's dot after a write changed LCDC bit 4 (that dot
            // reads tile data differently, `tile_sel.rs`): one test for both.
            || (self.insert_background_pixel | self.tile_sel_glitch) != 0
            || self.screen_x > 160 - length
        {
            return 0;
        }
        let last = length - 1;
        if self.scanline_x >= 160 {
            // Fine-scroll discards at the start of the line (columns -16..-1): allowed
            // without an active window, while the run stays left of column 8, and while no
            // dot would fetch or drop the next object (as `mode3_dot_is_plain` decides).
            if self.in_window != 0 || u16::from(self.scanline_x) + u16::from(length) > 256 + 8 {
                return 0;
            }
            if self.sprite_count != 0 {
                let x = self.sprites[usize::from(self.sprite_count.min(10) - 1) * 4 + 1];
                for dot in 0..length {
                    let column = self.scanline_x.wrapping_add(dot);
                    let due = column.wrapping_add(8);
                    let visible = !(160..248).contains(&column);
                    if x == due || (visible && x < due) {
                        return 0;
                    }
                }
            }
        } else if self.scanline_x > 160 - length {
            return 0;
        } else if self.sprite_count != 0 {
            let n = usize::from(self.sprite_count.min(10) - 1) * 4 + 1;
            if self.sprites[n] <= self.scanline_x + last + 8 {
                return 0;
            }
        }
        if self.in_window == 0 {
            if self.window_y_reached != 0 {
                if self.lcdc & LCDC_WINDOW_ENABLE != 0 {
                    if self.wx < 167
                        && (self.wx == 0
                            || self.wx.wrapping_sub(self.scanline_x.wrapping_add(6)) <= last + 1)
                    {
                        return 0;
                    }
                } else if self.disabled_window_glitch_near(self.scanline_x, length) {
                    // The push at the drain's end (column `scanline_x + length`) might
                    // meet the disabled window's WX.
                    return 0;
                }
            }
        } else if self.lcdc & LCDC_WINDOW_ENABLE == 0
            // A disabled window hands back at the next fetch (`hand_back_disabled_window`).
            // The WX glitch needs a whole tile in the FIFO: only the first dot can meet it.
            || self.window_inserts_pixel_now()
        {
            return 0;
        }
        length
    }

    /// If the dot due now is plain (the caller has checked) and the background FIFO is
    /// empty in an enabled window, the dots until the fetcher's push (the push's dot
    /// included), all plain: none outputs a pixel, so the positions and with them every
    /// other condition of `mode3_dot_is_plain` stay as they are (the WX glitch needs a full
    /// FIFO); else 0. A disabled window would hand back at the tile number's fetch.
    #[inline(always)]
    fn mode3_fill_length(&self) -> u8 {
        if self.bg_fifo_len != 0
            || self.in_window == 0
            || self.lcdc & LCDC_WINDOW_ENABLE == 0
            || self.insert_background_pixel != 0
        {
            return 0;
        }
        // Step 5 reads the high byte and pushes; steps 6 and 7 push at once.
        6u8.saturating_sub(self.fetcher_step).max(1)
    }

    /// On a DMG whose next dot is plain but no whole drain can start (`mode3_drain_length`
    /// is 0), up to `most` (at least two) plain dots at once: a fill (`mode3_fill`) or a
    /// part drain (`mode3_part_length`). Returns the dots run (`line_dot` moved on by
    /// them), 0 if none; the last may have put out the line's 160th pixel. Out of line:
    /// `run`'s other paths keep their registers.
    #[inline(never)]
    fn mode3_short_run(&mut self, most: u32, bus: &mut Ctx) -> u8 {
        let most = most.min(255) as u8;
        let (count, fill) = if self.bg_fifo_len == 0 {
            (self.mode3_fill_length().min(most), true)
        } else {
            (self.mode3_part_length().min(most), false)
        };
        if count <= 1 {
            return 0;
        }
        self.line_dot = self.line_dot.wrapping_add(u16::from(count));
        if fill {
            self.mode3_fill(count, bus);
        } else {
            self.mode3_part_drain(count, bus);
        }
        count
    }

    /// If the dot due now is plain (the caller has checked) and in the visible part of the
    /// line, the number of plain dots from here that pop a pixel each while leaving at
    /// least one in the background FIFO (so no push comes), up to and including the one
    /// that puts out the line's 160th pixel: `mode3_dot_is_plain`'s conditions as bounds on
    /// the dots, with the positions one further each dot. Else 0.
    fn mode3_part_length(&self) -> u8 {
        let x = self.scanline_x;
        if self.bg_fifo_len < 2
            || (self.insert_background_pixel | self.tile_sel_glitch) != 0
            || x >= 160
        {
            return 0;
        }
        let mut count = (self.bg_fifo_len - 1)
            .min(160 - self.screen_x.min(160))
            .min(160 - x);
        if self.sprite_count != 0 {
            // A dot whose column has reached the next object's (X - 8) fetches or drops it.
            let object = self.sprites[usize::from(self.sprite_count.min(10) - 1) * 4 + 1];
            count = count.min(object.saturating_sub(x + 8));
        }
        // Dot j would see the window's WX at `wx - (x + 7) - j`.
        let to_wx = self.wx.wrapping_sub(x.wrapping_add(7));
        if self.in_window == 0 {
            if self.window_y_reached != 0 {
                if self.lcdc & LCDC_WINDOW_ENABLE != 0 {
                    // Triggers where WX = column + 7, and below 166 one column earlier.
                    if self.wx == 0 || (to_wx == 255 && self.wx < 166) {
                        return 0;
                    }
                    count = count.min(to_wx);
                } else if self.disabled_window_glitch == WINDOW_GLITCH_ARMED {
                    // `disabled_window_glitch_near` for one dot: WX at + 0 or + 1.
                    if self.wx == 0 {
                        return 0;
                    }
                    count = count.min(to_wx.saturating_sub(1));
                }
            }
        } else if self.lcdc & LCDC_WINDOW_ENABLE == 0 || self.window_inserts_pixel_now() {
            // The glitch needs a whole tile in the FIFO: only the first dot can meet it.
            return 0;
        }
        count
    }

    /// The state `count` single plain `Mode3Dot` dots leave, run on a copy that draws
    /// nothing: what debug builds check each multi-dot fast path against.
    #[cfg(debug_assertions)]
    fn after_plain_dots(&self, count: u8, bus: &Ctx) -> Self {
        let mut copy = *self;
        let mut ignored = 0;
        let mut probe = Ctx::look_ahead(bus.memory(), &mut ignored);
        for _ in 0..count {
            debug_assert!(copy.mode3_dot_is_plain());
            copy.output_pixel(&mut probe);
            copy.tick_fetcher_plain(&probe);
        }
        copy
    }

    /// The fetcher's reads in steps `start_step..end_step` of a run of plain DMG dots: the
    /// tile number at step 1 (its map column as seen from scanline X `step1_x`), the low and
    /// high data bytes at steps 3 and 5, after which a window fetch moves one tile on.
    #[inline(always)]
    fn fetch_reads_between(&mut self, start_step: u8, end_step: u8, step1_x: u8, bus: &Ctx) {
        if start_step <= 1 && end_step > 1 {
            let (entry, y) = self.map_entry_at(step1_x, false);
            self.fetch_tile_number = bus.vram[super::fetcher::map_address(entry, y)];
        }
        if start_step <= 3 && end_step > 3 {
            self.fetch_tile_low = bus.vram[self.tile_data_address()];
        }
        if start_step <= 5 && end_step > 5 {
            self.fetch_tile_high = bus.vram[self.tile_data_address() + 1];
            if self.in_window != 0 {
                self.fetcher_window_x = self.fetcher_window_x.wrapping_add(1);
            }
        }
    }

    /// `count` plain dots on a DMG from an empty background FIFO in the window
    /// (`mode3_fill_length` allows them): no pixel goes out, the fetcher steps on, and
    /// reaching its push fills the FIFO with the window's tile. Checked against single
    /// dots in debug builds. Inlined: `mode3_short_run`'s copy stays in it (with a second
    /// caller, `whole_mode3.rs`, it went out of line, at a call per fill).
    #[inline(always)]
    pub(super) fn mode3_fill(&mut self, count: u8, bus: &mut Ctx) {
        #[cfg(debug_assertions)]
        let expected = self.after_plain_dots(count, bus);
        let start_step = self.fetcher_step.min(6);
        let end_step = start_step + count;
        // No pixel goes out, so the position stays where the fill began.
        self.fetch_reads_between(start_step, end_step, self.scanline_x, bus);
        if end_step > 5 {
            self.try_push_background();
        } else {
            self.fetcher_step = end_step;
        }
        #[cfg(debug_assertions)]
        debug_assert_eq!(*self, expected);
    }

    /// `length` plain dots on a DMG: the FIFO's pixels go out, the fetcher finishes its
    /// tile and pushes it at the last dot. Same effects, in the same order, as that many
    /// `Mode3Dot` steps. A CGB's counterpart is `mode3_colour_drain` (`colour_span.rs`).
    /// Inlined: called per tile, out of line it saved and restored six registers a call.
    #[inline(always)]
    pub(super) fn mode3_drain(&mut self, length: u8, bus: &mut Ctx) {
        let start_step = self.fetcher_step.min(6);
        let start_x = self.scanline_x;
        // Dot j (1-based) runs fetcher step start_step + j - 1, after its pixel is out.
        if start_step <= 1 {
            let dot = 1 - start_step + 1;
            self.scanline_x = start_x.wrapping_add(dot);
            let (entry, y) = self.map_entry(false);
            self.fetch_tile_number = bus.vram[super::fetcher::map_address(entry, y)];
        }
        // Kept in locals too: reading the two bytes back as a pair right after storing them
        // one by one stalls store forwarding.
        let mut fetched_low = self.fetch_tile_low;
        let mut fetched_high = self.fetch_tile_high;
        if start_step <= 5 {
            let address = self.tile_data_address();
            if start_step <= 3 {
                fetched_low = bus.vram[address];
                self.fetch_tile_low = fetched_low;
            }
            fetched_high = bus.vram[address + 1];
            self.fetch_tile_high = fetched_high;
            if self.in_window != 0 {
                self.fetcher_window_x = self.fetcher_window_x.wrapping_add(1);
            }
        }
        self.pop_fifo_pixels(start_x, length, bus);
        self.bg_fifo_low = fetched_low;
        self.bg_fifo_high = fetched_high;
        self.bg_fifo_len = 8;
        self.fetcher_step = 0;
    }

    /// Pops `count` pixels on a DMG from scanline X `start_x`: draws them (those left of
    /// column 0 are dropped by the fine scroll) and shifts the object FIFO past them. The
    /// background FIFO is the caller's: a whole drain refills it, a part drain shifts it.
    #[inline(always)]
    fn pop_fifo_pixels(&mut self, start_x: u8, count: u8, bus: &mut Ctx) {
        self.scanline_x = start_x.wrapping_add(count);
        let discarded = if start_x >= 160 {
            (256 - u16::from(start_x)).min(u16::from(count)) as u8
        } else {
            0
        };
        let shown = count - discarded;
        self.draw_fifo_pixels(discarded, shown, bus);
        let shift = |plane: u8| (u16::from(plane) << count) as u8;
        self.obj_fifo_low = shift(self.obj_fifo_low);
        self.obj_fifo_high = shift(self.obj_fifo_high);
        self.obj_fifo_palette = shift(self.obj_fifo_palette);
        self.obj_fifo_priority = shift(self.obj_fifo_priority);
        self.screen_x += shown;
        if shown != 0 {
            self.window_fetch_starting = 0;
        }
    }

    /// Draws the FIFO's next `discarded + shown` pixels on a DMG (the first `discarded`
    /// dropped by the fine scroll), if drawing: a drain's output, before its pops.
    #[inline(always)]
    fn draw_fifo_pixels(&mut self, discarded: u8, shown: u8, bus: &mut Ctx) {
        let (low, high) = (self.bg_fifo_low, self.bg_fifo_high);
        if let Some(frame) = bus.frame.as_deref_mut().filter(|_| shown != 0) {
            let start = usize::from(self.ly) * SCREEN_WIDTH + usize::from(self.screen_x);
            let (bg0, bg1) = if self.lcdc & LCDC_BG_ENABLE != 0 {
                (SPREAD[usize::from(low)], SPREAD[usize::from(high)])
            } else {
                (0, 0)
            };
            let packed = self.objects_over(shaded(self.bgp, bg0, bg1), bg0, bg1);
            let pixels = packed >> (8 * u32::from(discarded));
            // Part of a tile (`shown` below 8) is merged into the eight bytes from `start`,
            // which keep the rest: a copy of fewer bytes is a library call. One bound test.
            if let Some(eight) = frame.get_mut(start..start + 8) {
                let eight = <&mut [u8; 8]>::try_from(eight).expect("eight bytes");
                let keep = u64::MAX.checked_shl(8 * u32::from(shown)).unwrap_or(0);
                let old = u64::from_le_bytes(*eight);
                *eight = ((old & keep) | (pixels & !keep)).to_le_bytes();
            } else if let Some(row) = frame.get_mut(start..start + usize::from(shown)) {
                row.copy_from_slice(&pixels.to_le_bytes()[..usize::from(shown)]);
            }
        }
    }

    /// A DMG row of background shades `packed` (colour planes `bg0` / `bg1` as `SPREAD`
    /// gives them, 0 where LCDC bit 0 blanks the background) with the object FIFO's pixels
    /// that win over it drawn in: a FIFO's worth as it goes out (`draw_dmg_tiles` too).
    #[inline(always)]
    pub(super) fn objects_over(&self, packed: u64, bg0: u64, bg1: u64) -> u64 {
        if (self.obj_fifo_low | self.obj_fifo_high) == 0 || self.lcdc & LCDC_OBJ_ENABLE == 0 {
            return packed;
        }
        let ones = 0x0101_0101_0101_0101u64;
        let obj0 = SPREAD[usize::from(self.obj_fifo_low)];
        let obj1 = SPREAD[usize::from(self.obj_fifo_high)];
        let use_obp1 = SPREAD[usize::from(self.obj_fifo_palette)];
        let behind = SPREAD[usize::from(self.obj_fifo_priority)];
        let shown = (obj0 | obj1) & ((behind & (bg0 | bg1)) ^ ones);
        let objects = (shaded(self.obp0, obj0, obj1) & ((use_obp1 ^ ones) * 0xFF))
            | (shaded(self.obp1, obj0, obj1) & (use_obp1 * 0xFF));
        let shown_mask = shown * 0xFF;
        (packed & !shown_mask) | (objects & shown_mask)
    }

    /// `part` plain dots on a DMG that end before the FIFO empties (`mode3_drain_length`
    /// allows more): pixels out, and the fetcher steps those dots reach, as that many
    /// `Mode3Dot` steps; no push can come (the FIFO is not empty). Inlined, as
    /// `mode3_drain`: out of line it saved and restored six registers a call.
    #[inline(always)]
    pub(super) fn mode3_part_drain(&mut self, part: u8, bus: &mut Ctx) {
        #[cfg(debug_assertions)]
        let expected = self.after_plain_dots(part, bus);
        debug_assert!(part < self.bg_fifo_len);
        let start_step = self.fetcher_step.min(6);
        let start_x = self.scanline_x;
        let end_step = start_step + part;
        // Dot j (1-based) runs fetcher step start_step + j - 1, after its pixel is out.
        let step1_x = start_x.wrapping_add(2u8.wrapping_sub(start_step));
        self.fetch_reads_between(start_step, end_step, step1_x, bus);
        if self.fetcher_step < 6 {
            self.fetcher_step = end_step.min(6);
        }
        self.pop_fifo_pixels(start_x, part, bus);
        let shift = |plane: u8| (u16::from(plane) << part) as u8;
        self.bg_fifo_low = shift(self.bg_fifo_low);
        self.bg_fifo_high = shift(self.bg_fifo_high);
        self.bg_fifo_len -= part;
        #[cfg(debug_assertions)]
        debug_assert_eq!(*self, expected);
    }
}
