//! Memory by bank: what a debugger or a script asks for when the bank it wants is not the
//! one mapped (`(bank, address)` pairs as in symbol files). Reads and writes go straight
//! to the storage, with no side effects and no cycles.

use crate::cart::CART_RAM_MAX;
use crate::core::Core;

/// Why a banked access has no answer.
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
    /// A banked write to cartridge ROM, which cannot change.
    #[error(
        "{addr:#06x} is cartridge ROM, which cannot be changed; write it without a bank to reach the MBC's registers"
    )]
    ReadOnly {
        /// The address asked for.
        addr: u16,
    },
}

/// Where a banked address lives (an offset into that storage).
enum Slot {
    Rom(usize),
    Vram(usize),
    VramBank1(usize),
    CartRam(usize),
    Wram(usize),
    WramBanks(usize),
}

impl Core {
    /// The byte at `addr` in `bank`, whatever is mapped now: ROM (0000-3FFF is bank 0,
    /// 4000-7FFF any bank; ROM bank `n` is the cartridge's `n`th 16 KiB), VRAM 8000-9FFF
    /// (bank 0, or 1 on a CGB), cartridge RAM A000-BFFF (8 KiB banks) and WRAM D000-DFFF
    /// (bank 1, or 1-7 on a CGB; C000-CFFF is bank 0). No side effects, no cycles.
    pub fn peek_banked(&self, bank: u16, addr: u16) -> Result<u8, BankError> {
        let hw = &self.state().hw;
        Ok(match self.banked_slot(bank, addr)? {
            Slot::Rom(at) => self.rom().bytes().get(at).copied().unwrap_or(0xFF),
            Slot::Vram(at) => hw.vram[at],
            Slot::VramBank1(at) => hw.vram_bank1[at],
            Slot::CartRam(at) => hw.cart_ram[at],
            Slot::Wram(at) => hw.wram[at],
            Slot::WramBanks(at) => hw.wram_banks[at],
        })
    }

    /// Stores `value` at `addr` in `bank` (the banks of [`Core::peek_banked`]; ROM is
    /// refused): straight into that memory, with no side effect and no cycle. On error
    /// nothing changes.
    pub fn poke_banked(&mut self, bank: u16, addr: u16, value: u8) -> Result<(), BankError> {
        let slot = self.banked_slot(bank, addr)?;
        let hw = &mut self.state_mut().hw;
        *match slot {
            Slot::Rom(_) => return Err(BankError::ReadOnly { addr }),
            Slot::Vram(at) => &mut hw.vram[at],
            Slot::VramBank1(at) => &mut hw.vram_bank1[at],
            Slot::CartRam(at) => &mut hw.cart_ram[at],
            Slot::Wram(at) => &mut hw.wram[at],
            Slot::WramBanks(at) => &mut hw.wram_banks[at],
        } = value;
        Ok(())
    }

    /// The one place that maps `(bank, addr)` to storage, for reads and writes alike.
    fn banked_slot(&self, bank: u16, addr: u16) -> Result<Slot, BankError> {
        let cgb = self.state().hw.cgb.is_cgb();
        let missing = Err(BankError::NoSuchBank { bank, addr });
        let bank_index = usize::from(bank);
        let offset = usize::from(addr);
        match addr {
            0x0000..=0x3FFF if bank == 0 => Ok(Slot::Rom(offset)),
            0x4000..=0x7FFF => {
                let at = bank_index * 0x4000 + offset - 0x4000;
                if at < self.rom().bytes().len() {
                    Ok(Slot::Rom(at))
                } else {
                    missing
                }
            }
            0x8000..=0x9FFF => match bank {
                0 => Ok(Slot::Vram(offset - 0x8000)),
                1 if cgb => Ok(Slot::VramBank1(offset - 0x8000)),
                _ => missing,
            },
            0xA000..=0xBFFF => {
                let at = bank_index * 0x2000 + offset - 0xA000;
                let size = self.rom().header().ram_bytes.min(CART_RAM_MAX);
                if at < size {
                    Ok(Slot::CartRam(at))
                } else {
                    missing
                }
            }
            0xC000..=0xCFFF if bank == 0 => Ok(Slot::Wram(offset - 0xC000)),
            0xD000..=0xDFFF => match bank {
                1 => Ok(Slot::Wram(offset - 0xC000)),
                2..=7 if cgb => Ok(Slot::WramBanks((bank_index - 2) * 0x1000 + offset - 0xD000)),
                _ => missing,
            },
            0x0000..=0x3FFF | 0xC000..=0xCFFF => missing,
            _ => Err(BankError::NotBanked { addr }),
        }
    }
}
