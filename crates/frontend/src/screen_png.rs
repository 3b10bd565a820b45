//! The screen as PNG, for everything the front end writes: save-state thumbnails,
//! `backspin run --screenshot`, movie screenshots and the player's screenshot key.

use backspin_core::{Core, SCREEN_HEIGHT, SCREEN_WIDTH, screen};
use std::path::Path;

const PIXELS: usize = SCREEN_WIDTH * SCREEN_HEIGHT;

/// The core's last frame as a 160x144 PNG in the reference look (core's `screen`): gray
/// on a DMG, RGB on a CGB.
pub fn encode_screen(core: &Core) -> Vec<u8> {
    if core.frame_is_rgb() {
        encode(&screen::to_rgb(core), png::ColorType::Rgb)
    } else {
        encode_shades(core.frame())
    }
}

/// A frame of DMG shades (0 lightest) as a 160x144 8-bit gray PNG.
pub fn encode_shades(frame: &[u8; PIXELS]) -> Vec<u8> {
    let gray: Vec<u8> = frame
        .iter()
        .map(|&shade| screen::shade_to_gray(shade))
        .collect();
    encode(&gray, png::ColorType::Grayscale)
}

/// Writes a 160x144 RGBA picture to `path` as PNG; the error is one line.
pub fn write_rgba(path: &Path, rgba: &[u8]) -> Result<(), String> {
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut encoder = png::Encoder::new(
        std::io::BufWriter::new(file),
        SCREEN_WIDTH as u32,
        SCREEN_HEIGHT as u32,
    );
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(rgba).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())
}

/// 160x144 pixels of `color` as PNG, in memory.
fn encode(data: &[u8], color: png::ColorType) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SCREEN_WIDTH as u32, SCREEN_HEIGHT as u32);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    // In memory, with the data the size the header says, nothing can fail.
    let mut writer = encoder
        .write_header()
        .expect("PNG header to a Vec never fails");
    writer
        .write_image_data(data)
        .expect("image data length matches 160x144");
    writer.finish().expect("PNG finish to a Vec never fails");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_core::{Options, Rom};

    /// The same bytes as the test harness writes, which the expected screenshots and
    /// existing save-state thumbnails were made with.
    #[test]
    fn encodes_as_the_harness_does() {
        let rom = Rom::from_bytes(crate::player::DEMO_ROM.to_vec()).unwrap();
        let mut core = Core::new(rom, Options::default());
        for _ in 0..30 {
            core.run_frame();
        }
        assert_eq!(
            encode_screen(&core),
            backspin_harness::encode_screen_png(&core)
        );
        assert_eq!(
            encode_shades(core.frame()),
            backspin_harness::encode_frame_png(core.frame())
        );
    }
}
