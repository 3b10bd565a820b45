//! The session's must-haves on our own program: breakpoints at labels, stepping in, over
//! and out, registers and memory, disassembly with labels, a write watchpoint, reverse
//! continue to an earlier hit with the same state, and 1,000 steps back and forth.

mod support;

use backspin_debug::{AccessKind, BreakpointSpec, Motion, StopReason};
use bytemuck::bytes_of;

fn bp(place: &str) -> BreakpointSpec {
    BreakpointSpec {
        place: place.into(),
        ..BreakpointSpec::default()
    }
}

fn state_bytes(session: &backspin_debug::Session) -> Vec<u8> {
    bytes_of(session.timeline().core().state()).to_vec()
}

fn pc(session: &backspin_debug::Session) -> u16 {
    session.timeline().core().state().cpu.pc
}

#[test]
fn breaks_at_a_label_and_steps_in_over_and_out() {
    let mut s = support::session();
    let placed = s.set_breakpoints(&[bp("MainLoop")]);
    let id = placed[0].as_ref().expect("label resolves").id;
    assert_eq!(s.run_to_stop(Motion::Continue), StopReason::Breakpoint(id));
    let main_loop = s.symbols().get("MainLoop").unwrap().addr;
    let increment = s.symbols().get("Increment").unwrap().addr;
    assert_eq!(pc(&s), main_loop);
    // Step in enters the routine, step out returns after the call.
    assert_eq!(s.run_to_stop(Motion::StepIn), StopReason::Step);
    assert_eq!(pc(&s), increment);
    assert_eq!(s.calls().len(), 1);
    assert_eq!(s.run_to_stop(Motion::StepOut), StopReason::Step);
    assert_eq!(pc(&s), main_loop + 3);
    assert!(s.calls().is_empty());
    // Next runs over the second call.
    let before = s.peek(0xC000);
    assert_eq!(s.run_to_stop(Motion::Next), StopReason::Step);
    assert_eq!(pc(&s), main_loop + 6);
    assert_eq!(s.peek(0xC000), before.wrapping_add(1));
}

#[test]
fn reads_and_sets_registers_memory_and_disassembles_with_labels() {
    let mut s = support::session();
    s.set_breakpoints(&[bp("Increment")]);
    s.run_to_stop(Motion::Continue);
    s.set_register("a", 0x42).unwrap();
    s.set_register("cf", 1).unwrap();
    assert_eq!(s.evaluate("a").unwrap(), 0x42);
    assert_eq!(s.evaluate("cf && a == $42").unwrap(), 1);
    assert!(s.set_register("q", 1).is_err());
    s.write_memory(0xC000, &[7]);
    assert_eq!(s.evaluate("[wCounter]").unwrap(), 7);
    let lines = s.disassemble(pc(&s), -2, 5);
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[2].addr, pc(&s));
    assert_eq!(lines[2].label.as_deref(), Some("Increment"));
    assert_eq!(lines[2].text, "ld a, [wCounter]");
    assert!(s.evaluate("nosuch + 1").is_err());
    assert!(s.add_breakpoint(&bp("NoSuchLabel")).is_err());
}

#[test]
fn a_write_watchpoint_stops_twice_and_reverse_continue_returns_to_the_first_hit() {
    let mut s = support::session();
    s.set_breakpoints(&[bp("MainLoop")]);
    s.run_to_stop(Motion::Continue);
    s.set_breakpoints(&[]);
    let id = s
        .add_watchpoint("wCounter", 1, AccessKind::Write, None)
        .unwrap();
    // Run a few frames in so the first hit lies in an older frame than the second.
    for _ in 0..3 {
        assert_eq!(s.run_to_stop(Motion::Continue), StopReason::Watchpoint(id));
    }
    let first = (pc(&s), state_bytes(&s), s.calls().to_vec());
    let counter = s.peek(0xC000);
    assert_eq!(s.run_to_stop(Motion::Continue), StopReason::Watchpoint(id));
    assert_eq!(s.peek(0xC000), counter.wrapping_add(1));
    assert_eq!(s.reverse_continue().unwrap(), StopReason::Watchpoint(id));
    assert_eq!(pc(&s), first.0);
    assert!(
        state_bytes(&s) == first.1,
        "state differs after reverse continue"
    );
    assert_eq!(s.calls(), &first.2[..]);
}

#[test]
fn reverse_continue_finds_a_breakpoint_frames_back() {
    let mut s = support::session();
    let placed = s.set_breakpoints(&[bp("VBlank")]);
    let id = placed[0].as_ref().unwrap().id;
    s.run_to_stop(Motion::Continue);
    let first = state_bytes(&s);
    s.set_breakpoints(&[]);
    for _ in 0..5 {
        s.run_to_stop(Motion::Frame);
    }
    let placed = s.set_breakpoints(&[bp("VBlank")]);
    let id2 = placed[0].as_ref().unwrap().id;
    assert_ne!(id, id2);
    let mut hits = 0;
    let mut last = Vec::new();
    while state_bytes(&s) != first {
        let reason = s.reverse_continue().unwrap();
        assert_eq!(reason, StopReason::Breakpoint(id2));
        hits += 1;
        assert!(hits < 20, "never got back to the first VBlank");
        last = state_bytes(&s);
    }
    assert_eq!(last, first);
}

#[test]
fn a_thousand_steps_back_and_forth_return_to_identical_state() {
    let mut s = support::session();
    s.set_breakpoints(&[]);
    // The program halts most of each frame: about 20 instructions a frame.
    for _ in 0..100 {
        s.run_to_stop(Motion::Frame);
    }
    for _ in 0..500 {
        s.run_to_stop(Motion::StepIn);
    }
    let start = state_bytes(&s);
    let calls = s.calls().to_vec();
    for _ in 0..1000 {
        assert_eq!(s.step_back().unwrap(), StopReason::Step);
    }
    for _ in 0..1000 {
        assert_eq!(s.run_to_stop(Motion::StepIn), StopReason::Step);
    }
    assert!(
        state_bytes(&s) == start,
        "state differs after 1,000 steps back and forth"
    );
    assert_eq!(s.calls(), &calls[..]);
}

#[test]
fn conditions_hit_counts_and_logpoints() {
    let mut s = support::session();
    let spec = BreakpointSpec {
        place: "Increment".into(),
        condition: Some("[wCounter] >= 4".into()),
        hit_condition: Some("2".into()),
        ..BreakpointSpec::default()
    };
    let log = BreakpointSpec {
        place: "VBlank".into(),
        log_message: Some("frame {[wFrames]} counter {[wCounter]}".into()),
        ..BreakpointSpec::default()
    };
    let placed = s.set_breakpoints(&[spec, log]);
    let id = placed[0].as_ref().unwrap().id;
    assert_eq!(s.run_to_stop(Motion::Continue), StopReason::Breakpoint(id));
    assert_eq!(s.peek(0xC000), 5);
    let lines = s.take_log();
    assert!(lines.iter().any(|l| l.starts_with("frame $")), "{lines:?}");
    let bad = BreakpointSpec {
        condition: Some("a ==".into()),
        ..bp("Increment")
    };
    assert!(s.add_breakpoint(&bad).is_err());
}

/// What a run stopped at: the reason, the CPU, the call stack and the whole `State`.
type Stop = (StopReason, u16, Vec<backspin_debug::CallFrame>, Vec<u8>);

fn stop(s: &backspin_debug::Session, reason: StopReason) -> Stop {
    (reason, pc(s), s.calls().to_vec(), state_bytes(s))
}

/// Continues, reverse continues, steps over and out and steps back with breakpoints (one conditional) and a
/// write watchpoint, through the core's observed run or one step at a time.
fn journey(observed: bool) -> Vec<Stop> {
    let mut s = support::session();
    s.set_observed_runs(observed);
    s.set_breakpoints(&[
        bp("Increment"),
        BreakpointSpec {
            place: "MainLoop".into(),
            condition: Some("[wCounter] % 3 == 1".into()),
            ..BreakpointSpec::default()
        },
    ]);
    s.add_watchpoint("wCounter", 1, AccessKind::Write, None)
        .unwrap();
    let mut stops = Vec::new();
    for _ in 0..12 {
        let reason = s.run_to_stop(Motion::Continue);
        stops.push(stop(&s, reason));
    }
    for _ in 0..5 {
        let reason = s.reverse_continue().unwrap();
        stops.push(stop(&s, reason));
    }
    for _ in 0..30 {
        let reason = s.step_back().unwrap();
        stops.push(stop(&s, reason));
    }
    // Steps over and out (into calls, out of them, and out of the outermost frame, which
    // runs on to a breakpoint or the watchpoint), then back over them.
    let steps = [Motion::Next; 40].into_iter().chain([
        Motion::StepIn,
        Motion::StepIn,
        Motion::StepOut,
        Motion::StepIn,
        Motion::Next,
        Motion::StepOut,
        Motion::StepOut,
    ]);
    for motion in steps {
        let reason = s.run_to_stop(motion);
        stops.push(stop(&s, reason));
    }
    for _ in 0..60 {
        let reason = s.step_back().unwrap();
        stops.push(stop(&s, reason));
    }
    s.set_breakpoints(&[]);
    for _ in 0..3 {
        let reason = s.reverse_continue().unwrap();
        stops.push(stop(&s, reason));
    }
    stops
}

#[test]
fn the_observed_run_stops_where_single_steps_stop() {
    let observed = journey(true);
    let stepped = journey(false);
    assert_eq!(observed.len(), stepped.len());
    for (i, (a, b)) in observed.iter().zip(&stepped).enumerate() {
        assert_eq!((a.0, a.1, &a.2), (b.0, b.1, &b.2), "stop {i} differs");
        assert!(a.3 == b.3, "state differs at stop {i}");
    }
}
