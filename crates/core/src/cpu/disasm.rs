//! SM83 disassembler printing RGBDS syntax, one instruction at a time.
//!
//! [`disassemble`] decodes the instruction at the start of `bytes`, assumed to sit at address
//! `pc`, and returns its text and length in bytes. It never panics and never reads past
//! `bytes`. The output is meant to be parsed back by Backspin's assembler (`crates/asm`),
//! so it follows one regular grammar:
//!
//! ```text
//! line     := mnemonic [ " " operand { ", " operand } ]        (all lowercase but hex digits)
//! n8       := "$" 2 uppercase hex digits                        e.g. $0A
//! n16      := "$" 4 uppercase hex digits                        e.g. $C0DE
//! r8       := a | b | c | d | e | h | l
//! r16      := bc | de | hl | sp            (push/pop use af instead of sp)
//! cond     := nz | z | nc | c
//! mem      := [bc] | [de] | [hl] | [hl+] | [hl-] | [n16]
//! bit      := 0 ..= 7                      (one decimal digit)
//! ```
//!
//! Every form printed:
//!
//! | bytes          | text                                                              |
//! |----------------|-------------------------------------------------------------------|
//! | 00 / 76 / 27.. | `nop` `halt` `daa` `cpl` `scf` `ccf` `rlca` `rrca` `rla` `rra` `di` `ei` `ret` `reti` |
//! | 10 00          | `stop` (two bytes, as RGBDS assembles it); `10 nn`, nn ≠ 0: `stop $nn` |
//! | 40..7F         | `ld r8, r8` with `[hl]` in place of an r8 (`ld [hl], b`, `ld a, [hl]`) |
//! | 06 nn ..       | `ld r8, n8`, `ld [hl], n8`                                        |
//! | 02 0A 12 ..    | `ld [bc], a` `ld a, [de]` `ld [hl+], a` `ld a, [hl-]` ...          |
//! | EA / FA        | `ld [n16], a`, `ld a, [n16]`                                       |
//! | E0 / F0        | `ldh [n8], a`, `ldh a, [n8]` (n8 is the low byte of $FFnn)        |
//! | E2 / F2        | `ldh [c], a`, `ldh a, [c]`                                         |
//! | 01 11 21 31    | `ld r16, n16`                                                     |
//! | 08             | `ld [n16], sp`                                                    |
//! | F9 / F8        | `ld sp, hl`; `ld hl, sp+n8` or `ld hl, sp-n8` (signed: sp-$80 ..= sp+$7F) |
//! | E8             | `add sp, n8` or `add sp, -n8` (signed hex: -$80 ..= $7F)          |
//! | 80..BF, C6..   | `add a, x` `adc a, x` `sub a, x` `sbc a, x` `and a, x` `xor a, x` `or a, x` `cp a, x`; x = r8, `[hl]` or n8 (always with the explicit `a, `) |
//! | 04 05 03 0B .. | `inc r8` `dec r8` `inc [hl]` `dec [hl]` `inc r16` `dec r16`        |
//! | 09 19 29 39    | `add hl, r16`                                                     |
//! | 18 / 20 ..     | `jr n16`, `jr cond, n16`: the ABSOLUTE target pc + 2 + offset      |
//! | C3 / C2 ..     | `jp n16`, `jp cond, n16`; E9: `jp hl`                              |
//! | CD / C4 ..     | `call n16`, `call cond, n16`                                      |
//! | C0 ..          | `ret cond`                                                        |
//! | C7 ..          | `rst n8` (`rst $00` .. `rst $38`)                                  |
//! | C5 / C1 ..     | `push r16`, `pop r16` (bc de hl af)                               |
//! | CB xx          | `rlc x` `rrc x` `rl x` `rr x` `sla x` `sra x` `swap x` `srl x`, `bit n, x` `res n, x` `set n, x`; x = r8 or `[hl]` |
//! | D3 DB DD E3 E4 EB EC ED F4 FC FD | `db $D3` etc. (illegal opcodes, length 1)       |
//! | truncated      | `db $XX` of the first byte, length 1, when `bytes` ends inside the instruction |
//!
//! An empty `bytes` gives `("", 0)`.

use std::fmt::Write;

const R8_NAMES: [&str; 8] = ["b", "c", "d", "e", "h", "l", "[hl]", "a"];
const R16_NAMES: [&str; 4] = ["bc", "de", "hl", "sp"];
const R16_STACK_NAMES: [&str; 4] = ["bc", "de", "hl", "af"];
const COND_NAMES: [&str; 4] = ["nz", "z", "nc", "c"];
const ALU_NAMES: [&str; 8] = ["add", "adc", "sub", "sbc", "and", "xor", "or", "cp"];
const SHIFT_NAMES: [&str; 8] = ["rlc", "rrc", "rl", "rr", "sla", "sra", "swap", "srl"];
const BIT_NAMES: [&str; 3] = ["bit", "res", "set"];

/// The instruction's length in bytes for a base (non-CB) opcode; 1 for illegal ones.
pub fn instruction_length(opcode: u8) -> u8 {
    match opcode {
        0x10 | 0xCB | 0x18 | 0x20 | 0x28 | 0x30 | 0x38 | 0xE0 | 0xE8 | 0xF0 | 0xF8 => 2,
        op if op & 0xC7 == 0x06 || op & 0xC7 == 0xC6 => 2,
        0x01 | 0x11 | 0x21 | 0x31 | 0x08 | 0xEA | 0xFA | 0xC3 | 0xCD => 3,
        op if op & 0xE7 == 0xC2 || op & 0xE7 == 0xC4 => 3,
        _ => 1,
    }
}

/// A signed 8-bit value as `$XX` or `-$XX`.
fn signed_hex(value: u8) -> String {
    let value = value as i8;
    if value < 0 {
        format!("-${:02X}", value.unsigned_abs())
    } else {
        format!("${value:02X}")
    }
}

/// Disassembles the instruction at the start of `bytes`, located at address `pc`.
/// Returns the text (grammar in the module documentation) and the length in bytes.
pub fn disassemble(bytes: &[u8], pc: u16) -> (String, u8) {
    let Some(&opcode) = bytes.first() else {
        return (String::new(), 0);
    };
    let length = instruction_length(opcode);
    if bytes.len() < usize::from(length) {
        return (format!("db ${opcode:02X}"), 1);
    }
    let n8 = bytes.get(1).copied().unwrap_or(0);
    let n16 = u16::from_le_bytes([n8, bytes.get(2).copied().unwrap_or(0)]);
    let y = usize::from((opcode >> 3) & 7);
    let z = usize::from(opcode & 7);
    let p = y >> 1;
    let mut text = String::new();
    match opcode {
        0x00 => text.push_str("nop"),
        0x10 if n8 == 0 => text.push_str("stop"),
        0x10 => _ = write!(text, "stop ${n8:02X}"),
        0x07 | 0x0F | 0x17 | 0x1F | 0x27 | 0x2F | 0x37 | 0x3F => {
            let names = ["rlca", "rrca", "rla", "rra", "daa", "cpl", "scf", "ccf"];
            text.push_str(names[y]);
        }
        0x08 => _ = write!(text, "ld [${n16:04X}], sp"),
        0x18 | 0x20 | 0x28 | 0x30 | 0x38 => {
            let target = pc.wrapping_add(2).wrapping_add_signed(i16::from(n8 as i8));
            if opcode == 0x18 {
                _ = write!(text, "jr ${target:04X}");
            } else {
                _ = write!(text, "jr {}, ${target:04X}", COND_NAMES[y - 4]);
            }
        }
        0x01 | 0x11 | 0x21 | 0x31 => _ = write!(text, "ld {}, ${n16:04X}", R16_NAMES[p]),
        0x09 | 0x19 | 0x29 | 0x39 => _ = write!(text, "add hl, {}", R16_NAMES[p]),
        0x02 | 0x12 | 0x22 | 0x32 | 0x0A | 0x1A | 0x2A | 0x3A => {
            let mem = ["[bc]", "[de]", "[hl+]", "[hl-]"][p];
            if opcode & 0x08 == 0 {
                _ = write!(text, "ld {mem}, a");
            } else {
                _ = write!(text, "ld a, {mem}");
            }
        }
        0x03 | 0x13 | 0x23 | 0x33 => _ = write!(text, "inc {}", R16_NAMES[p]),
        0x0B | 0x1B | 0x2B | 0x3B => _ = write!(text, "dec {}", R16_NAMES[p]),
        0x04 | 0x0C | 0x14 | 0x1C | 0x24 | 0x2C | 0x34 | 0x3C => {
            _ = write!(text, "inc {}", R8_NAMES[y]);
        }
        0x05 | 0x0D | 0x15 | 0x1D | 0x25 | 0x2D | 0x35 | 0x3D => {
            _ = write!(text, "dec {}", R8_NAMES[y]);
        }
        0x06 | 0x0E | 0x16 | 0x1E | 0x26 | 0x2E | 0x36 | 0x3E => {
            _ = write!(text, "ld {}, ${n8:02X}", R8_NAMES[y]);
        }
        0x76 => text.push_str("halt"),
        0x40..=0x7F => _ = write!(text, "ld {}, {}", R8_NAMES[y], R8_NAMES[z]),
        0x80..=0xBF => _ = write!(text, "{} a, {}", ALU_NAMES[y], R8_NAMES[z]),
        0xC0 | 0xC8 | 0xD0 | 0xD8 => _ = write!(text, "ret {}", COND_NAMES[y]),
        0xC9 => text.push_str("ret"),
        0xD9 => text.push_str("reti"),
        0xC1 | 0xD1 | 0xE1 | 0xF1 => _ = write!(text, "pop {}", R16_STACK_NAMES[p]),
        0xC5 | 0xD5 | 0xE5 | 0xF5 => _ = write!(text, "push {}", R16_STACK_NAMES[p]),
        0xC2 | 0xCA | 0xD2 | 0xDA => _ = write!(text, "jp {}, ${n16:04X}", COND_NAMES[y]),
        0xC3 => _ = write!(text, "jp ${n16:04X}"),
        0xE9 => text.push_str("jp hl"),
        0xC4 | 0xCC | 0xD4 | 0xDC => _ = write!(text, "call {}, ${n16:04X}", COND_NAMES[y]),
        0xCD => _ = write!(text, "call ${n16:04X}"),
        0xC6 | 0xCE | 0xD6 | 0xDE | 0xE6 | 0xEE | 0xF6 | 0xFE => {
            _ = write!(text, "{} a, ${n8:02X}", ALU_NAMES[y]);
        }
        0xC7 | 0xCF | 0xD7 | 0xDF | 0xE7 | 0xEF | 0xF7 | 0xFF => {
            _ = write!(text, "rst ${:02X}", opcode & 0x38);
        }
        0xE0 => _ = write!(text, "ldh [${n8:02X}], a"),
        0xF0 => _ = write!(text, "ldh a, [${n8:02X}]"),
        0xE2 => text.push_str("ldh [c], a"),
        0xF2 => text.push_str("ldh a, [c]"),
        0xEA => _ = write!(text, "ld [${n16:04X}], a"),
        0xFA => _ = write!(text, "ld a, [${n16:04X}]"),
        0xE8 => _ = write!(text, "add sp, {}", signed_hex(n8)),
        0xF8 => {
            let offset = signed_hex(n8);
            let sign = if offset.starts_with('-') { "" } else { "+" };
            _ = write!(text, "ld hl, sp{sign}{offset}");
        }
        0xF9 => text.push_str("ld sp, hl"),
        0xF3 => text.push_str("di"),
        0xFB => text.push_str("ei"),
        0xCB => {
            let cb = n8;
            let operand = R8_NAMES[usize::from(cb & 7)];
            let index = usize::from((cb >> 3) & 7);
            match cb >> 6 {
                0 => _ = write!(text, "{} {operand}", SHIFT_NAMES[index]),
                kind => {
                    _ = write!(
                        text,
                        "{} {index}, {operand}",
                        BIT_NAMES[usize::from(kind - 1)]
                    )
                }
            }
        }
        // D3 DB DD E3 E4 EB EC ED F4 FC FD
        _ => _ = write!(text, "db ${opcode:02X}"),
    }
    (text, length)
}

#[cfg(test)]
mod tests {
    use super::disassemble;

    fn dis(bytes: &[u8], pc: u16) -> String {
        disassemble(bytes, pc).0
    }

    #[test]
    fn required_forms() {
        assert_eq!(disassemble(&[0x2A], 0), ("ld a, [hl+]".into(), 1));
        assert_eq!(dis(&[0x32], 0), "ld [hl-], a");
        assert_eq!(disassemble(&[0xE0, 0x44], 0), ("ldh [$44], a".into(), 2));
        assert_eq!(dis(&[0xF0, 0x0F], 0), "ldh a, [$0F]");
        assert_eq!(dis(&[0xE2], 0), "ldh [c], a");
        assert_eq!(dis(&[0xF2], 0), "ldh a, [c]");
        assert_eq!(
            disassemble(&[0x08, 0x34, 0x12], 0),
            ("ld [$1234], sp".into(), 3)
        );
        assert_eq!(dis(&[0xF8, 0x05], 0), "ld hl, sp+$05");
        assert_eq!(dis(&[0xF8, 0xFB], 0), "ld hl, sp-$05");
        assert_eq!(dis(&[0xF8, 0x80], 0), "ld hl, sp-$80");
        assert_eq!(dis(&[0xE8, 0x7F], 0), "add sp, $7F");
        assert_eq!(dis(&[0xE8, 0xFE], 0), "add sp, -$02");
        assert_eq!(dis(&[0x18, 0xFE], 0x0150), "jr $0150");
        assert_eq!(dis(&[0x20, 0x10], 0xFFF0), "jr nz, $0002");
        assert_eq!(dis(&[0xFF], 0), "rst $38");
        assert_eq!(disassemble(&[0x10, 0x00], 0), ("stop".into(), 2));
        assert_eq!(dis(&[0x10, 0x42], 0), "stop $42");
        assert_eq!(dis(&[0x76], 0), "halt");
        assert_eq!(disassemble(&[0xCB, 0x5E], 0), ("bit 3, [hl]".into(), 2));
        assert_eq!(dis(&[0xCB, 0x37], 0), "swap a");
        assert_eq!(dis(&[0xCB, 0xFF], 0), "set 7, a");
        assert_eq!(dis(&[0xCB, 0x86], 0), "res 0, [hl]");
        assert_eq!(dis(&[0x3E, 0xAB], 0), "ld a, $AB");
        assert_eq!(dis(&[0x36, 0x01], 0), "ld [hl], $01");
        assert_eq!(dis(&[0xEA, 0xCD, 0xAB], 0), "ld [$ABCD], a");
        assert_eq!(dis(&[0xFA, 0x00, 0xC0], 0), "ld a, [$C000]");
        assert_eq!(dis(&[0xC2, 0x00, 0x40], 0), "jp nz, $4000");
        assert_eq!(dis(&[0xDC, 0x00, 0x40], 0), "call c, $4000");
        assert_eq!(dis(&[0xD8], 0), "ret c");
        assert_eq!(dis(&[0xF1], 0), "pop af");
        assert_eq!(dis(&[0x96], 0), "sub a, [hl]");
        assert_eq!(dis(&[0xFE, 0x90], 0), "cp a, $90");
        assert_eq!(dis(&[0x34], 0), "inc [hl]");
        assert_eq!(dis(&[0x3B], 0), "dec sp");
        assert_eq!(dis(&[0x29], 0), "add hl, hl");
        assert_eq!(dis(&[0xE9], 0), "jp hl");
        assert_eq!(dis(&[0x70], 0), "ld [hl], b");
    }

    #[test]
    fn illegal_and_truncated() {
        for op in [
            0xD3, 0xDB, 0xDD, 0xE3, 0xE4, 0xEB, 0xEC, 0xED, 0xF4, 0xFC, 0xFD,
        ] {
            assert_eq!(disassemble(&[op, 0, 0], 0), (format!("db ${op:02X}"), 1));
        }
        assert_eq!(disassemble(&[0xC3, 0x00], 0), ("db $C3".into(), 1));
        assert_eq!(disassemble(&[0xCB], 0), ("db $CB".into(), 1));
        assert_eq!(disassemble(&[0x10], 0), ("db $10".into(), 1));
        assert_eq!(disassemble(&[], 0), (String::new(), 0));
    }

    /// Every opcode decodes to non-empty text of the right length, and the 245 legal base
    /// opcodes plus 256 CB opcodes give distinct texts (the decoder is injective).
    #[test]
    fn all_opcodes_distinct() {
        let mut seen = std::collections::HashSet::new();
        for op in 0..=0xFFu8 {
            let (text, length) = disassemble(&[op, 0x12, 0x34], 0x1000);
            assert!(!text.is_empty());
            assert!((1..=3).contains(&length), "{op:02X}");
            if op != 0xCB {
                assert!(seen.insert(text), "{op:02X} duplicates another text");
            }
        }
        for cb in 0..=0xFFu8 {
            let (text, length) = disassemble(&[0xCB, cb], 0);
            assert_eq!(length, 2);
            assert!(seen.insert(text), "CB {cb:02X} duplicates another text");
        }
    }
}
