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

/// Hot positions are split into this many classes, each with its own Huffman context.
pub const CLASSES: usize = 4;
/// A position becomes hot when it changed in at least this share of the group's deltas
/// (in 1/256), and falls in the first class whose bound it reaches.
const CLASS_MIN: [u32; CLASSES] = [240, 180, 120, 80];
/// At most this many hot positions per group (a delta carries one byte for each).
pub const MAX_HOT: usize = 2048;
/// Groups shorter than this many deltas choose no hot positions.
const MIN_FRAMES: u32 = 16;

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
            let t = target.get_mut(p as usize)?;
            *t = t.wrapping_add(x.wrapping_mul(sign));
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
        let candidates = || {
            self.page_ranges()
                .flat_map(|range| range.clone().zip(&self.counts[range]))
                .filter(move |&(_, &c)| c >= min_count)
                .filter_map(move |(i, &c)| class_of(c).map(|class| (i, class)))
        };
        let mut sizes = [0usize; CLASSES];
        for (i, class) in candidates() {
            if !excluded(i) {
                sizes[class] += 1;
            }
        }
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
        for (i, class) in candidates() {
            if next[class] < out.ends[class] && !excluded(i) {
                out.positions[next[class]] = i as u32;
                next[class] += 1;
            }
        }
    }
}

const fn field(offset: usize, width: usize) -> CounterField {
    CounterField { offset, width }
}

/// A little-endian unsigned field of the state that counts up (or down) steadily.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CounterField {
    pub offset: usize,
    /// 2, 4 or 8 bytes.
    pub width: usize,
}

/// The counters of [`backspin_core::State`] that advance by about the same amount every
/// frame (found on the homebrew ROMs' deltas, see `Counters`); offsets come from the layout.
pub const STATE_COUNTERS: [CounterField; 6] = {
    use backspin_core::State;
    use backspin_core::state::HwState;
    use backspin_core::state::TimerState;
    use backspin_core::state::{ApuState, SynthState};
    use std::mem::offset_of;
    let hw = offset_of!(State, hw);
    let apu = hw + offset_of!(HwState, apu);
    let synth = apu + offset_of!(ApuState, synth);
    [
        field(hw + offset_of!(HwState, m_cycles), 8),
        field(hw + offset_of!(HwState, frames), 8),
        field(
            hw + offset_of!(HwState, timer) + offset_of!(TimerState, system_counter),
            2,
        ),
        field(apu + offset_of!(ApuState, flush_clock), 4),
        field(synth + offset_of!(SynthState, offset_ticks), 4),
        field(synth + offset_of!(SynthState, head), 4),
    ]
};

/// At most this many counter fields.
pub const MAX_COUNTERS: usize = 16;

#[inline]
fn mask(width: usize) -> u64 {
    if width >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * width)) - 1
    }
}

/// The field's value (the common widths without a variable-length copy: every delta applied
/// in a seek reads and writes each counter).
#[inline]
fn read_le(bytes: &[u8], field: CounterField) -> u64 {
    let at = field.offset;
    match field.width {
        2 => u64::from(u16::from_le_bytes([bytes[at], bytes[at + 1]])),
        4 => u64::from(u32::from_le_bytes(
            bytes[at..at + 4].try_into().expect("4 bytes"),
        )),
        8 => u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes")),
        width => {
            let mut word = [0u8; 8];
            word[..width].copy_from_slice(&bytes[at..at + width]);
            u64::from_le_bytes(word)
        }
    }
}

#[inline]
fn write_le(bytes: &mut [u8], field: CounterField, value: u64) {
    let at = field.offset;
    match field.width {
        2 => bytes[at..at + 2].copy_from_slice(&(value as u16).to_le_bytes()),
        4 => bytes[at..at + 4].copy_from_slice(&(value as u32).to_le_bytes()),
        8 => bytes[at..at + 8].copy_from_slice(&value.to_le_bytes()),
        width => bytes[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]),
    }
}

/// The 8 bytes at `at` as a little-endian word, if they lie within `bytes`.
#[inline(always)]
fn word_at(bytes: &[u8], at: usize) -> Option<u64> {
    let window: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(window))
}

/// Byte-by-byte wrapping `a - b` (no borrows between bytes), as the patches apply it: each
/// byte's top bit is set in `a` and cleared in `b` so no borrow leaves it, then fixed up.
#[inline]
fn bytewise_sub(a: u64, b: u64) -> u64 {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    ((a | HIGH).wrapping_sub(b & !HIGH)) ^ ((a ^ !b) & HIGH)
}

/// Zigzag at a width: small positive and negative differences become small numbers.
#[inline]
fn zigzag(value: u64, width: usize) -> u64 {
    let bits = 8 * width as u32;
    let signed = ((value << (64 - bits)) as i64) >> (64 - bits);
    (((signed << 1) ^ (signed >> 63)) as u64) & mask(width)
}

#[inline]
fn unzigzag(value: u64, width: usize) -> u64 {
    ((value >> 1) ^ (value & 1).wrapping_neg()) & mask(width)
}

/// The counter fields of one keyframe group and the step each is expected to make.
#[derive(Clone)]
pub struct Counters {
    fields: [CounterField; MAX_COUNTERS],
    len: usize,
    /// Per field: the expected step, or None when the field is coded as plain XOR.
    expected: [Option<u64>; MAX_COUNTERS],
    /// Per field: its width's mask (`mask`), kept for the capture's 8-byte loads.
    masks: [u64; MAX_COUNTERS],
}

impl Counters {
    /// The fields of `list` that lie inside a state of `state_len` bytes, none enabled yet.
    pub fn new(list: &[CounterField], state_len: usize) -> Counters {
        let mut counters = Counters {
            fields: [CounterField {
                offset: 0,
                width: 8,
            }; MAX_COUNTERS],
            len: 0,
            expected: [None; MAX_COUNTERS],
            masks: [u64::MAX; MAX_COUNTERS],
        };
        for &field in list {
            if counters.len < MAX_COUNTERS
                && matches!(field.width, 1..=8)
                && field.offset + field.width <= state_len
            {
                counters.fields[counters.len] = field;
                counters.masks[counters.len] = mask(field.width);
                counters.len += 1;
            }
        }
        counters
    }

    pub fn disable_all(&mut self) {
        self.expected = [None; MAX_COUNTERS];
    }

    /// The bytes of every field, enabled or not (those a delta's encoding may rewrite in
    /// its base).
    pub fn regions(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        self.fields[..self.len]
            .iter()
            .map(|f| f.offset..f.offset + f.width)
    }

    pub fn copy_from(&mut self, other: &Counters) {
        self.expected = other.expected;
    }

    /// Per field: 0 when plain XOR, else 1 + the expected step (varints).
    pub fn write(&self, out: &mut Vec<u8>) {
        put_varint(out, self.len as u64);
        for e in &self.expected[..self.len] {
            put_varint(out, e.map_or(0, |e| e.wrapping_add(1)));
        }
    }

    pub fn read(&mut self, input: &mut &[u8]) -> Option<()> {
        let n = get_varint(input)? as usize;
        if n != self.len {
            return None;
        }
        for k in 0..n {
            let v = get_varint(input)?;
            self.expected[k] = if v == 0 {
                None
            } else {
                let e = v.wrapping_sub(1);
                (e <= mask(self.fields[k].width)).then_some(e)?;
                Some(e)
            };
        }
        Some(())
    }

    /// Encoding a delta from `base` to `cur`: votes the true steps into `votes`, then
    /// rewrites each enabled field of `base` so that `cur - base` there, byte by byte, is the
    /// coded step.
    ///
    /// Each field is read as one 8-byte load, masked to its width, and written back in the
    /// same window with the bytes past the field as they were: every capture codes every
    /// counter, and reading a field by its width went through a match on it each time. A
    /// field whose window passes the state's end takes the general path.
    #[inline]
    pub fn encode(&self, base: &mut [u8], cur: &[u8], votes: &mut CounterVotes) {
        for k in 0..self.len {
            let at = self.fields[k].offset;
            let (Some(old_window), Some(new_window)) = (word_at(base, at), word_at(cur, at)) else {
                self.encode_field(k, base, cur, votes);
                continue;
            };
            let m = self.masks[k];
            let (old, new) = (old_window & m, new_window & m);
            let step = new.wrapping_sub(old) & m;
            votes.vote(k, step);
            if let Some(e) = self.expected[k] {
                // `zigzag` at the field's width: its top bit is the sign.
                let unused = m.leading_zeros();
                let signed = ((step.wrapping_sub(e) << unused) as i64) >> unused;
                let coded = (((signed << 1) ^ (signed >> 63)) as u64) & m;
                let window = (old_window & !m) | (bytewise_sub(new, coded) & m);
                base[at..at + 8].copy_from_slice(&window.to_le_bytes());
            }
        }
    }

    /// `encode` of field `k` read and written at its width (a field near the state's end).
    #[cold]
    #[inline(never)]
    fn encode_field(&self, k: usize, base: &mut [u8], cur: &[u8], votes: &mut CounterVotes) {
        let f = self.fields[k];
        let (old, new) = (read_le(base, f), read_le(cur, f));
        let step = new.wrapping_sub(old) & mask(f.width);
        votes.vote(k, step);
        if let Some(e) = self.expected[k] {
            let coded = zigzag(step.wrapping_sub(e) & mask(f.width), f.width);
            write_le(base, f, bytewise_sub(new, coded));
        }
    }

    /// Before patching: the enabled fields' values.
    #[inline]
    pub fn save(&self, target: &[u8], saved: &mut [u64; MAX_COUNTERS]) -> Option<()> {
        let fields = self.fields.iter().zip(&self.expected).take(self.len);
        for ((&f, expected), slot) in fields.zip(saved.iter_mut()) {
            if expected.is_some() {
                target.get(f.offset..f.offset + f.width)?;
                *slot = read_le(target, f);
            }
        }
        Some(())
    }

    /// After patching `target` (byte by byte, adding forward, subtracting backward): turns
    /// each enabled field's coded step back into the value one frame later (`forward`) or
    /// earlier.
    #[inline]
    pub fn finish(&self, saved: &[u64; MAX_COUNTERS], target: &mut [u8], forward: bool) {
        let fields = self.fields.iter().zip(&self.expected).take(self.len);
        for ((&f, &expected), &old) in fields.zip(saved) {
            if let Some(e) = expected {
                let now = read_le(target, f);
                let coded = if forward {
                    bytewise_sub(now, old)
                } else {
                    bytewise_sub(old, now)
                };
                let step = unzigzag(coded, f.width).wrapping_add(e);
                let value = if forward {
                    old.wrapping_add(step)
                } else {
                    old.wrapping_sub(step)
                };
                write_le(target, f, value & mask(f.width));
            }
        }
    }
}

/// The commonest step of each counter over a group (Boyer–Moore majority vote: exact when
/// one step is taken in more than half the frames, which is the case that pays).
#[derive(Clone, Default)]
pub struct CounterVotes {
    candidate: [u64; MAX_COUNTERS],
    weight: [u32; MAX_COUNTERS],
}

impl CounterVotes {
    pub fn reset(&mut self) {
        *self = CounterVotes::default();
    }

    #[inline]
    fn vote(&mut self, k: usize, step: u64) {
        if self.weight[k] == 0 {
            self.candidate[k] = step;
            self.weight[k] = 1;
        } else if self.candidate[k] == step {
            self.weight[k] += 1;
        } else {
            self.weight[k] -= 1;
        }
    }

    /// The next group's counters: every field enabled with its commonest step.
    pub fn choose(&self, out: &mut Counters) {
        for k in 0..out.len {
            out.expected[k] = Some(self.candidate[k] & mask(out.fields[k].width));
        }
    }
}

/// A region whose new value is usually a copy of another region's *old* value, and the
/// candidate places for that other region. On the Game Boy this is OAM: nearly every game
/// copies a shadow page of WRAM into OAM by DMA during VBlank, before updating the shadow
/// for the next frame, so OAM after frame t usually equals the shadow after frame t-1.
/// Coded as a difference from the old shadow,
/// OAM costs nothing while the copy holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MirrorSpec {
    pub target: usize,
    pub len: usize,
    /// Candidate sources: `first_source + k * step` for `k < sources`.
    pub first_source: usize,
    pub step: usize,
    pub sources: usize,
}

/// OAM, copied from one of the 32 pages of WRAM (the DMA source must be page-aligned).
pub const STATE_MIRROR: MirrorSpec = {
    use backspin_core::State;
    use backspin_core::state::HwState;
    use std::mem::offset_of;
    let hw = offset_of!(State, hw);
    MirrorSpec {
        target: hw + offset_of!(HwState, oam),
        len: 160,
        first_source: hw + offset_of!(HwState, wram),
        step: 0x100,
        sources: 32,
    }
};

/// Longest mirrored region (a stack buffer holds it while a patch is undone).
pub const MAX_MIRROR_LEN: usize = 256;
/// At most this many candidate sources.
const MAX_SOURCES: usize = 64;
/// Every this many deltas, the encoder checks which source OAM copied.
const VOTE_EVERY: u32 = 16;

/// How many bytes of `a` equal the byte at the same place in `b` (over the shorter), 32 at a
/// time: a vote compares the region with every candidate source. Each lane counts its equal
/// bytes in a byte of its own (compares and subtracts, no per-byte sum), added up after at
/// most 255 steps.
#[inline]
fn equal_bytes(a: &[u8], b: &[u8]) -> usize {
    const LANES: usize = 32;
    const STEPS: usize = u8::MAX as usize;
    let len = a.len().min(b.len());
    let whole = len / LANES * LANES;
    let (a, b) = (&a[..len], &b[..len]);
    let mut equal = 0;
    let chunks = a[..whole].chunks(STEPS * LANES);
    for (a, b) in chunks.zip(b[..whole].chunks(STEPS * LANES)) {
        let mut counts = [0u8; LANES];
        for (x, y) in a.chunks_exact(LANES).zip(b.chunks_exact(LANES)) {
            let x: &[u8; LANES] = x.try_into().expect("lanes");
            let y: &[u8; LANES] = y.try_into().expect("lanes");
            for k in 0..LANES {
                counts[k] = counts[k].wrapping_add(u8::from(x[k] == y[k]));
            }
        }
        equal += counts.iter().map(|&c| usize::from(c)).sum::<usize>();
    }
    let tail = a[whole..].iter().zip(&b[whole..]);
    equal + tail.filter(|(x, y)| x == y).count()
}

/// The mirror of one keyframe group: the region's source, if the group uses one.
#[derive(Clone, Copy, Debug)]
pub struct Mirror {
    spec: Option<MirrorSpec>,
    source: Option<usize>,
    /// Against the source's new value rather than its old one: with thinned capture (every
    /// k-th frame) OAM is the shadow of the frame before, which is much closer to the new
    /// shadow than to the one k frames ago.
    from_new: bool,
}

impl Mirror {
    /// `spec` if it fits a state of `state_len` bytes, not in use yet.
    pub fn new(spec: MirrorSpec, state_len: usize) -> Mirror {
        let last_source = spec.first_source + spec.step * spec.sources.saturating_sub(1);
        let fits = spec.len <= MAX_MIRROR_LEN
            && spec.sources <= MAX_SOURCES
            && spec.target + spec.len <= state_len
            && last_source + spec.len <= state_len
            && (spec.target + spec.len <= spec.first_source
                || last_source + spec.len <= spec.target);
        Mirror {
            spec: fits.then_some(spec),
            source: None,
            from_new: false,
        }
    }

    /// Whether the region is coded against the source's new value (else its old value).
    #[inline]
    pub fn codes_from_new(&self) -> bool {
        self.from_new
    }

    /// The mirrored region, in use or not (a delta's encoding may rewrite it in its base).
    pub fn target_region(&self) -> Option<std::ops::Range<usize>> {
        self.spec.map(|spec| spec.target..spec.target + spec.len)
    }

    /// (target, source, len) while in use.
    #[inline]
    pub fn range(&self) -> Option<(usize, usize, usize)> {
        let spec = self.spec?;
        self.source.map(|source| (spec.target, source, spec.len))
    }

    pub fn clear(&mut self) {
        self.source = None;
    }

    pub fn copy_from(&mut self, other: &Mirror) {
        self.source = other.source;
        self.from_new = other.from_new;
    }

    /// 0 when unused, else 1 + 2 × the candidate's number + 1 when against the new value.
    pub fn write(&self, out: &mut Vec<u8>) {
        let k = match (self.spec, self.source) {
            (Some(spec), Some(source)) => {
                1 + 2 * ((source - spec.first_source) / spec.step) + usize::from(self.from_new)
            }
            _ => 0,
        };
        put_varint(out, k as u64);
    }

    pub fn read(&mut self, input: &mut &[u8]) -> Option<()> {
        let k = get_varint(input)? as usize;
        self.source = None;
        self.from_new = false;
        if k > 0 {
            let spec = self.spec?;
            let (page, from_new) = ((k - 1) / 2, (k - 1) % 2 == 1);
            if page >= spec.sources {
                return None;
            }
            self.source = Some(spec.first_source + page * spec.step);
            self.from_new = from_new;
        }
        Some(())
    }

    /// Encoding: makes `base`'s region equal to its source's old (or new) value, so that the
    /// delta codes `cur - source` there (0 while the copy holds).
    #[inline]
    pub fn encode(&self, base: &mut [u8], cur: &[u8]) {
        if let Some((target, source, len)) = self.range() {
            if self.from_new {
                base[target..target + len].copy_from_slice(&cur[source..source + len]);
            } else {
                base.copy_within(source..source + len, target);
            }
        }
    }
}

/// Per candidate source: region bytes equal to it over a group (sampled), and the bytes
/// that simply stayed the same (the cost of not mirroring).
pub struct MirrorVotes {
    spec: Option<MirrorSpec>,
    matches: [u32; MAX_SOURCES],
    matches_new: [u32; MAX_SOURCES],
    unchanged: u32,
    calls: u32,
}

impl MirrorVotes {
    pub fn new(mirror: &Mirror) -> MirrorVotes {
        MirrorVotes {
            spec: mirror.spec,
            matches: [0; MAX_SOURCES],
            matches_new: [0; MAX_SOURCES],
            unchanged: 0,
            calls: 0,
        }
    }

    pub fn reset(&mut self) {
        self.matches = [0; MAX_SOURCES];
        self.matches_new = [0; MAX_SOURCES];
        self.unchanged = 0;
        self.calls = 0;
    }

    /// A delta from `base` to `cur` (before anything rewrote `base`).
    #[inline]
    pub fn vote(&mut self, base: &[u8], cur: &[u8]) {
        let Some(spec) = self.spec else { return };
        self.calls = self.calls.wrapping_add(1);
        if !self.calls.is_multiple_of(VOTE_EVERY) {
            return;
        }
        let region = &cur[spec.target..spec.target + spec.len];
        let same = |other: &[u8]| equal_bytes(region, other);
        self.unchanged += same(&base[spec.target..spec.target + spec.len]) as u32;
        for k in 0..spec.sources {
            let source = spec.first_source + k * spec.step;
            self.matches[k] += same(&base[source..source + spec.len]) as u32;
            self.matches_new[k] += same(&cur[source..source + spec.len]) as u32;
        }
    }

    /// The next group's mirror: the best source, if it matched clearly more bytes than
    /// leaving the region as plain deltas would.
    pub fn choose(&self, out: &mut Mirror) {
        out.source = None;
        out.from_new = false;
        let Some(spec) = self.spec else { return };
        // Old values first: on a tie the plain copy wins.
        let best = (0..2 * spec.sources).max_by_key(|&j| {
            let (k, from_new) = (j % spec.sources, j >= spec.sources);
            let m = if from_new {
                self.matches_new[k]
            } else {
                self.matches[k]
            };
            (m, std::cmp::Reverse(j))
        });
        if let Some(j) = best {
            let (k, from_new) = (j % spec.sources, j >= spec.sources);
            let m = u64::from(if from_new {
                self.matches_new[k]
            } else {
                self.matches[k]
            });
            if m > 0 && m * 16 > u64::from(self.unchanged) * 17 {
                out.source = Some(spec.first_source + k * spec.step);
                out.from_new = from_new;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_bytes_counts_like_a_byte_loop() {
        let mut rng = backspin_test_support::SplitMix64::new(3);
        for len in [
            0usize, 1, 7, 8, 9, 31, 32, 33, 160, 163, 8159, 8160, 8161, 9000,
        ] {
            let a: Vec<u8> = (0..len)
                .map(|_| [0u8, 1, 0x7F, 0x80][rng.range(0, 3) as usize])
                .collect();
            let b: Vec<u8> = (0..len + 2)
                .map(|_| [0u8, 1, 0x7F, 0x80][rng.range(0, 3) as usize])
                .collect();
            let expected = a.iter().zip(&b).filter(|(x, y)| x == y).count();
            assert_eq!(equal_bytes(&a, &b), expected, "len {len}");
        }
    }

    #[test]
    fn bytewise_sub_borrows_within_bytes_only() {
        let mut rng = backspin_test_support::SplitMix64::new(9);
        for _ in 0..1000 {
            let (a, b) = (rng.next_u64(), rng.next_u64());
            let (x, y) = (a.to_le_bytes(), b.to_le_bytes());
            let expected = u64::from_le_bytes(std::array::from_fn(|i| x[i].wrapping_sub(y[i])));
            assert_eq!(bytewise_sub(a, b), expected, "{a:#x} - {b:#x}");
        }
        assert_eq!(bytewise_sub(0, u64::MAX), 0x0101_0101_0101_0101);
    }

    #[test]
    fn zigzag_round_trips_at_every_width() {
        for width in [1, 2, 4, 8] {
            for v in [
                0u64,
                1,
                2,
                3,
                0x7F,
                0x80,
                0xFF,
                0xFFFF,
                u64::MAX,
                0x1234_5678_9ABC,
            ] {
                let v = v & mask(width);
                assert_eq!(unzigzag(zigzag(v, width), width), v, "{v:#x} at {width}");
            }
            assert_eq!(zigzag(mask(width), width), 1, "-1 codes as 1");
        }
    }

    #[test]
    fn counters_move_both_ways() {
        let list = [
            CounterField {
                offset: 0,
                width: 8,
            },
            CounterField {
                offset: 8,
                width: 2,
            },
        ];
        let mut counters = Counters::new(&list, 16);
        let mut votes = CounterVotes::default();
        let mut old = [0u8; 16];
        old[..8].copy_from_slice(&0xFFFF_FFF0u64.to_le_bytes());
        old[8..10].copy_from_slice(&0xFFF0u16.to_le_bytes());
        let mut new = old;
        new[..8].copy_from_slice(&(0xFFFF_FFF0u64 + 17_558).to_le_bytes());
        new[8..10].copy_from_slice(
            &0xFFF0u16
                .wrapping_add((70_000u32 % 65_536) as u16)
                .to_le_bytes(),
        );
        let mut base = old;
        counters.encode(&mut base, &new, &mut votes);
        votes.choose(&mut counters);
        counters.expected[0] = Some(17_556);
        let mut base = old;
        counters.encode(&mut base, &new, &mut votes);
        let coded: Vec<u8> = base
            .iter()
            .zip(&new)
            .map(|(a, b)| b.wrapping_sub(*a))
            .collect();
        assert_eq!(coded[..8], 4u64.to_le_bytes(), "zigzag(+2)");
        assert_eq!(coded[8..10], [0, 0], "the voted step");
        // Forward from old, backward from new.
        let mut saved = [0u64; MAX_COUNTERS];
        let mut x = old;
        counters.save(&x, &mut saved).unwrap();
        for (t, c) in x.iter_mut().zip(&coded) {
            *t = t.wrapping_add(*c);
        }
        counters.finish(&saved, &mut x, true);
        assert_eq!(x, new);
        counters.save(&x, &mut saved).unwrap();
        for (t, c) in x.iter_mut().zip(&coded) {
            *t = t.wrapping_sub(*c);
        }
        counters.finish(&saved, &mut x, false);
        assert_eq!(x, old);
    }

    #[test]
    fn counters_in_windows_code_as_at_their_width() {
        // Fields of every width, packed and overlapping each other's windows, the last ones
        // too near the end for a window (the general path).
        let mut list = Vec::new();
        let mut at = 0;
        for width in 1..=8 {
            list.push(CounterField { offset: at, width });
            at += width;
        }
        let len = at + 4;
        list.push(CounterField {
            offset: len - 5,
            width: 2,
        });
        list.push(CounterField {
            offset: len - 4,
            width: 4,
        });
        let mut rng = backspin_test_support::SplitMix64::new(5);
        for round in 0..2000 {
            let mut counters = Counters::new(&list, len);
            assert_eq!(counters.len, list.len());
            for k in 0..counters.len {
                let width = counters.fields[k].width;
                counters.expected[k] = (round % 3 != 0 || k % 2 == 0)
                    .then(|| (rng.next_u64() % 5) & mask(width))
                    .map(|e| if round % 7 == 0 { mask(width) - e } else { e });
            }
            let old: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            let mut new = old.clone();
            for b in new.iter_mut() {
                if rng.range(0, 3) == 0 {
                    *b = b.wrapping_add(rng.range(0, 3) as u8).wrapping_sub(1);
                }
            }
            let (mut fast, mut slow) = (old.clone(), old.clone());
            let (mut fast_votes, mut slow_votes) =
                (CounterVotes::default(), CounterVotes::default());
            counters.encode(&mut fast, &new, &mut fast_votes);
            for k in 0..counters.len {
                counters.encode_field(k, &mut slow, &new, &mut slow_votes);
            }
            assert_eq!(fast, slow, "round {round}");
            assert_eq!(fast_votes.candidate, slow_votes.candidate, "round {round}");
            assert_eq!(fast_votes.weight, slow_votes.weight, "round {round}");
        }
    }

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
