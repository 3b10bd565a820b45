//! What Backspin's tests and benchmarks share: one seeded random generator, one
//! human-like joypad script, one flat 64 KiB bus for the CPU and one rule for tests whose
//! data is missing. Each lives here once so that a seed means the same sequence in every
//! crate and a missing ROM is skipped (or fails, in CI) the same way everywhere.
//!
//! Tests use this crate as a dev-dependency. The one exception is `backspin-rewind`, whose
//! `bench` module (the workload behind `backspin rewind-bench`) plays the same joypad script
//! the tests do, so that the bench measures what the tests check.

mod flat_bus;
mod input_script;
mod required_data;
mod split_mix;

pub use flat_bus::{Cycle, FlatBus};
pub use input_script::InputScript;
pub use required_data::{REQUIRE_DATA_VAR, or_skip, skip_or_fail, test_data_required};
pub use split_mix::SplitMix64;
