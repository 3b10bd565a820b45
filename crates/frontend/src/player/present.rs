//! Getting the 160×144 picture onto the window: through pixels (wgpu, Vulkan on Linux) when an
//! adapter exists, else a plain software presenter (softbuffer). Both place it as the
//! [`View`] says (whole factors or fitted, see `scaling.rs`) and letterbox the rest in black.
//! The GPU presenter also paints the egui menu over the picture ([`MenuGui`]); the software
//! presenter shows the reduced menu the overlay draws into the picture itself.

use super::menu_gui::{MenuClick, MenuGui, MenuScene};
use super::scaling::{Filter, Placement, ScaleMode, View, scale_into};
use backspin_core::{SCREEN_HEIGHT, SCREEN_WIDTH};
use std::num::NonZeroU32;
use std::sync::Arc;
use winit::window::Window;

pub enum Presenter {
    Gpu {
        pixels: Box<pixels::Pixels<'static>>,
        /// The view and window size the buffer and scaling mode were last set for.
        applied: Option<(View, u32, u32)>,
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
                        applied: None,
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
        if let Presenter::Gpu {
            pixels, applied, ..
        } = self
        {
            if let Err(error) = pixels.resize_surface(width, height) {
                log::warn!("resize: {error}");
            }
            *applied = None;
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

    /// Shows `rgba` (160×144×4) in a `width`×`height` window as `view` says, with the egui
    /// menu over it when `menu` is given (GPU only); returns the menu's click, if any.
    pub fn present(
        &mut self,
        rgba: &[u8],
        width: u32,
        height: u32,
        view: View,
        menu: Option<(&Window, &MenuScene)>,
    ) -> Result<Option<MenuClick>, String> {
        match self {
            Presenter::Gpu {
                pixels,
                applied,
                menu: gui,
            } => {
                // pixels draws a fitted picture only with linear filtering: a nearest one is
                // scaled here into a buffer of the fitted size, which pixels shows 1:1.
                let scaled_here = view.scale == ScaleMode::Fit && view.filter == Filter::Nearest;
                let place = Placement::of(view.scale, width as usize, height as usize);
                if *applied != Some((view, width, height)) {
                    let (buffer_width, buffer_height) = match scaled_here {
                        true => (place.width as u32, place.height as u32),
                        false => (SCREEN_WIDTH as u32, SCREEN_HEIGHT as u32),
                    };
                    pixels.set_scaling_mode(match view.scale {
                        ScaleMode::Fit if !scaled_here => pixels::ScalingMode::Fill,
                        _ => pixels::ScalingMode::PixelPerfect,
                    });
                    pixels
                        .resize_buffer(buffer_width, buffer_height)
                        .map_err(|e| e.to_string())?;
                    if width > 0 && height > 0 {
                        pixels
                            .resize_surface(width, height)
                            .map_err(|e| e.to_string())?;
                    }
                    *applied = Some((view, width, height));
                }
                if scaled_here {
                    let frame: &mut [[u8; 4]] = bytemuck::cast_slice_mut(pixels.frame_mut());
                    let inside = Placement {
                        left: 0,
                        top: 0,
                        ..place
                    };
                    scale_into(
                        rgba,
                        frame,
                        place.width,
                        inside,
                        Filter::Nearest,
                        |[r, g, b]| [r, g, b, 0xFF],
                    );
                } else {
                    pixels.frame_mut().copy_from_slice(rgba);
                }
                let Some((window, scene)) = menu else {
                    pixels.render().map_err(|e| e.to_string())?;
                    return Ok(None);
                };
                let mut clicked = None;
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
                let (width, height) = (width as usize, height as usize);
                let place = Placement::of(view.scale, width, height);
                buffer.fill(0);
                scale_into(rgba, &mut buffer, width, place, view.filter, |[r, g, b]| {
                    u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b)
                });
                buffer.present().map_err(|e| e.to_string())?;
                Ok(None)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_software_picture_is_placed_and_letterboxed_in_black() {
        let rgba = vec![0xFFu8; SCREEN_WIDTH * SCREEN_HEIGHT * 4];
        let mut out = vec![0u32; 800 * 600];
        let place = Placement::of(ScaleMode::Integer, 800, 600);
        scale_into(&rgba, &mut out, 800, place, Filter::Nearest, |[r, g, b]| {
            u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b)
        });
        assert_eq!(out[0], 0, "letterbox is black");
        assert_eq!(out[12 * 800 + 80], 0xFF_FFFF);
        assert_eq!(out[(12 + 576) * 800 + 80], 0);
    }
}
