//! A user-supplied boot ROM runs from 0x0000 and hands over at 0x0100 by writing FF50.

use backspin_core::{BootRom, CGB_BOOT_ROM_BYTES, Core, Model, Options, Rom};

#[test]
fn boot_rom_runs_first_and_unmaps_itself() {
    // A stand-in boot ROM: NOPs, then `ld a, 1; ldh [$50], a` in its last four bytes, as the
    // real one ends, so execution falls through to the cartridge at 0x0100.
    let mut boot = [0u8; 256];
    boot[0xFC..].copy_from_slice(&[0x3E, 0x01, 0xE0, 0x50]);
    let mut cart = vec![0u8; 0x8000];
    cart[0] = 0xAA; // what 0x0000 reads once the boot ROM is gone
    cart[0x100..0x103].copy_from_slice(&[0x18, 0xFE, 0x00]); // jr @
    let options = Options {
        boot_rom: Some(BootRom::from_bytes(&boot).expect("256 bytes")),
        ..Options::default()
    };
    let mut core = Core::new(Rom::from_bytes(cart).expect("ROM parses"), options);
    assert_eq!(core.state().cpu.pc, 0x0000);
    assert_eq!(
        core.peek(0x0000),
        0x00,
        "the boot ROM is mapped at power-on"
    );
    core.run_frame();
    assert_eq!(core.state().cpu.pc, 0x0100, "stuck on the cartridge's jr @");
    assert_eq!(core.peek(0x0000), 0xAA, "FF50 unmapped the boot ROM");
    assert_eq!(core.state().hw.boot_rom_mapped, 0);
}

#[test]
fn boot_rom_of_the_wrong_size_is_refused() {
    let error = BootRom::from_bytes(&[0; 100]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "boot ROM is 100 bytes; a DMG boot ROM is exactly 256 bytes, a CGB one 2304 bytes"
    );
}

#[test]
fn cgb_boot_rom_maps_around_the_header() {
    // 0x0000: jp $0200 (over the cartridge header, which shows through at 0x0100..=0x01FF);
    // NOPs from 0x0200, then `ld a, $11; ldh [$50], a` ending at 0x08FF.
    let mut boot = vec![0u8; CGB_BOOT_ROM_BYTES];
    boot[..3].copy_from_slice(&[0xC3, 0x00, 0x02]);
    boot[CGB_BOOT_ROM_BYTES - 4..].copy_from_slice(&[0x3E, 0x11, 0xE0, 0x50]);
    let mut cart = vec![0u8; 0x8000];
    cart[0x100..0x103].copy_from_slice(&[0x18, 0xFE, 0x00]); // jr @
    cart[0x0200] = 0xBB; // what 0x0200 reads once the boot ROM is gone
    cart[0x0900..0x0903].copy_from_slice(&[0xC3, 0x00, 0x01]); // jp $0100
    let boot = BootRom::from_bytes(&boot).expect("2304 bytes");
    assert_eq!(boot.model(), Model::Cgb);
    let options = Options {
        model: Model::Cgb,
        boot_rom: Some(boot),
    };
    let mut core = Core::new(Rom::from_bytes(cart).expect("ROM parses"), options);
    assert_eq!(
        core.peek(0x0100),
        0x18,
        "the header shows through the boot ROM"
    );
    assert_eq!(
        core.peek(0x0200),
        0x00,
        "the boot ROM's second part is mapped"
    );
    core.run_frame();
    assert_eq!(core.state().cpu.pc, 0x0100, "stuck on the cartridge's jr @");
    assert_eq!(core.peek(0x0200), 0xBB, "FF50 unmapped the boot ROM");
    assert_eq!(core.model(), Model::Cgb);
}
