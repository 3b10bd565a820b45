//! Content-aware deltas: state regions stored by value instead of by difference (measured
//! when deltas were XOR; the same holds for differences). Optional, and
//! off by default (`Config::value_blocks`), because it did not pay:
//!
//! Some regions are rewritten wholesale every frame with sparse contents (the clearest case
//! was the APU's ring of pending band-limited-step deltas; the APU now keeps that ring at a
//! fixed phase and queues centre steps unspread, see `core/src/apu/blip.rs`). Their XOR
//! against the previous frame has the nonzero bytes of *both* frames; the new value alone
//! has fewer (over 600 s of play: 21 % fewer changed bytes on shocklobster.gb, 12 % on
//! pocket.gb). So each keyframe can name the 32-byte blocks whose value was cheaper than
//! their XOR during the group before it, and the deltas of its group store those blocks by
//! value. Measured in coded bytes (after the Huffman stage) it was 17 % *larger* on
//! shocklobster.gb and 3.5 % smaller on pocket.gb: arbitrary values entropy-code far worse
//! than small XOR differences, and unchanged pending entries cost nothing as XOR but are
//! stored again as values. Kept as an option with its tests so a core whose state has such
//! regions can try it (`rewind_bench --value-blocks`).
//!
//! Stored values do not undo, so a walk backward patches only the XOR blocks and then takes
//! the value blocks from the record of the frame it lands on, which must belong to the same
//! keyframe group as the records walked (the rewinder only plans such walks).

use crate::codec::{get_varint, put_varint};

/// Bytes per block. Eight 32-byte blocks per 256 bytes keeps the per-byte lookup cheap.
pub const BLOCK: usize = 32;
/// At most this many blocks (64 KiB) are stored by value in one group.
pub const MAX_BLOCKS: usize = 2048;

/// A set of blocks, as a bitmap (for lookups) and a sorted list (for iteration).
#[derive(Clone)]
pub struct RawBlocks {
    bits: Vec<u64>,
    list: Vec<u32>,
    /// Blocks in a state.
    limit: usize,
}

impl RawBlocks {
    pub fn new(state_len: usize) -> RawBlocks {
        RawBlocks {
            bits: vec![0; state_len.div_ceil(BLOCK).div_ceil(64)],
            list: Vec::with_capacity(MAX_BLOCKS),
            limit: state_len.div_ceil(BLOCK),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn clear(&mut self) {
        for &b in &self.list {
            self.bits[b as usize / 64] = 0;
        }
        self.list.clear();
    }

    /// Adds a block (in increasing order); false when full or out of range.
    pub fn push(&mut self, block: usize) -> bool {
        if self.list.len() >= MAX_BLOCKS
            || block >= self.limit
            || self.list.last().is_some_and(|&l| l as usize >= block)
        {
            return false;
        }
        self.bits[block / 64] |= 1 << (block % 64);
        self.list.push(block as u32);
        true
    }

    pub fn copy_from(&mut self, other: &RawBlocks) {
        self.clear();
        for &b in &other.list {
            self.push(b as usize);
        }
    }

    pub fn blocks(&self) -> impl Iterator<Item = usize> + '_ {
        self.list.iter().map(|&b| b as usize)
    }

    /// Whether byte `i` of the state lies in a stored-by-value block.
    #[inline]
    pub fn contains_byte(&self, i: usize) -> bool {
        let b = i / BLOCK;
        self.bits
            .get(b / 64)
            .is_some_and(|w| w & (1 << (b % 64)) != 0)
    }

    /// Whether any block overlapping bytes `start..end` is stored by value.
    #[inline]
    pub fn any_in(&self, start: usize, end: usize) -> bool {
        if self.list.is_empty() || start >= end {
            return false;
        }
        let (first, last) = (start / BLOCK, (end - 1) / BLOCK);
        (first..=last).any(|b| {
            self.bits
                .get(b / 64)
                .is_some_and(|w| w & (1 << (b % 64)) != 0)
        })
    }

    /// Count, then gaps between block numbers, as varints.
    pub fn write(&self, out: &mut Vec<u8>) {
        put_varint(out, self.list.len() as u64);
        let mut prev = 0u32;
        for &b in &self.list {
            put_varint(out, u64::from(b - prev));
            prev = b;
        }
    }

    /// Reads what `write` wrote, advancing `input`. None if malformed.
    pub fn read(&mut self, input: &mut &[u8]) -> Option<()> {
        self.clear();
        let n = get_varint(input)? as usize;
        if n > MAX_BLOCKS {
            return None;
        }
        let mut block = 0u64;
        for k in 0..n {
            let gap = get_varint(input)?;
            if k > 0 && gap == 0 {
                return None;
            }
            block = block.checked_add(gap)?;
            if !self.push(usize::try_from(block).ok()?) {
                return None;
            }
        }
        Some(())
    }
}

/// Rough coded size of a literal byte, in bits: entropy coding makes small values (the
/// typical XOR of a counter or coordinate) much cheaper than arbitrary ones, so comparing
/// counts of nonzero bytes would favour storing values too often.
#[inline]
fn byte_cost(b: u8) -> u32 {
    if b == 0 { 0 } else { 10 - b.leading_zeros() }
}

/// Per-block costs over a keyframe group, to choose the next group's value blocks.
pub struct BlockStats {
    /// Bytes that differed from the previous frame.
    xor_bytes: Vec<u32>,
    /// Nonzero bytes of the block in frames where it was touched.
    value_bytes: Vec<u32>,
    /// Frames in which the block was touched, and its nonzero bytes the last time.
    touched_frames: Vec<u32>,
    last_value_bytes: Vec<u8>,
    /// Frame stamp of the last touch, to count each block once per frame.
    stamp: Vec<u32>,
    /// Blocks touched in the current frame.
    touched: Vec<u32>,
    frames: u32,
}

impl BlockStats {
    pub fn new(state_len: usize) -> BlockStats {
        let n = state_len.div_ceil(BLOCK);
        BlockStats {
            xor_bytes: vec![0; n],
            value_bytes: vec![0; n],
            touched_frames: vec![0; n],
            last_value_bytes: vec![0; n],
            stamp: vec![u32::MAX; n],
            touched: Vec::with_capacity(n),
            frames: 0,
        }
    }

    pub fn reset(&mut self) {
        self.xor_bytes.fill(0);
        self.value_bytes.fill(0);
        self.touched_frames.fill(0);
        self.stamp.fill(u32::MAX);
        self.touched.clear();
        self.frames = 0;
    }

    /// Byte `i` of a literal, whose XOR against the previous frame is `xor`.
    #[inline]
    pub fn note(&mut self, i: usize, xor: u8) {
        let b = i / BLOCK;
        if self.stamp[b] != self.frames {
            self.stamp[b] = self.frames;
            self.touched.push(b as u32);
        }
        self.xor_bytes[b] += byte_cost(xor);
    }

    /// Ends a frame: counts the nonzero bytes of every touched block of `cur`.
    pub fn end_frame(&mut self, cur: &[u8]) {
        for &b in &self.touched {
            let b = b as usize;
            let end = ((b + 1) * BLOCK).min(cur.len());
            let cost: u32 = cur[b * BLOCK..end].iter().map(|&x| byte_cost(x)).sum();
            self.value_bytes[b] += cost;
            self.last_value_bytes[b] = cost.min(255) as u8;
            self.touched_frames[b] += 1;
        }
        self.touched.clear();
        self.frames = self.frames.wrapping_add(1);
    }

    /// The blocks whose value (stored every frame) was clearly cheaper than their XOR.
    pub fn choose(&self, out: &mut RawBlocks) {
        out.clear();
        if self.frames < 16 {
            return;
        }
        for b in 0..self.xor_bytes.len() {
            if self.touched_frames[b] == 0 {
                continue;
            }
            let untouched = u64::from(self.frames.saturating_sub(self.touched_frames[b]));
            let value =
                u64::from(self.value_bytes[b]) + untouched * u64::from(self.last_value_bytes[b]);
            let xor = u64::from(self.xor_bytes[b]);
            // A 20 % margin: value blocks cost bytes even in frames where nothing changed.
            if value * 5 < xor * 4 && !out.push(b) {
                break;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_round_trips_and_answers_lookups() {
        let mut set = RawBlocks::new(10_000);
        for b in [0, 3, 64, 65, 200, 312] {
            assert!(set.push(b));
        }
        assert!(!set.push(100), "out of order");
        assert!(!set.push(313), "out of range");
        let mut bytes = Vec::new();
        set.write(&mut bytes);
        let mut other = RawBlocks::new(10_000);
        other.read(&mut &bytes[..]).unwrap();
        assert_eq!(other.blocks().collect::<Vec<_>>(), [0, 3, 64, 65, 200, 312]);
        assert!(other.contains_byte(3 * 32 + 31));
        assert!(!other.contains_byte(4 * 32));
        assert!(other.any_in(4 * 32 - 1, 4 * 32 + 10));
        assert!(!other.any_in(4 * 32, 64 * 32));
    }
}
