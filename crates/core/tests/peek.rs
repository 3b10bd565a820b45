//! `Core::peek_into`: a range read in one call reads what `Core::peek` reads byte by byte.

use backspin_core::{Core, Model, Options, Rom};

/// A 32 KiB ROM-only cartridge whose program is an endless `JR -2` at the entry point.
fn rom() -> Rom {
    let mut bytes = vec![0u8; 0x8000];
    bytes[0x100..0x102].copy_from_slice(&[0x18, 0xFE]);
    Rom::from_bytes(bytes).expect("the test ROM is valid")
}

#[test]
fn peek_into_reads_what_peek_reads() {
    for model in [Model::Dmg, Model::Cgb] {
        let mut core = Core::new(
            rom(),
            Options {
                model,
                boot_rom: None,
            },
        );
        // Something in every RAM: work RAM, VRAM, OAM, HRAM.
        for (i, addr) in (0xC000u16..0xE000).chain(0x8000..0xA000).enumerate() {
            core.poke(addr, (i * 7 % 251) as u8);
        }
        for addr in (0xFE00u16..0xFEA0).chain(0xFF80..0xFFFF) {
            core.poke(addr, addr as u8 ^ 0x5A);
        }
        if model == Model::Cgb {
            // A work RAM bank of 2 to 7 at D000 (bank 1 was filled above).
            core.poke(0xFF70, 3);
            for addr in 0xD000u16..0xE000 {
                core.poke(addr, (addr as u8).wrapping_mul(3));
            }
        }
        core.run_frame();
        core.run_frame();
        let one_by_one: Vec<u8> = (0..=0xFFFFu16).map(|addr| core.peek(addr)).collect();
        let mut whole = vec![0; 0x10000];
        core.peek_into(0, &mut whole);
        assert_eq!(whole, one_by_one, "{model:?}: the whole map");
        // Across the top: addresses wrap to 0x0000.
        let mut wrapping = vec![0; 0x200];
        core.peek_into(0xFF00, &mut wrapping);
        assert_eq!(
            wrapping[..0x100],
            one_by_one[0xFF00..],
            "{model:?}: up to 0xFFFF"
        );
        assert_eq!(wrapping[0x100..], one_by_one[..0x100], "{model:?}: wrapped");
        // From inside a bank, across into the next and through the echo.
        let mut banks = vec![0; 0x3000];
        core.peek_into(0xCF80, &mut banks);
        assert_eq!(banks, one_by_one[0xCF80..0xFF80], "{model:?}: across banks");
        let mut empty = [];
        core.peek_into(0x1234, &mut empty);
    }
}
