//! Runs a ROM for `FRAMES` frames (default 600) with no host work in between, for profiling
//! under `valgrind --tool=cachegrind` (instruction counts are stable on a shared machine):
//! `FRAMES=600 valgrind --tool=cachegrind --cache-sim=no target/release/examples/speed ROM`.
//! With `HASH=1` it prints an FNV-1a hash of the frame and the whole `State` after every
//! frame, folded into one value, so a speed change can be checked to change nothing.

use backspin_core::{Core, Options, Rom};

fn main() {
    let Some(path) = std::env::args_os().nth(1) else {
        eprintln!("usage: speed ROM  (env FRAMES=600, HASH=1)");
        std::process::exit(2);
    };
    let frames: u32 = std::env::var("FRAMES")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(600);
    let hash_each_frame = std::env::var_os("HASH").is_some();
    let bytes = std::fs::read(&path).expect("ROM file readable");
    let mut core = Core::new(
        Rom::from_bytes(bytes).expect("ROM parses"),
        Options::default(),
    );
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for _ in 0..frames {
        core.run_frame();
        if hash_each_frame {
            for &byte in core.frame().iter().chain(core.state().as_bytes()) {
                hash = (hash ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
            }
        }
    }
    println!(
        "{}: {frames} frames, {} m-cycles, hash {hash:016x}",
        path.to_string_lossy(),
        core.m_cycles()
    );
}
