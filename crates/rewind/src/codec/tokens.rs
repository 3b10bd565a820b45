//! The token stream: zero-run tokens over the bytewise difference of two states, and the
//! LEB128 varints their headers are written in.
//!
//! Repeated `varint zero_gap, varint literal_len, literal_len bytes`: the literal bytes are
//! added to the target after skipping `zero_gap` bytes. Gaps shorter than `MERGE_GAP` bytes
//! are folded into the literal (a token header costs at least two bytes; see `docs/rewind.md`
//! for the gaps tried).

use super::{Apply, DecodeError};
use crate::hot::ChangeCounts;

/// Zero gaps shorter than this are merged into the surrounding literal.
const MERGE_GAP: usize = 4;

/// Worst-case token stream length for a state of `len` bytes: every literal of one byte
/// separated by a `MERGE_GAP`-byte gap, each token header at most 3 + 3 bytes.
pub fn max_token_len(len: usize) -> usize {
    len + (len / (MERGE_GAP + 1) + 1) * 6 + 16
}

/// Appends the zero-run tokens of `cur - base` to `out`; when `sync_base`, also copies
/// every differing byte of `cur` into `base`.
pub fn tokenize_diff(base: &mut [u8], cur: &[u8], out: &mut Vec<u8>, sync_base: bool) {
    tokenize(base, cur, out, sync_base, None, 0, None);
}

/// Bytes of a span: the unit of the first equality test, and of `known_equal`.
pub const SPAN: usize = 2048;

/// Bytes of a block: the tokenizer's finest comparison before words, and the unit of
/// [`ZeroBlocks`].
pub const BLOCK: usize = 64;

/// Blocks a [`ZeroBlocks`] can know (from the state's start): the untracked part and VRAM
/// bank 0, whose pages are compared in every frame that writes VRAM (in some games most
/// frames), and which holds zeros in many games' unused tiles and map rows.
pub const ZERO_MAP_BLOCKS: usize = 320;

/// Which 64-byte blocks of a capture's base (the newest stored state) are known to be all
/// zeros, among the first [`ZERO_MAP_BLOCKS`]. Most of a game's work RAM is zeros, and it
/// is compared every frame (no note says whether it was written): for a block known zero
/// only the current state's bytes are read, so the comparison reads about half the bytes
/// and evicts half as many of the emulation's.
///
/// A set bit promises that the base block is zeros but at hot positions, where it may hold
/// what a capture gathered: the next capture gathers them again before comparing, so the
/// base is zeros there too when the current state is. A block that is not zeros when its
/// bit says so is forgotten (the base takes its bytes). Whoever replaces the base learns
/// the map again ([`ZeroBlocks::learn`]), as every keyframe does, to know the blocks that
/// became zeros; blocks the models rewrite in the base before comparing (`allowed` clear)
/// are never known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZeroBlocks {
    known: [u64; ZERO_MAP_BLOCKS / 64],
    allowed: [u64; ZERO_MAP_BLOCKS / 64],
}

impl ZeroBlocks {
    /// Nothing known, nothing learnable: the tokenizer compares every block.
    pub const NONE: ZeroBlocks = ZeroBlocks {
        known: [0; ZERO_MAP_BLOCKS / 64],
        allowed: [0; ZERO_MAP_BLOCKS / 64],
    };

    /// Nothing known yet; every block may be learned but those holding a byte of `excluded`.
    pub fn excluding(excluded: impl IntoIterator<Item = std::ops::Range<usize>>) -> ZeroBlocks {
        let mut allowed = [u64::MAX; ZERO_MAP_BLOCKS / 64];
        for range in excluded {
            for block in range.start / BLOCK..range.end.div_ceil(BLOCK).min(ZERO_MAP_BLOCKS) {
                allowed[block / 64] &= !(1 << (block % 64));
            }
        }
        ZeroBlocks {
            known: [0; ZERO_MAP_BLOCKS / 64],
            allowed,
        }
    }

    /// Forgets what was known (the base was replaced) and learns it again from `base`.
    pub fn learn(&mut self, base: &[u8]) {
        self.known = [0; ZERO_MAP_BLOCKS / 64];
        for (block, bytes) in base.chunks_exact(BLOCK).take(ZERO_MAP_BLOCKS).enumerate() {
            self.set(block, all_zero(bytes));
        }
    }

    /// Bits of span `span`'s blocks known zero (bit `k`: its block `k`; none past the map).
    #[inline(always)]
    pub(super) fn span_bits(&self, span: usize) -> u32 {
        const SPANS_PER_WORD: usize = 64 / (SPAN / BLOCK);
        self.known.get(span / SPANS_PER_WORD).map_or(0, |word| {
            (word >> (span % SPANS_PER_WORD * (SPAN / BLOCK))) as u32
        })
    }

    /// Whether every block said to be zeros in `base` is, but at `hot` positions (what the
    /// map promises).
    #[cfg(test)]
    pub fn holds_for(&self, base: &[u8], hot: &[u32]) -> bool {
        let mut base = base.to_vec();
        for &p in hot {
            base[p as usize] = 0;
        }
        (0..ZERO_MAP_BLOCKS).all(|block| {
            let bit = self.span_bits(block * BLOCK / SPAN) >> (block % (SPAN / BLOCK)) & 1;
            bit == 0 || all_zero(&base[block * BLOCK..(block + 1) * BLOCK])
        })
    }

    /// Blocks known zero.
    #[cfg(test)]
    pub fn known_count(&self) -> u32 {
        self.known.iter().map(|w| w.count_ones()).sum()
    }

    /// Records whether block `block` of the base is all zeros now (when it may be known).
    #[inline(always)]
    fn set(&mut self, block: usize, zero: bool) {
        if let (Some(known), Some(allowed)) =
            (self.known.get_mut(block / 64), self.allowed.get(block / 64))
        {
            let bit = 1 << (block % 64);
            *known = (*known & !bit) | (bit & allowed & if zero { u64::MAX } else { 0 });
        }
    }
}

/// A span of zeros, to compare with where the CPU lacks AVX2: one optimised comparison call
/// tells whether a slice is all zeros, and its cache lines, read every capture, stay in
/// the first-level cache.
static ZEROS: [u8; SPAN] = [0; SPAN];

/// Whether every byte of `bytes` (at most a span) is zero. With AVX2 the bytes are ORed
/// 32 at a time, about half the instructions of a comparison (which also compares and
/// combines masks); without, they are compared with zeros.
#[inline(always)]
pub fn all_zero(bytes: &[u8]) -> bool {
    // A block or a part (the narrowing's sizes) inline, as a fixed-size OR the compiler
    // vectorises: a call costs more than their bytes.
    if let Ok(block) = <&[u8; BLOCK]>::try_from(bytes) {
        return or_words(block) == 0;
    }
    if let Ok(part) = <&[u8; SPAN / 8]>::try_from(bytes) {
        return or_words(part) == 0;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { all_zero_avx2(bytes) };
    }
    ZEROS.get(..bytes.len()) == Some(bytes)
}

/// The OR of the 8-byte words of `bytes` (`N` a multiple of 8).
#[inline(always)]
fn or_words<const N: usize>(bytes: &[u8; N]) -> u64 {
    let mut any = [0u64; 4];
    for (k, word) in bytes.chunks_exact(8).enumerate() {
        any[k % 4] |= u64::from_le_bytes(word.try_into().expect("8 bytes"));
    }
    any[0] | any[1] | any[2] | any[3]
}

/// [`all_zero`] with AVX2: whole blocks ORed into one block's words (a fixed-size loop the
/// compiler turns into two vector ORs a block), then the tail's words and bytes.
///
/// # Safety
/// The CPU must have AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn all_zero_avx2(bytes: &[u8]) -> bool {
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
    let mut blocks = bytes.chunks_exact(BLOCK);
    let mut any = [0u64; BLOCK / 8];
    for block in &mut blocks {
        for (k, lane) in any.iter_mut().enumerate() {
            *lane |= word(&block[8 * k..8 * k + 8]);
        }
    }
    let mut words = blocks.remainder().chunks_exact(8);
    let mut folded = any.iter().fold(0, |a, &x| a | x);
    for w in &mut words {
        folded |= word(w);
    }
    folded == 0 && words.remainder().iter().all(|&b| b == 0)
}

/// Whether the bytes `range` of `base` and `cur` are equal, found with one comparison:
/// with zeros when `known_zero` says all its blocks are zeros in `base` (`cur` alone is
/// read), else with `base` (narrowing a range that is partly known to smaller ones cost
/// more comparisons than the bytes it spared). Blocks past a short state's end are never
/// known, so a short range is never all known.
#[inline(always)]
fn equal_at_once(base: &[u8], cur: &[u8], range: std::ops::Range<usize>, known_zero: bool) -> bool {
    if known_zero {
        all_zero(&cur[range])
    } else {
        base[range.clone()] == cur[range]
    }
}

/// Appends the zero-run tokens of `cur - base` to `out`. When `sync_base`, `base` becomes
/// `cur`. `counts` (when given) counts every byte that differs.
///
/// Equal 2 KiB spans, then equal 256-byte parts and 64-byte blocks, are skipped with one
/// slice comparison each (a vectorised memcmp), so a capture costs little more than its
/// changed bytes.
/// Spans whose bit is set in `known_equal` (bit `n`: span `n`) are skipped without a look,
/// a run of them at a time (the caller knows nothing wrote them): the tokens are the same,
/// only found sooner.
pub fn tokenize(
    base: &mut [u8],
    cur: &[u8],
    out: &mut Vec<u8>,
    sync_base: bool,
    counts: Option<&mut ChangeCounts>,
    known_equal: u128,
    zeros: Option<&mut ZeroBlocks>,
) {
    tokenize_as::<false>(base, cur, out, sync_base, counts, known_equal, zeros);
}

/// A keyframe's tokens: `tokenize` of `cur` against `zeros`, a state's length of zero bytes,
/// which is read only where `cur` is not zero (a keyframe reads the whole state, and
/// comparing it with as many zeros read twice as much, most of it from memory).
pub fn tokenize_against_zeros(zeros: &mut [u8], cur: &[u8], out: &mut Vec<u8>) {
    debug_assert!(zeros.iter().all(|&b| b == 0), "a base of zeros");
    tokenize_as::<true>(zeros, cur, out, false, None, 0, None);
}

/// `tokenize`; with `BASE_ZERO`, every block of `base` is taken as known zero.
#[inline(always)]
fn tokenize_as<const BASE_ZERO: bool>(
    base: &mut [u8],
    cur: &[u8],
    out: &mut Vec<u8>,
    sync_base: bool,
    mut counts: Option<&mut ChangeCounts>,
    known_equal: u128,
    mut zeros: Option<&mut ZeroBlocks>,
) {
    assert_eq!(
        base.len(),
        cur.len(),
        "difference of states of different sizes"
    );
    debug_assert!(
        sync_base || zeros.is_none(),
        "the zero map describes a synced base"
    );
    const PART: usize = SPAN / 8;
    let len = cur.len();
    let mut open = OpenLiteral {
        emitted: 0,
        lit: None,
    };

    // The current span's blocks known zero in `base` (bit `k`: its block `k`).
    let mut span_zeros = 0u32;
    let mut block_start = 0;
    while block_start < len {
        let in_span = block_start % SPAN / BLOCK;
        if block_start % SPAN == 0 {
            let span = block_start / SPAN;
            let known = if span < 128 { known_equal >> span } else { 0 };
            if known & 1 != 0 {
                let run = (!known).trailing_zeros() as usize;
                block_start = ((span + run) * SPAN).min(len);
                continue;
            }
            let span_end = (block_start + SPAN).min(len);
            span_zeros = if BASE_ZERO {
                u32::MAX
            } else {
                zeros.as_deref().map_or(0, |z| z.span_bits(span))
            };
            // A span partly known zero goes to its parts at once: the spans of the state's
            // small hot parts, where zeros and changing bytes mix, differ nearly every frame,
            // and the parts known zero are compared without reading the base.
            let mixed = span_zeros != 0 && span_zeros != u32::MAX;
            if !mixed && equal_at_once(base, cur, block_start..span_end, span_zeros != 0) {
                block_start = span_end;
                continue;
            }
        }
        // A differing span is narrowed in eighths first: most have one or two changed
        // blocks, and a comparison call per 64-byte block cost more than its bytes (the
        // part's size was measured: `docs/rewind.md`).
        if block_start % PART == 0 {
            let part_end = (block_start + PART).min(len);
            let part = u32::MAX >> (32 - PART / BLOCK);
            let known = span_zeros >> in_span & part == part;
            if equal_at_once(base, cur, block_start..part_end, known) {
                block_start = part_end;
                continue;
            }
        }
        let block_end = (block_start + BLOCK).min(len);
        let block = block_start / BLOCK;
        if span_zeros >> in_span & 1 != 0 {
            if all_zero(&cur[block_start..block_end]) {
                block_start = block_end;
                continue;
            }
            // The base holds zeros there but for the hot bytes just gathered from `cur`:
            // after this capture it holds `cur`'s bytes, not all zero.
            if let Some(z) = zeros.as_deref_mut() {
                z.set(block, false);
            }
        }
        // (Against zeros, a block that is not zero differs.)
        if !BASE_ZERO && base[block_start..block_end] == cur[block_start..block_end] {
            block_start = block_end;
            continue;
        }
        if block_end - block_start == BLOCK {
            // A differing whole block: its words' differences at once, then only the
            // differing words (a differing block mostly differs in few of them).
            let words = block_differences(
                base[block_start..block_end].try_into().expect("a block"),
                cur[block_start..block_end].try_into().expect("a block"),
            );
            let mut differing = words
                .iter()
                .enumerate()
                .fold(0u32, |mask, (k, &x)| mask | u32::from(x != 0) << k);
            while differing != 0 {
                let k = differing.trailing_zeros() as usize;
                differing &= differing - 1;
                open.take(
                    differing_bytes(block_start + 8 * k, words[k]),
                    base,
                    cur,
                    out,
                    sync_base,
                    counts.as_deref_mut(),
                );
            }
            block_start = block_end;
            continue;
        }
        let mut word_start = block_start;
        while word_start < block_end {
            let word_end = (word_start + 8).min(block_end);
            let (first, last) = if word_end - word_start == 8 {
                let a = u64::from_le_bytes(base[word_start..word_end].try_into().expect("8"));
                let b = u64::from_le_bytes(cur[word_start..word_end].try_into().expect("8"));
                let x = a ^ b;
                if x == 0 {
                    word_start = word_end;
                    continue;
                }
                differing_bytes(word_start, x)
            } else {
                // Tail shorter than a word (only at the very end of the state).
                let mut first = None;
                let mut last = 0;
                for i in word_start..word_end {
                    if base[i] != cur[i] {
                        first.get_or_insert(i);
                        last = i;
                    }
                }
                match first {
                    Some(first) => (first, last),
                    None => {
                        word_start = word_end;
                        continue;
                    }
                }
            };
            open.take(
                (first, last),
                base,
                cur,
                out,
                sync_base,
                counts.as_deref_mut(),
            );
            word_start = word_end;
        }
        block_start = block_end;
    }
    if let Some((start, end)) = open.lit {
        emit_literal(
            base,
            cur,
            out,
            (open.emitted, start, end),
            sync_base,
            counts,
        );
    }
}

/// The literal `tokenize` is growing, and where the bytes already described by tokens end.
struct OpenLiteral {
    /// End of the bytes already described by tokens (start of the current zero gap).
    emitted: usize,
    /// The literal being grown: [start, end).
    lit: Option<(usize, usize)>,
}

impl OpenLiteral {
    /// Takes the differing bytes `first..=last` (after the literal's end) into the literal,
    /// or, when the gap before them is too long to be worth a literal's bytes, emits the
    /// literal and opens a new one at `first`.
    #[inline(always)]
    fn take(
        &mut self,
        (first, last): (usize, usize),
        base: &mut [u8],
        cur: &[u8],
        out: &mut Vec<u8>,
        sync_base: bool,
        counts: Option<&mut ChangeCounts>,
    ) {
        self.lit = match self.lit {
            Some((start, end)) if first < end + MERGE_GAP => Some((start, last + 1)),
            Some((start, end)) => {
                emit_literal(
                    base,
                    cur,
                    out,
                    (self.emitted, start, end),
                    sync_base,
                    counts,
                );
                self.emitted = end;
                Some((first, last + 1))
            }
            None => Some((first, last + 1)),
        };
    }
}

/// The first and last differing bytes of the 8-byte word at `word_start`, given its
/// difference `x` (not zero; little-endian, so byte `i` is bits `8 * i..`).
#[inline(always)]
fn differing_bytes(word_start: usize, x: u64) -> (usize, usize) {
    (
        word_start + (x.trailing_zeros() / 8) as usize,
        word_start + 7 - (x.leading_zeros() / 8) as usize,
    )
}

fn emit_literal(
    base: &mut [u8],
    cur: &[u8],
    out: &mut Vec<u8>,
    (emitted, start, end): (usize, usize, usize),
    sync_base: bool,
    counts: Option<&mut ChangeCounts>,
) {
    put_varint(out, (start - emitted) as u64);
    put_varint(out, (end - start) as u64);
    let lanes_fit = start + (end - start).next_multiple_of(LANES) <= base.len();
    let counts = match counts {
        Some(counts) if sync_base && lanes_fit => {
            emit_literal_lanes(base, cur, out, start..end, counts);
            return;
        }
        other => other,
    };
    let (old, new) = (&mut base[start..end], &cur[start..end]);
    let at = out.len();
    out.extend(old.iter().zip(new).map(|(a, b)| b.wrapping_sub(*a)));
    if let Some(counts) = counts {
        // The changed bytes are the non-zero differences: counted from them without a
        // branch per byte (a literal mixes changed bytes and merged gaps).
        counts.note_differences(start, &out[at..]);
    }
    if sync_base {
        old.copy_from_slice(new);
    }
}

/// Bytes a literal is worked in by `emit_literal_lanes`.
const LANES: usize = 16;

/// `LANES` bytes 0xFF, then `LANES` zeros: the window at `LANES - n` has its first `n` set.
const LANE_WINDOW: [u8; 2 * LANES] = {
    let mut window = [0u8; 2 * LANES];
    let mut k = 0;
    while k < LANES {
        window[k] = 0xFF;
        k += 1;
    }
    window
};

/// The XOR of each of a block's eight words in `base` and `cur` (zero: the word is equal).
#[inline(always)]
fn block_differences(base: &[u8; 64], cur: &[u8; 64]) -> [u64; 8] {
    let mut words = [0u64; 8];
    for (k, x) in words.iter_mut().enumerate() {
        let a = u64::from_le_bytes(base[8 * k..8 * k + 8].try_into().expect("8"));
        let b = u64::from_le_bytes(cur[8 * k..8 * k + 8].try_into().expect("8"));
        *x = a ^ b;
    }
    words
}

/// `emit_literal`'s bytes for a delta (counted and synced), `LANES` at a time in fixed-size
/// arrays, so that each step is a few vector operations: literals are mostly shorter than
/// `LANES`, and the loops of a byte slice of unknown length (the differences, their count,
/// the copy) cost more in setup and tails than in bytes. The last step's lanes past the
/// literal are masked out (their differences are written and then cut, their counts get
/// zero, their `base` bytes are written back as they were). The caller checks that every
/// step's lanes lie within the state.
fn emit_literal_lanes(
    base: &mut [u8],
    cur: &[u8],
    out: &mut Vec<u8>,
    literal: std::ops::Range<usize>,
    counts: &mut ChangeCounts,
) {
    counts.mark(literal.clone());
    let mut at = literal.start;
    while at < literal.end {
        let take = (literal.end - at).min(LANES);
        let old: &mut [u8; LANES] = (&mut base[at..at + LANES]).try_into().expect("lanes");
        let new: &[u8; LANES] = cur[at..at + LANES].try_into().expect("lanes");
        // The lanes of the literal: 0xFF in the first `take`, 0 after.
        let inside: &[u8; LANES] = LANE_WINDOW[LANES - take..2 * LANES - take]
            .try_into()
            .expect("lanes");
        // Indexed loops over fixed-size arrays, without branches: these vectorise.
        let mut differences = [0u8; LANES];
        for k in 0..LANES {
            differences[k] = new[k].wrapping_sub(old[k]);
        }
        out.extend_from_slice(&differences);
        out.truncate(out.len() - (LANES - take));
        for k in 0..LANES {
            differences[k] &= inside[k];
            old[k] = (new[k] & inside[k]) | (old[k] & !inside[k]);
        }
        counts.note_lanes(at, &differences);
        at += take;
    }
}

/// Applies a token stream to `target`: adds the differences (forward) or subtracts them
/// (backward). `Apply::Landing` changes nothing here (only the mirrored region, which the
/// caller rebuilds).
pub fn apply_tokens(mut tokens: &[u8], target: &mut [u8], mode: Apply) -> Result<(), DecodeError> {
    if mode == Apply::Landing {
        return Ok(());
    }
    let mut pos = 0usize;
    while !tokens.is_empty() {
        let gap = get_varint(&mut tokens).ok_or(DecodeError::Malformed)? as usize;
        let len = get_varint(&mut tokens).ok_or(DecodeError::Malformed)? as usize;
        let start = pos.checked_add(gap).ok_or(DecodeError::Malformed)?;
        let end = start.checked_add(len).ok_or(DecodeError::Malformed)?;
        let dst = target.get_mut(start..end).ok_or(DecodeError::Malformed)?;
        let src = tokens.get(..len).ok_or(DecodeError::Malformed)?;
        if mode == Apply::Backward {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = d.wrapping_sub(*s);
            }
        } else {
            for (d, s) in dst.iter_mut().zip(src) {
                *d = d.wrapping_add(*s);
            }
        }
        tokens = &tokens[len..];
        pos = end;
    }
    Ok(())
}

/// Bytes `put_varint` writes for `value`.
pub fn varint_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

/// LEB128: 7 bits per byte, low bits first.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a varint `put_varint` wrote, advancing `input`; `None` if it ends early or
/// overflows 64 bits.
pub fn get_varint(input: &mut &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = input.split_first()?;
        *input = rest;
        value |= u64::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_test_support::SplitMix64;

    /// The tokens of `cur - base`, found word by word: a literal reaches from the first to
    /// the last differing byte of each aligned 8-byte word, and literals closer than
    /// `MERGE_GAP` merge.
    fn reference_tokens(base: &[u8], cur: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut emitted = 0;
        let mut lit: Option<(usize, usize)> = None;
        let emit = |out: &mut Vec<u8>, emitted: usize, (start, end): (usize, usize)| {
            put_varint(out, (start - emitted) as u64);
            put_varint(out, (end - start) as u64);
            out.extend((start..end).map(|i| cur[i].wrapping_sub(base[i])));
        };
        for word in (0..cur.len()).step_by(8) {
            let mut differing = (word..(word + 8).min(cur.len())).filter(|&i| base[i] != cur[i]);
            let (Some(first), Some(last)) = (differing.clone().next(), differing.next_back())
            else {
                continue;
            };
            lit = match lit {
                Some((start, end)) if first < end + MERGE_GAP => Some((start, last + 1)),
                Some(literal) => {
                    emit(&mut out, emitted, literal);
                    emitted = literal.1;
                    Some((first, last + 1))
                }
                None => Some((first, last + 1)),
            };
        }
        if let Some(literal) = lit {
            emit(&mut out, emitted, literal);
        }
        out
    }

    #[test]
    fn keyframe_tokens_against_zeros_match_a_byte_by_byte_walk() {
        let mut rng = SplitMix64::new(39);
        for round in 0..200u64 {
            // Sparse states of lengths that end inside a span, a block and a word: zero
            // stretches longer and shorter than a span, a part and a block.
            let len = 9000 + (rng.next_u64() % 300) as usize;
            let mut cur = vec![0u8; len];
            let mut at = (rng.next_u64() % 100) as usize;
            while at < len {
                let run = 1 + (rng.next_u64() % 40) as usize;
                for byte in &mut cur[at..(at + run).min(len)] {
                    if !rng.next_u64().is_multiple_of(4) {
                        *byte = rng.next_u64() as u8;
                    }
                }
                at += run + (rng.next_u64() % [9, 70, 300, 3000][round as usize % 4]) as usize;
            }
            if round % 3 == 0 {
                cur[len - 1] = 0xA5;
            }
            let mut zeros = vec![0u8; len];
            let mut tokens = Vec::with_capacity(max_token_len(len));
            tokenize_against_zeros(&mut zeros, &cur, &mut tokens);
            assert!(tokens == reference_tokens(&zeros, &cur), "round {round}");
            assert!(
                zeros.iter().all(|&b| b == 0),
                "round {round}: the zeros stay zeros"
            );
        }
    }

    #[test]
    fn all_zero_finds_any_byte_set() {
        let mut bytes = vec![0u8; SPAN];
        for len in [0, 1, 7, 63, 64, 65, 200, 256, 1000, SPAN] {
            assert!(all_zero(&bytes[..len]), "{len} zeros");
            for at in 0..len {
                bytes[at] = 1 << (at % 8);
                assert!(!all_zero(&bytes[..len]), "length {len}, byte {at} set");
                bytes[at] = 0;
            }
        }
    }

    #[test]
    fn tokens_counts_and_sync_match_a_byte_by_byte_walk() {
        let mut rng = SplitMix64::new(36);
        for round in 0..300u64 {
            // Lengths that end inside a block, a word and a lane step; changes clustered
            // into literals of every length up to several lane steps, some at the very end.
            let len = 3000 + (rng.next_u64() % 300) as usize;
            let base: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let mut counts = ChangeCounts::new(len);
            let mut expected = vec![0u16; len];
            let mut old = base.clone();
            for _ in 0..2 {
                let mut cur = old.clone();
                let mut at = (rng.next_u64() % 40) as usize;
                while at < len {
                    let run = 1 + (rng.next_u64() % if round % 3 == 0 { 60 } else { 12 }) as usize;
                    for byte in &mut cur[at..(at + run).min(len)] {
                        // Some bytes of a run stay equal (merged gaps inside a literal).
                        if !rng.next_u64().is_multiple_of(5) {
                            *byte = byte.wrapping_add(1 + (rng.next_u64() % 255) as u8);
                        }
                    }
                    at += run + (rng.next_u64() % if round % 2 == 0 { 9 } else { 200 }) as usize;
                }
                if round % 4 == 0 {
                    cur[len - 1] ^= 0x5A;
                }
                for (e, (a, b)) in expected.iter_mut().zip(old.iter().zip(&cur)) {
                    *e += u16::from(a != b);
                }
                let want = reference_tokens(&old, &cur);
                let mut synced = old.clone();
                let mut tokens = Vec::with_capacity(max_token_len(len));
                tokenize(
                    &mut synced,
                    &cur,
                    &mut tokens,
                    true,
                    Some(&mut counts),
                    0,
                    None,
                );
                assert!(tokens == want, "round {round}: tokens");
                assert!(synced == cur, "round {round}: base synced to cur");
                old = cur;
            }
            for (i, &e) in expected.iter().enumerate() {
                assert_eq!(counts.count(i), e, "round {round}: count of byte {i}");
            }
        }
    }
}
