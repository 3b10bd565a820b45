//! [`RunBus`]: the machine as the run loop's steps see it, with the quiet window's
//! countdown carried in a local.

use super::*;

/// `Bus` for the run loop (`Core::run`): the machine, with `Clock::ticks_left` held here
/// instead of in the machine. Every call not inlined takes the machine's address, which
/// pins its fields in memory, so its countdown was a load and a store on every M-cycle,
/// each waiting on the one before; this value's address never escapes, so the count can
/// stay in a host register across the interpreter's arms. The machine's own count is
/// stale meanwhile: whatever may read or move the clock runs through [`Bus::far`], which
/// hands the count over and takes it back, and dropping this hands it back for good.
pub(crate) struct RunBus<'m, 'a> {
    machine: &'m mut Machine<'a>,
    /// `Clock::ticks_left` while this exists.
    ticks_left: u64,
}

impl<'m, 'a> RunBus<'m, 'a> {
    #[inline(always)]
    pub(crate) fn new(machine: &'m mut Machine<'a>) -> RunBus<'m, 'a> {
        let ticks_left = machine.clock.ticks_left;
        RunBus {
            machine,
            ticks_left,
        }
    }

    /// `Machine::take_checks_due_at` (which leaves the clock alone).
    #[inline(always)]
    pub(crate) fn take_checks_due_at(&mut self, pc: u16) -> bool {
        self.machine.take_checks_due_at(pc)
    }

    /// `Machine::tick_at` on the count held here.
    #[inline(always)]
    fn tick_at(&mut self, addr: u16) {
        self.ticks_left -= 1;
        if self.ticks_left == 0 {
            rarely();
            self.far(|machine| machine.tick_full(Some(addr)));
        }
    }

    /// `Machine::tick` on the count held here.
    #[inline(always)]
    fn tick(&mut self) {
        self.ticks_left -= 1;
        if self.ticks_left == 0 {
            rarely();
            self.far(|machine| machine.tick_full(None));
        }
    }
}

impl Drop for RunBus<'_, '_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.machine.clock.ticks_left = self.ticks_left;
    }
}

/// The machine's own `Bus` methods, each the same M-cycle: the fast paths (ROM windows,
/// work RAM, HRAM, quiet ticks) here on the count held, everything else on the machine.
impl<'a> Bus for RunBus<'_, 'a> {
    type Far = Machine<'a>;
    #[inline(always)]
    fn far<R>(&mut self, work: impl FnOnce(&mut Machine<'a>) -> R) -> R {
        self.machine.clock.ticks_left = self.ticks_left;
        let result = work(self.machine);
        self.ticks_left = self.machine.clock.ticks_left;
        result
    }
    #[inline(always)]
    fn read(&mut self, addr: u16) -> u8 {
        self.tick_at(addr);
        if let Some(value) = self.machine.cpu_fast_read(addr) {
            return value;
        }
        self.far(|machine| machine.cpu_read_slow(addr))
    }
    #[inline(always)]
    fn read_after_fetch(&mut self, addr: u16, pc: u16) -> u8 {
        self.tick_at(addr);
        if let Some(value) = self.machine.cpu_fast_read(addr) {
            return value;
        }
        if addr & 0xE000 == 0xA000 {
            return self
                .far(|machine| machine.cpu_read_cart_ram_after_fetch(addr, pc.wrapping_sub(1)));
        }
        self.far(|machine| machine.cpu_read_slow(addr))
    }
    #[inline(always)]
    fn read_word_at_once(&mut self, addr: u16) -> Option<u16> {
        if self.ticks_left <= 2 {
            return None;
        }
        let word = self.machine.quiet_word(addr)?;
        self.ticks_left -= 2;
        Some(word)
    }
    #[inline(always)]
    fn write(&mut self, addr: u16, value: u8) {
        self.tick_at(addr);
        if !self.machine.cpu_fast_write(addr, value) {
            self.far(|machine| machine.cpu_write_slow(addr, value));
        }
    }
    #[inline(always)]
    fn read_high(&mut self, low: u8) -> u8 {
        self.tick_at(0xFF00 | u16::from(low));
        if (0x80..=0xFE).contains(&low) {
            return self.machine.hw.hram[usize::from(low & 0x7F)];
        }
        self.far(|machine| machine.cpu_read_slow(0xFF00 | u16::from(low)))
    }
    #[inline(always)]
    fn write_high(&mut self, low: u8, value: u8) {
        self.tick_at(0xFF00 | u16::from(low));
        if (0x80..=0xFE).contains(&low) {
            self.machine.hw.hram[usize::from(low & 0x7F)] = value;
            return;
        }
        self.far(|machine| machine.cpu_write_slow(0xFF00 | u16::from(low), value));
    }
    #[inline(always)]
    fn idle(&mut self) {
        self.tick();
    }
    fn opcode_fetched(&mut self, pc: u16) {
        self.far(|machine| machine.opcode_fetched(pc));
    }
    fn idle_halted(&mut self) {
        self.far(|machine| machine.idle_halted());
    }
    #[inline(always)]
    fn idle_halted_at(&mut self, pc: u16) {
        self.tick_at(pc);
    }
    #[inline(always)]
    fn idle_with_address(&mut self, addr: u16) {
        self.tick_at(addr);
        if addr & 0xFF00 == 0xFE00 {
            self.far(|machine| machine.idle_in_oam());
        }
    }
    fn halt_wake_interrupts(&mut self) -> u8 {
        self.far(|machine| machine.halt_wake_interrupts())
    }
    fn halt_bug_interrupts(&mut self) -> u8 {
        self.far(|machine| machine.halt_bug_interrupts())
    }
    #[inline(always)]
    fn pending_interrupts(&self) -> u8 {
        self.machine.pending_interrupts()
    }
    fn acknowledge_interrupt(&mut self, bit: u8) {
        self.far(|machine| machine.acknowledge_interrupt(bit));
    }
    fn idle_stopped(&mut self) {
        self.far(|machine| machine.idle_stopped());
    }
    fn joypad_line_low(&self) -> bool {
        self.machine.joypad_line_low()
    }
    fn stop(&mut self) -> bool {
        self.far(|machine| machine.stop())
    }
    fn finish_speed_switch(&mut self, pause: bool) {
        self.far(|machine| machine.finish_speed_switch(pause));
    }
    #[inline(always)]
    fn cpu_changed(&mut self) {
        self.machine.require_checks();
    }
    #[inline(always)]
    fn checks_due(&self) -> bool {
        self.machine.checks_due
    }
    #[inline(always)]
    fn read_plain_fetch(&mut self, addr: u16) -> (u8, bool) {
        debug_assert!(
            !self.machine.checks_due,
            "the run loop takes plain steps with no checks due"
        );
        self.ticks_left -= 1;
        if self.ticks_left == 0 {
            return self.far(|machine| machine.read_plain_fetch_in_full_tick(addr));
        }
        // As `Machine::read_plain_fetch`: the run loop found `addr` in these ranges.
        if self.machine.plain_fetch.has_rom(addr) {
            return (self.machine.rom_window_byte(addr), false);
        }
        debug_assert!(
            self.machine.plain_fetch.has_wram(addr),
            "plain fetch at {addr:04X}"
        );
        (self.machine.hw.wram[usize::from(addr & 0x1FFF)], false)
    }
    #[inline(always)]
    fn short_loop_jump(&mut self, target: u16) {
        if target != self.machine.not_a_poll_loop {
            self.far(|machine| machine.look_at_loop_jump(target));
        }
    }
    fn jumped_to_self(&mut self, pc: u16, code: &[u8]) {
        self.far(|machine| machine.jumped_to_self(pc, code));
    }
    fn breakpoint(&mut self) {
        self.far(|machine| machine.breakpoint());
    }
}
