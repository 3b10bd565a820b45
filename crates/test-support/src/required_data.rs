//! One decision for every test that needs data outside the repository (the shared test
//! ROMs, the SM83 CPU cases, the BESS fixtures, peer emulators): skip with a printed reason
//! on a fresh clone, fail with the same reason where the data must be there (CI).

/// The environment variable that turns a skip for missing data into a failure: set it to
/// `1` where `../shared` is expected (`.ci/run` does).
pub const REQUIRE_DATA_VAR: &str = "BACKSPIN_REQUIRE_TEST_ROMS";

/// Whether missing test data is a failure here: [`REQUIRE_DATA_VAR`] is set to something
/// other than empty or `0`.
pub fn test_data_required() -> bool {
    std::env::var_os(REQUIRE_DATA_VAR).is_some_and(|value| !value.is_empty() && value != "0")
}

/// Reports that data a test needs is missing: prints `skipped: <reason>` and returns (the
/// caller then returns too), or panics with the reason when [`test_data_required`].
#[track_caller]
pub fn skip_or_fail(reason: impl std::fmt::Display) {
    if test_data_required() {
        panic!("required test data missing ({REQUIRE_DATA_VAR} is set): {reason}");
    }
    println!("skipped: {reason}");
}

/// `Ok` passes through; `Err(reason)` goes to [`skip_or_fail`] and becomes `None`, so a
/// test can write `let Some(bytes) = or_skip(read_test_rom(name)) else { return };`.
#[track_caller]
pub fn or_skip<T, E: std::fmt::Display>(result: Result<T, E>) -> Option<T> {
    match result {
        Ok(value) => Some(value),
        Err(reason) => {
            skip_or_fail(reason);
            None
        }
    }
}
