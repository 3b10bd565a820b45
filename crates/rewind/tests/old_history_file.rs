//! A history file written before the record format lost its value-block option (the
//! fixture is the output of `write_old_history_fixture` at that time): it still loads, and
//! seeks in it land on exactly the states of the live run it was saved from.

use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::{Config, Timeline};
use backspin_test_support::{InputScript, builtin_rom};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/history_v2_builtin_300.bin"
);

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
fn an_old_history_file_loads_and_replays_identically() {
    let (timeline, states) = played();
    let bytes = std::fs::read(FIXTURE).expect("fixture");
    // The format did not change: today's writer produces the same bytes but for the
    // save-state minor it stamps (a later minor with the same `State` layout) and so the
    // file's CRC.
    let today = timeline.save_history().unwrap();
    assert_eq!(today.len(), bytes.len(), "same length");
    assert!(
        today[..MINOR_AT] == bytes[..MINOR_AT],
        "same header up to the minor"
    );
    let end = bytes.len() - 4;
    assert!(
        today[MINOR_AT + 2..end] == bytes[MINOR_AT + 2..end],
        "same records"
    );
    let mut core = core();
    core.load_state(&states[300]);
    let mut resumed = Timeline::resume(core, Config::new(4 << 20), &bytes).expect("resumes");
    assert_eq!(resumed.frame(), 300);
    assert_eq!(resumed.span(), timeline.span());
    for frame in [299u64, 250, 201, 200, 199, 120, 91, 90, 89, 57, 8, 0] {
        resumed.seek(frame).unwrap();
        assert!(
            resumed.core().state().as_bytes() == states[frame as usize].as_bytes(),
            "seek to {frame}"
        );
    }
}
