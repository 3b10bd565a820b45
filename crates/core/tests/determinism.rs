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

/// A ROM of loops polling LY and STAT, whose skips run across changes of the value read
/// (`poll_loop`): waiting for LY >= 145, for LY == 10 (with a NOP: 9 M-cycles an
/// iteration), for LY == C or B (two compares, two ways out), for mode 0 (STAT), for
/// LY % 8 == 0 (`and 7`, which changes A). A delay that grows with a frame counter moves
/// the loops' phase against the lines from frame to frame; the VBlank and an LY=LYC STAT
/// interrupt (line 50) cut the quiet windows; the values the loops leave go to HRAM.
fn ly_polling_rom() -> Vec<u8> {
    let mut bytes = vec![0u8; 0x8000];
    bytes[0x134..0x13C].copy_from_slice(b"LYPOLLS!");
    let pieces: [(usize, &[u8]); 4] = [
        (0x40, &[0xD9]),              // VBlank: RETI
        (0x48, &[0xD9]),              // STAT: RETI
        (0x100, &[0xC3, 0x50, 0x01]), // JP $0150
        (
            0x150,
            &[
                0x3E, 0x40, 0xE0, 0x41, // LD A,$40; LDH [STAT],A: the LY=LYC source
                0x3E, 0x32, 0xE0, 0x45, // LD A,50; LDH [LYC],A
                0x3E, 0x03, 0xE0, 0xFF, // LD A,3; LDH [IE],A
                0xFB, 0x00, 0x00, 0x00, // EI
                // $0160: LDH A,[LY]; CP 145; JR C,$0160
                0xF0, 0x44, 0xFE, 0x91, 0x38, 0xFA, //
                // $0166: the frame counter at $FF80; B = 1 + its low 4 bits; DEC B until 0
                0xF0, 0x80, 0x3C, 0xE0, 0x80, 0xE6, 0x0F, 0x3C, 0x47, 0x05, 0x20, 0xFD, //
                // $0172: LDH A,[LY]; NOP; CP 10; JR NZ,$0172
                0xF0, 0x44, 0x00, 0xFE, 0x0A, 0x20, 0xF9, //
                0x0E, 0x28, 0x06, 0x64, // LD C,40; LD B,100
                // $017D: LDH A,[LY]; CP C; JR NZ,$0185; JP $0190; CP B; JR NZ,$017D
                0xF0, 0x44, 0xB9, 0x20, 0x03, 0xC3, 0x90, 0x01, 0xB8, 0x20, 0xF5, //
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, //
                // $0190: INC A; LDH [$FF81],A; LDH A,[STAT]; AND 3; JR NZ,$0193
                0x3C, 0xE0, 0x81, 0xF0, 0x41, 0xE6, 0x03, 0x20, 0xFA, //
                // $0199: LDH A,[LY]; AND 7; JR NZ,$0199
                0xF0, 0x44, 0xE6, 0x07, 0x20, 0xFA, //
                0xE0, 0x82, 0xC3, 0x60, 0x01, // LDH [$FF82],A; JP $0160
            ],
        ),
    ];
    for (address, code) in pieces {
        bytes[address..address + code.len()].copy_from_slice(code);
    }
    let mut checksum = 0u8;
    for &byte in &bytes[0x134..0x14D] {
        checksum = checksum.wrapping_sub(byte).wrapping_sub(1);
    }
    bytes[0x14D] = checksum;
    bytes
}

/// Polling loops skipped across LY changes leave the bytes that running them does.
#[test]
fn ly_polling_loops_skip_as_they_run() {
    check_halt_skipping(
        "LY polling loops",
        &ly_polling_rom(),
        Model::Dmg,
        0x5EED_0004,
    );
}
