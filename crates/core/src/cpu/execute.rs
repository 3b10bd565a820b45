//! Instruction bodies and the opcode table.
//!
//! Operands are values of small `Copy` types ([`Loc8`], [`R16`], [`Cond`], [`AluOp`]): one
//! body serves every form of an instruction (`ld8` is every 8-bit LD, `alu` every
//! ADD/ADC/SUB/SBC/AND/XOR/OR/CP). Each arm of the opcode `match` passes constants, and the
//! bodies are `#[inline(always)]`, so the compiler folds the operand `match`es away and every
//! opcode becomes straight-line code behind one jump table.
//!
//! Timing: every `Bus` call is one M-cycle, so the calls below are the instruction's bus
//! activity in order. Cycle counts are Pan Docs' / Gekkio's (opcode fetch included), checked
//! per cycle by the SM83 single-step cases.

use super::{CpuMode, CpuState, FLAG_C, FLAG_H, FLAG_N, FLAG_Z, Registers};
use crate::bus::Bus;

mod operands;

use operands::*;

#[inline(always)]
const fn flags(z: bool, n: bool, h: bool, c: bool) -> u8 {
    // `as`, as `u8::from` is not const.
    ((z as u8) << 7) | ((n as u8) << 6) | ((h as u8) << 5) | ((c as u8) << 4)
}

/// Z and H of `inc` (N clear; C is the caller's) by the result: one load in place of the
/// two tests.
static INC_FLAGS: [u8; 256] = inc_dec_flags(false);
/// Z, N and H of `dec` by the result.
static DEC_FLAGS: [u8; 256] = inc_dec_flags(true);

const fn inc_dec_flags(dec: bool) -> [u8; 256] {
    let mut table = [0; 256];
    let mut result = 0;
    while result < 256 {
        // The low nibble wrapped: from 0xF to 0 (a carry) or from 0 to 0xF (a borrow).
        let nibble_wrapped = result & 0x0F == if dec { 0x0F } else { 0 };
        table[result] = flags(result == 0, dec, nibble_wrapped, false);
        result += 1;
    }
    table
}

/// Z, N and C of an 8-bit addition (N clear) or subtraction (N set) by its 9-bit result:
/// the sum `a + value + carry`, or the difference `a - value - carry` modulo 512, whose
/// bit 8 is the borrow. H, the carry into bit 4, is bit 4 of `a ^ value ^ result` (as
/// bit 8 is the carry out) for either: a load and that xor in place of the tests on the
/// nibbles and the comparisons.
static ADD_FLAGS: [u8; 512] = add_sub_flags(false);
static SUB_FLAGS: [u8; 512] = add_sub_flags(true);

const fn add_sub_flags(sub: bool) -> [u8; 512] {
    let mut table = [0; 512];
    let mut result = 0;
    while result < 512 {
        table[result] = flags(result & 0xFF == 0, sub, false, result > 0xFF);
        result += 1;
    }
    table
}

/// H of an 8-bit addition or subtraction of `value` to or from `a` giving `result`.
#[inline(always)]
fn half_carry(a: u8, value: u8, result: u8) -> u8 {
    ((a ^ value ^ result) & 0x10) << 1
}

#[inline(always)]
fn carry(cpu: &Registers) -> u8 {
    (cpu.f >> 4) & 1
}

#[inline(always)]
fn fetch_imm8(cpu: &mut Registers, bus: &mut impl Bus) -> u8 {
    let value = bus.read(cpu.pc);
    cpu.pc = cpu.pc.wrapping_add(1);
    value
}

#[inline(always)]
fn fetch_imm16(cpu: &mut Registers, bus: &mut impl Bus) -> u16 {
    let value = bus.read_word(cpu.pc);
    cpu.pc = cpu.pc.wrapping_add(2);
    value
}

/// Every 8-bit LD, LDH and `ld [hl±]`: the source's cycles, then the destination's.
#[inline(always)]
fn ld8(cpu: &mut Registers, bus: &mut impl Bus, dst: Loc8, src: Loc8) {
    let value = src.get(cpu, bus);
    dst.set(cpu, bus, value);
}

/// `ld rr, $nnnn`: three M-cycles.
#[inline(always)]
fn ld16_imm(cpu: &mut Registers, bus: &mut impl Bus, dst: R16) {
    let value = fetch_imm16(cpu, bus);
    dst.set(cpu, value);
}

/// `ld [$nnnn], sp`: five M-cycles, low byte first.
#[inline(always)]
fn ld_abs_sp(cpu: &mut Registers, bus: &mut impl Bus) {
    let address = fetch_imm16(cpu, bus);
    let [low, high] = cpu.sp().to_le_bytes();
    bus.write(address, low);
    bus.write(address.wrapping_add(1), high);
}

/// `ld sp, hl`: two M-cycles (the 16-bit transfer takes an internal one).
#[inline(always)]
fn ld_sp_hl(cpu: &mut Registers, bus: &mut impl Bus) {
    bus.idle();
    cpu.set_sp(cpu.hl);
}

/// SP plus a signed immediate, with the flags of an unsigned 8-bit add on SP's low byte
/// (ADD SP,e8 and LD HL,SP+e8 share them).
#[inline(always)]
fn sp_plus_offset(cpu: &mut Registers, bus: &mut impl Bus) -> u16 {
    let offset = fetch_imm8(cpu, bus);
    let sp = cpu.sp();
    let low = sp as u8;
    let half = (low & 0x0F) + (offset & 0x0F) > 0x0F;
    let full = u16::from(low) + u16::from(offset) > 0xFF;
    cpu.f = flags(false, false, half, full);
    sp.wrapping_add_signed(i16::from(offset as i8))
}

/// `add sp, e8`: four M-cycles.
#[inline(always)]
fn add_sp(cpu: &mut Registers, bus: &mut impl Bus) {
    let result = sp_plus_offset(cpu, bus);
    bus.idle();
    bus.idle();
    cpu.set_sp(result);
}

/// `ld hl, sp+e8`: three M-cycles.
#[inline(always)]
fn ld_hl_sp_offset(cpu: &mut Registers, bus: &mut impl Bus) {
    let result = sp_plus_offset(cpu, bus);
    bus.idle();
    cpu.hl = result;
}

/// Pushes a word: an internal M-cycle (SP pre-decrement), then high byte, then low byte.
/// Shared by PUSH, CALL and RST.
#[inline(always)]
fn push16(cpu: &mut Registers, bus: &mut impl Bus, value: u16) {
    let [high, low] = value.to_be_bytes();
    bus.idle_with_address(cpu.sp());
    cpu.set_sp(cpu.sp().wrapping_sub(1));
    bus.write(cpu.sp(), high);
    cpu.set_sp(cpu.sp().wrapping_sub(1));
    bus.write(cpu.sp(), low);
}

/// Pops a word: low byte, then high byte.
#[inline(always)]
fn pop16(cpu: &mut Registers, bus: &mut impl Bus) -> u16 {
    let low = bus.read(cpu.sp());
    cpu.set_sp(cpu.sp().wrapping_add(1));
    let high = bus.read(cpu.sp());
    cpu.set_sp(cpu.sp().wrapping_add(1));
    u16::from_le_bytes([low, high])
}

#[inline(always)]
fn push(cpu: &mut Registers, bus: &mut impl Bus, src: R16) {
    let value = src.get(cpu);
    push16(cpu, bus, value);
}

#[inline(always)]
fn pop(cpu: &mut Registers, bus: &mut impl Bus, dst: R16) {
    let value = pop16(cpu, bus);
    dst.set(cpu, value);
}

/// `jp [cc,] $nnnn`: three M-cycles, four when taken.
#[inline(always)]
fn jp(cpu: &mut Registers, bus: &mut impl Bus, cond: Cond) {
    let target = fetch_imm16(cpu, bus);
    if cond.holds(cpu) {
        bus.idle();
        if target.wrapping_add(3) == cpu.pc {
            let plainly = cpu.runs_plainly();
            bus.far(|bus| jumped_to_self(plainly, bus, target, cond, None));
        }
        cpu.pc = target;
    }
}

/// `jr [cc,] e8`: two M-cycles, three when taken (the extra one adds the offset).
#[inline(always)]
fn jr(cpu: &mut Registers, bus: &mut impl Bus, cond: Cond) {
    let offset = fetch_imm8(cpu, bus) as i8;
    if cond.holds(cpu) {
        bus.idle();
        cpu.pc = cpu.pc.wrapping_add_signed(i16::from(offset));
        // A load, one ALU instruction and this jump: the shape of a polling loop.
        if (-7..=-5).contains(&offset) {
            bus.short_loop_jump(cpu.pc);
        } else if offset == -2 {
            let (plainly, pc) = (cpu.runs_plainly(), cpu.pc);
            bus.far(|bus| jumped_to_self(plainly, bus, pc, cond, Some(offset)));
        }
    }
}

/// A taken jump whose target `pc` seems to be the jump itself (`jp`, or `jr` with its
/// `offset`): the bus may pass whole iterations at once (`Bus::jumped_to_self`) while the
/// CPU runs plainly (an EI taking effect after this jump would change the next one). The
/// bus gets the bytes that must stand at `pc` for the jump to be what runs there next: a
/// HALT bug's repeated fetch makes an address that only seems to point back. Rare: out
/// of the jumps' own code. Takes whether the CPU runs plainly, not the registers: a
/// reference to them passed to a call not inlined would keep the run loop's registers in
/// memory for the whole loop (`cpu::out_of_line`).
#[cold]
#[inline(never)]
fn jumped_to_self(runs_plainly: bool, bus: &mut impl Bus, pc: u16, cond: Cond, jr: Option<i8>) {
    if !runs_plainly {
        return;
    }
    let index = match cond {
        Cond::Always => 0,
        Cond::Nz => 1,
        Cond::Z => 2,
        Cond::Nc => 3,
        Cond::C => 4,
    };
    match jr {
        Some(offset) => {
            let opcode = [0x18, 0x20, 0x28, 0x30, 0x38][index];
            bus.jumped_to_self(pc, &[opcode, offset as u8]);
        }
        None => {
            let opcode = [0xC3, 0xC2, 0xCA, 0xD2, 0xDA][index];
            let [low, high] = pc.to_le_bytes();
            bus.jumped_to_self(pc, &[opcode, low, high]);
        }
    }
}

/// `call [cc,] $nnnn`: three M-cycles, six when taken.
#[inline(always)]
fn call(cpu: &mut Registers, bus: &mut impl Bus, cond: Cond) {
    let target = fetch_imm16(cpu, bus);
    if cond.holds(cpu) {
        push16(cpu, bus, cpu.pc);
        cpu.pc = target;
    }
}

/// `ret`: four M-cycles.
#[inline(always)]
fn ret(cpu: &mut Registers, bus: &mut impl Bus) {
    cpu.pc = pop16(cpu, bus);
    bus.idle();
}

/// `ret cc`: two M-cycles, five when taken (evaluating the condition costs one).
#[inline(always)]
fn ret_if(cpu: &mut Registers, bus: &mut impl Bus, cond: Cond) {
    bus.idle();
    if cond.holds(cpu) {
        ret(cpu, bus);
    }
}

/// `rst $nn`: four M-cycles.
#[inline(always)]
fn rst(cpu: &mut Registers, bus: &mut impl Bus, vector: u16) {
    push16(cpu, bus, cpu.pc);
    cpu.pc = vector;
}

/// Every accumulator ALU operation.
#[inline(always)]
fn alu(cpu: &mut Registers, bus: &mut impl Bus, op: AluOp, src: Loc8) {
    let value = src.get(cpu, bus);
    alu_value(cpu, op, value);
}

/// The accumulator ALU operation `op` with operand `value`, on A and F.
#[inline(always)]
fn alu_value(cpu: &mut Registers, op: AluOp, value: u8) {
    let a = cpu.a;
    match op {
        AluOp::Add | AluOp::Adc => {
            let carry_in = if op == AluOp::Adc { carry(cpu) } else { 0 };
            let sum = u16::from(a) + u16::from(value) + u16::from(carry_in);
            let result = sum as u8;
            cpu.f = ADD_FLAGS[usize::from(sum & 0x1FF)] | half_carry(a, value, result);
            cpu.a = result;
        }
        AluOp::Sub | AluOp::Sbc | AluOp::Cp => {
            let carry_in = if op == AluOp::Sbc { carry(cpu) } else { 0 };
            let difference = u16::from(a)
                .wrapping_sub(u16::from(value))
                .wrapping_sub(u16::from(carry_in));
            let result = difference as u8;
            cpu.f = SUB_FLAGS[usize::from(difference & 0x1FF)] | half_carry(a, value, result);
            if op != AluOp::Cp {
                cpu.a = result;
            }
        }
        AluOp::And => {
            cpu.a = a & value;
            cpu.f = flags(cpu.a == 0, false, true, false);
        }
        AluOp::Xor => {
            cpu.a = a ^ value;
            cpu.f = flags(cpu.a == 0, false, false, false);
        }
        AluOp::Or => {
            cpu.a = a | value;
            cpu.f = flags(cpu.a == 0, false, false, false);
        }
    }
}

/// `inc r` / `inc [hl]` (read, then write: three M-cycles for `[hl]`). C is kept.
#[inline(always)]
fn inc8(cpu: &mut Registers, bus: &mut impl Bus, loc: Loc8) {
    let value = loc.get(cpu, bus);
    let result = value.wrapping_add(1);
    cpu.f = (cpu.f & FLAG_C) | INC_FLAGS[usize::from(result)];
    loc.set(cpu, bus, result);
}

/// `dec r` / `dec [hl]`. C is kept.
#[inline(always)]
fn dec8(cpu: &mut Registers, bus: &mut impl Bus, loc: Loc8) {
    let value = loc.get(cpu, bus);
    let result = value.wrapping_sub(1);
    cpu.f = (cpu.f & FLAG_C) | DEC_FLAGS[usize::from(result)];
    loc.set(cpu, bus, result);
}

/// `inc rr` / `dec rr`: two M-cycles, no flags.
#[inline(always)]
fn inc16(cpu: &mut Registers, bus: &mut impl Bus, reg: R16, delta: i16) {
    bus.idle_with_address(reg.get(cpu));
    let value = reg.get(cpu).wrapping_add_signed(delta);
    reg.set(cpu, value);
}

/// `add hl, rr`: two M-cycles; Z is kept, H and C come from bits 11 and 15.
#[inline(always)]
fn add_hl(cpu: &mut Registers, bus: &mut impl Bus, src: R16) {
    bus.idle();
    let hl = cpu.hl;
    let value = src.get(cpu);
    let (result, full) = hl.overflowing_add(value);
    let half = (hl & 0x0FFF) + (value & 0x0FFF) > 0x0FFF;
    cpu.f = (cpu.f & FLAG_Z) | flags(false, false, half, full);
    cpu.hl = result;
}

/// The result and carry-out of a CB shift or rotate.
#[inline(always)]
fn shift(cpu: &Registers, op: ShiftOp, value: u8) -> (u8, bool) {
    let carry_in = carry(cpu);
    match op {
        ShiftOp::Rlc => (value.rotate_left(1), value & 0x80 != 0),
        ShiftOp::Rrc => (value.rotate_right(1), value & 1 != 0),
        ShiftOp::Rl => ((value << 1) | carry_in, value & 0x80 != 0),
        ShiftOp::Rr => ((value >> 1) | (carry_in << 7), value & 1 != 0),
        ShiftOp::Sla => (value << 1, value & 0x80 != 0),
        ShiftOp::Sra => ((value >> 1) | (value & 0x80), value & 1 != 0),
        ShiftOp::Swap => (value.rotate_left(4), false),
        ShiftOp::Srl => (value >> 1, value & 1 != 0),
    }
}

/// RLCA RRCA RLA RRA: one M-cycle, Z always cleared.
#[inline(always)]
fn shift_a(cpu: &mut Registers, op: ShiftOp) {
    let (result, carry_out) = shift(cpu, op, cpu.a);
    cpu.a = result;
    cpu.f = flags(false, false, false, carry_out);
}

/// `daa`: corrects A after a BCD addition or subtraction, using N, H and C.
#[inline(always)]
fn daa(cpu: &mut Registers) {
    let mut a = cpu.a;
    let mut carry_out = cpu.f & FLAG_C != 0;
    let half = cpu.f & FLAG_H != 0;
    if cpu.f & FLAG_N == 0 {
        if carry_out || a > 0x99 {
            a = a.wrapping_add(0x60);
            carry_out = true;
        }
        if half || a & 0x0F > 0x09 {
            a = a.wrapping_add(0x06);
        }
    } else {
        if carry_out {
            a = a.wrapping_sub(0x60);
        }
        if half {
            a = a.wrapping_sub(0x06);
        }
    }
    cpu.a = a;
    cpu.f = (cpu.f & FLAG_N) | flags(a == 0, false, false, carry_out);
}

/// `halt`. With an interrupt already pending and IME off, the CPU does not halt and the
/// next opcode fetch fails to increment PC (the HALT bug, Pan Docs "halt bug").
///
/// IME == 2 (HALT right after EI) counts as off here: with an interrupt pending the HALT
/// bug happens, EI's delay then ends and the interrupt is dispatched at once, returning to
/// the HALT itself, which runs again (Pan Docs "halt bug"; AGE `ei-halt-dmgC-cgbBCE`,
/// verified on DMG and CGB). With nothing pending it halts normally (Mooneye
/// `halt_ime0_ei`, `halt_ime1_timing`, `halt_ime1_timing2-GS`).
///
/// HALT decides later than it fetches: a PPU request due within the next M-cycle already
/// counts as pending (AGE `halt-m0-interrupt-dmgC-cgbBCE`, verified on
/// DMG and CGB: mode 0 with SCX 0..=2 causes the HALT bug, with SCX 3..=7 it does not).
///
/// IME on works the same way: a request that rose during the HALT's own fetch (too late
/// for that fetch's interrupt sample) or is due within the next M-cycle means no halt, and
/// the next fetch dispatches it with the HALT bug's PC, so the handler returns to the HALT,
/// which then halts for the next request. UNVERIFIED: SameBoy's `halt` does this (no halt,
/// PC back on the HALT); it is the `EI; HALT` case above with IME already on.
#[inline(always)]
fn halt(cpu: &mut Registers, bus: &mut impl Bus) {
    if bus.halt_bug_interrupts() != 0 {
        cpu.halt_bug = 1;
    } else {
        cpu.set_mode(CpuMode::Halted);
    }
    bus.cpu_changed();
}

/// The 0xCB prefix: one more fetch, then a rotate/shift, BIT, RES or SET on the operand
/// in bits 0..=2. Register forms take two M-cycles, `bit n, [hl]` three, the other `[hl]`
/// forms four (read, then write back).
#[inline(always)]
fn prefix_cb(cpu: &mut Registers, bus: &mut impl Bus) {
    let opcode = fetch_imm8(cpu, bus);
    let loc = Loc8::from_index(opcode);
    let bit = (opcode >> 3) & 7;
    let value = loc.get(cpu, bus);
    let result = match opcode >> 6 {
        0 => {
            let op = match bit {
                0 => ShiftOp::Rlc,
                1 => ShiftOp::Rrc,
                2 => ShiftOp::Rl,
                3 => ShiftOp::Rr,
                4 => ShiftOp::Sla,
                5 => ShiftOp::Sra,
                6 => ShiftOp::Swap,
                _ => ShiftOp::Srl,
            };
            let (result, carry_out) = shift(cpu, op, value);
            cpu.f = flags(result == 0, false, false, carry_out);
            result
        }
        1 => {
            bit_test(cpu, bit, value);
            return;
        }
        2 => value & !(1 << bit),
        _ => value | (1 << bit),
    };
    loc.set(cpu, bus, result);
}

/// `bit n`: Z from bit `bit` of `value`, N clear, H set, C kept.
#[inline(always)]
fn bit_test(cpu: &mut Registers, bit: u8, value: u8) {
    let clear = value & (1 << bit) == 0;
    cpu.f = (cpu.f & FLAG_C) | flags(clear, false, true, false);
}

/// Applies to `cpu` what executing `opcode`, with `operand` the byte after it, does to
/// the registers, for an instruction that reads and writes nothing but registers, A and
/// F: an accumulator ALU operation on a register (not `[hl]`) or on the immediate
/// `operand`, or `bit n,a` (`0xCB`, `operand` the second byte). Its fetches are left to
/// the caller: a run loop evaluating a polling loop's iterations (`poll_loop`). Returns
/// the instruction's M-cycles (one per byte), or None, with `cpu` untouched, for any
/// other instruction.
#[inline(always)]
pub(crate) fn apply_register_op(cpu: &mut CpuState, opcode: u8, operand: u8) -> Option<u64> {
    let mut registers = Registers::from(*cpu);
    let m_cycles = apply_register_op_to(&mut registers, opcode, operand)?;
    *cpu = registers.into();
    Some(m_cycles)
}

/// `apply_register_op` on the interpreter's form of the registers.
#[inline(always)]
pub(crate) fn apply_register_op_to(cpu: &mut Registers, opcode: u8, operand: u8) -> Option<u64> {
    const OPS: [AluOp; 8] = [
        AluOp::Add,
        AluOp::Adc,
        AluOp::Sub,
        AluOp::Sbc,
        AluOp::And,
        AluOp::Xor,
        AluOp::Or,
        AluOp::Cp,
    ];
    let op = OPS[usize::from(opcode >> 3 & 7)];
    match opcode {
        0x80..=0xBF => {
            let Loc8::Reg(reg) = Loc8::from_index(opcode) else {
                return None;
            };
            alu_value(cpu, op, reg.get(cpu));
            Some(1)
        }
        0xC6 | 0xCE | 0xD6 | 0xDE | 0xE6 | 0xEE | 0xF6 | 0xFE => {
            alu_value(cpu, op, operand);
            Some(2)
        }
        0xCB if operand & 0xC7 == 0x47 => {
            bit_test(cpu, operand >> 3 & 7, cpu.a);
            Some(2)
        }
        _ => None,
    }
}

/// The CPU side of a CGB speed switch (STOP with KEY1 bit 0 set; the machine has switched).
///
/// With an interrupt pending (IE & IF) there is no pause and nothing more (SameBoy `stop`).
/// Otherwise STOP reads its second byte in its next M-cycle and skips it (SameBoy; AGE
/// `spsw-stop-prefetch-cgbBCE`: that byte's value after the pause never runs), DIV is
/// reset, and the CPU halts while the clock settles: the machine ends that HALT after
/// a fixed time, or an interrupt request ends it early (AGE `caution/spsw-interrupts`).
#[inline(never)]
fn speed_switch(cpu: &mut Registers, bus: &mut impl Bus) {
    if bus.pending_interrupts() != 0 {
        bus.finish_speed_switch(false);
        return;
    }
    bus.read(cpu.pc);
    cpu.pc = cpu.pc.wrapping_add(1);
    bus.finish_speed_switch(true);
    cpu.set_mode(CpuMode::Halted);
}

/// STOP, as Pan Docs' STOP chart (Lior Halphon's, SameBoy `stop`) has it. With a selected
/// P1 line already low (a button held) there is no STOP mode and DIV runs on: the CPU halts,
/// or with an interrupt pending (IE & IF) goes straight on. Otherwise a CGB with KEY1 armed
/// switches speed; else the CPU stops (the machine has reset DIV). STOP is two bytes (its
/// second read in a stopped M-cycle and skipped) unless an interrupt is pending, when the
/// byte after the opcode runs as the next instruction.
#[inline(never)]
fn stop(cpu: &mut Registers, bus: &mut impl Bus) {
    let pending = bus.pending_interrupts() != 0;
    if bus.joypad_line_low() {
        if !pending {
            bus.read(cpu.pc);
            cpu.pc = cpu.pc.wrapping_add(1);
            cpu.set_mode(CpuMode::Halted);
        }
        return;
    }
    if bus.stop() {
        speed_switch(cpu, bus);
        return;
    }
    cpu.set_mode(CpuMode::Stopped);
    if !pending {
        bus.idle_stopped();
        cpu.pc = cpu.pc.wrapping_add(1);
    }
}

/// Executes the instruction `opcode`, already fetched (PC points past it).
#[inline(always)]
pub(super) fn execute(cpu: &mut Registers, bus: &mut impl Bus, opcode: u8) {
    use AluOp::*;
    use Cond::Always;
    match opcode {
        // 0x00..=0x3F: loads of immediates, 16-bit arithmetic, INC/DEC, rotates of A, JR.
        0x00 => {}
        0x01 => ld16_imm(cpu, bus, R16::Bc),
        0x02 => ld8(cpu, bus, Mem(Addr::Bc), Reg(A)),
        0x03 => inc16(cpu, bus, R16::Bc, 1),
        0x04 => inc8(cpu, bus, Reg(B)),
        0x05 => dec8(cpu, bus, Reg(B)),
        0x06 => ld8(cpu, bus, Reg(B), Imm),
        0x07 => shift_a(cpu, ShiftOp::Rlc),
        0x08 => ld_abs_sp(cpu, bus),
        0x09 => add_hl(cpu, bus, R16::Bc),
        0x0A => ld8(cpu, bus, Reg(A), Mem(Addr::Bc)),
        0x0B => inc16(cpu, bus, R16::Bc, -1),
        0x0C => inc8(cpu, bus, Reg(C)),
        0x0D => dec8(cpu, bus, Reg(C)),
        0x0E => ld8(cpu, bus, Reg(C), Imm),
        0x0F => shift_a(cpu, ShiftOp::Rrc),

        0x10 => {
            super::out_of_line(cpu, |cpu| bus.far(|bus| stop(cpu, bus)));
            bus.cpu_changed();
        }
        0x11 => ld16_imm(cpu, bus, R16::De),
        0x12 => ld8(cpu, bus, Mem(Addr::De), Reg(A)),
        0x13 => inc16(cpu, bus, R16::De, 1),
        0x14 => inc8(cpu, bus, Reg(D)),
        0x15 => dec8(cpu, bus, Reg(D)),
        0x16 => ld8(cpu, bus, Reg(D), Imm),
        0x17 => shift_a(cpu, ShiftOp::Rl),
        0x18 => jr(cpu, bus, Always),
        0x19 => add_hl(cpu, bus, R16::De),
        0x1A => ld8(cpu, bus, Reg(A), Mem(Addr::De)),
        0x1B => inc16(cpu, bus, R16::De, -1),
        0x1C => inc8(cpu, bus, Reg(E)),
        0x1D => dec8(cpu, bus, Reg(E)),
        0x1E => ld8(cpu, bus, Reg(E), Imm),
        0x1F => shift_a(cpu, ShiftOp::Rr),

        0x20 => jr(cpu, bus, Cond::Nz),
        0x21 => ld16_imm(cpu, bus, R16::Hl),
        0x22 => ld8(cpu, bus, Mem(Addr::HlInc), Reg(A)),
        0x23 => inc16(cpu, bus, R16::Hl, 1),
        0x24 => inc8(cpu, bus, Reg(H)),
        0x25 => dec8(cpu, bus, Reg(H)),
        0x26 => ld8(cpu, bus, Reg(H), Imm),
        0x27 => daa(cpu),
        0x28 => jr(cpu, bus, Cond::Z),
        0x29 => add_hl(cpu, bus, R16::Hl),
        0x2A => ld8(cpu, bus, Reg(A), Mem(Addr::HlInc)),
        0x2B => inc16(cpu, bus, R16::Hl, -1),
        0x2C => inc8(cpu, bus, Reg(L)),
        0x2D => dec8(cpu, bus, Reg(L)),
        0x2E => ld8(cpu, bus, Reg(L), Imm),
        0x2F => {
            cpu.a = !cpu.a;
            cpu.f |= FLAG_N | FLAG_H;
        }

        0x30 => jr(cpu, bus, Cond::Nc),
        0x31 => ld16_imm(cpu, bus, R16::Sp),
        0x32 => ld8(cpu, bus, Mem(Addr::HlDec), Reg(A)),
        0x33 => inc16(cpu, bus, R16::Sp, 1),
        0x34 => inc8(cpu, bus, HL_MEM),
        0x35 => dec8(cpu, bus, HL_MEM),
        0x36 => ld8(cpu, bus, HL_MEM, Imm),
        0x37 => cpu.f = (cpu.f & FLAG_Z) | FLAG_C,
        0x38 => jr(cpu, bus, Cond::C),
        0x39 => add_hl(cpu, bus, R16::Sp),
        0x3A => ld8(cpu, bus, Reg(A), Mem(Addr::HlDec)),
        0x3B => inc16(cpu, bus, R16::Sp, -1),
        0x3C => inc8(cpu, bus, Reg(A)),
        0x3D => dec8(cpu, bus, Reg(A)),
        0x3E => ld8(cpu, bus, Reg(A), Imm),
        0x3F => cpu.f = (cpu.f & (FLAG_Z | FLAG_C)) ^ FLAG_C,

        // 0x40..=0x7F: LD r, r' (0x76 is HALT). `ld b, b` is the Mooneye breakpoint.
        0x40 => bus.breakpoint(),
        0x41 => ld8(cpu, bus, Reg(B), Reg(C)),
        0x42 => ld8(cpu, bus, Reg(B), Reg(D)),
        0x43 => ld8(cpu, bus, Reg(B), Reg(E)),
        0x44 => ld8(cpu, bus, Reg(B), Reg(H)),
        0x45 => ld8(cpu, bus, Reg(B), Reg(L)),
        0x46 => ld8(cpu, bus, Reg(B), HL_MEM),
        0x47 => ld8(cpu, bus, Reg(B), Reg(A)),
        0x48 => ld8(cpu, bus, Reg(C), Reg(B)),
        0x49 => ld8(cpu, bus, Reg(C), Reg(C)),
        0x4A => ld8(cpu, bus, Reg(C), Reg(D)),
        0x4B => ld8(cpu, bus, Reg(C), Reg(E)),
        0x4C => ld8(cpu, bus, Reg(C), Reg(H)),
        0x4D => ld8(cpu, bus, Reg(C), Reg(L)),
        0x4E => ld8(cpu, bus, Reg(C), HL_MEM),
        0x4F => ld8(cpu, bus, Reg(C), Reg(A)),
        0x50 => ld8(cpu, bus, Reg(D), Reg(B)),
        0x51 => ld8(cpu, bus, Reg(D), Reg(C)),
        0x52 => ld8(cpu, bus, Reg(D), Reg(D)),
        0x53 => ld8(cpu, bus, Reg(D), Reg(E)),
        0x54 => ld8(cpu, bus, Reg(D), Reg(H)),
        0x55 => ld8(cpu, bus, Reg(D), Reg(L)),
        0x56 => ld8(cpu, bus, Reg(D), HL_MEM),
        0x57 => ld8(cpu, bus, Reg(D), Reg(A)),
        0x58 => ld8(cpu, bus, Reg(E), Reg(B)),
        0x59 => ld8(cpu, bus, Reg(E), Reg(C)),
        0x5A => ld8(cpu, bus, Reg(E), Reg(D)),
        0x5B => ld8(cpu, bus, Reg(E), Reg(E)),
        0x5C => ld8(cpu, bus, Reg(E), Reg(H)),
        0x5D => ld8(cpu, bus, Reg(E), Reg(L)),
        0x5E => ld8(cpu, bus, Reg(E), HL_MEM),
        0x5F => ld8(cpu, bus, Reg(E), Reg(A)),
        0x60 => ld8(cpu, bus, Reg(H), Reg(B)),
        0x61 => ld8(cpu, bus, Reg(H), Reg(C)),
        0x62 => ld8(cpu, bus, Reg(H), Reg(D)),
        0x63 => ld8(cpu, bus, Reg(H), Reg(E)),
        0x64 => ld8(cpu, bus, Reg(H), Reg(H)),
        0x65 => ld8(cpu, bus, Reg(H), Reg(L)),
        0x66 => ld8(cpu, bus, Reg(H), HL_MEM),
        0x67 => ld8(cpu, bus, Reg(H), Reg(A)),
        0x68 => ld8(cpu, bus, Reg(L), Reg(B)),
        0x69 => ld8(cpu, bus, Reg(L), Reg(C)),
        0x6A => ld8(cpu, bus, Reg(L), Reg(D)),
        0x6B => ld8(cpu, bus, Reg(L), Reg(E)),
        0x6C => ld8(cpu, bus, Reg(L), Reg(H)),
        0x6D => ld8(cpu, bus, Reg(L), Reg(L)),
        0x6E => ld8(cpu, bus, Reg(L), HL_MEM),
        0x6F => ld8(cpu, bus, Reg(L), Reg(A)),
        0x70 => ld8(cpu, bus, HL_MEM, Reg(B)),
        0x71 => ld8(cpu, bus, HL_MEM, Reg(C)),
        0x72 => ld8(cpu, bus, HL_MEM, Reg(D)),
        0x73 => ld8(cpu, bus, HL_MEM, Reg(E)),
        0x74 => ld8(cpu, bus, HL_MEM, Reg(H)),
        0x75 => ld8(cpu, bus, HL_MEM, Reg(L)),
        0x76 => halt(cpu, bus),
        0x77 => ld8(cpu, bus, HL_MEM, Reg(A)),
        0x78 => ld8(cpu, bus, Reg(A), Reg(B)),
        0x79 => ld8(cpu, bus, Reg(A), Reg(C)),
        0x7A => ld8(cpu, bus, Reg(A), Reg(D)),
        0x7B => ld8(cpu, bus, Reg(A), Reg(E)),
        0x7C => ld8(cpu, bus, Reg(A), Reg(H)),
        0x7D => ld8(cpu, bus, Reg(A), Reg(L)),
        0x7E => ld8(cpu, bus, Reg(A), HL_MEM),
        0x7F => ld8(cpu, bus, Reg(A), Reg(A)),

        // 0x80..=0xBF: accumulator ALU, operand in bits 0..=2.
        0x80 => alu(cpu, bus, Add, Reg(B)),
        0x81 => alu(cpu, bus, Add, Reg(C)),
        0x82 => alu(cpu, bus, Add, Reg(D)),
        0x83 => alu(cpu, bus, Add, Reg(E)),
        0x84 => alu(cpu, bus, Add, Reg(H)),
        0x85 => alu(cpu, bus, Add, Reg(L)),
        0x86 => alu(cpu, bus, Add, HL_MEM),
        0x87 => alu(cpu, bus, Add, Reg(A)),
        0x88 => alu(cpu, bus, Adc, Reg(B)),
        0x89 => alu(cpu, bus, Adc, Reg(C)),
        0x8A => alu(cpu, bus, Adc, Reg(D)),
        0x8B => alu(cpu, bus, Adc, Reg(E)),
        0x8C => alu(cpu, bus, Adc, Reg(H)),
        0x8D => alu(cpu, bus, Adc, Reg(L)),
        0x8E => alu(cpu, bus, Adc, HL_MEM),
        0x8F => alu(cpu, bus, Adc, Reg(A)),
        0x90 => alu(cpu, bus, Sub, Reg(B)),
        0x91 => alu(cpu, bus, Sub, Reg(C)),
        0x92 => alu(cpu, bus, Sub, Reg(D)),
        0x93 => alu(cpu, bus, Sub, Reg(E)),
        0x94 => alu(cpu, bus, Sub, Reg(H)),
        0x95 => alu(cpu, bus, Sub, Reg(L)),
        0x96 => alu(cpu, bus, Sub, HL_MEM),
        0x97 => alu(cpu, bus, Sub, Reg(A)),
        0x98 => alu(cpu, bus, Sbc, Reg(B)),
        0x99 => alu(cpu, bus, Sbc, Reg(C)),
        0x9A => alu(cpu, bus, Sbc, Reg(D)),
        0x9B => alu(cpu, bus, Sbc, Reg(E)),
        0x9C => alu(cpu, bus, Sbc, Reg(H)),
        0x9D => alu(cpu, bus, Sbc, Reg(L)),
        0x9E => alu(cpu, bus, Sbc, HL_MEM),
        0x9F => alu(cpu, bus, Sbc, Reg(A)),
        0xA0 => alu(cpu, bus, And, Reg(B)),
        0xA1 => alu(cpu, bus, And, Reg(C)),
        0xA2 => alu(cpu, bus, And, Reg(D)),
        0xA3 => alu(cpu, bus, And, Reg(E)),
        0xA4 => alu(cpu, bus, And, Reg(H)),
        0xA5 => alu(cpu, bus, And, Reg(L)),
        0xA6 => alu(cpu, bus, And, HL_MEM),
        0xA7 => alu(cpu, bus, And, Reg(A)),
        0xA8 => alu(cpu, bus, Xor, Reg(B)),
        0xA9 => alu(cpu, bus, Xor, Reg(C)),
        0xAA => alu(cpu, bus, Xor, Reg(D)),
        0xAB => alu(cpu, bus, Xor, Reg(E)),
        0xAC => alu(cpu, bus, Xor, Reg(H)),
        0xAD => alu(cpu, bus, Xor, Reg(L)),
        0xAE => alu(cpu, bus, Xor, HL_MEM),
        0xAF => alu(cpu, bus, Xor, Reg(A)),
        0xB0 => alu(cpu, bus, Or, Reg(B)),
        0xB1 => alu(cpu, bus, Or, Reg(C)),
        0xB2 => alu(cpu, bus, Or, Reg(D)),
        0xB3 => alu(cpu, bus, Or, Reg(E)),
        0xB4 => alu(cpu, bus, Or, Reg(H)),
        0xB5 => alu(cpu, bus, Or, Reg(L)),
        0xB6 => alu(cpu, bus, Or, HL_MEM),
        0xB7 => alu(cpu, bus, Or, Reg(A)),
        0xB8 => alu(cpu, bus, Cp, Reg(B)),
        0xB9 => alu(cpu, bus, Cp, Reg(C)),
        0xBA => alu(cpu, bus, Cp, Reg(D)),
        0xBB => alu(cpu, bus, Cp, Reg(E)),
        0xBC => alu(cpu, bus, Cp, Reg(H)),
        0xBD => alu(cpu, bus, Cp, Reg(L)),
        0xBE => alu(cpu, bus, Cp, HL_MEM),
        0xBF => alu(cpu, bus, Cp, Reg(A)),

        // 0xC0..=0xFF: control flow, stack, immediate ALU, LDH, and the illegal opcodes.
        0xC0 => ret_if(cpu, bus, Cond::Nz),
        0xC1 => pop(cpu, bus, R16::Bc),
        0xC2 => jp(cpu, bus, Cond::Nz),
        0xC3 => jp(cpu, bus, Always),
        0xC4 => call(cpu, bus, Cond::Nz),
        0xC5 => push(cpu, bus, R16::Bc),
        0xC6 => alu(cpu, bus, Add, Imm),
        0xC7 => rst(cpu, bus, 0x00),
        0xC8 => ret_if(cpu, bus, Cond::Z),
        0xC9 => ret(cpu, bus),
        0xCA => jp(cpu, bus, Cond::Z),
        0xCB => prefix_cb(cpu, bus),
        0xCC => call(cpu, bus, Cond::Z),
        0xCD => call(cpu, bus, Always),
        0xCE => alu(cpu, bus, Adc, Imm),
        0xCF => rst(cpu, bus, 0x08),

        0xD0 => ret_if(cpu, bus, Cond::Nc),
        0xD1 => pop(cpu, bus, R16::De),
        0xD2 => jp(cpu, bus, Cond::Nc),
        0xD4 => call(cpu, bus, Cond::Nc),
        0xD5 => push(cpu, bus, R16::De),
        0xD6 => alu(cpu, bus, Sub, Imm),
        0xD7 => rst(cpu, bus, 0x10),
        0xD8 => ret_if(cpu, bus, Cond::C),
        // RETI enables interrupts at once, without EI's one-instruction delay.
        0xD9 => {
            ret(cpu, bus);
            cpu.ime = 1;
            bus.cpu_changed();
        }
        0xDA => jp(cpu, bus, Cond::C),
        0xDC => call(cpu, bus, Cond::C),
        0xDE => alu(cpu, bus, Sbc, Imm),
        0xDF => rst(cpu, bus, 0x18),

        0xE0 => ld8(cpu, bus, Mem(Addr::HighImm), Reg(A)),
        0xE1 => pop(cpu, bus, R16::Hl),
        0xE2 => ld8(cpu, bus, Mem(Addr::HighC), Reg(A)),
        0xE5 => push(cpu, bus, R16::Hl),
        0xE6 => alu(cpu, bus, And, Imm),
        0xE7 => rst(cpu, bus, 0x20),
        0xE8 => add_sp(cpu, bus),
        0xE9 => cpu.pc = cpu.hl,
        0xEA => ld8(cpu, bus, Mem(Addr::Abs), Reg(A)),
        0xEE => alu(cpu, bus, Xor, Imm),
        0xEF => rst(cpu, bus, 0x28),

        0xF0 => ld8(cpu, bus, Reg(A), Mem(Addr::HighImm)),
        0xF1 => pop(cpu, bus, R16::Af),
        0xF2 => ld8(cpu, bus, Reg(A), Mem(Addr::HighC)),
        0xF3 => cpu.ime = 0,
        0xF5 => push(cpu, bus, R16::Af),
        0xF6 => alu(cpu, bus, Or, Imm),
        0xF7 => rst(cpu, bus, 0x30),
        0xF8 => ld_hl_sp_offset(cpu, bus),
        0xF9 => ld_sp_hl(cpu, bus),
        0xFA => ld8(cpu, bus, Reg(A), Mem(Addr::Abs)),
        // EI while IME is already on changes nothing (an interrupt may be taken right
        // after it); otherwise IME turns on after the next instruction.
        0xFB => {
            if cpu.ime == 0 {
                cpu.ime = 2;
                bus.cpu_changed();
            }
        }
        0xFE => alu(cpu, bus, Cp, Imm),
        0xFF => rst(cpu, bus, 0x38),

        // D3 DB DD E3 E4 EB EC ED F4 FC FD: the CPU locks up until power-off.
        0xD3 | 0xDB | 0xDD | 0xE3 | 0xE4 | 0xEB | 0xEC | 0xED | 0xF4 | 0xFC | 0xFD => {
            cpu.set_mode(CpuMode::Locked);
            bus.cpu_changed();
        }
    }
}
