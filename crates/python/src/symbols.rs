//! Symbol files (`.sym`), as RGBDS's `rgblink -n` and no$gmb write them: one `BB:AAAA name`
//! a line (bank and address in hex), `;` starting a comment, blank lines and `[section]`
//! headers ignored. What lets a script say `run_until(pc="Main")`.

use std::collections::HashMap;

/// A symbol's place: ROM, RAM or VRAM bank, and address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub bank: u16,
    pub addr: u16,
}

/// Names from a symbol file. A name defined twice keeps its last place, as a later
/// definition overrides an earlier one in the tools' own output.
#[derive(Clone, Debug, Default)]
pub(crate) struct Symbols {
    pub by_name: HashMap<String, Place>,
}

/// A malformed line: its number (from 1) and what is wrong.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct SymbolLineError {
    pub line: usize,
    pub what: String,
}

impl std::fmt::Display for SymbolLineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}: {}", self.line, self.what)
    }
}

impl Symbols {
    pub fn parse(text: &str) -> Result<Symbols, SymbolLineError> {
        let mut by_name = HashMap::new();
        for (index, raw) in text.lines().enumerate() {
            let line = raw.split(';').next().unwrap_or("").trim();
            if line.is_empty() || (line.starts_with('[') && line.ends_with(']')) {
                continue;
            }
            let error = |what: String| SymbolLineError {
                line: index + 1,
                what,
            };
            let mut words = line.split_whitespace();
            let (Some(place), Some(name), None) = (words.next(), words.next(), words.next()) else {
                return Err(error(format!(
                    "{line:?} is not `BANK:ADDRESS name` (hex bank and address, one name)"
                )));
            };
            let place = parse_place(place).ok_or_else(|| {
                error(format!(
                    "{place:?} is not BANK:ADDRESS in hex (bank up to FFFF, address up to FFFF)"
                ))
            })?;
            by_name.insert(name.to_string(), place);
        }
        Ok(Symbols { by_name })
    }
}

fn parse_place(text: &str) -> Option<Place> {
    let (bank, addr) = text.split_once(':')?;
    let hex = |s: &str| {
        (!s.is_empty() && s.len() <= 4)
            .then(|| u16::from_str_radix(s, 16).ok())
            .flatten()
    };
    Some(Place {
        bank: hex(bank)?,
        addr: hex(addr)?,
    })
}
