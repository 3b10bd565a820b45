//! `Machine`: the Game Boy around the CPU for one run call. It implements [`Bus`].
//!
//! - `memory_map`: the CPU's reads and writes, `peek` and `poke`; `rom_windows`: the ROM as
//!   the fast paths read it;
//! - `clock` and `tick`: the per-M-cycle tick and the deferral of quiet ticks;
//! - `io_registers`: I/O dispatch; `dma`: OAM DMA and HDMA; `speed_switch`: STOP and the
//!   CGB speed switch; `power_on`: the state a machine starts from;
//! - `cpu_bus`: the `Bus` the CPU runs on; `poll_hooks`: what `poll_loop` may ask of it.

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
use crate::written_pages::WrittenPages;

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

mod clock;
mod cpu_bus;
mod dma;
mod io_registers;
mod memory_map;
mod poll_hooks;
mod power_on;
mod rom_windows;
mod run_bus;
mod speed_switch;
mod tick;

use clock::Clock;
use memory_map::{vram_slot, vram_write_slot, wram_block, wram_slot};
pub(crate) use power_on::power_on;
use rom_windows::{PlainFetch, RomWindows};
pub(crate) use run_bus::RunBus;
use tick::{COUNTER_EDGE_BITS, div_apu_event_within};

/// The `Bus` the CPU runs on: borrows the hardware state, the ROM and the host outputs for
/// the duration of one run call (the frame buffers with the host's `FastPaths` as the
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
/// A quiet tick only counts down `Clock::ticks_left`, the M-cycles to the next full tick;
/// the current M-cycle is `full_tick_m_cycle - ticks_left`. `hw.m_cycles` is brought up to it
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
    /// Pages of the large memories the slow write paths wrote (`WrittenPages`).
    written: &'a mut WrittenPages,
    events: Events,
    /// Where the deferred ticks stand (see "The clock").
    clock: Clock,
    /// false: every tick runs in full (the reference the deferral is checked against).
    defer_quiet_ticks: bool,
    /// false: at double speed a quiet window ends at the PPU's next step
    /// (`FastPaths::double_speed_windows`).
    double_speed_windows: bool,
    /// false: on a CGB, a polling loop's reads of LY and STAT are foreseen no further than
    /// the current one (`FastPaths::cgb_poll_forecast`).
    cgb_poll_forecast: bool,
    /// false: the run loop never takes a plain step, `take_checks_due` always answers true
    /// (the reference plain steps are checked against).
    plain_steps: bool,
    /// false: every CPU write to VRAM catches the components up first
    /// (`FastPaths::quiet_vram_writes`).
    quiet_vram_writes: bool,
    /// false: every CPU write to LYC works the quiet window out again
    /// (`FastPaths::lyc_write_windows`).
    lyc_write_windows: bool,
    /// false: a jump to itself runs every iteration (`FastPaths::self_jump_skipping`).
    self_jump_skipping: bool,
    /// The ROM windows and the work RAM's fast length: what the CPU's fast paths read.
    windows: RomWindows<'a>,
    /// Whether the run loop must make its per-instruction checks (stop, events, CPU mode,
    /// interrupt sample) before the next instruction: set by every full tick, every slow
    /// access (but the writes that leave them alone, `write_leaves_checks`), a breakpoint
    /// and `Bus::cpu_changed`; nothing else changes what they look at.
    /// Between them the CPU takes `cpu::step_plain` where `plain_fetch` reaches. Set only
    /// through `require_checks`.
    checks_due: bool,
    /// Where a plain step's opcode comes straight from: the ROM windows and the work RAM's
    /// fast length while no checks are due, nothing while they are (`require_checks`,
    /// `take_checks_due`). One compare of PC against either tells the run loop both that it
    /// may take a plain step and where its opcode comes from (`take_checks_due_at`).
    plain_fetch: PlainFetch,
    /// The last CPU read of LY or STAT, reported with `Events::POLL_READ` (`poll_loop`).
    poll_read: PollRead,
    /// The CPU just jumped back to a load from memory that may start a polling loop
    /// (`Bus::short_loop_jump`), for the run loop's checks (`poll_loop`).
    loop_jump: bool,
    /// The last jump target found not to start a skippable polling loop, so that its
    /// iterations do not each take the run loop's checks (`poll_loop`).
    not_a_poll_loop: u16,
    /// While a CPU read of cartridge RAM runs: the address the CPU fetched in the M-cycle
    /// before, if it said (`Bus::read_after_fetch`), for `open_bus`.
    open_bus_fetch: Option<u16>,
}

impl Drop for Machine<'_> {
    fn drop(&mut self) {
        self.sync();
        self.hw.apu.settle_for_host(self.audio);
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
            written,
        } = out;
        audio.set_synthesis(fast.audio_synthesis);
        audio.set_flush_deferral(fast.deferred_flushes);
        let mut machine = Machine {
            hw,
            rom,
            boot_rom,
            screen: ppu::Host::new(frame, frame_rgb, fast),
            audio,
            serial,
            written,
            events: Events::empty(),
            clock: Clock::new(now),
            defer_quiet_ticks: fast.defer_quiet_ticks,
            double_speed_windows: fast.double_speed_windows,
            cgb_poll_forecast: fast.cgb_poll_forecast,
            plain_steps: fast.plain_steps,
            quiet_vram_writes: fast.quiet_vram_writes,
            lyc_write_windows: fast.lyc_write_windows,
            self_jump_skipping: fast.self_jump_skipping,
            windows: RomWindows::new(fast.rom_windows),
            checks_due: true,
            plain_fetch: PlainFetch::NONE,
            poll_read: PollRead {
                m_cycle: 0,
                reg: 0,
                value: 0,
            },
            loop_jump: false,
            not_a_poll_loop: 0xFFFF,
            open_bus_fetch: None,
        };
        machine.refresh_rom_windows();
        machine
    }

    /// What `plain_fetch` always equals, derived from the fields it stands for.
    fn derived_plain_fetch(&self) -> PlainFetch {
        if self.checks_due {
            PlainFetch::NONE
        } else {
            self.windows.plain_fetch()
        }
    }

    /// Ends every quiet window at M-cycle `m_cycle` at the latest (`tick_full`), so that
    /// the run loop stopping there sees its checks due (see `checks_due`).
    pub(crate) fn set_stop_m_cycle(&mut self, m_cycle: u64) {
        self.clock.stop_m_cycle = m_cycle;
        self.require_checks();
        // The window open now (one M-cycle after `new`) ends there too.
        if self.clock.full_tick_m_cycle > m_cycle && m_cycle > self.m_cycles() {
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
                self.plain_fetch = self.windows.plain_fetch();
            }
            return true;
        }
        false
    }

    /// `take_checks_due` before the step at `pc`, which first tells in one compare each the
    /// usual cases, a plain step whose opcode comes from the ROM windows or from work RAM
    /// (where Blargg's tests run): no checks due and `pc` in `plain_fetch`'s ranges.
    /// Anywhere else (HRAM, VRAM, cartridge RAM, any fetch during OAM DMA or with the boot
    /// ROM mapped) the step makes the checks, due or not, as with `FastPaths::plain_steps`
    /// off: `read_plain_fetch` then reads only those two ranges, with no test but the ROM
    /// one, which the compiler folds into this one.
    #[inline(always)]
    pub(crate) fn take_checks_due_at(&mut self, pc: u16) -> bool {
        debug_assert_eq!(self.plain_fetch, self.derived_plain_fetch());
        if self.plain_fetch.has_rom(pc) || self.plain_fetch.has_wram(pc) {
            return false;
        }
        rarely();
        self.take_checks_due();
        true
    }

    /// Makes the per-instruction checks due before the next instruction.
    #[inline(always)]
    pub(crate) fn require_checks(&mut self) {
        self.checks_due = true;
        self.plain_fetch = PlainFetch::NONE;
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
}

/// Marks the branch that calls it as the rare one, so that the compiler keeps it a branch
/// (rather than computing both sides) and lays the other side out as the straight path.
#[cold]
#[inline(always)]
fn rarely() {}
