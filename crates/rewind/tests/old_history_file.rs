//! A history file written before the record format lost its value-block option (the
//! fixture is the output of `write_old_history_fixture` at that time): it still reads.
//!
//! The file also holds the emulation of its day. Since then the envelope's counter took new
//! bits of the APU state, so the demo's states differ from the file's in the APU
//! and a resume stops at its final check (the present re-simulated against the core's
//! state): `Mismatch`, which the player reports as a history that no longer fits and starts a
//! new one. Every record has been read and decoded by then. Exact replay of a history file is
//! `history_file.rs`'s test, with today's emulation.

use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::{Config, HistoryError, Timeline};
use backspin_test_support::{InputScript, builtin_rom};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/history_v2_builtin_300.bin"
);

/// Where the header stamps the history format's version: after the magic.
const VERSION_AT: usize = 8;

/// Where the header stamps the save-state format's minor: after the magic, the history
/// version, the state length, the byte order and the major.
const MINOR_AT: usize = 8 + 2 + 4 + 1 + 2;

fn core() -> Core {
    Core::new(Rom::from_bytes(builtin_rom()).unwrap(), Options::default())
}

/// 300 frames with changing buttons, a reset, a state load and memory writes.
fn played() -> (Timeline, Vec<Box<State>>) {
    let mut timeline = Timeline::new(core(), 4 << 20);
    let mut script = InputScript::new(21);
    let mut states = vec![Box::new(*timeline.core().state())];
    for frame in 1..=300u64 {
        timeline.set_buttons(script.next_frame());
        if frame == 90 {
            timeline.reset();
        }
        if frame % 50 == 7 {
            timeline.poke(0xC010, frame as u8);
        }
        if frame == 200 {
            let earlier = states[60].clone();
            timeline.load_state(&earlier);
        }
        timeline.run_frame();
        states.push(Box::new(*timeline.core().state()));
    }
    (timeline, states)
}

/// Writes the fixture (run by hand: `cargo test -p backspin-rewind --test old_history_file
/// -- --ignored`); the committed file must stay the one written by the old format's code.
#[test]
#[ignore]
fn write_old_history_fixture() {
    let (timeline, _) = played();
    std::fs::write(FIXTURE, timeline.save_history().unwrap()).unwrap();
}

#[test]
fn an_old_history_file_still_reads() {
    let (timeline, states) = played();
    let bytes = std::fs::read(FIXTURE).expect("fixture");
    // Today's writer stamps the same header but for the history version (3 added the
    // newest frame played, after the writes) and the save-state minor (a later minor with
    // the same `State` layout).
    let today = timeline.save_history().unwrap();
    assert!(
        today[..VERSION_AT] == bytes[..VERSION_AT]
            && today[VERSION_AT + 2..MINOR_AT] == bytes[VERSION_AT + 2..MINOR_AT],
        "same header but for the version and the minor"
    );
    let mut core = core();
    core.load_state(&states[300]);
    let resumed = Timeline::resume(core, Config::new(4 << 20), &bytes);
    assert!(
        matches!(resumed, Err(HistoryError::Mismatch)),
        "the old file reads to its end and only the emulation differs"
    );
}
