//! Sections: their types and address ranges, the `SECTION` directive, and placing the
//! floating ones after the first pass.

use crate::AsmError;
use crate::assembler::Assembler;
use crate::lexer::Token;
use crate::sources::Loc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Rom0,
    Romx,
    Vram,
    Sram,
    Wram0,
    Wramx,
    Oam,
    Hram,
    /// A snippet: any address, no header.
    Raw,
}

impl Kind {
    pub(crate) fn parse(name: &str) -> Option<Kind> {
        Some(match name.to_ascii_uppercase().as_str() {
            "ROM0" => Kind::Rom0,
            "ROMX" => Kind::Romx,
            "VRAM" => Kind::Vram,
            "SRAM" => Kind::Sram,
            "WRAM0" => Kind::Wram0,
            "WRAMX" => Kind::Wramx,
            "OAM" => Kind::Oam,
            "HRAM" => Kind::Hram,
            _ => return None,
        })
    }

    /// The CPU address range, inclusive.
    pub(crate) fn range(self) -> (u32, u32) {
        match self {
            Kind::Rom0 => (0x0000, 0x3FFF),
            Kind::Romx => (0x4000, 0x7FFF),
            Kind::Vram => (0x8000, 0x9FFF),
            Kind::Sram => (0xA000, 0xBFFF),
            Kind::Wram0 => (0xC000, 0xCFFF),
            Kind::Wramx => (0xD000, 0xDFFF),
            Kind::Oam => (0xFE00, 0xFE9F),
            Kind::Hram => (0xFF80, 0xFFFE),
            Kind::Raw => (0x0000, 0xFFFF),
        }
    }

    /// Where floating sections may start: ROM0 ones stay clear of the vectors and header.
    pub(crate) fn floating_low(self) -> u32 {
        match self {
            Kind::Rom0 => 0x150,
            _ => self.range().0,
        }
    }

    /// Whether the section's bytes end up in the ROM image.
    pub(crate) fn holds_data(self) -> bool {
        matches!(self, Kind::Rom0 | Kind::Romx | Kind::Raw)
    }
}

pub(crate) struct Section {
    pub(crate) name: String,
    pub(crate) kind: Kind,
    pub(crate) bank: u32,
    pub(crate) start: u32,
    pub(crate) size: u32,
    /// No address given: placed after the first pass, in the first gap that fits.
    pub(crate) floating: bool,
}

impl Assembler {
    /// `SECTION "name", TYPE[$addr], BANK[n]`: address and bank optional.
    pub(crate) fn section(&mut self, args: &[&[Token]]) -> Result<(), String> {
        let usage = "expected `SECTION \"name\", TYPE[$address], BANK[n]`";
        let (name, kind_tokens, bank_tokens) = match args {
            [[Token::Str(name)], kind] => (name, *kind, None),
            [[Token::Str(name)], kind, bank] => (name, *kind, Some(*bank)),
            _ => return Err(usage.into()),
        };
        let bracketed = |tokens: &[Token]| -> Result<Option<i64>, String> {
            match tokens {
                [] => Ok(None),
                [Token::LBracket, inner @ .., Token::RBracket] => Ok(Some(self.constant(inner)?)),
                _ => Err(usage.into()),
            }
        };
        let Some((Token::Ident(kind_name), address)) = kind_tokens.split_first() else {
            return Err(usage.into());
        };
        let kind = Kind::parse(kind_name).ok_or_else(|| {
            format!("unknown section type `{kind_name}` (ROM0, ROMX, VRAM, SRAM, WRAM0, WRAMX, OAM, HRAM)")
        })?;
        let address = bracketed(address)?;
        let bank = match bank_tokens.map(|t| t.split_first()) {
            None => None,
            Some(Some((Token::Ident(b), inner))) if b.eq_ignore_ascii_case("bank") => {
                bracketed(inner)?
            }
            Some(_) => return Err(usage.into()),
        };
        let bank = match (kind, bank) {
            (Kind::Romx, None) => 1,
            (Kind::Romx, Some(b)) if (1..=511).contains(&b) => b as u32,
            (Kind::Romx, Some(b)) => return Err(format!("ROMX bank {b} is not 1-511")),
            (Kind::Sram, Some(b)) if (0..=15).contains(&b) => b as u32,
            (_, None) => 0,
            (_, Some(b)) => return Err(format!("bank {b} is not valid for this section type")),
        };
        let (low, high) = kind.range();
        let start = match address {
            Some(a) if (i64::from(low)..=i64::from(high)).contains(&a) => a as u32,
            Some(a) => {
                return Err(format!(
                    "address ${a:X} is outside {kind_name} (${low:04X}-${high:04X})"
                ));
            }
            None => kind.floating_low(),
        };
        self.sections.push(Section {
            name: name.clone(),
            kind,
            bank,
            start,
            size: 0,
            floating: address.is_none(),
        });
        self.current = Some(self.sections.len() - 1);
        Ok(())
    }

    /// Puts each floating section in the lowest gap of its type and bank that fits, in
    /// source order, then defines its labels.
    pub(crate) fn place_floating_sections(&mut self) -> Result<(), AsmError> {
        for index in 0..self.sections.len() {
            let section = &self.sections[index];
            if !section.floating {
                continue;
            }
            let (kind, bank, size) = (section.kind, section.bank, section.size);
            let mut taken: Vec<(u32, u32)> = self
                .sections
                .iter()
                .filter(|s| s.kind == kind && s.bank == bank && !s.floating && s.size > 0)
                .map(|s| (s.start, s.start + s.size))
                .collect();
            taken.sort_unstable();
            let mut start = kind.floating_low();
            for (from, to) in taken {
                if start + size <= from {
                    break;
                }
                start = start.max(to);
            }
            if size > 0 && start + size - 1 > kind.range().1 {
                let loc = self
                    .stmts
                    .iter()
                    .find(|s| s.section == index)
                    .map_or(Loc { file: 0, line: 0 }, |s| s.loc);
                let message = format!("no room for section \"{}\" ({size} bytes)", section.name);
                return Err(self.sources.error(loc, message));
            }
            let section = &mut self.sections[index];
            section.start = start;
            section.floating = false;
        }
        for (name, section, offset) in std::mem::take(&mut self.floating_labels) {
            let value = self.sections[section].start + offset;
            self.symbols.insert(name, i64::from(value));
        }
        Ok(())
    }
}
