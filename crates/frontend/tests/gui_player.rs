//! The real `backspin` window under Xvfb: it renders the demo, hold-Backspace rewinds, the
//! test hooks work, and a malformed config file is survived. Key presses go through xdotool
//! (XTEST), captures through ImageMagick's `import`, both at the X server, so this checks
//! what a player would see. Skips with a printed reason when Xvfb, xdotool or import is
//! missing (`.ci/run` installs them). Captures are written under `target/gui-test/`.

mod gui_support;

use gui_support::{
    Display, HEIGHT, SERIAL, STEP_LIMIT, WIDTH, have, missing_tools, out_dir, wait_for_log,
    wait_for_title,
};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
/// The overlay's timeline marker colour and bar placement (`player/overlay.rs`).
const MARKER: [u8; 3] = [0xFF, 0x20, 0x20];
const BAR_TOP: usize = HEIGHT - 8;
const BAR_LEFT: usize = 4;
const BAR_RIGHT: usize = WIDTH - 4;
/// The demo's palette as the player shows it (`player/overlay.rs`).
const PALETTE: [[u8; 3]; 4] = [
    [0xE0, 0xF0, 0xD0],
    [0x88, 0xC0, 0x70],
    [0x34, 0x68, 0x56],
    [0x08, 0x18, 0x20],
];

fn palette_share(picture: &[[u8; 3]]) -> (f64, usize) {
    let on_palette = picture.iter().filter(|p| PALETTE.contains(p)).count();
    let shades = PALETTE.iter().filter(|c| picture.contains(c)).count();
    (on_palette as f64 / picture.len() as f64, shades)
}

fn marker_columns(picture: &[[u8; 3]]) -> Vec<usize> {
    let row = BAR_TOP + 1;
    (0..WIDTH)
        .filter(|&x| picture[row * WIDTH + x] == MARKER)
        .collect()
}

fn config_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("config written");
    path
}

#[test]
fn gui_hold_backspace_rewinds_the_demo() {
    if let Some(missing) = missing_tools() {
        println!("SKIPPED gui_hold_backspace_rewinds_the_demo: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    let config = out.join("rewind-config.toml"); // created with the defaults
    let _ = std::fs::remove_file(&config);
    let log = out.join("rewind.log");
    let mut display = Display::start();
    display.launch(
        &[
            "--no-audio",
            // A safety net only: the test ends the player when it is done.
            "--quit-after",
            "600",
            "--config",
            config.to_str().expect("utf-8 path"),
        ],
        &log,
    );
    let window = display.wait_for_window(&log);
    display.xdotool(&["windowfocus", "--sync", &window]);
    // Every step waits for what the title says happened, never for a fixed time: a loaded
    // machine plays fewer frames per second, not different ones.
    let (frame_started, _) =
        wait_for_title(&display, &window, "two seconds of play", |f, _| f >= 120);
    let start = display.capture(&window, &out.join("1-start.png"));

    // Walk right for 90 frames.
    display.xdotool(&["keydown", "Right"]);
    wait_for_title(&display, &window, "90 frames of walking", |f, _| {
        f >= frame_started + 90
    });
    display.xdotool(&["keyup", "Right"]);
    let (frame_released, _) = display.title_frame(&window);
    wait_for_title(&display, &window, "play after the walk", |f, _| {
        f >= frame_released + 18
    });
    let walked = display.capture(&window, &out.join("2-walked.png"));
    let (frame_walked, title_walked) = display.title_frame(&window);

    // Hold Backspace until a third of the history is behind, then pause before letting go,
    // so the capture shows the rewound moment whatever the time a capture takes (rewinding
    // on during a slow capture would reach the oldest frame).
    display.xdotool(&["keydown", "BackSpace"]);
    let target = (frame_walked * 2 / 3).min(frame_walked.saturating_sub(60));
    let (_, title_rewinding) = wait_for_title(
        &display,
        &window,
        "a third of the history rewound",
        |f, t| t.contains("rewinding") && f <= target,
    );
    display.xdotool(&["key", "p"]);
    display.xdotool(&["keyup", "BackSpace"]);
    let (frame_rewound, title_rewound) =
        wait_for_title(&display, &window, "paused after rewinding", |_, t| {
            t.contains("paused")
        });
    let rewinding = display.capture(&window, &out.join("3-rewinding.png"));
    display.xdotool(&["key", "p"]);
    let (frame_after, title_after) =
        wait_for_title(&display, &window, "play resumed after rewinding", |f, t| {
            !t.contains("rewinding") && !t.contains("paused") && f >= frame_rewound + 30
        });
    let resumed = display.capture(&window, &out.join("4-resumed.png"));
    // Paused, `,` steps back one frame at a time and `.` forward again.
    display.xdotool(&["key", "p"]);
    let (frame_paused, title_paused) =
        wait_for_title(&display, &window, "paused", |_, t| t.contains("paused"));
    display.xdotool(&["key", "comma", "comma", "comma"]);
    let (frame_stepped_back, _) = wait_for_title(&display, &window, "three steps back", |f, _| {
        f + 3 <= frame_paused
    });
    display.xdotool(&["key", "period"]);
    let (frame_stepped_on, _) = wait_for_title(&display, &window, "one step on", |f, _| {
        f > frame_stepped_back
    });
    let paused = display.capture(&window, &out.join("5-paused.png"));
    let log_text = std::fs::read_to_string(&log).unwrap_or_default();
    println!(
        "titles: {title_walked:?} -> {title_rewinding:?} -> {title_rewound:?} -> {title_after:?}"
    );
    println!("captures in {}", out.display());
    // Frame-rate figures (debug log, one line a second): printed, not asserted, since CI
    // machines are shared.
    for line in log_text.lines().filter(|l| l.contains("frames/s")) {
        println!("{line}");
    }

    // (a) Rendering: the captures are the demo's picture in the DMG palette, and it moves.
    for (name, picture) in [
        ("start", &start),
        ("walked", &walked),
        ("resumed", &resumed),
    ] {
        let (share, shades) = palette_share(picture);
        assert!(
            share > 0.85 && shades >= 3,
            "{name}: {:.0}% of pixels in the palette, {shades} shades\n{log_text}",
            share * 100.0
        );
    }
    assert!(start != walked, "the picture did not change while walking");

    // (b) The position went back: the timeline marker sits well left of the bar's end, the
    // picture differs from before the rewind, and the title's frame number fell.
    let marker = marker_columns(&rewinding);
    assert!(
        !marker.is_empty(),
        "no timeline marker in the capture while rewinding\n{log_text}"
    );
    let newest_x = BAR_RIGHT - 1;
    assert!(
        marker[0] + 20 < newest_x,
        "marker at x={} is not back from the newest frame (x={newest_x})",
        marker[0]
    );
    assert!(
        marker[0] > BAR_LEFT,
        "rewound to the very oldest frame: the hold lasted too long?"
    );
    assert!(rewinding != walked, "rewinding shows the same picture");
    assert!(title_rewinding.contains("rewinding"), "{title_rewinding:?}");
    assert!(
        frame_rewound + 60 <= frame_walked,
        "2 s of Backspace went back only from frame {frame_walked} to {frame_rewound}"
    );
    // Played on: from the rewound point, no marker.
    assert!(!title_after.contains("rewinding"), "{title_after:?}");
    assert!(
        frame_after > frame_rewound,
        "play did not resume: {title_after:?}"
    );
    assert!(marker_columns(&resumed).is_empty());
    assert!(title_paused.contains("paused"), "{title_paused:?}");
    assert_eq!(frame_stepped_back + 3, frame_paused, "three `,` presses");
    assert_eq!(frame_stepped_on, frame_stepped_back + 1, "one `.` press");
    assert!(
        !marker_columns(&paused).is_empty(),
        "the timeline shows while paused"
    );
    assert!(!log_text.contains("panicked"), "{log_text}");
}

#[test]
fn gui_screenshot_hook_and_software_presenter() {
    if let Some(missing) = missing_tools() {
        println!("SKIPPED gui_screenshot_hook_and_software_presenter: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    let shot = out.join("hook-60.png");
    let _ = std::fs::remove_file(&shot);
    let config = config_file(
        &out,
        "hook-config.toml",
        "[keyboard]\nrewind = [\"Backspace\"]\n",
    );
    let log = out.join("hook.log");
    // `backspin ROM`: the demo, assembled to a file.
    let rom = out.join("demo.gb");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/demo/demo.asm");
    let assembled = backspin_asm::assemble_file(&demo).expect("the demo assembles");
    std::fs::write(&rom, assembled).expect("ROM written");
    let mut display = Display::start();
    display.launch(
        &[
            rom.to_str().expect("utf-8 path"),
            "--no-audio",
            "--software",
            "--quit-after",
            "600", // a safety net: the screenshot hook quits
            "--config",
            config.to_str().expect("utf-8 path"),
            "--screenshot-after",
            "60",
            shot.to_str().expect("utf-8 path"),
        ],
        &log,
    );
    let log_text = display.wait_for_success(&log);
    assert!(log_text.contains("software presenter"), "{log_text}");
    assert!(log_text.contains("playing BACKSPIN DEMO"), "{log_text}");
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&shot).expect("the hook wrote its PNG"),
    ));
    let mut reader = decoder.read_info().expect("PNG");
    let mut rgba = vec![0; reader.output_buffer_size().expect("size")];
    reader.next_frame(&mut rgba).expect("decodes");
    let picture: Vec<[u8; 3]> = rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect();
    let (share, shades) = palette_share(&picture);
    assert!(share == 1.0 && shades >= 3, "{shades} shades");
}

/// `--rewind-mib` 0 (rewind off), 1 (too small for a frame of history) and 4096 (the
/// largest, mapped lazily) all play; holding rewind with no history is harmless.
#[test]
fn gui_rewind_budget_extremes_play() {
    if let Some(missing) = missing_tools() {
        println!("SKIPPED gui_rewind_budget_extremes_play: {missing} not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    for mib in ["0", "1", "4096"] {
        let shot = out.join(format!("budget-{mib}.png"));
        let _ = std::fs::remove_file(&shot);
        let log = out.join(format!("budget-{mib}.log"));
        let mut display = Display::start();
        display.launch(
            &[
                "--no-audio",
                "--software",
                "--rewind-mib",
                mib,
                "--quit-after",
                "600", // a safety net: the screenshot hook quits
                "--screenshot-after",
                "120",
                shot.to_str().expect("utf-8 path"),
            ],
            &log,
        );
        let log_text = display.wait_for_success(&log);
        assert!(!log_text.contains("panicked"), "{mib}: {log_text}");
        assert!(
            shot.exists(),
            "--rewind-mib {mib}: no screenshot; {log_text}"
        );
        if mib == "0" {
            assert_eq!(log_text.matches("rewind is off").count(), 1, "{log_text}");
        }
    }
}

#[test]
fn gui_unreadable_rom_is_one_clear_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_backspin"))
        .args(["/nonexistent/game.gb", "--no-audio"])
        .output()
        .expect("backspin runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success());
    assert!(
        stderr.contains("error: cannot read ROM: no such file (/nonexistent/game.gb)"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn gui_malformed_config_is_reported_and_defaults_used() {
    if let Some(missing) = missing_tools() {
        println!(
            "SKIPPED gui_malformed_config_is_reported_and_defaults_used: {missing} not installed"
        );
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    let config = config_file(
        &out,
        "bad-config.toml",
        "[keyboard]\nrewind = [\"Backspace\"\njump = 3\n",
    );
    let log = out.join("bad-config.log");
    let mut display = Display::start();
    display.launch(
        &[
            "--no-audio",
            "--software",
            "--quit-after",
            "4",
            "--config",
            config.to_str().expect("utf-8 path"),
        ],
        &log,
    );
    let log_text = display.wait_for_success(&log);
    assert!(
        log_text.contains("has problems; using the default bindings"),
        "{log_text}"
    );
    assert!(!log_text.contains("panicked"), "{log_text}");
}

/// A private PulseAudio server on the test's runtime directory; killed on drop.
struct SoundServer {
    child: Child,
}

impl SoundServer {
    /// Starts one and waits until it answers; `None` if it does not come up.
    fn start(display: &Display) -> Option<SoundServer> {
        let child = display
            .command("pulseaudio")
            .args([
                "--daemonize=no",
                "-n",
                "--exit-idle-time=-1",
                "--load=module-null-sink",
                "--load=module-native-protocol-unix",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut server = SoundServer { child };
        let started = Instant::now();
        while started.elapsed() < STEP_LIMIT {
            let answers = display
                .command("pactl")
                .arg("info")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
            if answers {
                return Some(server);
            }
            if let Ok(Some(_)) = server.child.try_wait() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        None
    }
}

impl Drop for SoundServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The sound device disappears mid-game (the sound server is killed) and comes back: the
/// player keeps running at full speed without sound, then picks the device up again.
/// Needs PulseAudio and ALSA's pulse plugin (`.ci/run` installs them); skips otherwise.
#[test]
fn gui_audio_device_loss_is_survived() {
    let name = "gui_audio_device_loss_is_survived";
    if let Some(missing) = missing_tools() {
        println!("SKIPPED {name}: {missing} not installed");
        return;
    }
    if !have("pulseaudio") || !have("pactl") {
        println!("SKIPPED {name}: pulseaudio/pactl not installed");
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let out = out_dir();
    let log = out.join("audio-loss.log");
    let shot = out.join("audio-loss.png");
    let mut display = Display::start();
    let Some(server) = SoundServer::start(&display) else {
        println!("SKIPPED {name}: a private pulseaudio server did not start");
        return;
    };
    display.launch(
        &[
            "--software",
            // The screenshot hook ends the game the normal way after 40 s of emulated play
            // (the player never runs faster than the Game Boy), far more than the test needs;
            // --quit-after is only a safety net.
            "--screenshot-after",
            "2400",
            shot.to_str().expect("utf-8 path"),
            "--quit-after",
            "600",
            "--config",
            out.join("audio-loss-config.toml")
                .to_str()
                .expect("utf-8 path"),
        ],
        &log,
    );
    let window = display.wait_for_window(&log);
    let opened = wait_for_log(&log, "audio: ", STEP_LIMIT);
    let log_text = || std::fs::read_to_string(&log).unwrap_or_default();
    if !opened {
        println!(
            "SKIPPED {name}: ALSA's default device does not reach pulseaudio \
             (libasound2-plugins missing?):\n{}",
            log_text()
        );
        return;
    }
    let (playing, _) = display.title_frame(&window);
    wait_for_title(&display, &window, "a second of play with sound", |f, _| {
        f >= playing + 60
    });

    drop(server);
    assert!(
        wait_for_log(&log, "audio device error", STEP_LIMIT),
        "the lost device was not noticed:\n{}",
        log_text()
    );
    // Silent now, and still running: the title's frame counter keeps going. The rate is
    // printed, not asserted: on a loaded machine it says more about the machine.
    let (before, _) = display.title_frame(&window);
    let wall = Instant::now();
    let (after, title) = wait_for_title(&display, &window, "two seconds of silent play", |f, _| {
        f >= before + 120
    });
    let rate = (after - before) as f64 / wall.elapsed().as_secs_f64();
    println!("{name}: {rate:.1} frames/s with the device gone ({title})");

    let _server = SoundServer::start(&display).expect("the sound server restarts");
    assert!(
        wait_for_log(&log, "audio device available again", STEP_LIMIT),
        "the device was not picked up again:\n{}",
        log_text()
    );
    // Played on with the new device until the screenshot hook, then a clean exit.
    let text = display.wait_for_success(&log);
    assert!(!text.contains("panicked"), "{text}");
}
