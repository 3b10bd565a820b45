//! The in-window menu in the real window under Xvfb (helpers in `gui_support`). Skips with
//! a printed reason when Xvfb, xdotool or import is missing.
//!
//! - On the GPU presenter (lavapipe), where the menu is drawn with egui: the panel and its
//!   selected row are in a capture, keys drive it, and a click on a row chooses that row.
//! - On the GPU presenter too, one launch: an old config that gives Escape to pause is
//!   migrated with a notice (comments kept); Esc opens the menu and the game holds (the
//!   title's frame stays); a slot is saved from the menu; Esc closes it and play goes on from
//!   the same frame; the slot is loaded from the menu; a right click opens it; the model and
//!   the DMG palette (seen at once) are changed on its Settings page and pause is rebound to a key B had on its Keys page
//!   (config.toml keeps its comments), and the next launch uses both; its Quit entry quits.
//! - On the software presenter, whose reduced menu is drawn in the game's own pixels from the
//!   same model and keys: a ROM is opened through the file browser using only keys, found
//!   after a relaunch in the recent games with its picture and resumed, then restarted in
//!   speedrun mode from the menu.

mod gui_support;

use gui_support::{
    Display, SERIAL, counter_rom, missing_tools, player_args, wait_for_frame, wait_for_log,
    wait_for_title,
};
use std::path::Path;

/// The overlay's marker colour: the menu's selected line is drawn on it.
const MARKER: [u8; 3] = [0xFF, 0x20, 0x20];
/// The lightest shade of the player's green DMG palette, and the darkest of the grey one
/// (the counter ROM draws in these two shades).
const GREEN_LIGHTEST: [u8; 3] = [0xE0, 0xF0, 0xD0];
const GREY_DARKEST: [u8; 3] = [0, 0, 0];
/// The frame around the recent list's picture.
const PICTURE_FRAME: [u8; 3] = [0xB0, 0xB0, 0xC8];
/// The egui menu's panel.
const PANEL: [u8; 3] = [0x24, 0x24, 0x38];

/// Pixels of the capture within a few levels of `colour` (the GPU may round).
fn pixels_of(capture: &[[u8; 3]], colour: [u8; 3]) -> Vec<usize> {
    (0..capture.len())
        .filter(|at| (0..3).all(|c| capture[*at][c].abs_diff(colour[c]) <= 3))
        .collect()
}

#[test]
fn gui_menu_is_drawn_with_egui_on_the_gpu_presenter() {
    let name = "gui_menu_is_drawn_with_egui_on_the_gpu_presenter";
    if let Some(missing) = missing_tools() {
        println!("SKIPPED {name}: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rom = counter_rom("menu_egui");
    let dir = rom.parent().expect("a folder").to_path_buf();
    let config = dir.join("config.toml");
    let args = [
        rom.to_str().expect("utf-8 path"),
        "--no-audio",
        "--config",
        config.to_str().expect("utf-8 path"),
    ];
    let mut display = Display::start();
    let log = dir.join("egui.log");
    display.launch(&args, &log);
    let window = display.wait_for_window(&log);
    expect_log(&log, "presenting through the GPU");
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_title(&display, &window, "30 frames", |f, _| f >= 30);
    let before = display.capture(&window, &dir.join("egui-game.png"));
    assert!(
        pixels_of(&before, PANEL).is_empty(),
        "a panel before the menu"
    );

    // Esc: the panel is drawn over the held game, its first row (Resume) selected.
    let held_at = open_menu_with_esc(&display, &window);
    let capture = display.capture(&window, &dir.join("egui-menu.png"));
    let panel = pixels_of(&capture, PANEL).len();
    assert!(panel > capture.len() / 8, "no menu panel: {panel} pixels");
    assert!(!pixels_of(&capture, MARKER).is_empty(), "no selected row");

    // Keys drive the model under it: down to Save slot < 1 >.
    display.xdotool(&["key", "Down", "Down", "Down", "Down", "Return"]);
    expect_log(&log, "Slot 1 saved");
    assert_eq!(display.title_frame(&window).0, held_at, "the game ran");

    // A click four rows above the selected one (Resume) resumes the game.
    let capture = display.capture(&window, &dir.join("egui-slot.png"));
    let selected = pixels_of(&capture, MARKER);
    let rows: Vec<usize> = selected.iter().map(|at| at / gui_support::WIDTH).collect();
    let (first, last) = (rows.iter().min().unwrap(), rows.iter().max().unwrap());
    let column = selected
        .iter()
        .map(|at| at % gui_support::WIDTH)
        .min()
        .unwrap()
        + 4;
    let row_height = last - first + 1;
    let resume_row = (first + last) / 2 - 4 * row_height;
    // The capture is the 640×576 window sampled every 4 pixels.
    let (x, y) = (
        (column * 4 + 2).to_string(),
        (resume_row * 4 + 2).to_string(),
    );
    display.xdotool(&["mousemove", "--window", &window, &x, &y, "click", "1"]);
    wait_for_title(&display, &window, "the game resumed by a click", |f, t| {
        !t.contains(" - menu") && f > held_at
    });
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Up", "Return"]); // Quit
    display.wait_for_success(&log);
}

/// Waits until the log holds `text`; panics with the log after the step limit.
fn expect_log(log: &Path, text: &str) {
    assert!(
        wait_for_log(log, text, gui_support::STEP_LIMIT),
        "{text:?} never logged:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// Opens the menu with Esc (pressed again should the first press arrive before the window
/// takes keys) and returns the frame the game holds at.
fn open_menu_with_esc(display: &Display, window: &str) -> u64 {
    display.xdotool(&["key", "Escape"]);
    wait_for_title(
        display,
        window,
        "the menu open and the game held",
        |_, t| t.ends_with(" - paused - menu"),
    )
    .0
}

#[test]
fn gui_menu_pauses_saves_loads_resumes_and_quits() {
    let name = "gui_menu_pauses_saves_loads_resumes_and_quits";
    if let Some(missing) = missing_tools() {
        println!("SKIPPED {name}: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rom = counter_rom("menu");
    let dir = rom.parent().expect("a folder").to_path_buf();
    let config = dir.join("config.toml");
    // The file every earlier version wrote on first run, with a comment of the user's.
    std::fs::write(
        &config,
        "# mine\n[keyboard]\npause = [\"KeyP\", \"Escape\"] # both of them\n",
    )
    .unwrap();
    let data = dir.join("data");
    let env = [("BACKSPIN_DATA_DIR", data.as_path())];
    // The GPU presenter (lavapipe): the egui menu, driven by the same keys.
    let mut args = player_args(&rom, &config);
    args.retain(|arg| *arg != "--software");
    let mut display = Display::start();

    let log = dir.join("menu.log");
    display.launch_with_env(&args, &env, &log);
    let window = display.wait_for_window(&log);
    expect_log(&log, "presenting through the GPU");
    expect_log(&log, "Escape now opens the menu");
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "# mine\n[keyboard]\npause = [\"KeyP\"] # both of them\n"
    );
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_title(&display, &window, "60 frames", |f, _| f >= 60);
    let playing = display.capture(&window, &dir.join("green.png"));
    assert!(playing.contains(&GREEN_LIGHTEST), "the DMG game in green");

    // Esc: the menu is drawn and the game holds while a slot is saved from it.
    let held_at = open_menu_with_esc(&display, &window);
    let picture = display.capture(&window, &dir.join("menu.png"));
    assert!(
        picture.contains(&MARKER),
        "no selected menu line in the capture"
    );
    display.xdotool(&["key", "Down", "Down", "Down", "Down", "Return"]); // Save slot < 1 >
    expect_log(&log, "Slot 1 saved");
    let (frame, title) = display.title_frame(&window);
    assert_eq!(frame, held_at, "the game ran under the menu: {title}");

    // Esc closes it: play goes on from the frame it held at.
    display.xdotool(&["key", "Escape"]);
    let (resumed_at, _) = wait_for_title(&display, &window, "the game playing on", |_, t| {
        !t.contains(" - menu") && !t.contains(" - paused")
    });
    assert!(resumed_at >= held_at, "{resumed_at} < {held_at}");
    let later = wait_for_frame(&display, &window, held_at + 60);

    // Load the slot from the menu: back to the frame it was saved at, playing.
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Down", "Down", "Down", "Return"]); // Load slot < 1 >
    expect_log(&log, "Slot 1 loaded");
    // A load is an event on the timeline (the frame count goes on; rewinding crosses it,
    // see gui_slots): the emulation thread's notice says it happened, and play goes on.
    wait_for_title(&display, &window, "the loaded slot playing", |f, t| {
        !t.contains(" - menu") && !t.contains(" - paused") && f > later
    });

    // A right click opens it too; Up from the top wraps to Quit.
    display.xdotool(&["mousemove", "--window", &window, "20", "20", "click", "3"]);
    wait_for_title(&display, &window, "the menu from a right click", |_, t| {
        t.ends_with(" - menu")
    });
    // Settings (up past Quit and Keys): the model goes auto -> dmg -> cgb, saved at once.
    display.xdotool(&["key", "Up", "Up", "Up", "Return", "Right", "Right"]);
    expect_log(&log, "saved the setting MODEL < cgb >");
    // The DMG palette (two rows down) goes green -> grey, and the game shows it at once
    // once the menu is closed (Esc back to the entries, Esc to close).
    display.xdotool(&["key", "Down", "Down", "Left"]);
    expect_log(&log, "saved the setting DMG PALETTE < grey >");
    display.xdotool(&["key", "Escape", "Escape"]);
    wait_for_title(&display, &window, "the menu closed", |_, t| {
        !t.contains(" - menu")
    });
    let grey = display.capture(&window, &dir.join("grey.png"));
    assert!(
        grey.contains(&GREY_DARKEST) && !grey.contains(&GREEN_LIGHTEST),
        "the palette applies at once"
    );
    // Keys (Up twice from Resume): pause, the 12th row, gets Z, which B had (shown, and B
    // loses it).
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Up", "Up", "Return"]);
    for _ in 0..11 {
        display.xdotool(&["key", "Down"]);
    }
    display.xdotool(&["key", "Return", "z"]);
    expect_log(&log, "bound KeyZ to pause, taken from b");
    // Back to the entries (on Keys), then down to Quit.
    display.xdotool(&["key", "Escape", "Down", "Return"]);
    display.wait_for_success(&log);
    assert_eq!(
        std::fs::read_to_string(&config).unwrap(),
        "# mine\n[keyboard]\npause = [\"KeyZ\"] # both of them\nb = []\n\n[player]\nmodel = \"cgb\"\npalette = \"grey\"\n",
        "the user's comments kept"
    );

    // The next launch plays the DMG game on a CGB, and Z pauses.
    let log = dir.join("relaunch.log");
    display.launch_with_env(&args, &env, &log);
    let window = display.wait_for_window(&log);
    expect_log(&log, "emulating a Cgb");
    display.xdotool(&["windowfocus", "--sync", &window]);
    // The title has no frame number until the first frame (wait_for_frame needs one).
    wait_for_title(&display, &window, "the first frame", |f, _| f >= 1);
    display.xdotool(&["key", "z"]);
    wait_for_title(&display, &window, "Z pausing", |_, t| {
        t.ends_with(" - paused")
    });
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Up", "Return"]);
    display.wait_for_success(&log);
}

#[test]
fn gui_menu_opens_a_rom_by_keys_and_lists_it_in_recent_games() {
    let name = "gui_menu_opens_a_rom_by_keys_and_lists_it_in_recent_games";
    if let Some(missing) = missing_tools() {
        println!("SKIPPED {name}: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rom = counter_rom("menu_open");
    let dir = rom.parent().expect("a folder").to_path_buf();
    let config = dir.join("config.toml");
    // The demo (no ROM argument), in the ROM's folder, where the browser first opens; the
    // data directory is the display's own, shared by both launches.
    let args = [
        "--no-audio",
        "--software",
        "--config",
        config.to_str().expect("utf-8 path"),
    ];
    let mut display = Display::start();

    let log = dir.join("open.log");
    display.launch_in(&dir, &args, &log);
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_title(&display, &window, "10 frames", |f, _| f >= 10);
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Down", "Return"]); // Open game
    expect_log(&log, "browsing ");
    // The folder lists ../ then counter.gb (no sub-folders; the config and log are not ROMs).
    display.xdotool(&["key", "Down", "Return"]);
    expect_log(&log, "counter.gb");
    let (played_to, _) = wait_for_title(&display, &window, "the opened ROM playing", |f, t| {
        t.contains("BS BATTERY CTR") && !t.contains(" - menu") && f >= 30
    });
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Up", "Return"]); // Quit: the resume point is saved.
    display.wait_for_success(&log);

    // Relaunched on the demo: the game is in the recent list with its picture.
    let log = dir.join("recent.log");
    display.launch_in(&dir, &args, &log);
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_title(&display, &window, "10 frames", |f, _| f >= 10);
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Down", "Down", "Return"]); // Recent games
    expect_log(&log, "recent games: 1 listed, 1 with a picture, 0 missing");
    let (frame, _) = display.title_frame(&window);
    let capture = display.capture(&window, &dir.join("recent.png"));
    assert!(
        capture.contains(&PICTURE_FRAME),
        "no picture in the recent list"
    );
    assert!(capture.contains(&MARKER), "no selected game");
    assert_eq!(
        display.title_frame(&window).0,
        frame,
        "the demo ran under the menu"
    );
    // Choosing it resumes it where the first launch stopped.
    display.xdotool(&["key", "Return"]);
    expect_log(&log, "Resumed at frame");
    wait_for_title(&display, &window, "the recent game resumed", |f, t| {
        t.contains("BS BATTERY CTR") && f >= played_to
    });
    // The browser opens where the game was picked.
    open_menu_with_esc(&display, &window);
    display.xdotool(&["key", "Down", "Return"]);
    let folder = std::fs::canonicalize(&dir).unwrap();
    expect_log(&log, &format!("browsing {}", folder.display()));
    // Back to the entries (on Open game), then down to the speedrun entry: the player
    // starts again on the same game in speedrun mode (the same process, so the same log).
    display.xdotool(&["key", "Escape"]);
    for _ in 0..8 {
        display.xdotool(&["key", "Down"]);
    }
    display.xdotool(&["key", "Return"]);
    expect_log(&log, "speedrun: ROM CRC-32");
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_title(&display, &window, "the speedrun", |_, t| {
        t.contains("BS BATTERY CTR") && !t.contains(" - menu")
    });
    // The menu opens over the running game (speedrun mode locks pausing); Quit.
    display.xdotool(&["key", "Escape"]);
    wait_for_title(&display, &window, "the menu", |_, t| t.ends_with(" - menu"));
    display.xdotool(&["key", "Up", "Return"]);
    display.wait_for_success(&log);
}
