//! The line table: which source line put each byte of the ROM where, so a debugger can set
//! breakpoints by file and line and show the line an address came from. The assembler
//! writes it as text beside the ROM's `.sym` (`game.gb`, `game.sym`, `game.lines`):
//!
//! ```text
//! ; backspin line table 1
//! file 0 /home/me/game/main.asm
//! file 1 /home/me/game/engine.inc
//! 00:0150 3 0 12
//! 01:4000 1 1 7
//! ```
//!
//! - The first line names the format and its version.
//! - `file INDEX PATH`: a source file (the main file and every `INCLUDE`d one), by index
//!   from 0; the path is absolute when the file could be found, and runs to the end of the
//!   line. Built-in includes are named `<builtin>/NAME`.
//! - `BANK:ADDR LENGTH FILE LINE`: `LENGTH` bytes (decimal) from `ADDR` (hex, the CPU
//!   address) in ROM bank `BANK` (hex, as in `.sym` files: 0 for $0000-$3FFF) came from
//!   line `LINE` (1-based) of file `FILE`. Code and data both appear; lines inside `REPT`
//!   appear once per repetition. Entries are sorted by bank and address.
//! - Lines starting with `;` and blank lines are comments.

use std::fmt::Write;

/// The first line of a line table file.
const HEADER: &str = "; backspin line table 1";

/// Where the bytes of one source line went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineEntry {
    /// ROM bank, numbered as `.sym` files number them.
    pub bank: u16,
    /// CPU address of the first byte.
    pub addr: u16,
    /// Bytes from `addr` on.
    pub len: u16,
    /// Index into [`LineTable::files`].
    pub file: usize,
    /// 1-based.
    pub line: u32,
}

/// A ROM's line table (see the module docs for its file format).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LineTable {
    /// Source file paths, indexed by [`LineEntry::file`].
    pub files: Vec<String>,
    /// Sorted by bank and address.
    pub entries: Vec<LineEntry>,
}

impl LineTable {
    /// The table as a `.lines` file.
    pub fn to_text(&self) -> String {
        let mut out = format!("{HEADER}\n");
        for (index, path) in self.files.iter().enumerate() {
            let _ = writeln!(out, "file {index} {path}");
        }
        for e in &self.entries {
            let _ = writeln!(
                out,
                "{:02X}:{:04X} {} {} {}",
                e.bank, e.addr, e.len, e.file, e.line
            );
        }
        out
    }

    /// Reads a `.lines` file; an error names the first bad line (1-based) and why.
    pub fn parse(text: &str) -> Result<LineTable, String> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, first)) if first.trim() == HEADER => {}
            _ => return Err(format!("line 1: not a line table (expected `{HEADER}`)")),
        }
        let mut table = LineTable::default();
        for (index, line) in lines {
            let bad = |why: &str| format!("line {}: {why}", index + 1);
            let line = line.trim();
            if line.is_empty() || line.starts_with(';') {
                continue;
            }
            if let Some(rest) = line.strip_prefix("file ") {
                let (number, path) = rest
                    .split_once(' ')
                    .ok_or_else(|| bad("file without a path"))?;
                if number.parse::<usize>().ok() != Some(table.files.len()) {
                    return Err(bad("files must be numbered 0, 1, 2, ... in order"));
                }
                table.files.push(path.to_string());
                continue;
            }
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [place, len, file, number] = fields[..] else {
                return Err(bad("expected `BANK:ADDR LENGTH FILE LINE`"));
            };
            let (bank, addr) = place
                .split_once(':')
                .ok_or_else(|| bad("expected BANK:ADDR"))?;
            let entry = LineEntry {
                bank: u16::from_str_radix(bank, 16).map_err(|_| bad("bad bank"))?,
                addr: u16::from_str_radix(addr, 16).map_err(|_| bad("bad address"))?,
                len: len.parse().map_err(|_| bad("bad length"))?,
                file: file.parse().map_err(|_| bad("bad file number"))?,
                line: number.parse().map_err(|_| bad("bad line number"))?,
            };
            if entry.file >= table.files.len() {
                return Err(bad("file number not declared by a `file` line before it"));
            }
            table.entries.push(entry);
        }
        table.entries.sort_by_key(|e| (e.bank, e.addr));
        Ok(table)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_names_bad_lines() {
        let table = LineTable {
            files: vec!["/a/main.asm".into(), "/a/lib with space.inc".into()],
            entries: vec![
                LineEntry {
                    bank: 0,
                    addr: 0x150,
                    len: 3,
                    file: 0,
                    line: 12,
                },
                LineEntry {
                    bank: 1,
                    addr: 0x4000,
                    len: 1,
                    file: 1,
                    line: 7,
                },
            ],
        };
        assert_eq!(LineTable::parse(&table.to_text()), Ok(table));
        assert!(LineTable::parse("hello").unwrap_err().starts_with("line 1"));
        let bad = format!("{HEADER}\nfile 0 x.asm\n00:0150 3 1 2\n");
        assert!(LineTable::parse(&bad).unwrap_err().starts_with("line 3"));
    }
}
