//! Source lines for ROMs built with our assembler: its line table (`game.lines` beside
//! `game.sym`, format in `backspin_asm::LineTable`) turned into breakpoint places by file
//! and line, and addresses back into file and line for the call stack.

use backspin_asm::LineTable;
use std::path::{Path, PathBuf};

/// A line table with its files resolved for matching an editor's paths.
#[derive(Clone, Debug, Default)]
pub struct SourceLines {
    table: LineTable,
    /// Each file's canonical path, where it exists.
    canonical: Vec<Option<PathBuf>>,
}

/// Where a source breakpoint goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinePlace {
    /// The line asked for, or the next one below it that has bytes.
    pub line: u32,
    /// Where that line's bytes start (bank, address), lowest first: once, or once per
    /// `REPT` repetition.
    pub places: Vec<(u16, u16)>,
}

impl SourceLines {
    /// Reads the table's files (their canonical paths) for matching.
    pub fn new(table: LineTable) -> SourceLines {
        let canonical = table
            .files
            .iter()
            .map(|f| std::fs::canonicalize(f).ok())
            .collect();
        SourceLines { table, canonical }
    }

    pub fn is_empty(&self) -> bool {
        self.table.entries.is_empty()
    }

    /// The table's file an editor's `path` names: the same file on disk, else the one file
    /// with the same name (a ROM built elsewhere).
    fn file_index(&self, path: &str) -> Option<usize> {
        let wanted = std::fs::canonicalize(path).ok();
        if let Some(wanted) = &wanted
            && let Some(i) = self
                .canonical
                .iter()
                .position(|c| c.as_ref() == Some(wanted))
        {
            return Some(i);
        }
        if let Some(i) = self.table.files.iter().position(|f| f == path) {
            return Some(i);
        }
        let name = Path::new(path).file_name()?;
        let mut same = self
            .table
            .files
            .iter()
            .enumerate()
            .filter(|(_, f)| Path::new(f).file_name() == Some(name));
        match (same.next(), same.next()) {
            (Some((i, _)), None) => Some(i),
            _ => None,
        }
    }

    /// Where a breakpoint on `line` of `path` goes: that line, or the next line of the file
    /// with bytes (as editors expect a breakpoint on a comment or label line to move).
    pub fn place(&self, path: &str, line: u32) -> Result<LinePlace, String> {
        let file = self
            .file_index(path)
            .ok_or_else(|| format!("{path} is not a source of this ROM (per its line table)"))?;
        let line = self
            .table
            .entries
            .iter()
            .filter(|e| e.file == file && e.line >= line)
            .map(|e| e.line)
            .min()
            .ok_or_else(|| format!("no code at or after line {line}"))?;
        let mut places: Vec<(u16, u16)> = self
            .table
            .entries
            .iter()
            .filter(|e| e.file == file && e.line == line)
            .map(|e| (e.bank, e.addr))
            .collect();
        places.sort_unstable_by_key(|&(bank, addr)| (addr, bank));
        Ok(LinePlace { line, places })
    }

    /// The file and line whose bytes hold `addr` in ROM bank `bank` (None: outside ROM).
    pub fn line_at(&self, addr: u16, bank: Option<u16>) -> Option<(&str, u32)> {
        let bank = bank?;
        let entries = &self.table.entries;
        let after = entries.partition_point(|e| (e.bank, e.addr) <= (bank, addr));
        let e = entries[..after].last()?;
        let inside = e.bank == bank && u32::from(addr) < u32::from(e.addr) + u32::from(e.len);
        inside.then(|| (self.table.files[e.file].as_str(), e.line))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_asm::LineEntry;

    fn entry(bank: u16, addr: u16, len: u16, line: u32) -> LineEntry {
        LineEntry {
            bank,
            addr,
            len,
            file: 0,
            line,
        }
    }

    #[test]
    fn moves_to_the_next_line_with_code_and_maps_addresses_back() {
        let lines = SourceLines::new(LineTable {
            files: vec!["/nowhere/main.asm".into()],
            entries: vec![
                entry(0, 0x150, 3, 10),
                entry(0, 0x153, 1, 12),
                entry(1, 0x4000, 2, 20),
            ],
        });
        let at = lines.place("/nowhere/main.asm", 11).unwrap();
        assert_eq!(
            at,
            LinePlace {
                line: 12,
                places: vec![(0, 0x153)]
            }
        );
        // Matched by file name when the path differs.
        assert_eq!(
            lines.place("/elsewhere/main.asm", 20).unwrap().places,
            [(1, 0x4000)]
        );
        assert!(lines.place("/nowhere/main.asm", 21).is_err());
        assert!(lines.place("/nowhere/other.asm", 1).is_err());
        assert_eq!(
            lines.line_at(0x152, Some(0)),
            Some(("/nowhere/main.asm", 10))
        );
        assert_eq!(
            lines.line_at(0x4001, Some(1)),
            Some(("/nowhere/main.asm", 20))
        );
        assert_eq!(lines.line_at(0x4002, Some(1)), None);
        assert_eq!(lines.line_at(0x4001, Some(2)), None);
        assert_eq!(lines.line_at(0xC000, None), None);
    }
}
