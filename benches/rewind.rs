//! Rewind costs: capture of one frame, seek to a random frame (restore + re-simulation),
//! one step back. The full verified benchmark is `backspin rewind-bench`.

use backspin_benches::{bench_rom, play_timeline, play_with_rewind, power_on};
use backspin_core::run_one_frame;
use backspin_rewind::{Rewinder, Timeline};
use backspin_test_support::SplitMix64;
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
    let mut timeline = Timeline::new(power_on(&rom), 64 << 20);
    play_timeline(&mut timeline, 3600, 1);
    let span = timeline.span();
    let mut rng = SplitMix64::new(42);
    c.bench_function(&format!("rewind/seek_random/{name}"), |b| {
        b.iter(|| {
            let frame = rng.range(span.oldest, span.newest);
            timeline.seek(frame).unwrap()
        })
    });
    timeline.seek(span.newest).unwrap();
    c.bench_function(&format!("rewind/step_back/{name}"), |b| {
        b.iter(|| {
            if timeline.frame() == span.oldest + 1 {
                timeline.seek(span.newest).unwrap();
            }
            timeline.step_back().unwrap()
        })
    });
}

criterion_group!(benches, capture, seek);
criterion_main!(benches);
