//! `cargo run --release -p backspin-rewind --example capture_cost -- ROM [--seconds N]
//! [--off]`: plays the bench's input script through a `Timeline` (capture every frame), or
//! with `--off` through a bare core, as `rewind-bench`'s slowdown passes do, and prints the
//! wall time. Run both under `valgrind --tool=cachegrind --cache-sim=no`: the difference of
//! their instruction counts is the capture's work, free of the noise of a shared machine.

use backspin_core::{Buttons, Core, Options, Rom, run_one_frame};
use backspin_rewind::Timeline;
use backspin_test_support::InputScript;
use std::time::Instant;

fn main() {
    let mut seconds = 60u64;
    let mut off = false;
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
    if off {
        let mut core = core;
        for _ in 0..frames {
            core.set_buttons(Buttons(script.next_frame()));
            run_one_frame(&mut core);
        }
    } else {
        let mut timeline = Timeline::new(core, 64 << 20);
        for _ in 0..frames {
            timeline.set_buttons(script.next_frame());
            timeline.run_frame();
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    println!(
        "{path}: {frames} frames, capture {}, {elapsed:.3} s, {:.2} us/frame",
        if off { "off" } else { "on" },
        elapsed * 1e6 / frames as f64
    );
}
