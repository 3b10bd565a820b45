//! The core through its C ABI, as a frontend drives it: determinism across serialize and
//! unserialize, fixed state sizes, fuzzed states, saves, memory maps, cheats and bad input.

mod host;

use backspin_libretro::ffi::memory;
use backspin_libretro::memory_map;
use backspin_libretro::*;
use host::{Host, fnv_pixels, fnv_samples, scripted_buttons};

/// 3,000 frames with scripted input, states at frames 1,000 and 2,000; loading either and
/// replaying the same input gives the same pictures, sound and state bytes. The state size
/// never changes, across the run and across loads.
#[test]
fn states_replay_exactly_and_keep_one_size() {
    let Some(rom) = host::shared_rom("homebrew/gejmboj.gb") else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    let size = retro_serialize_size();
    let mut frames = Vec::new();
    let mut states = Vec::new();
    for frame in 0..3000u64 {
        if frame == 1000 || frame == 2000 {
            states.push(host.serialize());
        }
        let (video, audio) = host.frame(scripted_buttons(frame));
        frames.push((fnv_pixels(&video), fnv_samples(&audio), audio.len()));
        assert_eq!(
            retro_serialize_size(),
            size,
            "size changed at frame {frame}"
        );
    }
    let end = host.serialize();
    for (i, start) in [1000u64, 2000].into_iter().enumerate() {
        assert!(host.unserialize(&states[i]));
        assert_eq!(retro_serialize_size(), size);
        for frame in start..3000 {
            if frame == 2000 {
                assert_eq!(host.serialize(), states[1], "state at 2000 after replay");
            }
            let (video, audio) = host.frame(scripted_buttons(frame));
            assert_eq!(
                (fnv_pixels(&video), fnv_samples(&audio), audio.len()),
                frames[frame as usize],
                "frame {frame} replayed from {start}"
            );
        }
        assert_eq!(host.serialize(), end, "state at 3000 replayed from {start}");
    }
    // A fresh load of the same game and model has the same size.
    assert!(host.load(Some(&rom)));
    assert_eq!(retro_serialize_size(), size);
    assert!(host.unserialize(&end));
}

/// 10,000 damaged states (flipped bits, truncations, garbage, another game's state) are
/// refused and leave the running game as it was.
#[test]
fn fuzzed_states_are_refused_and_change_nothing() {
    let Some(rom) = host::shared_rom("homebrew/opus5.gb") else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    for frame in 0..30 {
        host.frame(scripted_buttons(frame));
    }
    let good = host.serialize();
    let mut rng = backspin_test_support::SplitMix64::new(31);
    for case in 0..10_000u32 {
        let mut bad = good.clone();
        match case % 4 {
            0 => {
                for _ in 0..1 + rng.below(4) {
                    let at = rng.below(bad.len() as u64) as usize;
                    bad[at] ^= 1 << rng.below(8);
                }
            }
            1 => bad.truncate(rng.below(bad.len() as u64) as usize),
            2 => {
                let at = rng.below(bad.len() as u64) as usize;
                let len = (1 + rng.below(64) as usize).min(bad.len() - at);
                for byte in &mut bad[at..at + len] {
                    *byte = rng.next_u64() as u8;
                }
            }
            _ => {
                bad = (0..rng.below(good.len() as u64 + 100))
                    .map(|_| rng.next_u64() as u8)
                    .collect();
            }
        }
        if bad == good {
            continue;
        }
        assert!(!host.unserialize(&bad), "case {case} was accepted");
    }
    assert_eq!(host.serialize(), good, "a refused state changed the game");
    // And a null buffer.
    assert!(!unsafe { retro_unserialize(std::ptr::null(), 100) });
}

/// The core's state file loads in `backspin run --load-state` and shows the same screen 300
/// frames later.
#[test]
fn a_serialized_state_loads_in_backspin_run() {
    let Some(rom) = host::shared_rom("homebrew/gejmboj.gb") else {
        return;
    };
    let Some(backspin) = host::backspin_binary() else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    for frame in 0..500 {
        host.frame(scripted_buttons(frame));
    }
    let state = host.serialize();
    let mut video = Vec::new();
    for _ in 0..300 {
        video = host.frame(0).0;
    }
    let dir = tempfile::tempdir().unwrap();
    let (rom_path, state_path, shot) = (
        dir.path().join("game.gb"),
        dir.path().join("game.state"),
        dir.path().join("shot.png"),
    );
    std::fs::write(&rom_path, &rom).unwrap();
    std::fs::write(&state_path, &state).unwrap();
    let status = std::process::Command::new(backspin)
        .arg("run")
        .arg(&rom_path)
        .arg("--load-state")
        .arg(&state_path)
        .args(["--frames", "300", "--no-save", "--screenshot"])
        .arg(&shot)
        .status()
        .unwrap();
    assert!(status.success());
    let (w, h, rgb) = host::read_png_rgb(&shot);
    assert_eq!((w, h), (160, 144));
    assert!(
        rgb == host::to_rgb(&video),
        "backspin run shows another screen"
    );
}

/// Runs `rom` in the core and in `backspin run` for `frames` frames without input; returns
/// (the core's save RAM, RTC bytes, the `.sav` that `backspin run` wrote).
fn saves_both_ways(rom: &[u8], frames: u64) -> Option<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let backspin = host::backspin_binary()?;
    let host = Host::new(&[]);
    assert!(host.load(Some(rom)));
    for _ in 0..frames {
        host.frame(0);
    }
    let ram = host.memory(memory::SAVE_RAM);
    let rtc = host.memory(memory::RTC);
    let dir = tempfile::tempdir().unwrap();
    let rom_path = dir.path().join("game.gb");
    std::fs::write(&rom_path, rom).unwrap();
    let status = std::process::Command::new(backspin)
        .arg("run")
        .arg(&rom_path)
        .args(["--frames", &frames.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let sav = std::fs::read(dir.path().join("game.sav")).expect("backspin run wrote a .sav");
    Some((ram, rtc, sav))
}

/// Save RAM equals the `.sav` of `backspin run` for the same ROM and frames.
#[test]
fn save_ram_equals_backspin_run_sav() {
    let Some((ram, rtc, sav)) = saves_both_ways(&host::own_rom("mbc1_ram"), 120) else {
        return;
    };
    assert_eq!(ram.len(), 32 * 1024);
    assert!(rtc.is_empty(), "no clock on this cartridge");
    assert!(ram == sav, "the .srm differs from the .sav");
}

/// On a clock cartridge the `.srm` is the RAM and the `.rtc` the `.sav`'s 48-byte clock
/// footer: the same registers (the host time stamp aside).
#[test]
fn rtc_and_save_ram_equal_backspin_run_sav() {
    let Some((ram, rtc, sav)) = saves_both_ways(&host::own_rom("rtc_clock"), 200) else {
        return;
    };
    assert_eq!(rtc.len(), 48);
    assert_eq!(sav.len(), ram.len() + 48);
    assert!(
        ram == sav[..ram.len()],
        "the .srm differs from the .sav's RAM"
    );
    let footer = &sav[ram.len()..];
    assert_eq!(rtc[..40], footer[..40], "clock registers differ");
    assert_ne!(&ram[5..8], &[0, 0, 0], "the game wrote its clock copy");
}

/// Reads through the memory descriptors (rcheevos' GB/GBC layout) equal the core's own
/// reads, including a CGB WRAM bank above 1 and a cartridge RAM bank above 0.
#[test]
fn memory_map_reads_match_the_core() {
    let rom = host::own_rom("mbc1_ram");
    let host = Host::new(&[("backspin_model", "cgb")]);
    assert!(host.load(Some(&rom)));
    for frame in 0..60 {
        host.frame(scripted_buttons(frame));
    }
    // Give WRAM bank 5 and cartridge RAM bank 2 recognisable bytes, through the core.
    backspin_libretro::with_loaded_core(|core| {
        core.poke_banked(5, 0xD123, 0x5A).unwrap();
        core.poke_banked(2, 0xA456, 0xC3).unwrap();
    });
    let map = host.descriptors();
    let read = |address: usize| memory_map::read(&map, address);
    assert_eq!(
        read(0x10000 + 3 * 0x1000 + 0x123),
        Some(0x5A),
        "WRAM bank 5"
    );
    assert_eq!(
        read(0x16000 + 0x2000 + 0x456),
        Some(0xC3),
        "cartridge RAM bank 2"
    );
    backspin_libretro::with_loaded_core(|core| {
        for address in 0..0x10000usize {
            let addr = address as u16;
            let expected = match addr {
                0x4000..=0x7FFF => core.peek_banked(1, addr).ok(),
                0x8000..=0xBFFF => core.peek_banked(0, addr).ok(),
                0xD000..=0xDFFF => core.peek_banked(1, addr).ok(),
                0xF000..=0xFDFF => core.peek_banked(1, addr - 0x2000).ok(),
                0xFE00..=0xFE9F => Some(core.state().hw.oam[usize::from(addr - 0xFE00)]),
                0xFEA0..=0xFF7F => None,
                _ => Some(core.peek(addr)),
            };
            assert_eq!(read(address), expected, "address {address:#06x}");
        }
        for bank in 2..8u16 {
            for offset in (0..0x1000u16).step_by(7) {
                let address = 0x10000 + usize::from(bank - 2) * 0x1000 + usize::from(offset);
                assert_eq!(
                    read(address),
                    core.peek_banked(bank, 0xD000 + offset).ok(),
                    "WRAM bank {bank}"
                );
            }
        }
        for bank in 1..4u16 {
            for offset in (0..0x2000u16).step_by(5) {
                let address = 0x16000 + usize::from(bank - 1) * 0x2000 + usize::from(offset);
                assert_eq!(
                    read(address),
                    core.peek_banked(bank, 0xA000 + offset).ok(),
                    "cartridge RAM bank {bank}"
                );
            }
        }
    });
    // Beyond the cartridge's four RAM banks nothing is mapped.
    assert_eq!(read(0x16000 + 3 * 0x2000), None);
    assert_eq!(host.memory(memory::SYSTEM_RAM).len(), 0x2000);
    assert_eq!(host.memory(memory::VIDEO_RAM).len(), 0x4000);
}

/// GameShark codes write RAM each frame; Game Genie codes patch ROM reads and leave the
/// ROM identity states carry unchanged; both replay exactly from a state.
#[test]
fn cheats_apply_deterministically() {
    let Some(rom) = host::shared_rom("homebrew/opus5.gb") else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    host.frame(0);
    let before = host.serialize();
    // GameShark: C123 = 0x42 every frame.
    unsafe { retro_cheat_set(0, true, c"01422".as_ptr()) };
    unsafe { retro_cheat_set(0, true, c"014223C1".as_ptr()) };
    host.frame(0);
    assert_eq!(
        backspin_libretro::with_loaded_core(|core| core.peek(0xC123)),
        Some(0x42)
    );
    // Game Genie without a compare byte: reads of 0x0150 give `value` (the address is
    // spelled C D E then F inverted: 1, 5, 0, F).
    let original = rom[0x150];
    let value = original ^ 0xFF;
    let code = format!("{value:02X}1-50F");
    let code = std::ffi::CString::new(code).unwrap();
    unsafe { retro_cheat_set(1, true, code.as_ptr()) };
    assert_eq!(
        backspin_libretro::with_loaded_core(|core| core.peek(0x0150)),
        Some(value)
    );
    // States still name the unpatched ROM: the state from before loads.
    assert!(host.unserialize(&before));
    let with_cheats: Vec<_> = (0..20).map(|f| fnv_pixels(&host.frame(f).0)).collect();
    assert!(host.unserialize(&before));
    let again: Vec<_> = (0..20).map(|f| fnv_pixels(&host.frame(f).0)).collect();
    assert_eq!(with_cheats, again);
    retro_cheat_reset();
    assert_eq!(
        backspin_libretro::with_loaded_core(|core| core.peek(0x0150)),
        Some(original)
    );
}

/// Null pointers where libretro allows them, truncated content, a CGB state into a DMG
/// run: a clear refusal, no panic, nothing lost.
#[test]
fn bad_input_is_refused_without_panicking() {
    let Some(ucity) = host::shared_rom("homebrew-cgb/ucity/ucity.gbc") else {
        return;
    };
    let host = Host::new(&[]);
    unsafe {
        retro_get_system_info(std::ptr::null_mut());
        retro_get_system_av_info(std::ptr::null_mut());
    }
    // Nothing loaded: every call is harmless.
    retro_run();
    assert_eq!(retro_serialize_size(), 0);
    assert!(retro_get_memory_data(memory::SAVE_RAM).is_null());
    unsafe { retro_cheat_set(0, true, std::ptr::null()) };
    assert!(!host.load(Some(&ucity[..100])), "truncated content");
    assert!(!host.load(Some(&[])), "empty content");
    let info = ffi::GameInfo {
        path: c"/nonexistent.gb".as_ptr(),
        data: std::ptr::null(),
        size: 0,
        meta: std::ptr::null(),
    };
    assert!(!unsafe { retro_load_game(&info) }, "a path without data");
    // No content: the demo.
    assert!(host.load(None));
    host.frame(0);

    assert!(host.load(Some(&ucity)));
    host.frame(0);
    let cgb_state = host.serialize();
    drop(host);
    let host = Host::new(&[("backspin_model", "dmg")]);
    assert!(host.load(Some(&ucity)));
    for _ in 0..3 {
        host.frame(0);
    }
    let dmg_state = host.serialize();
    assert!(!host.unserialize(&cgb_state), "a CGB state into a DMG run");
    assert_eq!(host.serialize(), dmg_state);
    assert!(!unsafe { retro_serialize(std::ptr::null_mut(), 10) });
    let mut small = vec![0u8; 10];
    assert!(!unsafe { retro_serialize(small.as_mut_ptr().cast(), small.len()) });
    unsafe { retro_cheat_set(3, true, c"not a code".as_ptr()) };
    host.frame(0);
}

/// What [`measure_audio_drift`] saw.
struct Drift {
    /// The least and the largest samples delivered - emulated seconds x 48,000 after a frame.
    range: (f64, f64),
    /// Frames that began with the LCD off or ended by `FrameBounds`' limit (the core's
    /// frame counter stood still), not at a frame end, where the core flushes its samples.
    lcd_off_frames: u64,
    /// Frames run wholly at CGB double speed.
    double_speed_frames: u64,
    /// Frames in which the speed switched.
    speed_switches: u64,
}

/// Runs `frames` frames of `rom` (with `options`) and compares, after every frame, the
/// samples delivered with the emulated time since the load x 48,000. Emulated time is the
/// APU's 2 MHz clock: two per M-cycle, one per M-cycle at double speed. A frame in which
/// the speed switches (STOP with KEY1 armed) does not say where inside it the switch fell:
/// counting restarts, samples and time alike, after it (a game switches once, at start).
fn measure_audio_drift(rom: &[u8], options: &[(&str, &str)], frames: u64) -> Drift {
    let host = Host::new(options);
    assert!(host.load(Some(rom)));
    let probe = || {
        backspin_libretro::with_loaded_core(|core| {
            let hw = &core.state().hw;
            let lcd_on = hw.ppu.lcdc & 0x80 != 0;
            (core.m_cycles(), hw.cgb.double_speed(), (hw.frames, lcd_on))
        })
        .unwrap()
    };
    let (mut m_cycles, mut double_speed, mut lcd_frames) = probe();
    let (mut apu_cycles, mut samples) = (0u64, 0u64);
    let mut drift = Drift {
        range: (0.0, 0.0),
        lcd_off_frames: 0,
        double_speed_frames: 0,
        speed_switches: 0,
    };
    for frame in 1..=frames {
        samples += host.frame(0).1.len() as u64 / 2;
        let (now, double_now, lcd_now) = probe();
        // The frame began with the LCD off (the core shows it blank) or ended by time.
        if !lcd_frames.1 || lcd_now.0 == lcd_frames.0 {
            drift.lcd_off_frames += 1;
        }
        if double_now != double_speed {
            drift.speed_switches += 1;
            (apu_cycles, samples) = (0, 0);
        } else {
            apu_cycles += (now - m_cycles) * if double_now { 1 } else { 2 };
            drift.double_speed_frames += u64::from(double_now);
        }
        (m_cycles, double_speed, lcd_frames) = (now, double_now, lcd_now);
        let expected = apu_cycles as f64 * 48_000.0 / f64::from(1u32 << 21);
        let off = samples as f64 - expected;
        drift.range = (drift.range.0.min(off), drift.range.1.max(off));
        assert!(
            off.abs() < 1.0,
            "frame {frame}: {samples} samples for {expected:.2} expected"
        );
    }
    drift
}

/// Frames the drift tests run: one emulated minute, or `BACKSPIN_AUDIO_DRIFT_FRAMES`
/// (215,000 for an hour).
fn drift_frames() -> u64 {
    std::env::var("BACKSPIN_AUDIO_DRIFT_FRAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3_600)
}

/// Sound keeps pace with emulated time on a DMG: after every frame the samples delivered
/// are within one sample of emulated seconds x 48,000 (the core finishes every sample up
/// to the present at the end of each `retro_run`), so nothing can accumulate.
#[test]
fn audio_does_not_drift_on_a_dmg() {
    let Some(rom) = host::shared_rom("homebrew/opus5.gb") else {
        return;
    };
    let frames = drift_frames();
    let drift = measure_audio_drift(&rom, &[], frames);
    println!(
        "opus5 (DMG), {frames} frames: difference {:?} samples",
        drift.range
    );
}

/// The same at CGB double speed: µCity switches to it at start and stays there.
#[test]
fn audio_does_not_drift_at_double_speed() {
    let Some(rom) = host::shared_rom("homebrew-cgb/ucity/ucity.gbc") else {
        return;
    };
    let frames = drift_frames();
    let drift = measure_audio_drift(&rom, &[], frames);
    assert!(drift.double_speed_frames > frames * 9 / 10);
    println!(
        "ucity (CGB), {frames} frames, {} at double speed: difference {:?} samples",
        drift.double_speed_frames, drift.range
    );
}

/// The same across frames with the LCD off, which end by time (`FrameBounds`), not at a
/// frame end where the core would flush its samples anyway.
#[test]
fn audio_does_not_drift_with_the_lcd_off() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/lcd_off.asm");
    let rom = backspin_asm::assemble_file(&path).expect("lcd_off.asm assembles");
    let frames = drift_frames();
    let drift = measure_audio_drift(&rom, &[], frames);
    assert!(drift.lcd_off_frames > frames / 4);
    println!(
        "lcd_off.asm, {frames} frames, {} with the LCD off: difference {:?} samples",
        drift.lcd_off_frames, drift.range
    );
}

/// Finishing every sample at the end of each frame changes when samples are delivered, not
/// what they are: the core's stream, run with `run_one_frame` alone, is the same samples.
#[test]
fn audio_is_the_cores_own_stream() {
    let Some(rom) = host::shared_rom("homebrew-cgb/ucity/ucity.gbc") else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    let mut delivered = Vec::new();
    for _ in 0..600 {
        delivered.extend(host.frame(0).1);
    }
    let parsed = backspin_core::Rom::from_bytes(rom).unwrap();
    let model = backspin_core::Model::auto_for(&parsed);
    let mut core = backspin_core::Core::new(
        parsed,
        backspin_core::Options {
            model,
            boot_rom: None,
        },
    );
    let mut own = Vec::new();
    for _ in 0..600 {
        backspin_core::run_one_frame(&mut core);
        core.output().audio.drain_i16(&mut own);
    }
    assert!(own.len() <= delivered.len() && own.len() + 2 * 100 > delivered.len());
    assert!(own.iter().any(|&s| s != own[0]), "no sound to compare");
    assert!(delivered[..own.len()] == own[..], "the samples differ");
}

/// A picture that did not change is sent as "the last one again" (null, to a frontend that
/// repeats frames), and frames the frontend does not show (run-ahead's hidden ones) are not
/// converted at all; what it shows is still each shown frame's own picture. Run-ahead by
/// one frame as RetroArch does it: a hidden frame, a state, a shown frame, the state back.
#[test]
fn unchanged_pictures_are_repeated_and_hidden_frames_skipped() {
    let Some(rom) = host::shared_rom("homebrew/gejmboj.gb") else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    let grey = |shade: &u8| [0xFFFFFF, 0xAAAAAA, 0x555555, 0][usize::from(shade & 3)];
    let truth = || {
        backspin_libretro::with_loaded_core(|core| core.frame().iter().map(grey).collect()).unwrap()
    };
    let mut shown_changes = 0;
    let mut last: Vec<u32> = Vec::new();
    for frame in 0..600u64 {
        host::frontend(|f| f.video_off = true);
        host.frame(scripted_buttons(frame));
        let state = host.serialize();
        host::frontend(|f| f.video_off = false);
        let (video, _) = host.frame(scripted_buttons(frame));
        let expected: Vec<u32> = truth();
        assert!(
            video == expected,
            "frame {frame}: the picture shown is not the frame's"
        );
        shown_changes += u32::from(video != last);
        last = video;
        assert!(host.unserialize(&state));
    }
    assert!(shown_changes > 10);
    let dupes = host::frontend(|f| f.dupes);
    assert!(dupes > 600, "{dupes} frames repeated");
    drop(host);
    // A still screen is sent once.
    let Some(rom) = host::shared_rom("homebrew/opus5.gb") else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    for _ in 0..300 {
        host.frame(0);
    }
    let dupes = host::frontend(|f| f.dupes);
    assert!(dupes > 250, "{dupes} of 300 frames repeated");
}

/// The options offered are the ones read: a palette change shows on the next frame.
#[test]
fn options_change_the_picture() {
    let Some(rom) = host::shared_rom("homebrew/opus5.gb") else {
        return;
    };
    let host = Host::new(&[]);
    assert!(host.load(Some(&rom)));
    let grey = host.frame(0).0;
    assert!(
        grey.iter()
            .all(|p| [0xFFFFFF, 0xAAAAAA, 0x555555, 0].contains(p))
    );
    host::frontend(|f| {
        f.options.insert(
            "backspin_dmg_palette".into(),
            std::ffi::CString::new("green").unwrap(),
        );
        f.options_changed = true;
    });
    let green = host.frame(0).0;
    assert!(!green.iter().any(|p| [0xAAAAAA, 0x555555].contains(p)));
}

/// Options v2 where the frontend has them, else the same keys as v1 variables; the v1
/// values are read back the same way.
#[test]
fn options_fall_back_to_v1_variables() {
    let host = Host::new(&[]);
    assert!(host::frontend(|f| f.got_v2 && f.variables.is_empty()));
    drop(host);
    let host = Host::with_frontend(&[("backspin_model", "cgb")], true);
    let (got_v2, variables) = host::frontend(|f| (f.got_v2, f.variables.clone()));
    assert!(!got_v2);
    let keys: Vec<&str> = variables.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        keys,
        [
            "backspin_model",
            "backspin_boot_rom",
            "backspin_colour_correction",
            "backspin_dmg_palette",
            "backspin_fast_paths"
        ]
    );
    assert!(variables[0].1.ends_with("; auto|dmg|cgb"));
    // The demo is a DMG cartridge; the option makes it run on a CGB.
    assert!(host.load(None));
    assert_eq!(
        backspin_libretro::with_loaded_core(|core| core.model()),
        Some(backspin_core::Model::Cgb)
    );
}
