//! PPU test ROMs from the shared manifest: Mooneye PPU timing, dmg-acid2, Mealybug, Bully,
//! Strikethrough, Blargg oam_bug. Each row runs for its manifest time (emulated), then the
//! Mooneye register signature and/or the screenshot decide. Skips (passing) when the shared
//! ROMs are absent.
//!
//! `cargo test -p backspin-core --test ppu_roms -- --nocapture` prints one line per row and a
//! summary; `PPU_FILTER=substring` narrows the rows. Rows listed in `KNOWN_FAILURES` may fail;
//! any other failure fails the test, and so does a listed row that passes.

use backspin_core::{Core, Events, Options, Rom};
use std::path::{Path, PathBuf};

/// Rows expected to fail for now (the list only shrinks on purpose).
const KNOWN_FAILURES: &[&str] = &[
    // Object enable toggled at the end of a line: off by a few pixels.
    "mealybug-tearoom-tests/ppu/m3_lcdc_obj_en_change_variant.gb (DMG)",
    // Window enable toggled repeatedly within a line: the DMG window restart glitches.
    "mealybug-tearoom-tests/ppu/m3_lcdc_win_en_change_multiple.gb (DMG)",
    "mealybug-tearoom-tests/ppu/m3_lcdc_win_en_change_multiple_wx.gb (DMG)",
    // SCX high bits changed mid-tile: every eighth line differs.
    "mealybug-tearoom-tests/ppu/m3_scx_high_5_bits.gb (DMG)",
];

fn roms_root() -> Option<PathBuf> {
    let root = match std::env::var_os("GB_TEST_ROMS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/test-roms"),
    };
    if root.join("manifest.tsv").is_file() {
        Some(root)
    } else {
        println!(
            "skipped: no manifest.tsv under {}; set GB_TEST_ROMS",
            root.display()
        );
        None
    }
}

struct Row {
    name: String,
    rom: String,
    seconds: f64,
    expected: Option<String>,
}

fn is_ppu_row(rom: &str) -> bool {
    // PPU_ALL=1 widens the run to every DMG Mooneye/Blargg row (to check the CPU/machine
    // timing the PPU's results depend on).
    if std::env::var_os("PPU_ALL").is_some()
        && (rom.starts_with("mooneye/acceptance/") || rom.starts_with("blargg/"))
    {
        return true;
    }
    rom.starts_with("mooneye/acceptance/ppu/")
        || rom.starts_with("acid/dmg-acid2")
        || rom.starts_with("mealybug/")
        || rom.starts_with("ashiepaws/")
        || rom.starts_with("blargg/oam_bug/")
}

fn rows(root: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(root.join("manifest.tsv")).expect("manifest readable");
    let filter = std::env::var("PPU_FILTER").unwrap_or_default();
    text.lines()
        .skip(1)
        .filter_map(|line| {
            let cols: Vec<&str> = line.split('\t').collect();
            if cols.len() < 6 || cols[3] != "DMG" || !is_ppu_row(cols[2]) {
                return None;
            }
            if !cols[1].contains(filter.as_str()) {
                return None;
            }
            Some(Row {
                name: cols[1].to_string(),
                rom: cols[2].to_string(),
                seconds: cols[4].parse().unwrap_or(10.0),
                expected: (cols[5] != "-").then(|| cols[5].to_string()),
            })
        })
        .collect()
}

/// Shades 0..3 as the README's gray levels, then 8-bit luma of the expected PNG.
fn expected_luma(path: &Path) -> Option<Vec<u8>> {
    let file = std::fs::File::open(path).ok()?;
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().ok()?;
    let mut buf = vec![0; reader.output_buffer_size()?];
    let info = reader.next_frame(&mut buf).ok()?;
    let (w, h) = (info.width as usize, info.height as usize);
    if w != 160 || h != 144 {
        return None;
    }
    let channels = info.color_type.samples();
    let mut out = Vec::with_capacity(w * h);
    for p in 0..w * h {
        let px = &buf[p * channels..p * channels + channels];
        let luma = match channels {
            1 | 2 => u32::from(px[0]),
            _ => (299 * u32::from(px[0]) + 587 * u32::from(px[1]) + 114 * u32::from(px[2])) / 1000,
        };
        out.push(luma as u8);
    }
    Some(out)
}

/// Writes a grayscale PNG: actual | expected | difference, side by side.
fn write_comparison(path: &Path, actual: &[u8], expected: &[u8]) {
    let Ok(file) = std::fs::File::create(path) else {
        return;
    };
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), 3 * 160, 144);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let Ok(mut writer) = encoder.write_header() else {
        return;
    };
    let mut data = Vec::with_capacity(3 * 160 * 144);
    for y in 0..144 {
        let row = y * 160..y * 160 + 160;
        data.extend_from_slice(&actual[row.clone()]);
        data.extend_from_slice(&expected[row.clone()]);
        data.extend(
            actual[row.clone()]
                .iter()
                .zip(&expected[row])
                .map(|(a, b)| if a.abs_diff(*b) > 50 { 0 } else { 0xFF }),
        );
    }
    let _ = writer.write_image_data(&data);
}

enum Outcome {
    Pass,
    Fail(String),
}

fn run_row(root: &Path, row: &Row) -> Outcome {
    let Ok(bytes) = std::fs::read(root.join(&row.rom)) else {
        return Outcome::Fail("ROM unreadable".into());
    };
    let rom = match Rom::from_bytes(bytes) {
        Ok(rom) => rom,
        Err(error) => return Outcome::Fail(format!("ROM rejected: {error}")),
    };
    let mut core = Core::new(rom, Options::default());
    let budget = (row.seconds * backspin_core::M_CYCLES_PER_SECOND as f64) as u64;
    let mooneye = row.rom.starts_with("mooneye/");
    let mut regs_ok = None;
    loop {
        let events = core.run_until(budget);
        if events.contains(Events::BREAKPOINT) && mooneye {
            let cpu = &core.state().cpu;
            let regs = [cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l];
            regs_ok = Some(regs == [3, 5, 8, 13, 21, 34]);
            // Let the screen settle for a couple of frames.
            let settle = core.m_cycles() + 3 * backspin_core::M_CYCLES_PER_FRAME;
            core.run_until(settle.min(budget.max(settle)));
            break;
        }
        if core.m_cycles() >= budget || events.contains(Events::CPU_LOCKED) {
            break;
        }
    }
    let shades = [0xFF, 0xAA, 0x55, 0x00];
    let actual: Vec<u8> = core
        .frame()
        .iter()
        .map(|&s| shades[usize::from(s & 3)])
        .collect();
    let safe = row.rom.replace(['/', ' ', '(', ')', ','], "_");
    let out_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target/ppu_roms");
    let _ = std::fs::create_dir_all(&out_dir);
    if mooneye {
        match regs_ok {
            Some(true) => return Outcome::Pass,
            Some(false) => {
                write_comparison(
                    &out_dir.join(format!("{safe}.screen.png")),
                    &actual,
                    &actual,
                );
                let cpu = &core.state().cpu;
                return Outcome::Fail(format!(
                    "Mooneye failure: A={:02X} B={:02X} C={:02X} D={:02X} E={:02X} H={:02X} L={:02X}",
                    cpu.a, cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l
                ));
            }
            None => return Outcome::Fail("no LD B,B within the time budget".into()),
        }
    }
    let Some(expected) = row.expected.as_ref() else {
        return Outcome::Fail("no expected screenshot".into());
    };
    let Some(want) = expected_luma(&root.join(expected)) else {
        return Outcome::Fail(format!("cannot decode {expected}"));
    };
    let diff = actual
        .iter()
        .zip(&want)
        .filter(|(a, b)| a.abs_diff(**b) > 50)
        .count();
    if std::env::var("PPU_ROWS").is_ok() {
        let rows_differ: Vec<usize> = (0..144)
            .filter(|y| (0..160).any(|x| actual[y * 160 + x].abs_diff(want[y * 160 + x]) > 50))
            .collect();
        println!("differing rows: {rows_differ:?}");
        for &y in rows_differ.iter().take(3) {
            let digit = |v: u8| match v {
                0xC0..=0xFF => '0',
                0x80..=0xBF => '1',
                0x30..=0x7F => '2',
                _ => '3',
            };
            let a: String = actual[y * 160..y * 160 + 160]
                .iter()
                .map(|&v| digit(v))
                .collect();
            let e: String = want[y * 160..y * 160 + 160]
                .iter()
                .map(|&v| digit(v))
                .collect();
            println!("row {y}\nact {a}\nexp {e}");
        }
    }
    if diff == 0 {
        Outcome::Pass
    } else {
        let path = out_dir.join(format!("{safe}.actual-expected-diff.png"));
        write_comparison(&path, &actual, &want);
        Outcome::Fail(format!("{diff} pixels differ; see {}", path.display()))
    }
}

#[test]
fn ppu_test_roms() {
    let Some(root) = roms_root() else { return };
    let rows = rows(&root);
    let (mut passed, mut unexpected) = (0, Vec::new());
    for row in &rows {
        let known = KNOWN_FAILURES.contains(&row.name.as_str());
        match run_row(&root, row) {
            Outcome::Pass => {
                passed += 1;
                println!("pass  {}", row.name);
                if known {
                    unexpected.push(format!("{} passes but is listed as failing", row.name));
                }
            }
            Outcome::Fail(why) => {
                println!("FAIL  {}: {why}", row.name);
                if !known {
                    unexpected.push(format!("{}: {why}", row.name));
                }
            }
        }
    }
    println!("ppu rows: {passed}/{} passed", rows.len());
    assert!(
        unexpected.is_empty(),
        "unexpected results:\n{}",
        unexpected.join("\n")
    );
}
