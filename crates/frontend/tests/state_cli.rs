//! `backspin run --load-state/--save-state` and `backspin state info|verify` as scripts see
//! them: files that round-trip, one-line errors, and battery saves that a state load never
//! overwrites with older data.

use assert_cmd::Command;
use backspin_core::state_file;
use std::path::{Path, PathBuf};

fn backspin() -> Command {
    Command::cargo_bin("backspin").unwrap()
}

/// The frozen ROM of the save-state fixtures (a scene with scrolling and sprites),
/// assembled into `dir`.
fn scene_rom(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../roms-test/states/ppu_scene/ppu_scene.asm");
    let path = dir.join("ppu_scene.gb");
    std::fs::write(&path, backspin_asm::assemble_file(source).unwrap()).unwrap();
    path
}

/// A 32 KiB MBC1 cartridge with 8 KiB battery RAM titled `title` that writes `writes`
/// to $A000 over and over, or never touches cartridge RAM (`roms-test/cli/battery_byte.asm`).
fn battery_rom(dir: &Path, name: &str, title: &str, writes: Option<u8>) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../roms-test/cli/battery_byte.asm");
    let value = writes.map_or(-1, i32::from);
    let text = format!("TITLE \"{title}\"\nDEF VALUE EQU {value}\nINCLUDE \"battery_byte.asm\"\n");
    // Named as the file itself, so that the INCLUDE resolves beside it.
    let bytes = backspin_asm::assemble_str(&text, &source.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// Never touches cartridge RAM.
const IDLE: Option<u8> = None;
/// Enables cartridge RAM, then writes $42 to $A000 forever.
const WRITES_RAM: Option<u8> = Some(0x42);

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

fn checked_part(file: &[u8]) -> &[u8] {
    let info = state_file::info(file).expect("a valid state file");
    &file[..info.checked_bytes]
}

#[test]
fn run_save_then_load_equals_a_straight_run() {
    let dir = tempfile::tempdir().unwrap();
    let rom = scene_rom(dir.path());
    let at_60 = dir.path().join("60.bss");
    let resumed = dir.path().join("resumed.bss");
    let straight = dir.path().join("straight.bss");
    let (resumed_png, straight_png) = (dir.path().join("r.png"), dir.path().join("s.png"));
    let rom = path_str(&rom);
    backspin()
        .args(["run", rom, "--frames", "60", "--no-save", "--save-state"])
        .arg(&at_60)
        .assert()
        .success();
    backspin()
        .args(["run", rom, "--frames", "60", "--no-save", "--load-state"])
        .arg(&at_60)
        .arg("--save-state")
        .arg(&resumed)
        .arg("--screenshot")
        .arg(&resumed_png)
        .assert()
        .success();
    backspin()
        .args(["run", rom, "--frames", "120", "--no-save", "--save-state"])
        .arg(&straight)
        .arg("--screenshot")
        .arg(&straight_png)
        .assert()
        .success();
    let (resumed, straight) = (
        std::fs::read(&resumed).unwrap(),
        std::fs::read(&straight).unwrap(),
    );
    assert_eq!(checked_part(&resumed), checked_part(&straight));
    assert_eq!(
        std::fs::read(&resumed_png).unwrap(),
        std::fs::read(&straight_png).unwrap()
    );
}

/// Runs `rom` for `frames` frames and saves the state there to `file`.
fn save_state_after(rom: &Path, frames: u32, file: &Path) {
    backspin()
        .args([
            "run",
            path_str(rom),
            "--frames",
            &frames.to_string(),
            "--no-save",
        ])
        .arg("--save-state")
        .arg(file)
        .assert()
        .success();
}

#[test]
fn state_info_and_verify() {
    let dir = tempfile::tempdir().unwrap();
    let rom = scene_rom(dir.path());
    let file = dir.path().join("s.bss");
    save_state_after(&rom, 30, &file);

    let output = backspin()
        .args(["state", "info"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    let version = format!("{}.{}", state_file::FORMAT_MAJOR, state_file::FORMAT_MINOR);
    assert!(text.contains(&version) && text.contains("DMG"), "{text}");

    let output = backspin()
        .args(["state", "info", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["version"], version.as_str());
    assert_eq!(json["model"], "DMG");
    assert_eq!(json["frame"], 30, "{json}");
    assert!(json["created"].as_str().unwrap().ends_with('Z'));
    assert!(json["thumbnail_bytes"].as_u64().unwrap() > 0);
    assert_eq!(json["rom"]["sha1"].as_str().unwrap().len(), 40);
    assert_eq!(
        json["file_bytes"].as_u64().unwrap(),
        std::fs::metadata(&file).unwrap().len()
    );

    let output = backspin()
        .args(["state", "verify", path_str(&rom)])
        .arg(&file)
        .output()
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.starts_with("ok:"), "{stdout}");
}

/// Exactly one `error:` line on stderr, exit code 1.
fn assert_one_line_error(command: &mut Command, contains: &[&str]) {
    let output = command.output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    for text in contains {
        assert!(stderr.contains(text), "{stderr} should contain {text}");
    }
}

#[test]
fn bad_state_files_are_one_line_errors() {
    let dir = tempfile::tempdir().unwrap();
    let rom = scene_rom(dir.path());
    let other = battery_rom(dir.path(), "other.gb", "OTHERGAME", IDLE);
    let file = dir.path().join("s.bss");
    save_state_after(&rom, 5, &file);
    let file_name = path_str(&file);

    assert_one_line_error(
        backspin().args([
            "run",
            path_str(&other),
            "--no-save",
            "--load-state",
            file_name,
        ]),
        &["another game", "OTHERGAME", file_name],
    );
    assert_one_line_error(
        backspin().args(["state", "verify", path_str(&other), file_name]),
        &["another game", "OTHERGAME"],
    );

    let bytes = std::fs::read(&file).unwrap();
    let truncated = dir.path().join("truncated.bss");
    std::fs::write(&truncated, &bytes[..bytes.len() / 2]).unwrap();
    assert_one_line_error(
        backspin().args(["state", "info", path_str(&truncated)]),
        &["truncated", "hw."],
    );
    let mut flipped = bytes.clone();
    flipped[5000] ^= 0x10;
    let corrupt = dir.path().join("corrupt.bss");
    std::fs::write(&corrupt, flipped).unwrap();
    assert_one_line_error(
        backspin().args([
            "run",
            path_str(&rom),
            "--no-save",
            "--load-state",
            path_str(&corrupt),
        ]),
        &["corrupt"],
    );
    let missing = dir.path().join("missing.bss");
    assert_one_line_error(
        backspin().args(["state", "info", path_str(&missing)]),
        &["no such file"],
    );
    assert_one_line_error(
        backspin().args(["state", "info", path_str(&rom)]),
        &["not a Backspin save state"],
    );
}

/// Single flipped bits anywhere in a saved file (its magic, the state, the thumbnail, the
/// BESS part the file also carries) are refused by `state info` and `run --load-state`
/// with one line each: a damaged Backspin state is never imported as a foreign BESS one.
#[test]
fn flipped_bits_anywhere_are_refused_by_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let rom = scene_rom(dir.path());
    let file = dir.path().join("s.bss");
    save_state_after(&rom, 5, &file);
    let bytes = std::fs::read(&file).unwrap();
    let info = state_file::info(&bytes).unwrap();
    let thumbnail_len = info.metadata.as_ref().unwrap().thumbnail_png.len();
    assert!(thumbnail_len > 0, "the CLI saves a thumbnail");
    let thumbnail_at = bytes
        .windows(4)
        .position(|window| window == b"\x89PNG")
        .expect("the thumbnail is in the file");
    let samples = [
        ("magic", 2, &["corrupt", "signature"][..]),
        ("state", info.checked_bytes / 2, &["corrupt"][..]),
        (
            "thumbnail",
            thumbnail_at + thumbnail_len / 2,
            &["corrupt", "file checksum"][..],
        ),
        (
            "BESS footer",
            bytes.len() - 1,
            &["corrupt", "file checksum"][..],
        ),
    ];
    for (part, at, contains) in samples {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0x04;
        let damaged = dir.path().join(format!("{part}.bss"));
        std::fs::write(&damaged, flipped).unwrap();
        assert_one_line_error(
            backspin().args(["state", "info", path_str(&damaged)]),
            contains,
        );
        assert_one_line_error(
            backspin().args([
                "run",
                path_str(&rom),
                "--no-save",
                "--load-state",
                path_str(&damaged),
            ]),
            contains,
        );
    }
}

/// A state load must not overwrite a newer `.sav` with the state's older cartridge RAM:
/// the `.sav` is written again only once the game writes its save RAM.
#[test]
fn a_state_load_never_clobbers_a_newer_battery_save() {
    let dir = tempfile::tempdir().unwrap();
    for (program, game_writes) in [(IDLE, false), (WRITES_RAM, true)] {
        let rom = battery_rom(dir.path(), "game.gb", "SAVETEST", program);
        let sav = dir.path().join("game.sav");
        let state = dir.path().join("game.bss");
        std::fs::write(&sav, vec![0xAA; 8192]).unwrap();
        backspin()
            .args(["run", path_str(&rom), "--frames", "5", "--save-state"])
            .arg(&state)
            .assert()
            .success();
        // The player saves in-game later: the .sav is newer than the state.
        std::fs::write(&sav, vec![0xBB; 8192]).unwrap();
        backspin()
            .args(["run", path_str(&rom), "--frames", "5", "--load-state"])
            .arg(&state)
            .assert()
            .success();
        let saved = std::fs::read(&sav).unwrap();
        if game_writes {
            // The game wrote after the load: its RAM (the state's, plus the write) is now
            // the newest save.
            assert_eq!(saved[0], 0x42);
            assert_eq!(saved[1], 0xAA);
        } else {
            assert_eq!(saved, vec![0xBB; 8192], "the newer .sav was overwritten");
        }
    }
}

/// `--load-state` with another emulator's file imports it through its BESS footer, with a
/// warning, on the model the state names (`--model auto`: opus5 is a DMG game, its CGB
/// fixture runs on a CGB). Uses SameBoy's fixtures when `../shared` is present.
#[test]
fn load_state_imports_a_bess_file_with_a_warning() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    for fixture in ["opus5-dmg-f600", "opus5-cgb-f600"] {
        let (rom, state) = (
            shared.join("test-roms/homebrew/opus5.gb"),
            shared.join(format!("bess-fixtures/{fixture}.state")),
        );
        if !rom.is_file() || !state.is_file() {
            return backspin_test_support::skip_or_fail(format!(
                "{} or {} not found",
                rom.display(),
                state.display()
            ));
        }
        let output = backspin()
            .args([
                "run",
                path_str(&rom),
                "--frames",
                "1",
                "--no-save",
                "--load-state",
            ])
            .arg(&state)
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(output.status.success(), "{fixture}: {stderr}");
        assert!(
            stderr.contains("BESS") && stderr.contains("SameBoy"),
            "{fixture}: {stderr}"
        );

        // `state import-bess` converts it into a Backspin file that passes the self-check.
        let dir = tempfile::tempdir().unwrap();
        let converted = dir.path().join("opus5.bss");
        backspin()
            .args(["state", "import-bess", path_str(&rom), path_str(&state)])
            .arg(&converted)
            .assert()
            .success();
        backspin()
            .args(["state", "verify", path_str(&rom)])
            .arg(&converted)
            .assert()
            .success();
        let info = backspin()
            .args(["state", "info"])
            .arg(&converted)
            .output()
            .unwrap();
        let info = String::from_utf8(info.stdout).unwrap();
        let model = if fixture.contains("cgb") {
            "CGB"
        } else {
            "DMG"
        };
        assert!(info.to_uppercase().contains(model), "{fixture}: {info}");
    }
}
