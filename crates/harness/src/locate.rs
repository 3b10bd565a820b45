//! Where the external test ROMs live: never inside the repository.

use std::path::{Path, PathBuf};

/// The workspace root this crate was built in (`crates/harness/../..`).
pub fn workspace_root() -> PathBuf {
    normalize(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// Finds the test-ROM folder: `$GB_TEST_ROMS`, else `<workspace>/../shared/test-roms`, else
/// `./../shared/test-roms` from the current directory. `Err` says what was tried, so a
/// test can hand it to `backspin_test_support::skip_or_fail`: skipped with that reason on
/// a fresh clone, a failure under `BACKSPIN_REQUIRE_TEST_ROMS=1` (CI).
pub fn locate_test_roms() -> Result<PathBuf, String> {
    if let Some(value) = std::env::var_os("GB_TEST_ROMS") {
        let path = PathBuf::from(value);
        // An explicit setting that points nowhere is a mistake worth reporting, not a
        // reason to silently test something else.
        return if path.is_dir() {
            Ok(path)
        } else {
            Err(format!(
                "GB_TEST_ROMS={} is not a directory",
                path.display()
            ))
        };
    }
    let candidates = [
        workspace_root().join("../shared/test-roms"),
        PathBuf::from("../shared/test-roms"),
    ];
    for candidate in &candidates {
        if candidate.is_dir() {
            return Ok(normalize(candidate));
        }
    }
    Err(format!(
        "test ROMs not found: set GB_TEST_ROMS or put them at {} or {}",
        candidates[0].display(),
        candidates[1].display()
    ))
}

/// The bytes of `relative` (e.g. `homebrew/opus5.gb`) under [`locate_test_roms`]. `Err` says
/// why not (no folder, or the file unreadable): a test's reason to skip, or to fail where
/// the data is required (`backspin_test_support::or_skip`).
pub fn read_test_rom(relative: &str) -> Result<Vec<u8>, String> {
    let path = locate_test_roms()?.join(relative);
    std::fs::read(&path).map_err(|error| format!("{} not readable ({error})", path.display()))
}

/// Canonical form when possible (shorter paths in messages), the path itself otherwise.
fn normalize(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}
