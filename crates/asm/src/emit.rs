//! The second pass: every statement evaluated and written into the ROM image, then the
//! header filled in.

use crate::AsmError;
use crate::assembler::{Assembler, DataItem, StmtKind};
use crate::encode::{encode, value8, value16};
use crate::header;
use crate::line_table::{LineEntry, LineTable};
use crate::sections::{Kind, Section};
use crate::sources::Loc;

/// An emitted image, which statement (index + 1) wrote each byte, and each statement's
/// byte count.
pub(crate) type Image = (Vec<u8>, Vec<u32>, Vec<u32>);

impl Assembler {
    /// Second pass: evaluates every statement and writes its bytes into an image of `len`
    /// bytes, at the offset `offset(section, address)` gives. Also returns which statement
    /// (index + 1) wrote each byte, and each statement's byte count (in statement order).
    pub(crate) fn emit_image(
        &self,
        len: usize,
        offset: impl Fn(&Section, u32) -> usize,
    ) -> Result<Image, AsmError> {
        let mut image = vec![0xFF; len];
        // Which statement (index + 1) wrote each byte, to report overlaps.
        let mut owner = vec![0u32; len];
        let mut sizes = Vec::with_capacity(self.stmts.len());
        for (index, stmt) in self.stmts.iter().enumerate() {
            let err = |m: String| self.sources.error(stmt.loc, m);
            let section = &self.sections[stmt.section];
            let addr = section.start + stmt.offset;
            let ctx = self.strict(i64::from(addr));
            let bytes: Vec<u8> = match &stmt.kind {
                StmtKind::Instruction { mnemonic, operands } => {
                    encode(mnemonic, operands, &ctx).map_err(err)?
                }
                StmtKind::Db(items) => {
                    let mut out = Vec::new();
                    for item in items {
                        match item {
                            DataItem::Bytes(b) => out.extend_from_slice(b),
                            DataItem::Expr(e) => out.push(value8(e, &ctx).map_err(err)?),
                        }
                    }
                    out
                }
                StmtKind::Dw(exprs) => {
                    let mut out = Vec::new();
                    for e in exprs {
                        out.extend_from_slice(&value16(e, &ctx).map_err(err)?.to_le_bytes());
                    }
                    out
                }
                StmtKind::Ds { count, fill } => {
                    let fill = match fill {
                        Some(e) => value8(e, &ctx).map_err(err)?,
                        None => 0,
                    };
                    vec![fill; *count as usize]
                }
                StmtKind::Bytes(b) => b.clone(),
                StmtKind::Assert { condition, message } => {
                    if condition.eval(&ctx).map_err(err)? == 0 {
                        let m = message.as_deref().unwrap_or("condition is false");
                        return Err(err(format!("assertion failed: {m}")));
                    }
                    Vec::new()
                }
            };
            let start = offset(section, addr);
            sizes.push(bytes.len() as u32);
            for (i, byte) in bytes.into_iter().enumerate() {
                let at = start + i;
                if owner[at] != 0 {
                    let other = self.stmts[owner[at] as usize - 1].loc;
                    return Err(err(format!(
                        "overlaps bytes already placed by {}:{} (ROM offset ${at:X})",
                        self.sources.names[other.file], other.line
                    )));
                }
                owner[at] = index as u32 + 1;
                image[at] = byte;
            }
        }
        Ok((image, owner, sizes))
    }

    /// Where each statement's bytes went (after `emit_image`'s `sizes`), and the source
    /// files by index.
    pub(crate) fn line_table(&self, sizes: &[u32]) -> LineTable {
        let mut entries: Vec<LineEntry> = self
            .stmts
            .iter()
            .zip(sizes)
            .filter(|&(_, &size)| size > 0)
            .map(|(stmt, &size)| {
                let section = &self.sections[stmt.section];
                LineEntry {
                    bank: if section.kind == Kind::Romx {
                        section.bank as u16
                    } else {
                        0
                    },
                    addr: (section.start + stmt.offset) as u16,
                    len: size.min(u32::from(u16::MAX)) as u16,
                    file: stmt.loc.file,
                    line: stmt.loc.line,
                }
            })
            .collect();
        entries.sort_by_key(|e| (e.bank, e.addr));
        // Absolute paths, as an editor names the files it shows.
        let files = self
            .sources
            .names
            .iter()
            .map(|name| match std::fs::canonicalize(name) {
                Ok(path) => path.display().to_string(),
                Err(_) => name.clone(),
            })
            .collect();
        LineTable { files, entries }
    }

    /// Every label as a `.sym` file (RGBDS's format: `BANK:ADDR name`, banks in hex as
    /// RGBDS numbers them), sorted by bank and address.
    pub(crate) fn sym_text(&self) -> String {
        let mut labels: Vec<(u32, i64, &str)> = self
            .labels
            .iter()
            .filter_map(|(name, section)| {
                let section = &self.sections[*section];
                let bank = match section.kind {
                    Kind::Romx | Kind::Wramx | Kind::Sram | Kind::Vram => section.bank,
                    _ => 0,
                };
                Some((bank, *self.symbols.get(name)?, name.as_str()))
            })
            .collect();
        labels.sort();
        let mut out = String::from("; labels written by backspin-asm\n");
        for (bank, addr, name) in labels {
            out.push_str(&format!("{bank:02X}:{:04X} {name}\n", addr & 0xFFFF));
        }
        out
    }

    pub(crate) fn emit_rom(&self) -> Result<(Vec<u8>, LineTable), AsmError> {
        let banks_used = self
            .sections
            .iter()
            .filter(|s| s.kind == Kind::Romx)
            .map(|s| s.bank + 1)
            .max()
            .unwrap_or(2)
            .max(2);
        let mut size_code = 0u8;
        while (2u32 << size_code) < banks_used {
            size_code += 1;
        }
        let last = self
            .sources
            .lines
            .last()
            .map_or(Loc { file: 0, line: 0 }, |l| l.loc);
        if let Some(code) = self.header.rom_size {
            if code < size_code {
                return Err(self.sources.error(
                    last,
                    format!("`ROM_SIZE {code}` is smaller than the {banks_used} banks used"),
                ));
            }
            size_code = code;
        }
        let len = 0x8000usize << size_code;
        let (mut rom, owner, sizes) = self.emit_image(len, |section, addr| match section.kind {
            Kind::Romx => section.bank as usize * 0x4000 + (addr as usize - 0x4000),
            _ => addr as usize,
        })?;
        // Header bytes belong to the fix-up; code placed there would be overwritten.
        if let Some(&index) = owner[0x104..0x150].iter().find(|&&o| o != 0) {
            return Err(self.sources.error(
                self.stmts[index as usize - 1].loc,
                "bytes placed in $0104-$014F, which the cartridge header fix-up fills in \
                 (put code at $0100-$0103 and continue at $0150)",
            ));
        }
        header::fix_up(&mut rom, &self.header, size_code);
        Ok((rom, self.line_table(&sizes)))
    }
}
