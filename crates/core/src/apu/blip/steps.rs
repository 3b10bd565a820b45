//! The synthesizer while the channels run ([`Steps`]): centre steps held back outside the
//! state and queued or spread together.

use super::*;

/// Centre steps a [`Steps`] holds back before they join the queue or are spread.
const HELD_STEPS: usize = 8 * STEP_QUEUE;
/// The most changes [`Steps::alternating_centre_changes`] takes at once (bits of its mask).
pub(in crate::apu) const TRAIN_CHANGES: usize = 64;
// A train fits after the newest `STEP_QUEUE` (`spread_all_but_newest`).
const _: () = assert!(HELD_STEPS.is_power_of_two() && HELD_STEPS >= STEP_QUEUE + TRAIN_CHANGES);

/// The synthesizer while the channels run: it takes the present's moves and level changes
/// like [`SynthState`], but holds centre steps back, outside the state, and queues them
/// together (when it is dropped, when it is full, or before a sample is finished). Only the
/// newest `STEP_QUEUE` of them can stay queued; the others are spread at once, straight from
/// their time and delta, instead of being packed, queued and then pushed out one by one. The
/// state ends exactly as if each step had been queued in turn (wrapping sums commute, so the
/// order of spreading does not matter).
pub(in crate::apu) struct Steps<'a> {
    synth: &'a mut SynthState,
    /// The held steps, oldest first: those below `count` have been written.
    held: [MaybeUninit<HeldStep>; HELD_STEPS],
    count: usize,
    /// Whether a step held since this began has a delta outside ±`i16::MAX` (rare: one
    /// channel's change is at most ±9,600); until then, spreading skips `add_scaled`'s
    /// check for the high part.
    wide: bool,
}

impl SynthState {
    /// Takes level changes for a while, holding centre steps back (see [`Steps`]).
    pub(in crate::apu) fn steps(&mut self) -> Steps<'_> {
        Steps {
            synth: self,
            // Not zeroed: a catch-up often holds a few steps or none.
            held: [const { MaybeUninit::uninit() }; HELD_STEPS],
            count: 0,
            wide: false,
        }
    }
}

impl Steps<'_> {
    /// The APU's present moves `t_cycles` on.
    #[inline]
    pub(in crate::apu) fn advance(&mut self, t_cycles: u32) {
        let synth = &mut *self.synth;
        synth.offset_ticks = synth
            .offset_ticks
            .wrapping_add(t_cycles.wrapping_mul(TICKS_PER_T_CYCLE));
        if synth.offset_ticks >= LAG_LIMIT_TICKS {
            self.drop_lagging_samples();
        }
    }

    /// The clock ran past the lag limit (only a corrupt or hand-made state gets here): the
    /// held steps go to the synthesizer, which finishes and drops samples. Out of line, so
    /// that each inlined [`Self::advance`] in the channels' loops stays a few instructions.
    #[cold]
    #[inline(never)]
    fn drop_lagging_samples(&mut self) {
        self.commit();
        self.synth.advance(0);
    }

    /// The mixer's level is now `level` (from the present moment on).
    #[inline]
    pub(in crate::apu) fn set_level(&mut self, level: [i32; 2]) {
        let synth = &mut *self.synth;
        let old = synth.level();
        let delta = [level[0].wrapping_sub(old[0]), level[1].wrapping_sub(old[1])];
        if delta == [0, 0] {
            return;
        }
        synth.level_coded = to_left_side(level);
        if delta[0] == delta[1] && (-QUEUED_DELTA_MAX..=QUEUED_DELTA_MAX).contains(&delta[0]) {
            if self.count == HELD_STEPS {
                self.spread_all_but_newest();
            }
            self.held[self.count] = MaybeUninit::new(HeldStep {
                offset_ticks: self.synth.offset_ticks,
                delta: delta[0],
            });
            self.count += 1;
            self.wide |= !fits_i16_both_ways(delta[0]);
            return;
        }
        synth.spread_step_now(delta);
    }

    /// A train of changes that move both sides alike and alternate in sign: for each set
    /// bit `k` of `mask`, lowest first, the level changes at `first + k * spacing` T-cycles
    /// from the present by `delta`, then `-delta`, `delta`, ...; afterwards the present is
    /// `end` T-cycles on (at or after the last change). The same as [`Self::advance`] and
    /// [`Self::set_level`] for each change, but the usual case packs the steps in a tight
    /// loop: a channel toggling between a volume and 0 (noise, square) changes like this,
    /// often several times per output sample.
    #[inline]
    pub(in crate::apu) fn alternating_centre_changes(
        &mut self,
        first: u32,
        spacing: u32,
        mask: u64,
        delta: i32,
        end: u32,
    ) {
        let start = self.synth.offset_ticks;
        // In 64 bits: the fast path must not be taken on an overflow.
        let end_ticks = u64::from(start) + u64::from(end) * u64::from(TICKS_PER_T_CYCLE);
        let fast = delta != 0
            && (-QUEUED_DELTA_MAX..=QUEUED_DELTA_MAX).contains(&delta)
            && end_ticks < u64::from(LAG_LIMIT_TICKS);
        if !fast {
            self.alternating_changes_one_by_one(first, spacing, mask, delta, end);
            return;
        }
        if self.count > HELD_STEPS - TRAIN_CHANGES {
            // A train may not fit (`TRAIN_CHANGES` at most; counting them costs more than this):
            // more than `STEP_QUEUE` are held, and spreading the older ones now or later
            // ends the same. After this, `STEP_QUEUE` + `TRAIN_CHANGES` fit.
            self.spread_all_but_newest();
        }
        // Below the lag limit, so none of this overflows.
        let base = start + first * TICKS_PER_T_CYCLE;
        let stride = spacing * TICKS_PER_T_CYCLE;
        let (mut mask, negated) = (mask, delta.wrapping_neg());
        // Two changes a turn, `delta` then `negated`: no sign to carry from one to the next.
        debug_assert!(self.count <= HELD_STEPS - TRAIN_CHANGES);
        let first_slot = self.held[self.count..].as_mut_ptr();
        let mut slot = first_slot;
        while mask != 0 {
            let offset_ticks = base + mask.trailing_zeros() * stride;
            mask &= mask - 1;
            // SAFETY: at most `TRAIN_CHANGES` (the bits of `mask`) are written from `count`
            // on, which is at most `HELD_STEPS - TRAIN_CHANGES` (see above): all in `held`.
            unsafe {
                slot.write(MaybeUninit::new(HeldStep {
                    offset_ticks,
                    delta,
                }));
                slot = slot.add(1);
            }
            if mask == 0 {
                break;
            }
            let offset_ticks = base + mask.trailing_zeros() * stride;
            mask &= mask - 1;
            // SAFETY: as above.
            unsafe {
                slot.write(MaybeUninit::new(HeldStep {
                    offset_ticks,
                    delta: negated,
                }));
                slot = slot.add(1);
            }
        }
        // SAFETY: both point into `held`, `slot` at or after `first_slot`.
        let changes = unsafe { slot.offset_from(first_slot) } as usize;
        let odd = changes % 2 == 1;
        self.wide |= !fits_i16_both_ways(delta);
        self.count += changes;
        self.synth.offset_ticks = end_ticks as u32;
        if odd {
            // Centre changes leave the coded level's second word (right minus left) alone.
            self.synth.level_coded[0] = self.synth.level_coded[0].wrapping_add(delta);
        }
    }

    /// [`Self::alternating_centre_changes`] the long way, for the unusual cases.
    #[cold]
    #[inline(never)]
    fn alternating_changes_one_by_one(
        &mut self,
        first: u32,
        spacing: u32,
        mut mask: u64,
        mut delta: i32,
        end: u32,
    ) {
        let mut now = 0;
        while mask != 0 {
            let when = first + mask.trailing_zeros() * spacing;
            mask &= mask - 1;
            self.advance(when - now);
            now = when;
            let level = self.synth.level();
            self.set_level(level.map(|side| side.wrapping_add(delta)));
            delta = delta.wrapping_neg();
        }
        self.advance(end - now);
    }

    /// Spreads every held step but the newest `STEP_QUEUE` (which must be held), and every
    /// queued one: all of them are older than those, so none of them could stay queued.
    #[inline(never)]
    fn spread_all_but_newest(&mut self) {
        let count = self.count.min(HELD_STEPS);
        debug_assert!(count >= STEP_QUEUE);
        let oldest = count - STEP_QUEUE;
        let avx2 = has_avx2();
        if avx2 {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2, the only feature the function enables.
            unsafe {
                self.synth.spread_queue_avx2();
            }
        } else {
            self.synth.spread_queue::<false>();
        }
        // SAFETY: the held steps below `count` have been written.
        let steps = unsafe { assume_written(&self.held[..oldest]) };
        if self.wide {
            self.synth.spread_held_steps::<true>(steps);
        } else if avx2 {
            // The first step kept (`oldest < count`) stands in for the end mark meanwhile.
            let kept = self.held[oldest];
            self.held[oldest] = MaybeUninit::new(HeldStep::END);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2, the only feature the function enables; the held steps
            // below `oldest` have been written, and the end mark after them.
            unsafe {
                self.synth
                    .spread_held_steps_avx2(assume_written(&self.held[..=oldest]));
            }
            self.held[oldest] = kept;
        } else {
            self.synth.spread_held_steps::<false>(steps);
        }
        self.held.copy_within(oldest..count, 0);
        self.count = STEP_QUEUE;
    }

    /// Hands the held steps to the synthesizer: the newest `STEP_QUEUE` of them and of the
    /// queue stay queued, the others are spread.
    fn commit(&mut self) {
        if self.count >= STEP_QUEUE {
            self.spread_all_but_newest();
            // That left exactly the newest `STEP_QUEUE` held and the queue empty: they are
            // the whole queue, packed in place (no staging array, no shifting of the queue).
            debug_assert!(self.count == STEP_QUEUE && self.synth.centre_step_count == 0);
            // SAFETY: the held steps below `self.count` have been written.
            let steps = unsafe { assume_written(&self.held[..STEP_QUEUE]) };
            let steps: &[HeldStep; STEP_QUEUE] = steps.try_into().expect("a queue of steps");
            // A whole array, so the packing is one fixed block of vector operations.
            self.synth.centre_steps =
                std::array::from_fn(|i| pack_centre_step(steps[i].offset_ticks, steps[i].delta));
            self.synth.centre_step_count = STEP_QUEUE as u32;
            self.count = 0;
            return;
        }
        let count = self.count;
        if count == 0 {
            return;
        }
        let mut words = [0; STEP_QUEUE];
        // SAFETY: the held steps below `self.count` (at least `count`) have been written.
        let steps = unsafe { assume_written(&self.held[..count]) };
        for (word, step) in words.iter_mut().zip(steps) {
            *word = pack_centre_step(step.offset_ticks, step.delta);
        }
        self.count = 0;
        self.synth.queue_centre_steps(&words[..count]);
    }
}

impl Drop for Steps<'_> {
    fn drop(&mut self) {
        self.commit();
    }
}

/// `held` as the steps it holds.
///
/// # Safety
/// Every entry of `held` must have been written.
#[inline]
unsafe fn assume_written(held: &[MaybeUninit<HeldStep>]) -> &[HeldStep] {
    // SAFETY: `MaybeUninit<T>` has `T`'s layout, and the caller vouches that each entry
    // holds a value.
    unsafe { &*(std::ptr::from_ref(held) as *const [HeldStep]) }
}

/// A centre step of `delta` at `offset_ticks` after the start of the head sample, packed for
/// the queue.
#[inline]
fn pack_centre_step(offset_ticks: u32, delta: i32) -> u32 {
    let ahead = (offset_ticks >> TICKS_PER_SAMPLE_BITS) as i32;
    let tap = (TAP_BIAS - ahead) as u32 & ((1 << TAP_BITS) - 1);
    let phase = (offset_ticks >> PHASE_SHIFT) & (PHASES as u32 - 1);
    tap | phase << TAP_BITS | (delta as u32) << DELTA_SHIFT
}
