//! `cargo run --release -p backspin-rewind --example size_probe -- ROM... [--seconds N]
//! [--keyframe-interval N] [--chain-bytes N] [--windows] [--zero REGION]`: history size
//! only (every frame and k = 4), without the timing and verification passes of
//! `backspin rewind-bench`, for quick comparisons of encodings (a few seconds per ROM).
//!
//! `--windows` prints the stored bytes per frame for every 600 frames (game phases differ a
//! lot); `--zero apu|synth|channels|timers|phases|wram|vram|cpu|ppu|hram` zeroes that part of
//! every captured state (HRAM with OAM; `channels`: the four channels' counters, `timers`
//! their timers, `phases` timers and duty/sample positions and the LFSR), so the drop in
//! KiB/s is what that part costs.

use backspin_core::run_one_frame;
use backspin_core::{Core, Options, Rom, State};
use backspin_rewind::{Captured, Config, Rewinder, frames_to_seconds};
use backspin_test_support::InputScript;
use bytemuck::Zeroable;

fn main() {
    let mut seconds = 120;
    let mut roms = Vec::new();
    let mut config = Config::new(256 << 20);
    let mut windows = false;
    let mut zero = String::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = || -> usize {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{arg} needs a number"))
        };
        match arg.as_str() {
            "--seconds" => seconds = number() as u64,
            "--keyframe-interval" => config.keyframe_interval = number() as u32,
            "--chain-bytes" => config.keyframe_chain_bytes = number(),
            "--windows" => windows = true,
            "--zero" => zero = args.next().expect("--zero needs a region"),
            _ => roms.push(arg),
        }
    }
    for path in roms {
        let rom = Rom::from_bytes(std::fs::read(&path).expect("readable ROM")).expect("ROM");
        let mut core = Core::new(rom, Options::default());
        let mut every = Rewinder::with_config(config.clone());
        let mut k4 = Rewinder::with_config(Config {
            capture_every: 4,
            ..config.clone()
        });
        let mut script = InputScript::new(1);
        let frames = frames_in(seconds);
        let first = core.state().hw.frames;
        every.capture(core.state(), first);
        k4.capture(core.state(), first);
        let mut window = 0;
        for _ in 0..frames {
            let buttons = script.next_frame();
            // A probe of sizes on masked states: the raw rewinders, no resets, so the
            // timeline cycle is the core's M-cycle.
            k4.record_input(core.m_cycles(), buttons);
            every.record_input(core.m_cycles(), buttons);
            core.set_buttons(backspin_core::Buttons(buttons));
            run_one_frame(&mut core);
            let frame = core.state().hw.frames;
            let state = masked(core.state(), &zero);
            if let Captured::Stored { bytes, .. } = every.capture(&state, frame) {
                window += bytes;
            }
            k4.capture(&state, frame);
            if windows && frame.is_multiple_of(600) {
                print!("{} ", window / 600);
                window = 0;
            }
        }
        let secs = frames_to_seconds(frames);
        let (a, b) = (every.stats(), k4.stats());
        println!(
            "{:20} every {:7.3} KiB/s (keyframes {:3}, last {:5} B)  k4 {:7.3} KiB/s",
            path.rsplit('/').next().unwrap_or(&path),
            a.bytes_written as f64 / secs / 1024.0,
            a.keyframes_written,
            a.last_keyframe_bytes,
            b.bytes_written as f64 / secs / 1024.0,
        );
    }
}

/// The state with one part zeroed (see the module docs).
fn masked(state: &State, zero: &str) -> Box<State> {
    let mut s: Box<State> = bytemuck::zeroed_box();
    *s = *state;
    match zero {
        "apu" => s.hw.apu = Zeroable::zeroed(),
        "synth" => s.hw.apu.synth = Zeroable::zeroed(),
        "channels" => {
            s.hw.apu.square1 = Zeroable::zeroed();
            s.hw.apu.square2 = Zeroable::zeroed();
            s.hw.apu.noise = Zeroable::zeroed();
            s.hw.apu.wave = Zeroable::zeroed();
        }
        "timers" => {
            s.hw.apu.square1.timer = 0;
            s.hw.apu.square2.timer = 0;
            s.hw.apu.noise.timer = 0;
            s.hw.apu.wave.timer = 0;
        }
        "phases" => {
            s.hw.apu.square1.timer = 0;
            s.hw.apu.square2.timer = 0;
            s.hw.apu.noise.timer = 0;
            s.hw.apu.wave.timer = 0;
            s.hw.apu.square1.position = 0;
            s.hw.apu.square2.position = 0;
            s.hw.apu.noise.lfsr = 0;
            s.hw.apu.wave.position = 0;
        }
        "wram" => s.hw.wram = [0; 0x2000],
        "vram" => s.hw.vram = [0; 0x2000],
        "cpu" => s.cpu = Zeroable::zeroed(),
        "ppu" => s.hw.ppu = Zeroable::zeroed(),
        "hram" => {
            s.hw.hram = [0; 128];
            s.hw.oam = [0; 160];
        }
        _ => {}
    }
    s
}

/// Emulated frames in `seconds`.
fn frames_in(seconds: u64) -> u64 {
    (seconds * backspin_core::M_CYCLES_PER_SECOND).div_ceil(backspin_core::M_CYCLES_PER_FRAME)
}
