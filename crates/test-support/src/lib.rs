//! What Backspin's tests and benchmarks share: one seeded random generator, one
//! human-like joypad script and one flat 64 KiB bus for the CPU. Each lives here once so
//! that a seed means the same sequence in every crate.
//!
//! Tests use this crate as a dev-dependency. The one exception is `backspin-rewind`, whose
//! `bench` module (the workload behind `backspin rewind-bench`) plays the same joypad script
//! the tests do, so that the bench measures what the tests check.

mod flat_bus;
mod input_script;
mod split_mix;

pub use flat_bus::{Cycle, FlatBus};
pub use input_script::InputScript;
pub use split_mix::SplitMix64;
