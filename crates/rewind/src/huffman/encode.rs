//! The capture's Huffman pass: a [`TokenCode`] laid out for encoding, and the one walk over a
//! delta's token stream that counts the group's statistics and writes the coded bits.
//!
//! Why a layout of its own: the walk runs on every captured frame, right after a frame of
//! emulation has filled the cache with the core's data. One `u32` per symbol (code, length
//! and the group's count of it together) is one cache line per symbol where a table of
//! codes and one of counts took two, and bits leave the accumulator 32 at a time rather
//! than byte by byte.
//! The walk is [`for_each_byte`]'s, and the bits are the canonical codes' (tested against
//! them).

use super::{
    CONTEXTS, HOT, MAX_LEN, POSITIONS, TokenCode, TokenCounts, add_varint_byte, header_context,
    literal_context, next_position, next_region_start,
};
use crate::hot::CLASSES;

const _: () = assert!(MAX_LEN <= 12, "a code and its length share a u16");

/// A [`TokenCode`] as the encoder reads it, with the counts of the bytes it coded since
/// they were last handed on: per context and byte, `count << 16 | code << 4 | length`.
/// A byte's count sits beside its code so that the pass touches one table, not two (it
/// runs right after a frame of emulation, and every cache line it loads evicts the core's).
pub struct EncodeTable {
    entries: [[u32; 256]; CONTEXTS],
    /// Token bytes counted into `entries` since `flush_counts`: no count exceeds it, so
    /// while it stays within `MAX_UNFLUSHED` none overflows its 16 bits.
    unflushed: usize,
}

/// Token bytes the counts in an [`EncodeTable`] may hold before they are handed on.
const MAX_UNFLUSHED: usize = u16::MAX as usize;

impl EncodeTable {
    /// The table of `code` (boxed: 32 KiB).
    pub fn new(code: &TokenCode) -> Box<EncodeTable> {
        let mut table: Box<EncodeTable> = Box::new(EncodeTable {
            entries: [[0; 256]; CONTEXTS],
            unflushed: 0,
        });
        table.rebuild(code);
        table
    }

    /// Lays out `code` in place (no allocation), dropping the counts not flushed.
    pub fn rebuild(&mut self, code: &TokenCode) {
        for (entries, code) in self.entries.iter_mut().zip(&code.codes) {
            for (entry, (&length, &bits)) in
                entries.iter_mut().zip(code.lengths.iter().zip(&code.codes))
            {
                *entry = u32::from((bits << 4) | u16::from(length));
            }
        }
        self.unflushed = 0;
    }

    /// Adds the counts held since the last flush to `counts` (saturating) and clears them:
    /// call it before `counts` is read.
    pub fn flush_counts(&mut self, counts: &mut TokenCounts) {
        if self.unflushed == 0 {
            return;
        }
        for (entries, totals) in self.entries.iter_mut().zip(counts.counts.iter_mut()) {
            for (entry, total) in entries.iter_mut().zip(totals.iter_mut()) {
                *total = total.saturating_add(*entry >> 16);
                *entry &= 0xFFFF;
            }
        }
        self.unflushed = 0;
    }

    /// Adds the bytes of `tokens` to the group's counts (held here until `flush_counts`
    /// hands them to `counts`) and writes their code at the start of `out` (most
    /// significant bit first, the last byte padded with zeros), in one walk; returns the
    /// coded length in bytes. `out` must hold [`coded_room`] bytes for `tokens` (what lies
    /// past the coded length is scratch). Contexts as in
    /// [`for_each_byte`](super::for_each_byte).
    ///
    /// Hot bytes are mostly runs of zeros on some games (positions that change in most
    /// frames but not this one, neighbours in the hot list): zeros after a zero, in one
    /// context whose code for zero is all zero bits, are counted and written together,
    /// found eight at a time.
    pub fn count_and_encode(
        &mut self,
        counts: &mut TokenCounts,
        tokens: &[u8],
        hot: &[usize; CLASSES],
        out: &mut [u8],
    ) -> usize {
        if tokens.len() > MAX_UNFLUSHED {
            return self.count_and_encode_long(counts, tokens, hot, out);
        }
        if self.unflushed + tokens.len() > MAX_UNFLUSHED {
            self.flush_counts(counts);
        }
        self.unflushed += tokens.len();
        self.encode_as::<true>(tokens, hot, out)
    }

    /// `count_and_encode` of a stream too long to count in the table: counted straight into
    /// `counts` (rare: memory copied around).
    #[cold]
    #[inline(never)]
    fn count_and_encode_long(
        &mut self,
        counts: &mut TokenCounts,
        tokens: &[u8],
        hot: &[usize; CLASSES],
        out: &mut [u8],
    ) -> usize {
        counts.add(tokens, hot);
        self.encode_as::<false>(tokens, hot, out)
    }

    /// `count_and_encode`'s walk, counting in the table (`COUNT`) or not.
    #[inline(always)]
    fn encode_as<const COUNT: bool>(
        &mut self,
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
            let zero_entry = self.entries[after_zero][0] as u16;
            let zero_len = u32::from(zero_entry & 0x0F);
            let zero_runs = zero_entry >> 4 == 0;
            while i < end {
                let b = tokens[i];
                let context = after_zero + previous;
                bits.put(take::<COUNT>(&mut self.entries[context][usize::from(b)]));
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
                        if COUNT {
                            self.entries[after_zero][0] += run << 16;
                        }
                        bits.put_zeros(zero_len * run);
                    }
                }
            }
        }
        self.code_tokens::<COUNT>(&tokens[i..], &mut bits);
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
    fn code_tokens<const COUNT: bool>(&mut self, tokens: &[u8], bits: &mut BitWriter) {
        let mut i = 0;
        let mut offset = 0usize;
        while i < tokens.len() {
            let mut values = [0usize; 2];
            for (field, value) in values.iter_mut().enumerate() {
                let context = header_context(field, offset.saturating_add(*value));
                let mut shift = 0u32;
                loop {
                    let Some(&b) = tokens.get(i) else { return };
                    bits.put(take::<COUNT>(&mut self.entries[context][usize::from(b)]));
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
                    let rows: &mut [[u32; 256]; POSITIONS] = (&mut self.entries
                        [first..first + POSITIONS])
                        .try_into()
                        .expect("a region's literal contexts");
                    let mut position = 0;
                    for &b in literal {
                        bits.put(take::<COUNT>(&mut rows[position][usize::from(b)]));
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
                        bits.put(take::<COUNT>(
                            &mut self.entries[first + position][usize::from(b)],
                        ));
                        position = next_position(b);
                        offset = offset.saturating_add(1);
                    }
                }
            }
        }
    }
}

/// A table entry's `code << 4 | length`, counting the byte in it when `COUNT`.
#[inline(always)]
fn take<const COUNT: bool>(entry: &mut u32) -> u16 {
    let e = *entry;
    if COUNT {
        *entry = e + (1 << 16);
    }
    e as u16
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

    /// A code learned from random counts: it differs in every context, so that a byte
    /// coded in the wrong context shows in the bits.
    fn random_code(rng: &mut SplitMix64) -> TokenCode {
        let mut learn = TokenCounts::default();
        for row in learn.counts.iter_mut() {
            for count in row.iter_mut() {
                *count = (rng.next_u64() % 1000) as u32;
            }
        }
        TokenCode::from_counts(&learn)
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
            let mut table = EncodeTable::new(&code);
            let len = table.count_and_encode(&mut counts, &tokens, &hot, &mut out);
            table.flush_counts(&mut counts);
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
        // Counts one or two short of `u32::MAX`: the flush must saturate, hot zero runs
        // included (the flat code's zero is all zeros).
        let near_limit = || {
            let mut counts = TokenCounts::default();
            for row in counts.counts.iter_mut() {
                row.fill(u32::MAX - 1);
            }
            counts.counts[HOT][7] = u32::MAX - 2;
            counts
        };
        let hot = [12, 12, 12, 12];
        let mut tokens = vec![0u8; 12];
        tokens[1] = 7;
        tokens[3] = 7;
        crate::codec::put_varint(&mut tokens, 3);
        crate::codec::put_varint(&mut tokens, 4);
        tokens.extend([1, 1, 1, 1]);
        let mut table = EncodeTable::new(&TokenCode::flat());
        let mut counts = near_limit();
        let mut out = vec![0; coded_room(tokens.len())];
        table.count_and_encode(&mut counts, &tokens, &hot, &mut out);
        table.flush_counts(&mut counts);
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
    fn counts_are_handed_on_before_they_overflow_and_long_streams_count_directly() {
        // Streams that together pass the table's limit, and one longer than it alone: the
        // counts and the bits must be the context walk's.
        let mut rng = SplitMix64::new(37);
        let code = random_code(&mut rng);
        let mut table = EncodeTable::new(&code);
        let mut counts = TokenCounts::default();
        let mut expected = TokenCounts::default();
        let hot = [40, 100, 1000, 20_000];
        for len in [30_000, 30_000, 30_000, 30_000, 70_000, 10] {
            // Mostly zeros in the hot part: the count of a zero after a zero in its last
            // class passes what 16 bits hold within these streams.
            let mut tokens: Vec<u8> = (0..20_000)
                .map(|_| {
                    if rng.next_u64().is_multiple_of(8) {
                        3
                    } else {
                        0
                    }
                })
                .collect();
            while tokens.len() < len {
                crate::codec::put_varint(&mut tokens, rng.next_u64() % 10);
                crate::codec::put_varint(&mut tokens, 8);
                tokens.extend([0, 0, 1, 0, 0, 0xFF, 0, 0]);
            }
            let mut out = vec![0; coded_room(tokens.len())];
            let n = table.count_and_encode(&mut counts, &tokens, &hot, &mut out);
            assert_eq!(
                &out[..n],
                reference(&code, &tokens, &hot),
                "{} bytes",
                tokens.len()
            );
            expected.add(&tokens, &hot);
        }
        table.flush_counts(&mut counts);
        assert!(counts.counts == expected.counts);
    }

    #[test]
    fn literals_at_region_boundaries_take_each_byte_s_region() {
        // A code that differs in every context, so that a byte coded in the wrong region's
        // context shows in the bits.
        let mut rng = SplitMix64::new(35);
        let code = random_code(&mut rng);
        let mut table = EncodeTable::new(&code);
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
                    table.flush_counts(&mut counts);
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
