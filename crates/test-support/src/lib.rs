//! What Backspin's tests and benchmarks share: one seeded random generator, one
//! human-like joypad script, one flat 64 KiB bus for the CPU, one tiny cartridge and one
//! rule for tests whose data is missing. Each lives in one place so that a seed means the
//! same sequence in every crate and a missing ROM is skipped (or fails, in CI) the same way
//! everywhere.
//!
//! Crates use this one only as a dev-dependency. The joypad script and its generator are
//! `backspin-movie`'s (it records movies from them, and the rewind bench plays them), re-exported
//! here for the tests.

mod flat_bus;
mod required_data;
mod sweep_rom;

pub use backspin_movie::{InputScript, SplitMix64};
pub use flat_bus::{Cycle, FlatBus};
pub use required_data::{REQUIRE_DATA_VAR, or_skip, skip_or_fail, test_data_required};
pub use sweep_rom::builtin_rom;
