//! The APU inside the whole machine: Blargg's `dmg_sound` ROMs, and audio that a save state
//! reproduces bit for bit. Uses the shared test ROMs when present and skips with a reason
//! otherwise.

use backspin_core::{Core, M_CYCLES_PER_SECOND, Options, Rom};
use std::path::PathBuf;

fn shared_rom(relative: &str) -> Option<Vec<u8>> {
    let root = match std::env::var_os("GB_TEST_ROMS") {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/test-roms"),
    };
    let path = root.join(relative);
    match std::fs::read(&path) {
        Ok(bytes) => Some(bytes),
        Err(error) => {
            println!(
                "skipped: {} not readable ({error}); set GB_TEST_ROMS",
                path.display()
            );
            None
        }
    }
}

fn power_on(bytes: &[u8]) -> Core {
    Core::new(
        Rom::from_bytes(bytes.to_vec()).expect("test ROM parses"),
        Options::default(),
    )
}

/// Blargg's in-memory protocol: signature DE B0 61 at $A001, status at $A000 (0x80 while
/// running, 0 on success), text from $A004.
fn blargg_status(core: &mut Core) -> Option<u8> {
    let signature = [core.peek(0xA001), core.peek(0xA002), core.peek(0xA003)];
    (signature == [0xDE, 0xB0, 0x61]).then(|| core.peek(0xA000))
}

fn blargg_text(core: &mut Core) -> String {
    let mut text = String::new();
    if blargg_status(core).is_none() {
        return text;
    }
    for addr in 0xA004..0xA200u16 {
        match core.peek(addr) {
            0 => break,
            byte => text.push(char::from(byte)),
        }
    }
    text
}

/// The 12 single ROMs with their manifest run times (emulated seconds).
const DMG_SOUND: [(&str, u64); 12] = [
    ("01-registers", 7),
    ("02-len_ctr", 16),
    ("03-trigger", 23),
    ("04-sweep", 7),
    ("05-sweep_details", 7),
    ("06-overflow_on_trigger", 7),
    ("07-len_sweep_period_sync", 7),
    ("08-len_ctr_during_power", 7),
    ("09-wave_read_while_on", 6),
    ("10-wave_trigger_while_on", 10),
    ("11-regs_after_power", 6),
    ("12-wave_write_while_on", 10),
];

#[test]
fn blargg_dmg_sound_all_pass() {
    let mut failures = Vec::new();
    for (name, seconds) in DMG_SOUND {
        let Some(bytes) = shared_rom(&format!("blargg/dmg_sound/{name}.gb")) else {
            return;
        };
        let mut core = power_on(&bytes);
        let end = seconds * M_CYCLES_PER_SECOND;
        let mut status = None;
        while core.m_cycles() < end {
            core.run_frame();
            core.output().audio.clear();
            status = blargg_status(&mut core);
            if status.is_some_and(|s| s != 0x80) {
                break;
            }
        }
        let text = blargg_text(&mut core).replace('\n', " | ");
        println!(
            "{name}: status {status:02X?} after {} M-cycles: {text}",
            core.m_cycles()
        );
        if status != Some(0) {
            failures.push(name);
        }
    }
    assert!(failures.is_empty(), "failed: {failures:?}");
}

/// Runs until `end` (in M-cycles), appending the audio produced to `samples`.
fn run_collecting(core: &mut Core, end: u64, samples: &mut Vec<i16>) {
    while core.m_cycles() < end {
        core.run_frame();
        core.output().audio.drain_i16(samples);
    }
}

#[test]
fn homebrew_audio_is_identical_across_a_save_and_load() {
    for name in ["homebrew/pocket.gb", "homebrew/gejmboj.gb"] {
        let Some(bytes) = shared_rom(name) else {
            return;
        };
        // Frames end at VBlank, not on a round M-cycle: "5 s" is the first frame boundary
        // after it, identical for both runs.
        let half = 5 * M_CYCLES_PER_SECOND;
        let end = 10 * M_CYCLES_PER_SECOND;

        let mut straight = power_on(&bytes);
        let mut expected = Vec::new();
        run_collecting(&mut straight, end, &mut expected);

        let mut first = power_on(&bytes);
        let mut actual = Vec::new();
        run_collecting(&mut first, half, &mut actual);
        let saved = *first.state();
        drop(first);
        // A fresh core (empty host buffers) resumes from the saved state alone.
        let mut resumed = power_on(&bytes);
        resumed.load_state(&saved);
        run_collecting(&mut resumed, end, &mut actual);

        let loud = expected.iter().filter(|&&s| s != 0).count();
        println!(
            "{name}: {} stereo samples, {loud} non-zero values",
            expected.len() / 2
        );
        assert!(expected.len() >= 2 * 479_000, "10 s of 48 kHz stereo");
        assert!(loud > 10_000, "{name} should make some sound");
        assert_eq!(expected.len(), actual.len(), "{name}: sample counts differ");
        if let Some(first_difference) = expected.iter().zip(&actual).position(|(a, b)| a != b) {
            panic!("{name}: samples differ from index {first_difference}");
        }
    }
}
