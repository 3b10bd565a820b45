//! Every opcode, disassembled by the CPU's disassembler and assembled again at the same
//! address, gives back the same bytes: the two agree on the whole instruction set and on
//! operand syntax (signed `sp` offsets, absolute `jr` targets, `ldh` low bytes, `db`).

use backspin_asm::assemble_snippet;
use backspin_core::disassemble;

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

/// A whole listing: random bytes disassembled linearly from $4000, assembled back as one
/// program, give the same bytes (labels aside, this is what a disassembly of a ROM is).
#[test]
fn random_listings_round_trip() {
    let seed: u64 = 0xB5_0A5E;
    println!("seed {seed:#x}");
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..20 {
        let bytes: Vec<u8> = (0..4096).map(|_| next() as u8).collect();
        let origin = 0x4000u16;
        let mut listing = String::new();
        let mut offset = 0usize;
        while offset < bytes.len() {
            let pc = origin + offset as u16;
            let (text, len) = disassemble(&bytes[offset..], pc);
            listing.push_str(&format!("    {text}\n"));
            offset += usize::from(len);
        }
        let got = assemble_snippet(&listing, origin).unwrap_or_else(|e| panic!("{e}"));
        assert!(
            got == bytes,
            "seed {seed:#x}: listing does not assemble back to its bytes"
        );
    }
}
