//! Save states on real programs:
//! - the round-trip self-check (save, load into a fresh machine, save again byte-identical;
//!   60 frames after the load equal 60 straight frames) at 3 points of every manifest ROM,
//!   on each model its rows run on (CGB rows cover the CGB fields), and of our own ROMs;
//! - save at frame 300, load, run 300 more = 600 straight frames (screen and `State`
//!   bytes) on every homebrew ROM;
//! - the committed fixtures in `roms-test/states/` still load and replay to their hash.
//!
//! External ROMs are skipped with a printed reason when `../shared` is absent.

use backspin_core::state_file::{self, Metadata, RomIdentity};
use backspin_core::{Core, Model, Options, Rom};
use backspin_harness::{load_manifest, locate_test_roms, workspace_root};
use std::path::{Path, PathBuf};

/// Frames at which the self-check runs: just after power-on, during start-up, and later.
const CHECK_FRAMES: [u32; 3] = [1, 40, 100];

/// A ROM to check: its name, the model it runs on and its bytes.
type Item = (String, Model, Vec<u8>);

fn power_on(model: Model, rom: Vec<u8>) -> Result<Core, String> {
    let rom = Rom::from_bytes(rom).map_err(|error| error.to_string())?;
    Ok(Core::new(
        rom,
        Options {
            model,
            boot_rom: None,
        },
    ))
}

/// A manifest's model column.
fn model_named(name: &str) -> Model {
    if name == "CGB" {
        Model::Cgb
    } else {
        Model::Dmg
    }
}

/// Runs the self-check at each of `CHECK_FRAMES`; the error names ROM, frame and field.
fn self_check_at_three_points(name: &str, model: Model, rom: Vec<u8>) -> Result<(), String> {
    let mut core = match power_on(model, rom) {
        Ok(core) => core,
        // A ROM the core refuses has no states to check; the ROM suites report it.
        Err(reason) => {
            println!("{name}: not checked ({reason})");
            return Ok(());
        }
    };
    let mut frame = 0;
    for point in CHECK_FRAMES {
        while frame < point {
            core.run_frame();
            frame += 1;
        }
        state_file::self_check(&core)
            .map_err(|error| format!("{name} ({model:?}) at frame {frame}: {error}"))?;
    }
    Ok(())
}

/// Runs `check` on every item, on two threads (the machine has two cores), and collects
/// the failures.
fn check_all(items: Vec<Item>, check: fn(&str, Model, Vec<u8>) -> Result<(), String>) {
    let items = std::sync::Mutex::new(items);
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                while let Some((name, model, rom)) = items.lock().unwrap().pop() {
                    if let Err(failure) = check(&name, model, rom) {
                        failures.lock().unwrap().push(failure);
                    }
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn manifest_roms(root: &Path) -> Vec<Item> {
    let rows = load_manifest(&root.join("manifest.tsv")).expect("the shared manifest parses");
    let mut roms: Vec<Item> = Vec::new();
    for row in rows {
        // Several rows may share a ROM and model; each pair is checked once.
        let model = model_named(&row.model);
        if roms
            .iter()
            .any(|(name, seen, _)| *name == row.rom && *seen == model)
        {
            continue;
        }
        let bytes = std::fs::read(root.join(&row.rom))
            .unwrap_or_else(|error| panic!("{} listed but unreadable: {error}", row.rom));
        roms.push((row.rom, model, bytes));
    }
    roms
}

fn own_roms() -> Vec<Item> {
    let dir = workspace_root().join("roms-test");
    let rows = load_manifest(&dir.join("manifest.tsv")).expect("roms-test/manifest.tsv parses");
    rows.into_iter()
        .map(|row| {
            let rom = backspin_asm::assemble_file(dir.join(&row.rom))
                .unwrap_or_else(|error| panic!("{}: {error}", row.rom));
            (row.rom, model_named(&row.model), rom)
        })
        .collect()
}

#[test]
fn self_check_on_every_manifest_rom() {
    let root = match locate_test_roms() {
        Ok(root) => root,
        Err(reason) => return backspin_test_support::skip_or_fail(reason),
    };
    let roms = manifest_roms(&root);
    println!("{} ROMs, self-check at frames {CHECK_FRAMES:?}", roms.len());
    check_all(roms, self_check_at_three_points);
}

#[test]
fn self_check_on_our_own_roms() {
    check_all(own_roms(), self_check_at_three_points);
}

/// Save at 300, load into a freshly powered machine, run 300: the screen and the state
/// equal those of 600 straight frames.
fn save_load_equals_straight(name: &str, model: Model, rom: Vec<u8>) -> Result<(), String> {
    let mut straight = power_on(model, rom.clone()).map_err(|error| format!("{name}: {error}"))?;
    for _ in 0..300 {
        straight.run_frame();
    }
    let file = state_file::save(&straight, &Metadata::default());
    let mut resumed = power_on(model, rom).map_err(|error| format!("{name}: {error}"))?;
    state_file::load(&mut resumed, &file).map_err(|error| format!("{name}: {error}"))?;
    for _ in 0..300 {
        straight.run_frame();
        resumed.run_frame();
    }
    if let Some(field) = state_file::first_difference(straight.state(), resumed.state()) {
        return Err(format!("{name}: state differs at {field} after 300 frames"));
    }
    // The screen buffer is host-side output, not `State`: with the LCD off the PPU draws
    // nothing and the buffer keeps whatever each machine drew last (`timer_irq` runs with
    // the LCD off). Compare it when the LCD is on.
    let lcd_on = straight.state().hw.ppu.lcdc & 0x80 != 0;
    if lcd_on && straight.frame() != resumed.frame() {
        return Err(format!("{name}: screen differs after 300 frames"));
    }
    Ok(())
}

#[test]
fn save_at_300_load_run_300_equals_600_on_homebrew() {
    let root = match locate_test_roms() {
        Ok(root) => root,
        Err(reason) => return backspin_test_support::skip_or_fail(reason),
    };
    let mut roms = Vec::new();
    for entry in std::fs::read_dir(root.join("homebrew")).expect("homebrew folder") {
        let path = entry.expect("readable folder").path();
        if path.extension().is_some_and(|ext| ext == "gb") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(&path).expect("readable ROM");
            // The model `--model auto` would pick.
            let model = Rom::from_bytes(bytes.clone())
                .map(|rom| Model::auto_for(&rom))
                .unwrap_or_default();
            roms.push((name, model, bytes));
        }
    }
    assert!(!roms.is_empty(), "no homebrew ROMs in {}", root.display());
    println!("{} homebrew ROMs", roms.len());
    check_all(roms, save_load_equals_straight);
}

#[test]
fn save_at_300_load_run_300_equals_600_on_our_own_roms() {
    check_all(own_roms(), save_load_equals_straight);
}

/// The committed fixtures: `roms-test/states/expected.tsv` lists each file, the ROM it
/// belongs to, the frames to replay and the CRC-32 of the replayed state encoded as
/// format 1.1 (a fixed layout, so the hash survives later minor versions).
fn fixtures_dir() -> PathBuf {
    workspace_root().join("roms-test/states")
}

fn replay_hash(core: &mut Core, frames: u32) -> u32 {
    for _ in 0..frames {
        core.run_frame();
    }
    let identity = RomIdentity::of(core.rom());
    let file = state_file::encode_as_minor(core.state(), &identity, &Metadata::default(), 1);
    let info = state_file::info(&file).expect("our own encoding");
    state_file::checksum::crc32(&file[..info.checked_bytes])
}

#[test]
fn committed_fixtures_load_and_replay_to_their_hash() {
    let dir = fixtures_dir();
    let table = std::fs::read_to_string(dir.join("expected.tsv")).expect("expected.tsv");
    let mut checked = 0;
    for line in table.lines().skip(1).filter(|line| !line.trim().is_empty()) {
        let columns: Vec<&str> = line.split('\t').collect();
        let [file, rom, frames, hash] = columns[..] else {
            panic!("expected.tsv: bad line {line:?}");
        };
        let rom = backspin_asm::assemble_file(dir.join(rom)).expect("fixture ROM assembles");
        let bytes = std::fs::read(dir.join(file)).expect("fixture file");
        let mut core = power_on(Model::Dmg, rom).expect("fixture ROM loads");
        let info = state_file::load(&mut core, &bytes)
            .unwrap_or_else(|error| panic!("{file} no longer loads: {error}"));
        let frames: u32 = frames.parse().expect("frames");
        let hash = u32::from_str_radix(hash, 16).expect("hex hash");
        let replayed = replay_hash(&mut core, frames);
        assert_eq!(
            replayed, hash,
            "{file} (format {}.{}) replays to {replayed:08x}, expected {hash:08x}",
            info.major, info.minor
        );
        checked += 1;
    }
    assert!(checked >= 2, "expected.tsv lists {checked} fixtures");
}

/// Writes the fixtures that do not exist yet (never overwrites: an old fixture is history).
/// `cargo test -p backspin-harness --test state_roms -- --ignored write_fixtures`
#[test]
#[ignore = "writes roms-test/states; run by hand when adding a format version"]
fn write_fixtures() {
    let dir = fixtures_dir();
    let rom_name = "ppu_scene/ppu_scene.asm";
    let rom = backspin_asm::assemble_file(dir.join(rom_name)).expect("fixture ROM assembles");
    let table_path = dir.join("expected.tsv");
    let mut table = std::fs::read_to_string(&table_path)
        .unwrap_or_else(|_| "file\trom\tframes\treplay_crc32\n".to_string());
    let mut core = power_on(Model::Dmg, rom.clone()).unwrap();
    for _ in 0..90 {
        core.run_frame();
    }
    let identity = RomIdentity::of(core.rom());
    let metadata = Metadata {
        created_unix_seconds: 0,
        frame: 90,
        emulator_version: state_file::EMULATOR_VERSION.to_string(),
        thumbnail_png: Vec::new(),
    };
    for minor in 0..=state_file::FORMAT_MINOR {
        let file = format!("ppu_scene-f90-{}.{minor}.bss", state_file::FORMAT_MAJOR);
        if dir.join(&file).exists() {
            continue;
        }
        let bytes = state_file::encode_as_minor(core.state(), &identity, &metadata, minor);
        std::fs::write(dir.join(&file), &bytes).unwrap();
        let mut replay = power_on(Model::Dmg, rom.clone()).unwrap();
        state_file::load(&mut replay, &bytes).unwrap();
        let hash = replay_hash(&mut replay, 120);
        table.push_str(&format!("{file}\t{rom_name}\t120\t{hash:08x}\n"));
        println!("wrote {file}");
    }
    std::fs::write(&table_path, table).unwrap();
}
