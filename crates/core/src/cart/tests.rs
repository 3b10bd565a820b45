//! Unit tests for the header parser, every mapper, the MBC3 clock and battery saves.
//! ROMs are synthesised: every 16 KiB bank carries its own number at offset $2000 (LE u16),
//! so a read tells which bank is mapped.

use super::*;
use crate::M_CYCLES_PER_SECOND as SECOND;
use backspin_test_support::SplitMix64;

/// A ROM of `banks` 16 KiB banks with a valid header.
fn image(cartridge_type: u8, rom_size_code: u8, ram_size_code: u8) -> Vec<u8> {
    let len = 0x8000 << rom_size_code;
    let mut bytes = vec![0u8; len];
    for bank in 0..len / 0x4000 {
        bytes[bank * 0x4000 + 0x2000..bank * 0x4000 + 0x2002]
            .copy_from_slice(&(bank as u16).to_le_bytes());
    }
    bytes[0x104..0x134].copy_from_slice(&NINTENDO_LOGO);
    bytes[0x134..0x13A].copy_from_slice(b"BKSPIN");
    bytes[0x147] = cartridge_type;
    bytes[0x148] = rom_size_code;
    bytes[0x149] = ram_size_code;
    fix_checksums(&mut bytes);
    bytes
}

fn fix_checksums(bytes: &mut [u8]) {
    bytes[0x14D] = header::header_checksum(bytes);
    let global = header::global_checksum(bytes);
    bytes[0x14E..0x150].copy_from_slice(&global.to_be_bytes());
}

fn rom(cartridge_type: u8, rom_size_code: u8, ram_size_code: u8) -> Rom {
    Rom::from_bytes(image(cartridge_type, rom_size_code, ram_size_code)).expect("valid test ROM")
}

/// The bank mapped at 0000-3FFF and 4000-7FFF.
fn banks(rom: &Rom, mbc: &MbcState) -> (u16, u16) {
    let low = u16::from_le_bytes([rom.read(mbc, 0x2000), rom.read(mbc, 0x2001)]);
    let high = u16::from_le_bytes([rom.read(mbc, 0x6000), rom.read(mbc, 0x6001)]);
    (low, high)
}

fn ram() -> Box<[u8; CART_RAM_MAX]> {
    Box::new([0; CART_RAM_MAX])
}

// ---------------------------------------------------------------------------------------
// Header

#[test]
fn header_fields_of_a_clean_rom() {
    let rom = rom(0x13, 0x05, 0x03);
    let h = rom.header();
    assert_eq!(rom.title(), "BKSPIN");
    assert_eq!(h.mbc_kind, MbcKind::Mbc3);
    assert_eq!(h.cartridge_type_name, "MBC3+RAM+BATTERY");
    assert_eq!(h.rom_banks, 64);
    assert_eq!(h.ram_bytes, 32 * 1024);
    assert!(h.header_checksum_ok && h.global_checksum_ok && h.logo_ok);
    assert!(h.has_battery && h.has_ram && !h.has_rtc && !h.has_rumble);
    assert!(rom.warnings().is_empty(), "{:?}", rom.warnings());
    assert_eq!(rom.bytes().len(), 1024 * 1024);
}

#[test]
fn header_errors_have_clear_messages() {
    let err = |bytes: Vec<u8>| Rom::from_bytes(bytes).unwrap_err().to_string();
    assert_eq!(
        err(vec![0; 100]),
        "file is 100 bytes; a Game Boy ROM is at least 32 KiB"
    );
    assert_eq!(err(image(0x0B, 0, 0)), "MMM01 ($0B) is not supported");
    assert_eq!(err(image(0xFE, 0, 0)), "HuC3 ($FE) is not supported");
    assert_eq!(
        err(image(0x42, 0, 0)),
        "unknown cartridge type $42 in the header"
    );
    let mut bad_rom_size = image(0x01, 0, 0);
    bad_rom_size[0x148] = 0x52;
    assert!(err(bad_rom_size).contains("invalid ROM size code $52"));
    assert!(err(image(0x03, 0, 0x07)).contains("invalid RAM size code $07"));
    let mut truncated = image(0x01, 0x03, 0); // declares 256 KiB
    truncated.truncate(100 * 1024);
    assert_eq!(
        err(truncated),
        "truncated: header says 256 KiB, file is 100 KiB"
    );
}

#[test]
fn header_problems_are_warnings() {
    let mut bytes = image(0x00, 0, 0);
    bytes[0x14D] ^= 0xFF;
    bytes[0x104] = 0;
    bytes.extend_from_slice(&[0; 1000]);
    let rom = Rom::from_bytes(bytes).unwrap();
    let h = rom.header();
    assert!(!h.header_checksum_ok && !h.global_checksum_ok && !h.logo_ok);
    let all = rom.warnings().join("\n");
    assert!(all.contains("header checksum mismatch"), "{all}");
    assert!(all.contains("global checksum mismatch"), "{all}");
    assert!(all.contains("logo"), "{all}");
    assert!(
        all.contains("file is 32.9 KiB but the header declares 32 KiB"),
        "{all}"
    );
    // Padding to a power of two keeps the extra bytes readable and the rest $FF.
    assert_eq!(rom.mapped.len(), 64 * 1024);
}

#[test]
fn cgb_titles_stop_before_the_cgb_flag() {
    let mut bytes = image(0x00, 0, 0);
    bytes[0x134..0x144].copy_from_slice(b"ABCDEFGHIJKLMNO\x80");
    fix_checksums(&mut bytes);
    let rom = Rom::from_bytes(bytes).unwrap();
    assert_eq!(rom.title(), "ABCDEFGHIJKLMNO");
    assert_eq!(rom.header().cgb_flag, 0x80);
}

// ---------------------------------------------------------------------------------------
// ROM only

#[test]
fn rom_only_maps_32_kib_and_optional_ram() {
    let rom = rom(0x08, 0, 0x02);
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    assert_eq!(banks(&rom, &mbc), (0, 1));
    rom.write(&mut mbc, 0x2000, 5, 0);
    assert_eq!(banks(&rom, &mbc), (0, 1));
    // ROM+RAM needs no enable; not battery-backed, so no dirty flag.
    assert!(!rom.write_ram(&mut mbc, &mut ram, 0xA123, 0x5A, 0));
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA123, 0), 0x5A);
    let no_ram = self::rom(0x00, 0, 0);
    let mbc = no_ram.power_on_mbc();
    assert_eq!(no_ram.read_ram(&mbc, &ram, 0xA123, 0), 0xFF);
}

// ---------------------------------------------------------------------------------------
// MBC1

#[test]
fn mbc1_bank1_zero_selects_one() {
    let rom = rom(0x01, 0x04, 0); // 512 KiB: 32 banks
    let mut mbc = rom.power_on_mbc();
    assert_eq!(banks(&rom, &mbc), (0, 1));
    for (value, bank) in [
        (0x00, 1),
        (0x01, 1),
        (0x02, 2),
        (0x1F, 31),
        (0x20, 1),
        (0xE5, 5),
    ] {
        rom.write(&mut mbc, 0x2000, value, 0);
        assert_eq!(banks(&rom, &mbc), (0, bank), "BANK1 <- {value:#04X}");
    }
}

#[test]
fn mbc1_banks_wrap_to_rom_size() {
    let rom = rom(0x01, 0x02, 0); // 128 KiB: 8 banks
    let mut mbc = rom.power_on_mbc();
    rom.write(&mut mbc, 0x3FFF, 0x1F, 0);
    assert_eq!(banks(&rom, &mbc), (0, 7));
    rom.write(&mut mbc, 0x2000, 0x10, 0); // bank 16 wraps to 0 on an 8-bank ROM
    assert_eq!(banks(&rom, &mbc), (0, 0));
}

#[test]
fn mbc1_bank2_and_mode_on_2_mib() {
    let rom = rom(0x01, 0x06, 0); // 2 MiB: 128 banks
    let mut mbc = rom.power_on_mbc();
    rom.write(&mut mbc, 0x2000, 0x04, 0);
    rom.write(&mut mbc, 0x4000, 0x02, 0);
    // Mode 0: BANK2 affects only 4000-7FFF.
    assert_eq!(banks(&rom, &mbc), (0, 0x44));
    rom.write(&mut mbc, 0x6000, 0x01, 0);
    assert_eq!(banks(&rom, &mbc), (0x40, 0x44));
    // BANK1 = 0 → 1 means 4000-7FFF never shows $20/$40/$60 ...
    rom.write(&mut mbc, 0x2000, 0x00, 0);
    assert_eq!(banks(&rom, &mbc), (0x40, 0x41));
    // ... but 0000-3FFF does in mode 1.
    rom.write(&mut mbc, 0x4000, 0x03, 0);
    assert_eq!(banks(&rom, &mbc), (0x60, 0x61));
    rom.write(&mut mbc, 0x7FFF, 0xFE, 0); // only bit 0 counts: mode 0
    assert_eq!(banks(&rom, &mbc), (0, 0x61));
}

/// Whether `flat_window` gives, where it gives anything, what `read` reads at every address.
fn flat_window_agrees(rom: &Rom, mbc: &MbcState) -> bool {
    let Some(flat) = rom.flat_window(mbc) else {
        return false;
    };
    (0..0x8000u16).all(|addr| flat[usize::from(addr)] == rom.read(mbc, addr))
}

#[test]
fn the_flat_window_is_what_reads_see_while_bank_0_is_low() {
    // Every high bank of a 512 KiB MBC5 (bank 0 and the last included): pairs 0..=31.
    let rom = rom(0x19, 0x04, 0);
    let mut mbc = rom.power_on_mbc();
    for bank in 0..32 {
        rom.write(&mut mbc, 0x2000, bank, 0);
        assert!(flat_window_agrees(&rom, &mbc), "bank {bank}");
    }
    // A 32 KiB ROM is its own pair; a patched image gets its own pairs.
    let small = self::rom(0x00, 0x00, 0);
    assert!(flat_window_agrees(&small, &small.power_on_mbc()));
    let patched = rom.with_patches(&[(0x2000, 0x5A), (5 * 0x4000 + 0x10, 0xA5)]);
    let mut mbc = patched.power_on_mbc();
    rom.write(&mut mbc, 0x2000, 5, 0);
    assert_eq!(patched.read(&mbc, 0x4010), 0xA5);
    assert!(flat_window_agrees(&patched, &mbc));
    // An MBC1 in mode 1 on 2 MiB maps bank $40 low: no flat window, reads take `read`.
    let large = self::rom(0x01, 0x06, 0);
    let mut mbc = large.power_on_mbc();
    large.write(&mut mbc, 0x4000, 0x02, 0);
    large.write(&mut mbc, 0x6000, 0x01, 0);
    assert!(large.flat_window(&mbc).is_none());
    large.write(&mut mbc, 0x6000, 0x00, 0);
    assert!(flat_window_agrees(&large, &mbc));
}

#[test]
fn mbc1_ram_enable_and_banking() {
    let rom = rom(0x03, 0x00, 0x03); // 32 KiB ROM, 32 KiB RAM
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    // Disabled at power-on: reads $FF, writes ignored.
    assert!(!rom.write_ram(&mut mbc, &mut ram, 0xA000, 1, 0));
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA000, 0), 0xFF);
    for (value, enabled) in [
        (0x0A, true),
        (0x1A, true),
        (0xFA, true),
        (0x0B, false),
        (0xA0, false),
    ] {
        rom.write(&mut mbc, 0x1234, value, 0);
        assert_eq!(mbc.ramg != 0, enabled, "RAMG <- {value:#04X}");
    }
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    for bank in 0..4u8 {
        rom.write(&mut mbc, 0x4000, bank, 0);
        rom.write(&mut mbc, 0x6000, 1, 0);
        assert!(rom.write_ram(&mut mbc, &mut ram, 0xA010, 0x10 + bank, 0));
    }
    // Mode 1 reaches all four banks; mode 0 only bank 0 (whatever BANK2 says).
    assert_eq!(
        &ram[0x10..0x8000]
            .iter()
            .step_by(0x2000)
            .copied()
            .collect::<Vec<_>>(),
        &[0x10, 0x11, 0x12, 0x13]
    );
    rom.write(&mut mbc, 0x6000, 0, 0);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA010, 0), 0x10);
}

#[test]
fn mbc1_2_kib_ram_repeats() {
    let rom = rom(0x02, 0x00, 0x01);
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    rom.write_ram(&mut mbc, &mut ram, 0xA005, 0x77, 0);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA805, 0), 0x77);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xB805, 0), 0x77);
}

#[test]
fn mbc1_multicart_shifts_bank2_by_four() {
    let mut bytes = image(0x01, 0x05, 0); // 1 MiB
    for game in 1..4 {
        let at = game * 0x40000 + 0x104;
        bytes[at..at + 48].copy_from_slice(&NINTENDO_LOGO);
    }
    fix_checksums(&mut bytes);
    let rom = Rom::from_bytes(bytes).unwrap();
    assert!(rom.header().mbc1_multicart);
    let mut mbc = rom.power_on_mbc();
    rom.write(&mut mbc, 0x4000, 0x01, 0);
    rom.write(&mut mbc, 0x2000, 0x03, 0);
    assert_eq!(banks(&rom, &mbc), (0, 0x13));
    // BANK1 bit 4 is not wired to the ROM, but it still defeats the zero check.
    rom.write(&mut mbc, 0x2000, 0x10, 0);
    assert_eq!(banks(&rom, &mbc), (0, 0x10));
    rom.write(&mut mbc, 0x2000, 0x00, 0);
    assert_eq!(banks(&rom, &mbc), (0, 0x11));
    rom.write(&mut mbc, 0x6000, 0x01, 0);
    rom.write(&mut mbc, 0x4000, 0x03, 0);
    assert_eq!(banks(&rom, &mbc), (0x30, 0x31));
    // The same size without the extra logos is an ordinary MBC1.
    assert!(!self::rom(0x01, 0x05, 0).header().mbc1_multicart);
}

// ---------------------------------------------------------------------------------------
// MBC2

#[test]
fn mbc2_address_bit_8_selects_register() {
    let rom = rom(0x06, 0x03, 0); // 256 KiB: 16 banks
    let mut mbc = rom.power_on_mbc();
    rom.write(&mut mbc, 0x2100, 0x05, 0);
    assert_eq!(banks(&rom, &mbc), (0, 5));
    rom.write(&mut mbc, 0x0100, 0x0F, 0); // bit 8 set anywhere in 0000-3FFF: ROMB
    assert_eq!(banks(&rom, &mbc), (0, 15));
    rom.write(&mut mbc, 0x3E00, 0x0A, 0); // bit 8 clear: RAMG, not ROMB
    assert_eq!(banks(&rom, &mbc), (0, 15));
    assert_eq!(mbc.ramg, 1);
    rom.write(&mut mbc, 0x0100, 0x10, 0); // low 4 bits 0 → 1
    assert_eq!(banks(&rom, &mbc), (0, 1));
    rom.write(&mut mbc, 0x4100, 0x03, 0); // 4000-7FFF: no registers
    assert_eq!(banks(&rom, &mbc), (0, 1));
}

#[test]
fn mbc2_ram_is_512_nibbles_echoed() {
    let rom = rom(0x06, 0x00, 0);
    assert_eq!(rom.header().ram_bytes, 512);
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA000, 0), 0xFF);
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    assert!(rom.write_ram(&mut mbc, &mut ram, 0xA0FF, 0x3C, 0));
    for addr in [0xA0FF, 0xA2FF, 0xB4FF, 0xBEFF] {
        assert_eq!(rom.read_ram(&mbc, &ram, addr, 0), 0xFC, "{addr:#06X}");
    }
    rom.write(&mut mbc, 0x0000, 0x00, 0);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA0FF, 0), 0xFF);
}

// ---------------------------------------------------------------------------------------
// MBC3

#[test]
fn mbc3_rom_and_ram_banks() {
    let rom = rom(0x13, 0x06, 0x03); // 2 MiB, 32 KiB RAM
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    for (value, bank) in [
        (0x00, 1),
        (0x20, 0x20),
        (0x7F, 0x7F),
        (0x80, 1),
        (0xC0, 0x40),
    ] {
        rom.write(&mut mbc, 0x2000, value, 0);
        assert_eq!(banks(&rom, &mbc), (0, bank), "ROMB <- {value:#04X}");
    }
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    for bank in 0..4u8 {
        rom.write(&mut mbc, 0x4000, bank, 0);
        assert!(rom.write_ram(&mut mbc, &mut ram, 0xBFFF, bank, 0));
    }
    rom.write(&mut mbc, 0x4000, 2, 0);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xBFFF, 0), 2);
    // A cart without a clock: RTC selects read $FF.
    rom.write(&mut mbc, 0x4000, 0x08, 0);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA000, 0), 0xFF);
}

/// A clock cart at power-on with RAM and clock enabled.
fn rtc_cart() -> (Rom, MbcState, Box<[u8; CART_RAM_MAX]>) {
    let rom = rom(0x10, 0x00, 0x02);
    let mut mbc = rom.power_on_mbc();
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    (rom, mbc, ram())
}

fn rtc_write(rom: &Rom, mbc: &mut MbcState, ram: &mut [u8; CART_RAM_MAX], regs: [u8; 5], now: u64) {
    for (i, value) in regs.into_iter().enumerate() {
        rom.write(mbc, 0x4000, 0x08 + i as u8, now);
        assert!(rom.write_ram(mbc, ram, 0xA000, value, now));
    }
}

fn rtc_latch_read(rom: &Rom, mbc: &mut MbcState, ram: &[u8; CART_RAM_MAX], now: u64) -> [u8; 5] {
    rom.write(mbc, 0x6000, 0x00, now);
    rom.write(mbc, 0x6000, 0x01, now);
    std::array::from_fn(|i| {
        rom.write(mbc, 0x4000, 0x08 + i as u8, now);
        rom.read_ram(mbc, ram, 0xA000, now)
    })
}

#[test]
fn rtc_counts_emulated_seconds_and_latches() {
    let (rom, mut mbc, ram) = rtc_cart();
    assert_eq!(rtc_latch_read(&rom, &mut mbc, &ram, SECOND - 1), [0; 5]);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, SECOND),
        [1, 0, 0, 0, 0]
    );
    // The latched copy stays put while the clock runs on ...
    rom.write(&mut mbc, 0x4000, 0x08, 0);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA000, 10 * SECOND), 1);
    // ... until any write to 6000-7FFF latches again (SameBoy; the MBC3A).
    rom.write(&mut mbc, 0x6000, 0x01, 10 * SECOND);
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA000, 10 * SECOND), 10);
    let t = (3600 + 61) * SECOND;
    assert_eq!(rtc_latch_read(&rom, &mut mbc, &ram, t), [1, 1, 1, 0, 0]);
    assert_eq!(
        rom.rtc_registers(&mbc, t + 5 * SECOND),
        Some([6, 1, 1, 0, 0])
    );
}

#[test]
fn rtc_rollovers_and_day_carry() {
    let (rom, mut mbc, mut ram) = rtc_cart();
    // 255 days 23:59:59 → 256 days 00:00:00 (rtc3test "rollovers").
    rtc_write(&rom, &mut mbc, &mut ram, [59, 59, 23, 0xFF, 0x00], 0);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, SECOND),
        [0, 0, 0, 0x00, 0x01]
    );
    // 511 days 23:59:59 → day 0 with the carry set ("overflow") ...
    rtc_write(&rom, &mut mbc, &mut ram, [59, 59, 23, 0xFF, 0x01], SECOND);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 2 * SECOND),
        [0, 0, 0, 0x00, 0x80]
    );
    // ... which stays set over the next overflow ("overflow stickiness") ...
    rtc_write(
        &rom,
        &mut mbc,
        &mut ram,
        [59, 59, 23, 0xFF, 0x81],
        2 * SECOND,
    );
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 3 * SECOND),
        [0, 0, 0, 0x00, 0x80]
    );
    // ... until written 0.
    rtc_write(&rom, &mut mbc, &mut ram, [0, 0, 0, 0, 0], 3 * SECOND);
    assert_eq!(rtc_latch_read(&rom, &mut mbc, &ram, 3 * SECOND), [0; 5]);
}

#[test]
fn rtc_registers_keep_only_valid_bits() {
    let (rom, mut mbc, mut ram) = rtc_cart();
    // Halted so nothing ticks while we look ("all bits set", "valid bits").
    rtc_write(&rom, &mut mbc, &mut ram, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF], 0);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 5 * SECOND),
        [0x3F, 0x3F, 0x1F, 0xFF, 0xC1]
    );
    // Day high $3E keeps no valid bit, so this also restarts the clock: read at once.
    rtc_write(
        &rom,
        &mut mbc,
        &mut ram,
        [0xC0, 0xC0, 0xE0, 0x00, 0x3E],
        5 * SECOND,
    );
    assert_eq!(rtc_latch_read(&rom, &mut mbc, &ram, 5 * SECOND), [0; 5]);
}

#[test]
fn rtc_out_of_range_values_wrap_without_carry() {
    let (rom, mut mbc, mut ram) = rtc_cart();
    // 28:63:60 ticks to 28:63:61 ("invalid value tick").
    rtc_write(&rom, &mut mbc, &mut ram, [60, 63, 28, 7, 0], 0);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, SECOND),
        [61, 63, 28, 7, 0]
    );
    // Seconds 63 → 0 without a minute ("invalid rollovers"); likewise minutes and hours.
    rtc_write(&rom, &mut mbc, &mut ram, [63, 5, 5, 7, 0], SECOND);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 2 * SECOND),
        [0, 5, 5, 7, 0]
    );
    rtc_write(&rom, &mut mbc, &mut ram, [59, 63, 5, 7, 0], 2 * SECOND);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 3 * SECOND),
        [0, 0, 5, 7, 0]
    );
    rtc_write(&rom, &mut mbc, &mut ram, [59, 59, 31, 7, 0], 3 * SECOND);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 4 * SECOND),
        [0, 0, 0, 7, 0]
    );
    // Minutes 61 with seconds 59 carries into 62 ("high minutes"); hours 25 → 26.
    rtc_write(&rom, &mut mbc, &mut ram, [59, 61, 25, 7, 0], 4 * SECOND);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 5 * SECOND),
        [0, 62, 25, 7, 0]
    );
    rtc_write(&rom, &mut mbc, &mut ram, [59, 59, 25, 7, 0], 5 * SECOND);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 6 * SECOND),
        [0, 0, 26, 7, 0]
    );
    // Counting on from out of range over many seconds: 60..=63 (4 s) then 0..; 70 s in all.
    rtc_write(&rom, &mut mbc, &mut ram, [60, 0, 0, 0, 0], 6 * SECOND);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 76 * SECOND),
        [6, 1, 0, 0, 0]
    );
}

#[test]
fn rtc_halt_freezes_the_sub_second_counter() {
    let (rom, mut mbc, mut ram) = rtc_cart();
    // Halt at 0.6 s, resume at 10 s: the next tick comes 0.4 s later ("RTC off/400").
    rom.write(&mut mbc, 0x4000, 0x0C, 0);
    rom.write_ram(&mut mbc, &mut ram, 0xA000, 0x40, SECOND * 6 / 10);
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, 10 * SECOND),
        [0, 0, 0, 0, 0x40]
    );
    rom.write(&mut mbc, 0x4000, 0x0C, 10 * SECOND);
    rom.write_ram(&mut mbc, &mut ram, 0xA000, 0x00, 10 * SECOND);
    let resume = 10 * SECOND;
    let remaining = SECOND - SECOND * 6 / 10;
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, resume + remaining - 1)[0],
        0
    );
    assert_eq!(
        rtc_latch_read(&rom, &mut mbc, &ram, resume + remaining)[0],
        1
    );
    // Host time does not move a halted clock either.
    rtc_write(
        &rom,
        &mut mbc,
        &mut ram,
        [0, 0, 0, 0, 0x40],
        resume + SECOND,
    );
    rom.rtc_advance_seconds(&mut mbc, 1000, resume + SECOND);
    assert_eq!(
        rom.rtc_registers(&mbc, resume + 9 * SECOND),
        Some([0, 0, 0, 0, 0x40])
    );
}

#[test]
fn rtc_seconds_write_resets_the_sub_second_counter() {
    let (rom, mut mbc, mut ram) = rtc_cart();
    // Write seconds at 0.5 s: the next tick is a full second later ("RTCS/500").
    rom.write(&mut mbc, 0x4000, 0x08, 0);
    rom.write_ram(&mut mbc, &mut ram, 0xA000, 10, SECOND / 2);
    assert_eq!(
        rom.rtc_registers(&mbc, SECOND / 2 + SECOND - 1),
        Some([10, 0, 0, 0, 0])
    );
    assert_eq!(
        rom.rtc_registers(&mbc, SECOND / 2 + SECOND),
        Some([11, 0, 0, 0, 0])
    );
    // Writing minutes keeps the phase ("RTCM/600"): written at 1.9 s, ticks at 2.5 s.
    rom.write(&mut mbc, 0x4000, 0x09, 0);
    rom.write_ram(&mut mbc, &mut ram, 0xA000, 3, SECOND * 19 / 10);
    assert_eq!(
        rom.rtc_registers(&mbc, SECOND * 25 / 10 - 1),
        Some([11, 3, 0, 0, 0])
    );
    assert_eq!(
        rom.rtc_registers(&mbc, SECOND * 25 / 10),
        Some([12, 3, 0, 0, 0])
    );
}

#[test]
fn rtc_host_time_and_huge_advances() {
    let (rom, mut mbc, mut ram) = rtc_cart();
    rom.rtc_advance_seconds(&mut mbc, 86_400 + 3600 + 60 + 1, 0);
    assert_eq!(rom.rtc_registers(&mbc, 0), Some([1, 1, 1, 1, 0]));
    // 600 days: wraps the 9-bit day counter and sets the carry.
    rom.rtc_advance_seconds(&mut mbc, 600 * 86_400, 0);
    assert_eq!(rom.rtc_registers(&mbc, 0), Some([1, 1, 1, 89, 0x80])); // day 601 - 512
    rom.rtc_advance_seconds(&mut mbc, u64::MAX, 0);
    rom.rtc_advance_seconds(&mut mbc, u64::MAX, u64::MAX);
    rtc_write(&rom, &mut mbc, &mut ram, [0; 5], u64::MAX);
    // Carts without a clock ignore all of this.
    let plain = self::rom(0x13, 0, 2);
    let mut plain_mbc = plain.power_on_mbc();
    plain.rtc_advance_seconds(&mut plain_mbc, 1000, 0);
    assert_eq!(plain_mbc, plain.power_on_mbc());
    assert_eq!(plain.rtc_registers(&plain_mbc, 0), None);
}

#[test]
fn rtc_matches_one_second_at_a_time() {
    // The constant-time adder against the obvious per-second loop, from awkward values.
    fn tick(regs: &mut [u8; 5]) {
        regs[0] = (regs[0] + 1) & 0x3F;
        if regs[0] != 60 {
            return;
        }
        regs[0] = 0;
        regs[1] = (regs[1] + 1) & 0x3F;
        if regs[1] != 60 {
            return;
        }
        regs[1] = 0;
        regs[2] = (regs[2] + 1) & 0x1F;
        if regs[2] != 24 {
            return;
        }
        regs[2] = 0;
        let (low, carry) = regs[3].overflowing_add(1);
        regs[3] = low;
        if carry {
            if regs[4] & 1 != 0 {
                regs[4] |= 0x80;
            }
            regs[4] ^= 1;
        }
    }
    let starts = [
        [0, 0, 0, 0, 0],
        [59, 59, 23, 255, 1],
        [62, 61, 30, 254, 1],
        [61, 63, 31, 3, 0x80],
    ];
    for start in starts {
        let mut slow = start;
        for n in 0..200_000u64 {
            let mut fast = start;
            mbc3::add_seconds(&mut fast, n);
            assert_eq!(fast, slow, "start {start:?} + {n} s");
            tick(&mut slow);
            if n > 5000 {
                break;
            }
        }
        let mut slow = start;
        for _ in 0..(3 * 86_400 + 7) {
            tick(&mut slow);
        }
        let mut fast = start;
        mbc3::add_seconds(&mut fast, 3 * 86_400 + 7);
        assert_eq!(fast, slow, "start {start:?} + 3 days");
    }
}

// ---------------------------------------------------------------------------------------
// MBC5

#[test]
fn mbc5_nine_bit_banks_and_bank_zero() {
    let rom = rom(0x19, 0x08, 0); // 8 MiB: 512 banks
    let mut mbc = rom.power_on_mbc();
    assert_eq!(banks(&rom, &mbc), (0, 1));
    rom.write(&mut mbc, 0x2000, 0x00, 0);
    assert_eq!(banks(&rom, &mbc), (0, 0));
    rom.write(&mut mbc, 0x2FFF, 0xAB, 0);
    rom.write(&mut mbc, 0x3000, 0xFF, 0); // only bit 0 counts
    assert_eq!(banks(&rom, &mbc), (0, 0x1AB));
    rom.write(&mut mbc, 0x3000, 0x00, 0);
    assert_eq!(banks(&rom, &mbc), (0, 0xAB));
    let small = self::rom(0x19, 0x02, 0); // 8 banks: numbers wrap
    let mut mbc = small.power_on_mbc();
    rom.write(&mut mbc, 0x2000, 0x0B, 0);
    small.update_offsets(&mut mbc);
    assert_eq!(banks(&small, &mbc), (0, 3));
}

#[test]
fn mbc5_ramg_needs_exactly_0a_and_ram_banks() {
    let rom = rom(0x1B, 0x00, 0x04); // 128 KiB RAM
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    rom.write(&mut mbc, 0x0000, 0x1A, 0);
    assert_eq!(mbc.ramg, 0);
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    assert_eq!(mbc.ramg, 1);
    for bank in 0..16u8 {
        rom.write(&mut mbc, 0x4000, bank, 0);
        assert!(rom.write_ram(&mut mbc, &mut ram, 0xA000, bank, 0));
    }
    for bank in 0..16usize {
        assert_eq!(ram[bank * 0x2000], bank as u8);
    }
    assert!(!rom.rumble(&mbc));
}

#[test]
fn mbc5_rumble_bit_is_the_motor() {
    let rom = rom(0x1E, 0x00, 0x03); // rumble, 32 KiB RAM
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    rom.write(&mut mbc, 0x4000, 0x01, 0);
    rom.write_ram(&mut mbc, &mut ram, 0xA000, 0x11, 0);
    assert!(!rom.rumble(&mbc));
    rom.write(&mut mbc, 0x4000, 0x09, 0);
    assert!(rom.rumble(&mbc));
    // Bit 3 is not a RAM address line on rumble carts: still bank 1.
    assert_eq!(rom.read_ram(&mbc, &ram, 0xA000, 0), 0x11);
    rom.write(&mut mbc, 0x4000, 0x01, 0);
    assert!(!rom.rumble(&mbc));
}

// ---------------------------------------------------------------------------------------
// Battery saves

#[test]
fn battery_round_trip_with_clock() {
    let (rom, mut mbc, mut ram) = rtc_cart();
    ram[0] = 0x12;
    ram[0x1FFF] = 0x34;
    rtc_write(&rom, &mut mbc, &mut ram, [5, 6, 7, 8, 0x81], 0);
    let _ = rtc_latch_read(&rom, &mut mbc, &ram, 0);
    let saved = rom.battery_bytes(&mbc, &ram, 1_700_000_000);
    assert_eq!(saved.len(), 8192 + 48);
    assert_eq!(saved.len(), rom.battery_len());
    assert_eq!(&saved[8192..8196], &[5, 0, 0, 0]);
    assert_eq!(&saved[8192 + 16..8192 + 20], &[0x81, 0, 0, 0]);

    let mut fresh = rom.power_on_mbc();
    let mut fresh_ram = self::ram();
    assert_eq!(
        rom.load_battery(&mut fresh, &mut fresh_ram, &saved)
            .unwrap(),
        Some(1_700_000_000)
    );
    assert_eq!(fresh.rtc_live, [5, 6, 7, 8, 0x81]);
    assert_eq!(fresh.rtc_latched, [5, 6, 7, 8, 0x81]);
    assert_eq!(fresh_ram[..], ram[..]);

    // The 44-byte footer (32-bit time) and RAM alone are accepted too.
    let mut old = saved[..8192 + 40].to_vec();
    old.extend_from_slice(&1_600_000_000u32.to_le_bytes());
    assert_eq!(
        rom.load_battery(&mut fresh, &mut fresh_ram, &old).unwrap(),
        Some(1_600_000_000)
    );
    assert_eq!(
        rom.load_battery(&mut fresh, &mut fresh_ram, &saved[..8192])
            .unwrap(),
        None
    );
}

#[test]
fn battery_size_errors_modify_nothing() {
    let rom = rom(0x03, 0x00, 0x02);
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    let err = rom
        .load_battery(&mut mbc, &mut ram, &[0xAA; 1000])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "battery save is 1000 bytes; this cartridge has 8192 bytes of RAM"
    );
    // A clock footer on a cart without a clock is wrong too.
    assert!(
        rom.load_battery(&mut mbc, &mut ram, &[0xAA; 8192 + 48])
            .is_err()
    );
    assert!(ram.iter().all(|&b| b == 0));
    assert_eq!(mbc, rom.power_on_mbc());
    let (clock, mut mbc, mut ram) = rtc_cart();
    let err = clock
        .load_battery(&mut mbc, &mut ram, &[1; 8192 + 47])
        .unwrap_err();
    assert!(err.to_string().contains("and a clock"), "{err}");
    let no_battery = self::rom(0x02, 0, 2);
    assert!(no_battery.battery_bytes(&mbc, &ram, 0).is_empty());
    assert!(matches!(
        no_battery.load_battery(&mut mbc, &mut ram, &[0; 8192]),
        Err(BatteryError::NoBattery)
    ));
}

#[test]
fn mbc2_battery_is_512_bytes() {
    let rom = rom(0x06, 0x00, 0);
    let mut mbc = rom.power_on_mbc();
    let mut ram = ram();
    rom.write(&mut mbc, 0x0000, 0x0A, 0);
    assert!(rom.write_ram(&mut mbc, &mut ram, 0xA1FF, 0x07, 0));
    let saved = rom.battery_bytes(&mbc, &ram, 0);
    assert_eq!(saved.len(), 512);
    assert_eq!(saved[0x1FF], 0x07);
}

// ---------------------------------------------------------------------------------------
// Precomputed offsets

#[test]
fn offsets_always_match_the_registers() {
    // Writes in random order on every mapper: the stored offsets equal a fresh recompute.
    let mut rng = SplitMix64::new(0x1234_5678_9ABC_DEF0);
    let mut next = || rng.next_u64();
    for (ty, rom_code, ram_code) in [
        (0x03, 6, 3),
        (0x06, 3, 0),
        (0x10, 7, 3),
        (0x1E, 8, 4),
        (0x09, 0, 2),
    ] {
        let rom = rom(ty, rom_code, ram_code);
        let mut mbc = rom.power_on_mbc();
        for _ in 0..5000 {
            let r = next();
            rom.write(&mut mbc, (r & 0x7FFF) as u16, (r >> 16) as u8, r >> 40);
            let mut check = mbc;
            rom.update_offsets(&mut check);
            assert_eq!(check, mbc, "type ${ty:02X}");
        }
    }
}

#[test]
fn rtc_lazy_catch_up_equals_one_step() {
    // The lazy clock's oracle: catching up at many random points (latches) ends in the same
    // clock as catching up once at the end, from awkward starting values too.
    let mut rng = SplitMix64::new(0x0DDB_A11C_0FFE_E123);
    let mut next = || rng.next_u64();
    let rom = rom(0x0F, 0, 0);
    for _ in 0..200 {
        let mut once = rom.power_on_mbc();
        once.rtc_live = [
            (next() % 64) as u8,
            (next() % 64) as u8,
            (next() % 32) as u8,
            next() as u8,
            (next() & 0x81) as u8,
        ];
        once.rtc_subsecond = (next() % SECOND) as u32;
        let mut often = once;
        let mut now = 0;
        for _ in 0..50 {
            now += next() % (5000 * SECOND);
            mbc3::rtc_catch_up(&mut often, now);
        }
        mbc3::rtc_catch_up(&mut once, now);
        assert_eq!(often, once);
    }
}

#[test]
fn rtc_counts_half_the_cpu_m_cycles_at_double_speed() {
    // The clock's crystal does not follow the CPU: at double speed 2 s of CPU M-cycles are
    // 1 s of clock time, however often the clock is looked at (odd gaps included).
    let (rom, mut mbc, _ram) = rtc_cart();
    let mut m_cycles = 0;
    for step in [1, 3, 7, 2 * SECOND - 11] {
        m_cycles += step;
        rom.rtc_now(&mut mbc, m_cycles, true);
    }
    assert_eq!(m_cycles, 2 * SECOND);
    let now = rom.rtc_now(&mut mbc, m_cycles, true);
    assert_eq!(rom.rtc_registers(&mbc, now), Some([1, 0, 0, 0, 0]));
    // Back at normal speed the clock counts every M-cycle again.
    rom.rtc_sync(&mut mbc, now);
    let later = rom.rtc_now(&mut mbc, 3 * SECOND, false);
    assert_eq!(rom.rtc_registers(&mbc, later), Some([2, 0, 0, 0, 0]));
}
