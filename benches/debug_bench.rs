//! The debugger's speed on real games, as one JSON object per ROM (DMG):
//! `cargo run --release -p backspin-benches --bin debug_bench -- ROM...`
//! - `reverse_watch_s`: reverse continue to the last change of a WRAM byte that last
//!   changed about ten emulated minutes back;
//! - `reverse_break_s`: reverse continue to an instruction breakpoint hit 30 s back;
//! - `step_back_p50_ms`, `step_back_p99_ms`: 1,000 single steps back;
//! - `continue_ratio`: speed of a continue with 8 instruction breakpoints and 4 write
//!   watchpoints (on WRAM bytes that stayed the same for ten minutes) set, over
//!   `plain_fps`: the core alone on the same 600 frames (`run_one_frame`, sound on, as
//!   `backspin bench` runs); `timeline_fps`: the session's timeline running frames and
//!   recording its history, without a debugger's run.
//!
//! Times are the bench thread's CPU time.

use backspin_core::{Core, FastPaths, Model, Options, Rom, run_one_frame};
use backspin_debug::{AccessKind, BreakpointSpec, Motion, Session, Symbols};
// CPU time of this thread, not wall time: the machines it runs on are shared, and wall
// time there counts the other programs' turns too.
use cpu_time::ThreadTime;

const FRAMES_PER_MINUTE: u64 = 3600;

fn core(bytes: &[u8]) -> Core {
    let rom = Rom::from_bytes(bytes.to_vec()).expect("a valid ROM");
    Core::new(
        rom,
        Options {
            model: Model::Dmg,
            boot_rom: None,
        },
    )
}

fn wram(session: &mut Session) -> Vec<u8> {
    (0xC000u16..0xE000).map(|a| session.peek(a)).collect()
}

fn bench(path: &str) -> String {
    let bytes = std::fs::read(path).expect("readable ROM");
    let mut s = Session::new(core(&bytes), Symbols::default(), 1 << 30);
    // A byte whose last change is early on: changed in the first 10 s (after the first
    // frame, so a game's start-up writes count), then constant at every one of the
    // 1-second samples taken over the next ten minutes.
    s.run_frames_unobserved(1);
    let early = wram(&mut s);
    s.run_frames_unobserved(599);
    let mut candidates: Vec<bool> = wram(&mut s)
        .iter()
        .zip(&early)
        .map(|(a, b)| a != b)
        .collect();
    let mut last = wram(&mut s);
    let mut steady = vec![true; last.len()];
    for _ in 0..10 * 60 {
        s.run_frames_unobserved(60);
        let now = wram(&mut s);
        for (i, c) in candidates.iter_mut().enumerate() {
            *c &= now[i] == last[i];
            steady[i] &= now[i] == last[i];
        }
        last = now;
    }
    // Watched bytes for the continue: the last four that stayed the same for ten minutes.
    let quiet: Vec<u16> = (0..steady.len())
        .rev()
        .filter(|&i| steady[i])
        .take(4)
        .map(|i| 0xC000 + i as u16)
        .collect();
    let watched = candidates
        .iter()
        .position(|&c| c)
        .map(|i| 0xC000 + i as u16);
    let end_frame = s.timeline().frame();
    let reverse_watch = watched.map(|addr| {
        s.add_watchpoint(&format!("${addr:04X}"), 1, AccessKind::Write, None).expect("watchpoint");
        let t = ThreadTime::now();
        let reason = s.reverse_continue().expect("reverse continue");
        let secs = t.elapsed().as_secs_f64();
        let frame = s.timeline().frame();
        s.clear_watchpoints();
        format!(
            r#"{{"addr": "${addr:04X}", "seconds": {secs:.3}, "landed_frame": {frame}, "frames_back": {}, "reason": "{reason:?}"}}"#,
            end_frame - frame
        )
    });
    s.run_frames_unobserved(FRAMES_PER_MINUTE);

    // A breakpoint hit 30 s back: the PC at that frame's end, only in that frame.
    let now = s.timeline().frame();
    let target = now - FRAMES_PER_MINUTE / 2;
    let spec = |place: String, condition: Option<String>| BreakpointSpec {
        place,
        condition,
        ..BreakpointSpec::default()
    };
    // Find the PC at the target frame: step back there by frames.
    let mut at_target = Session::new(core(&bytes), Symbols::default(), 0);
    at_target.run_frames_unobserved(target);
    let pc = at_target.timeline().core().state().cpu.pc;
    s.set_breakpoints(&[spec(
        format!("${pc:04X}"),
        Some(format!("frame == {target}")),
    )]);
    let t = ThreadTime::now();
    let reason = s.reverse_continue().expect("reverse continue");
    let reverse_break = t.elapsed().as_secs_f64();
    let break_frame = s.timeline().frame();
    s.set_breakpoints(&[]);

    // Steps back from somewhere in the middle of a frame.
    s.run_frames_unobserved(10);
    for _ in 0..3000 {
        s.run_to_stop(Motion::StepIn);
    }
    let mut times: Vec<f64> = (0..1000)
        .map(|_| {
            let t = ThreadTime::now();
            s.step_back().expect("step back");
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    times.sort_by(f64::total_cmp);

    // Continue with 8 breakpoints (never hit) and 4 watchpoints.
    let specs: Vec<BreakpointSpec> = (0..8)
        .map(|i| spec(format!("${:04X}", 0x7FF0 + i), None))
        .collect();
    s.set_breakpoints(&specs);
    for addr in &quiet {
        s.add_watchpoint(&format!("${addr:04X}"), 1, AccessKind::Write, None)
            .expect("watchpoint");
    }
    // The same frames on the session's timeline without a debugger's run (recording the
    // rewind history every frame), then a continue in slices, as the adapter runs it
    // between messages.
    let t = ThreadTime::now();
    s.run_frames_unobserved(600);
    let timeline_fps = 600.0 / t.elapsed().as_secs_f64();
    // Plain speed over the same frames: the core alone with every fast path and sound on,
    // as `backspin bench` runs it.
    let mut plain = s.timeline().core().clone();
    plain.set_fast_paths(FastPaths::ALL);
    let t = ThreadTime::now();
    for _ in 0..600 {
        run_one_frame(&mut plain);
    }
    let plain_fps = 600.0 / t.elapsed().as_secs_f64();
    let t = ThreadTime::now();
    let from = s.timeline().frame();
    let debug_frames = 600;
    let mut hits = 0;
    s.start(Motion::Continue);
    while s.timeline().frame() < from + debug_frames {
        if s.advance(20_000).is_some() {
            // A write of the value already there still stops: count it and go on.
            hits += 1;
            s.start(Motion::Continue);
        }
    }
    s.pause();
    let debug_frames = s.timeline().frame() - from;
    let debug_fps = debug_frames as f64 / t.elapsed().as_secs_f64();

    format!(
        r#"{{"rom": "{path}", "frames_held": {}, "reverse_watch": {}, "reverse_break": {{"seconds": {reverse_break:.3}, "frames_back": {}, "reason": "{reason:?}"}}, "step_back_p50_ms": {:.3}, "step_back_p99_ms": {:.3}, "plain_fps": {plain_fps:.0}, "timeline_fps": {timeline_fps:.0}, "debug_continue_fps": {debug_fps:.0}, "continue_ratio": {:.3}, "continue_watched": {:?}, "continue_hits": {hits}}}"#,
        s.timeline().span().newest - s.timeline().span().oldest,
        reverse_watch.unwrap_or_else(|| "null".into()),
        now - break_frame,
        times[500],
        times[989],
        debug_fps / plain_fps,
        quiet
            .iter()
            .map(|a| format!("${a:04X}"))
            .collect::<Vec<_>>()
    )
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        eprintln!("usage: debug_bench ROM...");
        std::process::exit(2);
    }
    let results: Vec<String> = paths.iter().map(|p| bench(p)).collect();
    println!("[{}]", results.join(",\n"));
}
