//! The on-screen overlay, drawn into the 160×144 RGBA picture before it is scaled, so it
//! scales as crisply as the game: frame counter, status, timeline bar, input display, toasts.

use super::emu::{FrameInfo, Mode};
use super::slots::{THUMB_HEIGHT, THUMB_WIDTH};
use backspin_core::{Buttons, SCREEN_HEIGHT, SCREEN_WIDTH};

/// The timeline marker colour: no game shade is red, so tests can find it in a capture.
pub const MARKER: [u8; 4] = [0xFF, 0x20, 0x20, 0xFF];
const TEXT: [u8; 4] = [0xFF, 0xFF, 0xFF, 0xFF];
/// The timeline's past, and the frame around the recent game's picture in the menu.
pub const PAST: [u8; 4] = [0xB0, 0xB0, 0xC8, 0xFF];
const FUTURE: [u8; 4] = [0x50, 0x50, 0x78, 0xFF];
/// Rows of the timeline bar.
pub const BAR_TOP: usize = SCREEN_HEIGHT - 8;
pub const BAR_LEFT: usize = 4;
pub const BAR_RIGHT: usize = SCREEN_WIDTH - 4;

/// What the UI wants drawn besides what the emulation thread reports.
pub struct OverlayOptions<'a> {
    pub show_info: bool,
    pub toast: Option<&'a str>,
    /// The save-state slots' thumbnails (RGBA, `slots::THUMB_WIDTH` x `THUMB_HEIGHT`; `None`:
    /// an empty slot), shown as a strip while the save modifier is held.
    pub slot_strip: Option<&'a [Option<Vec<u8>>]>,
    /// Speedrun mode: the ROM's CRC-32, shown with the run's timer.
    pub speedrun_crc: Option<u32>,
    /// The open menu: its lines and the highlighted one, drawn over a darkened picture.
    pub menu: Option<(&'a [String], Option<usize>)>,
    /// A picture in the menu's corner (RGBA, `menu::PICTURE_WIDTH` x `PICTURE_HEIGHT`): the
    /// selected recent game's resume point.
    pub menu_picture: Option<&'a [u8]>,
}

/// Top row of the menu's first line, and the rows each line takes.
pub const MENU_TOP: usize = 4;
pub const MENU_LINE: usize = 8;
/// Left edge of the menu's lines.
const MENU_LEFT: usize = 6;

/// Characters per toast line (4 pixels each, a margin on both sides).
const TOAST_COLUMNS: usize = (SCREEN_WIDTH - 4) / 4;
/// Top row of the slot strip.
pub const STRIP_TOP: usize = BAR_TOP - 12 - THUMB_HEIGHT;

pub fn draw(rgba: &mut [u8], info: &FrameInfo, options: &OverlayOptions) {
    if let Some((lines, highlighted)) = options.menu {
        menu(rgba, lines, highlighted);
        if let Some(picture) = options.menu_picture {
            menu_picture(rgba, picture);
        }
    } else {
        status(rgba, info, options);
    }
    if let Some(strip) = options.slot_strip {
        slot_strip(rgba, strip);
    }
    if let Some(toast) = options.toast {
        let lines = wrap(toast, TOAST_COLUMNS);
        let lines = &lines[..lines.len().min(4)];
        // Under the menu's lines while it is open, so it hides none of them.
        let top = match options.menu {
            Some(_) => SCREEN_HEIGHT - 9 - 8 * lines.len().saturating_sub(1),
            None => 12,
        };
        for (line, text) in lines.iter().enumerate() {
            let width = text_width(text).min(SCREEN_WIDTH);
            text_box(rgba, (SCREEN_WIDTH - width) / 2, top + line * 8, text);
        }
    }
}

/// The frame counter, mode, timeline, input display and speedrun timer.
fn status(rgba: &mut [u8], info: &FrameInfo, options: &OverlayOptions) {
    let scrubbing = matches!(info.mode, Mode::Paused | Mode::Rewinding | Mode::Forwarding);
    if options.show_info || scrubbing {
        text_box(rgba, 2, 2, &format!("{}", info.span.position));
    }
    let mode = match info.mode {
        Mode::Playing => None,
        Mode::Paused => Some("PAUSED".to_string()),
        Mode::Rewinding => Some("REWIND".to_string()),
        Mode::Forwarding => Some("REDO".to_string()),
        Mode::FastForward => Some(format!("FF X{:.1}", info.speed)),
    };
    let status = match (info.recording, mode) {
        (true, Some(mode)) => Some(format!("REC {mode}")),
        (true, None) => Some("REC".to_string()),
        (false, mode) => mode,
    };
    if let Some(status) = status {
        let width = text_width(&status);
        text_box(rgba, SCREEN_WIDTH - 2 - width, 2, &status);
    }
    if scrubbing {
        timeline(rgba, info);
    }
    if options.show_info {
        input_display(rgba, info.buttons);
    }
    if let Some(m_cycles) = info.run_m_cycles {
        let timer = backspin_movie::emulated_time(m_cycles);
        text_box(rgba, 2, SCREEN_HEIGHT - 9, &timer);
        if let Some(crc) = options.speedrun_crc {
            let crc = format!("CRC {crc:08X}");
            text_box(
                rgba,
                SCREEN_WIDTH - 2 - text_width(&crc),
                SCREEN_HEIGHT - 9,
                &crc,
            );
        }
    }
}

/// Splits `text` into lines of at most `columns` characters, at spaces where possible.
fn wrap(text: &str, columns: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        while word.len() > columns {
            if !line.is_empty() {
                lines.push(std::mem::take(&mut line));
            }
            lines.push(word.drain(..columns).collect());
        }
        let word: String = word.into_iter().collect();
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > columns {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += &word;
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The ten slots side by side, each its thumbnail (or a dark box when empty) numbered.
fn slot_strip(rgba: &mut [u8], thumbnails: &[Option<Vec<u8>>]) {
    for (index, thumbnail) in thumbnails.iter().enumerate() {
        let x0 = index * THUMB_WIDTH;
        if x0 + THUMB_WIDTH > SCREEN_WIDTH {
            break;
        }
        match thumbnail {
            Some(pixels) if pixels.len() == THUMB_WIDTH * THUMB_HEIGHT * 4 => {
                for y in 0..THUMB_HEIGHT {
                    let from = y * THUMB_WIDTH * 4;
                    let to = ((STRIP_TOP + y) * SCREEN_WIDTH + x0) * 4;
                    rgba[to..to + THUMB_WIDTH * 4]
                        .copy_from_slice(&pixels[from..from + THUMB_WIDTH * 4]);
                }
            }
            _ => {
                fill(rgba, x0, STRIP_TOP, THUMB_WIDTH, THUMB_HEIGHT, None);
                fill(rgba, x0, STRIP_TOP, THUMB_WIDTH, THUMB_HEIGHT, None);
            }
        }
        // A one-pixel frame between thumbnails.
        fill(rgba, x0, STRIP_TOP, 1, THUMB_HEIGHT, Some(FUTURE));
        text_box(
            rgba,
            x0 + 1,
            STRIP_TOP + THUMB_HEIGHT,
            &format!("{}", index + 1),
        );
    }
}

fn timeline(rgba: &mut [u8], info: &FrameInfo) {
    let span = info.span;
    fill(
        rgba,
        BAR_LEFT - 2,
        BAR_TOP - 2,
        BAR_RIGHT - BAR_LEFT + 4,
        7,
        None,
    );
    let width = (BAR_RIGHT - BAR_LEFT) as u64;
    let length = span.newest.saturating_sub(span.oldest).max(1);
    let x_of = |frame: u64| {
        BAR_LEFT + ((frame.saturating_sub(span.oldest)) * (width - 1) / length) as usize
    };
    let position_x = x_of(span.position);
    let newest_x = x_of(span.newest);
    fill(
        rgba,
        BAR_LEFT,
        BAR_TOP,
        position_x - BAR_LEFT + 1,
        3,
        Some(PAST),
    );
    if newest_x > position_x {
        fill(
            rgba,
            position_x + 1,
            BAR_TOP,
            newest_x - position_x,
            3,
            Some(FUTURE),
        );
    }
    // The marker, two pixels wide and taller than the bar.
    let marker_x = position_x.min(BAR_RIGHT - 2);
    fill(rgba, marker_x, BAR_TOP - 2, 2, 7, Some(MARKER));
    // In time units: how far back the position is, and how much history is held.
    let seconds = |frames: u64| frames as f64 * super::emu::FRAME_DURATION.as_secs_f64();
    let label = format!(
        "-{:.1}S / {:.1}S",
        seconds(span.newest - span.position.min(span.newest)),
        seconds(span.newest - span.oldest.min(span.newest))
    );
    text_box(rgba, BAR_LEFT - 2, BAR_TOP - 10, &label);
}

fn input_display(rgba: &mut [u8], buttons: u8) {
    let (x, y) = (4, BAR_TOP - 24);
    fill(rgba, x - 1, y - 1, 30, 11, None);
    let square = |rgba: &mut [u8], dx: usize, dy: usize, bit: u8| {
        let color = if buttons & bit != 0 { TEXT } else { FUTURE };
        fill(rgba, x + dx, y + dy, 3, 3, Some(color));
    };
    square(rgba, 3, 0, Buttons::UP);
    square(rgba, 0, 3, Buttons::LEFT);
    square(rgba, 6, 3, Buttons::RIGHT);
    square(rgba, 3, 6, Buttons::DOWN);
    square(rgba, 12, 6, Buttons::SELECT);
    square(rgba, 16, 6, Buttons::START);
    square(rgba, 20, 2, Buttons::B);
    square(rgba, 24, 0, Buttons::A);
}

/// Fills a rectangle (clipped); `None` darkens what is there instead, for text backgrounds.
fn fill(rgba: &mut [u8], x: usize, y: usize, width: usize, height: usize, color: Option<[u8; 4]>) {
    for row in y..(y + height).min(SCREEN_HEIGHT) {
        for column in x..(x + width).min(SCREEN_WIDTH) {
            let at = (row * SCREEN_WIDTH + column) * 4;
            let pixel = &mut rgba[at..at + 4];
            match color {
                Some(color) => pixel.copy_from_slice(&color),
                None => {
                    for channel in &mut pixel[..3] {
                        *channel /= 3;
                    }
                }
            }
        }
    }
}

fn text_width(text: &str) -> usize {
    text.chars().count() * 4 + 1
}

/// The menu's lines over the darkened picture, the highlighted one on the marker colour.
fn menu(rgba: &mut [u8], lines: &[String], highlighted: Option<usize>) {
    fill(rgba, 0, 0, SCREEN_WIDTH, SCREEN_HEIGHT, None);
    for (index, line) in lines.iter().enumerate() {
        let y = MENU_TOP + index * MENU_LINE;
        if highlighted == Some(index) {
            highlighted_text_box(rgba, MENU_LEFT, y, line);
        } else {
            text_box(rgba, MENU_LEFT, y, line);
        }
    }
}

/// Draws `text` in the 3×5 font on a darkened box with a one-pixel margin.
/// The picture at the bottom right, framed.
fn menu_picture(rgba: &mut [u8], picture: &[u8]) {
    use super::menu::{PICTURE_HEIGHT, PICTURE_WIDTH};
    if picture.len() != PICTURE_WIDTH * PICTURE_HEIGHT * 4 {
        return;
    }
    // Above the bottom line, where toasts go while the menu is open.
    let (x0, y0) = (
        SCREEN_WIDTH - PICTURE_WIDTH - 4,
        SCREEN_HEIGHT - PICTURE_HEIGHT - 12,
    );
    fill(
        rgba,
        x0 - 1,
        y0 - 1,
        PICTURE_WIDTH + 2,
        PICTURE_HEIGHT + 2,
        Some(PAST),
    );
    for y in 0..PICTURE_HEIGHT {
        let from = y * PICTURE_WIDTH * 4;
        let to = ((y0 + y) * SCREEN_WIDTH + x0) * 4;
        rgba[to..to + PICTURE_WIDTH * 4].copy_from_slice(&picture[from..from + PICTURE_WIDTH * 4]);
    }
}

fn text_box(rgba: &mut [u8], x: usize, y: usize, text: &str) {
    fill(rgba, x, y, text_width(text), 7, None);
    glyphs(rgba, x, y, text);
}

/// Draws `text` on a box of the marker colour (the selected menu line).
fn highlighted_text_box(rgba: &mut [u8], x: usize, y: usize, text: &str) {
    fill(rgba, x, y, text_width(text), 7, Some(MARKER));
    glyphs(rgba, x, y, text);
}

fn glyphs(rgba: &mut [u8], x: usize, y: usize, text: &str) {
    for (index, character) in text.chars().enumerate() {
        let glyph = glyph(character.to_ascii_uppercase());
        for row in 0..5 {
            for column in 0..3 {
                if glyph >> (14 - (row * 3 + column)) & 1 != 0 {
                    fill(
                        rgba,
                        x + 1 + index * 4 + column,
                        y + 1 + row,
                        1,
                        1,
                        Some(TEXT),
                    );
                }
            }
        }
    }
}

/// 3×5 glyphs, five rows of three bits from the top, most significant bit left.
fn glyph(character: char) -> u16 {
    let rows: [u8; 5] = match character {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 2, 2, 2],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [3, 4, 4, 4, 3],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [3, 4, 5, 5, 3],
        'H' => [5, 5, 7, 5, 5],
        'I' => [7, 2, 2, 2, 7],
        'J' => [1, 1, 1, 5, 2],
        'K' => [5, 5, 6, 5, 5],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'O' => [2, 5, 5, 5, 2],
        'P' => [6, 5, 6, 4, 4],
        'Q' => [2, 5, 5, 6, 3],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'T' => [7, 2, 2, 2, 2],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        'X' => [5, 5, 2, 5, 5],
        'Y' => [5, 5, 2, 2, 2],
        'Z' => [7, 1, 2, 4, 7],
        '.' => [0, 0, 0, 0, 2],
        ':' => [0, 2, 0, 2, 0],
        '-' => [0, 0, 7, 0, 0],
        '/' => [1, 1, 2, 4, 4],
        '%' => [5, 1, 2, 4, 5],
        '!' => [2, 2, 2, 0, 2],
        '?' => [6, 1, 2, 0, 2],
        '<' => [1, 2, 4, 2, 1],
        '>' => [4, 2, 1, 2, 4],
        '+' => [0, 2, 7, 2, 0],
        ',' => [0, 0, 0, 2, 4],
        '(' => [1, 2, 2, 2, 1],
        ')' => [4, 2, 2, 2, 4],
        '_' => [0, 0, 0, 0, 7],
        '=' => [0, 7, 0, 7, 0],
        '[' => [3, 2, 2, 2, 3],
        ']' => [6, 2, 2, 2, 6],
        _ => [0; 5],
    };
    rows.iter().fold(0, |bits, row| bits << 3 | u16::from(*row))
}

#[cfg(test)]
mod tests {
    use super::*;
    use backspin_rewind::Span;

    #[test]
    fn timeline_marker_sits_at_the_position() {
        let mut rgba = vec![0u8; SCREEN_WIDTH * SCREEN_HEIGHT * 4];
        let info = FrameInfo {
            mode: Mode::Rewinding,
            span: Span {
                oldest: 100,
                position: 150,
                newest: 200,
            },
            ..FrameInfo::default()
        };
        draw(
            &mut rgba,
            &info,
            &OverlayOptions {
                speedrun_crc: None,
                show_info: true,
                toast: Some("STATE 3 SAVED"),
                slot_strip: None,
                menu: None,
                menu_picture: None,
            },
        );
        let row = BAR_TOP + 1;
        let red: Vec<usize> = (0..SCREEN_WIDTH)
            .filter(|x| rgba[(row * SCREEN_WIDTH + x) * 4..][..4] == MARKER)
            .collect();
        let middle = (BAR_LEFT + BAR_RIGHT) / 2;
        assert!(red.len() == 2 && red[0].abs_diff(middle) <= 2, "{red:?}");
    }

    #[test]
    fn toasts_wrap_at_spaces_and_long_words() {
        assert_eq!(wrap("Slot 3 loaded - saved 2 min ago", 38).len(), 1);
        let lines = wrap(
            "Slot 3: this save state is for another game (\"OTHER\"); the loaded ROM is \"DEMO\"",
            38,
        );
        assert!(
            lines.len() > 1 && lines.iter().all(|l| l.chars().count() <= 38),
            "{lines:?}"
        );
        assert_eq!(wrap(&"x".repeat(80), 38).len(), 3);
    }

    #[test]
    fn the_slot_strip_shows_thumbnails_and_empty_slots() {
        let mut rgba = vec![0x80u8; SCREEN_WIDTH * SCREEN_HEIGHT * 4];
        let mut thumbnails = vec![None; 10];
        thumbnails[2] = Some(vec![0xFF; THUMB_WIDTH * THUMB_HEIGHT * 4]);
        draw(
            &mut rgba,
            &FrameInfo::default(),
            &OverlayOptions {
                speedrun_crc: None,
                show_info: false,
                toast: None,
                slot_strip: Some(&thumbnails),
                menu: None,
                menu_picture: None,
            },
        );
        let at = |x: usize, y: usize| rgba[(y * SCREEN_WIDTH + x) * 4];
        let y = STRIP_TOP + THUMB_HEIGHT - 1;
        assert_eq!(at(2 * THUMB_WIDTH + 5, y), 0xFF, "slot 3's thumbnail");
        assert!(at(5, y) < 0x80, "slot 1 is empty: darkened");
    }

    #[test]
    fn the_menu_darkens_the_picture_and_marks_its_selected_line() {
        let mut rgba = vec![0xFFu8; SCREEN_WIDTH * SCREEN_HEIGHT * 4];
        let lines = ["RESUME".to_string(), "QUIT".to_string()];
        draw(
            &mut rgba,
            &FrameInfo::default(),
            &OverlayOptions {
                speedrun_crc: None,
                show_info: false,
                toast: None,
                slot_strip: None,
                menu: Some((&lines, Some(1))),
                menu_picture: None,
            },
        );
        let pixel = |x: usize, y: usize| &rgba[(y * SCREEN_WIDTH + x) * 4..][..4];
        assert_eq!(pixel(150, 140), [0x55, 0x55, 0x55, 0xFF], "darkened");
        assert_eq!(pixel(MENU_LEFT, MENU_TOP + MENU_LINE), MARKER, "selected");
        assert_ne!(pixel(MENU_LEFT, MENU_TOP), MARKER);
    }
}
