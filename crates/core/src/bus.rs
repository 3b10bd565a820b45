//! The CPU's only view of the machine. One call is one M-cycle.

/// What the SM83 sees of the rest of the Game Boy.
///
/// Every `read`, `write` and `idle` is exactly one M-cycle: the implementation advances all
/// other components by one M-cycle and then makes the access. The order of calls in an
/// instruction therefore *is* its bus timing, checked cycle by cycle by the SM83 test cases.
pub trait Bus {
    /// What [`Bus::far`] lends: the bus that calls not inlined take.
    type Far: Bus;
    /// Runs `work`, a call that is not inlined, on the bus it should see: a bus that keeps
    /// some of its state in locals (the run loop's countdown, `machine::RunBus`) lends the
    /// whole machine with that state written back, so that its own address never escapes
    /// and the locals can live in host registers. Other buses lend themselves.
    fn far<R>(&mut self, work: impl FnOnce(&mut Self::Far) -> R) -> R;
    /// One M-cycle that reads `addr`.
    fn read(&mut self, addr: u16) -> u8;
    /// One M-cycle that writes `value` to `addr`.
    fn write(&mut self, addr: u16, value: u8);
    /// `read` of a data operand at `addr` by an instruction whose previous M-cycle
    /// fetched the byte at `pc - 1` (its opcode or last immediate): what the data bus
    /// still carries if nothing drives it at `addr` (`Machine::open_bus`).
    fn read_after_fetch(&mut self, addr: u16, pc: u16) -> u8 {
        let _ = pc;
        self.read(addr)
    }
    /// Two `read`s, of `addr` and then `addr + 1`, little-endian: an instruction's 16-bit
    /// immediate, made at once where the bus's `read_word_at_once` can.
    #[inline(always)]
    fn read_word(&mut self, addr: u16) -> u16 {
        if let Some(word) = self.read_word_at_once(addr) {
            return word;
        }
        let low = self.read(addr);
        let high = self.read(addr.wrapping_add(1));
        u16::from_le_bytes([low, high])
    }
    /// Both M-cycles of `read_word` at once, where neither can tell (nothing the ticks do
    /// shows in the bytes read, nor the reads in the ticks); `None` makes them one by one.
    #[inline(always)]
    fn read_word_at_once(&mut self, addr: u16) -> Option<u16> {
        let _ = addr;
        None
    }
    /// `read` of 0xFF00 + `low` (LDH), which a bus can tell apart from ROM and work RAM
    /// without looking.
    fn read_high(&mut self, low: u8) -> u8 {
        self.read(0xFF00 | u16::from(low))
    }
    /// `write` of `value` to 0xFF00 + `low` (LDH).
    fn write_high(&mut self, low: u8, value: u8) {
        self.write(0xFF00 | u16::from(low), value);
    }
    /// One M-cycle without a memory access.
    fn idle(&mut self);
    /// The opcode of an instruction that will execute was just fetched from `pc` (not for
    /// an interrupt dispatch). Only [`cpu::step`](crate::cpu::step) reports it: a bus whose
    /// hook does something keeps its checks due (`checks_due`) while it may.
    fn opcode_fetched(&mut self, _pc: u16) {}
    /// One M-cycle in which the CPU is halted or stopped: like `idle`, but an HBlank VRAM
    /// DMA does not run during it (the CGB pauses HDMA while the CPU sleeps).
    fn idle_halted(&mut self) {
        self.idle();
    }
    /// `idle_halted` for a halted CPU: the address bus still holds `pc`, the byte after the
    /// HALT, which the CPU read as it halted (SameBoy's `halt`); the wave channel may read
    /// wave RAM at it (`ApuState::note_bus_address`).
    fn idle_halted_at(&mut self, pc: u16) {
        let _ = pc;
        self.idle_halted();
    }
    /// One M-cycle without a memory access while the IDU puts `addr` on the address bus
    /// (INC/DEC rr, the SP decrement before a push): may trigger the OAM corruption bug.
    fn idle_with_address(&mut self, addr: u16) {
        let _ = addr;
        self.idle();
    }
    /// Interrupts a halted CPU sees at the end of this M-cycle: `IE & IF`, plus, on a DMG,
    /// requests arriving within the next two dots (no cycle passes).
    fn halt_wake_interrupts(&mut self) -> u8 {
        self.pending_interrupts()
    }
    /// Interrupts the HALT instruction sees when it decides between halting and the HALT
    /// bug: `IE & IF`, plus requests arriving before the end of the next M-cycle (no cycle
    /// passes).
    fn halt_bug_interrupts(&mut self) -> u8 {
        self.pending_interrupts()
    }
    /// `IE & IF & 0x1F` as it stands now (no cycle passes).
    fn pending_interrupts(&self) -> u8;
    /// Clears bit `bit` (0..=4) of IF: the CPU is dispatching that interrupt (no cycle passes).
    fn acknowledge_interrupt(&mut self, bit: u8);
    /// One M-cycle of a CPU in STOP mode: like `idle_halted`, but the system counter (DIV,
    /// TIMA, serial, the APU's frame sequencer) stands still, and on a DMG the PPU and APU too.
    fn idle_stopped(&mut self) {
        self.idle_halted();
    }
    /// Whether a P1 line the program selected is low, a pressed button pulling it (no cycle
    /// passes): it decides what STOP does and wakes a stopped CPU.
    fn joypad_line_low(&self) -> bool {
        false
    }
    /// The CPU executed STOP (no cycle passes). Returns false for a plain STOP: the machine
    /// has reset DIV and decides when the CPU wakes up again. Returns true when STOP
    /// switched the CGB's speed; the CPU then calls `finish_speed_switch`.
    fn stop(&mut self) -> bool {
        false
    }
    /// The rest of a CGB speed switch, after STOP's second byte has been read (or not, with
    /// `pause` false): DIV is reset and, with `pause`, the CPU halts until the machine's
    /// `halt_wake_interrupts` reports the clock settled (or an interrupt request).
    fn finish_speed_switch(&mut self, pause: bool) {
        let _ = pause;
    }
    /// The CPU changed what its next step depends on besides `IE & IF`: IME turned on (or
    /// will, after EI), or its mode or the HALT bug changed (no cycle passes). A bus whose run
    /// loop skips the per-instruction checks while nothing changes ([`Bus::checks_due`]) must
    /// make them before the next instruction.
    fn cpu_changed(&mut self) {}
    /// Whether something the per-instruction checks look at may have changed since the run
    /// loop last made them: `IE & IF` (a full M-cycle tick ran, or a register was written),
    /// an event, the CPU's own state ([`Bus::cpu_changed`]). A bus that cannot tell says
    /// true, and the CPU then samples interrupts at every fetch (no cycle passes).
    fn checks_due(&self) -> bool {
        true
    }
    /// `read` of an opcode by a step taken while no checks were due ([`Bus::checks_due`]
    /// false): returns the byte and whether the checks are due after this M-cycle, which
    /// a bus can often tell without looking (the fetch's tick ran in full or not).
    fn read_plain_fetch(&mut self, addr: u16) -> (u8, bool) {
        let value = self.read(addr);
        (value, self.checks_due())
    }
    /// The CPU took a short backward `jr` (a loop of a few bytes) and now stands at its
    /// target, `cpu.pc` (no cycle passes): a run loop that skips polling loops looks at it
    /// before the next instruction (`poll_loop`).
    fn short_loop_jump(&mut self, _target: u16) {}
    /// The CPU, running plainly, took a jump to itself: `code`, the jump's bytes, stands at
    /// its target `pc` (no cycle passes). Until something outside the CPU changes, every
    /// iteration does the same in `code.len() + 1` M-cycles: a bus may let whole iterations
    /// pass at once while they can observe nothing.
    fn jumped_to_self(&mut self, _pc: u16, _code: &[u8]) {}
    /// The CPU executed `LD B,B` (opcode 0x40), the conventional software breakpoint that the
    /// Mooneye test suite uses to signal "test finished" (no cycle passes).
    fn breakpoint(&mut self) {}
}
