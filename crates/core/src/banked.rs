//! Reading memory by bank: what a debugger or a script asks for when the bank it wants is
//! not the one mapped (`(bank, address)` pairs as in symbol files).

use crate::cart::CART_RAM_MAX;
use crate::core::Core;

/// Why a banked read has no answer.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum BankError {
    #[error("bank {bank} does not exist at {addr:#06x} on this cartridge and model")]
    /// The bank is past the cartridge's (or the model's) last one.
    NoSuchBank {
        /// The bank asked for.
        bank: u16,
        /// The address asked for.
        addr: u16,
    },
    #[error(
        "{addr:#06x} is not banked memory (banks exist for ROM, VRAM, cartridge RAM and WRAM D000-DFFF)"
    )]
    /// The address is in unbanked memory (I/O, HRAM, OAM, WRAM bank 0).
    NotBanked {
        /// The address asked for.
        addr: u16,
    },
}

impl Core {
    /// The byte at `addr` in `bank`, whatever is mapped now: ROM (0000-3FFF is bank 0,
    /// 4000-7FFF any bank; ROM bank `n` is the cartridge's `n`th 16 KiB), VRAM 8000-9FFF
    /// (bank 0, or 1 on a CGB), cartridge RAM A000-BFFF (8 KiB banks) and WRAM D000-DFFF
    /// (bank 1, or 1-7 on a CGB; C000-CFFF is bank 0). No side effects, no cycles.
    pub fn peek_banked(&self, bank: u16, addr: u16) -> Result<u8, BankError> {
        let hw = &self.state().hw;
        let rom = self.rom().bytes();
        let cgb = hw.cgb.is_cgb();
        let missing = Err(BankError::NoSuchBank { bank, addr });
        let bank_index = usize::from(bank);
        let offset = usize::from(addr);
        match addr {
            0x0000..=0x3FFF if bank == 0 => Ok(rom.get(offset).copied().unwrap_or(0xFF)),
            0x4000..=0x7FFF => {
                let at = bank_index * 0x4000 + offset - 0x4000;
                rom.get(at).copied().map_or(missing, Ok)
            }
            0x8000..=0x9FFF => match bank {
                0 => Ok(hw.vram[offset - 0x8000]),
                1 if cgb => Ok(hw.vram_bank1[offset - 0x8000]),
                _ => missing,
            },
            0xA000..=0xBFFF => {
                let at = bank_index * 0x2000 + offset - 0xA000;
                let size = self.rom().header().ram_bytes.min(CART_RAM_MAX);
                if at < size {
                    Ok(hw.cart_ram[at])
                } else {
                    missing
                }
            }
            0xC000..=0xCFFF if bank == 0 => Ok(hw.wram[offset - 0xC000]),
            0xD000..=0xDFFF => match bank {
                1 => Ok(hw.wram[offset - 0xC000]),
                2..=7 if cgb => Ok(hw.wram_banks[(bank_index - 2) * 0x1000 + offset - 0xD000]),
                _ => missing,
            },
            0x0000..=0x3FFF | 0xC000..=0xCFFF => missing,
            _ => Err(BankError::NotBanked { addr }),
        }
    }
}
