//! The menu drawn with egui over the GPU presenter's picture, at the window's resolution and
//! scale factor. It draws the same [`Menu`](super::menu::Menu) model as the reduced menu the
//! software presenter draws in the game's own pixels: the model's lines, its selection, the
//! slot thumbnails and the selected recent game's picture. Keys and pad buttons reach the
//! model through the app as before; egui only sees the mouse, and a click comes back as the
//! model's own input (a line for `Menu::click`, or Left/Right on a `LABEL < VALUE >` row), so
//! the two menus hold the same entries and act alike.

use super::menu::{MenuKey, PICTURE_HEIGHT, PICTURE_WIDTH};
use super::overlay::{MARKER, PAST};
use super::slots::{THUMB_HEIGHT, THUMB_WIDTH};
use egui::{Align2, Color32, FontId, Pos2, Rect, Sense, Stroke, Vec2};
use egui_wgpu::wgpu;
use winit::event::WindowEvent;
use winit::window::Window;

/// The panel's fill, which tests look for in a capture.
pub const PANEL: [u8; 3] = [0x24, 0x24, 0x38];
const TEXT: Color32 = Color32::from_rgb(0xF0, 0xF0, 0xF0);
const HEADING: Color32 = Color32::from_rgb(0xB0, 0xB0, 0xC8);
const HOVER: Color32 = Color32::from_rgb(0x44, 0x44, 0x66);
/// Texture slots: the ten save-state slots, then the recent game's picture.
const RECENT_PICTURE: usize = super::config::SLOTS as usize;

/// What the menu shows this frame, borrowed from the model and the app.
pub struct MenuScene<'a> {
    /// The model's lines; with `heading`, the first is the page's heading.
    pub lines: &'a [String],
    pub heading: bool,
    pub highlighted: Option<usize>,
    /// The slots' thumbnails (`None`: an empty slot) while a slot entry is selected, and the
    /// slot it acts on.
    pub strip: Option<(&'a [Option<Vec<u8>>], u8)>,
    /// The selected recent game's picture (`PICTURE_WIDTH` x `PICTURE_HEIGHT` RGBA).
    pub picture: Option<&'a [u8]>,
    pub toast: Option<&'a str>,
}

/// A mouse click in the menu, as the model's own input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MenuClick {
    /// A line, numbered as `Menu::click` takes it.
    Line(usize),
    Key(MenuKey),
}

/// One laid-out frame of the menu, ready to paint.
pub struct Painting {
    primitives: Vec<egui::ClippedPrimitive>,
    textures: egui::TexturesDelta,
    pixels_per_point: f32,
}

/// egui's state for the menu: its context, the window's pointer input and the wgpu renderer.
pub struct MenuGui {
    context: egui::Context,
    input: egui_winit::State,
    renderer: egui_wgpu::Renderer,
    /// The thumbnails as textures, each with the pixels it was made from, so a texture is
    /// uploaded again only when its picture changes.
    textures: Vec<Option<(Vec<u8>, egui::TextureHandle)>>,
}

impl MenuGui {
    /// `format`: the surface's texture format, which the menu is painted onto.
    pub fn new(window: &Window, device: &wgpu::Device, format: wgpu::TextureFormat) -> MenuGui {
        let context = egui::Context::default();
        context.set_visuals(egui::Visuals::dark());
        // The menu follows the model at once, as the reduced menu does.
        context.all_styles_mut(|style| style.animation_time = 0.0);
        let input = egui_winit::State::new(
            context.clone(),
            egui::ViewportId::ROOT,
            window,
            Some(window.scale_factor() as f32),
            None,
            Some(device.limits().max_texture_dimension_2d as usize),
        );
        let renderer = egui_wgpu::Renderer::new(
            device,
            format,
            egui_wgpu::RendererOptions {
                // Flat colours stay exact (tests find the panel and the selection by colour).
                dithering: false,
                ..Default::default()
            },
        );
        MenuGui {
            context,
            input,
            renderer,
            textures: vec![None; RECENT_PICTURE + 1],
        }
    }

    /// Passes a pointer or scale event to egui (keys go to the model, not to egui); returns
    /// whether the menu should be drawn again.
    pub fn window_event(&mut self, window: &Window, event: &WindowEvent) -> bool {
        match event {
            WindowEvent::CursorMoved { .. }
            | WindowEvent::CursorLeft { .. }
            | WindowEvent::CursorEntered { .. }
            | WindowEvent::MouseInput { .. }
            | WindowEvent::MouseWheel { .. }
            | WindowEvent::ScaleFactorChanged { .. } => {
                self.input.on_window_event(window, event).repaint
            }
            _ => false,
        }
    }

    /// Lays out one frame of the menu; `clicked` gets the first click in it.
    pub fn layout(
        &mut self,
        window: &Window,
        scene: &MenuScene,
        clicked: &mut Option<MenuClick>,
    ) -> Painting {
        self.upload_pictures(scene);
        let raw = self.input.take_egui_input(window);
        let textures = &self.textures;
        let output = self
            .context
            .run_ui(raw, |ui| draw(ui, scene, textures, clicked));
        self.input
            .handle_platform_output(window, output.platform_output);
        Painting {
            primitives: self
                .context
                .tessellate(output.shapes, output.pixels_per_point),
            textures: output.textures_delta,
            pixels_per_point: output.pixels_per_point,
        }
    }

    /// Paints a laid-out frame over what `view` holds (the scaled picture).
    pub fn paint(
        &mut self,
        painting: Painting,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        size_in_pixels: [u32; 2],
    ) {
        for (id, delta) in &painting.textures.set {
            self.renderer.update_texture(device, queue, *id, delta);
        }
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels,
            pixels_per_point: painting.pixels_per_point,
        };
        // No paint callbacks are used, so there are no command buffers of theirs to submit.
        let _ = self
            .renderer
            .update_buffers(device, queue, encoder, &painting.primitives, &screen);
        let mut pass = encoder
            .begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("menu"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Load,
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            })
            .forget_lifetime();
        self.renderer
            .render(&mut pass, &painting.primitives, &screen);
        drop(pass);
        for id in &painting.textures.free {
            self.renderer.free_texture(id);
        }
    }

    /// Makes textures of the pictures the scene shows that changed since they were uploaded.
    fn upload_pictures(&mut self, scene: &MenuScene) {
        let slots = scene.strip.map(|(thumbnails, _)| thumbnails).unwrap_or(&[]);
        let wanted = slots
            .iter()
            .take(RECENT_PICTURE)
            .enumerate()
            .filter_map(|(index, thumbnail)| {
                let pixels = thumbnail.as_deref()?;
                Some((index, pixels, [THUMB_WIDTH, THUMB_HEIGHT]))
            })
            .chain(
                scene
                    .picture
                    .map(|pixels| (RECENT_PICTURE, pixels, [PICTURE_WIDTH, PICTURE_HEIGHT])),
            );
        for (index, pixels, size) in wanted {
            if pixels.len() != size[0] * size[1] * 4
                || self.textures[index]
                    .as_ref()
                    .is_some_and(|(shown, _)| shown == pixels)
            {
                continue;
            }
            let image = egui::ColorImage::from_rgba_unmultiplied(size, pixels);
            let options = egui::TextureOptions::NEAREST;
            let handle = match self.textures[index].take() {
                Some((_, mut handle)) => {
                    handle.set(image, options);
                    handle
                }
                None => self
                    .context
                    .load_texture(format!("menu picture {index}"), image, options),
            };
            self.textures[index] = Some((pixels.to_vec(), handle));
        }
    }
}

/// The menu over the darkened picture: a centred panel of the model's lines, then the slot
/// strip or the recent game's picture, and the toast at the bottom.
fn draw(
    ui: &mut egui::Ui,
    scene: &MenuScene,
    textures: &[Option<(Vec<u8>, egui::TextureHandle)>],
    clicked: &mut Option<MenuClick>,
) {
    let screen = ui.max_rect();
    let painter = ui.painter().clone();
    painter.rect_filled(screen, 0.0, Color32::from_black_alpha(200));
    // Rows of text the panel holds: the lines, the strip or picture, margins.
    let extra_rows = match (scene.strip, scene.picture) {
        (Some(_), _) => 4.0,
        (None, Some(_)) => 5.0,
        (None, None) => 0.0,
    };
    let rows = scene.lines.len() as f32 + extra_rows + 2.0;
    let row = (screen.height() * 0.92 / rows).clamp(8.0, 34.0);
    let font = FontId::proportional(row * 0.62);
    let width = (screen.width() * 0.9).min(row * 22.0);
    let height = row * rows;
    let panel = Rect::from_center_size(screen.center(), Vec2::new(width, height));
    let [r, g, b] = PANEL;
    painter.rect(
        panel,
        row * 0.3,
        Color32::from_rgb(r, g, b),
        Stroke::new(1.0, HEADING),
        egui::StrokeKind::Inside,
    );
    let left = panel.left() + row * 0.5;
    let right = panel.right() - row * 0.5;
    let mut top = panel.top() + row;
    for (index, line) in scene.lines.iter().enumerate() {
        let rect = Rect::from_min_max(Pos2::new(left, top), Pos2::new(right, top + row));
        top += row;
        if line.is_empty() {
            continue;
        }
        let response = ui.interact(rect, ui.id().with(("menu line", index)), Sense::click());
        let heading = scene.heading && index == 0;
        let selected = scene.highlighted == Some(index);
        if selected {
            let [r, g, b, _] = MARKER;
            painter.rect_filled(rect, row * 0.2, Color32::from_rgb(r, g, b));
        } else if response.hovered() && !heading {
            painter.rect_filled(rect, row * 0.2, HOVER);
        }
        let colour = if heading { HEADING } else { TEXT };
        let text_at = |x: f32, align: Align2, text: &str| {
            painter.text(
                Pos2::new(x, rect.center().y),
                align,
                text,
                font.clone(),
                colour,
            );
        };
        let pad = row * 0.3;
        match split_value(line) {
            // A value the arrows change: the label left, "<  value  >" right, the arrows
            // clickable on the selected row.
            Some((label, value)) if !heading => {
                text_at(rect.left() + pad, Align2::LEFT_CENTER, label);
                let arrow = row * 1.2;
                let right_arrow =
                    Rect::from_min_max(Pos2::new(rect.right() - arrow, rect.top()), rect.max);
                let value_right = right_arrow.left();
                let value_width = painter
                    .layout_no_wrap(value.to_string(), font.clone(), colour)
                    .size()
                    .x;
                let left_arrow = Rect::from_min_size(
                    Pos2::new(value_right - value_width - arrow, rect.top()),
                    Vec2::new(arrow, row),
                );
                text_at(value_right, Align2::RIGHT_CENTER, value);
                text_at(left_arrow.center().x, Align2::CENTER_CENTER, "<");
                text_at(right_arrow.center().x, Align2::CENTER_CENTER, ">");
                if response.clicked() {
                    let at = response.interact_pointer_pos();
                    let on = |arrow: Rect| selected && at.is_some_and(|at| arrow.contains(at));
                    *clicked = clicked.or(Some(if on(left_arrow) {
                        MenuClick::Key(MenuKey::Left)
                    } else if on(right_arrow) {
                        MenuClick::Key(MenuKey::Right)
                    } else {
                        MenuClick::Line(index)
                    }));
                }
                continue;
            }
            _ => text_at(rect.left() + pad, Align2::LEFT_CENTER, line),
        }
        if response.clicked() {
            *clicked = clicked.or(Some(MenuClick::Line(index)));
        }
    }
    top += row * 0.5;
    if let Some((thumbnails, slot)) = scene.strip {
        let count = thumbnails.len().max(1) as f32;
        let cell = (right - left) / count;
        let size = Vec2::new(
            cell - 4.0,
            (cell - 4.0) * THUMB_HEIGHT as f32 / THUMB_WIDTH as f32,
        );
        for (index, _) in thumbnails.iter().enumerate() {
            let rect = Rect::from_min_size(Pos2::new(left + cell * index as f32 + 2.0, top), size);
            // Not the selected row's colour: tests find that row by it.
            let frame = match usize::from(slot) == index + 1 {
                true => Color32::WHITE,
                false => HEADING,
            };
            picture(
                &painter,
                rect,
                textures[index]
                    .as_ref()
                    .filter(|_| thumbnails[index].is_some()),
                frame,
            );
            painter.text(
                Pos2::new(rect.center().x, rect.bottom() + row * 0.5),
                Align2::CENTER_CENTER,
                format!("{}", index + 1),
                font.clone(),
                TEXT,
            );
        }
    } else if scene.picture.is_some() {
        let height = row * 4.0;
        let size = Vec2::new(
            height * PICTURE_WIDTH as f32 / PICTURE_HEIGHT as f32,
            height,
        );
        let rect = Rect::from_min_size(Pos2::new(right - size.x - 2.0, top), size);
        let [r, g, b, _] = PAST;
        picture(
            &painter,
            rect,
            textures[RECENT_PICTURE].as_ref(),
            Color32::from_rgb(r, g, b),
        );
    }
    if let Some(toast) = scene.toast {
        let galley = painter.layout(toast.to_string(), font.clone(), TEXT, screen.width() * 0.9);
        let at = Pos2::new(
            screen.center().x - galley.size().x / 2.0,
            screen.bottom() - galley.size().y - row * 0.5,
        );
        let back = Rect::from_min_size(at, galley.size()).expand(row * 0.2);
        painter.rect_filled(back, row * 0.2, Color32::from_black_alpha(220));
        painter.galley(at, galley, TEXT);
    }
}

/// A thumbnail in a frame two pixels wide; a dark box when there is none.
fn picture(
    painter: &egui::Painter,
    rect: Rect,
    texture: Option<&(Vec<u8>, egui::TextureHandle)>,
    frame: Color32,
) {
    painter.rect_filled(rect.expand(2.0), 0.0, frame);
    match texture {
        Some((_, handle)) => painter.image(
            handle.id(),
            rect,
            Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
            Color32::WHITE,
        ),
        None => painter.rect_filled(rect, 0.0, Color32::BLACK),
    };
}

/// `LABEL < VALUE >` (a row whose value Left/Right change) as its label and value.
fn split_value(line: &str) -> Option<(&str, &str)> {
    line.strip_suffix(" >")?.rsplit_once(" < ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_row_splits_into_label_and_value() {
        assert_eq!(split_value("MODEL < cgb >"), Some(("MODEL", "cgb")));
        assert_eq!(split_value("LOAD SLOT < 3 >"), Some(("LOAD SLOT", "3")));
        assert_eq!(split_value("RESUME"), None);
    }
}
