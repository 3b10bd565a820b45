//! A memory write from a script is an input on the timeline: rewinding re-simulates it at
//! its exact cycle, redo repeats it, playing on without it forks the future away, and a
//! history file keeps it.

use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::{Config, MemoryWrite, Timeline};
use backspin_test_support::{InputScript, builtin_rom};

fn timeline(budget_bytes: usize) -> Timeline {
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    Timeline::new(Core::new(rom, Options::default()), budget_bytes)
}

/// The writes a script makes before frame `frame` runs.
fn write_before(timeline: &mut Timeline, frame: u64) {
    match frame {
        // Two writes at one cycle: they apply in the order made.
        50 => {
            timeline.poke(0xC123, 0x11);
            timeline.poke(0xC123, 0x22);
        }
        // An I/O register: the write acts as the CPU's would (scroll the background).
        90 => {
            timeline.poke(0xFF43, 0x35);
        }
        // Straight into WRAM bank 1 and VRAM bank 0.
        120 => {
            timeline.poke_banked(1, 0xD010, 0x77).unwrap();
            timeline.poke_banked(0, 0x9800, 0x01).unwrap();
        }
        // A write, then a reset at the same instant: the write survives the reset.
        160 => {
            timeline.poke(0xC200, 0x5A);
            timeline.reset();
        }
        // A write, a load and a write at the same instant: the load replaces the machine
        // the first write changed; the second write lands on the loaded one.
        190 => {
            let before = Box::new(*timeline.core().state());
            timeline.poke(0xC300, 0x66);
            timeline.load_state(&before);
            timeline.poke(0xC301, 0x99);
        }
        _ => {}
    }
}

/// Plays 220 frames with writes; returns the state after every frame (index = frame).
fn play(timeline: &mut Timeline, with_writes: bool) -> Vec<Box<State>> {
    let mut script = InputScript::new(11);
    let mut states = vec![Box::new(*timeline.core().state())];
    for frame in 1..=220u64 {
        timeline.set_buttons(script.next_frame());
        if with_writes {
            write_before(timeline, frame);
        }
        timeline.run_frame();
        states.push(Box::new(*timeline.core().state()));
    }
    states
}

/// The buttons `play` holds during `frame`.
fn buttons_of_frame(frame: u64) -> u8 {
    let mut script = InputScript::new(11);
    (1..=frame).map(|_| script.next_frame()).last().unwrap_or(0)
}

fn same(a: &State, b: &State) -> bool {
    a.as_bytes() == b.as_bytes()
}

#[test]
fn a_write_lands_at_once_and_changes_the_run() {
    let mut timeline = timeline(16 << 20);
    timeline.run_frame();
    timeline.poke(0xC123, 0x42);
    assert_eq!(timeline.peek(0xC123), 0x42);
    let mut plain = self::timeline(16 << 20);
    let written = play(&mut timeline, true);
    let unwritten = play(&mut plain, false);
    assert!(
        (50..=220).any(|f| !same(&written[f], &unwritten[f])),
        "the writes changed nothing"
    );
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    let mut core = Core::new(rom, Options::default());
    assert!(core.poke_banked(3, 0x4000, 1).is_err(), "ROM is read-only");
    assert!(
        core.poke_banked(2, 0xD000, 1).is_err(),
        "a DMG has one WRAM bank there"
    );
}

#[test]
fn a_load_undoes_writes_made_at_its_instant() {
    for budget in [0, 16 << 20] {
        let mut timeline = timeline(budget);
        timeline.run_frame();
        let saved = Box::new(*timeline.core().state());
        let original = timeline.peek(0xC300);
        timeline.poke(0xC300, original ^ 0xFF);
        timeline.load_state(&saved);
        assert_eq!(timeline.peek(0xC300), original, "budget {budget}");
        assert!(same(timeline.core().state(), &saved), "budget {budget}");
        assert_eq!(
            timeline.rewinder().write_log().count(),
            0,
            "budget {budget}"
        );
        // A write after the load stays.
        timeline.poke(0xC300, 0x42);
        timeline.run_frame();
        assert_eq!(timeline.peek(0xC300), 0x42, "budget {budget}");
    }
}

#[test]
fn rewinding_across_writes_reproduces_them() {
    let mut timeline = timeline(16 << 20);
    let states = play(&mut timeline, true);
    let log: Vec<MemoryWrite> = timeline.rewinder().write_log().collect();
    assert_eq!(log.len(), 7, "{log:?}");
    for frame in [
        49, 50, 51, 89, 90, 119, 120, 121, 159, 160, 161, 189, 190, 191, 220, 10,
    ] {
        timeline.seek(frame).unwrap();
        assert!(
            same(timeline.core().state(), &states[frame as usize]),
            "frame {frame} differs after a seek"
        );
    }
}

#[test]
fn redo_repeats_writes_and_a_missing_write_forks() {
    let mut timeline = timeline(16 << 20);
    let states = play(&mut timeline, true);
    let mut script = InputScript::new(11);
    // Redo from frame 30 with the same inputs and writes: every frame matches and the
    // future is kept.
    for _ in 1..=30 {
        script.next_frame();
    }
    timeline.seek(30).unwrap();
    for frame in 31..=130u64 {
        timeline.set_buttons(script.next_frame());
        write_before(&mut timeline, frame);
        timeline.run_frame();
        assert!(
            same(timeline.core().state(), &states[frame as usize]),
            "redo frame {frame}"
        );
    }
    assert_eq!(
        timeline.span().newest,
        220,
        "the kept future survives a faithful redo"
    );
    // Again from frame 100 without the writes at frame 120: a fork.
    let mut script = InputScript::new(11);
    for _ in 1..=100 {
        script.next_frame();
    }
    timeline.seek(100).unwrap();
    for frame in 101..=125u64 {
        timeline.set_buttons(script.next_frame());
        timeline.run_frame();
        let expected = &states[frame as usize];
        assert_eq!(
            same(timeline.core().state(), expected),
            frame < 120,
            "frame {frame}"
        );
    }
    assert_eq!(
        timeline.span().newest,
        125,
        "the future with the writes is gone"
    );
    assert_eq!(
        timeline.rewinder().write_log().count(),
        3,
        "writes up to frame 90 stay"
    );
    // The second of two writes at one cycle left out: the first stays, the future goes.
    timeline.seek(49).unwrap();
    timeline.set_buttons(buttons_of_frame(50));
    timeline.poke(0xC123, 0x11);
    timeline.run_frame();
    assert_eq!(timeline.peek(0xC123), 0x11);
    assert_eq!(timeline.rewinder().write_log().count(), 1);
    assert_eq!(timeline.span().newest, 50);
}

#[test]
fn a_history_file_keeps_the_writes() {
    let mut timeline = timeline(16 << 20);
    let states = play(&mut timeline, true);
    let file = timeline.save_history().unwrap();
    let rom = Rom::from_bytes(builtin_rom()).unwrap();
    let mut core = Core::new(rom, Options::default());
    core.load_state(timeline.core().state());
    let mut resumed = Timeline::resume(core, Config::new(16 << 20), &file).unwrap();
    assert_eq!(resumed.rewinder().write_log().count(), 7);
    resumed.seek(125).unwrap();
    assert!(same(resumed.core().state(), &states[125]));
}

#[test]
fn without_history_writes_still_apply_and_are_not_kept() {
    let mut timeline = timeline(0);
    let mut reference = self::timeline(16 << 20);
    let states = play(&mut reference, true);
    let plain = play(&mut timeline, true);
    assert!(
        same(&plain[220], &states[220]),
        "rewind off runs the same machine"
    );
    assert_eq!(timeline.rewinder().write_log().count(), 0);
}
