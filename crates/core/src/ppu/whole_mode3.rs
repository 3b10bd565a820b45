//! A visible DMG line's whole mode 3 in a few calls (`FastPaths::whole_mode3`): when the
//! catch-up run that reaches `Step::Mode3Start` also reaches past mode 3's end, no stop
//! can fall inside mode 3, so only the state it ends in (and, drawing, its pixels)
//! matters, and on a line where nothing breaks the FIFO's rhythm both have a closed form.
//!
//! Such a line: no object is fetched (none at all, LCDC bit 1 clear, or all right of the
//! last column), and the window either does nothing (the WY condition does not hold, WX is
//! right of the screen, the disabled window's glitch is not armed) or starts on a column
//! that leaves at least a whole tile of it on screen. Mode 3 then pops the eight dummy
//! pixels and `160 + SCX mod 8` more, one a dot, and a window's start adds the 6 dots that
//! fill the FIFO with its first tile: `168 + SCX mod 8 (+ 6)` dots, at the last of which
//! the 160th pixel goes out.
//!
//! Not drawing, every drain refills the FIFO from the fetcher, so what outlasts the line
//! is what the last whole tile's drain and the part drain after it leave (the fetcher's
//! bytes, the FIFO, the positions): the line jumps to its last whole tile and runs those
//! two, as `skip_tiles` does for a span. Drawing, the drains run in order, each whole-tile
//! span in one `drain_tiles`. Registers, VRAM and OAM cannot change within a run. Debug
//! builds check each line against its dots run one by one; the oracle compares the
//! pictures with the trick off.

use super::*;

/// Dots of a plain line's mode 3 before `SCX mod 8` is added: the dummy tile's and the
/// screen's 160 pixels.
const PLAIN_MODE3_DOTS: u32 = 168;

/// The window in a mode 3 of the closed form (`PpuState::window_on_line`).
pub(super) enum WindowOnLine {
    /// Not started on the line.
    Absent,
    /// Started at column `WX - 7`, on screen, the rest of the line in the window.
    Starts,
}

impl PpuState {
    /// `advance_in_mode3`'s run of `dots` to its line's end from a `Step::Mode3Start` not
    /// yet run: its wait and the step as `run` would run them, then mode 3 at once if
    /// `whole_mode3` can take it. Returns the dots `run` must still run: from the first
    /// dot of mode 3, from its end, or (a line with objects, `object_line.rs`) from its
    /// last whole tile. On a DMG only, as `may_run_whole` allows (the caller checks both:
    /// objects are the common reason against, known before the step). Out of line, away
    /// from `run`'s loop.
    #[inline(never)]
    pub(super) fn run_to_whole_mode3(&mut self, dots: u32, bus: &mut Ctx) -> u32 {
        let wait = u32::from(self.wait_dots);
        if dots <= wait {
            return dots;
        }
        let dots = dots - wait;
        self.line_dot = self.line_dot.wrapping_add(wait as u16);
        // The step, inside a lazy run with `dots` to go (`Ctx::whole_mode3` implies lazy).
        self.start_mode3();
        self.goto(Step::Mode3Dot, 0);
        if self.objects_stay_unfetched() {
            dots - self.whole_mode3(dots, bus)
        } else {
            dots - self.objects_to_last_tile(dots, bus)
        }
    }

    /// Whether a DMG's mode 3 about to start (`Step::Mode3Start` next) may run whole as the
    /// host allows: without objects fetched (`FastPaths::whole_mode3`), or with them
    /// (`FastPaths::whole_mode3_objects`).
    #[inline(always)]
    pub(super) fn may_run_whole(&self, bus: &Ctx) -> bool {
        if self.objects_stay_unfetched() {
            bus.whole_mode3
        } else {
            bus.whole_mode3_objects
        }
    }

    /// From `Step::Mode3Start` just run (its state set, the first dot due now) with `dots`
    /// more to run: if they reach mode 3's end on a line whose mode 3 has the closed form,
    /// runs it and returns the dots run past this one (`line_dot` moved on by them, the
    /// step at `Step::Mode0Interrupt`); else 0, with nothing changed.
    #[inline(always)]
    fn whole_mode3(&mut self, dots: u32, bus: &mut Ctx) -> u32 {
        // A DMG's (the caller checks) whose objects stay unfetched (checked before the step).
        debug_assert!(!self.is_cgb_hardware() && self.objects_stay_unfetched());
        let fine = self.scx & 7;
        // The screen column (from -7) where the FIFO's last run of whole tiles begins, and
        // the dots mode 3 gains: the background's tiles begin at `-SCX mod 8`; a window
        // starting on column `WX - 7` empties the FIFO there and fills it with its first
        // tile in 6 dots that put out no pixel.
        let (start, fill) = match self.window_on_line() {
            Some(WindowOnLine::Starts) => (i16::from(self.wx) - 7, 6),
            Some(WindowOnLine::Absent) => (-i16::from(fine), 0),
            None => return 0,
        };
        // The dots after this first one up to the one that puts out the 160th pixel, which
        // runs only if the run goes on after it.
        let run = PLAIN_MODE3_DOTS - 1 + u32::from(fine) + fill;
        if dots <= run {
            return 0;
        }
        #[cfg(debug_assertions)]
        let expected = self.after_dots_one_by_one(run + 1, bus);
        let objects = self.sprite_count;
        // Objects left are not fetched: the drains see none, as their dots would.
        self.sprite_count = 0;
        let window = (fill != 0).then_some(start as u8);
        if bus.frame.is_some() {
            self.draw_whole_mode3(window, bus);
        } else {
            self.skip_to_mode3_end(start, window.is_some(), bus);
        }
        self.sprite_count = objects;
        if objects != 0 {
            // LCDC bit 1 clear: the objects passed are dropped, as the last dot does.
            self.drop_objects_passed(159);
        }
        self.wait_dots = 0;
        self.exit_mode3(bus);
        self.line_dot = self.line_dot.wrapping_add(run as u16);
        #[cfg(debug_assertions)]
        self.check_one_dot_short_of(&expected);
        run
    }

    /// Not drawing: the pixels from screen column `start` on (the background's first tile
    /// or the window's, `window`) are whole tiles, the last of them drained as usual (its
    /// fetch outlasts the line), then the rest of the next one. Those before it outlast
    /// nothing (not drawn, and the object FIFO is empty): the line jumps to it.
    fn skip_to_mode3_end(&mut self, start: i16, window: bool, bus: &mut Ctx) {
        let pixels = 160 - start;
        let (tiles, rest) = ((pixels / 8) as u8, (pixels % 8) as u8);
        let last_tile = (start + 8 * (i16::from(tiles) - 1)) as u8;
        self.scanline_x = last_tile;
        self.screen_x = last_tile;
        self.bg_fifo_len = 8;
        self.fetcher_step = 0;
        if window {
            // The window's tiles before the last whole one have been fetched.
            self.window_line = self.window_line.wrapping_add(1);
            self.in_window = 1;
            self.fetcher_window_x = tiles;
        }
        self.mode3_drain(8, bus);
        if rest != 0 {
            self.mode3_part_drain(rest, bus);
        }
    }

    /// Drawing: mode 3's drains in order, as few as the FIFO's rhythm allows (whole tiles
    /// at once, `drain_tiles`): the dummy tile, the background up to the line's end or
    /// the window's start at column `window`, and there the window's fill and tiles.
    fn draw_whole_mode3(&mut self, window: Option<u8>, bus: &mut Ctx) {
        // The dummy tile, all its pixels dropped by the fine scroll; the background's
        // first tile then begins at scanline column `-SCX mod 8`.
        self.mode3_drain(8, bus);
        let fine = self.scx & 7;
        let background = window.unwrap_or(160) + fine;
        let (mut tiles, rest) = (background / 8, background % 8);
        if tiles != 0 && fine != 0 {
            // Its first `SCX mod 8` pixels dropped too (`drain_tiles` draws whole ones).
            self.mode3_drain(8, bus);
            tiles -= 1;
        }
        self.drain_whole_tiles(tiles, rest, bus);
        if window.is_some() {
            // The window starts at this dot: the FIFO emptied, the fetcher's first step
            // run, and its first tile's fetch fills the FIFO over the next 5 dots.
            self.window_line = self.window_line.wrapping_add(1);
            self.activate_window();
            self.fetcher_step = 1;
            self.mode3_fill(5, bus);
            let pixels = 160 - self.screen_x;
            self.drain_whole_tiles(pixels / 8, pixels % 8, bus);
        }
    }

    /// `tiles` whole tiles, then `rest` pixels of the next one.
    #[inline(always)]
    fn drain_whole_tiles(&mut self, tiles: u8, rest: u8, bus: &mut Ctx) {
        if tiles != 0 {
            self.drain_tiles::<false>(tiles, bus);
        }
        if rest != 0 {
            self.mode3_part_drain(rest, bus);
        }
    }

    /// Whether mode 3 from its start fetches no object: there are none, LCDC bit 1 is
    /// clear (the passed ones are only dropped), or all are at X 168 or more, never due on
    /// screen (the last dot is at column 159), and below `256 - SCX mod 8`: one there is
    /// due at column `X - 264`, which the fine scroll's discards reach (the dots left of
    /// column -8 fetch an object due exactly, `mode3_dot_is_plain`). The last object, in
    /// slot 0, has the highest X.
    #[inline(always)]
    pub(super) fn objects_stay_unfetched(&self) -> bool {
        self.sprite_count == 0
            || self.lcdc & LCDC_OBJ_ENABLE == 0
            || (self.next_sprite()[1] >= 168
                && u16::from(self.sprites[1]) + u16::from(self.scx & 7) < 256)
    }

    /// What the window does in mode 3 from its start (`Step::Mode3Start`'s state), on a
    /// DMG: nothing, or start on a column of 0..=152 (at least a whole tile of it shows)
    /// with nothing else of it to meet; None for the other cases (a window starting
    /// left of the screen or in the line's last tile, the disabled window's glitch, a
    /// CGB's tile-data glitch).
    #[inline(always)]
    pub(super) fn window_on_line(&self) -> Option<WindowOnLine> {
        if self.tile_sel_glitch != 0 {
            return None;
        }
        if self.window_y_reached == 0 {
            return Some(WindowOnLine::Absent);
        }
        if self.lcdc & LCDC_WINDOW_ENABLE != 0 {
            // A start is at column WX - 7, where `WX == scanline_x + 7` is seen first (the
            // trigger one column late needs a column skipped, by an object fetch). WX 166
            // counts the window's line at the last dot, a dot the drains leave to the step.
            match self.wx {
                167.. => Some(WindowOnLine::Absent),
                7..=159 => Some(WindowOnLine::Starts),
                _ => None,
            }
        } else if self.disabled_window_glitch == super::window::WINDOW_GLITCH_ARMED {
            None
        } else {
            Some(WindowOnLine::Absent)
        }
    }

    /// The state `dots` more dots leave from `Mode3Start`'s (the first dot due now),
    /// through the step dispatch and the other fast paths, on a copy that draws nothing.
    #[cfg(debug_assertions)]
    pub(super) fn after_dots_one_by_one(&self, dots: u32, bus: &Ctx) -> Self {
        let mut copy = *self;
        copy.goto(Step::Mode3Dot, 0);
        copy.after_run_drawing_nothing(dots, bus)
    }

    /// The state `run` leaves after `dots` more dots from this one, on a copy that draws
    /// nothing.
    #[cfg(debug_assertions)]
    pub(super) fn after_run_drawing_nothing(mut self, dots: u32, bus: &Ctx) -> Self {
        let mut ignored = 0;
        let mut probe = Ctx::look_ahead(bus.memory(), &mut ignored);
        probe.lazy = bus.lazy;
        self.run(dots, false, &mut probe);
        self
    }
}
