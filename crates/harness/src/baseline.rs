//! `known_failures.txt`: the tests expected to fail. The list only shrinks on purpose: a
//! failure not on it fails the run, and so does a listed test that now passes.

use crate::run::TestResult;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `crates/harness/known_failures.txt`, where `cargo test` and `backspin test` look.
pub fn default_baseline_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("known_failures.txt")
}

/// The set of test names expected to fail.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    pub tests: BTreeSet<String>,
}

/// What a run says about the baseline.
#[derive(Clone, Debug, Default)]
pub struct BaselineCheck {
    /// Failed and not listed: regressions (or new tests).
    pub new_failures: Vec<String>,
    /// Listed but passed: remove them from the list.
    pub now_passing: Vec<String>,
    /// Failed and listed.
    pub known_failures: usize,
}

impl BaselineCheck {
    pub fn ok(&self) -> bool {
        self.new_failures.is_empty() && self.now_passing.is_empty()
    }
}

impl Baseline {
    /// One test name per line; `#` starts a comment line; surrounding blanks are ignored.
    /// (Test names may contain `#`, so only whole-line comments exist.)
    pub fn parse(text: &str) -> Baseline {
        let tests = text
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(str::to_string)
            .collect();
        Baseline { tests }
    }

    /// Reads the file; a missing file is an empty baseline (every failure is new).
    pub fn load(path: &Path) -> std::io::Result<Baseline> {
        match std::fs::read_to_string(path) {
            Ok(text) => Ok(Baseline::parse(&text)),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Baseline::default()),
            Err(error) => Err(error),
        }
    }

    pub fn contains(&self, test: &str) -> bool {
        self.tests.contains(test)
    }

    /// Judges a run. Listed tests that were not run (filtered out) are not judged.
    pub fn check(&self, results: &[TestResult]) -> BaselineCheck {
        let mut check = BaselineCheck::default();
        for result in results {
            match (result.passed, self.contains(&result.test)) {
                (false, true) => check.known_failures += 1,
                (false, false) => check.new_failures.push(result.test.clone()),
                (true, true) => check.now_passing.push(result.test.clone()),
                (true, false) => {}
            }
        }
        check
    }

    /// The baseline after `results`: tests that were run are listed iff they failed; listed
    /// tests that were not run stay listed.
    pub fn updated(&self, results: &[TestResult]) -> Baseline {
        let mut tests = self.tests.clone();
        for result in results {
            if result.passed {
                tests.remove(&result.test);
            } else {
                tests.insert(result.test.clone());
            }
        }
        Baseline { tests }
    }

    /// File text, sorted, with a header saying how to regenerate it.
    pub fn to_text(&self) -> String {
        let mut text = String::from(
            "# Test-ROM rows that are expected to fail (one manifest test name per line).\n\
             # A failure not listed here fails `cargo test`, and so does a listed test that\n\
             # passes. Regenerate after a real improvement with:\n\
             #   cargo run --release -p backspin -- test --write-baseline\n",
        );
        for test in &self.tests {
            text.push_str(test);
            text.push('\n');
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(test: &str, passed: bool) -> TestResult {
        TestResult {
            suite: "s".into(),
            test: test.into(),
            passed,
            reason: String::new(),
            frames: 0,
            m_cycles: 0,
            wall_seconds: 0.0,
            serial: String::new(),
            artifacts: Vec::new(),
        }
    }

    #[test]
    fn check_and_update() {
        let baseline = Baseline::parse("# header\n a \n\nb\nnot-run\n");
        assert_eq!(baseline.tests.len(), 3);
        let results = [
            result("a", false),
            result("b", true),
            result("c", false),
            result("d", true),
        ];
        let check = baseline.check(&results);
        assert_eq!(check.known_failures, 1);
        assert_eq!(check.new_failures, ["c"]);
        assert_eq!(check.now_passing, ["b"]);
        assert!(!check.ok());
        let updated = baseline.updated(&results);
        let names: Vec<&str> = updated.tests.iter().map(String::as_str).collect();
        assert_eq!(names, ["a", "c", "not-run"]);
        assert_eq!(Baseline::parse(&updated.to_text()), updated);
        assert!(updated.check(&results).ok());
    }

    #[test]
    fn missing_file_is_empty() {
        let baseline = Baseline::load(Path::new("/nonexistent/known_failures.txt")).unwrap();
        assert!(baseline.tests.is_empty());
    }
}
