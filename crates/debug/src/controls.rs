//! What a client changes and inspects: breakpoints, watchpoints, registers, memory,
//! restart, disassembly.

use crate::machine_view::set_register;
use crate::points::{AccessKind, Breakpoint, HitCondition, Watchpoint};
use crate::session::{Session, StopReason};

/// A breakpoint as asked for: an address (`$0150`, `0x150`, `01:4000`), label or
/// `label+offset`, with its options.
#[derive(Clone, Debug, Default)]
pub struct BreakpointSpec {
    pub place: String,
    pub condition: Option<String>,
    pub hit_condition: Option<String>,
    pub log_message: Option<String>,
}

/// Where a breakpoint ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub id: u32,
    pub addr: u16,
    pub bank: Option<u16>,
}

/// A parsed place: an address with an optional ROM bank.
pub fn parse_address(text: &str) -> Option<(Option<u16>, u16)> {
    let text = text.trim();
    let number = |s: &str| -> Option<u32> {
        let s = s.trim();
        if let Some(hex) = s
            .strip_prefix('$')
            .or_else(|| s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")))
        {
            u32::from_str_radix(hex, 16).ok()
        } else if let Some(hex) = s.strip_suffix('h') {
            u32::from_str_radix(hex, 16).ok()
        } else {
            s.parse().ok()
        }
    };
    let hex = |s: &str| u32::from_str_radix(s.trim().trim_start_matches('$'), 16).ok();
    let (bank, addr) = match text.split_once(':') {
        Some((bank, addr)) => (Some(hex(bank)?), hex(addr)?),
        None => (None, number(text)?),
    };
    let bank = match bank {
        Some(b) => Some(u16::try_from(b).ok()?),
        None => None,
    };
    Some((bank, u16::try_from(addr).ok()?))
}

impl Session {
    /// Resolves an address, label or `label+offset` to a place.
    pub fn resolve(&self, place: &str) -> Result<(Option<u16>, u16), String> {
        if let Some(found) = parse_address(place) {
            return Ok(found);
        }
        let (name, offset) = match place.split_once('+') {
            Some((name, offset)) => {
                let (_, offset) =
                    parse_address(offset).ok_or_else(|| format!("bad offset in `{place}`"))?;
                (name.trim(), offset)
            }
            None => (place.trim(), 0),
        };
        let location = self
            .symbols
            .get(name)
            .ok_or_else(|| format!("unknown label or address `{place}`"))?;
        Ok((location.bank, location.addr.wrapping_add(offset)))
    }

    /// Replaces every instruction breakpoint with `specs`; each gets a result.
    pub fn set_breakpoints(&mut self, specs: &[BreakpointSpec]) -> Vec<Result<Placed, String>> {
        self.breakpoints.clear();
        self.boundaries = None;
        specs.iter().map(|spec| self.add_breakpoint(spec)).collect()
    }

    /// Adds one instruction breakpoint.
    pub fn add_breakpoint(&mut self, spec: &BreakpointSpec) -> Result<Placed, String> {
        let (bank, addr) = self.resolve(&spec.place)?;
        let condition = match spec.condition.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => Some(self.parse_expr(text)?),
            _ => None,
        };
        let hit_condition = match spec.hit_condition.as_deref().map(str::trim) {
            Some(text) if !text.is_empty() => Some(HitCondition::parse(text)?),
            _ => None,
        };
        let id = self.new_id();
        self.breakpoints.push(Breakpoint {
            id,
            addr,
            bank: if addr < 0x8000 { bank } else { None },
            condition,
            hit_condition,
            log_message: spec.log_message.clone().filter(|m| !m.is_empty()),
            hits: 0,
        });
        Ok(Placed { id, addr, bank })
    }

    /// Removes every watchpoint.
    pub fn clear_watchpoints(&mut self) {
        self.watchpoints.clear();
        self.boundaries = None;
    }

    /// Adds a watchpoint on `len` bytes at `place` (address or label).
    pub fn add_watchpoint(
        &mut self,
        place: &str,
        len: u16,
        access: AccessKind,
        condition: Option<&str>,
    ) -> Result<u32, String> {
        let (_, start) = self.resolve(place)?;
        if len == 0 {
            return Err("a watchpoint covers at least one byte".into());
        }
        let condition = match condition.map(str::trim) {
            Some(text) if !text.is_empty() => {
                let expr = crate::expr::Expr::parse(text)?;
                Some(expr)
            }
            _ => None,
        };
        let id = self.new_id();
        self.watchpoints.push(Watchpoint {
            id,
            start,
            len,
            access,
            condition,
        });
        self.boundaries = None;
        Ok(id)
    }

    /// Sets a register or flag as an input on the timeline (rewinding undoes it).
    pub fn set_register(&mut self, name: &str, value: u16) -> Result<(), String> {
        let mut state = Box::new(*self.timeline.core().state());
        if !set_register(&mut state.cpu, name, value) {
            return Err(format!("no register `{name}`"));
        }
        self.timeline.restore_state(state);
        self.forget_future();
        Ok(())
    }

    /// Writes bytes through the memory map as timeline inputs (rewinding undoes them).
    pub fn write_memory(&mut self, addr: u16, bytes: &[u8]) {
        for (i, &b) in bytes.iter().enumerate() {
            self.timeline.poke(addr.wrapping_add(i as u16), b);
        }
        self.forget_future();
    }

    /// Power cycle, as an input on the timeline (rewinding brings the old run back).
    pub fn restart(&mut self) -> StopReason {
        self.run = None;
        self.timeline.reset();
        self.calls.clear();
        self.forget_future();
        StopReason::Entry
    }

    /// `count` instructions from `addr` (with `offset` instructions before or after it),
    /// each as (address, bytes, text with labels, label defined there).
    pub fn disassemble(&mut self, addr: u16, offset: i64, count: usize) -> Vec<Line> {
        // Instructions before `addr` are found by decoding forward from far enough back
        // that the stream has settled on the real instruction starts.
        let mut start = addr;
        if offset < 0 {
            let back = offset.unsigned_abs().min(1024) as u16;
            let from = addr.saturating_sub(back.saturating_mul(3).saturating_add(16));
            let mut starts = Vec::new();
            let mut at = from;
            while at < addr {
                starts.push(at);
                at = at.wrapping_add(u16::from(self.line_at(at).length).max(1));
                if at < from {
                    break;
                }
            }
            let skip = starts.len().saturating_sub(back as usize);
            start = starts.get(skip).copied().unwrap_or(addr);
        }
        let mut at = start;
        if offset > 0 {
            for _ in 0..offset.min(65_536) {
                at = at.wrapping_add(u16::from(self.line_at(at).length).max(1));
            }
        }
        let mut lines = Vec::with_capacity(count.min(4096));
        for _ in 0..count.min(4096) {
            let line = self.line_at(at);
            at = at.wrapping_add(u16::from(line.length).max(1));
            lines.push(line);
        }
        lines
    }

    fn line_at(&mut self, addr: u16) -> Line {
        let mut bytes = [0u8; 3];
        self.timeline.peek_into(addr, &mut bytes);
        let (text, length) = backspin_core::disassemble(&bytes, addr);
        let bank = self.timeline.core().rom_bank_at(addr);
        let text = self.with_labels(&text, bank);
        let label = self.symbols.at(addr, bank).map(str::to_string);
        Line {
            addr,
            bank,
            length: length.max(1),
            bytes,
            text,
            label,
        }
    }

    /// Replaces `$XXXX` operands that are label addresses with the label.
    fn with_labels(&self, text: &str, bank: Option<u16>) -> String {
        let Some(at) = text.find('$') else {
            return text.to_string();
        };
        let digits: String = text[at + 1..]
            .chars()
            .take_while(|c| c.is_ascii_hexdigit())
            .collect();
        if digits.len() != 4 {
            return text.to_string();
        }
        let Ok(value) = u16::from_str_radix(&digits, 16) else {
            return text.to_string();
        };
        match self
            .symbols
            .at(value, if value < 0x8000 { bank } else { None })
        {
            Some(name) => format!("{}{}{}", &text[..at], name, &text[at + 5..]),
            None => text.to_string(),
        }
    }
}

/// One disassembled instruction.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    pub addr: u16,
    pub bank: Option<u16>,
    pub length: u8,
    pub bytes: [u8; 3],
    pub text: String,
    pub label: Option<String>,
}
