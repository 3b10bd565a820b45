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
//! once, a tile or a span of whole tiles (`span.rs`). The lag is bounded so that mode 3 can
//! never have ended unnoticed: one dot outputs at most one pixel, so while
//! `screen_x + fifo_lag < 160` the 160th pixel is still ahead.
//! Nothing else can observe the owed dots: VRAM and OAM are locked, LY and the mode do not
//! change, and the only interrupt (HBlank) comes at the end.
//!
//! A write to a rendering register during mode 3 is deferred to the next tick, which brings
//! the FIFO to the dot the write really lands on and applies it there: palettes two dots
//! before the access (ORed with the old value for the first dot), LCDC one dot before (its
//! object-size bit two), SCX/SCY one dot before (`apply_deferred`).
//!
//! The laziness is a host option ([`FastPaths::lazy_mode3`]), on by default: off, mode 3 owes
//! at most the two dots a deferred write may need, and every dot takes the step dispatch.
//! `crates/harness/tests/render_oracle.rs` checks that both give the same `State` and picture
//! every frame.
//!
//! # Frame buffer
//! One shade 0..=3 per pixel after palette mapping, written directly, never allocated.

use crate::FastPaths;
use crate::cgb::{CgbState, MODE_CGB, MODE_COMPATIBILITY};
use crate::io;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

mod advance;
mod boot_logo;
mod colour;
mod colour_rows;
mod colour_span;
mod fetcher;
mod forecast;
mod lazy;
mod line_turn;
mod oam_bug;
mod object_line;
mod object_span;
mod objects;
mod partial_mode3;
mod registers;
mod schedule;
mod span;
mod stopped;
mod tile_sel;
mod whole_mode3;
mod window;

pub use boot_logo::write_boot_logo;
pub(crate) use registers::ReadForecast;
pub(crate) use schedule::is_saved_step;
use schedule::{MODE3_STEPS, Step};
pub use stopped::CutOff;

const SCREEN_WIDTH: usize = crate::SCREEN_WIDTH;
/// Dots per scanline.
const LINE_DOTS: u16 = 456;
/// M-cycles in an LCD frame: with the LCD off, a frame is reported this often.
const M_CYCLES_PER_FRAME: u16 = 17_556;

/// CPU M-cycles of `DOTS` dots in an LCD frame (twice as many at CGB double speed), the
/// period `lcd_off_m_cycles` counts to.
const fn lcd_off_frame<const DOTS: u16>() -> u16 {
    (M_CYCLES_PER_FRAME as u32 * 4 / DOTS as u32) as u16
}

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

/// Dots before the pixel FIFO starts (`Step::Mode3Start`) from which palette RAM is closed
/// to the CPU: mode 3 shows 5 dots before it, palette RAM closes 3 dots later.
const PALETTE_LOCK_LEAD: u16 = 2;

/// Dots before the writing access at which SCY / SCX writes reach the fetcher.
const SCY_LEAD_DOTS: u16 = 1;
const SCX_LEAD_DOTS: u16 = 1;

/// The host's side of the PPU for one run of the machine: the frame buffers it draws into
/// and the host's `FastPaths` that concern it, never saved. The machine builds it once per
/// run and lends it to every tick by one reference (cheaper than passing the buffers and
/// options on each tick).
pub struct Host<'a> {
    /// The frame in shades (or CGB colour numbers); None while not drawing.
    frame: Option<&'a mut [u8; 160 * 144]>,
    /// On a CGB, the frame in RGB555; None while not drawing.
    frame_rgb: Option<&'a mut [u16; 160 * 144]>,
    /// `FastPaths::lazy_mode3` and `FastPaths::lyc_windows`.
    walk: QuietWalk,
    /// `FastPaths::colour_object_runs`.
    colour_object_runs: bool,
    /// `FastPaths::whole_mode3`, while mode 3 is lazy.
    whole_mode3: bool,
    /// `FastPaths::whole_mode3_objects`, while mode 3 is lazy.
    whole_mode3_objects: bool,
    /// `FastPaths::partial_mode3`, while mode 3 is lazy.
    partial_mode3: bool,
    /// `FastPaths::line_turns`.
    line_turns: bool,
}

/// The host's switches that shape a quiet window (`PpuState::quiet_m_cycles_of`).
#[derive(Clone, Copy, Debug)]
pub struct QuietWalk {
    /// `FastPaths::lazy_mode3`: mode 3 may be quiet.
    pub lazy_mode3: bool,
    /// `FastPaths::lyc_windows`: the walk knows what the LY=LYC comparator holds.
    pub lyc_windows: bool,
}

impl QuietWalk {
    /// Every switch on.
    pub const ALL: QuietWalk = QuietWalk {
        lazy_mode3: true,
        lyc_windows: true,
    };
}

impl<'a> Host<'a> {
    /// Draws into `frame` and `frame_rgb` if `fast.drawing`, runs mode 3 lazily if
    /// `fast.lazy_mode3`.
    pub fn new(
        frame: &'a mut [u8; 160 * 144],
        frame_rgb: &'a mut [u16; 160 * 144],
        fast: FastPaths,
    ) -> Host<'a> {
        let (frame, frame_rgb) = if fast.drawing {
            (Some(frame), Some(frame_rgb))
        } else {
            (None, None)
        };
        Host {
            frame,
            frame_rgb,
            walk: QuietWalk {
                lazy_mode3: fast.lazy_mode3,
                lyc_windows: fast.lyc_windows,
            },
            colour_object_runs: fast.colour_object_runs,
            whole_mode3: fast.whole_mode3 && fast.lazy_mode3,
            whole_mode3_objects: fast.whole_mode3_objects && fast.lazy_mode3,
            partial_mode3: fast.partial_mode3 && fast.lazy_mode3,
            line_turns: fast.line_turns,
        }
    }

    /// `FastPaths::lazy_mode3`: whether mode 3 may run lazily.
    #[inline(always)]
    pub fn lazy_mode3(&self) -> bool {
        self.walk.lazy_mode3
    }

    /// The switches a quiet window's walk follows.
    #[inline(always)]
    pub fn quiet_walk(&self) -> QuietWalk {
        self.walk
    }
}

/// `ly_for_compare` / `stat_mode_for_interrupt` value meaning "none this dot".
const NONE: u8 = 0xFF;

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
    /// 1 once WY matched LY with the window enabled in this frame (`window::check_window_y`).
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
    /// `cgb::MODE_DMG`, `MODE_COMPATIBILITY` (DMG pipeline, colours from palette RAM) or
    /// `MODE_CGB` (tile attributes, colour palettes, CGB priorities).
    #[state(since = 2, below = MODE_CGB + 1)]
    pub colour_mode: u8,
    /// CGB mode: the attributes (BG map entry in VRAM bank 1) of the tile being fetched, and
    /// of the tile in the background FIFO (it holds one tile at a time).
    #[state(since = 2)]
    pub fetch_tile_attributes: u8,
    #[state(since = 2)]
    pub bg_fifo_attributes: u8,
    /// CGB mode: bits 1 and 2 of each object FIFO pixel's palette number (bit 0 is in
    /// `obj_fifo_palette`).
    #[state(since = 2)]
    pub obj_fifo_palette_bit1: u8,
    #[state(since = 2)]
    pub obj_fifo_palette_bit2: u8,
    /// CGB mode: the OAM index of the object each object FIFO pixel came from, next pixel
    /// first: with OPRI clear, a lower index wins an overlap.
    #[state(since = 2)]
    pub obj_fifo_oam_index: [u8; 8],
    /// CGB: the tile-map entry the background fetcher chose at its first step and reads at
    /// the next (column in bits 0..=4, bit 7 set for the 9C00 map).
    #[state(since = 3)]
    pub fetch_map_entry: u8,
    /// CGB: the row source chosen with it (LY + SCY, or the window's line); revisions D and
    /// later keep it for the tile's data bytes too (Mealybug m3_scy_change CGB RevD).
    /// Revision C instead takes each data byte's row from LY + SCY at that byte's address
    /// dot: a fetcher doing so passes both RevC rows (m3_scy_change,
    /// m3_scy_change2, whose only picture is RevC's and mixes rows within a tile, which a
    /// latched row cannot) and fails RevD's, so those two rows stay failing for revision E.
    #[state(since = 3)]
    pub fetcher_y: u8,
    /// CGB: LCDC bit 4 as the fetcher saw it one dot before reading a tile data byte (it
    /// forms the address then, reads it the next dot).
    #[state(since = 3, flag)]
    pub fetch_tile_sel: u8,
    /// CGB: 1 during the dot after a write changed LCDC bit 4: a tile data read then returns
    /// the tile number instead if the bit was cleared, or `low_half_latch` if it was set
    /// (`tile_sel.rs`; Mealybug m3_lcdc_tile_sel_change CGB rows).
    #[state(since = 3, flag)]
    pub tile_sel_glitch: u8,
    /// DMG: whether a disabled window inserts a blank pixel where WX matches
    /// (`window::WINDOW_GLITCH_IDLE`, `_ARMED`, `_OFF_THIS_LINE`; see `ppu/window.rs`).
    #[state(since = 6, below = 3)]
    pub disabled_window_glitch: u8,
    #[state(old_pad_len = 1)]
    pub _pad: [u8; 7],
}

/// The memories the PPU reads.
#[derive(Clone, Copy)]
pub struct VideoMemory<'a> {
    pub vram: &'a [u8; 0x2000],
    /// CGB: VRAM bank 1 (tile attributes and tiles).
    pub vram_bank1: &'a [u8; 0x2000],
    pub oam: &'a [u8; 160],
    /// CGB palette RAM and OPRI; `None` on a DMG.
    pub cgb: Option<&'a CgbState>,
}

impl<'a> VideoMemory<'a> {
    /// A DMG's: one VRAM bank, no palette RAM.
    pub fn dmg(vram: &'a [u8; 0x2000], oam: &'a [u8; 160]) -> VideoMemory<'a> {
        VideoMemory {
            vram,
            vram_bank1: vram,
            oam,
            cgb: None,
        }
    }
}

/// What a step may touch besides the PPU's own state.
struct Ctx<'a> {
    vram: &'a [u8; 0x2000],
    vram_bank1: &'a [u8; 0x2000],
    oam: &'a [u8; 160],
    cgb: Option<&'a CgbState>,
    interrupt_flag: &'a mut u8,
    /// None for a look-ahead run that must not draw.
    frame: Option<&'a mut [u8; 160 * 144]>,
    /// On a CGB, the frame in RGB555 (None for a look-ahead run).
    frame_rgb: Option<&'a mut [u16; 160 * 144]>,
    /// Set when line 144 was entered.
    frame_done: bool,
    /// CGB double speed (the CPU's M-cycle is 2 dots): the few events whose dot depends on
    /// the CPU's pace read it here.
    double_speed: bool,
    /// `FastPaths::lazy_mode3`.
    lazy: bool,
    /// `FastPaths::colour_object_runs`.
    colour_object_runs: bool,
    /// `FastPaths::whole_mode3`, while mode 3 is lazy (`whole_mode3.rs`).
    whole_mode3: bool,
    /// `FastPaths::whole_mode3_objects`, while mode 3 is lazy (`object_line.rs`).
    whole_mode3_objects: bool,
    /// `FastPaths::partial_mode3`, while mode 3 is lazy (`partial_mode3.rs`).
    partial_mode3: bool,
    /// `FastPaths::line_turns` (`line_turn.rs`).
    line_turns: bool,
}

impl<'a> Ctx<'a> {
    /// A context that draws nothing and whose interrupt requests go to `interrupt_flag`.
    fn look_ahead(memory: VideoMemory<'a>, interrupt_flag: &'a mut u8) -> Ctx<'a> {
        Ctx {
            vram: memory.vram,
            vram_bank1: memory.vram_bank1,
            oam: memory.oam,
            cgb: memory.cgb,
            interrupt_flag,
            frame: None,
            frame_rgb: None,
            frame_done: false,
            double_speed: false,
            lazy: true,
            colour_object_runs: true,
            whole_mode3: false,
            whole_mode3_objects: false,
            partial_mode3: false,
            line_turns: false,
        }
    }

    /// A context that runs real time: it draws into the host's frames if it draws.
    fn drawing(
        memory: VideoMemory<'a>,
        interrupt_flag: &'a mut u8,
        host: &'a mut Host<'_>,
        double_speed: bool,
    ) -> Ctx<'a> {
        Ctx {
            frame: host.frame.as_deref_mut(),
            frame_rgb: host.frame_rgb.as_deref_mut(),
            double_speed,
            lazy: host.walk.lazy_mode3,
            colour_object_runs: host.colour_object_runs,
            whole_mode3: host.whole_mode3,
            whole_mode3_objects: host.whole_mode3_objects,
            partial_mode3: host.partial_mode3,
            line_turns: host.line_turns,
            ..Ctx::look_ahead(memory, interrupt_flag)
        }
    }

    fn memory(&self) -> VideoMemory<'a> {
        VideoMemory {
            vram: self.vram,
            vram_bank1: self.vram_bank1,
            oam: self.oam,
            cgb: self.cgb,
        }
    }
}

impl PpuState {
    /// One M-cycle (4 dots). Called at the start of every M-cycle, before the CPU's access.
    /// Sets VBlank/STAT bits in `interrupt_flag`. Returns true when a frame completed in
    /// this cycle (entering line 144; with the LCD off, every 17,556 M-cycles).
    #[inline(always)]
    pub fn tick(
        &mut self,
        memory: VideoMemory,
        interrupt_flag: &mut u8,
        frame: &mut [u8; 160 * 144],
        frame_rgb: &mut [u16; 160 * 144],
    ) -> bool {
        let mut host = Host::new(frame, frame_rgb, FastPaths::ALL);
        self.tick_dots::<4>(memory, interrupt_flag, &mut host)
    }

    /// `tick` for a CPU M-cycle of `DOTS` dots: 4 at normal speed, 2 at CGB double speed
    /// (the PPU keeps its pace while the CPU's doubles), drawing into and run as `host` says.
    #[inline(always)]
    pub fn tick_dots<const DOTS: u16>(
        &mut self,
        memory: VideoMemory,
        interrupt_flag: &mut u8,
        host: &mut Host,
    ) -> bool {
        // Fast paths, inlined into the machine's M-cycle: nothing due in this M-cycle (most
        // of modes 0, 1 and 2), or mode 3 can owe four more dots (see `settle`).
        if self.deferred_valid | self.wx_just_changed == 0 && self.lcdc & LCDC_LCD_ENABLE != 0 {
            if self.fifo_lag == 0 {
                if self.wait_dots >= DOTS {
                    self.wait_dots -= DOTS;
                    self.line_dot = self.line_dot.wrapping_add(DOTS);
                    return false;
                }
            } else if u32::from(self.screen_x) + u32::from(self.fifo_lag) + u32::from(DOTS) < 160
                && self.oam_dma_active == 0
                && host.walk.lazy_mode3
            {
                self.fifo_lag += DOTS;
                return false;
            }
        }
        self.tick_slow::<DOTS>(memory, interrupt_flag, host)
    }

    #[inline(never)]
    fn tick_slow<const DOTS: u16>(
        &mut self,
        memory: VideoMemory,
        interrupt_flag: &mut u8,
        host: &mut Host,
    ) -> bool {
        if self.lcdc & LCDC_LCD_ENABLE == 0 && self.deferred_valid == 0 {
            return self.tick_lcd_off::<DOTS>();
        }
        let mut ctx = Ctx::drawing(memory, interrupt_flag, host, DOTS < 4);
        if self.deferred_valid != 0 {
            self.apply_deferred(&mut ctx, DOTS == 2);
            if self.lcdc & LCDC_LCD_ENABLE == 0 {
                return self.tick_lcd_off::<DOTS>();
            }
        }
        if self.wx_just_changed | self.tile_sel_glitch != 0 {
            // The WX comparator sees a fresh write differently during its first dot, and
            // so does a CGB's tile-data fetch after LCDC bit 4 was cleared.
            self.pay(self.fifo_lag, &mut ctx);
            self.run(1, false, &mut ctx);
            self.wx_just_changed = 0;
            self.tile_sel_glitch = 0;
            self.advance_dots(u32::from(DOTS) - 1, &mut ctx);
        } else {
            self.advance_dots(u32::from(DOTS), &mut ctx);
        }
        ctx.frame_done
    }

    /// Holds the PPU still for one dot at the current one, so that everything it does from
    /// here on comes one dot later relative to the CPU's M-cycles. At CGB double speed an
    /// M-cycle is two dots, so the PPU can stand at either dot of it; the machine calls this
    /// where the hardware sets that phase (the LCD switched on at double speed). With the
    /// LCD off there is no phase to keep.
    pub fn delay_one_dot(&mut self, memory: VideoMemory, interrupt_flag: &mut u8, host: &mut Host) {
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            return;
        }
        let mut ctx = Ctx::drawing(memory, interrupt_flag, host, true);
        if self.deferred_valid != 0 {
            self.apply_deferred(&mut ctx, true);
        }
        // The owed mode-3 dots lie before the pause.
        self.pay(self.fifo_lag, &mut ctx);
        // The next step keeps its line dot and runs one dot later: `line_dot` is that dot
        // minus `wait_dots` (it may wrap below 0 at a line's first dot, as `wrapping_add`
        // brings it back).
        self.wait_dots += 1;
        self.line_dot = self.line_dot.wrapping_sub(1);
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

    /// Dots from now in which no step reads OAM or the byte OAM DMA drives (the OAM scan
    /// at `LineMode2`, mode 3's object fetches): the rest of VBlank or of a visible line's
    /// HBlank, up to the next scan; unbounded with the LCD off. 0 anywhere else (modes 2
    /// and 3, the line the LCD starts with, a write waiting to apply). The machine defers
    /// the M-cycles of an OAM DMA only within them (`Machine::dma_quiet_m_cycles`), so
    /// that the PPU cannot tell the bytes copied meanwhile.
    pub fn dots_without_oam_reads(&self) -> u32 {
        if self.lcdc & LCDC_LCD_ENABLE == 0 && self.deferred_valid == 0 {
            return u32::MAX;
        }
        if self.fifo_lag != 0 || self.deferred_valid != 0 {
            return 0;
        }
        // Whole lines between this one and the line whose scan comes next.
        let lines_between = match Step::from_raw(self.step) {
            Step::Mode0Interrupt | Step::LineWindowCheck | Step::LineEnd => match self.ly {
                0..=142 => 0,
                143 => 10,
                _ => return 0,
            },
            Step::VBlankLineStart | Step::VBlankDot2 | Step::VBlankDot4 | Step::VBlankLineEnd => {
                match self.ly {
                    144..=152 => 153 - self.ly,
                    _ => return 0,
                }
            }
            Step::Line153Start
            | Step::Line153Dot6
            | Step::Line153Dot8
            | Step::Line153Dot12
            | Step::Line153Dot24
            | Step::Line153CgbCompare
            | Step::Line153CgbLyZero
            | Step::FrameEnd => 0,
            _ => return 0,
        };
        // Every line is `LINE_DOTS` long and `line_dot` is the dots run of this one.
        let line_left = u32::from(LINE_DOTS.saturating_sub(self.line_dot));
        line_left + u32::from(lines_between) * u32::from(LINE_DOTS) + u32::from(schedule::MODE2_DOT)
    }

    /// The interrupt bits (VBlank, STAT) the PPU will request during the first dot of the
    /// next M-cycle (`interrupts_in_next_dots` for one dot). Runs a copy; draws nothing.
    pub fn interrupts_in_next_dot(&self, memory: VideoMemory) -> u8 {
        self.interrupts_in_next_dots(memory, 1, false, true)
    }

    /// The interrupt bits the PPU will request during the next `dots` dots: what a halted
    /// CPU, which samples IF later within the M-cycle than a running one, and the HALT
    /// instruction's decision already see (`Machine::halt_wake_interrupts`,
    /// `halt_bug_interrupts`). Runs a copy (lazily in mode 3 with `lazy_mode3`, as
    /// `FastPaths` says); draws nothing.
    pub fn interrupts_in_next_dots(
        &self,
        memory: VideoMemory,
        dots: u16,
        double_speed: bool,
        lazy_mode3: bool,
    ) -> u8 {
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            return 0;
        }
        // Cheap answers first: no step is due in those dots, or mode 3 cannot end there.
        if self.deferred_valid | self.wx_just_changed == 0 {
            if self.fifo_lag == 0 {
                if self.wait_dots > dots {
                    return 0;
                }
            } else if u32::from(self.screen_x) + u32::from(self.fifo_lag) + u32::from(dots) < 160 {
                return 0;
            }
        }
        let mut copy = *self;
        let mut raised = 0;
        let mut ctx = Ctx::look_ahead(memory, &mut raised);
        ctx.double_speed = double_speed;
        ctx.lazy = lazy_mode3;
        // The dots owed in mode 3 lie in the past and raise nothing (see `settle`).
        copy.pay(copy.fifo_lag, &mut ctx);
        *ctx.interrupt_flag = 0;
        copy.run(u32::from(dots), false, &mut ctx);
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

    /// The state the CGB boot ROM leaves at PC=0x0100: it ends after waiting for VBlank, so
    /// the cartridge starts in line 144 (gb8.gb's first LY read expects VBlank).
    /// UNVERIFIED: the dot within the line (4: just after VBlank began).
    pub fn post_boot_cgb() -> PpuState {
        let mut ppu = PpuState::post_boot();
        ppu.ly = 144;
        ppu.ly_for_compare = 144;
        ppu.lyc_match = 0;
        ppu.stat = 0x01;
        ppu.step = Step::VBlankLineEnd as u8;
        ppu.line_dot = 4;
        ppu.wait_dots = LINE_DOTS - 4;
        ppu
    }

    fn tick_lcd_off<const DOTS: u16>(&mut self) -> bool {
        self.lcd_off_m_cycles = self.lcd_off_m_cycles.saturating_add(1);
        if self.lcd_off_m_cycles >= lcd_off_frame::<DOTS>() {
            self.lcd_off_m_cycles = 0;
            return true;
        }
        false
    }

    /// Whether the PPU is in mode 3.
    pub fn in_mode3(&self) -> bool {
        self.lcdc & LCDC_LCD_ENABLE != 0 && self.stat & 3 == 3
    }

    /// Whether CGB palette RAM is closed to the CPU: from a few dots into mode 3 (the last
    /// `PALETTE_LOCK_LEAD` dots before the pixel FIFO starts, `Step::Mode3Start`) to a few
    /// dots into mode 0 (up to `Step::Mode0Interrupt`'s second run), in compatibility mode
    /// too, where only a stopped PPU's cut-off shows it. UNVERIFIED: SameBoy's display code;
    /// probes `palette/*_mode3*`, `stop/stop_lcd_compat_*`.
    pub fn palette_locked(&self) -> bool {
        if self.lcdc & LCDC_LCD_ENABLE == 0 {
            return false;
        }
        match Step::from_raw(self.step) {
            // Mode 3 may owe dots already (`fifo_lag`): they count as run.
            Step::Mode3Start => self.wait_dots <= PALETTE_LOCK_LEAD + self.fifo_lag,
            // The line the LCD starts with, at single speed: VRAM closes a dot before the
            // FIFO starts, palette RAM as on every line (probe `palette/bcpd_lcd_on`).
            Step::LcdOnVramBlock => self.wait_dots < PALETTE_LOCK_LEAD,
            Step::Mode0Interrupt => true,
            _ => self.stat & 3 == 3,
        }
    }

    /// Whether the PPU is in the HBlank of a visible line (from the end of mode 3 to the
    /// line's end) as CGB HBlank VRAM DMA sees it: it copies a block then. At double speed
    /// the HBlank starts for it with the palette unlock, `Step::Mode0Interrupt`'s second run
    /// (UNVERIFIED: SameBoy's display code, probe `dma/hdma_readback_2x`).
    pub fn in_hblank(&self, double_speed: bool) -> bool {
        self.lcdc & LCDC_LCD_ENABLE != 0
            && self.fifo_lag == 0
            && match Step::from_raw(self.step) {
                Step::HBlank | Step::LineWindowCheck | Step::LineEnd => true,
                Step::Mode0Interrupt => !(double_speed && self.mode0_step_is_unlock()),
                _ => false,
            }
    }

    /// Whether an HBlank VRAM DMA started now (HDMA5 written) copies its first block at
    /// once: STAT reads mode 0 with the LCD on, except at a line's dot 3, the dot before
    /// mode 2 (at double speed from dot 2). So a transfer started in a line's last M-cycle
    /// still copies one although the CPU's next fetch, where `in_hblank` is asked, is
    /// already in the next line. UNVERIFIED: SameBoy's rule (`GB_IO_HDMA5`, whose dot 3 is
    /// its display state 7); at double speed APPROX: SameBoy's window ends an M-cycle
    /// earlier than dot 3 gives here, at lines' ends but not at VBlank's start (probes
    /// `dma/hdma_line_end*`, `dma/hdma_vblank_start*`).
    pub fn hdma_starts_in_hblank(&self, double_speed: bool) -> bool {
        self.lcdc & LCDC_LCD_ENABLE != 0
            && self.stat & 3 == 0
            && match Step::from_raw(self.step) {
                Step::LineMode2 => false,
                Step::LineOamInterrupt => !double_speed,
                _ => true,
            }
    }

    /// Sets how pixels are coloured (`cgb::MODE_*`): at power-on, and when the CGB boot ROM
    /// selects compatibility mode.
    pub fn set_colour_mode(&mut self, mode: u8) {
        self.colour_mode = mode;
    }

    /// Whether this PPU is a CGB's (in any colour mode): its mode-3 timing differs from a
    /// DMG's in places even when it runs a DMG game.
    #[inline(always)]
    pub(super) fn is_cgb_hardware(&self) -> bool {
        self.colour_mode != crate::cgb::MODE_DMG
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
}
