//! The palettes the CGB boot ROM gives a DMG cartridge (compatibility mode), chosen by the
//! cartridge header as the boot ROM chooses them, for a CGB started without a boot ROM.
//!
//! Facts from Pan Docs, "Power Up Sequence" / "Compatibility palettes" (the selection
//! algorithm), and from the boot ROM's own data as disassembled in ISSOtm's gb-bootroms
//! (`src/cgb.asm`, the tables Pan Docs links to: title checksums, fourth letters, the
//! triplet and shuffle byte of each entry, palette offsets, colours). Written here in our
//! own layout; no emulator's source was used.
//!
//! Selection: a cartridge whose licensee is Nintendo (old licensee code $01, or $33 with the
//! new licensee code "01") has its title checksum (the sum of the 16 bytes at $0134-$0143)
//! looked up in [`TITLE_CHECKSUMS`]. A hit among the first 65 is the entry number; a hit
//! among the 14 ambiguous checksums after them is resolved by the title's fourth byte in
//! [`FOURTH_LETTERS`]. Everything else (no licence, no hit, no letter) gets entry 0, the
//! default palettes. The entry names a triplet of palettes and how to shuffle it.
//!
//! The user's button combinations during the boot animation (which override the choice)
//! need a real boot ROM and are not modelled. Never used for DMG mode.

/// The three palettes a DMG cartridge gets on a CGB: BG palette 0 and OBJ palettes 0 and 1,
/// four RGB555 colours each (red in bits 0..=4), lightest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CompatibilityPalettes {
    /// Background palette 0.
    pub bg: [u16; 4],
    /// Object palette 0.
    pub obj0: [u16; 4],
    /// Object palette 1.
    pub obj1: [u16; 4],
}

/// The palettes the boot ROM picks for the cartridge whose ROM starts with `rom` (the header
/// at $0134-$014B; a short or headerless ROM gets the default palettes).
pub fn for_cartridge(rom: &[u8]) -> CompatibilityPalettes {
    let (shuffle, triplet) = ENTRIES[entry_for(rom)];
    let [source0, source1, source2] = TRIPLETS[usize::from(triplet)];
    // The shuffle bits (gb-bootroms `WriteShuffledPalTriplets`): BG always takes the third
    // palette; OBJ0 the first if bit 0 is set, else the third; OBJ1 the second if bit 2 is
    // set, else the first if bit 1 is set, else the third.
    let obj0 = if shuffle & 1 != 0 { source0 } else { source2 };
    let obj1 = match (shuffle & 4 != 0, shuffle & 2 != 0) {
        (true, _) => source1,
        (false, true) => source0,
        (false, false) => source2,
    };
    CompatibilityPalettes {
        bg: palette_at(source2),
        obj0: palette_at(obj0),
        obj1: palette_at(obj1),
    }
}

/// Which entry of [`ENTRIES`] the boot ROM uses for this header (0: the default).
fn entry_for(rom: &[u8]) -> usize {
    let Some(header) = rom.get(0x134..=0x14B) else {
        return 0;
    };
    let byte = |addr: usize| header[addr - 0x134];
    let nintendo = match byte(0x14B) {
        0x33 => byte(0x144) == b'0' && byte(0x145) == b'1',
        old => old == 0x01,
    };
    if !nintendo {
        return 0;
    }
    let checksum = header[..16].iter().fold(0u8, |sum, &b| sum.wrapping_add(b));
    let Some(index) = TITLE_CHECKSUMS.iter().position(|&c| c == checksum) else {
        return 0;
    };
    let Some(ambiguous) = index.checked_sub(UNAMBIGUOUS) else {
        return index;
    };
    // The letters of ambiguous checksum `a` sit at a, a + 14, a + 28 (a column of the
    // table); the entry number grows by 14 per row.
    let fourth = byte(0x137);
    (0..)
        .map(|row| ambiguous + row * AMBIGUOUS)
        .take_while(|&at| at < FOURTH_LETTERS.len())
        .find(|&at| FOURTH_LETTERS[at] == fourth)
        .map_or(0, |at| UNAMBIGUOUS + at)
}

fn palette_at(first_colour: u8) -> [u16; 4] {
    let at = usize::from(first_colour);
    [
        COLOURS[at],
        COLOURS[at + 1],
        COLOURS[at + 2],
        COLOURS[at + 3],
    ]
}

/// Title checksums decided by the checksum alone (entries 0..=64).
const UNAMBIGUOUS: usize = 65;
/// Title checksums after those that need the fourth letter.
const AMBIGUOUS: usize = 14;

/// Title checksums of the games with their own palettes, in entry order: 65 unambiguous,
/// then 14 that need the fourth title letter.
#[rustfmt::skip]
const TITLE_CHECKSUMS: [u8; UNAMBIGUOUS + AMBIGUOUS] = [
    0x00, 0x88, 0x16, 0x36, 0xD1, 0xDB, 0xF2, 0x3C,
    0x8C, 0x92, 0x3D, 0x5C, 0x58, 0xC9, 0x3E, 0x70,
    0x1D, 0x59, 0x69, 0x19, 0x35, 0xA8, 0x14, 0xAA,
    0x75, 0x95, 0x99, 0x34, 0x6F, 0x15, 0xFF, 0x97,
    0x4B, 0x90, 0x17, 0x10, 0x39, 0xF7, 0xF6, 0xA2,
    0x49, 0x4E, 0x43, 0x68, 0xE0, 0x8B, 0xF0, 0xCE,
    0x0C, 0x29, 0xE8, 0xB7, 0x86, 0x9A, 0x52, 0x01,
    0x9D, 0x71, 0x9C, 0xBD, 0x5D, 0x6D, 0x67, 0x3F,
    0x6B,
    // ambiguous: the fourth letter decides
    0xB3, 0x46, 0x28, 0xA5, 0xC6, 0xD3, 0x27, 0x61, 0x18, 0x66, 0x6A, 0xBF, 0x0D, 0xF4,
];

/// Fourth title letters of the ambiguous checksums: ambiguous checksum `a` matches the
/// letters at `a`, `a + 14` and `a + 28` (entries 65 + `a`, 79 + `a`, 93 + `a`).
const FOURTH_LETTERS: &[u8; 29] = b"BEFAARBEKEK R-URAR INAILICE R";

/// Each entry: (shuffle bits, triplet). 65 entries for the unambiguous checksums, then 29 in
/// the layout of [`FOURTH_LETTERS`].
#[rustfmt::skip]
const ENTRIES: [(u8, u8); UNAMBIGUOUS + 29] = [
    (3, 28), (0, 8), (0, 18), (5, 3), (5, 2), (0, 7), (4, 7), (2, 11),
    (1, 0), (0, 18), (3, 5), (5, 8), (0, 22), (5, 9), (4, 6), (5, 17),
    (3, 8), (5, 0), (4, 7), (3, 6), (0, 18), (5, 1), (1, 16), (1, 28),
    (0, 18), (4, 5), (0, 18), (3, 4), (0, 27), (0, 7), (0, 6), (3, 15),
    (3, 14), (3, 14), (5, 14), (5, 15), (3, 15), (5, 18), (5, 15), (5, 18),
    (5, 8), (5, 11), (3, 15), (5, 15), (4, 6), (5, 14), (5, 2), (5, 2),
    (0, 18), (5, 15), (0, 19), (0, 18), (5, 1), (3, 14), (5, 15), (5, 15),
    (5, 13), (0, 6), (2, 12), (3, 14), (5, 15), (5, 15), (0, 18), (3, 28),
    (5, 12),
    // the ambiguous checksums: one row of FOURTH_LETTERS per two lines
    (5, 8), (3, 10), (3, 14), (0, 19), (5, 0), (1, 13), (5, 8),
    (1, 11), (5, 12), (3, 4), (5, 12), (3, 13), (4, 7), (5, 28),
    (3, 0), (5, 20), (0, 19), (3, 18), (3, 28), (5, 21), (5, 14),
    (5, 14), (3, 28), (3, 28), (3, 5), (5, 2), (3, 12), (3, 4),
    (4, 5),
];

/// Palette triplets: where each of three palettes starts in [`COLOURS`] (a colour index;
/// some start mid-palette and run into the next one, as the boot ROM saves space that way).
const TRIPLETS: [[u8; 3]; 29] = [
    [64, 88, 32],    // 0
    [68, 16, 52],    // 1
    [111, 0, 56],    // 2
    [111, 16, 60],   // 3
    [16, 16, 28],    // 4
    [16, 88, 72],    // 5
    [16, 88, 80],    // 6
    [112, 88, 96],   // 7
    [76, 91, 36],    // 8
    [64, 112, 40],   // 9
    [15, 15, 44],    // 10
    [16, 92, 112],   // 11
    [68, 88, 8],     // 12
    [16, 0, 8],      // 13
    [16, 112, 12],   // 14
    [112, 12, 0],    // 15
    [12, 112, 16],   // 16
    [84, 112, 16],   // 17
    [12, 112, 0],    // 18
    [16, 12, 108],   // 19
    [100, 12, 112],  // 20
    [0, 112, 32],    // 21
    [20, 20, 20],    // 22
    [12, 112, 48],   // 23
    [16, 12, 112],   // 24
    [0, 0, 4],       // 25
    [112, 12, 24],   // 26
    [104, 104, 104], // 27
    [16, 112, 116],  // 28
];

/// 30 palettes of four RGB555 colours, as the boot ROM stores them.
const COLOURS: [u16; 120] = [
    0x7FFF, 0x32BF, 0x00D0, 0x0000, // 0
    0x639F, 0x4279, 0x15B0, 0x04CB, // 1
    0x7FFF, 0x6E31, 0x454A, 0x0000, // 2
    0x7FFF, 0x1BEF, 0x0200, 0x0000, // 3
    0x7FFF, 0x421F, 0x1CF2, 0x0000, // 4
    0x7FFF, 0x5294, 0x294A, 0x0000, // 5
    0x7FFF, 0x03FF, 0x012F, 0x0000, // 6
    0x7FFF, 0x03EF, 0x01D6, 0x0000, // 7
    0x7FFF, 0x42B5, 0x3DC8, 0x0000, // 8
    0x7E74, 0x03FF, 0x0180, 0x0000, // 9
    0x67FF, 0x77AC, 0x1A13, 0x2D6B, // 10
    0x7ED6, 0x4BFF, 0x2175, 0x0000, // 11
    0x53FF, 0x4A5F, 0x7E52, 0x0000, // 12
    0x4FFF, 0x7ED2, 0x3A4C, 0x1CE0, // 13
    0x03ED, 0x7FFF, 0x255F, 0x0000, // 14
    0x036A, 0x021F, 0x03FF, 0x7FFF, // 15
    0x7FFF, 0x01DF, 0x0112, 0x0000, // 16
    0x231F, 0x035F, 0x00F2, 0x0009, // 17
    0x7FFF, 0x03EA, 0x011F, 0x0000, // 18
    0x299F, 0x001A, 0x000C, 0x0000, // 19
    0x7FFF, 0x027F, 0x001F, 0x0000, // 20
    0x7FFF, 0x03E0, 0x0206, 0x0120, // 21
    0x7FFF, 0x7EEB, 0x001F, 0x7C00, // 22
    0x7FFF, 0x3FFF, 0x7E00, 0x001F, // 23
    0x7FFF, 0x03FF, 0x001F, 0x0000, // 24
    0x03FF, 0x001F, 0x000C, 0x0000, // 25
    0x7FFF, 0x033F, 0x0193, 0x0000, // 26
    0x0000, 0x4200, 0x037F, 0x7FFF, // 27
    0x7FFF, 0x7E8C, 0x7C00, 0x0000, // 28
    0x7FFF, 0x1BEF, 0x6180, 0x0000, // 29
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cgb::rgb555_to_rgb888;

    /// A header: `title` (up to 16 bytes), old licensee `old`, new licensee `new`.
    fn header(title: &[u8], old: u8, new: &[u8; 2]) -> Vec<u8> {
        let mut rom = vec![0u8; 0x150];
        rom[0x134..0x134 + title.len()].copy_from_slice(title);
        rom[0x144..0x146].copy_from_slice(new);
        rom[0x14B] = old;
        rom
    }

    /// The default palettes (white, light green, blue, black for the background; white,
    /// pink, dark red, black for objects): what Mealybug's CGB reference pictures use.
    #[test]
    fn unlicensed_and_unknown_cartridges_get_the_default() {
        let default = for_cartridge(&header(b"HOMEBREW", 0x00, b"00"));
        assert_eq!(
            default.bg.map(rgb555_to_rgb888),
            [[0xFF; 3], [0x7B, 0xFF, 0x31], [0x00, 0x63, 0xC6], [0; 3]]
        );
        let obj = [[0xFF; 3], [0xFF, 0x84, 0x84], [0x94, 0x39, 0x39], [0; 3]];
        assert_eq!(default.obj0.map(rgb555_to_rgb888), obj);
        assert_eq!(default.obj1.map(rgb555_to_rgb888), obj);
        assert_eq!(
            for_cartridge(&header(b"NO SUCH GAME", 0x01, b"00")),
            default
        );
        assert_eq!(for_cartridge(&[0; 0x100]), default, "no header");
        assert_eq!(entry_for(&header(b"HOMEBREW", 0x33, b"08")), 0);
    }

    #[test]
    fn the_licensee_checks_follow_pan_docs() {
        // A title whose checksum is the second table entry ($88).
        let mut title = [0u8; 16];
        title[0] = 0x88;
        assert_eq!(entry_for(&header(&title, 0x01, b"00")), 1);
        assert_eq!(entry_for(&header(&title, 0x33, b"01")), 1);
        assert_eq!(entry_for(&header(&title, 0x33, b"00")), 0);
        assert_eq!(entry_for(&header(&title, 0x02, b"01")), 0);
    }

    /// The ambiguous checksum $B3 (the first) resolves by the fourth letter to entries 65
    /// (B), 79 (U) and 93 (R); another letter gets the default.
    #[test]
    fn ambiguous_checksums_need_the_fourth_letter() {
        for (letter, entry) in [(b'B', 65), (b'U', 79), (b'R', 93), (b'X', 0)] {
            let mut title = [0u8; 16];
            title[3] = letter;
            title[0] = 0xB3u8.wrapping_sub(letter);
            assert_eq!(
                entry_for(&header(&title, 0x01, b"00")),
                entry,
                "{}",
                letter as char
            );
        }
        // The last ambiguous checksum ($F4) has one letter only, "-" (entry 78).
        let mut title = [0u8; 16];
        title[3] = b'-';
        title[0] = 0xF4u8.wrapping_sub(b'-');
        assert_eq!(entry_for(&header(&title, 0x01, b"00")), 78);
    }

    /// Pokémon Red and Blue are tinted by their colour on a CGB (Pan Docs, TCRF): the
    /// background's middle colours lean red for Red, blue for Blue.
    #[test]
    fn pokemon_red_and_blue_get_their_colours() {
        let red = for_cartridge(&header(b"POKEMON RED", 0x33, b"01"));
        let blue = for_cartridge(&header(b"POKEMON BLUE", 0x33, b"01"));
        let [r, g, b] = rgb555_to_rgb888(red.bg[1]);
        assert!(r > g && r > b, "red's light colour {r} {g} {b}");
        let [r, g, b] = rgb555_to_rgb888(blue.bg[1]);
        assert!(b > r && b > g, "blue's light colour {r} {g} {b}");
    }

    #[test]
    fn every_entry_reads_inside_the_tables() {
        for (shuffle, triplet) in ENTRIES {
            assert!(shuffle < 8 && usize::from(triplet) < TRIPLETS.len());
        }
        for triplet in TRIPLETS {
            assert!(
                triplet
                    .iter()
                    .all(|&at| usize::from(at) + 4 <= COLOURS.len())
            );
        }
        assert!(COLOURS.iter().all(|&colour| colour <= 0x7FFF));
    }
}
