//! How the 160×144 picture fills the window: by whole factors (every game pixel the same
//! square) or fitted to the window keeping its shape, and, when fitted, with nearest or
//! linear filtering. The geometry is shared by both presenters and by the menu's mouse
//! hit-testing; the CPU scalers serve the software presenter (and the GPU one for a fitted
//! nearest picture, which pixels cannot draw itself).

use backspin_core::{SCREEN_HEIGHT, SCREEN_WIDTH};

/// How the picture is sized in the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ScaleMode {
    /// The largest whole factor that fits, black around.
    #[default]
    Integer,
    /// As large as fits, keeping the 10:9 shape.
    Fit,
}

/// How a fitted picture's pixels are filtered (at whole factors there is nothing to filter:
/// every window pixel lies inside one game pixel).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Filter {
    /// Sharp pixels of slightly uneven sizes.
    #[default]
    Nearest,
    /// Even, slightly soft pixels.
    Linear,
}

/// How the picture is shown: the Settings page's scale and filter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct View {
    pub scale: ScaleMode,
    pub filter: Filter,
}

/// Where the picture lies in the window, in window pixels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placement {
    pub left: usize,
    pub top: usize,
    pub width: usize,
    pub height: usize,
}

impl Placement {
    /// The picture's place in a `width`×`height` window (at least 160×144, even in a smaller
    /// window, as the GPU presenter draws it).
    pub fn of(mode: ScaleMode, width: usize, height: usize) -> Placement {
        let (w, h) = match mode {
            ScaleMode::Integer => {
                let scale = (width / SCREEN_WIDTH).min(height / SCREEN_HEIGHT).max(1);
                (SCREEN_WIDTH * scale, SCREEN_HEIGHT * scale)
            }
            // Whichever side limits: the other follows the 10:9 shape, rounded down.
            ScaleMode::Fit if width * SCREEN_HEIGHT <= height * SCREEN_WIDTH => {
                (width, width * SCREEN_HEIGHT / SCREEN_WIDTH)
            }
            ScaleMode::Fit => (height * SCREEN_WIDTH / SCREEN_HEIGHT, height),
        };
        let (w, h) = (w.max(SCREEN_WIDTH), h.max(SCREEN_HEIGHT));
        Placement {
            left: width.saturating_sub(w) / 2,
            top: height.saturating_sub(h) / 2,
            width: w,
            height: h,
        }
    }

    /// The game pixel row under window row `y`, if the picture covers it.
    pub fn game_row(&self, y: usize) -> Option<usize> {
        let inside = y.checked_sub(self.top).filter(|y| *y < self.height)?;
        Some(inside * SCREEN_HEIGHT / self.height)
    }

    /// Whether window column `x` lies on the picture.
    pub fn covers_column(&self, x: usize) -> bool {
        x >= self.left && x < self.left + self.width
    }
}

/// The game pixel each of `size` window pixels shows, nearest first.
fn nearest_map(size: usize, source: usize) -> impl Iterator<Item = usize> {
    (0..size).map(move |i| i * source / size)
}

/// Scales `rgba` (160×144×4) into `out`, a `width`-pixel-wide window, at `place`, writing
/// each pixel as `pixel` makes it; the window around the picture is left as it is.
pub fn scale_into<T: Copy>(
    rgba: &[u8],
    out: &mut [T],
    width: usize,
    place: Placement,
    filter: Filter,
    pixel: impl Fn([u8; 3]) -> T,
) {
    let rows = out.len() / width.max(1);
    let visible_width = place.width.min(width.saturating_sub(place.left));
    let at = |x: usize, y: usize| {
        let i = (y * SCREEN_WIDTH + x) * 4;
        [rgba[i], rgba[i + 1], rgba[i + 2]]
    };
    match filter {
        Filter::Nearest => {
            let columns: Vec<usize> = nearest_map(place.width, SCREEN_WIDTH)
                .take(visible_width)
                .collect();
            let mut previous: Option<usize> = None;
            for (y, source_y) in nearest_map(place.height, SCREEN_HEIGHT).enumerate() {
                let row = place.top + y;
                if row >= rows {
                    break;
                }
                let start = row * width + place.left;
                // A row like the one above is a copy of it.
                if previous == Some(source_y) {
                    out.copy_within(start - width..start - width + visible_width, start);
                    continue;
                }
                previous = Some(source_y);
                for (target, &x) in out[start..start + visible_width].iter_mut().zip(&columns) {
                    *target = pixel(at(x, source_y));
                }
            }
        }
        Filter::Linear => {
            // Sample at pixel centres, as a GPU's linear sampler does, clamped at the edges.
            let position = |i: usize, size: usize, source: usize| {
                let p = ((i as f32 + 0.5) * source as f32 / size as f32 - 0.5).max(0.0);
                let first = (p as usize).min(source - 1);
                (first, (first + 1).min(source - 1), p - first as f32)
            };
            let columns: Vec<_> = (0..visible_width)
                .map(|x| position(x, place.width, SCREEN_WIDTH))
                .collect();
            for y in 0..place.height {
                let row = place.top + y;
                if row >= rows {
                    break;
                }
                let (y0, y1, fy) = position(y, place.height, SCREEN_HEIGHT);
                let start = row * width + place.left;
                for (target, &(x0, x1, fx)) in
                    out[start..start + visible_width].iter_mut().zip(&columns)
                {
                    let mix = |a: [u8; 3], b: [u8; 3], f: f32| {
                        std::array::from_fn(|c| f32::from(a[c]) * (1.0 - f) + f32::from(b[c]) * f)
                    };
                    let top: [f32; 3] = mix(at(x0, y0), at(x1, y0), fx);
                    let bottom: [f32; 3] = mix(at(x0, y1), at(x1, y1), fx);
                    *target = pixel(std::array::from_fn(|c| {
                        (top[c] * (1.0 - fy) + bottom[c] * fy).round() as u8
                    }));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_uses_whole_factors_and_fit_fills_a_side() {
        let integer = Placement::of(ScaleMode::Integer, 800, 600);
        assert_eq!((integer.left, integer.top), (80, 12));
        assert_eq!((integer.width, integer.height), (640, 576));
        let fit = Placement::of(ScaleMode::Fit, 800, 600);
        assert_eq!((fit.width, fit.height), (666, 600));
        assert_eq!((fit.left, fit.top), (67, 0));
        let tiny = Placement::of(ScaleMode::Fit, 100, 100);
        assert_eq!((tiny.width, tiny.height), (160, 144));
        assert_eq!(fit.game_row(0), Some(0));
        assert_eq!(fit.game_row(599), Some(143));
        assert_eq!(integer.game_row(11), None);
        assert!(fit.covers_column(67) && !fit.covers_column(66));
    }

    #[test]
    fn the_scalers_fill_the_placement_only() {
        let mut rgba = vec![0xFFu8; SCREEN_WIDTH * SCREEN_HEIGHT * 4];
        // The left half black, the right half white.
        for pixel in rgba.chunks_exact_mut(4).enumerate() {
            if pixel.0 % SCREEN_WIDTH < SCREEN_WIDTH / 2 {
                pixel.1[..3].fill(0);
            }
        }
        let (width, height) = (800, 600);
        let place = Placement::of(ScaleMode::Fit, width, height);
        let grey = |[r, _, _]: [u8; 3]| u32::from(r);
        let mut nearest = vec![7u32; width * height];
        scale_into(&rgba, &mut nearest, width, place, Filter::Nearest, grey);
        let mut linear = vec![7u32; width * height];
        scale_into(&rgba, &mut linear, width, place, Filter::Linear, grey);
        for out in [&nearest, &linear] {
            assert_eq!(out[300 * width + place.left - 1], 7, "outside untouched");
            assert_eq!(out[300 * width + place.left], 0);
            assert_eq!(out[300 * width + place.left + place.width - 1], 0xFF);
        }
        let middle = 300 * width + place.left + place.width / 2;
        let edge: Vec<u32> = (middle - 3..middle + 3).map(|i| nearest[i]).collect();
        assert!(edge.iter().all(|v| *v == 0 || *v == 0xFF), "{edge:?}");
        assert!(
            (middle - 3..middle + 3).any(|i| linear[i] > 0 && linear[i] < 0xFF),
            "linear blends the edge"
        );
    }
}
