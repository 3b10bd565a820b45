//! Every opcode, disassembled by the CPU's disassembler and assembled again at the same
//! address, gives back the same bytes: the two agree on the whole instruction set and on
//! operand syntax (signed `sp` offsets, absolute `jr` targets, `ldh` low bytes, `db`).

use backspin_asm::assemble_snippet;
use backspin_core::cpu::disasm::disassemble;

/// Operand bytes tried for every opcode: the edges of signed and unsigned ranges.
const OPERANDS: [[u8; 2]; 6] = [
    [0x00, 0x00],
    [0x01, 0x80],
    [0x7F, 0x12],
    [0x80, 0xFF],
    [0xFE, 0x7F],
    [0xFF, 0xFF],
];
/// Addresses the instructions sit at (affects `jr` targets only); far from wrapping.
const ADDRESSES: [u16; 3] = [0x0200, 0x4567, 0xC0F0];

#[test]
fn every_opcode_round_trips_through_the_disassembler() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for pc in ADDRESSES {
        for prefixed in [false, true] {
            for opcode in 0..=255u8 {
                for [lo, hi] in OPERANDS {
                    let bytes: Vec<u8> = if prefixed {
                        vec![0xCB, opcode]
                    } else {
                        vec![opcode, lo, hi]
                    };
                    let (text, len) = disassemble(&bytes, pc);
                    let want = &bytes[..usize::from(len)];
                    match assemble_snippet(&text, pc) {
                        Ok(got) if got == want => checked += 1,
                        Ok(got) => failures.push(format!("{want:02X?} -> `{text}` -> {got:02X?}")),
                        Err(e) => failures.push(format!("{want:02X?} -> `{text}`: {e}")),
                    }
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    println!("{checked} instructions round-tripped");
}
