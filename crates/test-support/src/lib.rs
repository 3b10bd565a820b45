//! What Backspin's tests and benchmarks share: one seeded random generator, one
//! human-like joypad script, one flat 64 KiB bus for the CPU and one tiny cartridge. Each
//! lives in one place so that a seed means the same sequence in every crate.
//!
//! Crates use this one only as a dev-dependency. The joypad script and its generator are
//! `backspin-movie`'s (it records movies from them, and the rewind bench plays them), re-exported
//! here for the tests.

mod flat_bus;
mod sweep_rom;

pub use backspin_movie::{InputScript, SplitMix64};
pub use flat_bus::{Cycle, FlatBus};
pub use sweep_rom::builtin_rom;
