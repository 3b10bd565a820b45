//! What the thinned-capture tests share: a core on the built-in ROM, settings storing every
//! `every`-th frame, and state comparison.

use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::Config;

pub fn core() -> Core {
    Core::new(
        Rom::from_bytes(backspin_test_support::builtin_rom()).unwrap(),
        Options::default(),
    )
}

pub fn config(every: u32) -> Config {
    Config {
        capture_every: every,
        ..Config::new(16 << 20)
    }
}

#[allow(dead_code)]
pub fn same(a: &State, b: &State) -> bool {
    a.as_bytes() == b.as_bytes()
}
