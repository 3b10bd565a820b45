//! Band-limited synthesis: amplitude steps at exact T-cycles in, 48 kHz stereo out.
//!
//! The mixer reports the stereo level whenever it changes. Each change is a step; instead of
//! sampling the level (which aliases every square edge into audible noise), the step is spread
//! over 16 output samples with a windowed-sinc step response chosen by where inside an output
//! sample the edge fell ([`super::kernel`]). The spread deltas wait in a small ring until their
//! sample is finished; an integrator turns deltas back into levels, and a one-pole high-pass
//! stands in for the DMG's output capacitor. Centre steps (the usual kind) first wait unspread
//! in a short queue and are convolved as their samples finish: the same sums, but a save
//! state (and so each rewind snapshot) holds a few packed steps instead of a ring of changed
//! slots. After each flush the ring is rotated to slot 0, so the pending tail sits in the same
//! slots from one snapshot to the next.
//!
//! Speed (the budget is a few percent of the whole emulator): while the channels run, centre
//! steps are held outside the state ([`Steps`]) and queued together, so only the newest
//! `STEP_QUEUE` are ever queued and the rest are spread once, as vector adds with 16-bit
//! multiplies ([`add_scaled_window`], or eight slots at a time with AVX2 where the CPU has
//! it) over windows aligned to whole vectors; samples are
//! finished in batches, the queued steps' shares for a batch spread into a scratch window
//! first, with one integrator and high-pass pass (once, not twice, for centred sound; not at
//! all for settled silence). The
//! state after each call is byte for byte what finishing sample by sample and queueing step
//! by step gives.
//!
//! Everything here is integer math and lives in [`SynthState`], inside the save state: the
//! not-yet-finished samples of the ring, the integrator and the capacitor's charge all shape
//! future output, so a state load resumes with bit-identical audio.
//!
//! Time base: 4,194,304 T-cycles/s × 375 = 48,000 samples/s × 32,768. One T-cycle is therefore
//! exactly 375 "ticks" of the sample clock and one sample exactly 2^15 ticks: no drift, no
//! rounding, the phase is a bit field.

mod steps;
mod vector;

use super::AudioOut;
use super::kernel::{ONE_BITS, PHASES, STEP, TAPS};
use crate::state_fields::StateFields;
use bytemuck::{Pod, Zeroable};
use std::mem::MaybeUninit;
pub(super) use steps::{Steps, TRAIN_CHANGES};
use vector::*;

/// Sample-clock ticks per T-cycle.
const TICKS_PER_T_CYCLE: u32 = 375;
/// Sample-clock ticks per output sample (a power of two: the phase is a bit field).
const TICKS_PER_SAMPLE_BITS: u32 = 15;
const TICKS_PER_SAMPLE: u32 = 1 << TICKS_PER_SAMPLE_BITS;
const PHASE_SHIFT: u32 = TICKS_PER_SAMPLE_BITS - PHASES.trailing_zeros();
/// Output samples the ring holds; a power of two so indices are masked, never checked.
pub(super) const RING: usize = 128;
/// If the clock runs this far ahead of the last finished sample (nobody called `tick` to
/// drain it; only a corrupt or hand-made state does that), samples are finished and dropped
/// so a step never lands beyond the ring.
const LAG_LIMIT_TICKS: u32 = ((RING - TAPS - 1) as u32) << TICKS_PER_SAMPLE_BITS;
/// The capacitor's charge factor per output sample, Q16: 0.999958 per T-cycle (Pan Docs, "Audio
/// details", DMG) raised to the 4,194,304 / 48,000 T-cycles of one sample = 0.996337.
const HIGHPASS_KEEP_Q16: i64 = 65296;

/// Centre steps that wait, unspread, in [`SynthState::centre_steps`].
pub(super) const STEP_QUEUE: usize = 16;
/// A queued step's packing: bits 0..8 the kernel tap the `head` sample takes from it, plus
/// `TAP_BIAS` (so a step still in the future, at most `RING` samples ahead, is positive too);
/// bits 8..13 its phase; bits 13..32 its delta, signed.
const TAP_BITS: u32 = 8;
const TAP_BIAS: i32 = RING as i32;
const _: () = assert!(TAP_BIAS as usize + TAPS <= 1 << TAP_BITS);
const PHASE_BITS: u32 = 5;
const DELTA_SHIFT: u32 = TAP_BITS + PHASE_BITS;
/// Deltas that fit the queue's 19 bits (the mixer's full swing is ±38,400; only a hand-made
/// level can exceed it, and then the step is spread at once).
const QUEUED_DELTA_MAX: i32 = (1 << (31 - DELTA_SHIFT)) - 1;

/// [`STEP`] with every weight twice, to match the ring's interleaved left/right slots.
const STEREO_STEP: [[i32; 2 * TAPS]; PHASES] = {
    let mut table = [[0; 2 * TAPS]; PHASES];
    let mut phase = 0;
    while phase < PHASES {
        let mut tap = 0;
        while tap < TAPS {
            table[phase][2 * tap] = STEP[phase][tap];
            table[phase][2 * tap + 1] = STEP[phase][tap];
            tap += 1;
        }
        phase += 1;
    }
    table
};

/// [`STEP`] with `TAPS` zeros after each row: the taps a step has still to give, from any
/// tap on, are then always one 16-wide window (the zeros past its end add nothing), which a
/// straight loop handles. In i16 (every weight fits), so that a delta that fits too
/// multiplies 8 lanes at a time.
const PADDED_STEP: [[i16; 2 * TAPS]; PHASES] = {
    let mut table = [[0; 2 * TAPS]; PHASES];
    let mut phase = 0;
    while phase < PHASES {
        let mut tap = 0;
        while tap < TAPS {
            let weight = STEP[phase][tap];
            assert!(weight >= i16::MIN as i32 && weight <= i16::MAX as i32);
            table[phase][tap] = weight as i16;
            tap += 1;
        }
        phase += 1;
    }
    table
};

/// Slots a step's taps are added to by [`SynthState::spread_held_steps`]: the 16 taps from
/// the ring slot they start at, widened to whole groups of 4 slots on both sides.
const ALIGNED_WINDOW: usize = TAPS + 4;

/// [`STEP`] shifted right by 0 to 3 slots inside a window of `ALIGNED_WINDOW` (zeros
/// around), so that a step starting at any slot is added to the 4-slot-aligned window
/// holding it; row `shift * PHASES + phase`. Why: steps come a slot or two apart, and a
/// 16-byte add that straddles the previous step's 16-byte store cannot take its value from
/// the store buffer (the load waits for the store to retire); aligned windows always
/// overlap whole stores. The zeros add nothing, so the sums are the same.
const ALIGNED_STEP: [[i16; ALIGNED_WINDOW]; 4 * PHASES] = {
    let mut table = [[0; ALIGNED_WINDOW]; 4 * PHASES];
    let mut shift = 0;
    while shift < 4 {
        let mut phase = 0;
        while phase < PHASES {
            let mut tap = 0;
            while tap < TAPS {
                table[shift * PHASES + phase][shift + tap] = PADDED_STEP[phase][tap];
                tap += 1;
            }
            phase += 1;
        }
        shift += 1;
    }
    table
};

/// [`ALIGNED_STEP`] with each weight zero-extended to 32 bits: in 16-bit lanes, a weight
/// and a zero, the pairs SSE2's multiply-add (`pmaddwd`) takes, so rows need no unpacking.
/// Rows are whole 16-byte vectors.
#[repr(C, align(16))]
struct PairedRows([[u32; ALIGNED_WINDOW]; 4 * PHASES]);

const _: () = assert!(ALIGNED_WINDOW.is_multiple_of(4));

static PAIRED_STEP: PairedRows = {
    let mut rows = [[0; ALIGNED_WINDOW]; 4 * PHASES];
    let mut row = 0;
    while row < 4 * PHASES {
        let mut slot = 0;
        while slot < ALIGNED_WINDOW {
            rows[row][slot] = ALIGNED_STEP[row][slot] as u16 as u32;
            slot += 1;
        }
        row += 1;
    }
    PairedRows(rows)
};

/// Slots [`SynthState::spread_held_steps_avx2`] adds a step's taps to: the 16 taps from
/// the ring slot they start at, widened to whole groups of 8 slots on both sides.
#[cfg(target_arch = "x86_64")]
const ALIGNED_WINDOW_8: usize = TAPS + 8;

/// Entries of a row of [`PAIRED_STEP_8`]: `ALIGNED_WINDOW_8` and zeros up to a power of
/// two, so that a row's place in the table is its index shifted, not multiplied.
#[cfg(target_arch = "x86_64")]
const PAIRED_ROW_8: usize = ALIGNED_WINDOW_8.next_power_of_two();

/// [`PAIRED_STEP`] for windows of whole 8-slot groups (AVX2 vectors): [`STEP`] shifted
/// right by 0 to 7 slots inside a window of `ALIGNED_WINDOW_8`, each weight zero-extended
/// to 32 bits; row `shift * PHASES + phase` (its entries past the window are unused).
#[cfg(target_arch = "x86_64")]
#[repr(C, align(32))]
struct PairedRows8([[u32; PAIRED_ROW_8]; 8 * PHASES]);

#[cfg(target_arch = "x86_64")]
static PAIRED_STEP_8: PairedRows8 = {
    let mut rows = [[0; PAIRED_ROW_8]; 8 * PHASES];
    let mut shift = 0;
    while shift < 8 {
        let mut phase = 0;
        while phase < PHASES {
            let mut tap = 0;
            while tap < TAPS {
                rows[shift * PHASES + phase][shift + tap] = PADDED_STEP[phase][tap] as u16 as u32;
                tap += 1;
            }
            phase += 1;
        }
        shift += 1;
    }
    PairedRows8(rows)
};

/// Whether this CPU has AVX2 (checked once, then cached by `std`).
#[inline]
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// [`PADDED_STEP`] zero-extended to 32 bits, as [`PAIRED_STEP`] is.
static PADDED_PAIRS: [[u32; 2 * TAPS]; PHASES] = {
    let mut rows = [[0; 2 * TAPS]; PHASES];
    let mut phase = 0;
    while phase < PHASES {
        let mut tap = 0;
        while tap < 2 * TAPS {
            rows[phase][tap] = PADDED_STEP[phase][tap] as u16 as u32;
            tap += 1;
        }
        phase += 1;
    }
    rows
};

/// Samples [`SynthState::finish_samples`] finishes in one batch at most: a whole flush
/// period's (about 94) in one go, so each flush pays the batch's setup once.
const BATCH: usize = RING - TAPS;

/// Synthesis state (part of [`super::ApuState`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Pod, Zeroable, StateFields)]
#[repr(C)]
pub struct SynthState {
    /// Pending deltas (Q14, wrapping sums) for the next `RING` output samples, interleaved
    /// left, right, indexed from `head`.
    pub ring: [i32; 2 * RING],
    /// Pending deltas that both sides share, added to each when a sample is finished: most
    /// steps are centred (NR51 routes the channel both ways, NR50 is balanced) and cost half
    /// as much here.
    pub centre_ring: [i32; RING],
    /// The most recent centre steps, oldest first, not yet spread over `centre_ring`: each
    /// is one packed word (see `TAP_BITS`) instead of `TAPS` ring slots, and is convolved
    /// with the kernel as its samples are finished. Wrapping sums commute, so the output is
    /// the same as spreading at once; the point is the save state: a snapshot holds the few
    /// steps of the last ~16 samples in a few bytes, not a ring of changed slots (rewind
    /// deltas). Entries past `centre_step_count` are zero.
    pub centre_steps: [u32; STEP_QUEUE],
    /// Entries of `centre_steps` in use (clamped to `STEP_QUEUE` on use).
    pub centre_step_count: u32,
    pub _pad: u32,
    /// Running sum of finished deltas: the band-limited level before the high-pass (Q14),
    /// stored as left, then right minus left (wrapping; see [`SynthState::integrators`]).
    /// Most sound is centred, so the second word then stays zero and a snapshot changes
    /// in half the bytes (rewind deltas).
    pub integrator_coded: [i32; 2],
    /// The output capacitor's charge (same units as the integrator), stored the same way.
    pub highpass_coded: [i32; 2],
    /// The mixer's current level per side, as last reported (±19,200 full scale), stored
    /// as left, then right minus left, like the integrator ([`SynthState::level`]).
    pub level_coded: [i32; 2],
    /// Sample-clock ticks from the start of the `head` sample to the APU's present.
    pub offset_ticks: u32,
    /// Ring index of the next sample to finish (masked on use).
    pub head: u32,
}

impl SynthState {
    /// The APU's present moves `t_cycles` on.
    #[inline]
    pub(super) fn advance(&mut self, t_cycles: u32) {
        self.offset_ticks = self
            .offset_ticks
            .wrapping_add(t_cycles.wrapping_mul(TICKS_PER_T_CYCLE));
        while self.offset_ticks >= LAG_LIMIT_TICKS {
            self.finish_samples(&mut [0; 2]);
        }
    }

    /// The mixer's level is now `level` (from the present moment on).
    pub(super) fn set_level(&mut self, level: [i32; 2]) {
        self.steps().set_level(level);
    }

    /// Spreads a step that is not queued (one side only, or too large) over the rings.
    #[inline(never)]
    fn spread_step_now(&mut self, delta: [i32; 2]) {
        let first = ((self.offset_ticks >> TICKS_PER_SAMPLE_BITS) as usize + self.head as usize)
            & (RING - 1);
        let phase = (self.offset_ticks >> PHASE_SHIFT) as usize & (PHASES - 1);
        if delta[0] == delta[1] {
            let kernel = &STEP[phase];
            if first + TAPS <= RING {
                let slots = &mut self.centre_ring[first..first + TAPS];
                for (slot, &weight) in slots.iter_mut().zip(kernel) {
                    *slot = slot.wrapping_add(delta[0].wrapping_mul(weight));
                }
            } else {
                for (tap, &weight) in kernel.iter().enumerate() {
                    let slot = &mut self.centre_ring[(first + tap) & (RING - 1)];
                    *slot = slot.wrapping_add(delta[0].wrapping_mul(weight));
                }
            }
            return;
        }
        let kernel = &STEREO_STEP[phase];
        if first + TAPS <= RING {
            // The common case, contiguous: one straight loop the compiler vectorizes.
            let slots = &mut self.ring[2 * first..2 * (first + TAPS)];
            for (index, (slot, &weight)) in slots.iter_mut().zip(kernel).enumerate() {
                *slot = slot.wrapping_add(delta[index & 1].wrapping_mul(weight));
            }
        } else {
            for (index, &weight) in kernel.iter().enumerate() {
                let slot = &mut self.ring[(2 * first + index) & (2 * RING - 1)];
                *slot = slot.wrapping_add(delta[index & 1].wrapping_mul(weight));
            }
        }
    }

    /// Appends packed centre steps (oldest first) to the queue; whatever the queue cannot
    /// keep, the oldest first, is spread. The queue ends as if each had been appended in
    /// turn, spreading the oldest whenever it was full: it holds the newest `STEP_QUEUE`.
    fn queue_centre_steps(&mut self, words: &[u32]) {
        let queued = (self.centre_step_count as usize).min(STEP_QUEUE);
        let spilled = (queued + words.len()).saturating_sub(STEP_QUEUE);
        let from_queue = spilled.min(queued);
        for i in 0..from_queue {
            self.spread_centre_step(self.centre_steps[i]);
        }
        let (spread, kept) = words.split_at(spilled - from_queue);
        for &word in spread {
            self.spread_centre_step(word);
        }
        self.centre_steps.copy_within(from_queue..queued, 0);
        let start = queued - from_queue;
        self.centre_steps[start..start + kept.len()].copy_from_slice(kept);
        self.centre_step_count = (start + kept.len()) as u32;
    }

    /// Finishes every sample that lies wholly in the past and appends it to `audio`. Returns
    /// whether the stereo ring is known to hold only zeros (the last batch found it so),
    /// for [`Self::rotate_head_to_zero`].
    pub(super) fn emit(&mut self, audio: &mut AudioOut) -> bool {
        let mut samples = [0i16; 2 * BATCH];
        let mut stereo_empty = false;
        loop {
            let n = ((self.offset_ticks >> TICKS_PER_SAMPLE_BITS) as usize).min(BATCH);
            if n == 0 {
                break;
            }
            stereo_empty = self.finish_samples(&mut samples[..2 * n]);
            audio.push_interleaved(&samples[..2 * n]);
        }
        stereo_empty
    }

    /// The mixer's level per side, as last reported.
    pub fn level(&self) -> [i32; 2] {
        from_left_side(self.level_coded)
    }

    /// Takes `level` as the present level without a step (power-on, with the integrator
    /// and capacitor set to match).
    pub(super) fn assume_level(&mut self, level: [i32; 2]) {
        self.level_coded = to_left_side(level);
    }

    /// The integrator's left and right values.
    pub fn integrators(&self) -> [i32; 2] {
        from_left_side(self.integrator_coded)
    }

    pub(super) fn set_integrators(&mut self, value: [i32; 2]) {
        self.integrator_coded = to_left_side(value);
    }

    /// The output capacitor's left and right charge.
    pub fn highpass_charges(&self) -> [i32; 2] {
        from_left_side(self.highpass_coded)
    }

    pub(super) fn set_highpass_charges(&mut self, value: [i32; 2]) {
        self.highpass_coded = to_left_side(value);
    }

    /// Spreads every queued centre step over `centre_ring` and empties the queue (with AVX2
    /// if `AVX2`, which the caller vouches for: see [`Self::spread_queue_avx2`]).
    #[inline(always)]
    fn spread_queue<const AVX2: bool>(&mut self) {
        let queued = (self.centre_step_count as usize).min(STEP_QUEUE);
        for i in 0..queued {
            self.spread_centre_step_with::<AVX2>(self.centre_steps[i]);
        }
        self.centre_steps = [0; STEP_QUEUE];
        self.centre_step_count = 0;
    }

    /// [`Self::spread_queue`] with AVX2 (the same sums, eight slots per multiply-add).
    ///
    /// # Safety
    /// The CPU must have AVX2 ([`has_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn spread_queue_avx2(&mut self) {
        self.spread_queue::<true>();
    }

    /// Spreads held centre steps (not packed: their times and deltas) over `centre_ring`:
    /// what [`Self::spread_centre_step`] does with each step packed, without the packing.
    /// Unless `WIDE`, every delta fits ±`i16::MAX`, and only its low part is spread.
    fn spread_held_steps<const WIDE: bool>(&mut self, steps: &[HeldStep]) {
        // Ticks from the start of ring slot 0 (held steps lie within the lag limit, so this
        // stays below 2^23): its sample bits are the ring slot the step starts at, and the
        // bits of that slot's place in its group of 4 and of the phase, side by side, are
        // the row of `ALIGNED_STEP`.
        let head_ticks = (self.head & (RING as u32 - 1)) << TICKS_PER_SAMPLE_BITS;
        for &step in steps {
            let ticks = step.offset_ticks + head_ticks;
            let window = (ticks >> TICKS_PER_SAMPLE_BITS) as usize & !3;
            if window + ALIGNED_WINDOW <= RING {
                let row = (ticks >> PHASE_SHIFT) as usize & (4 * PHASES - 1);
                let slots = &mut self.centre_ring[window..window + ALIGNED_WINDOW];
                if WIDE {
                    add_scaled::<ALIGNED_WINDOW>(slots, &ALIGNED_STEP[row], step.delta);
                } else {
                    debug_assert!(fits_i16_both_ways(step.delta));
                    let slots = slots.try_into().expect("a window of slots");
                    add_scaled_window(slots, row, step.delta as i16);
                }
            } else {
                // A held step lies within the lag limit, so `ahead` fits the tap field.
                let ahead = (step.offset_ticks >> TICKS_PER_SAMPLE_BITS) as i32;
                let phase = (step.offset_ticks >> PHASE_SHIFT) as usize & (PHASES - 1);
                self.spread_centre_step_wrapping(-ahead, phase, step.delta);
            }
        }
    }

    /// [`Self::spread_held_steps`] for deltas that fit ±`i16::MAX`, with AVX2: a step is
    /// added to the 8-slot-aligned window of `ALIGNED_WINDOW_8` holding it, eight slots per
    /// multiply-add (three vectors, not five). The same sums.
    ///
    /// Held steps come in time order (`steps` must: a [`Steps`] takes them so), often
    /// several to an 8-slot group: the taps of the steps in one window are summed in three
    /// registers and added to the ring only when a step's window lies elsewhere, not one
    /// load and store per vector and step. Wrapping sums, in any order.
    ///
    /// `steps` ends with [`HeldStep::END`], which is not spread: it ends every window's run
    /// (its ticks lie past any window's end), so the run's loop tests one bound a step, not
    /// two.
    ///
    /// # Safety
    /// The CPU must have AVX2 ([`has_avx2`]), and `steps` must end with [`HeldStep::END`]
    /// (the loop reads up to it without a bound test).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn spread_held_steps_avx2(&mut self, steps: &[HeldStep]) {
        debug_assert!(
            steps
                .last()
                .is_some_and(|step| step.offset_ticks == END_TICKS)
        );
        // A flush leaves the head at slot 0 (`rotate_head_to_zero`), so it is usually at the
        // start of a group of 8 slots; a step's row then follows from its ticks from the
        // head alone.
        // SAFETY: the caller vouches for AVX2, the only feature the functions enable.
        unsafe {
            if self.head & 7 == 0 {
                self.spread_held_steps_avx2_from::<true>(steps);
            } else {
                self.spread_held_steps_avx2_from::<false>(steps);
            }
        }
    }

    /// [`Self::spread_held_steps_avx2`]; `GROUP_HEAD`: the head is at the start of a group
    /// of 8 slots, which the caller vouches for.
    ///
    /// # Safety
    /// The CPU must have AVX2 ([`has_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn spread_held_steps_avx2_from<const GROUP_HEAD: bool>(&mut self, steps: &[HeldStep]) {
        use core::arch::x86_64::_mm256_set1_epi32 as splat;
        use core::arch::x86_64::{
            __m256i, _mm256_add_epi32, _mm256_madd_epi16, _mm256_setzero_si256,
        };
        const GROUPS: usize = ALIGNED_WINDOW_8 / 8;
        let head_ticks = (self.head & (RING as u32 - 1)) << TICKS_PER_SAMPLE_BITS;
        let window_of = |step: &HeldStep| {
            ((step.offset_ticks + head_ticks) >> TICKS_PER_SAMPLE_BITS) as usize & !7
        };
        // The steps still to spread, then `HeldStep::END`.
        let mut rest = steps;
        while rest.len() > 1 {
            let first = &rest[0];
            let window = window_of(first);
            if window + ALIGNED_WINDOW_8 > RING {
                // The window would run past the ring's end: the step on its own.
                let ahead = (first.offset_ticks >> TICKS_PER_SAMPLE_BITS) as i32;
                let phase = (first.offset_ticks >> PHASE_SHIFT) as usize & (PHASES - 1);
                self.spread_centre_step_wrapping(-ahead, phase, first.delta);
                rest = &rest[1..];
                continue;
            }
            // The steps from here on in the same window (at least the first). A step's ticks
            // from slot 0 shifted right by `PHASE_SHIFT` hold its row of `PAIRED_STEP_8` (its
            // slot's place in its group of 8 and its phase, side by side) in the low 8 bits.
            // Held steps come in time order, so the first one at or past the end of the
            // window's group of 8 slots ends the run: one compare, no window number to take.
            const _: () =
                assert!(8 * PHASES == 1 << 8 && PHASE_SHIFT + 8 == TICKS_PER_SAMPLE_BITS + 3);
            let end = ((window + 8) as u32) << TICKS_PER_SAMPLE_BITS;
            // With the head at a group's start, ticks from the head differ from ticks from
            // slot 0 by whole groups: the same row, and the end moved by as much.
            let end = if GROUP_HEAD { end - head_ticks } else { end };
            let mut sums = [_mm256_setzero_si256(); GROUPS];
            // A pointer, not an index: the count taken follows from it once per window.
            let first_step = rest.as_ptr();
            let mut next = first_step;
            loop {
                // SAFETY: `rest` ends with `HeldStep::END`, whose ticks (with the head's or
                // not) are past any window's `end`, so the loop stops there at the latest:
                // `next` stays inside `rest`.
                let step = unsafe { *next };
                let ticks = if GROUP_HEAD {
                    debug_assert!(head_ticks & ((8 << TICKS_PER_SAMPLE_BITS) - 1) == 0);
                    step.offset_ticks
                } else {
                    step.offset_ticks + head_ticks
                };
                if ticks >= end {
                    break;
                }
                debug_assert!(fits_i16_both_ways(step.delta));
                debug_assert!(
                    ((step.offset_ticks + head_ticks) >> TICKS_PER_SAMPLE_BITS) as usize >= window,
                    "in order"
                );
                // SAFETY: as above (a step before the end mark).
                next = unsafe { next.add(1) };
                let row = (ticks >> PHASE_SHIFT) as usize & (8 * PHASES - 1);
                // The whole delta in each 32-bit lane: the rows' high halves are zero (see
                // `PAIRED_STEP`), so only its low half counts.
                let scale = splat(step.delta);
                let rows = PAIRED_STEP_8.0[row][..ALIGNED_WINDOW_8].chunks_exact(8);
                for (sum, pairs) in sums.iter_mut().zip(rows) {
                    let pairs: __m256i =
                        bytemuck::pod_read_unaligned(bytemuck::cast_slice::<u32, u8>(pairs));
                    *sum = _mm256_add_epi32(*sum, _mm256_madd_epi16(pairs, scale));
                }
            }
            // SAFETY: both point into `rest`, `next` at or after `first_step`.
            let taken = unsafe { next.offset_from(first_step) } as usize;
            rest = &rest[taken..];
            add_groups(&mut self.centre_ring, window, sums);
        }
    }

    /// Adds the taps of a queued step that are still to come to `centre_ring`.
    #[inline]
    fn spread_centre_step(&mut self, word: u32) {
        self.spread_centre_step_with::<false>(word);
    }

    /// [`Self::spread_centre_step`], with AVX2 if `AVX2` (the caller vouches for the CPU).
    #[inline(always)]
    fn spread_centre_step_with<const AVX2: bool>(&mut self, word: u32) {
        let (tap, phase, delta) = unpack_step(word);
        let first_tap = tap.max(0);
        // The first tap still to come lands `start` samples after the head one.
        let start = (first_tap - tap) as usize;
        let first = (self.head as usize & (RING - 1)) + start;
        if first_tap < TAPS as i32 && first + TAPS <= RING {
            // The usual case: one window, no wrap.
            let slots = &mut self.centre_ring[first..first + TAPS];
            add_scaled_from_tap_with::<AVX2>(slots, phase, first_tap as usize, delta);
        } else {
            self.spread_centre_step_wrapping(tap, phase, delta);
        }
    }

    /// [`Self::spread_centre_step`] where the taps wrap round the ring (or none are left).
    #[cold]
    #[inline(never)]
    fn spread_centre_step_wrapping(&mut self, tap: i32, phase: usize, delta: i32) {
        let kernel = &STEP[phase];
        for future_tap in tap.max(0)..TAPS as i32 {
            let slot = (self.head as i32 + future_tap - tap) as usize & (RING - 1);
            let weight = kernel[future_tap as usize];
            self.centre_ring[slot] =
                self.centre_ring[slot].wrapping_add(delta.wrapping_mul(weight));
        }
    }

    /// Adds the queued steps' shares of the next `n` (at most `BATCH`) samples, from the
    /// head one on, to `shares`; moves every step on by `n` samples and drops (zeroes) those
    /// whose last tap has then been given.
    #[inline(always)]
    fn take_queued_centre<const AVX2: bool>(&mut self, n: usize, shares: &mut [i32; BATCH + TAPS]) {
        debug_assert!(n <= BATCH);
        let count = (self.centre_step_count as usize).min(STEP_QUEUE);
        let mut kept = 0;
        for i in 0..count {
            let word = self.centre_steps[i];
            let (tap, phase, delta) = unpack_step(word);
            let first_tap = tap.max(0);
            let start = (first_tap - tap) as usize;
            if first_tap < TAPS as i32 && start < n {
                let slots = &mut shares[start..start + TAPS];
                add_scaled_from_tap_with::<AVX2>(slots, phase, first_tap as usize, delta);
            }
            if tap + (n as i32) < TAPS as i32 {
                // `n` samples on: the tap field is the low bits, and stays below 2^TAP_BITS
                // (a step is never more than RING samples ahead).
                self.centre_steps[kept] = word + n as u32;
                kept += 1;
            }
        }
        self.centre_steps[kept..count].fill(0);
        self.centre_step_count = kept as u32;
    }

    /// Rotates the rings so that `head` is slot 0; the pending deltas keep their order.
    ///
    /// Called after each flush, when only the ~16 samples a recent step still spreads into
    /// are non-zero. Rewind stores XOR deltas between consecutive snapshots: with the rings
    /// at a fixed phase the pending tail sits in the same slots every time, so a snapshot
    /// pays for one set of changed slots instead of the old tail (now zero) plus the new one
    /// somewhere else. Output is unchanged: only where the values are kept moves.
    /// `stereo_empty`: the stereo ring is known to hold only zeros ([`Self::emit`] has just
    /// looked), so it need not be looked at again.
    pub(super) fn rotate_head_to_zero(&mut self, stereo_empty: bool) {
        debug_assert!(!stereo_empty || self.stereo_ring_is_empty());
        let head = self.head as usize & (RING - 1);
        if head != 0 {
            if !stereo_empty && !self.stereo_ring_is_empty() {
                self.ring.rotate_left(2 * head);
            }
            if !self.centre_ring_is_empty() {
                self.centre_ring.rotate_left(head);
            }
        }
        self.head = 0;
    }

    /// Whether no one-sided step is pending (the usual case): one pass, vectorized.
    fn stereo_ring_is_empty(&self) -> bool {
        self.ring.iter().fold(0, |any, &slot| any | slot) == 0
    }

    /// Whether no spread centre step is pending (silence, or a quiet moment).
    fn centre_ring_is_empty(&self) -> bool {
        self.centre_ring.iter().fold(0, |any, &slot| any | slot) == 0
    }

    /// Integrates and filters the next `n` (at most `BATCH`) samples into `out`, interleaved
    /// left, right (`2 * n` entries); moves the head past them. Returns whether it found the
    /// stereo ring empty (it stays so: nothing is added to it here).
    fn finish_samples(&mut self, out: &mut [i16]) -> bool {
        if has_avx2() {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2, the only feature the function enables.
            unsafe {
                return self.finish_samples_avx2(out);
            }
        }
        self.finish_samples_with::<false>(out)
    }

    /// [`Self::finish_samples`] with AVX2 (the same numbers: its vector passes and the
    /// checks for empty rings eight slots at a time).
    ///
    /// # Safety
    /// The CPU must have AVX2 ([`has_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn finish_samples_avx2(&mut self, out: &mut [i16]) -> bool {
        self.finish_samples_with::<true>(out)
    }

    /// [`Self::finish_samples`], with AVX2 if `AVX2` (the caller vouches for the CPU).
    #[inline(always)]
    fn finish_samples_with<const AVX2: bool>(&mut self, out: &mut [i16]) -> bool {
        let n = out.len() / 2;
        debug_assert!(out.len() == 2 * n && n <= BATCH);
        let mut integrator = self.integrators();
        let mut charge = self.highpass_charges();
        if integrator == charge
            && self.centre_step_count == 0
            && self.centre_ring_is_empty()
            && self.stereo_ring_is_empty()
        {
            // Silence, settled: nothing pending and the capacitor charged to the level, so
            // every sample is 0 and nothing changes.
            self.head = (self.head.wrapping_add(n as u32)) & (RING as u32 - 1);
            self.offset_ticks = self.offset_ticks.wrapping_sub(n as u32 * TICKS_PER_SAMPLE);
            out.fill(0);
            return true;
        }
        let mut queued = [0i32; BATCH + TAPS];
        self.take_queued_centre::<AVX2>(n, &mut queued);
        let start = self.head as usize & (RING - 1);
        let centred =
            integrator[0] == integrator[1] && charge[0] == charge[1] && self.stereo_ring_is_empty();
        if centred {
            // Centred sound, as usual: both sides compute the same, once is enough. The
            // batch's slots are one run of the ring, or two where it wraps round (rare: a
            // flush leaves the head at slot 0); each run is a straight loop.
            //
            // The capacitor runs as in [`highpass`], but carried from sample to sample as
            // `kept`, the integrator's lead over the charge that the capacitor keeps: the
            // next sample's lead is then `kept` plus the integrator's move, so the chain from
            // one sample to the next is one multiply, shift and add (the charge, `integrator`
            // minus `kept`, is needed only at the end). The same numbers as `highpass`.
            //
            // The chain keeps only what the next sample needs; each sample's `passed` goes to
            // a scratch array, and turning those into output samples is a second pass, free
            // of the chain, several samples per vector instruction.
            let mut integrator_now = integrator[0];
            let mut kept = i64::from(integrator[0]) - i64::from(charge[0]);
            // Not zeroed: the chain writes the first `n`, and only those are read.
            let mut passed_all = [MaybeUninit::<i64>::uninit(); BATCH];
            let first_run = n.min(RING - start);
            for (slot, done, len) in [(start, 0, first_run), (0, first_run, n - first_run)] {
                let slots = &mut self.centre_ring[slot..slot + len];
                let shares = &queued[done..done + len];
                let passed_run = &mut passed_all[done..done + len];
                let mut chain = |centre: i32, share: i32| {
                    let next = integrator_now.wrapping_add(centre.wrapping_add(share));
                    let passed = i64::from(next) - i64::from(integrator_now) + kept;
                    integrator_now = next;
                    kept = highpass_kept(passed);
                    passed
                };
                // Four samples a turn: the loop's own count and test, once per four.
                let whole = len & !3;
                let fours = slots[..whole]
                    .chunks_exact(4)
                    .zip(shares[..whole].chunks_exact(4));
                for ((centre, share), passed_out) in fours.zip(passed_run.chunks_exact_mut(4)) {
                    for k in 0..4 {
                        passed_out[k].write(chain(centre[k], share[k]));
                    }
                }
                let rest = slots[whole..].iter().zip(&shares[whole..]);
                for ((&centre, &share), passed_out) in rest.zip(&mut passed_run[whole..]) {
                    passed_out.write(chain(centre, share));
                }
                slots.fill(0);
            }
            // SAFETY: the two runs above wrote all of the first `n`.
            let passed_all = unsafe { assume_init(&passed_all[..n]) };
            centre_samples_with::<AVX2>(passed_all, out);
            // The charge lies between its old value and the integrator's (both `i32`).
            let charge_now = (i64::from(integrator_now) - kept) as i32;
            (integrator, charge) = ([integrator_now; 2], [charge_now; 2]);
        } else {
            let mut head = start;
            for (&queued, sample) in queued[..n].iter().zip(out.chunks_exact_mut(2)) {
                head &= RING - 1;
                let centre = std::mem::take(&mut self.centre_ring[head]).wrapping_add(queued);
                for side in 0..2 {
                    let input = integrator[side]
                        .wrapping_add(std::mem::take(&mut self.ring[2 * head + side]))
                        .wrapping_add(centre);
                    integrator[side] = input;
                    (charge[side], sample[side]) = highpass(input, charge[side]);
                }
                head += 1;
            }
        }
        self.head = ((start + n) & (RING - 1)) as u32;
        self.offset_ticks = self.offset_ticks.wrapping_sub(n as u32 * TICKS_PER_SAMPLE);
        self.set_integrators(integrator);
        self.set_highpass_charges(charge);
        centred
    }
}

/// One output sample's step of the capacitor: the new charge and the sample for the
/// integrator's value `input`.
#[inline(always)]
fn highpass(input: i32, charge: i32) -> (i32, i16) {
    // The capacitor passes changes and leaks towards the input's DC level.
    let passed = i64::from(input) - i64::from(charge);
    let charge = (i64::from(input) - highpass_kept(passed)) as i32;
    (charge, highpass_sample(passed))
}

/// What the capacitor keeps of the `passed` difference between the integrator and its
/// charge: `passed * HIGHPASS_KEEP_Q16 / 65536`, truncated towards zero, so that with a
/// constant input the output reaches exactly 0 instead of sticking at -1 (an arithmetic
/// shift would round down forever). `passed` is the difference of two `i32`s.
#[inline(always)]
fn highpass_kept(passed: i64) -> i64 {
    // Truncating is flooring after adding 65535 to a negative product; the product has the
    // sign of `passed`, which is known before the multiply is done (a shorter chain from
    // one sample to the next than the division's own test of the product).
    let bias = (passed >> 63) & 0xFFFF;
    (passed * HIGHPASS_KEEP_Q16 + bias) >> 16
}

/// The output sample for the `passed` difference: Q14 to 16 bits, truncated, saturated.
#[inline(always)]
fn highpass_sample(passed: i64) -> i16 {
    (passed / (1 << ONE_BITS)).clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

/// A centre step a [`Steps`] holds: unpacked, as spreading it needs nothing more.
#[derive(Clone, Copy, Default)]
struct HeldStep {
    /// Sample-clock ticks from the start of the `head` sample (below the lag limit).
    offset_ticks: u32,
    /// The change of both sides' level (fits the queue's packing).
    delta: i32,
}

/// [`HeldStep::END`]'s ticks: past the end of any window of the ring, even with the head's
/// ticks added (no overflow).
const END_TICKS: u32 = u32::MAX >> 1;
const _: () = assert!((RING as u32) << TICKS_PER_SAMPLE_BITS < END_TICKS / 2);

impl HeldStep {
    /// Marks the end of the steps [`SynthState::spread_held_steps_avx2`] takes.
    const END: HeldStep = HeldStep {
        offset_ticks: END_TICKS,
        delta: 0,
    };
}

/// `values` as the values it holds.
///
/// # Safety
/// Every entry of `values` must have been written.
#[inline]
unsafe fn assume_init(values: &[MaybeUninit<i64>]) -> &[i64] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the caller vouches that each entry
    // holds a value.
    unsafe { &*(std::ptr::from_ref(values) as *const [i64]) }
}

/// [left, right] as [left, right - left], wrapping: exact both ways.
#[inline]
fn to_left_side([left, right]: [i32; 2]) -> [i32; 2] {
    [left, right.wrapping_sub(left)]
}

#[inline]
fn from_left_side([left, side]: [i32; 2]) -> [i32; 2] {
    [left, left.wrapping_add(side)]
}

/// A queued centre step's (tap of the `head` sample, phase, delta).
#[inline]
fn unpack_step(word: u32) -> (i32, usize, i32) {
    let tap = (word & ((1 << TAP_BITS) - 1)) as i32 - TAP_BIAS;
    let phase = (word >> TAP_BITS) as usize & (PHASES - 1);
    let delta = word as i32 >> DELTA_SHIFT;
    (tap, phase, delta)
}

#[cfg(test)]
mod tests;
