//! The opcode table's operands: registers, memory operands, conditions and operations, as
//! small `Copy` values that each instruction body takes and the compiler folds away.

use super::{FLAG_C, FLAG_Z, Registers, fetch_imm8, fetch_imm16};
use crate::bus::Bus;

/// An 8-bit register, in the encoding order of the opcode table (6 is `[hl]`, not here).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum R8 {
    B,
    C,
    D,
    E,
    H,
    L,
    A,
}

impl R8 {
    #[inline(always)]
    pub(super) fn get(self, cpu: &Registers) -> u8 {
        match self {
            R8::B => (cpu.bc >> 8) as u8,
            R8::C => cpu.bc as u8,
            R8::D => (cpu.de >> 8) as u8,
            R8::E => cpu.de as u8,
            R8::H => (cpu.hl >> 8) as u8,
            R8::L => cpu.hl as u8,
            R8::A => cpu.a,
        }
    }
    #[inline(always)]
    pub(super) fn set(self, cpu: &mut Registers, value: u8) {
        match self {
            R8::B => cpu.bc = with_high(cpu.bc, value),
            R8::C => cpu.bc = with_low(cpu.bc, value),
            R8::D => cpu.de = with_high(cpu.de, value),
            R8::E => cpu.de = with_low(cpu.de, value),
            R8::H => cpu.hl = with_high(cpu.hl, value),
            R8::L => cpu.hl = with_low(cpu.hl, value),
            R8::A => cpu.a = value,
        }
    }
}

/// `pair` with its high byte (B, D or H) replaced by `value`.
#[inline(always)]
pub(super) fn with_high(pair: u16, value: u8) -> u16 {
    (pair & 0x00FF) | (u16::from(value) << 8)
}

/// `pair` with its low byte (C, E or L) replaced by `value`.
#[inline(always)]
pub(super) fn with_low(pair: u16, value: u8) -> u16 {
    (pair & 0xFF00) | u16::from(value)
}

/// How a memory operand's address is formed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Addr {
    Bc,
    De,
    Hl,
    /// `[hl+]`: HL, then HL is incremented.
    HlInc,
    /// `[hl-]`: HL, then HL is decremented.
    HlDec,
    /// `[$nnnn]`: two immediate bytes (two M-cycles).
    Abs,
    /// `ldh [$nn]`: 0xFF00 + one immediate byte (one M-cycle).
    HighImm,
    /// `ldh [c]`: 0xFF00 + C.
    HighC,
}

impl Addr {
    /// Whether the address is 0xFF00 + a byte (LDH): the bus takes it as such.
    #[inline(always)]
    pub(super) fn is_high(self) -> bool {
        matches!(self, Addr::HighImm | Addr::HighC)
    }
    /// The address, fetching any immediate bytes it needs.
    #[inline(always)]
    pub(super) fn resolve(self, cpu: &mut Registers, bus: &mut impl Bus) -> u16 {
        match self {
            Addr::Bc => cpu.bc,
            Addr::De => cpu.de,
            Addr::Hl => cpu.hl,
            Addr::HlInc => {
                let hl = cpu.hl;
                cpu.hl = hl.wrapping_add(1);
                hl
            }
            Addr::HlDec => {
                let hl = cpu.hl;
                cpu.hl = hl.wrapping_sub(1);
                hl
            }
            Addr::Abs => fetch_imm16(cpu, bus),
            Addr::HighImm => 0xFF00 | u16::from(fetch_imm8(cpu, bus)),
            Addr::HighC => 0xFF00 | (cpu.bc & 0x00FF),
        }
    }
}

/// Where an 8-bit value comes from or goes to.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Loc8 {
    Reg(R8),
    /// The byte after the opcode (source only).
    Imm,
    Mem(Addr),
}

pub(super) use Loc8::{Imm, Mem, Reg};
pub(super) use R8::{A, B, C, D, E, H, L};
pub(super) const HL_MEM: Loc8 = Mem(Addr::Hl);

impl Loc8 {
    #[inline(always)]
    pub(super) fn get(self, cpu: &mut Registers, bus: &mut impl Bus) -> u8 {
        match self {
            Reg(r) => r.get(cpu),
            Imm => fetch_imm8(cpu, bus),
            Mem(addr) => {
                let address = addr.resolve(cpu, bus);
                if addr.is_high() {
                    bus.read_high(address as u8)
                } else {
                    // Every such read follows the fetch of the byte before `cpu.pc`.
                    bus.read_after_fetch(address, cpu.pc)
                }
            }
        }
    }
    #[inline(always)]
    pub(super) fn set(self, cpu: &mut Registers, bus: &mut impl Bus, value: u8) {
        match self {
            Reg(r) => r.set(cpu, value),
            // No opcode stores to an immediate; the table never builds this.
            Imm => {}
            Mem(addr) => {
                let address = addr.resolve(cpu, bus);
                if addr.is_high() {
                    bus.write_high(address as u8, value);
                } else {
                    bus.write(address, value);
                }
            }
        }
    }
    /// The operand encoded in bits 0..=2 (CB opcodes): B C D E H L [hl] A.
    #[inline(always)]
    pub(super) fn from_index(index: u8) -> Loc8 {
        match index & 7 {
            0 => Reg(B),
            1 => Reg(C),
            2 => Reg(D),
            3 => Reg(E),
            4 => Reg(H),
            5 => Reg(L),
            6 => HL_MEM,
            _ => Reg(A),
        }
    }
}

/// A 16-bit register pair.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum R16 {
    Bc,
    De,
    Hl,
    Sp,
    Af,
}

impl R16 {
    #[inline(always)]
    pub(super) fn get(self, cpu: &Registers) -> u16 {
        match self {
            R16::Bc => cpu.bc,
            R16::De => cpu.de,
            R16::Hl => cpu.hl,
            R16::Sp => cpu.sp(),
            R16::Af => cpu.af(),
        }
    }
    #[inline(always)]
    pub(super) fn set(self, cpu: &mut Registers, value: u16) {
        match self {
            R16::Bc => cpu.bc = value,
            R16::De => cpu.de = value,
            R16::Hl => cpu.hl = value,
            R16::Sp => cpu.set_sp(value),
            R16::Af => cpu.set_af(value),
        }
    }
}

/// A branch condition.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Cond {
    Always,
    Nz,
    Z,
    Nc,
    C,
}

impl Cond {
    #[inline(always)]
    pub(super) fn holds(self, cpu: &Registers) -> bool {
        match self {
            Cond::Always => true,
            Cond::Nz => cpu.f & FLAG_Z == 0,
            Cond::Z => cpu.f & FLAG_Z != 0,
            Cond::Nc => cpu.f & FLAG_C == 0,
            Cond::C => cpu.f & FLAG_C != 0,
        }
    }
}

/// The eight accumulator operations of opcodes 0x80..=0xBF and their immediate forms.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum AluOp {
    Add,
    Adc,
    Sub,
    Sbc,
    And,
    Xor,
    Or,
    Cp,
}

/// The shifts and rotates of CB 0x00..=0x3F (and, with Z forced to 0, of RLCA RRCA RLA RRA).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ShiftOp {
    Rlc,
    Rrc,
    Rl,
    Rr,
    Sla,
    Sra,
    Swap,
    Srl,
}
