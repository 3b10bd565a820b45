//! Save-state slots in the real window, under Xvfb (helpers in `gui_support`), on our own
//! battery counter ROM: save to a slot, play on, load it, undo the load, load again and
//! rewind across the load; then quit and relaunch, which resumes at the same frame with
//! the rewind history. Skips with a printed reason when Xvfb, xdotool or import is missing.

mod gui_support;

use gui_support::{
    Display, SERIAL, counter_rom, missing_tools, paused_frame, player_args, wait_for_frame,
    wait_for_log, wait_for_title,
};
use std::path::Path;
use std::time::{Duration, Instant};

/// Waits until the log holds `text` `count` times.
fn wait_for_count(log: &Path, text: &str, count: usize) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(30) {
        let log_text = std::fs::read_to_string(log).unwrap_or_default();
        if log_text.matches(text).count() >= count {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!(
        "{text:?} not logged {count} times:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// Saves slot 1 with Shift+F1. Should the player see F1 without the Shift (nothing tells
/// the test when a held modifier has reached it), F1 loads the empty slot instead and says
/// so; then the chord is pressed again.
fn save_slot_1(display: &Display, log: &Path) {
    for attempt in 1..=5 {
        display.xdotool(&["keydown", "Shift_L", "key", "F1", "keyup", "Shift_L"]);
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(30) {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            if text.contains("Slot 1 saved") {
                return;
            }
            if text.matches("slot 1 is empty").count() >= attempt {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    panic!(
        "Shift+F1 did not save slot 1:\n{}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

#[test]
fn gui_slots_save_load_undo_rewind_and_resume() {
    let name = "gui_slots_save_load_undo_rewind_and_resume";
    if let Some(missing) = missing_tools() {
        println!("SKIPPED {name}: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rom = counter_rom("slots");
    let dir = rom.parent().expect("a folder").to_path_buf();
    let config = dir.join("config.toml");
    let data = dir.join("data");
    let env = [("BACKSPIN_DATA_DIR", data.as_path())];
    let args = player_args(&rom, &config);
    let mut display = Display::start();

    let log = dir.join("first.log");
    display.launch_with_env(&args, &env, &log);
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_frame(&display, &window, 60);
    save_slot_1(&display, &log);
    let states = std::fs::read_dir(data.join("states"))
        .unwrap()
        .next()
        .expect("a folder for the ROM")
        .unwrap()
        .path();
    assert!(states.join("slot-1.state").exists());

    // Play on, load, undo the load.
    let before_load = wait_for_frame(&display, &window, display.title_frame(&window).0 + 60);
    display.xdotool(&["key", "F1"]);
    wait_for_count(&log, "Slot 1 loaded - saved just now", 1);
    display.xdotool(&["key", "u"]);
    wait_for_count(&log, "Load undone", 1);

    // Load again, play on, then rewind across the load.
    display.xdotool(&["key", "F1"]);
    wait_for_count(&log, "Slot 1 loaded", 2);
    let (loaded_at, _) = display.title_frame(&window);
    wait_for_frame(&display, &window, loaded_at + 60);
    display.xdotool(&["key", "p"]); // pause
    let paused_at = paused_frame(&display, &window);
    display.xdotool(&["keydown", "BackSpace"]);
    wait_for_title(&display, &window, "30 frames before the load", |f, t| {
        t.contains("rewinding") && f + 30 <= loaded_at
    });
    display.xdotool(&["keyup", "BackSpace"]);
    let rewound_to = paused_frame(&display, &window);
    println!("{name}: loaded at {loaded_at}, paused at {paused_at}, rewound to {rewound_to}");
    assert!(
        rewound_to + 30 <= loaded_at && rewound_to > before_load.saturating_sub(200),
        "rewinding crossed the load: {rewound_to} vs load at {loaded_at}"
    );

    // Quit (paused, so the frame is known) and relaunch: the same frame, history held.
    display.close_until_exited(&window);
    display.wait_for_success(&log);
    assert!(states.join("resume.state").exists() && states.join("resume.history").exists());
    let log = dir.join("second.log");
    let mut relaunch = args.to_vec();
    relaunch.push("--paused");
    display.launch_with_env(&relaunch, &env, &log);
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    assert!(wait_for_log(
        &log,
        &format!("Resumed at frame {rewound_to} with"),
        Duration::from_secs(30)
    ));
    assert_eq!(paused_frame(&display, &window), rewound_to);
    display.xdotool(&["key", "comma"]); // one frame back
    wait_for_title(
        &display,
        &window,
        "one frame back after resuming",
        |f, _| f == rewound_to - 1,
    );
    // --fresh starts from power-on.
    display.close_until_exited(&window);
    display.wait_for_success(&log);
    let log = dir.join("third.log");
    relaunch.push("--fresh");
    display.launch_with_env(&relaunch, &env, &log);
    let window = display.wait_for_window(&log);
    assert_eq!(paused_frame(&display, &window), 0);
    assert!(!std::fs::read_to_string(&log).unwrap().contains("Resumed"));
}
