//! Cheat codes as `retro_cheat_set` passes them: GameShark codes (RAM writes, applied at the
//! start of every frame) and Game Genie codes (ROM read patches, applied to the ROM image).
//!
//! Both act only at frame boundaries and depend only on the list of codes, so a state and
//! the same inputs and codes replay byte for byte (run-ahead, netplay, rewind).

use backspin_core::{Core, Rom};

/// One decoded code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cheat {
    /// GameShark `TTVVLLHH`: write `value` at `addr` every frame; `wram_bank` when the type
    /// selects a CGB WRAM bank for D000-DFFF (types 0x80-0x87, 0x90-0x97), else a CPU write.
    GameShark {
        wram_bank: Option<u16>,
        addr: u16,
        value: u8,
    },
    /// Game Genie `ABC-DEF` or `ABC-DEF-GHI`: reads of `addr` return `value` (only where the
    /// ROM holds `compare`, when given).
    GameGenie {
        addr: u16,
        value: u8,
        compare: Option<u8>,
    },
}

fn hex(text: &str) -> Option<u32> {
    u32::from_str_radix(text, 16).ok()
}

/// Decodes one code; `None` when it is neither format.
pub fn parse_one(code: &str) -> Option<Cheat> {
    let code = code.trim();
    let digits: String = code.chars().filter(|c| *c != '-').collect();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    if digits.len() == 8 && !code.contains('-') {
        let kind = hex(&digits[0..2])? as u8;
        let value = hex(&digits[2..4])? as u8;
        let addr = (hex(&digits[6..8])? << 8 | hex(&digits[4..6])?) as u16;
        let wram_bank = match kind {
            0x80..=0x87 | 0x90..=0x97 => Some(u16::from(kind & 7).max(1)),
            _ => None,
        };
        return Some(Cheat::GameShark {
            wram_bank,
            addr,
            value,
        });
    }
    if digits.len() != 6 && digits.len() != 9 {
        return None;
    }
    // Game Genie: AB is the value; the address is F C D E with F inverted; G and I hold the
    // compare byte rotated right by two and XORed with 0xBA (H is not used).
    let nibble = |i: usize| hex(&digits[i..i + 1]).unwrap_or(0);
    let value = (nibble(0) << 4 | nibble(1)) as u8;
    let addr = (((nibble(5) ^ 0xF) << 12) | nibble(2) << 8 | nibble(3) << 4 | nibble(4)) as u16;
    if addr >= 0x8000 {
        return None;
    }
    let compare = (digits.len() == 9).then(|| {
        let raw = (nibble(6) << 4 | nibble(8)) as u8;
        raw.rotate_right(2) ^ 0xBA
    });
    Some(Cheat::GameGenie {
        addr,
        value,
        compare,
    })
}

/// Decodes a `retro_cheat_set` string: codes separated by `+`, spaces, commas or `;`.
pub fn parse(text: &str) -> Result<Vec<Cheat>, String> {
    text.split(['+', ' ', ',', ';'])
        .filter(|part| !part.is_empty())
        .map(|part| {
            parse_one(part).ok_or_else(|| format!("not a GameShark or Game Genie code: {part:?}"))
        })
        .collect()
}

/// The cheats in force, by `retro_cheat_set` index.
#[derive(Default)]
pub struct Cheats {
    slots: Vec<Option<Vec<Cheat>>>,
}

impl Cheats {
    /// Sets (or clears, when disabled) slot `index`. Returns whether the ROM patches
    /// changed, so the caller re-applies them.
    pub fn set(&mut self, index: usize, enabled: bool, codes: Vec<Cheat>) -> bool {
        // Frontends number cheats from 0 in a list a person edits: a bound keeps a wild
        // index from allocating much.
        let index = index.min(4095);
        if self.slots.len() <= index {
            self.slots.resize(index + 1, None);
        }
        let had_genie = self.slots[index].as_ref().is_some_and(|c| has_genie(c));
        let codes = enabled.then_some(codes);
        let has = codes.as_ref().is_some_and(|c| has_genie(c));
        self.slots[index] = codes;
        had_genie || has
    }

    /// Removes every cheat.
    pub fn clear(&mut self) {
        self.slots.clear();
    }

    fn all(&self) -> impl Iterator<Item = &Cheat> {
        self.slots.iter().flatten().flatten()
    }

    /// Whether any GameShark code is in force (frames skip the write pass otherwise).
    pub fn has_ram_writes(&self) -> bool {
        self.all().any(|c| matches!(c, Cheat::GameShark { .. }))
    }

    /// Applies the GameShark writes (at the start of a frame).
    pub fn write_ram(&self, core: &mut Core) {
        for cheat in self.all() {
            if let Cheat::GameShark {
                wram_bank,
                addr,
                value,
            } = *cheat
            {
                match wram_bank {
                    Some(bank) if (0xD000..=0xDFFF).contains(&addr) => {
                        let _ = core.poke_banked(bank, addr, value);
                    }
                    _ if addr >= 0x8000 => {
                        core.poke(addr, value);
                    }
                    // A write to 0000-7FFF would be an MBC register write, not a cheat.
                    _ => {}
                }
            }
        }
    }

    /// The ROM patches (file offset, byte) of the Game Genie codes for `rom`.
    ///
    /// A code for 0000-3FFF patches bank 0; one for 4000-7FFF patches that offset in every
    /// switchable bank (1..), or with a compare byte only the banks holding it there, which
    /// is what a read-time patch does whichever bank is mapped. Patching the image keeps the
    /// ROM fast windows right and leaves the ROM's identity (its SHA-1) as loaded.
    pub fn rom_patches(&self, rom: &Rom) -> Vec<(usize, u8)> {
        let bytes = rom.bytes();
        let banks = bytes.len().div_ceil(0x4000);
        let mut patches = Vec::new();
        for cheat in self.all() {
            if let Cheat::GameGenie {
                addr,
                value,
                compare,
            } = *cheat
            {
                let in_bank = usize::from(addr & 0x3FFF);
                let range = if addr < 0x4000 { 0..1 } else { 1..banks.max(2) };
                for bank in range {
                    let offset = bank * 0x4000 + in_bank;
                    let here = bytes.get(offset).copied().unwrap_or(0xFF);
                    if compare.is_none_or(|c| c == here) {
                        patches.push((offset, value));
                    }
                }
            }
        }
        patches
    }
}

fn has_genie(codes: &[Cheat]) -> bool {
    codes.iter().any(|c| matches!(c, Cheat::GameGenie { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gameshark_address_is_little_endian() {
        assert_eq!(
            parse_one("010F2CD1"),
            Some(Cheat::GameShark {
                wram_bank: None,
                addr: 0xD12C,
                value: 0x0F
            })
        );
        assert_eq!(
            parse_one("9305C5D0"),
            Some(Cheat::GameShark {
                wram_bank: Some(3),
                addr: 0xD0C5,
                value: 0x05
            })
        );
    }

    #[test]
    fn game_genie_decodes_value_address_and_compare() {
        // 00A-17B-C49: value 00, address 0x4A17 (F=B inverted to 4), compare from C and 9.
        let Some(Cheat::GameGenie {
            addr,
            value,
            compare,
        }) = parse_one("00A-17B-C49")
        else {
            panic!("a Game Genie code")
        };
        assert_eq!((addr, value), (0x4A17, 0x00));
        assert_eq!(compare, Some(0xC9u8.rotate_right(2) ^ 0xBA));
        assert!(matches!(
            parse_one("3EA-17B"),
            Some(Cheat::GameGenie { compare: None, .. })
        ));
    }

    #[test]
    fn game_genie_patches_bank_zero_or_every_matching_switchable_bank() {
        // 64 KiB: four banks; offset 0x0A17 holds the bank number in each bank.
        let mut bytes = vec![0u8; 0x10000];
        bytes[0x147] = 0x01; // MBC1
        bytes[0x148] = 0x01; // 64 KiB
        for bank in 0..4 {
            bytes[bank * 0x4000 + 0x0A17] = bank as u8;
        }
        let rom = Rom::from_bytes(bytes).unwrap();
        let patches_for = |code: &str| {
            let mut cheats = Cheats::default();
            cheats.set(0, true, parse(code).unwrap());
            cheats.rom_patches(&rom)
        };
        // 0x4A17 without a compare byte: banks 1-3.
        let value = 0x99u8;
        let code = format!("{value:02X}A-17B");
        assert_eq!(
            patches_for(&code),
            vec![(0x4A17, 0x99), (0x8A17, 0x99), (0xCA17, 0x99)]
        );
        // With compare byte 2: only bank 2. G and I encode (2 ^ 0xBA) rotated left by 2.
        let raw = (2u8 ^ 0xBA).rotate_left(2);
        let code = format!("{value:02X}A-17B-{:X}0{:X}", raw >> 4, raw & 0xF);
        assert_eq!(patches_for(&code), vec![(0x8A17, 0x99)]);
        // 0x0A17 (F = 0 inverted is F): bank 0 only.
        assert_eq!(patches_for("99A-17F"), vec![(0x0A17, 0x99)]);
    }

    #[test]
    fn garbage_is_refused() {
        for bad in ["", "xyz", "0123", "01-2345-67", "ZZZ-ZZZ-ZZZ", "00A-17F"] {
            let parsed = parse_one(bad);
            // 00A-17F decodes to 0x0A17... only codes for 0000-7FFF are Game Genie codes.
            if bad == "00A-17F" {
                assert!(parsed.is_some());
            } else {
                assert_eq!(parsed, None, "{bad}");
            }
        }
        assert!(parse("010F2CD1+nonsense").is_err());
        assert_eq!(parse("010F2CD1+3EA-17B").unwrap().len(), 2);
    }
}
