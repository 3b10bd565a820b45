//! MBC5: up to 8 MiB ROM (9-bit bank number) and 128 KiB RAM; rumble carts drive a motor.
//!
//! Per Gekkio's reference (MBC5 chapter) and Pan Docs; ROM banking checked by Mooneye
//! `emulator-only/mbc5/*`.
//! - 0000-1FFF RAMG: unlike MBC1, all 8 bits are compared: only exactly $0A enables RAM.
//! - 2000-2FFF ROMB0: bank bits 0-7; 3000-3FFF ROMB1: bank bit 8. Bank 0 is allowed at
//!   4000-7FFF (no 0 → 1 rule).
//! - 4000-5FFF RAMB: 4 bits. On rumble carts ($1C-$1E) bit 3 drives the motor instead of a
//!   RAM address line, leaving 3 bits of RAM bank.

use super::MbcState;

/// RAMB bit that switches the rumble motor on.
pub(super) const RUMBLE_MOTOR: u8 = 0x08;

pub(super) fn write(rumble: bool, mbc: &mut MbcState, addr: u16, value: u8) {
    match addr {
        0x0000..=0x1FFF => mbc.ramg = u8::from(value == 0x0A),
        0x2000..=0x2FFF => mbc.romb0 = value,
        0x3000..=0x3FFF => mbc.romb1 = value & 0x01,
        0x4000..=0x5FFF => mbc.ramb = value & 0x0F,
        _ => return,
    }
    update_offsets(rumble, mbc);
}

pub(super) fn update_offsets(rumble: bool, mbc: &mut MbcState) {
    let bank = u32::from(mbc.romb1 & 0x01) << 8 | u32::from(mbc.romb0);
    mbc.rom_offset_low = 0;
    mbc.rom_offset_high = bank << 14;
    let ram_bank_mask = if rumble { 0x07 } else { 0x0F };
    mbc.ram_offset = u32::from(mbc.ramb & ram_bank_mask) << 13;
}
