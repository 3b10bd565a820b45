//! The rewind history saved on exit and read on the next launch: the resumed timeline is at
//! the same frame with the same history (seeks give the same states), and a damaged, foreign
//! or mismatched file is an error, never a panic.

use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::{Config, HistoryError, Timeline};
use backspin_test_support::{InputScript, SplitMix64, builtin_rom};

fn core() -> Core {
    Core::new(Rom::from_bytes(builtin_rom()).unwrap(), Options::default())
}

/// 600 frames with changing buttons, a reset and a state load.
fn played() -> (Timeline, Vec<Box<State>>) {
    let mut timeline = Timeline::new(core(), 16 << 20);
    let mut script = InputScript::new(3);
    let mut states = vec![Box::new(*timeline.core().state())];
    for frame in 1..=600u64 {
        timeline.set_buttons(script.next_frame());
        if frame == 200 {
            timeline.reset();
        }
        if frame == 400 {
            let earlier = states[100].clone();
            timeline.load_state(&earlier);
        }
        timeline.run_frame();
        states.push(Box::new(*timeline.core().state()));
    }
    (timeline, states)
}

fn core_at(state: &State) -> Core {
    let mut core = core();
    core.load_state(state);
    core
}

#[test]
fn a_resumed_timeline_has_the_same_frame_and_history() {
    let (timeline, states) = played();
    let bytes = timeline.save_history().expect("history held");
    println!("history file: {} bytes for 600 frames", bytes.len());
    let mut resumed =
        Timeline::resume(core_at(&states[600]), Config::new(16 << 20), &bytes).expect("resumes");
    assert_eq!(resumed.frame(), 600);
    assert_eq!(resumed.span(), timeline.span());
    assert_eq!(resumed.cycle(), timeline.cycle());
    assert!(
        resumed.core().frame() == timeline.core().frame(),
        "the picture is drawn"
    );
    for frame in [599u64, 450, 401, 400, 399, 250, 200, 199, 10, 0] {
        resumed.seek(frame).unwrap();
        assert!(
            resumed.core().state().as_bytes() == states[frame as usize].as_bytes(),
            "seek to {frame} after resuming"
        );
    }
    // Playing on from the resumed present records as usual.
    resumed.seek(600).unwrap();
    for _ in 0..60 {
        resumed.run_frame();
    }
    assert_eq!(resumed.span().newest, 660);
    resumed.seek(590).unwrap();
    assert!(resumed.core().state().as_bytes() == states[590].as_bytes());
}

#[test]
fn a_smaller_budget_keeps_the_newest_history() {
    let (timeline, states) = played();
    let bytes = timeline.save_history().unwrap();
    let mut resumed =
        Timeline::resume(core_at(&states[600]), Config::new(16 * 1024), &bytes).expect("resumes");
    assert_eq!(resumed.frame(), 600);
    let oldest = resumed.span().oldest;
    assert!(oldest > 0 && oldest < 600, "{:?}", resumed.span());
    resumed.seek(oldest).unwrap();
    assert!(resumed.core().state().as_bytes() == states[oldest as usize].as_bytes());
}

#[test]
fn damaged_foreign_and_mismatched_files_are_errors() {
    let (timeline, states) = played();
    let bytes = timeline.save_history().unwrap();
    let resume = |bytes: &[u8]| {
        Timeline::resume(core_at(&states[600]), Config::new(16 << 20), bytes).map(|_| ())
    };
    assert_eq!(resume(b"nonsense"), Err(HistoryError::NotAHistory));
    assert_eq!(
        resume(&bytes[..bytes.len() - 1]),
        Err(HistoryError::Truncated)
    );
    assert_eq!(resume(&bytes[..40]), Err(HistoryError::Truncated));
    // The history of another moment: it does not lead to this state.
    assert_eq!(
        Timeline::resume(core_at(&states[599]), Config::new(16 << 20), &bytes).map(|_| ()),
        Err(HistoryError::Mismatch)
    );
    // Another ROM.
    let mut other = builtin_rom();
    other[0x7FFF] ^= 1;
    let other = Core::new(Rom::from_bytes(other).unwrap(), Options::default());
    assert_eq!(
        Timeline::resume(other, Config::new(16 << 20), &bytes).map(|_| ()),
        Err(HistoryError::OtherRom)
    );
    // Bit flips anywhere: an error (the CRC), never a panic.
    let mut rng = SplitMix64::new(12);
    for _ in 0..200 {
        let mut damaged = bytes.clone();
        let at = rng.below(damaged.len() as u64) as usize;
        damaged[at] ^= 1 << rng.below(8);
        assert!(resume(&damaged).is_err(), "flip at {at}");
    }
    // A history of nothing (rewind off) is not written.
    assert!(Timeline::new(core(), 0).save_history().is_none());
}
