//! The ROMs the oracle runs: every source in `roms-test/` and the demo, built here by
//! `backspin-asm`, and a chosen set of the shared test ROMs when they are present.

use backspin_core::{Model, Rom};
use backspin_test_support::or_skip;
use std::path::{Path, PathBuf};

/// One ROM on one model.
pub struct Case {
    /// Where it came from (a path under `roms-test/`, `assets/` or the shared ROMs).
    pub name: String,
    pub bytes: Vec<u8>,
    pub model: Model,
}

/// Our own ROMs that also run as a CGB although their cartridge asks for a DMG: the PPU in
/// compatibility mode, work RAM on a bus of its own, OAM DMA from it.
const ALSO_ON_A_CGB: [&str; 6] = [
    "poll_loops.asm",
    "self_jumps.asm",
    "ly_polls.asm",
    "ppu_scene.asm",
    "oam_dma.asm",
    "demo.asm",
];

/// Sources the oracle must find in `roms-test/`: the ones written for it.
const REQUIRED_SOURCES: [&str; 6] = [
    "poll_loops.asm",
    "self_jumps.asm",
    "self_jumps_2x.asm",
    "ly_polls.asm",
    "oam_dma.asm",
    "lyc_raster.asm",
];

/// Probes (`roms-test/probes/`) that exercise a fast path: an HBlank VRAM DMA keeps every
/// tick full and every instruction on the full step (`Bus::opcode_fetched`), with and
/// without the LCD (at double speed too); palette writes across mode 3's edges meet lazy
/// mode 3 and the quiet windows through mode 0's first steps (`PpuState::palette_locked`),
/// and palette reads there the PPU's catch-up on a slow read (`cpu_read_slow`); a DMG's
/// STOP (no button comes here, so it stays stopped) takes the STOP skip; HALTs reached
/// just before, at and after a mode-0 request meet HALT skipping; open-bus reads of
/// cartridge RAM take the data reads' fast and slow paths (`Bus::read_after_fetch`).
const PROBES: [&str; 10] = [
    "probes/dma/hdma_readback.asm",
    "probes/dma/hdma_lcd_off.asm",
    "probes/dma/hdma_lcd_off_2x.asm",
    "probes/palette/bcpd_mode3.asm",
    "probes/palette/bcpd_mode3_2x.asm",
    "probes/palette/bcpd_read_mode3_2x.asm",
    "probes/stop/stop_wake_dmg.asm",
    "probes/dmg/halt_ime1_hblank.asm",
    "probes/bus/open_bus_mbc3.asm",
    "probes/bus/open_bus_mbc3_ds.asm",
];

/// Every `roms-test/*.asm`, the probes of [`PROBES`] and the demo, on the model their header asks for, and the
/// DMG ones of [`ALSO_ON_A_CGB`] on a CGB too. These are in the repository: a source that
/// does not assemble fails the test.
pub fn own_roms() -> Vec<Case> {
    let root = backspin_harness::workspace_root();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root.join("roms-test"))
        .expect("roms-test/ is readable")
        .map(|entry| entry.expect("roms-test/ lists").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "asm"))
        .collect();
    sources.sort();
    for required in REQUIRED_SOURCES {
        assert!(
            sources.iter().any(|path| path.ends_with(required)),
            "roms-test/{required} is missing"
        );
    }
    sources.extend(
        PROBES
            .iter()
            .map(|probe| root.join("roms-test").join(probe)),
    );
    sources.push(root.join("assets/demo/demo.asm"));
    let mut cases = Vec::new();
    for path in sources {
        let bytes = backspin_asm::assemble_file(&path).unwrap_or_else(|e| panic!("{e}"));
        let file = file_name(&path);
        let name = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let model = auto_model(&bytes);
        if model == Model::Dmg && ALSO_ON_A_CGB.contains(&file.as_str()) {
            cases.push(Case {
                name: name.clone(),
                bytes: bytes.clone(),
                model: Model::Cgb,
            });
        }
        cases.push(Case { name, bytes, model });
    }
    cases
}

/// Shared test ROMs and the models they run on: games and demos that poll, halt, scroll,
/// play music and switch speed, and a few test ROMs aimed at timing the tricks touch.
const SHARED: [(&str, &[Model]); 16] = [
    ("homebrew/opus5.gb", &[Model::Dmg, Model::Cgb]),
    ("homebrew/pocket.gb", &[Model::Dmg]),
    ("homebrew/shocklobster.gb", &[Model::Dmg]),
    // On a CGB it waits for VBlank polling LY, whose reads lag the line's start there.
    ("homebrew/gejmboj.gb", &[Model::Dmg, Model::Cgb]),
    ("homebrew/gb8.gb", &[Model::Dmg, Model::Cgb]),
    ("homebrew/20y.gb", &[Model::Dmg]),
    ("homebrew/thebouncingball.gb", &[Model::Dmg]),
    ("homebrew-cgb/ucity/ucity.gbc", &[Model::Cgb]),
    (
        "homebrew-cgb/cgb-acid-hell/cgb-acid-hell.gbc",
        &[Model::Cgb],
    ),
    ("acid/cgb-acid2.gbc", &[Model::Cgb]),
    ("acid/dmg-acid2.gb", &[Model::Dmg]),
    // In CGB mode it runs at double speed.
    ("blargg/cpu_instrs/cpu_instrs.gb", &[Model::Dmg, Model::Cgb]),
    ("blargg/dmg_sound/03-trigger.gb", &[Model::Dmg]),
    // Dozens of speed switches, each with its HALT (which HALT skipping must end on time).
    ("age/speed-switch/spsw-tima-cgbE.gb", &[Model::Cgb]),
    ("mooneye/acceptance/halt_ime1_timing2-GS.gb", &[Model::Dmg]),
    (
        "mooneye/acceptance/ppu/intr_2_mode0_timing_sprites.gb",
        &[Model::Dmg],
    ),
];

/// The shared ROMs of [`SHARED`] that are present. A missing one is skipped with its
/// reason, or fails the test under `BACKSPIN_REQUIRE_TEST_ROMS`.
pub fn shared_roms() -> Vec<Case> {
    let mut cases = Vec::new();
    // Without the folder, one reason for all of them.
    if or_skip(backspin_harness::locate_test_roms()).is_none() {
        return cases;
    }
    for (relative, models) in SHARED {
        let Some(bytes) = or_skip(backspin_harness::read_test_rom(relative)) else {
            continue;
        };
        for &model in models {
            cases.push(Case {
                name: relative.to_string(),
                bytes: bytes.clone(),
                model,
            });
        }
    }
    cases
}

fn auto_model(bytes: &[u8]) -> Model {
    Model::auto_for(&Rom::from_bytes(bytes.to_vec()).expect("our ROMs parse"))
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}
