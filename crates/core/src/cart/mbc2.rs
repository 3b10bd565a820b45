//! MBC2: up to 256 KiB ROM and 512 half-bytes of RAM inside the mapper.
//!
//! Per Gekkio's reference (MBC2 chapter) and Pan Docs; checked by Mooneye
//! `emulator-only/mbc2/*`.
//! - Registers live at 0000-3FFF only; address bit 8 picks which: clear = RAMG (enabled when
//!   the low 4 bits are $A), set = ROMB (4 bits, 0 stores 1) (`bits_ramg`, `bits_romb`).
//!   Writes to 4000-7FFF do nothing.
//! - RAM is 512 x 4 bits, repeated across A000-BFFF (address bits 0-8); the upper nibble is
//!   not connected and reads as 1s (`bits_unused`, `ram`).

use super::{CART_RAM_MAX, MbcState};

const RAM_MASK: usize = 0x1FF;

pub(super) fn write(mbc: &mut MbcState, addr: u16, value: u8) {
    if addr >= 0x4000 {
        return;
    }
    if addr & 0x0100 == 0 {
        mbc.ramg = u8::from(value & 0x0F == 0x0A);
    } else {
        mbc.romb0 = if value & 0x0F == 0 { 1 } else { value & 0x0F };
        update_offsets(mbc);
    }
}

pub(super) fn update_offsets(mbc: &mut MbcState) {
    mbc.rom_offset_low = 0;
    mbc.rom_offset_high = u32::from(mbc.romb0 & 0x0F) << 14;
    mbc.ram_offset = 0;
}

/// `None` (open bus) while disabled.
pub(super) fn read_ram(mbc: &MbcState, ram: &[u8; CART_RAM_MAX], addr: u16) -> Option<u8> {
    (mbc.ramg != 0).then(|| ram[usize::from(addr) & RAM_MASK] | 0xF0)
}

pub(super) fn write_ram(
    mbc: &MbcState,
    ram: &mut [u8; CART_RAM_MAX],
    addr: u16,
    value: u8,
) -> bool {
    if mbc.ramg != 0 {
        ram[usize::from(addr) & RAM_MASK] = value & 0x0F;
        true
    } else {
        false
    }
}
