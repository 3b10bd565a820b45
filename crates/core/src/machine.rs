//! `Machine`: the memory map, I/O dispatch and the per-M-cycle tick. It implements [`Bus`].

use crate::apu::ApuState;
use crate::bus::Bus;
use crate::cart::Rom;
use crate::core::{BootRom, Model, Output};
use crate::dma::DmaState;
use crate::events::Events;
use crate::io;
use crate::joypad::JoypadState;
use crate::ppu::PpuState;
use crate::serial::{SERIAL_CLOCK_BIT, SerialState, SerialWrite};
use crate::state::{HwState, State};
use crate::timer::TimerState;

/// The system-counter bit whose falling edge clocks the APU frame sequencer (DIV bit 4).
const DIV_APU_BIT: u16 = 1 << 12;

/// The `Bus` the CPU runs on: borrows the hardware state, the ROM and the host outputs for
/// the duration of one run call.
///
/// # Deferred ticks
/// Most M-cycles change nothing anyone can see: no interrupt request, no frame, no clock
/// edge, no DMA. After each full tick the machine computes how many such quiet M-cycles
/// follow (as HALT skipping does) and only counts them, advancing the timer, PPU and APU
/// in one go (`advance`, equivalent to that many ticks) when the window ends or before any
/// access that could observe or change them: every access but ROM, cartridge RAM, work RAM
/// and HRAM. `hw.m_cycles` is always current. The deferral lives only in this struct:
/// dropping it brings the state up to date, so `State` never holds a deferred tick.
pub(crate) struct Machine<'a> {
    hw: &'a mut HwState,
    rom: &'a Rom,
    boot_rom: Option<&'a BootRom>,
    out: &'a mut Output,
    events: Events,
    /// The M-cycle up to which the timer, PPU and APU have ticked (at most `hw.m_cycles`).
    synced_m_cycles: u64,
    /// The first M-cycle whose tick must run in full; the ones before it (from
    /// `synced_m_cycles` on) are quiet.
    full_tick_m_cycle: u64,
    /// false: every tick runs in full (the reference the deferral is checked against).
    defer_quiet_ticks: bool,
}

impl Drop for Machine<'_> {
    fn drop(&mut self) {
        self.sync();
    }
}

/// Fills `state` as the machine is at power-on (with a boot ROM) or as the DMG boot ROM
/// leaves it at 0x0100 (Pan Docs "Power Up Sequence"; Mooneye `boot_regs-dmgABC`,
/// `boot_hwio-dmgABCmgb`, `boot_div-dmgABCmgb`).
pub(crate) fn power_on(state: &mut State, rom: &Rom, model: Model, with_boot_rom: bool) {
    let hw = &mut state.hw;
    hw.model_raw = model as u8;
    hw.mbc = rom.power_on_mbc();
    hw.boot_rom_mapped = u8::from(with_boot_rom);
    hw.dma = DmaState::post_boot();
    hw.joypad = JoypadState::post_boot();
    if with_boot_rom {
        state.cpu.pc = 0;
        hw.dma.source_high = 0;
        return;
    }
    let cpu = &mut state.cpu;
    cpu.pc = 0x0100;
    cpu.sp = 0xFFFE;
    cpu.a = 0x01;
    // The boot ROM's header-checksum loop leaves H and C set unless the checksum byte is 0.
    cpu.f = if rom.bytes().get(0x14D).copied().unwrap_or(0) == 0 {
        0x80
    } else {
        0xB0
    };
    (cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l) = (0x00, 0x13, 0x00, 0xD8, 0x01, 0x4D);
    hw.timer = TimerState::post_boot();
    hw.serial = SerialState::post_boot();
    hw.ppu = PpuState::post_boot();
    // The boot ROM leaves the header's logo in VRAM (ashiepaws `bully` checks it).
    let logo = rom.bytes().get(0x104..0x134).unwrap_or(&[]);
    crate::ppu::write_boot_logo(&mut hw.vram, logo);
    hw.apu = ApuState::post_boot();
    hw.interrupt_flag = io::INT_VBLANK;
}

impl<'a> Machine<'a> {
    pub(crate) fn new(
        hw: &'a mut HwState,
        rom: &'a Rom,
        boot_rom: Option<&'a BootRom>,
        out: &'a mut Output,
    ) -> Machine<'a> {
        let now = hw.m_cycles;
        Machine {
            hw,
            rom,
            boot_rom,
            out,
            events: Events::empty(),
            synced_m_cycles: now,
            full_tick_m_cycle: now.wrapping_add(1),
            defer_quiet_ticks: true,
        }
    }

    /// Whether quiet M-cycles are deferred (on by default).
    pub(crate) fn set_deferral(&mut self, enabled: bool) {
        self.defer_quiet_ticks = enabled;
    }

    pub(crate) fn events(&self) -> Events {
        self.events
    }

    pub(crate) fn take_events(&mut self) -> Events {
        std::mem::take(&mut self.events)
    }

    pub(crate) fn set_buttons(&mut self, buttons: u8) {
        self.hw
            .joypad
            .set_pressed(buttons, &mut self.hw.interrupt_flag);
    }

    pub(crate) fn m_cycles(&self) -> u64 {
        self.hw.m_cycles
    }

    /// Reads through the memory map with no side effects and no cycle.
    pub(crate) fn peek(&mut self, addr: u16) -> u8 {
        self.read_mapped(addr)
    }

    /// One M-cycle of everything but the CPU. The order is hardware behaviour: the timer's
    /// counter also clocks serial and the APU frame sequencer. The PPU raises its requests at
    /// their dot, seen by the fetch's sample in the same M-cycle; a halted CPU also sees
    /// those due in the next dot (`Bus::halt_wake_interrupts`). With that every DMG Mooneye
    /// acceptance test passes, including `intr_2_0_timing`, `vblank_stat_intr-GS` and
    /// `hblank_ly_scx_timing-GS`, and Mealybug's mid-line writes land on their pixel.
    #[inline(always)]
    fn tick(&mut self) {
        self.hw.m_cycles += 1;
        if self.hw.m_cycles >= self.full_tick_m_cycle {
            self.tick_full();
        }
    }

    /// The quiet M-cycles before this one, then this one in full; then the length of the
    /// quiet window that follows.
    #[inline(never)]
    fn tick_full(&mut self) {
        self.catch_up_to(self.hw.m_cycles - 1);
        self.tick_now();
        self.synced_m_cycles = self.hw.m_cycles;
        let quiet = if self.defer_quiet_ticks {
            self.quiet_m_cycles(u32::MAX)
        } else {
            0
        };
        self.full_tick_m_cycle = self.hw.m_cycles + u64::from(quiet) + 1;
    }

    /// Brings the timer, PPU and APU up to the current M-cycle (its tick included).
    #[inline(always)]
    fn sync(&mut self) {
        if self.synced_m_cycles != self.hw.m_cycles {
            self.catch_up_to(self.hw.m_cycles);
        }
    }

    /// `sync`, and the next tick runs in full: for accesses that may change what is quiet.
    #[inline(always)]
    fn sync_and_recheck(&mut self) {
        self.sync();
        self.full_tick_m_cycle = self.hw.m_cycles + 1;
    }

    /// Runs the deferred quiet ticks up to and including M-cycle `target`.
    #[inline(never)]
    fn catch_up_to(&mut self, target: u64) {
        let Some(n) = target.checked_sub(self.synced_m_cycles).filter(|&n| n != 0) else {
            return;
        };
        // The window never exceeds one `quiet_m_cycles`, a u32.
        let n = u32::try_from(n).unwrap_or(u32::MAX);
        let hw = &mut *self.hw;
        hw.timer.advance(n);
        hw.ppu.advance(
            n,
            &hw.vram,
            &hw.oam,
            &mut hw.interrupt_flag,
            &mut self.out.frame,
        );
        hw.apu.advance(n, &mut self.out.audio);
        self.synced_m_cycles = target;
    }

    /// M-cycles (at most `budget`) from now on during which ticking can have no observable
    /// effect: no interrupt request, no frame completion, no serial or APU clock edge, no
    /// DMA, as long as no I/O register is written.
    fn quiet_m_cycles(&self, budget: u32) -> u32 {
        let hw = &*self.hw;
        if hw.dma.is_busy() {
            return 0;
        }
        let mut watched = DIV_APU_BIT;
        if hw.serial.is_shifting() {
            watched |= SERIAL_CLOCK_BIT;
        }
        hw.timer
            .quiet_m_cycles(watched)
            .min(hw.ppu.quiet_m_cycles())
            .min(budget)
    }

    /// One M-cycle of every component, in full.
    #[inline(always)]
    fn tick_now(&mut self) {
        let hw = &mut *self.hw;
        let fell = hw.timer.tick(&mut hw.interrupt_flag);
        if fell & (SERIAL_CLOCK_BIT | DIV_APU_BIT) != 0 {
            self.counter_edges(fell);
        }
        if self.hw.dma.is_busy() {
            self.step_dma();
            // While OAM DMA runs, the PPU cannot read OAM itself (ashiepaws `strikethrough`).
            // Reported on every DMA cycle, including the one in which it finishes.
            let hw = &mut *self.hw;
            hw.ppu.set_oam_dma(hw.dma.active != 0, hw.dma.last_byte);
        }
        let hw = &mut *self.hw;
        if hw.ppu.tick(
            &hw.vram,
            &hw.oam,
            &mut hw.interrupt_flag,
            &mut self.out.frame,
        ) {
            hw.frames += 1;
            self.events |= Events::FRAME_READY;
            hw.apu.flush_at_frame_end(&mut self.out.audio);
        }
        hw.apu.tick(&mut self.out.audio);
    }

    /// Falling edges of the system counter that clock other components.
    #[cold]
    fn counter_edges(&mut self, fell: u16) {
        let hw = &mut *self.hw;
        if fell & SERIAL_CLOCK_BIT != 0 {
            hw.serial.clock(&mut hw.interrupt_flag);
        }
        if fell & DIV_APU_BIT != 0 {
            hw.apu.div_apu_event();
        }
    }

    fn step_dma(&mut self) {
        if let Some((source, index)) = self.hw.dma.step() {
            let byte = match source {
                // DMG: sources from 0xE000 up read work RAM (Mooneye `oam_dma/sources-GS`).
                0xE000.. => self.hw.wram[usize::from(source & 0x1FFF)],
                0x8000..=0x9FFF => self.hw.vram[usize::from(source & 0x1FFF)],
                _ => self.read_mapped(source),
            };
            self.hw.dma.last_byte = byte;
            self.hw.oam[index % 160] = byte;
        }
    }

    /// The CPU's view of `addr` this M-cycle, including DMA and PPU lock-outs.
    #[inline(always)]
    fn cpu_read(&mut self, addr: u16) -> u8 {
        // Fast path for the common case: cartridge ROM, work RAM and HRAM with no DMA.
        let hw = &*self.hw;
        if hw.dma.active == 0 {
            match addr {
                0x0100..=0x7FFF => return self.rom.read(&hw.mbc, addr),
                0x0000..=0x00FF if hw.boot_rom_mapped == 0 => return self.rom.read(&hw.mbc, addr),
                0xC000..=0xDFFF => return hw.wram[usize::from(addr & 0x1FFF)],
                0xFF80..=0xFFFE => return hw.hram[usize::from(addr & 0x7F)],
                _ => {}
            }
        }
        self.cpu_read_slow(addr)
    }

    #[inline(never)]
    fn cpu_read_slow(&mut self, addr: u16) -> u8 {
        // Deferred ticks change only the timer's counters, the PPU's dot position (no PPU
        // step runs, so its registers and locks stand) and the APU's clock.
        match addr {
            // The OAM bug depends on the row the scan is reading.
            0xFE00..=0xFEFF | 0xFF10..=0xFF3F => self.sync(),
            0xFF04..=0xFF07 if self.synced_m_cycles != self.hw.m_cycles => {
                let mut timer = self.hw.timer;
                timer.advance((self.hw.m_cycles - self.synced_m_cycles) as u32);
                return timer.read(addr as u8);
            }
            // I/O is never blocked by DMA and has no OAM bug: straight to the register.
            0xFF00..=0xFF7F => return self.read_io(addr as u8),
            _ => {}
        }
        if addr & 0xFF00 == 0xFE00 && !self.hw.dma.blocks(addr) {
            // The OAM corruption bug (Blargg `oam_bug`).
            let hw = &mut *self.hw;
            hw.ppu.oam_bug_read(&mut hw.oam);
        }
        if self.hw.dma.blocks(addr) {
            return if addr >= 0xFE00 {
                0xFF
            } else {
                self.hw.dma.last_byte
            };
        }
        self.read_mapped(addr)
    }

    fn read_mapped(&mut self, addr: u16) -> u8 {
        let hw = &*self.hw;
        match addr {
            0x0000..=0x00FF if hw.boot_rom_mapped != 0 => match self.boot_rom {
                Some(boot) => boot.0[usize::from(addr)],
                None => self.rom.read(&hw.mbc, addr),
            },
            0x0000..=0x7FFF => self.rom.read(&hw.mbc, addr),
            0x8000..=0x9FFF => {
                if hw.ppu.cpu_can_access_vram() {
                    hw.vram[usize::from(addr & 0x1FFF)]
                } else {
                    0xFF
                }
            }
            0xA000..=0xBFFF => self.rom.read_ram(&hw.mbc, &hw.cart_ram, addr, hw.m_cycles),
            0xC000..=0xFDFF => hw.wram[usize::from(addr & 0x1FFF)],
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

    #[inline]
    fn read_io(&self, reg: u8) -> u8 {
        let hw = &*self.hw;
        match reg {
            io::P1 => hw.joypad.read(),
            io::SB | io::SC => hw.serial.read(reg),
            io::DIV..=io::TAC => hw.timer.read(reg),
            io::IF => hw.interrupt_flag | 0xE0,
            io::NR10..=0x3F => hw.apu.read_register(reg),
            io::DMA => hw.dma.source_high,
            io::LCDC..=io::WX => hw.ppu.read_register(reg),
            _ => 0xFF,
        }
    }

    fn cpu_write(&mut self, addr: u16, value: u8) {
        match addr {
            0x0000..=0x7FFF | 0xA000..=0xFDFF | 0xFF80..=0xFFFE => {}
            0xFF00..=0xFF7F => self.sync_and_recheck(),
            _ => self.sync(),
        }
        if self.hw.dma.blocks(addr) {
            return;
        }
        if addr & 0xFF00 == 0xFE00 {
            let hw = &mut *self.hw;
            hw.ppu.oam_bug_write(&mut hw.oam);
        }
        let hw = &mut *self.hw;
        match addr {
            0x0000..=0x7FFF => self.rom.write(&mut hw.mbc, addr, value, hw.m_cycles),
            0x8000..=0x9FFF => {
                if hw.ppu.cpu_can_write_vram() {
                    hw.vram[usize::from(addr & 0x1FFF)] = value;
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
            0xC000..=0xFDFF => hw.wram[usize::from(addr & 0x1FFF)] = value,
            0xFE00..=0xFE9F => {
                if hw.ppu.cpu_can_write_oam() {
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
                if let SerialWrite::Started(byte) = hw.serial.write(reg, value) {
                    self.out.serial.push(byte);
                    self.events |= Events::SERIAL_BYTE;
                }
            }
            io::DIV..=io::TAC => {
                let fell = hw.timer.write(reg, value);
                if fell & (SERIAL_CLOCK_BIT | DIV_APU_BIT) != 0 {
                    self.counter_edges(fell);
                }
            }
            io::IF => hw.interrupt_flag = value & 0x1F,
            io::NR10..=0x3F => hw.apu.write_register(reg, value),
            io::DMA => hw.dma.request(value),
            io::LCDC..=io::WX => hw.ppu.write_register(reg, value, &mut hw.interrupt_flag),
            io::BOOT if value != 0 => hw.boot_rom_mapped = 0,
            _ => {}
        }
    }

    /// HALT/STOP fast path: advances every component by as many M-cycles as possible (at
    /// most `budget`) during which nothing observable can happen: no interrupt request, no
    /// frame completion, no serial or APU clock edge, no DMA. Equivalent, byte for byte, to
    /// that many idle M-cycles (checked by the eager-versus-skipping determinism test).
    pub(crate) fn skip_quiet_cycles(&mut self, budget: u64) {
        self.sync();
        let quiet = self.quiet_m_cycles(u32::try_from(budget).unwrap_or(u32::MAX));
        if quiet == 0 {
            return;
        }
        let hw = &mut *self.hw;
        hw.m_cycles += u64::from(quiet);
        self.synced_m_cycles = hw.m_cycles;
        self.full_tick_m_cycle = hw.m_cycles + 1;
        hw.timer.advance(quiet);
        hw.ppu.advance(
            quiet,
            &hw.vram,
            &hw.oam,
            &mut hw.interrupt_flag,
            &mut self.out.frame,
        );
        hw.apu.advance(quiet, &mut self.out.audio);
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
    #[inline(always)]
    fn idle_with_address(&mut self, addr: u16) {
        self.tick();
        if addr & 0xFF00 == 0xFE00 {
            self.sync();
            let hw = &mut *self.hw;
            hw.ppu.oam_bug_write(&mut hw.oam);
        }
    }
    fn halt_wake_interrupts(&mut self) -> u8 {
        self.sync();
        let hw = &*self.hw;
        let soon = hw.ppu.interrupts_in_next_dot(&hw.vram, &hw.oam);
        hw.interrupt_enable & (hw.interrupt_flag | soon) & 0x1F
    }
    #[inline(always)]
    fn idle(&mut self) {
        self.tick();
    }
    #[inline(always)]
    fn pending_interrupts(&self) -> u8 {
        self.hw.interrupt_enable & self.hw.interrupt_flag & 0x1F
    }
    fn acknowledge_interrupt(&mut self, bit: u8) {
        self.hw.interrupt_flag &= !(1 << (bit & 7));
    }
    fn breakpoint(&mut self) {
        self.events |= Events::BREAKPOINT;
    }
    fn stop(&mut self) {
        // STOP resets the system counter like a DIV write.
        self.sync_and_recheck();
        self.write_io(io::DIV, 0);
    }
}
