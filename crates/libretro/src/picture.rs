//! The picture handed to the frontend: the core's frame converted to XRGB8888 under the
//! colour options, and whether it changed since the last one shown (so that an unchanged
//! frame costs neither the conversion nor, where the frontend can repeat a frame, its copy).

use backspin_core::screen::{ColourCorrection, DmgPalette};
use backspin_core::{Core, SCREEN_HEIGHT, SCREEN_WIDTH};

const PIXELS: usize = SCREEN_WIDTH * SCREEN_HEIGHT;

/// What `Picture::pixels` holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shows {
    /// Nothing known (at first, or the colour options changed): the next frame converts.
    Stale,
    /// The lightest colour everywhere (a frame with the LCD off).
    Blank,
    /// The conversion of `last_shades` (DMG) or `last_rgb` (CGB) under the current options.
    Frame,
}

pub struct Picture {
    /// XRGB8888, row-major: what `retro_video_refresh` gets.
    pixels: Box<[u32; PIXELS]>,
    shows: Shows,
    /// The core's DMG shades (or RGB555 colours) that `pixels` was converted from, when it
    /// shows a frame.
    last_shades: Box<[u8; PIXELS]>,
    last_rgb: Box<[u16; PIXELS]>,
    /// RGB555 to XRGB8888 under the current colour correction.
    colour_table: Box<[u32; 0x8000]>,
    correction: ColourCorrection,
    /// Four DMG shades at once (one byte, two bits each, first pixel lowest) to their four
    /// XRGB8888 colours under the current palette: one 16-byte store per four pixels.
    quad_table: Box<[[u32; 4]; 256]>,
    palette: DmgPalette,
}

impl Picture {
    pub fn new(correction: ColourCorrection, palette: DmgPalette) -> Picture {
        let mut picture = Picture {
            pixels: Box::new([0; PIXELS]),
            shows: Shows::Stale,
            last_shades: Box::new([0; PIXELS]),
            last_rgb: Box::new([0; PIXELS]),
            colour_table: Box::new([0; 0x8000]),
            correction,
            quad_table: Box::new([[0; 4]; 256]),
            palette,
        };
        fill_colour_table(&mut picture.colour_table, correction);
        fill_quad_table(&mut picture.quad_table, palette);
        picture
    }

    /// The picture as XRGB8888, 160 pixels a row.
    pub fn pixels(&self) -> &[u32; PIXELS] {
        &self.pixels
    }

    /// Takes new colour options (the next frame is converted anew).
    pub fn set_colours(&mut self, correction: ColourCorrection, palette: DmgPalette) {
        if correction != self.correction {
            self.correction = correction;
            fill_colour_table(&mut self.colour_table, correction);
            self.shows = Shows::Stale;
        }
        if palette != self.palette {
            self.palette = palette;
            fill_quad_table(&mut self.quad_table, palette);
            self.shows = Shows::Stale;
        }
    }

    /// Shows the core's last frame; returns whether the picture changed. Row by row: a row
    /// whose pixels are those already shown is not converted again (a sprite moving over a
    /// still background changes a few rows).
    pub fn draw(&mut self, core: &Core) -> bool {
        let fresh = self.shows != Shows::Frame;
        let mut changed = false;
        let rows = self.pixels.chunks_exact_mut(SCREEN_WIDTH);
        if core.frame_is_rgb() {
            let sources = core.frame_rgb().chunks_exact(SCREEN_WIDTH);
            let lasts = self.last_rgb.chunks_exact_mut(SCREEN_WIDTH);
            for ((out, source), last) in rows.zip(sources).zip(lasts) {
                if fresh || last != source {
                    last.copy_from_slice(source);
                    for (pixel, &colour) in out.iter_mut().zip(source) {
                        *pixel = self.colour_table[usize::from(colour & 0x7FFF)];
                    }
                    changed = true;
                }
            }
        } else {
            let sources = core.frame().chunks_exact(SCREEN_WIDTH);
            let lasts = self.last_shades.chunks_exact_mut(SCREEN_WIDTH);
            for ((out, source), last) in rows.zip(sources).zip(lasts) {
                if fresh || last != source {
                    last.copy_from_slice(source);
                    for (pixels, shades) in out.chunks_exact_mut(8).zip(source.chunks_exact(8)) {
                        let [first, second] = quad_indices(shades);
                        pixels[..4].copy_from_slice(&self.quad_table[first]);
                        pixels[4..].copy_from_slice(&self.quad_table[second]);
                    }
                    changed = true;
                }
            }
        }
        self.shows = Shows::Frame;
        changed
    }

    /// Shows a blank screen in the lightest colour `core`'s screen shows; returns whether
    /// the picture changed.
    pub fn blank(&mut self, core: &Core) -> bool {
        if self.shows == Shows::Blank {
            return false;
        }
        let white = if core.frame_is_rgb() {
            self.colour_table[0x7FFF]
        } else {
            self.quad_table[0][0]
        };
        self.pixels.fill(white);
        self.shows = Shows::Blank;
        true
    }
}

/// The `quad_table` indices of eight shades (each 0..=3, anything above ignored): the first
/// four and the last four. One 64-bit load and a few shifts for eight pixels.
#[inline]
fn quad_indices(shades: &[u8]) -> [usize; 2] {
    let mut bytes = [0; 8];
    bytes.copy_from_slice(&shades[..8]);
    let word = u64::from_le_bytes(bytes) & 0x0303_0303_0303_0303;
    // Each byte's two bits moved next to the previous byte's, per half.
    let packed = word | word >> 6 | word >> 12 | word >> 18;
    [(packed & 0xFF) as usize, (packed >> 32 & 0xFF) as usize]
}

/// Every RGB555 colour as XRGB8888 under `correction` (a table: the correction's arithmetic
/// once, not per pixel and frame).
fn fill_colour_table(table: &mut [u32; 0x8000], correction: ColourCorrection) {
    for (colour, slot) in table.iter_mut().enumerate() {
        *slot = xrgb(correction.apply(colour as u16));
    }
}

fn fill_quad_table(table: &mut [[u32; 4]; 256], palette: DmgPalette) {
    let colours = palette.colours().map(xrgb);
    for (index, quad) in table.iter_mut().enumerate() {
        for (pixel, out) in quad.iter_mut().enumerate() {
            *out = colours[index >> (2 * pixel) & 3];
        }
    }
}

fn xrgb([r, g, b]: [u8; 3]) -> u32 {
    u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four shades packed into one index convert as each would alone.
    #[test]
    fn quads_convert_as_single_pixels() {
        let palette = DmgPalette::Grey;
        let mut table = Box::new([[0; 4]; 256]);
        fill_quad_table(&mut table, palette);
        let colours = palette.colours().map(xrgb);
        for index in 0..256usize {
            let quad = [0, 1, 2, 3].map(|i| (index >> (2 * i) & 3) as u8 | 0xFC);
            let expected = quad.map(|s| colours[usize::from(s & 3)]);
            let reversed = [quad[3], quad[2], quad[1], quad[0]];
            let eight = [quad, reversed].concat();
            let [first, second] = quad_indices(&eight);
            assert_eq!(table[first], expected);
            let mut expected_second = expected;
            expected_second.reverse();
            assert_eq!(table[second], expected_second);
        }
    }
}
