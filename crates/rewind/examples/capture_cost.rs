//! `cargo run --release -p backspin-rewind --example capture_cost -- ROM [--seconds N]
//! [--off | --split]`: plays the bench's input script through a `Timeline` (capture every
//! frame), or with `--off` through a bare core, as `rewind-bench`'s slowdown passes do, and
//! prints the wall time. Run both under `valgrind --tool=cachegrind --cache-sim=no`: the
//! difference of their instruction counts is the capture's work, free of the noise of a
//! shared machine. `--split` times the emulation and the capture of each frame apart and
//! prints (in µs) the deltas' percentiles and mean, the keyframes' mean and largest, and
//! the emulation of the frame after a keyframe against the median frame. With capture on,
//! it also prints the saved history's length and hash, to show that a change to the
//! encoder leaves the records as they were.

use backspin_core::{Buttons, Core, Options, Rom, run_one_frame};
use backspin_rewind::{Captured, Timeline};
use backspin_test_support::InputScript;
use std::time::Instant;

fn main() {
    let mut seconds = 60u64;
    let mut off = false;
    let mut split = false;
    let mut rom_path = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                seconds = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--seconds needs a number");
            }
            "--off" => off = true,
            "--split" => split = true,
            _ => rom_path = Some(arg),
        }
    }
    let path = rom_path.expect("ROM path");
    let rom = Rom::from_bytes(std::fs::read(&path).expect("readable ROM")).expect("ROM");
    let frames =
        (seconds * backspin_core::M_CYCLES_PER_SECOND).div_ceil(backspin_core::M_CYCLES_PER_FRAME);
    let mut script = InputScript::new(1);
    let core = Core::new(rom, Options::default());
    let start = Instant::now();
    let mut kept = None;
    if off {
        let mut core = core;
        for _ in 0..frames {
            core.set_buttons(Buttons(script.next_frame()));
            run_one_frame(&mut core);
        }
    } else {
        let mut timeline = Timeline::new(core, 64 << 20);
        if split {
            report_split(&mut timeline, &mut script, frames);
        } else {
            for _ in 0..frames {
                timeline.set_buttons(script.next_frame());
                timeline.run_frame();
            }
        }
        kept = Some(timeline);
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{path}: {frames} frames, capture {}, {elapsed:.3} s, {:.2} us/frame",
        if off { "off" } else { "on" },
        elapsed * 1e6 / frames as f64
    );
    if let Some(timeline) = kept {
        let history = timeline.save_history().unwrap_or_default();
        println!(
            "history {} bytes, hash {:016x}",
            history.len(),
            fnv1a(&history)
        );
    }
}

/// FNV-1a over the history's bytes (a fingerprint to compare runs, not a checksum).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Times each frame's emulation and capture apart (`--split`) and prints them in µs.
fn report_split(timeline: &mut Timeline, script: &mut InputScript, frames: u64) {
    let mut emulate = Vec::with_capacity(frames as usize);
    let mut deltas = Vec::with_capacity(frames as usize);
    let mut keyframes = Vec::new();
    let mut after_keyframe = Vec::new();
    let mut previous_keyframe = false;
    for _ in 0..frames {
        timeline.set_buttons(script.next_frame());
        let t = Instant::now();
        timeline.emulate_frame();
        let e = t.elapsed().as_secs_f64() * 1e6;
        let t = Instant::now();
        timeline.record_frame();
        let c = t.elapsed().as_secs_f64() * 1e6;
        emulate.push(e);
        if previous_keyframe {
            after_keyframe.push(e);
        }
        previous_keyframe = matches!(
            timeline.last_capture(),
            Some(Captured::Stored { keyframe: true, .. })
        );
        if previous_keyframe {
            keyframes.push(c);
        } else {
            deltas.push(c);
        }
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let total_capture: f64 = deltas.iter().chain(&keyframes).sum();
    let total_emulate: f64 = emulate.iter().sum();
    emulate.sort_by(f64::total_cmp);
    deltas.sort_by(f64::total_cmp);
    let at = |v: &[f64], q: f64| v[((v.len().max(1) - 1) as f64 * q) as usize];
    println!(
        "emulate p50 {:.2} mean {:.2}; delta capture p10 {:.2} p50 {:.2} p90 {:.2} p99 {:.2} \
         mean {:.3}; keyframes {} mean {:.1} max {:.1}; frame after a keyframe {:.2}; capture \
         {:.2} % of emulation",
        at(&emulate, 0.5),
        total_emulate / frames as f64,
        at(&deltas, 0.1),
        at(&deltas, 0.5),
        at(&deltas, 0.9),
        at(&deltas, 0.99),
        mean(&deltas),
        keyframes.len(),
        mean(&keyframes),
        keyframes.iter().copied().fold(0.0, f64::max),
        mean(&after_keyframe),
        100.0 * total_capture / total_emulate,
    );
}
