//! The runner on ROMs built in memory: each judging protocol, pass and fail.

use backspin_core::{SCREEN_HEIGHT, SCREEN_WIDTH};
use backspin_harness::{ManifestRow, RunConfig, encode_frame_png, run_in_memory};

/// A 32 KiB ROM-only image: the entry point jumps over the header to `code` at 0x0150.
fn rom_with(code: &[u8]) -> Vec<u8> {
    let mut rom = vec![0u8; 0x8000];
    rom[0x100..0x103].copy_from_slice(&[0xC3, 0x50, 0x01]); // JP $0150
    rom[0x150..0x150 + code.len()].copy_from_slice(code);
    rom
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

/// LD B,n; LD C,n; LD D,n; LD E,n; LD H,n; LD L,n; LD B,B; JR -2.
fn mooneye_rom(values: [u8; 6]) -> Vec<u8> {
    let [b, c, d, e, h, l] = values;
    rom_with(&[
        0x06, b, 0x0E, c, 0x16, d, 0x1E, e, 0x26, h, 0x2E, l, 0x40, 0x18, 0xFE,
    ])
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

/// Sends `text` on the serial port with the internal clock, waiting for each byte.
fn serial_rom(text: &str) -> Vec<u8> {
    let mut code = Vec::new();
    for &byte in text.as_bytes() {
        code.extend_from_slice(&[
            0x3E, byte, // LD A,byte
            0xE0, 0x01, // LDH (SB),A
            0x3E, 0x81, // LD A,$81: start, internal clock
            0xE0, 0x02, // LDH (SC),A
            0xF0, 0x02, // wait: LDH A,(SC)
            0xCB, 0x7F, // BIT 7,A
            0x20, 0xFA, // JR NZ,wait
        ]);
    }
    code.extend_from_slice(&[0x18, 0xFE]); // JR -2
    rom_with(&code)
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
/// again and turns the screen black (BGP = $FF).
fn white_then_breakpoint_then_black_rom() -> Vec<u8> {
    let wait = [0x11, 0xFF, 0xFF, 0x1B, 0x7A, 0xB3, 0x20, 0xFB]; // LD DE,$FFFF; DEC DE; LD A,D; OR E; JR NZ
    let mut code = vec![0x3E, 0x00, 0xE0, 0x47]; // LD A,0; LDH (BGP),A
    code.extend_from_slice(&wait);
    code.push(0x40); // LD B,B
    code.extend_from_slice(&wait);
    code.extend_from_slice(&[0x3E, 0xFF, 0xE0, 0x47, 0x18, 0xFE]); // LD A,$FF; LDH (BGP),A; JR -2
    rom_with(&code)
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
