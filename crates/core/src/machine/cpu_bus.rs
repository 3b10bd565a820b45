//! [`Bus`] for the machine: the CPU's M-cycles.

use super::*;

impl<'a> Machine<'a> {
    /// `Bus::read_plain_fetch` in an M-cycle whose tick runs in full (which makes the
    /// checks due), its counter already at 0: out of the run loop's way.
    #[cold]
    #[inline(never)]
    pub(super) fn read_plain_fetch_in_full_tick(&mut self, addr: u16) -> (u8, bool) {
        self.tick_full(Some(addr));
        (self.cpu_read(addr), true)
    }

    /// `Bus::idle_with_address` with an address in FE00..=FEFF: the OAM bug's write-like
    /// corruption. Out of line and cold: INC/DEC rr and PUSH inline the check, and only
    /// code that points a register pair into OAM (a test ROM, rarely a game) goes here.
    #[cold]
    #[inline(never)]
    pub(super) fn idle_in_oam(&mut self) {
        self.require_checks();
        self.sync();
        self.oam_bug_write_now();
    }
}

impl Machine<'_> {
    /// `Bus::jumped_to_self` (`FastPaths::self_jump_skipping`): moves the clock on by as
    /// many whole iterations of the jump as fit in the quiet window but its last tick
    /// (which runs in full), while no checks are due. The iterations passed would fetch
    /// and read the same bytes of ROM, work RAM or HRAM (`code_byte`: reads that change
    /// nothing) in quiet M-cycles and find no interrupt the run loop's last checks did not,
    /// and the full tick still comes in the same M-cycle of an iteration: exactly what
    /// running them leaves. Not during OAM DMA, whose copying may stand in for the bytes
    /// they read.
    #[cold]
    #[inline(never)]
    fn skip_self_jumps(&mut self, pc: u16, code: &[u8]) {
        if !self.self_jump_skipping || self.checks_due || self.hw.dma.is_busy() {
            return;
        }
        for (at, &byte) in (0u16..).zip(code) {
            if self.code_byte(pc.wrapping_add(at)) != Some(byte) {
                return;
            }
        }
        let iteration = code.len() as u64 + 1;
        let skipped = (self.clock.ticks_left - 1) / iteration * iteration;
        self.clock.skip(skipped);
    }
}

impl Bus for Machine<'_> {
    type Far = Self;
    #[inline(always)]
    fn far<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> R {
        work(self)
    }
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.tick_at(addr);
        self.cpu_read(addr)
    }
    /// As `read` (`cpu_read`'s fast paths, then its slow path); only a read of cartridge RAM
    /// looks at `pc`, as it may meet the open bus.
    #[inline(always)]
    fn read_after_fetch(&mut self, addr: u16, pc: u16) -> u8 {
        self.tick_at(addr);
        if let Some(value) = self.cpu_fast_read(addr) {
            return value;
        }
        if addr & 0xE000 == 0xA000 {
            return self.cpu_read_cart_ram_after_fetch(addr, pc.wrapping_sub(1));
        }
        self.cpu_read_slow(addr)
    }
    /// Both bytes at once when both M-cycles are quiet (neither tick runs in full) and
    /// both lie in the ROM windows or both in the work RAM's fast length: reads there
    /// change nothing and see nothing a quiet tick changes, so their order against the
    /// ticks cannot tell. Else `None`: two `read`s.
    #[inline(always)]
    fn read_word_at_once(&mut self, addr: u16) -> Option<u16> {
        if self.clock.ticks_left <= 2 {
            return None;
        }
        let word = self.quiet_word(addr)?;
        self.clock.skip(2);
        Some(word)
    }
    #[inline(always)]
    fn write(&mut self, addr: u16, value: u8) {
        self.tick_at(addr);
        self.cpu_write(addr, value);
    }
    /// As `read` (no ROM or work RAM up there): HRAM, or the slow path's I/O and IE.
    #[inline(always)]
    fn read_high(&mut self, low: u8) -> u8 {
        self.tick_at(0xFF00 | u16::from(low));
        if (0x80..=0xFE).contains(&low) {
            return self.hw.hram[usize::from(low & 0x7F)];
        }
        self.cpu_read_slow(0xFF00 | u16::from(low))
    }
    /// As `write`: HRAM, or the slow path's I/O and IE.
    #[inline(always)]
    fn write_high(&mut self, low: u8, value: u8) {
        self.tick_at(0xFF00 | u16::from(low));
        if (0x80..=0xFE).contains(&low) {
            self.hw.hram[usize::from(low & 0x7F)] = value;
            return;
        }
        self.cpu_write_slow(0xFF00 | u16::from(low), value);
    }
    #[inline(always)]
    fn idle_with_address(&mut self, addr: u16) {
        self.tick_at(addr);
        if addr & 0xFF00 == 0xFE00 {
            self.idle_in_oam();
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
    fn idle_halted_at(&mut self, pc: u16) {
        self.tick_at(pc);
    }
    #[inline(always)]
    fn opcode_fetched(&mut self, pc: u16) {
        self.hblank_dma_after_fetch();
        // The write just before (the last M-cycle of its instruction) left the APU waiting
        // for the CPU's PC then, which is this fetch's address (`ApuState::wants_pc`).
        if self.hw.apu.wants_pc() {
            self.hw.apu.take_pc(pc);
        }
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
    fn jumped_to_self(&mut self, pc: u16, code: &[u8]) {
        self.skip_self_jumps(pc, code);
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
        if self.clock.count_tick() {
            return self.read_plain_fetch_in_full_tick(addr);
        }
        // A ROM or work RAM fetch in a quiet M-cycle (the usual case) leaves the checks as
        // they were: the answer is a constant there, so the step goes on without testing
        // it. The run loop has just found `addr` in `plain_fetch`'s ranges
        // (`take_checks_due_at`), and they hold while no checks are due.
        if self.plain_fetch.has_rom(addr) {
            return (self.rom_window_byte(addr), false);
        }
        debug_assert!(self.plain_fetch.has_wram(addr), "plain fetch at {addr:04X}");
        (self.hw.wram[usize::from(addr & 0x1FFF)], false)
    }
    fn stop(&mut self) -> bool {
        self.stop_cpu()
    }
    fn idle_stopped(&mut self) {
        self.idle_stopped_now();
    }
    fn joypad_line_low(&self) -> bool {
        self.hw.joypad.lines != 0x0F
    }
    fn finish_speed_switch(&mut self, pause: bool) {
        self.finish_speed_switch_now(pause);
    }
}
