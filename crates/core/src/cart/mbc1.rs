//! MBC1: up to 2 MiB ROM and 32 KiB RAM (or, as the MBC1M multicart, four 256 KiB games).
//!
//! Behaviour per Gekkio, "Game Boy: Complete Technical Reference", MBC1 chapter; checked by
//! Mooneye `emulator-only/mbc1/*`.
//! - 0000-1FFF RAMG: RAM is enabled when the low 4 bits are $A (`bits_ramg`).
//! - 2000-3FFF BANK1: 5 bits; a 0 in those 5 bits stores 1, so 4000-7FFF never maps banks
//!   $00/$20/$40/$60 through BANK1 = 0 (`bits_bank1`).
//! - 4000-5FFF BANK2: 2 bits, ROM bank bits 5-6 and the RAM bank (`bits_bank2`).
//! - 6000-7FFF MODE: 1 bit. Mode 0: 0000-3FFF is bank 0 and RAM is bank 0. Mode 1: BANK2
//!   also applies to 0000-3FFF (banks $00/$20/$40/$60) and selects the RAM bank (`bits_mode`,
//!   `rom_*`, `ram_*`). On small carts the extra bits simply wrap away.
//! - MBC1M: the board leaves ROM address line A18 unconnected, so BANK2 lands on bank bits
//!   4-5 and BANK1 bit 4 is ignored for the address, though it still counts for the zero
//!   check (`multicart_rom_8Mb`).

use super::MbcState;

pub(super) fn write(multicart: bool, mbc: &mut MbcState, addr: u16, value: u8) {
    match addr {
        0x0000..=0x1FFF => mbc.ramg = u8::from(value & 0x0F == 0x0A),
        0x2000..=0x3FFF => mbc.bank1 = if value & 0x1F == 0 { 1 } else { value & 0x1F },
        0x4000..=0x5FFF => mbc.bank2 = value & 0x03,
        _ => mbc.mode = value & 0x01,
    }
    update_offsets(multicart, mbc);
}

pub(super) fn update_offsets(multicart: bool, mbc: &mut MbcState) {
    let (bank2_shift, bank1_mask) = if multicart { (4, 0x0F) } else { (5, 0x1F) };
    let upper_banks = u32::from(mbc.bank2 & 0x03) << bank2_shift;
    let mode1 = mbc.mode & 0x01 != 0;
    mbc.rom_offset_low = if mode1 { upper_banks << 14 } else { 0 };
    mbc.rom_offset_high = (upper_banks | u32::from(mbc.bank1 & bank1_mask)) << 14;
    mbc.ram_offset = if mode1 {
        u32::from(mbc.bank2 & 0x03) << 13
    } else {
        0
    };
}
