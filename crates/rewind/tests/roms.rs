//! Rewind on the real core: seeks and steps equal a straight run byte for byte (state and
//! picture), redo keeps the future, a different input forks it. Runs on the built-in ROM
//! always, and on the shared homebrew ROMs when they are present (skipped with a note
//! otherwise). The rewind bench (`backspin rewind-bench`) checks seeks and steps on more
//! ROMs in the frontend's tests.

use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::Timeline;
use backspin_rewind::{Captured, Config};
use backspin_test_support::{InputScript, builtin_rom};
use std::path::PathBuf;

fn test_roms_dir() -> Option<PathBuf> {
    backspin_harness::locate_test_roms().ok()
}

/// The shared test ROMs are missing: a skip, or a failure under `BACKSPIN_REQUIRE_TEST_ROMS`.
fn skip_no_roms() {
    backspin_test_support::skip_or_fail("shared test ROMs not found (set GB_TEST_ROMS)");
}

/// Plays `frames` frames on `timeline` with `script` (a function of the frame number) and
/// returns the states with what each capture did.
fn play(
    timeline: &mut Timeline,
    script: &mut impl FnMut(u64) -> u8,
    frames: u64,
) -> Vec<(u64, Box<State>, Option<Captured>)> {
    let mut out = Vec::new();
    for _ in 0..frames {
        timeline.set_buttons(script(timeline.frame()));
        timeline.run_frame();
        out.push((
            timeline.frame(),
            Box::new(*timeline.core().state()),
            timeline.last_capture(),
        ));
    }
    out
}

/// Plays 301 frames, rewinds, replays, forks, storing every `every`-th frame: with 2 the
/// newest frame played is not stored, and must stay reachable (redo) all the same.
fn redo_then_fork(rom: Vec<u8>, every: u32) {
    let rom = Rom::from_bytes(rom).unwrap();
    let config = Config {
        capture_every: every,
        ..Config::new(16 << 20)
    };
    let mut timeline = Timeline::with_config(Core::new(rom, Options::default()), config);
    // A fixed script as a function of the frame, so a replay can repeat it exactly.
    let mut recorded = Vec::new();
    let mut script_gen = InputScript::new(9);
    for _ in 0..400 {
        recorded.push(script_gen.next_frame());
    }
    let mut same = |f: u64| recorded[f as usize % 400];
    let first = play(&mut timeline, &mut same, 301);
    let newest = timeline.span().newest;
    assert_eq!(newest, 301);
    let stored_frame = |f: u64| f.is_multiple_of(u64::from(every));
    for (f, _, captured) in &first {
        let stored = matches!(captured, Some(Captured::Stored { .. }));
        assert_eq!(stored, stored_frame(*f), "frame {f}: {captured:?}");
    }

    // Redo reaches the newest frame played, stored or not.
    timeline.seek(newest - 3).unwrap();
    timeline.seek(newest).unwrap();
    let (_, last, _) = first.last().unwrap();
    assert!(
        timeline.core().state().as_bytes() == last.as_bytes(),
        "redo to the newest"
    );

    // Rewind 100 frames and play the same inputs: the future is replayed, not rewritten.
    let back_to = newest - 100;
    timeline.seek(back_to).unwrap();
    let replay = play(&mut timeline, &mut same, 50);
    for ((f, state, captured), (f0, state0, _)) in replay.iter().zip(&first[back_to as usize..]) {
        assert_eq!(f, f0);
        let expected = if stored_frame(*f) {
            Captured::Replayed
        } else {
            Captured::Skipped
        };
        assert_eq!(*captured, Some(expected), "frame {f}");
        assert!(state.as_bytes() == state0.as_bytes(), "replayed frame {f}");
    }
    assert_eq!(timeline.span().newest, newest, "future kept");

    // Now press something else: the timeline forks at the present frame.
    let fork_at = timeline.frame();
    let mut other = |f: u64| if f % 7 < 3 { 0x81 } else { 0x10 };
    let forked = play(&mut timeline, &mut other, 60);
    assert_eq!(timeline.span().newest, fork_at + 60);
    assert!(timeline.stats().forks >= 1);
    // Every frame of the new timeline, and the shared past, seeks exactly.
    for (f, state, _) in forked.iter().chain(&first[..back_to as usize]) {
        timeline.seek(*f).unwrap();
        assert!(
            timeline.core().state().as_bytes() == state.as_bytes(),
            "seek to {f} after fork"
        );
    }
}

#[test]
fn redo_then_fork_on_the_builtin_rom() {
    redo_then_fork(builtin_rom(), 1);
    redo_then_fork(builtin_rom(), 2);
}

#[test]
fn redo_then_fork_on_a_homebrew_rom() {
    let Some(dir) = test_roms_dir() else {
        return skip_no_roms();
    };
    match std::fs::read(dir.join("homebrew/pocket.gb")) {
        Ok(rom) => {
            redo_then_fork(rom.clone(), 1);
            redo_then_fork(rom, 2);
        }
        Err(e) => backspin_test_support::skip_or_fail(format!("pocket.gb: {e}")),
    }
}

/// Host time given to an MBC3 clock is an input like a button: seeks across it re-apply it
/// at the same M-cycle.
#[test]
fn rtc_host_time_is_replayed_on_seek() {
    let mut rom = builtin_rom();
    rom[0x147] = 0x10; // MBC3 + timer + RAM + battery
    rom[0x149] = 0x02; // 8 KiB RAM
    let mut sum = 0u8;
    for &b in &rom[0x134..=0x14C] {
        sum = sum.wrapping_sub(b).wrapping_sub(1);
    }
    rom[0x14D] = sum;
    let rom = Rom::from_bytes(rom).unwrap();
    let run = |with_rtc: bool| {
        let mut timeline = Timeline::new(Core::new(rom.clone(), Options::default()), 16 << 20);
        let mut states = Vec::new();
        for k in 0..200u64 {
            timeline.set_buttons(if k % 50 < 10 { 0x10 } else { 0 });
            if with_rtc && k == 100 {
                timeline.rtc_advance(3 * 86_400 + 3_661);
            }
            timeline.run_frame();
            states.push((timeline.frame(), Box::new(*timeline.core().state())));
        }
        (timeline, states)
    };
    let (_, control) = run(false);
    let (mut timeline, states) = run(true);
    assert_eq!(timeline.rewinder().rtc_log().len(), 1);
    assert!(
        control[150].1.as_bytes() != states[150].1.as_bytes(),
        "the clock advance must show in the state"
    );
    for (frame, state) in states.iter().step_by(7) {
        timeline.seek(*frame).unwrap();
        assert!(
            timeline.core().state().as_bytes() == state.as_bytes(),
            "seek to {frame} across the RTC event"
        );
    }
    // Back to just before the advance and playing on with the same buttons: the logged host
    // time is part of the timeline, not a choice the player makes again, so it is kept.
    timeline.seek(100).unwrap();
    for k in 100..160u64 {
        let buttons = if k % 50 < 10 { 0x10 } else { 0 };
        if timeline.core().buttons().0 != buttons {
            timeline.set_buttons(buttons);
        }
        timeline.run_frame();
    }
    assert!(
        timeline.core().state().as_bytes() == states[159].1.as_bytes(),
        "playing on from before the clock advance replays it"
    );
    assert_eq!(timeline.rewinder().rtc_log().len(), 1);
}

/// A reset is an input on the timeline: the core's clock restarts, the timeline's does
/// not; seeks across it re-apply it, rewinding past it brings the old game back, and
/// playing on after rewinding to before it forks it away.
#[test]
fn resets_are_replayed_on_seek_and_fork_like_inputs() {
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    let mut timeline = Timeline::new(Core::new(rom, Options::default()), 16 << 20);
    let mut script = InputScript::new(5);
    let mut states = vec![(0, Box::new(*timeline.core().state()))];
    let mut cycles = vec![timeline.cycle()];
    for k in 1..=300u64 {
        timeline.set_buttons(script.next_frame());
        if k == 120 || k == 121 || k == 250 {
            timeline.reset();
        }
        timeline.run_frame();
        states.push((timeline.frame(), Box::new(*timeline.core().state())));
        cycles.push(timeline.cycle());
    }
    assert!(
        cycles.windows(2).all(|w| w[0] < w[1]),
        "timeline cycles only grow"
    );
    assert!(
        states[130].1.hw.m_cycles < states[110].1.hw.m_cycles,
        "the core's clock restarted"
    );
    assert_eq!(timeline.rewinder().reset_log().count(), 3);
    for (frame, state) in states.iter().rev().step_by(3) {
        timeline.seek(*frame).unwrap();
        assert!(
            timeline.core().state().as_bytes() == state.as_bytes(),
            "seek to {frame} across resets"
        );
        assert_eq!(
            timeline.cycle(),
            cycles[*frame as usize],
            "cycle at {frame}"
        );
    }
    // Back to before the first reset, then play on without resetting: a fork.
    timeline.seek(100).unwrap();
    for _ in 0..30 {
        timeline.set_buttons(0);
        timeline.run_frame();
    }
    assert_eq!(timeline.span().newest, 130);
    assert_eq!(timeline.rewinder().reset_log().count(), 0);
    assert!(timeline.core().state().hw.m_cycles > states[110].1.hw.m_cycles);
}

/// The budget covers the input log too: inputs that change every frame over a long session
/// push out old history instead of growing past the budget.
#[test]
fn input_logs_stay_within_the_budget() {
    let budget = 256 * 1024;
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    let mut timeline = Timeline::new(Core::new(rom, Options::default()), budget);
    for frame in 0..20_000u32 {
        // A different button mask every frame: the worst case for the input log.
        timeline.set_buttons((frame % 255 + 1) as u8);
        timeline.run_frame();
    }
    let stats = timeline.stats();
    assert!(
        timeline.memory_bytes() <= budget,
        "{} bytes held ({} in the ring, {} in the input log) over a {budget} budget",
        timeline.memory_bytes(),
        stats.used_bytes,
        stats.input_log_bytes
    );
    let span = timeline.span();
    assert!(
        span.newest - span.oldest > 60,
        "history still holds {span:?}"
    );
    timeline
        .seek(span.oldest)
        .expect("the oldest frame held can be reached");
}
