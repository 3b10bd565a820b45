//! Seeking: rebuilding a stored state by the cheapest walk over the records, and landing
//! a core on any frame exactly by re-simulating from the stored frame before it.

use super::{RewindError, Rewinder, SeekReport, Snapshot};
use crate::codec::{self, Apply, DecodeError};
use backspin_core::{Core, State};
use bytemuck::Zeroable;

/// Cost of reconstructing a state from a keyframe, in units of one delta patch (zeroing the
/// buffer plus decoding a few KiB of LZ4), used to pick the cheapest path for a seek.
const KEYFRAME_COST: usize = 40;
/// Cost of copying a whole state, in delta patches.
const COPY_COST: usize = 4;

impl Rewinder {
    /// Rebuilds the stored state of `frame` (which must be stored) into `cursor`, by the
    /// cheapest of: walking from the cursor, walking back from the newest state, or decoding
    /// the nearest keyframe before or after and walking from it. Patches add or subtract, so a walk
    /// goes either way.
    pub(super) fn reconstruct(&mut self, frame: u64) -> Result<(), RewindError> {
        if self.cursor_frame == Some(frame) {
            return Ok(());
        }
        let len = self.ring.len();
        let target_end = self.ring.partition_after(frame);
        debug_assert!(target_end > 0 && self.ring.frame(target_end - 1) == frame);

        use ReconstructSource as Source;
        // A keyframe frame: its keyframe is the state (the delta before it belongs to the
        // previous group, whose models may differ).
        if codec::is_keyframe(self.ring.record(target_end - 1)) {
            return self.start_from(Source::Keyframe(target_end - 1), frame);
        }
        // The next keyframe after the target (within one group's length): a backward walk
        // must not start beyond it, or it would apply deltas of two groups.
        let scan_limit = (target_end + self.config.keyframe_interval as usize + 2).min(len);
        let next_key = (target_end..scan_limit).find(|&i| codec::is_keyframe(self.ring.record(i)));
        let backward_ok = |from_frame: u64| match next_key {
            Some(k) => from_frame <= self.ring.frame(k),
            None => scan_limit == len,
        };
        let mut best: Option<(usize, Source)> = None;
        let consider = |cost: usize, source: Source, best: &mut Option<(usize, Source)>| {
            if best.as_ref().is_none_or(|(c, _)| cost < *c) {
                *best = Some((cost, source));
            }
        };
        let newest = self.newest_frame().expect("non-empty");
        if backward_ok(newest) {
            consider(len - target_end + COPY_COST, Source::Newest, &mut best);
        }
        if let Some(c) = self.cursor_frame
            && (c < frame || backward_ok(c))
        {
            let cost = self.ring.partition_after(c).abs_diff(target_end);
            consider(cost, Source::Cursor(c), &mut best);
        }
        if let Some(k) = next_key {
            consider(
                KEYFRAME_COST + (k - target_end),
                Source::Keyframe(k),
                &mut best,
            );
        }
        // The nearest keyframe before, scanning no further than could beat `best`.
        let mut i = target_end;
        while i > 0
            && best
                .as_ref()
                .is_none_or(|(c, _)| KEYFRAME_COST + (target_end - i) < *c)
        {
            i -= 1;
            if codec::is_keyframe(self.ring.record(i)) {
                consider(
                    KEYFRAME_COST + (target_end - 1 - i),
                    Source::Keyframe(i),
                    &mut best,
                );
                break;
            }
        }
        let (_, source) = best.ok_or(RewindError::Corrupt(DecodeError::MissingCode))?;
        self.start_from(source, frame)
    }

    /// Loads the chosen starting point into the cursor and walks to `frame`.
    pub(super) fn start_from(
        &mut self,
        source: ReconstructSource,
        frame: u64,
    ) -> Result<(), RewindError> {
        // From here on the cursor is being rewritten.
        self.cursor_frame = None;
        let from = match source {
            ReconstructSource::Cursor(c) => c,
            ReconstructSource::Newest => {
                *self.cursor = *self.newest;
                self.newest_frame().expect("non-empty")
            }
            ReconstructSource::Keyframe(i) => {
                *self.cursor = State::zeroed();
                self.decoder.apply(
                    self.ring.record(i),
                    bytemuck::bytes_of_mut(&mut *self.cursor),
                    Apply::Forward,
                )?;
                self.ring.frame(i)
            }
        };
        self.walk(from, frame)?;
        self.cursor_frame = Some(frame);
        Ok(())
    }

    /// Loads the metadata (Huffman codes and models) of the keyframe at index `key`.
    pub(super) fn load_meta(&mut self, key: usize) -> Result<(), RewindError> {
        let key_frame = self.ring.frame(key);
        if self.decoder.meta_key() != Some(key_frame) {
            self.decoder.load_meta(key_frame, self.ring.record(key))?;
        }
        Ok(())
    }

    /// Moves the cursor state from stored frame `from` to stored frame `to` by applying the
    /// delta records in between: forward in order; backward in reverse order, then the
    /// mirrored region from `to`'s own record (all of one keyframe group, as `reconstruct`
    /// plans it). Each delta uses the metadata of the keyframe before it.
    pub(super) fn walk(&mut self, from: u64, to: u64) -> Result<(), RewindError> {
        let (lo, hi) = (from.min(to), from.max(to));
        let range = self.ring.partition_after(lo)..self.ring.partition_after(hi);
        let forward = to >= from;
        let len = range.len();
        // The keyframe governing the record about to be applied, when known.
        let mut governing: Option<usize> = None;
        for k in 0..len {
            let i = if forward {
                range.start + k
            } else {
                range.end - 1 - k
            };
            if codec::is_keyframe(self.ring.record(i)) {
                governing = if forward { Some(i) } else { None };
                continue;
            }
            let key = match governing {
                Some(key) => key,
                None => self
                    .key_before(i)
                    .ok_or(RewindError::Corrupt(DecodeError::MissingCode))?,
            };
            governing = Some(key);
            self.load_meta(key)?;
            let mode = if forward {
                Apply::Forward
            } else {
                Apply::Backward
            };
            self.decoder.apply(
                self.ring.record(i),
                bytemuck::bytes_of_mut(&mut *self.cursor),
                mode,
            )?;
        }
        if !forward && len > 0 {
            // The mirrored region does not undo: rebuild it from the landing frame's own record.
            let own = range.start - 1;
            if codec::is_keyframe(self.ring.record(own)) {
                return Err(RewindError::Corrupt(DecodeError::Malformed));
            }
            let key = match governing {
                Some(key) => key,
                None => self
                    .key_before(own)
                    .ok_or(RewindError::Corrupt(DecodeError::MissingCode))?,
            };
            self.load_meta(key)?;
            self.decoder.apply(
                self.ring.record(own),
                bytemuck::bytes_of_mut(&mut *self.cursor),
                Apply::Landing,
            )?;
        }
        Ok(())
    }

    /// Rebuilds the latest stored state at or before `frame` (the exact frame when every
    /// frame is stored). Use [`Rewinder::seek_core`] to land on any frame exactly.
    pub fn seek(&mut self, frame: u64) -> Result<Snapshot<'_>, RewindError> {
        let stored = self.stored_at_or_before(frame)?;
        self.reconstruct(stored)?;
        self.present = Some(stored);
        Ok(Snapshot {
            frame: stored,
            state: &self.cursor,
        })
    }

    /// The stored state one capture before the present one.
    pub fn step_back(&mut self) -> Option<Snapshot<'_>> {
        let present = self.present.or(self.newest_frame())?;
        let before = self.ring.partition_before(present);
        if before == 0 {
            return None;
        }
        let frame = self.ring.frame(before - 1);
        self.seek(frame).ok()
    }

    /// The stored state one capture after the present one (redo), while the recorded
    /// future lasts.
    pub fn step_forward(&mut self) -> Option<Snapshot<'_>> {
        let present = self.present?;
        let after = self.ring.partition_after(present);
        if after >= self.ring.len() {
            return None;
        }
        let frame = self.ring.frame(after);
        self.seek(frame).ok()
    }

    /// Puts `core` exactly at the end of `frame`: restores the latest stored state before
    /// it and re-simulates with the logged inputs, so the state is byte-identical to the
    /// straight run and `core.frame()` is the picture shown then. `frame` may lie anywhere
    /// from the oldest stored frame to the present. The core is left untouched on error.
    pub fn seek_core(&mut self, core: &mut Core, frame: u64) -> Result<SeekReport, RewindError> {
        let oldest = self.oldest_frame().ok_or(RewindError::Empty)?;
        let last = self.newest_reachable().ok_or(RewindError::Empty)?;
        if frame < oldest || frame > last {
            return Err(RewindError::OutOfRange {
                frame,
                oldest,
                newest: last,
            });
        }
        // Start one frame early when possible so the picture gets drawn.
        let start = if frame > oldest {
            self.stored_at_or_before(frame - 1)?
        } else {
            frame
        };
        self.reconstruct(start)?;
        core.load_state(&self.cursor);
        let frames = frame - start;
        let events = self.resimulate(core, start, frames)?;
        self.present = Some(frame);
        // The core stands before any write logged at this cycle: none is made yet.
        self.logs.writes_made = (0, 0);
        Ok(SeekReport {
            snapshot_frame: start,
            resimulated_frames: frames,
            picture_exact: frames > 0,
            events,
        })
    }

    /// One frame back from the present, exactly (state and picture).
    pub fn step_back_core(&mut self, core: &mut Core) -> Result<SeekReport, RewindError> {
        let present = self
            .present
            .or(self.newest_frame())
            .ok_or(RewindError::Empty)?;
        self.seek_core(core, present.saturating_sub(1))
    }

    /// One frame forward from the present (redo), exactly, while the recorded future lasts.
    pub fn step_forward_core(&mut self, core: &mut Core) -> Result<SeekReport, RewindError> {
        let present = self
            .present
            .or(self.newest_frame())
            .ok_or(RewindError::Empty)?;
        self.seek_core(core, present + 1)
    }
}

/// Where `reconstruct` starts: the cursor's frame, the newest state, or a keyframe (index).
pub(super) enum ReconstructSource {
    Cursor(u64),
    Newest,
    Keyframe(usize),
}
