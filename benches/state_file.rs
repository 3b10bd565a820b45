//! Save-state files: time to save (encode) and to load (decode, validate, commit) one
//! state, and the file size (printed). Target: at most 1 ms each.

use backspin_benches::{bench_rom, power_on};
use backspin_core::run_one_frame;
use backspin_core::state_file::{self, Metadata};
use criterion::{Criterion, criterion_group, criterion_main};

fn save_and_load(c: &mut Criterion) {
    let (name, rom) = bench_rom("opus5.gb");
    let mut core = power_on(&rom);
    for _ in 0..300 {
        run_one_frame(&mut core);
    }
    let metadata = Metadata::default();
    let file = state_file::save(&core, &metadata);
    eprintln!(
        "state file for {name}: {} bytes ({} of state)",
        file.len(),
        state_file::info(&file).unwrap().state_bytes
    );
    let mut group = c.benchmark_group("state_file");
    group.bench_function(format!("save/{name}"), |b| {
        b.iter(|| state_file::save(&core, &metadata))
    });
    let mut target = core.clone();
    group.bench_function(format!("load/{name}"), |b| {
        b.iter(|| state_file::load(&mut target, &file).expect("loads"))
    });
    group.finish();
}

criterion_group!(benches, save_and_load);
criterion_main!(benches);
