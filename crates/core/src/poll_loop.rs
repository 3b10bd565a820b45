//! Skipping the iterations of a loop that polls LY or STAT, such as
//! `ldh a,[rLY]; cp 144; jr c, @-4` (wait for VBlank) or `ldh a,[rLY]; cp b; jr nz, @-3`,
//! or a variable in work RAM or HRAM, such as `ld a,[wFlag]; and a; jr z, @-4` (wait for
//! the VBlank handler).
//!
//! Games spend much of a frame in such loops. Once an iteration has read the same value as
//! the one before, the next iterations repeat it exactly: same registers, same flags, same
//! jump, as long as the register reads the same. The run loop then moves the clock on by
//! whole iterations instead of executing them (`Machine::skip_poll_iterations`), never past
//! a change of the register, the end of the machine's quiet window (so no interrupt
//! request, frame or clock edge is passed) or the run's limit. `State` is then byte for
//! byte what executing them leaves (the determinism and render-oracle tests compare runs
//! with deferral on and off).

use crate::bus::Bus;
use crate::cpu::{CpuState, FLAG_C, FLAG_Z};
use crate::io;
use crate::machine::Machine;

/// A CPU read of LY or STAT, as `Machine` reports it (`Events::POLL_READ`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PollRead {
    /// The M-cycle of the read.
    pub m_cycle: u64,
    /// The register's low address byte (`io::LY` or `io::STAT`).
    pub reg: u8,
    /// What the read returned.
    pub value: u8,
}

/// The run loop's memory of the last poll read (where the CPU stood after it) and of the
/// last jump back to a memory polling loop (its address and M-cycle).
#[derive(Default)]
pub(crate) struct PollLoops {
    last: Option<(u16, PollRead)>,
    last_jump: Option<(u16, u64)>,
}

impl PollLoops {
    /// Called after the instruction that made `read`. Skips whole iterations when `cpu`
    /// stands right after the `ldh` of a poll loop whose previous iteration read the same
    /// value one iteration earlier: its registers and flags are then those every further
    /// iteration leaves while the register reads the same.
    pub(crate) fn after_read(
        &mut self,
        cpu: &CpuState,
        machine: &mut Machine,
        read: PollRead,
        limit: u64,
    ) {
        let Some((pc, before)) = self.last.replace((cpu.pc, read)) else {
            return;
        };
        if pc != cpu.pc || before.reg != read.reg || before.value != read.value {
            return;
        }
        let Some(iteration) = loop_m_cycles(cpu, machine, read.reg) else {
            return;
        };
        // The previous iteration ran the loop's ALU instruction on this same value: the
        // flags now are the ones it leaves, and its jump was taken (`loop_m_cycles`). An
        // interrupt in between would have taken longer than one iteration.
        if read.m_cycle.wrapping_sub(before.m_cycle) != iteration {
            return;
        }
        if !runs_on(cpu, machine) {
            return;
        }
        let m_cycle = machine.skip_poll_iterations(Some(read.reg), iteration, limit);
        self.last = Some((cpu.pc, PollRead { m_cycle, ..read }));
    }

    /// Called when the CPU has jumped back to `cpu.pc` (`Machine::take_loop_jump`). Skips
    /// whole iterations when it stands at the load of a memory polling loop whose previous
    /// iteration started exactly one iteration earlier: that iteration ran uninterrupted
    /// (an interrupt takes longer), so its load read what memory holds now (only the CPU
    /// writes work RAM and HRAM, and the loop does not), and every further iteration
    /// leaves the registers it left until the quiet window ends.
    pub(crate) fn at_loop_jump(&mut self, cpu: &CpuState, machine: &mut Machine, limit: u64) {
        let now = machine.m_cycles();
        let Some((pc, before)) = self.last_jump.replace((cpu.pc, now)) else {
            return;
        };
        if pc != cpu.pc {
            return;
        }
        let Some(iteration) = memory_loop_m_cycles(cpu, machine) else {
            machine.not_a_poll_loop(cpu.pc);
            return;
        };
        if now.wrapping_sub(before) != iteration || !runs_on(cpu, machine) {
            return;
        }
        let m_cycle = machine.skip_poll_iterations(None, iteration, limit);
        self.last_jump = Some((cpu.pc, m_cycle));
    }
}

/// A plainly running CPU, no EI pending, and no interrupt about to be dispatched.
fn runs_on(cpu: &CpuState, machine: &Machine) -> bool {
    cpu.mode_raw | cpu.halt_bug | (cpu.ime & 2) == 0
        && (cpu.ime == 0 || machine.pending_interrupts() == 0)
}

/// The M-cycles of one iteration of the poll loop `cpu` stands in, right after its `ldh a,
/// [reg]`, if it is one: `ldh a,[reg]`, then the ALU instruction and jump of
/// [`alu_and_jump_m_cycles`]. None for any other code, and for code outside ROM, work RAM
/// and HRAM (elsewhere reading it could have effects or see locks).
fn loop_m_cycles(cpu: &CpuState, machine: &mut Machine, reg: u8) -> Option<u64> {
    debug_assert!(reg == io::LY || reg == io::STAT);
    let start = cpu.pc.wrapping_sub(2);
    if machine.code_byte(start)? != 0xF0 || machine.code_byte(start.wrapping_add(1))? != reg {
        return None;
    }
    // ldh (3), then the ALU instruction and the jump.
    Some(3 + alu_and_jump_m_cycles(cpu, machine, cpu.pc, start)?)
}

/// The M-cycles of one iteration of the memory polling loop starting at `cpu.pc`, if it
/// is one: `ld a,[nn]` (4) or `ldh a,[n]` (3) from work RAM or HRAM, then the ALU
/// instruction and jump of [`alu_and_jump_m_cycles`].
fn memory_loop_m_cycles(cpu: &CpuState, machine: &mut Machine) -> Option<u64> {
    let start = cpu.pc;
    let (address, length, cycles) = match machine.code_byte(start)? {
        0xFA => {
            let low = machine.code_byte(start.wrapping_add(1))?;
            let high = machine.code_byte(start.wrapping_add(2))?;
            (u16::from_le_bytes([low, high]), 3, 4)
        }
        0xF0 => (
            0xFF00 | u16::from(machine.code_byte(start.wrapping_add(1))?),
            2,
            3,
        ),
        _ => return None,
    };
    if !matches!(address, 0xC000..=0xFDFF | 0xFF80..=0xFFFE) {
        return None;
    }
    Some(cycles + alu_and_jump_m_cycles(cpu, machine, start.wrapping_add(length), start)?)
}

/// The M-cycles of the rest of a polling loop from `at`: one ALU instruction whose result
/// depends only on A and registers the loop never changes (not ADC/SBC, not `[hl]`; or
/// `bit n,a`), then a conditional `jr` back to `start` (3), which the current flags take.
/// None for any other code.
fn alu_and_jump_m_cycles(
    cpu: &CpuState,
    machine: &mut Machine,
    at: u16,
    start: u16,
) -> Option<u64> {
    let op = machine.code_byte(at)?;
    // (bytes, M-cycles) of the ALU instruction.
    let (length, cycles) = match op {
        // add/sub/and/xor/or/cp a,d8.
        0xC6 | 0xD6 | 0xE6 | 0xEE | 0xF6 | 0xFE => (2, 2),
        // add/sub/and/xor/or/cp a,r (not [hl], not adc/sbc, which read the carry).
        0x80..=0x87 | 0x90..=0x97 | 0xA0..=0xBF if op & 7 != 6 => (1, 1),
        // bit n,a (keeps C, which no iteration changes).
        0xCB if machine.code_byte(at.wrapping_add(1))? & 0xC7 == 0x47 => (2, 2),
        _ => return None,
    };
    let jr = at.wrapping_add(length);
    let offset = machine.code_byte(jr.wrapping_add(1))? as i8;
    let taken = match machine.code_byte(jr)? {
        0x20 => cpu.f & FLAG_Z == 0,
        0x28 => cpu.f & FLAG_Z != 0,
        0x30 => cpu.f & FLAG_C == 0,
        0x38 => cpu.f & FLAG_C != 0,
        _ => return None,
    };
    let target = jr.wrapping_add(2).wrapping_add_signed(i16::from(offset));
    if !taken || target != start {
        return None;
    }
    Some(cycles + 3)
}
