//! A timeline that stores every second frame (the default): the frames between stored
//! ones, the newest played above all, are reached by re-simulation, through a fork next to
//! them and across a resumed history file.

mod support;

use backspin_core::State;
use backspin_rewind::Timeline;
use backspin_test_support::InputScript;
use support::{config, core};

/// Plays one frame per input from the timeline's present.
fn play(timeline: &mut Timeline, inputs: &[u8]) {
    for &buttons in inputs {
        timeline.set_buttons(buttons);
        timeline.run_frame();
    }
}

/// The states of a straight run from power-on, without history: index `i` is frame `i + 1`.
fn straight(inputs: &[u8]) -> Vec<Box<State>> {
    let mut timeline = Timeline::new(core(), 0);
    inputs
        .iter()
        .map(|&buttons| {
            play(&mut timeline, &[buttons]);
            Box::new(*timeline.core().state())
        })
        .collect()
}

fn script(seed: u64, frames: usize) -> Vec<u8> {
    let mut script = InputScript::new(seed);
    (0..frames).map(|_| script.next_frame()).collect()
}

/// Seeks every frame in `frames` and compares it with the straight run's.
fn assert_seeks_match(timeline: &mut Timeline, expected: &[Box<State>], frames: &[u64]) {
    for &f in frames {
        timeline.seek(f).unwrap();
        assert!(
            timeline.core().state().as_bytes() == expected[f as usize - 1].as_bytes(),
            "frame {f}"
        );
    }
}

#[test]
fn a_fork_beside_the_unstored_newest_frame_replaces_it() {
    let played = script(9, 301);
    let mut timeline = Timeline::with_config(core(), config(2));
    play(&mut timeline, &played);
    assert_eq!(timeline.span().newest, 301);
    // Back to the stored frame before the newest, then another input: frame 301 of the old
    // run is no longer reachable, the new run's frames are.
    timeline.seek(300).unwrap();
    assert_eq!(
        timeline.span().newest,
        301,
        "the newest frame played is kept"
    );
    let mut other = played[..300].to_vec();
    other.extend(played[300..].iter().map(|b| b ^ 0x81));
    other.extend([0x10; 5]);
    timeline.set_buttons(other[300]);
    assert_eq!(
        timeline.span().newest,
        300,
        "the fork drops the frame played after it"
    );
    play(&mut timeline, &other[300..]);
    assert_eq!(timeline.span().newest, 306);
    let frames: Vec<u64> = (290..=306).collect();
    assert_seeks_match(&mut timeline, &straight(&other), &frames);
}

#[test]
fn a_history_file_keeps_the_newest_frame_played() {
    let played = script(13, 301);
    let expected = straight(&played);
    let mut timeline = Timeline::with_config(core(), config(2));
    play(&mut timeline, &played);
    // Saved while rewound to a frame between stored ones: the future after it includes the
    // unstored newest frame.
    timeline.seek(299).unwrap();
    let file = timeline.save_history().unwrap();
    let mut resumed_core = core();
    resumed_core.load_state(&expected[298]);
    let mut resumed = Timeline::resume(resumed_core, config(2), &file).unwrap();
    assert_eq!(resumed.frame(), 299);
    assert_eq!(resumed.span().newest, 301);
    assert_seeks_match(&mut resumed, &expected, &[301, 300, 299]);
    // Playing on with other input forks there, and seeks follow the new run.
    let mut other = played[..299].to_vec();
    other.extend([0x81, 0x81, 0x10]);
    play(&mut resumed, &other[299..]);
    assert_eq!(resumed.span().newest, 302);
    let frames: Vec<u64> = (290..=302).collect();
    assert_seeks_match(&mut resumed, &straight(&other), &frames);
}

#[test]
fn an_unstored_frame_forked_at_stays_reachable() {
    let played = script(17, 10);
    let mut timeline = Timeline::with_config(core(), config(2));
    play(&mut timeline, &played);
    // Frame 9 lies between stored frames: a differing input there drops frame 10 but not
    // frame 9, where the timeline stands.
    timeline.seek(9).unwrap();
    timeline.set_buttons(played[9] ^ 0x81);
    assert_eq!(timeline.span().newest, 9);
    timeline.seek(8).unwrap();
    assert_eq!(
        timeline.span().newest,
        9,
        "back from the fork, it is redo's to reach"
    );
    timeline.step_forward().unwrap();
    let expected = straight(&played[..9]);
    assert!(timeline.core().state().as_bytes() == expected[8].as_bytes());
}
