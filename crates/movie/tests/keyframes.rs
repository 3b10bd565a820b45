//! Keyframes (movie format 1.2): whole states stored at some checkpoints. Verification of
//! an injected fault starts at the keyframe before it and reports exactly what a replay
//! from frame 0 reports; a real desync (an edited input, no reference run) is named field
//! by field at the first keyframe from the failed checkpoint; `from_frame` starts at a
//! keyframe; 1.0 files (no keyframes) still read; mutated files give errors, no panics.

mod support;

use backspin_core::Rom;
use backspin_core::state_file::checksum::crc32;
use backspin_movie::{
    Input, Movie, Outcome, RecordOptions, Script, VerifyOptions, decode, encode, record, verify,
};
use backspin_test_support::SplitMix64;
use support::draw_field_fault;

fn rom() -> Rom {
    let path = format!(
        "{}/../../roms-test/input_echo.asm",
        env!("CARGO_MANIFEST_DIR")
    );
    Rom::from_bytes(backspin_asm::assemble_file(&path).expect("assembles")).expect("a ROM")
}

fn recorded(frames: u64, seed: u64, keyframe_checkpoints: u32) -> Movie {
    let options = RecordOptions {
        keyframe_checkpoints,
        ..RecordOptions::default()
    };
    record(rom(), &Script::random(seed, frames), options).expect("records")
}

#[test]
fn keyframes_round_trip_and_1_0_files_still_read() {
    let movie = recorded(1200, 1, 2);
    let frames: Vec<u64> = movie.keyframes.iter().map(|k| k.frame).collect();
    assert_eq!(frames, (1..=10).map(|n| n * 120).collect::<Vec<_>>());
    assert_eq!(decode(&encode(&movie)).unwrap(), movie);

    // A 1.0 file: no KEYS section, minor 0.
    let mut old = movie.clone();
    old.keyframes.clear();
    let mut bytes = encode(&old);
    bytes[10..12].copy_from_slice(&0u16.to_le_bytes());
    let body = bytes.len() - 4;
    let crc = crc32(&bytes[..body]);
    bytes[body..].copy_from_slice(&crc.to_le_bytes());
    assert_eq!(decode(&bytes).unwrap(), old);
    assert!(matches!(
        verify(&old, rom(), &VerifyOptions::default()).unwrap(),
        Outcome::Clean { .. }
    ));
    let size = |m: &Movie| encode(m).len();
    println!(
        "1200 frames: {} bytes without keyframes, {} with 10 ({} per keyframe)",
        size(&old),
        size(&movie),
        (size(&movie) - size(&old)) / 10
    );
}

#[test]
fn a_fault_reported_from_a_keyframe_matches_a_full_replay() {
    let with_keys = recorded(1200, 2, 1);
    let mut without_keys = with_keys.clone();
    without_keys.keyframes.clear();
    let seed = 0x00F0_0D5E_ED00_0011;
    println!("fault seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    let mut late_starts = 0;
    for _ in 0..30 {
        let fault = draw_field_fault(&mut rng, with_keys.final_cycle);
        let options = VerifyOptions {
            fault: Some(fault),
            ..VerifyOptions::default()
        };
        let fast = verify(&with_keys, rom(), &options).unwrap();
        let full = verify(&without_keys, rom(), &options).unwrap();
        match (&fast, &full) {
            (Outcome::Desync(fast), Outcome::Desync(full)) => {
                assert_eq!(fast.cycle, full.cycle, "{fault:?}");
                assert_eq!(fast.frame, full.frame, "{fault:?}");
                assert_eq!(fast.differences, full.differences, "{fault:?}");
                assert_eq!(fast.fault_applied_at, full.fault_applied_at, "{fault:?}");
            }
            (
                Outcome::Clean {
                    fault_applied_at: fast_applied,
                    from_frame,
                    ..
                },
                Outcome::Clean {
                    fault_applied_at: full_applied,
                    ..
                },
            ) => {
                assert_eq!(fast_applied, full_applied, "{fault:?}");
                late_starts += usize::from(*from_frame > 0);
            }
            _ => panic!("{fault:?}: from a keyframe {fast:?}, from frame 0 {full:?}"),
        }
        if let Outcome::Desync(desync) = &fast {
            late_starts += usize::from(desync.frame >= 60);
        }
    }
    assert!(late_starts > 10, "few faults started late: {late_starts}");
}

#[test]
fn a_real_desync_is_named_field_by_field_at_a_keyframe() {
    for keyframe_checkpoints in [1, 3] {
        let mut movie = recorded(1200, 3, keyframe_checkpoints);
        let index = movie.events.len() / 2;
        let Input::Buttons(mask) = movie.events[index].input else {
            panic!("random scripts hold buttons only")
        };
        movie.events[index].input = Input::Buttons(mask ^ 0x01);
        let outcome = verify(&movie, rom(), &VerifyOptions::default()).unwrap();
        let Outcome::Desync(desync) = outcome else {
            panic!("an edited input goes unnoticed");
        };
        assert_eq!(desync.cycle, None, "no reference run");
        let at = desync.fields_at_frame.expect("a keyframe follows");
        let every = u64::from(keyframe_checkpoints) * 60;
        assert_eq!(
            at,
            desync.checkpoint_frame.div_ceil(every) * every,
            "{desync:?}"
        );
        assert!(desync.total_differences > 0, "{desync:?}");
        if at == desync.checkpoint_frame {
            // The fields named are those of the regions whose hashes failed there.
            assert!(
                desync
                    .differences
                    .iter()
                    .all(|d| desync.regions.contains(&d.region)),
                "{desync:?}"
            );
        }
        println!(
            "keyframes every {keyframe_checkpoints} checkpoint(s): desync in frame {}, fields at frame {at}: {:?}",
            desync.frame,
            desync
                .differences
                .iter()
                .map(|d| d.field.as_str())
                .collect::<Vec<_>>()
        );
    }
}

#[test]
fn verification_from_a_chosen_frame_starts_at_its_keyframe() {
    let movie = recorded(1200, 4, 1);
    let options = VerifyOptions {
        from_frame: Some(700),
        ..VerifyOptions::default()
    };
    let outcome = verify(&movie, rom(), &options).unwrap();
    let Outcome::Clean {
        from_frame,
        frames,
        final_cycle,
        ..
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert_eq!((from_frame, frames), (660, 1200));
    assert_eq!(final_cycle, movie.final_cycle);
}

#[test]
fn two_thousand_mutated_keyframe_movies_never_panic() {
    let clean = encode(&recorded(180, 5, 1));
    let seed = 0x00F0_22ED_0000_0011;
    println!("fuzz seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    for _ in 0..2000 {
        let mut bytes = clean.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bytes.len() as u64) as usize;
            bytes[at] = rng.next_u64() as u8;
        }
        // Fix the CRC half the time, so the parser behind it is reached.
        if rng.below(2) == 0 {
            let body = bytes.len() - 4;
            let crc = crc32(&bytes[..body]);
            bytes[body..].copy_from_slice(&crc.to_le_bytes());
        }
        if let Ok(movie) = decode(&bytes) {
            assert_eq!(decode(&encode(&movie)).unwrap(), movie);
            // A damaged keyframe must be an error too, not a panic, when verification
            // starts at it (replays are slow in a debug build: every tenth).
            if rng.below(10) == 0 {
                let options = VerifyOptions {
                    from_frame: Some(120),
                    ..VerifyOptions::default()
                };
                let _ = verify(&movie, rom(), &options);
            }
        }
    }
}
