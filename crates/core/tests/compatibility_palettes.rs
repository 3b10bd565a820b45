//! The CGB post-boot state colours a DMG cartridge as the CGB boot ROM would (by its header,
//! `backspin_core::testing`); CGB cartridges and the DMG are untouched.

use backspin_core::testing::{CompatibilityPalettes, for_cartridge};
use backspin_core::{Core, Model, Options, Rom};

/// A 32 KiB ROM-only cartridge with `title`, Nintendo's new licensee code and `cgb_flag`.
fn rom(title: &[u8], cgb_flag: u8) -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    rom[0x100..0x104].copy_from_slice(&[0x00, 0x18, 0xFE, 0x00]); // NOP; JR -2
    rom[0x134..0x134 + title.len()].copy_from_slice(title);
    rom[0x143] = cgb_flag;
    rom[0x144..0x146].copy_from_slice(b"01");
    rom[0x14B] = 0x33;
    rom
}

fn power_on(bytes: Vec<u8>, model: Model) -> Core {
    let rom = Rom::from_bytes(bytes).expect("a valid ROM");
    Core::new(
        rom,
        Options {
            model,
            boot_rom: None,
        },
    )
}

fn palette(ram: &[u8; 64], index: usize) -> [u16; 4] {
    std::array::from_fn(|colour| {
        let at = index * 8 + colour * 2;
        u16::from_le_bytes([ram[at], ram[at + 1]])
    })
}

#[test]
fn a_licensed_dmg_game_on_a_cgb_gets_its_palettes() {
    let bytes = rom(b"POKEMON RED", 0x00);
    let expected = for_cartridge(&bytes);
    let default = for_cartridge(&rom(b"UNKNOWN", 0x00));
    assert_ne!(expected, default, "Pokemon Red has its own palettes");
    let core = power_on(bytes, Model::Cgb);
    let cgb = &core.state().hw.cgb;
    let loaded = CompatibilityPalettes {
        bg: palette(&cgb.bg_palettes, 0),
        obj0: palette(&cgb.obj_palettes, 0),
        obj1: palette(&cgb.obj_palettes, 1),
    };
    assert_eq!(loaded, expected);
}

#[test]
fn cgb_cartridges_and_the_dmg_are_untouched() {
    // CGB mode: the boot ROM leaves every colour white, whatever the title.
    let core = power_on(rom(b"POKEMON RED", 0x80), Model::Cgb);
    let cgb = &core.state().hw.cgb;
    assert!(
        (0..8).all(|p| palette(&cgb.bg_palettes, p) == [0x7FFF; 4]),
        "CGB mode starts white"
    );
    // A DMG has no palette RAM.
    let core = power_on(rom(b"POKEMON RED", 0x00), Model::Dmg);
    assert_eq!(core.state().hw.cgb.bg_palettes, [0; 64]);
    assert_eq!(core.state().hw.cgb.obj_palettes, [0; 64]);
}
