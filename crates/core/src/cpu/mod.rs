//! The SM83 CPU: decode and execute, generic over [`Bus`].
//!
//! [`step`] runs one step: an interrupt dispatch, one whole instruction, or one idle M-cycle
//! of a halted, stopped or locked CPU. The CPU never advances time itself: every `Bus::read`,
//! `Bus::write` and `Bus::idle` is one M-cycle, so the order of those calls *is* the
//! instruction's bus timing (checked cycle by cycle against the SM83 single-step cases in
//! `tests/single_step.rs`).
//!
//! The model is non-overlapped: a step begins with the opcode fetch at PC and ends when the
//! instruction's last M-cycle has been spent. On hardware the next opcode fetch overlaps the
//! last cycle of the previous instruction; the difference is invisible on the bus because
//! that fetch is simply counted at the start of the next step instead.

use crate::bus::Bus;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

pub mod disasm;
mod execute;
mod registers;

pub(crate) use execute::{apply_register_op, apply_register_op_to};

pub use disasm::disassemble;
pub(crate) use registers::Registers;

/// The SM83's registers and execution mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct CpuState {
    pub pc: u16,
    pub sp: u16,
    pub a: u8,
    /// Flags: bit 7 Z, 6 N, 5 H, 4 C; the low nibble always reads 0 (POP AF masks it).
    pub f: u8,
    pub b: u8,
    pub c: u8,
    pub d: u8,
    pub e: u8,
    pub h: u8,
    pub l: u8,
    /// 0 off, 1 on, 2 on after the next instruction (EI delay).
    #[state(below = 3)]
    pub ime: u8,
    /// A [`CpuMode`], read through [`CpuState::mode`].
    #[state(below = 4)]
    pub mode_raw: u8,
    /// 1 when the next opcode fetch must not increment PC (the HALT bug).
    #[state(flag)]
    pub halt_bug: u8,
    pub _pad: [u8; 1],
}

/// What the CPU is doing between instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum CpuMode {
    Running = 0,
    /// HALT: idle until `IE & IF` is non-zero.
    Halted = 1,
    /// STOP: idle until a joypad line goes low; the machine wakes it.
    Stopped = 2,
    /// An illegal opcode was executed: idle forever, interrupts included.
    Locked = 3,
}

/// Flag bits of [`CpuState::f`].
pub const FLAG_Z: u8 = 0x80;
pub const FLAG_N: u8 = 0x40;
pub const FLAG_H: u8 = 0x20;
pub const FLAG_C: u8 = 0x10;

impl CpuMode {
    /// The mode stored as [`CpuState::mode_raw`].
    #[inline(always)]
    fn from_raw(raw: u8) -> CpuMode {
        match raw & 3 {
            0 => CpuMode::Running,
            1 => CpuMode::Halted,
            2 => CpuMode::Stopped,
            _ => CpuMode::Locked,
        }
    }
}

/// Whether a CPU with these fields runs plainly ([`CpuState::runs_plainly`]).
#[inline(always)]
fn runs_plainly(mode_raw: u8, halt_bug: u8, ime: u8) -> bool {
    mode_raw | halt_bug | (ime & 2) == 0
}

impl CpuState {
    #[inline]
    pub fn mode(&self) -> CpuMode {
        CpuMode::from_raw(self.mode_raw)
    }
    #[inline]
    pub fn set_mode(&mut self, mode: CpuMode) {
        self.mode_raw = mode as u8;
    }
    /// Whether the CPU runs without anything unusual to do before its next fetch: running
    /// (not halted, stopped or locked), IME settled (0 or 1, no EI waiting) and no HALT bug.
    /// Any other bit pattern of the three fields counts as unusual.
    #[inline(always)]
    pub fn runs_plainly(&self) -> bool {
        runs_plainly(self.mode_raw, self.halt_bug, self.ime)
    }
    #[inline]
    pub fn af(&self) -> u16 {
        u16::from_be_bytes([self.a, self.f])
    }
    #[inline]
    pub fn bc(&self) -> u16 {
        u16::from_be_bytes([self.b, self.c])
    }
    #[inline]
    pub fn de(&self) -> u16 {
        u16::from_be_bytes([self.d, self.e])
    }
    #[inline]
    pub fn hl(&self) -> u16 {
        u16::from_be_bytes([self.h, self.l])
    }
    #[inline]
    pub fn set_af(&mut self, value: u16) {
        // The low nibble of F does not exist in hardware: it always reads back as zero.
        [self.a, self.f] = value.to_be_bytes();
        self.f &= 0xF0;
    }
    #[inline]
    pub fn set_bc(&mut self, value: u16) {
        [self.b, self.c] = value.to_be_bytes();
    }
    #[inline]
    pub fn set_de(&mut self, value: u16) {
        [self.d, self.e] = value.to_be_bytes();
    }
    #[inline]
    pub fn set_hl(&mut self, value: u16) {
        [self.h, self.l] = value.to_be_bytes();
    }
}

/// Runs one step: an interrupt dispatch, one whole instruction, or one idle M-cycle while
/// halted, stopped or locked.
///
/// A halted CPU whose `IE & IF` has become non-zero leaves HALT and, in the same step,
/// either dispatches the interrupt (IME on) or executes the next instruction (IME off).
#[inline(always)]
pub fn step(cpu: &mut CpuState, bus: &mut impl Bus) {
    let mut registers = Registers::from(*cpu);
    step_registers(&mut registers, bus);
    *cpu = registers.into();
}

/// [`step`] on the interpreter's form of the registers.
#[inline(always)]
pub(crate) fn step_registers(cpu: &mut Registers, bus: &mut impl Bus) {
    // One test covers every case but a running CPU with IME settled (0 or 1) and no HALT
    // bug: those go through `begin_unusual_step`, which is the general form of the fetch
    // below. Any other bit pattern of the three fields lands there too.
    let (opcode, ei_was_pending) = if cpu.runs_plainly() {
        match fetch_running(cpu, bus) {
            Some(opcode) => (opcode, false),
            None => return,
        }
    } else {
        let fetch_pc = cpu.pc;
        let Some(fetched) = begin_unusual_step(cpu, bus) else {
            return;
        };
        bus.opcode_fetched(fetch_pc);
        fetched
    };
    execute::execute(cpu, bus, opcode);
    if ei_was_pending && cpu.ime == 2 {
        cpu.ime = 1;
        bus.cpu_changed();
    }
}

/// [`step`] for a CPU that [`runs_plainly`](CpuState::runs_plainly), on a bus that reports
/// when the interrupt sample may have changed ([`Bus::checks_due`]): the run loop takes this
/// path only while nothing has changed since its last checks, so `IE & IF` needs a look only
/// when the fetch's own M-cycle made them due ([`Bus::read_plain_fetch`] says so).
#[inline(always)]
pub(crate) fn step_plain(cpu: &mut Registers, bus: &mut impl Bus) {
    if let Some(opcode) = fetch_plain(cpu, bus) {
        execute::execute(cpu, bus, opcode);
    }
}

/// [`step_plain`] up to its instruction: the opcode to pass to [`execute`], or `None` when
/// an interrupt dispatch took the step.
#[inline(always)]
pub(crate) fn fetch_plain(cpu: &mut Registers, bus: &mut impl Bus) -> Option<u8> {
    debug_assert!(cpu.runs_plainly());
    // PC in a local (the fetch cannot change it): the increment below then adds to the
    // register the fetch used, where `cpu.pc` would be loaded again.
    let pc = cpu.pc;
    let (opcode, checks_due) = bus.read_plain_fetch(pc);
    // Interrupts are sampled during the opcode fetch, as in `step`.
    if checks_due && dispatch_if_pending(cpu, bus) {
        return None;
    }
    cpu.pc = pc.wrapping_add(1);
    Some(opcode)
}

/// [`step_registers`] up to its instruction, for a CPU that
/// [`runs_plainly`](CpuState::runs_plainly) (its own fetch in that case): the opcode to pass
/// to [`execute`], or `None` when an interrupt dispatch took the step. With nothing to do
/// after the instruction (no EI waiting), the run loop can end both kinds of step in one
/// copy of the interpreter.
#[inline(always)]
pub(crate) fn fetch_running(cpu: &mut Registers, bus: &mut impl Bus) -> Option<u8> {
    debug_assert!(cpu.runs_plainly());
    let fetch_pc = cpu.pc;
    let opcode = bus.read(fetch_pc);
    // Interrupts are sampled during the opcode fetch (see `begin_unusual_step`).
    if cpu.ime != 0 && bus.pending_interrupts() != 0 {
        dispatch_interrupt(cpu, bus);
        return None;
    }
    cpu.pc = fetch_pc.wrapping_add(1);
    bus.opcode_fetched(fetch_pc);
    Some(opcode)
}

/// Executes `opcode`, fetched by [`fetch_plain`] or [`fetch_running`].
#[inline(always)]
pub(crate) fn execute(cpu: &mut Registers, bus: &mut impl Bus, opcode: u8) {
    execute::execute(cpu, bus, opcode);
}

/// Runs `work`, a function not inlined, on a copy of the registers, then takes the copy
/// back. The copy's address is what the call sees: `cpu`'s own never escapes, so the
/// run loop's registers (`Core::run`) can live in host registers across its plain steps
/// instead of in memory, loaded and stored by every instruction.
#[inline(always)]
pub(crate) fn out_of_line<R>(cpu: &mut Registers, work: impl FnOnce(&mut Registers) -> R) -> R {
    let mut copy = *cpu;
    let result = work(&mut copy);
    *cpu = copy;
    result
}

/// [`out_of_line`] for work on the registers in [`CpuState`]'s layout.
#[inline(always)]
pub(crate) fn out_of_line_state<R>(
    cpu: &mut Registers,
    work: impl FnOnce(&mut CpuState) -> R,
) -> R {
    let mut copy = CpuState::from(*cpu);
    let result = work(&mut copy);
    *cpu = copy.into();
    result
}

/// `step_plain`'s interrupt sample, out of line: it is due only after a full tick or a slow
/// access. Returns whether an interrupt was dispatched (the step is then over).
#[inline(always)]
fn dispatch_if_pending(cpu: &mut Registers, bus: &mut impl Bus) -> bool {
    out_of_line(cpu, |cpu| {
        bus.far(|bus| dispatch_if_pending_in_memory(cpu, bus))
    })
}

#[cold]
#[inline(never)]
fn dispatch_if_pending_in_memory(cpu: &mut Registers, bus: &mut impl Bus) -> bool {
    if cpu.ime != 0 && bus.pending_interrupts() != 0 {
        dispatch_interrupt_in_memory(cpu, bus);
        return true;
    }
    false
}

/// The start of a step of a CPU that is not plainly running: halted, stopped or locked
/// (one idle M-cycle, or a wake-up), an EI waiting for its instruction, or the HALT bug.
/// Returns the opcode to execute and whether EI's delay ends after it, or `None` when the
/// step is already over (an idle M-cycle or an interrupt dispatch).
#[inline(always)]
fn begin_unusual_step(cpu: &mut Registers, bus: &mut impl Bus) -> Option<(u8, bool)> {
    match cpu.mode() {
        CpuMode::Running => {}
        CpuMode::Halted => {
            if bus.halt_wake_interrupts() == 0 {
                bus.idle_halted_at(cpu.pc);
                return None;
            }
            // A request seen after an idle cycle wakes the CPU, which then fetches and
            // samples interrupts like any other step: from HALT the dispatch starts one
            // M-cycle after the request (Mooneye `halt_ime1_timing2-GS`,
            // `halt_ime0_nointr_timing`, `di_timing-GS`). A halted DMG samples slightly
            // later in the M-cycle, so a PPU request due in the next dot also wakes it
            // (`hblank_ly_scx_timing-GS`, `intr_1_2_timing-GS`, `vblank_stat_intr-GS`);
            // a halted CGB does not (`Machine::halt_wake_interrupts`).
            cpu.set_mode(CpuMode::Running);
        }
        CpuMode::Stopped => {
            // Each M-cycle the stopped CPU looks at the P1 lines; a low one ends STOP, and
            // two running M-cycles pass before the next fetch (SameBoy `GB_cpu_run`).
            // UNVERIFIED: Pan Docs gives no latency.
            bus.idle_stopped();
            if bus.joypad_line_low() {
                cpu.set_mode(CpuMode::Running);
                bus.cpu_changed();
                bus.idle();
                bus.idle();
            }
            return None;
        }
        CpuMode::Locked => {
            bus.idle();
            return None;
        }
    }

    // EI takes effect after the instruction that follows it, so `EI; DI` never lets an
    // interrupt in (Pan Docs, "EI"). Only an IME that was already 2 *before* this
    // instruction becomes 1: an EI executed now must wait for the next one.
    let ei_was_pending = cpu.ime == 2;
    // Interrupts are sampled during the opcode fetch, so a request raised early in the fetch
    // M-cycle is taken at once and the fetched opcode is dropped (Mooneye
    // `timer/rapid_toggle`: the overflow from a TAC write interrupts the next instruction).
    let opcode = bus.read(cpu.pc);
    // `IE & IF` as the CPU samples it at the end of the fetch M-cycle; read only when IME is
    // on, which keeps the common path short.
    if cpu.ime == 1 && bus.pending_interrupts() != 0 {
        dispatch_interrupt(cpu, bus);
        return None;
    }
    // The HALT bug: the fetch after a HALT that did not halt reads the same byte twice.
    cpu.pc = cpu.pc.wrapping_add(u16::from(cpu.halt_bug == 0));
    cpu.halt_bug = 0;
    Some((opcode, ei_was_pending))
}

/// The interrupt dispatch: five M-cycles that push PC and jump to the vector, the first of
/// which is the dropped opcode fetch already made by `step`.
///
/// The vector is chosen *between* the two pushes: if the high-byte push lands on IE (SP was
/// 0x0000) and disables the interrupt being serviced, a lower-priority one is taken instead,
/// or none at all and PC becomes 0x0000 (Mooneye `acceptance/interrupts/ie_push`).
#[inline(always)]
fn dispatch_interrupt(cpu: &mut Registers, bus: &mut impl Bus) {
    out_of_line(cpu, |cpu| {
        bus.far(|bus| dispatch_interrupt_in_memory(cpu, bus))
    });
}

#[inline(never)]
fn dispatch_interrupt_in_memory(cpu: &mut Registers, bus: &mut impl Bus) {
    cpu.ime = 0;
    // `EI; HALT` with an interrupt pending: the HALT bug left PC on the byte after the HALT
    // without counting it, so the handler returns to the HALT (see `execute::halt`).
    if cpu.halt_bug != 0 {
        cpu.halt_bug = 0;
        cpu.pc = cpu.pc.wrapping_sub(1);
    }
    bus.idle();
    let [pc_high, pc_low] = cpu.pc.to_be_bytes();
    cpu.set_sp(cpu.sp().wrapping_sub(1));
    bus.write(cpu.sp(), pc_high);
    let pending = bus.pending_interrupts() & 0x1F;
    cpu.pc = if pending == 0 {
        0x0000
    } else {
        let bit = pending.trailing_zeros() as u8;
        bus.acknowledge_interrupt(bit);
        0x0040 + 8 * u16::from(bit)
    };
    cpu.set_sp(cpu.sp().wrapping_sub(1));
    bus.write(cpu.sp(), pc_low);
    bus.idle();
}
