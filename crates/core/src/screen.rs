//! The picture as a host shows it: DMG shades through a named palette, CGB colours through
//! an optional LCD colour correction, written as 8-bit RGB.
//!
//! This is host-side conversion, not emulation: nothing here runs while the machine does.
//! The writers fill a buffer the caller keeps, so a frontend converting every frame does
//! not allocate. Screenshots, test comparisons and Python observations use the reference
//! look ([`write_rgb`]: the gray palette, plain colour expansion); windows and menus may
//! offer the other [`DmgPalette`]s and [`ColourCorrection`]s.

use crate::{Core, SCREEN_HEIGHT, SCREEN_WIDTH};

/// Bytes of one screen as 8-bit RGB (160 x 144 x 3).
pub const RGB_BYTES: usize = SCREEN_WIDTH * SCREEN_HEIGHT * 3;

/// One colour as 8-bit red, green, blue.
pub type Rgb = [u8; 3];

/// Expands a CGB RGB555 colour (red in bits 0..=4) to 8-bit RGB by the plain
/// `(c << 3) | (c >> 2)` per channel: full scale maps to 255, as test suites expect.
pub fn rgb555_to_rgb888(colour: u16) -> Rgb {
    let expand = |c: u16| {
        let c = (c & 0x1F) as u8;
        (c << 3) | (c >> 2)
    };
    [expand(colour), expand(colour >> 5), expand(colour >> 10)]
}

/// The colours a DMG's four shades (0 lightest ..= 3 darkest) are shown in. The DMG has no
/// colour of its own to reproduce: each is a look a host may offer by [`DmgPalette::name`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DmgPalette {
    /// Even grays FF, AA, 55, 00: the reference look the test suites' screenshots were
    /// taken with, and what screenshots and observations use.
    #[default]
    Grey,
    /// Pale greens with a blue-black: the desktop player's look.
    Green,
    /// The olive, yellow-green screen of the original DMG.
    Dmg,
    /// The Game Boy Pocket's greyish screen, slightly warm.
    Pocket,
}

impl DmgPalette {
    /// Every palette, in the order menus list them.
    pub const ALL: [DmgPalette; 4] = [
        DmgPalette::Grey,
        DmgPalette::Green,
        DmgPalette::Dmg,
        DmgPalette::Pocket,
    ];

    /// The palette's short lowercase name, for options and menus.
    pub const fn name(self) -> &'static str {
        match self {
            DmgPalette::Grey => "grey",
            DmgPalette::Green => "green",
            DmgPalette::Dmg => "dmg",
            DmgPalette::Pocket => "pocket",
        }
    }

    /// The palette called `name` (as [`DmgPalette::name`] spells it), if any.
    pub fn from_name(name: &str) -> Option<DmgPalette> {
        Self::ALL.into_iter().find(|palette| palette.name() == name)
    }

    /// The four shades' colours, lightest first.
    pub const fn colours(self) -> [Rgb; 4] {
        match self {
            DmgPalette::Grey => [
                [0xFF, 0xFF, 0xFF],
                [0xAA, 0xAA, 0xAA],
                [0x55, 0x55, 0x55],
                [0x00, 0x00, 0x00],
            ],
            DmgPalette::Green => [
                [0xE0, 0xF0, 0xD0],
                [0x88, 0xC0, 0x70],
                [0x34, 0x68, 0x56],
                [0x08, 0x18, 0x20],
            ],
            DmgPalette::Dmg => [
                [0x9B, 0xBC, 0x0F],
                [0x8B, 0xAC, 0x0F],
                [0x30, 0x62, 0x30],
                [0x0F, 0x38, 0x0F],
            ],
            DmgPalette::Pocket => [
                [0xC4, 0xCF, 0xA1],
                [0x8B, 0x95, 0x6D],
                [0x4D, 0x53, 0x3C],
                [0x1F, 0x1F, 0x1F],
            ],
        }
    }

    /// The colour of `shade` (only its low two bits count).
    pub const fn colour(self, shade: u8) -> Rgb {
        self.colours()[(shade & 3) as usize]
    }
}

/// The gray a DMG shade is shown as in the reference look ([`DmgPalette::Grey`]): FF, AA,
/// 55, 00.
pub const fn shade_to_gray(shade: u8) -> u8 {
    DmgPalette::Grey.colour(shade)[0]
}

/// How CGB colours are turned into 8-bit RGB.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ColourCorrection {
    /// The plain expansion ([`rgb555_to_rgb888`]): saturated, as on a modern backlit
    /// screen. The reference look.
    #[default]
    Off,
    /// An approximation of the CGB's reflective LCD: channels bleed into each other and
    /// white is not full brightness.
    Lcd,
}

impl ColourCorrection {
    /// Every correction, in the order menus list them.
    pub const ALL: [ColourCorrection; 2] = [ColourCorrection::Off, ColourCorrection::Lcd];

    /// The correction's short lowercase name, for options and menus.
    pub const fn name(self) -> &'static str {
        match self {
            ColourCorrection::Off => "off",
            ColourCorrection::Lcd => "lcd",
        }
    }

    /// The correction called `name` (as [`ColourCorrection::name`] spells it), if any.
    pub fn from_name(name: &str) -> Option<ColourCorrection> {
        Self::ALL
            .into_iter()
            .find(|correction| correction.name() == name)
    }

    /// One RGB555 colour (red in bits 0..=4) as shown with this correction.
    pub fn apply(self, colour: u16) -> Rgb {
        match self {
            ColourCorrection::Off => rgb555_to_rgb888(colour),
            ColourCorrection::Lcd => lcd_colour(colour),
        }
    }
}

/// The `lcd` correction of one RGB555 colour.
///
/// APPROX: a linear channel mix with weights in 32nds, each output clamped to 30/32 of full
/// scale, from Near's article "Color emulation" (byuu.net, section on the Game Boy Color
/// LCD; the author notes the formula's origin is unknown): red takes 26/32 of red, 4/32 of
/// green and 2/32 of blue; green takes 24/32 of green and 8/32 of blue; blue takes 6/32 of
/// red, 4/32 of green and 22/32 of blue. Each row sums to 32/32, so grays stay gray and
/// full white lands at 240 of 255, the dimmer white of an unlit screen. No gamma step: the
/// article finds the CGB panel close to a PC monitor apart from its lower saturation.
fn lcd_colour(colour: u16) -> Rgb {
    let channel = |shift: u16| u32::from((colour >> shift) & 0x1F);
    let (r, g, b) = (channel(0), channel(5), channel(10));
    // Each mix is at most 32 × 31 = 992; the clamp to 960 then a division by 4 gives 0..=240.
    let scale = |mix: u32| (mix.min(960) / 4) as u8;
    [
        scale(r * 26 + g * 4 + b * 2),
        scale(g * 24 + b * 8),
        scale(r * 6 + g * 4 + b * 22),
    ]
}

/// The core's last frame in the reference look, as a new buffer of [`RGB_BYTES`] bytes
/// (row-major). Allocates: per-frame callers use [`write_rgb`].
pub fn to_rgb(core: &Core) -> Vec<u8> {
    let mut rgb = vec![0; RGB_BYTES];
    write_rgb(core, &mut rgb);
    rgb
}

/// Writes the core's last frame in the reference look (gray shades on a DMG, plain colour
/// expansion on a CGB) into `rgb`, row-major.
///
/// # Panics
/// If `rgb` is not [`RGB_BYTES`] long.
pub fn write_rgb(core: &Core, rgb: &mut [u8]) {
    write_rgb_with(core, DmgPalette::Grey, ColourCorrection::Off, rgb);
}

/// Writes the core's last frame into `rgb`, row-major: DMG shades through `palette`, CGB
/// colours through `correction` (each applies only to its model).
///
/// # Panics
/// If `rgb` is not [`RGB_BYTES`] long.
pub fn write_rgb_with(
    core: &Core,
    palette: DmgPalette,
    correction: ColourCorrection,
    rgb: &mut [u8],
) {
    assert_eq!(rgb.len(), RGB_BYTES, "an RGB screen is 160 x 144 x 3 bytes");
    if core.frame_is_rgb() {
        for (pixel, &colour) in rgb.chunks_exact_mut(3).zip(core.frame_rgb().iter()) {
            pixel.copy_from_slice(&correction.apply(colour));
        }
    } else {
        let colours = palette.colours();
        for (pixel, &shade) in rgb.chunks_exact_mut(3).zip(core.frame().iter()) {
            pixel.copy_from_slice(&colours[usize::from(shade & 3)]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_expansion_reaches_both_ends() {
        assert_eq!(rgb555_to_rgb888(0x0000), [0, 0, 0]);
        assert_eq!(rgb555_to_rgb888(0x7FFF), [255, 255, 255]);
        assert_eq!(rgb555_to_rgb888(0x001F), [255, 0, 0]);
        assert_eq!(rgb555_to_rgb888(0x7C00), [0, 0, 255]);
        assert_eq!(rgb555_to_rgb888(16 << 5), [0, 132, 0]);
    }

    #[test]
    fn reference_grays() {
        assert_eq!(
            [0, 1, 2, 3, 7].map(shade_to_gray),
            [0xFF, 0xAA, 0x55, 0x00, 0x00]
        );
    }

    #[test]
    fn names_round_trip_and_palettes_go_light_to_dark() {
        for palette in DmgPalette::ALL {
            assert_eq!(DmgPalette::from_name(palette.name()), Some(palette));
            let luma = palette
                .colours()
                .map(|[r, g, b]| 299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b));
            assert!(luma.windows(2).all(|pair| pair[0] > pair[1]), "{palette:?}");
        }
        for correction in ColourCorrection::ALL {
            assert_eq!(
                ColourCorrection::from_name(correction.name()),
                Some(correction)
            );
        }
        assert_eq!(DmgPalette::from_name("Grey"), None);
    }

    #[test]
    fn lcd_correction_keeps_grays_and_mixes_primaries() {
        let lcd = |colour| ColourCorrection::Lcd.apply(colour);
        assert_eq!(lcd(0x0000), [0, 0, 0]);
        assert_eq!(lcd(0x7FFF), [240, 240, 240]);
        let gray = lcd(16 | 16 << 5 | 16 << 10);
        assert!(gray[0] == gray[1] && gray[1] == gray[2], "{gray:?}");
        // Pure red bleeds into blue; pure blue into green and red.
        assert_eq!(lcd(0x001F), [201, 0, 46]);
        assert_eq!(lcd(0x7C00), [15, 62, 170]);
    }
}
