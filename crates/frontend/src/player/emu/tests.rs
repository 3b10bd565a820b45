use super::*;
use crate::battery::ClockCatchUp;
use backspin_core::Buttons;
use std::collections::HashMap;

fn demo_emu(budget_bytes: usize) -> (Emu, FrameReceiver) {
    let rom =
        backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).expect("the demo is a ROM");
    let mut game = Game::open(rom, None, backspin_core::Model::Dmg).expect("the demo has no save");
    game.slots = None; // never the user's data directory
    emu_for(game, budget_bytes)
}

/// An emulator on `game`, playing at once, silent, with `budget_bytes` of history.
fn emu_for(game: Game, budget_bytes: usize) -> (Emu, FrameReceiver) {
    let (frames_tx, frames_rx) = frame_channels();
    let settings = EmuSettings {
        rewind_budget_bytes: budget_bytes,
        start_paused: false,
        fresh: true,
        notices: None,
        record: None,
        debug_port: None,
        speedrun: false,
        fast_forward: 0,
    };
    let emu = Emu::new(
        game,
        &settings,
        frames_tx,
        AudioSink::silent(),
        Box::new(|| {}),
    );
    (emu, frames_rx)
}

fn picture(emu: &Emu) -> Box<Picture> {
    let mut picture = Picture::boxed();
    picture.capture(emu.timeline.core());
    picture
}

/// Plays frame `frame` of the tests' scripted walk: RIGHT for frames 60-119, A for
/// 150-155, a reset at frame 200.
fn play_scripted_frame(emu: &mut Emu, frame: u64) {
    emu.buttons = match frame {
        60..=119 => Buttons::RIGHT,
        150..=155 => Buttons::A,
        _ => 0,
    };
    if frame == 200 {
        emu.pending_reset = true;
    }
    emu.play_frame(false);
}

/// Rewinding shows exactly the pictures that were shown while playing, across a reset,
/// and redo replays them; different input drops the future.
#[test]
fn rewind_and_redo_show_the_pictures_played() {
    let (mut emu, _frames) = demo_emu(16 << 20);
    let mut shown: HashMap<u64, Box<Picture>> = HashMap::new();
    for frame in 1..=240u64 {
        play_scripted_frame(&mut emu, frame);
        assert_eq!(emu.timeline.span().position, frame);
        shown.insert(frame, picture(&emu));
    }
    assert_ne!(shown[&100], shown[&50], "walking changes the picture");
    for _ in 0..150 {
        assert!(emu.step_back());
        let position = emu.timeline.span().position;
        assert!(
            picture(&emu) == shown[&position],
            "rewound picture differs at frame {position}"
        );
    }
    assert_eq!(emu.timeline.span().position, 90);
    for _ in 0..20 {
        assert!(emu.step_forward());
        let position = emu.timeline.span().position;
        assert!(
            picture(&emu) == shown[&position],
            "redo picture differs at {position}"
        );
    }
    // Playing on with the logged input (RIGHT up to frame 119) keeps the future.
    emu.buttons = Buttons::RIGHT;
    emu.play_frame(false);
    assert_eq!(emu.timeline.span().newest, 240);
    assert!(picture(&emu) == shown[&111], "redo by playing differs");
    // Different input forks: the future is gone.
    emu.buttons = Buttons::B;
    emu.play_frame(false);
    assert_eq!(emu.timeline.span().newest, 112);
    assert_eq!(emu.timeline.span().position, 112);
}

/// Plays `emu` through a scripted session: walking, a reset, a rewind after which the
/// input differs (a fork: a rerecord), and redo over a kept future.
fn play_session_with_rewinds(emu: &mut Emu) {
    for frame in 1..=300u64 {
        play_scripted_frame(emu, frame);
    }
    for _ in 0..40 {
        emu.step_back();
    }
    for _ in 0..10 {
        emu.step_forward();
    }
    for _ in 0..90 {
        emu.buttons = Buttons::LEFT | Buttons::B;
        emu.play_frame(false);
    }
}

fn verify_demo(movie_path: &std::path::Path) -> backspin_movie::Movie {
    let bytes = std::fs::read(movie_path).expect("the movie was written");
    let movie = backspin_movie::decode(&bytes).expect("a movie");
    let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
    let outcome = backspin_movie::verify(&movie, rom, &backspin_movie::VerifyOptions::default())
        .expect("verifies");
    assert!(
        matches!(outcome, backspin_movie::Outcome::Clean { .. }),
        "{outcome:?}"
    );
    movie
}

/// `--record` from power-on through rewinds, forks and a reset: the movie verifies,
/// holds the path played last, and counts the fork as a rerecord. Recording started
/// mid-game (the hotkey) embeds the state and verifies too.
#[test]
fn recorded_sessions_verify_with_rerecords() {
    let dir = tempfile::tempdir().unwrap();
    let (mut emu, _frames) = demo_emu(16 << 20);
    let path = dir.path().join("run.bsm");
    emu.recording = Some(MovieRecording::start(&mut emu.timeline, path.clone()));
    play_session_with_rewinds(&mut emu);
    let end = emu.timeline.frame();
    emu.stop_recording();
    let movie = verify_demo(&path);
    assert_eq!(movie.start, backspin_movie::Start::PowerOn);
    assert_eq!(movie.frames, end);
    assert!(movie.rerecords >= 1, "the fork is a rerecord");
    assert!(
        movie
            .events
            .iter()
            .any(|e| e.input == backspin_movie::Input::Reset)
    );

    // Mid-game, with a budget too small to keep the logs without the pin.
    let (mut emu, _frames) = demo_emu(1 << 20);
    for _ in 0..100 {
        emu.buttons = Buttons::RIGHT;
        emu.play_frame(false);
    }
    let path = dir.path().join("mid.bsm");
    emu.recording = Some(MovieRecording::start(&mut emu.timeline, path.clone()));
    play_session_with_rewinds(&mut emu);
    for _ in 0..200 {
        emu.step_back(); // stops at the recording's first frame
    }
    let rewound_to = emu.timeline.frame();
    assert!(
        rewound_to >= 100,
        "rewound to {rewound_to}, before the recording"
    );
    emu.buttons = Buttons::DOWN;
    emu.play_frame(false);
    emu.stop_recording();
    let movie = verify_demo(&path);
    assert!(matches!(movie.start, backspin_movie::Start::SaveState(_)));
    assert_eq!(movie.frames, rewound_to + 1 - 100);
}

/// With a zero budget the player plays on, cannot rewind, and says so once.
#[test]
fn zero_budget_plays_without_rewind() {
    let (mut emu, _frames) = demo_emu(0);
    for _ in 0..30 {
        assert!(emu.play_frame(false));
    }
    assert!(!emu.step_back());
    assert_eq!(emu.timeline.span().position, 30);
    assert!(emu.timeline.memory_bytes() < 64 * 1024);
}

/// A budget too small for one frame: play goes on, rewind finds nothing, no panic.
#[test]
fn tiny_budget_is_not_a_panic() {
    let (mut emu, _frames) = demo_emu(1);
    for _ in 0..30 {
        assert!(emu.play_frame(false));
    }
    assert!(emu.warned_budget);
    assert_eq!(emu.timeline.span().position, 30);
}

/// Resident memory of this process in bytes (Linux), to see that a long session stays flat.
fn resident_bytes() -> Option<usize> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: usize = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

/// The player's emulation path for `minutes` of emulated play, rewinding 10 s at the end
/// of every minute and playing on from there (a fork), with buttons changing as a player's
/// would. Returns (history bytes, resident bytes) at the end of each minute.
fn soak(minutes: u32, budget_bytes: usize) -> Vec<(usize, Option<usize>)> {
    let (mut emu, _frames) = demo_emu(budget_bytes);
    let frames_per_minute = 3_584; // 60 s at 59.7275 frames per second
    let mut figures = Vec::new();
    let mut rng = backspin_test_support::SplitMix64::new(1);
    for _ in 0..minutes {
        for frame in 0..frames_per_minute {
            if frame % 23 == 0 {
                emu.buttons = rng.below(256) as u8;
            }
            emu.play_frame(false);
            emu.timeline.output().audio.drain_i16(&mut Vec::new());
        }
        for _ in 0..600 {
            assert!(emu.step_back(), "10 s of history is held");
        }
        figures.push((emu.timeline.memory_bytes(), resident_bytes()));
    }
    figures
}

#[test]
fn a_short_soak_stays_within_the_budget() {
    let budget = 4 << 20;
    for (history, _) in soak(3, budget) {
        assert!(
            history <= budget,
            "{history} bytes of history over a {budget} budget"
        );
    }
}

/// Two hours of emulated play (run by hand in release, it takes a few minutes):
/// `cargo test --release -p backspin soak_two_hours -- --ignored --nocapture`.
#[test]
#[ignore = "long: two emulated hours"]
fn soak_two_hours() {
    let budget = 4 << 20;
    let figures = soak(120, budget);
    for (minute, (history, resident)) in figures.iter().enumerate() {
        println!(
            "minute {:3}: history {:6} KiB, resident {:7} KiB",
            minute + 1,
            history / 1024,
            resident.unwrap_or(0) / 1024
        );
        assert!(*history <= budget);
    }
    // Once the budget is full, resident memory stays flat (allocator noise aside).
    if let (Some(at_60), Some(at_end)) = (figures[59].1, figures[119].1) {
        assert!(
            at_end <= at_60 + (2 << 20),
            "resident memory grew from {at_60} to {at_end} bytes"
        );
    }
}

/// A battery cart (`cart_type`, 8 KiB RAM) whose code writes $5A to $A000 once at
/// boot, then loops; and an 8 KiB save of $11 beside it.
fn battery_game(dir: &std::path::Path, cart_type: u8) -> Game {
    let mut rom = vec![0u8; 0x8000];
    rom[0x147] = cart_type;
    rom[0x149] = 0x02;
    let code = [
        0x3E, 0x0A, 0xEA, 0x00, 0x00, // LD A,$0A; LD ($0000),A: RAMG on
        0x3E, 0x5A, 0xEA, 0x00, 0xA0, // LD A,$5A; LD ($A000),A
        0x18, 0xFE, // JR -2
    ];
    rom[0x100..0x100 + code.len()].copy_from_slice(&code);
    let rom_path = dir.join("game.gb");
    std::fs::write(dir.join("game.sav"), [0x11; 8192]).unwrap();
    let rom = backspin_core::Rom::from_bytes(rom).unwrap();
    let mut game =
        Game::open(rom, Some(&rom_path), backspin_core::Model::Dmg).expect("the save fits");
    game.slots = Some(Slots::new(dir.join("states")));
    game
}

/// The save follows the game's write, and rewinding to before that write leaves the
/// file alone (the rewound timeline's RAM is not written until the game writes again).
#[test]
fn rewinding_before_a_save_does_not_overwrite_it() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.sav");
    // MBC1+RAM+BATTERY
    let (mut emu, _frames) = emu_for(battery_game(dir.path(), 0x03), 16 << 20);
    assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x11, "loaded");
    for _ in 0..10 {
        emu.play_frame(false);
    }
    emu.flush_battery();
    assert_eq!(
        std::fs::read(&save).unwrap()[0],
        0x5A,
        "the game's write is saved"
    );
    while emu.step_back() {}
    assert_eq!(emu.timeline.frame(), 0);
    assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x11, "rewound");
    emu.flush_battery();
    assert_eq!(
        std::fs::read(&save).unwrap()[0],
        0x5A,
        "rewinding wrote the save"
    );
}

/// After a slot load the `.sav` is written again only once the game writes cartridge
/// RAM: loading a state with older RAM does not clobber the newer save.
#[test]
fn a_state_load_does_not_overwrite_a_newer_battery_save() {
    let dir = tempfile::tempdir().unwrap();
    let save = dir.path().join("game.sav");
    // MBC1+RAM+BATTERY
    let (mut emu, _frames) = emu_for(battery_game(dir.path(), 0x03), 16 << 20);
    // Slot 1 holds the loaded save ($11) from before the game's write.
    emu.save_slot(1);
    for _ in 0..10 {
        emu.play_frame(false);
    }
    assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x5A);
    emu.load_slot(1);
    assert_eq!(emu.timeline.core().state().hw.cart_ram[0], 0x11, "loaded");
    for _ in 0..10 {
        emu.play_frame(false); // the game loops without writing RAM again
    }
    emu.flush_battery();
    assert_eq!(
        std::fs::read(&save).unwrap()[0],
        0x5A,
        "the load wrote its older RAM over the save"
    );
}

/// Save, play on, load, undo the load: back to the moment before the load, and
/// rewinding across the load shows the game as it was before it. Undo save restores the
/// slot's previous file.
#[test]
fn load_undo_load_and_undo_save() {
    let (mut emu, _frames) = demo_emu(16 << 20);
    let dir = tempfile::tempdir().unwrap();
    emu.slots = Some(Slots::new(dir.path().to_path_buf()));
    let mut shown: HashMap<u64, Vec<u8>> = HashMap::new();
    for frame in 1..=60u64 {
        emu.buttons = if frame > 30 { Buttons::RIGHT } else { 0 };
        emu.play_frame(false);
        shown.insert(frame, emu.timeline.core().state().as_bytes().to_vec());
    }
    emu.save_slot(2);
    let saved = std::fs::read(emu.slots.as_ref().unwrap().path(2)).unwrap();
    for _ in 0..60 {
        emu.play_frame(false);
    }
    let before_load = emu.timeline.core().state().as_bytes().to_vec();
    emu.load_slot(2);
    assert!(
        emu.timeline.core().state().as_bytes() == &shown[&60][..],
        "loaded"
    );
    emu.play_frame(false);
    emu.play_frame(false);
    emu.undo_load();
    assert_eq!(emu.timeline.frame(), 120);
    assert!(
        emu.timeline.core().state().as_bytes() == &before_load[..],
        "undo load is the moment before the load"
    );
    // Load again, play, then rewind across the load.
    emu.load_slot(2);
    for _ in 0..5 {
        emu.play_frame(false);
    }
    for _ in 0..5 {
        assert!(emu.step_back());
    }
    assert_eq!(emu.timeline.frame(), 120);
    assert!(
        emu.timeline.core().state().as_bytes() == &before_load[..],
        "rewinding across a load shows the game before it"
    );
    // Undo save: a second save, undone, leaves the first file.
    emu.save_slot(2);
    assert_ne!(
        std::fs::read(emu.slots.as_ref().unwrap().path(2)).unwrap(),
        saved
    );
    emu.undo_save();
    assert_eq!(
        std::fs::read(emu.slots.as_ref().unwrap().path(2)).unwrap(),
        saved
    );
    // A broken slot changes nothing.
    std::fs::write(emu.slots.as_ref().unwrap().path(3), b"junk").unwrap();
    let now = emu.timeline.core().state().as_bytes().to_vec();
    emu.load_slot(3);
    assert!(emu.timeline.core().state().as_bytes() == &now[..]);
}

/// Quit and relaunch: the same frame, the same state, and the history to rewind.
#[test]
fn resume_continues_at_the_same_frame_with_history() {
    let dir = tempfile::tempdir().unwrap();
    let (mut emu, _frames) = demo_emu(16 << 20);
    emu.slots = Some(Slots::new(dir.path().to_path_buf()));
    for frame in 1..=200u64 {
        emu.buttons = if frame % 50 < 20 { Buttons::RIGHT } else { 0 };
        emu.play_frame(false);
    }
    let state = emu.timeline.core().state().as_bytes().to_vec();
    emu.save_resume();
    let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
    let mut game = Game::open(rom, None, backspin_core::Model::Dmg).unwrap();
    game.slots = Some(Slots::new(dir.path().to_path_buf()));
    let session = new_session(game, 16 << 20, true);
    let mut timeline = session.timeline;
    assert!(session.notice.unwrap().contains("frame 200"));
    assert_eq!(timeline.frame(), 200);
    assert!(timeline.core().state().as_bytes() == &state[..]);
    assert_eq!(timeline.span().oldest, 0);
    timeline.seek(100).unwrap();
    // A damaged history: resumed from the state, without history.
    let history = dir.path().join("resume.history");
    let mut bytes = std::fs::read(&history).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&history, bytes).unwrap();
    let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
    let mut game = Game::open(rom, None, backspin_core::Model::Dmg).unwrap();
    game.slots = Some(Slots::new(dir.path().to_path_buf()));
    let session = new_session(game, 16 << 20, true);
    assert!(session.timeline.core().state().as_bytes() == &state[..]);
    assert_eq!(session.timeline.span().oldest, session.timeline.frame());
}

/// Figures for the report (run by hand):
/// `cargo test -p backspin --bin backspin resume_figures -- --ignored --nocapture`.
#[test]
#[ignore = "measurement: ten emulated minutes"]
fn resume_figures() {
    let dir = tempfile::tempdir().unwrap();
    let (mut emu, _frames) = demo_emu(128 << 20);
    emu.slots = Some(Slots::new(dir.path().to_path_buf()));
    let mut rng = backspin_test_support::SplitMix64::new(10);
    for frame in 0..35_837u32 {
        if frame % 23 == 0 {
            emu.buttons = rng.below(256) as u8;
        }
        emu.play_frame(false);
        emu.timeline.output().audio.drain_i16(&mut Vec::new());
    }
    let start = Instant::now();
    emu.save_resume();
    let resume = start.elapsed();
    let slots = emu.slots.clone().unwrap();
    let mut save = Vec::new();
    let mut load = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        slots
            .save(1, emu.timeline.core(), emu.timeline.frame())
            .unwrap();
        save.push(start.elapsed());
        let start = Instant::now();
        let loaded = slots.load(1, emu.timeline.core()).ok().unwrap();
        emu.timeline.load_state(&loaded.state);
        load.push(start.elapsed());
    }
    save.sort();
    load.sort();
    let size = |name: &str| std::fs::metadata(dir.path().join(name)).unwrap().len();
    println!(
        "slot save median {:?} (max {:?}), slot load (read, check, timeline event) median \
         {:?} (max {:?}), slot file {} bytes",
        save[10],
        save[19],
        load[10],
        load[19],
        size("slot-1.state")
    );
    println!(
        "after 10 min: resume.state {} bytes, resume.history {} bytes, written in {resume:?}",
        size("resume.state"),
        size("resume.history")
    );
    let start = Instant::now();
    let rom = backspin_core::Rom::from_bytes(super::super::DEMO_ROM.to_vec()).unwrap();
    let mut game = Game::open(rom, None, backspin_core::Model::Dmg).unwrap();
    game.slots = Some(slots);
    let session = new_session(game, 128 << 20, true);
    println!(
        "resumed in {:?}: {}",
        start.elapsed(),
        session.notice.unwrap_or_default()
    );
}

/// The clock catch-up from a save reaches the game through the timeline (`rtc_advance`).
#[test]
fn the_clock_catch_up_is_recorded_on_the_timeline() {
    let dir = tempfile::tempdir().unwrap();
    let mut game = battery_game(dir.path(), 0x10); // MBC3+TIMER+RAM+BATTERY
    game.clock = ClockCatchUp::Advance(3_600 + 60);
    let session = new_session(game, 1 << 20, false);
    let core = session.timeline.core();
    let clock = core
        .rom()
        .rtc_registers(&core.state().hw.mbc, core.m_cycles());
    assert_eq!(
        clock,
        Some([0, 1, 1, 0, 0]),
        "S M H DL DH: one hour one minute on"
    );
}

#[test]
fn focus_loss_and_the_menu_hold_the_game_until_both_are_gone() {
    let (mut emu, _frames) = demo_emu(0);
    assert!(emu.handle(Command::Unfocused(true)));
    assert_eq!(emu.mode(), Mode::Paused);
    emu.handle(Command::MenuOpen(true));
    emu.handle(Command::Unfocused(false));
    assert_eq!(emu.mode(), Mode::Paused, "the menu still holds it");
    emu.handle(Command::MenuOpen(false));
    assert_eq!(emu.mode(), Mode::Playing);
    emu.handle(Command::FastForwardSpeed(4));
    emu.handle(Command::FastForward(true));
    assert_eq!(emu.mode(), Mode::FastForward);
    assert_eq!(emu.fast_forward_speed, 4);
}

#[test]
fn the_sound_is_held_only_while_the_hold_changes() {
    let (mut emu, _frames) = demo_emu(0);
    let (sink, controls) = AudioSink::unplayed();
    emu.handle(Command::Audio(Box::new(sink)));
    // The window gaining focus says so whether or not it was held: nothing to refill.
    emu.handle(Command::Unfocused(false));
    assert_eq!(controls.hold_state(), (false, false));
    emu.handle(Command::MenuOpen(true));
    assert_eq!(controls.hold_state(), (true, false));
    emu.handle(Command::Unfocused(true));
    emu.handle(Command::MenuOpen(false));
    assert_eq!(controls.hold_state(), (true, false), "still unfocused");
    emu.handle(Command::Unfocused(false));
    assert_eq!(controls.hold_state(), (false, true), "back, refilling");
}

/// A DAP client on the other end of `stream`: sends requests and reads until each answer.
struct DapClient {
    reader: std::io::BufReader<std::net::TcpStream>,
    writer: std::net::TcpStream,
    seq: i64,
}

impl DapClient {
    /// Sends `command`; returns its response and the events read before it (those it
    /// causes come after it).
    fn request(
        &mut self,
        command: &str,
        arguments: serde_json::Value,
    ) -> (serde_json::Value, Vec<serde_json::Value>) {
        self.seq += 1;
        let message = serde_json::json!({"seq": self.seq, "type": "request",
            "command": command, "arguments": arguments});
        backspin_debug::dap::write_message(&mut self.writer, &message).unwrap();
        let mut events = Vec::new();
        loop {
            let body = backspin_debug::dap::read_message(&mut self.reader)
                .unwrap()
                .unwrap();
            let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
            if value["type"] == "response" && value["request_seq"] == self.seq {
                assert_eq!(value["success"], true, "{command}: {value}");
                return (value, events);
            }
            events.push(value);
        }
    }

    /// Reads until a `stopped` event (it may have come with the last response's events).
    fn wait_stopped(&mut self, mut seen: Vec<serde_json::Value>) -> serde_json::Value {
        loop {
            if let Some(stop) = seen.iter().find(|e| e["event"] == "stopped") {
                return stop["body"].clone();
            }
            let body = backspin_debug::dap::read_message(&mut self.reader)
                .unwrap()
                .unwrap();
            seen = vec![serde_json::from_slice(&body).unwrap()];
        }
    }

    /// The frame number, from `evaluate` (`$HEX (DECIMAL)`).
    fn frame(&mut self) -> i64 {
        let (r, _) = self.request("evaluate", serde_json::json!({"expression": "frame"}));
        let result = r["body"]["result"].as_str().unwrap().to_string();
        let decimal = result.split_once('(').unwrap().1.trim_end_matches(')');
        decimal.parse().unwrap()
    }
}

#[test]
fn a_debugger_attaches_to_the_playing_game_pauses_it_and_leaves_it_running() {
    use backspin_debug::{SourceLines, Symbols};
    let (mut emu, frames) = demo_emu(16 << 20);
    for _ in 0..30 {
        emu.play_frame(false);
    }
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let addr = listener.local_addr().unwrap();
    emu.debug_port = Some(DebugPort::listen(
        listener,
        Symbols::default(),
        SourceLines::default(),
    ));
    let (_commands_tx, commands) = crossbeam_channel::unbounded();
    let client = std::thread::spawn(move || {
        let stream = std::net::TcpStream::connect(addr).unwrap();
        let mut c = DapClient {
            reader: std::io::BufReader::new(stream.try_clone().unwrap()),
            writer: stream,
            seq: 0,
        };
        c.request("initialize", serde_json::json!({"adapterID": "backspin"}));
        c.request("attach", serde_json::json!({}));
        let body = backspin_debug::dap::read_message(&mut c.reader)
            .unwrap()
            .unwrap();
        let event: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(event["event"], "initialized");
        // The game plays on under the debugger until it is paused.
        c.request("configurationDone", serde_json::json!({}));
        let (_, events) = c.request("pause", serde_json::json!({"threadId": 1}));
        assert_eq!(c.wait_stopped(events)["reason"], "pause");
        let paused_at = c.frame();
        let (_, events) = c.request("stepIn", serde_json::json!({"threadId": 1}));
        assert_eq!(c.wait_stopped(events)["reason"], "step");
        let (_, events) = c.request("stepBack", serde_json::json!({"threadId": 1}));
        assert_eq!(c.wait_stopped(events)["reason"], "step");
        // Continue plays frames; pausing again is later.
        c.request("continue", serde_json::json!({"threadId": 1}));
        loop {
            let (_, events) = c.request("pause", serde_json::json!({"threadId": 1}));
            c.wait_stopped(events);
            if c.frame() > paused_at + 2 {
                break;
            }
            c.request("continue", serde_json::json!({"threadId": 1}));
        }
        c.request("disconnect", serde_json::json!({}));
        paused_at
    });
    let stream = loop {
        if let Some(stream) = emu.debug_port.as_ref().and_then(DebugPort::client) {
            break stream;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    let before = emu.timeline.frame();
    assert!(
        debug_attach::serve(&mut emu, stream, &commands),
        "the window stays open"
    );
    let paused_at = client.join().expect("the client's checks hold");
    assert!(paused_at >= before as i64);
    // The window's own timeline is back, with its history, running on.
    assert!(emu.timeline.rewind_enabled());
    assert!(emu.timeline.frame() > before + 2);
    assert!(!emu.paused);
    assert!(
        frames.frames.try_iter().count() > 0,
        "stops showed pictures"
    );
}
