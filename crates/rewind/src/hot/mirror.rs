//! The mirror: a region whose new value is usually a copy of another region's old value
//! (OAM, copied by DMA from a shadow page of work RAM), coded against that old value (see
//! the parent module).

use crate::codec::{get_varint, put_varint};

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
    // SAFETY: every x86-64 processor has SSE2.
    #[cfg(target_arch = "x86_64")]
    return unsafe { equal_bytes_sse2(a, b) };
    #[cfg(not(target_arch = "x86_64"))]
    return equal_bytes_lanes(a, b);
}

/// [`equal_bytes`] in byte lanes of arrays (what the compiler vectorises itself).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn equal_bytes_lanes(a: &[u8], b: &[u8]) -> usize {
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

/// [`equal_bytes`] with SSE2 (every x86-64 has it): 16 lanes counted in one register,
/// summed with one sum of absolute differences, where the lanes of an array were widened
/// and added one by one (a vote makes many short calls, one per candidate source).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn equal_bytes_sse2(a: &[u8], b: &[u8]) -> usize {
    use std::arch::x86_64::{
        __m128i, _mm_add_epi64, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_sad_epu8,
        _mm_setzero_si128, _mm_srli_si128, _mm_sub_epi8,
    };
    const LANES: usize = 16;
    const STEPS: usize = u8::MAX as usize;
    let len = a.len().min(b.len());
    let whole = len / LANES * LANES;
    let (a, b) = (&a[..len], &b[..len]);
    let mut equal = 0;
    let mut at = 0;
    // Offsets rather than chunk iterators: a call is a few steps, and the iterators' own
    // bookkeeping cost as much as the steps.
    while at < whole {
        let end = (at + STEPS * LANES).min(whole);
        let mut counts = _mm_setzero_si128();
        while at < end {
            // SAFETY: `at + LANES <= whole`, within both slices (cut to `len`); the loads
            // are unaligned ones.
            let (x, y) = unsafe {
                (
                    _mm_loadu_si128(a.as_ptr().add(at).cast::<__m128i>()),
                    _mm_loadu_si128(b.as_ptr().add(at).cast::<__m128i>()),
                )
            };
            // An equal byte compares to 0xFF, minus one: its lane counts up by one.
            counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(x, y));
            at += LANES;
        }
        let sums = _mm_sad_epu8(counts, _mm_setzero_si128());
        let total = _mm_add_epi64(sums, _mm_srli_si128::<8>(sums));
        equal += _mm_cvtsi128_si64(total) as usize;
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
        if self.calls.is_multiple_of(VOTE_EVERY) {
            self.tally(spec, base, cur);
        }
    }

    /// `vote`'s comparisons, once every `VOTE_EVERY` deltas: out of line, so that the
    /// path the other deltas take stays short.
    #[cold]
    #[inline(never)]
    fn tally(&mut self, spec: MirrorSpec, base: &[u8], cur: &[u8]) {
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
            assert_eq!(equal_bytes_lanes(&a, &b), expected, "len {len}");
        }
    }
}
