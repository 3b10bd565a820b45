//! The snapshot ring: one pre-allocated byte buffer filled from both ends.
//!
//! Record bytes grow upward from offset 0; fixed 8-byte index entries (`u32` record offset,
//! `u32` frame relative to the ring's base frame) grow downward from the top. A record's
//! length is the next entry's offset minus its own (or the generation's data end), so the
//! index needs no length field; kind and checksum live in the record header (`codec`).
//!
//! Two generations share the buffer. The *current* one (`cur`) is being written; the
//! *older* one (`old`) is what the current one has not yet overwritten. Entry slot `j` of
//! either generation sits at `top - 8 * (j + 1)`, and record data of both starts at 0, so
//! writing the current generation eats the older one from its oldest end on both sides:
//! older entry `j` stays valid only while `j >= cur.count` (its index slot is untouched)
//! and its record starts at or above `cur.data_end` (its bytes are untouched). Because an
//! older generation's data ended below its own index, the current index never reaches an
//! older record that is still valid. When a record does not fit between the current
//! generation's data and index, the current generation becomes the older one and a new
//! current one starts at the bottom again. Nothing is allocated after `Ring::new`.
//!
//! Logical order (oldest first): older entries `old.first..old.count`, then current entries
//! `0..cur.count`. Frames are non-decreasing in that order.

const ENTRY: usize = 8;

#[derive(Clone, Copy, Debug, Default)]
struct Generation {
    /// Entries written (slots `0..count`).
    count: usize,
    /// First entry still valid (always 0 for the current generation).
    first: usize,
    /// End of the last record's bytes.
    data_end: usize,
}

/// Where a logical record lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordRef {
    pub offset: usize,
    pub len: usize,
    pub frame: u64,
}

pub struct Ring {
    buf: Vec<u8>,
    cur: Generation,
    old: Generation,
    /// Frames are stored as `u32` relative to this.
    base_frame: u64,
    /// Records dropped because the ring was full (for statistics).
    pub evicted: u64,
    /// Times the current generation restarted at the bottom.
    pub wraps: u64,
}

/// A record could not be stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PushError {
    /// The record plus its entry is larger than the whole buffer.
    TooLarge,
    /// The frame is more than `u32::MAX` past the base frame or before it.
    FrameOutOfRange,
}

impl Ring {
    /// The largest capacity: record offsets are `u32`.
    pub const MAX_CAPACITY: usize = u32::MAX as usize / ENTRY * ENTRY;

    /// A ring of `capacity` bytes (at most [`Ring::MAX_CAPACITY`]; larger is clamped).
    /// The buffer is zero-allocated, so the OS maps pages only as history reaches them: a
    /// large budget costs memory only once it is used. (Each first write to a page takes a
    /// page fault inside a capture: about one per 4 KiB of history, a few per second.)
    pub fn new(capacity: usize) -> Ring {
        // Round down to whole entries so slot arithmetic stays aligned to the top.
        let capacity = capacity.min(Ring::MAX_CAPACITY) / ENTRY * ENTRY;
        let buf = vec![0; capacity];
        Ring {
            buf,
            cur: Generation::default(),
            old: Generation::default(),
            base_frame: 0,
            evicted: 0,
            wraps: 0,
        }
    }

    pub fn capacity(&self) -> usize {
        self.buf.len()
    }

    pub fn clear(&mut self) {
        self.cur = Generation::default();
        self.old = Generation::default();
    }

    /// Number of valid records.
    pub fn len(&self) -> usize {
        self.old_valid() + self.cur.count
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn old_valid(&self) -> usize {
        self.old.count - self.old.first
    }

    /// Bytes held by valid records and their entries.
    pub fn used_bytes(&self) -> usize {
        let old_data = if self.old_valid() > 0 {
            self.old.data_end - self.entry(self.old.first).0
        } else {
            0
        };
        old_data + self.cur.data_end + ENTRY * self.len()
    }

    fn slot(&self, j: usize) -> usize {
        self.buf.len() - ENTRY * (j + 1)
    }

    /// (offset, relative frame) of slot `j`.
    fn entry(&self, j: usize) -> (usize, u32) {
        let s = self.slot(j);
        let offset = u32::from_le_bytes(self.buf[s..s + 4].try_into().expect("4"));
        let frame = u32::from_le_bytes(self.buf[s + 4..s + 8].try_into().expect("4"));
        (offset as usize, frame)
    }

    fn write_entry(&mut self, j: usize, offset: usize, frame: u32) {
        let s = self.slot(j);
        self.buf[s..s + 4].copy_from_slice(&(offset as u32).to_le_bytes());
        self.buf[s + 4..s + 8].copy_from_slice(&frame.to_le_bytes());
    }

    /// Logical index → (generation is current, slot).
    fn locate(&self, i: usize) -> (bool, usize) {
        let old_valid = self.old_valid();
        if i < old_valid {
            (false, self.old.first + i)
        } else {
            (true, i - old_valid)
        }
    }

    pub fn get(&self, i: usize) -> RecordRef {
        debug_assert!(i < self.len());
        let (current, j) = self.locate(i);
        let generation = if current { self.cur } else { self.old };
        let (offset, frame) = self.entry(j);
        let end = if j + 1 < generation.count {
            self.entry(j + 1).0
        } else {
            generation.data_end
        };
        RecordRef {
            offset,
            len: end - offset,
            frame: self.base_frame + u64::from(frame),
        }
    }

    pub fn frame(&self, i: usize) -> u64 {
        let (_, j) = self.locate(i);
        self.base_frame + u64::from(self.entry(j).1)
    }

    pub fn bytes(&self, record: RecordRef) -> &[u8] {
        &self.buf[record.offset..record.offset + record.len]
    }

    pub fn record(&self, i: usize) -> &[u8] {
        self.bytes(self.get(i))
    }

    /// Index of the first record whose frame is `> frame` (binary search).
    pub fn partition_after(&self, frame: u64) -> usize {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.frame(mid) <= frame {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    /// Index of the first record whose frame is `>= frame`.
    pub fn partition_before(&self, frame: u64) -> usize {
        match frame.checked_sub(1) {
            Some(f) => self.partition_after(f),
            None => 0,
        }
    }

    /// Appends a record, evicting the oldest ones as needed. Returns how many were evicted.
    pub fn push(&mut self, frame: u64, record: &[u8]) -> Result<usize, PushError> {
        if record.len() + ENTRY > self.buf.len() {
            return Err(PushError::TooLarge);
        }
        if self.is_empty() {
            self.base_frame = frame;
        }
        let rel = frame
            .checked_sub(self.base_frame)
            .and_then(|r| u32::try_from(r).ok())
            .ok_or(PushError::FrameOutOfRange)?;
        debug_assert!(self.is_empty() || frame >= self.frame(self.len() - 1));
        let before = self.len();
        let fits = |cur: &Generation, top: usize| {
            cur.data_end + record.len() <= top - ENTRY * (cur.count + 1)
        };
        if !fits(&self.cur, self.buf.len()) {
            // The current generation becomes the older one; what remains of the previous
            // older generation lies in a gap too small for this record, so it goes.
            self.old = self.cur;
            self.cur = Generation::default();
            self.wraps += 1;
        }
        let offset = self.cur.data_end;
        let data_end = offset + record.len();
        let slot = self.cur.count;
        // First invalidate the older generation's entries whose slot or bytes this write
        // covers, reading their index entries before the new bytes may land on them (an
        // older entry's slot lies above its own data, so a valid one is never covered).
        let mut first = self.old.first.max(slot + 1);
        while first < self.old.count && self.entry(first).0 < data_end {
            first += 1;
        }
        self.old.first = first.min(self.old.count);
        if self.old.first == self.old.count {
            self.old = Generation::default();
        }
        self.buf[offset..data_end].copy_from_slice(record);
        self.write_entry(slot, offset, rel);
        self.cur.count += 1;
        self.cur.data_end = data_end;
        let evicted = (before + 1) - self.len();
        self.evicted += evicted as u64;
        self.check_invariants();
        Ok(evicted)
    }

    /// Drops the oldest `n` records (e.g. to honour a smaller budget). Rarely used.
    pub fn drop_oldest(&mut self, n: usize) {
        let n = n.min(self.len());
        let from_old = n.min(self.old_valid());
        self.old.first += from_old;
        if self.old.first == self.old.count {
            self.old = Generation::default();
        }
        let from_cur = n - from_old;
        if from_cur > 0 {
            // Records of the current generation cannot be dropped from the front without
            // moving data; drop the whole current generation prefix by turning the rest into
            // the older generation.
            self.old = self.cur;
            self.old.first = from_cur;
            self.cur = Generation::default();
            if self.old.first == self.old.count {
                self.old = Generation::default();
            }
        }
        self.check_invariants();
    }

    /// Drops every record with logical index `>= keep` (a timeline fork).
    pub fn truncate(&mut self, keep: usize) {
        if keep >= self.len() {
            return;
        }
        let old_valid = self.old_valid();
        if keep >= old_valid {
            let j = keep - old_valid;
            self.cur.data_end = self.entry(j).0;
            self.cur.count = j;
        } else {
            let j = self.old.first + keep;
            self.old.data_end = self.entry(j).0;
            self.old.count = j;
            self.cur = Generation::default();
            if self.old.first == self.old.count {
                self.old = Generation::default();
            }
        }
        self.check_invariants();
    }

    /// The constant-time layout invariants, asserted after every change in debug builds.
    pub fn check_invariants(&self) {
        if cfg!(debug_assertions) {
            let top = self.buf.len();
            assert!(self.cur.data_end <= top - ENTRY * self.cur.count);
            if self.old_valid() > 0 {
                assert!(self.old.first >= self.cur.count);
                assert!(self.entry(self.old.first).0 >= self.cur.data_end);
            }
        }
    }

    /// Every layout invariant, by a full scan (tests).
    pub fn assert_invariants(&self) {
        let top = self.buf.len();
        let cur = self.cur;
        assert_eq!(cur.first, 0);
        assert!(
            cur.data_end <= top - ENTRY * cur.count,
            "current data overlaps its index"
        );
        let mut prev_end = 0;
        for j in 0..cur.count {
            let (off, _) = self.entry(j);
            assert!(off >= prev_end, "current records out of order");
            prev_end = off;
        }
        assert!(prev_end <= cur.data_end);
        if self.old_valid() > 0 {
            let old = self.old;
            assert!(
                old.first >= cur.count,
                "older slot overwritten by current index"
            );
            assert!(
                self.entry(old.first).0 >= cur.data_end,
                "older record overwritten by current data"
            );
            assert!(
                old.data_end <= top - ENTRY * cur.count,
                "older data under current index"
            );
            let mut prev = self.entry(old.first).0;
            for j in old.first..old.count {
                let (off, _) = self.entry(j);
                assert!(off >= prev, "older records out of order");
                prev = off;
            }
            assert!(prev <= old.data_end);
        }
        for i in 1..self.len() {
            assert!(self.frame(i - 1) <= self.frame(i), "frames out of order");
        }
    }
}
