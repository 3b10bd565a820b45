//! The DMG PPU, dot-accurate: line and mode timing, STAT interrupts, and a pixel FIFO whose
//! fetcher and object fetches decide the length of mode 3.
//!
//! # Design
//! The PPU is a sequence of named steps ([`Step`]), each run at one dot and followed by a wait
//! of some dots (`wait_dots`). Outside mode 3 the steps are far apart, so a tick costs a
//! subtraction (inlined into the machine). The step layout and the dot at which each effect
//! becomes visible follow the behaviour documented by SameBoy's display code (as also
//! described by GameRoy's notes); the code here is our own. Evidence per behaviour is cited
//! where it is implemented; the Mooneye PPU tests, dmg-acid2 and Mealybug pin most of it.
//!
//! The machine calls [`PpuState::tick`] at the start of every M-cycle and makes the CPU's
//! access afterwards, so an access "at" M-cycle boundary `C` sees every step before dot `C`.
//!
//! # Mode 3 runs lazily
//! In mode 3 the steps may run behind real time (`fifo_lag` dots owed), then catch up in one
//! long run, where plain dots skip the step dispatch and the pixels left in the FIFO are drawn at
//! once, up to a tile. The lag is bounded so that mode 3 can never have ended unnoticed: one dot outputs at
//! most one pixel, so while `screen_x + fifo_lag < 160` the 160th pixel is still ahead.
//! Nothing else can observe the owed dots: VRAM and OAM are locked, LY and the mode do not
//! change, and the only interrupt (HBlank) comes at the end.
//!
//! A write to a rendering register during mode 3 is deferred to the next tick, which brings
//! the FIFO to the dot the write really lands on and applies it there: palettes two dots
//! before the access (ORed with the old value for the first dot), LCDC one dot before (its
//! object-size bit two), SCX/SCY one dot before (`apply_deferred`). The fast paths are checked
//! against plain stepping by `state_hashes` in `tests/ppu_speed.rs` (set `FAST = false`).
//!
//! # Frame buffer
//! One shade 0..=3 per pixel after palette mapping, written directly, never allocated.

use crate::io;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

const SCREEN_WIDTH: usize = crate::SCREEN_WIDTH;
/// Dots per scanline.
const LINE_DOTS: u16 = 456;
/// M-cycles in an LCD frame: with the LCD off, a frame is reported this often.
const M_CYCLES_PER_FRAME: u16 = 17_556;

/// LCDC bits.
const LCDC_BG_ENABLE: u8 = 1 << 0;
const LCDC_OBJ_ENABLE: u8 = 1 << 1;
const LCDC_OBJ_TALL: u8 = 1 << 2;
const LCDC_BG_MAP: u8 = 1 << 3;
const LCDC_TILE_DATA: u8 = 1 << 4;
const LCDC_WINDOW_ENABLE: u8 = 1 << 5;
const LCDC_WINDOW_MAP: u8 = 1 << 6;
const LCDC_LCD_ENABLE: u8 = 1 << 7;

/// STAT interrupt source enables.
const STAT_HBLANK_SOURCE: u8 = 1 << 3;
const STAT_VBLANK_SOURCE: u8 = 1 << 4;
const STAT_OAM_SOURCE: u8 = 1 << 5;
const STAT_LYC_SOURCE: u8 = 1 << 6;
const STAT_LYC_FLAG: u8 = 1 << 2;

/// Dots added to the line dot to find the OAM row the scan reads (see `oam_bug_row`).
const OAM_BUG_DOT_OFFSET: i32 = -4;

/// Dots before the writing access at which SCY / SCX writes reach the fetcher.
const SCY_LEAD_DOTS: u16 = 1;
const SCX_LEAD_DOTS: u16 = 1;

/// `SPREAD[x]` has byte k (little-endian) = bit 7-k of x: a tile row's pixels, left first.
const SPREAD: [u64; 256] = {
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

/// Bit n set: `Step` discriminant n belongs to mode 3 (see `Step::is_mode3`).
const MODE3_STEPS: u64 = (1 << 10)
    | (1 << 27)
    | (1 << 28)
    | (1 << 31)
    | (1 << 37)
    | (1 << 38)
    | (1 << 36)
    | (1 << 33)
    | (1 << 34)
    | (1 << 35);

/// The mode-3 fast path in `run` (off only to check it changes nothing).
const FAST: bool = true;
const OAM_BUG_READ_EXTRA: i32 = 0;

/// `ly_for_compare` / `stat_mode_for_interrupt` value meaning "none this dot".
const NONE: u8 = 0xFF;

/// One step of the PPU's schedule. Stored raw in `PpuState::step`; discriminants are saved in
/// states, so they are never reused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
enum Step {
    /// LCD off: nothing is scheduled.
    Off = 0,
    /// First line after the LCD is switched on: it has no OAM scan and reports mode 0.
    LcdOnLine = 1,
    LcdOnOamWriteBlock = 2,
    LcdOnMode3 = 3,
    /// Dot 0 of lines 0..=143.
    LineStart = 6,
    /// Dot 3: LY=LYC comparison suspended; OAM STAT source raised (a dot later on line 0).
    LineOamInterrupt = 7,
    /// Dot 4: mode 2 is visible, the OAM scan selects this line's objects.
    LineMode2 = 8,
    /// Dot 80: OAM scan over, VRAM reads blocked.
    LineScanEnd = 39,
    /// Dot 84: mode 3 visible.
    LineMode3 = 9,
    /// The pixel FIFO starts.
    Mode3Start = 10,
    /// One dot of mode 3: window check, sprite check, one pixel out, one fetcher step.
    Mode3Dot = 27,
    /// The window was triggered with WX=0 and a fine scroll: it starts one dot late.
    Mode3WindowActivate = 28,
    /// A sprite is due: the background fetcher must reach its last step first.
    SpriteWaitFetcher = 31,
    /// The extra delay of a sprite at X=0 (once per line) is over.
    SpriteAfterPenalty = 37,
    SpriteFetch1 = 38,
    SpriteFetch2 = 36,
    SpriteFetchLow = 33,
    SpriteFetchHigh = 34,
    SpritePush = 35,
    /// The 160th pixel is out: mode 0.
    HBlank = 11,
    /// Dot 454: the window's WY=LY check for the next line.
    LineWindowCheck = 26,
    /// Dot 456: LY increments.
    LineEnd = 14,
    /// Dot 0 of lines 144..=152.
    VBlankLineStart = 15,
    VBlankDot2 = 16,
    VBlankDot4 = 17,
    VBlankLineEnd = 25,
    /// Line 153: LY reads 153 only briefly, then 0.
    Line153Start = 18,
    Line153Dot6 = 19,
    Line153Dot8 = 20,
    Line153Dot12 = 21,
    Line153Dot24 = 22,
    /// End of line 153: the next frame starts.
    FrameEnd = 23,
}

/// Whether `raw` is a `Step` discriminant (save-state files reject any other `PpuState::step`).
pub(crate) fn is_saved_step(raw: u64) -> bool {
    raw == Step::Off as u64 || u8::try_from(raw).is_ok_and(|raw| Step::from_raw(raw) != Step::Off)
}

impl Step {
    /// Total decoding: an unknown value (a corrupt state) stops the PPU until the LCD is
    /// switched on again.
    fn from_raw(raw: u8) -> Step {
        match raw {
            1 => Step::LcdOnLine,
            2 => Step::LcdOnOamWriteBlock,
            3 => Step::LcdOnMode3,
            6 => Step::LineStart,
            7 => Step::LineOamInterrupt,
            8 => Step::LineMode2,
            39 => Step::LineScanEnd,
            9 => Step::LineMode3,
            10 => Step::Mode3Start,
            27 => Step::Mode3Dot,
            28 => Step::Mode3WindowActivate,
            31 => Step::SpriteWaitFetcher,
            37 => Step::SpriteAfterPenalty,
            38 => Step::SpriteFetch1,
            36 => Step::SpriteFetch2,
            33 => Step::SpriteFetchLow,
            34 => Step::SpriteFetchHigh,
            35 => Step::SpritePush,
            11 => Step::HBlank,
            26 => Step::LineWindowCheck,
            14 => Step::LineEnd,
            15 => Step::VBlankLineStart,
            16 => Step::VBlankDot2,
            17 => Step::VBlankDot4,
            25 => Step::VBlankLineEnd,
            18 => Step::Line153Start,
            19 => Step::Line153Dot6,
            20 => Step::Line153Dot8,
            21 => Step::Line153Dot12,
            22 => Step::Line153Dot24,
            23 => Step::FrameEnd,
            _ => Step::Off,
        }
    }

    /// Steps that run every dot of mode 3 (a pixel may be produced).
    fn is_mode3(self) -> bool {
        matches!(
            self,
            Step::Mode3Start
                | Step::Mode3Dot
                | Step::Mode3WindowActivate
                | Step::SpriteWaitFetcher
                | Step::SpriteAfterPenalty
                | Step::SpriteFetch1
                | Step::SpriteFetch2
                | Step::SpriteFetchLow
                | Step::SpriteFetchHigh
                | Step::SpritePush
        )
    }
}

/// The PPU's registers and every bit of its internal progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct PpuState {
    /// Dots until `step` runs.
    pub wait_dots: u16,
    /// Dot within the current line of the step that runs next minus `wait_dots` (the dot
    /// "now"); 0 at the dot LY changes.
    pub line_dot: u16,
    /// M-cycles since the LCD was switched off or since the last LCD-off frame was reported.
    pub lcd_off_m_cycles: u16,
    /// VRAM address of the sprite row being fetched.
    pub sprite_tile_address: u16,
    /// Dots of real time the steps have not processed yet. Only in mode 3: the pixel FIFO
    /// runs lazily, in long runs, but never so late that mode 3 could already have ended.
    pub fifo_lag: u16,

    /// FF40 LCDC.
    pub lcdc: u8,
    /// FF41 STAT: bits 3..=6 are the interrupt source enables, bit 2 the LY=LYC flag, bits
    /// 0..=1 the mode as read.
    pub stat: u8,
    /// FF42 SCY.
    pub scy: u8,
    /// FF43 SCX.
    pub scx: u8,
    /// FF44 LY.
    pub ly: u8,
    /// FF45 LYC.
    pub lyc: u8,
    /// FF47 BGP.
    pub bgp: u8,
    /// FF48 OBP0.
    pub obp0: u8,
    /// FF49 OBP1.
    pub obp1: u8,
    /// FF4A WY.
    pub wy: u8,
    /// FF4B WX.
    pub wx: u8,
    /// A `Step`, stored raw.
    #[state(valid = crate::ppu::is_saved_step)]
    pub step: u8,
    /// The line number the LY=LYC comparator sees, or 0xFF while it is suspended.
    pub ly_for_compare: u8,
    /// The mode the STAT interrupt sources see (0..=3), or 0xFF for none this dot.
    pub stat_mode_for_interrupt: u8,
    /// 1 while the OR of the enabled STAT sources is high: only its rising edge interrupts.
    #[state(flag)]
    pub stat_line: u8,
    /// The LY=LYC comparator's output, held while the comparison is suspended.
    #[state(flag)]
    pub lyc_match: u8,

    /// 1 while the CPU's OAM reads / OAM writes / VRAM reads / VRAM writes are blocked.
    #[state(flag)]
    pub oam_read_blocked: u8,
    #[state(flag)]
    pub oam_write_blocked: u8,
    #[state(flag)]
    pub vram_read_blocked: u8,
    #[state(flag)]
    pub vram_write_blocked: u8,

    /// The window's own line counter (0xFF before its first line in a frame).
    pub window_line: u8,
    /// 1 once WY matched LY in this frame.
    #[state(flag)]
    pub window_y_reached: u8,
    /// 1 while the pixels come from the window.
    #[state(flag)]
    pub in_window: u8,
    /// 1 from the window's start until its first pixel is out.
    #[state(flag)]
    pub window_fetch_starting: u8,
    /// 1: the next pixel is an extra background pixel (a WX glitch).
    #[state(flag)]
    pub insert_background_pixel: u8,
    /// 1 during the dot after a WX write.
    #[state(flag)]
    pub wx_just_changed: u8,
    /// Extra dots the first sprite at X=0 costs this line: min(SCX mod 8, 5).
    pub sprite_x0_penalty: u8,
    /// Next screen column to be written, 0..=160.
    pub screen_x: u8,
    /// Column of the next pixel out of the FIFO, starting negative (two's complement) for
    /// the pixels the fine scroll discards.
    pub scanline_x: u8,

    /// Background FIFO: two bit planes, next pixel in bit 7, and its length 0..=8.
    pub bg_fifo_low: u8,
    pub bg_fifo_high: u8,
    pub bg_fifo_len: u8,
    /// Sprite FIFO: bit planes of colour, palette (OBP1) and behind-background; an empty
    /// slot is colour 0, which never wins over the background.
    pub obj_fifo_low: u8,
    pub obj_fifo_high: u8,
    pub obj_fifo_palette: u8,
    pub obj_fifo_priority: u8,

    /// Background fetcher: step 0..=7, window tile column, and the bytes fetched.
    pub fetcher_step: u8,
    pub fetcher_window_x: u8,
    pub fetch_tile_number: u8,
    pub fetch_tile_low: u8,
    pub fetch_tile_high: u8,
    pub sprite_tile_low: u8,
    pub sprite_tile_high: u8,

    /// Objects selected by the OAM scan that are still to be fetched this line.
    pub sprite_count: u8,
    /// Up to ten objects (Y, X, tile, attributes), ordered so the next to fetch is last:
    /// X descending, then OAM index descending. Y and X come from the scan; tile and
    /// attributes are read from OAM when the object is fetched.
    pub sprites: [u8; 40],

    /// A rendering register written during mode 3 (`deferred_valid` = 1): the next tick
    /// catches the FIFO up to the dot the write lands on and applies it there.
    #[state(flag)]
    pub deferred_valid: u8,
    pub deferred_reg: u8,
    pub deferred_value: u8,
    /// 1 while OAM DMA is copying: the OAM scan then reads the DMA's bytes, not objects.
    #[state(flag)]
    pub oam_dma_active: u8,
    /// The byte OAM DMA wrote last: what the PPU's OAM reads see during a transfer.
    pub oam_dma_byte: u8,
    /// The Y and X bytes the OAM scan last read. During OAM DMA the scan cannot read OAM
    /// and every entry it checks sees these stale values instead.
    pub oam_latch_y: u8,
    pub oam_latch_x: u8,
    /// OAM index of each object in `sprites` (its tile and attributes are read when it is
    /// fetched, in mode 3).
    pub sprite_oam_index: [u8; 10],
    pub _pad: [u8; 1],
}

/// What a step may touch besides the PPU's own state.
struct Ctx<'a> {
    vram: &'a [u8; 0x2000],
    oam: &'a [u8; 160],
    interrupt_flag: &'a mut u8,
    /// None for a look-ahead run that must not draw.
    frame: Option<&'a mut [u8; 160 * 144]>,
    /// Set when line 144 was entered.
    frame_done: bool,
}

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

impl PpuState {
    /// One M-cycle (4 dots). Called at the start of every M-cycle, before the CPU's access.
    /// Sets VBlank/STAT bits in `interrupt_flag`. Returns true when a frame completed in
    /// this cycle (entering line 144; with the LCD off, every 17,556 M-cycles).
    #[inline(always)]
    pub fn tick(
        &mut self,
        vram: &[u8; 0x2000],
        oam: &[u8; 160],
        interrupt_flag: &mut u8,
        frame: &mut [u8; 160 * 144],
    ) -> bool {
        // Fast paths, inlined into the machine's M-cycle: nothing due in this M-cycle (most
        // of modes 0, 1 and 2), or mode 3 can owe four more dots (see `settle`).
        if self.deferred_valid | self.wx_just_changed == 0 && self.lcdc & LCDC_LCD_ENABLE != 0 {
            if self.fifo_lag == 0 {
                if self.wait_dots >= 4 {
                    self.wait_dots -= 4;
                    self.line_dot = self.line_dot.wrapping_add(4);
                    return false;
                }
            } else if u32::from(self.screen_x) + u32::from(self.fifo_lag) + 4 < 160
                && self.oam_dma_active == 0
            {
                self.fifo_lag += 4;
                return false;
            }
        }
        self.tick_slow(vram, oam, interrupt_flag, frame)
    }

    #[inline(never)]
    fn tick_slow(
        &mut self,
        vram: &[u8; 0x2000],
        oam: &[u8; 160],
        interrupt_flag: &mut u8,
        frame: &mut [u8; 160 * 144],
    ) -> bool {
        if self.lcdc & LCDC_LCD_ENABLE == 0 && self.deferred_valid == 0 {
            return self.tick_lcd_off();
        }
        let mut ctx = Ctx {
            vram,
            oam,
            interrupt_flag,
            frame: Some(frame),
            frame_done: false,
        };
        if self.deferred_valid != 0 {
            self.apply_deferred(&mut ctx);
            if self.lcdc & LCDC_LCD_ENABLE == 0 {
                return self.tick_lcd_off();
            }
        }
        if self.wx_just_changed != 0 {
            // The WX comparator sees a fresh write differently during its first dot.
            self.pay(self.fifo_lag, &mut ctx);
            self.run(1, false, &mut ctx);
            self.wx_just_changed = 0;
            self.advance_dots(3, &mut ctx);
        } else {
            self.advance_dots(4, &mut ctx);
        }
        ctx.frame_done
    }

    /// The machine reports, before `tick`, whether OAM DMA is copying in this M-cycle and
    /// the byte it copied last. The PPU's own OAM reads cannot get through meanwhile: the
    /// scan sees the Y/X it read last, the object fetch sees the DMA's byte (ashiepaws
    /// `strikethrough`: a line scanned during DMA shows only the last entry of the previous
    /// scan, with the tile number DMA is writing when it is fetched).
    pub fn set_oam_dma(&mut self, active: bool, last_byte: u8) {
        self.oam_dma_active = u8::from(active);
        self.oam_dma_byte = last_byte;
    }

    /// OAM corruption bug, for a CPU write to 0xFE00..=0xFEFF, or an IDU operation
    /// (INC/DEC rr, the SP decrement before a push) whose address is in that range, in the
    /// current M-cycle (Pan Docs, "OAM Corruption Bug"; Blargg `oam_bug`).
    pub fn oam_bug_write(&self, oam: &mut [u8; 160]) {
        if let Some(row) = self.oam_bug_row(0) {
            corrupt_row(oam, row, |a, b, c| ((a ^ c) & (b ^ c)) ^ c);
        }
    }

    /// OAM corruption bug for a CPU read of 0xFE00..=0xFEFF in the current M-cycle (any
    /// read: with or without an address increment, as POP and `LD A,(HL+)` do). The pattern
    /// depends on the row being scanned, as SameBoy documents for the DMG (Blargg
    /// `oam_bug/8-instr_effect`); `a` below is the row's first word, `b` and `c` the
    /// preceding row's first and third, rows counted in 8-byte units.
    pub fn oam_bug_read(&self, oam: &mut [u8; 160]) {
        if let Some(row) = self.oam_bug_row(OAM_BUG_READ_EXTRA) {
            corrupt_on_read(oam, row);
        }
    }

    /// The interrupt bits (VBlank, STAT) the PPU will request during the first dot of the
    /// next M-cycle. A halted CPU samples IF slightly later within the M-cycle than a
    /// running one, so such a request already wakes it at the end of this M-cycle: the
    /// phase that makes the Mooneye HALT-based PPU tests (`hblank_ly_scx_timing-GS`,
    /// `intr_1_2_timing-GS`, `vblank_stat_intr-GS`) agree with the running-CPU ones
    /// (`intr_2_0_timing`, Mealybug). Runs a copy; draws nothing.
    pub fn interrupts_in_next_dot(&self, vram: &[u8; 0x2000], oam: &[u8; 160]) -> u8 {
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            return 0;
        }
        // Cheap answers first: no step is due at the next dot, or mode 3 cannot end there.
        if self.deferred_valid | self.wx_just_changed == 0 {
            if self.fifo_lag == 0 {
                if self.wait_dots >= 2 {
                    return 0;
                }
            } else if u32::from(self.screen_x) + u32::from(self.fifo_lag) + 1 < 160 {
                return 0;
            }
        }
        let mut copy = *self;
        let mut raised = 0;
        let mut ctx = Ctx {
            vram,
            oam,
            interrupt_flag: &mut raised,
            frame: None,
            frame_done: false,
        };
        // The dots owed in mode 3 lie in the past and raise nothing (see `settle`).
        copy.pay(copy.fifo_lag, &mut ctx);
        *ctx.interrupt_flag = 0;
        copy.run(1, false, &mut ctx);
        raised
    }

    /// The state the DMG boot ROM leaves at PC=0x0100: LCD on with BGP=FC, in the last
    /// line of a frame with LY already reading 0, 52 dots before line 0 starts.
    /// UNVERIFIED: the exact dot phase (taken from a documented DMG boot capture); the
    /// Mooneye boot tests check the registers, not the phase.
    pub fn post_boot() -> PpuState {
        let mut ppu = PpuState::zeroed();
        ppu.lcdc = 0x91;
        ppu.stat = 0x01 | STAT_LYC_FLAG;
        ppu.bgp = 0xFC;
        ppu.step = Step::FrameEnd as u8;
        ppu.wait_dots = 52;
        ppu.line_dot = LINE_DOTS - 52;
        ppu.window_line = 0xFF;
        ppu.ly_for_compare = 0;
        ppu.lyc_match = 1;
        ppu.stat_mode_for_interrupt = 1;
        ppu.screen_x = 160;
        ppu.scanline_x = 160;
        ppu
    }

    /// The OAM row (8 bytes) the scan is reading in this M-cycle, if the CPU's access can
    /// collide with it: rows 1..=19 of mode 2 (row 0 is never corrupted).
    fn oam_bug_row(&self, extra: i32) -> Option<usize> {
        if self.lcdc & LCDC_LCD_ENABLE == 0 || self.ly >= 144 {
            return None;
        }
        let step = Step::from_raw(self.step);
        if !matches!(
            step,
            Step::LineOamInterrupt | Step::LineMode2 | Step::LineScanEnd
        ) {
            return None;
        }
        // UNVERIFIED offset: Blargg oam_bug/4-scanline_timing decides.
        let dot = i32::from(self.line_dot) + OAM_BUG_DOT_OFFSET + extra;
        if dot < 4 {
            return None;
        }
        let row = (dot / 4) as usize;
        (1..20).contains(&row).then_some(row)
    }

    fn tick_lcd_off(&mut self) -> bool {
        self.lcd_off_m_cycles = self.lcd_off_m_cycles.saturating_add(1);
        if self.lcd_off_m_cycles >= M_CYCLES_PER_FRAME {
            self.lcd_off_m_cycles = 0;
            return true;
        }
        false
    }

    /// HALT skipping: M-cycles during which `tick` raises no interrupt and completes no
    /// frame, if no register is written. 0 when the very next tick may do either (the
    /// machine then ticks normally).
    pub fn quiet_m_cycles(&self) -> u32 {
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            let left = u32::from(M_CYCLES_PER_FRAME.saturating_sub(self.lcd_off_m_cycles));
            return left.saturating_sub(1);
        }
        if self.wx_just_changed != 0 || self.deferred_valid != 0 {
            return 0;
        }
        if self.fifo_lag != 0 {
            if self.oam_dma_active != 0 {
                return 0;
            }
            // Mode 3 owes dots: ticks only add more while `tick`'s fast path holds.
            let ahead = u32::from(self.screen_x) + u32::from(self.fifo_lag);
            return 159u32.saturating_sub(ahead) / 4;
        }
        if self.step_is_mode3() {
            return 0;
        }
        // The next step runs in tick number wait/4 (counting from 0).
        u32::from(self.wait_dots) / 4
    }

    /// Exactly `n` calls of `tick` when `n <= quiet_m_cycles()`.
    pub fn advance(
        &mut self,
        n: u32,
        vram: &[u8; 0x2000],
        oam: &[u8; 160],
        interrupt_flag: &mut u8,
        frame: &mut [u8; 160 * 144],
    ) {
        // The common case: `tick`'s first fast path n times over.
        if self.deferred_valid | self.wx_just_changed == 0
            && self.lcdc & LCDC_LCD_ENABLE != 0
            && self.fifo_lag == 0
            && u64::from(self.wait_dots) >= 4 * u64::from(n)
        {
            self.wait_dots -= (4 * n) as u16;
            self.line_dot = self.line_dot.wrapping_add((4 * n) as u16);
            return;
        }
        if n <= 1 || self.quiet_m_cycles() < n {
            for _ in 0..n {
                self.tick(vram, oam, interrupt_flag, frame);
            }
            return;
        }
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            // n is below the frame period, so this never wraps (see quiet_m_cycles).
            let total = u32::from(self.lcd_off_m_cycles) + n;
            self.lcd_off_m_cycles = (total % u32::from(M_CYCLES_PER_FRAME)) as u16;
            return;
        }
        if self.fifo_lag != 0 {
            self.fifo_lag += (4 * n) as u16;
            return;
        }
        let mut bus = Ctx {
            vram,
            oam,
            interrupt_flag,
            frame: Some(frame),
            frame_done: false,
        };
        // Within the quiet span no mode-3 step runs, so the split into ticks is
        // unobservable.
        self.run(4 * n, false, &mut bus);
    }

    /// Whether a CPU read in the current M-cycle reaches VRAM.
    pub fn cpu_can_access_vram(&self) -> bool {
        self.vram_read_blocked == 0
    }

    /// Whether a CPU read in the current M-cycle reaches OAM.
    pub fn cpu_can_access_oam(&self) -> bool {
        self.oam_read_blocked == 0
    }

    /// Whether a CPU write in the current M-cycle reaches VRAM (unblocked a few dots earlier
    /// than reads around mode 3's start).
    pub fn cpu_can_write_vram(&self) -> bool {
        self.vram_write_blocked == 0
    }

    /// Whether a CPU write in the current M-cycle reaches OAM.
    pub fn cpu_can_write_oam(&self) -> bool {
        self.oam_write_blocked == 0
    }

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
            io::LY => self.ly,
            io::LYC => self.lyc,
            io::BGP => self.bgp,
            io::OBP0 => self.obp0,
            io::OBP1 => self.obp1,
            io::WY => self.wy,
            io::WX => self.wx,
            _ => 0xFF,
        }
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

    fn write_register_now(&mut self, reg: u8, value: u8, interrupt_flag: &mut u8) {
        match reg {
            io::LCDC => self.write_lcdc(value, interrupt_flag),
            io::STAT => {
                // DMG STAT write bug: for one cycle every source reads as enabled, so a
                // write during HBlank, VBlank or LY=LYC requests a STAT interrupt
                // (Pan Docs, "STAT modes"; games such as Road Rash rely on it).
                if self.lcdc & LCDC_LCD_ENABLE != 0 {
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

    fn write_lcdc(&mut self, value: u8, interrupt_flag: &mut u8) {
        let old = self.lcdc;
        self.lcdc = value;
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
        self.window_y_reached = 0;
        self.screen_x = 0;
        self.step = Step::LcdOnLine as u8;
        self.wait_dots = 0;
        // The first line behaves as if it had started 8 dots earlier.
        self.line_dot = 8;
    }

    /// Applies the write `write_register` deferred during mode 3, at its dot. The access
    /// happened at the start of this tick (dot C). Palettes reach the pixel output at C-2
    /// with the old and new values ORed, and their new value at C-1 (Mealybug
    /// `m3_bgp_change`, `m3_obp0_change`); LCDC reaches the fetcher and the pixel output at
    /// C-1 (Mealybug `m3_lcdc_*`; an OBJ disable on the first pixel lands at C-2, per
    /// SameBoy's DMG notes). Other
    /// registers take effect at C. With less than two dots of lag (the end of mode 3 was
    /// near), the write lands at C. APPROX for those last pixels.
    fn apply_deferred(&mut self, bus: &mut Ctx) {
        self.deferred_valid = 0;
        let (reg, value) = (self.deferred_reg, self.deferred_value);
        let toggles_lcd = reg == io::LCDC && (value ^ self.lcdc) & LCDC_LCD_ENABLE != 0;
        let lead: u16 = match reg {
            io::BGP | io::OBP0 | io::OBP1 => 2,
            io::LCDC if !toggles_lcd => 2,
            io::SCY => SCY_LEAD_DOTS,
            io::SCX => SCX_LEAD_DOTS,
            _ => 0,
        };
        if lead > 0 && self.fifo_lag >= lead {
            self.pay(self.fifo_lag - lead, bus);
            if self.fifo_lag == lead && lead == 2 {
                // First dot: palettes see old | new; LCDC only an OBJ disable on the
                // first pixel.
                match reg {
                    io::BGP => self.bgp |= value,
                    io::OBP0 => self.obp0 |= value,
                    io::OBP1 => self.obp1 |= value,
                    io::LCDC => {
                        if self.scanline_x == 0
                            && self.lcdc & LCDC_OBJ_ENABLE != 0
                            && value & LCDC_OBJ_ENABLE == 0
                        {
                            self.lcdc &= !LCDC_OBJ_ENABLE;
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
                self.write_register_now(reg, value, bus.interrupt_flag);
                self.pay(self.fifo_lag, bus);
                return;
            }
        }
        self.pay(self.fifo_lag, bus);
        self.write_register_now(reg, value, bus.interrupt_flag);
    }

    /// Advances `n` dots of real time: eagerly outside mode 3, lazily inside it.
    fn advance_dots(&mut self, n: u32, bus: &mut Ctx) {
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
    /// Two dots stay owed when possible, for writes that land two dots early.
    fn settle(&mut self, bus: &mut Ctx) {
        if self.oam_dma_active != 0 {
            // Object fetches read the byte OAM DMA drives now: no lag.
            self.pay(self.fifo_lag, bus);
            return;
        }
        if u32::from(self.screen_x) + u32::from(self.fifo_lag) < 160 {
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
        let mut probe = Ctx {
            vram: bus.vram,
            oam: bus.oam,
            interrupt_flag: &mut ignored,
            frame: None,
            frame_done: false,
        };
        copy.pay(copy.fifo_lag, &mut probe);
        if copy.step_is_mode3() {
            return;
        }
        self.pay(self.fifo_lag, bus);
    }

    /// Runs `n` of the owed dots; if mode 3 ends meanwhile, the rest too (outside mode 3
    /// nothing may lag).
    fn pay(&mut self, n: u16, bus: &mut Ctx) {
        let n = n.min(self.fifo_lag);
        self.fifo_lag -= n;
        self.run(u32::from(n), false, bus);
        if self.fifo_lag != 0 && !Step::from_raw(self.step).is_mode3() {
            let rest = self.fifo_lag;
            self.fifo_lag = 0;
            self.run(u32::from(rest), false, bus);
        }
    }

    /// Runs the steps for `dots` dots. With `stop_at_mode3`, returns early when a mode-3
    /// step is next, giving back the dots not run.
    fn run(&mut self, mut dots: u32, stop_at_mode3: bool, bus: &mut Ctx) -> u32 {
        loop {
            if self.step_is_mode3() {
                if stop_at_mode3 {
                    return dots;
                }
                if FAST && self.wait_dots == 1 && self.step == Step::Mode3Dot as u8 {
                    // Fast path: plain mode-3 dots (no window trigger, no object, no
                    // glitch) run here without the step dispatch; the result is identical.
                    while dots > 1 {
                        // A drain's conditions include the first dot's being plain.
                        let length = self.mode3_drain_length();
                        if length != 0 && dots > u32::from(length) {
                            dots -= u32::from(length);
                            self.line_dot = self.line_dot.wrapping_add(u16::from(length));
                            self.mode3_drain(length, bus);
                            if self.screen_x >= 160 {
                                // The line's last pixel is out (as in the plain dot below).
                                self.wait_dots = 0;
                                self.exit_mode3(bus);
                                break;
                            }
                            continue;
                        }
                        if !self.mode3_dot_is_plain() {
                            break;
                        }
                        dots -= 1;
                        self.line_dot = self.line_dot.wrapping_add(1);
                        self.output_pixel(bus);
                        self.tick_fetcher(bus.vram);
                        if self.screen_x >= 160 {
                            self.wait_dots = 0;
                            self.exit_mode3(bus);
                            break;
                        }
                    }
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
            self.step(bus);
        }
    }

    #[inline(always)]
    fn step_is_mode3(&self) -> bool {
        self.step < 64 && (1u64 << self.step) & MODE3_STEPS != 0
    }

    /// Whether the `Mode3Dot` step due now would only output a pixel and step the fetcher
    /// (see `mode3_dot`): conservative, any doubt takes the full step.
    #[inline(always)]
    fn mode3_dot_is_plain(&self) -> bool {
        if self.insert_background_pixel != 0 {
            return false;
        }
        if self.in_window == 0 {
            if self.window_y_reached != 0
                && self.lcdc & LCDC_WINDOW_ENABLE != 0
                && (self.wx == 0
                    || self.wx == self.scanline_x.wrapping_add(7)
                    || (self.wx < 166 && self.wx == self.scanline_x.wrapping_add(6)))
            {
                return false;
            }
        } else if self.wx == self.screen_x.wrapping_add(7) {
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

    /// If the FIFO's remaining pixels can go out as plain dots, with the fetcher reaching
    /// its push exactly when the FIFO empties, the number of those dots (`mode3_drain`
    /// then does them at once; its last pixel may be the line's 160th); else 0. Registers cannot change within a `run` (writes are
    /// applied between runs), nor VRAM (locked in mode 3).
    #[inline(always)]
    fn mode3_drain_length(&self) -> u8 {
        let length = self.bg_fifo_len;
        let step = self.fetcher_step.min(6);
        if length == 0
            || length > 8
            || length + step < 6
            || self.insert_background_pixel != 0
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
            if self.window_y_reached != 0
                && self.lcdc & LCDC_WINDOW_ENABLE != 0
                && self.wx < 167
                && (self.wx == 0
                    || self.wx.wrapping_sub(self.scanline_x.wrapping_add(6)) <= last + 1)
            {
                return 0;
            }
        } else if self.wx.wrapping_sub(self.screen_x.wrapping_add(7)) <= last {
            return 0;
        }
        length
    }

    /// `length` plain dots: the FIFO's pixels go out, the fetcher finishes its tile and
    /// pushes it at the last dot. Same effects, in the same order, as that many
    /// `Mode3Dot` steps.
    fn mode3_drain(&mut self, length: u8, bus: &mut Ctx) {
        let start_step = self.fetcher_step.min(6);
        let start_x = self.scanline_x;
        // Dot j (1-based) runs fetcher step start_step + j - 1, after its pixel is out.
        if start_step <= 1 {
            let dot = 1 - start_step + 1;
            self.scanline_x = start_x.wrapping_add(dot);
            self.fetch_tile_number = bus.vram[self.tile_map_address()];
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
        self.scanline_x = start_x.wrapping_add(length);
        // Pixels left of column 0 are popped and dropped (fine scroll).
        let discarded = if start_x >= 160 {
            (256 - u16::from(start_x)).min(u16::from(length)) as u8
        } else {
            0
        };
        let shown = length - discarded;
        let (low, high) = (self.bg_fifo_low, self.bg_fifo_high);
        if let Some(frame) = bus.frame.as_deref_mut().filter(|_| shown != 0) {
            let start = usize::from(self.ly) * SCREEN_WIDTH + usize::from(self.screen_x);
            if let Some(row) = frame.get_mut(start..start + usize::from(shown)) {
                // The pixels one per byte (values 0..=3, so sums of masked bytes never
                // carry): colour planes spread to bytes, each colour's shade added where
                // it occurs.
                let ones = 0x0101_0101_0101_0101u64;
                let (bg0, bg1) = if self.lcdc & LCDC_BG_ENABLE != 0 {
                    (SPREAD[usize::from(low)], SPREAD[usize::from(high)])
                } else {
                    (0, 0)
                };
                let shaded = |palette: u8, p0: u64, p1: u64| {
                    let shade = |colour: u8| u64::from((palette >> (colour * 2)) & 3);
                    shade(0) * ((p0 | p1) ^ ones)
                        + shade(1) * (p0 & (p1 ^ ones))
                        + shade(2) * (p1 & (p0 ^ ones))
                        + shade(3) * (p0 & p1)
                };
                let mut packed = shaded(self.bgp, bg0, bg1);
                if (self.obj_fifo_low | self.obj_fifo_high) != 0 && self.lcdc & LCDC_OBJ_ENABLE != 0
                {
                    let obj0 = SPREAD[usize::from(self.obj_fifo_low)];
                    let obj1 = SPREAD[usize::from(self.obj_fifo_high)];
                    let use_obp1 = SPREAD[usize::from(self.obj_fifo_palette)];
                    let behind = SPREAD[usize::from(self.obj_fifo_priority)];
                    let shown = (obj0 | obj1) & ((behind & (bg0 | bg1)) ^ ones);
                    let objects = (shaded(self.obp0, obj0, obj1) & ((use_obp1 ^ ones) * 0xFF))
                        | (shaded(self.obp1, obj0, obj1) & (use_obp1 * 0xFF));
                    let shown_mask = shown * 0xFF;
                    packed = (packed & !shown_mask) | (objects & shown_mask);
                }
                let bytes = (packed >> (8 * u32::from(discarded))).to_le_bytes();
                match <&mut [u8; 8]>::try_from(&mut *row) {
                    Ok(whole_tile) => *whole_tile = bytes,
                    Err(_) => row.copy_from_slice(&bytes[..usize::from(shown)]),
                }
            }
        }
        let shift = |plane: u8| (u16::from(plane) << length) as u8;
        self.obj_fifo_low = shift(self.obj_fifo_low);
        self.obj_fifo_high = shift(self.obj_fifo_high);
        self.obj_fifo_palette = shift(self.obj_fifo_palette);
        self.obj_fifo_priority = shift(self.obj_fifo_priority);
        self.screen_x += shown;
        if shown != 0 {
            self.window_fetch_starting = 0;
        }
        self.bg_fifo_low = fetched_low;
        self.bg_fifo_high = fetched_high;
        self.bg_fifo_len = 8;
        self.fetcher_step = 0;
    }

    fn goto(&mut self, step: Step, wait: u16) {
        self.step = step as u8;
        self.wait_dots = wait;
    }

    fn set_mode(&mut self, mode: u8) {
        self.stat = (self.stat & !0x03) | mode;
    }

    /// Recomputes the STAT interrupt line and the LY=LYC flag; a rising edge of the line
    /// requests the interrupt (Mooneye stat_irq_blocking).
    fn update_stat(&mut self, interrupt_flag: &mut u8) {
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
        } else {
            self.stat &= !STAT_LYC_FLAG;
        }
        line |= self.stat & STAT_LYC_SOURCE != 0 && self.lyc_match != 0;
        if line && self.stat_line == 0 {
            *interrupt_flag |= io::INT_STAT;
        }
        self.stat_line = u8::from(line);
    }

    fn step(&mut self, bus: &mut Ctx) {
        match Step::from_raw(self.step) {
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
                self.goto(Step::Mode3Start, 5);
            }
            Step::LineStart => {
                self.line_dot = 0;
                self.screen_x = 0;
                self.goto(Step::LineOamInterrupt, 3);
            }
            Step::LineOamInterrupt => {
                self.oam_read_blocked = 1;
                self.set_mode(0);
                if self.ly != 0 {
                    self.ly_for_compare = NONE;
                    self.stat_mode_for_interrupt = 2;
                } else {
                    // On line 0 the OAM source rises one dot later.
                    self.ly_for_compare = 0;
                    self.stat_mode_for_interrupt = NONE;
                }
                self.update_stat(bus.interrupt_flag);
                self.goto(Step::LineMode2, 1);
            }
            Step::LineMode2 => {
                self.oam_write_blocked = 1;
                self.ly_for_compare = self.ly;
                self.set_mode(2);
                // The OAM source is a pulse: only its rising edge matters.
                self.stat_mode_for_interrupt = 2;
                self.update_stat(bus.interrupt_flag);
                self.stat_mode_for_interrupt = NONE;
                self.update_stat(bus.interrupt_flag);
                self.scan_oam(bus.oam);
                self.goto(Step::LineScanEnd, 76);
            }
            Step::LineScanEnd => {
                self.oam_read_blocked = 1;
                self.oam_write_blocked = 0;
                self.vram_read_blocked = 1;
                self.vram_write_blocked = 0;
                self.goto(Step::LineMode3, 4);
            }
            Step::LineMode3 => {
                self.set_mode(3);
                self.stat_mode_for_interrupt = 3;
                self.update_stat(bus.interrupt_flag);
                self.block_all();
                self.goto(Step::Mode3Start, 5);
            }
            Step::Mode3Start => {
                self.bg_fifo_low = 0;
                self.bg_fifo_high = 0;
                // Eight dummy pixels: the first fetch overlaps their output.
                self.bg_fifo_len = 8;
                self.obj_fifo_low = 0;
                self.obj_fifo_high = 0;
                self.obj_fifo_palette = 0;
                self.obj_fifo_priority = 0;
                self.fetcher_step = 0;
                self.fetcher_window_x = 0;
                if self.wy == self.ly {
                    self.window_y_reached = 1;
                }
                self.in_window = 0;
                self.insert_background_pixel = 0;
                self.window_fetch_starting = 0;
                let fine = self.scx & 7;
                self.scanline_x = 0u8.wrapping_sub(fine + 8);
                self.sprite_x0_penalty = fine.min(5);
                self.mode3_dot(bus);
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
                self.tick_fetcher(bus.vram);
                self.read_sprite_attributes(bus.oam);
                self.sprite_tile_address = self.sprite_row_address();
                self.goto(Step::SpriteFetchLow, 2);
            }
            Step::SpriteFetchLow => {
                self.sprite_tile_address = self.sprite_row_address();
                self.sprite_tile_low = bus.vram[usize::from(self.sprite_tile_address & 0x1FFF)];
                self.goto(Step::SpriteFetchHigh, 2);
            }
            Step::SpriteFetchHigh => {
                // The address is formed again for the second byte, with LCDC as it is now
                // (Mealybug m3_lcdc_obj_size_change).
                self.sprite_tile_address = self.sprite_row_address();
                self.sprite_tile_high =
                    bus.vram[usize::from((self.sprite_tile_address + 1) & 0x1FFF)];
                self.goto(Step::SpritePush, 1);
            }
            Step::SpritePush => {
                self.push_sprite();
                self.mode3_sprite_check(bus);
            }
            Step::HBlank => {
                // Reached only through exit_mode3; kept for states saved at that step.
                self.exit_mode3(bus);
            }
            Step::LineWindowCheck => {
                if self.lcdc & LCDC_WINDOW_ENABLE != 0 && self.wy == self.ly {
                    self.window_y_reached = 1;
                }
                self.goto(Step::LineEnd, 2);
            }
            Step::LineEnd => {
                self.ly = self.ly.wrapping_add(1);
                self.line_dot = 0;
                if self.ly == 144 {
                    self.vblank_line_start(bus);
                } else {
                    self.goto(Step::LineStart, 0);
                    self.step(bus);
                }
            }
            Step::VBlankLineStart => self.vblank_line_start(bus),
            Step::VBlankDot2 => {
                // Line 144 also raises the OAM source, two dots before VBlank.
                if self.ly == 144 && self.stat_line == 0 && self.stat & STAT_OAM_SOURCE != 0 {
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
            Step::Line153Dot24 => self.goto(Step::FrameEnd, LINE_DOTS - 24),
            Step::FrameEnd => {
                self.ly = 0;
                self.line_dot = 0;
                self.window_y_reached = 0;
                self.window_line = 0xFF;
                self.goto(Step::LineStart, 0);
                self.step(bus);
            }
        }
    }

    fn vblank_line_start(&mut self, bus: &mut Ctx) {
        if self.ly == 153 {
            self.line153_start(bus);
            return;
        }
        self.ly_for_compare = NONE;
        self.update_stat(bus.interrupt_flag);
        self.goto(Step::VBlankDot2, 2);
    }

    fn line153_start(&mut self, bus: &mut Ctx) {
        self.ly = 153;
        self.ly_for_compare = NONE;
        self.update_stat(bus.interrupt_flag);
        self.goto(Step::Line153Dot6, 6);
    }

    fn block_all(&mut self) {
        self.oam_read_blocked = 1;
        self.oam_write_blocked = 1;
        self.vram_read_blocked = 1;
        self.vram_write_blocked = 1;
    }

    /// Selects up to ten objects on this line, in OAM order, then orders them for fetching.
    /// Every entry's Y and X pass the scan's latch, so the last entry's stay there.
    /// UNVERIFIED: done at once at dot 4 rather than over the 80 dots of mode 2; OAM is
    /// closed to the CPU meanwhile, so only OAM DMA during mode 2 could tell.
    fn scan_oam(&mut self, oam: &[u8; 160]) {
        let height: u16 = if self.lcdc & LCDC_OBJ_TALL != 0 {
            16
        } else {
            8
        };
        let line = u16::from(self.ly) + 16;
        let mut count = 0usize;
        // (Y, X, OAM index) of the objects found.
        let mut found = [[0u8; 3]; 10];
        let blocked = self.oam_dma_active != 0;
        for (index, entry) in oam.chunks_exact(4).enumerate() {
            if !blocked {
                self.oam_latch_y = entry[0];
                self.oam_latch_x = entry[1];
            }
            let y = u16::from(self.oam_latch_y);
            if count < 10 && line >= y && line < y + height {
                found[count] = [self.oam_latch_y, self.oam_latch_x, index as u8];
                count += 1;
            }
        }
        // Fetch order is X ascending, then OAM index ascending; the list is popped from its
        // end, so store X descending, then OAM index descending (insertion sort, stable).
        let mut sorted = [[0u8; 3]; 10];
        for (n, sprite) in found[..count].iter().rev().enumerate() {
            let mut position = n;
            while position > 0 && sorted[position - 1][1] < sprite[1] {
                sorted[position] = sorted[position - 1];
                position -= 1;
            }
            sorted[position] = *sprite;
        }
        for (n, &[y, x, index]) in sorted[..count].iter().enumerate() {
            self.sprites[n * 4..n * 4 + 4].copy_from_slice(&[y, x, 0, 0]);
            self.sprite_oam_index[n] = index;
        }
        self.sprite_count = count as u8;
    }

    /// Reads the next object's tile number and attributes from OAM (or, during OAM DMA,
    /// the byte the DMA drives) into its `sprites` slot.
    fn read_sprite_attributes(&mut self, oam: &[u8; 160]) {
        let n = usize::from(self.sprite_count.clamp(1, 10) - 1);
        let (tile, flags) = if self.oam_dma_active != 0 {
            (self.oam_dma_byte, self.oam_dma_byte)
        } else {
            let base = usize::from(self.sprite_oam_index[n] % 40) * 4;
            (oam[base + 2], oam[base + 3])
        };
        self.sprites[n * 4 + 2] = tile;
        self.sprites[n * 4 + 3] = flags;
    }

    fn next_sprite(&self) -> [u8; 4] {
        let n = usize::from(self.sprite_count.clamp(1, 10) - 1) * 4;
        [
            self.sprites[n],
            self.sprites[n + 1],
            self.sprites[n + 2],
            self.sprites[n + 3],
        ]
    }

    fn activate_window(&mut self) {
        self.in_window = 1;
        self.fetcher_window_x = 0;
        self.fetcher_step = 0;
        self.bg_fifo_len = 0;
        self.window_fetch_starting = 1;
    }

    /// One dot of mode 3, from the window check on.
    fn mode3_dot(&mut self, bus: &mut Ctx) {
        if self.in_window == 0 && self.window_y_reached != 0 && self.lcdc & LCDC_WINDOW_ENABLE != 0
        {
            let mut activate = false;
            if self.wx == 0 {
                // WX=0 triggers at a column that depends on the fine scroll.
                const TRIGGER: [i8; 8] = [-7, -9, -10, -11, -12, -13, -14, -14];
                if self.scanline_x == TRIGGER[usize::from(self.scx & 7)] as u8 {
                    activate = true;
                }
            } else if self.wx < 166 {
                if self.wx == self.scanline_x.wrapping_add(7) {
                    activate = true;
                } else if self.wx == self.scanline_x.wrapping_add(6) && self.wx_just_changed == 0 {
                    activate = true;
                    if self.screen_x > 0 {
                        self.screen_x -= 1;
                    }
                }
            }
            if activate {
                self.window_line = self.window_line.wrapping_add(1);
                if self.wx == 0 && self.scx & 7 != 0 {
                    self.goto(Step::Mode3WindowActivate, 1);
                    return;
                }
                self.activate_window();
            } else if self.wx == 166 && self.wx == self.scanline_x.wrapping_add(7) {
                self.window_line = self.window_line.wrapping_add(1);
            }
        }
        self.mode3_after_window(bus);
    }

    fn mode3_after_window(&mut self, bus: &mut Ctx) {
        if self.in_window != 0
            && self.window_fetch_starting == 0
            && self.fetcher_step == 0
            && self.wx == self.screen_x.wrapping_add(7)
            && self.bg_fifo_len == 8
        {
            // UNVERIFIED glitch (SameBoy's notes): an extra background pixel is inserted.
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

    fn mode3_sprite_check(&mut self, bus: &mut Ctx) {
        if self.sprite_count > 0
            && self.lcdc & LCDC_OBJ_ENABLE != 0
            && self.next_sprite()[1] == self.scanline_x.wrapping_add(8)
        {
            self.sprite_wait_fetcher(bus);
            return;
        }
        self.output_pixel(bus);
        self.tick_fetcher(bus.vram);
        if self.screen_x >= 160 {
            self.exit_mode3(bus);
        } else {
            self.goto(Step::Mode3Dot, 1);
        }
    }

    fn sprite_wait_fetcher(&mut self, bus: &mut Ctx) {
        if self.bg_fifo_len == 0 || self.fetcher_step < 5 {
            self.tick_fetcher(bus.vram);
            self.goto(Step::SpriteWaitFetcher, 1);
            return;
        }
        if self.sprite_x0_penalty != 0 && self.next_sprite()[1] == 0 {
            let penalty = self.sprite_x0_penalty;
            self.sprite_x0_penalty = 0;
            self.goto(Step::SpriteAfterPenalty, u16::from(penalty));
            return;
        }
        self.sprite_fetch_1(bus);
    }

    fn sprite_fetch_1(&mut self, bus: &mut Ctx) {
        self.tick_fetcher(bus.vram);
        self.goto(Step::SpriteFetch2, 1);
    }

    /// VRAM offset of the next object's row on this line (low byte; +1 for the high).
    fn sprite_row_address(&self) -> u16 {
        let tall = self.lcdc & LCDC_OBJ_TALL != 0;
        let sprite = self.next_sprite();
        let height_mask = if tall { 15 } else { 7 };
        let mut row = self.ly.wrapping_sub(sprite[0]) & height_mask;
        if sprite[3] & 0x40 != 0 {
            row = !row & height_mask;
        }
        let tile = if tall { sprite[2] & !1 } else { sprite[2] };
        u16::from(tile) * 16 + u16::from(row) * 2
    }

    fn push_sprite(&mut self) {
        let sprite = self.next_sprite();
        let (mut low, mut high) = (self.sprite_tile_low, self.sprite_tile_high);
        if sprite[3] & 0x20 != 0 {
            low = low.reverse_bits();
            high = high.reverse_bits();
        }
        // Earlier (higher-priority) objects keep their opaque pixels.
        let free = !(self.obj_fifo_low | self.obj_fifo_high);
        self.obj_fifo_low |= low & free;
        self.obj_fifo_high |= high & free;
        let palette = if sprite[3] & 0x10 != 0 { 0xFF } else { 0 };
        let priority = if sprite[3] & 0x80 != 0 { 0xFF } else { 0 };
        self.obj_fifo_palette = (self.obj_fifo_palette & !free) | (palette & free);
        self.obj_fifo_priority = (self.obj_fifo_priority & !free) | (priority & free);
        self.sprite_count = self.sprite_count.saturating_sub(1);
    }

    fn exit_mode3(&mut self, bus: &mut Ctx) {
        self.oam_read_blocked = 0;
        self.oam_write_blocked = 0;
        self.vram_read_blocked = 0;
        self.vram_write_blocked = 0;
        self.set_mode(0);
        self.stat_mode_for_interrupt = 0;
        self.update_stat(bus.interrupt_flag);
        let wait = (LINE_DOTS - 2).saturating_sub(self.line_dot);
        self.goto(Step::LineWindowCheck, wait);
    }

    /// Pops one pixel; the first `8 + SCX mod 8` are discarded (fine scroll).
    fn output_pixel(&mut self, bus: &mut Ctx) {
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
    fn tick_fetcher(&mut self, vram: &[u8; 0x2000]) {
        match self.fetcher_step {
            1 => self.fetch_tile_number = vram[self.tile_map_address()],
            3 => self.fetch_tile_low = vram[self.tile_data_address()],
            5 => {
                self.fetch_tile_high = vram[self.tile_data_address() + 1];
                if self.in_window != 0 {
                    self.fetcher_window_x = self.fetcher_window_x.wrapping_add(1);
                }
                self.fetcher_step = 6;
                self.try_push_background();
                return;
            }
            6 | 7 => {
                self.try_push_background();
                return;
            }
            _ => {}
        }
        self.fetcher_step = self.fetcher_step.wrapping_add(1) & 7;
    }

    /// VRAM offset of the tile-map entry the fetcher reads now.
    #[inline(always)]
    fn tile_map_address(&self) -> usize {
        let in_window = self.in_window != 0;
        let map_high = if in_window {
            self.lcdc & LCDC_WINDOW_MAP != 0
        } else {
            self.lcdc & LCDC_BG_MAP != 0
        };
        let (column, row) = if in_window {
            (self.fetcher_window_x, self.window_line / 8)
        } else {
            (
                (self.scx.wrapping_add(self.scanline_x).wrapping_add(8) / 8) & 0x1F,
                self.ly.wrapping_add(self.scy) / 8,
            )
        };
        let offset = (32 * u16::from(row) + u16::from(column)) & 0x3FF;
        let base: u16 = if map_high { 0x1C00 } else { 0x1800 };
        usize::from(base + offset)
    }

    fn try_push_background(&mut self) {
        if self.bg_fifo_len == 0 {
            self.bg_fifo_low = self.fetch_tile_low;
            self.bg_fifo_high = self.fetch_tile_high;
            self.bg_fifo_len = 8;
            self.fetcher_step = 0;
        }
    }

    fn tile_data_address(&self) -> usize {
        let tile = u16::from(self.fetch_tile_number);
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

/// Writes the VRAM contents the DMG boot ROM leaves behind: the cartridge header's logo
/// (`header_logo`, the 48 bytes at 0x0104) expanded into tiles 1..=24, the (R) tile 25 and
/// the background map that shows them (ashiepaws `bully` checks these tiles). Each logo
/// nibble becomes two identical rows of doubled pixels, written to the low bit plane only.
pub fn write_boot_logo(vram: &mut [u8; 0x2000], header_logo: &[u8]) {
    /// Doubles each of the 4 bits of `nibble` into an 8-pixel row.
    fn doubled(nibble: u8) -> u8 {
        (0..4).fold(0, |row, bit| {
            if nibble & (1 << bit) != 0 {
                row | (0b11 << (bit * 2))
            } else {
                row
            }
        })
    }
    let mut address = 0x0010;
    for &byte in header_logo.iter().take(48) {
        for nibble in [byte >> 4, byte & 0x0F] {
            vram[address] = doubled(nibble);
            vram[address + 2] = doubled(nibble);
            address += 4;
        }
    }
    // The (R) mark, stored in the boot ROM itself.
    const REGISTERED: [u8; 8] = [0x3C, 0x42, 0xB9, 0xA5, 0xB9, 0xA5, 0x42, 0x3C];
    for (row, &bits) in REGISTERED.iter().enumerate() {
        vram[0x0190 + 2 * row] = bits;
    }
    // Map: tiles 1..=12 at 0x9904.., 13..=24 at 0x9924.., and the (R) at 0x9910.
    vram[0x1910] = 0x19;
    for tile in 1..=12u8 {
        vram[0x1903 + usize::from(tile)] = tile;
        vram[0x1923 + usize::from(tile)] = tile + 12;
    }
}

/// Applies a corruption to OAM row `row` (1..=19): its first word becomes `f(a, b, c)`
/// (a: the row's first word, b: the preceding row's first word, c: the preceding row's
/// third word), and its other three words are copied from the preceding row. All the
/// operations are bitwise, so they apply byte by byte.
fn corrupt_row(oam: &mut [u8; 160], row: usize, f: impl Fn(u8, u8, u8) -> u8) {
    let base = (row % 20) * 8;
    if base < 8 {
        return;
    }
    for byte in 0..2 {
        let a = oam[base + byte];
        let b = oam[base - 8 + byte];
        let c = oam[base - 8 + 4 + byte];
        oam[base + byte] = f(a, b, c);
    }
    for byte in 2..8 {
        oam[base + byte] = oam[base - 8 + byte];
    }
}

/// 16-bit OAM word `index` (2 bytes, little-endian) relative to byte `base`.
fn oam_word(oam: &[u8; 160], base: usize, index: isize) -> u16 {
    let at = (base as isize + 2 * index) as usize % 160;
    u16::from_le_bytes([oam[at], oam[(at + 1) % 160]])
}

fn set_oam_word(oam: &mut [u8; 160], base: usize, index: isize, value: u16) {
    let at = (base as isize + 2 * index) as usize % 160;
    let [low, high] = value.to_le_bytes();
    oam[at] = low;
    oam[(at + 1) % 160] = high;
}

/// The read corruption of row `row` (1..=19). Which bitwise pattern applies depends on the
/// row (SameBoy's DMG findings, "revision and instance specific" for rows 4k; we follow the
/// DMGs that give constant results). Afterwards the preceding row is copied over the row,
/// and row 16 is also copied over row 0.
fn corrupt_on_read(oam: &mut [u8; 160], row: usize) {
    let row = row % 20;
    if row == 0 {
        return;
    }
    let base = row * 8;
    // w(k): word k relative to the row's first word (negative: earlier rows).
    let w = |oam: &[u8; 160], k: isize| oam_word(oam, base, k);
    if row < 19 && row % 4 == 2 {
        let value = {
            let (a, b, c, d) = (w(oam, -8), w(oam, -4), w(oam, 0), w(oam, -2));
            (b & (a | c | d)) | (a & c & d)
        };
        set_oam_word(oam, base, -4, value);
        for byte in 0..8 {
            oam[base - 16 + byte] = oam[base - 8 + byte];
        }
    } else if row < 19 && row.is_multiple_of(4) {
        let value = if row == 8 {
            let (b, c, d, e, f, g, h) = (
                w(oam, 0),
                w(oam, -2),
                w(oam, -3),
                w(oam, -4),
                w(oam, -7),
                w(oam, -8),
                w(oam, -16),
            );
            (e & (h | g | (!d & f) | c | b)) | (c & g & h)
        } else {
            let (a, b, c, d, e) = (w(oam, 0), w(oam, -2), w(oam, -4), w(oam, -8), w(oam, -16));
            match row {
                4 => (c & (a | b | d | e)) | (a & b & d & e),
                12 => (c & (a | b | d | e)) | (b & d & e),
                _ => c | (a & b & d & e),
            }
        };
        set_oam_word(oam, base, -4, value);
        for byte in 0..8 {
            let preceding = oam[base - 8 + byte];
            oam[base - 16 + byte] = preceding;
            oam[base - 32 + byte] = preceding;
        }
    } else {
        let (a, b, c) = (w(oam, 0), w(oam, -4), w(oam, -2));
        let value = b | (a & c);
        set_oam_word(oam, base, -4, value);
        set_oam_word(oam, base, 0, value);
    }
    for byte in 0..8 {
        oam[base + byte] = oam[base - 8 + byte];
    }
    if row == 16 {
        for byte in 0..8 {
            oam[byte] = oam[base + byte];
        }
    }
}
