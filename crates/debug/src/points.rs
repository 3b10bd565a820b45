//! Breakpoints and watchpoints as the session keeps them.

use crate::expr::Expr;

/// An instruction breakpoint (by address, label or source line: all end up here).
#[derive(Clone, Debug)]
pub struct Breakpoint {
    pub id: u32,
    pub addr: u16,
    /// ROM bank the address must be mapped from (None: any).
    pub bank: Option<u16>,
    pub condition: Option<Expr>,
    pub hit_condition: Option<HitCondition>,
    /// A logpoint's message (`{expr}` is replaced by its value): logs instead of stopping.
    pub log_message: Option<String>,
    /// Times the condition held (forward runs only: re-simulation does not count).
    pub hits: u64,
}

/// When a breakpoint whose condition holds stops, by its hit count: `N` or `>= N` from the
/// Nth hit on, `== N` at the Nth only, `% N` at every Nth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HitCondition {
    AtLeast(u64),
    Exactly(u64),
    Every(u64),
}

impl HitCondition {
    /// Parses `N`, `>= N`, `== N` or `% N`.
    pub fn parse(text: &str) -> Result<HitCondition, String> {
        let text = text.trim();
        let number = |s: &str| {
            s.trim()
                .parse::<u64>()
                .map_err(|_| format!("bad hit count `{text}` (use N, >= N, == N or % N)"))
        };
        if let Some(rest) = text.strip_prefix(">=") {
            Ok(HitCondition::AtLeast(number(rest)?))
        } else if let Some(rest) = text.strip_prefix("==") {
            Ok(HitCondition::Exactly(number(rest)?))
        } else if let Some(rest) = text.strip_prefix('%') {
            let n = number(rest)?;
            if n == 0 {
                return Err("hit count `% 0` never stops".into());
            }
            Ok(HitCondition::Every(n))
        } else {
            Ok(HitCondition::AtLeast(number(text)?))
        }
    }

    /// Whether the `hits`th hit stops.
    pub fn stops(self, hits: u64) -> bool {
        match self {
            HitCondition::AtLeast(n) => hits >= n,
            HitCondition::Exactly(n) => hits == n,
            HitCondition::Every(n) => hits.is_multiple_of(n),
        }
    }
}

/// Which accesses a watchpoint sees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    ReadWrite,
}

impl AccessKind {
    /// Whether an access (`write` or a read) matches.
    pub fn matches(self, write: bool) -> bool {
        match self {
            AccessKind::Read => !write,
            AccessKind::Write => write,
            AccessKind::ReadWrite => true,
        }
    }
}

/// A data breakpoint on `len` bytes from `start` (wrapping at 0xFFFF).
#[derive(Clone, Debug)]
pub struct Watchpoint {
    pub id: u32,
    pub start: u16,
    pub len: u16,
    pub access: AccessKind,
    /// Evaluated after the access; `value` names the byte's value then.
    pub condition: Option<Expr>,
}

impl Watchpoint {
    /// Whether `addr` is watched.
    pub fn covers(&self, addr: u16) -> bool {
        addr.wrapping_sub(self.start) < self.len
    }
}
