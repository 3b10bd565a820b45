//! The input log: every joypad change as (M-cycle, buttons), the source of truth for
//! re-simulating between snapshots.
//!
//! Only changes are stored, packed into one `u64` each (`m_cycle << 8 | buttons`; 2^56
//! M-cycles is over 2,000 years of emulation). Events live in fixed-size chunks; trimming
//! drops whole chunks into a spare list that later growth reuses, so a long session settles
//! into no allocation at all. Look-ups are binary searches, first over chunks, then within one.

use std::collections::VecDeque;

const CHUNK: usize = 512;
/// Dropped chunks kept for reuse.
const SPARE_CHUNKS: usize = 16;

/// One joypad change: from `m_cycle` on, `buttons` (a `Buttons` mask) are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputEvent {
    /// The M-cycle (on the timeline's clock) the change applies at.
    pub m_cycle: u64,
    /// The buttons held from then on.
    pub buttons: u8,
}

impl InputEvent {
    fn pack(self) -> u64 {
        debug_assert!(self.m_cycle < 1 << 56);
        (self.m_cycle << 8) | u64::from(self.buttons)
    }
    fn unpack(word: u64) -> InputEvent {
        InputEvent {
            m_cycle: word >> 8,
            buttons: word as u8,
        }
    }
}

struct Chunk {
    events: Box<[u64; CHUNK]>,
    len: usize,
    /// The rewinder's newest captured frame when the first event went in: trimming uses it
    /// to keep the events that snapshots still need.
    first_frame: u64,
}

impl Chunk {
    fn first(&self) -> InputEvent {
        InputEvent::unpack(self.events[0])
    }
    fn last(&self) -> InputEvent {
        InputEvent::unpack(self.events[self.len - 1])
    }
}

/// Every joypad change, in M-cycle order, in fixed-size chunks reused as old history is
/// trimmed (no allocation per frame).
pub struct InputLog {
    chunks: VecDeque<Chunk>,
    spare: Vec<Box<[u64; CHUNK]>>,
    len: usize,
}

impl Default for InputLog {
    fn default() -> InputLog {
        InputLog::new()
    }
}

impl InputLog {
    /// An empty log.
    pub fn new() -> InputLog {
        InputLog {
            chunks: VecDeque::with_capacity(SPARE_CHUNKS),
            spare: Vec::with_capacity(SPARE_CHUNKS),
            len: 0,
        }
    }

    /// Keeps a dropped chunk for reuse, without growing the spare list (trimming happens
    /// inside `Rewinder::capture`, which must not allocate).
    fn recycle(&mut self, events: Box<[u64; CHUNK]>) {
        if self.spare.len() < self.spare.capacity() {
            self.spare.push(events);
        }
    }

    /// Events held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no event is held.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Drops every event.
    pub fn clear(&mut self) {
        while let Some(chunk) = self.chunks.pop_front() {
            self.recycle(chunk.events);
        }
        self.len = 0;
    }

    /// Chunks holding events (spares not counted).
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// Frees the chunks kept for reuse (when the logs are over their share of the budget).
    pub fn release_spares(&mut self) {
        self.spare.clear();
    }

    /// Bytes held, spare chunks included.
    pub fn memory_bytes(&self) -> usize {
        (self.chunks.len() + self.spare.len()) * CHUNK * 8
    }

    /// The newest event.
    pub fn last(&self) -> Option<InputEvent> {
        self.chunks.back().map(Chunk::last)
    }

    /// Records that `buttons` are held from `m_cycle` on. Events at or after `m_cycle` are
    /// replaced (time went back: a fork). Returns false when nothing changed.
    ///
    /// Every frame of play calls this (through `Timeline::set_buttons`), and mostly nothing
    /// changes: that path is inline in the caller, the rest out of line, so the frame's
    /// bookkeeping touches few lines of code.
    #[inline]
    pub fn push(&mut self, m_cycle: u64, buttons: u8, frame: u64) -> bool {
        self.truncate_from(m_cycle);
        if self.last().is_some_and(|e| e.buttons == buttons) {
            return false;
        }
        self.append(InputEvent { m_cycle, buttons }.pack(), frame);
        true
    }

    /// `push` of a change (a new event at the end).
    #[cold]
    #[inline(never)]
    fn append(&mut self, word: u64, frame: u64) {
        match self.chunks.back_mut() {
            Some(chunk) if chunk.len < CHUNK => {
                chunk.events[chunk.len] = word;
                chunk.len += 1;
            }
            _ => {
                let mut events = self.spare.pop().unwrap_or_else(|| Box::new([0; CHUNK]));
                events[0] = word;
                self.chunks.push_back(Chunk {
                    events,
                    len: 1,
                    first_frame: frame,
                });
            }
        }
        self.len += 1;
    }

    /// Drops every event at or after `m_cycle`.
    #[inline]
    pub fn truncate_from(&mut self, m_cycle: u64) {
        // The common case, every frame's `push`: nothing that late (no search of the chunk).
        if self.last().is_none_or(|e| e.m_cycle < m_cycle) {
            return;
        }
        self.truncate_events_from(m_cycle);
    }

    /// `truncate_from` when some event is at or after `m_cycle`.
    #[cold]
    #[inline(never)]
    fn truncate_events_from(&mut self, m_cycle: u64) {
        while let Some(chunk) = self.chunks.back_mut() {
            if chunk.first().m_cycle >= m_cycle {
                self.len -= chunk.len;
                let chunk = self.chunks.pop_back().expect("non-empty");
                self.recycle(chunk.events);
                continue;
            }
            let keep = chunk.events[..chunk.len].partition_point(|&w| (w >> 8) < m_cycle);
            self.len -= chunk.len - keep;
            chunk.len = keep;
            break;
        }
    }

    /// Drops whole chunks that no snapshot at `oldest_frame` or later can need: a chunk goes
    /// when the next chunk already started before that frame (so the next chunk holds the
    /// buttons in effect there).
    pub fn trim_before_frame(&mut self, oldest_frame: u64) {
        while self.chunks.len() >= 2 && self.chunks[1].first_frame < oldest_frame {
            let chunk = self.chunks.pop_front().expect("two chunks");
            self.len -= chunk.len;
            self.recycle(chunk.events);
        }
    }

    /// The chunks as (first frame, packed events), oldest first: what a history file keeps.
    pub(crate) fn chunks(&self) -> impl Iterator<Item = (u64, &[u64])> + '_ {
        self.chunks
            .iter()
            .map(|chunk| (chunk.first_frame, &chunk.events[..chunk.len]))
    }

    /// Appends a chunk read from a history file. False (and nothing added) unless it holds
    /// 1..=512 events in strictly increasing M-cycle order after those already held.
    pub(crate) fn push_chunk(&mut self, first_frame: u64, words: &[u64]) -> bool {
        let ordered = words.windows(2).all(|w| w[0] >> 8 < w[1] >> 8);
        let after = match (self.last(), words.first()) {
            (Some(last), Some(&first)) => last.m_cycle < first >> 8,
            (None, Some(_)) => true,
            (_, None) => false,
        };
        if !ordered || !after || words.len() > CHUNK {
            return false;
        }
        let mut events = self.spare.pop().unwrap_or_else(|| Box::new([0; CHUNK]));
        events[..words.len()].copy_from_slice(words);
        self.chunks.push_back(Chunk {
            events,
            len: words.len(),
            first_frame,
        });
        self.len += words.len();
        true
    }

    /// Position (chunk, index) of the first event with `m_cycle >= m_cycle`.
    fn position(&self, m_cycle: u64) -> (usize, usize) {
        // First chunk whose last event is at or after the cycle.
        let c = self
            .chunks
            .partition_point(|chunk| chunk.last().m_cycle < m_cycle);
        if c == self.chunks.len() {
            return (c, 0);
        }
        let chunk = &self.chunks[c];
        let i = chunk.events[..chunk.len].partition_point(|&w| (w >> 8) < m_cycle);
        (c, i)
    }

    /// The buttons held at `m_cycle` (after any change stamped exactly then), if known.
    pub fn buttons_at(&self, m_cycle: u64) -> Option<u8> {
        let (c, i) = self.position(m_cycle.saturating_add(1));
        // The event just before that position.
        if i > 0 {
            Some(InputEvent::unpack(self.chunks[c].events[i - 1]).buttons)
        } else if c > 0 {
            Some(self.chunks[c - 1].last().buttons)
        } else {
            None
        }
    }

    /// Events with `m_cycle >= from`, in order.
    pub fn events_from(&self, from: u64) -> impl Iterator<Item = InputEvent> + '_ {
        let (c, i) = self.position(from);
        self.chunks
            .range(c..)
            .enumerate()
            .flat_map(move |(k, chunk)| {
                let start = if k == 0 { i } else { 0 };
                chunk.events[start..chunk.len].iter().copied()
            })
            .map(InputEvent::unpack)
    }

    /// Every event, oldest first.
    pub fn iter(&self) -> impl Iterator<Item = InputEvent> + '_ {
        self.events_from(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_only_lookup_and_fork() {
        let mut log = InputLog::new();
        assert!(log.push(10, 1, 0));
        assert!(!log.push(20, 1, 0), "no change, no event");
        for k in 0..2000u64 {
            log.push(100 + k * 10, (k % 7) as u8 + 2, k / 10);
        }
        assert_eq!(log.buttons_at(5), None);
        assert_eq!(log.buttons_at(10), Some(1));
        assert_eq!(log.buttons_at(99), Some(1));
        assert_eq!(log.buttons_at(100), Some(2));
        assert_eq!(log.buttons_at(10_095), Some((999 % 7) as u8 + 2));
        let from: Vec<_> = log.events_from(10_095).take(2).collect();
        assert_eq!(from[0].m_cycle, 10_100);
        assert_eq!(from[1].m_cycle, 10_110);
        let total = log.len();
        log.truncate_from(10_100);
        assert_eq!(log.len(), total - 1000);
        assert_eq!(log.last().unwrap().m_cycle, 10_090);
        log.trim_before_frame(60);
        assert!(log.buttons_at(10_090).is_some());
        assert!(log.len() < 1001);
        assert_eq!(log.iter().count(), log.len());
    }
}
