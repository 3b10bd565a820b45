//! The player's rewind history, behind the small boundary the emulation thread uses.
//!
//! Two stores implement it:
//! - [`CrateHistory`] (the default): states go into `backspin-rewind`'s compressed ring;
//!   beside it a per-frame log of what the player did (buttons, resets), since a reset is an
//!   input here and re-emulating a frame needs it.
//! - [`PatchRing`] (`--simple-rewind`): a self-contained ring, one record per frame holding
//!   that frame's input and the XOR of its state with the previous frame's, coded as sparse
//!   runs. XOR patches apply both ways, so one record serves stepping back and forward
//!   (redo); only the oldest and the current state are kept whole.

use backspin_core::State;

/// What the player did before a frame was emulated: the input log, one entry per frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameInput {
    /// Buttons held during the frame (a `Buttons` mask).
    pub buttons: u8,
    /// The machine was reset (powered on again) before the frame ran.
    pub reset: bool,
}

/// Where the history stands, for the overlay's timeline and the window title.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    pub oldest: u64,
    pub position: u64,
    pub newest: u64,
}

/// The operations the emulation thread needs from rewind; the real crate slots in here.
pub trait History {
    /// Forgets everything and starts over at `frame` with `state`.
    fn reset(&mut self, state: &State, frame: u64);
    fn span(&self) -> Span;
    /// The state after the frame at the current position.
    fn current(&self) -> &State;
    /// Records the frame after the current position (played with `input`, ending in `state`),
    /// dropping any kept future, and makes it the current position.
    fn push(&mut self, state: &State, input: FrameInput);
    /// Playing on from inside the kept future with the same input the log holds keeps that
    /// future: the position moves one frame on and `true` is returned. Returns `false` when
    /// there is no future or `input` differs (the caller then emulates and calls `push`).
    fn follow_future(&mut self, input: FrameInput) -> bool;
    /// Moves the position one frame back; `false` at the oldest frame.
    fn step_back(&mut self) -> bool;
    /// Moves the position one frame forward through the kept future; `false` at the newest.
    fn step_forward(&mut self) -> bool;
    /// The state before the current frame and the current frame's input, so the caller can
    /// re-emulate the frame to show its picture. `None` at the oldest frame.
    fn previous(&mut self) -> Option<(&State, FrameInput)>;
    /// The logged input of the frame after the current position, if it is kept.
    fn next_input(&self) -> Option<FrameInput>;
    /// Bytes of history held.
    fn memory_bytes(&self) -> usize;
}

struct Record {
    input: FrameInput,
    /// state(frame - 1) XOR state(frame), sparse (see `xor_encode`); empty for the oldest.
    patch: Vec<u8>,
}

/// A ring of XOR patches between consecutive frames under a byte budget.
pub struct PatchRing {
    budget_bytes: usize,
    used_bytes: usize,
    /// The frame number of `records[0]`.
    oldest_frame: u64,
    oldest_state: Box<State>,
    records: std::collections::VecDeque<Record>,
    /// Index into `records` of the current position.
    index: usize,
    current: Box<State>,
    /// Scratch for `previous`.
    scratch: Box<State>,
}

impl PatchRing {
    pub fn new(budget_bytes: usize, state: &State, frame: u64) -> PatchRing {
        let mut ring = PatchRing {
            budget_bytes,
            used_bytes: 0,
            oldest_frame: frame,
            oldest_state: Box::new(*state),
            records: Default::default(),
            index: 0,
            current: Box::new(*state),
            scratch: Box::new(*state),
        };
        ring.reset(state, frame);
        ring
    }

    fn evict_oldest(&mut self) {
        // The second record's patch turns the oldest state into the next one.
        if self.records.len() < 2 || self.index == 0 {
            return;
        }
        let first = self.records.pop_front().expect("len >= 2");
        self.used_bytes -= first.patch.len();
        let second = &mut self.records[0];
        xor_apply(
            bytemuck::bytes_of_mut(&mut *self.oldest_state),
            &second.patch,
        );
        self.used_bytes -= second.patch.len();
        second.patch = Vec::new();
        self.oldest_frame += 1;
        self.index -= 1;
    }
}

impl History for PatchRing {
    fn reset(&mut self, state: &State, frame: u64) {
        self.records.clear();
        self.records.push_back(Record {
            input: FrameInput::default(),
            patch: Vec::new(),
        });
        self.used_bytes = 0;
        self.oldest_frame = frame;
        *self.oldest_state = *state;
        *self.current = *state;
        self.index = 0;
    }

    fn span(&self) -> Span {
        Span {
            oldest: self.oldest_frame,
            position: self.oldest_frame + self.index as u64,
            newest: self.oldest_frame + self.records.len() as u64 - 1,
        }
    }

    fn current(&self) -> &State {
        &self.current
    }

    fn push(&mut self, state: &State, input: FrameInput) {
        while self.records.len() > self.index + 1 {
            let dropped = self.records.pop_back().expect("len > index + 1");
            self.used_bytes -= dropped.patch.len();
        }
        let patch = xor_encode(
            bytemuck::bytes_of(&*self.current),
            bytemuck::bytes_of(state),
        );
        self.used_bytes += patch.len();
        self.records.push_back(Record { input, patch });
        self.index += 1;
        *self.current = *state;
        while self.used_bytes > self.budget_bytes && self.index > 0 && self.records.len() > 2 {
            self.evict_oldest();
        }
    }

    fn follow_future(&mut self, input: FrameInput) -> bool {
        match self.records.get(self.index + 1) {
            Some(next) if next.input == input => self.step_forward(),
            _ => false,
        }
    }

    fn step_back(&mut self) -> bool {
        if self.index == 0 {
            return false;
        }
        xor_apply(
            bytemuck::bytes_of_mut(&mut *self.current),
            &self.records[self.index].patch,
        );
        self.index -= 1;
        true
    }

    fn step_forward(&mut self) -> bool {
        if self.index + 1 >= self.records.len() {
            return false;
        }
        self.index += 1;
        xor_apply(
            bytemuck::bytes_of_mut(&mut *self.current),
            &self.records[self.index].patch,
        );
        true
    }

    fn previous(&mut self) -> Option<(&State, FrameInput)> {
        if self.index == 0 {
            return None;
        }
        let record = &self.records[self.index];
        *self.scratch = *self.current;
        xor_apply(bytemuck::bytes_of_mut(&mut *self.scratch), &record.patch);
        Some((&self.scratch, record.input))
    }

    fn next_input(&self) -> Option<FrameInput> {
        self.records.get(self.index + 1).map(|record| record.input)
    }

    fn memory_bytes(&self) -> usize {
        self.used_bytes + self.records.len() * size_of::<Record>() + 3 * size_of::<State>()
    }
}

/// History kept by the `backspin-rewind` crate (states), plus the per-frame input log.
pub struct CrateHistory {
    rewinder: backspin_rewind::Rewinder,
    /// `inputs[i]` is the input of frame `input_base + i`.
    inputs: std::collections::VecDeque<FrameInput>,
    input_base: u64,
    position: u64,
    current: Box<State>,
    scratch: Box<State>,
}

impl CrateHistory {
    pub fn new(budget_bytes: usize, state: &State, frame: u64) -> CrateHistory {
        let mut history = CrateHistory {
            rewinder: backspin_rewind::Rewinder::new(budget_bytes),
            inputs: Default::default(),
            input_base: frame,
            position: frame,
            current: Box::new(*state),
            scratch: Box::new(*state),
        };
        history.reset(state, frame);
        history
    }

    fn input_of(&self, frame: u64) -> Option<FrameInput> {
        let index = usize::try_from(frame.checked_sub(self.input_base)?).ok()?;
        self.inputs.get(index).copied()
    }

    /// Loads stored `frame` into `current` and moves there.
    fn go_to(&mut self, frame: u64) -> bool {
        match self.rewinder.seek(frame) {
            Ok(snapshot) if snapshot.frame == frame => {
                *self.current = *snapshot.state;
                self.position = frame;
                true
            }
            Ok(snapshot) => {
                log::warn!(
                    "rewind: frame {frame} is not stored (nearest {})",
                    snapshot.frame
                );
                false
            }
            Err(error) => {
                log::warn!("rewind: {error}");
                false
            }
        }
    }
}

impl History for CrateHistory {
    fn reset(&mut self, state: &State, frame: u64) {
        self.rewinder.clear();
        self.rewinder.capture(state, frame);
        self.inputs.clear();
        self.inputs.push_back(FrameInput::default());
        self.input_base = frame;
        self.position = frame;
        *self.current = *state;
    }

    fn span(&self) -> Span {
        Span {
            oldest: self.rewinder.oldest_frame().unwrap_or(self.position),
            position: self.position,
            newest: self.rewinder.newest_frame().unwrap_or(self.position),
        }
    }

    fn current(&self) -> &State {
        &self.current
    }

    fn push(&mut self, state: &State, input: FrameInput) {
        let frame = self.position + 1;
        let keep = usize::try_from(frame - self.input_base).unwrap_or(usize::MAX);
        match self.rewinder.capture(state, frame) {
            // The same state as the kept future's: that future stays, with this input.
            backspin_rewind::Captured::Replayed => {
                if let Some(slot) = self.inputs.get_mut(keep) {
                    *slot = input;
                }
            }
            backspin_rewind::Captured::TooLarge => {
                log::warn!("rewind: a state did not fit the budget; history starts over");
                self.reset(state, frame);
                return;
            }
            _ => {
                self.inputs.truncate(keep);
                self.inputs.push_back(input);
            }
        }
        self.position = frame;
        *self.current = *state;
        // Forget the inputs of frames the ring no longer holds.
        let oldest = self.rewinder.oldest_frame().unwrap_or(frame);
        while self.input_base < oldest && self.inputs.len() > 1 {
            self.inputs.pop_front();
            self.input_base += 1;
        }
    }

    fn follow_future(&mut self, input: FrameInput) -> bool {
        self.position < self.span().newest
            && self.input_of(self.position + 1) == Some(input)
            && self.step_forward()
    }

    fn step_back(&mut self) -> bool {
        self.position > self.span().oldest && self.go_to(self.position - 1)
    }

    fn step_forward(&mut self) -> bool {
        self.position < self.span().newest && self.go_to(self.position + 1)
    }

    fn previous(&mut self) -> Option<(&State, FrameInput)> {
        if self.position <= self.span().oldest {
            return None;
        }
        let input = self.input_of(self.position)?;
        let snapshot = self.rewinder.seek(self.position - 1).ok()?;
        if snapshot.frame != self.position - 1 {
            return None;
        }
        *self.scratch = *snapshot.state;
        Some((&self.scratch, input))
    }

    fn next_input(&self) -> Option<FrameInput> {
        if self.position < self.span().newest {
            self.input_of(self.position + 1)
        } else {
            None
        }
    }

    fn memory_bytes(&self) -> usize {
        self.rewinder.stats().used_bytes + self.inputs.len() * size_of::<FrameInput>()
    }
}

/// Codes `old XOR new` as runs: (varint bytes to skip, varint run length, run bytes)...
/// Runs separated by fewer than 8 equal bytes are merged, as a token costs about that much.
fn xor_encode(old: &[u8], new: &[u8]) -> Vec<u8> {
    debug_assert_eq!(old.len(), new.len());
    let mut out = Vec::new();
    let mut position = 0; // first byte not yet covered by a token
    let mut at = 0;
    let len = old.len();
    while at < len {
        // Skip equal 8-byte words quickly, then equal bytes.
        while at + 8 <= len && old[at..at + 8] == new[at..at + 8] {
            at += 8;
        }
        while at < len && old[at] == new[at] {
            at += 1;
        }
        if at >= len {
            break;
        }
        let start = at;
        let mut end = at;
        let mut equal_run = 0;
        while at < len {
            if old[at] == new[at] {
                equal_run += 1;
                if equal_run >= 8 {
                    break;
                }
            } else {
                equal_run = 0;
                end = at + 1;
            }
            at += 1;
        }
        push_varint(&mut out, start - position);
        push_varint(&mut out, end - start);
        out.extend(
            old[start..end]
                .iter()
                .zip(&new[start..end])
                .map(|(a, b)| a ^ b),
        );
        position = end;
        at = end;
    }
    out
}

/// XORs a patch from `xor_encode` into `bytes` (either direction).
fn xor_apply(bytes: &mut [u8], patch: &[u8]) {
    let mut position = 0;
    let mut cursor = 0;
    while cursor < patch.len() {
        let skip = read_varint(patch, &mut cursor);
        let run = read_varint(patch, &mut cursor);
        position += skip;
        // Patches are our own output for a state of this size; a bad one is a bug.
        let target = &mut bytes[position..position + run];
        for (byte, delta) in target.iter_mut().zip(&patch[cursor..cursor + run]) {
            *byte ^= delta;
        }
        cursor += run;
        position += run;
    }
}

fn push_varint(out: &mut Vec<u8>, mut value: usize) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn read_varint(bytes: &[u8], cursor: &mut usize) -> usize {
    let mut value = 0;
    let mut shift = 0;
    loop {
        let byte = bytes[*cursor];
        *cursor += 1;
        value |= usize::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return value;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytemuck::Zeroable;

    fn state_with(seed: u32, changes: usize) -> Box<State> {
        let mut state: Box<State> = bytemuck::zeroed_box();
        let bytes = bytemuck::bytes_of_mut(&mut *state);
        let mut x = seed.wrapping_mul(2_654_435_761).max(1);
        for _ in 0..changes {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let at = x as usize % bytes.len();
            bytes[at] = (x >> 24) as u8;
        }
        state
    }

    #[test]
    fn xor_patches_round_trip_both_ways() {
        let a = state_with(1, 300);
        let b = state_with(2, 300);
        let patch = xor_encode(bytemuck::bytes_of(&*a), bytemuck::bytes_of(&*b));
        let mut x = a.clone();
        xor_apply(bytemuck::bytes_of_mut(&mut *x), &patch);
        assert!(bytemuck::bytes_of(&*x) == bytemuck::bytes_of(&*b));
        xor_apply(bytemuck::bytes_of_mut(&mut *x), &patch);
        assert!(bytemuck::bytes_of(&*x) == bytemuck::bytes_of(&*a));
        assert!(patch.len() < 5 * 600, "patch is sparse: {}", patch.len());
    }

    #[test]
    fn step_back_forward_and_redo_simple() {
        step_back_forward_and_redo(Box::new(PatchRing::new(1 << 20, &State::zeroed(), 0)));
    }

    #[test]
    fn step_back_forward_and_redo_crate() {
        step_back_forward_and_redo(Box::new(CrateHistory::new(4 << 20, &State::zeroed(), 0)));
    }

    fn step_back_forward_and_redo(mut ring: Box<dyn History>) {
        let states: Vec<Box<State>> = (0..10).map(|i| state_with(i + 1, 50)).collect();
        for (i, state) in states.iter().enumerate() {
            let input = FrameInput {
                buttons: i as u8,
                reset: false,
            };
            ring.push(state, input);
        }
        assert_eq!(
            ring.span(),
            Span {
                oldest: 0,
                position: 10,
                newest: 10
            }
        );
        for _ in 0..4 {
            assert!(ring.step_back());
        }
        assert!(bytemuck::bytes_of(ring.current()) == bytemuck::bytes_of(&*states[5]));
        let (previous, input) = ring.previous().expect("not at the oldest");
        assert!(bytemuck::bytes_of(previous) == bytemuck::bytes_of(&*states[4]));
        assert_eq!(input.buttons, 5);
        // Same input as logged: the future stays.
        assert!(ring.follow_future(FrameInput {
            buttons: 6,
            reset: false
        }));
        assert_eq!(ring.span().newest, 10);
        assert!(ring.step_forward());
        assert!(bytemuck::bytes_of(ring.current()) == bytemuck::bytes_of(&*states[7]));
        // Different input: the caller pushes, and the future is dropped.
        assert!(!ring.follow_future(FrameInput {
            buttons: 99,
            reset: false
        }));
        ring.push(&states[0], FrameInput::default());
        assert_eq!(ring.span().newest, 9);
        assert_eq!(ring.span().position, 9);
    }

    #[test]
    fn crate_history_evicts_and_keeps_states_and_inputs_aligned() {
        let states: Vec<Box<State>> = (0..1500).map(|i| state_with(i + 1, 40)).collect();
        let mut history = CrateHistory::new(96 * 1024, &State::zeroed(), 0);
        for (i, state) in states.iter().enumerate() {
            let input = FrameInput {
                buttons: i as u8,
                reset: i.is_multiple_of(7),
            };
            history.push(state, input);
        }
        let span = history.span();
        assert_eq!(span.newest, 1500);
        assert!(
            span.oldest > 0,
            "the small budget evicted something: {span:?}"
        );
        while history.span().position > span.oldest + 1 {
            assert!(history.step_back());
            let position = history.span().position;
            let (previous, input) = history.previous().expect("above the oldest");
            assert!(
                bytemuck::bytes_of(previous) == bytemuck::bytes_of(&*states[position as usize - 2])
            );
            let i = position as usize - 1;
            assert_eq!(
                input,
                FrameInput {
                    buttons: i as u8,
                    reset: i.is_multiple_of(7)
                }
            );
            assert!(bytemuck::bytes_of(history.current()) == bytemuck::bytes_of(&*states[i]));
        }
    }

    #[test]
    fn budget_evicts_oldest_and_keeps_states_exact() {
        let states: Vec<Box<State>> = (0..50).map(|i| state_with(i + 1, 100)).collect();
        let mut ring = PatchRing::new(4_000, &State::zeroed(), 0);
        for state in &states {
            ring.push(state, FrameInput::default());
        }
        let span = ring.span();
        assert_eq!(span.newest, 50);
        assert!(span.oldest > 0, "something was evicted: {span:?}");
        while ring.step_back() {}
        let oldest = span.oldest as usize;
        assert!(bytemuck::bytes_of(ring.current()) == bytemuck::bytes_of(&*states[oldest - 1]));
    }
}
