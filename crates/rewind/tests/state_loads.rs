//! A state load is an event on the timeline: frames and cycles keep counting up, rewinding
//! past a load brings back the game as it was before it, redo applies it again, and playing
//! on after rewinding to before it forks it away.

use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::Timeline;
use backspin_test_support::{InputScript, builtin_rom};

fn timeline(budget_bytes: usize) -> Timeline {
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    Timeline::new(Core::new(rom, Options::default()), budget_bytes)
}

/// Plays 300 frames, saving the state at frame 40 and at frame 260 (a state from the
/// future, whose M-cycle clock is ahead of the timeline's when loaded), loading the first
/// at frame 150 and the second at frame 200. Returns the state after every frame, and
/// notes the timeline cycle after every frame in `cycles`.
fn play_with_loads_noting(timeline: &mut Timeline, cycles: &mut Vec<u64>) -> Vec<Box<State>> {
    let mut script = InputScript::new(7);
    let future = {
        // A state far ahead: the same game 3000 frames in.
        let mut other = timeline_core_copy(timeline);
        for _ in 0..3000 {
            other.run_frame();
        }
        Box::new(*other.state())
    };
    let mut saved = None;
    let mut states = vec![Box::new(*timeline.core().state())];
    for frame in 1..=300u64 {
        timeline.set_buttons(script.next_frame());
        match frame {
            150 => timeline.load_state(saved.as_deref().expect("saved at 40")),
            200 => timeline.load_state(&future),
            _ => {}
        }
        timeline.run_frame();
        if frame == 40 {
            saved = Some(Box::new(*timeline.core().state()));
        }
        states.push(Box::new(*timeline.core().state()));
        cycles.push(timeline.cycle());
    }
    states
}

fn play_with_loads(timeline: &mut Timeline) -> Vec<Box<State>> {
    play_with_loads_noting(timeline, &mut Vec::new())
}

fn timeline_core_copy(timeline: &Timeline) -> Core {
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    let mut core = Core::new(rom, Options::default());
    core.load_state(timeline.core().state());
    core
}

#[test]
fn rewinding_across_a_load_returns_to_the_game_before_it() {
    let mut timeline = timeline(16 << 20);
    let mut cycles = vec![timeline.cycle()];
    let states = play_with_loads_noting(&mut timeline, &mut cycles);
    assert_eq!(timeline.frame(), 300, "frames keep counting across loads");
    assert!(
        cycles.windows(2).all(|w| w[0] < w[1]),
        "timeline cycles only grow"
    );
    assert_eq!(timeline.rewinder().load_log().count(), 2);
    assert_eq!(timeline.rewinder().reset_log().count(), 0);
    assert!(
        states[151].hw.frames < states[149].hw.frames,
        "the core went back to the frame-40 state"
    );
    // Step back one frame at a time across both loads: every state is the one played.
    while timeline.frame() > 100 {
        timeline.step_back().unwrap();
        let frame = timeline.frame() as usize;
        assert!(
            timeline.core().state().as_bytes() == states[frame].as_bytes(),
            "step back to {frame}"
        );
        assert_eq!(timeline.cycle(), cycles[frame], "cycle at {frame}");
    }
    // Redo across both loads.
    while timeline.frame() < 300 {
        timeline.step_forward().unwrap();
        let frame = timeline.frame() as usize;
        assert!(
            timeline.core().state().as_bytes() == states[frame].as_bytes(),
            "redo to {frame}"
        );
    }
    // Seeks land exactly, whichever side of a load.
    for frame in [149u64, 150, 151, 199, 200, 201, 120, 290] {
        timeline.seek(frame).unwrap();
        assert!(
            timeline.core().state().as_bytes() == states[frame as usize].as_bytes(),
            "seek to {frame}"
        );
    }
}

#[test]
fn playing_on_from_before_a_load_forks_it_away() {
    let mut timeline = timeline(16 << 20);
    let states = play_with_loads(&mut timeline);
    timeline.seek(149).unwrap();
    assert!(timeline.core().state().as_bytes() == states[149].as_bytes());
    // The player does not load this time: the load (and everything after) is forked away.
    for _ in 0..10 {
        timeline.set_buttons(0);
        timeline.run_frame();
    }
    assert_eq!(timeline.span().newest, 159);
    assert_eq!(timeline.rewinder().load_log().count(), 0);
    assert!(timeline.core().state().hw.frames > states[149].hw.frames);
}

#[test]
fn a_load_without_history_still_counts_up_and_keeps_no_states() {
    let mut timeline = timeline(0);
    let states = play_with_loads(&mut timeline);
    assert_eq!(timeline.frame(), 300);
    assert!(timeline.core().state().as_bytes() == states[300].as_bytes());
    assert!(timeline.rewinder().load_log().count() <= 1);
    assert!(timeline.seek(100).is_err());
}

/// Loads count against the budget: many loads push out old history rather than growing
/// past it.
#[test]
fn loaded_states_stay_within_the_budget() {
    let budget = 2 << 20;
    let mut timeline = timeline(budget);
    let first = Box::new(*timeline.core().state());
    let held = |timeline: &Timeline| {
        timeline.memory_bytes() + timeline.rewinder().load_log().count() * size_of::<State>()
    };
    for frame in 0..1200u32 {
        if frame % 30 == 0 {
            timeline.load_state(&first);
        }
        timeline.run_frame();
        assert!(
            held(&timeline) <= budget + size_of::<State>(),
            "{} bytes of history over a {budget} budget",
            held(&timeline)
        );
    }
    assert!(timeline.span().oldest > 0, "old history made room");
    let oldest = timeline.span().oldest;
    timeline.seek(oldest).unwrap();
}

/// `restore_state` makes the machine exactly the saved one, buttons included, where
/// `load_state` keeps the buttons held now; both are events a rewind can cross.
#[test]
fn restore_state_brings_back_the_saved_buttons() {
    let mut timeline = timeline(8 << 20);
    for _ in 0..30 {
        timeline.run_frame();
    }
    let saved: Box<State> = Box::new(*timeline.core().state());
    assert_eq!(saved.hw.joypad.pressed, 0);
    timeline.set_buttons(backspin_core::Buttons::A);
    for _ in 0..10 {
        timeline.run_frame();
    }
    timeline.load_state(&saved);
    assert_eq!(
        timeline.core().state().hw.joypad.pressed,
        backspin_core::Buttons::A
    );
    timeline.restore_state(saved.clone());
    assert_eq!(timeline.buttons(), 0);
    assert_eq!(timeline.core().state().as_bytes(), saved.as_bytes());
    timeline.run_frame();
    timeline.seek(35).expect("before both loads");
}
