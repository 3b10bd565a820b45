//! The noise channel's 15-bit LFSR many shifts on at once, for a channel nobody hears.
//!
//! A shift is linear over GF(2) (each new bit is an XOR of old ones), so the register after
//! `n` shifts is an XOR of what each of its set bits alone would become: one table lookup
//! per byte for a fixed `n`. Tables for `n` = 16, 32, ..., 2048 take any count in one
//! lookup pair per set bit of `n / 16`; the last `n % 16` shifts are done in closed form.

use super::channels::shift_lfsr_15_bit;

/// The smallest jump with a table: 2^`FIRST_JUMP_BITS` shifts.
const FIRST_JUMP_BITS: u32 = 4;
/// Tables for 2^4 up to 2^11 shifts: a catch-up piece has at most 1,024 shifts (8,192
/// T-cycles at one per 8), so larger counts are rare and take several turns.
const JUMPS: usize = 8;

/// `JUMP[k][0][b]` and `JUMP[k][1][b]`: the register 2^(k + 4) shifts on from the value
/// `b` in its low byte, or in its high byte (bit 15 included: a shift drops it).
static JUMP: [[[u16; 256]; 2]; JUMPS] = {
    let mut tables = [[[0u16; 256]; 2]; JUMPS];
    // The first by shifting, each other by applying the one before twice.
    let mut byte = 0;
    while byte < 256 {
        let mut half = 0;
        while half < 2 {
            let mut lfsr = (byte as u16) << (8 * half);
            let mut shift = 0;
            while shift < 1 << FIRST_JUMP_BITS {
                lfsr = shift_once(lfsr);
                shift += 1;
            }
            tables[0][half][byte] = lfsr;
            half += 1;
        }
        byte += 1;
    }
    let mut k = 1;
    while k < JUMPS {
        let mut byte = 0;
        while byte < 256 {
            let mut half = 0;
            while half < 2 {
                let once = apply(&tables[k - 1], (byte as u16) << (8 * half));
                tables[k][half][byte] = apply(&tables[k - 1], once);
                half += 1;
            }
            byte += 1;
        }
        k += 1;
    }
    tables
};

/// One 15-bit shift (as `channels::shift_lfsr` in 15-bit mode), usable in a constant.
const fn shift_once(lfsr: u16) -> u16 {
    let feedback = (lfsr ^ (lfsr >> 1)) & 1;
    (lfsr >> 1) & 0x3FFF | feedback << 14
}

/// The register after one table's jump.
#[inline(always)]
const fn apply(table: &[[u16; 256]; 2], lfsr: u16) -> u16 {
    table[0][(lfsr & 0xFF) as usize] ^ table[1][(lfsr >> 8) as usize]
}

/// The 15-bit LFSR `shifts` shifts on.
pub(super) fn lfsr_15_bit_after(mut lfsr: u16, shifts: u32) -> u16 {
    // In units of the smallest jump; table `k` jumps 2^k of them.
    let mut jumps = shifts >> FIRST_JUMP_BITS;
    // Beyond twice the largest table (only a long piece or a hand-made state): repeat it.
    while jumps >> JUMPS != 0 {
        lfsr = apply(&JUMP[JUMPS - 1], lfsr);
        jumps -= 1 << (JUMPS - 1);
    }
    let mut k = 0;
    while jumps != 0 {
        if jumps & 1 != 0 {
            lfsr = apply(&JUMP[k], lfsr);
        }
        jumps >>= 1;
        k += 1;
    }
    let rest = shifts & ((1 << FIRST_JUMP_BITS) - 1);
    if rest > 14 {
        lfsr = shift_lfsr_15_bit(lfsr, 14);
        lfsr = shift_lfsr_15_bit(lfsr, rest - 14);
    } else if rest > 0 {
        lfsr = shift_lfsr_15_bit(lfsr, rest);
    }
    lfsr
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Jumps land where shifting one at a time does, from every register value for short
    /// counts and from a few for every count up to past the largest table twice over.
    #[test]
    fn jumps_equal_single_shifts() {
        for start in 0..=u16::MAX {
            let mut lfsr = start;
            for shifts in 0..=40 {
                assert_eq!(
                    lfsr_15_bit_after(start, shifts),
                    lfsr,
                    "{start:#06X} by {shifts}"
                );
                lfsr = shift_once(lfsr);
            }
        }
        for start in [0x0000, 0x0001, 0x7FFF, 0xFFFF, 0x4A31, 0x8000] {
            let mut lfsr = start;
            for shifts in 0..=(1 << (FIRST_JUMP_BITS + JUMPS as u32 + 1)) + 77 {
                assert_eq!(
                    lfsr_15_bit_after(start, shifts),
                    lfsr,
                    "{start:#06X} by {shifts}"
                );
                lfsr = shift_once(lfsr);
            }
        }
    }
}
