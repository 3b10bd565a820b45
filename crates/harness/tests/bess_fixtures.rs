//! BESS import against the states SameBoy wrote (`../shared/bess-fixtures`, see its
//! README): each fixture, DMG and CGB, loads into a machine of its model, and the screen
//! 300 frames later matches SameBoy's under the test-ROM comparison rule. A state of the
//! other model is refused with a clear error. Damaged BESS blocks give errors and leave the
//! core untouched. Our own files' BESS footers (DMG, CGB, MBC3 clock) import back.

use backspin_core::bess::{self, BessError};
use backspin_core::{Core, Model, Options, Rom};
use backspin_harness::{compare_rgb_with_png, compare_with_png, locate_test_roms, screen_rgb};
use std::path::PathBuf;

fn fixtures() -> Option<(PathBuf, PathBuf)> {
    let roms = match locate_test_roms() {
        Ok(roms) => roms,
        Err(reason) => {
            backspin_test_support::skip_or_fail(reason);
            return None;
        }
    };
    let dir = roms.join("../bess-fixtures");
    if !dir.is_dir() {
        backspin_test_support::skip_or_fail(format!("{} not found", dir.display()));
        return None;
    }
    Some((roms, dir))
}

fn core_for(roms: &std::path::Path, rom: &str) -> Core {
    core_on(roms, rom, Model::Dmg)
}

fn core_on(roms: &std::path::Path, rom: &str, model: Model) -> Core {
    let bytes = std::fs::read(roms.join("homebrew").join(format!("{rom}.gb"))).unwrap();
    Core::new(
        Rom::from_bytes(bytes).unwrap(),
        Options {
            model,
            boot_rom: None,
        },
    )
}

const DMG_FIXTURES: [&str; 4] = [
    "opus5-dmg-f600",
    "shocklobster-dmg-f900",
    "pocket-dmg-f1200",
    "thebouncingball-dmg-f600",
];

#[test]
fn dmg_fixtures_match_sameboy_300_frames_later() {
    let Some((roms, dir)) = fixtures() else {
        return;
    };
    let mut failures = Vec::new();
    for name in DMG_FIXTURES {
        let rom = name.split('-').next().unwrap();
        let mut core = core_for(&roms, rom);
        let state = std::fs::read(dir.join(format!("{name}.state"))).unwrap();
        let import = bess::import(&mut core, &state).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!(
            "{name}: from {:?}, warnings {:?}",
            import.emulator, import.warnings
        );
        for _ in 0..300 {
            core.run_frame();
        }
        let expected = std::fs::read(dir.join(format!("{name}.after300.png"))).unwrap();
        if let Some(mismatch) = compare_with_png(core.frame(), &expected).unwrap() {
            failures.push(format!(
                "{name}: {} pixels differ, first at {:?}",
                mismatch.differing_pixels, mismatch.first
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The CGB fixtures: gb8 in CGB mode (KEY0 C0) and opus5, a DMG game, in compatibility
/// mode (KEY0 04) with the palettes SameBoy's boot ROM chose, compared in colour.
#[test]
fn cgb_fixtures_match_sameboy_300_frames_later() {
    let Some((roms, dir)) = fixtures() else {
        return;
    };
    let mut failures = Vec::new();
    for name in ["gb8-cgb-f600", "opus5-cgb-f600"] {
        let rom = name.split('-').next().unwrap();
        let mut core = core_on(&roms, rom, Model::Cgb);
        let state = std::fs::read(dir.join(format!("{name}.state"))).unwrap();
        let import = bess::import(&mut core, &state).unwrap_or_else(|e| panic!("{name}: {e}"));
        println!(
            "{name}: from {:?}, warnings {:?}",
            import.emulator, import.warnings
        );
        assert_eq!(bess::saved_model(&state), Some(Model::Cgb));
        for _ in 0..300 {
            core.run_frame();
        }
        let expected = std::fs::read(dir.join(format!("{name}.after300.png"))).unwrap();
        if let Some(mismatch) = compare_rgb_with_png(&screen_rgb(&core), &expected).unwrap() {
            failures.push(format!(
                "{name}: {} pixels differ, first at {:?}",
                mismatch.differing_pixels, mismatch.first
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A state of one model is refused by a machine of the other, naming the option to use,
/// and the machine is left as it was.
#[test]
fn states_of_the_other_model_are_refused_with_a_reason() {
    let Some((roms, dir)) = fixtures() else {
        return;
    };
    for (name, running, flag) in [
        ("gb8-cgb-f600", Model::Dmg, "--model cgb"),
        ("opus5-cgb-f600", Model::Dmg, "--model cgb"),
        ("opus5-dmg-f600", Model::Cgb, "--model dmg"),
    ] {
        let rom = name.split('-').next().unwrap();
        let mut core = core_on(&roms, rom, running);
        let before = core.state().as_bytes().to_vec();
        let state = std::fs::read(dir.join(format!("{name}.state"))).unwrap();
        let error = bess::import(&mut core, &state).unwrap_err();
        assert!(
            matches!(error, BessError::WrongModel { .. }),
            "{name}: {error}"
        );
        assert!(error.to_string().contains(flag), "{error}");
        assert_eq!(core.state().as_bytes(), &before[..]);
    }
}

/// Damaged blocks (lengths, offsets, ids, truncation): never a panic; a refused import
/// leaves the core as it was.
#[test]
fn damaged_bess_blocks_are_errors_not_panics() {
    let Some((roms, dir)) = fixtures() else {
        return;
    };
    for (fixture, rom, model) in [
        ("pocket-dmg-f1200", "pocket", Model::Dmg),
        ("gb8-cgb-f600", "gb8", Model::Cgb),
    ] {
        fuzz_fixture(&roms, &dir, fixture, rom, model);
    }
}

fn fuzz_fixture(
    roms: &std::path::Path,
    dir: &std::path::Path,
    fixture: &str,
    rom: &str,
    model: Model,
) {
    let good = std::fs::read(dir.join(format!("{fixture}.state"))).unwrap();
    let first_block = u32::from_le_bytes(good[good.len() - 8..good.len() - 4].try_into().unwrap());
    let blocks = first_block as usize..good.len();
    let mut core = core_on(roms, rom, model);
    for _ in 0..30 {
        core.run_frame();
    }
    let before = core.state().as_bytes().to_vec();
    let mut seed = 0xBE55_u64;
    println!("seed {seed:#x}");
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for case in 0..2_000 {
        let mut file = good.clone();
        match case % 3 {
            0 => {
                // A byte in the blocks or the footer.
                let at = blocks.start + (next() as usize % blocks.len());
                file[at] = next() as u8;
            }
            1 => {
                // A block length or buffer offset/size: four bytes at once.
                let at = blocks.start + (next() as usize % (blocks.len() - 4));
                file[at..at + 4].copy_from_slice(&(next() as u32).to_le_bytes());
            }
            _ => {
                let keep = next() as usize % file.len();
                file.drain(first_block as usize..keep.max(first_block as usize));
            }
        }
        if bess::import(&mut core, &file).is_err() {
            assert_eq!(
                core.state().as_bytes(),
                &before[..],
                "{fixture} case {case}"
            );
        } else {
            core.load_state(&bytemuck::pod_read_unaligned(&before));
        }
    }
    assert!(matches!(
        bess::import(&mut core, &good[..good.len() - 1]),
        Err(BessError::NoFooter)
    ));
}

/// Our own files carry a BESS footer whose blocks are well formed and end exactly at the
/// footer; imported through BESS alone into a fresh machine, the game then shows the same
/// screen 300 frames later as a straight run (saved at a frame boundary, as SameBoy does).
#[test]
fn our_files_carry_a_bess_footer_that_imports_back() {
    use backspin_core::state_file::{self, Metadata};
    let root = backspin_harness::workspace_root();
    let ppu_scene =
        backspin_asm::assemble_file(root.join("roms-test/states/ppu_scene/ppu_scene.asm")).unwrap();
    let cgb_palette = backspin_asm::assemble_file(root.join("roms-test/cgb_palette.asm")).unwrap();
    let mut roms = vec![
        ("ppu_scene".to_string(), ppu_scene, Model::Dmg),
        ("cgb_palette".to_string(), cgb_palette, Model::Cgb),
    ];
    if let Some((shared, _)) = fixtures() {
        for (name, model) in [
            ("pocket", Model::Dmg),
            ("thebouncingball", Model::Dmg),
            ("shocklobster", Model::Dmg),
            ("opus5", Model::Dmg),
            ("opus5", Model::Cgb),
            ("gb8", Model::Cgb),
        ] {
            let path = shared.join("homebrew").join(format!("{name}.gb"));
            roms.push((
                format!("{name} ({model:?})"),
                std::fs::read(path).unwrap(),
                model,
            ));
        }
        let ucity = shared.join("homebrew-cgb/ucity/ucity.gbc");
        roms.push(("ucity".into(), std::fs::read(ucity).unwrap(), Model::Cgb));
    }
    for (name, rom, model) in roms {
        let options = Options {
            model,
            boot_rom: None,
        };
        let mut straight = Core::new(Rom::from_bytes(rom.clone()).unwrap(), options.clone());
        for _ in 0..200 {
            straight.run_frame();
        }
        let file = state_file::save(&straight, &Metadata::default());
        // Well-formed: footer offset, blocks up to an END that ends at the footer.
        let first = u32::from_le_bytes(file[file.len() - 8..file.len() - 4].try_into().unwrap());
        let mut offset = first as usize;
        let mut ids = Vec::new();
        loop {
            let id = String::from_utf8_lossy(&file[offset..offset + 4]).into_owned();
            let len = u32::from_le_bytes(file[offset + 4..offset + 8].try_into().unwrap());
            offset += 8 + len as usize;
            assert!(
                offset <= file.len() - 8,
                "{name}: block {id} runs into the footer"
            );
            ids.push(id.clone());
            if id == "END " {
                break;
            }
        }
        assert_eq!(offset, file.len() - 8, "{name}: END must end at the footer");
        assert_eq!(&ids[..3], ["NAME", "INFO", "CORE"], "{name}");

        let mut imported = Core::new(Rom::from_bytes(rom).unwrap(), options);
        // Only the BESS part: blank our magic so the file is foreign.
        let mut foreign = file.clone();
        foreign[..8].fill(0);
        let import = bess::import(&mut imported, &foreign).unwrap();
        assert!(import.emulator.unwrap().starts_with("backspin"));
        for _ in 0..300 {
            straight.run_frame();
            imported.run_frame();
        }
        let expected = backspin_harness::encode_screen_png(&straight);
        let mismatch = compare_rgb_with_png(&screen_rgb(&imported), &expected).unwrap();
        assert!(
            mismatch.is_none(),
            "{name}: {} pixels differ after a BESS round trip",
            mismatch.unwrap().differing_pixels
        );
    }
}

/// The MBC3 clock travels in the `RTC ` block: imported through BESS alone, the clock
/// registers (counting and latched) read as in the saved machine, and the block carries the
/// save's time.
#[test]
fn mbc3_clock_travels_in_the_rtc_block() {
    use backspin_core::state_file::{self, Metadata};
    let root = backspin_harness::workspace_root();
    let rom = backspin_asm::assemble_file(root.join("roms-test/rtc_clock.asm")).unwrap();
    let mut straight = Core::new(Rom::from_bytes(rom.clone()).unwrap(), Options::default());
    straight.rtc_advance_seconds(3 * 86_400 + 5 * 3_600 + 7 * 60 + 9);
    for _ in 0..200 {
        straight.run_frame();
    }
    let metadata = Metadata {
        created_unix_seconds: 1_700_000_000,
        ..Metadata::default()
    };
    let mut foreign = state_file::save(&straight, &metadata);
    foreign[..8].fill(0);
    let mut imported = Core::new(Rom::from_bytes(rom).unwrap(), Options::default());
    let import = bess::import(&mut imported, &foreign).unwrap();
    assert_eq!(import.rtc_saved_unix_seconds, Some(1_700_000_000));
    let clock = |core: &Core| {
        core.rom()
            .rtc_registers(&core.state().hw.mbc, core.m_cycles())
            .unwrap()
    };
    assert_eq!(clock(&imported), clock(&straight));
    assert_eq!(clock(&imported)[3], 3, "three days on");
    assert_eq!(
        imported.state().hw.mbc.rtc_latched,
        straight.state().hw.mbc.rtc_latched
    );
}
