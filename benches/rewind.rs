//! Rewind costs: capture of one frame, seek to a random frame (restore + re-simulation),
//! one step back. The full verified benchmark is `backspin rewind-bench` (or
//! `cargo run --release -p backspin-rewind --example rewind_bench -- ROM`).

use backspin_benches::{bench_rom, play_with_rewind, power_on};
use backspin_rewind::Rewinder;
use backspin_rewind::bench::{Rng, run_one_frame};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};

fn capture(c: &mut Criterion) {
    let (name, rom) = bench_rom("pocket.gb");
    let mut core = power_on(&rom);
    let mut rewinder = Rewinder::new(64 << 20);
    play_with_rewind(&mut core, &mut rewinder, 600, 1);
    // Each iteration emulates a frame (setup, untimed) and captures it (timed).
    c.bench_function(&format!("rewind/capture/{name}"), |b| {
        b.iter_batched_ref(
            || {
                run_one_frame(&mut core);
                Box::new(*core.state())
            },
            |state| rewinder.capture(state, state.hw.frames),
            BatchSize::SmallInput,
        )
    });
}

fn seek(c: &mut Criterion) {
    let (name, rom) = bench_rom("pocket.gb");
    let mut core = power_on(&rom);
    let mut rewinder = Rewinder::new(64 << 20);
    play_with_rewind(&mut core, &mut rewinder, 3600, 1);
    let (oldest, newest) = (
        rewinder.oldest_frame().unwrap(),
        rewinder.newest_frame().unwrap(),
    );
    let mut rng = Rng(42);
    c.bench_function(&format!("rewind/seek_random/{name}"), |b| {
        b.iter(|| {
            let frame = rng.range(oldest, newest);
            rewinder.seek_core(&mut core, frame).unwrap()
        })
    });
    rewinder.seek_core(&mut core, newest).unwrap();
    c.bench_function(&format!("rewind/step_back/{name}"), |b| {
        b.iter(|| {
            if rewinder.present_frame() == Some(oldest + 1) {
                rewinder.seek_core(&mut core, newest).unwrap();
            }
            rewinder.step_back_core(&mut core).unwrap()
        })
    });
}

criterion_group!(benches, capture, seek);
criterion_main!(benches);
