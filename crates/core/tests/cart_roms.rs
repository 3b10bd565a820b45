//! Mapper test ROMs from the shared suite, run through the whole machine.
//!
//! Skipped (with a printed reason) when the shared ROMs are absent. The full manifest runner
//! (rom_suites) covers these too; this file is the mapper work's own quick check:
//! `cargo test -p backspin-core --test cart_roms -- --include-ignored --nocapture`.
//! - Mooneye `emulator-only/mbc{1,2,5}/*`: pass = `LD B,B` with B,C,D,E,H,L = 3,5,8,13,21,34.
//! - ax6 `rtc3test-*` (`#[ignore]`d, it only reports): judged by screen. Until the PPU draws,
//!   this decodes the text the ROM wrote to its background map and prints it (PASS/FAIL per
//!   test, with the emulated time each line last changed), without asserting.

use backspin_core::{Core, Events, M_CYCLES_PER_SECOND, Options, Rom};
use std::path::{Path, PathBuf};

fn test_roms_dir() -> Option<PathBuf> {
    let root = match std::env::var_os("GB_TEST_ROMS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/test-roms"),
    };
    if root.join("manifest.tsv").is_file() {
        Some(root)
    } else {
        println!(
            "skipped: no manifest.tsv in {}; set GB_TEST_ROMS",
            root.display()
        );
        None
    }
}

/// (rom path, emulated seconds) of the manifest rows whose ROM path starts with `prefix`.
fn manifest_rows(root: &Path, prefix: &str) -> Vec<(String, f64)> {
    let manifest = std::fs::read_to_string(root.join("manifest.tsv")).unwrap_or_default();
    manifest
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let (rom, seconds) = (fields.get(2)?, fields.get(4)?.parse().ok()?);
            rom.starts_with(prefix).then(|| (rom.to_string(), seconds))
        })
        .collect()
}

/// Runs `rom` for at most `seconds` of emulated time or until `LD B,B`.
fn run(root: &Path, rom: &str, seconds: f64) -> Result<Core, String> {
    let bytes = std::fs::read(root.join(rom)).map_err(|e| format!("unreadable: {e}"))?;
    let rom = Rom::from_bytes(bytes).map_err(|e| format!("rejected: {e}"))?;
    let mut core = Core::new(rom, Options::default());
    // Seconds in the manifest have at most one decimal: keep the budget in integers.
    let budget = (seconds * 10.0) as u64 * M_CYCLES_PER_SECOND / 10;
    while core.m_cycles() < budget {
        if core.run_frame().contains(Events::BREAKPOINT) {
            break;
        }
    }
    Ok(core)
}

#[test]
fn mooneye_mbc_roms() {
    let Some(root) = test_roms_dir() else { return };
    let rows = manifest_rows(&root, "mooneye/emulator-only/mbc");
    let mut failures = Vec::new();
    for (rom, seconds) in &rows {
        let verdict = match run(&root, rom, *seconds) {
            Err(e) => Err(e),
            Ok(core) => {
                let cpu = core.state().cpu;
                let regs = [cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l];
                if regs == [3, 5, 8, 13, 21, 34] {
                    Ok(())
                } else {
                    Err(format!(
                        "registers {regs:?} after {:.2} s",
                        core.m_cycles() as f64 / M_CYCLES_PER_SECOND as f64
                    ))
                }
            }
        };
        match verdict {
            Ok(()) => println!("pass  {rom}"),
            Err(why) => {
                println!("FAIL  {rom}: {why}");
                failures.push(rom.clone());
            }
        }
    }
    println!("{} of {} passed", rows.len() - failures.len(), rows.len());
    assert!(failures.is_empty(), "failed: {failures:?}");
}

#[test]
#[ignore = "screen-judged; needs CPU and PPU; run with --ignored"]
fn rtc3test_runs() {
    let Some(root) = test_roms_dir() else { return };
    // RTC3TEST_EXTRA_SECONDS runs longer than the manifest, to see slow results finish.
    let extra: f64 = std::env::var("RTC3TEST_EXTRA_SECONDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.0);
    for (rom, seconds) in manifest_rows(&root, "ax6/rtc3test") {
        let seconds = seconds + extra;
        let bytes = std::fs::read(root.join(&rom)).expect("manifest ROM readable");
        let mut core = Core::new(
            Rom::from_bytes(bytes).expect("valid ROM"),
            Options::default(),
        );
        let budget = (seconds * 10.0) as u64 * M_CYCLES_PER_SECOND / 10;
        // Each screen row with the emulated time it last changed: shows how long tests take.
        let mut rows: Vec<(String, u64)> = vec![(String::new(), 0); 18];
        while core.m_cycles() < budget {
            core.run_frame();
            for (row, text) in rows.iter_mut().zip(rtc3test_screen(&core)) {
                if row.0 != text {
                    *row = (text, core.m_cycles());
                }
            }
        }
        let rtc = core
            .rom()
            .rtc_registers(&core.state().hw.mbc, core.m_cycles());
        println!("ran   {rom} for {seconds} s: clock {rtc:?}");
        for (text, at) in rows {
            let at = at as f64 / M_CYCLES_PER_SECOND as f64;
            println!("      |{text}| {at:5.2} s");
        }
    }
}

/// The text rtc3test printed, decoded from the background map at $9C00 with its charmap
/// (digits, A-Z, a-z, '.', ' ' as tiles $00-$3F; bits 6-7 are the colour: green = pass,
/// red = fail, shown here as a trailing '+' or '!'; other tiles print as blanks).
fn rtc3test_screen(core: &Core) -> Vec<String> {
    const CHARS: &[u8; 64] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz. ";
    let vram = &core.state().hw.vram;
    (0..18)
        .map(|row| {
            let mut line = String::new();
            let mut colour = ' ';
            for col in 0..20 {
                let tile = vram[0x1C00 + row * 32 + col];
                line.push(match tile {
                    0x00..=0xBF => {
                        match tile & 0xC0 {
                            0x40 => colour = '+',
                            0x80 => colour = '!',
                            _ => {}
                        }
                        char::from(CHARS[usize::from(tile & 0x3F)])
                    }
                    0xC0 => '>',
                    0xC1 => '*',
                    0xC2 => ':',
                    0xC3 => '/',
                    0xC4 => '-',
                    _ => ' ',
                });
            }
            line.push(colour);
            line
        })
        .collect()
}
