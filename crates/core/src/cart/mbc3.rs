//! MBC3: up to 2 MiB ROM (4 MiB as MBC30), 32 KiB RAM (64 KiB as MBC30), and on types
//! $0F/$10 a real-time clock.
//!
//! Mapper facts from Pan Docs (MBC3): RAMG enables RAM and clock when the low 4 bits are $A;
//! ROMB is 7 bits with 0 → 1 (8 bits on MBC30, recognised here by a ROM over 2 MiB); RAMB
//! $00-$07 picks a RAM bank, $08-$0C a clock register; a write to 6000-7FFF copies the
//! counting registers into the latched ones the CPU reads (software writes $00 then $01).
//!
//! The clock counts emulated time only, so runs are reproducible: `MbcState` keeps the
//! M-cycle of the last update and the M-cycles into the current second, and every access
//! that can observe the clock (latch, register write, host advance) first catches it up to
//! `now`. Host time enters only through `Rom::rtc_advance_seconds`. The clock has its own
//! crystal: at CGB double speed two CPU M-cycles make one M-cycle of its time
//! (`Rom::rtc_now`).
//!
//! Counting rules (rtc3test by ax6; SameBoy agrees): registers hold only their valid bits
//! (seconds/minutes 6, hours 5, day high bits 0, 6, 7; the others read 0). A register carries
//! into the next one only when it reaches 60 (60, 24); a value already out of range (seconds
//! 60-63, hours 24-31) counts on to all ones and wraps to 0 without carrying ("invalid
//! rollovers"). Day 511 → 0 sets the carry bit, which stays set until written 0. Halt (day
//! high bit 6) freezes the clock including its sub-second counter; writing the seconds
//! register restarts the sub-second counter ("sub-second writes": RTCS resets, others don't).

use super::{CART_RAM_MAX, MbcState, Rom};
use crate::M_CYCLES_PER_SECOND;

pub(super) const SECONDS: usize = 0;
pub(super) const DAYS_LOW: usize = 3;
pub(super) const DAYS_HIGH: usize = 4;
/// Day high bit 6: the clock is stopped.
pub(super) const HALT: u8 = 0x40;
/// Day high bit 7: the day counter overflowed past 511.
pub(super) const DAY_CARRY: u8 = 0x80;
/// Valid bits of seconds, minutes, hours, day low, day high.
pub(super) const VALID_BITS: [u8; 5] = [0x3F, 0x3F, 0x1F, 0xFF, 0xC1];

pub(super) fn write(rom: &Rom, mbc: &mut MbcState, addr: u16, value: u8, now: u64) {
    match addr {
        0x0000..=0x1FFF => mbc.ramg = u8::from(value & 0x0F == 0x0A),
        0x2000..=0x3FFF => {
            let bits = rom_bank_bits(rom);
            mbc.romb0 = if value & bits == 0 { 1 } else { value & bits };
        }
        0x4000..=0x5FFF => mbc.ramb = value & 0x0F,
        _ => {
            // Every write latches, whatever its value. UNVERIFIED: SameBoy's rule, which is
            // the MBC3A's as gbdev's hardware notes (a proposed Pan Docs MBC3 revision)
            // describe it; the MBC3B latches only on an odd value after an even one. Pan
            // Docs proper only says what software should write ($00 then $01), which
            // latches under both rules; so do rtc3test and the games.
            if rom.header.has_rtc {
                rtc_catch_up(mbc, now);
                mbc.rtc_latched = mbc.rtc_live;
            }
            // Kept for the state layout and debuggers; no rule reads it.
            mbc.rtc_latch_last_write = value;
            return;
        }
    }
    update_offsets(mbc);
}

/// MBC30 (Pan Docs: Japanese Pokémon Crystal) has an 8-bit ROM bank; a plain MBC3 7 bits.
fn rom_bank_bits(rom: &Rom) -> u8 {
    if rom.mapped.len() > 2 * 1024 * 1024 {
        0xFF
    } else {
        0x7F
    }
}

/// Whether RAMB selects a RAM bank this cartridge's MBC3 does not have: a plain MBC3 with a
/// clock has banks 0-3 only, so RAMB $04-$07 reach no RAM (reads $FF, writes lost); an MBC30
/// (ROM over 2 MiB or RAM over 32 KiB) has 8. UNVERIFIED: SameBoy's rule (`memory.c`); Pan
/// Docs lists $00-$07 as RAM banks without saying what a plain MBC3 does with 4-7.
fn ram_bank_missing(rom: &Rom, mbc: &MbcState) -> bool {
    mbc.ramb & 0x04 != 0
        && rom.header.has_rtc
        && rom.mapped.len() <= 2 * 1024 * 1024
        && rom.header.ram_bytes <= 32 * 1024
}

pub(super) fn update_offsets(mbc: &mut MbcState) {
    mbc.rom_offset_low = 0;
    mbc.rom_offset_high = u32::from(mbc.romb0) << 14;
    mbc.ram_offset = u32::from(mbc.ramb & 0x07) << 13;
}

/// The clock register RAMB selects, if it selects one ($08-$0C) on a cart with a clock.
/// `Some(None)`: RAMB points into the clock range at a register that does not exist.
fn selected_rtc_register(rom: &Rom, mbc: &MbcState) -> Option<Option<usize>> {
    if mbc.ramb & 0x08 == 0 {
        return None;
    }
    let index = usize::from(mbc.ramb & 0x07);
    Some((rom.header.has_rtc && index <= DAYS_HIGH).then_some(index))
}

/// `None` (open bus) while disabled, for a clock register number with no register
/// ($0D-$0F), and without RAM. RAMB $04-$07 on a plain MBC3 with a clock reads $FF: SameBoy
/// drives that value (UNVERIFIED).
pub(super) fn read_ram(
    rom: &Rom,
    mbc: &MbcState,
    ram: &[u8; CART_RAM_MAX],
    addr: u16,
) -> Option<u8> {
    if mbc.ramg == 0 {
        return None;
    }
    match selected_rtc_register(rom, mbc) {
        // Stored masked already; masking again keeps a corrupt state's extra bits invisible.
        Some(Some(index)) => Some(mbc.rtc_latched[index] & VALID_BITS[index]),
        Some(None) => None,
        None if ram_bank_missing(rom, mbc) => Some(0xFF),
        None => rom.read_banked_ram(mbc, ram, addr, true),
    }
}

pub(super) fn write_ram(
    rom: &Rom,
    mbc: &mut MbcState,
    ram: &mut [u8; CART_RAM_MAX],
    addr: u16,
    value: u8,
    now: u64,
) -> bool {
    if mbc.ramg == 0 {
        return false;
    }
    match selected_rtc_register(rom, mbc) {
        Some(Some(index)) => {
            // Count up to now under the old settings (halt included) before changing them.
            rtc_catch_up(mbc, now);
            mbc.rtc_live[index] = value & VALID_BITS[index];
            if index == SECONDS {
                mbc.rtc_subsecond = 0;
            }
            true
        }
        Some(None) => false,
        None => rom.write_banked_ram(mbc, ram, addr, value, !ram_bank_missing(rom, mbc)),
    }
}

/// Advances the clock from `mbc.rtc_updated_at` to `now` (lazily: nothing observes it in
/// between). A halted clock only moves its timestamp.
pub(super) fn rtc_catch_up(mbc: &mut MbcState, now: u64) {
    // A stamp in the future exists only in a corrupt state: count nothing, resynchronise.
    let elapsed = now.saturating_sub(mbc.rtc_updated_at);
    mbc.rtc_updated_at = now;
    if mbc.rtc_live[DAYS_HIGH] & HALT != 0 {
        return;
    }
    let total = u64::from(mbc.rtc_subsecond).saturating_add(elapsed);
    // The remainder is below M_CYCLES_PER_SECOND, so it fits in u32.
    mbc.rtc_subsecond = (total % M_CYCLES_PER_SECOND) as u32;
    add_seconds(&mut mbc.rtc_live, total / M_CYCLES_PER_SECOND);
}

/// `rtc_catch_up` at CGB double speed: the CPU M-cycles since the last update count half.
/// An odd one left over stays for the next update (the stamp moves by whole pairs only).
pub(super) fn rtc_catch_up_double_speed(mbc: &mut MbcState, now: u64) {
    let Some(elapsed) = now.checked_sub(mbc.rtc_updated_at) else {
        // Only in a corrupt state (see `rtc_catch_up`): resynchronise.
        mbc.rtc_updated_at = now;
        return;
    };
    let pairs = elapsed / 2;
    let start = mbc.rtc_updated_at;
    rtc_catch_up(mbc, start + pairs);
    mbc.rtc_updated_at = start + 2 * pairs;
}

/// Adds `seconds` ticks to the counting registers in constant time (the host may pass years).
pub(super) fn add_seconds(regs: &mut [u8; 5], seconds: u64) {
    if seconds == 0 {
        return;
    }
    let minutes = count(&mut regs[0], VALID_BITS[0], 60, seconds);
    let hours = count(&mut regs[1], VALID_BITS[1], 60, minutes);
    let days = count(&mut regs[2], VALID_BITS[2], 24, hours);
    add_days(regs, days);
}

/// Adds `ticks` to a counter with valid bits `mask` that carries at `modulus`; returns how
/// many times it carried into the next register.
fn count(reg: &mut u8, mask: u8, modulus: u64, ticks: u64) -> u64 {
    let mut value = u64::from(*reg & mask);
    let mut ticks = ticks;
    if ticks == 0 {
        *reg = value as u8;
        return 0;
    }
    if value >= modulus {
        // Out of range: counts on to all ones, then wraps to 0 without carrying.
        let to_wrap = u64::from(mask) + 1 - value;
        if ticks < to_wrap {
            *reg = (value + ticks) as u8;
            return 0;
        }
        ticks -= to_wrap;
        value = 0;
    }
    // value < modulus: split ticks so nothing overflows whatever the host passes.
    let sum = value + ticks % modulus;
    *reg = (sum % modulus) as u8;
    ticks / modulus + sum / modulus
}

fn add_days(regs: &mut [u8; 5], days: u64) {
    if days == 0 {
        return;
    }
    let day = u64::from(regs[DAYS_HIGH] & 0x01) << 8 | u64::from(regs[DAYS_LOW]);
    // The 9-bit counter wraps at 512; any wrap sets the sticky carry.
    let overflowed = days > 511 - day;
    let new_day = (day + days % 512) % 512;
    regs[DAYS_LOW] = new_day as u8;
    let mut high = regs[DAYS_HIGH] & (VALID_BITS[DAYS_HIGH] & !0x01);
    high |= (new_day >> 8) as u8;
    if overflowed {
        high |= DAY_CARRY;
    }
    regs[DAYS_HIGH] = high;
}
