//! `backspin test`: the test-ROM manifest in parallel, judged against the known failures.

use crate::error::CliError;
use crate::{CliResult, ModelArg};
use backspin_harness::{
    Baseline, RunConfig, TestResult, default_baseline_path, load_manifest, locate_test_roms,
    run_rows, to_json, to_junit_xml,
};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct TestArgs {
    /// The manifest [default: manifest.tsv in $GB_TEST_ROMS or ../shared/test-roms].
    #[arg(long, value_name = "PATH")]
    pub manifest: Option<PathBuf>,
    /// Only tests whose name contains this text.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    /// Worker threads [default: the number of CPUs].
    #[arg(long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Write a JSON report here.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "PATH")]
    pub junit: Option<PathBuf>,
    /// Known-failures file [default: crates/harness/known_failures.txt].
    #[arg(long, value_name = "PATH")]
    pub baseline: Option<PathBuf>,
    /// Rewrite the known-failures file from this run instead of checking against it.
    #[arg(long)]
    pub write_baseline: bool,
    /// Run every row on this model instead of the manifest's (`auto`: the model column).
    #[arg(long, value_enum, default_value_t)]
    pub model: ModelArg,
}

pub fn run(args: &TestArgs) -> CliResult {
    let manifest_path = match &args.manifest {
        Some(path) => path.clone(),
        None => locate_test_roms()
            .map_err(CliError::without_path)?
            .join("manifest.tsv"),
    };
    if manifest_path.is_dir() {
        return Err(CliError::new("manifest is a directory", &manifest_path));
    }
    let rows = load_manifest(&manifest_path)
        .map_err(|error| CliError::new(error.to_string(), &manifest_path))?;
    let roms_dir = manifest_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let forced_model = match args.model {
        ModelArg::Auto => None,
        ModelArg::Dmg => Some("DMG"),
        ModelArg::Cgb => Some("CGB"),
    };
    let rows: Vec<_> = rows
        .into_iter()
        .filter(|row| {
            args.filter
                .as_ref()
                .is_none_or(|text| row.test.contains(text))
        })
        .map(|mut row| {
            if let Some(model) = forced_model {
                row.model = model.to_string();
            }
            row
        })
        .collect();
    let baseline_path = args.baseline.clone().unwrap_or_else(default_baseline_path);
    let baseline = Baseline::load(&baseline_path)
        .map_err(|e| CliError::io("cannot read baseline", &e, &baseline_path))?;

    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let results = run_with_progress(&rows, &roms_dir, jobs);

    for result in results.iter().filter(|r| !r.passed) {
        let known = if baseline.contains(&result.test) {
            " [known]"
        } else {
            ""
        };
        println!("FAIL{known} {}: {}", result.test, result.reason);
    }
    if let Some(path) = &args.json {
        std::fs::write(path, to_json(&results))
            .map_err(|e| CliError::io("cannot write JSON report", &e, path))?;
    }
    if let Some(path) = &args.junit {
        std::fs::write(path, to_junit_xml(&results))
            .map_err(|e| CliError::io("cannot write JUnit report", &e, path))?;
    }

    let passed = results.iter().filter(|r| r.passed).count();
    let failed = results.len() - passed;
    let mut ok = true;
    if args.write_baseline {
        let updated = baseline.updated(&results);
        crate::battery::write_atomic(&baseline_path, updated.to_text().as_bytes())
            .map_err(|e| CliError::io("cannot write baseline", &e, &baseline_path))?;
        println!(
            "wrote {} ({} known failures)",
            baseline_path.display(),
            updated.tests.len()
        );
    } else {
        let check = baseline.check(&results);
        for test in &check.new_failures {
            println!("new failure, not in known_failures.txt: {test}");
        }
        for test in &check.now_passing {
            println!("now passes, remove it from known_failures.txt: {test}");
        }
        ok = check.ok();
        println!(
            "baseline {}: {} known failures, {} new failures, {} now passing",
            if ok { "ok" } else { "FAILED" },
            check.known_failures,
            check.new_failures.len(),
            check.now_passing.len()
        );
    }
    println!("{passed} passed, {failed} failed");
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Runs the rows; a progress bar on stderr only when stderr is a terminal.
fn run_with_progress(
    rows: &[backspin_harness::ManifestRow],
    roms_dir: &Path,
    jobs: usize,
) -> Vec<TestResult> {
    let config = RunConfig::default();
    if !std::io::stderr().is_terminal() {
        return run_rows(rows, roms_dir, &config, jobs, |_| {});
    }
    let bar = indicatif::ProgressBar::new(rows.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} {msg}")
            .expect("the template is valid"),
    );
    let mut failed = 0;
    let results = run_rows(rows, roms_dir, &config, jobs, |result| {
        failed += usize::from(!result.passed);
        bar.set_message(format!("{failed} failed"));
        bar.inc(1);
    });
    bar.finish_and_clear();
    results
}
