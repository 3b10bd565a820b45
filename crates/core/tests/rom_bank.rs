//! `Core::rom_bank_at`: the cartridge ROM bank a CPU read of an address reaches, as mapper
//! writes switch banks (what `run_until` checks a `.sym` label's bank against).

use backspin_core::{Core, Model, Options, Rom};

/// A ROM of `banks` 16 KiB banks with cartridge type `cartridge_type` (size code from the
/// bank count); the program is an endless `JR -2` at the entry point.
fn rom(cartridge_type: u8, banks: usize) -> Rom {
    let mut bytes = vec![0u8; banks * 0x4000];
    bytes[0x100..0x102].copy_from_slice(&[0x18, 0xFE]);
    bytes[0x147] = cartridge_type;
    bytes[0x148] = (banks / 2).trailing_zeros() as u8; // 0: 32 KiB, 1: 64 KiB, ...
    Rom::from_bytes(bytes).expect("the test ROM is valid")
}

fn power_on(rom: Rom) -> Core {
    Core::new(
        rom,
        Options {
            model: Model::Dmg,
            boot_rom: None,
        },
    )
}

#[test]
fn rom_only_maps_banks_0_and_1() {
    let core = power_on(rom(0x00, 2));
    assert_eq!(core.rom_bank_at(0x0000), Some(0));
    assert_eq!(core.rom_bank_at(0x3FFF), Some(0));
    assert_eq!(core.rom_bank_at(0x4000), Some(1));
    assert_eq!(core.rom_bank_at(0x7FFF), Some(1));
    assert_eq!(core.rom_bank_at(0x8000), None);
    assert_eq!(core.rom_bank_at(0xFFFF), None);
}

#[test]
fn mbc_writes_switch_the_bank_at_4000() {
    let mut core = power_on(rom(0x01, 8)); // MBC1, 128 KiB
    assert_eq!(core.rom_bank_at(0x4000), Some(1));
    core.poke(0x2000, 5); // BANK1
    assert_eq!(core.rom_bank_at(0x4000), Some(5));
    assert_eq!(core.rom_bank_at(0x7ABC), Some(5));
    assert_eq!(
        core.rom_bank_at(0x0150),
        Some(0),
        "0000-3FFF stays bank 0 in mode 0"
    );
    core.poke(0x2000, 0); // MBC1 turns bank 0 into 1 at 4000-7FFF
    assert_eq!(core.rom_bank_at(0x4000), Some(1));
    core.poke(0x2000, 11); // beyond 8 banks: the mapper's bits wrap to the ROM's size
    assert_eq!(core.rom_bank_at(0x4000), Some(3));
}

#[test]
fn mbc5_reaches_banks_past_255() {
    let mut core = power_on(rom(0x19, 512)); // MBC5, 8 MiB
    core.poke(0x2000, 0x2A); // ROMB0
    core.poke(0x3000, 0x01); // ROMB1: bank 0x12A
    assert_eq!(core.rom_bank_at(0x4000), Some(0x12A));
}
