//! `Timeline::checkpoint` and `restore_checkpoint`: coming back to a checkpoint taken
//! mid-frame and running on reaches the same `State`, picture and frame numbers as a seek
//! and re-simulation would, and the history recorded from there is the same.

use backspin_core::{Core, Options, Rom};
use backspin_rewind::Timeline;
use backspin_test_support::{InputScript, builtin_rom};

fn played() -> Timeline {
    let core = Core::new(Rom::from_bytes(builtin_rom()).unwrap(), Options::default());
    let mut timeline = Timeline::new(core, 16 << 20);
    let mut script = InputScript::new(7);
    for _ in 0..120 {
        timeline.set_buttons(script.next_frame());
        timeline.run_frame();
    }
    timeline
}

/// State bytes, picture, frame and cycle.
fn snapshot(timeline: &mut Timeline) -> (Vec<u8>, Vec<u8>, u64, u64) {
    let (frame, cycle) = (timeline.frame(), timeline.cycle());
    let state = timeline.core().state().as_bytes().to_vec();
    let picture = timeline.output().frame.to_vec();
    (state, picture, frame, cycle)
}

#[test]
fn a_restored_checkpoint_runs_on_as_a_seek_does() {
    let mut timeline = played();
    timeline.seek(60).unwrap();
    for _ in 0..1500 {
        timeline.step_instruction();
    }
    let checkpoint = timeline.checkpoint();
    assert_eq!(checkpoint.cycle(), timeline.cycle());
    // Past the next frame end, so a frame is recorded on the way.
    let target = timeline.cycle() + 20_000;
    timeline.run_to_cycle(target);
    let reference = snapshot(&mut timeline);

    timeline.seek(100).unwrap();
    timeline.restore_checkpoint(&checkpoint);
    assert_eq!(timeline.cycle(), checkpoint.cycle());
    timeline.run_to_cycle(target);
    assert!(
        snapshot(&mut timeline) == reference,
        "differs from the first run"
    );

    // The history is unchanged: the frames after it seek to the states they had.
    timeline.run_frame();
    let ran_on = timeline.core().state().as_bytes().to_vec();
    let frame = timeline.frame();
    timeline.seek(frame).unwrap();
    assert!(timeline.core().state().as_bytes() == &ran_on[..]);
    assert_eq!(timeline.span().newest, 120);
}
