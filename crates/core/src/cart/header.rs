//! The cartridge header at 0x0100..=0x014F: parsing, validation, and what the cartridge type
//! byte says about the hardware on the board.
//!
//! Facts from Pan Docs, "The Cartridge Header". Parsing never panics: every read is checked
//! against the file length first.

use super::RomError;

/// The bitmap the boot ROM compares against 0x0104..=0x0133 before it starts a cartridge.
/// Also used to recognise MBC1 multicarts, whose every game carries its own header.
pub const NINTENDO_LOGO: [u8; 48] = [
    0xCE, 0xED, 0x66, 0x66, 0xCC, 0x0D, 0x00, 0x0B, 0x03, 0x73, 0x00, 0x83, 0x00, 0x0C, 0x00, 0x0D,
    0x00, 0x08, 0x11, 0x1F, 0x88, 0x89, 0x00, 0x0E, 0xDC, 0xCC, 0x6E, 0xE6, 0xDD, 0xDD, 0xD9, 0x99,
    0xBB, 0xBB, 0x67, 0x63, 0x6E, 0x0E, 0xEC, 0xCC, 0xDD, 0xDC, 0x99, 0x9F, 0xBB, 0xB9, 0x33, 0x3E,
];

/// Smallest file we accept: two 16 KiB banks, the smallest ROM chip the header can declare.
pub const MIN_ROM_BYTES: usize = 0x8000;
/// Largest ROM the header can declare (code $08) and the largest the supported MBCs address
/// (MBC5: 512 banks of 16 KiB).
pub const MAX_ROM_BYTES: usize = 8 * 1024 * 1024;

const LOGO_AT: usize = 0x104;
const TITLE_AT: usize = 0x134;
const CGB_FLAG_AT: usize = 0x143;
const NEW_LICENSEE_AT: usize = 0x144;
const SGB_FLAG_AT: usize = 0x146;
const TYPE_AT: usize = 0x147;
const ROM_SIZE_AT: usize = 0x148;
const RAM_SIZE_AT: usize = 0x149;
const DESTINATION_AT: usize = 0x14A;
const OLD_LICENSEE_AT: usize = 0x14B;
const VERSION_AT: usize = 0x14C;
const HEADER_CHECKSUM_AT: usize = 0x14D;
const GLOBAL_CHECKSUM_AT: usize = 0x14E;

/// Which memory bank controller sits on the cartridge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MbcKind {
    /// No mapper: 32 KiB of ROM at 0000-7FFF, optionally 8 KiB of RAM at A000-BFFF.
    RomOnly,
    Mbc1,
    Mbc2,
    Mbc3,
    Mbc5,
}

/// Everything the header says, plus the checks a real boot ROM (or a careful user) makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// 0x0134..: printable ASCII up to the first NUL (11/15/16 bytes depending on the era);
    /// other bytes become '?'.
    pub title: String,
    /// 0x0143: $80 = CGB-enhanced, $C0 = CGB-only, anything else = DMG.
    pub cgb_flag: u8,
    /// 0x0144..=0x0145: two ASCII characters, meaningful when `old_licensee` is $33.
    pub new_licensee: [u8; 2],
    /// 0x0146: $03 = SGB functions.
    pub sgb_flag: u8,
    /// 0x0147: the raw cartridge type byte.
    pub cartridge_type: u8,
    /// The name Pan Docs gives `cartridge_type`, e.g. "MBC3+TIMER+RAM+BATTERY".
    pub cartridge_type_name: &'static str,
    pub mbc_kind: MbcKind,
    /// An MBC1 multicart (MBC1M): BANK2 selects a 256 KiB game, BANK1 bit 4 is unconnected.
    pub mbc1_multicart: bool,
    /// 0x0148: ROM size code; `rom_banks` is what it declares (16 KiB banks).
    pub rom_size_code: u8,
    pub rom_banks: usize,
    /// 0x0149: RAM size code; `ram_bytes` is the RAM this emulator gives the cartridge
    /// (the declared size; 512 for MBC2, whose RAM is inside the mapper).
    pub ram_size_code: u8,
    pub ram_bytes: usize,
    /// 0x014A: 0 = Japan, 1 = elsewhere.
    pub destination: u8,
    /// 0x014B.
    pub old_licensee: u8,
    /// 0x014C: mask ROM version.
    pub version: u8,
    /// 0x014D as stored, and whether it matches the sum the boot ROM computes.
    pub header_checksum: u8,
    pub header_checksum_ok: bool,
    /// 0x014E..=0x014F (big-endian) as stored, and whether it matches the sum of every other
    /// byte of the file. Nothing on a real Game Boy checks it.
    pub global_checksum: u16,
    pub global_checksum_ok: bool,
    /// 0x0104..=0x0133 equals the Nintendo logo (a real DMG locks up otherwise).
    pub logo_ok: bool,
    pub has_ram: bool,
    pub has_battery: bool,
    pub has_rtc: bool,
    pub has_rumble: bool,
}

/// What a cartridge type byte means: (name, mapper or None if unsupported, RAM, battery,
/// timer, rumble). Pan Docs, "0147 - Cartridge Type".
struct CartridgeType {
    name: &'static str,
    mbc: Option<MbcKind>,
    ram: bool,
    battery: bool,
    rtc: bool,
    rumble: bool,
}

const fn ty(
    name: &'static str,
    mbc: Option<MbcKind>,
    ram: bool,
    battery: bool,
    rtc: bool,
    rumble: bool,
) -> CartridgeType {
    CartridgeType {
        name,
        mbc,
        ram,
        battery,
        rtc,
        rumble,
    }
}

fn cartridge_type(code: u8) -> Option<CartridgeType> {
    use MbcKind::*;
    const N: bool = false;
    const Y: bool = true;
    Some(match code {
        0x00 => ty("ROM ONLY", Some(RomOnly), N, N, N, N),
        0x01 => ty("MBC1", Some(Mbc1), N, N, N, N),
        0x02 => ty("MBC1+RAM", Some(Mbc1), Y, N, N, N),
        0x03 => ty("MBC1+RAM+BATTERY", Some(Mbc1), Y, Y, N, N),
        0x05 => ty("MBC2", Some(Mbc2), Y, N, N, N),
        0x06 => ty("MBC2+BATTERY", Some(Mbc2), Y, Y, N, N),
        0x08 => ty("ROM+RAM", Some(RomOnly), Y, N, N, N),
        0x09 => ty("ROM+RAM+BATTERY", Some(RomOnly), Y, Y, N, N),
        0x0B => ty("MMM01", None, N, N, N, N),
        0x0C => ty("MMM01+RAM", None, Y, N, N, N),
        0x0D => ty("MMM01+RAM+BATTERY", None, Y, Y, N, N),
        0x0F => ty("MBC3+TIMER+BATTERY", Some(Mbc3), N, Y, Y, N),
        0x10 => ty("MBC3+TIMER+RAM+BATTERY", Some(Mbc3), Y, Y, Y, N),
        0x11 => ty("MBC3", Some(Mbc3), N, N, N, N),
        0x12 => ty("MBC3+RAM", Some(Mbc3), Y, N, N, N),
        0x13 => ty("MBC3+RAM+BATTERY", Some(Mbc3), Y, Y, N, N),
        0x19 => ty("MBC5", Some(Mbc5), N, N, N, N),
        0x1A => ty("MBC5+RAM", Some(Mbc5), Y, N, N, N),
        0x1B => ty("MBC5+RAM+BATTERY", Some(Mbc5), Y, Y, N, N),
        0x1C => ty("MBC5+RUMBLE", Some(Mbc5), N, N, N, Y),
        0x1D => ty("MBC5+RUMBLE+RAM", Some(Mbc5), Y, N, N, Y),
        0x1E => ty("MBC5+RUMBLE+RAM+BATTERY", Some(Mbc5), Y, Y, N, Y),
        0x20 => ty("MBC6", None, Y, Y, N, N),
        0x22 => ty("MBC7+SENSOR+RUMBLE+RAM+BATTERY", None, Y, Y, N, Y),
        0xFC => ty("POCKET CAMERA", None, Y, Y, N, N),
        0xFD => ty("BANDAI TAMA5", None, Y, Y, Y, N),
        0xFE => ty("HuC3", None, Y, Y, Y, N),
        0xFF => ty("HuC1+RAM+BATTERY", None, Y, Y, N, N),
        _ => return None,
    })
}

/// RAM size code → bytes (Pan Docs "0149 - RAM Size"; $01 = 2 KiB appears on a few
/// unlicensed carts and in Gekkio's MBC1 notes).
fn ram_size(code: u8) -> Option<usize> {
    Some(match code {
        0x00 => 0,
        0x01 => 2 * 1024,
        0x02 => 8 * 1024,
        0x03 => 32 * 1024,
        0x04 => 128 * 1024,
        0x05 => 64 * 1024,
        _ => return None,
    })
}

/// `1536` → "1.5 KiB", `262144` → "256 KiB": sizes in messages.
pub(crate) fn kib(bytes: usize) -> String {
    if bytes.is_multiple_of(1024) {
        format!("{} KiB", bytes / 1024)
    } else if bytes < 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{}.{} KiB", bytes / 1024, bytes % 1024 * 10 / 1024)
    }
}

/// The sum the boot ROM checks: for 0x134..=0x14C, `x = x - byte - 1`.
pub fn header_checksum(bytes: &[u8]) -> u8 {
    bytes
        .get(TITLE_AT..=VERSION_AT)
        .unwrap_or(&[])
        .iter()
        .fold(0u8, |x, &b| x.wrapping_sub(b).wrapping_sub(1))
}

/// Sum of every byte of the file except the two checksum bytes themselves.
pub fn global_checksum(bytes: &[u8]) -> u16 {
    bytes
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != GLOBAL_CHECKSUM_AT && i != GLOBAL_CHECKSUM_AT + 1)
        .fold(0u16, |sum, (_, &b)| sum.wrapping_add(u16::from(b)))
}

/// Parses the header of `bytes`, returning the header and any warnings.
pub(crate) fn parse(bytes: &[u8]) -> Result<(Header, Vec<String>), RomError> {
    if bytes.len() < MIN_ROM_BYTES {
        return Err(RomError::TooSmall { len: bytes.len() });
    }
    // From here on every header offset (< 0x150) is inside the file.
    let code = bytes[TYPE_AT];
    let Some(kind) = cartridge_type(code) else {
        return Err(RomError::UnknownCartridge { code });
    };
    let Some(mbc_kind) = kind.mbc else {
        return Err(RomError::UnsupportedCartridge {
            code,
            name: kind.name,
        });
    };
    let rom_size_code = bytes[ROM_SIZE_AT];
    if rom_size_code > 0x08 {
        return Err(RomError::InvalidRomSize {
            code: rom_size_code,
        });
    }
    let declared_rom = MIN_ROM_BYTES << rom_size_code;
    if bytes.len() < declared_rom {
        return Err(RomError::Truncated {
            declared: declared_rom,
            actual: bytes.len(),
        });
    }
    let ram_size_code = bytes[RAM_SIZE_AT];
    let Some(declared_ram) = ram_size(ram_size_code) else {
        return Err(RomError::InvalidRamSize {
            code: ram_size_code,
        });
    };

    let mut warnings = Vec::new();
    let ram_bytes = match mbc_kind {
        // 512 half-bytes inside the MBC2 itself; the RAM size code should be 0.
        MbcKind::Mbc2 => {
            if declared_ram != 0 {
                warnings.push(format!(
                    "header declares {} of RAM; MBC2 has its own 512 x 4 bits instead",
                    kib(declared_ram)
                ));
            }
            512
        }
        _ => {
            // A type without RAM should declare none; trust the size code either way
            // (extra RAM is harmless, missing RAM breaks saves), but say so.
            if declared_ram != 0 && !kind.ram {
                warnings.push(format!(
                    "cartridge type {} has no RAM but the header declares {}; giving it RAM",
                    kind.name,
                    kib(declared_ram)
                ));
            } else if declared_ram == 0 && kind.ram {
                warnings.push(format!(
                    "cartridge type {} has RAM but the header declares none",
                    kind.name
                ));
            }
            declared_ram
        }
    };

    let header_checksum_stored = bytes[HEADER_CHECKSUM_AT];
    let header_checksum_actual = header_checksum(bytes);
    let header_checksum_ok = header_checksum_stored == header_checksum_actual;
    if !header_checksum_ok {
        warnings.push(format!(
            "header checksum mismatch: header says ${header_checksum_stored:02X}, \
             bytes sum to ${header_checksum_actual:02X} (a real DMG would refuse to boot)"
        ));
    }
    let global_stored =
        u16::from_be_bytes([bytes[GLOBAL_CHECKSUM_AT], bytes[GLOBAL_CHECKSUM_AT + 1]]);
    let global_actual = global_checksum(bytes);
    let global_checksum_ok = global_stored == global_actual;
    if !global_checksum_ok {
        warnings.push(format!(
            "global checksum mismatch: header says ${global_stored:04X}, \
             bytes sum to ${global_actual:04X}"
        ));
    }
    let logo_ok = bytes[LOGO_AT..LOGO_AT + NINTENDO_LOGO.len()] == NINTENDO_LOGO;
    if !logo_ok {
        warnings
            .push("Nintendo logo mismatch at $0104 (a real DMG would lock up at boot)".to_string());
    }
    if bytes.len() > declared_rom {
        warnings.push(format!(
            "file is {} but the header declares {}; the extra bytes are mapped too",
            kib(bytes.len()),
            kib(declared_rom)
        ));
    }

    let cgb_flag = bytes[CGB_FLAG_AT];
    // CGB-era headers end the title early (0x143 is the CGB flag); older ones use 16 bytes.
    let title_end = if cgb_flag & 0x80 != 0 {
        CGB_FLAG_AT
    } else {
        CGB_FLAG_AT + 1
    };
    let title = bytes[TITLE_AT..title_end]
        .iter()
        .take_while(|&&b| b != 0)
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '?'
            }
        })
        .collect();

    let header = Header {
        title,
        cgb_flag,
        new_licensee: [bytes[NEW_LICENSEE_AT], bytes[NEW_LICENSEE_AT + 1]],
        sgb_flag: bytes[SGB_FLAG_AT],
        cartridge_type: code,
        cartridge_type_name: kind.name,
        mbc_kind,
        mbc1_multicart: mbc_kind == MbcKind::Mbc1 && is_mbc1_multicart(bytes),
        rom_size_code,
        rom_banks: declared_rom / 0x4000,
        ram_size_code,
        ram_bytes,
        destination: bytes[DESTINATION_AT],
        old_licensee: bytes[OLD_LICENSEE_AT],
        version: bytes[VERSION_AT],
        header_checksum: header_checksum_stored,
        header_checksum_ok,
        global_checksum: global_stored,
        global_checksum_ok,
        logo_ok,
        has_ram: ram_bytes > 0,
        has_battery: kind.battery,
        has_rtc: kind.rtc,
        has_rumble: kind.rumble,
    };
    Ok((header, warnings))
}

/// MBC1M detection (Gekkio, "Game Boy: Complete Technical Reference", MBC1 multicarts):
/// the header cannot say so, but every game of a 1 MiB multicart starts with its own header,
/// so the second game's bank 0 (ROM bank $10, file offset $40000) carries the Nintendo logo.
/// An ordinary 1 MiB MBC1 game has code or data there, practically never the logo.
fn is_mbc1_multicart(bytes: &[u8]) -> bool {
    const SECOND_GAME_LOGO: usize = 0x10 * 0x4000 + LOGO_AT;
    bytes.len() == 1024 * 1024
        && bytes.get(SECOND_GAME_LOGO..SECOND_GAME_LOGO + NINTENDO_LOGO.len())
            == Some(&NINTENDO_LOGO[..])
}
