//! The APU. PLACEHOLDER until the APU lands: registers with their read masks and power
//! switch, no sound.

use crate::io;
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable)]
#[repr(C)]
pub struct ApuState {
    /// FF10..=FF3F as written (wave RAM at 0x20..).
    pub regs: [u8; 0x30],
}

/// Bits that read back as 1 in FF10..=FF2F (Blargg `dmg_sound/01-registers`).
const READ_MASKS: [u8; 0x20] = [
    0x80, 0x3F, 0x00, 0xFF, 0xBF, // NR10-NR14
    0xFF, 0x3F, 0x00, 0xFF, 0xBF, // unused, NR21-NR24
    0x7F, 0xFF, 0x9F, 0xFF, 0xBF, // NR30-NR34
    0xFF, 0xFF, 0x00, 0x00, 0xBF, // unused, NR41-NR44
    0x00, 0x00, 0x70, // NR50-NR52
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
];

impl ApuState {
    pub fn post_boot() -> ApuState {
        let mut regs = [0u8; 0x30];
        let boot: [(u8, u8); 21] = [
            (0x10, 0x80),
            (0x11, 0xBF),
            (0x12, 0xF3),
            (0x13, 0xFF),
            (0x14, 0xBF),
            (0x16, 0x3F),
            (0x17, 0x00),
            (0x18, 0xFF),
            (0x19, 0xBF),
            (0x1A, 0x7F),
            (0x1B, 0xFF),
            (0x1C, 0x9F),
            (0x1D, 0xFF),
            (0x1E, 0xBF),
            (0x20, 0xFF),
            (0x21, 0x00),
            (0x22, 0x00),
            (0x23, 0xBF),
            (0x24, 0x77),
            (0x25, 0xF3),
            (0x26, 0xF1),
        ];
        for (reg, value) in boot {
            regs[usize::from(reg - 0x10)] = value;
        }
        ApuState { regs }
    }

    pub fn tick(&mut self, _audio: &mut AudioOut) {}

    pub fn div_apu_event(&mut self) {}

    pub fn advance(&mut self, _n: u32, _audio: &mut AudioOut) {}

    pub fn read_register(&self, reg: u8) -> u8 {
        let index = usize::from(reg.wrapping_sub(io::NR10)) % 0x30;
        match index {
            0x16 => self.regs[index] | 0x70, // NR52: power bit + channel 1 left on by the boot sound
            0x00..=0x1F => self.regs[index] | READ_MASKS[index],
            _ => self.regs[index],
        }
    }

    pub fn write_register(&mut self, reg: u8, value: u8) {
        let index = usize::from(reg.wrapping_sub(io::NR10)) % 0x30;
        let powered = self.regs[0x16] & 0x80 != 0;
        match index {
            0x16 => {
                if value & 0x80 == 0 {
                    self.regs[..0x16].fill(0);
                }
                self.regs[0x16] =
                    value & 0x80 | self.regs[0x16] & 0x0F & (value >> 7).wrapping_neg();
            }
            0x20.. => self.regs[index] = value,
            _ if powered => self.regs[index] = value,
            _ => {}
        }
    }
}

/// Host-side audio produced by the APU (outside the State). PLACEHOLDER.
#[derive(Clone, Debug, Default)]
pub struct AudioOut {}

impl AudioOut {
    /// Drains finished samples (interleaved stereo) into `out`.
    pub fn drain_i16(&mut self, _out: &mut Vec<i16>) {}
}
