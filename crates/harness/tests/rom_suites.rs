//! One named trial per manifest row, judged against `known_failures.txt`: a failure not
//! listed fails, and so does a listed test that passes. Without the external test ROMs a
//! single trial prints why and passes, so a fresh clone stays green.

use backspin_harness::{
    Baseline, RunConfig, default_baseline_path, load_manifest, locate_test_roms, run_row,
};
use libtest_mimic::{Arguments, Failed, Trial};
use std::sync::Arc;

fn main() {
    let arguments = Arguments::from_args();
    let trials = match locate_test_roms() {
        Ok(dir) => trials(dir),
        Err(reason) => vec![skipped(reason)],
    };
    libtest_mimic::run(&arguments, trials).exit();
}

fn skipped(reason: String) -> Trial {
    Trial::test("rom_suites", move || {
        println!("skipped: {reason}");
        Ok(())
    })
}

fn trials(dir: std::path::PathBuf) -> Vec<Trial> {
    let manifest_path = dir.join("manifest.tsv");
    let rows = match load_manifest(&manifest_path) {
        Ok(rows) => rows,
        Err(error) => {
            let message = format!("{} ({})", error, manifest_path.display());
            return vec![Trial::test("rom_suites::manifest", move || {
                Err(message.into())
            })];
        }
    };
    let baseline_path = default_baseline_path();
    let baseline = match Baseline::load(&baseline_path) {
        Ok(baseline) => Arc::new(baseline),
        Err(error) => {
            let message = format!("cannot read {}: {error}", baseline_path.display());
            return vec![Trial::test("rom_suites::baseline", move || {
                Err(message.into())
            })];
        }
    };
    let dir = Arc::new(dir);
    let config = Arc::new(RunConfig::default());
    rows.into_iter()
        .map(|row| {
            let (dir, config, baseline) = (dir.clone(), config.clone(), baseline.clone());
            let (name, kind) = (row.test.clone(), row.suite.clone());
            Trial::test(name, move || {
                let result = run_row(&row, &dir, &config);
                match (result.passed, baseline.contains(&row.test)) {
                    (true, false) | (false, true) => Ok(()),
                    (false, false) => Err(Failed::from(format!(
                        "{} (not in known_failures.txt)",
                        result.reason
                    ))),
                    (true, true) => Err(Failed::from(format!(
                        "now passes ({}): remove it from known_failures.txt",
                        result.reason
                    ))),
                }
            })
            .with_kind(kind)
        })
        .collect()
}
