//! The game picture on its way to the window: what the emulation thread hands over (DMG
//! shades or CGB colours) and its conversion to RGBA, plain or colour-corrected.
//!
//! Pictures travel in recycled boxes (see `emu::Emu::send_frame` and `App::user_event`), and
//! the conversion goes through a table built once, so no frame allocates.

use backspin_core::screen::{self, DmgPalette};
use backspin_core::{Core, SCREEN_HEIGHT, SCREEN_WIDTH};

const PIXELS: usize = SCREEN_WIDTH * SCREEN_HEIGHT;

/// The look of the DMG's four shades in the window unless the settings choose another, and
/// in the window's screenshots.
pub const PLAYER_PALETTE: DmgPalette = DmgPalette::Green;

/// RGB555 white: what a CGB's LCD shows while it is off.
const CGB_BLANK: u16 = 0x7FFF;

/// One frame as the core drew it.
#[derive(PartialEq, Eq)]
pub struct Picture {
    /// RGB555 (red in bits 0..=4) when `colour`, else DMG shades 0..=3 (0 lightest).
    pixels: [u16; PIXELS],
    colour: bool,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // 23,040 pixels say nothing in a test failure; the kind and a checksum do.
        let sum = self.pixels.iter().fold(0u32, |sum, &p| {
            sum.wrapping_mul(31).wrapping_add(u32::from(p))
        });
        f.debug_struct("Picture")
            .field("colour", &self.colour)
            .field("pixel_hash", &format_args!("{sum:08X}"))
            .finish()
    }
}

impl Picture {
    /// A blank DMG picture, boxed (built in place: 46 KiB stays off the stack).
    pub fn boxed() -> Box<Picture> {
        Box::new(Picture {
            pixels: [0; PIXELS],
            colour: false,
        })
    }

    /// Copies the frame the core just finished. With the LCD off the PPU draws nothing and
    /// the core's buffer keeps whatever was drawn last (which differs between playing and
    /// rewinding); the screen shows its blank colour then: the lightest shade on a DMG,
    /// white on a CGB.
    pub fn capture(&mut self, core: &Core) {
        let lcd_on = core.state().hw.ppu.lcdc & 0x80 != 0;
        self.colour = core.frame_is_rgb();
        match (self.colour, lcd_on) {
            (true, true) => self.pixels.copy_from_slice(core.frame_rgb()),
            (true, false) => self.pixels.fill(CGB_BLANK),
            (false, true) => {
                for (pixel, &shade) in self.pixels.iter_mut().zip(core.frame().iter()) {
                    *pixel = u16::from(shade & 3);
                }
            }
            (false, false) => self.pixels.fill(0),
        }
    }
}

/// How CGB colours are shown in the window, as the command line names them (the colours
/// themselves are core's [`screen::ColourCorrection`]). Screenshots always use the plain
/// expansion (the one the test suites compare against), whatever is chosen here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColourCorrection {
    /// The plain 5-bit to 8-bit expansion `(c << 3) | (c >> 2)`: saturated, as on a
    /// modern backlit screen.
    #[default]
    Off,
    /// An approximation of the CGB's reflective LCD: channels bleed into each other and
    /// white is not full brightness.
    Lcd,
}

impl From<ColourCorrection> for screen::ColourCorrection {
    fn from(correction: ColourCorrection) -> Self {
        match correction {
            ColourCorrection::Off => screen::ColourCorrection::Off,
            ColourCorrection::Lcd => screen::ColourCorrection::Lcd,
        }
    }
}

/// RGB555 to RGBA for one [`ColourCorrection`]: a table of all 32,768 colours, built once,
/// and the DMG shades' four in one [`DmgPalette`].
pub struct Colours {
    table: Box<[[u8; 4]]>,
    shades: [[u8; 4]; 4],
}

fn rgba([r, g, b]: screen::Rgb) -> [u8; 4] {
    [r, g, b, 0xFF]
}

impl Colours {
    pub fn new(correction: ColourCorrection, palette: DmgPalette) -> Colours {
        let correction = screen::ColourCorrection::from(correction);
        let table = (0..=0x7FFFu16)
            .map(|colour| rgba(correction.apply(colour)))
            .collect();
        Colours {
            table,
            shades: palette.colours().map(rgba),
        }
    }

    /// Writes `picture` as RGBA (160×144×4 bytes) into `rgba`.
    pub fn to_rgba(&self, picture: &Picture, rgba: &mut [u8]) {
        let pixels = rgba.chunks_exact_mut(4).zip(picture.pixels.iter());
        if picture.colour {
            for (out, &colour) in pixels {
                out.copy_from_slice(&self.table[usize::from(colour & 0x7FFF)]);
            }
        } else {
            for (out, &shade) in pixels {
                out.copy_from_slice(&self.shades[usize::from(shade & 3)]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture_of(colour: bool, value: u16) -> Box<Picture> {
        let mut picture = Picture::boxed();
        picture.colour = colour;
        picture.pixels.fill(value);
        picture
    }

    fn first_pixel(colours: &Colours, picture: &Picture) -> [u8; 4] {
        let mut rgba = vec![0; PIXELS * 4];
        colours.to_rgba(picture, &mut rgba);
        [rgba[0], rgba[1], rgba[2], rgba[3]]
    }

    #[test]
    fn plain_expansion_matches_the_core() {
        let colours = Colours::new(ColourCorrection::Off, PLAYER_PALETTE);
        for colour in [0x0000, 0x7FFF, 0x001F, 0x03E0, 0x7C00, 0x1BEF] {
            let [r, g, b] = backspin_core::rgb555_to_rgb888(colour);
            assert_eq!(
                first_pixel(&colours, &picture_of(true, colour)),
                [r, g, b, 0xFF]
            );
        }
    }

    #[test]
    fn dmg_shades_ignore_the_correction() {
        // The player's look, unchanged since it moved into core.
        let player = [
            [0xE0, 0xF0, 0xD0, 0xFF],
            [0x88, 0xC0, 0x70, 0xFF],
            [0x34, 0x68, 0x56, 0xFF],
            [0x08, 0x18, 0x20, 0xFF],
        ];
        for correction in [ColourCorrection::Off, ColourCorrection::Lcd] {
            let colours = Colours::new(correction, PLAYER_PALETTE);
            for shade in 0..4 {
                assert_eq!(
                    first_pixel(&colours, &picture_of(false, shade)),
                    player[usize::from(shade)]
                );
            }
        }
    }

    #[test]
    fn lcd_correction_is_cores() {
        let colours = Colours::new(ColourCorrection::Lcd, PLAYER_PALETTE);
        for colour in [0x0000, 0x7FFF, 0x001F, 0x7C00] {
            let [r, g, b] = screen::ColourCorrection::Lcd.apply(colour);
            assert_eq!(
                first_pixel(&colours, &picture_of(true, colour)),
                [r, g, b, 0xFF]
            );
        }
    }

    #[test]
    fn dmg_shades_follow_the_chosen_palette() {
        for palette in DmgPalette::ALL {
            let colours = Colours::new(ColourCorrection::Off, palette);
            let [r, g, b] = palette.colour(1);
            assert_eq!(
                first_pixel(&colours, &picture_of(false, 1)),
                [r, g, b, 0xFF]
            );
        }
    }
}
