//! The 10-minute movie measurement of `docs/movies.md`, as an ignored test (minutes of
//! emulation): a movie of a homebrew game with seeded random play verifies clean, and 50
//! single-bit faults at random cycles are each reported at the M-cycle they went in, with
//! the field, or leave no trace at all. Prints each report's time: with the default
//! keyframes (every 600 frames) a report replays from the keyframe before its fault.
//!
//! `cargo test --release -p backspin-movie --test ten_minutes -- --ignored --nocapture`
//! (skips with a message when `../shared/test-roms` is absent).

mod support;

use backspin_core::Rom;
use backspin_movie::regions::field_at;
use backspin_movie::{Outcome, RecordOptions, Script, VerifyOptions, record, verify};
use backspin_test_support::SplitMix64;
use std::time::Instant;
use support::draw_field_fault;

#[test]
#[ignore = "ten emulated minutes per fault: run on purpose, in release"]
fn fifty_faults_in_a_ten_minute_movie() {
    let root = match backspin_harness::locate_test_roms() {
        Ok(root) => root,
        Err(reason) => return backspin_test_support::skip_or_fail(reason),
    };
    let bytes = std::fs::read(root.join("homebrew/pocket.gb")).expect("pocket.gb");
    let rom = Rom::from_bytes(bytes).expect("a ROM");
    let movie = record(
        rom.clone(),
        &Script::random(1, 36_000),
        RecordOptions::default(),
    )
    .unwrap();
    let mut bare = movie.clone();
    bare.keyframes.clear();
    println!(
        "movie: {} bytes with {} keyframes, {} bytes without",
        backspin_movie::encode(&movie).len(),
        movie.keyframes.len(),
        backspin_movie::encode(&bare).len()
    );
    let clock = Instant::now();
    let clean = verify(&movie, rom.clone(), &VerifyOptions::default()).unwrap();
    println!(
        "clean verify: {:.1} s, {clean:?}",
        clock.elapsed().as_secs_f64()
    );
    assert!(matches!(clean, Outcome::Clean { .. }));
    let seed = 0x00F0_0D5E_ED00_0050;
    println!("fault seed {seed:#x}");
    let mut rng = SplitMix64::new(seed);
    let (mut found, mut absorbed, mut slowest) = (0, 0, 0f64);
    for _ in 0..50 {
        let fault = draw_field_fault(&mut rng, movie.final_cycle);
        let options = VerifyOptions {
            fault: Some(fault),
            ..VerifyOptions::default()
        };
        let clock = Instant::now();
        let outcome = verify(&movie, rom.clone(), &options).unwrap();
        let seconds = clock.elapsed().as_secs_f64();
        slowest = slowest.max(seconds);
        match outcome {
            Outcome::Clean { .. } => {
                absorbed += 1;
                println!("{fault:?}: no lasting effect ({seconds:.1} s)");
            }
            Outcome::Desync(desync) => {
                let applied = desync.fault_applied_at.expect("applied");
                assert_eq!(desync.cycle, Some(applied), "{fault:?}: {desync:?}");
                assert_eq!(desync.differences[0].field, field_at(fault.offset).unwrap());
                found += 1;
                println!(
                    "{fault:?}: frame {} M-cycle {applied} field {} ({seconds:.1} s)",
                    desync.frame, desync.differences[0].field
                );
            }
        }
    }
    println!("{found} reported exactly, {absorbed} without trace; slowest report {slowest:.1} s");
}
