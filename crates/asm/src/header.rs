//! The cartridge header fix-up ($0104-$014F), per Pan Docs "The Cartridge Header".

/// What the `TITLE`, `CART_TYPE`, `ROM_SIZE`, `RAM_SIZE` and `CGB_FLAG` directives set.
#[derive(Default)]
pub(crate) struct HeaderFields {
    pub(crate) title: Option<Vec<u8>>,
    pub(crate) cart_type: Option<u8>,
    pub(crate) rom_size: Option<u8>,
    pub(crate) ram_size: Option<u8>,
    pub(crate) cgb_flag: Option<u8>,
}

/// The logo bitmap the boot ROM compares at $0104-$0133 before it starts the cartridge.
pub const NINTENDO_LOGO: [u8; 48] = [
    0xCE, 0xED, 0x66, 0x66, 0xCC, 0x0D, 0x00, 0x0B, 0x03, 0x73, 0x00, 0x83, 0x00, 0x0C, 0x00, 0x0D,
    0x00, 0x08, 0x11, 0x1F, 0x88, 0x89, 0x00, 0x0E, 0xDC, 0xCC, 0x6E, 0xE6, 0xDD, 0xDD, 0xD9, 0x99,
    0xBB, 0xBB, 0x67, 0x63, 0x6E, 0x0E, 0xEC, 0xCC, 0xDD, 0xDC, 0x99, 0x9F, 0xBB, 0xB9, 0x33, 0x3E,
];

/// Writes logo, title, cartridge type, sizes and both checksums.
pub fn fix_up(rom: &mut [u8], fields: &HeaderFields, rom_size_code: u8) {
    rom[0x104..0x134].copy_from_slice(&NINTENDO_LOGO);
    // Title, manufacturer code and CGB flag: zero unless a title is given.
    rom[0x134..0x144].fill(0);
    if let Some(title) = &fields.title {
        rom[0x134..0x134 + title.len()].copy_from_slice(title);
    }
    if let Some(flag) = fields.cgb_flag {
        rom[0x143] = flag;
    }
    rom[0x144..0x147].fill(0); // new licensee code, SGB flag
    rom[0x147] = fields.cart_type.unwrap_or(0);
    rom[0x148] = rom_size_code;
    rom[0x149] = fields.ram_size.unwrap_or(0);
    rom[0x14A] = 1; // destination: overseas
    rom[0x14B] = 0; // old licensee code: none
    rom[0x14C] = 0; // version
    rom[0x14D] = header_checksum(rom);
    let [hi, lo] = global_checksum(rom).to_be_bytes();
    rom[0x14E] = hi;
    rom[0x14F] = lo;
}

/// The byte the boot ROM checks: x = x - byte - 1 over $0134-$014C.
pub fn header_checksum(rom: &[u8]) -> u8 {
    rom[0x134..=0x14C]
        .iter()
        .fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1))
}

/// The sum of every ROM byte except the checksum itself (nothing checks it on hardware).
pub fn global_checksum(rom: &[u8]) -> u16 {
    rom.iter()
        .enumerate()
        .filter(|(i, _)| *i != 0x14E && *i != 0x14F)
        .fold(0u16, |sum, (_, &b)| sum.wrapping_add(u16::from(b)))
}
