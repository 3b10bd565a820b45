//! The VRAM contents the DMG boot ROM leaves behind.

/// Writes the VRAM contents the DMG boot ROM leaves behind: the cartridge header's logo
/// (`header_logo`, the 48 bytes at 0x0104) expanded into tiles 1..=24, the (R) tile 25 and
/// the background map that shows them (ashiepaws `bully` checks these tiles). Each logo
/// nibble becomes two identical rows of doubled pixels, written to the low bit plane only.
pub fn write_boot_logo(vram: &mut [u8; 0x2000], header_logo: &[u8]) {
    /// Doubles each of the 4 bits of `nibble` into an 8-pixel row.
    fn doubled(nibble: u8) -> u8 {
        (0..4).fold(0, |row, bit| {
            if nibble & (1 << bit) != 0 {
                row | (0b11 << (bit * 2))
            } else {
                row
            }
        })
    }
    let mut address = 0x0010;
    for &byte in header_logo.iter().take(48) {
        for nibble in [byte >> 4, byte & 0x0F] {
            vram[address] = doubled(nibble);
            vram[address + 2] = doubled(nibble);
            address += 4;
        }
    }
    // The (R) mark, stored in the boot ROM itself.
    const REGISTERED: [u8; 8] = [0x3C, 0x42, 0xB9, 0xA5, 0xB9, 0xA5, 0x42, 0x3C];
    for (row, &bits) in REGISTERED.iter().enumerate() {
        vram[0x0190 + 2 * row] = bits;
    }
    // Map: tiles 1..=12 at 0x9904.., 13..=24 at 0x9924.., and the (R) at 0x9910.
    vram[0x1910] = 0x19;
    for tile in 1..=12u8 {
        vram[0x1903 + usize::from(tile)] = tile;
        vram[0x1923 + usize::from(tile)] = tile + 12;
    }
}
