//! The memory map: the CPU's reads and writes with their fast paths, lock-outs and the
//! OAM bug, and reads and writes from outside the program (`peek`, `poke`).

use super::*;

impl<'a> Machine<'a> {
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
    pub(super) fn catch_up_for_peek(&mut self) {
        self.settle_clock();
        if self.hw.dma.active != 0 {
            // OAM as the deferred M-cycles of a DMA leave it.
            self.sync();
        }
        self.sync_ppu_view();
        // Wave RAM answers by the channel's time (`apu/owed_flush.rs`).
        self.hw.apu.settle_owed_flushes(self.audio);
    }

    /// The CPU's view of `addr` this M-cycle, including DMA and PPU lock-outs.
    #[inline(always)]
    pub(super) fn cpu_read(&mut self, addr: u16) -> u8 {
        match self.cpu_fast_read(addr) {
            Some(value) => value,
            None => self.cpu_read_slow(addr),
        }
    }

    /// `cpu_read`'s fast paths for the common case: cartridge ROM (its windows exist only
    /// with no DMA and no boot ROM), work RAM and HRAM with no DMA. None elsewhere.
    #[inline(always)]
    pub(super) fn cpu_fast_read(&self, addr: u16) -> Option<u8> {
        if addr < self.windows.end {
            debug_assert!(self.hw.dma.active == 0 && self.hw.boot_rom_mapped == 0);
            return Some(self.rom_window_byte(addr));
        }
        // (ROM addresses fall through while the windows are off.)
        self.ram_fast_read(addr)
    }

    /// `cpu_read`'s fast paths past the ROM windows: work RAM with no DMA and HRAM, which
    /// change nothing (no sync, no checks due). None elsewhere.
    #[inline(always)]
    pub(super) fn ram_fast_read(&self, addr: u16) -> Option<u8> {
        if let Some(offset) = self.windows.wram_offset(addr) {
            return Some(self.wram_fast_byte(offset));
        }
        // HRAM is never blocked by OAM DMA (the routine that waits for it runs there), and
        // nothing deferred sees it.
        // 0xFF80..=0xFFFE in one compare.
        if addr.wrapping_sub(0xFF80) < 0x7F {
            return Some(self.hw.hram[usize::from(addr & 0x7F)]);
        }
        None
    }

    /// The work RAM byte at `offset` from 0xC000, an offset `wram_offset` gave (banks 0
    /// and 1 straight in `hw.wram`).
    #[inline(always)]
    pub(super) fn wram_fast_byte(&self, offset: usize) -> u8 {
        debug_assert!(offset < self.hw.wram.len());
        // SAFETY: `RomWindows::wram_offset` gives only offsets below a length that never
        // exceeds `hw.wram`'s (`RomWindows::wram_fast_len`).
        unsafe { *self.hw.wram.get_unchecked(offset) }
    }

    /// `cpu_read` past its fast paths.
    #[inline(never)]
    pub(super) fn cpu_read_slow(&mut self, addr: u16) -> u8 {
        self.settle_clock();
        // Deferred ticks change the timer's counters, the PPU's dot position and the APU's
        // clock, and may run PPU steps that request nothing (`sync_ppu_view`). Reads told
        // from the deferred state come first: they change nothing the run loop's checks
        // look at, so these leave them as they are.
        match addr {
            0xFF10..=0xFF3F if !self.hw.cgb.double_speed() => {
                return self.read_apu_register(addr as u8);
            }
            0xFF04..=0xFF07 if self.clock.synced_m_cycles != self.hw.m_cycles => {
                let mut timer = self.hw.timer;
                timer.advance((self.hw.m_cycles - self.clock.synced_m_cycles) as u32);
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
            0xFF44 => return self.read_cgb_ly(),
            // The APU at CGB double speed (`read_apu_register`), and a CGB's PCM12 and PCM34
            // (the channels' outputs at this M-cycle). BCPD and OCPD too: palette RAM closes a
            // few dots before mode 3's first step is due (`PpuState::palette_locked`), which
            // `sync_ppu_view` would not run up to.
            0xFF10..=0xFF3F | 0xFF69 | 0xFF6B | 0xFF76 | 0xFF77 => {
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

    /// `cpu_read_slow` of `addr` in cartridge RAM by a read that follows the CPU's fetch of
    /// `fetched` (`Bus::read_after_fetch`), which the open bus may still carry (`open_bus`).
    #[cold]
    #[inline(never)]
    pub(super) fn cpu_read_cart_ram_after_fetch(&mut self, addr: u16, fetched: u16) -> u8 {
        self.open_bus_fetch = Some(fetched);
        let value = self.cpu_read_slow(addr);
        self.open_bus_fetch = None;
        value
    }

    /// What a CPU read gets where nothing drives the data bus: the byte the bus carried
    /// last, while it holds it. That bus is the cartridge's: ROM and cartridge RAM, and on
    /// a DMG work RAM too (the CGB gives work RAM a bus of its own). SameBoy lets it hold
    /// a byte for 12 ticks of 8 MHz (1.5 M-cycles at normal speed, 3 at double speed) and
    /// then read $FF; an access that itself met the open bus leaves it as it was. So a data
    /// read right after the CPU's fetch of an operand or opcode from the cartridge sees
    /// that byte (`ld a,[hl]` reads $7E, `ld a,[$A000]` reads $A0), at either speed; the
    /// machine keeps nothing and takes the byte from the fetch the CPU names. Reads with no
    /// such fetch just before (`pop`, `ret`, a fetch or a DMA read meeting the open bus)
    /// read $FF: what they would see after a read that met the open bus, or an idle
    /// M-cycle, at normal speed. UNVERIFIED (SameBoy's model; its author calls it naive,
    /// and cartridges differ), and at double speed such reads may see an older byte in
    /// SameBoy.
    fn open_bus(&self) -> u8 {
        let Some(fetched) = self.open_bus_fetch else {
            return 0xFF;
        };
        let hw = &*self.hw;
        match fetched {
            0x0000..=0x7FFF => self.rom_byte(fetched),
            // A fetch that met the open bus itself left the bus decaying: $FF.
            0xA000..=0xBFFF => self
                .rom
                .read_ram_driven(&hw.mbc, &hw.cart_ram, fetched)
                .unwrap_or(0xFF),
            0xC000..=0xFDFF if !hw.cgb.is_cgb() => wram_block(hw, fetched)[0],
            // VRAM and (on a CGB) work RAM have buses of their own; HRAM and I/O are inside
            // the CPU. (Code in a DMG's OAM, which is on the cartridge bus, is not followed.)
            _ => 0xFF,
        }
    }

    /// The boot ROM or cartridge ROM byte at `addr` (0x0000..=0x7FFF).
    fn rom_byte(&self, addr: u16) -> u8 {
        let hw = &*self.hw;
        if addr <= 0x08FF
            && hw.boot_rom_mapped != 0
            && let Some(byte) = self.boot_rom.and_then(|boot| boot.read(addr))
        {
            return byte;
        }
        self.rom.read(&hw.mbc, addr)
    }

    pub(super) fn read_mapped(&mut self, addr: u16) -> u8 {
        let hw = &*self.hw;
        match addr {
            0x0000..=0x7FFF => self.rom_byte(addr),
            0x8000..=0x9FFF => {
                if hw.ppu.cpu_can_access_vram() {
                    *vram_slot(self.hw, addr)
                } else {
                    0xFF
                }
            }
            0xA000..=0xBFFF => self
                .rom
                .read_ram_driven(&hw.mbc, &hw.cart_ram, addr)
                .unwrap_or_else(|| self.open_bus()),
            0xC000..=0xFDFF => *wram_slot(self.hw, addr),
            0xFE00..=0xFE9F => {
                if hw.ppu.cpu_can_access_oam() {
                    hw.oam[usize::from(addr - 0xFE00)]
                } else {
                    0xFF
                }
            }
            // The unusable area, while OAM is reachable: 0 on a DMG (Mooneye `bits/mem_oam`);
            // on a CGB (revision E) the high nibble of the address's low byte, twice (Pan
            // Docs, "FEA0-FEFF range"; SameBoy's CGB-E).
            0xFEA0..=0xFEFF => {
                if !hw.ppu.cpu_can_access_oam() {
                    0xFF
                } else if hw.cgb.is_cgb() {
                    let low = addr as u8;
                    (low & 0xF0) | (low >> 4)
                } else {
                    0x00
                }
            }
            0xFF00..=0xFF7F => self.read_io(addr as u8),
            0xFF80..=0xFFFE => hw.hram[usize::from(addr & 0x7F)],
            0xFFFF => hw.interrupt_enable,
        }
    }

    /// The CPU's write of `value` to `addr` this M-cycle, including DMA and PPU lock-outs.
    #[inline(always)]
    pub(super) fn cpu_write(&mut self, addr: u16, value: u8) {
        if !self.cpu_fast_write(addr, value) {
            self.cpu_write_slow(addr, value);
        }
    }

    /// `cpu_write`'s fast paths: whether it wrote.
    #[inline(always)]
    pub(super) fn cpu_fast_write(&mut self, addr: u16, value: u8) -> bool {
        // Fast path, as in `cpu_read`: work RAM banks 0 and 1 with no DMA, and HRAM, which
        // nothing deferred can observe (no sync) and no lock-out or OAM bug touches. No
        // check looks at them either. The same two tests as `ram_fast_read`, written out on
        // purpose: one helper for both (returning `Option<&mut u8>`) compiled to slower code.
        if let Some(offset) = self.windows.wram_offset(addr) {
            debug_assert!(offset < self.hw.wram.len());
            // SAFETY: as in `wram_fast_byte`.
            unsafe { *self.hw.wram.get_unchecked_mut(offset) = value };
            return true;
        }
        if addr.wrapping_sub(0xFF80) < 0x7F {
            self.hw.hram[usize::from(addr & 0x7F)] = value;
            return true;
        }
        false
    }

    /// `cpu_write` past its fast paths: a VRAM write that may skip the catch-up
    /// (`vram_write_is_quiet`) lands at once, any other goes the general way. Apart: the
    /// test inside the general way's shape made its other writes dearer.
    #[inline(never)]
    pub(super) fn cpu_write_slow(&mut self, addr: u16, value: u8) {
        if addr & 0xE000 == 0x8000 && self.vram_write_is_quiet() {
            self.write_vram_quietly(addr, value);
        } else {
            self.cpu_write_general(addr, value);
        }
    }

    /// A CPU write to VRAM that `vram_write_is_quiet` allows, meeting the PPU's lock as it
    /// stands. Out of line, as the general way: this function then saves no register.
    #[inline(never)]
    fn write_vram_quietly(&mut self, addr: u16, value: u8) {
        let hw = &mut *self.hw;
        if hw.ppu.cpu_can_write_vram() {
            *vram_write_slot(hw, self.written, addr) = value;
        }
    }

    /// `cpu_write_slow`'s general way. It makes the run loop's checks due unless the
    /// write is one that cannot change what they look at (`write_leaves_checks`).
    #[inline(never)]
    fn cpu_write_general(&mut self, addr: u16, value: u8) {
        let interrupt_flag = self.hw.interrupt_flag;
        self.write_slow_now(addr, value);
        if !self.write_leaves_checks(addr, interrupt_flag) {
            self.require_checks();
        }
    }

    /// Whether a slow write to `addr`, made while IF read `interrupt_flag`, left alone
    /// everything the run loop's checks look at, so that the next instruction may be a
    /// plain step: the memories and the mapper, P1, the PPU's scroll, palette, window and
    /// LYC registers, and the APU's. None of them changes IE, the CPU, the DMA or the
    /// run's stop events, and the catch-up they make runs only quiet ticks, which request
    /// nothing. P1 may request the joypad interrupt and LYC raise the STAT line (no other
    /// here requests anything): IF is compared. An APU
    /// write that waits for the next fetch's PC (`ApuState::wants_pc`) needs that
    /// fetch's `opcode_fetched`, which only the checked step makes. The ROM windows and
    /// the work RAM's fast length are rebuilt by the writes that change them, whatever
    /// the checks.
    #[inline(always)]
    fn write_leaves_checks(&self, addr: u16, interrupt_flag: u8) -> bool {
        let hw = &*self.hw;
        let quiet_target = match addr {
            0x0000..=0xFDFF => true,
            0xFF10..=0xFF3F => !hw.apu.wants_pc(),
            0xFF00 | 0xFF42 | 0xFF43 | 0xFF45 | 0xFF47..=0xFF4B => true,
            _ => false,
        };
        quiet_target && hw.interrupt_flag == interrupt_flag
    }

    /// `cpu_write_slow`'s write, with its catch-up and the quiet window after it.
    #[inline(always)]
    fn write_slow_now(&mut self, addr: u16, value: u8) {
        self.settle_clock();
        let io = matches!(addr, 0xFF00..=0xFF7F);
        match addr {
            0x0000..=0x7FFF | 0xA000..=0xFDFF | 0xFF80..=0xFFFE => {}
            0xFF00..=0xFF7F => {
                // Kept in memory: a local would cost every slow write a saved register.
                self.clock.window_end_before_write = self.clock.full_tick_m_cycle;
                self.sync_and_recheck();
            }
            _ => self.sync(),
        }
        if self.dma_blocks(addr) {
            return;
        }
        if addr & 0xFF00 == 0xFE00 {
            self.oam_bug_write_now();
        }
        self.write_mapped(addr, value, true);
        if io {
            self.recheck_quiet_after_write(addr as u8);
        }
    }

    /// The OAM bug's corruption for a CPU write (or an IDU address) in FE00..=FEFF this
    /// M-cycle. Out of line and cold: the slow writes' hot path keeps only the address test,
    /// and a corrupting access needs a DMG touching OAM in mode 2.
    #[cold]
    #[inline(never)]
    pub(super) fn oam_bug_write_now(&mut self) {
        let hw = &mut *self.hw;
        hw.ppu.oam_bug_write(&mut hw.oam);
    }

    /// Whether a CPU write to VRAM now may skip catching the components up
    /// (`FastPaths::quiet_vram_writes`): the PPU runs no step in the deferred M-cycles
    /// (this one's included) and owes no mode-3 dots, so nothing deferred reads VRAM, and
    /// the PPU's VRAM lock is the one the write meets; no OAM DMA may block the bus. The
    /// timer and APU never look at VRAM, and no check of the run loop does.
    #[inline(always)]
    fn vram_write_is_quiet(&self) -> bool {
        let hw = &*self.hw;
        let deferred = self.clock.now() - self.clock.synced_m_cycles;
        self.quiet_vram_writes
            && !hw.dma.is_busy()
            && hw.ppu.fifo_lag == 0
            && !hw.ppu.steps_due_within(deferred)
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
    pub(super) fn write_mapped(&mut self, addr: u16, value: u8, ppu_locks: bool) {
        let hw = &mut *self.hw;
        match addr {
            0x0000..=0x7FFF => {
                let now = self.rom.rtc_now_in(hw);
                self.rom.write(&mut hw.mbc, addr, value, now);
                self.refresh_rom_windows();
            }
            0x8000..=0x9FFF => {
                if !ppu_locks || hw.ppu.cpu_can_write_vram() {
                    *vram_write_slot(hw, self.written, addr) = value;
                }
            }
            0xA000..=0xBFFF => {
                self.written.note_cart_ram();
                let now = self.rom.rtc_now_in(hw);
                if self
                    .rom
                    .write_ram(&mut hw.mbc, &mut hw.cart_ram, addr, value, now)
                {
                    self.events |= Events::BATTERY_DIRTY;
                }
            }
            0xC000..=0xFDFF => {
                *wram_slot(hw, addr) = value;
                self.written.note_wram_banks();
            }
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
}

/// The work RAM byte at `addr` (C000..=FDFF, or an OAM DMA source above it): bank 0 at
/// C000, the SVBK bank at D000 (bank 1 on a DMG), E000 and up echo C000.
#[inline(always)]
pub(super) fn wram_slot(hw: &mut HwState, addr: u16) -> &mut u8 {
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
pub(super) fn wram_block(hw: &HwState, addr: u16) -> &[u8] {
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

/// [`vram_slot`] for a write, noted in `written` (the rewind capture compares VRAM only
/// where written): bank 0 always, with one OR into memory (no branch), and bank 1 when
/// the write reaches it, out of line (a DMG never takes that branch; inline, the two ORs
/// were merged into loads and stores of the whole set on every write).
#[inline(always)]
pub(super) fn vram_write_slot<'a>(
    hw: &'a mut HwState,
    written: &mut WrittenPages,
    addr: u16,
) -> &'a mut u8 {
    written.note_vram();
    if hw.cgb.vbk & 1 != 0 {
        note_vram_bank1(written);
    }
    vram_slot(hw, addr)
}

#[cold]
#[inline(never)]
fn note_vram_bank1(written: &mut WrittenPages) {
    written.note_vram_bank1();
}

/// The VRAM byte at `addr` (8000..=9FFF) in the bank VBK selects (VBK is written only in
/// CGB mode: bank 0 otherwise).
#[inline(always)]
pub(super) fn vram_slot(hw: &mut HwState, addr: u16) -> &mut u8 {
    let offset = usize::from(addr & 0x1FFF);
    if hw.cgb.vbk & 1 == 0 {
        &mut hw.vram[offset]
    } else {
        &mut hw.vram_bank1[offset]
    }
}
