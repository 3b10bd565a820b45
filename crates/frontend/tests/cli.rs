//! The `backspin` binary as users and scripts see it: exit codes, one-line errors, outputs.

use assert_cmd::Command;
use backspin_test_support::SplitMix64;
use predicates::prelude::*;
use std::path::{Path, PathBuf};

fn backspin() -> Command {
    Command::cargo_bin("backspin").unwrap()
}

/// `roms-test/cli/<name>` assembled after the lines of `prefix` (what the source leaves to
/// the test) and written to `dir/<rom>`.
fn write_cli_rom(dir: &Path, name: &str, prefix: &str, rom: &str) -> PathBuf {
    let source = backspin_harness::workspace_root()
        .join("roms-test/cli")
        .join(name);
    let text = format!("{prefix}\nINCLUDE \"{name}\"\n");
    // Named as the file itself, so that the INCLUDE resolves beside it.
    let bytes = backspin_asm::assemble_str(&text, &source.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    let path = dir.join(rom);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// A 32 KiB ROM-only cartridge that sets BGP to 0 (so the screen the boot ROM leaves
/// shows all white) and then idles (`white_idle.asm`).
fn write_nop_rom(dir: &Path) -> PathBuf {
    write_cli_rom(dir, "white_idle.asm", "", "nop.gb")
}

/// Exactly one line on stderr, `error: ... (<path>)`, a non-zero exit and no panic.
fn assert_one_line_error(args: &[&str], path: &Path, contains: &str) {
    let output = backspin().args(args).output().unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(!output.status.success(), "{args:?} should fail");
    assert_eq!(output.status.code(), Some(1), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(
        stderr.contains(contains),
        "{stderr} should contain {contains}"
    );
    assert!(
        stderr
            .trim_end()
            .ends_with(&format!("({})", path.display())),
        "{stderr}"
    );
}

#[test]
fn user_data_errors_are_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.gb");
    let truncated = dir.path().join("truncated.gb");
    std::fs::write(&truncated, [0u8; 100]).unwrap();
    let empty = dir.path().join("empty.gb");
    std::fs::write(&empty, []).unwrap();
    let rom = write_nop_rom(dir.path());
    let bad_boot = dir.path().join("boot.bin");
    std::fs::write(&bad_boot, [0u8; 255]).unwrap();

    for command in ["run", "bench"] {
        let m = missing.to_str().unwrap();
        assert_one_line_error(&[command, m], &missing, "no such file");
        let d = dir.path().to_str().unwrap();
        assert_one_line_error(&[command, d], dir.path(), "is a directory");
        let t = truncated.to_str().unwrap();
        assert_one_line_error(&[command, t], &truncated, "100 bytes");
        let e = empty.to_str().unwrap();
        assert_one_line_error(&[command, e], &empty, "0 bytes");
    }
    let args = [
        "run",
        rom.to_str().unwrap(),
        "--boot-rom",
        bad_boot.to_str().unwrap(),
    ];
    assert_one_line_error(&args, &bad_boot, "255 bytes");
    let unwritable = dir.path().join("no/such/dir/shot.png");
    let args = [
        "run",
        rom.to_str().unwrap(),
        "--frames",
        "1",
        "--screenshot",
    ];
    let mut args = args.to_vec();
    args.push(unwritable.to_str().unwrap());
    assert_one_line_error(&args, &unwritable, "cannot write screenshot");
}

#[test]
fn random_files_never_panic() {
    let dir = tempfile::tempdir().unwrap();
    // A fixed seed keeps failures reproducible; printed in case this ever fails.
    let seed: u64 = 0x9E37_79B9_7F4A_7C15;
    println!("seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    for (index, len) in [0usize, 1, 0x14F, 0x150, 0x7FFF, 0x8000, 0x8001, 0x10000]
        .into_iter()
        .enumerate()
    {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
        let path = dir.path().join(format!("random{index}.gb"));
        std::fs::write(&path, bytes).unwrap();
        let output = backspin()
            .args(["run", path.to_str().unwrap(), "--frames", "2", "--no-save"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{len} bytes: {stderr}");
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{len} bytes: {stderr}"
        );
    }
}

#[test]
fn run_writes_a_screenshot() {
    let dir = tempfile::tempdir().unwrap();
    let rom = write_nop_rom(dir.path());
    let shot = dir.path().join("shot.png");
    backspin()
        .args([
            "run",
            rom.to_str().unwrap(),
            "--frames",
            "3",
            "--serial",
            "--screenshot",
        ])
        .arg(&shot)
        .assert()
        .success()
        .stdout("");
    let (width, height, _) =
        backspin_harness::decode_png_luma(&std::fs::read(&shot).unwrap()).unwrap();
    assert_eq!((width, height), (160, 144));
    backspin()
        .args([
            "run",
            rom.to_str().unwrap(),
            "--seconds",
            "0.1",
            "--model",
            "dmg",
        ])
        .assert()
        .success();
    backspin()
        .args([
            "run",
            rom.to_str().unwrap(),
            "--seconds",
            "1",
            "--frames",
            "2",
        ])
        .assert()
        .failure();
}

/// `--model cgb` runs a DMG cartridge on a CGB (RGB screenshot, still 160x144); a boot
/// ROM of the other model is refused in one line.
#[test]
fn cgb_model_runs_and_checks_its_boot_rom() {
    let dir = tempfile::tempdir().unwrap();
    let rom = write_nop_rom(dir.path());
    let shot = dir.path().join("cgb.png");
    backspin()
        .args([
            "run",
            rom.to_str().unwrap(),
            "--frames",
            "3",
            "--model",
            "cgb",
        ])
        .arg("--no-save")
        .arg("--screenshot")
        .arg(&shot)
        .assert()
        .success();
    let (width, height, _) =
        backspin_harness::decode_png_luma(&std::fs::read(&shot).unwrap()).unwrap();
    assert_eq!((width, height), (160, 144));
    let boot = dir.path().join("cgb_boot.bin");
    std::fs::write(&boot, vec![0u8; 2304]).unwrap();
    assert_one_line_error(
        &[
            "run",
            rom.to_str().unwrap(),
            "--model",
            "dmg",
            "--boot-rom",
            boot.to_str().unwrap(),
        ],
        &boot,
        "Cgb boot ROM",
    );
}

#[test]
fn bench_prints_one_json_object() {
    let dir = tempfile::tempdir().unwrap();
    let rom = write_nop_rom(dir.path());
    let output = backspin()
        .args(["bench", rom.to_str().unwrap(), "--frames", "30"])
        .output()
        .unwrap();
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["frames"], 30);
    assert_eq!(json["rom"], rom.to_str().unwrap());
    for key in ["fps_wall", "fps_cpu", "m_cycles"] {
        assert!(json[key].as_f64().unwrap() > 0.0, "{key}: {json}");
    }
    assert_eq!(json["draw_every"], 1);
    assert_eq!(json["drawing"], "every frame");
    assert_eq!(json["frames_drawn"], 30);
}

#[test]
fn bench_reports_model_and_draw_every() {
    let dir = tempfile::tempdir().unwrap();
    let rom = write_nop_rom(dir.path());
    let rom = rom.to_str().unwrap();
    let args = [
        "bench",
        rom,
        "--frames",
        "50",
        "--model",
        "cgb",
        "--draw-every",
        "24",
    ];
    let output = backspin().args(args).output().unwrap();
    assert!(output.status.success());
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["model"], "Cgb");
    assert_eq!(json["draw_every"], 24);
    // Frames 24 and 48 of 50 are drawn; the others run with pixel output off.
    assert_eq!(json["frames_drawn"], 2);
    assert!(
        json["drawing"]
            .as_str()
            .unwrap()
            .starts_with("1 frame in 24")
    );
    let zero = ["bench", rom, "--draw-every", "0"];
    backspin().args(zero).assert().failure();
}

/// Without a subcommand `backspin ROM` opens the windowed player (tested under Xvfb in
/// `gui_player.rs`); a ROM that cannot be read fails before any window, with one line.
#[test]
fn no_subcommand_opens_the_player() {
    backspin()
        .args(["missing-game.gb", "--no-audio"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "error: cannot read ROM: no such file (missing-game.gb)",
        ));
    backspin()
        .arg("--help")
        .assert()
        .success()
        .stdout(predicate::str::contains("Backspace").and(predicate::str::contains("run")));
}

/// Rewind budgets the history cannot address, and garbage, are refused at start in one
/// clear message (clap's usage hint aside), before any window opens; no panic.
#[test]
fn absurd_rewind_budgets_are_refused_at_start() {
    for value in ["1000000000", "4097", "-1", "lots", ""] {
        let output = backspin()
            .args([
                "missing-game.gb",
                "--no-audio",
                &format!("--rewind-mib={value}"),
            ])
            .output()
            .unwrap();
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(output.status.code(), Some(2), "{value}: {stderr}");
        let first = stderr.lines().next().unwrap_or_default();
        assert!(
            first.starts_with("error: ") && first.contains("--rewind-mib"),
            "{value}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{value}: {stderr}");
    }
}

/// A two-row manifest of our own ROM: one screenshot that matches, one that does not.
fn write_manifest(dir: &Path) -> PathBuf {
    write_nop_rom(dir);
    let gray = |value: u8| {
        let mut png = Vec::new();
        let mut encoder = png::Encoder::new(&mut png, 160, 144);
        encoder.set_color(png::ColorType::Grayscale);
        let mut writer = encoder.write_header().unwrap();
        writer.write_image_data(&[value; 160 * 144]).unwrap();
        writer.finish().unwrap();
        png
    };
    std::fs::write(dir.join("white.png"), gray(0xFF)).unwrap();
    std::fs::write(dir.join("black.png"), gray(0)).unwrap();
    let manifest = dir.join("manifest.tsv");
    std::fs::write(
        &manifest,
        "suite\ttest\trom\tmodel\tseconds\texpected\tfeatures\n\
         own\town/white\tnop.gb\tDMG\t0.1\twhite.png\t-\n\
         own\town/black\tnop.gb\tDMG\t0.1\tblack.png\t-\n",
    )
    .unwrap();
    manifest
}

#[test]
fn test_command_checks_the_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write_manifest(dir.path());
    let baseline = dir.path().join("known_failures.txt");
    let json = dir.path().join("report.json");
    let junit = dir.path().join("report.xml");
    let run = |extra: &[&str]| {
        let mut command = backspin();
        command
            .args(["test", "--jobs", "2", "--manifest"])
            .arg(&manifest)
            .arg("--baseline")
            .arg(&baseline)
            .args(extra);
        command
    };

    // No baseline: the black screenshot is a new failure.
    run(&[
        "--json",
        json.to_str().unwrap(),
        "--junit",
        junit.to_str().unwrap(),
    ])
    .assert()
    .failure()
    .stdout(predicate::str::contains(
        "FAIL own/black: screenshot differs",
    ))
    .stdout(predicate::str::contains(
        "new failure, not in known_failures.txt: own/black",
    ))
    .stdout(predicate::str::ends_with("1 passed, 1 failed\n"));
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(report["failed"], 1);
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("<testcase classname=\"own\" name=\"own/black\"")
    );

    // Writing the baseline, then checking against it, passes.
    run(&["--write-baseline"]).assert().success();
    assert!(
        std::fs::read_to_string(&baseline)
            .unwrap()
            .contains("\nown/black\n")
    );
    run(&[])
        .assert()
        .success()
        .stdout(predicate::str::ends_with("1 passed, 1 failed\n"));

    // A listed test that passes fails the run.
    std::fs::write(&baseline, "own/black\nown/white\n").unwrap();
    run(&[]).assert().failure().stdout(predicate::str::contains(
        "now passes, remove it from known_failures.txt: own/white",
    ));

    // The filter selects by name.
    run(&["--filter", "white"])
        .assert()
        .failure()
        .stdout(predicate::str::ends_with("1 passed, 0 failed\n"));
}

#[test]
fn test_command_reports_a_bad_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("manifest.tsv");
    std::fs::write(&manifest, "nonsense\n").unwrap();
    assert_one_line_error(
        &["test", "--manifest", manifest.to_str().unwrap()],
        &manifest,
        "manifest line 1",
    );
    let missing = dir.path().join("none.tsv");
    assert_one_line_error(
        &["test", "--manifest", missing.to_str().unwrap()],
        &missing,
        "cannot read manifest",
    );
}

/// MBC1+RAM+BATTERY with 8 KiB RAM whose code enables RAM and writes $5A to $A000
/// (`battery_byte.asm`).
fn write_battery_rom(dir: &Path) -> PathBuf {
    let prefix = "TITLE \"GAME\"\nDEF VALUE EQU $5A";
    write_cli_rom(dir, "battery_byte.asm", prefix, "game.gb")
}

#[test]
fn battery_save_is_written_beside_the_rom_and_checked_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let rom = write_battery_rom(dir.path());
    let save = dir.path().join("game.sav");

    backspin()
        .args(["run", rom.to_str().unwrap(), "--frames", "2", "--no-save"])
        .assert()
        .success();
    assert!(!save.exists(), "--no-save wrote a save");

    backspin()
        .args(["run", rom.to_str().unwrap(), "--frames", "2"])
        .assert()
        .success();
    let bytes = std::fs::read(&save).unwrap();
    assert_eq!(bytes.len(), 8192);
    assert_eq!(bytes[0], 0x5A);
    // Loading it back works, and no temp file is left behind.
    backspin()
        .args(["run", rom.to_str().unwrap(), "--frames", "2"])
        .assert()
        .success();
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

    // A save of the wrong size is refused rather than overwritten.
    std::fs::write(&save, [1u8; 100]).unwrap();
    assert_one_line_error(&["run", rom.to_str().unwrap()], &save, "100 bytes");
    assert_eq!(std::fs::read(&save).unwrap(), [1u8; 100]);
}

/// `dir/<name>` holding `members` (name, bytes), deflated as ROM sets are.
fn write_zip(dir: &Path, name: &str, members: &[(&str, &[u8])]) -> PathBuf {
    let path = dir.join(name);
    let mut writer = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (member, bytes) in members {
        writer.start_file(*member, options).unwrap();
        std::io::Write::write_all(&mut writer, bytes).unwrap();
    }
    writer.finish().unwrap();
    path
}

/// `backspin run game.zip` runs like `backspin run game.gb`: the same screenshot, the
/// battery save beside the zip; `bench` and `movie record` take the zip too.
#[test]
fn a_zipped_rom_runs_like_the_plain_one() {
    let plain_dir = tempfile::tempdir().unwrap();
    let plain = write_battery_rom(plain_dir.path());
    let zip_dir = tempfile::tempdir().unwrap();
    let zipped = write_zip(
        zip_dir.path(),
        "game.zip",
        &[("Game (World).gb", &std::fs::read(&plain).unwrap())],
    );
    let screenshot_of = |rom: &Path| {
        let shot = rom.with_extension("png");
        backspin()
            .arg("run")
            .arg(rom)
            .args(["--frames", "30", "--screenshot"])
            .arg(&shot)
            .assert()
            .success();
        std::fs::read(shot).unwrap()
    };
    assert_eq!(screenshot_of(&plain), screenshot_of(&zipped));
    let save = zip_dir.path().join("game.sav");
    assert_eq!(
        std::fs::read(&save).unwrap()[0],
        0x5A,
        "the .sav beside the zip"
    );
    assert_eq!(
        std::fs::read(&save).unwrap(),
        std::fs::read(plain_dir.path().join("game.sav")).unwrap()
    );
    backspin()
        .arg("bench")
        .arg(&zipped)
        .args(["--frames", "10"])
        .assert()
        .success();
    let movie = zip_dir.path().join("game.bsm");
    backspin()
        .args(["movie", "record"])
        .arg(&zipped)
        .arg(&movie)
        .args(["--random-seed", "1", "--frames", "10"])
        .assert()
        .success();
    backspin()
        .args(["movie", "verify"])
        .arg(&zipped)
        .arg(&movie)
        .assert()
        .success();
}

#[test]
fn a_zip_with_no_rom_or_two_is_a_one_line_error() {
    let dir = tempfile::tempdir().unwrap();
    let none = write_zip(dir.path(), "none.zip", &[("readme.txt", b"no game")]);
    assert_one_line_error(
        &["run", none.to_str().unwrap()],
        &none,
        "the zip archive holds no .gb or .gbc ROM",
    );
    let two = write_zip(dir.path(), "two.zip", &[("a.gb", b"a"), ("b.gbc", b"b")]);
    assert_one_line_error(
        &["run", two.to_str().unwrap()],
        &two,
        "the zip archive holds 2 ROMs (a.gb, b.gbc)",
    );
}

/// `backspin test` takes zipped ROMs in the manifest as `run` does: the zipped row passes
/// like the plain one, and a zip with two ROMs fails that row with the same message.
#[test]
fn test_command_runs_zipped_roms() {
    let dir = tempfile::tempdir().unwrap();
    write_manifest(dir.path());
    let nop = std::fs::read(dir.path().join("nop.gb")).unwrap();
    write_zip(dir.path(), "nop.zip", &[("Nop (World).gb", &nop)]);
    write_zip(dir.path(), "two.zip", &[("a.gb", &nop), ("b.gb", &nop)]);
    let manifest = dir.path().join("zipped.tsv");
    std::fs::write(
        &manifest,
        "suite\ttest\trom\tmodel\tseconds\texpected\tfeatures\n\
         own\tzip/white\tnop.zip\tDMG\t0.1\twhite.png\t-\n\
         own\tzip/two\ttwo.zip\tDMG\t0.1\twhite.png\t-\n",
    )
    .unwrap();
    let baseline = dir.path().join("known_failures.txt");
    std::fs::write(&baseline, "zip/two\n").unwrap();
    backspin()
        .args(["test", "--jobs", "1", "--manifest"])
        .arg(&manifest)
        .arg("--baseline")
        .arg(&baseline)
        .assert()
        .success()
        .stdout(predicate::str::contains("FAIL [known] zip/two: "))
        .stdout(predicate::str::contains(
            "two.zip: the zip archive holds 2 ROMs (a.gb, b.gb)",
        ))
        .stdout(predicate::str::ends_with("1 passed, 1 failed\n"));
}
