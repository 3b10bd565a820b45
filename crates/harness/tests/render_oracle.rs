//! The PPU's host options never change emulation (GameRoy's way of checking a speed trick):
//! with seeded input, after every frame,
//! - the fast path (lazy mode 3, `FastPaths::lazy_mode3`) and plain stepping give the same
//!   `State` bytes and the same picture (shades and colour);
//! - a core that draws only one frame in `DRAW_EVERY` (`Core::set_drawing`) has the same
//!   `State` bytes as one drawing every frame, and each frame it draws (that ends with the
//!   LCD on) is the same picture;
//! - a core that synthesizes no sound (`FastPaths::audio_synthesis`) has the same `State` bytes
//!   but the synthesizer's, which it leaves as they were at power-on.
//!
//! On our own ROMs (`roms-test/*.asm`, the demo), on a DMG and on a CGB, and on every
//! homebrew ROM under `../shared/test-roms/homebrew*` and the acid tests (skipped with a
//! printed reason when absent): on a DMG, and on a CGB too when the header asks for one
//! (µCity, gb8, cgb-acid2, cgb-acid-hell) or for the compatibility-mode check (opus5,
//! dmg-acid2).
//!
//! `cargo test` runs `DEFAULT_FRAMES` frames of each; the full check is 3,000 frames:
//! `cargo test --release -p backspin-harness --test render_oracle -- --ignored`.

use backspin_core::{Buttons, Core, Events, FastPaths, Model, Options, Rom};
use backspin_test_support::InputScript;
use std::path::Path;

/// Frames per workload in `cargo test` (debug build, every workload three cores).
const DEFAULT_FRAMES: u32 = 300;
/// Frames per workload of the full check (`--ignored`).
const FULL_FRAMES: u32 = 3_000;
/// The no-draw core draws one frame in this many, as a bot drawing every Nth frame.
const DRAW_EVERY: u32 = 7;

struct Workload {
    name: String,
    rom: Vec<u8>,
    model: Model,
}

/// A CGB is asked for by the header (0x143 = 0x80 or 0xC0).
fn wants_cgb(rom: &[u8]) -> bool {
    matches!(rom.get(0x143), Some(0x80 | 0xC0))
}

/// `rom` on a DMG, and on a CGB when `cgb_too` or its header asks for one.
fn push_models(workloads: &mut Vec<Workload>, name: String, rom: Vec<u8>, cgb_too: bool) {
    if cgb_too || wants_cgb(&rom) {
        workloads.push(Workload {
            name: name.clone(),
            rom: rom.clone(),
            model: Model::Cgb,
        });
    }
    workloads.push(Workload {
        name,
        rom,
        model: Model::Dmg,
    });
}

/// Our own ROMs, assembled from source: on both models (the CGB runs the DMG ones in
/// compatibility mode).
fn own_workloads() -> Vec<Workload> {
    let root = backspin_harness::workspace_root();
    let mut sources: Vec<_> = std::fs::read_dir(root.join("roms-test"))
        .expect("roms-test/ is part of the repository")
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "asm"))
        .collect();
    sources.sort();
    sources.push(root.join("assets/demo/demo.asm"));
    let mut workloads = Vec::new();
    for path in sources {
        let rom = backspin_asm::assemble_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        push_models(&mut workloads, name, rom, true);
    }
    workloads
}

/// Every ROM in the shared `homebrew*` folders (one level of subfolders), and the acid
/// tests (`acid/`: cgb-acid2 puts tile attributes, flips and every priority rule in
/// one picture, the CGB span drain's hardest case).
fn shared_workloads() -> Vec<Workload> {
    let root = match backspin_harness::locate_test_roms() {
        Ok(root) => root,
        Err(reason) => {
            backspin_test_support::skip_or_fail(format!("the shared homebrew ROMs: {reason}"));
            return Vec::new();
        }
    };
    let mut paths = Vec::new();
    let folders = std::fs::read_dir(&root).map(|entries| {
        entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.file_name().is_some_and(|name| {
                    let name = name.to_string_lossy();
                    name.starts_with("homebrew") || name == "acid"
                })
            })
            .collect::<Vec<_>>()
    });
    for folder in folders.unwrap_or_default() {
        collect_roms(&folder, 1, &mut paths);
    }
    if paths.is_empty() {
        backspin_test_support::skip_or_fail(format!("no homebrew ROMs under {}", root.display()));
    }
    paths.sort();
    let mut workloads = Vec::new();
    for path in paths {
        let Ok(rom) = std::fs::read(&path) else {
            backspin_test_support::skip_or_fail(format!("{} not readable", path.display()));
            continue;
        };
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        // opus5 and dmg-acid2 also stand for a DMG cartridge in a CGB's compatibility mode.
        let cgb_too = name.ends_with("opus5.gb") || name.ends_with("dmg-acid2.gb");
        push_models(&mut workloads, name, rom, cgb_too);
    }
    workloads
}

fn collect_roms(folder: &Path, depth: u32, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for path in entries.filter_map(|entry| entry.ok().map(|entry| entry.path())) {
        if path.is_dir() && depth > 0 {
            collect_roms(&path, depth - 1, out);
        } else if path
            .extension()
            .is_some_and(|ext| ext == "gb" || ext == "gbc")
        {
            out.push(path);
        }
    }
}

fn power_on(workload: &Workload) -> Core {
    let rom = Rom::from_bytes(workload.rom.clone()).expect("test ROM parses");
    Core::new(
        rom,
        Options {
            model: workload.model,
            ..Options::default()
        },
    )
}

/// Runs to the end of the next frame, through any breakpoints (the Mooneye-protocol ROMs
/// end on one): a frame ends within two LCD periods whatever the program does.
fn run_whole_frame(core: &mut Core) {
    for _ in 0..100_000 {
        if core.run_frame().contains(Events::FRAME_READY) {
            return;
        }
    }
    panic!("no frame completed");
}

fn same_picture(a: &Core, b: &Core) -> bool {
    a.frame() == b.frame() && a.frame_rgb() == b.frame_rgb()
}

fn check(workload: &Workload, frames: u32) {
    let seed = 0x5EED_0D4A;
    let label = format!("{} ({:?})", workload.name, workload.model);
    println!("{label}: {frames} frames, seed {seed:#x}");
    let mut script = InputScript::new(seed);
    let mut fast = power_on(workload);
    let mut plain = power_on(workload);
    plain.set_fast_paths(FastPaths {
        lazy_mode3: false,
        ..FastPaths::ALL
    });
    let mut blind = power_on(workload);
    let mut silent = power_on(workload);
    silent.set_fast_paths(FastPaths {
        audio_synthesis: false,
        ..FastPaths::ALL
    });
    let silent_synth = silent.state().hw.apu.synth;
    for frame in 0..frames {
        let buttons = Buttons(script.next_frame());
        let draw = frame % DRAW_EVERY == DRAW_EVERY - 1;
        blind.set_drawing(draw);
        if draw && DRAW_EVERY > 1 {
            // Drawing switched back on blanks the picture, so stale pixels never show.
            assert!(
                blind.frame().iter().all(|&shade| shade == 0)
                    && (!blind.frame_is_rgb()
                        || blind.frame_rgb().iter().all(|&colour| colour == 0x7FFF)),
                "{label}: frame {frame}: switching drawing on left old pixels"
            );
        }
        for core in [&mut fast, &mut plain, &mut blind, &mut silent] {
            core.set_buttons(buttons);
            run_whole_frame(core);
        }
        assert!(
            fast.state().as_bytes() == plain.state().as_bytes(),
            "{label}: the PPU fast path changed the state at frame {frame}"
        );
        assert!(
            same_picture(&fast, &plain),
            "{label}: the PPU fast path changed the picture at frame {frame}"
        );
        assert!(
            fast.state().as_bytes() == blind.state().as_bytes(),
            "{label}: not drawing changed the state at frame {frame}"
        );
        // The silent core's state is the sounding one's with the synthesizer as it was.
        let mut heard = *fast.state();
        heard.hw.apu.synth = silent_synth;
        assert!(
            silent.state().as_bytes() == heard.as_bytes(),
            "{label}: synthesizing no sound changed the state at frame {frame}"
        );
        // A frame that ends with the LCD on drew all 144 lines since the LCD was last
        // switched on or the frame began; with the LCD off no run writes pixels.
        let lcd_on = fast.state().hw.ppu.lcdc & 0x80 != 0;
        assert!(
            !draw || !lcd_on || same_picture(&fast, &blind),
            "{label}: frame {frame}, drawn after {} frames without, differs",
            DRAW_EVERY - 1
        );
    }
}

fn check_all(workloads: &[Workload], frames: u32) {
    for workload in workloads {
        check(workload, frames);
    }
}

#[test]
fn own_roms_fast_path_and_no_draw_change_nothing() {
    check_all(&own_workloads(), DEFAULT_FRAMES);
}

#[test]
fn homebrew_fast_path_and_no_draw_change_nothing() {
    check_all(&shared_workloads(), DEFAULT_FRAMES);
}

#[test]
#[ignore = "3,000 frames per workload: run with --release --ignored"]
fn own_roms_fast_path_and_no_draw_change_nothing_for_3000_frames() {
    check_all(&own_workloads(), FULL_FRAMES);
}

#[test]
#[ignore = "3,000 frames per workload: run with --release --ignored"]
fn homebrew_fast_path_and_no_draw_change_nothing_for_3000_frames() {
    check_all(&shared_workloads(), FULL_FRAMES);
}
