//! Determinism: a copied `State` behaves identically forever, and skipping idle HALT time
//! (and deferring quiet M-cycles, both switched by `FastPaths`) gives the same bytes
//! as ticking through it.
//!
//! Runs on the shared homebrew ROMs when present (skips with a reason otherwise); our own
//! ROMs built from source join once they exist.

use backspin_core::{Buttons, Core, FastPaths, Model, Options, Rom};
use backspin_test_support::InputScript;

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
    eager.set_fast_paths(EAGER);
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

/// A 32 KiB ROM with `title` in its header, `pieces` of code at their addresses and a
/// valid header checksum.
fn assemble_rom(title: &[u8; 8], pieces: &[(usize, &[u8])]) -> Vec<u8> {
    let mut bytes = vec![0u8; 0x8000];
    bytes[0x134..0x13C].copy_from_slice(title);
    for &(address, code) in pieces {
        bytes[address..address + code.len()].copy_from_slice(code);
    }
    let mut checksum = 0u8;
    for &byte in &bytes[0x134..0x14D] {
        checksum = checksum.wrapping_sub(byte).wrapping_sub(1);
    }
    bytes[0x14D] = checksum;
    bytes
}

/// A ROM of loops polling LY and STAT, whose skips run across changes of the value read
/// (`poll_loop`): waiting for LY >= 145, for LY == 10 (with a NOP: 9 M-cycles an
/// iteration), for LY == C or B (two compares, two ways out), for mode 0 (STAT), for
/// LY % 8 == 0 (`and 7`, which changes A). A delay that grows with a frame counter moves
/// the loops' phase against the lines from frame to frame; the VBlank and an LY=LYC STAT
/// interrupt (line 50) cut the quiet windows; the values the loops leave go to HRAM.
fn ly_polling_rom() -> Vec<u8> {
    let title = b"LYPOLLS!";
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
    assemble_rom(title, &pieces)
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

/// A ROM of OAM DMAs started at a phase that moves across the frame from one frame to the
/// next (VBlank, HBlank, the OAM scan, mode 3, line 153, the LCD off two frames in 16), from
/// work RAM, VRAM and ROM (banks 0 and 1), with objects on, each from one of four routines
/// in HRAM: the usual wait; reads of work RAM and OAM halfway (blocked, they see the byte
/// the DMA copies); a restart while running; a HALT (IME off, woken by VBlank) over the
/// transfer. The bytes copied change every frame.
fn oam_dma_rom() -> Vec<u8> {
    let title = b"OAMDMA!!";
    let pieces: [(usize, &[u8]); 5] = [
        (0x100, &[0xC3, 0x50, 0x01]), // JP $0150
        (
            0x150,
            &[
                0xF3, 0x31, 0xF0, 0xDF, // DI; LD SP,$DFF0
                // The routines at $0300 to $FF80..=$FFBF: LD HL,$0300; LD C,$80; then
                // LD A,[HL+]; LDH [C],A; INC C; LD A,C; CP $C0; JR NZ,@-8
                0x21, 0x00, 0x03, 0x0E, 0x80, 0x2A, 0xE2, 0x0C, 0x79, 0xFE, 0xC0, 0x20, 0xF8, 0x3E,
                0x93, 0xE0, 0x40, // LD A,$93; LDH [LCDC],A: objects on
                0x3E, 0x01, 0xE0, 0xFF, // LD A,1; LDH [IE],A: VBlank (never dispatched)
                // $0169: the frame counter at $FFF0; $C000..=$C09F from it (LD [HL+],A;
                // ADD A,7; DEC B; JR NZ)
                0xF0, 0xF0, 0x3C, 0xE0, 0xF0, 0x21, 0x00, 0xC0, 0x06, 0xA0, //
                0x22, 0xC6, 0x07, 0x05, 0x20, 0xFA, //
                0xF0, 0x44, 0xFE, 0x90, 0x20, 0xFA, // wait for LY = 144
                // BC = (counter & 7) << 8 | counter | 1; DEC BC until 0 (7 M-cycles each)
                0xF0, 0xF0, 0xF6, 0x01, 0x4F, 0xE6, 0x07, 0x47, 0x0B, 0x78, 0xB1, 0x20, 0xFB,
                // counter & 13 = 4 (routines 0 and 2, not the HALT): LCD off
                0xF0, 0xF0, 0xE6, 0x0D, 0xFE, 0x04, 0x20, 0x04, 0x3E, 0x13, 0xE0, 0x40,
                // D = the source, from the table at $0200 by (counter >> 2) & 3
                0xF0, 0xF0, 0xCB, 0x3F, 0xCB, 0x3F, 0xE6, 0x03, 0x5F, 0x16, 0x02, 0x1A, 0x57,
                // HL = the routine, from the table at $0210 by counter & 3; A = D
                0xF0, 0xF0, 0xE6, 0x03, 0xC6, 0x10, 0x6F, 0x26, 0x02, 0x6E, 0x26, 0xFF, 0x7A, 0x01,
                0xB7, 0x01, 0xC5, 0xE9, // LD BC,$01B7; PUSH BC; JP HL
                // $01B7: LCD on; JP $0169
                0x3E, 0x93, 0xE0, 0x40, 0xC3, 0x69, 0x01,
            ],
        ),
        (0x200, &[0xC0, 0x80, 0x40, 0x00]),
        (0x210, &[0x80, 0x88, 0xA0, 0xB8]),
        (
            0x300,
            &[
                // $FF80: LDH [DMA],A; LD A,42; DEC A; JR NZ,@-3; RET
                0xE0, 0x46, 0x3E, 0x2A, 0x3D, 0x20, 0xFD, 0xC9, //
                // $FF88: the same with LD A,[$C020]; LDH [$FFF1],A; LD A,[$FE05];
                // LDH [$FFF2],A after 12 rounds
                0xE0, 0x46, 0x3E, 0x0C, 0x3D, 0x20, 0xFD, //
                0xFA, 0x20, 0xC0, 0xE0, 0xF1, 0xFA, 0x05, 0xFE, 0xE0, 0xF2, //
                0x3E, 0x1E, 0x3D, 0x20, 0xFD, 0xC9, 0x00, //
                // $FFA0: a restart from $C100 after 16 rounds
                0xE0, 0x46, 0x3E, 0x10, 0x3D, 0x20, 0xFD, //
                0x3E, 0xC1, 0xE0, 0x46, 0x3E, 0x2A, 0x3D, 0x20, 0xFD, 0xC9, //
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, //
                // $FFB8: LDH [DMA],A; XOR A; LDH [IF],A; HALT; NOP; RET
                0xE0, 0x46, 0xAF, 0xE0, 0x0F, 0x76, 0x00, 0xC9,
            ],
        ),
    ];
    assemble_rom(title, &pieces)
}

/// OAM DMA cycles deferred inside quiet windows leave the bytes ticking them does, at
/// every point a run can stop (the CPU's view: runs end at pseudo-random instruction
/// boundaries, a few hundred M-cycles apart), on a DMG and on a CGB in compatibility mode
/// (where work RAM has a bus of its own).
#[test]
fn oam_dma_deferred_as_ticked() {
    let bytes = oam_dma_rom();
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
