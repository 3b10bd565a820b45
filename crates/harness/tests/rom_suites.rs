//! One named trial per manifest row, judged against `known_failures.txt`: a failure not
//! listed fails, and so does a listed test that passes. Without the external test ROMs a
//! single trial prints why and passes, so a fresh clone stays green.
//!
//! The extra CGB material (`extra-manifest.tsv`, AGE and cgb-acid-hell) runs the same way
//! against its own `known_failures_extra.txt`; a `shared/` without it skips those rows.
//!
//! Our own ROMs (`roms-test/`, assembled from source here) run through the same runner on
//! every machine and must all pass: they have no baseline.

use backspin_harness::{
    Baseline, ManifestRow, RunConfig, default_baseline_path, load_manifest, load_row_inputs,
    locate_test_roms, run_in_memory_with_inputs, run_row, workspace_root,
};
use libtest_mimic::{Arguments, Failed, Trial};
use std::sync::Arc;

fn main() {
    let arguments = Arguments::from_args();
    let mut trials = match locate_test_roms() {
        Ok(dir) => {
            let mut trials = trials(&dir, "manifest.tsv", default_baseline_path());
            if dir.join(EXTRA_MANIFEST).is_file() {
                trials.extend(self::trials(&dir, EXTRA_MANIFEST, extra_baseline_path()));
            } else {
                trials.push(skipped(
                    "rom_suites::extra",
                    format!("no {EXTRA_MANIFEST} in {}", dir.display()),
                ));
            }
            trials.extend(unlisted_cgb_trials(&dir));
            trials
        }
        Err(reason) => vec![skipped("rom_suites", reason)],
    };
    trials.extend(own_trials());
    libtest_mimic::run(&arguments, trials).exit();
}

/// The rows of `roms-test/manifest.tsv`, each ROM assembled from its source first.
fn own_trials() -> Vec<Trial> {
    let dir = workspace_root().join("roms-test");
    let manifest_path = dir.join("manifest.tsv");
    let rows = match load_manifest(&manifest_path) {
        Ok(rows) => rows,
        Err(error) => {
            let message = format!("{} ({})", error, manifest_path.display());
            return vec![Trial::test("roms-test::manifest", move || {
                Err(message.into())
            })];
        }
    };
    let dir = Arc::new(dir);
    let config = Arc::new(RunConfig::default());
    rows.into_iter()
        .map(|row| {
            let (dir, config) = (dir.clone(), config.clone());
            let kind = row.suite.clone();
            Trial::test(row.test.clone(), move || {
                let rom = backspin_asm::assemble_file(dir.join(&row.rom))
                    .map_err(|error| Failed::from(error.to_string()))?;
                let expected = match &row.expected {
                    Some(png) => Some(
                        std::fs::read(dir.join(png))
                            .map_err(|error| Failed::from(format!("cannot read {png}: {error}")))?,
                    ),
                    None => None,
                };
                let inputs = load_row_inputs(&row, &dir).map_err(Failed::from)?;
                let result = run_in_memory_with_inputs(
                    &row,
                    rom,
                    expected.as_deref(),
                    inputs.as_ref(),
                    &config,
                );
                if result.passed {
                    Ok(())
                } else {
                    Err(Failed::from(result.reason))
                }
            })
            .with_kind(kind)
        })
        .collect()
}

/// Mooneye's CGB ROMs that neither manifest lists, named here: run on a
/// CGB, in compatibility mode as their headers ask; each must pass (no baseline).
const UNLISTED_CGB_MOONEYE: [&str; 3] = [
    "mooneye/misc/bits/unused_hwio-C.gb",
    "mooneye/misc/ppu/vblank_stat_intr-C.gb",
    "mooneye/misc/boot_hwio-C.gb",
];

fn unlisted_cgb_trials(dir: &std::path::Path) -> Vec<Trial> {
    let config = Arc::new(RunConfig::default());
    UNLISTED_CGB_MOONEYE
        .iter()
        .map(|rom| {
            let name = format!("{rom} (CGB, unlisted)");
            let path = dir.join(rom);
            if !path.is_file() {
                return skipped(&name, format!("{} is missing", path.display()));
            }
            let row = ManifestRow {
                suite: "mooneye".into(),
                test: name.clone(),
                rom: (*rom).into(),
                model: "CGB".into(),
                seconds: 6.5,
                expected: None,
                features: Vec::new(),
            };
            let (dir, config) = (dir.to_path_buf(), config.clone());
            Trial::test(name, move || {
                let result = run_row(&row, &dir, &config);
                if result.passed {
                    Ok(())
                } else {
                    Err(Failed::from(result.reason))
                }
            })
            .with_kind("mooneye")
        })
        .collect()
}

/// The extra CGB rows: not part of `manifest.tsv`, judged against their own baseline.
const EXTRA_MANIFEST: &str = "extra-manifest.tsv";

/// `crates/harness/known_failures_extra.txt`, beside `known_failures.txt`.
fn extra_baseline_path() -> std::path::PathBuf {
    default_baseline_path().with_file_name("known_failures_extra.txt")
}

fn skipped(name: &str, reason: String) -> Trial {
    // Decided when the trial runs, so that a filtered-out trial never fails.
    Trial::test(name, move || {
        backspin_test_support::skip_or_fail(reason);
        Ok(())
    })
}

fn trials(dir: &std::path::Path, manifest: &str, baseline_path: std::path::PathBuf) -> Vec<Trial> {
    let manifest_path = dir.join(manifest);
    let rows = match load_manifest(&manifest_path) {
        Ok(rows) => rows,
        Err(error) => {
            let message = format!("{} ({})", error, manifest_path.display());
            return vec![Trial::test("rom_suites::manifest", move || {
                Err(message.into())
            })];
        }
    };
    let baseline_file = baseline_path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    let baseline = match Baseline::load(&baseline_path) {
        Ok(baseline) => Arc::new(baseline),
        Err(error) => {
            let message = format!("cannot read {}: {error}", baseline_path.display());
            return vec![Trial::test("rom_suites::baseline", move || {
                Err(message.into())
            })];
        }
    };
    let dir = Arc::new(dir.to_path_buf());
    let config = Arc::new(RunConfig::default());
    let baseline_file = Arc::new(baseline_file);
    rows.into_iter()
        .map(|row| {
            let (dir, config, baseline) = (dir.clone(), config.clone(), baseline.clone());
            let baseline_file = baseline_file.clone();
            let (name, kind) = (row.test.clone(), row.suite.clone());
            Trial::test(name, move || {
                let result = run_row(&row, &dir, &config);
                match (result.passed, baseline.contains(&row.test)) {
                    (true, false) | (false, true) => Ok(()),
                    (false, false) => Err(Failed::from(format!(
                        "{} (not in {baseline_file})",
                        result.reason
                    ))),
                    (true, true) => Err(Failed::from(format!(
                        "now passes ({}): remove it from {baseline_file}",
                        result.reason
                    ))),
                }
            })
            .with_kind(kind)
        })
        .collect()
}
