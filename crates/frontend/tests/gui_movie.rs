//! Movies recorded in the real window, under Xvfb (helpers in `gui_support`): a session
//! played with `--record` (key presses, a rewind and a different future) verifies with
//! `backspin movie verify`; a `--speedrun` session, ended by SIGTERM, prints its final
//! emulated time, and
//! `movie verify` of its movie prints the identical time. Skips with a printed reason when
//! Xvfb, xdotool or import is missing.

mod gui_support;

use gui_support::{
    Display, SERIAL, counter_rom, missing_tools, player_args, wait_for_frame, wait_for_title,
};

/// Holds `key` while the player plays `frames` frames (by the title), so the game sees it
/// however slowly the machine runs.
fn hold(display: &Display, window: &str, key: &str, frames: u64) {
    let (from, _) = display.title_frame(window);
    display.xdotool(&["keydown", key]);
    wait_for_title(
        display,
        window,
        &format!("{key} held {frames} frames"),
        |f, _| f >= from + frames,
    );
    display.xdotool(&["keyup", key]);
}

/// Holds Backspace until the title is `frames` frames back from where it was.
fn rewind(display: &Display, window: &str, frames: u64) {
    let (from, _) = display.title_frame(window);
    display.xdotool(&["keydown", "BackSpace"]);
    wait_for_title(
        display,
        window,
        &format!("{frames} frames rewound"),
        |f, t| t.contains("rewinding") && f + frames <= from,
    );
    display.xdotool(&["keyup", "BackSpace"]);
}

/// `backspin ARGS`, its stdout, asserting success.
fn backspin(args: &[&str]) -> String {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_backspin"))
        .args(args)
        .output()
        .expect("backspin runs");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    assert!(
        output.status.success(),
        "backspin {args:?} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// The `h:mm:ss.mmm` after "final time " in `text`.
fn final_time(text: &str) -> String {
    text.split("final time ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no final time in:\n{text}"))
        .to_string()
}

#[test]
fn gui_movie_record_and_speedrun_verify() {
    let name = "gui_movie_record_and_speedrun_verify";
    if let Some(missing) = missing_tools() {
        println!("SKIPPED {name}: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let rom = counter_rom("movie");
    let dir = rom.parent().expect("a folder").to_path_buf();
    let rom_arg = rom.to_str().unwrap();
    let config = dir.join("config.toml");
    let data = dir.join("data");
    let env = [("BACKSPIN_DATA_DIR", data.as_path())];

    // 1. --record: keys, a rewind, a different future; ended by SIGTERM.
    let movie = dir.join("session.bsm");
    let log = dir.join("record.log");
    let mut display = Display::start();
    let mut args = player_args(&rom, &config);
    args.extend(["--fresh", "--record", movie.to_str().unwrap()]);
    display.launch_with_env(&args, &env, &log);
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_frame(&display, &window, 30);
    hold(&display, &window, "x", 18);
    hold(&display, &window, "Right", 24);
    hold(&display, &window, "Return", 12);
    rewind(&display, &window, 12); // rewind ...
    hold(&display, &window, "z", 18); // ... and a different future: a rerecord
    hold(&display, &window, "Left", 18);
    // SIGTERM closes the window the normal way; the movie is written before exit.
    display.signal_app("TERM");
    display.wait_for_success(&log);
    let verified = backspin(&["movie", "verify", rom_arg, movie.to_str().unwrap()]);
    assert!(verified.contains("movie verified"), "{verified}");
    let info: serde_json::Value = serde_json::from_str(&backspin(&[
        "movie",
        "info",
        "--json",
        movie.to_str().unwrap(),
    ]))
    .expect("JSON");
    assert!(info["frames"].as_u64().unwrap() >= 30, "{info}");
    assert!(info["button_changes"].as_u64().unwrap() >= 4, "{info}");
    assert!(info["rerecords"].as_u64().unwrap() >= 1, "{info}");

    // 2. --speedrun: locked keys do nothing; the final time printed on exit is the one
    // `movie verify` computes from the movie.
    let run = dir.join("run.bsm");
    let log = dir.join("speedrun.log");
    let mut args = player_args(&rom, &config);
    args.extend(["--speedrun", "--record", run.to_str().unwrap()]);
    display.launch_with_env(&args, &env, &log);
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    wait_for_frame(&display, &window, 20);
    hold(&display, &window, "x", 12);
    hold(&display, &window, "BackSpace", 18); // locked: only a toast, play goes on
    hold(&display, &window, "Tab", 18); // locked: the normal speed
    hold(&display, &window, "Right", 18);
    let before_close = display.title_frame(&window).0;
    display.signal_app("TERM");
    let text = display.wait_for_success(&log);
    let played = final_time(&text);
    let verified = backspin(&["movie", "verify", rom_arg, run.to_str().unwrap()]);
    assert_eq!(final_time(&verified), played, "{verified}\n{text}");
    let json: serde_json::Value = serde_json::from_str(&backspin(&[
        "movie",
        "verify",
        "--json",
        rom_arg,
        run.to_str().unwrap(),
    ]))
    .expect("JSON");
    assert_eq!(json["emulated_time"], played.as_str(), "{json}");
    let info: serde_json::Value = serde_json::from_str(&backspin(&[
        "movie",
        "info",
        "--json",
        run.to_str().unwrap(),
    ]))
    .expect("JSON");
    assert_eq!(
        info["rerecords"], 0,
        "rewind is locked in a speedrun: {info}"
    );
    assert!(
        info["frames"].as_u64().unwrap() >= before_close,
        "the rewind key went back in time: {info}"
    );
    println!("speedrun: final time {played}, {info}");
}
