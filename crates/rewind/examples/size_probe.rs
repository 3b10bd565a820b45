//! `cargo run --release -p backspin-rewind --example size_probe -- ROM... [--seconds N]`:
//! history size only (every frame and k = 4), without the timing and verification passes
//! of `rewind_bench`, for quick comparisons of encodings.

use backspin_core::{Core, Options, Rom};
use backspin_rewind::bench::{InputScript, frames_in, run_one_frame};
use backspin_rewind::{Config, Rewinder, frames_to_seconds};

fn main() {
    let mut seconds = 120;
    let mut roms = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => seconds = args.next().and_then(|v| v.parse().ok()).expect("N"),
            _ => roms.push(arg),
        }
    }
    for path in roms {
        let rom = Rom::from_bytes(std::fs::read(&path).expect("readable ROM")).expect("ROM");
        let mut core = Core::new(rom, Options::default());
        let mut config = Config::new(256 << 20);
        if let Some(k) = std::env::var("RW_KEY").ok().and_then(|v| v.parse().ok()) {
            config.keyframe_interval = k;
        }
        if let Some(k) = std::env::var("RW_CHAIN").ok().and_then(|v| v.parse().ok()) {
            config.keyframe_chain_bytes = k;
        }
        let mut every = Rewinder::with_config(config.clone());
        let mut k4 = Rewinder::with_config(Config {
            capture_every: 4,
            ..config
        });
        let mut script = InputScript::new(1);
        let frames = frames_in(seconds);
        let first = core.state().hw.frames;
        every.capture(core.state(), first);
        k4.capture(core.state(), first);
        let verbose = std::env::var("RW_VERBOSE").is_ok();
        let zero = std::env::var("RW_ZERO").ok();
        let mut window = 0;
        for _ in 0..frames {
            let buttons = script.next_frame();
            k4.record_input(core.m_cycles(), buttons);
            every.apply_input(&mut core, buttons);
            run_one_frame(&mut core);
            let frame = core.state().hw.frames;
            let mut masked = *core.state();
            match zero.as_deref() {
                Some("apu") => masked.hw.apu = bytemuck::Zeroable::zeroed(),
                Some("wram") => masked.hw.wram = [0; 0x2000],
                Some("vram") => masked.hw.vram = [0; 0x2000],
                Some("cpu") => masked.cpu = bytemuck::Zeroable::zeroed(),
                Some("ppu") => masked.hw.ppu = bytemuck::Zeroable::zeroed(),
                Some("hram") => {
                    masked.hw.hram = [0; 128];
                    masked.hw.oam = [0; 160];
                }
                _ => {}
            }
            if let backspin_rewind::Captured::Stored { bytes, .. } = every.capture(&masked, frame) {
                window += bytes;
            }
            k4.capture(core.state(), frame);
            if frame % 600 == 0 && verbose {
                print!("{} ", window / 600);
                window = 0;
            }
        }
        let secs = frames_to_seconds(frames);
        let (a, b) = (every.stats(), k4.stats());
        println!(
            "{:40} every {:6.2} KiB/s (keyframes {:3}, last {:5} B)  k4 {:6.2} KiB/s",
            path.rsplit('/').next().unwrap_or(&path),
            a.bytes_written as f64 / secs / 1024.0,
            a.keyframes_written,
            a.last_keyframe_bytes,
            b.bytes_written as f64 / secs / 1024.0,
        );
    }
}
