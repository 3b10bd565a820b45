//! Ring, seek and fork behaviour on synthetic state streams (no ROM, no CPU needed).
//! Randomised cases print their seed or are proptest cases (which print minimal failures).

use backspin_core::State;
use backspin_rewind::testing::Ring;
use backspin_rewind::{Captured, Config, Rewinder};
use backspin_test_support::SplitMix64;
use bytemuck::Zeroable;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Mutates a state the way a game frame does: counters, a handful of scattered bytes, and
/// now and then a burst (a screen redraw).
fn step_state(state: &mut State, rng: &mut SplitMix64) {
    state.hw.frames += 1;
    state.hw.m_cycles += 17_556;
    let bytes = bytemuck::bytes_of_mut(state);
    let len = bytes.len() as u64;
    for _ in 0..rng.below(40) {
        let i = rng.below(len.min(20_000)) as usize;
        bytes[i] = rng.next_u64() as u8;
    }
    // A ring-like region rewritten every frame with a few fresh values (stored by value).
    bytes[30_000..30_512].fill(0);
    for _ in 0..16 {
        let i = 30_000 + rng.below(512) as usize;
        bytes[i] = 1 + rng.below(255) as u8;
    }
    // Now and then a burst of fresh bytes. The bursts stay in one 16 KiB window, so that
    // with the scattered writes above at most ~40 KiB of the state is incompressible and a
    // keyframe always fits the smallest budget the tests give (48 KiB).
    if rng.below(30) == 0 {
        let start = 32 * 1024 + rng.below(16 * 1024) as usize;
        for b in &mut bytes[start..start + 1 + rng.below(4000) as usize] {
            *b = rng.next_u64() as u8;
        }
    }
}

fn stream(seed: u64, frames: usize) -> Vec<Box<State>> {
    let mut rng = SplitMix64::new(seed);
    let mut state: Box<State> = bytemuck::zeroed_box();
    let mut out = Vec::with_capacity(frames);
    for _ in 0..frames {
        step_state(&mut state, &mut rng);
        out.push(state.clone());
    }
    out
}

/// The settings these tests model: every frame stored (thinned capture has its own test).
fn every_frame(budget_bytes: usize) -> Config {
    Config {
        capture_every: 1,
        ..Config::new(budget_bytes)
    }
}

fn same(a: &State, b: &State) -> bool {
    a.as_bytes() == b.as_bytes()
}

#[test]
fn every_held_frame_seeks_exactly_through_wraps() {
    let states = stream(7, 900);
    // Small budget: the ring wraps several times; keyframes every 50 frames.
    let mut config = every_frame(256 * 1024);
    config.keyframe_interval = 50;
    let mut rewinder = Rewinder::with_config(config);
    for (f, state) in states.iter().enumerate() {
        let captured = rewinder.capture(state, f as u64);
        assert!(matches!(captured, Captured::Stored { .. }), "{captured:?}");
    }
    let stats = rewinder.stats();
    assert!(stats.ring_wraps > 0, "test must exercise wrap-around");
    assert!(stats.evicted_records > 0);
    let oldest = rewinder.oldest_frame().unwrap();
    assert_eq!(rewinder.newest_frame(), Some(899));
    // Random order, then every frame backward, then forward.
    let mut rng = SplitMix64::new(99);
    for _ in 0..300 {
        let f = oldest + rng.below(900 - oldest);
        let snap = rewinder.seek(f).unwrap();
        assert_eq!(snap.frame, f);
        assert!(same(snap.state, &states[f as usize]), "seek {f}");
    }
    rewinder.seek(899).unwrap();
    for f in (oldest..899).rev() {
        let snap = rewinder.step_back().unwrap();
        assert_eq!(snap.frame, f);
        assert!(same(snap.state, &states[f as usize]), "step back to {f}");
    }
    assert!(rewinder.step_back().is_none());
    for f in oldest + 1..900 {
        let snap = rewinder.step_forward().unwrap();
        assert_eq!(snap.frame, f);
        assert!(same(snap.state, &states[f as usize]), "step forward to {f}");
    }
    assert!(rewinder.step_forward().is_none());
    assert!(rewinder.seek(oldest - 1).is_err());
}

#[test]
fn thinned_capture_stores_every_kth_frame() {
    let states = stream(3, 200);
    let mut config = Config::new(8 << 20);
    config.capture_every = 4;
    let mut rewinder = Rewinder::with_config(config);
    let mut stored = 0;
    for (f, state) in states.iter().enumerate() {
        if let Captured::Stored { .. } = rewinder.capture(state, f as u64) {
            stored += 1;
        }
    }
    assert_eq!(stored, 50);
    let snap = rewinder.seek(102).unwrap();
    assert_eq!(snap.frame, 100);
    assert!(same(snap.state, &states[100]));
}

#[test]
fn redo_then_fork_keeps_the_buffer_time_ordered() {
    let states = stream(11, 300);
    let mut rewinder = Rewinder::with_config(every_frame(4 << 20));
    for (f, state) in states.iter().enumerate() {
        rewinder.capture(state, f as u64);
    }
    // Rewind to 200, replay the same future: nothing is written, the future stays.
    rewinder.seek(200).unwrap();
    let written = rewinder.stats().bytes_written;
    for (f, state) in states.iter().enumerate().take(251).skip(201) {
        assert_eq!(rewinder.capture(state, f as u64), Captured::Replayed);
    }
    assert_eq!(rewinder.stats().bytes_written, written);
    assert_eq!(rewinder.newest_frame(), Some(299));
    // A different state at 251 forks: 251.. are replaced.
    let mut other = states[250].clone();
    other.hw.wram[5] ^= 0xFF;
    other.hw.frames += 1;
    assert!(matches!(
        rewinder.capture(&other, 251),
        Captured::Forked { .. }
    ));
    assert_eq!(rewinder.newest_frame(), Some(251));
    assert!(same(rewinder.seek(251).unwrap().state, &other));
    assert!(same(rewinder.seek(250).unwrap().state, &states[250]));
    assert!(same(rewinder.seek(17).unwrap().state, &states[17]));
    assert_eq!(rewinder.stats().forks, 1);
}

#[test]
fn differing_input_forks_matching_input_does_not() {
    let states = stream(5, 100);
    let mut rewinder = Rewinder::with_config(every_frame(4 << 20));
    for (f, state) in states.iter().enumerate() {
        rewinder.record_input(state.hw.m_cycles, (f / 10) as u8);
        rewinder.capture(state, f as u64);
    }
    rewinder.seek(50).unwrap();
    // The logged input at frame 51 is 5 (51 / 10): matching keeps the future.
    rewinder.record_input(states[50].hw.m_cycles, 5);
    assert_eq!(rewinder.newest_frame(), Some(99));
    // Different input: the future after 50 goes, and so do the logged inputs after it.
    rewinder.record_input(states[50].hw.m_cycles, 0x80);
    assert_eq!(rewinder.newest_frame(), Some(50));
    assert_eq!(
        rewinder.input_log().last().unwrap().m_cycle,
        states[50].hw.m_cycles
    );
    assert_eq!(rewinder.input_log().last().unwrap().buttons, 0x80);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the record sizes and truncations, the ring keeps the newest records
    /// contiguous, in order, byte-exact, within capacity, and its invariants hold.
    #[test]
    fn ring_wraps_and_truncates_consistently(
        capacity in 256usize..8192,
        ops in prop::collection::vec((0usize..1500, 0u8..10), 1..400),
    ) {
        let mut ring = Ring::new(capacity);
        // Model: (frame, contents) of every record not yet truncated, oldest first.
        let mut model: Vec<(u64, Vec<u8>)> = Vec::new();
        let mut frame = 0u64;
        for (size, op) in ops {
            if op == 0 && !ring.is_empty() {
                // The ring holds the newest `len` model records; it keeps the first `keep`.
                let keep = size % (ring.len() + 1);
                let held_from = model.len() - ring.len();
                ring.truncate(keep);
                model.truncate(held_from + keep);
                if let Some(last) = model.last() {
                    frame = last.0;
                }
            } else {
                frame += u64::from(op % 3);
                let bytes: Vec<u8> = (0..size).map(|i| (i as u64 ^ frame) as u8).collect();
                match ring.push(frame, &bytes) {
                    Ok(_) => model.push((frame, bytes)),
                    Err(_) => prop_assert!(size + 8 > ring.capacity()),
                }
            }
            ring.assert_invariants();
            prop_assert!(ring.used_bytes() <= ring.capacity());
            // The ring holds exactly the newest `len` model records.
            let held = &model[model.len() - ring.len()..];
            for (i, (f, bytes)) in held.iter().enumerate() {
                prop_assert_eq!(ring.frame(i), *f);
                prop_assert_eq!(ring.record(i), &bytes[..]);
            }
        }
    }

    /// Random captures, seeks, replays and forks on a small budget: every frame the
    /// rewinder claims to hold seeks to the state of the current timeline.
    #[test]
    fn seek_and_fork_match_a_model(
        seed in 0u64..1_000_000,
        ops in prop::collection::vec(0u8..20, 1..500),
    ) {
        let mut rng = SplitMix64::new(seed);
        let mut config = every_frame(48 * 1024 + (seed as usize % 4) * 16 * 1024);
        config.keyframe_interval = 1 + (seed % 20) as u32;
        let mut rewinder = Rewinder::with_config(config);
        let mut timeline: BTreeMap<u64, Box<State>> = BTreeMap::new();
        let mut state: Box<State> = bytemuck::zeroed_box();
        let mut frame = 0u64;
        for op in ops {
            match op {
                0..=15 => {
                    // Play one frame from the present: mostly the recorded future
                    // (when there is one), otherwise a fresh frame (a fork if one existed).
                    frame += 1;
                    match timeline.get(&frame) {
                        Some(next) if op < 14 => state = next.clone(),
                        _ => step_state(&mut state, &mut rng),
                    }
                    let existed = timeline.get(&frame).map(|s| same(s, &state));
                    let c = rewinder.capture(&state, frame);
                    match existed {
                        Some(true) => prop_assert_eq!(c, Captured::Replayed),
                        Some(false) => {
                            prop_assert!(matches!(c, Captured::Forked { .. }), "{:?}", c);
                            timeline.retain(|&f, _| f < frame);
                        }
                        None => prop_assert!(matches!(c, Captured::Stored { .. }), "{:?}", c),
                    }
                    timeline.insert(frame, state.clone());
                }
                16 | 17 => {
                    // Seek somewhere held.
                    if let (Some(a), Some(b)) = (rewinder.oldest_frame(), rewinder.newest_frame()) {
                        let f = a + rng.below(b - a + 1);
                        let snap = rewinder.seek(f).unwrap();
                        prop_assert!(same(snap.state, &timeline[&f]), "seek {}", f);
                        *state = *snap.state;
                        frame = f;
                    }
                }
                18 => {
                    if let Some(snap) = rewinder.step_back() {
                        prop_assert!(same(snap.state, &timeline[&snap.frame]));
                        frame = snap.frame;
                        *state = *snap.state;
                    }
                }
                _ => {
                    if let Some(snap) = rewinder.step_forward() {
                        prop_assert!(same(snap.state, &timeline[&snap.frame]));
                        frame = snap.frame;
                        *state = *snap.state;
                    }
                }
            }
            // Invariants: held frames are a contiguous, ordered, exact suffix of the model.
            if let (Some(a), Some(b)) = (rewinder.oldest_frame(), rewinder.newest_frame()) {
                prop_assert!(a <= b);
                prop_assert_eq!(b, *timeline.keys().next_back().unwrap());
                prop_assert!(rewinder.stats().used_bytes <= rewinder.stats().capacity_bytes);
            }
        }
        // Finally every held frame, in order.
        if let (Some(a), Some(b)) = (rewinder.oldest_frame(), rewinder.newest_frame()) {
            for f in a..=b {
                let snap = rewinder.seek(f).unwrap();
                prop_assert!(same(snap.state, &timeline[&f]), "final seek {}", f);
            }
        }
    }
}

#[test]
fn zeroed_state_round_trips() {
    let mut rewinder = Rewinder::new(1 << 20);
    let s = State::zeroed();
    rewinder.capture(&s, 0);
    rewinder.capture(&s, 1);
    assert!(same(rewinder.seek(0).unwrap().state, &s));
}

#[test]
fn a_budget_too_small_for_one_state_stores_nothing_and_says_so() {
    let mut state: Box<State> = bytemuck::zeroed_box();
    let mut rng = SplitMix64::new(4);
    for b in &mut bytemuck::bytes_of_mut(&mut *state)[..20_000] {
        *b = rng.next_u64() as u8;
    }
    let mut rewinder = Rewinder::new(8192);
    assert_eq!(rewinder.capture(&state, 1), Captured::TooLarge);
    assert_eq!(rewinder.oldest_frame(), None);
    assert!(rewinder.seek(1).is_err());
    assert!(rewinder.step_back().is_none());
}

#[test]
fn clear_forgets_everything() {
    let states = stream(2, 20);
    let mut rewinder = Rewinder::new(1 << 20);
    for (f, s) in states.iter().enumerate() {
        rewinder.record_input(s.hw.m_cycles, f as u8);
        rewinder.capture(s, f as u64);
    }
    rewinder.clear();
    assert_eq!(rewinder.newest_frame(), None);
    assert!(rewinder.input_log().is_empty());
    // And it starts again cleanly, even at an earlier frame number.
    assert!(matches!(
        rewinder.capture(&states[3], 3),
        Captured::Stored { keyframe: true, .. }
    ));
    assert!(same(rewinder.seek(3).unwrap().state, &states[3]));
}
