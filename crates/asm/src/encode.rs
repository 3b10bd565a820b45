//! Operands and instruction encoding: the SM83 opcode map.
//!
//! Encodings follow the opcode tables in Pan Docs ("CPU Instruction Set") and Gekkio's
//! "Game Boy: Complete Technical Reference" (section on the SM83 instruction set).

use crate::expr::{EvalContext, Expr, ExprParser, Scope};
use crate::lexer::Token;

/// An operand as written, before its expressions are evaluated.
#[derive(Clone, Debug)]
pub enum Operand {
    /// `b c d e h l [hl] a` by their 3-bit register index (`[hl]` is 6).
    R8(u8),
    Bc,
    De,
    Hl,
    Sp,
    Af,
    /// `nz z nc` (`c` parses as [`Operand::R8`] and doubles as the carry condition).
    Cond(u8),
    MemBc,
    MemDe,
    /// `[hl+]` / `[hli]`
    MemHlInc,
    /// `[hl-]` / `[hld]`
    MemHlDec,
    /// `[c]`, or `[$FF00+c]` (the expression must equal $FF00).
    MemC(Option<Expr>),
    /// `[expr]`
    Mem(Expr),
    /// `sp+expr` / `sp-expr`
    SpOffset(Expr),
    Imm(Expr),
}

const R8_NAMES: [&str; 8] = ["b", "c", "d", "e", "h", "l", "", "a"];

/// Names that are registers or conditions and so cannot be symbols.
pub fn is_reserved(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "a" | "b"
            | "c"
            | "d"
            | "e"
            | "h"
            | "l"
            | "af"
            | "bc"
            | "de"
            | "hl"
            | "sp"
            | "nz"
            | "z"
            | "nc"
            | "hli"
            | "hld"
    )
}

fn ident_lower(token: &Token) -> Option<String> {
    match token {
        Token::Ident(s) => Some(s.to_ascii_lowercase()),
        _ => None,
    }
}

/// Classifies one operand's tokens.
pub fn parse_operand(tokens: &[Token], scope: &Scope) -> Result<Operand, String> {
    let first = tokens.first().ok_or("empty operand")?;
    if *first == Token::LBracket {
        if tokens.last() != Some(&Token::RBracket) {
            return Err("missing `]`".into());
        }
        let inner = &tokens[1..tokens.len() - 1];
        let names: Vec<Option<String>> = inner.iter().map(ident_lower).collect();
        let first_name = names.first().cloned().flatten();
        match (first_name.as_deref(), inner.len(), inner.get(1)) {
            (Some("hl"), 1, _) => return Ok(Operand::R8(6)),
            (Some("bc"), 1, _) => return Ok(Operand::MemBc),
            (Some("de"), 1, _) => return Ok(Operand::MemDe),
            (Some("c"), 1, _) => return Ok(Operand::MemC(None)),
            (Some("hli"), 1, _) | (Some("hl"), 2, Some(Token::Op("+"))) => {
                return Ok(Operand::MemHlInc);
            }
            (Some("hld"), 1, _) | (Some("hl"), 2, Some(Token::Op("-"))) => {
                return Ok(Operand::MemHlDec);
            }
            _ => {}
        }
        let n = inner.len();
        if n >= 3
            && inner[n - 2] == Token::Op("+")
            && ident_lower(&inner[n - 1]).as_deref() == Some("c")
        {
            let base = ExprParser::parse_all(&inner[..n - 2], scope)?;
            return Ok(Operand::MemC(Some(base)));
        }
        return Ok(Operand::Mem(ExprParser::parse_all(inner, scope)?));
    }
    if let Some(name) = ident_lower(first) {
        if tokens.len() == 1 {
            if let Some(i) = R8_NAMES.iter().position(|r| !r.is_empty() && *r == name) {
                return Ok(Operand::R8(i as u8));
            }
            match name.as_str() {
                "bc" => return Ok(Operand::Bc),
                "de" => return Ok(Operand::De),
                "hl" => return Ok(Operand::Hl),
                "sp" => return Ok(Operand::Sp),
                "af" => return Ok(Operand::Af),
                "nz" => return Ok(Operand::Cond(0)),
                "z" => return Ok(Operand::Cond(1)),
                "nc" => return Ok(Operand::Cond(2)),
                _ => {}
            }
        } else if name == "sp" && matches!(tokens.get(1), Some(Token::Op("+" | "-"))) {
            // `sp+e` / `sp-e`: the sign is part of the offset expression.
            return Ok(Operand::SpOffset(ExprParser::parse_all(
                &tokens[1..],
                scope,
            )?));
        }
    }
    Ok(Operand::Imm(ExprParser::parse_all(tokens, scope)?))
}

/// Encodes one instruction. Its length never depends on expression values, so the first
/// pass can size it with a lenient context.
pub fn encode(mnemonic: &str, ops: &[Operand], ctx: &EvalContext) -> Result<Vec<u8>, String> {
    use Operand::*;
    let m = mnemonic.to_ascii_lowercase();
    let imm8 = |e: &Expr| -> Result<u8, String> { value8(e, ctx) };
    let imm16 = |e: &Expr| -> Result<[u8; 2], String> { value16(e, ctx).map(u16::to_le_bytes) };
    let rr = |op: &Operand| -> Option<u8> {
        match op {
            Bc => Some(0),
            De => Some(1),
            Hl => Some(2),
            Sp => Some(3),
            _ => None,
        }
    };
    let cond = |op: &Operand| -> Option<u8> {
        match op {
            Cond(c) => Some(*c),
            R8(1) => Some(3), // `c` the register is also `c` the carry condition
            _ => None,
        }
    };
    let bad = || -> Result<Vec<u8>, String> { Err(format!("invalid operands for `{m}`")) };

    // Instructions without operands.
    let implied: Option<u8> = match m.as_str() {
        "nop" => Some(0x00),
        "rlca" => Some(0x07),
        "rrca" => Some(0x0F),
        "rla" => Some(0x17),
        "rra" => Some(0x1F),
        "daa" => Some(0x27),
        "cpl" => Some(0x2F),
        "scf" => Some(0x37),
        "ccf" => Some(0x3F),
        "halt" => Some(0x76),
        "reti" => Some(0xD9),
        "di" => Some(0xF3),
        "ei" => Some(0xFB),
        _ => None,
    };
    if let Some(op) = implied {
        return if ops.is_empty() { Ok(vec![op]) } else { bad() };
    }

    // ALU operations on A: `op a, x` or `op x`.
    let alu: Option<u8> = match m.as_str() {
        "add" => Some(0),
        "adc" => Some(1),
        "sub" => Some(2),
        "sbc" => Some(3),
        "and" => Some(4),
        "xor" => Some(5),
        "or" => Some(6),
        "cp" => Some(7),
        _ => None,
    };
    if let Some(alu) = alu {
        match ops {
            [Hl, src] if m == "add" => {
                return match rr(src) {
                    Some(r) => Ok(vec![0x09 | r << 4]),
                    None => bad(),
                };
            }
            [Sp, Imm(e)] if m == "add" => return Ok(vec![0xE8, imm8(e)?]),
            [R8(7), src] | [src] => {
                return match src {
                    R8(r) => Ok(vec![0x80 | alu << 3 | r]),
                    Imm(e) => Ok(vec![0xC6 | alu << 3, imm8(e)?]),
                    _ => bad(),
                };
            }
            _ => return bad(),
        }
    }

    // CB-prefixed rotates, shifts and bit operations.
    let shift: Option<u8> = match m.as_str() {
        "rlc" => Some(0),
        "rrc" => Some(1),
        "rl" => Some(2),
        "rr" => Some(3),
        "sla" => Some(4),
        "sra" => Some(5),
        "swap" => Some(6),
        "srl" => Some(7),
        _ => None,
    };
    if let Some(shift) = shift {
        return match ops {
            [R8(r)] => Ok(vec![0xCB, shift << 3 | r]),
            _ => bad(),
        };
    }
    let bit_op: Option<u8> = match m.as_str() {
        "bit" => Some(0x40),
        "res" => Some(0x80),
        "set" => Some(0xC0),
        _ => None,
    };
    if let Some(base) = bit_op {
        return match ops {
            [Imm(e), R8(r)] => {
                let bit = e.eval(ctx)?;
                if !(0..=7).contains(&bit) && !ctx.lenient {
                    return Err(format!("bit number {bit} is not 0-7"));
                }
                Ok(vec![0xCB, base | ((bit as u8) & 7) << 3 | r])
            }
            _ => bad(),
        };
    }

    match (m.as_str(), ops) {
        ("ld", [R8(6), R8(6)]) => {
            Err("`ld [hl], [hl]` does not exist (that encoding is `halt`)".into())
        }
        ("ld", [R8(d), R8(s)]) => Ok(vec![0x40 | d << 3 | s]),
        ("ld", [R8(d), Imm(e)]) => Ok(vec![0x06 | d << 3, imm8(e)?]),
        ("ld", [Sp, Hl]) => Ok(vec![0xF9]),
        ("ld", [Hl, SpOffset(e)]) => Ok(vec![0xF8, imm8(e)?]),
        ("ld", [dst, Imm(e)]) if rr(dst).is_some() => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0x01 | rr(dst).unwrap_or(0) << 4, lo, hi])
        }
        ("ld", [MemBc, R8(7)]) => Ok(vec![0x02]),
        ("ld", [MemDe, R8(7)]) => Ok(vec![0x12]),
        ("ld", [MemHlInc, R8(7)]) | ("ldi", [R8(6), R8(7)]) => Ok(vec![0x22]),
        ("ld", [MemHlDec, R8(7)]) | ("ldd", [R8(6), R8(7)]) => Ok(vec![0x32]),
        ("ld", [R8(7), MemBc]) => Ok(vec![0x0A]),
        ("ld", [R8(7), MemDe]) => Ok(vec![0x1A]),
        ("ld", [R8(7), MemHlInc]) | ("ldi", [R8(7), R8(6)]) => Ok(vec![0x2A]),
        ("ld", [R8(7), MemHlDec]) | ("ldd", [R8(7), R8(6)]) => Ok(vec![0x3A]),
        ("ld", [Mem(e), Sp]) => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0x08, lo, hi])
        }
        ("ld", [Mem(e), R8(7)]) => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0xEA, lo, hi])
        }
        ("ld", [R8(7), Mem(e)]) => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0xFA, lo, hi])
        }
        ("ld" | "ldh", [MemC(base), R8(7)]) => {
            check_ff00(base.as_ref(), ctx)?;
            Ok(vec![0xE2])
        }
        ("ld" | "ldh", [R8(7), MemC(base)]) => {
            check_ff00(base.as_ref(), ctx)?;
            Ok(vec![0xF2])
        }
        ("ldh", [Mem(e), R8(7)]) => Ok(vec![0xE0, high_page(e, ctx)?]),
        ("ldh", [R8(7), Mem(e)]) => Ok(vec![0xF0, high_page(e, ctx)?]),
        ("inc", [R8(r)]) => Ok(vec![0x04 | r << 3]),
        ("dec", [R8(r)]) => Ok(vec![0x05 | r << 3]),
        ("inc", [x]) if rr(x).is_some() => Ok(vec![0x03 | rr(x).unwrap_or(0) << 4]),
        ("dec", [x]) if rr(x).is_some() => Ok(vec![0x0B | rr(x).unwrap_or(0) << 4]),
        ("jp", [Hl] | [R8(6)]) => Ok(vec![0xE9]),
        ("jp", [Imm(e)]) => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0xC3, lo, hi])
        }
        ("jp", [c, Imm(e)]) if cond(c).is_some() => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0xC2 | cond(c).unwrap_or(0) << 3, lo, hi])
        }
        ("call", [Imm(e)]) => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0xCD, lo, hi])
        }
        ("call", [c, Imm(e)]) if cond(c).is_some() => {
            let [lo, hi] = imm16(e)?;
            Ok(vec![0xC4 | cond(c).unwrap_or(0) << 3, lo, hi])
        }
        ("jr", [Imm(e)]) => Ok(vec![0x18, jr_offset(e, ctx)?]),
        ("jr", [c, Imm(e)]) if cond(c).is_some() => {
            Ok(vec![0x20 | cond(c).unwrap_or(0) << 3, jr_offset(e, ctx)?])
        }
        ("ret", []) => Ok(vec![0xC9]),
        ("ret", [c]) if cond(c).is_some() => Ok(vec![0xC0 | cond(c).unwrap_or(0) << 3]),
        ("push" | "pop", [x]) => {
            let r = match x {
                Bc => 0,
                De => 1,
                Hl => 2,
                Af => 3,
                _ => return bad(),
            };
            Ok(vec![if m == "push" { 0xC5 } else { 0xC1 } | r << 4])
        }
        ("rst", [Imm(e)]) => {
            let v = e.eval(ctx)?;
            if ctx.lenient || (v & !0x38) == 0 {
                Ok(vec![0xC7 | (v as u8 & 0x38)])
            } else {
                Err(format!(
                    "`rst` target ${v:X} is not one of $00, $08, ... $38"
                ))
            }
        }
        // STOP is followed by a byte the CPU skips; assemblers emit $00 there unless told.
        ("stop", []) => Ok(vec![0x10, 0x00]),
        ("stop", [Imm(e)]) => Ok(vec![0x10, imm8(e)?]),
        (
            "ld" | "ldh" | "ldi" | "ldd" | "inc" | "dec" | "jp" | "call" | "jr" | "ret" | "stop",
            _,
        ) => bad(),
        _ => Err(format!("unknown instruction `{mnemonic}`")),
    }
}

/// An 8-bit value: -128..=255 (a negative number stands for its two's complement).
pub fn value8(e: &Expr, ctx: &EvalContext) -> Result<u8, String> {
    let v = e.eval(ctx)?;
    if !ctx.lenient && !(-128..=255).contains(&v) {
        return Err(format!("value {v} (${v:X}) does not fit in 8 bits"));
    }
    Ok(v as u8)
}

/// A 16-bit value: -32768..=65535.
pub fn value16(e: &Expr, ctx: &EvalContext) -> Result<u16, String> {
    let v = e.eval(ctx)?;
    if !ctx.lenient && !(-32768..=65535).contains(&v) {
        return Err(format!("value {v} (${v:X}) does not fit in 16 bits"));
    }
    Ok(v as u16)
}

/// `ldh` takes either the full address $FF00-$FFFF or just its low byte.
fn high_page(e: &Expr, ctx: &EvalContext) -> Result<u8, String> {
    let v = e.eval(ctx)?;
    match v {
        0..=0xFF | 0xFF00..=0xFFFF => Ok(v as u8),
        _ if ctx.lenient => Ok(0),
        _ => Err(format!("`ldh` address ${v:X} is not in $FF00-$FFFF")),
    }
}

fn check_ff00(base: Option<&Expr>, ctx: &EvalContext) -> Result<(), String> {
    match base {
        Some(e) if !ctx.lenient && e.eval(ctx)? != 0xFF00 => {
            Err("only `[$FF00+c]` or `[c]` can be indexed by `c`".into())
        }
        _ => Ok(()),
    }
}

/// `jr` takes the absolute target and encodes it relative to the next instruction.
fn jr_offset(target: &Expr, ctx: &EvalContext) -> Result<u8, String> {
    let offset = target.eval(ctx)?.wrapping_sub(ctx.here + 2);
    if !ctx.lenient && !(-128..=127).contains(&offset) {
        return Err(format!(
            "`jr` target is {offset} bytes away; the range is -128..127"
        ));
    }
    Ok(offset as u8)
}
