//! Screenshots: encoding our frames as PNG and comparing them with expected PNGs.
//!
//! The rule is the test-ROM README's: both images become 8-bit luma (ITU-R 601-2, weights
//! 299/587/114 per 1000, as PIL's `convert("L")`) and no pixel may differ by more than 50.

use backspin_core::screen::shade_to_gray;
use backspin_core::{Core, SCREEN_HEIGHT, SCREEN_WIDTH};

/// The core's last frame as 8-bit RGB in the reference look the expected screenshots use
/// (core's [`backspin_core::screen`] owns the conversion).
pub use backspin_core::screen::to_rgb as screen_rgb;

/// Largest allowed luma difference per pixel.
pub const LUMA_TOLERANCE: u8 = 50;

const PIXELS: usize = SCREEN_WIDTH * SCREEN_HEIGHT;

#[derive(Debug, thiserror::Error)]
pub enum ScreenshotError {
    #[error("expected PNG cannot be decoded: {0}")]
    Decode(String),
    #[error("expected PNG is {width}x{height}, screenshots are 160x144")]
    WrongSize { width: u32, height: u32 },
}

/// Where the frame differs from the expected image.
#[derive(Clone, Debug)]
pub struct ScreenshotMismatch {
    pub differing_pixels: usize,
    /// First differing pixel (x, y).
    pub first: (usize, usize),
    /// The expected image as luma, for writing the diff.
    pub expected_luma: Vec<u8>,
}

/// Decodes any PNG colour type (1-bit gray, palette, gray, gray+alpha, RGB, RGBA, 16-bit) to
/// one luma byte per pixel, row-major. Returns (width, height, luma).
pub fn decode_png_luma(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), ScreenshotError> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    // EXPAND turns palette into RGB(A) and sub-byte gray into 8-bit gray; STRIP_16 keeps one
    // byte per channel.
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder
        .read_info()
        .map_err(|e| ScreenshotError::Decode(e.to_string()))?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| ScreenshotError::Decode("image too large".into()))?;
    let mut buffer = vec![0; size];
    let info = reader
        .next_frame(&mut buffer)
        .map_err(|e| ScreenshotError::Decode(e.to_string()))?;
    let channels = match info.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => {
            return Err(ScreenshotError::Decode("palette was not expanded".into()));
        }
    };
    if info.bit_depth != png::BitDepth::Eight {
        return Err(ScreenshotError::Decode(format!(
            "unexpected bit depth {:?} after expansion",
            info.bit_depth
        )));
    }
    let (width, height) = (info.width, info.height);
    let row_bytes = info.line_size;
    let mut luma = Vec::with_capacity(width as usize * height as usize);
    for row in buffer.chunks(row_bytes).take(height as usize) {
        for pixel in row.chunks(channels).take(width as usize) {
            // Alpha is ignored, as PIL's convert("L") ignores it.
            luma.push(match channels {
                1 | 2 => pixel[0],
                _ => rgb_to_luma(pixel[0], pixel[1], pixel[2]),
            });
        }
    }
    Ok((width, height, luma))
}

/// ITU-R 601-2 luma, rounded to nearest.
fn rgb_to_luma(r: u8, g: u8, b: u8) -> u8 {
    let sum = 299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b);
    ((sum + 500) / 1000) as u8
}

fn shades_to_rgb(frame: &[u8; PIXELS]) -> Vec<u8> {
    frame
        .iter()
        .flat_map(|&shade| [shade_to_gray(shade); 3])
        .collect()
}

fn pixel_luma(rgb: &[u8]) -> u8 {
    rgb_to_luma(rgb[0], rgb[1], rgb[2])
}

/// Compares a frame of shades with an expected PNG. `Ok(None)` when they match.
pub fn compare_with_png(
    frame: &[u8; PIXELS],
    expected_png: &[u8],
) -> Result<Option<ScreenshotMismatch>, ScreenshotError> {
    compare_rgb_with_png(&shades_to_rgb(frame), expected_png)
}

/// Compares an RGB screen ([`screen_rgb`]) with an expected PNG. `Ok(None)` when they match.
pub fn compare_rgb_with_png(
    rgb: &[u8],
    expected_png: &[u8],
) -> Result<Option<ScreenshotMismatch>, ScreenshotError> {
    let (width, height, expected) = decode_png_luma(expected_png)?;
    if (width as usize, height as usize) != (SCREEN_WIDTH, SCREEN_HEIGHT) {
        return Err(ScreenshotError::WrongSize { width, height });
    }
    let mut differing_pixels = 0;
    let mut first = None;
    for (index, (pixel, &want)) in rgb.chunks_exact(3).zip(&expected).enumerate() {
        if pixel_luma(pixel).abs_diff(want) > LUMA_TOLERANCE {
            differing_pixels += 1;
            first.get_or_insert((index % SCREEN_WIDTH, index / SCREEN_WIDTH));
        }
    }
    Ok(first.map(|first| ScreenshotMismatch {
        differing_pixels,
        first,
        expected_luma: expected,
    }))
}

/// Encodes a frame of shades as a 160x144 8-bit gray PNG.
pub fn encode_frame_png(frame: &[u8; PIXELS]) -> Vec<u8> {
    let gray: Vec<u8> = frame.iter().map(|&shade| shade_to_gray(shade)).collect();
    encode_png(&gray, png::ColorType::Grayscale)
}

/// Encodes the core's last frame as a 160x144 PNG: gray on a DMG, RGB on a CGB.
pub fn encode_screen_png(core: &Core) -> Vec<u8> {
    if core.frame_is_rgb() {
        encode_png(&screen_rgb(core), png::ColorType::Rgb)
    } else {
        encode_frame_png(core.frame())
    }
}

/// A diff image: matching pixels as a faded copy of the expected image, differing pixels red.
pub(crate) fn encode_diff_png(screen: &[u8], expected_luma: &[u8]) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(PIXELS * 3);
    for (pixel, &want) in screen.chunks_exact(3).zip(expected_luma) {
        if pixel_luma(pixel).abs_diff(want) > LUMA_TOLERANCE {
            rgb.extend_from_slice(&[0xFF, 0x00, 0x00]);
        } else {
            let faded = 0xC0 + want / 4;
            rgb.extend_from_slice(&[faded, faded, faded]);
        }
    }
    encode_png(&rgb, png::ColorType::Rgb)
}

fn encode_png(data: &[u8], color: png::ColorType) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, SCREEN_WIDTH as u32, SCREEN_HEIGHT as u32);
    encoder.set_color(color);
    encoder.set_depth(png::BitDepth::Eight);
    // Writing to a Vec with a correctly sized buffer cannot fail.
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
pub(crate) mod tests {
    use super::*;

    /// A 160x144 PNG of any colour type, for tests.
    pub(crate) fn png_of(color: png::ColorType, depth: png::BitDepth, data: &[u8]) -> Vec<u8> {
        png_with(color, depth, data, None)
    }

    fn png_with(
        color: png::ColorType,
        depth: png::BitDepth,
        data: &[u8],
        palette: Option<Vec<u8>>,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, 160, 144);
        encoder.set_color(color);
        encoder.set_depth(depth);
        if let Some(palette) = palette {
            encoder.set_palette(palette);
        }
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(data).unwrap();
        writer.finish().unwrap();
        out
    }

    fn frame_with_dark_pixel() -> Box<[u8; PIXELS]> {
        let mut frame = Box::new([0u8; PIXELS]);
        frame[5 * 160 + 7] = 3;
        frame
    }

    #[test]
    fn matches_every_colour_type() {
        let frame = frame_with_dark_pixel();
        let dark = 5 * 160 + 7;
        // 8-bit gray.
        let mut gray = vec![0xFF; PIXELS];
        gray[dark] = 0;
        // RGB and RGBA.
        let rgb: Vec<u8> = gray.iter().flat_map(|&g| [g, g, g]).collect();
        let rgba: Vec<u8> = gray.iter().flat_map(|&g| [g, g, g, 0x80]).collect();
        // 1-bit gray: 20 bytes per row, bit 7 first, 1 = white.
        let mut one_bit = vec![0xFF; 20 * 144];
        one_bit[5 * 20] &= !(0x80 >> 7);
        // Palette, 8-bit indices: 0 white, 1 black.
        let indexed: Vec<u8> = gray.iter().map(|&g| u8::from(g == 0)).collect();
        let images = [
            png_of(png::ColorType::Grayscale, png::BitDepth::Eight, &gray),
            png_of(png::ColorType::Rgb, png::BitDepth::Eight, &rgb),
            png_of(png::ColorType::Rgba, png::BitDepth::Eight, &rgba),
            png_of(png::ColorType::Grayscale, png::BitDepth::One, &one_bit),
            png_with(
                png::ColorType::Indexed,
                png::BitDepth::Eight,
                &indexed,
                Some(vec![0xFF, 0xFF, 0xFF, 0, 0, 0]),
            ),
        ];
        for (index, image) in images.iter().enumerate() {
            let result = compare_with_png(&frame, image).unwrap();
            assert!(result.is_none(), "image {index} should match");
            let blank = Box::new([0u8; PIXELS]);
            let mismatch = compare_with_png(&blank, image).unwrap().unwrap();
            assert_eq!(mismatch.differing_pixels, 1, "image {index}");
            assert_eq!(mismatch.first, (7, 5), "image {index}");
        }
    }

    #[test]
    fn tolerance_is_fifty_luma_levels() {
        let frame = Box::new([1u8; PIXELS]); // 0xAA = 170
        let near = png_of(
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[220; PIXELS],
        );
        let far = png_of(
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[221; PIXELS],
        );
        assert!(compare_with_png(&frame, &near).unwrap().is_none());
        assert!(compare_with_png(&frame, &far).unwrap().is_some());
        // Luma weighting: pure green 0x00FF00 has luma 150 (587*255/1000 = 149.7).
        assert_eq!(rgb_to_luma(0, 255, 0), 150);
    }

    #[test]
    fn rejects_wrong_size_and_garbage() {
        let frame = Box::new([0u8; PIXELS]);
        assert!(matches!(
            compare_with_png(&frame, b"not a png"),
            Err(ScreenshotError::Decode(_))
        ));
        let mut small = Vec::new();
        let mut encoder = png::Encoder::new(&mut small, 2, 2);
        encoder.set_color(png::ColorType::Grayscale);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[0; 4]).unwrap();
        writer.finish().unwrap();
        assert!(matches!(
            compare_with_png(&frame, &small),
            Err(ScreenshotError::WrongSize {
                width: 2,
                height: 2
            })
        ));
    }

    #[test]
    fn encoded_frame_round_trips() {
        let frame = frame_with_dark_pixel();
        let (w, h, luma) = decode_png_luma(&encode_frame_png(&frame)).unwrap();
        assert_eq!((w, h), (160, 144));
        assert_eq!(luma[5 * 160 + 7], 0);
        assert_eq!(luma[0], 0xFF);
    }
}
