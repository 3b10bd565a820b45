//! The rewind bench verifies what it times: seeks and steps equal a straight run byte for
//! byte (state and picture). Runs on the built-in ROM and our own ROMs always, and on the
//! shared homebrew ROMs when they are present (skipped with a note otherwise).

use super::{BenchConfig, run};
use backspin_core::Model;
use std::path::PathBuf;

fn test_roms_dir() -> Option<PathBuf> {
    backspin_harness::locate_test_roms().ok()
}

fn short_config() -> BenchConfig {
    BenchConfig {
        seconds: 12,
        seeks: 60,
        steps: 60,
        thinned_seeks: 30,
        slowdown_seconds: 1,
        budget_bytes: 16 << 20,
        ..BenchConfig::default()
    }
}

fn check_bench(name: &str, rom: &[u8]) {
    let report = run(rom, &short_config()).expect("ROM loads");
    println!("{name}: {}", report.to_json());
    assert!(
        report.verified,
        "{name}: {} of {} checks failed; first: {:?}",
        report.failures, report.checks, report.first_failure
    );
}

#[test]
fn bench_verifies_on_the_builtin_rom() {
    check_bench("builtin", &backspin_test_support::builtin_rom());
}

/// Our own ROMs, assembled from source, so every clone checks rewind on the input-echo ROM
/// (which logs each joypad change) and on the embedded demo.
#[test]
fn bench_verifies_on_our_own_roms() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    for source in ["roms-test/input_echo.asm", "assets/demo/demo.asm"] {
        let rom = backspin_asm::assemble_file(root.join(source))
            .unwrap_or_else(|error| panic!("{source} assembles: {error}"));
        check_bench(source, &rom);
    }
}

/// The CGB: VRAM bank 1, palette RAM and WRAM banks go through the delta codec and come
/// back byte for byte, pictures compared in colour. Our own CGB ROM, the demo in DMG
/// compatibility mode, and gb8 (CGB-only) when the shared ROMs are present.
#[test]
fn bench_verifies_on_a_cgb() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let config = BenchConfig {
        model: Model::Cgb,
        ..short_config()
    };
    let mut roms = Vec::new();
    for source in ["roms-test/cgb_palette.asm", "assets/demo/demo.asm"] {
        let rom = backspin_asm::assemble_file(root.join(source))
            .unwrap_or_else(|error| panic!("{source} assembles: {error}"));
        roms.push((source.to_string(), rom));
    }
    match test_roms_dir().map(|dir| std::fs::read(dir.join("homebrew/gb8.gb"))) {
        Some(Ok(rom)) => roms.push(("gb8.gb".into(), rom)),
        Some(Err(e)) => backspin_test_support::skip_or_fail(format!("gb8.gb: {e}")),
        None => skip_no_roms(),
    }
    for (name, rom) in roms {
        let report = run(&rom, &config).expect("ROM loads");
        println!("{name} (CGB): {}", report.to_json());
        assert!(
            report.verified && report.picture_checks > 0,
            "{name}: {} of {} checks failed; first: {:?}",
            report.failures,
            report.checks,
            report.first_failure
        );
    }
}

/// The shared test ROMs are missing: a skip, or a failure under `BACKSPIN_REQUIRE_TEST_ROMS`.
fn skip_no_roms() {
    backspin_test_support::skip_or_fail("shared test ROMs not found (set GB_TEST_ROMS)");
}

#[test]
fn bench_verifies_on_shared_homebrew_roms() {
    let Some(dir) = test_roms_dir() else {
        return skip_no_roms();
    };
    for name in ["opus5.gb", "pocket.gb", "shocklobster.gb"] {
        let path = dir.join("homebrew").join(name);
        match std::fs::read(&path) {
            Ok(rom) => check_bench(name, &rom),
            Err(e) => backspin_test_support::skip_or_fail(format!("{name}: {e}")),
        }
    }
}
