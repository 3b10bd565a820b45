//! Core speed: emulated frames per second on a homebrew ROM (or the built-in one).

use backspin_benches::{bench_rom, power_on};
use backspin_core::run_one_frame;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

fn frames(c: &mut Criterion) {
    let (name, rom) = bench_rom("opus5.gb");
    let mut core = power_on(&rom);
    // Past the title screen's first frames.
    for _ in 0..120 {
        run_one_frame(&mut core);
    }
    let mut group = c.benchmark_group("core");
    group.throughput(Throughput::Elements(1));
    group.bench_function(format!("run_frame/{name}"), |b| {
        b.iter(|| run_one_frame(&mut core))
    });
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
