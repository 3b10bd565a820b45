//! The synthesizer's vector arithmetic: a step's taps scaled and added to ring slots (SSE2
//! multiply-adds, or eight slots at a time with AVX2), and centred batches' differences
//! turned into stereo samples, each with the plain loop it stands for (the tests' oracle).

use super::*;

/// Adds `sum` to the 8 slots of `ring` from `slot` on.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn add_group(ring: &mut [i32; RING], slot: usize, sum: core::arch::x86_64::__m256i) {
    use core::arch::x86_64::{__m256i, _mm256_add_epi32};
    let group = &mut ring[slot..slot + 8];
    let old: __m256i = bytemuck::pod_read_unaligned(bytemuck::cast_slice::<i32, u8>(group));
    let new = _mm256_add_epi32(old, sum);
    group.copy_from_slice(&bytemuck::cast::<__m256i, [i32; 8]>(new));
}

/// Adds the sums of [`SynthState::spread_held_steps_avx2`] to the window of `ring` from
/// `slot` on.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn add_groups(
    ring: &mut [i32; RING],
    slot: usize,
    sums: [core::arch::x86_64::__m256i; ALIGNED_WINDOW_8 / 8],
) {
    for (group, sum) in sums.into_iter().enumerate() {
        add_group(ring, slot + 8 * group, sum);
    }
}

/// Each of `passed` as an output sample ([`highpass_sample`]), on both sides of `out`
/// (interleaved left, right: `2 * passed.len()` entries).
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
pub(super) fn centre_samples(passed: &[i64], out: &mut [i16]) {
    debug_assert!(out.len() == 2 * passed.len());
    let (passed_8, passed_rest) = passed.split_at(passed.len() & !7);
    let (out_8, out_rest) = out.split_at_mut(2 * passed_8.len());
    for (passed, out) in passed_8.chunks_exact(8).zip(out_8.chunks_exact_mut(16)) {
        let passed: &[i64; 8] = passed.try_into().expect("8 differences");
        let out: &mut [i16; 16] = out.try_into().expect("8 stereo samples");
        // SAFETY: the cfg above makes SSE2, the only feature the function enables, part of
        // this build's target.
        unsafe { centre_samples_8_sse2(passed, out) };
    }
    centre_samples_plain(passed_rest, out_rest);
}

#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
pub(super) fn centre_samples(passed: &[i64], out: &mut [i16]) {
    centre_samples_plain(passed, out);
}

/// [`centre_samples`], or with AVX2 if `AVX2` (the caller vouches for the CPU: only
/// functions that enable AVX2 pass it).
#[inline(always)]
pub(super) fn centre_samples_with<const AVX2: bool>(passed: &[i64], out: &mut [i16]) {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: the caller vouches that the CPU has AVX2.
        unsafe { centre_samples_avx2(passed, out) };
        return;
    }
    centre_samples(passed, out);
}

/// [`centre_samples`] with AVX2: eight samples per turn, in one 32-byte store.
///
/// # Safety
/// The CPU must have AVX2 ([`has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn centre_samples_avx2(passed: &[i64], out: &mut [i16]) {
    debug_assert!(out.len() == 2 * passed.len());
    let (passed_8, passed_rest) = passed.split_at(passed.len() & !7);
    let (out_8, out_rest) = out.split_at_mut(2 * passed_8.len());
    for (passed, out) in passed_8.chunks_exact(8).zip(out_8.chunks_exact_mut(16)) {
        let passed: &[i64; 8] = passed.try_into().expect("8 differences");
        let out: &mut [i16; 16] = out.try_into().expect("8 stereo samples");
        centre_samples_8_avx2(passed, out);
    }
    centre_samples_plain(passed_rest, out_rest);
}

/// [`centre_samples_8_sse2`] with AVX2, the same steps four lanes at a time: the quotient
/// of each difference fits 32 bits, the saturating pack is the clamp, and unpacking the
/// packed samples with themselves puts each on both sides.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn centre_samples_8_avx2(passed: &[i64; 8], out: &mut [i16; 16]) {
    use core::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_castps_si256, _mm256_castsi256_ps,
        _mm256_cmpgt_epi64, _mm256_packs_epi32, _mm256_permute4x64_epi64, _mm256_set1_epi64x,
        _mm256_setzero_si256, _mm256_shuffle_ps, _mm256_srli_epi64, _mm256_unpacklo_epi16,
    };
    let bias = _mm256_set1_epi64x((1 << ONE_BITS) - 1);
    let quotients = |four: &[i64]| {
        let four: __m256i = bytemuck::pod_read_unaligned(bytemuck::cast_slice::<i64, u8>(four));
        let negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), four);
        let quotient = _mm256_srli_epi64(
            _mm256_add_epi64(four, _mm256_and_si256(negative, bias)),
            ONE_BITS as i32,
        );
        _mm256_castsi256_ps(quotient)
    };
    let (first, second) = (quotients(&passed[..4]), quotients(&passed[4..]));
    // The low 32 bits of each lane, per 128-bit half: samples 0, 1, 4, 5 | 2, 3, 6, 7;
    // the 64-bit pairs put back in order.
    let words = _mm256_castps_si256(_mm256_shuffle_ps(first, second, 0b10_00_10_00));
    let words = _mm256_permute4x64_epi64(words, 0b11_01_10_00);
    // Per 128-bit half: samples 0-3 (or 4-7) packed twice; the low four, each doubled.
    let samples = _mm256_packs_epi32(words, words);
    let stereo = _mm256_unpacklo_epi16(samples, samples);
    out.copy_from_slice(&bytemuck::cast::<__m256i, [i16; 16]>(stereo));
}

/// [`centre_samples`] one sample at a time (and its oracle in the tests).
#[inline]
pub(super) fn centre_samples_plain(passed: &[i64], out: &mut [i16]) {
    for (&passed, sample) in passed.iter().zip(out.chunks_exact_mut(2)) {
        let value = highpass_sample(passed);
        sample[0] = value;
        sample[1] = value;
    }
}

/// [`centre_samples`] for eight samples with SSE2. A difference of two `i32`s (less than
/// 2^33 either way) divided by 2^14, truncated, fits 32 bits: adding 2^14 - 1 to a negative
/// one, a logical shift of the 64 bits leaves the quotient in the low 32; the saturating
/// pack to 16 bits is the clamp.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn centre_samples_8_sse2(passed: &[i64; 8], out: &mut [i16; 16]) {
    use core::arch::x86_64::{
        __m128, __m128i, _mm_add_epi64, _mm_and_si128, _mm_castps_si128, _mm_castsi128_ps,
        _mm_packs_epi32, _mm_set1_epi64x, _mm_shuffle_epi32, _mm_shuffle_ps, _mm_srai_epi32,
        _mm_srli_epi64, _mm_unpackhi_epi16, _mm_unpacklo_epi16,
    };
    let bias = _mm_set1_epi64x((1 << ONE_BITS) - 1);
    let quotients = |pair: &[i64]| -> __m128 {
        let pair: __m128i = bytemuck::pod_read_unaligned(bytemuck::cast_slice::<i64, u8>(pair));
        // Each lane's sign, from its high word, over the whole lane.
        let sign = _mm_srai_epi32(_mm_shuffle_epi32(pair, 0b11_11_01_01), 31);
        let quotient = _mm_srli_epi64(
            _mm_add_epi64(pair, _mm_and_si128(sign, bias)),
            ONE_BITS as i32,
        );
        _mm_castsi128_ps(quotient)
    };
    let mut low_words = [_mm_castps_si128(quotients(&passed[..2])); 2];
    for (half, words) in low_words.iter_mut().enumerate() {
        let (first, second) = (
            quotients(&passed[4 * half..][..2]),
            quotients(&passed[4 * half + 2..][..2]),
        );
        // The low 32 bits of each of the four lanes.
        *words = _mm_castps_si128(_mm_shuffle_ps(first, second, 0b10_00_10_00));
    }
    let samples = _mm_packs_epi32(low_words[0], low_words[1]);
    let stereo = [
        _mm_unpacklo_epi16(samples, samples),
        _mm_unpackhi_epi16(samples, samples),
    ];
    out.copy_from_slice(&bytemuck::cast::<[__m128i; 2], [i16; 16]>(stereo));
}

/// `slots[i] += delta * weights[i]` (wrapping) over `N` slots (16 or `ALIGNED_WINDOW`).
///
/// The multiplies run 16 bits wide, eight to a vector instruction: `delta` is split into its
/// sign-extended low 16 bits and the rest, `delta = low + high * 65536`, so that
/// `weight * delta = weight * low + (weight * high) << 16` exactly (wrapping). The second
/// part is zero for nearly every step (one channel's change is at most ±9,600).
#[inline(always)]
pub(super) fn add_scaled<const N: usize>(slots: &mut [i32], weights: &[i16], delta: i32) {
    let slots: &mut [i32; N] = slots.try_into().expect("N slots");
    let weights: &[i16; N] = weights.try_into().expect("N weights");
    let low = delta as i16;
    add_scaled_low::<N>(slots, weights, low);
    let high = delta.wrapping_sub(i32::from(low)) >> 16;
    if high != 0 {
        add_scaled_high(slots, weights, high);
    }
}

/// [`add_scaled`] for a delta that fits 16 bits (its `low` part alone).
#[inline(always)]
pub(super) fn add_scaled_low<const N: usize>(slots: &mut [i32], weights: &[i16], low: i16) {
    let slots: &mut [i32; N] = slots.try_into().expect("N slots");
    let weights: &[i16; N] = weights.try_into().expect("N weights");
    for (slot, &weight) in slots.iter_mut().zip(weights) {
        *slot = slot.wrapping_add(i32::from(weight) * i32::from(low));
    }
}

/// `slots[i] += low * weights[i]` (wrapping) for the weights of row `row` of
/// [`ALIGNED_STEP`]: [`add_scaled_low`], four slots per SSE2 multiply-add.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(super) fn add_scaled_window(slots: &mut [i32; ALIGNED_WINDOW], row: usize, low: i16) {
    // SAFETY: the cfg above makes SSE2, the only feature `add_scaled_pairs_sse2` enables,
    // part of this build's target (it is in every x86_64 CPU).
    unsafe { add_scaled_pairs_sse2(slots, &PAIRED_STEP.0[row], low) }
}

/// `slots[i] += delta * STEP[phase][first_tap + i]` (wrapping) over 16 slots (zero past
/// the row's end): [`add_scaled`] of a [`PADDED_STEP`] window, four slots per SSE2
/// multiply-add.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
pub(super) fn add_scaled_from_tap(slots: &mut [i32], phase: usize, first_tap: usize, delta: i32) {
    let slots: &mut [i32; TAPS] = slots.try_into().expect("16 slots");
    let pairs: &[u32; TAPS] = PADDED_PAIRS[phase][first_tap..][..TAPS]
        .try_into()
        .expect("16 weights");
    let low = delta as i16;
    // SAFETY: the cfg above makes SSE2, the only feature `add_scaled_pairs_sse2` enables,
    // part of this build's target (it is in every x86_64 CPU).
    unsafe { add_scaled_pairs_sse2(slots, pairs, low) };
    let high = delta.wrapping_sub(i32::from(low)) >> 16;
    if high != 0 {
        let weights = PADDED_STEP[phase][first_tap..][..TAPS].try_into();
        add_scaled_high(slots, weights.expect("16 weights"), high);
    }
}

/// [`add_scaled_from_tap`], or with AVX2 if `AVX2` (the caller vouches for the CPU: only
/// functions that enable AVX2 pass it).
#[inline(always)]
pub(super) fn add_scaled_from_tap_with<const AVX2: bool>(
    slots: &mut [i32],
    phase: usize,
    first_tap: usize,
    delta: i32,
) {
    #[cfg(target_arch = "x86_64")]
    if AVX2 {
        // SAFETY: the caller vouches that the CPU has AVX2.
        unsafe { add_scaled_from_tap_avx2(slots, phase, first_tap, delta) };
        return;
    }
    add_scaled_from_tap(slots, phase, first_tap, delta);
}

/// [`add_scaled_from_tap`] with AVX2: eight slots per multiply-add (the same sums).
///
/// # Safety
/// The CPU must have AVX2 ([`has_avx2`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn add_scaled_from_tap_avx2(
    slots: &mut [i32],
    phase: usize,
    first_tap: usize,
    delta: i32,
) {
    use core::arch::x86_64::{__m256i, _mm256_add_epi32, _mm256_madd_epi16, _mm256_set1_epi32};
    let slots: &mut [i32; TAPS] = slots.try_into().expect("16 slots");
    let pairs: &[u32; TAPS] = PADDED_PAIRS[phase][first_tap..][..TAPS]
        .try_into()
        .expect("16 weights");
    let low = delta as i16;
    // In each 32-bit lane `low` and a zero: the lane's product is `weight * low` exactly.
    let scale = _mm256_set1_epi32(i32::from(low as u16));
    for (chunk, pairs) in slots.chunks_exact_mut(8).zip(pairs.chunks_exact(8)) {
        let old: __m256i = bytemuck::pod_read_unaligned(bytemuck::cast_slice::<i32, u8>(chunk));
        let pairs: __m256i = bytemuck::pod_read_unaligned(bytemuck::cast_slice::<u32, u8>(pairs));
        let sum = _mm256_add_epi32(old, _mm256_madd_epi16(pairs, scale));
        chunk.copy_from_slice(&bytemuck::cast::<__m256i, [i32; 8]>(sum));
    }
    let high = delta.wrapping_sub(i32::from(low)) >> 16;
    if high != 0 {
        let weights = PADDED_STEP[phase][first_tap..][..TAPS].try_into();
        add_scaled_high(slots, weights.expect("16 weights"), high);
    }
}

/// `slots[i] += low * weights[i]` (wrapping) for weights zero-extended to 32 bits (see
/// [`PAIRED_STEP`]), four slots per multiply-add.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[target_feature(enable = "sse2")]
#[inline]
pub(super) fn add_scaled_pairs_sse2<const N: usize>(
    slots: &mut [i32; N],
    pairs: &[u32; N],
    low: i16,
) {
    use core::arch::x86_64::{__m128i, _mm_add_epi32, _mm_madd_epi16, _mm_set1_epi32};
    // In each 32-bit lane `low` and a zero: the lane's product is `weight * low` exactly.
    let scale = _mm_set1_epi32(i32::from(low as u16));
    for (chunk, pairs) in slots.chunks_exact_mut(4).zip(pairs.chunks_exact(4)) {
        let old: __m128i = bytemuck::pod_read_unaligned(bytemuck::cast_slice::<i32, u8>(chunk));
        let pairs: __m128i = bytemuck::pod_read_unaligned(bytemuck::cast_slice::<u32, u8>(pairs));
        let sum = _mm_add_epi32(old, _mm_madd_epi16(pairs, scale));
        chunk.copy_from_slice(&bytemuck::cast::<__m128i, [i32; 4]>(sum));
    }
}

/// [`add_scaled_from_tap`] without SSE2 (and its oracle in the tests).
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
pub(super) fn add_scaled_from_tap(slots: &mut [i32], phase: usize, first_tap: usize, delta: i32) {
    add_scaled_from_tap_plain(slots, phase, first_tap, delta);
}

#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
pub(super) fn add_scaled_from_tap_plain(
    slots: &mut [i32],
    phase: usize,
    first_tap: usize,
    delta: i32,
) {
    add_scaled::<TAPS>(slots, &PADDED_STEP[phase][first_tap..][..TAPS], delta);
}

/// [`add_scaled_window`] without SSE2 (and its oracle in the tests).
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
pub(super) fn add_scaled_window(slots: &mut [i32; ALIGNED_WINDOW], row: usize, low: i16) {
    add_scaled_window_plain(slots, row, low);
}

#[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
#[inline(always)]
pub(super) fn add_scaled_window_plain(slots: &mut [i32; ALIGNED_WINDOW], row: usize, low: i16) {
    add_scaled_low::<ALIGNED_WINDOW>(slots, &ALIGNED_STEP[row], low);
}

/// Whether `delta` and `-delta` both fit an `i16`.
#[inline]
pub(super) fn fits_i16_both_ways(delta: i32) -> bool {
    (-i32::from(i16::MAX)..=i32::from(i16::MAX)).contains(&delta)
}

/// The `high` part of [`add_scaled`].
#[cold]
#[inline(never)]
pub(super) fn add_scaled_high<const N: usize>(slots: &mut [i32; N], weights: &[i16; N], high: i32) {
    for (slot, &weight) in slots.iter_mut().zip(weights) {
        *slot = slot.wrapping_add(high.wrapping_mul(i32::from(weight)) << 16);
    }
}
