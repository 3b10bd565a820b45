//! The fast-path oracle: every speed trick of the core, switched off alone, must leave the
//! bytes that all of them on leave. Each ROM runs on one core with every trick on and one
//! core per trick with that trick off, in lockstep with the same seeded buttons, and the
//! states are compared after every run: whole frames and runs to random M-cycles. Drawing
//! and synthesis change output by design: with drawing off no picture is compared, with
//! synthesis off the synthesizer's bytes and the sound are not. On the first difference
//! the test names the trick, the ROM, the model, the frame, the first differing instruction
//! (M-cycle and PC) and field.
//!
//! Our own ROMs (`roms-test/`, the demo) always run; the shared test ROMs when present
//! (skipped with a reason otherwise, a failure under `BACKSPIN_REQUIRE_TEST_ROMS`). The
//! `#[ignore]`d long run gives every ROM 3,000 frames.

mod cases;
mod diagnose;
mod oracle;
mod tricks;

use cases::Case;
use oracle::Tally;
use tricks::tricks;

/// Frames per ROM in the run `cargo test` makes.
const SHORT_FRAMES: u64 = 240;
/// Frames per ROM in the long run.
const LONG_FRAMES: u64 = 3_000;

/// Runs every case against every trick; panics with the first difference, or when the
/// tally shows that something was not compared.
fn check_all(cases: &[Case], frames: u64, seed: u64) {
    let tricks = tricks();
    let mut tally = Tally::default();
    for (index, case) in cases.iter().enumerate() {
        let seed = seed + index as u64;
        println!(
            "{} ({:?}): {frames} frames, seed {seed:#x}",
            case.name, case.model
        );
        if let Err(message) = oracle::check(case, &tricks, frames, seed, &mut tally) {
            panic!("{message}");
        }
    }
    if cases.is_empty() {
        return;
    }
    for (trick, &states) in tricks.iter().zip(&tally.states) {
        println!("{}: {states} states compared", trick.name());
        // Dozens of runs a frame's length or shorter per ROM.
        assert!(
            states >= frames * tally.roms / 2,
            "`{}` off: only {states} states compared over {} ROMs",
            trick.name(),
            tally.roms
        );
    }
    println!(
        "{} pictures, {} samples compared",
        tally.pictures, tally.samples
    );
    assert!(tally.pictures > 0, "no picture compared");
    assert!(tally.samples > 0, "no sound compared");
}

#[test]
fn own_roms_match_with_each_trick_off() {
    check_all(&cases::own_roms(), SHORT_FRAMES, 0x5EED_F000);
}

#[test]
fn shared_roms_match_with_each_trick_off() {
    check_all(&cases::shared_roms(), SHORT_FRAMES, 0x5EED_F100);
}

#[test]
#[ignore = "long: 3,000 frames per ROM (cargo test --release -- --ignored)"]
fn every_rom_matches_with_each_trick_off_for_3000_frames() {
    let mut cases = cases::own_roms();
    cases.extend(cases::shared_roms());
    check_all(&cases, LONG_FRAMES, 0x5EED_F200);
}
