//! Many dots at once: how long the PPU stays quiet (no interrupt request, no frame), and
//! running a quiet stretch or a deferred catch-up without ticking dot by dot.

use super::*;

impl PpuState {
    /// HALT skipping: M-cycles during which `tick` raises no interrupt and completes no
    /// frame, if no register is written. 0 when the very next tick may do either (the
    /// machine then ticks normally).
    pub fn quiet_m_cycles(&self) -> u32 {
        self.quiet_m_cycles_of::<4>(QuietWalk::ALL, u32::MAX)
    }

    /// `quiet_m_cycles` for M-cycles of `DOTS` dots (see `tick_dots`), as the host's
    /// switches say (without `FastPaths::lazy_mode3`, mode 3 is never quiet). Looks no further than
    /// `limit` M-cycles (the caller's other bounds): the answer is then at least `limit`.
    /// At double speed a window ends at the next step (`quiet_m_cycles_walked` walks on).
    #[inline(always)]
    pub fn quiet_m_cycles_of<const DOTS: u16>(&self, switches: QuietWalk, limit: u32) -> u32 {
        self.quiet_m_cycles_walked::<DOTS>(switches, DOTS == 4, limit)
    }

    /// `quiet_m_cycles_of`, across the steps that cannot interrupt and through mode 3
    /// (`quiet_dots`) when `walk`: always at single speed, at double speed with
    /// `FastPaths::double_speed_windows`. Without it a window ends at the next step.
    #[inline(always)]
    pub fn quiet_m_cycles_walked<const DOTS: u16>(
        &self,
        switches: QuietWalk,
        walk: bool,
        limit: u32,
    ) -> u32 {
        let lazy_mode3 = switches.lazy_mode3;
        let dots = u32::from(DOTS);
        let limit_dots = limit.saturating_mul(dots).saturating_add(dots - 1);
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            let left = u32::from(lcd_off_frame::<DOTS>().saturating_sub(self.lcd_off_m_cycles));
            return left.saturating_sub(1);
        }
        if self.wx_just_changed | self.deferred_valid != 0
            && !self.pending_write_keeps_window::<DOTS>()
        {
            return 0;
        }
        if self.fifo_lag != 0 || (self.step_is_mode3() && walk && lazy_mode3) {
            if self.oam_dma_active != 0 || !lazy_mode3 {
                return 0;
            }
            if walk {
                // Through mode 3's end when nothing there interrupts (`quiet_dots`).
                return self.quiet_dots_at::<DOTS>(switches, limit_dots) / dots;
            }
            // Mode 3 owes dots: ticks only add more while `tick`'s fast path holds.
            let ahead = u32::from(self.screen_x) + u32::from(self.fifo_lag);
            return 159u32.saturating_sub(ahead) / dots;
        }
        if self.step_is_mode3() {
            return 0;
        }
        if walk {
            // Across the steps that cannot interrupt, into or through mode 3 (`quiet_dots`).
            return self.quiet_dots_at::<DOTS>(switches, limit_dots) / dots;
        }
        // The next step runs in tick number wait/DOTS (counting from 0).
        u32::from(self.wait_dots) / dots
    }

    /// `quiet_dots` for M-cycles of `DOTS` dots (2: double speed), its speed a constant.
    #[inline(always)]
    fn quiet_dots_at<const DOTS: u16>(&self, switches: QuietWalk, limit: u32) -> u32 {
        if DOTS == 2 {
            self.quiet_dots::<true>(switches, limit)
        } else {
            self.quiet_dots::<false>(switches, limit)
        }
    }

    /// Whether the quiet window holds across a pending register write: a write deferred
    /// in mode 3 is applied by the window's first tick (`advance_of`), and the walk holds
    /// across it when the write changes nothing it assumes (`deferred_write_keeps_window`;
    /// at single speed only). Out of line: most windows have none.
    #[cold]
    #[inline(never)]
    fn pending_write_keeps_window<const DOTS: u16>(&self) -> bool {
        DOTS == 4 && self.wx_just_changed == 0 && self.deferred_write_keeps_window()
    }

    /// Exactly `n` calls of `tick` when `n <= quiet_m_cycles()`.
    pub fn advance(
        &mut self,
        n: u32,
        memory: VideoMemory,
        interrupt_flag: &mut u8,
        frame: &mut [u8; 160 * 144],
        frame_rgb: &mut [u16; 160 * 144],
    ) {
        let mut host = Host::new(frame, frame_rgb, FastPaths::ALL);
        self.advance_of::<4>(n, memory, interrupt_flag, &mut host);
    }

    /// `advance` for M-cycles of `DOTS` dots: exactly `n` calls of `tick_dots::<DOTS>` when
    /// `n <= quiet_m_cycles_of::<DOTS>()`, drawing into and run as `host` says.
    pub fn advance_of<const DOTS: u16>(
        &mut self,
        mut n: u32,
        memory: VideoMemory,
        interrupt_flag: &mut u8,
        host: &mut Host,
    ) {
        if self.advance_quiet::<DOTS>(n) {
            return;
        }
        // The caller's promise; checking it would cost a second walk (`quiet_dots`) per
        // catch-up.
        debug_assert!(n <= self.quiet_m_cycles_walked::<DOTS>(host.quiet_walk(), true, n));
        if self.deferred_valid != 0 && n != 0 {
            n -= 1;
            if self.advance_deferred_write::<DOTS>(n, memory, interrupt_flag, host) {
                return;
            }
        }
        if n <= 1 {
            for _ in 0..n {
                self.tick_dots::<DOTS>(memory, interrupt_flag, host);
            }
            return;
        }
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            // n is below the frame period, so this never wraps (see quiet_m_cycles).
            let total = u32::from(self.lcd_off_m_cycles) + n;
            self.lcd_off_m_cycles = (total % u32::from(lcd_off_frame::<DOTS>())) as u16;
            return;
        }
        let mut bus = Ctx::drawing(memory, interrupt_flag, host, DOTS < 4);
        // The window's dots still to run, ending on an M-cycle boundary.
        let left = u32::from(DOTS) * n;
        // A CGB's mode 3 is never whole (`whole_mode3.rs`): its lines, and those of a run
        // with the switch off, then go without the test (a copy of the loop without it).
        if (bus.whole_mode3 || bus.whole_mode3_objects) && !self.is_cgb_hardware() {
            self.advance_lines::<DOTS, true>(left, &mut bus);
        } else {
            self.advance_lines::<DOTS, false>(left, &mut bus);
        }
    }

    /// `advance_of`'s `left` dots of whole ticks, the LCD on; `WHOLE_MODE3`: a DMG line's
    /// mode 3 may run whole (`Ctx::whole_mode3`).
    #[inline(always)]
    fn advance_lines<const DOTS: u16, const WHOLE_MODE3: bool>(
        &mut self,
        mut left: u32,
        bus: &mut Ctx,
    ) {
        let dots = u32::from(DOTS);
        loop {
            if self.fifo_lag != 0 || self.step_is_mode3() {
                left = self.advance_in_mode3::<DOTS, WHOLE_MODE3>(left, bus);
            }
            if left == 0 {
                return;
            }
            // Outside mode 3, nothing owed: the ticks only run steps, so the steps up to the
            // next mode 3 run at once.
            // On a DMG the window often ends in the next step's wait: a raster handler's
            // ends just after the next line starts. Elsewhere (a CGB's lines skipped in
            // HALT) the test would only cost.
            // The turn to the next mode 3 at once if it may go so (`line_turn.rs`): here,
            // not in the step loop, where a CGB's code paid for it.
            let rest = if WHOLE_MODE3 {
                match self.closed_line_turn(left, bus) {
                    Some(waits) => left - waits,
                    None => self.run_or_wait(left, true, bus),
                }
            } else {
                self.run(left, true, bus)
            };
            if rest == 0 {
                return;
            }
            // The tick that reached mode 3 owes the dots it has left after the step that
            // did (`advance_dots`), at least one: a step due at a tick's end runs in the
            // next tick. The whole ticks after it go on in mode 3.
            let owed = (rest - 1) % dots + 1;
            self.fifo_lag = owed as u16;
            self.settle(bus);
            left = rest - owed;
        }
    }

    /// `advance_of`'s first M-cycle when a write was deferred in mode 3: applies it as the
    /// tick would (`tick_slow`). True when the `rest` M-cycles after it were `advance_quiet`'s
    /// common case and ran too.
    #[cold]
    #[inline(never)]
    fn advance_deferred_write<const DOTS: u16>(
        &mut self,
        rest: u32,
        memory: VideoMemory,
        interrupt_flag: &mut u8,
        host: &mut Host,
    ) -> bool {
        let frame_done = self.tick_slow::<DOTS>(memory, interrupt_flag, host);
        debug_assert!(!frame_done, "a frame completed inside a quiet window");
        self.advance_quiet::<DOTS>(rest)
    }

    /// `advance_of` from inside mode 3 (or owing its dots) over `left` dots of whole ticks:
    /// returns the dots left once mode 3 has ended and nothing is owed, 0 when the window
    /// ended first (owing what the ticks would owe).
    fn advance_in_mode3<const DOTS: u16, const WHOLE_MODE3: bool>(
        &mut self,
        mut left: u32,
        bus: &mut Ctx,
    ) -> u32 {
        let dots = u32::from(DOTS);
        let now = u32::from(self.line_dot) + u32::from(self.fifo_lag);
        if now + left >= u32::from(schedule::WINDOW_CHECK_DOT) && self.oam_dma_active == 0 {
            // Mode 3 ends before dot `WINDOW_CHECK_DOT` (`quiet_dots`), so within the
            // window: the ticks pay every owed dot by its end, whatever the rounds, and
            // the steps give the same result however their dots are split. The line's
            // dots run at once (mode 3 cannot start again before it ends).
            let total = u32::from(self.fifo_lag) + left;
            self.fifo_lag = 0;
            let this_line = total.min(u32::from(LINE_DOTS.saturating_sub(self.line_dot)));
            let mut to_run = this_line;
            if WHOLE_MODE3 && self.step == Step::Mode3Start as u8 && self.may_run_whole(bus) {
                // The whole of mode 3 may be in this run (`whole_mode3.rs`, `object_line.rs`).
                to_run = self.run_to_whole_mode3(this_line, bus);
                if !self.step_is_mode3() {
                    // It was, and is over: the line's later steps and those after it up to
                    // the next mode 3 in one run (the caller's), not one run each.
                    return to_run + (total - this_line);
                }
            }
            self.run(to_run, false, bus);
            let mut rest = total - this_line;
            if self.step_is_mode3() {
                // Not reached: mode 3 ends long before its line does.
                self.run(rest, false, bus);
                rest = 0;
            }
            return rest;
        }
        // Mode 3 may end within the window, or outlast it: as the ticks do it. Those that
        // only add to the lag (`tick_dots`' fast path) at once; each other one is
        // `tick_dots` with this one context: in a quiet window no write is deferred, WX and
        // LCDC bit 4 were not just written, and the LCD stays on.
        debug_assert!(left.is_multiple_of(dots));
        while left != 0 && (self.fifo_lag != 0 || self.step_is_mode3()) {
            debug_assert!(self.deferred_valid | self.wx_just_changed | self.tile_sel_glitch == 0);
            debug_assert!(self.lcdc & LCDC_LCD_ENABLE != 0);
            let ahead = u32::from(self.screen_x) + u32::from(self.fifo_lag);
            if self.fifo_lag != 0 && ahead + dots < 160 && self.oam_dma_active == 0 && bus.lazy {
                let adding = left.min((159 - ahead) / dots * dots);
                self.fifo_lag += adding as u16;
                left -= adding;
            } else if self.fifo_lag == 0 && self.wait_dots >= DOTS {
                self.wait_dots -= DOTS;
                self.line_dot = self.line_dot.wrapping_add(DOTS);
                left -= dots;
            } else {
                self.advance_dots(dots, bus);
                left -= dots;
            }
        }
        left
    }

    /// `advance_of`'s common case alone, inlined into the machine: the first fast path of
    /// `tick_dots` `n` times over. True when that was all; false, with nothing changed, when
    /// `advance_of` must run the `n` M-cycles (the machine then builds the memory view).
    #[inline(always)]
    pub fn advance_quiet<const DOTS: u16>(&mut self, n: u32) -> bool {
        let dots = u32::from(DOTS);
        if self.deferred_valid | self.wx_just_changed == 0
            && self.lcdc & LCDC_LCD_ENABLE != 0
            && self.fifo_lag == 0
            && u64::from(self.wait_dots) >= u64::from(dots) * u64::from(n)
        {
            self.wait_dots -= (dots * n) as u16;
            self.line_dot = self.line_dot.wrapping_add((dots * n) as u16);
            return true;
        }
        false
    }

    /// Whether `m_cycles` deferred M-cycles (at any speed) may have run a step, which may
    /// have changed a register or a lock the CPU reads: the machine must run them first.
    /// While mode 3 owes dots, only its end changes what the CPU sees.
    #[inline(always)]
    pub fn steps_due_within(&self, m_cycles: u64) -> bool {
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            return false;
        }
        if self.fifo_lag != 0 {
            return u64::from(self.screen_x) + u64::from(self.fifo_lag) + 4 * m_cycles >= 160;
        }
        u64::from(self.wait_dots) < 4 * m_cycles
    }
}
