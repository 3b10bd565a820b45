//! The runner on ROMs built in memory: each judging protocol, pass and fail.

use backspin_core::{SCREEN_HEIGHT, SCREEN_WIDTH};
use backspin_harness::{ManifestRow, RunConfig, encode_frame_png, run_in_memory};

/// `roms-test/runner/<name>` assembled after the lines of `prefix` (the constants and data
/// the source leaves to the test).
fn runner_rom(name: &str, prefix: &str) -> Vec<u8> {
    let path = backspin_harness::workspace_root()
        .join("roms-test/runner")
        .join(name);
    let source = format!("{prefix}\nINCLUDE \"{name}\"\n");
    // Named as the file itself, so that the INCLUDE resolves beside it.
    backspin_asm::assemble_str(&source, &path.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn row(suite: &str) -> ManifestRow {
    ManifestRow {
        suite: suite.into(),
        test: format!("own/{suite}"),
        rom: "memory".into(),
        model: "DMG".into(),
        seconds: 1.0,
        expected: None,
        features: Vec::new(),
    }
}

fn config() -> (tempfile::TempDir, RunConfig) {
    let dir = tempfile::tempdir().unwrap();
    let config = RunConfig {
        artifacts_dir: dir.path().to_path_buf(),
    };
    (dir, config)
}

/// Loads B..L with `values`, executes `LD B,B` and idles (`mooneye_result.asm`).
fn mooneye_rom(values: [u8; 6]) -> Vec<u8> {
    let prefix: String = ["B", "C", "D", "E", "H", "L"]
        .iter()
        .zip(values)
        .map(|(register, value)| format!("DEF RESULT_{register} EQU {value}\n"))
        .collect();
    runner_rom("mooneye_result.asm", &prefix)
}

#[test]
fn mooneye_fibonacci_passes_and_0x42_fails() {
    let (_dir, config) = config();
    let pass = run_in_memory(
        &row("mooneye"),
        mooneye_rom([3, 5, 8, 13, 21, 34]),
        None,
        &config,
    );
    assert!(pass.passed, "{}", pass.reason);
    // It stops at the breakpoint, long before the second of run time is over.
    assert!(pass.m_cycles < 1000, "{} M-cycles", pass.m_cycles);
    let fail = run_in_memory(&row("mooneye"), mooneye_rom([0x42; 6]), None, &config);
    assert!(!fail.passed);
    assert!(fail.reason.contains("0x42"), "{}", fail.reason);
}

/// Sends `text` on the serial port with the internal clock, waiting for each byte
/// (`serial_text.asm`).
fn serial_rom(text: &str) -> Vec<u8> {
    let bytes: Vec<String> = text.bytes().map(|byte| byte.to_string()).collect();
    let prefix = format!(
        "SECTION \"message\", ROM0\nMessage: db {}, 0\n",
        bytes.join(", ")
    );
    runner_rom("serial_text.asm", &prefix)
}

#[test]
fn blargg_serial_passed_and_failed() {
    let (_dir, config) = config();
    let pass = run_in_memory(&row("blargg"), serial_rom("own\nPassed\n"), None, &config);
    assert!(pass.passed, "{}", pass.reason);
    assert_eq!(pass.serial, "own\nPassed\n");
    let fail = run_in_memory(
        &row("blargg"),
        serial_rom("own\nFailed #2\n"),
        None,
        &config,
    );
    assert!(!fail.passed);
    assert_eq!(fail.reason, "serial: Failed #2");
}

/// Shows a white screen (BGP = 0), waits about 26 frames, executes `LD B,B`, waits as long
/// again and turns the screen black (BGP = $FF): `white_breakpoint_black.asm`.
fn white_then_breakpoint_then_black_rom() -> Vec<u8> {
    runner_rom("white_breakpoint_black.asm", "")
}

#[test]
fn mealybug_and_age_screens_are_taken_at_the_breakpoint() {
    let (_dir, config) = config();
    let white = encode_frame_png(&[0; SCREEN_WIDTH * SCREEN_HEIGHT]);
    let long_row = |suite: &str| ManifestRow {
        seconds: 3.0,
        ..row(suite)
    };
    for suite in ["mealybug", "age"] {
        let result = run_in_memory(
            &long_row(suite),
            white_then_breakpoint_then_black_rom(),
            Some(&white),
            &config,
        );
        assert!(result.passed, "{suite}: {}", result.reason);
        assert!(result.frames < 60, "{suite}: {} frames", result.frames);
    }
    // Other screenshot suites judge the screen at the row's full time: black by then.
    let result = run_in_memory(
        &long_row("acid"),
        white_then_breakpoint_then_black_rom(),
        Some(&white),
        &config,
    );
    assert!(!result.passed, "{}", result.reason);
    assert!(result.frames > 150, "{} frames", result.frames);
}
