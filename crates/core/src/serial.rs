//! SB, SC: the serial port. Only the internal clock runs; with no link partner the bits
//! shifted in are all ones.
//!
//! The internal 8,192 Hz clock is the falling edge of system-counter bit 8, so transfers
//! are aligned to DIV (Mooneye `serial/boot_sclk_align-dmgABCmgb`). In CGB mode SC bit 1
//! selects the fast clock, 32 times faster: system-counter bit 3 (Pan Docs "Serial Data
//! Transfer": 262,144 Hz). Both double with the counter at double speed.

use crate::io;
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct SerialState {
    /// FF01 SB.
    pub sb: u8,
    /// FF02 SC (bits 7 and 0; bit 1, the fast clock, in CGB mode only).
    pub sc: u8,
    /// Bits still to shift in the transfer in progress (0 = idle).
    #[state(below = 9)]
    pub bits_left: u8,
    pub _pad: [u8; 5],
}

/// The system-counter bit whose falling edge shifts one bit.
pub const SERIAL_CLOCK_BIT: u16 = 1 << 8;
/// The same with the CGB's fast clock (SC bit 1).
pub const SERIAL_FAST_CLOCK_BIT: u16 = 1 << 3;

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

    /// The system-counter bit that clocks the transfer (`SERIAL_CLOCK_BIT` unless the CGB's
    /// fast clock is selected).
    #[inline(always)]
    pub fn clock_bit(&self) -> u16 {
        if self.sc & 0x02 != 0 {
            SERIAL_FAST_CLOCK_BIT
        } else {
            SERIAL_CLOCK_BIT
        }
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

    /// A read of SB or SC; `cgb_mode`: SC bit 1 is the clock speed (else it reads 1).
    pub fn read(&self, reg: u8, cgb_mode: bool) -> u8 {
        match reg {
            io::SB => self.sb,
            _ => self.sc | if cgb_mode { 0x7C } else { 0x7E },
        }
    }

    /// A write of SB or SC; `cgb_mode`: SC bit 1 (the fast clock) exists.
    pub fn write(&mut self, reg: u8, value: u8, cgb_mode: bool) -> SerialWrite {
        if reg == io::SB {
            self.sb = value;
            return SerialWrite::Nothing;
        }
        self.sc = value & if cgb_mode { 0x83 } else { 0x81 };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fast_clock_exists_in_cgb_mode_only() {
        let mut serial = SerialState::post_boot();
        serial.write(io::SC, 0x83, true);
        assert_eq!(serial.clock_bit(), SERIAL_FAST_CLOCK_BIT);
        assert_eq!(serial.read(io::SC, true), 0xFF);
        serial.write(io::SC, 0x81, true);
        assert_eq!(
            serial.read(io::SC, true),
            0xFD,
            "bit 1 reads back as written"
        );
        serial.write(io::SC, 0x83, false);
        assert_eq!(serial.clock_bit(), SERIAL_CLOCK_BIT);
        assert_eq!(serial.read(io::SC, false), 0xFF);
    }
}
