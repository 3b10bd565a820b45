//! Determinism: a copied `State` behaves identically forever, and OAM DMA cycles deferred
//! inside quiet windows leave the bytes ticking them does at every point a run can stop.
//! (Each speed trick against all of them, every frame, on every ROM: `tests/fast_paths`.)
//!
//! The copied-state test runs on the shared homebrew ROMs when present (skips with a
//! reason otherwise, fails under `BACKSPIN_REQUIRE_TEST_ROMS`).

use backspin_core::{Buttons, Core, FastPaths, Model, Options, Rom};
use backspin_test_support::{InputScript, or_skip};

/// Every M-cycle ticked and every instruction checked: the CPU-side tricks off.
const EAGER: FastPaths = FastPaths {
    defer_quiet_ticks: false,
    halt_skipping: false,
    poll_loop_skipping: false,
    plain_steps: false,
    ..FastPaths::ALL
};

/// The shared test ROM's bytes, or `None` after printing why the test skips.
fn shared_rom(relative: &str) -> Option<Vec<u8>> {
    or_skip(backspin_harness::read_test_rom(relative))
}

/// Our own ROM `roms-test/<name>`, assembled.
fn own_rom(name: &str) -> Vec<u8> {
    let path = backspin_harness::workspace_root()
        .join("roms-test")
        .join(name);
    backspin_asm::assemble_file(&path).unwrap_or_else(|e| panic!("{e}"))
}

fn power_on(bytes: &[u8]) -> Core {
    power_on_as(bytes, Model::Dmg)
}

fn power_on_as(bytes: &[u8], model: Model) -> Core {
    Core::new(
        Rom::from_bytes(bytes.to_vec()).expect("test ROM parses"),
        Options {
            model,
            ..Options::default()
        },
    )
}

const ROMS: [&str; 3] = [
    "homebrew/opus5.gb",
    "homebrew/pocket.gb",
    "homebrew/shocklobster.gb",
];

#[test]
fn copied_state_runs_identically_for_10000_frames() {
    for name in ROMS {
        let Some(bytes) = shared_rom(name) else {
            return;
        };
        let seed = 0x5EED_0001;
        println!("{name}: seed {seed:#x}");
        let mut script = InputScript::new(seed);
        let mut first = power_on(&bytes);
        for _ in 0..300 {
            first.set_buttons(Buttons(script.next_frame()));
            first.run_frame();
        }
        let mut second = power_on(&bytes);
        second.load_state(first.state());
        for frame in 0..10_000 {
            let buttons = Buttons(script.next_frame());
            first.set_buttons(buttons);
            second.set_buttons(buttons);
            first.run_frame();
            second.run_frame();
            assert!(
                first.state().as_bytes() == second.state().as_bytes(),
                "{name}: states diverged at frame {frame}"
            );
            assert!(
                first.frame() == second.frame(),
                "{name}: frames diverged at frame {frame}"
            );
        }
    }
}

/// OAM DMA cycles deferred inside quiet windows leave the bytes ticking them does, at
/// every point a run can stop (the CPU's view: runs end at pseudo-random instruction
/// boundaries, a few hundred M-cycles apart), on a DMG and on a CGB in compatibility mode
/// (where work RAM has a bus of its own).
#[test]
fn oam_dma_deferred_as_ticked() {
    let bytes = own_rom("oam_dma.asm");
    for model in [Model::Dmg, Model::Cgb] {
        let mut eager = power_on_as(&bytes, model);
        eager.set_fast_paths(EAGER);
        let mut deferring = power_on_as(&bytes, model);
        let mut seed = 0x5EED_0005u32;
        let mut transfers_seen = 0;
        let end = 120 * 17_556;
        while deferring.m_cycles() < end {
            // xorshift32: chunks of 1..=512 M-cycles.
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            let target = deferring.m_cycles() + u64::from(seed % 512) + 1;
            eager.run_until(target);
            deferring.run_until(target);
            assert!(
                eager.state().as_bytes() == deferring.state().as_bytes(),
                "{model:?}: deferral changed the state at M-cycle {}",
                eager.m_cycles()
            );
            transfers_seen += u32::from(deferring.state().hw.dma.active);
        }
        // One transfer a round; a run boundary falls in one about every other round.
        let rounds = deferring.state().hw.hram[0x70];
        assert!(
            rounds >= 60 && transfers_seen >= 20,
            "{model:?}: the ROM ran {rounds} rounds, stopping in {transfers_seen} transfers"
        );
    }
}
