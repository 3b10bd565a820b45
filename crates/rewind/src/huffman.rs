//! A small canonical Huffman coder for token streams, with codes adapted per keyframe group.
//!
//! Why: the bytes of token streams are far from uniform (small differences, short gaps
//! and lengths dominate: ~4–6 bits of order-0 entropy per byte on the homebrew ROMs), and
//! LZ4, which has no entropy stage, cannot exploit that on records of a few hundred bytes.
//! A table per record would cost more than it saves, so each keyframe carries a code built
//! from the byte statistics of the group before it (a 128-byte table per byte context in
//! use, once per ~600 frames; see [`TokenCode`]), and the deltas after it use that code.
//! Nothing is trained offline.
//!
//! Codes are at most [`MAX_LEN`] bits, written most significant bit first; the decoder looks
//! up `PRIMARY` bits at a time (`decode.rs`), and the rare longer codes in a second step.
//! Construction, encoding and decoding use only fixed-size arrays, so none of them allocates.

use crate::hot::CLASSES;

mod decode;
mod encode;

pub use decode::TokenDecoder;
pub use encode::{EncodeTable, coded_room};

pub const MAX_LEN: u32 = 12;
/// Serialized size: one nibble per symbol.
pub const TABLE_BYTES: usize = 128;

/// A canonical prefix code over bytes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Code {
    lengths: [u8; 256],
    codes: [u16; 256],
}

/// [`Code::flat`], built once: the canonical code of 256 lengths of 8 is each byte itself
/// (a keyframe asks for it for every context without statistics).
const FLAT: Code = Code {
    lengths: [8; 256],
    codes: {
        let mut codes = [0u16; 256];
        let mut s = 0;
        while s < 256 {
            codes[s] = s as u16;
            s += 1;
        }
        codes
    },
};

impl Code {
    /// An optimal length-limited code for these counts (each count gets +1, so every byte
    /// stays encodable).
    pub fn from_counts(counts: &[u32; 256]) -> Code {
        let mut weights = [0u64; 256];
        for (w, &c) in weights.iter_mut().zip(counts) {
            *w = u64::from(c) + 1;
        }
        loop {
            let lengths = huffman_lengths(&weights);
            if lengths.iter().all(|&l| u32::from(l) <= MAX_LEN) {
                return Code::from_lengths(&lengths).expect("Huffman lengths are a prefix code");
            }
            // Too deep: flatten the distribution and try again (rare; costs little).
            for w in &mut weights {
                *w = (*w >> 1) + 1;
            }
        }
    }

    /// The canonical code for these lengths, if they are 1..=MAX_LEN and form a complete
    /// or incomplete prefix code (Kraft sum ≤ 1).
    pub fn from_lengths(lengths: &[u8; 256]) -> Option<Code> {
        let CanonicalCode { mut next, .. } = CanonicalCode::of(lengths)?;
        let mut codes = [0u16; 256];
        for (s, &l) in lengths.iter().enumerate() {
            codes[s] = next[usize::from(l)];
            next[usize::from(l)] += 1;
        }
        Some(Code {
            lengths: *lengths,
            codes,
        })
    }

    /// 8 bits for every byte: never smaller than raw, the code before any statistics exist.
    pub fn flat() -> Code {
        FLAT.clone()
    }

    pub fn is_flat(&self) -> bool {
        self.lengths.iter().all(|&l| l == 8)
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        // One extension of known length (the pairs' bytes at once), not a push per pair.
        out.extend(
            self.lengths
                .chunks_exact(2)
                .map(|pair| (pair[0] - 1) | ((pair[1] - 1) << 4)),
        );
    }

    pub fn read(bytes: &[u8]) -> Option<Code> {
        let bytes = bytes.get(..TABLE_BYTES)?;
        let mut lengths = [0u8; 256];
        for (i, &b) in bytes.iter().enumerate() {
            lengths[2 * i] = (b & 0x0F) + 1;
            lengths[2 * i + 1] = (b >> 4) + 1;
        }
        Code::from_lengths(&lengths)
    }

    #[cfg(test)] // the whole-buffer form, a reference for the class-coded one
    /// Bytes `data` would take once encoded.
    pub fn encoded_len(&self, data: &[u8]) -> usize {
        let bits: usize = data
            .iter()
            .map(|&b| usize::from(self.lengths[usize::from(b)]))
            .sum();
        bits.div_ceil(8)
    }

    #[cfg(test)]
    pub fn encode(&self, data: &[u8], out: &mut Vec<u8>) {
        let mut bits = ReferenceBits::default();
        for &b in data {
            bits.put(self, b);
        }
        out.extend(bits.finish());
    }
}

/// The symbols ordered by (weight, symbol). Most weights are the +1 of a byte never seen:
/// those (and any lighter) go first by symbol without sorting, and only the rest is sorted
/// (a keyframe builds a code per context).
fn by_weight(weights: &[u64; 256]) -> [u16; 256] {
    const N: usize = 256;
    let mut order = [0u16; N];
    let mut placed = 0;
    for light in [0, 1] {
        for (s, &w) in weights.iter().enumerate() {
            if w == light {
                order[placed] = s as u16;
                placed += 1;
            }
        }
    }
    // The rest sorted as plain integers, weight above symbol: comparing (weight, symbol)
    // pairs was most of a keyframe's code construction.
    let mut keys = [0u64; N];
    let mut heavy = 0;
    for (s, &w) in weights.iter().enumerate() {
        if w > 1 {
            debug_assert!(w < 1 << 56, "a weight and a symbol share a u64");
            keys[heavy] = w << 8 | s as u64;
            heavy += 1;
        }
    }
    keys[..heavy].sort_unstable();
    for (slot, key) in order[placed..].iter_mut().zip(&keys[..heavy]) {
        *slot = (key & 0xFF) as u16;
    }
    order
}

/// Huffman code lengths for 256 positive weights: the leaves sorted by weight, then the
/// in-place method of Moffat and Katajainen (one array holds the merged nodes' weights,
/// then their parents, then depths), on the stack. Ties go to the leaf, as in the two-queue
/// method the tests hold it to: the same tree, so the same length for every symbol, in a
/// fifth of the instructions (a keyframe builds a code per context).
fn huffman_lengths(weights: &[u64; 256]) -> [u8; 256] {
    const N: usize = 256;
    let order = by_weight(weights);
    let mut a = [0u64; N];
    for (x, &s) in a.iter_mut().zip(&order) {
        *x = weights[usize::from(s)];
    }
    // Merged node `next` goes to a[next] (the leaves there are consumed by then): its
    // weight, and once it is a child itself, its parent's index. Leaves come from `leaf`
    // on, unconsumed merged nodes from `root` on (always one at least before `next`).
    a[0] += a[1];
    let (mut root, mut leaf) = (0usize, 2usize);
    for next in 1..N - 1 {
        if leaf >= N || a[root] < a[leaf] {
            a[next] = a[root];
            a[root] = next as u64;
            root += 1;
        } else {
            a[next] = a[leaf];
            leaf += 1;
        }
        if leaf >= N || (root < next && a[root] < a[leaf]) {
            a[next] += a[root];
            a[root] = next as u64;
            root += 1;
        } else {
            a[next] += a[leaf];
            leaf += 1;
        }
    }
    // Depths of the merged nodes (the root, N - 2, at 0; parents come after children).
    a[N - 2] = 0;
    for next in (0..N - 2).rev() {
        a[next] = a[a[next] as usize] + 1;
    }
    // Leaves per depth follow from merged nodes per depth; the lightest leaves get the
    // deepest places, as in the tree.
    let (mut available, mut depth) = (1usize, 0u64);
    let (mut merged, mut next) = (N - 1, N);
    while available > 0 {
        let mut used = 0;
        while merged > 0 && a[merged - 1] == depth {
            used += 1;
            merged -= 1;
        }
        while available > used {
            next -= 1;
            a[next] = depth;
            available -= 1;
        }
        available = 2 * used;
        depth += 1;
    }
    let mut lengths = [0u8; N];
    for (&s, &d) in order.iter().zip(&a) {
        lengths[usize::from(s)] = d.min(u64::from(u8::MAX)) as u8;
    }
    lengths
}

/// Token streams mix bytes with different statistics: hot-position bytes, varint gaps,
/// varint lengths, and literal difference bytes, whose statistics depend on the state
/// region they patch and on the byte before them (a zero inside a literal is a merged gap;
/// after 0x01 or 0xFF, the next byte is often the carry of the same counter). Each of these
/// contexts gets its own code (what the split bought: `docs/rewind.md`).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct TokenCode {
    codes: [Code; CONTEXTS],
}

/// Header contexts: `2 * region + field`, field 0 for the gap varint's bytes (region of the
/// offset the gap starts at), 1 for the length varint's (region of the literal).
const REGIONS: usize = 4;
/// Literal contexts: `LITERAL + POSITIONS * region + position`, position 0 for a literal's
/// first byte, 1 after a zero byte, 2 after 0x01 or 0xFF (a step of one, or a borrow), 3
/// after any other byte.
const LITERAL: usize = 2 * REGIONS;
const POSITIONS: usize = 4;
/// Hot-position bytes ([`crate::hot`]): `HOT + 2 * class + previous`, `previous` 1 when the
/// hot byte before it (in list order) was nonzero (neighbouring bytes of one variable).
const HOT: usize = LITERAL + POSITIONS * REGIONS;
pub const CONTEXTS: usize = HOT + 2 * CLASSES;

#[inline]
fn header_context(field: usize, offset: usize) -> usize {
    2 * region(offset) + field
}

#[inline]
fn literal_context(offset: usize, position: usize) -> usize {
    LITERAL + POSITIONS * region(offset) + position
}

/// The literal position context after byte `b`.
#[inline]
const fn next_position(b: u8) -> usize {
    match b {
        0 => 1,
        0x01 | 0xFF => 2,
        _ => 3,
    }
}
/// A context needs this many bytes in a group's statistics to get its own code (and a
/// 128-byte table in the keyframe); an unused one stays flat and costs nothing.
const MIN_CONTEXT_BYTES: u64 = 64;

/// State offsets where the literal regions start: below HRAM (CPU, I/O, PPU, APU: packed
/// counters and registers), HRAM and OAM, WRAM, then VRAM and cartridge RAM.
const REGION_STARTS: [usize; REGIONS - 1] = {
    use backspin_core::State;
    use backspin_core::state::HwState;
    use std::mem::offset_of;
    let hw = offset_of!(State, hw);
    [
        hw + offset_of!(HwState, hram),
        hw + offset_of!(HwState, wram),
        hw + offset_of!(HwState, vram),
    ]
};

/// Where the region after `offset`'s starts (`usize::MAX` in the last one).
#[inline]
fn next_region_start(offset: usize) -> usize {
    REGION_STARTS
        .get(region(offset))
        .copied()
        .unwrap_or(usize::MAX)
}

#[inline]
fn region(offset: usize) -> usize {
    // Three comparisons summed (as a fold it was a loop on the decoder's path).
    let [a, b, c] = REGION_STARTS;
    usize::from(offset >= a) + usize::from(offset >= b) + usize::from(offset >= c)
}

/// Byte statistics of token streams, by context.
#[derive(Clone)]
pub struct TokenCounts {
    counts: [[u32; 256]; CONTEXTS],
}

impl Default for TokenCounts {
    fn default() -> TokenCounts {
        TokenCounts {
            counts: [[0; 256]; CONTEXTS],
        }
    }
}

impl TokenCounts {
    pub fn add(&mut self, tokens: &[u8], hot: &[usize; CLASSES]) {
        for_each_byte(tokens, hot, |b, context| {
            let count = &mut self.counts[context][usize::from(b)];
            *count = count.saturating_add(1);
        });
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().flatten().map(|&c| u64::from(c)).sum()
    }
}

/// The context of each byte of a token stream, byte by byte: the reference that
/// [`for_each_byte`] and [`TokenDecoder::decode`] are tested against.
#[cfg(test)]
struct ContextWalk {
    /// State offset of the next literal byte.
    offset: usize,
    /// Varint being read: 0 gap, 1 length, 2 literal bytes.
    field: u8,
    shift: u32,
    value: usize,
    /// Literal bytes left in the current literal.
    left: usize,
    previous: Option<u8>,
}

#[cfg(test)]
impl ContextWalk {
    fn new() -> ContextWalk {
        ContextWalk {
            offset: 0,
            field: 0,
            shift: 0,
            value: 0,
            left: 0,
            previous: None,
        }
    }

    /// The context of the next byte.
    #[inline]
    fn context(&self) -> usize {
        match self.field {
            0 => header_context(0, self.offset),
            1 => header_context(1, self.offset),
            _ => literal_context(self.offset, self.previous.map_or(0, next_position)),
        }
    }

    /// Moves past byte `b` (read in the context `context()` gave).
    #[inline]
    fn step(&mut self, b: u8) {
        match self.field {
            0 | 1 => {
                if self.shift < 63 {
                    self.value |= usize::from(b & 0x7F) << self.shift;
                }
                self.shift += 7;
                if b & 0x80 == 0 {
                    let value = std::mem::take(&mut self.value);
                    self.shift = 0;
                    if self.field == 0 {
                        self.offset = self.offset.saturating_add(value);
                        self.field = 1;
                    } else if value == 0 {
                        self.field = 0;
                    } else {
                        self.left = value;
                        self.previous = None;
                        self.field = 2;
                    }
                }
            }
            _ => {
                self.previous = Some(b);
                self.offset = self.offset.saturating_add(1);
                self.left -= 1;
                if self.left == 0 {
                    self.field = 0;
                }
            }
        }
    }
}

/// Codes packed a byte at a time, most significant bit first: the plain reference the
/// tests hold the coders to.
#[cfg(test)]
#[derive(Default)]
pub(crate) struct ReferenceBits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

#[cfg(test)]
impl ReferenceBits {
    pub(crate) fn put(&mut self, code: &Code, b: u8) {
        let len = u32::from(code.lengths[usize::from(b)]);
        self.acc = (self.acc << len) | u64::from(code.codes[usize::from(b)]);
        self.n += len;
        while self.n >= 8 {
            self.n -= 8;
            self.out.push((self.acc >> self.n) as u8);
        }
    }

    /// The bytes, the last one padded with zeros.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push((self.acc << (8 - self.n)) as u8);
        }
        self.out
    }
}

/// Calls `f(byte, context)` for each byte of a token stream: first the hot bytes (`hot`:
/// the cumulative class ends of the group's hot set), then the zero-run tokens, token by
/// token (the same contexts as `ContextWalk`, byte by byte, in the tests). A malformed
/// tail (which the encoder never produces) is walked the same way.
#[inline(always)]
fn for_each_byte(tokens: &[u8], hot: &[usize; CLASSES], mut f: impl FnMut(u8, usize)) {
    let mut i = 0;
    let mut previous = 0;
    for (class, &end) in hot.iter().enumerate() {
        let end = end.min(tokens.len());
        while i < end {
            let b = tokens[i];
            f(b, HOT + 2 * class + previous);
            previous = usize::from(b != 0);
            i += 1;
        }
    }
    tokens_each_byte(&tokens[i..], f);
}

/// Adds byte `b` of a token header's LEB128 varint, at bit `shift`, into `value` (bits past
/// the 64th dropped, as a malformed header may run on) and moves `shift` on: whether more
/// bytes follow. The walks over whole streams read headers byte by byte with it, each
/// byte with its own Huffman context.
#[inline(always)]
fn add_varint_byte(value: &mut usize, shift: &mut u32, b: u8) -> bool {
    if *shift < 63 {
        *value |= usize::from(b & 0x7F) << *shift;
    }
    *shift += 7;
    b & 0x80 != 0
}

/// The zero-run token part of [`for_each_byte`].
#[inline(always)]
fn tokens_each_byte(tokens: &[u8], mut f: impl FnMut(u8, usize)) {
    let mut i = 0;
    let mut offset = 0usize;
    while i < tokens.len() {
        let mut values = [0usize; 2];
        for field in 0..2 {
            let context = header_context(field, offset.saturating_add(values[0]));
            let value = &mut values[field];
            let mut shift = 0u32;
            loop {
                let Some(&b) = tokens.get(i) else { return };
                f(b, context);
                i += 1;
                if !add_varint_byte(value, &mut shift, b) {
                    break;
                }
            }
        }
        offset = offset.saturating_add(values[0]);
        let end = i.saturating_add(values[1]).min(tokens.len());
        // The literal's region, looked up again only where the offset crosses into the next.
        let mut base = literal_context(offset, 0);
        let mut region_end = next_region_start(offset);
        let mut position = 0;
        for &b in &tokens[i..end] {
            if offset >= region_end {
                base = literal_context(offset, 0);
                region_end = next_region_start(offset);
            }
            f(b, base + position);
            position = next_position(b);
            offset = offset.saturating_add(1);
        }
        i = end;
    }
}

impl TokenCode {
    /// Largest serialized size: a bitmask of the contexts with a table, then their tables.
    pub const BYTES: usize = 8 + CONTEXTS * TABLE_BYTES;

    pub fn flat() -> TokenCode {
        TokenCode {
            codes: std::array::from_fn(|_| Code::flat()),
        }
    }

    pub fn is_flat(&self) -> bool {
        self.codes.iter().all(Code::is_flat)
    }

    pub fn from_counts(counts: &TokenCounts) -> TokenCode {
        TokenCode {
            codes: std::array::from_fn(|context| {
                let counts = &counts.counts[context];
                if counts.iter().map(|&c| u64::from(c)).sum::<u64>() < MIN_CONTEXT_BYTES {
                    Code::flat()
                } else {
                    Code::from_counts(counts)
                }
            }),
        }
    }

    pub fn write(&self, out: &mut Vec<u8>) {
        let mut mask = 0u64;
        for (context, code) in self.codes.iter().enumerate() {
            if !code.is_flat() {
                mask |= 1 << context;
            }
        }
        out.extend_from_slice(&mask.to_le_bytes());
        for code in self.codes.iter().filter(|code| !code.is_flat()) {
            code.write(out);
        }
    }

    /// Reads a code written by [`TokenCode::write`]; returns it and the bytes it took.
    pub fn read(bytes: &[u8]) -> Option<(TokenCode, usize)> {
        let mask = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
        if mask >> CONTEXTS != 0 {
            return None;
        }
        let mut at = 8;
        let mut code = TokenCode::flat();
        for (context, slot) in code.codes.iter_mut().enumerate() {
            if mask & (1 << context) != 0 {
                *slot = Code::read(bytes.get(at..)?)?;
                at += TABLE_BYTES;
            }
        }
        Some((code, at))
    }

    #[cfg(test)]
    pub fn encoded_len(&self, tokens: &[u8], hot: &[usize; CLASSES]) -> usize {
        let mut bits = 0usize;
        for_each_byte(tokens, hot, |b, context| {
            bits += usize::from(self.codes[context].lengths[usize::from(b)]);
        });
        bits.div_ceil(8)
    }
}

/// Huffman code lengths for 256 positive weights, by the two-queue method (leaves sorted by
/// weight; merged nodes come out in non-decreasing order): the reference for
/// [`huffman_lengths`].
#[cfg(test)]
fn two_queue_lengths(weights: &[u64; 256]) -> [u8; 256] {
    const N: usize = 256;
    let order = by_weight(weights);
    // Nodes 0..N are leaves in sorted order, N..2N-1 merged nodes in creation order.
    let mut weight = [0u64; 2 * N - 1];
    for (i, &s) in order.iter().enumerate() {
        weight[i] = weights[usize::from(s)];
    }
    let mut parent = [0u16; 2 * N - 1];
    let (mut leaf, mut merged, mut next) = (0usize, N, N);
    let take = |weight: &[u64; 2 * N - 1], leaf: &mut usize, merged: &mut usize, next: usize| {
        if *leaf < N && (*merged >= next || weight[*leaf] <= weight[*merged]) {
            *leaf += 1;
            *leaf - 1
        } else {
            *merged += 1;
            *merged - 1
        }
    };
    while next < 2 * N - 1 {
        let a = take(&weight, &mut leaf, &mut merged, next);
        let b = take(&weight, &mut leaf, &mut merged, next);
        weight[next] = weight[a] + weight[b];
        parent[a] = next as u16;
        parent[b] = next as u16;
        next += 1;
    }
    // Depths: the root is the last merged node; parents were created after children.
    let mut depth = [0u8; 2 * N - 1];
    for node in (0..2 * N - 2).rev() {
        depth[node] = depth[usize::from(parent[node])].saturating_add(1);
    }
    let mut lengths = [0u8; N];
    for (i, &s) in order.iter().enumerate() {
        lengths[usize::from(s)] = depth[i];
    }
    lengths
}

/// The shape of the canonical prefix code with given lengths: how many codes each length
/// has and the first code of each (a symbol's code is the next of its length, in symbol
/// order). Shared by the code's construction and the decoder's tables, which build it in
/// one pass.
pub(crate) struct CanonicalCode {
    /// Codes of each length (index: bits).
    pub(crate) count: [u16; MAX_LEN as usize + 1],
    /// The first code of each length.
    pub(crate) next: [u16; MAX_LEN as usize + 1],
    /// Whether the code is complete (its Kraft sum is 1): every bit string starts a code.
    pub(crate) complete: bool,
}

impl CanonicalCode {
    /// `None` unless every length is 1..=`MAX_LEN` and they form a prefix code (a Kraft
    /// sum of at most 1).
    pub(crate) fn of(lengths: &[u8; 256]) -> Option<CanonicalCode> {
        let mut count = [0u16; MAX_LEN as usize + 1];
        for &l in lengths {
            if l == 0 || u32::from(l) > MAX_LEN {
                return None;
            }
            count[usize::from(l)] += 1;
        }
        let kraft: u32 = (1..=MAX_LEN as usize)
            .map(|l| u32::from(count[l]) << (MAX_LEN as usize - l))
            .sum();
        if kraft > 1 << MAX_LEN {
            return None;
        }
        let mut next = [0u16; MAX_LEN as usize + 1];
        let mut code = 0u16;
        for l in 1..=MAX_LEN as usize {
            code = (code + count[l - 1]) << 1;
            next[l] = code;
        }
        Some(CanonicalCode {
            count,
            next,
            complete: kraft == 1 << MAX_LEN,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::decode::{DecodeTable, PRIMARY};
    use super::*;
    use backspin_test_support::SplitMix64;

    #[test]
    fn the_flat_code_is_the_canonical_code_of_eights() {
        assert_eq!(
            Code::flat(),
            Code::from_lengths(&[8; 256]).expect("a prefix code")
        );
    }

    #[test]
    fn in_place_lengths_as_the_two_queue_tree() {
        let mut rng = SplitMix64::new(257);
        for round in 0..2000u64 {
            // Mostly unseen bytes (weight 1), many ties, some heavy and some huge weights.
            let heavy = rng.range(0, 256);
            let weights: [u64; 256] = std::array::from_fn(|_| {
                if rng.range(0, 256) >= heavy {
                    return 1;
                }
                match round % 4 {
                    0 => rng.range(1, 4),
                    1 => rng.range(1, 100),
                    2 => 1 + (rng.next_u64() >> rng.range(0, 63)) % (1 << 32),
                    _ => 1 << rng.range(0, 33),
                }
            });
            assert_eq!(
                huffman_lengths(&weights),
                two_queue_lengths(&weights),
                "round {round}"
            );
        }
    }

    #[test]
    fn symbols_by_weight_as_a_full_sort() {
        let mut rng = SplitMix64::new(256);
        for round in 0..200 {
            let weights: [u64; 256] = std::array::from_fn(|_| match rng.range(0, 3) {
                0 if round % 2 == 0 => 0,
                0 | 1 => 1,
                _ => rng.range(0, 40),
            });
            let mut full: [u16; 256] = std::array::from_fn(|s| s as u16);
            full.sort_unstable_by_key(|&s| (weights[usize::from(s)], s));
            assert_eq!(by_weight(&weights), full, "round {round}");
        }
    }

    #[test]
    fn round_trip_skewed_and_flat() {
        let data: Vec<u8> = (0..5000u32)
            .map(|i| match i % 10 {
                0..=5 => 1,
                6 | 7 => 0xFF,
                8 => (i % 7) as u8,
                _ => (i * 31 % 256) as u8,
            })
            .collect();
        let mut counts = [0u32; 256];
        for &b in &data {
            counts[usize::from(b)] += 1;
        }
        let skewed = Code::from_counts(&counts);
        assert!(
            skewed.lengths.iter().any(|&l| u32::from(l) > PRIMARY),
            "some codes take the second lookup"
        );
        for code in [skewed, Code::flat()] {
            let mut out = Vec::new();
            code.encode(&data, &mut out);
            assert_eq!(out.len(), code.encoded_len(&data));
            let mut back = vec![0u8; data.len()];
            DecodeTable::new(&code).decode(&out, &mut back).unwrap();
            assert_eq!(back, data);
            let mut table = Vec::new();
            code.write(&mut table);
            assert_eq!(Code::read(&table).unwrap(), code);
        }
        let mut out = Vec::new();
        Code::from_counts(&counts).encode(&data, &mut out);
        assert!(out.len() < data.len() / 2, "{} bytes", out.len());
    }

    #[test]
    fn extreme_counts_stay_within_max_len() {
        let mut counts = [0u32; 256];
        for (i, c) in counts.iter_mut().enumerate() {
            *c = 1 << (i % 31);
        }
        let code = Code::from_counts(&counts);
        assert!(code.lengths.iter().all(|&l| u32::from(l) <= MAX_LEN));
    }

    #[test]
    fn truncated_input_is_an_error() {
        let code = Code::from_counts(&[1; 256]);
        let mut out = Vec::new();
        code.encode(&[1, 2, 3, 4, 5], &mut out);
        let mut back = [0u8; 50];
        assert!(DecodeTable::new(&code).decode(&out, &mut back).is_none());
    }

    /// The encoder's token-by-token contexts equal the decoder's byte-by-byte ones, also on
    /// arbitrary (malformed) streams.
    #[test]
    fn both_context_walks_agree() {
        let mut rng = SplitMix64::new(0x9E37_79B9_7F4A_7C15);
        for round in 0..2000 {
            let mut bytes = Vec::new();
            for _ in 0..(round % 97) {
                let seed = rng.next_u64();
                // Mostly small values (lengths and gaps that stay in range), some anything.
                bytes.push(if seed & 3 == 0 {
                    (seed >> 8) as u8
                } else {
                    (seed >> 8) as u8 & 0x0F
                });
            }
            if round % 2 == 0 {
                // A well-formed stream crossing the region boundaries.
                bytes.clear();
                for k in 0..40u64 {
                    crate::codec::put_varint(&mut bytes, (k * 997 + round) % 20_000);
                    crate::codec::put_varint(&mut bytes, k % 6 + 1);
                    bytes.extend((0..k % 6 + 1).map(|j| (j * k) as u8));
                }
            }
            let mut fast = Vec::new();
            tokens_each_byte(&bytes, |b, context| fast.push((b, context)));
            let mut walk = ContextWalk::new();
            let slow: Vec<(u8, usize)> = bytes
                .iter()
                .map(|&b| {
                    let context = walk.context();
                    walk.step(b);
                    (b, context)
                })
                .collect();
            assert_eq!(fast, slow, "round {round}");
        }
    }

    /// Hot bytes that are mostly zero (decoded a run at a time where byte 0's code is all
    /// zero bits), codes loaded over other codes (unchanged tables kept), and streams cut
    /// short.
    #[test]
    fn zero_runs_and_reloaded_codes_decode_exactly() {
        let mut rng = SplitMix64::new(77);
        let hot = [300, 700, 900, 1000];
        let stream = |rng: &mut SplitMix64, zero_share: u64| {
            let mut tokens: Vec<u8> = (0..hot[CLASSES - 1])
                .map(|_| {
                    if rng.range(0, 99) < zero_share {
                        0
                    } else {
                        rng.range(1, 255) as u8
                    }
                })
                .collect();
            for k in 0..200u64 {
                crate::codec::put_varint(&mut tokens, rng.range(0, 3000));
                let len = k % 7 + 1;
                crate::codec::put_varint(&mut tokens, len);
                tokens.extend((0..len).map(|_| rng.range(0, 3) as u8));
            }
            tokens
        };
        let mut decoder = TokenDecoder::new(&TokenCode::flat());
        for (round, zero_share) in [95u64, 50, 99, 10, 95].into_iter().enumerate() {
            let tokens = stream(&mut rng, zero_share);
            let mut counts = TokenCounts::default();
            counts.add(&tokens, &hot);
            let code = TokenCode::from_counts(&counts);
            let mut written = Vec::new();
            code.write(&mut written);
            written.push(0xEE);
            assert_eq!(decoder.load(&written), Some(written.len() - 1));
            let mut bits = vec![0; coded_room(tokens.len())];
            let len =
                EncodeTable::new(&code).count_and_encode(&mut counts, &tokens, &hot, &mut bits);
            let mut back = vec![0u8; tokens.len()];
            decoder.decode(&bits[..len], &mut back, &hot).unwrap();
            assert_eq!(back, tokens, "round {round}");
            assert!(
                decoder.decode(&bits[..len - 2], &mut back, &hot).is_none(),
                "round {round}: cut short"
            );
        }
        assert!(
            decoder.load(&[0xFF; 8]).is_none(),
            "contexts beyond the last"
        );
    }

    #[test]
    fn token_code_round_trips_a_token_stream() {
        // Five hot bytes (classes 0, 0, 1, 3, 3), then zero-run tokens.
        let hot = [2, 3, 3, 5];
        let mut tokens = vec![1, 0, 7, 0, 3];
        for k in 0..300u32 {
            crate::codec::put_varint(&mut tokens, u64::from(k % 40 + 1));
            let len = (k % 5 + 1) as usize;
            crate::codec::put_varint(&mut tokens, len as u64);
            tokens.extend((0..len).map(|j| if j % 2 == 0 { 1 } else { (k % 3) as u8 }));
        }
        let mut counts = TokenCounts::default();
        counts.add(&tokens, &hot);
        let code = TokenCode::from_counts(&counts);
        // The capture's one walk: the coded stream at the start of `out`, its length
        // returned, and the same statistics as `add`.
        let mut out = vec![0xAA; coded_room(tokens.len())];
        let mut recounted = TokenCounts::default();
        let mut encoder = EncodeTable::new(&code);
        let len = encoder.count_and_encode(&mut recounted, &tokens, &hot, &mut out);
        encoder.flush_counts(&mut recounted);
        let bits = &out[..len];
        assert_eq!(bits.len(), code.encoded_len(&tokens, &hot));
        assert!(recounted.counts == counts.counts);
        assert!(
            bits.len() < tokens.len() * 3 / 5,
            "{} of {}",
            bits.len(),
            tokens.len()
        );
        let mut back = vec![0u8; tokens.len()];
        TokenDecoder::new(&code)
            .decode(bits, &mut back, &hot)
            .unwrap();
        assert_eq!(back, tokens);
        let mut table = Vec::new();
        code.write(&mut table);
        assert_eq!(TokenCode::read(&table).unwrap(), (code, table.len()));
    }
}
