//! The window in colour, under Xvfb: a CGB cartridge shows its palettes, `--colour-correction
//! lcd` changes the window but not screenshots, and `--model` picks the machine for the
//! player as for `run` (a DMG game on a CGB, a CGB game on a DMG). The CGB cartridge is our
//! own `roms-test/cgb_palette.asm`, assembled here. Skips with a printed reason when Xvfb,
//! xdotool or import is missing. Captures are written under `target/gui-test/`.

mod gui_support;

use gui_support::{Display, HEIGHT, SERIAL, WIDTH, missing_tools, out_dir};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// `cgb_palette.asm`'s colours, plainly expanded: palette 0 (top half) and 1 (bottom half),
/// colours 0-3 in bands from left to right.
const PLAIN: [[[u8; 3]; 4]; 2] = [
    [[255, 255, 255], [255, 0, 0], [0, 255, 0], [0, 0, 255]],
    [[255, 255, 0], [255, 0, 255], [0, 255, 255], [0, 0, 0]],
];
/// The same through `--colour-correction lcd` (`player/picture.rs`).
const LCD: [[[u8; 3]; 4]; 2] = [
    [[240, 240, 240], [201, 0, 46], [31, 186, 31], [15, 62, 170]],
    [[232, 186, 77], [217, 62, 217], [46, 240, 201], [0, 0, 0]],
];
/// The DMG shades as the player shows them (`player/picture.rs`).
const DMG: [[u8; 3]; 4] = [
    [0xE0, 0xF0, 0xD0],
    [0x88, 0xC0, 0x70],
    [0x34, 0x68, 0x56],
    [0x08, 0x18, 0x20],
];

/// The middle of each band in each half: (x, y, half, colour number).
fn probes() -> impl Iterator<Item = (usize, usize, usize, usize)> {
    (0..2)
        .flat_map(|half| (0..4).map(move |colour| (colour * 40 + 20, half * 72 + 36, half, colour)))
}

fn cgb_rom(out: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../roms-test/cgb_palette.asm");
    let rom = backspin_asm::assemble_file(&source).expect("cgb_palette.asm assembles");
    let path = out.join("cgb_palette.gbc");
    std::fs::write(&path, rom).expect("ROM written");
    path
}

fn demo_rom(out: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo/demo.asm");
    let rom = backspin_asm::assemble_file(&source).expect("the demo assembles");
    let path = out.join("colour-demo.gb");
    std::fs::write(&path, rom).expect("ROM written");
    path
}

/// Reads a 160×144 RGBA PNG as RGB pixels.
fn read_png(path: &Path) -> Vec<[u8; 3]> {
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
    ));
    let mut reader = decoder.read_info().expect("PNG");
    let mut rgba = vec![0; reader.output_buffer_size().expect("size")];
    reader.next_frame(&mut rgba).expect("decodes");
    assert_eq!(rgba.len(), WIDTH * HEIGHT * 4);
    rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect()
}

fn assert_bands(picture: &[[u8; 3]], expected: &[[[u8; 3]; 4]; 2], what: &str) {
    for (x, y, half, colour) in probes() {
        assert_eq!(
            picture[y * WIDTH + x],
            expected[half][colour],
            "{what}: pixel ({x}, {y}), palette {half} colour {colour}"
        );
    }
}

/// Runs the player with the screenshot hook (`--screenshot-after FRAMES FILE`) and returns
/// the screenshot.
fn screenshot(out: &Path, name: &str, args: &[&str]) -> Vec<[u8; 3]> {
    let shot = out.join(format!("{name}.png"));
    let _ = std::fs::remove_file(&shot);
    let log = out.join(format!("{name}.log"));
    let mut display = Display::start();
    let mut all: Vec<&str> = args.to_vec();
    let shot_arg = shot.to_str().expect("utf-8 path").to_string();
    all.extend([
        "--no-audio",
        "--software",
        "--quit-after",
        "600", // a safety net: the screenshot hook quits
        "--screenshot-after",
        "60",
        &shot_arg,
    ]);
    display.launch(&all, &log);
    let log_text = display.wait_for_success(&log);
    assert!(!log_text.contains("panicked"), "{log_text}");
    read_png(&shot)
}

/// The window shows the palettes: plain colours by default, the LCD approximation with
/// `--colour-correction lcd`.
#[test]
fn gui_cgb_game_shows_colour() {
    if let Some(missing) = missing_tools() {
        println!("SKIPPED gui_cgb_game_shows_colour: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    let rom = cgb_rom(&out);
    for (correction, expected) in [("off", &PLAIN), ("lcd", &LCD)] {
        let log = out.join(format!("colour-{correction}.log"));
        let mut display = Display::start();
        display.launch(
            &[
                rom.to_str().expect("utf-8 path"),
                "--no-audio",
                "--colour-correction",
                correction,
                "--quit-after",
                "600", // a safety net: the test closes the window
            ],
            &log,
        );
        let window = display.wait_for_window(&log);
        // The picture is still from the first frame on; wait until frames are shown.
        let started = Instant::now();
        while display.shown_frame(&window).is_none_or(|f| f < 30) {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no frames shown"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let picture = display.capture(&window, &out.join(format!("colour-{correction}.png")));
        assert_bands(
            &picture,
            expected,
            &format!("window, correction {correction}"),
        );
        display.close_until_exited(&window);
        let log_text = display.wait_for_success(&log);
        assert!(log_text.contains("emulating a Cgb"), "{log_text}");
    }
}

/// Screenshots are the plain expansion whatever the window shows.
#[test]
fn gui_screenshots_ignore_the_colour_correction() {
    if let Some(missing) = missing_tools() {
        println!("SKIPPED gui_screenshots_ignore_the_colour_correction: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    let rom = cgb_rom(&out);
    let rom = rom.to_str().expect("utf-8 path");
    let shot = screenshot(
        &out,
        "colour-shot-lcd",
        &[rom, "--colour-correction", "lcd"],
    );
    assert_bands(&shot, &PLAIN, "screenshot with the lcd correction");
}

/// `--model dmg` runs the CGB cartridge on a DMG (gray bands, no palettes); `--model cgb`
/// runs a DMG game on a CGB, coloured by the compatibility palette; `auto` keeps the DMG.
#[test]
fn gui_model_option_picks_the_machine() {
    if let Some(missing) = missing_tools() {
        println!("SKIPPED gui_model_option_picks_the_machine: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    let cgb = cgb_rom(&out);
    let on_dmg = screenshot(
        &out,
        "colour-model-dmg",
        &[cgb.to_str().expect("utf-8 path"), "--model", "dmg"],
    );
    for (x, y, _, colour) in probes() {
        assert_eq!(on_dmg[y * WIDTH + x], DMG[colour], "({x}, {y}) on a DMG");
    }
    let demo = demo_rom(&out);
    let demo = demo.to_str().expect("utf-8 path");
    let auto = screenshot(&out, "colour-demo-auto", &[demo]);
    assert!(auto.iter().all(|p| DMG.contains(p)), "a DMG game on auto");
    let on_cgb = screenshot(&out, "colour-demo-cgb", &[demo, "--model", "cgb"]);
    assert!(
        on_cgb.iter().all(|p| !DMG.contains(p)),
        "a DMG game on a CGB is coloured"
    );
    assert!(
        on_cgb.contains(&[255, 255, 255]),
        "the compatibility palette has white"
    );
}
