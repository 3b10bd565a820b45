//! The line and frame schedule: what each `Step` does, mode changes and the STAT line.

use super::*;

mod step;

pub(crate) use step::is_saved_step;
pub(super) use step::{MODE3_STEPS, Step};

/// `PpuState::line_held_high_by_lyc` when no line is: no line the walk meets.
const NO_LINE: u8 = 0xFF;

/// Line dots of a visible line's steps at single speed: the STAT OAM source rises
/// (`LineOamInterrupt`), mode 2 shows (`LineMode2`), the OAM scan ends (`LineScanEnd`), mode
/// 3 shows (`LineMode3`), WY is checked for the next line (`LineWindowCheck`).
pub(super) const OAM_INTERRUPT_DOT: u16 = 3;
pub(super) const MODE2_DOT: u16 = 4;
pub(super) const SCAN_END_DOT: u16 = 80;
pub(super) const MODE3_DOT: u16 = 84;
pub(super) const WINDOW_CHECK_DOT: u16 = LINE_DOTS - 2;

/// Dots from `Mode0Interrupt` to its second run in CGB mode, the palette unlock: palette RAM
/// stays closed to the CPU that long into mode 0, and at double speed the HBlank VRAM DMA
/// waits as long.
/// So it opens 5 dots after STAT shows mode 0 at single speed (where `Mode0Interrupt` comes a
/// dot after mode 0), 2 at double speed. UNVERIFIED: SameBoy's display code (the same dots,
/// and at double speed the HBlank transfer's start with the unlock); probes
/// `palette/*_mode3*`, `dma/hdma_readback_2x`, `dma/hdma_mode0_start_2x`.
const fn palette_lock_tail(double_speed: bool) -> u16 {
    if double_speed { 2 } else { 4 }
}

impl PpuState {
    pub(super) fn goto(&mut self, step: Step, wait: u16) {
        self.step = step as u8;
        self.wait_dots = wait;
    }

    pub(super) fn set_mode(&mut self, mode: u8) {
        self.stat = (self.stat & !0x03) | mode;
    }

    /// Recomputes the STAT interrupt line and the LY=LYC flag; a rising edge of the line
    /// requests the interrupt (Mooneye stat_irq_blocking).
    #[inline(always)]
    pub(super) fn update_stat(&mut self, interrupt_flag: &mut u8) {
        let mut line = match self.stat_mode_for_interrupt {
            0 => self.stat & STAT_HBLANK_SOURCE != 0,
            // Entering VBlank also raises the OAM source (Mooneye vblank_stat_intr-GS).
            1 => self.stat & (STAT_VBLANK_SOURCE | STAT_OAM_SOURCE) != 0,
            2 => self.stat & STAT_OAM_SOURCE != 0,
            _ => false,
        };
        if self.ly_for_compare != NONE {
            self.lyc_match = u8::from(self.ly_for_compare == self.lyc);
            if self.lyc_match != 0 {
                self.stat |= STAT_LYC_FLAG;
            } else {
                self.stat &= !STAT_LYC_FLAG;
            }
        } else if !self.is_cgb_hardware() {
            // While the comparison is suspended a DMG's flag reads 0; a CGB's (revision D
            // and later) keeps its last value (SameBoy's display code).
            self.stat &= !STAT_LYC_FLAG;
        }
        line |= self.lyc_source_output();
        if line && self.stat_line == 0 {
            *interrupt_flag |= io::INT_STAT;
        }
        self.stat_line = u8::from(line);
    }

    /// What the LY=LYC source puts on the STAT line: enabled, and the comparator's output.
    #[inline(always)]
    pub(super) fn lyc_source_output(&self) -> bool {
        self.stat & STAT_LYC_SOURCE != 0 && self.lyc_match != 0
    }

    /// Runs the step due now.
    #[inline(always)]
    pub(super) fn step(&mut self, bus: &mut Ctx) {
        self.step_within(0, bus);
    }

    /// Runs the step due now, `dots` dots before the run ends; from a step of the line turn
    /// (`line_turn`) the turn's later steps too when the run reaches them all. Returns the
    /// dots run past the step's own: those of the waits before the later steps.
    #[inline(always)]
    pub(super) fn step_within(&mut self, dots: u32, bus: &mut Ctx) -> u32 {
        // The line turn's six steps share one copy of it (`line_turn`), entered at the
        // step's rank: a copy for each first step made the step dispatch (inlined into
        // both of `run`'s loops) several KB larger, and each of the entries taken used
        // its own copy's cache lines.
        let rank = match Step::from_raw(self.step) {
            Step::Mode0Interrupt => 0,
            Step::LineWindowCheck => 1,
            Step::LineEnd => 2,
            Step::LineOamInterrupt => 3,
            Step::LineMode2 => 4,
            Step::LineScanEnd => 5,
            step => return self.step_off_turn(step, dots, bus),
        };
        self.line_turn(rank, dots, bus)
    }

    /// `step_within` for a step off the line turn.
    #[inline(always)]
    fn step_off_turn(&mut self, step: Step, dots: u32, bus: &mut Ctx) -> u32 {
        match step {
            Step::Off => self.goto(Step::Off, u16::MAX),
            Step::LcdOnLine => {
                self.window_line = 0xFF;
                self.goto(Step::LcdOnOamWriteBlock, 76);
            }
            Step::LcdOnOamWriteBlock => {
                self.oam_write_blocked = 1;
                self.goto(Step::LcdOnMode3, 2);
            }
            Step::LcdOnMode3 => {
                self.block_all();
                self.set_mode(3);
                self.stat_mode_for_interrupt = 3;
                self.update_stat(bus.interrupt_flag);
                if self.is_cgb_hardware() && !bus.double_speed {
                    // On the line the LCD starts with, a CGB at single speed keeps VRAM
                    // open 4 more dots (AGE vram-read-*, verified on CGB B/C/E; SameBoy
                    // keeps it open as long, from a CGB LCD-on line one dot ahead of ours).
                    self.vram_read_blocked = 0;
                    self.vram_write_blocked = 0;
                    self.goto(Step::LcdOnVramBlock, 4);
                } else {
                    self.goto(Step::Mode3Start, 5);
                }
            }
            Step::LcdOnVramBlock => {
                self.vram_read_blocked = 1;
                self.vram_write_blocked = 1;
                self.goto(Step::Mode3Start, 1);
            }
            Step::LineStart => self.line_start(bus),
            Step::LineOamInterruptEarly => {
                // Dot 2 at double speed (so CGB hardware): OAM writes and reads are blocked
                // from here, a dot before single speed blocks reads (AGE oam-write-cgbBCE,
                // oam-read-cgbE, verified on CGB E; SameBoy for the writes).
                self.oam_write_blocked = 1;
                self.oam_read_blocked = 1;
                // The OAM source of lines 1..=143 rises a dot early; the mode, the other
                // locks and the LY=LYC comparator change at dot 3 as usual (AGE's mode-2
                // interrupt lead, not taken on line 0; AGE `stat-mode-sprites-ds`,
                // `stat-mode-window-ds`, with `stat-mode-ds` pinning the mode's dot).
                if self.ly != 0 {
                    self.stat_mode_for_interrupt = 2;
                    self.update_stat(bus.interrupt_flag);
                }
                self.goto(Step::LineOamInterrupt, 1);
            }
            Step::LineMode3 => self.line_mode3(bus),
            Step::Mode3Start => {
                self.start_mode3();
                if bus.lazy && dots != 0 {
                    // Inside a lazy run (`dots` more to go) the first dot is left due as a
                    // `Mode3Dot`: the run goes on with it at once, in its fast path when
                    // the dot is plain (`run_plain_or_due`), else in `mode3_dot` as here.
                    self.goto(Step::Mode3Dot, 0);
                    if bus.partial_mode3 && bus.frame.is_none() && !self.is_cgb_hardware() {
                        return self.jump_into_mode3(dots, bus);
                    }
                } else {
                    self.mode3_dot(bus);
                }
            }
            Step::Mode3Dot => self.mode3_dot(bus),
            Step::Mode3WindowActivate => {
                self.activate_window();
                self.mode3_after_window(bus);
            }
            Step::SpriteWaitFetcher => self.sprite_wait_fetcher(bus),
            Step::SpriteAfterPenalty => self.sprite_fetch_1(bus),
            Step::SpriteFetch1 => self.sprite_fetch_1(bus),
            Step::SpriteFetch2 => {
                self.tick_fetcher_in(bus, true);
                self.read_sprite_attributes(bus.oam);
                self.sprite_tile_address = self.sprite_row_address();
                self.goto(Step::SpriteFetchLow, 2 - self.object_read_lead());
            }
            Step::SpriteFetchLow => {
                self.sprite_tile_address = self.sprite_row_address();
                self.sprite_tile_low =
                    self.sprite_vram(bus)[usize::from(self.sprite_tile_address & 0x1FFF)];
                self.goto(Step::SpriteFetchHigh, 2);
            }
            Step::SpriteFetchHigh => {
                // The address is formed again for the second byte, with LCDC as it is now
                // (Mealybug m3_lcdc_obj_size_change).
                self.sprite_tile_address = self.sprite_row_address();
                self.sprite_tile_high =
                    self.sprite_vram(bus)[usize::from((self.sprite_tile_address + 1) & 0x1FFF)];
                self.goto(Step::SpritePush, 1 + self.object_read_lead());
            }
            Step::SpritePush => {
                self.push_sprite(bus);
                self.mode3_sprite_check(bus);
            }
            // The rest of the dot the fetch was aborted in (`abort_object_fetch`).
            Step::SpriteFetchAborted => self.mode3_sprite_check(bus),
            Step::HBlank => {
                // Reached only through exit_mode3; kept for states saved at that step.
                self.exit_mode3(bus);
            }
            Step::VBlankLineStart => self.vblank_line_start(bus),
            Step::VBlankDot2 => {
                // Line 144 also raises the OAM source, two dots before VBlank.
                if self.ly == 144
                    && self.colour_mode == 0
                    && self.stat_line == 0
                    && self.stat & STAT_OAM_SOURCE != 0
                {
                    *bus.interrupt_flag |= io::INT_STAT;
                }
                self.goto(Step::VBlankDot4, 2);
            }
            Step::VBlankDot4 => {
                self.ly_for_compare = self.ly;
                self.update_stat(bus.interrupt_flag);
                if self.ly == 144 {
                    self.set_mode(1);
                    *bus.interrupt_flag |= io::INT_VBLANK;
                    bus.frame_done = true;
                    if self.stat_line == 0 && self.stat & STAT_OAM_SOURCE != 0 {
                        *bus.interrupt_flag |= io::INT_STAT;
                    }
                    self.stat_mode_for_interrupt = 1;
                    self.update_stat(bus.interrupt_flag);
                }
                self.goto(Step::VBlankLineEnd, LINE_DOTS - 4);
            }
            Step::VBlankLineEnd => {
                self.ly = self.ly.wrapping_add(1);
                self.line_dot = 0;
                self.vblank_line_start(bus);
            }
            Step::Line153Start => self.line153_start(bus),
            Step::Line153Dot6 => {
                self.ly = 0;
                self.ly_for_compare = 153;
                self.update_stat(bus.interrupt_flag);
                self.goto(Step::Line153Dot8, 2);
            }
            Step::Line153Dot8 => {
                self.update_stat(bus.interrupt_flag);
                self.goto(Step::Line153Dot12, 4);
            }
            Step::Line153Dot12 => {
                self.ly_for_compare = 0;
                self.update_stat(bus.interrupt_flag);
                self.goto(Step::Line153Dot24, 12);
            }
            Step::Line153CgbCompare => {
                self.ly_for_compare = 153;
                self.update_stat(bus.interrupt_flag);
                self.goto(Step::Line153CgbLyZero, 4);
            }
            Step::Line153CgbLyZero => {
                // The comparator keeps seeing 153 until dot 12 (no suspended gap).
                self.ly = 0;
                self.update_stat(bus.interrupt_flag);
                self.goto(Step::Line153Dot12, 4);
            }
            Step::Line153Dot24 => self.goto(Step::FrameEnd, LINE_DOTS - 24),
            Step::Mode0Interrupt
            | Step::LineWindowCheck
            | Step::LineEnd
            | Step::LineOamInterrupt
            | Step::LineMode2
            | Step::LineScanEnd => unreachable!("the line turn's steps go to line_turn"),
            Step::FrameEnd => {
                self.ly = 0;
                self.line_dot = 0;
                self.reset_window_y();
                self.window_line = 0xFF;
                self.goto(Step::LineStart, 0);
                self.line_start(bus);
            }
        }
        0
    }

    /// Runs the step of the line turn of rank `rank`, due now, `dots` dots before the run ends;
    /// then the turn's later steps as far as the run reaches, back to back. The turn is the steps
    /// from mode 0's interrupt to the next line's mode 3, in this order: `Mode0Interrupt`,
    /// `LineWindowCheck`, `LineEnd` (with `LineStart` at once), `LineOamInterrupt`, `LineMode2`,
    /// `LineScanEnd`, `LineMode3`. Each later step runs as the step loop would run it (its wait
    /// passes, then it runs, if it is the step next and due within the run), without the loop's
    /// dispatch and mode-3 test; a step off the turn (VBlank after line 143,
    /// `LineOamInterruptEarly` at double speed) or beyond the run ends it. Returns the dots of the
    /// waits run through (0 if only the first ran).
    #[inline(always)]
    fn line_turn(&mut self, rank: u8, dots: u32, bus: &mut Ctx) -> u32 {
        // Each step from `rank` on: the first at once (it is due), each later one if it is
        // next and due within the run. One copy of each step's code.
        let mut left = dots;
        if rank == 0 {
            self.mode0_interrupt(bus);
        }
        if rank <= 1 {
            if rank < 1 && !self.turn_step_due(Step::LineWindowCheck, &mut left) {
                return dots - left;
            }
            self.line_window_check();
        }
        if rank <= 2 {
            if rank < 2 && !self.turn_step_due(Step::LineEnd, &mut left) {
                return dots - left;
            }
            self.line_end(bus);
        }
        if rank <= 3 {
            if rank < 3 && !self.turn_step_due(Step::LineOamInterrupt, &mut left) {
                return dots - left;
            }
            self.line_oam_interrupt(bus);
        }
        if rank <= 4 {
            if rank < 4 && !self.turn_step_due(Step::LineMode2, &mut left) {
                return dots - left;
            }
            self.line_mode2(bus);
        }
        if rank < 5 && !self.turn_step_due(Step::LineScanEnd, &mut left) {
            return dots - left;
        }
        self.line_scan_end();
        if self.turn_step_due(Step::LineMode3, &mut left) {
            self.line_mode3(bus);
        }
        dots - left
    }

    /// Whether `step` is next and due within the run's `left` dots; if so its wait passes
    /// (`left` and `line_dot` move on by it), as in the step loop, for the caller to run it.
    #[inline(always)]
    fn turn_step_due(&mut self, step: Step, left: &mut u32) -> bool {
        let wait = self.wait_dots;
        if self.step != step as u8 || u32::from(wait) >= *left {
            return false;
        }
        *left -= u32::from(wait);
        self.line_dot = self.line_dot.wrapping_add(wait);
        self.wait_dots = 0;
        true
    }

    /// The HBlank source rises one dot after STAT shows mode 0: with SCX=3 or 7 that dot is
    /// in the next M-cycle (AGE stat-int-*, verified on DMG-C and CGB B/C/E; SameBoy). On a
    /// CGB, in either colour mode, the step then waits for the palette unlock
    /// (`palette_lock_tail`) and runs again: the unlock is the run that finds the HBlank
    /// source already selected. It takes no arm of its own in the step dispatch, whose every
    /// arm costs the DMG too.
    #[inline(always)]
    fn mode0_interrupt(&mut self, bus: &mut Ctx) {
        if self.is_cgb_hardware() {
            if self.mode0_step_is_unlock() {
                // Palette RAM opens (`palette_locked`).
                self.goto_window_check();
                return;
            }
            self.raise_hblank_source(bus);
            self.goto(Step::Mode0Interrupt, palette_lock_tail(bus.double_speed));
            return;
        }
        self.raise_hblank_source(bus);
        self.goto_window_check();
    }

    #[inline(always)]
    fn raise_hblank_source(&mut self, bus: &mut Ctx) {
        self.oam_read_blocked = 0;
        self.stat_mode_for_interrupt = 0;
        self.update_stat(bus.interrupt_flag);
    }

    /// Whether a pending `Mode0Interrupt` is CGB mode's palette unlock (its second run,
    /// `mode0_interrupt`), which requests nothing and leaves palette RAM open: its first
    /// run selected the HBlank source, which the step finds selected only then.
    pub(super) fn mode0_step_is_unlock(&self) -> bool {
        self.stat_mode_for_interrupt == 0
    }

    /// The rest of mode 0 up to the WY check (`LineWindowCheck`).
    #[inline(always)]
    fn goto_window_check(&mut self) {
        let wait = WINDOW_CHECK_DOT.saturating_sub(self.line_dot);
        self.goto(Step::LineWindowCheck, wait);
    }

    #[inline(always)]
    fn line_window_check(&mut self) {
        self.check_window_y();
        self.goto(Step::LineEnd, LINE_DOTS - WINDOW_CHECK_DOT);
    }

    #[inline(always)]
    fn line_end(&mut self, bus: &mut Ctx) {
        self.ly = self.ly.wrapping_add(1);
        self.line_dot = 0;
        if self.ly == 144 {
            // CGB: line 144 raises the OAM source as the line begins, one M-cycle before
            // VBlank (Mooneye `misc/ppu/vblank_stat_intr-C`, verified on CGB, AGB, AGS; a
            // DMG raises it at dot 2, see `VBlankDot2`).
            if self.colour_mode != 0 && self.stat_line == 0 && self.stat & STAT_OAM_SOURCE != 0 {
                *bus.interrupt_flag |= io::INT_STAT;
            }
            self.vblank_line_start(bus);
        } else {
            self.goto(Step::LineStart, 0);
            self.line_start(bus);
        }
    }

    #[inline(always)]
    fn line_start(&mut self, bus: &mut Ctx) {
        self.line_dot = 0;
        self.screen_x = 0;
        // A CGB blocks OAM writes from the line's first dot at single speed, from dot 2 at
        // double speed (AGE oam-write-*, verified on CGB B/C/E; SameBoy).
        if self.is_cgb_hardware() && !bus.double_speed {
            self.oam_write_blocked = 1;
        }
        if bus.double_speed {
            self.goto(Step::LineOamInterruptEarly, 2);
        } else {
            self.goto(Step::LineOamInterrupt, OAM_INTERRUPT_DOT);
        }
    }

    #[inline(always)]
    fn line_oam_interrupt(&mut self, bus: &mut Ctx) {
        self.oam_read_blocked = 1;
        // A DMG shows mode 0 for this dot after VBlank too; a CGB goes from mode 1 straight
        // to mode 2 (AGE stat-mode-*E: "no mode-0 m-cycle at the end of mode-1 on CGB-E").
        if self.ly != 0 || !self.is_cgb_hardware() {
            self.set_mode(0);
        }
        if self.ly != 0 {
            self.ly_for_compare = NONE;
            self.stat_mode_for_interrupt = 2;
        } else {
            // On line 0 the OAM source rises one dot later.
            self.ly_for_compare = 0;
            self.stat_mode_for_interrupt = NONE;
        }
        self.update_stat(bus.interrupt_flag);
        self.goto(Step::LineMode2, MODE2_DOT - OAM_INTERRUPT_DOT);
    }

    #[inline(always)]
    fn line_mode2(&mut self, bus: &mut Ctx) {
        self.oam_write_blocked = 1;
        self.ly_for_compare = self.ly;
        self.set_mode(2);
        // The OAM source is a pulse: only its rising edge matters. The line then holds just
        // the comparator's output, as `update_stat` would leave it with no mode source (it
        // cannot rise again, and the flag stays as just set).
        self.stat_mode_for_interrupt = 2;
        self.update_stat(bus.interrupt_flag);
        self.stat_mode_for_interrupt = NONE;
        self.stat_line = u8::from(self.lyc_source_output());
        self.scan_oam(bus.oam);
        self.check_window_y();
        self.goto(Step::LineScanEnd, SCAN_END_DOT - MODE2_DOT);
    }

    #[inline(always)]
    fn line_scan_end(&mut self) {
        // A DMG lets OAM writes through and blocks VRAM reads for these 4 dots; a CGB keeps
        // OAM writes blocked and VRAM reads open until mode 3 (AGE vram-read-*, oam-write-*;
        // SameBoy).
        let cgb = u8::from(self.is_cgb_hardware());
        self.oam_read_blocked = 1;
        self.oam_write_blocked = cgb;
        self.vram_read_blocked = cgb ^ 1;
        self.vram_write_blocked = 0;
        self.goto(Step::LineMode3, MODE3_DOT - SCAN_END_DOT);
    }

    #[inline(always)]
    fn line_mode3(&mut self, bus: &mut Ctx) {
        self.set_mode(3);
        self.stat_mode_for_interrupt = 3;
        self.update_stat(bus.interrupt_flag);
        self.block_all();
        self.goto(Step::Mode3Start, 5);
    }

    /// Dots of real time from now, at single speed or `DOUBLE_SPEED`, during which the steps
    /// can request no interrupt and complete no frame, as long as no register is written:
    /// ticks over them may be deferred and run at once (`quiet_m_cycles_of`). Mode 3 counts
    /// only with `lazy_mode3` (not lazy, every tick of mode 3 pays its dots).
    ///
    /// Walks the steps from the next one: the STAT line can only rise in a step that
    /// recomputes it, from a source that is enabled and, for LY=LYC, whose comparator may
    /// see LYC then. Any other step, and line 144's start (the VBlank interrupt), ends the
    /// walk where it runs.
    ///
    /// Mode 3 (`through_mode3`): its steps request nothing, and it ends long before dot
    /// `WINDOW_CHECK_DOT`; its end and `Mode0Interrupt` request nothing without the HBlank
    /// source and without LY=LYC seen on that line, so the walk then goes on past its end,
    /// wherever that falls, to the line's later steps. Otherwise it ends where mode 3 might:
    /// while its 160th pixel is surely ahead (each owed dot outputs at most one pixel).
    ///
    /// VBlank lines 145..=153 request nothing but LY=LYC (their mode-1 sources rose with
    /// line 144 and stay high), so only the steps whose comparator may see LYC end the walk.
    ///
    /// The walk stops once it has found `limit` dots (the caller's other bounds): the
    /// answer is then at least `limit`.
    pub(super) fn quiet_dots<const DOUBLE_SPEED: bool>(
        &self,
        switches: QuietWalk,
        limit: u32,
    ) -> u32 {
        let lazy_mode3 = switches.lazy_mode3;
        let lyc_source = self.stat & STAT_LYC_SOURCE != 0;
        let oam_source = self.stat & STAT_OAM_SOURCE != 0;
        // `FastPaths::lyc_windows`: on a DMG, what the comparator holds (see below).
        let dmg_lyc = lyc_source && switches.lyc_windows && !self.is_cgb_hardware();
        let held_line = if dmg_lyc && self.lyc_match != 0 && self.lyc == self.ly {
            self.line_held_high_by_lyc()
        } else {
            NO_LINE
        };
        // Whether the comparator seeing `line` may raise the STAT line: not on the line
        // whose match holds it high already.
        let lyc_may_match = |line: u8| lyc_source && self.lyc == line && line != held_line;
        // On a DMG the STAT line has the comparator's output in as every step leaves it
        // (`update_stat`; a loaded state may not have it).
        let lyc_in_line = dmg_lyc && (self.stat_line != 0 || self.lyc_match == 0);
        // Whether a step at `line`'s OAM interrupt may raise it: the comparator is
        // suspended there (line 0: it sees 0) and holds its last output, that of this line
        // or the one before. With that output already in the STAT line, only the OAM
        // source can raise it there (but on line 0). Taken where a raster handler's
        // window ends (the line LYC was moved on to, the line after a match): walking
        // on past every line's OAM step would cost more than the windows gain.
        let oam_step_requests = |line: u8| {
            if lyc_in_line && line != 0 && (self.lyc == line || line.wrapping_sub(1) == held_line) {
                return oam_source;
            }
            let lyc_held = self.lyc_match != 0
                || line == 0
                || self.lyc == line
                || self.lyc == line.wrapping_sub(1);
            oam_source || (lyc_source && lyc_held)
        };
        // Mode 3 and mode 0 request nothing (on a line whose comparator cannot see LYC).
        let mode3_quiet =
            lazy_mode3 && self.oam_dma_active == 0 && self.stat & STAT_HBLANK_SOURCE == 0;
        let through_mode3 = |line: u8| mode3_quiet && !lyc_may_match(line);
        let mut dots = u32::from(self.wait_dots);
        let mut line = self.ly;
        let mut screen_x = self.screen_x;
        let mut step = Step::from_raw(self.step);
        if self.fifo_lag != 0 || self.step_is_mode3() {
            let ahead = u32::from(self.screen_x) + u32::from(self.fifo_lag);
            let mode3_left = 159u32.saturating_sub(ahead);
            let now = self.line_dot.wrapping_add(self.fifo_lag);
            if !through_mode3(line) || now >= WINDOW_CHECK_DOT {
                return mode3_left;
            }
            // Past mode 3 the line's steps request nothing (`LineWindowCheck` below).
            dots = u32::from(LINE_DOTS - now);
            step = Step::LineEnd;
        }
        while dots < limit {
            // The next step, and its distance in dots from the current one.
            let (next, delta) = match step {
                Step::LineStart => {
                    if !oam_source && mode3_quiet {
                        // Whole lines at once, up to the first whose steps may see LYC
                        // (`LineOamInterrupt` below also holds the line before's).
                        let stop = if !lyc_source {
                            144
                        } else if self.lyc_match != 0
                            || line == 0
                            || self.lyc == line
                            || self.lyc == line.wrapping_sub(1)
                        {
                            line
                        } else if self.lyc > line {
                            self.lyc.min(144)
                        } else {
                            144
                        };
                        if stop > line {
                            dots += u32::from(stop - line) * u32::from(LINE_DOTS);
                            line = stop;
                            if line >= 144 {
                                return dots;
                            }
                            continue;
                        }
                    }
                    screen_x = 0;
                    if DOUBLE_SPEED {
                        (Step::LineOamInterruptEarly, 2)
                    } else {
                        (Step::LineOamInterrupt, OAM_INTERRUPT_DOT)
                    }
                }
                Step::LineOamInterruptEarly => {
                    // Double speed: the OAM source rises here, a dot before the comparator
                    // and mode change at `LineOamInterrupt`.
                    if oam_step_requests(line) {
                        return dots;
                    }
                    (Step::LineOamInterrupt, OAM_INTERRUPT_DOT - 2)
                }
                Step::LineOamInterrupt => {
                    if oam_step_requests(line) {
                        return dots;
                    }
                    (Step::LineMode2, MODE2_DOT - OAM_INTERRUPT_DOT)
                }
                Step::LineMode2 => {
                    if oam_source || lyc_may_match(line) {
                        return dots;
                    }
                    // `LineScanEnd` requests nothing: on to mode 3.
                    (Step::LineMode3, MODE3_DOT - MODE2_DOT)
                }
                Step::LineScanEnd => (Step::LineMode3, MODE3_DOT - SCAN_END_DOT),
                Step::LineMode3 => {
                    if !lazy_mode3 || lyc_may_match(line) {
                        return dots;
                    }
                    if !through_mode3(line) {
                        // From here mode 3 owes dots while its 160th pixel is surely
                        // ahead: the last tick that only adds to the lag ends below 160.
                        return dots + 159u32.saturating_sub(u32::from(screen_x));
                    }
                    // Nor do the line's later steps: on to its end (`LineWindowCheck`).
                    (Step::LineEnd, LINE_DOTS - MODE3_DOT)
                }
                Step::Mode0Interrupt => {
                    // The CGB palette unlock (the step's second run) requests nothing.
                    if !self.mode0_step_is_unlock()
                        && (self.stat & STAT_HBLANK_SOURCE != 0 || lyc_may_match(line))
                    {
                        return dots;
                    }
                    // Only ever the walk's first step: it runs at `line_dot + wait_dots`
                    // (in CGB mode its second run, which requests nothing, follows).
                    let dot = self.line_dot.wrapping_add(self.wait_dots);
                    (Step::LineEnd, LINE_DOTS - WINDOW_CHECK_DOT.min(dot))
                }
                // The WY check requests nothing.
                Step::LineWindowCheck => (Step::LineEnd, LINE_DOTS - WINDOW_CHECK_DOT),
                Step::LineEnd => {
                    line = line.wrapping_add(1);
                    if line >= 144 {
                        return dots;
                    }
                    // `LineEnd` runs `LineStart` at once.
                    (Step::LineStart, 0)
                }
                // VBlank: only LY=LYC can request anything after line 144's start.
                Step::VBlankDot2 => {
                    if line == 144 {
                        return dots;
                    }
                    (Step::VBlankDot4, 2)
                }
                Step::VBlankDot4 => {
                    if line == 144 || lyc_may_match(line) {
                        return dots;
                    }
                    (Step::VBlankLineEnd, LINE_DOTS - 4)
                }
                Step::VBlankLineEnd => {
                    // `vblank_line_start` at once: LY steps on, the comparator is suspended
                    // (its held output changes nothing).
                    line = line.wrapping_add(1);
                    if line > 153 {
                        return dots;
                    }
                    // Whole lines at once, up to the first whose comparator may see LYC
                    // (`VBlankDot4`) or line 153: the others' steps request nothing.
                    let stop = if lyc_source && self.lyc >= line && self.lyc < 153 {
                        self.lyc
                    } else {
                        153
                    };
                    if stop > line {
                        dots += u32::from(stop - line) * u32::from(LINE_DOTS);
                        line = stop;
                    }
                    if line < 153 {
                        (Step::VBlankDot2, 2)
                    } else if lyc_may_match(153) || lyc_may_match(0) {
                        // Line 153's comparator sees 153 from dot 4 (CGB) or 6, then 0.
                        return dots;
                    } else {
                        // Line 153's steps in one: its LY and comparator quirks are seen
                        // only by reads, which catch the PPU up (`steps_due_within`).
                        (Step::FrameEnd, LINE_DOTS)
                    }
                }
                Step::Line153Dot6
                | Step::Line153Dot8
                | Step::Line153Dot12
                | Step::Line153CgbCompare
                | Step::Line153CgbLyZero => {
                    if lyc_may_match(153) || lyc_may_match(0) {
                        return dots;
                    }
                    // Only ever the walk's first step: it runs at `line_dot + wait_dots`.
                    let dot = self.line_dot.wrapping_add(self.wait_dots);
                    (Step::FrameEnd, LINE_DOTS.saturating_sub(dot))
                }
                Step::Line153Dot24 => (Step::FrameEnd, LINE_DOTS - 24),
                Step::FrameEnd => {
                    // `FrameEnd` runs line 0's `LineStart` at once.
                    line = 0;
                    (Step::LineStart, 0)
                }
                _ => return dots,
            };
            step = next;
            dots += u32::from(delta);
        }
        dots
    }

    /// On a DMG, the visible line (not the last) whose LY=LYC match holds the STAT line high
    /// from now on, past the comparison at its mode 2, or `NO_LINE`. Every step up to the
    /// next line's comparison recomputes the line with that match still in, so none of
    /// them can raise it, whatever other source rises.
    fn line_held_high_by_lyc(&self) -> u8 {
        let step = Step::from_raw(self.step);
        let past_compare = self.step_is_mode3()
            || matches!(
                step,
                Step::LineScanEnd
                    | Step::LineMode3
                    | Step::Mode0Interrupt
                    | Step::LineWindowCheck
                    | Step::LineEnd
            );
        if past_compare
            && self.stat & STAT_LYC_SOURCE != 0
            && self.stat_line != 0
            && self.lyc_match != 0
            && self.ly_for_compare == self.ly
            && self.lyc == self.ly
            && self.ly < 143
        {
            self.ly
        } else {
            NO_LINE
        }
    }

    pub(super) fn vblank_line_start(&mut self, bus: &mut Ctx) {
        if self.ly == 153 {
            self.line153_start(bus);
            return;
        }
        self.ly_for_compare = NONE;
        self.update_stat(bus.interrupt_flag);
        self.goto(Step::VBlankDot2, 2);
    }

    pub(super) fn line153_start(&mut self, bus: &mut Ctx) {
        self.ly = 153;
        self.ly_for_compare = NONE;
        self.update_stat(bus.interrupt_flag);
        if self.is_cgb_hardware() {
            // A CGB (revision D and later) compares with 153 two dots earlier and shows
            // LY=0 two dots later (AGE ly-*E: LY reads 153 one M-cycle longer; SameBoy).
            self.goto(Step::Line153CgbCompare, 4);
        } else {
            self.goto(Step::Line153Dot6, 6);
        }
    }

    /// `Step::Mode3Start`'s state: the FIFOs and the fetcher at the line's start, the
    /// position left of the screen by the fine scroll; the first dot is due now.
    #[inline(always)]
    pub(super) fn start_mode3(&mut self) {
        self.bg_fifo_low = 0;
        self.bg_fifo_high = 0;
        // Eight dummy pixels: the first fetch overlaps their output.
        self.bg_fifo_len = 8;
        self.obj_fifo_low = 0;
        self.obj_fifo_high = 0;
        self.obj_fifo_palette = 0;
        self.obj_fifo_priority = 0;
        self.obj_fifo_palette_bit1 = 0;
        self.obj_fifo_palette_bit2 = 0;
        self.fetcher_step = 0;
        self.fetcher_window_x = 0;
        self.window_at_mode3_start();
        self.in_window = 0;
        self.insert_background_pixel = 0;
        self.window_fetch_starting = 0;
        let fine = self.scx & 7;
        self.scanline_x = 0u8.wrapping_sub(fine + 8);
        self.sprite_x0_penalty = fine.min(5);
    }

    pub(super) fn block_all(&mut self) {
        self.oam_read_blocked = 1;
        self.oam_write_blocked = 1;
        self.vram_read_blocked = 1;
        self.vram_write_blocked = 1;
    }

    /// The 160th pixel is out: STAT reads mode 0 from this dot; the HBlank STAT source
    /// rises a dot later (`Step::Mode0Interrupt`), at CGB double speed at once.
    pub(super) fn exit_mode3(&mut self, bus: &mut Ctx) {
        self.oam_write_blocked = 0;
        self.vram_read_blocked = 0;
        self.vram_write_blocked = 0;
        // A CGB (revision D and later) keeps OAM reads blocked one dot longer (AGE
        // oam-read-*E; SameBoy).
        self.oam_read_blocked = u8::from(self.is_cgb_hardware());
        self.set_mode(0);
        self.goto(Step::Mode0Interrupt, 1);
        if bus.double_speed {
            self.mode0_interrupt_now(bus);
        }
    }

    /// At CGB double speed the HBlank source and the OAM reads do not lag mode 0 (AGE
    /// stat-int-dmgC-cgbBCE and oam-read-cgbE, double-speed rows; SameBoy). Kept out of
    /// `exit_mode3`, which the DMG's mode-3 fast path inlines.
    #[cold]
    #[inline(never)]
    fn mode0_interrupt_now(&mut self, bus: &mut Ctx) {
        self.wait_dots = 0;
        self.step(bus);
    }
}
