//! Getting the 160×144 picture onto the window: through pixels (wgpu, Vulkan on Linux) when an
//! adapter exists, else a plain software presenter (softbuffer). Both scale by the largest
//! integer factor that fits and letterbox the rest in black. The GPU presenter also paints
//! the egui menu over the picture ([`MenuGui`]); the software presenter shows the reduced
//! menu the overlay draws into the picture itself.

use super::menu_gui::{MenuClick, MenuGui, MenuScene};
use backspin_core::{SCREEN_HEIGHT, SCREEN_WIDTH};
use std::num::NonZeroU32;
use std::sync::Arc;
use winit::window::Window;

pub enum Presenter {
    Gpu {
        pixels: Box<pixels::Pixels<'static>>,
        menu: Box<MenuGui>,
    },
    Software {
        surface: softbuffer::Surface<Arc<Window>, Arc<Window>>,
        _context: softbuffer::Context<Arc<Window>>,
    },
}

impl Presenter {
    /// `software` skips the GPU attempt (`--software` / `BACKSPIN_PRESENTER=software`).
    pub fn new(window: &Arc<Window>, software: bool) -> Result<Presenter, String> {
        if !software {
            let size = window.inner_size();
            let texture = pixels::SurfaceTexture::new(size.width, size.height, window.clone());
            match pixels::PixelsBuilder::new(SCREEN_WIDTH as u32, SCREEN_HEIGHT as u32, texture)
                .clear_color(pixels::wgpu::Color::BLACK)
                .build()
            {
                Ok(pixels) => {
                    log::info!("presenting through the GPU (pixels/wgpu)");
                    let menu =
                        MenuGui::new(window, pixels.device(), pixels.surface_texture_format());
                    return Ok(Presenter::Gpu {
                        pixels: Box::new(pixels),
                        menu: Box::new(menu),
                    });
                }
                Err(error) => {
                    log::warn!("no GPU adapter ({error}); falling back to the software presenter")
                }
            }
        }
        let context = softbuffer::Context::new(window.clone())
            .map_err(|e| format!("software presenter: {e}"))?;
        let surface = softbuffer::Surface::new(&context, window.clone())
            .map_err(|e| format!("software presenter: {e}"))?;
        log::info!("presenting through the software presenter (softbuffer)");
        Ok(Presenter::Software {
            surface,
            _context: context,
        })
    }

    pub fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return; // minimised
        }
        if let Presenter::Gpu { pixels, .. } = self
            && let Err(error) = pixels.resize_surface(width, height)
        {
            log::warn!("resize: {error}");
        }
        // The software surface is resized on every present.
    }

    /// Whether this presenter draws the menu with egui (else the overlay draws it into the
    /// picture).
    pub fn draws_menu(&self) -> bool {
        matches!(self, Presenter::Gpu { .. })
    }

    /// A window event while the menu is open: the egui menu takes the pointer's. Returns
    /// whether to draw again.
    pub fn menu_event(&mut self, window: &Window, event: &winit::event::WindowEvent) -> bool {
        match self {
            Presenter::Gpu { menu, .. } => menu.window_event(window, event),
            Presenter::Software { .. } => false,
        }
    }

    /// Shows `rgba` (160×144×4) scaled into a `width`×`height` window, with the egui menu
    /// over it when `menu` is given (GPU only); returns the menu's click, if any.
    pub fn present(
        &mut self,
        rgba: &[u8],
        width: u32,
        height: u32,
        menu: Option<(&Window, &MenuScene)>,
    ) -> Result<Option<MenuClick>, String> {
        match self {
            Presenter::Gpu { pixels, menu: gui } => {
                pixels.frame_mut().copy_from_slice(rgba);
                let mut clicked = None;
                let Some((window, scene)) = menu else {
                    pixels.render().map_err(|e| e.to_string())?;
                    return Ok(None);
                };
                let painting = gui.layout(window, scene, &mut clicked);
                pixels
                    .render_with(|encoder, view, context| {
                        context.scaling_renderer.render(encoder, view);
                        gui.paint(
                            painting,
                            encoder,
                            view,
                            &context.device,
                            &context.queue,
                            [width, height],
                        );
                        Ok(())
                    })
                    .map_err(|e| e.to_string())?;
                Ok(clicked)
            }
            Presenter::Software { surface, .. } => {
                let (Some(w), Some(h)) = (NonZeroU32::new(width), NonZeroU32::new(height)) else {
                    return Ok(None);
                };
                surface.resize(w, h).map_err(|e| e.to_string())?;
                let mut buffer = surface.buffer_mut().map_err(|e| e.to_string())?;
                scale_into(rgba, &mut buffer, width as usize, height as usize);
                buffer.present().map_err(|e| e.to_string())?;
                Ok(None)
            }
        }
    }
}

/// The integer scale and top-left corner of the picture in a window of this size.
pub fn letterbox(width: usize, height: usize) -> (usize, usize, usize) {
    let scale = (width / SCREEN_WIDTH).min(height / SCREEN_HEIGHT).max(1);
    let x = width.saturating_sub(SCREEN_WIDTH * scale) / 2;
    let y = height.saturating_sub(SCREEN_HEIGHT * scale) / 2;
    (scale, x, y)
}

/// Nearest-neighbour integer scaling of RGBA into 0RGB pixels, black around.
fn scale_into(rgba: &[u8], out: &mut [u32], width: usize, height: usize) {
    let (scale, left, top) = letterbox(width, height);
    out.fill(0);
    for y in 0..SCREEN_HEIGHT * scale {
        let row = top + y;
        if row >= height {
            break;
        }
        let source_row = &rgba[(y / scale) * SCREEN_WIDTH * 4..][..SCREEN_WIDTH * 4];
        let target = &mut out[row * width..][..width];
        for (x, pixel) in source_row.chunks_exact(4).enumerate() {
            let value = u32::from(pixel[0]) << 16 | u32::from(pixel[1]) << 8 | u32::from(pixel[2]);
            let start = left + x * scale;
            let end = (start + scale).min(width);
            if start < end {
                target[start..end].fill(value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letterbox_uses_the_largest_integer_scale() {
        assert_eq!(letterbox(640, 576), (4, 0, 0));
        assert_eq!(letterbox(800, 600), (4, 80, 12));
        assert_eq!(letterbox(100, 100), (1, 0, 0));
        let rgba = vec![0xFFu8; SCREEN_WIDTH * SCREEN_HEIGHT * 4];
        let mut out = vec![1u32; 800 * 600];
        scale_into(&rgba, &mut out, 800, 600);
        assert_eq!(out[0], 0, "letterbox is black");
        assert_eq!(out[12 * 800 + 80], 0xFF_FFFF);
        assert_eq!(out[(12 + 576) * 800 + 80], 0);
    }
}
