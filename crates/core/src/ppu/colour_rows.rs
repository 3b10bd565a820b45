//! A tile row's two bit planes as RGB555 pixels, eight at a time: a table spreads each
//! plane to one 16-bit lane per pixel, and a palette's four colours, spread across the lanes
//! once (`ColourQuad`), pick each lane's colour with a few word-wide operations. Pixel by
//! pixel, the same row takes a shift and a lookup per pixel.

use crate::cgb::palette_colours;

/// `LANE_MASKS[x]`: the bits of `x` as 16-bit lanes, 0xFFFF where set, left pixel (bit 7)
/// first: lane k of word 0 is bit 7 - k, lane k of word 1 is bit 3 - k.
const LANE_MASKS: [[u64; 2]; 256] = {
    let mut table = [[0u64; 2]; 256];
    let mut x = 0;
    while x < 256 {
        let mut pixel = 0;
        while pixel < 8 {
            if (x >> (7 - pixel)) & 1 != 0 {
                table[x][pixel / 4] |= 0xFFFF << (16 * (pixel % 4));
            }
            pixel += 1;
        }
        x += 1;
    }
    table
};

/// Every 16-bit lane of a word set to 1.
const EVERY_LANE: u64 = 0x0001_0001_0001_0001;

/// Four RGB555 colours (for colour numbers 0..=3), each spread to every 16-bit lane, as
/// colour 0 and differences (xor): a lane whose low and high colour bits have masks `l`
/// and `h` gets `base ^ (l & low) ^ (h & high) ^ (l & h & both)`, in which the other
/// colours cancel to leave colour `2h + l`. Each is held twice, once per half row, which
/// lets the compiler keep it in one vector register for all eight pixels.
#[derive(Clone, Copy)]
pub(super) struct ColourQuad {
    base: [u64; 2],
    low: [u64; 2],
    high: [u64; 2],
    both: [u64; 2],
}

impl ColourQuad {
    /// The quad of `colours` (RGB555, bit 15 clear).
    #[inline(always)]
    pub(super) fn new(colours: [u16; 4]) -> ColourQuad {
        let [c0, c1, c2, c3] = colours.map(|colour| u64::from(colour) * EVERY_LANE);
        ColourQuad {
            base: [c0; 2],
            low: [c0 ^ c1; 2],
            high: [c0 ^ c2; 2],
            both: [c0 ^ c1 ^ c2 ^ c3; 2],
        }
    }

    /// The quad of palette `palette` (0..=7) in palette RAM (`palette_colours`).
    #[inline(always)]
    pub(super) fn from_palette(ram: &[u8; 64], palette: u8) -> ColourQuad {
        ColourQuad::new(palette_colours(ram, palette))
    }

    /// The pixels of a tile row with colour planes `low` and `high` (bit 7 - i is pixel i).
    #[inline(always)]
    pub(super) fn pixels(self, low: u8, high: u8) -> [u16; 8] {
        let (l, h) = (LANE_MASKS[usize::from(low)], LANE_MASKS[usize::from(high)]);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            // SAFETY: the cfg above makes SSE2, the only feature `select_sse2` enables, part
            // of this build's target (it is in every x86_64 CPU).
            unsafe { self.select_sse2(l, h) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            self.select_words(l, h)
        }
    }

    /// `pixels` of this quad and, as one byte a pixel (left first), of `bytes`, whose
    /// colours are below 256 (compatibility mode's shades): the lane masks serve both.
    #[inline(always)]
    pub(super) fn pixels_and_bytes(self, bytes: ColourQuad, low: u8, high: u8) -> ([u16; 8], u64) {
        let (l, h) = (LANE_MASKS[usize::from(low)], LANE_MASKS[usize::from(high)]);
        #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
        {
            // SAFETY: as in `pixels`.
            unsafe { self.select_both_sse2(bytes, l, h) }
        }
        #[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
        {
            let small = bytes.select_words(l, h).map(|lane| lane as u8);
            (self.select_words(l, h), u64::from_le_bytes(small))
        }
    }

    /// `pixels_and_bytes` in SSE2 registers: `l & h` once, the bytes packed in one
    /// instruction.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[target_feature(enable = "sse2")]
    #[inline]
    fn select_both_sse2(self, bytes: ColourQuad, l: [u64; 2], h: [u64; 2]) -> ([u16; 8], u64) {
        use core::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_cvtsi128_si64, _mm_packus_epi16, _mm_xor_si128,
        };
        let v = bytemuck::cast::<[u64; 2], __m128i>;
        let (l, h) = (v(l), v(h));
        let both = _mm_and_si128(l, h);
        let select = |quad: ColourQuad| {
            let low = _mm_and_si128(l, v(quad.low));
            let high = _mm_and_si128(h, v(quad.high));
            let both = _mm_and_si128(both, v(quad.both));
            _mm_xor_si128(_mm_xor_si128(v(quad.base), low), _mm_xor_si128(high, both))
        };
        let small = select(bytes);
        // Every lane is below 256: the saturating pack keeps each lane's value, lane i in
        // byte i.
        let packed = _mm_cvtsi128_si64(_mm_packus_epi16(small, small)) as u64;
        (bytemuck::cast(select(self)), packed)
    }

    /// `pixels`' choice of colours for the lane masks `l` and `h`, all eight lanes in one
    /// SSE2 register: a span's loop then keeps its quad in registers, where the word form
    /// reloads it for every tile.
    #[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
    #[target_feature(enable = "sse2")]
    #[inline]
    fn select_sse2(self, l: [u64; 2], h: [u64; 2]) -> [u16; 8] {
        use core::arch::x86_64::{__m128i, _mm_and_si128, _mm_xor_si128};
        let v = bytemuck::cast::<[u64; 2], __m128i>;
        let (l, h) = (v(l), v(h));
        let low = _mm_and_si128(l, v(self.low));
        let high = _mm_and_si128(h, v(self.high));
        let both = _mm_and_si128(_mm_and_si128(l, h), v(self.both));
        let picked = _mm_xor_si128(_mm_xor_si128(v(self.base), low), _mm_xor_si128(high, both));
        // x86 is little-endian: 16-bit lane i is the array's element i.
        bytemuck::cast(picked)
    }

    /// `pixels`' choice of colours in two words, where SSE2 is missing (and the second
    /// oracle of `select_sse2` in the tests).
    #[cfg_attr(all(target_arch = "x86_64", target_feature = "sse2"), allow(dead_code))]
    #[inline(always)]
    fn select_words(self, l: [u64; 2], h: [u64; 2]) -> [u16; 8] {
        let halves: [u64; 2] = core::array::from_fn(|half| {
            self.base[half]
                ^ (l[half] & self.low[half])
                ^ (h[half] & self.high[half])
                ^ (l[half] & h[half] & self.both[half])
        });
        core::array::from_fn(|i| (halves[i / 4] >> (16 * (i % 4))) as u16)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixels_pick_each_colour_by_its_number() {
        let colours = [0x7FFF, 0x1234, 0x0ACE, 0x5555];
        let quad = ColourQuad::new(colours);
        for low in 0..=255u8 {
            for high in [0x00, 0xFF, 0xA5, 0x3C, low, !low] {
                let pixels = quad.pixels(low, high);
                for (i, &pixel) in pixels.iter().enumerate() {
                    let bit = 7 - i;
                    let number = (((high >> bit) & 1) << 1) | ((low >> bit) & 1);
                    assert_eq!(
                        pixel,
                        colours[usize::from(number)],
                        "{low:#x} {high:#x} {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn both_forms_choose_alike() {
        let quad = ColourQuad::new([0x0001, 0x7C00, 0x03E0, 0x001F]);
        for low in 0..=255u8 {
            for high in 0..=255u8 {
                let (l, h) = (LANE_MASKS[usize::from(low)], LANE_MASKS[usize::from(high)]);
                assert_eq!(quad.pixels(low, high), quad.select_words(l, h));
            }
        }
    }

    #[test]
    fn bytes_pick_alike() {
        let quad = ColourQuad::new([0x0001, 0x7C00, 0x03E0, 0x001F]);
        let bytes = ColourQuad::new([3, 0, 2, 1]);
        for low in 0..=255u8 {
            for high in 0..=255u8 {
                let (pixels, packed) = quad.pixels_and_bytes(bytes, low, high);
                assert_eq!(pixels, quad.pixels(low, high));
                let small = bytes.pixels(low, high).map(|lane| lane as u8);
                assert_eq!(packed, u64::from_le_bytes(small), "{low:#x} {high:#x}");
            }
        }
    }

    #[test]
    fn from_palette_reads_little_endian_colours_without_bit_15() {
        let mut ram = [0u8; 64];
        ram[24..32].copy_from_slice(&[0x34, 0x92, 0xFF, 0xFF, 0x00, 0x80, 0x01, 0x00]);
        let quad = ColourQuad::from_palette(&ram, 3);
        assert_eq!(quad.pixels(0x80, 0x40)[..2], [0x7FFF, 0x0000]);
        assert_eq!(quad.pixels(0x00, 0x80)[0], 0x0000);
        assert_eq!(quad.pixels(0x00, 0x00)[7], 0x1234);
        assert_eq!(quad.pixels(0x01, 0x01)[7], 0x0001);
    }
}
