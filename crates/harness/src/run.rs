//! Running one manifest row and judging it; running many rows in parallel.

use crate::image::{
    ScreenshotMismatch, compare_rgb_with_png, encode_diff_png, encode_screen_png, screen_rgb,
};
use crate::manifest::{Judge, ManifestRow};
use backspin_core::{Core, Events, M_CYCLES_PER_SECOND, Model, Options, Rom};
use backspin_movie::{Script, ScriptPlayer};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Settings shared by every row of a run.
#[derive(Clone, Debug)]
pub struct RunConfig {
    /// Where mismatching screenshots are written, one folder per test.
    pub artifacts_dir: PathBuf,
}

impl Default for RunConfig {
    fn default() -> RunConfig {
        RunConfig {
            artifacts_dir: default_artifacts_dir(),
        }
    }
}

/// `<workspace>/target/test-artifacts`.
pub fn default_artifacts_dir() -> PathBuf {
    crate::workspace_root().join("target/test-artifacts")
}

/// The outcome of one row.
#[derive(Clone, Debug, serde::Serialize)]
pub struct TestResult {
    pub suite: String,
    pub test: String,
    pub passed: bool,
    /// One line: why it passed or failed.
    pub reason: String,
    /// Frames emulated (completed LCD frames).
    pub frames: u64,
    pub m_cycles: u64,
    pub wall_seconds: f64,
    /// Bytes the ROM sent on the serial port, as text (invalid UTF-8 replaced).
    pub serial: String,
    /// Screenshot files written on a mismatch (actual, expected, diff).
    pub artifacts: Vec<PathBuf>,
}

const FIBONACCI: [u8; 6] = [3, 5, 8, 13, 21, 34];
const MOONEYE_FAILED: [u8; 6] = [0x42; 6];
/// Blargg's `$A000` protocol: status at A000, signature at A001..=A003, text from A004.
const BLARGG_STATUS: u16 = 0xA000;
const BLARGG_SIGNATURE: [u8; 3] = [0xDE, 0xB0, 0x61];
const BLARGG_RUNNING: u8 = 0x80;

/// Runs a manifest row whose files live under `roms_dir` (the manifest's folder).
pub fn run_row(row: &ManifestRow, roms_dir: &Path, config: &RunConfig) -> TestResult {
    let rom_path = roms_dir.join(&row.rom);
    let rom = match std::fs::read(&rom_path) {
        Ok(bytes) => bytes,
        Err(error) => {
            return failed_before_start(
                row,
                format!("cannot read ROM {}: {error}", rom_path.display()),
            );
        }
    };
    // A zipped ROM stands for the one inside, as everywhere a ROM path is taken.
    let rom = match crate::rom_zip::unzip_rom(rom) {
        Ok(bytes) => bytes,
        Err(error) => return failed_before_start(row, format!("{}: {error}", rom_path.display())),
    };
    let expected = match &row.expected {
        None => None,
        Some(relative) => {
            let path = roms_dir.join(relative);
            match std::fs::read(&path) {
                Ok(bytes) => Some(bytes),
                Err(error) => {
                    return failed_before_start(
                        row,
                        format!("cannot read expected PNG {}: {error}", path.display()),
                    );
                }
            }
        }
    };
    let inputs = match load_row_inputs(row, roms_dir) {
        Ok(inputs) => inputs,
        Err(reason) => return failed_before_start(row, reason),
    };
    run_in_memory_with_inputs(row, rom, expected.as_deref(), inputs.as_ref(), config)
}

/// The feature that gives a row an input script: `<rom without its extension>.inputs`
/// beside the ROM, in the text format of `backspin movie record --inputs` (cycle lines count
/// M-cycles from power-on). Probes of STOP and the joypad press buttons this way.
pub const INPUTS_FEATURE: &str = "inputs";

/// The row's input script, if its features name [`INPUTS_FEATURE`].
pub fn load_row_inputs(row: &ManifestRow, roms_dir: &Path) -> Result<Option<Script>, String> {
    if !row.features.iter().any(|f| f == INPUTS_FEATURE) {
        return Ok(None);
    }
    let path = roms_dir.join(&row.rom).with_extension("inputs");
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read input script {}: {error}", path.display()))?;
    Script::parse(&text)
        .map(Some)
        .map_err(|error| format!("{}: {error}", path.display()))
}

/// Runs a row from ROM bytes in memory (our own assembled ROMs) with the expected PNG bytes,
/// if any. `row.rom` and `row.expected` are only used as labels.
pub fn run_in_memory(
    row: &ManifestRow,
    rom: Vec<u8>,
    expected_png: Option<&[u8]>,
    config: &RunConfig,
) -> TestResult {
    run_in_memory_with_inputs(row, rom, expected_png, None, config)
}

/// [`run_in_memory`] with the buttons (and writes) of an input script played in.
pub fn run_in_memory_with_inputs(
    row: &ManifestRow,
    rom: Vec<u8>,
    expected_png: Option<&[u8]>,
    inputs: Option<&Script>,
    config: &RunConfig,
) -> TestResult {
    let started = Instant::now();
    let mut player = match inputs.map(ScriptPlayer::new).transpose() {
        Ok(player) => player,
        Err(reason) => return failed_before_start(row, format!("input script: {reason}")),
    };
    let rom = match Rom::from_bytes(rom) {
        Ok(rom) => rom,
        Err(error) => return failed_before_start(row, format!("ROM rejected: {error}")),
    };
    // CGB rows run on a CGB (in DMG compatibility mode for DMG cartridges).
    let model = if row.model == "CGB" {
        Model::Cgb
    } else {
        Model::Dmg
    };
    let mut core = Core::new(
        rom,
        Options {
            model,
            ..Options::default()
        },
    );
    let judge = row.judge();
    // f64 -> u64 saturates; the manifest bounds seconds to (0, 3600].
    let target = (row.seconds * M_CYCLES_PER_SECOND as f64).round() as u64;
    let mut verdict = None;
    let mut blargg_seen_running = false;

    while core.m_cycles() < target {
        let events = match &mut player {
            Some(player) => player.run_frame(&mut core),
            None => core.run_frame(),
        };
        verdict = match judge {
            Judge::Mooneye => mooneye_verdict(&core, events),
            Judge::Blargg => blargg_early_verdict(&mut core, &mut blargg_seen_running),
            Judge::Screenshot | Judge::ScreenshotAtBreakpoint => None,
        };
        if verdict.is_some()
            || (judge == Judge::ScreenshotAtBreakpoint && events.contains(Events::BREAKPOINT))
        {
            break;
        }
    }

    let (passed, reason, artifacts) = match verdict {
        Some((passed, reason)) => (passed, reason, Vec::new()),
        None => final_verdict(judge, &mut core, row, expected_png, config),
    };
    TestResult {
        suite: row.suite.clone(),
        test: row.test.clone(),
        passed,
        reason,
        frames: core.state().hw.frames,
        m_cycles: core.m_cycles(),
        wall_seconds: started.elapsed().as_secs_f64(),
        serial: String::from_utf8_lossy(&core.output().serial).into_owned(),
        artifacts,
    }
}

fn failed_before_start(row: &ManifestRow, reason: String) -> TestResult {
    TestResult {
        suite: row.suite.clone(),
        test: row.test.clone(),
        passed: false,
        reason,
        frames: 0,
        m_cycles: 0,
        wall_seconds: 0.0,
        serial: String::new(),
        artifacts: Vec::new(),
    }
}

/// Mooneye: the first `LD B,B` ends the test; the registers say how.
fn mooneye_verdict(core: &Core, events: Events) -> Option<(bool, String)> {
    let cpu = &core.state().cpu;
    if events.contains(Events::BREAKPOINT) {
        let registers = [cpu.b, cpu.c, cpu.d, cpu.e, cpu.h, cpu.l];
        return Some(if registers == FIBONACCI {
            (true, "passed (LD B,B with Fibonacci registers)".into())
        } else if registers == MOONEYE_FAILED {
            (false, "test reported failure (registers all 0x42)".into())
        } else {
            (
                false,
                format!("LD B,B with unexpected registers B,C,D,E,H,L = {registers:02X?}"),
            )
        });
    }
    if events.contains(Events::CPU_LOCKED) {
        return Some((
            false,
            format!("CPU locked (illegal opcode) near PC {:04X}", cpu.pc),
        ));
    }
    None
}

/// Blargg, while running: the serial words end the test; so does a final `$A000` status.
fn blargg_early_verdict(core: &mut Core, seen_running: &mut bool) -> Option<(bool, String)> {
    if let Some(verdict) = blargg_serial_verdict(&core.output().serial) {
        return Some(verdict);
    }
    if blargg_signature(core) {
        let status = core.peek(BLARGG_STATUS);
        // Only trust a final status after the test announced it is running, so RAM left
        // over from before the test started cannot end it.
        if status == BLARGG_RUNNING {
            *seen_running = true;
        } else if *seen_running {
            return Some(blargg_status_verdict(core, status));
        }
    }
    None
}

fn blargg_serial_verdict(serial: &[u8]) -> Option<(bool, String)> {
    let text = String::from_utf8_lossy(serial);
    if text.contains("Passed") {
        Some((true, "serial: Passed".into()))
    } else if let Some(start) = text.find("Failed") {
        let detail: String = text[start..]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        Some((false, format!("serial: {}", truncate(&detail, 100))))
    } else {
        None
    }
}

fn blargg_signature(core: &mut Core) -> bool {
    (0..3).all(|i| core.peek(BLARGG_STATUS + 1 + i) == BLARGG_SIGNATURE[usize::from(i)])
}

fn blargg_status_verdict(core: &mut Core, status: u8) -> (bool, String) {
    let text = blargg_text(core);
    match status {
        0 => (true, "$A000 status 0 (passed)".into()),
        BLARGG_RUNNING => (false, "timed out: $A000 status still 0x80 (running)".into()),
        code => (
            false,
            format!("$A000 status {code} (failed): {}", truncate(&text, 100)),
        ),
    }
}

/// The zero-terminated text at A004.. (at most one 8 KiB bank), whitespace collapsed.
fn blargg_text(core: &mut Core) -> String {
    let mut bytes = Vec::new();
    for addr in 0xA004..=0xBFFF {
        match core.peek(addr) {
            0 => break,
            byte => bytes.push(byte),
        }
    }
    String::from_utf8_lossy(&bytes)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars) {
        Some((index, _)) => format!("{}...", &text[..index]),
        None => text.to_string(),
    }
}

/// After the full run time (or a screenshot test's `LD B,B`): Mooneye timed out; Blargg falls
/// back to `$A000` then the screen.
fn final_verdict(
    judge: Judge,
    core: &mut Core,
    row: &ManifestRow,
    expected_png: Option<&[u8]>,
    config: &RunConfig,
) -> (bool, String, Vec<PathBuf>) {
    match judge {
        Judge::Mooneye => (
            false,
            format!("timed out: no LD B,B within {} s", row.seconds),
            Vec::new(),
        ),
        Judge::Blargg if blargg_signature(core) => {
            let status = core.peek(BLARGG_STATUS);
            let (passed, reason) = blargg_status_verdict(core, status);
            (passed, reason, Vec::new())
        }
        Judge::Blargg | Judge::Screenshot | Judge::ScreenshotAtBreakpoint => {
            screenshot_verdict(core, row, expected_png, config)
        }
    }
}

fn screenshot_verdict(
    core: &Core,
    row: &ManifestRow,
    expected_png: Option<&[u8]>,
    config: &RunConfig,
) -> (bool, String, Vec<PathBuf>) {
    let Some(expected_png) = expected_png else {
        return (
            false,
            "no result: no serial/status report and no expected screenshot".into(),
            Vec::new(),
        );
    };
    let screen = screen_rgb(core);
    match compare_rgb_with_png(&screen, expected_png) {
        Ok(None) => (true, "screenshot matches".into(), Vec::new()),
        Ok(Some(mismatch)) => {
            let (artifacts, note) =
                match write_artifacts(config, &row.test, core, expected_png, &mismatch) {
                    Ok(paths) => {
                        let note = format!(" (see {})", paths[2].display());
                        (paths, note)
                    }
                    Err(error) => (Vec::new(), format!(" (artifacts not written: {error})")),
                };
            let (x, y) = mismatch.first;
            (
                false,
                format!(
                    "screenshot differs in {} pixels, first at ({x},{y}){note}",
                    mismatch.differing_pixels
                ),
                artifacts,
            )
        }
        Err(error) => (false, error.to_string(), Vec::new()),
    }
}

fn write_artifacts(
    config: &RunConfig,
    test: &str,
    core: &Core,
    expected_png: &[u8],
    mismatch: &ScreenshotMismatch,
) -> std::io::Result<Vec<PathBuf>> {
    let dir = config.artifacts_dir.join(sanitize_test_name(test));
    std::fs::create_dir_all(&dir)?;
    let files = [
        ("actual.png", encode_screen_png(core)),
        ("expected.png", expected_png.to_vec()),
        (
            "diff.png",
            encode_diff_png(&screen_rgb(core), &mismatch.expected_luma),
        ),
    ];
    let mut paths = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(name);
        std::fs::write(&path, bytes)?;
        paths.push(path);
    }
    Ok(paths)
}

/// A test name as one safe folder name: `blargg/cpu_instrs/03-op_sp,hl.gb` becomes
/// `blargg_cpu_instrs_03-op_sp_hl.gb`.
pub fn sanitize_test_name(test: &str) -> String {
    let name: String = test
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    match name.trim_start_matches('.') {
        "" => "_".to_string(),
        trimmed => trimmed.to_string(),
    }
}

/// Runs `rows` on `jobs` worker threads. `progress` is called on the calling thread once per
/// finished row, in completion order; the returned results are in manifest order.
pub fn run_rows(
    rows: &[ManifestRow],
    roms_dir: &Path,
    config: &RunConfig,
    jobs: usize,
    mut progress: impl FnMut(&TestResult),
) -> Vec<TestResult> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<TestResult>>> = Mutex::new(vec![None; rows.len()]);
    let (sender, receiver) = std::sync::mpsc::channel::<usize>();
    std::thread::scope(|scope| {
        for _ in 0..jobs.clamp(1, rows.len().max(1)) {
            let sender = sender.clone();
            let (next, results) = (&next, &results);
            scope.spawn(move || {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(row) = rows.get(index) else { break };
                    let result = run_row(row, roms_dir, config);
                    results
                        .lock()
                        .expect("no worker panics while holding the lock")[index] = Some(result);
                    if sender.send(index).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for index in receiver {
            let results = results
                .lock()
                .expect("no worker panics while holding the lock");
            if let Some(result) = &results[index] {
                progress(result);
            }
        }
    });
    results
        .into_inner()
        .expect("workers have finished")
        .into_iter()
        .map(|result| result.expect("every row was run"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::image::tests::png_of;

    fn row(suite: &str, seconds: f64) -> ManifestRow {
        ManifestRow {
            suite: suite.into(),
            test: format!("{suite}/own test"),
            rom: "memory".into(),
            model: "DMG".into(),
            seconds,
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

    /// Sets BGP to 0 (every shade white) and loops: a blank white screen, no breakpoint,
    /// no serial output.
    fn nop_rom() -> Vec<u8> {
        let mut rom = vec![0; 0x8000];
        // XOR A; LDH (BGP),A; JR -2
        rom[0x100..0x105].copy_from_slice(&[0xAF, 0xE0, 0x47, 0x18, 0xFE]);
        rom
    }

    #[test]
    fn blank_screen_matches_white_and_not_black() {
        let (_dir, config) = config();
        let white = png_of(
            png::ColorType::Grayscale,
            png::BitDepth::Eight,
            &[0xFF; 23040],
        );
        let black = png_of(png::ColorType::Grayscale, png::BitDepth::Eight, &[0; 23040]);
        let pass = run_in_memory(&row("acid", 0.1), nop_rom(), Some(&white), &config);
        assert!(pass.passed, "{}", pass.reason);
        assert!(pass.m_cycles >= M_CYCLES_PER_SECOND / 10);

        let fail = run_in_memory(&row("acid", 0.1), nop_rom(), Some(&black), &config);
        assert!(!fail.passed);
        assert!(fail.reason.contains("23040 pixels"), "{}", fail.reason);
        assert_eq!(fail.artifacts.len(), 3);
        for path in &fail.artifacts {
            assert!(path.starts_with(config.artifacts_dir.join("acid_own_test")));
            assert!(path.is_file(), "{}", path.display());
        }
    }

    #[test]
    fn mooneye_without_breakpoint_times_out() {
        let (_dir, config) = config();
        let result = run_in_memory(&row("mooneye", 0.05), nop_rom(), None, &config);
        assert!(!result.passed);
        assert!(result.reason.starts_with("timed out"), "{}", result.reason);
    }

    #[test]
    fn bad_rom_and_missing_files_fail_cleanly() {
        let (_dir, config) = config();
        let result = run_in_memory(&row("acid", 1.0), vec![0; 100], None, &config);
        assert!(!result.passed);
        assert!(
            result.reason.starts_with("ROM rejected"),
            "{}",
            result.reason
        );
        let result = run_row(&row("acid", 1.0), Path::new("/nonexistent"), &config);
        assert!(
            result.reason.starts_with("cannot read ROM"),
            "{}",
            result.reason
        );
    }

    #[test]
    fn blargg_serial_words() {
        let passed = blargg_serial_verdict(b"01-special\n\n\nPassed\n").unwrap();
        assert!(passed.0);
        let (passed, reason) = blargg_serial_verdict(b"01-special\n\nFailed #3\n").unwrap();
        assert!(!passed);
        assert_eq!(reason, "serial: Failed #3");
        assert!(blargg_serial_verdict(b"01-special\n").is_none());
    }

    #[test]
    fn blargg_without_any_report_uses_the_screenshot() {
        let (_dir, config) = config();
        let result = run_in_memory(&row("blargg", 0.05), nop_rom(), None, &config);
        assert!(!result.passed);
        assert!(result.reason.starts_with("no result"), "{}", result.reason);
    }

    #[test]
    fn test_names_become_folder_names() {
        assert_eq!(
            sanitize_test_name("blargg/cpu_instrs/03-op_sp,hl.gb"),
            "blargg_cpu_instrs_03-op_sp_hl.gb"
        );
        assert_eq!(sanitize_test_name("../x"), "_x");
        assert_eq!(sanitize_test_name(""), "_");
    }

    #[test]
    fn parallel_run_keeps_manifest_order() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("nop.gb"), nop_rom()).unwrap();
        let rows: Vec<ManifestRow> = (0..5)
            .map(|i| ManifestRow {
                test: format!("t{i}"),
                rom: if i == 2 {
                    "missing.gb".into()
                } else {
                    "nop.gb".into()
                },
                ..row("mooneye", 0.02)
            })
            .collect();
        let (_artifacts, config) = config();
        let mut seen = 0;
        let results = run_rows(&rows, dir.path(), &config, 3, |_| seen += 1);
        assert_eq!(seen, 5);
        let names: Vec<&str> = results.iter().map(|r| r.test.as_str()).collect();
        assert_eq!(names, ["t0", "t1", "t2", "t3", "t4"]);
        assert!(results[2].reason.starts_with("cannot read ROM"));
    }
}
