//! Storing history: captures into the ring (deltas, and keyframes by the keyframe policy),
//! eviction within the budget, and dropping the future at a fork.

use super::{Captured, RewindError, Rewinder};
use crate::codec;
use crate::ring::PushError;
use backspin_core::{State, WrittenPages};

/// Until the first learned Huffman code, keyframes come this often (the first group's
/// statistics are what the code is built from).
const EARLY_KEYFRAME: u32 = 120;

impl Rewinder {
    /// Offers the state after frame `frame` for storage. Stores it if it is a capture point
    /// (every `capture_every` frames); when replaying a recorded future, checks that it
    /// matches and forks if it does not. Allocation-free.
    pub fn capture(&mut self, state: &State, frame: u64) -> Captured {
        let cycle = self.cycle_base(frame).wrapping_add(state.hw.m_cycles);
        self.capture_at(state, frame, cycle, WrittenPages::ALL)
    }

    /// `capture`, with the timeline cycle of `state` given by the caller (who knows it even
    /// when the logs still hold a reset that this run did not make), and the tracked pages
    /// the core wrote since the state last offered (`Core::take_written_pages`): the others
    /// are not compared.
    pub(crate) fn capture_at(
        &mut self,
        state: &State,
        frame: u64,
        cycle: u64,
        written: WrittenPages,
    ) -> Captured {
        // Pages where `newest` may differ from `state`; until `newest` is `state` again (or
        // the state is skipped right after it), nothing is known.
        let differ = std::mem::replace(&mut self.unsynced, WrittenPages::ALL).union(written);
        let Some(newest) = self.newest_frame() else {
            self.present = Some(frame);
            return self.store_first(state, frame);
        };
        if frame > newest {
            self.present = Some(frame);
            if frame - newest < u64::from(self.config.capture_every) {
                self.unsynced = differ;
                self.head = Some(self.head.unwrap_or(0).max(frame));
                return Captured::Skipped;
            }
            return self.append(state, frame, differ);
        }
        self.capture_in_past(state, frame, cycle, newest)
    }

    /// `capture_at` at or before the newest stored frame: replaying a recorded future (or
    /// the caller jumped back without seeking). Out of line: play appends.
    #[cold]
    #[inline(never)]
    fn capture_in_past(&mut self, state: &State, frame: u64, cycle: u64, newest: u64) -> Captured {
        let after = self.ring.partition_after(frame);
        let previous = after.checked_sub(1).map(|i| self.ring.frame(i));
        self.present = Some(frame);
        if previous == Some(frame) {
            if self.reconstruct(frame).is_ok() && self.cursor.as_bytes() == state.as_bytes() {
                if frame == newest {
                    self.unsynced = WrittenPages::NONE;
                }
                return Captured::Replayed;
            }
        } else if previous.is_some_and(|p| frame - p < u64::from(self.config.capture_every)) {
            return Captured::Skipped;
        }
        // Diverged: the logged future after this state is no longer ours.
        self.logs.truncate_from(cycle);
        self.fork_after(frame.saturating_sub(1));
        let bytes = match self.newest_frame() {
            None => self.store_first(state, frame),
            Some(_) => self.append(state, frame, WrittenPages::ALL),
        };
        match bytes {
            Captured::Stored { bytes, .. } => Captured::Forked { bytes },
            other => other,
        }
    }

    pub(super) fn store_first(&mut self, state: &State, frame: u64) -> Captured {
        self.ring.clear();
        self.head = None;
        self.decoder.forget_meta();
        self.first_key_frame = None;
        self.cursor_frame = None;
        self.keyframe_due = false;
        *self.newest = *state;
        self.newest_replaced();
        self.unsynced = WrittenPages::NONE;
        let record = self.encoder.encode_keyframe(state.as_bytes());
        let len = record.len();
        match self.ring.push(frame, record) {
            Ok(_) => {
                self.encoder.commit_keyframe();
                self.first_key_frame = Some(frame);
                self.stats.keyframes_written += 1;
                self.stats.snapshots_written += 1;
                self.stats.bytes_written += (len + 8) as u64;
                self.stats.last_keyframe_bytes = len;
                self.deltas_since_key = 0;
                self.chain_bytes_since_key = 0;
                Captured::Stored {
                    bytes: len + 8,
                    keyframe: true,
                }
            }
            Err(_) => Captured::TooLarge,
        }
    }

    /// Stores `state` as a delta against `newest`, which may differ from it only in the
    /// tracked pages `differ` (and the untracked part).
    pub(super) fn append(&mut self, state: &State, frame: u64, differ: WrittenPages) -> Captured {
        // The frame stored is the newest of its branch: none is played past it yet.
        self.head = None;
        let record = self.encoder.encode_delta_known(
            bytemuck::bytes_of_mut(&mut *self.newest),
            state.as_bytes(),
            differ,
            &mut self.newest_zeros,
        );
        // `newest` is `state` now, whatever becomes of the record.
        self.unsynced = WrittenPages::NONE;
        let delta_len = record.len();
        let evicted = match self.ring.push(frame, record) {
            Ok(evicted) => evicted,
            Err(PushError::TooLarge) | Err(PushError::FrameOutOfRange) => {
                // Cannot chain this one: start over from it.
                return self.store_first(state, frame);
            }
        };
        if evicted > 0 {
            self.after_eviction();
        }
        if self.oldest_frame().is_none_or(|oldest| oldest >= frame) {
            // The ring had to drop every keyframe to fit the delta: nothing to chain from.
            return self.store_first(state, frame);
        }
        self.stats.snapshots_written += 1;
        self.stats.bytes_written += (delta_len + 8) as u64;
        self.deltas_since_key += 1;
        self.chain_bytes_since_key += delta_len;
        let mut bytes = delta_len + 8;
        // Keyframe policy: a fixed interval bounds seek work in patches; the byte limits
        // bound it in bytes and guarantee a keyframe in every quarter of the ring (history
        // starts at the oldest keyframe); the first learned code comes early.
        let keyframe = std::mem::take(&mut self.keyframe_due)
            || self.deltas_since_key >= self.config.keyframe_interval
            || self.chain_bytes_since_key >= self.config.keyframe_chain_bytes
            || self.chain_bytes_since_key >= self.ring.capacity() / 4
            || (self.encoder.code_is_flat() && self.deltas_since_key >= EARLY_KEYFRAME);
        if keyframe {
            bytes += self.append_keyframe(state, frame);
        }
        self.keep_logs_within_reserve();
        Captured::Stored { bytes, keyframe }
    }

    /// Stores `state` as a keyframe after its delta; returns the bytes it took (0 if it did
    /// not fit). Out of line: a keyframe comes once a group, and its code would spread the
    /// path every other capture takes over more cache lines.
    #[cold]
    #[inline(never)]
    fn append_keyframe(&mut self, state: &State, frame: u64) -> usize {
        let mut bytes = 0;
        let record = self.encoder.encode_keyframe(state.as_bytes());
        let len = record.len();
        if let Ok(evicted) = self.ring.push(frame, record) {
            self.encoder.commit_keyframe();
            // Blocks that became zeros since are learned once a group.
            self.newest_replaced();
            self.stats.keyframes_written += 1;
            self.stats.bytes_written += (len + 8) as u64;
            self.stats.last_keyframe_bytes = len;
            bytes = len + 8;
            if evicted > 0 {
                self.after_eviction();
            }
        }
        self.deltas_since_key = 0;
        self.chain_bytes_since_key = 0;
        bytes
    }

    /// `newest` was replaced (not by a capture's sync): what is known of its zero blocks is
    /// learned again.
    pub(super) fn newest_replaced(&mut self) {
        self.newest_zeros = self.encoder.zero_blocks(self.newest.as_bytes());
    }

    /// The budget covers the input logs too: when they outgrow their share (inputs that
    /// change nearly every frame over a long history), the oldest history goes, which trims
    /// the logs with it. Allocation-free, like the rest of a capture.
    pub(super) fn keep_logs_within_reserve(&mut self) {
        let reserve = log_reserve(self.config.budget_bytes);
        // Pinned logs do not shrink with history: evicting it would buy nothing.
        if self.logs.log_bytes() <= reserve || self.logs_pinned_from.is_some() {
            return;
        }
        // Chunks kept for reuse go first (freeing does not allocate).
        self.logs.buttons.release_spares();
        while self.logs.log_bytes() > reserve
            && (self.logs.buttons.chunk_count() > 1
                || self.logs.loads_held() > 1
                || !self.logs.writes.is_empty())
            && self.ring.len() > 1
        {
            // Never the newest keyframe: history must keep one to start from.
            let droppable = self.key_before(self.ring.len()).unwrap_or(0);
            if droppable == 0 {
                break;
            }
            self.ring
                .drop_oldest((self.ring.len() / 32).clamp(1, droppable));
            self.after_eviction();
            self.logs.buttons.release_spares();
        }
    }

    /// Keeps derived positions consistent after the oldest records went.
    pub(super) fn after_eviction(&mut self) {
        if self
            .first_key_frame
            .is_none_or(|key| self.ring.is_empty() || self.ring.frame(0) > key)
        {
            self.first_key_frame = self.find_first_key();
        }
        if let Some(oldest) = self.oldest_frame() {
            if self.cursor_frame.is_some_and(|c| c < oldest) {
                self.cursor_frame = None;
            }
            // A pinned log keeps its inputs from the pin on.
            let kept_from = self.logs_pinned_from.map_or(oldest, |pin| pin.min(oldest));
            self.logs.buttons.trim_before_frame(kept_from);
            self.logs.forget_writes_before(kept_from);
            // Keep the reset that governs the oldest frame and every later one.
            let governing = self.logs.resets.partition_point(|r| r.frame <= kept_from);
            if governing > 1 {
                self.logs.resets.drain(..governing - 1);
            }
        }
    }

    /// Frame of the oldest keyframe record (a scan over at most one keyframe group).
    pub(super) fn find_first_key(&self) -> Option<u64> {
        (0..self.ring.len())
            .find(|&i| codec::is_keyframe(self.ring.record(i)))
            .map(|i| self.ring.frame(i))
    }

    /// Index of the nearest keyframe record before index `i`.
    pub(super) fn key_before(&self, i: usize) -> Option<usize> {
        (0..i)
            .rev()
            .find(|&j| codec::is_keyframe(self.ring.record(j)))
    }

    /// Drops every stored frame after `frame`; the newest kept state becomes the base for
    /// the next capture. If the history cannot be decoded, it is dropped whole.
    pub(super) fn fork_after(&mut self, frame: u64) {
        let keep = self.ring.partition_after(frame);
        // The frames played past `frame` belong to the future dropped; `frame` itself stays
        // on the branch, and reachable when it is not stored.
        self.head = (keep > 0 && self.ring.frame(keep - 1) < frame).then_some(frame);
        if keep == self.ring.len() {
            return;
        }
        self.stats.forks += 1;
        if keep == 0 {
            self.ring.clear();
            self.cursor_frame = None;
            return;
        }
        let last = self.ring.frame(keep - 1);
        if self.reconstruct(last).is_err() {
            self.ring.clear();
            self.cursor_frame = None;
            return;
        }
        *self.newest = *self.cursor;
        self.newest_replaced();
        self.unsynced = WrittenPages::ALL;
        self.ring.truncate(keep);
        // Keyframes after the fork are gone: continue with the code of the keyframe that
        // now governs the newest frame, and forget decoded codes (frames may be reused).
        self.decoder.forget_meta();
        match self.key_before(self.ring.len()) {
            Some(k) => match self.encoder.set_meta(self.ring.record(k)) {
                Ok(()) => {}
                Err(_) => {
                    self.ring.clear();
                    self.cursor_frame = None;
                    return;
                }
            },
            None => {
                self.ring.clear();
                self.cursor_frame = None;
                return;
            }
        }
        // Recount the chain since the last keyframe so the keyframe policy carries on.
        self.deltas_since_key = 0;
        self.chain_bytes_since_key = 0;
        let mut i = self.ring.len();
        while i > 0 {
            i -= 1;
            let record = self.ring.record(i);
            if codec::is_keyframe(record) {
                break;
            }
            self.deltas_since_key += 1;
            self.chain_bytes_since_key += record.len();
            if self.deltas_since_key >= self.config.keyframe_interval {
                break;
            }
        }
    }

    /// The latest stored frame at or before `frame`.
    pub(super) fn stored_at_or_before(&self, frame: u64) -> Result<u64, RewindError> {
        let (Some(oldest), Some(newest)) = (self.oldest_frame(), self.newest_frame()) else {
            return Err(RewindError::Empty);
        };
        if frame < oldest {
            return Err(RewindError::OutOfRange {
                frame,
                oldest,
                newest,
            });
        }
        let after = self.ring.partition_after(frame);
        Ok(self.ring.frame(after - 1))
    }
}

/// The share of a history budget kept for the logs (the snapshot ring gets the rest).
pub(super) fn log_reserve(budget_bytes: usize) -> usize {
    budget_bytes / 8
}
