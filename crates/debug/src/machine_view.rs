//! The machine as expressions and the variables pane see it: registers, flags, timing and
//! I/O registers by name, memory read without side effects, labels.

use crate::expr::Context;
use crate::symbols::Symbols;
use backspin_core::state::CpuState;
use backspin_rewind::Timeline;

/// The named I/O registers shown in the variables pane (Pan Docs' names).
pub const IO_REGISTERS: &[(&str, u16)] = &[
    ("P1", 0xFF00),
    ("SB", 0xFF01),
    ("SC", 0xFF02),
    ("DIV", 0xFF04),
    ("TIMA", 0xFF05),
    ("TMA", 0xFF06),
    ("TAC", 0xFF07),
    ("IF", 0xFF0F),
    ("NR10", 0xFF10),
    ("NR11", 0xFF11),
    ("NR12", 0xFF12),
    ("NR13", 0xFF13),
    ("NR14", 0xFF14),
    ("NR21", 0xFF16),
    ("NR22", 0xFF17),
    ("NR23", 0xFF18),
    ("NR24", 0xFF19),
    ("NR30", 0xFF1A),
    ("NR31", 0xFF1B),
    ("NR32", 0xFF1C),
    ("NR33", 0xFF1D),
    ("NR34", 0xFF1E),
    ("NR41", 0xFF20),
    ("NR42", 0xFF21),
    ("NR43", 0xFF22),
    ("NR44", 0xFF23),
    ("NR50", 0xFF24),
    ("NR51", 0xFF25),
    ("NR52", 0xFF26),
    ("LCDC", 0xFF40),
    ("STAT", 0xFF41),
    ("SCY", 0xFF42),
    ("SCX", 0xFF43),
    ("LY", 0xFF44),
    ("LYC", 0xFF45),
    ("DMA", 0xFF46),
    ("BGP", 0xFF47),
    ("OBP0", 0xFF48),
    ("OBP1", 0xFF49),
    ("WY", 0xFF4A),
    ("WX", 0xFF4B),
    ("KEY1", 0xFF4D),
    ("VBK", 0xFF4F),
    ("HDMA5", 0xFF55),
    ("BCPS", 0xFF68),
    ("OCPS", 0xFF6A),
    ("SVBK", 0xFF70),
    ("IE", 0xFFFF),
];

/// The registers (lower-case names) and flags (`zf`, `nf`, `hf`, `cf`) of `cpu`.
pub fn register(cpu: &CpuState, name: &str) -> Option<i64> {
    let flag = |bit: u8| i64::from(cpu.f & bit != 0);
    Some(match name.to_ascii_lowercase().as_str() {
        "a" => i64::from(cpu.a),
        "f" => i64::from(cpu.f),
        "b" => i64::from(cpu.b),
        "c" => i64::from(cpu.c),
        "d" => i64::from(cpu.d),
        "e" => i64::from(cpu.e),
        "h" => i64::from(cpu.h),
        "l" => i64::from(cpu.l),
        "af" => i64::from(cpu.af()),
        "bc" => i64::from(cpu.bc()),
        "de" => i64::from(cpu.de()),
        "hl" => i64::from(cpu.hl()),
        "sp" => i64::from(cpu.sp),
        "pc" => i64::from(cpu.pc),
        "ime" => i64::from(cpu.ime & 1),
        "zf" => flag(0x80),
        "nf" => flag(0x40),
        "hf" => flag(0x20),
        "cf" => flag(0x10),
        _ => return None,
    })
}

/// Writes register or flag `name` of `cpu`; false if there is no such register.
pub fn set_register(cpu: &mut CpuState, name: &str, value: u16) -> bool {
    let byte = value as u8;
    let mut flag = |bit: u8| {
        if value != 0 {
            cpu.f |= bit;
        } else {
            cpu.f &= !bit;
        }
    };
    match name.to_ascii_lowercase().as_str() {
        "zf" => flag(0x80),
        "nf" => flag(0x40),
        "hf" => flag(0x20),
        "cf" => flag(0x10),
        "a" => cpu.a = byte,
        "f" => cpu.f = byte & 0xF0,
        "b" => cpu.b = byte,
        "c" => cpu.c = byte,
        "d" => cpu.d = byte,
        "e" => cpu.e = byte,
        "h" => cpu.h = byte,
        "l" => cpu.l = byte,
        "af" => cpu.set_af(value),
        "bc" => cpu.set_bc(value),
        "de" => cpu.set_de(value),
        "hl" => cpu.set_hl(value),
        "sp" => cpu.sp = value,
        "pc" => cpu.pc = value,
        _ => return false,
    }
    true
}

/// An expression context over a timeline's present.
pub struct View<'a> {
    pub timeline: &'a mut Timeline,
    pub symbols: &'a Symbols,
    /// A watchpoint condition's `value`: the watched byte after the access.
    pub value: Option<u8>,
}

impl Context for View<'_> {
    fn register(&self, name: &str) -> Option<i64> {
        let state = self.timeline.core().state();
        if let Some(value) = register(&state.cpu, name) {
            return Some(value);
        }
        match name.to_ascii_lowercase().as_str() {
            "ly" => Some(i64::from(state.hw.ppu.ly)),
            "frame" => Some(self.timeline.frame() as i64),
            "value" => self.value.map(i64::from),
            _ => None,
        }
    }

    fn byte(&mut self, addr: u16) -> u8 {
        self.timeline.peek(addr)
    }

    fn label(&self, name: &str) -> Option<u16> {
        self.symbols.get(name).map(|loc| loc.addr)
    }
}
