//! The MBC3 clock between sessions, through `backspin run`: loading a battery save advances
//! the cartridge clock by the host time since the save's footer was stamped, and an
//! implausible stamp (future, before 2000) is a warning with no advance. The game's view is
//! checked too: `roms-test/rtc_clock.asm` copies the latched clock to cartridge RAM. The
//! window loads saves through the same rules (one check here, before any window opens).

use assert_cmd::Command;
use std::path::{Path, PathBuf};

const RAM_BYTES: usize = 8192;
const DAY: u64 = 86_400;
/// 2000-01-01: footers stamped before it are refused.
const YEAR_2000: u64 = 946_684_800;

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("the host clock is after 1970")
        .as_secs()
}

/// `roms-test/rtc_clock.asm` assembled into `dir`.
fn rtc_rom(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../roms-test/rtc_clock.asm");
    let rom = backspin_asm::assemble_file(&source).expect("rtc_clock.asm assembles");
    let path = dir.join("clock.gb");
    std::fs::write(&path, rom).unwrap();
    path
}

/// A save in the VBA-M/BGB layout: zeroed RAM, the clock at day 0 00:00:00 (live and
/// latched), stamped `saved_at`.
fn write_save(path: &Path, saved_at: u64) {
    let mut bytes = vec![0u8; RAM_BYTES + 48];
    bytes[RAM_BYTES + 40..].copy_from_slice(&saved_at.to_le_bytes());
    std::fs::write(path, bytes).unwrap();
}

/// The clock after a run: (days, hours, minutes) from the footer's live registers, and the
/// registers the game itself last read (RAM $A000: S, M, H, DL, DH).
struct Clock {
    footer_days: u32,
    footer_hours: u32,
    game: [u8; 5],
}

fn read_clock(path: &Path) -> Clock {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(bytes.len(), RAM_BYTES + 48, "RAM + 48-byte footer");
    assert_eq!(&bytes[5..8], b"RTC", "the game ran and stored its clock");
    let word = |i: usize| {
        let at = RAM_BYTES + 4 * i;
        u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
    };
    Clock {
        footer_days: (word(4) & 1) << 8 | word(3),
        footer_hours: word(2),
        game: bytes[..5].try_into().unwrap(),
    }
}

/// Runs one emulated second on a save stamped `saved_at`; returns the clock and stderr.
fn run_with_stamp(saved_at: u64) -> (Clock, String) {
    let dir = tempfile::tempdir().unwrap();
    let rom = rtc_rom(dir.path());
    let save = dir.path().join("clock.sav");
    write_save(&save, saved_at);
    let output = Command::cargo_bin("backspin")
        .unwrap()
        .args(["run", rom.to_str().unwrap(), "--frames", "60"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(output.status.success(), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    (read_clock(&save), stderr)
}

#[test]
fn a_save_from_two_days_ago_loads_two_days_on() {
    let (clock, stderr) = run_with_stamp(unix_now() - 2 * DAY);
    assert!(stderr.is_empty(), "no warning expected: {stderr}");
    assert_eq!((clock.footer_days, clock.footer_hours), (2, 0));
    // The game latched and read day 2, 00:mm:ss: one emulated second plus however long
    // the process took to start (minutes only on a machine that is badly overloaded).
    let [seconds, minutes, hours, day_low, day_high] = clock.game;
    assert_eq!((day_high, day_low, hours), (0, 2, 0));
    assert!(minutes < 10 && seconds < 60, "{minutes} min {seconds} s");
}

#[test]
fn a_save_from_the_future_warns_and_does_not_advance() {
    let (clock, stderr) = run_with_stamp(unix_now() + 3 * DAY);
    assert!(stderr.contains("warning: "), "{stderr}");
    assert!(stderr.contains("in the future"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert_eq!((clock.footer_days, clock.footer_hours), (0, 0));
    assert_eq!(
        clock.game[2..],
        [0, 0, 0],
        "hours, days: not advanced or wrapped"
    );
}

#[test]
fn a_save_stamped_before_2000_warns_and_does_not_advance() {
    for stamp in [0, YEAR_2000 - DAY] {
        let (clock, stderr) = run_with_stamp(stamp);
        assert!(stderr.contains("before 2000"), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
        assert_eq!((clock.footer_days, clock.footer_hours), (0, 0));
        assert_eq!(clock.game[2..], [0, 0, 0]);
    }
}

#[test]
fn the_written_save_is_stamped_now_so_the_next_load_does_not_count_twice() {
    let dir = tempfile::tempdir().unwrap();
    let rom = rtc_rom(dir.path());
    let save = dir.path().join("clock.sav");
    write_save(&save, unix_now() - DAY);
    for _ in 0..2 {
        Command::cargo_bin("backspin")
            .unwrap()
            .args(["run", rom.to_str().unwrap(), "--frames", "60"])
            .assert()
            .success();
    }
    let bytes = std::fs::read(&save).unwrap();
    let stamp = u64::from_le_bytes(bytes[RAM_BYTES + 40..].try_into().unwrap());
    assert!(stamp.abs_diff(unix_now()) < 60, "stamped {stamp}");
    assert_eq!(read_clock(&save).footer_days, 1, "one day, counted once");
}

/// The window loads saves with `run`'s rules and messages: a save that does not fit is one
/// line naming the file, before any window opens, and the file is left alone.
#[test]
fn the_player_refuses_a_bad_save_with_runs_message() {
    let dir = tempfile::tempdir().unwrap();
    let rom = rtc_rom(dir.path());
    let save = dir.path().join("clock.sav");
    std::fs::write(&save, [7u8; 100]).unwrap();
    for args in [
        vec!["run", rom.to_str().unwrap()],
        vec![rom.to_str().unwrap(), "--no-audio"],
    ] {
        let output = Command::cargo_bin("backspin")
            .unwrap()
            .args(&args)
            .env_remove("DISPLAY")
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(!output.status.success(), "{args:?}");
        let line = stderr
            .lines()
            .find(|l| l.starts_with("error: "))
            .unwrap_or_else(|| panic!("{args:?}: no error line in {stderr}"));
        assert!(
            line.contains("bad battery save: battery save is 100 bytes")
                && line.ends_with(&format!("({})", save.display())),
            "{args:?}: {line}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
        assert_eq!(std::fs::read(&save).unwrap(), [7u8; 100]);
    }
}
