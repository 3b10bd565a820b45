//! `backspin movie record|play|info|verify` as scripts see them: a recorded movie verifies
//! (exit 0), an injected fault is reported with frame, M-cycle and field (exit 1, text and
//! JSON), another ROM and a damaged file are refused with one line.

use assert_cmd::Command;
use predicates::prelude::*;
use predicates::str::contains;
use std::path::{Path, PathBuf};

fn backspin() -> Command {
    Command::cargo_bin("backspin").unwrap()
}

/// Our scene ROM (`roms-test/ppu_scene.asm`) assembled into `dir`, and another ROM.
fn scene_rom(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../roms-test/ppu_scene.asm");
    let path = dir.join("ppu_scene.gb");
    std::fs::write(&path, backspin_asm::assemble_file(source).unwrap()).unwrap();
    path
}

fn other_rom(dir: &Path) -> PathBuf {
    let mut rom = vec![0u8; 0x8000];
    rom[0x134..0x139].copy_from_slice(b"OTHER");
    rom[0x100..0x102].copy_from_slice(&[0x18, 0xFE]); // JR -2
    let path = dir.join("other.gb");
    std::fs::write(&path, rom).unwrap();
    path
}

#[test]
fn record_info_play_verify_and_faults() {
    let dir = tempfile::tempdir().unwrap();
    let rom = scene_rom(dir.path());
    let script = dir.path().join("inputs.txt");
    std::fs::write(
        &script,
        "# scripted\n0 none\n20 a\n@700000 right up\n70 none\nend 120\n",
    )
    .unwrap();
    let movie = dir.path().join("scene.bsm");
    backspin()
        .args(["movie", "record"])
        .arg(&rom)
        .arg(&movie)
        .arg("--inputs")
        .arg(&script)
        .args(["--author", "cli test"])
        .assert()
        .success()
        .stdout(contains("recorded 120 frames"));
    backspin()
        .args(["movie", "info", "--json"])
        .arg(&movie)
        .assert()
        .success()
        .stdout(contains("\"frames\":120").and(contains("\"author\":\"cli test\"")));
    let shots = dir.path().join("shots");
    backspin()
        .args(["movie", "play"])
        .arg(&rom)
        .arg(&movie)
        .arg("--screenshot-every")
        .arg("50")
        .arg(&shots)
        .args(["--until-frame", "100"])
        .assert()
        .success()
        .stdout(contains("played 100 of 120 frames"));
    assert!(shots.join("frame-000050.png").exists() && shots.join("frame-000100.png").exists());
    backspin()
        .args(["movie", "verify"])
        .arg(&rom)
        .arg(&movie)
        .assert()
        .success()
        .stdout(contains("movie verified: 120 frames"));
    // Bit 3 of WRAM byte 0x100 (a byte the scene never rewrites) at M-cycle 1,000,000.
    let wram = backspin_movie::regions::fields()
        .iter()
        .find(|f| f.name == "hw.wram")
        .unwrap()
        .offset;
    let fault = format!("1000000:{}:3", wram + 0x1F00);
    backspin()
        .args(["movie", "verify", "--json"])
        .arg(&rom)
        .arg(&movie)
        .args(["--inject-fault", &fault])
        .assert()
        .code(1)
        .stdout(
            contains("\"result\":\"desync\"")
                .and(contains("\"m_cycle\":100000"))
                .and(contains("hw.wram[7936]")),
        );
    backspin()
        .args(["movie", "verify"])
        .arg(other_rom(dir.path()))
        .arg(&movie)
        .assert()
        .code(1)
        .stderr(contains("this movie is for another game"));
    let mut bytes = std::fs::read(&movie).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&movie, bytes).unwrap();
    backspin()
        .args(["movie", "info"])
        .arg(&movie)
        .assert()
        .code(1)
        .stderr(contains("the movie is corrupt (checksum"));
}
