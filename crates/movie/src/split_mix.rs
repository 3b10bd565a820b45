//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
//! 2014): one `u64` of state, good statistical quality, identical on every platform. The
//! generator behind [`InputScript`](crate::InputScript); tests share it through
//! `backspin-test-support`, so a seed means the same sequence everywhere.

/// A seeded SplitMix64 generator. The same seed gives the same sequence everywhere; tests
/// print their seed so a failure can be replayed.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator whose first output is the SplitMix64 successor of `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`n` > 0). The modulo bias is irrelevant at test sizes.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// A value in `lo..=hi` (`lo` <= `hi`).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Fills `bytes` with random bytes, eight per output, little-endian.
    pub fn fill(&mut self, bytes: &mut [u8]) {
        for chunk in bytes.chunks_mut(8) {
            let word = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SplitMix64;

    /// The reference outputs for seed 0 (as in the paper's and Java's SplittableRandom).
    #[test]
    fn matches_the_reference_sequence() {
        let mut rng = SplitMix64::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn range_stays_inclusive() {
        let mut rng = SplitMix64::new(7);
        for _ in 0..1000 {
            assert!((5..=40).contains(&rng.range(5, 40)));
            assert!(rng.below(3) < 3);
        }
    }
}
