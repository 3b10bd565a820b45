//! Determinism: a copied `State` behaves identically forever, and skipping idle HALT time
//! (and deferring quiet M-cycles, both switched by `set_halt_skipping`) gives the same bytes
//! as ticking through it.
//!
//! Runs on the shared homebrew ROMs when present (skips with a reason otherwise); our own
//! ROMs built from source join once they exist.

use backspin_core::{Buttons, Core, Model, Options, Rom};
use backspin_test_support::InputScript;

/// The shared test ROM's bytes, or `None` after printing why the test skips.
fn shared_rom(relative: &str) -> Option<Vec<u8>> {
    backspin_harness::read_test_rom(relative)
        .map_err(|reason| println!("skipped: {reason}"))
        .ok()
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

/// Runs `bytes` on `model` twice, ticking every cycle and skipping idle HALT cycles, with the
/// same seeded input, and checks state and picture (shades and colour) after every frame.
fn check_halt_skipping(name: &str, bytes: &[u8], model: Model, seed: u64) {
    let mut script = InputScript::new(seed);
    let mut eager = power_on_as(bytes, model);
    eager.set_halt_skipping(false);
    let mut skipping = power_on_as(bytes, model);
    for frame in 0..1_500 {
        let buttons = Buttons(script.next_frame());
        eager.set_buttons(buttons);
        skipping.set_buttons(buttons);
        eager.run_frame();
        skipping.run_frame();
        assert!(
            eager.state().as_bytes() == skipping.state().as_bytes(),
            "{name} ({model:?}): HALT skipping changed the state at frame {frame}"
        );
        assert!(
            eager.frame() == skipping.frame() && eager.frame_rgb() == skipping.frame_rgb(),
            "{name} ({model:?}): frames differ at frame {frame}"
        );
    }
}

#[test]
fn halt_skipping_matches_ticking_every_cycle() {
    for name in ROMS
        .iter()
        .chain(&["homebrew/gejmboj.gb", "blargg/cpu_instrs/cpu_instrs.gb"])
    {
        let Some(bytes) = shared_rom(name) else {
            return;
        };
        check_halt_skipping(name, &bytes, Model::Dmg, 0x5EED_0002);
    }
}

/// The same on a CGB: colour rendering, double speed (µCity runs at double speed), VRAM
/// DMA and a DMG cartridge in compatibility mode.
#[test]
fn halt_skipping_matches_ticking_every_cycle_on_a_cgb() {
    for name in [
        "homebrew-cgb/ucity/ucity.gbc",
        "homebrew/gb8.gb",
        "acid/cgb-acid2.gbc",
        "homebrew/opus5.gb",
        // Dozens of speed switches, each with its HALT (which HALT skipping must end on time).
        "age/speed-switch/spsw-tima-cgbE.gb",
    ] {
        let Some(bytes) = shared_rom(name) else {
            return;
        };
        check_halt_skipping(name, &bytes, Model::Cgb, 0x5EED_0003);
    }
}
