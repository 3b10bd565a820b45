//! The capture's Huffman pass: a [`TokenCode`] laid out for encoding, and the one walk over a
//! delta's token stream that counts the group's statistics and writes the coded bits.
//!
//! Why a layout of its own: the walk runs on every captured frame, right after a frame of
//! emulation has filled the cache with the core's data. One `u16` per symbol (code and
//! length together) is one load from a 512-byte table per context instead of two from
//! separate ones, and bits leave the accumulator 32 at a time rather than byte by byte.
//! The walk is [`for_each_byte`]'s, and the bits are the canonical codes' (tested against
//! them).

use super::{
    CONTEXTS, HOT, MAX_LEN, POSITIONS, TokenCode, TokenCounts, add_varint_byte, header_context,
    literal_context, next_position, next_region_start,
};
use crate::hot::CLASSES;

const _: () = assert!(MAX_LEN <= 12, "a code and its length share a u16");

/// A [`TokenCode`] as the encoder reads it: per context and byte, `code << 4 | length`.
pub struct EncodeTable {
    entries: [[u16; 256]; CONTEXTS],
}

impl EncodeTable {
    /// The table of `code` (boxed: 16 KiB).
    pub fn new(code: &TokenCode) -> Box<EncodeTable> {
        let mut table: Box<EncodeTable> = Box::new(EncodeTable {
            entries: [[0; 256]; CONTEXTS],
        });
        table.rebuild(code);
        table
    }

    /// Lays out `code` in place (no allocation).
    pub fn rebuild(&mut self, code: &TokenCode) {
        for (entries, code) in self.entries.iter_mut().zip(&code.codes) {
            for (entry, (&length, &bits)) in
                entries.iter_mut().zip(code.lengths.iter().zip(&code.codes))
            {
                *entry = (bits << 4) | u16::from(length);
            }
        }
    }

    /// Adds the bytes of `tokens` to `counts` and writes their code at the start of `out`
    /// (most significant bit first, the last byte padded with zeros), in one walk; returns
    /// the coded length in bytes. `out` must hold [`coded_room`] bytes for `tokens` (what
    /// lies past the coded length is scratch). Contexts as in
    /// [`for_each_byte`](super::for_each_byte).
    ///
    /// Hot bytes are mostly runs of zeros on some games (positions that change in most
    /// frames but not this one, neighbours in the hot list): zeros after a zero, in one
    /// context whose code for zero is all zero bits, are counted and written together,
    /// found eight at a time.
    pub fn count_and_encode(
        &self,
        counts: &mut TokenCounts,
        tokens: &[u8],
        hot: &[usize; CLASSES],
        out: &mut [u8],
    ) -> usize {
        // No count can reach `u32::MAX` while the bytes counted stay below it: then a
        // plain add is the saturating one, and cheaper on every byte.
        let bytes = counts.bytes.saturating_add(tokens.len() as u64);
        let room = bytes < u64::from(u32::MAX);
        counts.bytes = bytes;
        if room {
            self.count_and_encode_as::<false>(counts, tokens, hot, out)
        } else {
            self.count_and_encode_as::<true>(counts, tokens, hot, out)
        }
    }

    /// `count_and_encode`, with counts that saturate (`SATURATE`) or cannot reach their
    /// limit.
    #[inline(always)]
    fn count_and_encode_as<const SATURATE: bool>(
        &self,
        counts: &mut TokenCounts,
        tokens: &[u8],
        hot: &[usize; CLASSES],
        out: &mut [u8],
    ) -> usize {
        assert!(out.len() >= coded_room(tokens.len()), "room for the codes");
        let mut bits = BitWriter::new(out);
        let mut i = 0;
        let mut previous = 0;
        for (class, &end) in hot.iter().enumerate() {
            let end = end.min(tokens.len());
            let after_zero = HOT + 2 * class;
            let zero_entry = self.entries[after_zero][0];
            let zero_len = u32::from(zero_entry & 0x0F);
            let zero_runs = zero_entry >> 4 == 0;
            while i < end {
                let b = tokens[i];
                let context = after_zero + previous;
                bump::<SATURATE>(&mut counts.counts[context][usize::from(b)], 1);
                bits.put(self.entries[context][usize::from(b)]);
                previous = usize::from(b != 0);
                i += 1;
                if b == 0 && zero_runs {
                    // The zeros that follow, eight bytes at a time, in one step.
                    let mut run = 0;
                    while end - i >= 8 {
                        let word =
                            u64::from_le_bytes(tokens[i..i + 8].try_into().expect("8 bytes"));
                        let zeros = word.trailing_zeros() / 8;
                        run += zeros;
                        i += zeros as usize;
                        if zeros < 8 {
                            break;
                        }
                    }
                    if run > 0 {
                        bump::<SATURATE>(&mut counts.counts[after_zero][0], run);
                        bits.put_zeros(zero_len * run);
                    }
                }
            }
        }
        self.code_tokens::<SATURATE>(counts, &tokens[i..], &mut bits);
        bits.finish()
    }

    /// The zero-run token part of `count_and_encode`: each token's header varints, then its
    /// literal, whose bytes take the context of the region they patch and of the byte
    /// before them. The contexts are those of `tokens_each_byte` (the walk the decoder and
    /// the statistics share), found from the token structure as it is read rather than byte
    /// by byte through a closure: a literal inside one region, nearly all of them, runs a
    /// loop over its region's four contexts alone. A malformed tail (which the encoder
    /// never produces) gets the same contexts as `tokens_each_byte` gives it.
    #[inline(always)]
    fn code_tokens<const SATURATE: bool>(
        &self,
        counts: &mut TokenCounts,
        tokens: &[u8],
        bits: &mut BitWriter,
    ) {
        let mut i = 0;
        let mut offset = 0usize;
        while i < tokens.len() {
            let mut values = [0usize; 2];
            for (field, value) in values.iter_mut().enumerate() {
                let context = header_context(field, offset.saturating_add(*value));
                let mut shift = 0u32;
                loop {
                    let Some(&b) = tokens.get(i) else { return };
                    bump::<SATURATE>(&mut counts.counts[context][usize::from(b)], 1);
                    bits.put(self.entries[context][usize::from(b)]);
                    i += 1;
                    if !add_varint_byte(value, &mut shift, b) {
                        break;
                    }
                }
                // The gap moves the offset the length's context is taken at.
                if field == 0 {
                    offset = offset.saturating_add(*value);
                }
            }
            let end = i.saturating_add(values[1]).min(tokens.len());
            let literal = &tokens[i..end];
            i = end;
            let region_end = next_region_start(offset);
            match offset.checked_add(literal.len()) {
                Some(literal_end) if literal_end <= region_end => {
                    let first = literal_context(offset, 0);
                    let rows: &mut [[u32; 256]; POSITIONS] = (&mut counts.counts
                        [first..first + POSITIONS])
                        .try_into()
                        .expect("a region's literal contexts");
                    let codes: &[[u16; 256]; POSITIONS] = (&self.entries[first..first + POSITIONS])
                        .try_into()
                        .expect("a region's literal contexts");
                    let mut position = 0;
                    for &b in literal {
                        bump::<SATURATE>(&mut rows[position][usize::from(b)], 1);
                        bits.put(codes[position][usize::from(b)]);
                        // The mask tells the compiler what the table holds: no bounds check.
                        position = usize::from(NEXT_POSITION[usize::from(b)]) & (POSITIONS - 1);
                    }
                    offset = literal_end;
                }
                _ => {
                    // Across a region's end (or at an offset no state reaches), byte by byte.
                    let mut first = literal_context(offset, 0);
                    let mut region_end = region_end;
                    let mut position = 0;
                    for &b in literal {
                        if offset >= region_end {
                            first = literal_context(offset, 0);
                            region_end = next_region_start(offset);
                        }
                        bump::<SATURATE>(&mut counts.counts[first + position][usize::from(b)], 1);
                        bits.put(self.entries[first + position][usize::from(b)]);
                        position = next_position(b);
                        offset = offset.saturating_add(1);
                    }
                }
            }
        }
    }
}

/// Adds `by` to a count: saturating, or (when the caller knows it cannot reach the limit)
/// plainly.
#[inline(always)]
fn bump<const SATURATE: bool>(count: &mut u32, by: u32) {
    *count = if SATURATE {
        count.saturating_add(by)
    } else {
        count.wrapping_add(by)
    };
}

/// `next_position` of every byte, as a table (`u8`: positions are below `POSITIONS`, a
/// power of two).
const _: () = assert!(POSITIONS.is_power_of_two());
const NEXT_POSITION: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = next_position(b as u8) as u8;
        b += 1;
    }
    table
};

/// Bytes `count_and_encode` needs in `out` for a stream of `symbols` bytes: at most
/// `MAX_LEN` bits each, and a word to spare.
pub fn coded_room(symbols: usize) -> usize {
    (symbols * MAX_LEN as usize).div_ceil(8) + 8
}

/// Writes codes into a byte slice, most significant bit first, 32 bits at a time (a slice
/// and an index: a vector's push checked and grew its length at every word).
struct BitWriter<'a> {
    out: &'a mut [u8],
    /// Bytes written.
    pos: usize,
    acc: u64,
    /// Bits pending in the low end of `acc` (fewer than 32 between calls).
    n: u32,
}

impl<'a> BitWriter<'a> {
    /// A writer into `out`, which must have `coded_room` bytes for the codes to come.
    fn new(out: &'a mut [u8]) -> BitWriter<'a> {
        BitWriter {
            out,
            pos: 0,
            acc: 0,
            n: 0,
        }
    }

    /// Appends one `code << 4 | length` entry.
    #[inline(always)]
    fn put(&mut self, entry: u16) {
        let len = u32::from(entry & 0x0F);
        self.acc = (self.acc << len) | u64::from(entry >> 4);
        self.n += len;
        if self.n >= 32 {
            self.word();
        }
    }

    /// Writes the oldest 32 of the pending bits (at least 32 are pending).
    #[inline(always)]
    fn word(&mut self) {
        self.n -= 32;
        let word = (self.acc >> self.n) as u32;
        self.out[self.pos..self.pos + 4].copy_from_slice(&word.to_be_bytes());
        self.pos += 4;
    }

    /// Appends `n` zero bits, 32 at most at a time so that no pending bit leaves the
    /// accumulator.
    #[inline(always)]
    fn put_zeros(&mut self, mut n: u32) {
        while n > 0 {
            let step = n.min(32);
            n -= step;
            self.acc <<= step;
            self.n += step;
            if self.n >= 32 {
                self.word();
            }
        }
    }

    /// Writes what is left, the last byte padded with zeros; returns the bytes written.
    fn finish(mut self) -> usize {
        while self.n >= 8 {
            self.n -= 8;
            self.out[self.pos] = (self.acc >> self.n) as u8;
            self.pos += 1;
        }
        if self.n > 0 {
            self.out[self.pos] = (self.acc << (8 - self.n)) as u8;
            self.pos += 1;
        }
        self.pos
    }
}

#[cfg(test)]
mod tests {
    use super::super::for_each_byte;
    use super::*;
    use backspin_test_support::SplitMix64;

    /// The bits of `tokens` one code at a time, a byte out whenever eight are pending.
    fn reference(code: &TokenCode, tokens: &[u8], hot: &[usize; CLASSES]) -> Vec<u8> {
        let mut bits = super::super::ReferenceBits::default();
        for_each_byte(tokens, hot, |b, context| bits.put(&code.codes[context], b));
        bits.finish()
    }

    #[test]
    fn the_one_walk_codes_and_counts_as_the_context_walk() {
        let mut rng = SplitMix64::new(34);
        for round in 0..400u64 {
            // Well-formed streams crossing the region boundaries, with some hot bytes, and
            // every few rounds arbitrary (malformed) bytes.
            // Every third round, a longer hot part made mostly of zero runs (taken together,
            // found eight at a time, when the zero byte's code is all zero bits), every sixth
            // one of zeros only.
            let (hot_len, zero_share) = if round % 3 == 0 {
                ((round % 61) as usize, if round % 6 == 0 { 8 } else { 7 })
            } else {
                ((round % 9) as usize, 0)
            };
            let hot = [hot_len / 4, hot_len / 2, hot_len / 2, hot_len];
            let mut tokens: Vec<u8> = (0..hot_len)
                .map(|_| {
                    let x = rng.next_u64();
                    if x % 8 < zero_share {
                        0
                    } else {
                        (x >> 8) as u8 & 3
                    }
                })
                .collect();
            if round % 5 == 4 {
                tokens.extend((0..round % 200).map(|_| rng.next_u64() as u8));
            } else {
                for k in 0..(round % 60) {
                    let gap = rng.next_u64() % if k % 7 == 0 { 20_000 } else { 300 };
                    crate::codec::put_varint(&mut tokens, gap);
                    let len = rng.next_u64() % 9 + 1;
                    crate::codec::put_varint(&mut tokens, len);
                    tokens.extend((0..len).map(|_| [0, 1, 0xFF, 7][rng.range(0, 3) as usize]));
                }
            }
            // A code learned from other streams, so that lengths differ by context.
            let mut learn = TokenCounts::default();
            learn.add(&tokens, &hot);
            learn.add(&tokens[..tokens.len() / 2], &hot);
            let code = TokenCode::from_counts(&learn);
            // Scratch left from an earlier stream, which the code must not show.
            let mut out = vec![0x5A; coded_room(tokens.len())];
            let mut counts = TokenCounts::default();
            let len =
                EncodeTable::new(&code).count_and_encode(&mut counts, &tokens, &hot, &mut out);
            assert_eq!(
                &out[..len],
                reference(&code, &tokens, &hot),
                "round {round}"
            );
            let mut expected = TokenCounts::default();
            expected.add(&tokens, &hot);
            assert!(counts.counts == expected.counts, "round {round}");
        }
    }

    #[test]
    fn counts_near_their_limit_saturate_as_the_context_walk_s() {
        // Counts one or two short of `u32::MAX`, after as many bytes: the pass must take
        // the saturating path, hot zero runs included (the flat code's zero is all zeros).
        let near_limit = || {
            let mut counts = TokenCounts::default();
            for row in counts.counts.iter_mut() {
                row.fill(u32::MAX - 1);
            }
            counts.counts[HOT][7] = u32::MAX - 2;
            counts.bytes = u64::from(u32::MAX) - 3;
            counts
        };
        let hot = [12, 12, 12, 12];
        let mut tokens = vec![0u8; 12];
        tokens[1] = 7;
        tokens[3] = 7;
        crate::codec::put_varint(&mut tokens, 3);
        crate::codec::put_varint(&mut tokens, 4);
        tokens.extend([1, 1, 1, 1]);
        let table = EncodeTable::new(&TokenCode::flat());
        let mut counts = near_limit();
        let mut out = vec![0; coded_room(tokens.len())];
        table.count_and_encode(&mut counts, &tokens, &hot, &mut out);
        let mut expected = near_limit();
        expected.add(&tokens, &hot);
        assert_eq!(counts.counts[HOT][0], u32::MAX, "a hot zero run saturates");
        assert_eq!(
            counts.counts[HOT][7],
            u32::MAX,
            "two hits from two short saturate"
        );
        assert!(counts.counts == expected.counts);
    }

    #[test]
    fn literals_at_region_boundaries_take_each_byte_s_region() {
        // A code that differs in every context, so that a byte coded in the wrong region's
        // context shows in the bits.
        let mut rng = SplitMix64::new(35);
        let mut learn = TokenCounts::default();
        for row in learn.counts.iter_mut() {
            for count in row.iter_mut() {
                *count = (rng.next_u64() % 1000) as u32;
            }
        }
        let code = TokenCode::from_counts(&learn);
        let table = EncodeTable::new(&code);
        let hot = [0; CLASSES];
        // Literals that end before a region's start, at it, across it, or start at it.
        for &start in &super::super::REGION_STARTS {
            for len in 1..=9usize {
                for first in start - len - 1..=start + 1 {
                    let mut tokens = Vec::new();
                    crate::codec::put_varint(&mut tokens, first as u64);
                    crate::codec::put_varint(&mut tokens, len as u64);
                    tokens.extend((0..len).map(|_| [0, 1, 0xFF, 7][rng.range(0, 3) as usize]));
                    crate::codec::put_varint(&mut tokens, 1);
                    crate::codec::put_varint(&mut tokens, 2);
                    tokens.extend([1, 0xFF]);
                    let mut out = vec![0; coded_room(tokens.len())];
                    let mut counts = TokenCounts::default();
                    let n = table.count_and_encode(&mut counts, &tokens, &hot, &mut out);
                    let at = format!("region start {start}, literal {first}..{}", first + len);
                    assert_eq!(&out[..n], reference(&code, &tokens, &hot), "{at}");
                    let mut expected = TokenCounts::default();
                    expected.add(&tokens, &hot);
                    assert!(counts.counts == expected.counts, "{at}");
                }
            }
        }
    }
}
