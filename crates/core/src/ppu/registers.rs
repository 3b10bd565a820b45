//! The CPU side of the PPU registers: reads, writes, and mode-3 writes deferred to the dot
//! they land on.

use super::schedule::{MODE2_DOT, MODE3_DOT, OAM_INTERRUPT_DOT, SCAN_END_DOT, WINDOW_CHECK_DOT};
use super::*;

/// Whether LY may change at `step` or before the end of its line other than by the line
/// ending: the LCD's first line, line 153 (LY 153, then 0) and the frame's end.
fn ly_changes_off_line_end(step: Step) -> bool {
    matches!(
        step,
        Step::Off
            | Step::LcdOnLine
            | Step::LcdOnOamWriteBlock
            | Step::LcdOnMode3
            | Step::LcdOnVramBlock
            | Step::VBlankLineStart
            | Step::Line153Start
            | Step::Line153Dot6
            | Step::Line153Dot8
            | Step::Line153Dot12
            | Step::Line153Dot24
            | Step::Line153CgbCompare
            | Step::Line153CgbLyZero
            | Step::FrameEnd
    )
}

/// A walk through a DMG's steps on the visible lines from the PPU's position, without
/// running them, as `quiet_dots` runs them: STAT's mode and LY=LYC flag as each step leaves
/// them (`stat_after_dots`, `read_forecast`). From a PPU owing no mode-3 dots.
struct StatSteps {
    /// STAT as the steps walked leave it.
    stat: u8,
    line: u8,
    /// The next step, and the line dot it runs at.
    step: Step,
    dot: u16,
    /// The dots from the PPU's position to the next step, which runs with the first dot
    /// past them.
    at: u64,
}

/// What `StatSteps::step` did.
enum Walked {
    /// Ran the step; the walk goes on.
    Stepped,
    /// Mode 3 began (at `at`). It lasts at least 160 dots (one pixel a dot at most), past
    /// which its end is known only by running it: the walk ends.
    Mode3,
    /// A step the walk does not follow (past line 143, the LCD's first line): it ends.
    Unknown,
}

impl StatSteps {
    fn new(ppu: &PpuState) -> StatSteps {
        StatSteps {
            stat: ppu.stat,
            line: ppu.ly,
            step: Step::from_raw(ppu.step),
            dot: ppu.line_dot.wrapping_add(ppu.wait_dots),
            at: u64::from(ppu.wait_dots),
        }
    }

    /// Runs the next step, at `at`, and moves on to the one after it.
    #[inline(always)]
    fn step(&mut self, lyc: u8) -> Walked {
        let flag_of = |line: u8| if line == lyc { STAT_LYC_FLAG } else { 0 };
        let line = self.line;
        let next = match self.step {
            Step::LineOamInterrupt => {
                // Mode 0 for a dot; the comparator suspended (it sees 0 on line 0).
                let flag = if line == 0 { flag_of(0) } else { 0 };
                self.stat = (self.stat & !(STAT_LYC_FLAG | 3)) | flag;
                (Step::LineMode2, MODE2_DOT)
            }
            Step::LineMode2 => {
                self.stat = (self.stat & !(STAT_LYC_FLAG | 3)) | flag_of(line) | 2;
                (Step::LineScanEnd, SCAN_END_DOT)
            }
            Step::LineScanEnd => (Step::LineMode3, MODE3_DOT),
            Step::LineMode3 => {
                // Mode 3 stays while its 160th pixel is ahead (`steps_due_within`).
                self.stat = (self.stat & !(STAT_LYC_FLAG | 3)) | flag_of(line) | 3;
                return Walked::Mode3;
            }
            // Mode 0 already shows; the HBlank source changes no bit the CPU reads.
            Step::Mode0Interrupt => (Step::LineWindowCheck, WINDOW_CHECK_DOT.max(self.dot)),
            Step::LineWindowCheck => (Step::LineEnd, LINE_DOTS),
            Step::LineEnd => {
                self.line = line.wrapping_add(1);
                if self.line >= 144 {
                    return Walked::Unknown;
                }
                // `LineStart` runs at once, at the new line's dot 0.
                self.dot = 0;
                (Step::LineOamInterrupt, OAM_INTERRUPT_DOT)
            }
            _ => return Walked::Unknown,
        };
        self.at += u64::from(next.1 - self.dot);
        (self.step, self.dot) = next;
        Walked::Stepped
    }
}

impl PpuState {
    /// FF40..=FF4B except FF46. `reg` is the low byte.
    pub fn read_register(&self, reg: u8) -> u8 {
        if self.deferred_valid != 0 && reg == self.deferred_reg {
            return self.deferred_value;
        }
        match reg {
            io::LCDC => self.lcdc,
            io::STAT => self.stat | 0x80,
            io::SCY => self.scy,
            io::SCX => self.scx,
            io::LY => self.ly_as_read(),
            io::LYC => self.lyc,
            io::BGP => self.bgp,
            io::OBP0 => self.obp0,
            io::OBP1 => self.obp1,
            io::WY => self.wy,
            io::WX => self.wx,
            _ => 0xFF,
        }
    }

    /// What the CPU reads from `reg` (FF40..=FF4B but FF46) once the PPU has run `m_cycles`
    /// more quiet M-cycles, told from its position without running them: only LY and
    /// STAT change in steps, and on a DMG their values follow from the schedule. None when
    /// the steps must run first (the machine then catches up): a CGB's LY or STAT, mode 3
    /// that may have ended, line 153, a pending write.
    #[inline]
    pub fn read_register_after(&self, reg: u8, m_cycles: u64) -> Option<u8> {
        if m_cycles == 0 {
            return Some(self.read_register(reg));
        }
        if self.wx_just_changed != 0 {
            return None;
        }
        if !matches!(reg, io::LY | io::STAT) {
            // Only LY and STAT change in steps; a write deferred in mode 3 is applied by the
            // first of the M-cycles, after which its register reads the value written, as
            // `read_register` already answers.
            return Some(self.read_register(reg));
        }
        // A deferred write applied on the way may change mode 3's length (STAT) or switch
        // the LCD off; LY keeps its line timing for those that keep the quiet window.
        if self.deferred_valid != 0 && (reg == io::STAT || !self.deferred_write_keeps_window()) {
            return None;
        }
        if !self.steps_due_within(m_cycles) {
            return Some(self.read_register(reg));
        }
        if self.is_cgb_hardware() {
            return None;
        }
        // A DMG runs at single speed: 4 dots per M-cycle.
        let dots = 4 * m_cycles;
        if reg == io::LY {
            self.ly_after_dots(dots)
        } else {
            self.stat_after_dots(dots)
        }
    }

    /// LY on a DMG once `dots` more dots have run. It changes only at the end of a line
    /// (`Step::LineEnd`, `Step::VBlankLineEnd`, every `LINE_DOTS` from the line's start,
    /// mode 3's length aside), and around line 153, left to the steps.
    fn ly_after_dots(&self, dots: u64) -> Option<u8> {
        if ly_changes_off_line_end(Step::from_raw(self.step)) {
            return None;
        }
        // The PPU's place in its line: owed mode-3 dots are dots of this line.
        let end = u64::from(self.line_dot) + u64::from(self.fifo_lag) + dots;
        // A line's end step runs with the first dot past it.
        let line_ends = end.saturating_sub(1) / u64::from(LINE_DOTS);
        let ly = u64::from(self.ly) + line_ends;
        // Line 153 reads 153, then 0, within its first dots.
        (ly < 153).then_some(ly as u8)
    }

    /// STAT on a DMG once `dots` more dots have run, walking the steps of the visible lines
    /// as `quiet_dots` does: the mode and the LY=LYC flag as each step leaves them. Mode 3
    /// lasts at least 160 dots from its step (one pixel a dot at most), past which its end
    /// is known only by running it: None, as from inside mode 3 and past line 143 (quiet
    /// windows may cross both; the read then catches up).
    fn stat_after_dots(&self, dots: u64) -> Option<u8> {
        if self.fifo_lag != 0 {
            return None;
        }
        let mut walk = StatSteps::new(self);
        loop {
            // A step runs with the first dot past its wait.
            if walk.at >= dots {
                return Some(walk.stat | 0x80);
            }
            match walk.step(self.lyc) {
                Walked::Stepped => {}
                Walked::Mode3 => return (dots - walk.at < 160).then_some(walk.stat | 0x80),
                Walked::Unknown => return None,
            }
        }
    }

    /// What a DMG's reads of `reg` (LY or STAT) will return over the M-cycles after the
    /// PPU's position plus `behind` M-cycles, as long as no register is written: for
    /// skipping a loop that polls it (`poll_loop`). The caller guarantees that no step
    /// runs in the `behind` M-cycles. The current value lasts while no step changes it: LY
    /// changes only when a line's dot count reaches `LINE_DOTS`, STAT only in a step,
    /// where mode 3 owing dots runs none until its 160th pixel is due
    /// (`steps_due_within`). LY then takes each later line's number (a line is
    /// `LINE_DOTS` dots, 114 M-cycles, from one LY step to the next) up to line 152. Line
    /// 153 reads 0 from its dot 6 to line 0's end, and the lines after as ever; its first
    /// dots and the LCD-on line are left out. STAT then takes the values of the steps of
    /// the visible lines up to the next mode 3's least length (`stat_forecast`); the end
    /// of mode 3 is foreseen only from inside it, owing dots (its length depends on the
    /// objects and the window). Only the current value, at once unsure, on a CGB (whose
    /// LY reads lag) and with a write pending (but for LY after a write that keeps the
    /// quiet window).
    pub(crate) fn read_forecast(&self, reg: u8, behind: u32) -> ReadForecast {
        let value = self.read_register(reg);
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            // LY and STAT read as they are until LCDC is written.
            return ReadForecast::constant(value, u32::MAX);
        }
        // A write deferred in mode 3 that keeps the quiet window leaves LY's line timing
        // as it is (`read_register_after`); STAT may then change sooner.
        let deferred_changes =
            self.deferred_valid != 0 && (reg != io::LY || !self.deferred_write_keeps_window());
        if self.is_cgb_hardware() || self.wx_just_changed != 0 || deferred_changes {
            return ReadForecast::constant(value, 0);
        }
        let behind = 4 * behind;
        if reg == io::LY {
            let step = Step::from_raw(self.step);
            let line153_zero = matches!(
                step,
                Step::Line153Dot8 | Step::Line153Dot12 | Step::Line153Dot24 | Step::FrameEnd
            );
            if line153_zero && self.ly == 0 {
                // Line 153 past its dot 6 reads 0, as line 0 after it does: LY next
                // changes at line 0's end, a line after this one's, and then as ever.
                let dots =
                    (2 * u32::from(LINE_DOTS)).saturating_sub(u32::from(self.line_dot) + behind);
                return ReadForecast {
                    lines_after: 152,
                    ..ReadForecast::constant(value, dots / 4)
                };
            }
            if ly_changes_off_line_end(step) {
                return ReadForecast::constant(value, 0);
            }
            let lines_after = 152u8.saturating_sub(self.ly);
            let dots = u32::from(LINE_DOTS)
                .saturating_sub(u32::from(self.line_dot) + u32::from(self.fifo_lag) + behind);
            // A step at dot d of the ticks runs in the tick that covers it, so a read
            // M-cycles `dots / 4 + 1` on sees the next line (`tick_dots`). A position past
            // the line's end (never reached) leaves only the current value.
            let lines_after = if dots == 0 { 0 } else { lines_after };
            return ReadForecast {
                lines_after,
                ..ReadForecast::constant(value, dots / 4)
            };
        }
        if self.fifo_lag != 0 {
            let dots =
                159u32.saturating_sub(u32::from(self.screen_x) + u32::from(self.fifo_lag) + behind);
            return ReadForecast::constant(value, dots / 4);
        }
        self.stat_forecast(value, u64::from(behind / 4))
    }

    /// `read_forecast` of STAT (`value` now) from a DMG's PPU owing no mode-3 dots, whose
    /// next step is not due within `behind` M-cycles: the values the steps leave, walked
    /// as `stat_after_dots` walks them, up to mode 3's least length or a step the walk
    /// does not follow. A read sees a step once a dot past it has run (its M-cycle's 4
    /// dots end past it).
    fn stat_forecast(&self, value: u8, behind: u64) -> ReadForecast {
        let mut walk = StatSteps::new(self);
        // The last M-cycle after the forecast's whose read runs no dot past `dots` from the
        // PPU's position (dots of a few lines at most: a u32).
        let last_within = |dots: u64| (dots / 4).saturating_sub(behind) as u32;
        let mut forecast = ReadForecast::constant(value, last_within(walk.at));
        loop {
            let (stat, last) = match walk.step(self.lyc) {
                Walked::Stepped => (walk.stat | 0x80, last_within(walk.at)),
                Walked::Mode3 => {
                    forecast.then(walk.stat | 0x80, last_within(walk.at + 159));
                    return forecast;
                }
                Walked::Unknown => return forecast,
            };
            if !forecast.then(stat, last) {
                return forecast;
            }
        }
    }

    /// `read_forecast` on CGB hardware, from a PPU caught up with the clock (no M-cycle
    /// behind): what reads of `reg` (LY or STAT) return while no step runs, for M-cycles
    /// of 2 dots at `double_speed`, 4 otherwise. STAT changes only in a step, as on a DMG.
    /// LY changes at the line's end, and reads the line before for its dots 1 and 2
    /// (`ly_as_read`): from there, or close enough to reach it in one M-cycle, only the
    /// current value is sure. The lines after are not foreseen. With `enabled` off
    /// (`FastPaths::cgb_poll_forecast`), only the current value, at once unsure.
    pub(crate) fn read_forecast_cgb(
        &self,
        reg: u8,
        double_speed: bool,
        enabled: bool,
    ) -> ReadForecast {
        let value = self.read_register(reg);
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            // LY and STAT read as they are until LCDC is written.
            return ReadForecast::constant(value, u32::MAX);
        }
        if !enabled || self.wx_just_changed | self.deferred_valid != 0 {
            return ReadForecast::constant(value, 0);
        }
        let dots = if double_speed { 2 } else { 4 };
        let left = if reg == io::LY {
            if ly_changes_off_line_end(Step::from_raw(self.step))
                || (self.ly != 0 && self.line_dot < 3)
            {
                return ReadForecast::constant(value, 0);
            }
            let left = u32::from(LINE_DOTS)
                .saturating_sub(u32::from(self.line_dot) + u32::from(self.fifo_lag));
            if double_speed || left == 0 {
                // (`ReadForecast::at` counts lines of single-speed M-cycles.)
                return ReadForecast::constant(value, left / dots);
            }
            // As on a DMG, a read `left / 4 + 1` M-cycles on is the first of the next line,
            // at its dot `4 - left % 4` (lines are whole M-cycles long, so every later line
            // is read at the same dots). At dot 1 or 2 it still reads the line before, so
            // each new number shows an M-cycle later.
            let first_dot = 4 - left % 4;
            return ReadForecast {
                lines_after: 152u8.saturating_sub(self.ly),
                ..ReadForecast::constant(value, left / 4 + u32::from(first_dot <= 2))
            };
        } else if self.fifo_lag != 0 {
            159u32.saturating_sub(u32::from(self.screen_x) + u32::from(self.fifo_lag))
        } else {
            u32::from(self.wait_dots)
        };
        ReadForecast::constant(value, left / dots)
    }

    /// FF44 LY as the CPU reads it. A CGB's LY register takes a new line number two dots
    /// after the PPU does (AGE `ly-cgbE`, `ly-ncmE`, and at double speed or after a speed
    /// switch, where reads fall on odd dots of the line, `spsw-mode0-cgbBCE`). The LY=LYC
    /// comparator is not delayed. Line 153's later LY=0 is the PPU's own
    /// (`Step::Line153CgbLyZero`). UNVERIFIED on CPU CGB B/C, whose line 153 reads 0
    /// earlier at normal speed (AGE `ly-dmgC-cgbBC`).
    fn ly_as_read(&self) -> u8 {
        if !self.is_cgb_hardware() || self.lcdc & LCDC_LCD_ENABLE == 0 {
            return self.ly;
        }
        let dot = self.line_dot;
        if self.ly != 0 && (1..=2).contains(&dot) {
            // Incremented at dot 0 of this line.
            return self.ly - 1;
        }
        self.ly
    }

    /// FF40..=FF4B except FF46. `reg` is the low byte.
    pub fn write_register(&mut self, reg: u8, value: u8, interrupt_flag: &mut u8) {
        let renders = matches!(
            reg,
            io::LCDC | io::SCY | io::SCX | io::BGP | io::OBP0 | io::OBP1 | io::WY | io::WX
        );
        if renders
            && self.lcdc & LCDC_LCD_ENABLE != 0
            && (self.fifo_lag != 0 || Step::from_raw(self.step).is_mode3())
        {
            // Mode 3: the FIFO may be behind; the next tick brings it to the write's dot
            // and applies the write there (`apply_deferred`). Every tick applies a deferred
            // write first, so there is never more than one.
            self.deferred_valid = 1;
            self.deferred_reg = reg;
            self.deferred_value = value;
            return;
        }
        self.write_register_now(reg, value, interrupt_flag);
    }

    pub(super) fn write_register_now(&mut self, reg: u8, value: u8, interrupt_flag: &mut u8) {
        match reg {
            io::LCDC => self.write_lcdc(value, interrupt_flag),
            io::STAT => {
                // DMG STAT write bug: for one cycle every source reads as enabled, so a
                // write during HBlank, VBlank or LY=LYC requests a STAT interrupt
                // (Pan Docs, "Spurious STAT interrupts"; games such as Road Rash rely on
                // it). A CGB does not have it, even running a DMG game (same section).
                if self.lcdc & LCDC_LCD_ENABLE != 0 && !self.is_cgb_hardware() {
                    self.stat |= 0x78;
                    self.update_stat(interrupt_flag);
                }
                self.stat = (value & 0x78) | (self.stat & 0x07);
                if self.lcdc & LCDC_LCD_ENABLE != 0 {
                    self.update_stat(interrupt_flag);
                } else {
                    self.stat_line = 0;
                }
            }
            io::SCY => self.scy = value,
            io::SCX => self.scx = value,
            io::LY => {}
            io::LYC => {
                self.lyc = value;
                if self.lcdc & LCDC_LCD_ENABLE != 0 {
                    self.update_stat(interrupt_flag);
                }
            }
            io::BGP => self.bgp = value,
            io::OBP0 => self.obp0 = value,
            io::OBP1 => self.obp1 = value,
            io::WY => self.wy = value,
            io::WX => {
                self.wx = value;
                self.wx_just_changed = 1;
            }
            _ => {}
        }
    }

    pub(super) fn write_lcdc(&mut self, value: u8, interrupt_flag: &mut u8) {
        let old = self.lcdc;
        self.lcdc = value;
        self.abort_object_fetch(old);
        if (old ^ value) & LCDC_WINDOW_ENABLE != 0 {
            self.window_enable_written(old);
        }
        if (old ^ value) & LCDC_LCD_ENABLE == 0 {
            return;
        }
        self.oam_read_blocked = 0;
        self.oam_write_blocked = 0;
        self.vram_read_blocked = 0;
        self.vram_write_blocked = 0;
        if value & LCDC_LCD_ENABLE == 0 {
            // Off: LY and the mode read 0 until it is switched on again.
            self.ly = 0;
            self.stat &= !0x03;
            self.step = Step::Off as u8;
            self.wait_dots = 0;
            self.line_dot = 0;
            self.lcd_off_m_cycles = 0;
            self.fifo_lag = 0;
            return;
        }
        // On: the first line starts at once, without an OAM scan and reporting mode 0
        // (Mooneye lcdon_timing-GS). The comparator sees LY=0 immediately
        // (stat_lyc_onoff).
        self.ly = 0;
        self.ly_for_compare = 0;
        self.stat &= !0x03;
        self.stat_mode_for_interrupt = 0;
        self.update_stat(interrupt_flag);
        self.reset_window_y();
        self.screen_x = 0;
        self.step = Step::LcdOnLine as u8;
        self.wait_dots = 0;
        // The first line behaves as if it had started 8 dots earlier.
        self.line_dot = 8;
    }

    /// Whether a write is deferred (in mode 3) and the quiet window walked from the state
    /// before it (`quiet_dots`) also holds with the write applied by the window's first tick
    /// (`advance_of`, as `tick_slow` does). None of these registers is a STAT source, LYC
    /// or the line timing; mode 3 still outputs at most one pixel a dot, and the walk
    /// passes mode 3 only where its end requests nothing, whatever its length (LCDC's
    /// window and object bits change that length). Left out, so that the window starts
    /// after the tick that applies them: an LCD toggle, WX (its first dot is compared
    /// apart, `wx_just_changed`) and a CGB's tile-data select (its glitch dot,
    /// `tile_sel_glitch`).
    pub(crate) fn deferred_write_keeps_window(&self) -> bool {
        if self.deferred_valid == 0 {
            return false;
        }
        match self.deferred_reg {
            io::SCY | io::SCX | io::BGP | io::OBP0 | io::OBP1 | io::WY => true,
            io::LCDC => {
                let changed = self.lcdc ^ self.deferred_value;
                changed & LCDC_LCD_ENABLE == 0
                    && !(self.is_cgb_hardware() && changed & LCDC_TILE_DATA != 0)
            }
            _ => false,
        }
    }

    /// Applies the write `write_register` deferred during mode 3, at its dot. The access
    /// happened at the start of this tick (dot C). Palettes reach the pixel output at C-2
    /// with the old and new values ORed, and their new value at C-1 (Mealybug
    /// `m3_bgp_change`, `m3_obp0_change`); LCDC reaches the fetcher and the pixel output at
    /// C-1 (Mealybug `m3_lcdc_*`; an OBJ disable on the first pixel lands at C-2, per
    /// SameBoy's DMG notes). Other
    /// registers take effect at C. With less than two dots of lag (the end of mode 3 was
    /// near), the write lands at C. APPROX for those last pixels.
    pub(super) fn apply_deferred(&mut self, bus: &mut Ctx, double_speed: bool) {
        self.deferred_valid = 0;
        let (reg, value) = (self.deferred_reg, self.deferred_value);
        let toggles_lcd = reg == io::LCDC && (value ^ self.lcdc) & LCDC_LCD_ENABLE != 0;
        let cgb = self.is_cgb_hardware();
        let lead: u16 = match reg {
            io::BGP | io::OBP0 | io::OBP1 => 2,
            // A CGB's LCDC, SCX and SCY writes land at the access itself (SameBoy's
            // per-model write-conflict table; Mealybug CGB rows of m3_lcdc_*, m3_scx_*).
            // At double speed SCX and SCY keep the DMG's lead (AGE m3-bg-scx-ds).
            io::LCDC | io::SCY | io::SCX if cgb && !double_speed => 0,
            // At double speed a CGB's LCDC write lands one dot before the access (SameBoy's
            // double-speed conflict table), counted from the PPU's phase there (the LCD
            // switched on at double speed runs a dot behind: `Machine` delays it).
            io::LCDC if cgb && !toggles_lcd => 1,
            io::LCDC if !toggles_lcd => 2,
            io::SCY => SCY_LEAD_DOTS,
            io::SCX => SCX_LEAD_DOTS,
            _ => 0,
        };
        if lead > 0 && self.fifo_lag >= lead {
            self.pay(self.fifo_lag - lead, bus);
            // A CGB (revision D and later, like our E) takes the new palette two dots early
            // at once, without the DMG's first dot of old | new (SameBoy's conflict table;
            // Mealybug m3_bgp_change CGB RevD).
            if self.fifo_lag == lead && lead == 2 && !cgb {
                // First dot: palettes see old | new; LCDC only an OBJ disable on the
                // first pixel.
                match reg {
                    io::BGP => self.bgp |= value,
                    io::OBP0 => self.obp0 |= value,
                    io::OBP1 => self.obp1 |= value,
                    io::LCDC => {
                        if (self.scanline_x == 0 || self.is_fetching_object())
                            && self.lcdc & LCDC_OBJ_ENABLE != 0
                            && value & LCDC_OBJ_ENABLE == 0
                        {
                            let old = self.lcdc;
                            self.lcdc &= !LCDC_OBJ_ENABLE;
                            self.abort_object_fetch(old);
                        }
                        self.lcdc = (self.lcdc & !LCDC_OBJ_TALL) | (value & LCDC_OBJ_TALL);
                        // UNVERIFIED: at the first visible pixel the BG enable bit lands
                        // early too (Mealybug m3_lcdc_bg_en_change, column 0).
                        if self.scanline_x == 0 {
                            self.lcdc = (self.lcdc & !LCDC_BG_ENABLE) | (value & LCDC_BG_ENABLE);
                        }
                    }
                    _ => self.write_register_now(reg, value, bus.interrupt_flag),
                }
                self.pay(1, bus);
            }
            if self.step_is_mode3() {
                // The dots after the write's stay owed: every caller settles next
                // (`tick_slow`'s `advance_dots`, `delay_one_dot`'s `pay`).
                self.write_register_now(reg, value, bus.interrupt_flag);
                return;
            }
        }
        self.pay(self.fifo_lag, bus);
        if cgb && !double_speed && reg == io::LCDC && (self.lcdc ^ value) & LCDC_TILE_DATA != 0 {
            // The dot after the write sees the tile-data glitch (`read_cgb_tile_data`, and
            // `tile_sel.rs` for a set); `tick_slow` runs that dot on its own and then
            // clears the flag.
            self.tile_sel_glitch = 1;
        }
        self.write_register_now(reg, value, bus.interrupt_flag);
    }
}

/// What reads of LY or STAT return over the next M-cycles while no register is written
/// (`PpuState::read_forecast`): `value` for `stable` M-cycles after the forecast's
/// M-cycle, then, for LY, `value + k` during the k-th line after it, for `lines_after`
/// lines of 114 M-cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ReadForecast {
    value: u8,
    stable: u32,
    lines_after: u8,
    /// For STAT: the values read after `value`, the first `later_len` of them, each up to
    /// its last M-cycle after the forecast's.
    later: [(u8, u32); LATER_VALUES],
    later_len: u8,
}

/// The most values of STAT a forecast holds after the current one: enough for a loop
/// waiting through mode 2 and mode 3, or from mode 0 to the next line's mode 2.
const LATER_VALUES: usize = 3;

/// M-cycles in a line (`LINE_DOTS` at single speed).
const LINE_M_CYCLES: u64 = LINE_DOTS as u64 / 4;

impl ReadForecast {
    fn constant(value: u8, stable: u32) -> ReadForecast {
        ReadForecast {
            value,
            stable,
            lines_after: 0,
            later: [(0, 0); LATER_VALUES],
            later_len: 0,
        }
    }

    /// Foresees that reads from the end of what is foreseen up to `last` M-cycles after the
    /// forecast's return `value`. False when there is no room for another value (`last`
    /// is not foreseen then).
    fn then(&mut self, value: u8, last: u32) -> bool {
        let len = usize::from(self.later_len);
        let (end_value, end) = match len {
            0 => (self.value, self.stable),
            _ => self.later[len - 1],
        };
        if last == end {
            // Left at once by the next step: never read.
            return true;
        }
        if value == end_value {
            match len {
                0 => self.stable = last,
                _ => self.later[len - 1].1 = last,
            }
            return true;
        }
        let Some(slot) = self.later.get_mut(len) else {
            return false;
        };
        *slot = (value, last);
        self.later_len += 1;
        true
    }

    /// The value a read `m_cycles` after the forecast's M-cycle returns, and the last such
    /// M-cycle that returns the same; None past what is foreseen.
    #[inline]
    pub(crate) fn at(&self, m_cycles: u64) -> Option<(u8, u64)> {
        let stable = u64::from(self.stable);
        if m_cycles <= stable {
            return Some((self.value, stable));
        }
        if self.later_len != 0 {
            return self.later[..usize::from(self.later_len)]
                .iter()
                .find(|&&(_, last)| m_cycles <= u64::from(last))
                .map(|&(value, last)| (value, u64::from(last)));
        }
        let line = (m_cycles - stable - 1) / LINE_M_CYCLES + 1;
        if line > u64::from(self.lines_after) {
            return None;
        }
        // `line` is at most 152 here.
        Some((
            self.value.wrapping_add(line as u8),
            stable + line * LINE_M_CYCLES,
        ))
    }
}
