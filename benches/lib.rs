//! Shared helpers for the criterion benchmarks in this folder (`cargo bench -p
//! backspin-benches`).
//!
//! Benchmarks run on a shared homebrew ROM when `GB_TEST_ROMS` (or `../shared/test-roms`
//! beside the workspace) has it, and otherwise on test-support's built-in ROM, so they
//! always have something to measure.

use backspin_core::run_one_frame;
use backspin_core::{Buttons, Core, Options, Rom};
use backspin_rewind::{Rewinder, Timeline};
use backspin_test_support::{InputScript, builtin_rom};
use std::path::PathBuf;

/// (name, bytes) of the ROM to measure: `homebrew/<name>` if available, else the built-in one.
pub fn bench_rom(name: &str) -> (String, Vec<u8>) {
    let dir = std::env::var_os("GB_TEST_ROMS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/test-roms")
        });
    match std::fs::read(dir.join("homebrew").join(name)) {
        Ok(bytes) => (name.to_string(), bytes),
        Err(_) => {
            eprintln!(
                "{name} not found under {}: using the built-in ROM",
                dir.display()
            );
            ("builtin".to_string(), builtin_rom())
        }
    }
}

pub fn power_on(rom: &[u8]) -> Core {
    Core::new(
        Rom::from_bytes(rom.to_vec()).expect("ROM loads"),
        Options::default(),
    )
}

/// Plays `frames` frames with the seeded human-like script on a bare [`Rewinder`], logging
/// each frame's buttons and offering every frame to the capture (what `Timeline::run_frame`
/// does, with the capture left callable on its own).
pub fn play_with_rewind(core: &mut Core, rewinder: &mut Rewinder, frames: u64, seed: u64) {
    let mut script = InputScript::new(seed);
    let first = core.state().hw.frames;
    rewinder.capture(core.state(), first);
    for _ in 0..frames {
        let buttons = script.next_frame();
        rewinder.record_input(core.m_cycles(), buttons);
        core.set_buttons(Buttons(buttons));
        run_one_frame(core);
        let frame = core.state().hw.frames;
        rewinder.capture(core.state(), frame);
    }
}

/// Plays `frames` frames with the seeded human-like script on a [`Timeline`], the path the
/// player runs.
pub fn play_timeline(timeline: &mut Timeline, frames: u64, seed: u64) {
    let mut script = InputScript::new(seed);
    for _ in 0..frames {
        timeline.set_buttons(script.next_frame());
        timeline.run_frame();
    }
}
