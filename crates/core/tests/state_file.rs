//! The save-state file format: every byte of `State` reaches the file and comes back,
//! older minors load through their fixup, and damaged or foreign files are refused with a
//! clear error while the running game stays byte-for-byte untouched.
//!
//! Randomized tests print their seed. ROM-based checks (manifest ROMs, homebrew, our own
//! ROMs) live in `crates/harness/tests/state_roms.rs`.

use backspin_core::state_fields::{Check, FieldInfo, Scalar, StateFields, Visitor};
use backspin_core::state_file::{
    self, FORMAT_MAJOR, FORMAT_MINOR, Metadata, RomIdentity, StateError,
};
use backspin_core::{Core, Options, Rom, State};
use backspin_test_support::SplitMix64;

/// `roms-test/runner/ram_counter.asm` titled `title`: MBC1 with 32 KiB battery RAM,
/// whose program increments C000-C0FF forever and writes cartridge RAM, so states differ
/// from frame to frame.
fn test_rom(title: &str) -> Rom {
    let path = backspin_harness::workspace_root().join("roms-test/runner/ram_counter.asm");
    let source = format!("TITLE \"{title}\"\nINCLUDE \"ram_counter.asm\"\n");
    // Named as the file itself, so that the INCLUDE resolves beside it.
    let bytes = backspin_asm::assemble_str(&source, &path.display().to_string())
        .unwrap_or_else(|e| panic!("{e}"));
    Rom::from_bytes(bytes).expect("the test ROM is valid")
}

fn running_core(title: &str, frames: u32) -> Core {
    let mut core = Core::new(test_rom(title), Options::default());
    for _ in 0..frames {
        core.run_frame();
    }
    core
}

/// Sets every field to a random value the loader accepts, non-zero wherever the field
/// allows it (so a field the writer skipped cannot come back by luck: the reader starts
/// from zeros).
struct Randomizer<'a>(&'a mut SplitMix64);

impl Visitor for Randomizer<'_> {
    fn enter(&mut self, _field: &FieldInfo) {}
    fn leave(&mut self, _field: &FieldInfo) {}
    fn scalars<T: Scalar>(&mut self, field: &FieldInfo, values: &mut [T]) {
        for value in values.iter_mut() {
            let raw: u64 = match field.check {
                Check::Any => loop {
                    let candidate = self.0.next_u64();
                    // Every byte of the value non-zero.
                    if candidate.to_le_bytes()[..T::SIZE].iter().all(|&b| b != 0) {
                        break candidate;
                    }
                },
                Check::Below(bound) => 1 + self.0.below(bound.max(2) - 1),
                Check::Zero => 0,
                Check::Valid(valid) => loop {
                    let candidate = 1 + self.0.below(255);
                    if valid(candidate) {
                        break candidate;
                    }
                },
            };
            *value = T::read_le(&raw.to_le_bytes()[..T::SIZE]);
        }
    }
}

fn random_state(seed: u64) -> Box<State> {
    let mut state: Box<State> = bytemuck::zeroed_box();
    state.visit_fields(&mut Randomizer(&mut SplitMix64::new(seed)));
    state
}

/// The test ROM's identity as for a cartridge with the largest RAM (128 KiB), so random
/// states keep every byte of `hw.cart_ram` (a file stores only the cartridge's RAM).
fn identity() -> RomIdentity {
    RomIdentity {
        cart_ram_bytes: backspin_core::state::CART_RAM_MAX,
        ..RomIdentity::of(&test_rom("STATETEST"))
    }
}

#[test]
fn random_states_round_trip_byte_for_byte() {
    for seed in [1, 2, 3] {
        println!("seed {seed}");
        let state = random_state(seed);
        let file = state_file::encode(&state, &identity(), &Metadata::default());
        let (_, decoded) = state_file::decode(&file).expect("a fresh file decodes");
        assert!(
            decoded.as_bytes() == state.as_bytes(),
            "seed {seed}: first difference at {:?}",
            state_file::first_difference(&decoded, &state)
        );
    }
}

/// Changes each byte of a `State` in turn: the file must change, and a changed state must
/// decode to itself (flags and enums out of range are refused by name instead; padding is
/// not saved at all). Inside the
/// big memories (arrays of 1 KiB and more) every 61st byte is changed, to keep the test
/// fast; the random round trips above, with every byte non-zero, cover all of them.
#[test]
fn every_byte_of_the_state_reaches_the_file() {
    let base = random_state(7);
    let rom = identity();
    let metadata = Metadata::default();
    let base_file = state_file::encode(&base, &rom, &metadata);
    let big_arrays = big_array_ranges();
    let mut changed = base.clone();
    let mut checked = 0;
    for offset in 0..size_of::<State>() {
        let in_big_array = big_arrays.iter().any(|range| range.contains(&offset));
        if in_big_array && offset % 61 != 0 {
            continue;
        }
        checked += 1;
        let original = base.as_bytes()[offset];
        bytemuck::bytes_of_mut(&mut *changed)[offset] = original ^ 0x80;
        let field = state_file::field_name_at(offset).expect("every byte belongs to a field");
        let file = state_file::encode(&changed, &rom, &metadata);
        if field.contains("_pad") {
            // Padding is not saved from format 1.2 on (it is always zero).
            assert_eq!(
                file, base_file,
                "byte {offset} ({field}): padding reached the file"
            );
            bytemuck::bytes_of_mut(&mut *changed)[offset] = original;
            continue;
        }
        assert_ne!(
            file, base_file,
            "byte {offset} ({field}) does not reach the file"
        );
        match state_file::decode(&file) {
            Ok((_, decoded)) => assert!(
                decoded.as_bytes() == changed.as_bytes(),
                "byte {offset} ({field}) does not round-trip"
            ),
            // Flags, enums and padding: the changed value is out of range, and the error
            // names the field.
            Err(StateError::OutOfRange { field: name, .. }) => {
                assert!(field.starts_with(&name), "{field} refused as {name}")
            }
            Err(error) => panic!("byte {offset} ({field}): {error}"),
        }
        bytemuck::bytes_of_mut(&mut *changed)[offset] = original;
    }
    println!(
        "{checked} of {} bytes changed one by one",
        size_of::<State>()
    );
}

/// Byte ranges of the arrays of 1 KiB or more.
fn big_array_ranges() -> Vec<std::ops::Range<usize>> {
    struct Ranges {
        base: usize,
        found: Vec<std::ops::Range<usize>>,
    }
    impl Visitor for Ranges {
        fn enter(&mut self, _field: &FieldInfo) {}
        fn leave(&mut self, _field: &FieldInfo) {}
        fn scalars<T: Scalar>(&mut self, _field: &FieldInfo, values: &mut [T]) {
            let len = size_of_val(values);
            if len >= 1024 {
                let start = values.as_ptr() as usize - self.base;
                self.found.push(start..start + len);
            }
        }
    }
    let mut state: Box<State> = bytemuck::zeroed_box();
    let mut ranges = Ranges {
        base: std::ptr::from_ref::<State>(&state) as usize,
        found: Vec::new(),
    };
    state.visit_fields(&mut ranges);
    ranges.found
}

#[test]
fn field_names_follow_the_structs() {
    let state: Box<State> = bytemuck::zeroed_box();
    let base = std::ptr::from_ref::<State>(&state) as usize;
    let ly = std::ptr::from_ref(&state.hw.ppu.ly) as usize - base;
    assert_eq!(state_file::field_name_at(ly).as_deref(), Some("hw.ppu.ly"));
    let ram = std::ptr::from_ref(&state.hw.cart_ram[513]) as usize - base;
    assert_eq!(
        state_file::field_name_at(ram).as_deref(),
        Some("hw.cart_ram[513]")
    );
    let pc_high = std::ptr::from_ref(&state.cpu.pc) as usize - base + 1;
    assert_eq!(
        state_file::field_name_at(pc_high).as_deref(),
        Some("cpu.pc")
    );
}

#[test]
fn save_load_round_trip_and_metadata() {
    let core = running_core("STATETEST", 30);
    let metadata = Metadata {
        created_unix_seconds: 1_764_000_000,
        frame: 30,
        emulator_version: state_file::EMULATOR_VERSION.to_string(),
        thumbnail_png: vec![0x89, b'P', b'N', b'G'],
    };
    let file = state_file::save(&core, &metadata);
    let mut other = running_core("STATETEST", 3);
    let info = state_file::load(&mut other, &file).expect("loads");
    assert_eq!(other.state().as_bytes(), core.state().as_bytes());
    assert_eq!((info.major, info.minor), (FORMAT_MAJOR, FORMAT_MINOR));
    assert_eq!(info.metadata, Some(metadata));
    assert_eq!(info.rom.title, "STATETEST");
    state_file::self_check(&core).expect("self-check passes");
}

/// From 1.4 a file holds only the cartridge's RAM: 32 KiB here, not the 128 KiB field.
#[test]
fn only_the_cartridges_ram_is_stored() {
    let core = running_core("STATETEST", 30);
    let file = state_file::save(&core, &Metadata::default());
    let info = state_file::info(&file).unwrap();
    assert_eq!(info.rom.cart_ram_bytes, 0x8000);
    let full = state_file::encode(core.state(), &identity(), &Metadata::default());
    let full_info = state_file::info(&full).unwrap();
    assert_eq!(full_info.state_bytes - info.state_bytes, 0x18000);
    // An older minor's file holds all 128 KiB and still loads.
    let old = state_file::encode_as_minor(core.state(), &info.rom, &Metadata::default(), 3);
    assert_eq!(state_file::info(&old).unwrap().rom.cart_ram_bytes, 0x20000);
    let mut other = running_core("STATETEST", 3);
    state_file::load(&mut other, &old).unwrap();
    assert_eq!(other.state().as_bytes(), core.state().as_bytes());
    // A header claiming more than 128 KiB is refused.
    let mut bad = file.clone();
    let at = 8 + 4 + 1 + 1 + "STATETEST".len() + 1 + 2 + 20;
    bad[at..at + 4].copy_from_slice(&0x20001u32.to_le_bytes());
    fix_crc(&mut bad, info.checked_bytes);
    let error = state_file::load(&mut other, &bad).unwrap_err();
    assert!(error.to_string().contains("cartridge RAM"), "{error}");
}

#[test]
fn older_minor_loads_through_its_fixup() {
    let core = running_core("STATETEST", 30);
    let rom = identity();
    let old = state_file::encode_as_minor(core.state(), &rom, &Metadata::default(), 0);
    let current = state_file::encode(core.state(), &rom, &Metadata::default());
    assert!(old.len() < current.len(), "1.0 lacks hw.apu.flush_clock");
    let (info, decoded) = state_file::decode(&old).expect("1.0 loads");
    assert_eq!(info.minor, 0);
    assert_eq!(decoded.hw.apu.flush_clock, 0, "the 1.0 fixup");
    let mut expected = *core.state();
    expected.hw.apu.flush_clock = 0;
    assert_eq!(decoded.as_bytes(), expected.as_bytes());
}

/// 1.1 files: DMG states with padding at its old lengths. They load through both fixups
/// (the CGB fields as a DMG has them); non-zero padding or a CGB model in one is refused.
#[test]
fn minor_1_loads_as_a_dmg_and_refuses_bad_padding_and_cgb() {
    let core = running_core("STATETEST", 30);
    let rom = RomIdentity::of(core.rom());
    let old = state_file::encode_as_minor(core.state(), &rom, &Metadata::default(), 1);
    let (info, decoded) = state_file::decode(&old).expect("1.1 loads");
    assert_eq!(info.minor, 1);
    assert_eq!(
        decoded.as_bytes(),
        core.state().as_bytes(),
        "the 1.2 fixup gives a DMG's CGB fields ({:?})",
        state_file::first_difference(&decoded, core.state())
    );

    // The header's model byte and `hw.model_raw` (both before any padding of `hw`) say CGB.
    let mut cgb = *core.state();
    cgb.hw.model_raw = backspin_core::Model::Cgb as u8;
    let file = state_file::encode_as_minor(&cgb, &rom, &Metadata::default(), 1);
    let Err(error) = state_file::decode(&file) else {
        panic!("no CGB in 1.1")
    };
    let error = error.to_string();
    assert!(error.contains("no Game Boy Color"), "{error}");

    // The last byte of `hw.ppu` in 1.1 is its one pad byte.
    let mut bad = old.clone();
    let ppu_end = section_end(&bad, b"ppu");
    bad[ppu_end - 1] = 1;
    let info = state_file::info(&old).expect("info");
    fix_crc(&mut bad, info.checked_bytes);
    match state_file::decode(&bad) {
        Err(StateError::OutOfRange { field, value: 1 }) => {
            assert!(field.starts_with("hw.ppu._pad"), "{field}")
        }
        Err(other) => panic!("non-zero padding: {other}"),
        Ok(_) => panic!("non-zero padding loaded"),
    }
}

/// Where the section `name` (found by its name bytes) ends in `file`.
fn section_end(file: &[u8], name: &[u8]) -> usize {
    let mut tag = vec![name.len() as u8];
    tag.extend_from_slice(name);
    let at = file
        .windows(tag.len())
        .position(|window| window == tag)
        .expect("the section is in the file")
        + tag.len();
    let len = u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
    at + 4 + len
}

#[test]
fn a_state_loads_only_into_its_model() {
    let core = running_core("STATETEST", 10);
    let file = state_file::save(&core, &Metadata::default());
    let mut cgb = Core::new(
        test_rom("STATETEST"),
        Options {
            model: backspin_core::Model::Cgb,
            ..Options::default()
        },
    );
    cgb.run_frame();
    let before = *cgb.state();
    let error = state_file::load(&mut cgb, &file).expect_err("a DMG state in a CGB");
    assert!(matches!(error, StateError::WrongModel { .. }), "{error}");
    assert!(
        error.to_string().contains("DMG") && error.to_string().contains("CGB"),
        "{error}"
    );
    assert_eq!(cgb.state().as_bytes(), before.as_bytes());

    let cgb_file = state_file::save(&cgb, &Metadata::default());
    let mut dmg = running_core("STATETEST", 1);
    let error = state_file::load(&mut dmg, &cgb_file).expect_err("a CGB state in a DMG");
    assert!(matches!(error, StateError::WrongModel { .. }), "{error}");
    let mut cgb_again = Core::new(
        test_rom("STATETEST"),
        Options {
            model: backspin_core::Model::Cgb,
            ..Options::default()
        },
    );
    state_file::load(&mut cgb_again, &cgb_file).expect("a CGB state in a CGB");
    assert_eq!(cgb_again.state().as_bytes(), cgb.state().as_bytes());
}

#[test]
fn errors_say_what_is_wrong() {
    let core = running_core("STATETEST", 10);
    let file = state_file::save(&core, &Metadata::default());

    let mut other_game = running_core("OTHERGAME", 10);
    let error = state_file::load(&mut other_game, &file).unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("STATETEST") && message.contains("OTHERGAME"),
        "{message}"
    );

    let mut newer = file.clone();
    newer[8..10].copy_from_slice(&(FORMAT_MAJOR + 1).to_le_bytes());
    // The version is read before any checksum: a newer file is named as one.
    let message = state_file::decode(&newer)
        .err()
        .expect("refused")
        .to_string();
    assert!(
        message.contains(&format!("{}.{}", FORMAT_MAJOR + 1, FORMAT_MINOR)),
        "{message}"
    );
    assert!(
        message.contains(&format!("{FORMAT_MAJOR}.{FORMAT_MINOR}")),
        "{message}"
    );

    let info = state_file::info(&file).unwrap();
    let cut = &file[..info.checked_bytes - 4 - 1000];
    let message = state_file::decode(cut).err().expect("refused").to_string();
    assert!(
        message.contains("truncated") && message.contains("hw.cart_ram"),
        "{message}"
    );

    assert!(matches!(
        state_file::decode(b"not a state"),
        Err(StateError::NotASaveState)
    ));
}

/// Fixes the CRCs of a file whose checked part was edited, so the edit reaches the parser:
/// the state's, and from 1.7 the file's (right after it, over every other byte).
fn fix_crc(file: &mut [u8], checked_bytes: usize) {
    let crc = state_file::checksum::crc32(&file[..checked_bytes - 4]);
    file[checked_bytes - 4..checked_bytes].copy_from_slice(&crc.to_le_bytes());
    let minor = u16::from_le_bytes([file[10], file[11]]);
    if minor >= 7 {
        let at = checked_bytes;
        let mut rest = file[..at].to_vec();
        rest.extend_from_slice(&file[at + 4..]);
        let crc = state_file::checksum::crc32(&rest);
        file[at..at + 4].copy_from_slice(&crc.to_le_bytes());
    }
}

/// A ROM without cartridge RAM, so its states are small: JR -2 at 0x0100.
fn small_rom() -> Rom {
    let mut bytes = vec![0u8; 0x8000];
    bytes[0x134..0x139].copy_from_slice(b"SMALL");
    bytes[0x100..0x102].copy_from_slice(&[0x18, 0xFE]);
    Rom::from_bytes(bytes).expect("the small ROM is valid")
}

/// A file as the player writes it: thumbnail, metadata and BESS part included.
fn small_saved_file() -> (Core, Vec<u8>) {
    let mut core = Core::new(small_rom(), Options::default());
    for _ in 0..5 {
        core.run_frame();
    }
    let metadata = Metadata {
        created_unix_seconds: 1_764_000_000,
        frame: 5,
        emulator_version: state_file::EMULATOR_VERSION.to_string(),
        thumbnail_png: (0..300u32).map(|i| (i * 7) as u8).collect(),
    };
    let file = state_file::save(&core, &metadata);
    assert!(backspin_core::bess::has_footer(&file));
    (core, file)
}

/// From 1.7 the file CRC covers every byte: any single flipped bit, in the state, the
/// thumbnail, the metadata or the BESS part, is refused by `info` and by `load`, which
/// leaves the running game untouched. Every bit of the parts outside the state sections,
/// and one bit of every byte of the sections (a different bit from byte to byte).
#[test]
fn every_flipped_bit_is_refused() {
    let (source, good) = small_saved_file();
    let info = state_file::info(&good).expect("the good file");
    let sections = (info.checked_bytes - 4 - info.state_bytes)..(info.checked_bytes - 4);
    let mut core = Core::new(small_rom(), Options::default());
    core.run_frame();
    let before = core.state().as_bytes().to_vec();
    assert_ne!(&before[..], source.state().as_bytes());
    let mut flips = 0;
    for at in 0..good.len() {
        let bits: Vec<u8> = if sections.contains(&at) {
            vec![(at % 8) as u8]
        } else {
            (0..8).collect()
        };
        for bit in bits {
            let mut file = good.clone();
            file[at] ^= 1 << bit;
            if let Ok(info) = state_file::info(&file) {
                panic!("byte {at} bit {bit} flipped: info accepted it ({info:?})");
            }
            let error = match state_file::load(&mut core, &file) {
                Ok(_) => panic!("byte {at} bit {bit} flipped: the file loaded"),
                Err(error) => error,
            };
            assert!(
                !matches!(error, StateError::NotASaveState),
                "byte {at} bit {bit}: a damaged Backspin state must not pass for a foreign one"
            );
            assert!(!error.to_string().contains('\n'), "{error}");
            assert!(
                core.state().as_bytes() == &before[..],
                "byte {at} bit {bit}"
            );
            flips += 1;
        }
    }
    println!("{flips} flips of a {}-byte file refused", good.len());
}

/// Damage after the state (thumbnail, BESS part) is named as such, in one line.
#[test]
fn damage_outside_the_state_is_named() {
    let (_, good) = small_saved_file();
    let mut file = good.clone();
    let last = file.len() - 1; // in the BESS footer's "BESS"
    file[last] ^= 0x20;
    let error = state_file::info(&file).unwrap_err();
    assert!(
        matches!(error, StateError::BadFileChecksum { .. }),
        "{error}"
    );
    assert!(error.to_string().contains("file checksum"), "{error}");
    // Appended bytes are damage too.
    let mut longer = good.clone();
    longer.push(0);
    assert!(matches!(
        state_file::info(&longer),
        Err(StateError::BadFileChecksum { .. })
    ));
    // A file cut inside its metadata or BESS part is refused as well.
    let info = state_file::info(&good).unwrap();
    for len in [info.checked_bytes, info.checked_bytes + 2, good.len() - 1] {
        assert!(state_file::info(&good[..len]).is_err(), "cut at {len}");
    }
}

/// A 1.6 file (no file CRC) still loads, metadata and all, and a damaged metadata block
/// in one is still only ignored (1.6's rule).
#[test]
fn a_1_6_file_without_a_file_crc_still_loads() {
    let (core, _) = small_saved_file();
    let metadata = Metadata {
        thumbnail_png: vec![1, 2, 3],
        ..Metadata::default()
    };
    let old = state_file::encode_as_minor(core.state(), &RomIdentity::of(core.rom()), &metadata, 6);
    let mut other = Core::new(small_rom(), Options::default());
    let info = state_file::load(&mut other, &old).expect("1.6 loads");
    assert_eq!((info.minor, info.metadata), (6, Some(metadata)));
    assert_eq!(other.state().as_bytes(), core.state().as_bytes());
    let mut damaged = old.clone();
    let last = damaged.len() - 5; // in the thumbnail
    damaged[last] ^= 1;
    assert_eq!(state_file::info(&damaged).unwrap().metadata, None);
}

/// 10,000 damaged files: truncated, bit-flipped (with and without a repaired CRC), a wrong
/// CRC, another ROM, newer versions, garbage. None may panic; every one the loader refuses
/// leaves the running core unchanged, and only repaired-CRC flips may load at all.
#[test]
fn fuzzed_files_never_panic_or_touch_the_core() {
    let seed = 0x5EED_0012;
    println!("seed {seed:#x}");
    let mut random = SplitMix64::new(seed);
    let source = running_core("STATETEST", 20);
    let good = state_file::save(&source, &Metadata::default());
    let checked = state_file::info(&good).unwrap().checked_bytes;
    let foreign = state_file::save(&running_core("OTHERGAME", 20), &Metadata::default());
    let mut core = running_core("STATETEST", 5);
    let before = core.state().as_bytes().to_vec();
    let mut loaded = 0;
    for case in 0..10_000u32 {
        let kind = case % 8;
        let mut file = good.clone();
        let may_load = match kind {
            0 => {
                file.truncate(random.below(checked as u64) as usize);
                false
            }
            1 | 2 => {
                for _ in 0..1 + random.below(8) {
                    let at = random.below(checked as u64 - 4) as usize;
                    file[at] ^= 1 << random.below(8);
                }
                if kind == 2 {
                    fix_crc(&mut file, checked);
                }
                kind == 2
            }
            3 => {
                // Damage aimed at the structure: header and section names and lengths,
                // and the small fields, then a valid CRC.
                let at = random.below(2048.min(checked as u64 - 4)) as usize;
                file[at] = random.next_u64() as u8;
                fix_crc(&mut file, checked);
                true
            }
            4 => {
                let at = checked - 4 + random.below(4) as usize;
                file[at] ^= 1 << random.below(8);
                false
            }
            5 => {
                file = foreign.clone();
                false
            }
            6 => {
                let (major, minor) = if random.below(2) == 0 {
                    (FORMAT_MAJOR + 1 + random.below(3) as u16, 0)
                } else {
                    (FORMAT_MAJOR, FORMAT_MINOR + 1 + random.below(3) as u16)
                };
                file[8..10].copy_from_slice(&major.to_le_bytes());
                file[10..12].copy_from_slice(&minor.to_le_bytes());
                false
            }
            _ => {
                let len = random.below(4096) as usize;
                file = (0..len).map(|_| random.next_u64() as u8).collect();
                if random.below(2) == 0 && len >= 8 {
                    file[..8].copy_from_slice(&state_file::MAGIC);
                }
                false
            }
        };
        match state_file::load(&mut core, &file) {
            Ok(_) => {
                assert!(may_load, "case {case} (kind {kind}) loaded a damaged file");
                loaded += 1;
                core.load_state(&bytemuck::pod_read_unaligned::<State>(&before));
            }
            Err(_) => assert!(
                core.state().as_bytes() == &before[..],
                "case {case} (kind {kind}): a refused load changed the core"
            ),
        }
    }
    println!("{loaded} of 10000 damaged files were still valid and loaded");
}
