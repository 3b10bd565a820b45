//! XXH64 (seed 0), streaming: the 64-bit hash of the movie format's checkpoints. Chosen
//! because it is fast (a 190 KiB `State` hashes in well under a frame's time), published
//! (`xxhash_spec.md` in Cyan4973/xxHash), and easy to reproduce in another tool. Fed in
//! pieces, it gives the hash of the concatenated bytes.

const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

/// A running XXH64 with seed 0.
#[derive(Clone)]
pub struct Xxh64 {
    lanes: [u64; 4],
    /// Bytes of an incomplete 32-byte stripe.
    buffer: [u8; 32],
    buffered: usize,
    total_len: u64,
}

impl Default for Xxh64 {
    fn default() -> Xxh64 {
        Xxh64::new()
    }
}

#[inline(always)]
fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

#[inline(always)]
fn merge(acc: u64, lane: u64) -> u64 {
    (acc ^ round(0, lane)).wrapping_mul(P1).wrapping_add(P4)
}

#[inline(always)]
fn word(bytes: &[u8]) -> u64 {
    let mut array = [0; 8];
    array.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(array)
}

impl Xxh64 {
    pub fn new() -> Xxh64 {
        Xxh64 {
            lanes: [P1.wrapping_add(P2), P2, 0, 0u64.wrapping_sub(P1)],
            buffer: [0; 32],
            buffered: 0,
            total_len: 0,
        }
    }

    #[inline(always)]
    fn stripe(&mut self, stripe: &[u8]) {
        for (lane, chunk) in self.lanes.iter_mut().zip(stripe.chunks_exact(8)) {
            *lane = round(*lane, word(chunk));
        }
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        self.total_len = self.total_len.wrapping_add(bytes.len() as u64);
        if self.buffered > 0 {
            let take = (32 - self.buffered).min(bytes.len());
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&bytes[..take]);
            self.buffered += take;
            bytes = &bytes[take..];
            if self.buffered < 32 {
                return;
            }
            let buffer = self.buffer;
            self.stripe(&buffer);
            self.buffered = 0;
        }
        let mut stripes = bytes.chunks_exact(32);
        for stripe in &mut stripes {
            self.stripe(stripe);
        }
        let rest = stripes.remainder();
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
    }

    pub fn finish(&self) -> u64 {
        let mut hash = if self.total_len >= 32 {
            let [v1, v2, v3, v4] = self.lanes;
            let mut h = v1
                .rotate_left(1)
                .wrapping_add(v2.rotate_left(7))
                .wrapping_add(v3.rotate_left(12))
                .wrapping_add(v4.rotate_left(18));
            for lane in self.lanes {
                h = merge(h, lane);
            }
            h
        } else {
            P5
        };
        hash = hash.wrapping_add(self.total_len);
        let mut rest = &self.buffer[..self.buffered];
        while rest.len() >= 8 {
            hash ^= round(0, word(rest));
            hash = hash.rotate_left(27).wrapping_mul(P1).wrapping_add(P4);
            rest = &rest[8..];
        }
        if rest.len() >= 4 {
            let mut array = [0; 4];
            array.copy_from_slice(&rest[..4]);
            hash ^= u64::from(u32::from_le_bytes(array)).wrapping_mul(P1);
            hash = hash.rotate_left(23).wrapping_mul(P2).wrapping_add(P3);
            rest = &rest[4..];
        }
        for &byte in rest {
            hash ^= u64::from(byte).wrapping_mul(P5);
            hash = hash.rotate_left(11).wrapping_mul(P1);
        }
        hash ^= hash >> 33;
        hash = hash.wrapping_mul(P2);
        hash ^= hash >> 29;
        hash = hash.wrapping_mul(P3);
        hash ^ (hash >> 32)
    }
}

/// XXH64 of `bytes`, seed 0.
pub fn xxh64(bytes: &[u8]) -> u64 {
    let mut hasher = Xxh64::new();
    hasher.update(bytes);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_vectors() {
        // From the xxHash reference implementation's sanity checks.
        assert_eq!(xxh64(b""), 0xEF46_DB37_51D8_E999);
        assert_eq!(xxh64(b"abc"), 0x44BC_2CF5_AD77_0999);
    }

    #[test]
    fn pieces_hash_as_the_whole() {
        let bytes: Vec<u8> = (0..1000u32).map(|i| (i * 7 + i / 13) as u8).collect();
        let whole = xxh64(&bytes);
        for split in [0, 1, 7, 31, 32, 33, 100, 999] {
            let mut hasher = Xxh64::new();
            hasher.update(&bytes[..split]);
            for chunk in bytes[split..].chunks(13) {
                hasher.update(chunk);
            }
            assert_eq!(hasher.finish(), whole, "split at {split}");
        }
    }
}
