//! Test-ROM runner shared by `backspin test` and `cargo test`.
//!
//! A run reads `manifest.tsv` (see `shared/test-roms/README.md`), powers a fresh [`Core`] on
//! for each row, runs the row's emulated time and judges the outcome by the suite's own
//! protocol: Mooneye's `LD B,B` with Fibonacci registers, Blargg's serial text or `$A000`
//! status, or a screenshot compared with the expected PNG (taken at the test's `LD B,B` for
//! Mealybug Tearoom and AGE, whose authors define it as "the picture is final"; at the row's
//! full time otherwise). The known-failure baseline turns a
//! run into one yes/no answer: nothing new broke and nothing listed started passing.
//!
//! [`Core`]: backspin_core::Core

mod baseline;
mod image;
mod locate;
mod manifest;
mod report;
mod rom_zip;
mod run;

pub use baseline::{Baseline, BaselineCheck, default_baseline_path};
pub use image::{
    ScreenshotError, ScreenshotMismatch, compare_rgb_with_png, compare_with_png, decode_png_luma,
    encode_frame_png, encode_screen_png, screen_rgb,
};
pub use locate::{locate_test_roms, read_test_rom, workspace_root};
pub use manifest::{Judge, ManifestError, ManifestRow, load_manifest, parse_manifest};
pub use report::{to_json, to_junit_xml};
pub use rom_zip::{MAX_ROM_FILE_BYTES, unzip_rom};
pub use run::{
    INPUTS_FEATURE, RunConfig, TestResult, default_artifacts_dir, load_row_inputs, run_in_memory,
    run_in_memory_with_inputs, run_row, run_rows, sanitize_test_name,
};
