//! `Machine`: the memory map, I/O dispatch and the per-M-cycle tick. It implements [`Bus`].

use crate::FastPaths;
use crate::apu::{ApuState, AudioOut};
use crate::bus::Bus;
use crate::cart::Rom;
use crate::cgb::{self, CgbState};
use crate::core::{BootRom, Model, Output};
use crate::dma::DmaState;
use crate::events::Events;
use crate::io;
use crate::joypad::JoypadState;
use crate::poll_loop::PollRead;
use crate::ppu::ReadForecast;
use crate::ppu::{self, PpuState, VideoMemory};
use crate::serial::{SERIAL_CLOCK_BIT, SerialState, SerialWrite};
use crate::state::{HwState, State};
use crate::timer::TimerState;

/// The PPU's view of the hardware state's memories (a macro, so that `hw.ppu` stays
/// borrowable beside them).
macro_rules! video_memory {
    ($hw:expr) => {
        VideoMemory {
            vram: &$hw.vram,
            vram_bank1: &$hw.vram_bank1,
            oam: &$hw.oam,
            cgb: Some(&$hw.cgb),
        }
    };
}

/// The system-counter bit whose falling edge clocks the APU frame sequencer (DIV bit 4).
const DIV_APU_BIT: u16 = 1 << 12;
/// The same at CGB double speed (DIV bit 5), so that the sequencer keeps its 512 Hz.
const DIV_APU_BIT_DOUBLE_SPEED: u16 = 1 << 13;
/// System-counter T-cycles between falls of `DIV_APU_BIT`.
const DIV_APU_PERIOD: u32 = (DIV_APU_BIT as u32) << 1;
/// Whether counter bit 12 falls (a DIV-APU event at single speed) within the `n` M-cycles
/// after the system counter reads `counter`.
#[inline(always)]
fn div_apu_event_within(counter: u16, n: u32) -> bool {
    let edge = DIV_APU_PERIOD - (u32::from(counter) & (DIV_APU_PERIOD - 1));
    u64::from(n) * 4 >= u64::from(edge)
}
/// The counter bits whose falls always matter to `counter_edges` (the serial clock's bit
/// depends on SC).
const COUNTER_EDGE_BITS: u16 = SERIAL_CLOCK_BIT | DIV_APU_BIT | DIV_APU_BIT_DOUBLE_SPEED;
/// M-cycles the CPU stays halted after STOP switches the speed (after DIV's reset), while
/// the timer, PPU and APU run on at the new speed: 0x20000 clocks, exactly two turns of the
/// system counter, so DIV reads 0 right after the switch (AGE `spsw-div-cgbBCE`) and a
/// 4096 Hz TIMA counts 0x80 during it (AGE `spsw-stop-prefetch-cgbBCE`). SameBoy times
/// its post-switch HALT alike (0x20008 clocks, counted from before STOP's second M-cycle).
/// An interrupt request ends it early (AGE `caution/spsw-interrupts`; the programming
/// manual warns against relying on it).
const SPEED_SWITCH_PAUSE_M_CYCLES: u32 = 0x20000 / 4;
/// PPU dots a switch into double speed adds relative to the CPU (see `finish_speed_switch`).
const SPEED_SWITCH_PPU_DOTS: u16 = 3;
/// What `halt_wake_interrupts` reports when a speed switch's HALT has run its time: a bit
/// outside the five interrupts, so the CPU wakes without a dispatch.
const SPEED_SWITCH_SETTLED: u8 = 0x80;

/// The `Bus` the CPU runs on: borrows the hardware state, the ROM and the host outputs for
/// the duration of one run call (the frame buffers with the host's render options as the
/// PPU's `ppu::Host`, built once here rather than passed down on every tick).
///
/// # Deferred ticks
/// Most M-cycles change nothing anyone can see: no interrupt request, no frame, no clock
/// edge, no DMA but OAM DMA's plain copying (`dma_quiet_m_cycles`). After each full tick
/// the machine computes how many such quiet M-cycles follow (as HALT skipping does) and
/// only counts them, advancing the timer, PPU and APU in one go (`advance`, equivalent to
/// that many ticks) when the window ends or before any access that could observe or change
/// them: every access but ROM, cartridge RAM, work RAM and HRAM. The deferral lives only in
/// this struct: dropping it brings the state up to date, so `State` never holds a deferred
/// tick.
///
/// # The clock
/// A quiet tick only counts down `ticks_left`, the M-cycles to the next full tick; the
/// current M-cycle is `full_tick_m_cycle - ticks_left`. `hw.m_cycles` is brought up to it
/// (`settle_clock`) by every full tick and before everything else that reads it: the slow
/// access paths, `sync`, the HALT and STOP queries, and dropping the machine.
pub(crate) struct Machine<'a> {
    hw: &'a mut HwState,
    rom: &'a Rom,
    boot_rom: Option<&'a BootRom>,
    /// The PPU's frame buffers and how it runs (drawing, lazy mode 3; see `Core`).
    screen: ppu::Host<'a>,
    audio: &'a mut AudioOut,
    serial: &'a mut Vec<u8>,
    events: Events,
    /// The M-cycle up to which the timer, PPU and APU have ticked (at most `hw.m_cycles`).
    synced_m_cycles: u64,
    /// The first M-cycle whose tick must run in full; the ones before it (from
    /// `synced_m_cycles` on) are quiet.
    full_tick_m_cycle: u64,
    /// `full_tick_m_cycle` minus the current M-cycle: at least 1 between ticks, and the
    /// tick that brings it to 0 runs in full (see "The clock").
    ticks_left: u64,
    /// false: every tick runs in full (the reference the deferral is checked against).
    defer_quiet_ticks: bool,
    /// false: the ROM windows stay off and every ROM read takes the slow path through
    /// `Rom::read` (the reference they are checked against).
    rom_windows_on: bool,
    /// false: the run loop never takes a plain step, `take_checks_due` always answers true
    /// (the reference plain steps are checked against).
    plain_steps: bool,
    /// true during the tick of an M-cycle the CPU spends halted or stopped, when an
    /// HBlank VRAM DMA waits (`Bus::idle_halted`). Only for that tick, so never in `State`.
    cpu_halted: bool,
    /// The cartridge ROM as the CPU reads it at 0x0000..=0x3FFF and 0x4000..=0x7FFF
    /// (`Rom::windows`), valid below `rom_windows_end`. A pure function of the MBC
    /// registers, the DMA and the boot ROM flag, rebuilt whenever one of them changes
    /// (`refresh_rom_windows`).
    /// Indexed by `addr >> 14`: entries 2 and 3 (0x8000 and up) are never read, and are
    /// there so that the index needs no mask.
    rom_windows: [&'a [u8; 0x4000]; 4],
    /// `rom_windows[i]`'s start moved back by `i * 0x4000` (`window_base`), so that a read
    /// adds the whole address to it: one instruction less than masking the offset, on
    /// every ROM read (see `rom_window_byte`; a safe form with no mask would need windows
    /// 64 KiB long, that is a padded copy of the ROM image).
    rom_window_bases: [*const u8; 4],
    /// 0x8000 when `rom_windows` is what the CPU reads (no OAM DMA runs, no boot ROM is
    /// mapped, the banks are whole windows), 0 when ROM reads take the slow path: one
    /// compare tells both the address range and the windows' validity.
    rom_windows_end: u16,
    /// How many bytes from 0xC000 on the CPU reads and writes straight in `hw.wram`:
    /// 0x2000 (banks 0 and 1), 0x1000 (bank 0 only: SVBK selects bank 2..=7), or 0 while
    /// OAM DMA runs (it may block the work RAM's bus). One compare then tells both the
    /// address range and the bank, rebuilt with `rom_windows` (`refresh_rom_windows`) and
    /// after an SVBK write.
    wram_fast_len: u16,
    /// Whether the run loop must make its per-instruction checks (stop, events, CPU mode,
    /// interrupt sample) before the next instruction: set by every full tick, every slow
    /// access, a breakpoint and `Bus::cpu_changed`; nothing else changes what they look at.
    /// Between them the CPU takes `cpu::step_plain`. Set only through `require_checks`.
    checks_due: bool,
    /// `rom_windows_end` while no checks are due, 0 while they are (`require_checks`,
    /// `take_checks_due`): one compare of PC against it tells the run loop both that it may
    /// take a plain step and that the opcode comes from the ROM windows
    /// (`take_checks_due_at`).
    plain_fetch_end: u16,
    /// The M-cycle at which the run loop stops (`set_stop_m_cycle`): the quiet window ends
    /// there, so that its tick runs in full and sets `checks_due`.
    stop_m_cycle: u64,
    /// `full_tick_m_cycle` as an I/O write found it, before its sync ended the window
    /// (`recheck_quiet_after_write`).
    window_end_before_write: u64,
    /// The last CPU read of LY or STAT, reported with `Events::POLL_READ` (`poll_loop`).
    poll_read: PollRead,
    /// The CPU just jumped back to a load from memory that may start a polling loop
    /// (`Bus::short_loop_jump`), for the run loop's checks (`poll_loop`).
    loop_jump: bool,
    /// The last jump target found not to start a skippable polling loop, so that its
    /// iterations do not each take the run loop's checks (`poll_loop`).
    not_a_poll_loop: u16,
}

impl Drop for Machine<'_> {
    fn drop(&mut self) {
        self.sync();
    }
}

/// Fills `state` as the machine is at power-on (with a boot ROM) or as the boot ROM leaves
/// it at 0x0100 (Pan Docs "Power Up Sequence"; Mooneye `boot_regs-dmgABC`,
/// `boot_hwio-dmgABCmgb`, `boot_div-dmgABCmgb`; on a CGB `boot_regs-cgb`, `boot_hwio-C`,
/// `boot_div-cgbABCDE`).
pub(crate) fn power_on(state: &mut State, rom: &Rom, model: Model, with_boot_rom: bool) {
    let hw = &mut state.hw;
    hw.model_raw = model as u8;
    hw.mbc = rom.power_on_mbc();
    hw.boot_rom_mapped = u8::from(with_boot_rom);
    hw.dma = DmaState::post_boot();
    hw.joypad = JoypadState::post_boot();
    let cgb_cartridge = matches!(rom.bytes().get(0x143), Some(0x80 | 0xC0));
    hw.cgb = match model {
        Model::Dmg => CgbState::zeroed_dmg(),
        // The boot ROM starts in CGB mode and switches to compatibility mode (KEY0) itself.
        Model::Cgb if cgb_cartridge || with_boot_rom => CgbState::power_on(cgb::MODE_CGB),
        Model::Cgb => CgbState::power_on(cgb::MODE_COMPATIBILITY),
    };
    hw.ppu.set_colour_mode(hw.cgb.mode());
    hw.apu.cgb = u8::from(model == Model::Cgb);
    if with_boot_rom {
        state.cpu.pc = 0;
        hw.dma.source_high = 0;
        return;
    }
    let cpu = &mut state.cpu;
    cpu.pc = 0x0100;
    cpu.sp = 0xFFFE;
    match model {
        Model::Dmg => {
            cpu.a = 0x01;
            // The boot ROM's header-checksum loop leaves H and C set unless the checksum
            // byte is 0.
            cpu.f = if rom.bytes().get(0x14D).copied().unwrap_or(0) == 0 {
                0x80
            } else {
                0xB0
            };
            (cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l) = (0x00, 0x13, 0x00, 0xD8, 0x01, 0x4D);
        }
        Model::Cgb => {
            cpu.a = 0x11;
            cpu.f = 0x80;
            // CGB mode: DE=FF56, HL=000D; compatibility mode: DE=0008, HL=007C (Mooneye
            // `boot_regs-cgb`). UNVERIFIED: B holds the title checksum for licensed
            // compatibility-mode games on hardware; 0 here.
            (cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l) = if cgb_cartridge {
                (0x00, 0x00, 0xFF, 0x56, 0x00, 0x0D)
            } else {
                (0x00, 0x00, 0x00, 0x08, 0x00, 0x7C)
            };
            // Both button groups deselected: P1 reads FF (Mooneye `boot_hwio-C`).
            hw.joypad.select = 0x30;
        }
    }
    hw.timer = TimerState::post_boot();
    if model == Model::Cgb {
        hw.timer.system_counter = crate::timer::cgb_post_boot_system_counter(cgb_cartridge);
    }
    hw.serial = SerialState::post_boot();
    hw.ppu = match model {
        Model::Dmg => PpuState::post_boot(),
        Model::Cgb => PpuState::post_boot_cgb(),
    };
    hw.ppu.set_colour_mode(hw.cgb.mode());
    // The boot ROM leaves the header's logo in VRAM (ashiepaws `bully` checks it).
    let logo = rom.bytes().get(0x104..0x134).unwrap_or(&[]);
    crate::ppu::write_boot_logo(&mut hw.vram, logo);
    hw.apu = ApuState::post_boot();
    hw.apu.cgb = u8::from(model == Model::Cgb);
    hw.interrupt_flag = io::INT_VBLANK;
    if model == Model::Cgb {
        let compatibility = crate::compatibility_palettes::for_cartridge(rom.bytes());
        cgb::write_boot_palettes(&mut hw.cgb, &compatibility);
    }
}

impl<'a> Machine<'a> {
    pub(crate) fn new(
        hw: &'a mut HwState,
        rom: &'a Rom,
        boot_rom: Option<&'a BootRom>,
        out: &'a mut Output,
        fast: FastPaths,
    ) -> Machine<'a> {
        let now = hw.m_cycles;
        let Output {
            frame,
            frame_rgb,
            serial,
            audio,
        } = out;
        audio.set_synthesis(fast.audio_synthesis);
        let mut machine = Machine {
            hw,
            rom,
            boot_rom,
            screen: ppu::Host::new(frame, frame_rgb, fast),
            audio,
            serial,
            events: Events::empty(),
            synced_m_cycles: now,
            full_tick_m_cycle: now.wrapping_add(1),
            ticks_left: 1,
            defer_quiet_ticks: fast.defer_quiet_ticks,
            rom_windows_on: fast.rom_windows,
            plain_steps: fast.plain_steps,
            cpu_halted: false,
            rom_windows: [&UNMAPPED_WINDOW; 4],
            rom_window_bases: [UNMAPPED_WINDOW.as_ptr(); 4],
            rom_windows_end: 0,
            wram_fast_len: 0,
            checks_due: true,
            plain_fetch_end: 0,
            stop_m_cycle: u64::MAX,
            window_end_before_write: 0,
            poll_read: PollRead {
                m_cycle: 0,
                reg: 0,
                value: 0,
            },
            loop_jump: false,
            not_a_poll_loop: 0xFFFF,
        };
        machine.refresh_rom_windows();
        machine
    }

    /// Rebuilds `rom_windows` (and `wram_fast_len`) after a change of the MBC registers, the
    /// OAM DMA's activity or the boot ROM mapping.
    #[inline]
    fn refresh_rom_windows(&mut self) {
        self.refresh_wram_fast_len();
        let hw = &*self.hw;
        let rom: &'a Rom = self.rom;
        let windows = if hw.dma.active != 0 || hw.boot_rom_mapped != 0 || !self.rom_windows_on {
            None
        } else {
            rom.windows(&hw.mbc)
        };
        (self.rom_windows, self.rom_windows_end) = match windows {
            Some([low, high]) => ([low, high, &UNMAPPED_WINDOW, &UNMAPPED_WINDOW], 0x8000),
            None => ([&UNMAPPED_WINDOW; 4], 0),
        };
        let windows = self.rom_windows;
        self.rom_window_bases = std::array::from_fn(|i| window_base(windows[i], i));
        self.plain_fetch_end = self.derived_plain_fetch_end();
    }

    /// What `plain_fetch_end` always equals, derived from the fields it stands for.
    fn derived_plain_fetch_end(&self) -> u16 {
        if self.checks_due {
            0
        } else {
            self.rom_windows_end
        }
    }

    /// Rebuilds `wram_fast_len` after a change of the OAM DMA's activity or of SVBK.
    #[inline]
    fn refresh_wram_fast_len(&mut self) {
        let hw = &*self.hw;
        self.wram_fast_len = if hw.dma.active != 0 {
            0
        } else if hw.cgb.svbk & 6 != 0 {
            0x1000
        } else {
            0x2000
        };
    }

    /// `Bus::read_plain_fetch` in an M-cycle whose tick runs in full (which makes the
    /// checks due), its counter already at 0: out of the run loop's way.
    #[cold]
    #[inline(never)]
    fn read_plain_fetch_in_full_tick(&mut self, addr: u16) -> (u8, bool) {
        self.tick_full();
        (self.cpu_read(addr), true)
    }

    /// The byte the ROM windows hold at `addr` (below `rom_windows_end`).
    #[inline(always)]
    fn rom_window_byte(&self, addr: u16) -> u8 {
        debug_assert!(addr < self.rom_windows_end);
        let window = usize::from(addr >> 14);
        // SAFETY: `rom_window_bases[window]` is `rom_windows[window]`'s start moved back by
        // `window * 0x4000` (`refresh_rom_windows`, which sets both), and `addr` lies in
        // `window * 0x4000..(window + 1) * 0x4000`, so the sum points at byte
        // `addr & 0x3FFF` of that window: inside a 16 KiB array borrowed for `'a` (the
        // ROM, or `UNMAPPED_WINDOW`), from whose start the base was derived.
        unsafe { *self.rom_window_bases[window].wrapping_add(usize::from(addr)) }
    }

    /// Ends every quiet window at M-cycle `m_cycle` at the latest (`tick_full`), so that
    /// the run loop stopping there sees its checks due (see `checks_due`).
    pub(crate) fn set_stop_m_cycle(&mut self, m_cycle: u64) {
        self.stop_m_cycle = m_cycle;
        self.require_checks();
        // The window open now (one M-cycle after `new`) ends there too.
        if self.full_tick_m_cycle > m_cycle && m_cycle > self.m_cycles() {
            self.settle_clock();
            self.set_full_tick_m_cycle(m_cycle);
        }
    }

    /// Whether the per-instruction checks are due (see `checks_due`); they are then taken as
    /// made.
    #[inline(always)]
    pub(crate) fn take_checks_due(&mut self) -> bool {
        // Tested before it is cleared: the plain path, which finds it clear, stores nothing.
        if self.checks_due {
            if self.plain_steps {
                self.checks_due = false;
                self.plain_fetch_end = self.rom_windows_end;
            }
            return true;
        }
        false
    }

    /// `take_checks_due` before the step at `pc`, which first tells in one compare the usual
    /// case, a plain step whose opcode comes from the ROM windows: no checks due and `pc`
    /// below `rom_windows_end`. `read_plain_fetch`'s own ROM test repeats the same compare,
    /// which the compiler folds into this one.
    #[inline(always)]
    pub(crate) fn take_checks_due_at(&mut self, pc: u16) -> bool {
        debug_assert_eq!(self.plain_fetch_end, self.derived_plain_fetch_end());
        if pc < self.plain_fetch_end {
            return false;
        }
        rarely();
        self.take_checks_due()
    }

    /// Makes the per-instruction checks due before the next instruction.
    #[inline(always)]
    pub(crate) fn require_checks(&mut self) {
        self.checks_due = true;
        self.plain_fetch_end = 0;
    }

    pub(crate) fn events(&self) -> Events {
        self.events
    }

    pub(crate) fn take_events(&mut self) -> Events {
        std::mem::take(&mut self.events)
    }

    /// The CPU's read of LY or STAT since the last call, if any (`poll_loop`).
    #[inline(always)]
    pub(crate) fn take_poll_read(&mut self) -> Option<PollRead> {
        if !self.events.intersects(Events::POLL_READ) {
            return None;
        }
        self.events.0 &= !Events::POLL_READ.0;
        Some(self.poll_read)
    }

    /// The byte at `addr` as the CPU would fetch it, where fetching has no effect and sees
    /// no lock: ROM, work RAM and HRAM (no cycle passes). None elsewhere.
    #[inline(always)]
    pub(crate) fn code_byte(&mut self, addr: u16) -> Option<u8> {
        // The ROM windows (`cpu_read`'s fast path) hold what the map reads there.
        if addr < self.rom_windows_end {
            return Some(self.rom_window_byte(addr));
        }
        match addr {
            0x0000..=0x7FFF | 0xC000..=0xFDFF | 0xFF80..=0xFFFE => Some(self.read_mapped(addr)),
            _ => None,
        }
    }

    /// Moves the clock on by as many whole iterations of `iteration` M-cycles of a loop
    /// polling work RAM or HRAM as fit within the quiet window (no full tick) and not
    /// past `limit`: exactly what running them leaves, as only the CPU writes that memory
    /// and the loop does not (`poll_loop`). Returns the M-cycle reached.
    pub(crate) fn skip_poll_iterations(&mut self, iteration: u64, limit: u64) -> u64 {
        let (now, room) = self.poll_room(limit);
        let skipped = room / iteration * iteration;
        self.ticks_left -= skipped;
        now + skipped
    }

    /// The current M-cycle and the M-cycles a polling loop's skip may pass from it: the
    /// rest of the quiet window but its last tick (which runs in full), not past `limit`.
    pub(crate) fn poll_room(&mut self, limit: u64) -> (u64, u64) {
        self.settle_clock();
        let now = self.hw.m_cycles;
        if self.hw.dma.is_busy() {
            // A loop's reads and fetches may be the ones OAM DMA blocks, which see the
            // byte it copies, a different one every M-cycle.
            return (now, 0);
        }
        (now, (self.ticks_left - 1).min(limit.saturating_sub(now)))
    }

    /// What reads of `reg` (LY or STAT) return over the M-cycles after the current one
    /// while no register is written, as within the quiet window (`PpuState::read_forecast`):
    /// for skipping a loop that polls it. The clock is settled (`poll_room`).
    pub(crate) fn poll_forecast(&mut self, reg: u8) -> ReadForecast {
        // The deferred M-cycles then run no step, so the PPU stands that many dots behind.
        self.sync_ppu_view();
        let behind = (self.hw.m_cycles - self.synced_m_cycles) as u32;
        let forecast = self.hw.ppu.read_forecast(reg, behind);
        debug_assert_eq!(
            forecast.at(0).map(|(value, _)| value),
            Some(self.read_io(reg)),
            "the forecast starts from the register's value"
        );
        forecast
    }

    /// Moves the clock on to `m_cycle`, which a polling loop's skip reached within the
    /// room `poll_room` gave (`poll_loop`).
    pub(crate) fn skip_poll_to(&mut self, m_cycle: u64) {
        let skipped = m_cycle - self.hw.m_cycles;
        debug_assert!(
            skipped < self.ticks_left,
            "a skip stays inside the quiet window"
        );
        self.ticks_left -= skipped;
    }

    /// `Bus::short_loop_jump` past its one-compare filter: asks for the run loop's checks
    /// when `target` holds a load that can start a memory polling loop (`ld a,[nn]`, or
    /// `ldh a,[n]` from HRAM); otherwise remembers it as no loop. Out of line so that
    /// the jump's own code stays small.
    #[cold]
    #[inline(never)]
    fn look_at_loop_jump(&mut self, target: u16) {
        let load = match self.code_byte(target) {
            Some(0xFA) => true,
            Some(0xF0) => self.code_byte(target.wrapping_add(1)) >= Some(0x80),
            _ => false,
        };
        if load {
            self.loop_jump = true;
            self.require_checks();
        } else {
            self.not_a_poll_loop = target;
        }
    }

    /// Marks `target` as a jump target that starts no skippable polling loop.
    pub(crate) fn not_a_poll_loop(&mut self, target: u16) {
        self.not_a_poll_loop = target;
    }

    /// Whether the CPU just jumped back to a possible memory polling loop
    /// (`Bus::short_loop_jump`), clearing it.
    #[inline(always)]
    pub(crate) fn take_loop_jump(&mut self) -> bool {
        std::mem::take(&mut self.loop_jump)
    }

    pub(crate) fn set_buttons(&mut self, buttons: u8) {
        self.hw
            .joypad
            .set_pressed(buttons, &mut self.hw.interrupt_flag);
    }

    /// The current M-cycle (`hw.m_cycles` may lag behind it inside a quiet window).
    #[inline(always)]
    pub(crate) fn m_cycles(&self) -> u64 {
        self.full_tick_m_cycle.wrapping_sub(self.ticks_left)
    }

    /// Brings `hw.m_cycles` up to the current M-cycle (see "The clock").
    #[inline(always)]
    fn settle_clock(&mut self) {
        self.hw.m_cycles = self.m_cycles();
    }

    /// The next tick to run in full is the one of M-cycle `m_cycle`, after the settled
    /// `hw.m_cycles`.
    #[inline(always)]
    fn set_full_tick_m_cycle(&mut self, m_cycle: u64) {
        self.full_tick_m_cycle = m_cycle;
        self.ticks_left = m_cycle.wrapping_sub(self.hw.m_cycles);
    }

    /// Reads through the memory map with no side effects and no cycle.
    pub(crate) fn peek(&mut self, addr: u16) -> u8 {
        self.catch_up_for_peek();
        self.read_mapped(addr)
    }

    /// `peek` of `start`, `start + 1`, ... (wrapping) into `out`. The catch-up runs once:
    /// a read changes nothing it looks at.
    pub(crate) fn peek_into(&mut self, start: u16, out: &mut [u8]) {
        self.catch_up_for_peek();
        let mut done = 0;
        while done < out.len() {
            // Truncating the offset is the documented wrap.
            let addr = start.wrapping_add(done as u16);
            if (0xC000..0xFE00).contains(&addr) {
                // Work RAM (and its echo) a 4 KiB bank at a time: a RAM observation reads
                // all of it every step.
                let block = wram_block(self.hw, addr);
                let count = block.len().min(out.len() - done);
                out[done..done + count].copy_from_slice(&block[..count]);
                done += count;
            } else {
                out[done] = self.read_mapped(addr);
                done += 1;
            }
        }
    }

    /// Brings what a read without a cycle sees up to date: the clock, OAM under a DMA and
    /// the PPU's view.
    fn catch_up_for_peek(&mut self) {
        self.settle_clock();
        if self.hw.dma.active != 0 {
            // OAM as the deferred M-cycles of a DMA leave it.
            self.sync();
        }
        self.sync_ppu_view();
    }

    /// Brings the components up to date before a read of what PPU steps change (its
    /// registers, the VRAM and OAM locks, a CGB's mode-3 palette lock) if the deferred
    /// ticks may have run a step: a quiet window may cross steps that request nothing
    /// (`PpuState::steps_due_within`).
    #[inline(always)]
    fn sync_ppu_view(&mut self) {
        let deferred = self.hw.m_cycles - self.synced_m_cycles;
        if deferred != 0 && self.hw.ppu.steps_due_within(deferred) {
            self.sync();
        }
    }

    /// One M-cycle of everything but the CPU. The order is hardware behaviour: the timer's
    /// counter also clocks serial and the APU frame sequencer. The PPU raises its requests at
    /// their dot, seen by the fetch's sample in the same M-cycle; a halted DMG also sees
    /// those due in the next dot (`Bus::halt_wake_interrupts`). With that every DMG Mooneye
    /// acceptance test passes, including `intr_2_0_timing`, `vblank_stat_intr-GS` and
    /// `hblank_ly_scx_timing-GS`, and Mealybug's mid-line writes land on their pixel.
    #[inline(always)]
    fn tick(&mut self) {
        self.ticks_left -= 1;
        if self.ticks_left == 0 {
            self.tick_full();
        }
    }

    /// The quiet M-cycles before this one, then this one in full; then the length of the
    /// quiet window that follows.
    #[inline(never)]
    fn tick_full(&mut self) {
        self.hw.m_cycles = self.full_tick_m_cycle;
        // Ticks nested in this one (an HBlank VRAM DMA's stall) start with a full tick.
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
        self.catch_up_to(self.hw.m_cycles - 1);
        self.tick_now();
        self.synced_m_cycles = self.hw.m_cycles;
        if self.hw.cgb.hdma_remaining & 0x80 == 0 && !self.cpu_halted {
            self.hblank_dma();
            // Its stall ticked on.
            self.settle_clock();
        }
        let quiet = if self.defer_quiet_ticks {
            self.quiet_m_cycles(u32::MAX)
        } else {
            0
        };
        // From the M-cycle the components stand at: an HBlank VRAM DMA block's stall ticks
        // on inside this call and may leave them behind the clock, in its own quiet window.
        // The next full tick is never before the next M-cycle, nor after the run loop's stop.
        let next = self.synced_m_cycles + u64::from(quiet) + 1;
        self.set_full_tick_m_cycle(next.min(self.stop_m_cycle).max(self.hw.m_cycles + 1));
        // A full tick may change everything the run loop's checks look at.
        self.require_checks();
    }

    /// Brings the timer, PPU and APU up to the current M-cycle (its tick included).
    #[inline(always)]
    fn sync(&mut self) {
        self.settle_clock();
        if self.synced_m_cycles != self.hw.m_cycles {
            self.catch_up_to(self.hw.m_cycles);
        }
    }

    /// `sync`, and the next tick runs in full: for accesses that may change what is quiet.
    #[inline(always)]
    fn sync_and_recheck(&mut self) {
        self.sync();
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
    }

    /// Runs the deferred quiet ticks up to and including M-cycle `target`.
    #[inline(never)]
    fn catch_up_to(&mut self, target: u64) {
        let Some(n) = target.checked_sub(self.synced_m_cycles).filter(|&n| n != 0) else {
            return;
        };
        // The window never exceeds one `quiet_m_cycles`, a u32.
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        self.advance_components(n);
        self.synced_m_cycles = target;
    }

    /// The timer, PPU and APU `n` M-cycles on (ending at `hw.m_cycles`' current value
    /// minus nothing: the caller has set the clock), all quiet.
    #[inline(always)]
    fn advance_components(&mut self, n: u32) {
        if self.hw.dma.active != 0 {
            self.advance_dma(n);
        }
        let hw = &mut *self.hw;
        let counter = hw.timer.system_counter;
        hw.timer.advance(n);
        if hw.cgb.double_speed() {
            self.advance_double_speed(n);
            return;
        }
        // The common case first: the memory view is built only when the PPU reads it.
        if !hw.ppu.advance_quiet::<4>(n) {
            hw.ppu.advance_of::<4>(
                n,
                video_memory!(hw),
                &mut hw.interrupt_flag,
                &mut self.screen,
            );
        }
        if !div_apu_event_within(counter, n) {
            // The common case: no frame-sequencer event inside.
            hw.apu.advance(n, self.audio);
        } else {
            self.advance_apu_through_events(counter, n);
        }
    }

    /// The APU `n` M-cycles on from system counter `counter` at single speed, with the
    /// frame sequencer's DIV-APU events where counter bit 12 falls: a quiet window passes
    /// them (they request nothing and change only what APU reads, which catch up first).
    /// As `tick_now`, each event comes after the APU ticks before its M-cycle.
    #[cold]
    #[inline(never)]
    fn advance_apu_through_events(&mut self, counter: u16, n: u32) {
        let start = u32::from(counter);
        let mut fall = (start | (DIV_APU_PERIOD - 1)) + 1;
        let mut ticked = 0;
        loop {
            // The tick that brings the counter to `fall` or past it.
            let tick = (fall - start).div_ceil(4);
            if tick > n {
                break;
            }
            self.hw.apu.advance(tick - 1 - ticked, self.audio);
            self.hw.apu.div_apu_event(self.audio.synthesizes());
            ticked = tick - 1;
            fall += DIV_APU_PERIOD;
        }
        self.hw.apu.advance(n - ticked, self.audio);
    }

    /// `advance_components` at double speed: the PPU moves 2 dots per CPU M-cycle, the
    /// APU one of its M-cycles per two of the CPU's (on even M-cycles).
    /// APPROX: the APU in steps of 4 T-cycles every other CPU M-cycle.
    #[cold]
    fn advance_double_speed(&mut self, n: u32) {
        let hw = &mut *self.hw;
        hw.ppu.advance_of::<2>(
            n,
            video_memory!(hw),
            &mut hw.interrupt_flag,
            &mut self.screen,
        );
        let end = self.synced_m_cycles + u64::from(n);
        let even = (end / 2 - self.synced_m_cycles / 2) as u32;
        hw.apu.advance(even, self.audio);
    }

    /// The system-counter bit that clocks the APU frame sequencer at the current speed.
    #[inline(always)]
    fn div_apu_bit(&self) -> u16 {
        if self.hw.cgb.double_speed() {
            DIV_APU_BIT_DOUBLE_SPEED
        } else {
            DIV_APU_BIT
        }
    }

    /// M-cycles (at most `budget`) from now on during which ticking can have no observable
    /// effect: no interrupt request, no frame completion, no serial or APU clock edge, no
    /// DMA but OAM DMA's plain copying (`dma_quiet_m_cycles`; on a DMG or in compatibility
    /// mode), as long as no I/O register is written.
    fn quiet_m_cycles(&self, budget: u32) -> u32 {
        let hw = &*self.hw;
        if hw.cgb.mode_raw == cgb::MODE_CGB {
            return self.quiet_m_cycles_cgb(budget);
        }
        let budget = if hw.dma.is_busy() {
            match self.dma_quiet_m_cycles() {
                0 => return 0,
                copying => budget.min(copying),
            }
        } else {
            budget
        };
        // The frame sequencer's events are not watched: `advance_components` runs them.
        let mut watched = 0;
        if hw.serial.is_shifting() {
            watched |= hw.serial.clock_bit();
        }
        let others = hw.timer.quiet_m_cycles(watched).min(budget);
        hw.ppu
            .quiet_m_cycles_of::<4>(self.screen.lazy_mode3(), others)
            .min(others)
    }

    /// `quiet_m_cycles` in CGB mode: nothing is quiet while an HBlank VRAM DMA waits, and
    /// at double speed the PPU and the frame sequencer's DIV bit change pace.
    #[cold]
    fn quiet_m_cycles_cgb(&self, budget: u32) -> u32 {
        let hw = &*self.hw;
        if hw.dma.is_busy() || hw.cgb.hdma_hblank_active() {
            return 0;
        }
        // At single speed `advance_components` runs the frame sequencer's events.
        let mut watched = if hw.cgb.double_speed() {
            DIV_APU_BIT_DOUBLE_SPEED
        } else {
            0
        };
        if hw.serial.is_shifting() {
            watched |= hw.serial.clock_bit();
        }
        let others = hw.timer.quiet_m_cycles(watched).min(budget);
        let ppu_quiet = if hw.cgb.double_speed() {
            hw.ppu
                .quiet_m_cycles_of::<2>(self.screen.lazy_mode3(), others)
        } else {
            hw.ppu
                .quiet_m_cycles_of::<4>(self.screen.lazy_mode3(), others)
        };
        ppu_quiet.min(others)
    }

    /// One M-cycle of every component, in full.
    #[inline(always)]
    fn tick_now(&mut self) {
        let hw = &mut *self.hw;
        let fell = hw.timer.tick(&mut hw.interrupt_flag);
        if fell & (COUNTER_EDGE_BITS | hw.serial.clock_bit()) != 0 {
            self.counter_edges(fell);
        }
        if self.hw.dma.is_busy() {
            self.step_dma();
            // While OAM DMA runs, the PPU cannot read OAM itself (ashiepaws `strikethrough`).
            // Reported on every DMA cycle, including the one in which it finishes.
            let hw = &mut *self.hw;
            hw.ppu.set_oam_dma(hw.dma.active != 0, hw.dma.last_byte);
            self.refresh_rom_windows();
        }
        if self.hw.cgb.double_speed() {
            self.tick_double_speed();
            return;
        }
        self.tick_ppu::<4>();
        self.hw.apu.tick(self.audio);
    }

    fn frame_done(&mut self) {
        self.hw.frames += 1;
        self.events |= Events::FRAME_READY;
        self.hw.apu.flush_at_frame_end(self.audio);
    }

    /// The PPU's part of one CPU M-cycle of `DOTS` dots (4, 2 at double speed, 1 for a
    /// lone dot), run as the host's `render` options ask, counting a completed frame.
    #[inline(always)]
    fn tick_ppu<const DOTS: u16>(&mut self) {
        let hw = &mut *self.hw;
        if hw
            .ppu
            .tick_dots::<DOTS>(video_memory!(hw), &mut hw.interrupt_flag, &mut self.screen)
        {
            self.frame_done();
        }
    }

    /// The PPU and APU part of `tick_now` at double speed (see `advance_double_speed`).
    #[cold]
    fn tick_double_speed(&mut self) {
        self.tick_ppu::<2>();
        if self.hw.m_cycles & 1 == 0 {
            self.hw.apu.tick(self.audio);
        }
    }

    /// Falling edges of the system counter that clock other components.
    #[cold]
    fn counter_edges(&mut self, fell: u16) {
        let hw = &mut *self.hw;
        if fell & hw.serial.clock_bit() != 0 {
            hw.serial.clock(&mut hw.interrupt_flag);
        }
        if fell & self.div_apu_bit() != 0 {
            self.hw.apu.div_apu_event(self.audio.synthesizes());
        }
    }

    fn step_dma(&mut self) {
        if let Some((source, index)) = self.hw.dma.step() {
            let byte = self.dma_source_byte(source);
            self.hw.dma.last_byte = byte;
            self.hw.oam[index % 160] = byte;
        }
    }

    /// The byte OAM DMA reads at `source`.
    #[inline(always)]
    fn dma_source_byte(&mut self, source: u16) -> u8 {
        match source {
            // DMG: sources from 0xE000 up read work RAM (Mooneye `oam_dma/sources-GS`).
            0xE000.. => *wram_slot(self.hw, source),
            0x8000..=0x9FFF => *vram_slot(self.hw, source),
            _ => self.read_mapped(source),
        }
    }

    /// M-cycles from the next one that may be deferred while OAM DMA is busy: those that
    /// only copy (`DmaState::copying_m_cycles`) while the PPU reads neither OAM nor the
    /// DMA's byte (`PpuState::dots_without_oam_reads`). Nothing else can tell when their
    /// bytes were copied: the CPU is locked out of OAM and of the source's bus, which
    /// holds the only memory the DMA reads (so no write changes a byte still to copy), and
    /// the accesses that see what the DMA did catch it up first (`cpu_read_slow`, OAM
    /// accesses, `peek`, `poll_room`). Single speed only.
    fn dma_quiet_m_cycles(&self) -> u32 {
        let hw = &*self.hw;
        if hw.cgb.double_speed() {
            return 0;
        }
        let copying = hw.dma.copying_m_cycles();
        if copying == 0 {
            return 0;
        }
        copying.min(hw.ppu.dots_without_oam_reads() / 4)
    }

    /// The OAM DMA part of `advance_components`: `n` deferred M-cycles of copying
    /// (`dma_quiet_m_cycles`), with the DMA, OAM and the PPU's view of the DMA as `n`
    /// calls of `step_dma` leave them. The ROM windows stay off (the DMA stays active).
    #[inline(never)]
    fn advance_dma(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        let (source, first) = self.hw.dma.skip_copies(n);
        for k in 0..n as u16 {
            let byte = self.dma_source_byte(source + k);
            self.hw.oam[(first + usize::from(k)) % 160] = byte;
        }
        let last = self.hw.oam[(first + n as usize - 1) % 160];
        self.hw.dma.last_byte = last;
        self.hw.ppu.set_oam_dma(true, last);
    }

    /// Whether the running OAM DMA keeps the CPU away from `addr` this M-cycle.
    #[inline(always)]
    fn dma_blocks(&self, addr: u16) -> bool {
        let hw = &*self.hw;
        hw.dma.active != 0 && hw.dma.blocks(addr, hw.cgb.is_cgb())
    }

    /// The CPU's view of `addr` this M-cycle, including DMA and PPU lock-outs.
    #[inline(always)]
    fn cpu_read(&mut self, addr: u16) -> u8 {
        // Fast paths for the common case: cartridge ROM (its windows exist only with no DMA
        // and no boot ROM), work RAM and HRAM with no DMA.
        if addr < self.rom_windows_end {
            debug_assert!(self.hw.dma.active == 0 && self.hw.boot_rom_mapped == 0);
            return self.rom_window_byte(addr);
        }
        // (ROM addresses fall through while the windows are off.)
        if let Some(value) = self.ram_fast_read(addr) {
            return value;
        }
        self.cpu_read_slow(addr)
    }

    /// `cpu_read`'s fast paths past the ROM windows: work RAM with no DMA and HRAM, which
    /// change nothing (no sync, no checks due). None elsewhere.
    #[inline(always)]
    fn ram_fast_read(&self, addr: u16) -> Option<u8> {
        if addr.wrapping_sub(0xC000) < self.wram_fast_len {
            return Some(self.hw.wram[usize::from(addr & 0x1FFF)]);
        }
        // HRAM is never blocked by OAM DMA (the routine that waits for it runs there), and
        // nothing deferred sees it.
        // 0xFF80..=0xFFFE in one compare.
        if addr.wrapping_sub(0xFF80) < 0x7F {
            return Some(self.hw.hram[usize::from(addr & 0x7F)]);
        }
        None
    }

    /// `cpu_read` past its fast paths.
    #[inline(never)]
    fn cpu_read_slow(&mut self, addr: u16) -> u8 {
        self.settle_clock();
        // Deferred ticks change the timer's counters, the PPU's dot position and the APU's
        // clock, and may run PPU steps that request nothing (`sync_ppu_view`). Reads told
        // from the deferred state come first: they change nothing the run loop's checks
        // look at, so these leave them as they are.
        match addr {
            0xFF10..=0xFF3F if !self.hw.cgb.double_speed() => {
                return self.read_apu_register(addr as u8);
            }
            0xFF04..=0xFF07 if self.synced_m_cycles != self.hw.m_cycles => {
                let mut timer = self.hw.timer;
                timer.advance((self.hw.m_cycles - self.synced_m_cycles) as u32);
                return timer.read(addr as u8);
            }
            // I/O is never blocked by DMA and has no OAM bug: straight to the register.
            0xFF00..=0xFF0F => return self.read_io(addr as u8),
            // A CGB's LY reads depend on the dot (`PpuState::ly_as_read`).
            0xFF40..=0xFF45 | 0xFF47..=0xFF4B if addr != 0xFF44 || !self.hw.cgb.is_cgb() => {
                return self.read_ppu_register(addr as u8);
            }
            _ => {}
        }
        // The rest may catch the components up, which may change what the checks see.
        self.require_checks();
        match addr {
            // The OAM bug depends on the row the scan is reading.
            0xFE00..=0xFEFF => self.sync(),
            // The APU at CGB double speed (`read_apu_register`), a CGB's LY, and its PCM12
            // and PCM34 (the channels' outputs at this M-cycle).
            0xFF10..=0xFF3F | 0xFF44 | 0xFF76 | 0xFF77 => {
                self.sync();
                return self.read_io(addr as u8);
            }
            // FF46, and a CGB's registers (palette RAM is closed in mode 3).
            0xFF40..=0xFF7F => {
                self.sync_ppu_view();
                return self.read_io(addr as u8);
            }
            0x8000..=0x9FFF => self.sync_ppu_view(),
            _ => {}
        }
        if addr & 0xFF00 == 0xFE00 && !self.dma_blocks(addr) {
            // The OAM corruption bug (Blargg `oam_bug`).
            let hw = &mut *self.hw;
            hw.ppu.oam_bug_read(&mut hw.oam);
        }
        if self.dma_blocks(addr) {
            if addr >= 0xFE00 {
                return 0xFF;
            }
            // The byte copied last: deferred M-cycles may have copied more.
            self.sync();
            return self.hw.dma.last_byte;
        }
        self.read_mapped(addr)
    }

    fn read_mapped(&mut self, addr: u16) -> u8 {
        let hw = &*self.hw;
        match addr {
            0x0000..=0x08FF if hw.boot_rom_mapped != 0 => self
                .boot_rom
                .and_then(|boot| boot.read(addr))
                .unwrap_or_else(|| self.rom.read(&hw.mbc, addr)),
            0x0000..=0x7FFF => self.rom.read(&hw.mbc, addr),
            0x8000..=0x9FFF => {
                if hw.ppu.cpu_can_access_vram() {
                    *vram_slot(self.hw, addr)
                } else {
                    0xFF
                }
            }
            0xA000..=0xBFFF => self.rom.read_ram(&hw.mbc, &hw.cart_ram, addr, hw.m_cycles),
            0xC000..=0xFDFF => *wram_slot(self.hw, addr),
            0xFE00..=0xFE9F => {
                if hw.ppu.cpu_can_access_oam() {
                    hw.oam[usize::from(addr - 0xFE00)]
                } else {
                    0xFF
                }
            }
            // DMG: the unusable area reads 0 while OAM is reachable (Mooneye `bits/mem_oam`).
            0xFEA0..=0xFEFF => {
                if hw.ppu.cpu_can_access_oam() {
                    0x00
                } else {
                    0xFF
                }
            }
            0xFF00..=0xFF7F => self.read_io(addr as u8),
            0xFF80..=0xFFFE => hw.hram[usize::from(addr & 0x7F)],
            0xFFFF => hw.interrupt_enable,
        }
    }

    /// The CPU's read of a PPU register (FF40..=FF4B but FF46). The components catch up
    /// only when the value depends on steps the deferred M-cycles may have run and cannot
    /// be told from the PPU's position (`PpuState::read_register_after`): a catch-up cuts
    /// the quiet window into one more piece to run.
    #[inline(always)]
    fn read_ppu_register(&mut self, reg: u8) -> u8 {
        let deferred = self.hw.m_cycles - self.synced_m_cycles;
        let value = match self.hw.ppu.read_register_after(reg, deferred) {
            Some(value) => {
                // Checked against the caught-up PPU in debug builds (where the quiet window
                // is then cut here, which changes nothing the deferral promises).
                #[cfg(debug_assertions)]
                {
                    self.sync();
                    debug_assert_eq!(value, self.hw.ppu.read_register(reg), "FF{reg:02X}");
                }
                value
            }
            None => {
                self.require_checks();
                self.sync();
                self.hw.ppu.read_register(reg)
            }
        };
        if matches!(reg, io::LY | io::STAT) {
            self.require_checks();
            self.poll_read = PollRead {
                m_cycle: self.hw.m_cycles,
                reg,
                value,
            };
            self.events |= Events::POLL_READ;
        }
        value
    }

    /// The CPU's read of an APU register (FF10..=FF3F) at single speed: the APU as the
    /// deferred M-cycles leave it, told without ticking them (`ApuState::
    /// read_register_after`). At double speed, where the APU ticks on every other M-cycle
    /// only, the read catches up (`cpu_read_slow`).
    fn read_apu_register(&mut self, reg: u8) -> u8 {
        let deferred = self.hw.m_cycles - self.synced_m_cycles;
        let within = u32::try_from(deferred).unwrap_or(u32::MAX);
        if div_apu_event_within(self.hw.timer.system_counter, within) {
            // A frame-sequencer event in the deferred M-cycles (a quiet window passes them,
            // `advance_components`) may clock lengths, sweep and envelopes: catch up.
            self.require_checks();
            self.sync();
            return self.hw.apu.read_register(reg);
        }
        let value = self.hw.apu.read_register_after(reg, deferred);
        // Checked against the caught-up APU in debug builds, as PPU register reads are.
        #[cfg(debug_assertions)]
        {
            self.sync();
            debug_assert_eq!(value, self.hw.apu.read_register(reg), "FF{reg:02X}");
        }
        value
    }

    #[inline]
    fn read_io(&self, reg: u8) -> u8 {
        let hw = &*self.hw;
        match reg {
            io::P1 => hw.joypad.read(),
            io::SB | io::SC => hw.serial.read(reg, hw.cgb.cgb_mode()),
            io::DIV..=io::TAC => hw.timer.read(reg),
            io::IF => hw.interrupt_flag | 0xE0,
            io::NR10..=0x3F => hw.apu.read_register(reg),
            io::DMA => hw.dma.source_high,
            io::LCDC..=io::WX => hw.ppu.read_register(reg),
            io::PCM12 | io::PCM34 if hw.cgb.is_cgb() => hw.apu.read_pcm(reg),
            _ => hw.cgb.read(reg, hw.ppu.in_mode3()).unwrap_or(0xFF),
        }
    }

    /// The CPU's write of `value` to `addr` this M-cycle, including DMA and PPU lock-outs.
    #[inline(always)]
    fn cpu_write(&mut self, addr: u16, value: u8) {
        // Fast path, as in `cpu_read`: work RAM banks 0 and 1 with no DMA, and HRAM, which
        // nothing deferred can observe (no sync) and no lock-out or OAM bug touches. No
        // check looks at them either. The same two tests as `ram_fast_read`, written out:
        // one helper for both (returning `Option<&mut u8>`) cost cpu_instrs 6 % and
        // gejmboj 0.7 % more instructions (cachegrind, `bench --draw-every 24`).
        if addr.wrapping_sub(0xC000) < self.wram_fast_len {
            self.hw.wram[usize::from(addr & 0x1FFF)] = value;
            return;
        }
        if addr.wrapping_sub(0xFF80) < 0x7F {
            self.hw.hram[usize::from(addr & 0x7F)] = value;
            return;
        }
        // A slow write may change IE or IF, the DMA, or catch the components up.
        self.require_checks();
        self.cpu_write_slow(addr, value);
    }

    #[inline(never)]
    fn cpu_write_slow(&mut self, addr: u16, value: u8) {
        self.settle_clock();
        let io = matches!(addr, 0xFF00..=0xFF7F);
        match addr {
            0x0000..=0x7FFF | 0xA000..=0xFDFF | 0xFF80..=0xFFFE => {}
            0xFF00..=0xFF7F => {
                // Kept in memory: a local would cost every slow write a saved register.
                self.window_end_before_write = self.full_tick_m_cycle;
                self.sync_and_recheck();
            }
            _ => self.sync(),
        }
        if self.dma_blocks(addr) {
            return;
        }
        if addr & 0xFF00 == 0xFE00 {
            let hw = &mut *self.hw;
            hw.ppu.oam_bug_write(&mut hw.oam);
        }
        self.write_mapped(addr, value, true);
        if io {
            self.recheck_quiet_after_write();
        }
    }

    /// After an I/O write: the quiet window from the written state, as `tick_full` computes
    /// it after its tick (the window is a pure function of the synced components), rather
    /// than one full tick to compute it. Only when the write ran no tick of its own (an
    /// HBlank or general VRAM DMA's stall starts its own windows).
    ///
    /// A rendering register written in mode 3 that keeps the quiet window
    /// (`PpuState::deferred_write_keeps_window`: the PPU walk answers the same with it as
    /// without it) leaves the window before the write (`window_end_before_write`) as it
    /// was: no walk (a raster effect's handler writes LYC or returns soon after, which ends
    /// it).
    #[inline(always)]
    fn recheck_quiet_after_write(&mut self) {
        let now = self.hw.m_cycles;
        let window_end = self.window_end_before_write;
        let untouched = self.synced_m_cycles == now && self.full_tick_m_cycle == now + 1;
        if !untouched || !self.defer_quiet_ticks {
            return;
        }
        if self.hw.ppu.deferred_valid != 0
            && window_end > now + 1
            && self.hw.ppu.deferred_write_keeps_window()
            && !self.hw.cgb.double_speed()
        {
            self.set_full_tick_m_cycle(window_end.min(self.stop_m_cycle).max(now + 1));
            return;
        }
        let quiet = self.quiet_m_cycles(u32::MAX);
        self.set_full_tick_m_cycle(
            (now + u64::from(quiet) + 1)
                .min(self.stop_m_cycle)
                .max(now + 1),
        );
    }

    /// A write from outside the program (`Core::poke`): what the CPU's write of `value` to
    /// `addr` does (MBC registers switch banks, I/O registers act), at the current M-cycle
    /// with no cycle passing, and past the lock-outs a CPU write meets (OAM DMA, VRAM and
    /// OAM during the PPU's modes 2-3, the OAM bug): a script's write always lands, whatever
    /// dot the PPU is at.
    pub(crate) fn poke(&mut self, addr: u16, value: u8) {
        self.settle_clock();
        match addr {
            0x0000..=0x7FFF | 0xA000..=0xFDFF | 0xFF80..=0xFFFE => {}
            0xFF00..=0xFF7F => self.sync_and_recheck(),
            _ => self.sync(),
        }
        self.write_mapped(addr, value, false);
    }

    /// Where a write of `value` to `addr` goes, with the PPU's VRAM and OAM lock-outs when
    /// `ppu_locks` (the CPU's writes).
    #[inline(always)]
    fn write_mapped(&mut self, addr: u16, value: u8, ppu_locks: bool) {
        let hw = &mut *self.hw;
        match addr {
            0x0000..=0x7FFF => {
                self.rom.write(&mut hw.mbc, addr, value, hw.m_cycles);
                self.refresh_rom_windows();
            }
            0x8000..=0x9FFF => {
                if !ppu_locks || hw.ppu.cpu_can_write_vram() {
                    *vram_slot(hw, addr) = value;
                }
            }
            0xA000..=0xBFFF => {
                if self
                    .rom
                    .write_ram(&mut hw.mbc, &mut hw.cart_ram, addr, value, hw.m_cycles)
                {
                    self.events |= Events::BATTERY_DIRTY;
                }
            }
            0xC000..=0xFDFF => *wram_slot(hw, addr) = value,
            0xFE00..=0xFE9F => {
                if !ppu_locks || hw.ppu.cpu_can_write_oam() {
                    hw.oam[usize::from(addr - 0xFE00)] = value;
                }
            }
            0xFEA0..=0xFEFF => {}
            0xFF00..=0xFF7F => self.write_io(addr as u8, value),
            0xFF80..=0xFFFE => hw.hram[usize::from(addr & 0x7F)] = value,
            0xFFFF => hw.interrupt_enable = value,
        }
    }

    fn write_io(&mut self, reg: u8, value: u8) {
        let hw = &mut *self.hw;
        match reg {
            io::P1 => hw.joypad.write(value, &mut hw.interrupt_flag),
            io::SB | io::SC => {
                if let SerialWrite::Started(byte) = hw.serial.write(reg, value, hw.cgb.cgb_mode()) {
                    self.serial.push(byte);
                    self.events |= Events::SERIAL_BYTE;
                }
            }
            io::DIV..=io::TAC => {
                let fell = hw.timer.write(reg, value);
                if fell & (COUNTER_EDGE_BITS | hw.serial.clock_bit()) != 0 {
                    self.counter_edges(fell);
                }
            }
            io::IF => hw.interrupt_flag = value & 0x1F,
            io::NR10..=0x3F => hw.apu.write_register(reg, value, self.audio.synthesizes()),
            io::DMA => hw.dma.request(value),
            io::LCDC..=io::WX => {
                let lcd_was_on = hw.ppu.lcdc & 0x80 != 0;
                hw.ppu.write_register(reg, value, &mut hw.interrupt_flag);
                // Switched on at double speed, the LCD starts a dot later within the
                // M-cycle than at normal speed (AGE's LCD alignment; AGE `stat-mode-ds`).
                if reg == io::LCDC && !lcd_was_on && value & 0x80 != 0 && hw.cgb.double_speed() {
                    self.delay_ppu_one_dot();
                }
            }
            io::BOOT if value != 0 => {
                hw.boot_rom_mapped = 0;
                self.refresh_rom_windows();
            }
            io::HDMA5 if hw.cgb.cgb_mode() => self.write_hdma5(value),
            _ => {
                let (mapped, in_mode3) = (hw.boot_rom_mapped != 0, hw.ppu.in_mode3());
                if hw.cgb.write(reg, value, mapped, in_mode3) && reg == io::KEY0 {
                    hw.ppu.set_colour_mode(hw.cgb.mode());
                }
                if reg == io::SVBK {
                    self.refresh_wram_fast_len();
                }
            }
        }
    }

    /// FF55 HDMA5: bit 7 clear starts a general-purpose VRAM DMA (or, during an HBlank
    /// transfer, stops that one); bit 7 set starts an HBlank transfer. Pan Docs "LCD VRAM
    /// DMA Transfers".
    fn write_hdma5(&mut self, value: u8) {
        let cgb = &mut self.hw.cgb;
        if value & 0x80 == 0 && cgb.hdma_hblank_active() {
            // Stopped: HDMA5 reads the blocks left, with bit 7 set.
            cgb.hdma_remaining |= 0x80;
            return;
        }
        cgb.hdma_remaining = value & 0x7F;
        if value & 0x80 != 0 {
            // The first block goes at the next HBlank (or this one, if one is under way).
            cgb.hdma_done_this_hblank = 0;
            return;
        }
        // General-purpose: every block now, the CPU paused meanwhile.
        loop {
            let last = self.copy_hdma_block();
            self.stall_for_hdma_block();
            if last {
                break;
            }
        }
    }

    /// Copies the next 16-byte VRAM DMA block; true if it was the last.
    fn copy_hdma_block(&mut self) -> bool {
        self.settle_clock();
        let (source, dest, last) = self.hw.cgb.hdma_next_block();
        for offset in 0..16 {
            let byte = self.read_mapped(source.wrapping_add(offset));
            *vram_slot(self.hw, 0x8000 | (dest + offset)) = byte;
        }
        last
    }

    /// The M-cycles one VRAM DMA block keeps the CPU off the bus: 8 at normal speed, the
    /// same time (16 CPU M-cycles) at double speed (Pan Docs).
    fn stall_for_hdma_block(&mut self) {
        let m_cycles = if self.hw.cgb.double_speed() { 16 } else { 8 };
        for _ in 0..m_cycles {
            self.tick();
        }
    }

    /// HBlank VRAM DMA: one block at the start of each HBlank of lines 0..=143, unless the
    /// CPU is halted or stopped then (`tick_full` does not call this; SameBoy and Gambatte
    /// keep the transfer inactive during HALT and STOP). The block of an HBlank the CPU
    /// slept into runs when it wakes, if it halted outside that HBlank: the flag that
    /// says this HBlank's block is done is neither set nor cleared while the CPU sleeps
    /// (SameBoy: a block starts at wake-up in mode 0 only if HALT began in another mode).
    ///
    /// With the LCD off (STAT reads mode 0) the transfer counts as in one long HBlank: a
    /// transfer started then copies one block at once and the rest once the LCD runs
    /// (SameBoy starts a block whenever HDMA5 is written while STAT reads mode 0, as it does
    /// with the LCD off).
    /// UNVERIFIED: no test ROM here decides it.
    #[cold]
    #[inline(never)]
    fn hblank_dma(&mut self) {
        if !self.hw.cgb.hdma_hblank_active() {
            return;
        }
        let lcd_off = self.hw.ppu.lcdc & 0x80 == 0;
        if !(lcd_off || self.hw.ppu.in_hblank()) {
            self.hw.cgb.hdma_done_this_hblank = 0;
            return;
        }
        if self.hw.cgb.hdma_done_this_hblank != 0 {
            return;
        }
        self.hw.cgb.hdma_done_this_hblank = 1;
        self.copy_hdma_block();
        self.stall_for_hdma_block();
    }

    /// Runs the PPU `dots` dots on its own, as if that many more dots had passed for it
    /// than for the CPU (nothing with the LCD off).
    #[cold]
    fn run_ppu_dots(&mut self, dots: u16) {
        self.sync_and_recheck();
        if self.hw.ppu.lcdc & 0x80 == 0 {
            return;
        }
        for _ in 0..dots {
            self.tick_ppu::<1>();
        }
    }

    /// The PPU one dot behind its place relative to the CPU's M-cycles (`PpuState::
    /// delay_one_dot`): the dot phase CGB double speed sets.
    #[cold]
    fn delay_ppu_one_dot(&mut self) {
        self.sync_and_recheck();
        let hw = &mut *self.hw;
        hw.ppu
            .delay_one_dot(video_memory!(hw), &mut hw.interrupt_flag, &mut self.screen);
    }

    /// `halt_wake_interrupts` during a speed switch's HALT: it also ends when its time is up
    /// (reported as `SPEED_SWITCH_SETTLED`, no interrupt bit); any end clears it.
    #[cold]
    fn speed_switch_wake(&mut self, interrupts: u8) -> u8 {
        let hw = &mut *self.hw;
        let settled = hw.m_cycles >= hw.speed_switch_wake_m_cycle;
        if interrupts == 0 && !settled {
            return 0;
        }
        hw.speed_switch_wake_m_cycle = 0;
        interrupts | if settled { SPEED_SWITCH_SETTLED } else { 0 }
    }

    /// HALT/STOP fast path: advances every component by as many M-cycles as possible (at
    /// most `budget`) during which nothing observable can happen: no interrupt request, no
    /// frame completion, no serial or APU clock edge, no DMA but OAM DMA's plain copying
    /// (`dma_quiet_m_cycles`). Equivalent, byte for byte, to
    /// that many idle M-cycles (checked by the eager-versus-skipping determinism test).
    pub(crate) fn skip_quiet_cycles(&mut self, budget: u64) {
        self.sync();
        // A speed switch's HALT ends at a set M-cycle, which the CPU's step must see.
        let budget = match self.hw.speed_switch_wake_m_cycle {
            0 => budget,
            wake => budget.min(wake.saturating_sub(self.hw.m_cycles)),
        };
        let quiet = self.quiet_m_cycles(u32::try_from(budget).unwrap_or(u32::MAX));
        if quiet == 0 {
            return;
        }
        self.hw.m_cycles += u64::from(quiet);
        self.advance_components(quiet);
        self.synced_m_cycles = self.hw.m_cycles;
        self.set_full_tick_m_cycle(self.hw.m_cycles + 1);
    }
}

impl Bus for Machine<'_> {
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.tick();
        self.cpu_read(addr)
    }
    #[inline(always)]
    fn write(&mut self, addr: u16, value: u8) {
        self.tick();
        self.cpu_write(addr, value);
    }
    /// As `read` (no ROM or work RAM up there): HRAM, or the slow path's I/O and IE.
    #[inline(always)]
    fn read_high(&mut self, low: u8) -> u8 {
        self.tick();
        if (0x80..=0xFE).contains(&low) {
            return self.hw.hram[usize::from(low & 0x7F)];
        }
        self.cpu_read_slow(0xFF00 | u16::from(low))
    }
    /// As `write`: HRAM, or the slow path's I/O and IE.
    #[inline(always)]
    fn write_high(&mut self, low: u8, value: u8) {
        self.tick();
        if (0x80..=0xFE).contains(&low) {
            self.hw.hram[usize::from(low & 0x7F)] = value;
            return;
        }
        // A slow write may change IE or IF, the DMA, or catch the components up.
        self.require_checks();
        self.cpu_write_slow(0xFF00 | u16::from(low), value);
    }
    #[inline(always)]
    fn idle_with_address(&mut self, addr: u16) {
        self.tick();
        if addr & 0xFF00 == 0xFE00 {
            self.require_checks();
            self.sync();
            let hw = &mut *self.hw;
            hw.ppu.oam_bug_write(&mut hw.oam);
        }
    }
    // Inlined: a halted CPU asks this every step between skips.
    #[inline(always)]
    fn halt_wake_interrupts(&mut self) -> u8 {
        self.sync();
        let hw = &*self.hw;
        // A halted DMG samples IF two dots into the M-cycle at normal speed, so a request
        // in those dots wakes it at the end of this one: the phase that makes the Mooneye
        // HALT-based PPU tests (`hblank_ly_scx_timing-GS`, `intr_1_2_timing-GS`,
        // `vblank_stat_intr-GS`) agree with the running-CPU ones (`intr_2_0_timing`, AGE
        // `stat-int-*`, Mealybug). SameBoy's halted DMG samples mid-M-cycle alike.
        // A halted CGB (either colour mode) samples at the start of the M-cycle instead, so
        // such a request wakes it an M-cycle later: SameBoy's `GB_cpu_run` gives only the
        // DMG its mid-cycle sample, and cgb-acid-hell's face (LCDC writes timed from a HALT
        // woken by LY=LYC, landing between a tile-data byte's address and its read) needs
        // that M-cycle. UNVERIFIED at double speed (no test tells; SameBoy's rule has no
        // speed condition, so it is followed there too).
        let wake = if hw.cgb.is_cgb() {
            hw.interrupt_enable & hw.interrupt_flag & 0x1F
        } else {
            let soon = hw.ppu.interrupts_in_next_dots(
                video_memory!(hw),
                2,
                false,
                self.screen.lazy_mode3(),
            );
            hw.interrupt_enable & (hw.interrupt_flag | soon) & 0x1F
        };
        if hw.speed_switch_wake_m_cycle != 0 {
            return self.speed_switch_wake(wake);
        }
        wake
    }
    #[inline(always)]
    fn idle(&mut self) {
        self.tick();
    }
    #[inline(always)]
    fn idle_halted(&mut self) {
        self.cpu_halted = true;
        self.tick();
        self.cpu_halted = false;
    }
    #[inline(always)]
    fn pending_interrupts(&self) -> u8 {
        self.hw.interrupt_enable & self.hw.interrupt_flag & 0x1F
    }
    fn halt_bug_interrupts(&mut self) -> u8 {
        self.sync();
        let hw = &*self.hw;
        let double_speed = hw.cgb.double_speed();
        let dots = if double_speed { 1 } else { 4 };
        let soon = hw.ppu.interrupts_in_next_dots(
            video_memory!(hw),
            dots,
            double_speed,
            self.screen.lazy_mode3(),
        );
        hw.interrupt_enable & (hw.interrupt_flag | soon) & 0x1F
    }
    fn acknowledge_interrupt(&mut self, bit: u8) {
        self.hw.interrupt_flag &= !(1 << (bit & 7));
    }
    fn breakpoint(&mut self) {
        self.events |= Events::BREAKPOINT;
        self.require_checks();
    }
    #[inline(always)]
    fn cpu_changed(&mut self) {
        self.require_checks();
    }
    #[inline(always)]
    fn short_loop_jump(&mut self, target: u16) {
        if target != self.not_a_poll_loop {
            self.look_at_loop_jump(target);
        }
    }
    #[inline(always)]
    fn checks_due(&self) -> bool {
        self.checks_due
    }
    #[inline(always)]
    fn read_plain_fetch(&mut self, addr: u16) -> (u8, bool) {
        debug_assert!(
            !self.checks_due,
            "the run loop takes plain steps with no checks due"
        );
        self.ticks_left -= 1;
        if self.ticks_left == 0 {
            return self.read_plain_fetch_in_full_tick(addr);
        }
        // A ROM fetch in a quiet M-cycle (the usual case) leaves the checks as they were:
        // the answer is a constant there, so the step goes on without testing it. With no
        // checks due, `plain_fetch_end` is `rom_windows_end`, and the run loop has just
        // compared PC with it (`take_checks_due_at`).
        if addr < self.plain_fetch_end {
            return (self.rom_window_byte(addr), false);
        }
        // Code in RAM (Blargg's tests run their instruction under test there), or any
        // fetch during OAM DMA or with the boot ROM mapped. `addr` is past the ROM windows
        // (`plain_fetch_end` is `rom_windows_end` here), and the RAM fast paths leave the
        // checks as they were, as ROM does.
        if let Some(value) = self.ram_fast_read(addr) {
            return (value, false);
        }
        let value = self.cpu_read_slow(addr);
        (value, self.checks_due)
    }
    fn stop(&mut self) -> bool {
        self.sync_and_recheck();
        let hw = &mut *self.hw;
        if !(hw.cgb.cgb_mode() && hw.cgb.key1 & 1 != 0) {
            // STOP resets the system counter like a DIV write.
            self.write_io(io::DIV, 0);
            return false;
        }
        // CGB speed switch (Pan Docs KEY1). Back to single speed at once; to double speed
        // only after STOP's next M-cycle (KEY1 stays armed until `finish_speed_switch`).
        // SameBoy switches up a few clocks late alike; AGE `spsw-mode0-cgbBCE` sees the PPU
        // position this leaves.
        if hw.cgb.double_speed() {
            hw.cgb.key1 = 0;
        }
        true
    }
    fn finish_speed_switch(&mut self, pause: bool) {
        self.sync_and_recheck();
        if self.hw.cgb.key1 & 1 != 0 {
            self.hw.cgb.key1 = 0x80;
            // Into double speed with the LCD on, the PPU ends up 3 dots further on
            // relative to the CPU's M-cycles than this M-cycle's pace gives it: the
            // switch's own T-cycles (SameBoy notes 2 extra PPU dots for it) and the
            // half-speed M-cycle it lands in. APPROX: the dot count is pinned by AGE
            // `spsw-mode0-cgbBCE` (LY and the start of mode 0 after each switch), not by
            // a model of the clock switch. Back to normal speed the phase stays.
            self.run_ppu_dots(SPEED_SWITCH_PPU_DOTS);
        }
        if pause {
            let hw = &mut *self.hw;
            let fell = hw.timer.reset_at_speed_switch();
            if fell & (COUNTER_EDGE_BITS | hw.serial.clock_bit()) != 0 {
                self.counter_edges(fell);
            }
            self.hw.speed_switch_wake_m_cycle =
                self.hw.m_cycles + u64::from(SPEED_SWITCH_PAUSE_M_CYCLES);
        } else {
            // No second-byte M-cycle to reset DIV after: the reset lands at the end of the
            // next M-cycle instead (AGE `caution/spsw-interrupts`: DIV and TIMA read one
            // M-cycle behind an immediate reset).
            self.hw.timer.div_reset_pending = 1;
        }
    }
}

/// Marks the branch that calls it as the rare one, so that the compiler keeps it a branch
/// (rather than computing both sides) and lays the other side out as the straight path.
#[cold]
#[inline(always)]
fn rarely() {}

/// What `rom_windows` holds while ROM reads take the slow path (never read then).
static UNMAPPED_WINDOW: [u8; 0x4000] = [0xFF; 0x4000];

/// `Machine::rom_window_bases`' entry for `window` mapped at `index * 0x4000`: its start
/// moved back by that much, so that adding an address in the window gives its byte. The
/// pointer may lie outside the window (wrapping arithmetic, never dereferenced as such);
/// it keeps the window's provenance.
fn window_base(window: &[u8; 0x4000], index: usize) -> *const u8 {
    window.as_ptr().wrapping_sub(index * 0x4000)
}

/// The work RAM byte at `addr` (C000..=FDFF, or an OAM DMA source above it): bank 0 at
/// C000, the SVBK bank at D000 (bank 1 on a DMG), E000 and up echo C000.
#[inline(always)]
fn wram_slot(hw: &mut HwState, addr: u16) -> &mut u8 {
    if unbanked_wram(hw, addr) {
        return &mut hw.wram[usize::from(addr & 0x1FFF)];
    }
    banked_wram_slot(hw, addr)
}

/// Whether work RAM address `addr` (or its echo) reads `hw.wram` at `addr & 0x1FFF`: banks 0
/// and 1 (SVBK is written only in CGB mode), as `cpu_read`'s fast path.
#[inline(always)]
fn unbanked_wram(hw: &HwState, addr: u16) -> bool {
    addr & 0x1000 == 0 || hw.cgb.svbk & 6 == 0
}

/// Where SVBK maps work RAM address `addr` in 0xD000..=0xDFFF (or its echo).
enum BankedWram {
    /// Bank 1, at this index of `hw.wram`.
    Wram(usize),
    /// Banks 2 to 7, at this index of `hw.wram_banks`.
    Banks(usize),
}

fn banked_wram(hw: &HwState, addr: u16) -> BankedWram {
    let offset = usize::from(addr & 0x0FFF);
    match hw.cgb.wram_bank() {
        1 => BankedWram::Wram(0x1000 + offset),
        bank => BankedWram::Banks(((bank - 2) % 6) * 0x1000 + offset),
    }
}

#[cold]
fn banked_wram_slot(hw: &mut HwState, addr: u16) -> &mut u8 {
    match banked_wram(hw, addr) {
        BankedWram::Wram(i) => &mut hw.wram[i],
        BankedWram::Banks(i) => &mut hw.wram_banks[i],
    }
}

/// Work RAM from `addr` (0xC000..=0xFDFF) to the end of its 4 KiB bank, or to 0xFDFF in the
/// echo: what `wram_slot` reads at `addr`, `addr + 1`, ...
fn wram_block(hw: &HwState, addr: u16) -> &[u8] {
    let len = usize::from((addr | 0x0FFF).min(0xFDFF) - addr) + 1;
    let (bank, start): (&[u8], usize) = if unbanked_wram(hw, addr) {
        (&hw.wram, usize::from(addr & 0x1FFF))
    } else {
        match banked_wram(hw, addr) {
            BankedWram::Wram(i) => (&hw.wram, i),
            BankedWram::Banks(i) => (&hw.wram_banks, i),
        }
    };
    &bank[start..start + len]
}

/// The VRAM byte at `addr` (8000..=9FFF) in the bank VBK selects (VBK is written only in
/// CGB mode: bank 0 otherwise).
#[inline(always)]
fn vram_slot(hw: &mut HwState, addr: u16) -> &mut u8 {
    let offset = usize::from(addr & 0x1FFF);
    if hw.cgb.vbk & 1 == 0 {
        &mut hw.vram[offset]
    } else {
        &mut hw.vram_bank1[offset]
    }
}
