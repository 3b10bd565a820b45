//! Per-group models that keyframes carry for the deltas after them, besides the Huffman
//! codes: a set of "hot" byte positions, and the expected per-frame step of known counters.
//!
//! Why: a delta changes a hundred or so scattered bytes, and the zero-run token headers
//! (gap and length varints) cost as much as the changed bytes themselves. Most of those
//! positions are the same every frame (game variables, timers, the CPU's registers), so:
//!
//! - **Hot positions.** A keyframe lists the byte offsets that changed in a good share of the
//!   previous group's deltas, sorted into [`CLASSES`] classes by how often. Every delta
//!   then starts with one difference byte per hot position, in list order, with no headers
//!   (a zero for an unchanged one, which its class's Huffman code makes cost about a bit),
//!   and only the other changes become zero-run tokens.
//! - **Counters.** Fields that advance by about the same amount every frame (the M-cycle and
//!   frame counters, the timer's system counter, the APU's clocks) change in two to four
//!   bytes per frame as a difference, differently each time as carries ripple. For those
//!   fields a delta stores, in place of the difference, the zigzag of
//!   `new - old - expected` (little-endian, wrapping at the field's width), where `expected`
//!   is the commonest step of the previous group. It is usually 0 or a small jitter, so
//!   mostly zero bytes. Addition is invertible at a known `old` or `new`, so a record still
//!   moves the state both ways.
//!
//! Both are learned from the group before the keyframe and decoded from the keyframe alone,
//! so any delta can be applied, forward or backward, with only its keyframe's metadata.
//! Nothing is trained offline and nothing here allocates after construction.

use crate::codec::{get_varint, put_varint};

mod counters;
mod mirror;

pub use counters::{CounterVotes, Counters, MAX_COUNTERS, STATE_COUNTERS};
pub use mirror::{MAX_MIRROR_LEN, Mirror, MirrorVotes, STATE_MIRROR};

/// Hot positions are split into this many classes, each with its own Huffman context.
pub const CLASSES: usize = 4;
/// A position becomes hot when it changed in at least this share of the group's deltas
/// (in 1/256), and falls in the first class whose bound it reaches.
const CLASS_MIN: [u32; CLASSES] = [240, 180, 120, 80];
/// At most this many hot positions per group (a delta carries one byte for each).
pub const MAX_HOT: usize = 2048;
/// Groups shorter than this many deltas choose no hot positions.
const MIN_FRAMES: u32 = 16;

/// Adds a hot byte, times `sign` (1 forward, 0xFF backward), at its position in `target`;
/// None where the position lies outside it. A delta's hot part is applied so, whether
/// stored raw (`HotSet::apply`) or decoded straight into the state.
#[inline(always)]
pub(crate) fn add_hot_byte(target: &mut [u8], position: u32, byte: u8, sign: u8) -> Option<()> {
    let t = target.get_mut(position as usize)?;
    *t = t.wrapping_add(byte.wrapping_mul(sign));
    Some(())
}

/// The hot positions of one keyframe group, class 0 (hottest) first, ascending offsets
/// within a class.
#[derive(Clone)]
pub struct HotSet {
    positions: Vec<u32>,
    /// `positions[..ends[0]]` is class 0, `positions[ends[c - 1]..ends[c]]` class `c`.
    ends: [usize; CLASSES],
}

impl Default for HotSet {
    fn default() -> HotSet {
        HotSet::new()
    }
}

impl HotSet {
    pub fn new() -> HotSet {
        HotSet {
            positions: Vec::with_capacity(MAX_HOT),
            ends: [0; CLASSES],
        }
    }

    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Cumulative class ends (the last is `len()`).
    pub fn ends(&self) -> &[usize; CLASSES] {
        &self.ends
    }

    pub fn clear(&mut self) {
        self.positions.clear();
        self.ends = [0; CLASSES];
    }

    pub fn copy_from(&mut self, other: &HotSet) {
        self.positions.clear();
        self.positions.extend_from_slice(&other.positions);
        self.ends = other.ends;
    }

    /// Per class: varint count; then per class, varint gaps between ascending offsets.
    pub fn write(&self, out: &mut Vec<u8>) {
        let mut start = 0;
        for &end in &self.ends {
            put_varint(out, (end - start) as u64);
            start = end;
        }
        let mut start = 0;
        for &end in &self.ends {
            let mut prev = 0u32;
            for &p in &self.positions[start..end] {
                put_varint(out, u64::from(p - prev));
                prev = p;
            }
            start = end;
        }
    }

    /// Reads what `write` wrote for a state of `state_len` bytes, advancing `input`.
    pub fn read(&mut self, input: &mut &[u8], state_len: usize) -> Option<()> {
        self.clear();
        let mut total = 0usize;
        for end in &mut self.ends {
            total = total.checked_add(usize::try_from(get_varint(input)?).ok()?)?;
            *end = total;
        }
        if total > MAX_HOT {
            return None;
        }
        let mut start = 0;
        for &end in &self.ends {
            let mut p = 0u64;
            for k in start..end {
                let gap = get_varint(input)?;
                if k > start && gap == 0 {
                    return None;
                }
                p = p.checked_add(gap)?;
                if p >= state_len as u64 {
                    return None;
                }
                self.positions.push(p as u32);
            }
            start = end;
        }
        Some(())
    }

    /// Appends the difference `cur - base` at each hot position to `out` and makes those
    /// bytes of `base` equal to `cur` (so the zero-run tokens that follow skip them).
    #[inline]
    pub fn gather(&self, base: &mut [u8], cur: &[u8], out: &mut Vec<u8>) {
        // One reservation for all of them (a push each checked the capacity).
        out.extend(self.positions.iter().map(|&p| {
            let p = p as usize;
            let x = cur[p].wrapping_sub(base[p]);
            base[p] = cur[p];
            x
        }));
    }

    /// Adds (`forward`) or subtracts the hot bytes of a record (as `gather` wrote them).
    #[inline]
    pub fn apply(&self, bytes: &[u8], target: &mut [u8], forward: bool) -> Option<()> {
        if bytes.len() != self.positions.len() {
            return None;
        }
        // Backward adds the negation: x * 0xFF is -x in wrapping bytes (no branch per byte).
        let sign = if forward { 1u8 } else { 0xFF };
        for (&p, &x) in self.positions.iter().zip(bytes) {
            add_hot_byte(target, p, x, sign)?;
        }
        Some(())
    }

    pub fn positions(&self) -> &[u32] {
        &self.positions
    }
}

/// How often each byte of the state changed during a keyframe group, to choose the next
/// group's hot positions.
pub struct ChangeCounts {
    counts: Vec<u16>,
    /// Changes at each position of the group's hot set, by index in it: a delta's hot bytes
    /// are counted here in one sequential pass (the positions are scattered over the
    /// state, and their counts in `counts` were a cache miss each), and added to `counts`
    /// at the keyframe (`fold_hot`).
    hot_hits: Vec<u16>,
    /// Bit `n`: some count in `counts[n * COUNTED_PAGE..]` may be non-zero (the last bit
    /// stands for everything from there on). Keyframes then scan and clear only those
    /// pages: a group changes a few pages of the state.
    pages: u64,
    frames: u32,
}

/// Counts per bit of `ChangeCounts::pages`.
const COUNTED_PAGE: usize = 4096;

impl ChangeCounts {
    pub fn new(state_len: usize) -> ChangeCounts {
        ChangeCounts {
            counts: vec![0; state_len],
            hot_hits: vec![0; MAX_HOT],
            pages: 0,
            frames: 0,
        }
    }

    pub fn reset(&mut self) {
        for range in self.page_ranges() {
            self.counts[range].fill(0);
        }
        self.hot_hits.fill(0);
        self.pages = 0;
        self.frames = 0;
    }

    /// The index ranges of `counts` that may hold non-zero counts, in order.
    fn page_ranges(&self) -> impl Iterator<Item = std::ops::Range<usize>> + use<> {
        let (pages, len) = (self.pages, self.counts.len());
        (0..64).filter(move |&n| pages >> n & 1 != 0).map(move |n| {
            let end = if n == 63 { len } else { (n + 1) * COUNTED_PAGE };
            (n * COUNTED_PAGE).min(len)..end.min(len)
        })
    }

    /// Byte `i`'s count.
    #[cfg(test)]
    pub fn count(&self, i: usize) -> u16 {
        self.counts[i]
    }

    /// Byte `i` differs in this delta (as coded: after the counter transform).
    #[cfg(test)]
    pub fn note(&mut self, i: usize) {
        self.add(i, 1);
    }

    /// The bytes of `range` (not empty) may change: marks their pages once, so that the
    /// changes in it can be counted in place (a literal's bytes, before `note_lanes`).
    #[inline]
    pub fn mark(&mut self, range: std::ops::Range<usize>) {
        let first = (range.start / COUNTED_PAGE).min(63);
        let last = ((range.end - 1) / COUNTED_PAGE).min(63);
        self.pages |= (u64::MAX >> (63 - last)) & (u64::MAX << first);
    }

    /// Counts the bytes from `start` on whose difference in `differences` is not zero
    /// (a literal's bytes), marking their pages once.
    #[inline]
    pub fn note_differences(&mut self, start: usize, differences: &[u8]) {
        if differences.is_empty() {
            return;
        }
        let end = start + differences.len();
        self.mark(start..end);
        for (count, &x) in self.counts[start..end].iter_mut().zip(differences) {
            *count = count.saturating_add(u16::from(x != 0));
        }
    }

    /// `note_differences` of `differences` at `start`, in fixed-size lanes (lanes past a
    /// literal hold zero); the pages are marked by `mark`. The state must reach
    /// `LANES` bytes past `start`.
    #[inline(always)]
    pub fn note_lanes<const LANES: usize>(&mut self, start: usize, differences: &[u8; LANES]) {
        let counts: &mut [u16; LANES] = (&mut self.counts[start..start + LANES])
            .try_into()
            .expect("lanes");
        // An indexed loop without branches: it vectorises.
        for k in 0..LANES {
            counts[k] = counts[k].saturating_add(u16::from(differences[k] != 0));
        }
    }

    /// Adds `changes` to byte `i`'s count.
    #[inline]
    fn add(&mut self, i: usize, changes: u16) {
        self.counts[i] = self.counts[i].saturating_add(changes);
        self.pages |= 1 << (i / COUNTED_PAGE).min(63);
    }

    /// Counts the nonzero hot bytes of a delta (those never reach the tokeniser), `bytes`
    /// in the order of the group's hot set.
    #[inline]
    pub fn note_hot(&mut self, bytes: &[u8]) {
        for (hits, &x) in self.hot_hits.iter_mut().zip(bytes) {
            *hits = hits.saturating_add(u16::from(x != 0));
        }
    }

    /// Adds the hot bytes' counts (`note_hot`, for the group's hot set `hot`) to the
    /// positions' counts, as if each change had been noted there: call it before `choose`.
    pub fn fold_hot(&mut self, hot: &HotSet) {
        let len = self.hot_hits.len();
        for (n, &p) in hot.positions.iter().enumerate().take(len) {
            let hits = std::mem::take(&mut self.hot_hits[n]);
            if hits != 0 {
                self.add(p as usize, hits);
            }
        }
    }

    pub fn end_frame(&mut self) {
        self.frames = self.frames.saturating_add(1);
    }

    /// The positions that changed often enough, by class, skipping those `excluded` says.
    /// Two passes over the counts (sizes, then places), at keyframes only.
    pub fn choose(&self, out: &mut HotSet, excluded: impl Fn(usize) -> bool) {
        out.clear();
        let frames = self.frames.min(u32::from(u16::MAX));
        if frames < MIN_FRAMES {
            return;
        }
        let class_of = |count: u16| {
            let share = u32::from(count) * 256 / frames;
            CLASS_MIN.iter().position(|&min| share >= min)
        };
        // The smallest count that makes any class, to skip the rest cheaply.
        let min_count = (CLASS_MIN[CLASSES - 1] * frames).div_ceil(256).max(1);
        let min_count = u16::try_from(min_count).unwrap_or(u16::MAX);
        let mut sizes = [0usize; CLASSES];
        self.for_each_at_least(min_count, |i, c| {
            if let Some(class) = class_of(c)
                && !excluded(i)
            {
                sizes[class] += 1;
            }
        });
        // Hottest classes first within the cap.
        let mut room = MAX_HOT;
        for size in &mut sizes {
            *size = (*size).min(room);
            room -= *size;
        }
        let mut next = [0usize; CLASSES];
        let mut total = 0;
        for (class, &size) in sizes.iter().enumerate() {
            next[class] = total;
            total += size;
            out.ends[class] = total;
        }
        out.positions.resize(total, 0);
        self.for_each_at_least(min_count, |i, c| {
            if let Some(class) = class_of(c)
                && next[class] < out.ends[class]
                && !excluded(i)
            {
                out.positions[next[class]] = i as u32;
                next[class] += 1;
            }
        });
    }

    /// Calls `f(position, count)` for each count of at least `min`, in position order. Most
    /// counts of the pages a group changed are below any class: 16 of them are looked at as
    /// one maximum (a few vector instructions) and passed over together, not one by one.
    fn for_each_at_least(&self, min: u16, mut f: impl FnMut(usize, u16)) {
        const LANES: usize = 16;
        for range in self.page_ranges() {
            let mut at = range.start;
            let mut chunks = self.counts[range].chunks_exact(LANES);
            for chunk in &mut chunks {
                let chunk: &[u16; LANES] = chunk.try_into().expect("a chunk");
                if chunk.iter().fold(0, |m, &c| m.max(c)) >= min {
                    for (k, &c) in chunk.iter().enumerate() {
                        if c >= min {
                            f(at + k, c);
                        }
                    }
                }
                at += LANES;
            }
            for (k, &c) in chunks.remainder().iter().enumerate() {
                if c >= min {
                    f(at + k, c);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marked_literals_are_chosen_and_cleared() {
        // A literal crossing the end of a counted page, and one at the end of the state.
        let len = 3 * COUNTED_PAGE;
        let mut counts = ChangeCounts::new(len);
        for _ in 0..32 {
            counts.note_differences(COUNTED_PAGE - 2, &[1, 0, 0, 0, 0xFF]);
            counts.note_differences(len - 1, &[7]);
            counts.end_frame();
        }
        let mut set = HotSet::new();
        counts.choose(&mut set, |_| false);
        let page = COUNTED_PAGE as u32;
        assert_eq!(set.positions(), [page - 2, page + 2, 3 * page - 1]);
        counts.reset();
        for _ in 0..32 {
            counts.end_frame();
        }
        counts.choose(&mut set, |_| false);
        assert!(set.positions().is_empty(), "every marked page cleared");
    }

    #[test]
    fn counts_at_least_a_minimum_match_a_walk_one_by_one() {
        // A state whose length ends inside a chunk of counts, pages marked or not, and
        // counts around the minimum at every place in a chunk.
        let len = 5 * COUNTED_PAGE + 37;
        let mut rng = backspin_test_support::SplitMix64::new(34);
        for round in 0..40 {
            let mut counts = ChangeCounts::new(len);
            for _ in 0..rng.range(1, 300) {
                let i = rng.range(0, len as u64 - 1) as usize;
                for _ in 0..rng.range(1, 12) {
                    counts.note(i);
                }
            }
            let min = rng.range(1, 12) as u16;
            let mut found = Vec::new();
            counts.for_each_at_least(min, |i, c| found.push((i, c)));
            let walk: Vec<(usize, u16)> = counts
                .page_ranges()
                .flat_map(|range| range.clone().zip(counts.counts[range].iter().copied()))
                .filter(|&(_, c)| c >= min)
                .collect();
            assert_eq!(found, walk, "round {round}");
        }
    }

    #[test]
    fn hot_set_round_trips_and_orders_by_class() {
        let mut counts = ChangeCounts::new(1000);
        for f in 0..100u32 {
            counts.note(5);
            if f % 10 != 0 {
                counts.note(900);
                counts.note(7);
            }
            if f % 3 == 0 {
                counts.note(6);
            }
            if f % 50 == 0 {
                counts.note(8);
            }
            counts.end_frame();
        }
        let mut set = HotSet::new();
        counts.choose(&mut set, |i| i == 7);
        // 5 every frame, 900 in 90 % of them, 6 in a third, 8 twice; 7 excluded.
        assert_eq!(set.positions(), [5, 900, 6]);
        assert_eq!(set.ends(), &[1, 2, 2, 3]);
        let mut bytes = Vec::new();
        set.write(&mut bytes);
        let mut back = HotSet::new();
        back.read(&mut &bytes[..], 1000).unwrap();
        assert_eq!(back.positions(), set.positions());
        assert_eq!(back.ends(), set.ends());
        assert!(back.read(&mut &bytes[..], 900).is_none(), "out of range");
    }
}
