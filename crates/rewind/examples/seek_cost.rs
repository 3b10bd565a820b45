//! `cargo run --release -p backspin-rewind --example seek_cost -- ROM [--seconds N]
//! [--seeks N] [--passes N] [--input-seed N]`: plays the bench's input script through a
//! `Timeline` (capture every frame), then seeks to the same random frames as
//! `backspin rewind-bench` (same seed, same order) and prints the per-seek wall time (the
//! fastest of the passes per seek, as the bench's `seek_ms_*_best_of_3`).
//!
//! For a noise-free figure run it under callgrind, collecting only the seeks:
//! `valgrind --tool=callgrind --toggle-collect='*Timeline::seek*' ./seek_cost ROM`; the
//! instructions divided by passes × seeks are the mean cost of a seek, and
//! `callgrind_annotate --inclusive=yes` splits it (decode, apply, models, re-simulation).
//! With `--dump-each` every seek ends with a callgrind dump of its own (a client request,
//! a no-op outside valgrind), so each `callgrind.out.*` file holds one seek's cost: the
//! distribution, and which seeks are the slowest.

use backspin_core::{Core, Options, Rom};
use backspin_rewind::Timeline;
use backspin_test_support::{InputScript, SplitMix64};
use std::time::{Duration, Instant};

fn main() {
    let mut seconds = 600u64;
    let mut seeks = 1000usize;
    let mut passes = 3usize;
    let mut input_seed = 1u64;
    let mut dump_each = false;
    let mut rom_path = None;
    let mut args = std::env::args().skip(1);
    let number = |args: &mut std::iter::Skip<std::env::Args>, what: &str| -> u64 {
        args.next()
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{what} needs a number"))
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => seconds = number(&mut args, "--seconds"),
            "--seeks" => seeks = number(&mut args, "--seeks") as usize,
            "--passes" => passes = number(&mut args, "--passes").max(1) as usize,
            "--input-seed" => input_seed = number(&mut args, "--input-seed"),
            "--dump-each" => dump_each = true,
            _ => rom_path = Some(arg),
        }
    }
    let path = rom_path.expect("ROM path");
    let rom = Rom::from_bytes(std::fs::read(&path).expect("readable ROM")).expect("ROM");
    let frames = (seconds * backspin_core::M_CYCLES_PER_SECOND)
        .div_ceil(backspin_core::M_CYCLES_PER_FRAME)
        .max(2);
    // The bench's targets: its generator, seeded the same way, drawn first.
    let mut rng = SplitMix64::new(input_seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ 7);
    let targets: Vec<u64> = (0..seeks).map(|_| rng.range(1, frames)).collect();

    let mut script = InputScript::new(input_seed);
    let mut timeline = Timeline::new(Core::new(rom, Options::default()), 64 << 20);
    let first = timeline.frame();
    for _ in 0..frames {
        timeline.set_buttons(script.next_frame());
        timeline.run_frame();
    }
    let stats = timeline.stats();
    let oldest = timeline.span().oldest;

    let mut best = vec![Duration::MAX; targets.len()];
    for _ in 0..passes {
        for (slot, &target) in best.iter_mut().zip(&targets) {
            let f = first + target;
            if f < oldest {
                continue;
            }
            let t = Instant::now();
            timeline.seek(f).expect("seek within the history");
            *slot = (*slot).min(t.elapsed());
            if dump_each {
                callgrind_dump();
            }
        }
    }
    let mut ms: Vec<f64> = best
        .iter()
        .filter(|d| **d != Duration::MAX)
        .map(|d| d.as_secs_f64() * 1e3)
        .collect();
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
    println!(
        "{path}: {frames} frames, {} keyframes, {} seeks x {passes}: best-of-{passes} ms p50 {:.3} p99 {:.3} max {:.3}",
        stats.keyframes_written,
        ms.len(),
        at(0.5),
        at(0.99),
        at(1.0),
    );
}

/// Callgrind's `CALLGRIND_DUMP_STATS` client request: valgrind recognises the rotations of
/// `rdi` (which leave it as it was) followed by `xchg rbx, rbx`, and answers in `rdx`;
/// natively the sequence changes nothing.
#[cfg(target_arch = "x86_64")]
fn callgrind_dump() {
    const DUMP_STATS: u64 = ((b'C' as u64) << 24) | ((b'T' as u64) << 16);
    let args = [DUMP_STATS, 0, 0, 0, 0, 0];
    // SAFETY: the instructions only rotate `rdi` by a full turn and swap `rbx` with itself;
    // under valgrind the request reads `args` and writes `rdx`, declared clobbered.
    unsafe {
        std::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            in("rax") args.as_ptr(),
            inout("rdx") 0u64 => _,
            inout("rdi") 0u64 => _,
        );
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn callgrind_dump() {}
