//! The decoding side of the coder: per-context lookup tables, the bit reader, and
//! [`TokenDecoder`], which turns a coded token stream back into bytes.

use super::{
    CONTEXTS, CanonicalCode, Code, HOT, MAX_LEN, POSITIONS, TABLE_BYTES, TokenCode, header_context,
    literal_context, next_position, next_region_start,
};
use crate::hot::{CLASSES, add_hot_byte};

/// Bits the decoding tables look up at once: codes this long or shorter are found in one
/// lookup; longer ones (rare bytes, by construction) take a second step. A table of
/// 2^PRIMARY entries per context keeps the 32 contexts' tables in about 40 KiB (the CPU's
/// first-level cache) and quick to rebuild when a seek moves into another keyframe group.
pub(super) const PRIMARY: u32 = 9;
/// Code lengths beyond `PRIMARY`.
const LONG_LENGTHS: usize = (MAX_LEN - PRIMARY) as usize;
/// The length field of an entry whose code is longer than `PRIMARY` bits: the same as where
/// no code starts (which no long code matches either), so one test sends both to the
/// second step.
const LONG: u16 = 0;

/// The decoding entry of `symbol` with a code of `len` bits: `next_position(symbol) << 12 |
/// symbol << 4 | len` (an entry of 0 means no code starts so).
#[inline]
fn entry(symbol: u8, len: u32) -> u16 {
    ((next_position(symbol) as u16) << 12) | (u16::from(symbol) << 4) | len as u16
}

/// A lookup table for decoding one context, indexed by the next `PRIMARY` bits: an entry
/// (see [`entry`]), or `LONG` for the first bits of a longer code, found by its length in
/// the canonical code's order.
pub struct DecodeTable {
    lut: [u16; 1 << PRIMARY],
    /// Per length beyond `PRIMARY`: the first code of that length, how many there are, and
    /// where their symbols start in `long_symbols` (symbols in code order).
    long_first: [u16; LONG_LENGTHS],
    long_count: [u16; LONG_LENGTHS],
    long_start: [u16; LONG_LENGTHS],
    long_symbols: [u8; 256],
    /// The code lengths the table holds: a keyframe often repeats a context's code (every
    /// unused context is flat), and a seek into another group then keeps that table.
    lengths: [u8; 256],
    /// The length of byte 0's code when that code is all zero bits (in a canonical code,
    /// whenever byte 0 has the shortest length), else 0: a run of zero bytes is then a run
    /// of zero bits, counted in one step (most hot bytes are zero).
    zero_len: u32,
    /// `2^16 / zero_len` rounded up: `bits * zero_inv >> 16` is `bits / zero_len` for any
    /// count of bits in the accumulator, a multiply where a division would stall the
    /// reader's chain.
    zero_inv: u32,
}

impl DecodeTable {
    pub fn new(code: &Code) -> DecodeTable {
        let mut table = DecodeTable {
            lut: [0; 1 << PRIMARY],
            long_first: [0; LONG_LENGTHS],
            long_count: [0; LONG_LENGTHS],
            long_start: [0; LONG_LENGTHS],
            long_symbols: [0; 256],
            lengths: [0; 256],
            zero_len: 0,
            zero_inv: 0,
        };
        table.rebuild(code);
        table
    }

    pub fn rebuild(&mut self, code: &Code) {
        if self.lengths != code.lengths {
            self.rebuild_lengths(&code.lengths)
                .expect("a code's lengths are a prefix code");
        }
    }

    /// Builds the table of the canonical code with these lengths (as [`Code::from_lengths`]
    /// assigns it, with the same checks) in one pass over the symbols: each one's code is
    /// the next of its length, and a long one's place among `long_symbols` the next of its
    /// length too. `None` (the table then unusable) if the lengths are no prefix code.
    pub fn rebuild_lengths(&mut self, lengths: &[u8; 256]) -> Option<()> {
        let CanonicalCode {
            count,
            mut next,
            complete,
        } = CanonicalCode::of(lengths)?;
        let mut long_next = [0u16; LONG_LENGTHS];
        let mut start = 0;
        for (k, long_next) in long_next.iter_mut().enumerate() {
            let l = PRIMARY as usize + 1 + k;
            self.long_first[k] = next[l];
            self.long_count[k] = count[l];
            self.long_start[k] = start;
            *long_next = start;
            start += count[l];
        }
        // A complete code writes every entry; only an incomplete one leaves gaps of 0.
        if !complete {
            self.lut.fill(0);
        }
        for (s, &l) in lengths.iter().enumerate() {
            let len = u32::from(l);
            let value = usize::from(next[usize::from(l)]);
            next[usize::from(l)] += 1;
            if len <= PRIMARY {
                let first = value << (PRIMARY - len);
                let e = entry(s as u8, len);
                for slot in &mut self.lut[first..first + (1 << (PRIMARY - len))] {
                    *slot = e;
                }
            } else {
                self.lut[value >> (len - PRIMARY)] = LONG;
                let k = (len - PRIMARY - 1) as usize;
                self.long_symbols[usize::from(long_next[k])] = s as u8;
                long_next[k] += 1;
            }
        }
        self.lengths = *lengths;
        // Byte 0's code is all zero bits when no shorter code comes before it.
        let zero = usize::from(lengths[0]);
        self.zero_len = if count[..zero].iter().all(|&c| c == 0) {
            zero as u32
        } else {
            0
        };
        self.zero_inv = (1u32 << 16).div_ceil(self.zero_len.max(1));
        Some(())
    }

    /// The entry of the code longer than `PRIMARY` bits at the top of `bits`, if any
    /// (none when the first bits start no code).
    #[cold]
    fn long_entry(&self, bits: u64) -> Option<u16> {
        for k in 0..LONG_LENGTHS {
            let len = PRIMARY + 1 + k as u32;
            let offset = ((bits >> (64 - len)) as u16).wrapping_sub(self.long_first[k]);
            if offset < self.long_count[k] {
                let symbol = self.long_symbols[usize::from(self.long_start[k] + offset)];
                return Some(entry(symbol, len));
            }
        }
        None
    }

    #[cfg(test)]
    /// Decodes exactly `out.len()` symbols from `input`. None if the input runs out or
    /// hits a bit pattern no code uses.
    pub fn decode(&self, input: &[u8], out: &mut [u8]) -> Option<()> {
        let mut reader = BitReader::new(input);
        for o in out.iter_mut() {
            *o = reader.next(self)?;
        }
        reader.finish()
    }
}

/// Reads symbols MSB-first, each with the table the caller picks. Reading past the end
/// yields zero bits and is reported by `finish` (checked once per stream, not per symbol).
pub struct BitReader<'a> {
    input: &'a [u8],
    pos: usize,
    /// The next bits, most significant first; `n` of them are counted as read from the
    /// input (a word refill also places part of the following byte, which the next refill
    /// ORs in again at the same place). `n` goes below zero only once symbols took bits
    /// past the end of the input (a refill tops it up whenever input is left).
    acc: u64,
    n: i32,
}

impl<'a> BitReader<'a> {
    pub fn new(input: &'a [u8]) -> BitReader<'a> {
        BitReader {
            input,
            pos: 0,
            acc: 0,
            n: 0,
        }
    }

    /// Tops `acc` up to at least 57 bits while input lasts: eight bytes at once, bytewise
    /// near the end.
    #[inline]
    fn refill(&mut self) {
        if let Some(word) = self.input.get(self.pos..self.pos + 8) {
            let word = u64::from_be_bytes(word.try_into().expect("8 bytes"));
            self.acc |= word >> self.n;
            let take = (63 - self.n) >> 3;
            self.pos += take as usize;
            self.n += take << 3;
        } else {
            while self.n <= 56 && self.pos < self.input.len() {
                self.acc |= u64::from(self.input[self.pos]) << (56 - self.n);
                self.pos += 1;
                self.n += 8;
            }
        }
    }

    #[inline]
    fn consume(&mut self, len: u32) {
        self.n -= len as i32;
        self.acc <<= len;
    }

    #[inline]
    pub fn next(&mut self, table: &DecodeTable) -> Option<u8> {
        self.next_entry(table).map(|entry| (entry >> 4) as u8)
    }

    /// The next symbol's table entry (symbol and the literal position after it).
    #[inline]
    fn next_entry(&mut self, table: &DecodeTable) -> Option<u16> {
        if self.n < MAX_LEN as i32 {
            self.refill();
        }
        let mut entry = table.lut[(self.acc >> (64 - PRIMARY)) as usize];
        // Lengths 1..=PRIMARY are found; `LONG` (also where no code starts) takes the
        // second step.
        if entry & 0x0F == LONG {
            entry = table.long_entry(self.acc)?;
        }
        self.consume(u32::from(entry & 0x0F));
        Some(entry)
    }

    /// The pair table's entry for the next bits (see [`PairTable`]), consuming nothing.
    #[inline]
    fn peek_pair(&mut self, pairs: &PairTable) -> u32 {
        if self.n < MAX_LEN as i32 {
            self.refill();
        }
        pairs[(self.acc >> (64 - PRIMARY)) as usize]
    }

    /// How many zero bytes (at most `limit`) come next in `table`'s code, taken at once;
    /// 0 when its code for byte 0 is not all zero bits.
    #[inline]
    fn zero_run(&mut self, table: &DecodeTable, limit: usize) -> usize {
        if table.zero_len == 0 {
            return 0;
        }
        if self.n <= 56 {
            self.refill();
        }
        let zero_bits = self.acc.leading_zeros().min(self.n.max(0) as u32);
        let run = (((zero_bits * table.zero_inv) >> 16) as usize).min(limit);
        self.consume(run as u32 * table.zero_len);
        run
    }

    /// `Some(())` when no symbol read past the end of the input.
    #[inline]
    pub fn finish(&self) -> Option<()> {
        (self.n >= 0).then_some(())
    }
}

/// Two hot bytes' codes at once: per hot context, indexed by the next `PRIMARY` bits as
/// its [`DecodeTable`] is, `len | first << 4 | second << 12` when those bits hold the
/// context's code of `first` and then the code of `second` in the context `first` leads to
/// (`len` the two lengths' sum), else 0. Hot bytes are most of a delta's symbols and their
/// codes short, so this halves the steps of the decoder's chain for most of them.
type PairTable = [u32; 1 << PRIMARY];

/// The hot bytes' pair tables built from their single tables: `tables[2 * class + p]`
/// gives `pairs[2 * class + p]`.
fn build_pairs(single: &[DecodeTable; 2], pairs: &mut [PairTable]) {
    for (previous, pair) in pairs.iter_mut().enumerate() {
        let lut = &single[previous].lut;
        let mut index = 0;
        // A first code of `len` bits fills a run of 2^(PRIMARY - len) entries, in which the
        // bits after it count up from 0: the second table's entries at those bits, in turn.
        while index < lut.len() {
            let first = lut[index];
            let len = u32::from(first & 0x0F);
            if first & 0x0F == LONG || len >= PRIMARY {
                pair[index] = 0;
                index += 1;
                continue;
            }
            let symbol = (first >> 4) as u8;
            let head = len | u32::from(symbol) << 4;
            let second_lut = &single[usize::from(symbol != 0)].lut;
            let run = 1 << (PRIMARY - len);
            for (rest, slot) in pair[index..index + run].iter_mut().enumerate() {
                let second = second_lut[rest << len];
                let total = len + u32::from(second & 0x0F);
                // A long second code (length field 0) or one past the bits looked up.
                *slot = if second & 0x0F != LONG && total <= PRIMARY {
                    (head + u32::from(second & 0x0F)) | (u32::from((second >> 4) as u8) << 12)
                } else {
                    0
                };
            }
            index += run;
        }
    }
}

/// Decoding tables for a [`TokenCode`].
pub struct TokenDecoder {
    tables: Vec<DecodeTable>,
    /// The hot contexts' pair tables, `2 * class + previous` (rebuilt with their tables).
    pairs: Vec<PairTable>,
    /// Hot bytes decoded two at a time where the pair tables allow (on by default); off,
    /// one at a time (the reference the tests compare).
    use_pairs: bool,
}

impl TokenDecoder {
    pub fn new(code: &TokenCode) -> TokenDecoder {
        let mut decoder = TokenDecoder {
            tables: code.codes.iter().map(DecodeTable::new).collect(),
            pairs: vec![[0; 1 << PRIMARY]; 2 * CLASSES],
            use_pairs: true,
        };
        for class in 0..CLASSES {
            decoder.rebuild_pairs(class);
        }
        decoder
    }

    /// Turns decoding hot bytes two at a time on (the default) or off.
    #[cfg(test)]
    pub fn set_pairs(&mut self, on: bool) {
        self.use_pairs = on;
    }

    fn rebuild_pairs(&mut self, class: usize) {
        let single = self.tables[HOT + 2 * class..HOT + 2 * class + 2]
            .try_into()
            .expect("a class's two hot contexts");
        build_pairs(single, &mut self.pairs[2 * class..2 * class + 2]);
    }

    /// Loads the code [`TokenCode::write`] wrote at the start of `bytes` (as
    /// [`TokenCode::read`] reads it, with the same checks); returns the bytes it took.
    /// Tables whose lengths did not change are kept: a seek into another keyframe group
    /// rebuilds only the contexts whose code differs. On `None` the tables are a mix of
    /// old and new and must not be used.
    pub fn load(&mut self, bytes: &[u8]) -> Option<usize> {
        let mask = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        if mask >> CONTEXTS != 0 {
            return None;
        }
        let mut at = 8;
        let mut hot_changed = [false; CLASSES];
        for (context, table) in self.tables.iter_mut().enumerate() {
            let mut lengths = [8u8; 256];
            if mask & (1 << context) != 0 {
                let nibbles = bytes.get(at..at + TABLE_BYTES)?;
                for (pair, &b) in lengths.chunks_exact_mut(2).zip(nibbles) {
                    pair[0] = (b & 0x0F) + 1;
                    pair[1] = (b >> 4) + 1;
                }
                at += TABLE_BYTES;
            }
            if table.lengths != lengths {
                table.rebuild_lengths(&lengths)?;
                if let Some(hot) = context.checked_sub(HOT) {
                    hot_changed[hot / 2] = true;
                }
            }
        }
        for (class, changed) in hot_changed.into_iter().enumerate() {
            if changed {
                self.rebuild_pairs(class);
            }
        }
        Some(at)
    }

    /// Decodes a delta's token stream of exactly `len` bytes (as [`TokenDecoder::decode`])
    /// and adds each byte times `sign` (1 forward, 0xFF backward) to `target` where it
    /// belongs: the hot bytes at `positions`, each literal byte at its offset. The same
    /// sums as decoding into a buffer and applying it, without the buffer, the second walk
    /// over the token headers, or adding the hot bytes that are zero (most of them: a zero
    /// run only moves on). `None` on a malformed stream, with `target` partly patched.
    pub fn decode_apply(
        &self,
        input: &[u8],
        len: usize,
        hot: &[usize; CLASSES],
        positions: &[u32],
        target: &mut [u8],
        sign: u8,
    ) -> Option<()> {
        let hot_len = hot[CLASSES - 1];
        if positions.len() != hot_len || hot_len > len {
            return None;
        }
        let mut reader = BitReader::new(input);
        let mut i = 0;
        let mut previous = 0;
        for (class, &end) in hot.iter().enumerate() {
            let tables = &self.tables[HOT + 2 * class..HOT + 2 * class + 2];
            let pairs = &self.pairs[2 * class..2 * class + 2];
            while i < end {
                if previous == 0 {
                    let run = reader.zero_run(&tables[0], end - i);
                    if run > 0 {
                        i += run;
                        continue;
                    }
                }
                if self.use_pairs && i + 1 < end {
                    let pair = reader.peek_pair(&pairs[previous]);
                    if pair != 0 {
                        reader.consume(pair & 0x0F);
                        let (first, second) = ((pair >> 4) as u8, (pair >> 12) as u8);
                        let at = positions.get(i..i + 2)?;
                        if first != 0 {
                            add_hot_byte(target, at[0], first, sign)?;
                        }
                        if second != 0 {
                            add_hot_byte(target, at[1], second, sign)?;
                        }
                        previous = usize::from(second != 0);
                        i += 2;
                        continue;
                    }
                }
                let b = reader.next(&tables[previous])?;
                if b != 0 {
                    add_hot_byte(target, *positions.get(i)?, b, sign)?;
                }
                previous = usize::from(b != 0);
                i += 1;
            }
        }
        let mut offset = 0usize;
        while i < len {
            let mut values = [0usize; 2];
            for field in 0..2 {
                let context = header_context(field, offset.saturating_add(values[0]));
                let value = &mut values[field];
                let mut shift = 0u32;
                loop {
                    // A varint of more than ten bytes overflows, as `get_varint` rejects it.
                    if i >= len || shift > 63 {
                        return None;
                    }
                    let b = reader.next(&self.tables[context])?;
                    i += 1;
                    if !super::add_varint_byte(value, &mut shift, b) {
                        break;
                    }
                }
            }
            let [gap, count] = values;
            let end = i.checked_add(count).filter(|&end| end <= len)?;
            offset = offset.checked_add(gap)?;
            let start = offset;
            let literal_tables = |offset: usize| -> &[DecodeTable; POSITIONS] {
                let first = literal_context(offset, 0);
                self.tables[first..first + POSITIONS]
                    .try_into()
                    .expect("a region's literal contexts")
            };
            let mut tables = literal_tables(offset);
            let mut next_region = next_region_start(offset);
            let mut position = 0;
            for t in target.get_mut(start..start.checked_add(count)?)? {
                if offset >= next_region {
                    tables = literal_tables(offset);
                    next_region = next_region_start(offset);
                }
                let entry = reader.next_entry(&tables[position % POSITIONS])?;
                *t = t.wrapping_add(((entry >> 4) as u8).wrapping_mul(sign));
                position = usize::from(entry >> 12);
                offset += 1;
            }
            i = end;
        }
        reader.finish()
    }

    /// Decodes a token stream of exactly `out.len()` bytes (contexts as in
    /// [`for_each_byte`]).
    pub fn decode(&self, input: &[u8], out: &mut [u8], hot: &[usize; CLASSES]) -> Option<()> {
        let mut reader = BitReader::new(input);
        let mut i = 0;
        let mut previous = 0;
        for (class, &end) in hot.iter().enumerate() {
            let tables = &self.tables[HOT + 2 * class..HOT + 2 * class + 2];
            while i < end {
                if previous == 0 {
                    let run = reader.zero_run(&tables[0], end - i);
                    if run > 0 {
                        out.get_mut(i..i + run)?.fill(0);
                        i += run;
                        continue;
                    }
                }
                let b = reader.next(&tables[previous])?;
                *out.get_mut(i)? = b;
                previous = usize::from(b != 0);
                i += 1;
            }
        }
        let mut offset = 0usize;
        while i < out.len() {
            let mut values = [0usize; 2];
            for field in 0..2 {
                let context = header_context(field, offset.saturating_add(values[0]));
                let value = &mut values[field];
                let mut shift = 0u32;
                loop {
                    let b = reader.next(&self.tables[context])?;
                    *out.get_mut(i)? = b;
                    i += 1;
                    if !super::add_varint_byte(value, &mut shift, b) {
                        break;
                    }
                }
            }
            offset = offset.saturating_add(values[0]);
            let end = i.checked_add(values[1])?;
            // The literal's region, looked up again only where the next region starts.
            let literal_tables = |offset: usize| -> &[DecodeTable; POSITIONS] {
                let first = literal_context(offset, 0);
                self.tables[first..first + POSITIONS]
                    .try_into()
                    .expect("a region's literal contexts")
            };
            let mut tables = literal_tables(offset);
            let mut next_region = next_region_start(offset);
            let mut position = 0;
            for o in out.get_mut(i..end)? {
                if offset >= next_region {
                    tables = literal_tables(offset);
                    next_region = next_region_start(offset);
                }
                let entry = reader.next_entry(&tables[position % POSITIONS])?;
                *o = (entry >> 4) as u8;
                position = usize::from(entry >> 12);
                offset = offset.saturating_add(1);
            }
            i = end;
        }
        reader.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tables built in one pass from the lengths find every symbol of the canonical code
    /// `Code::from_lengths` assigns, and take zero runs exactly when byte 0's code is all
    /// zero bits: byte 0 the commonest, behind one shorter code, or anywhere.
    #[test]
    fn tables_built_from_lengths_find_every_code() {
        let mut rng = backspin_test_support::SplitMix64::new(0x7AB1E);
        for round in 0..300 {
            let mut counts = [0u32; 256];
            for c in counts.iter_mut() {
                let r = rng.next_u64();
                *c = if r.is_multiple_of(4) {
                    0
                } else {
                    ((r >> 8) % (1 << (r % 20))) as u32
                };
            }
            match round % 3 {
                0 => counts[0] = 1 << 28,
                1 => (counts[0], counts[5]) = (1 << 22, 1 << 26),
                _ => {}
            }
            let code = Code::from_counts(&counts);
            let table = DecodeTable::new(&code);
            let zero_len = if code.codes[0] == 0 {
                u32::from(code.lengths[0])
            } else {
                0
            };
            assert_eq!(table.zero_len, zero_len, "round {round}");
            for s in 0..256 {
                let len = u32::from(code.lengths[s]);
                let bits = u64::from(code.codes[s]) << (64 - len);
                let mut found = table.lut[(bits >> (64 - PRIMARY)) as usize];
                if found & 0x0F == LONG {
                    found = table.long_entry(bits).expect("a long code");
                }
                assert_eq!(found, entry(s as u8, len), "round {round}, symbol {s}");
            }
        }
    }

    /// Every pair entry holds the two symbols (and their lengths' sum) that two single
    /// steps decode from its bits, the second in the context the first leads to, and an
    /// entry is empty only where the two codes do not fit in `PRIMARY` bits.
    #[test]
    fn pair_tables_hold_two_single_steps() {
        let mut rng = backspin_test_support::SplitMix64::new(0x9A125);
        for round in 0..200 {
            let mut code = |skew: u64| {
                let mut counts = [0u32; 256];
                for (s, c) in counts.iter_mut().enumerate() {
                    let r = rng.next_u64();
                    *c = ((r >> 8) % (1 + (1 << 20 >> (s as u64 * skew % 21)))) as u32;
                }
                Code::from_counts(&counts)
            };
            let single = [
                DecodeTable::new(&code(1)),
                DecodeTable::new(&code(3 + round % 5)),
            ];
            let mut pairs = [[0; 1 << PRIMARY]; 2];
            build_pairs(&single, &mut pairs);
            for (previous, pair) in pairs.iter().enumerate() {
                for (index, &entry) in pair.iter().enumerate() {
                    let bytes = ((index as u16) << (16 - PRIMARY)).to_be_bytes();
                    let mut reader = BitReader::new(&bytes);
                    let first = reader.next_entry(&single[previous]).unwrap();
                    let second = reader.next_entry(&single[usize::from(first & 0x0FF0 != 0)]);
                    let second = second.unwrap();
                    let len = u32::from(first & 0x0F) + u32::from(second & 0x0F);
                    let expected = if len <= PRIMARY {
                        len | u32::from(first & 0x0FF0) | u32::from(second & 0x0FF0) << 8
                    } else {
                        0
                    };
                    assert_eq!(entry, expected, "round {round}, {previous}, {index:09b}");
                }
            }
        }
    }

    /// Hot bytes whose context matters (a nonzero byte mostly followed by a zero, a zero by
    /// a small step), decoded two at a time or one at a time, patch the same bytes.
    #[test]
    fn hot_bytes_decode_alike_in_pairs_and_singly() {
        use crate::huffman::{EncodeTable, TokenCode, TokenCounts, coded_room};
        let mut rng = backspin_test_support::SplitMix64::new(0x9A1B);
        let hot = [300, 700, 900, 1000];
        let mut decoder = TokenDecoder::new(&TokenCode::flat());
        for round in 0..6 {
            let mut tokens = Vec::new();
            let mut previous = 0u8;
            for _ in 0..hot[CLASSES - 1] {
                let r = rng.range(0, 99);
                previous = match (previous, r) {
                    (0, r) if r < 10 * round => 0,
                    (0, r) => 1 + (r % 3) as u8,
                    (_, r) if r < 80 => 0,
                    (_, r) => r as u8,
                };
                tokens.push(previous);
            }
            for k in 0..50u64 {
                crate::codec::put_varint(&mut tokens, rng.range(0, 30));
                crate::codec::put_varint(&mut tokens, k % 7 + 1);
                tokens.extend((0..k % 7 + 1).map(|_| rng.range(0, 3) as u8));
            }
            let mut counts = TokenCounts::default();
            counts.add(&tokens, &hot);
            let code = TokenCode::from_counts(&counts);
            let mut written = Vec::new();
            code.write(&mut written);
            decoder.load(&written).unwrap();
            let mut bits = vec![0; coded_room(tokens.len())];
            let len =
                EncodeTable::new(&code).count_and_encode(&mut counts, &tokens, &hot, &mut bits);
            let positions: Vec<u32> = (0..hot[CLASSES - 1] as u32).map(|p| p * 3 + 1).collect();
            let mut patched = [vec![7u8; 4000], vec![7u8; 4000]];
            for (on, target) in [true, false].into_iter().zip(&mut patched) {
                decoder.set_pairs(on);
                let (input, n) = (&bits[..len], tokens.len());
                decoder
                    .decode_apply(input, n, &hot, &positions, target, 0xFF)
                    .unwrap();
            }
            assert!(patched[0] == patched[1], "round {round}");
            assert!(patched[0] != vec![7u8; 4000], "round {round}: patched");
        }
    }

    #[test]
    fn the_zero_run_multiply_divides_exactly() {
        for zero_len in 1..=MAX_LEN {
            let inv = (1u32 << 16).div_ceil(zero_len);
            for bits in 0..=64 {
                assert_eq!((bits * inv) >> 16, bits / zero_len, "{bits} / {zero_len}");
            }
        }
    }
}
