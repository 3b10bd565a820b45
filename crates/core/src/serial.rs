//! SB, SC: the serial port. Only the internal clock runs; with no link partner the bits
//! shifted in are all ones.
//!
//! The internal 8,192 Hz clock is the falling edge of system-counter bit 8, so transfers
//! are aligned to DIV (Mooneye `serial/boot_sclk_align-dmgABCmgb`).

use crate::io;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct SerialState {
    /// FF01 SB.
    pub sb: u8,
    /// FF02 SC (bits 7 and 0).
    pub sc: u8,
    /// Bits still to shift in the transfer in progress (0 = idle).
    #[state(below = 9)]
    pub bits_left: u8,
    pub _pad: [u8; 5],
}

/// The system-counter bit whose falling edge shifts one bit.
pub const SERIAL_CLOCK_BIT: u16 = 1 << 8;

/// What a write to SC asks of the host.
pub enum SerialWrite {
    Nothing,
    /// A transfer with the internal clock started; this byte goes out.
    Started(u8),
}

impl SerialState {
    pub fn post_boot() -> SerialState {
        SerialState {
            sb: 0,
            sc: 0,
            bits_left: 0,
            _pad: [0; 5],
        }
    }

    /// Whether a transfer is shifting (so bit-8 edges matter).
    #[inline(always)]
    pub fn is_shifting(&self) -> bool {
        self.bits_left != 0
    }

    /// One edge of the internal serial clock.
    pub fn clock(&mut self, interrupt_flag: &mut u8) {
        if self.bits_left == 0 {
            return;
        }
        self.sb = (self.sb << 1) | 1;
        self.bits_left -= 1;
        if self.bits_left == 0 {
            self.sc &= 0x7F;
            *interrupt_flag |= io::INT_SERIAL;
        }
    }

    pub fn read(&self, reg: u8) -> u8 {
        match reg {
            io::SB => self.sb,
            _ => self.sc | 0x7E,
        }
    }

    pub fn write(&mut self, reg: u8, value: u8) -> SerialWrite {
        if reg == io::SB {
            self.sb = value;
            return SerialWrite::Nothing;
        }
        self.sc = value & 0x81;
        if value & 0x81 == 0x81 {
            self.bits_left = 8;
            SerialWrite::Started(self.sb)
        } else {
            // An external clock never arrives without a link partner; the transfer waits.
            self.bits_left = 0;
            SerialWrite::Nothing
        }
    }
}
