//! RetroArch itself (Debian's `retroarch`) runs the core headless under Xvfb and takes a
//! screenshot at frame N (`--max-frames=N --max-frames-ss`); it must equal
//! `backspin run --frames N --screenshot` pixel for pixel once RetroArch's integer scale is
//! undone. With run-ahead of one frame the screenshot shows content frame N + 1.
//!
//! What RetroArch's screenshot shows: `--max-frames=N` ends after N calls of `retro_run`
//! and captures the last frame presented, which is the N-th frame the core emulated; with
//! run-ahead 1 each call emulates one frame, saves, emulates one more (the one shown) and
//! loads back, so frame N + 1 is shown.

mod host;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Frames before the screenshot: µCity's picture changes between frames 200 and 201, so
/// run-ahead's extra frame shows.
const FRAMES: u64 = 200;

/// Whether a program is on the PATH.
fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|out| out.status.success())
}

/// The core as cargo built it for this test run: `cargo test` leaves the cdylib beside the
/// test executable in `deps/` (only `cargo build` copies it up a folder).
fn built_core() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let deps = exe.parent()?;
    [deps, deps.parent()?]
        .iter()
        .map(|dir| dir.join("libbackspin_libretro.so"))
        .find(|path| path.is_file())
}

/// A private RetroArch setup in `dir`: the core under its libretro name in a cores folder
/// (RetroArch finds a core's info file only for cores in that folder, by file name, and
/// skips symbolic links), our info file, and the settings the comparison needs.
fn setup(dir: &Path, core: &Path, run_ahead: bool) -> (PathBuf, PathBuf) {
    let cores = dir.join("cores");
    let info = dir.join("info");
    std::fs::create_dir_all(&cores).unwrap();
    std::fs::create_dir_all(&info).unwrap();
    let installed = cores.join("backspin_libretro.so");
    std::fs::copy(core, &installed).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("backspin_libretro.info"),
        info.join("backspin_libretro.info"),
    )
    .unwrap();
    let config = dir.join("append.cfg");
    let settings = [
        ("libretro_directory", cores.display().to_string()),
        ("libretro_info_path", info.display().to_string()),
        ("core_info_cache_enable", "false".into()),
        ("video_scale_integer", "true".into()),
        ("video_smooth", "false".into()),
        ("video_vsync", "false".into()),
        ("video_driver", "gl".into()),
        ("video_fullscreen", "false".into()),
        ("audio_driver", "null".into()),
        ("audio_enable", "false".into()),
        ("menu_driver", "null".into()),
        // No notifications drawn over the picture (with the core's info file found,
        // RetroArch announces the core on screen).
        ("video_font_enable", "false".into()),
        ("menu_enable_widgets", "false".into()),
        ("pause_nonactive", "false".into()),
        ("config_save_on_exit", "false".into()),
        ("savestate_file_compression", "false".into()),
        ("run_ahead_enabled", run_ahead.to_string()),
        ("run_ahead_frames", "1".into()),
        ("run_ahead_secondary_instance", "false".into()),
        ("run_ahead_hide_warnings", "true".into()),
        (
            "core_options_path",
            dir.join("core.opt").display().to_string(),
        ),
        ("global_core_options", "true".into()),
    ];
    let text: String = settings
        .iter()
        .map(|(key, value)| format!("{key} = \"{value}\"\n"))
        .collect();
    std::fs::write(&config, text).unwrap();
    std::fs::write(dir.join("empty.cfg"), "").unwrap();
    (installed, config)
}

/// RetroArch's screenshot of `rom` at frame `FRAMES`, downscaled by its integer factor
/// after checking every scaled pixel is a solid block.
fn retroarch_screenshot(core: &Path, rom: &Path, run_ahead: bool) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let (installed, config) = setup(dir.path(), core, run_ahead);
    let runtime = dir.path().join("xdg");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let shot = dir.path().join("shot.png");
    let output = Command::new("timeout")
        .arg("300")
        .args(["xvfb-run", "-a", "-s", "-screen 0 640x480x24"])
        .args(["dbus-run-session", "--", "retroarch", "-v", "-c"])
        .arg(dir.path().join("empty.cfg"))
        .arg("-L")
        .arg(&installed)
        .arg(rom)
        .arg(format!("--appendconfig={}", config.display()))
        .arg(format!("--max-frames={FRAMES}"))
        .arg("--max-frames-ss")
        .arg(format!("--max-frames-ss-path={}", shot.display()))
        .env("HOME", dir.path())
        .env("XDG_RUNTIME_DIR", &runtime)
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .current_dir(dir.path())
        .output()
        .expect("retroarch runs");
    let log = String::from_utf8_lossy(&output.stderr).into_owned()
        + &String::from_utf8_lossy(&output.stdout);
    assert!(
        shot.is_file(),
        "RetroArch took no screenshot (status {}):\n{log}",
        output.status
    );
    if run_ahead {
        assert!(
            !log.contains("Run-Ahead unavailable"),
            "run-ahead was refused:\n{log}"
        );
    }
    let (width, height, rgb) = host::read_png_rgb(&shot);
    let scale = width / 160;
    assert!(
        scale >= 1 && width == 160 * scale && height == 144 * scale,
        "screenshot is {width}x{height}, not an integer scale of 160x144"
    );
    let (w, s) = (width as usize, scale as usize);
    let mut small = Vec::with_capacity(160 * 144 * 3);
    for y in 0..144 {
        for x in 0..160 {
            let pixel = |dx: usize, dy: usize| {
                let at = ((y * s + dy) * w + x * s + dx) * 3;
                [rgb[at], rgb[at + 1], rgb[at + 2]]
            };
            let colour = pixel(0, 0);
            for dy in 0..s {
                for dx in 0..s {
                    assert_eq!(
                        pixel(dx, dy),
                        colour,
                        "scaled pixel ({x}, {y}) is not solid"
                    );
                }
            }
            small.extend_from_slice(&colour);
        }
    }
    small
}

/// `backspin run ROM --frames N --screenshot` as 8-bit RGB.
fn backspin_screenshot(backspin: &Path, rom: &Path, frames: u64) -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("shot.png");
    let status = Command::new(backspin)
        .arg("run")
        .arg(rom)
        .args(["--frames", &frames.to_string(), "--no-save", "--screenshot"])
        .arg(&shot)
        .status()
        .unwrap();
    assert!(status.success());
    host::read_png_rgb(&shot).2
}

#[test]
fn retroarch_screenshots_equal_backspin_run() {
    let Some(core) = built_core() else {
        backspin_test_support::skip_or_fail("libbackspin_libretro.so not built");
        return;
    };
    for program in ["retroarch", "xvfb-run", "dbus-run-session", "timeout"] {
        if !have(program) {
            backspin_test_support::skip_or_fail(format!(
                "{program} not installed (apt-get install retroarch xvfb xauth dbus)"
            ));
            return;
        }
    }
    let Some(backspin) = host::backspin_binary() else {
        return;
    };
    let Ok(roms) = backspin_harness::locate_test_roms() else {
        backspin_test_support::skip_or_fail("shared test ROMs not found");
        return;
    };
    // opus5 runs as a DMG, gb8 and µCity as CGBs (their headers ask for one).
    for name in [
        "homebrew/opus5.gb",
        "homebrew/gb8.gb",
        "homebrew-cgb/ucity/ucity.gbc",
    ] {
        let rom = roms.join(name);
        let at_n = backspin_screenshot(&backspin, &rom, FRAMES);
        let at_n1 = backspin_screenshot(&backspin, &rom, FRAMES + 1);
        let plain = retroarch_screenshot(&core, &rom, false);
        assert!(plain == at_n, "{name}: RetroArch at frame {FRAMES} differs");
        let ahead = retroarch_screenshot(&core, &rom, true);
        assert!(
            ahead == at_n1,
            "{name}: RetroArch with run-ahead differs from frame {}",
            FRAMES + 1
        );
        if name.contains("ucity") {
            assert!(
                at_n != at_n1,
                "µCity's frames {FRAMES} and {} differ",
                FRAMES + 1
            );
        }
    }
}
