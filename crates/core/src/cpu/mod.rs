//! The SM83 CPU: decode and execute, generic over [`Bus`].

use crate::bus::Bus;
use bytemuck::{Pod, Zeroable};

/// The SM83's registers and execution mode.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct CpuState {
    pub pc: u16,
    pub sp: u16,
    pub a: u8,
    pub f: u8,
    pub b: u8,
    pub c: u8,
    pub d: u8,
    pub e: u8,
    pub h: u8,
    pub l: u8,
    /// 0 off, 1 on, 2 on after the next instruction (EI delay).
    pub ime: u8,
    /// A [`CpuMode`], read through [`CpuState::mode`].
    pub mode_raw: u8,
    /// 1 when the next opcode fetch must not increment PC (the HALT bug).
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

impl CpuState {
    pub fn mode(&self) -> CpuMode {
        match self.mode_raw & 3 {
            0 => CpuMode::Running,
            1 => CpuMode::Halted,
            2 => CpuMode::Stopped,
            _ => CpuMode::Locked,
        }
    }
    pub fn set_mode(&mut self, mode: CpuMode) {
        self.mode_raw = mode as u8;
    }
}

/// Runs one step: an interrupt dispatch, one whole instruction, or one idle M-cycle while
/// halted, stopped or locked.
pub fn step(cpu: &mut CpuState, bus: &mut impl Bus) {
    // Placeholder until the decoder lands: behave like NOP.
    let _ = bus.read(cpu.pc);
    cpu.pc = cpu.pc.wrapping_add(1);
}
